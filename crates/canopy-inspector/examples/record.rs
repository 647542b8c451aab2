//! Record a crowd running a tree file (built-in node types) and write the
//! trace: every agent, or the ones given with `--agent`, each in a log of
//! the last `--capacity` events.
//!
//! ```text
//! cargo run -p canopy-inspector --example record -- examples/trees/sentry.json \
//!     --agents 40 --ticks 200 --out sentry.jsonl
//! cargo run -p canopy-inspector --example replay -- sentry.jsonl --tree examples/trees/sentry.json
//! ```

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use canopy_core::Agent;
use canopy_data::{Registry, TreeSource};
use canopy_inspector::{Recorder, Selection, Shape};
use clap::Parser;

/// Run a tree file for a crowd and write the recorded events as a trace.
#[derive(Parser, Debug)]
struct Args {
    /// Tree file (.json or .ron), built-in node types.
    tree: PathBuf,
    /// Agents, with ids 0 to N−1.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    agents: u32,
    /// Ticks to run.
    #[arg(long, default_value_t = 100)]
    ticks: u32,
    /// Record only these agents (repeat the flag); default: all.
    #[arg(long)]
    agent: Vec<u32>,
    /// Events kept per recorded agent (the oldest go first).
    #[arg(long, default_value_t = 100_000)]
    capacity: usize,
    /// Seed of the random nodes.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the trace.
    #[arg(long)]
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let tree = match Registry::<(), ()>::new()
        .with_seed(args.seed)
        .loading(TreeSource::file(&args.tree))
        .load()
    {
        Ok(tree) => tree,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let selection = if args.agent.is_empty() {
        Selection::All(args.agents)
    } else {
        Selection::Agents(args.agent.clone())
    };
    let recorder = Recorder::new(selection, args.capacity);
    let mut crowd: Vec<Agent> = (0..args.agents).map(|i| Agent::with_id(&tree, i)).collect();
    for _ in 0..args.ticks {
        for agent in &mut crowd {
            recorder.tick(agent, &tree, &mut (), &());
        }
    }
    let written = File::create(&args.out).and_then(|file| {
        let mut out = BufWriter::new(file);
        recorder.write_trace(&Shape::of(&tree), &mut out)?;
        out.flush()
    });
    if let Err(e) = written {
        eprintln!("error: cannot write {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "{} events of {} agents × {} ticks in {} ({} dropped)",
        recorder.records().len(),
        args.agents,
        args.ticks,
        args.out.display(),
        recorder.dropped()
    );
    ExitCode::SUCCESS
}
