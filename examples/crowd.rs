//! The crowd demo: thousands of agents sharing one behavior tree, loaded
//! from `examples/trees/crowd.json`, ticked in parallel; the final frame is
//! written to `crowd.svg`.
//!
//! ```text
//! cargo run --release --example crowd
//! cargo run --release --example crowd -- --agents 100000 --steps 200 --threads 2 --json
//! cargo run --release --example crowd -- --serve    # watch it live in a browser
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use canopy::Mode;
use canopy_crowd::{Activity, Config, Crowd, load_default_tree, registry, render_svg};
use canopy_inspector::{EngineView, Frame, Inspector, Label, Options};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};

/// Run the canopy crowd simulation and draw its last frame.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Number of agents.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=2_000_000))]
    agents: u32,
    /// Simulation steps (0.1 s each).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    steps: u32,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Seed of the run: same seed, same final state.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Behavior tree file (default: the built-in examples/trees/crowd.json).
    #[arg(long)]
    tree: Option<PathBuf>,
    /// Where to write the SVG picture of the final frame.
    #[arg(long, default_value = "crowd.svg")]
    out: PathBuf,
    /// Print a JSON object with the figures as the last line.
    #[arg(long)]
    json: bool,
    /// How agents run the tree: `tick` (from the root, every tick) or
    /// `event` (only what can change). The default tree's root is a
    /// priority selector that re-checks every tick, so for it the two
    /// coincide; trees with deep running branches gain from `event`.
    #[arg(long, default_value = "tick")]
    mode: Mode,
    /// Serve the inspector (the crowd live in a browser, one agent's tree,
    /// pause / step / resume) and run until interrupted, one step per 0.1 s.
    #[arg(long)]
    serve: bool,
    /// Where `--serve` listens: this machine only by default; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:7878")]
    addr: SocketAddr,
}

fn main() {
    let args = Args::parse();
    let tree = match &args.tree {
        Some(path) => registry().load_file(path),
        None => load_default_tree(),
    };
    let tree = tree.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1);
    });
    let threads = args
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");

    let config = Config {
        agents: args.agents as usize,
        seed: args.seed,
        mode: args.mode,
        ..Config::default()
    };
    let mut crowd = Crowd::new(tree, &config);
    if args.serve {
        pool.install(|| serve(&mut crowd, args.addr));
        return;
    }
    let bar = ProgressBar::new(args.steps as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} step {pos}/{len} [{bar:40}] {per_sec} ETA {eta}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let (mut tree_time, mut move_time) = (Duration::ZERO, Duration::ZERO);
    pool.install(|| {
        for _ in 0..args.steps {
            let times = crowd.step();
            tree_time += times.tree;
            move_time += times.movement;
            bar.inc(1);
        }
    });
    bar.finish_and_clear();

    let title = format!("canopy crowd, seed {}", args.seed);
    let svg = render_svg(&crowd, &title);
    if let Err(e) = std::fs::write(&args.out, svg) {
        eprintln!("error: cannot write {}: {e}", args.out.display());
        std::process::exit(1);
    }

    let steps = args.steps as f64;
    let agents = args.agents as f64;
    let tree_ms = tree_time.as_secs_f64() * 1e3 / steps;
    let move_ms = move_time.as_secs_f64() * 1e3 / steps;
    let ticks_per_sec = agents * steps / tree_time.as_secs_f64();
    let bytes = crowd.behavior_bytes_per_agent();
    let counts = crowd.activity_counts();

    println!(
        "{} agents × {} steps on {threads} threads, {} mode; tree: {} nodes, shared by all",
        args.agents,
        args.steps,
        args.mode,
        crowd.tree().len()
    );
    println!(
        "ms per step: {:.2} tree + {:.2} movement = {:.2}",
        tree_ms,
        move_ms,
        tree_ms + move_ms
    );
    println!(
        "tree: {:.1} M agent-ticks/s ({:.0} ns per agent-tick with {threads} threads)",
        ticks_per_sec / 1e6,
        1e9 / ticks_per_sec
    );
    println!("behavior state: {bytes:.1} bytes per agent (Agent value + its task memory)");
    let listed: Vec<String> = counts
        .iter()
        .map(|(a, n)| format!("{} {n}", a.word()))
        .collect();
    println!("running now: {}", listed.join(", "));
    println!("state hash: {:016x}", crowd.state_hash());
    println!("picture: {}", args.out.display());
    if args.json {
        let counts: Vec<String> = counts
            .iter()
            .map(|(a, n)| format!("\"{}\":{n}", a.word()))
            .collect();
        println!(
            "{{\"agents\":{},\"steps\":{},\"threads\":{threads},\"mode\":\"{}\",\"tree_ms_per_step\":{tree_ms:.3},\
             \"movement_ms_per_step\":{move_ms:.3},\"agent_ticks_per_sec\":{ticks_per_sec:.0},\
             \"behavior_bytes_per_agent\":{bytes:.1},\"activities\":{{{}}},\"state_hash\":\"{:016x}\"}}",
            args.agents,
            args.steps,
            args.mode,
            counts.join(","),
            crowd.state_hash()
        );
    }
}

/// `--serve`: run the crowd under the inspector, at the pace of its clock.
fn serve(crowd: &mut Crowd, addr: SocketAddr) {
    let mut activities = Activity::ALL;
    activities.sort_by_key(|&a| a as u8); // a frame's label is `activity as u8`
    let options = Options {
        addr,
        title: "canopy crowd".to_string(),
        legend: activities
            .iter()
            .map(|a| Label::new(a.word(), a.colour()))
            .collect(),
        ..Options::default()
    };
    let inspector = Inspector::start(crowd.tree(), options).unwrap_or_else(|e| {
        eprintln!("error: cannot serve the inspector on {addr}: {e}");
        std::process::exit(1);
    });
    println!("inspector: {} (Ctrl-C to stop)", inspector.url());
    let mut frame = Frame::new();
    let pace = Duration::from_secs_f32(crowd.world.dt);
    loop {
        inspector.wait_turn();
        let started = Instant::now();
        let probe = inspector.probe();
        crowd.step_with(|agent, tree, walker, world| probe.tick(agent, tree, walker, world));
        if inspector.frame_due() {
            let size = crowd.world.size;
            frame.begin(crowd.world.step, [0.0; 2], [size; 2]);
            for (i, walker) in crowd.walkers.iter().enumerate() {
                frame.push_at(i as u32, walker.pos.to_array(), walker.activity as u8);
            }
            // The watched agent's running tasks, read from its memory.
            let watched = inspector
                .watched()
                .filter(|&i| (i as usize) < crowd.walkers.len());
            match watched {
                Some(i) => {
                    let view = EngineView {
                        agent: crowd.agent(i as usize),
                        tree: crowd.tree(),
                    };
                    inspector.publish_with(&frame, Some(&view));
                }
                None => inspector.publish(&frame),
            }
        }
        if !inspector.switch().is_paused() {
            std::thread::sleep(pace.saturating_sub(started.elapsed()));
        }
    }
}
