//! Hot reload under the inspector: a crowd runs a tree file (built-in node
//! types), and whenever the file changes on disk every agent moves onto
//! the edited tree (`Agent::reload`) and the inspector is told
//! (`Inspector::set_tree`), so an open page redraws the new tree with the
//! watched agent's running tasks on their new boxes.
//!
//! ```text
//! cargo run -p canopy-inspector --example reload -- examples/trees/sentry.json --agents 50
//! ```
//!
//! The file is checked once a step by its modification time: no watcher
//! thread, and a half-written file that does not load yet is simply tried
//! again when it changes next. The watched agent's blackboard is shown
//! beside its tree (`Inspector::set_board`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};

use canopy_core::{Agent, Status, Tree};
use canopy_data::{Registry, TreeSource};
use canopy_inspector::{EngineView, Frame, Inspector, Label, Options, board_of};
use clap::Parser;

/// Run a tree file for a crowd under the inspector, reloading it on change.
#[derive(Parser, Debug)]
struct Args {
    /// Tree file (.json or .ron), built-in node types.
    tree: PathBuf,
    /// Agents, with ids 0 to N−1.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    agents: u32,
    /// Where to listen: this machine only by default; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:7878")]
    addr: SocketAddr,
}

/// The map's labels: what each agent's root said at its last tick.
const RUNNING: u8 = 0;
const SUCCEEDED: u8 = 1;
const FAILED: u8 = 2;

fn load(path: &Path) -> Result<Tree<(), ()>, String> {
    Registry::<(), ()>::new()
        .loading(TreeSource::file(&path))
        .load()
        .map_err(|e| e.to_string())
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut tree = match load(&args.tree) {
        Ok(tree) => tree,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let options = Options {
        addr: args.addr,
        title: format!("{} (reloaded on change)", args.tree.display()),
        legend: vec![
            Label::new("running", "#ffb300"),
            Label::new("succeeded", "#43a047"),
            Label::new("failed", "#c62828"),
        ],
        ..Options::default()
    };
    let mut inspector = match Inspector::start(&tree, options) {
        Ok(inspector) => inspector,
        Err(e) => {
            eprintln!("error: cannot serve the inspector on {}: {e}", args.addr);
            return ExitCode::FAILURE;
        }
    };
    println!("inspector: {} (Ctrl-C to stop)", inspector.url());
    let mut agents: Vec<Agent> = (0..args.agents).map(|i| Agent::with_id(&tree, i)).collect();
    let mut labels = vec![RUNNING; agents.len()];
    let mut seen = modified(&args.tree);
    let mut frame = Frame::new();
    for step in 1u32.. {
        inspector.wait_turn();
        let started = Instant::now();
        let now = modified(&args.tree);
        if now != seen {
            seen = now;
            match load(&args.tree) {
                Ok(new) => {
                    for agent in &mut agents {
                        agent.reload(&tree, &new, &mut (), &());
                    }
                    tree = new;
                    inspector.set_tree(&tree);
                    println!("reloaded {} at step {step}", args.tree.display());
                }
                Err(e) => println!("not reloaded: {e}"),
            }
        }
        let probe = inspector.probe();
        for (agent, label) in agents.iter_mut().zip(&mut labels) {
            *label = match probe.tick(agent, &tree, &mut (), &()) {
                Status::Running => RUNNING,
                Status::Success => SUCCEEDED,
                Status::Failure => FAILED,
            };
        }
        if inspector.frame_due() {
            frame.begin(step, [0.0; 2], [1.0; 2]);
            for (id, &label) in labels.iter().enumerate() {
                frame.push(id as u32, label);
            }
            let watched = inspector.watched().and_then(|i| agents.get_mut(i as usize));
            match watched {
                Some(agent) => {
                    inspector.set_board(board_of(agent, &tree));
                    let view = EngineView { agent, tree: &tree };
                    inspector.publish_with(&frame, Some(&view));
                }
                None => inspector.publish(&frame),
            }
        }
        if !inspector.switch().is_paused() {
            std::thread::sleep(Duration::from_millis(100).saturating_sub(started.elapsed()));
        }
    }
    ExitCode::SUCCESS
}
