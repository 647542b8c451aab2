//! `canopy`: tree files from the shell — check them, look at them, run them,
//! and measure what they cost a crowd.
//!
//! `run` and `bench` know only the built-in node types, with `()` as agent
//! data and world: they are for prototyping tree files (with `Script`,
//! `Random`, `Chance` and `Periodic` leaves) and comparing their cost, not
//! for running a game's own leaves. `check`, `print`, `dot` and `nodes` also
//! know the crowd simulation's node types (`--types crowd`), so the
//! repository's crowd tree can be checked and drawn from the shell.
//!
//! Exit codes are part of the interface, so scripts and CI can tell a bad
//! tree file (1) from a bad command line (2). Everything goes through one
//! buffered writer whose errors are returned, never unwrapped, so a closed
//! pipe (`canopy run … --trace | head`) ends the command quietly.

mod bench;
mod catalog;
mod run;
mod trace;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use canopy_core::{Agent, Mode, Tree};
use canopy_data::{LoadError, Registry};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// The most agents `run` and `bench` accept (agent ids are `u32`; this keeps
/// a typo from asking for terabytes).
const MAX_AGENTS: u64 = 10_000_000;

/// The most agent-ticks `run` and `bench` accept: hours of work at tens of
/// nanoseconds each; more is a typo, not a measurement.
const MAX_AGENT_TICKS: u64 = 100_000_000_000;

/// The tree type the command runs: built-in nodes only, no agent data or world.
type CliTree = Tree<(), ()>;

/// Check, print, draw, run and benchmark behavior-tree files (.json or .ron).
#[derive(Parser, Debug)]
#[command(name = "canopy", version, max_term_width = 100)]
#[command(after_help = "Exit codes: 0 success, 1 invalid tree file, 2 usage error.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which node types a file may use.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Types {
    /// canopy's built-in node types.
    #[default]
    Builtin,
    /// The built-in types plus the crowd simulation's (canopy-crowd).
    Crowd,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate a tree file: print `ok`, or the error and exit with 1.
    Check {
        /// Tree file (.json or .ron).
        file: PathBuf,
        /// Node types the file may use.
        #[arg(long, value_enum, default_value_t)]
        types: Types,
    },
    /// Print a tree file as an indented view: names, types and parameters.
    Print {
        /// Tree file (.json or .ron).
        file: PathBuf,
        /// Node types the file may use.
        #[arg(long, value_enum, default_value_t)]
        types: Types,
    },
    /// Print a tree file as a Graphviz DOT digraph (e.g. `| dot -Tsvg`).
    Dot {
        /// Tree file (.json or .ron).
        file: PathBuf,
        /// Node types the file may use.
        #[arg(long, value_enum, default_value_t)]
        types: Types,
    },
    /// List every registered node type with its children, parameters and purpose.
    Nodes {
        /// Which node types to list.
        #[arg(long, value_enum, default_value_t)]
        types: Types,
    },
    /// Run a tree for a crowd: root status counts per tick, or every event as
    /// JSON lines (--trace).
    Run {
        /// Tree file (.json or .ron).
        file: PathBuf,
        /// Ticks to run.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        ticks: u32,
        /// Agents, with ids 0 to M−1.
        #[arg(long, default_value_t = 1, value_parser = agents_parser())]
        agents: u32,
        /// Seed for the random nodes (Random, Chance).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print every event (enter, update, exit, abort, and each agent's tick)
        /// as one JSON object per line.
        #[arg(long)]
        trace: bool,
        /// Tick from the root every tick, or update only what can change.
        /// Same results; in event mode nodes that are not updated report no
        /// update events.
        #[arg(long, value_enum, default_value_t = ModeArg::Tick)]
        mode: ModeArg,
    },
    /// Measure a tree's cost for a crowd: ns per agent-tick, heap bytes per
    /// agent, allocations per tick.
    Bench {
        /// Tree file (.json or .ron).
        file: PathBuf,
        /// Agents, with ids 0 to N−1.
        #[arg(long, value_parser = agents_parser())]
        agents: u32,
        /// Timed ticks (after a warm-up of a tenth as many, at least one).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        ticks: u32,
        /// Tick the agents on a rayon pool of this many threads (default: the
        /// calling thread alone).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Option<u32>,
        /// Seed for the random nodes (Random, Chance).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Also print the figures as one JSON object, on the last line.
        #[arg(long)]
        json: bool,
        /// Tick from the root every tick, or update only what can change.
        #[arg(long, value_enum, default_value_t = ModeArg::Tick)]
        mode: ModeArg,
    },
}

/// `--mode`: how agents run their tree ([`Mode`]).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ModeArg {
    /// Walk from the root to the running leaves every tick.
    Tick,
    /// Update only the tasks that can change this tick (seed 002).
    Event,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Mode {
        match mode {
            ModeArg::Tick => Mode::Tick,
            ModeArg::Event => Mode::Event,
        }
    }
}

fn agents_parser() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=MAX_AGENTS as i64)
}

/// Why a command did not succeed.
enum Failure {
    /// The tree file is bad.
    Load(LoadError),
    /// Writing the output failed.
    Io(io::Error),
    /// The run could not be set up (e.g. threads could not be started).
    Setup(String),
}

impl From<LoadError> for Failure {
    fn from(e: LoadError) -> Self {
        Failure::Load(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    check_workload(&cli.command);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = dispatch(cli.command, &mut out).and_then(|()| Ok(out.flush()?));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): it has what it wanted.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(e)) => {
            let _ = writeln!(io::stderr(), "canopy: cannot write the output: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Setup(e)) => {
            let _ = writeln!(io::stderr(), "canopy: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Load(e)) => {
            // The loader's message names file, place and problem; nothing to add.
            let _ = writeln!(io::stderr(), "{e}");
            ExitCode::FAILURE
        }
    }
}

/// Reject crowds too large to finish, as a usage error (exit 2) like clap's own.
fn check_workload(command: &Command) {
    let (name, agents, ticks, counted) = match command {
        Command::Run { agents, ticks, .. } => ("run", *agents, *ticks, ""),
        Command::Bench { agents, ticks, .. } => (
            "bench",
            *agents,
            bench::total_ticks(*ticks),
            " (warm-up included)",
        ),
        _ => return,
    };
    let work = agents as u64 * ticks as u64;
    if work <= MAX_AGENT_TICKS {
        return;
    }
    let mut cli = Cli::command();
    cli.build();
    let message = format!(
        "--agents × --ticks is {work} agent-ticks{counted}, more than the limit of {MAX_AGENT_TICKS}"
    );
    let kind = clap::error::ErrorKind::ValueValidation;
    match cli.find_subcommand_mut(name) {
        Some(sub) => sub.error(kind, message).exit(),
        None => cli.error(kind, message).exit(),
    }
}

fn dispatch(command: Command, out: &mut impl Write) -> Result<(), Failure> {
    match command {
        Command::Check { file, types } => show(types, &file, Show::Ok, out)?,
        Command::Print { file, types } => show(types, &file, Show::Indented, out)?,
        Command::Dot { file, types } => show(types, &file, Show::Dot, out)?,
        Command::Nodes {
            types: Types::Builtin,
        } => catalog::write(out, &Registry::<(), ()>::new())?,
        Command::Nodes {
            types: Types::Crowd,
        } => catalog::write(out, &canopy_crowd::registry())?,
        Command::Run {
            file,
            ticks,
            agents,
            seed,
            trace,
            mode,
        } => {
            let tree = load(&file, seed)?;
            if trace {
                trace::run(&tree, agents, ticks, mode.into(), out)?;
            } else {
                run::summary(&tree, agents, ticks, mode.into(), out)?;
            }
        }
        Command::Bench {
            file,
            agents,
            ticks,
            threads,
            seed,
            json,
            mode,
        } => {
            let tree = load(&file, seed)?;
            let config = bench::Config {
                agents,
                ticks,
                threads,
                mode: mode.into(),
            };
            let figures = bench::measure(&tree, &config).map_err(Failure::Setup)?;
            bench::report(&file, &tree, &config, &figures, json, out)?;
        }
    }
    Ok(())
}

/// What `check`, `print` and `dot` write about a tree that loaded.
#[derive(Clone, Copy)]
enum Show {
    Ok,
    Indented,
    Dot,
}

/// Load `file` with the chosen node types and write what was asked for.
fn show(types: Types, file: &Path, what: Show, out: &mut impl Write) -> Result<(), Failure> {
    match types {
        Types::Builtin => show_tree(&Registry::<(), ()>::new().load_file(file)?, what, out),
        Types::Crowd => show_tree(&canopy_crowd::registry().load_file(file)?, what, out),
    }
}

fn show_tree<A, W>(tree: &Tree<A, W>, what: Show, out: &mut impl Write) -> Result<(), Failure> {
    match what {
        Show::Ok => writeln!(out, "ok")?,
        Show::Indented => write!(out, "{}", tree.display())?,
        Show::Dot => out.write_all(tree.to_dot().as_bytes())?,
    }
    Ok(())
}

/// Load a tree file with the built-in node types.
/// Agents with ids `0..agents`, running `tree` in `mode`.
fn crowd(tree: &CliTree, agents: u32, mode: Mode) -> Vec<Agent> {
    (0..agents)
        .map(|id| {
            let mut agent = Agent::with_id(tree, id);
            agent.set_mode(tree, mode);
            agent
        })
        .collect()
}

fn load(file: &Path, seed: u64) -> Result<CliTree, LoadError> {
    Registry::<(), ()>::new().with_seed(seed).load_file(file)
}
