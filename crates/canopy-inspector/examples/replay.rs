//! Serve a recording in the inspector, with a timeline to scrub: what
//! `canopy view TRACE --tree FILE` does.
//!
//! ```text
//! cargo run -p canopy-inspector --example replay -- sentry.jsonl --tree examples/trees/sentry.json
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use canopy_data::{Registry, TreeSource};
use canopy_inspector::replay;
use clap::{Parser, ValueEnum};

/// Which node types the tree file may use.
#[derive(ValueEnum, Clone, Copy, Debug)]
enum Types {
    /// canopy's built-in node types.
    Builtin,
    /// The built-in types plus the crowd simulation's.
    Crowd,
}

/// Replay a trace (JSON lines, as `canopy run --trace` writes) in the browser.
#[derive(Parser, Debug)]
struct Args {
    /// The trace file.
    trace: PathBuf,
    /// The tree file the trace was recorded from.
    #[arg(long)]
    tree: PathBuf,
    /// Node types the tree file may use.
    #[arg(long, value_enum, default_value_t = Types::Builtin)]
    types: Types,
    /// Where to listen: this machine only by default; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:7879")]
    addr: SocketAddr,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let served = match args.types {
        Types::Builtin => Registry::<(), ()>::new()
            .loading(TreeSource::file(&args.tree))
            .load()
            .map_err(|e| e.to_string())
            .and_then(|tree| {
                replay::serve(&args.trace, &tree, args.addr).map_err(|e| e.to_string())
            }),
        Types::Crowd => canopy_crowd::registry()
            .loading(TreeSource::file(&args.tree))
            .load()
            .map_err(|e| e.to_string())
            .and_then(|tree| {
                replay::serve(&args.trace, &tree, args.addr).map_err(|e| e.to_string())
            }),
    };
    match served {
        Ok(replay) => {
            println!("replay: {} (Ctrl-C to stop)", replay.url());
            replay.wait();
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
