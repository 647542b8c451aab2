//! The command line as clap reads it: every subcommand, flag and limit.
//!
//! Derived, so that the help text and the parsing cannot disagree; the one
//! thing that depends on the [`Cli`](crate::Cli) being run — which names
//! `--types` accepts — is set on the built command (see `crate::command`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use canopy_core::Mode;
use clap::{Parser, Subcommand, ValueEnum};

/// The most agents `run` and `bench` accept (agent ids are `u32`; this keeps
/// a typo from asking for terabytes).
pub(crate) const MAX_AGENTS: u64 = 10_000_000;

/// The most agent-ticks `run` and `bench` accept: hours of work at tens of
/// nanoseconds each; more is a typo, not a measurement.
pub(crate) const MAX_AGENT_TICKS: u64 = 100_000_000_000;

/// Check, print, draw, run, benchmark, export and replay behavior-tree files
/// (.json, .ron, or BehaviorTree.CPP .xml); check, print, draw and run state
/// machine files (.json, .ron).
#[derive(Parser, Debug)]
#[command(name = "canopy", version, max_term_width = 100)]
#[command(after_help = "Exit codes: 0 success, 1 invalid input file, 2 usage error.")]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// How a tree file is read: which node types it may use, and for XML how
/// long a tick is.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Load {
    /// Node types the file may use.
    #[arg(long)]
    pub(crate) types: Option<String>,
    /// Milliseconds per tick, for BehaviorTree.CPP XML: a time of d ms
    /// becomes ⌈d / MS⌉ ticks.
    #[arg(long, value_name = "MS", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) tick_ms: u32,
    /// A BehaviorTree.CPP node model (the `<TreeNodesModel>` of this XML
    /// file): node types it declares that these node types lack get
    /// stand-ins with the declared ports, so the tree loads and runs
    /// without their code.
    #[arg(long, value_name = "MODEL.xml")]
    pub(crate) model: Option<PathBuf>,
    /// What the model's stand-ins do, by type (JSON): a status or a list of
    /// statuses for a leaf, a control or decorator of canopy's for the
    /// others. [default: Success; Sequence; the child's status]
    #[arg(long, value_name = "RULES.json", requires = "model")]
    pub(crate) stand_ins: Option<PathBuf>,
    /// Let an XML file's `<include>`, and a machine file's states' tree
    /// files, read files outside its directory (absolute paths, `..`,
    /// links out), as BehaviorTree.CPP does for includes.
    #[arg(long)]
    pub(crate) includes_outside: bool,
    /// Refuse what BehaviorTree.CPP runs but canopy warns about (an action
    /// written `<Condition>`, a node model that disagrees with the code):
    /// each warning is an error.
    #[arg(long)]
    pub(crate) strict: bool,
}

/// Which tree of an XML file to run.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct Choose {
    /// The tree to run, by ID, of a BehaviorTree.CPP XML file that defines
    /// several (in place of its `main_tree_to_execute`).
    #[arg(long, value_name = "ID")]
    pub(crate) tree: Option<String>,
}

/// A tree file and how to read it.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct FileArgs {
    /// Tree file (.json, .ron or .xml), or state machine file (.json, .ron).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) load: Load,
    #[command(flatten)]
    pub(crate) choose: Choose,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Validate a tree or state machine file: print `ok`, or the error and
    /// exit with 1.
    Check(FileArgs),
    /// Print a tree file as an indented view: names, types and parameters (a
    /// machine: its states, marks and transitions).
    Print(FileArgs),
    /// Print a tree or machine file as a Graphviz DOT digraph (e.g. `| dot -Tsvg`).
    Dot(FileArgs),
    /// List every registered node type with its children, parameters and purpose.
    Nodes {
        /// Which node types to list.
        #[arg(long)]
        types: Option<String>,
    },
    /// Run a tree for a crowd: root status counts per tick, or every event as
    /// JSON lines (--trace); save the crowd, or carry on from a saved one.
    Run(RunArgs),
    /// Measure a tree's cost for a crowd: ns per agent-tick, heap bytes per
    /// agent, allocations per tick.
    Bench(BenchArgs),
    /// Write a tree file in another format (to standard output): JSON or RON
    /// as BehaviorTree.CPP XML or as each other; XML as JSON or RON.
    Export(ExportArgs),
    /// Write the node types as a BehaviorTree.CPP node model (a
    /// `<TreeNodesModel>`): the palette Groot2 opens, which `--model` reads
    /// back.
    Model(ModelArgs),
    /// Replay a trace (`run --trace` output) in the browser inspector, with a
    /// timeline to scrub.
    View(ViewArgs),
    /// Look into snapshot files written by `run --save`.
    #[command(subcommand)]
    Snapshot(SnapshotCommand),
}

impl Command {
    /// The `--types` the command was given, if it takes one.
    pub(crate) fn types(&self) -> Option<&str> {
        match self {
            Command::Nodes { types } => types.as_deref(),
            Command::Model(a) => a.types.as_deref(),
            _ => self.load()?.1.types.as_deref(),
        }
    }

    /// The subcommand's name, as typed.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Command::Check(_) => "check",
            Command::Print(_) => "print",
            Command::Dot(_) => "dot",
            Command::Nodes { .. } => "nodes",
            Command::Run(_) => "run",
            Command::Bench(_) => "bench",
            Command::Export(_) => "export",
            Command::Model(_) => "model",
            Command::View(_) => "view",
            Command::Snapshot(_) => "snapshot inspect",
        }
    }

    /// The tree of a multi-tree XML file the command runs, if chosen.
    pub(crate) fn chosen_tree(&self) -> Option<&str> {
        match self {
            Command::Check(a) | Command::Print(a) | Command::Dot(a) => a.choose.tree.as_deref(),
            Command::Run(a) => a.choose.tree.as_deref(),
            Command::Bench(a) => a.choose.tree.as_deref(),
            Command::Export(a) => a.choose.tree.as_deref(),
            _ => None,
        }
    }

    /// The tree file the command reads, and how, if it reads one.
    pub(crate) fn load(&self) -> Option<(&Path, &Load)> {
        Some(match self {
            Command::Check(a) | Command::Print(a) | Command::Dot(a) => (&a.file, &a.load),
            Command::Nodes { .. } | Command::Model(_) => return None,
            Command::Run(a) => (&a.file, &a.load),
            Command::Bench(a) => (&a.file, &a.load),
            Command::Export(a) => (&a.file, &a.load),
            Command::View(a) => (&a.tree, &a.load),
            Command::Snapshot(SnapshotCommand::Inspect(a)) => (&a.tree, &a.load),
        })
    }
}

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    /// Tree file (.json, .ron or .xml), or state machine file (.json, .ron).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) load: Load,
    #[command(flatten)]
    pub(crate) choose: Choose,
    /// Ticks to run.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) ticks: u32,
    /// Agents, with ids 0 to M−1 (with --restore, the snapshot's agents).
    #[arg(long, default_value_t = 1, value_parser = agents_parser(), conflicts_with = "restore")]
    pub(crate) agents: u32,
    /// Seed for the random nodes (Random, Chance); give a restored run the
    /// seed of the run it continues.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Print every event (enter, update, exit, abort, and each agent's tick)
    /// as one JSON object per line.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Tick from the root every tick, or update only what can change. Same
    /// results; in event mode nodes that are not updated report no update
    /// events. [default: tick; with --restore, the snapshot's]
    #[arg(long, value_enum)]
    pub(crate) mode: Option<ModeArg>,
    /// After the last tick, save every agent (where each is in its tree) to
    /// this file.
    #[arg(long, value_name = "OUT.snap")]
    pub(crate) save: Option<PathBuf>,
    /// Carry on from the agents saved in this file (by `--save`) instead of
    /// new ones: the same agents, tick numbers continuing.
    #[arg(long, value_name = "FILE.snap")]
    pub(crate) restore: Option<PathBuf>,
    /// The agent --groot2 and --btlog follow [default: 0].
    #[arg(long, value_name = "ID")]
    pub(crate) watch: Option<u32>,
    /// Serve Groot2's monitor protocol (BehaviorTree.CPP's Groot2Publisher)
    /// for the watched agent on PORT and PORT+1 of 127.0.0.1, one tick per
    /// --tick-ms (0: free ports, printed).
    #[arg(long, value_name = "PORT", conflicts_with = "trace")]
    pub(crate) groot2: Option<u16>,
    /// Write the watched agent's status changes to FILE.btlog, in the
    /// format of BehaviorTree.CPP's FileLogger2, which Groot2 replays.
    #[arg(long, value_name = "FILE.btlog", conflicts_with = "trace")]
    pub(crate) btlog: Option<PathBuf>,
    /// State machine files: send TRIGGER to every agent at the start of
    /// tick TICK, before its update (repeatable).
    #[arg(long, value_name = "TICK:TRIGGER", value_parser = parse_send)]
    pub(crate) send: Vec<SendArg>,
}

/// `run --send TICK:TRIGGER`.
#[derive(Clone, Debug)]
pub(crate) struct SendArg {
    /// The tick it is sent at, from 1.
    pub(crate) tick: u32,
    /// The trigger's name.
    pub(crate) trigger: String,
}

fn parse_send(text: &str) -> Result<SendArg, String> {
    let (tick, trigger) = text
        .split_once(':')
        .ok_or("expected TICK:TRIGGER, as 3:Alarm")?;
    let tick: u32 = tick
        .parse()
        .ok()
        .filter(|&t| t >= 1)
        .ok_or("TICK must be a whole number ≥ 1")?;
    Ok(SendArg {
        tick,
        trigger: trigger.to_string(),
    })
}

#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// Tree file (.json, .ron or .xml).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) load: Load,
    #[command(flatten)]
    pub(crate) choose: Choose,
    /// Agents, with ids 0 to N−1.
    #[arg(long, value_parser = agents_parser())]
    pub(crate) agents: u32,
    /// Timed ticks (after a warm-up of a tenth as many, at least one).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) ticks: u32,
    /// Tick the agents on a rayon pool of this many threads (default: the
    /// calling thread alone).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub(crate) threads: Option<u32>,
    /// Seed for the random nodes (Random, Chance).
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Also print the figures as one JSON object, on the last line.
    #[arg(long)]
    pub(crate) json: bool,
    /// Tick from the root every tick, or update only what can change.
    #[arg(long, value_enum, default_value_t = ModeArg::Tick)]
    pub(crate) mode: ModeArg,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ExportArgs {
    /// The format to write.
    #[arg(long, value_enum)]
    pub(crate) to: ExportFormat,
    /// Tree file (.json, .ron or .xml).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) load: Load,
    #[command(flatten)]
    pub(crate) choose: Choose,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ModelArgs {
    /// Node types to write.
    #[arg(long)]
    pub(crate) types: Option<String>,
    /// A node model: the types it declares that these node types lack are
    /// written too, as their stand-ins have them.
    #[arg(long, value_name = "MODEL.xml")]
    pub(crate) model: Option<PathBuf>,
    /// Also write canopy's own built-in node types (but not those
    /// BehaviorTree.CPP's standard nodes stand for, which Groot2 knows).
    #[arg(long)]
    pub(crate) builtins: bool,
}

/// `export --to`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExportFormat {
    /// BehaviorTree.CPP XML (format 4), which Groot2 opens.
    Btcpp,
    /// A canopy tree file in JSON.
    Json,
    /// A canopy tree file in RON.
    Ron,
}

#[derive(clap::Args, Debug)]
pub(crate) struct ViewArgs {
    /// A trace written by `run --trace` (JSON lines).
    pub(crate) trace: PathBuf,
    /// The tree file the trace was recorded from.
    #[arg(long, value_name = "FILE")]
    pub(crate) tree: PathBuf,
    #[command(flatten)]
    pub(crate) load: Load,
    /// Address to serve the page at (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:7879")]
    pub(crate) addr: SocketAddr,
}

#[derive(Subcommand, Debug)]
pub(crate) enum SnapshotCommand {
    /// Print what each saved agent was doing: its running path from the root,
    /// with each task's state.
    Inspect(InspectArgs),
}

#[derive(clap::Args, Debug)]
pub(crate) struct InspectArgs {
    /// A snapshot written by `run --save`.
    pub(crate) snapshot: PathBuf,
    /// The tree file the snapshot was taken of.
    #[arg(long, value_name = "FILE")]
    pub(crate) tree: PathBuf,
    #[command(flatten)]
    pub(crate) load: Load,
    /// Only this agent.
    #[arg(long, value_name = "ID")]
    pub(crate) agent: Option<u32>,
}

/// `--mode`: how agents run their tree ([`Mode`]).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum ModeArg {
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
