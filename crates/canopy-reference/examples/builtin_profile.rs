//! A built-in-only tree file run by canopy or by the flat interpreter, for
//! instruction counts under callgrind, which are stable where wall-clock
//! figures on a shared machine are not:
//!
//! ```sh
//! cargo build --release -p canopy-reference --example builtin_profile
//! valgrind --tool=callgrind target/release/examples/builtin_profile canopy 1000 100
//! valgrind --tool=callgrind target/release/examples/builtin_profile flat 1000 100
//! ```
//!
//! Arguments: the engine (`canopy` or `flat`), agents, ticks, and
//! optionally a tree file (default `examples/trees/random35.json`), seed 0,
//! or `chain:LEVELS:resumed` / `chain:LEVELS:finished` for the alternating
//! chains of the bench's `levels` group (`flat::alternating_chain` over a
//! mostly running `Random` leaf or over `AlwaysSuccess`). Prints the root
//! statuses of the last tick, so both engines can be seen to agree.

use std::hint::black_box;

use canopy_core::{Agent, Status, Tree};
use canopy_data::{Format, Registry, TreeSource};
use canopy_reference::flat::{self, FlatCrowd, FlatTree};

const RANDOM35: &str = include_str!("../../../examples/trees/random35.json");

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (engine, agents, ticks, text) = match args.as_slice() {
        [engine, agents, ticks] => (engine, agents, ticks, RANDOM35.to_string()),
        [engine, agents, ticks, file] => (engine, agents, ticks, tree_text(file)?),
        _ => {
            return Err(
                "usage: builtin_profile canopy|flat AGENTS TICKS [FILE|chain:LEVELS:resumed|finished]"
                    .to_string(),
            );
        }
    };
    let agents: u32 = agents.parse().map_err(|e| format!("agents: {e}"))?;
    let ticks: u32 = ticks.parse().map_err(|e| format!("ticks: {e}"))?;
    let mut last = vec![Status::Running; agents as usize];
    match engine.as_str() {
        "canopy" => {
            let tree: Tree<(), ()> = Registry::new()
                .loading(TreeSource::text(&text, Format::Json, "tree.json"))
                .load()
                .map_err(|e| e.to_string())?;
            let mut crowd: Vec<Agent> = (0..agents).map(|i| Agent::with_id(&tree, i)).collect();
            for _ in 0..ticks {
                for (agent, status) in crowd.iter_mut().zip(&mut last) {
                    *status = black_box(agent.tick(&tree, &mut (), &()));
                }
            }
        }
        "flat" => {
            let def = flat::read_builtin(&text, 0)?;
            let tree = FlatTree::build(&def).map_err(|e| e.to_string())?;
            let mut crowd = FlatCrowd::new(&tree, agents as usize);
            for _ in 0..ticks {
                for (id, (state, status)) in crowd.agents_mut().zip(&mut last).enumerate() {
                    *status = black_box(tree.tick(state, id as u32, &mut (), &()));
                }
            }
        }
        other => return Err(format!("no engine {other:?}: canopy or flat")),
    }
    let count = |s| last.iter().filter(|&&l| l == s).count();
    println!(
        "last tick: {} running, {} success, {} failure",
        count(Status::Running),
        count(Status::Success),
        count(Status::Failure)
    );
    Ok(())
}

/// The tree's text: a file, or an alternating chain (`chain:LEVELS:resumed`
/// or `chain:LEVELS:finished`) as the bench's `levels` group makes it.
fn tree_text(arg: &str) -> Result<String, String> {
    let Some(chain) = arg.strip_prefix("chain:") else {
        return std::fs::read_to_string(arg).map_err(|e| format!("{arg}: {e}"));
    };
    let (levels, what) = chain
        .split_once(':')
        .ok_or_else(|| format!("{arg}: chain:LEVELS:resumed or chain:LEVELS:finished"))?;
    let levels: usize = levels.parse().map_err(|e| format!("{arg}: levels: {e}"))?;
    let leaf = match what {
        "resumed" => r#"{"type": "Random", "name": "work", "success": 0.05, "failure": 0.05}"#,
        "finished" => r#"{"type": "AlwaysSuccess", "name": "done"}"#,
        other => return Err(format!("{arg}: no chain {other:?}: resumed or finished")),
    };
    Ok(flat::alternating_chain(levels, leaf))
}
