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
//!
//! Tree files are untrusted input: every name and value from a file is
//! escaped before it reaches the terminal (`print`, `dot`, errors), and
//! `--trace` writes JSON. Memory a crowd needs is checked against a limit
//! before a single agent is made.

#![warn(missing_docs, unreachable_pub)]

mod bench;
mod catalog;
mod crowd;
mod run;
mod show;
mod trace;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use canopy_core::{Mode, Tree};

use canopy_counting::Counting;
use canopy_data::{LoadError, Problem, Registry, quote};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// Counts allocations and heap bytes, for `bench`'s figures; see
/// [`canopy_counting`]. The other subcommands do not notice it.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

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
    /// Update only the tasks that can change this tick (the event-driven tree).
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
    /// The tree file is bad; `Types` says which node types it was read with.
    Load(LoadError, Loaded),
    /// Writing the output failed.
    Io(io::Error),
    /// The run could not be set up (e.g. threads could not be started).
    Setup(String),
    /// The command asks for too much (exit 2, like clap's own errors).
    Usage(&'static str, String),
}

/// Which node types a file was loaded with, for the hint after an unknown type.
#[derive(Clone, Copy)]
enum Loaded {
    /// `check`, `print` or `dot` with `--types`.
    With(Types),
    /// `run` and `bench`, which know the built-in types only.
    BuiltinOnly,
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
    let mut stderr = io::stderr();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): it has what it wanted.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(e)) => {
            let _ = writeln!(stderr, "canopy: cannot write the output: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Setup(e)) => {
            let _ = writeln!(stderr, "canopy: {e}");
            ExitCode::FAILURE
        }
        Err(Failure::Usage(subcommand, message)) => usage_error(subcommand, message),
        Err(Failure::Load(e, loaded)) => {
            // The loader's message names file, place and problem (escaped).
            let _ = writeln!(stderr, "{e}");
            if let Some(hint) = hint(&e, loaded) {
                let _ = writeln!(stderr, "hint: {hint}");
            }
            ExitCode::FAILURE
        }
    }
}

/// What to try when a file uses a node type this `canopy` does not know.
fn hint(e: &LoadError, loaded: Loaded) -> Option<String> {
    let Problem::UnknownType {
        type_name,
        suggestion,
    } = e.problem()
    else {
        return None;
    };
    let crowd_type = canopy_crowd::registry().get(type_name).is_some();
    match loaded {
        Loaded::With(Types::Builtin) if crowd_type => Some(format!(
            "{} is a node type of the crowd demo: add `--types crowd`",
            quote(type_name)
        )),
        Loaded::BuiltinOnly if crowd_type => Some(format!(
            "{} is a node type of the crowd demo; `run` and `bench` know the built-in node types only",
            quote(type_name)
        )),
        // A close built-in name: most likely a typo, which the error shows.
        _ if suggestion.is_some() => None,
        _ => Some(
            "this `canopy` knows the built-in node types (`canopy nodes` lists them) and the \
             crowd demo's (`--types crowd`); a file using a game's own node types needs a \
             `canopy` built with that game's registry"
                .to_string(),
        ),
    }
}

/// Exit like clap does on a bad command line: `error: …`, usage, exit 2.
fn usage_error(subcommand: &str, message: String) -> ! {
    let mut cli = Cli::command();
    cli.build();
    let kind = clap::error::ErrorKind::ValueValidation;
    match cli.find_subcommand_mut(subcommand) {
        Some(sub) => sub.error(kind, message).exit(),
        None => cli.error(kind, message).exit(),
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
    if work > MAX_AGENT_TICKS {
        usage_error(
            name,
            format!(
                "--agents × --ticks is {work} agent-ticks{counted}, more than the limit of {MAX_AGENT_TICKS}"
            ),
        );
    }
}

fn dispatch(command: Command, out: &mut impl Write) -> Result<(), Failure> {
    match command {
        Command::Check { file, types } => show(types, &file, Show::Ok, out),
        Command::Print { file, types } => show(types, &file, Show::Indented, out),
        Command::Dot { file, types } => show(types, &file, Show::Dot, out),
        Command::Nodes {
            types: Types::Builtin,
        } => Ok(catalog::write(out, &Registry::<(), ()>::new())?),
        Command::Nodes {
            types: Types::Crowd,
        } => Ok(catalog::write(out, &canopy_crowd::registry())?),
        Command::Run {
            file,
            ticks,
            agents,
            seed,
            trace,
            mode,
        } => {
            let tree = load(&file, seed)?;
            let crowd = crowd::create(&tree, agents, mode.into())
                .map_err(|e| Failure::Usage("run", e.to_string()))?;
            if trace {
                trace::run(&tree, crowd, ticks, out)?;
            } else {
                run::summary(&tree, crowd, ticks, out)?;
            }
            Ok(())
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
            let figures = bench::measure(&tree, &config).map_err(|e| match e {
                bench::Error::Crowd(e) => Failure::Usage("bench", e.to_string()),
                bench::Error::Threads(e) => Failure::Setup(e),
            })?;
            Ok(bench::report(&file, &tree, &config, &figures, json, out)?)
        }
    }
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
    let failed = |e| Failure::Load(e, Loaded::With(types));
    match types {
        Types::Builtin => {
            let tree = Registry::<(), ()>::new().load_file(file).map_err(failed)?;
            show_tree(&tree, what, out)
        }
        Types::Crowd => {
            let tree = canopy_crowd::registry().load_file(file).map_err(failed)?;
            show_tree(&tree, what, out)
        }
    }
}

fn show_tree<A, W>(tree: &Tree<A, W>, what: Show, out: &mut impl Write) -> Result<(), Failure> {
    match what {
        Show::Ok => writeln!(out, "ok")?,
        Show::Indented => show::indented(tree, out)?,
        Show::Dot => show::dot(tree, out)?,
    }
    Ok(())
}

/// Load a tree file with the built-in node types, for `run` and `bench`.
fn load(file: &Path, seed: u64) -> Result<CliTree, Failure> {
    Registry::<(), ()>::new()
        .with_seed(seed)
        .load_file(file)
        .map_err(|e| Failure::Load(e, Loaded::BuiltinOnly))
}
