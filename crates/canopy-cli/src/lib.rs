//! The `canopy` command as a library, so that a game ships its own
//! `canopy` that knows the game's node types: check, print, draw, list,
//! run, benchmark, export, replay and snapshot the game's real tree files.
//!
//! ```no_run
//! use std::process::ExitCode;
//!
//! use canopy_cli::Cli;
//! use canopy_core::Status;
//! use canopy_data::{Params, Registry};
//!
//! /// The game's agent data and world.
//! #[derive(Default)]
//! struct Guard { alarms: u32 }
//! struct World { night: bool }
//!
//! /// Counts an alarm; Success.
//! #[derive(Params)]
//! struct RaiseAlarm {}
//!
//! fn main() -> ExitCode {
//!     let mut registry = Registry::<Guard, World>::new();
//!     registry
//!         .action("RaiseAlarm", |_: RaiseAlarm| |cx: &mut canopy_core::Ctx<Guard, World>| {
//!             cx.agent.alarms += 1;
//!             Status::Success
//!         })
//!         .unwrap();
//!     Cli::new(registry)
//!         .name("guard-canopy")
//!         .agent(|_id| Guard::default()) // each agent's data, for `run` and `bench`
//!         .world(World { night: true }) // the world they all see
//!         .run()
//! }
//! ```
//!
//! `guard-canopy check tree.json`, `guard-canopy run tree.json --ticks 10
//! --trace` and the rest then work as `canopy` does with canopy's own node
//! types. Commands that only read trees (`check`, `print`, `dot`, `nodes`,
//! `export`, `view`, `snapshot inspect`) need the registry alone; `run` and
//! `bench` need each agent's data ([`Cli::agent`], called with the agent's
//! id) and the world ([`Cli::world`], shared read-only by all agents, as a
//! tick sees it). Several registries can be offered under `--types`
//! ([`Cli::with_types`]); the built-in `canopy` offers canopy's own node
//! types and the crowd demo's that way.
//!
//! `check`, `print`, `dot` and `run` also take canopy-fsm state machine
//! files (a JSON or RON file whose top level has `states` and no `tree`):
//! with the game's state types and triggers ([`Cli::machines`]), or, without
//! them, with stand-ins that let the structure be checked, shown and run.
//!
//! The shape is that of clap-based tools used as libraries: a value built
//! with chained calls, then [`Cli::run`] (the process's arguments and
//! streams), [`Cli::run_from`] (given arguments) or [`Cli::run_with`]
//! (given arguments and writers, for tests and embedding); [`Cli::command`]
//! is the clap command, for completions or man pages.
//!
//! # What the commands promise
//!
//! Exit codes are part of the interface, so scripts and CI can tell a bad
//! input file (1) from a bad command line (2). Everything goes through one
//! buffered writer whose errors are returned, never unwrapped, so a closed
//! pipe (`canopy run … --trace | head`) ends the command quietly.
//!
//! Tree files, snapshots and traces are untrusted input: every name and
//! value from a file is escaped before it reaches the terminal (`print`,
//! `dot`, `snapshot inspect`, errors), messages quote at most 80
//! characters of it, `--trace` writes JSON, and files are read only when
//! they are regular files of bounded size. Memory a crowd needs is checked
//! against a limit before a single agent is made.
//!
//! `bench` counts heap bytes and allocations with
//! [`canopy_counting::Counting`]; a binary that wants those figures
//! installs it as its global allocator (without it, `bench` says they were
//! not counted).

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod any_types;
mod args;
mod bench;
mod catalog;
mod commands;
mod crowd;
mod failure;
mod files;
mod game;
mod groot;
mod inspect;
mod machine;
mod report;
mod run;
mod show;
mod trace;
mod types;

use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use canopy_data::Registry;
use canopy_fsm::MachineRegistry;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{CommandFactory, FromArgMatches};

use crate::any_types::OfferedTypes;
use crate::args::{Args, Command, MAX_AGENT_TICKS};
use crate::failure::Failure;
pub use crate::types::Types;

/// A `canopy` command for one registry of node types (and optionally more,
/// under `--types`): see the [crate docs](crate).
///
/// `A` and `W` are the agent data and world of the registry's trees.
pub struct Cli<A, W> {
    own: Types<A, W>,
    own_name: String,
    own_about: String,
    others: Vec<OfferedTypes>,
    name: Option<String>,
    version: Option<String>,
    about: Option<String>,
}

impl<A, W> std::fmt::Debug for Cli<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cli")
            .field("types", &self.own_name)
            .field(
                "others",
                &self.others.iter().map(|n| &n.name).collect::<Vec<_>>(),
            )
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<A: Send + 'static, W: Send + Sync + 'static> Cli<A, W> {
    /// A command whose tree files use the node types of `registry`.
    pub fn new(registry: Registry<A, W>) -> Self {
        Cli {
            own: Types::new(registry),
            own_name: "default".to_string(),
            own_about: "the node types of its registry".to_string(),
            others: Vec::new(),
            name: None,
            version: None,
            about: None,
        }
    }

    /// Each agent's data for `run` and `bench`, made from the agent's id
    /// (agents are numbered from 0).
    pub fn agent(mut self, make: impl Fn(u32) -> A + 'static) -> Self {
        self.own = self.own.agent(make);
        self
    }

    /// The world every agent sees in `run` and `bench`.
    pub fn world(mut self, world: W) -> Self {
        self.own = self.own.world(world);
        self
    }

    /// The world's own step before every tick of `run` and `bench`
    /// ([`Types::world_update`]).
    pub fn world_update(mut self, update: impl FnMut(&mut W, u32) + Send + 'static) -> Self {
        self.own = self.own.world_update(update);
        self
    }

    /// How `run` and `bench` answer async leaves' requests
    /// ([`Types::answer_async`]).
    pub fn answer_async(
        mut self,
        answer: impl Fn(&mut A, &W, canopy_core::Ticket, u32) -> Option<canopy_core::Status>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        self.own = self.own.answer_async(answer);
        self
    }

    /// Answer every async leaf in `run` and `bench` with `status` once it
    /// has waited `ticks` ticks ([`Types::complete_after`]).
    pub fn complete_after(mut self, ticks: u32, status: canopy_core::Status) -> Self {
        self.own = self.own.complete_after(ticks, status);
        self
    }

    /// The state types and triggers the game's state machine files may
    /// name, registered as the game's own loading registers them;
    /// `check`, `print`, `dot` and `run` then load machine files as the
    /// game does, and a type or trigger it does not know is an error with
    /// a did-you-mean. Tree states use this command's node types.
    ///
    /// Without it, every state type a machine file names stands in as a
    /// state that does nothing and every trigger as itself: the structure
    /// is checked, and `check` lists the state types and triggers the file
    /// needs.
    ///
    /// ```
    /// use canopy_cli::Cli;
    /// use canopy_core::Ctx;
    /// use canopy_data::Registry;
    /// use canopy_fsm::Hooks;
    ///
    /// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    /// enum Input { Jump, Land }
    ///
    /// let cli = Cli::new(Registry::<u32, ()>::new())
    ///     .agent(|_| 0)
    ///     .world(())
    ///     .machines(|m| {
    ///         m.state_type("Counting", |_| {
    ///             Ok(Hooks::new().on_update(|cx: &mut Ctx<u32, ()>| {
    ///                 *cx.agent += 1;
    ///                 None::<Input>
    ///             }))
    ///         });
    ///         m.trigger("Jump", Input::Jump).trigger("Land", Input::Land);
    ///     });
    /// let (mut out, mut err) = (Vec::new(), Vec::new());
    /// let code = cli.run_with(
    ///     ["canopy", "check", "../../examples/machines/player_fsm.json"],
    ///     &mut out,
    ///     &mut err,
    /// );
    /// assert_eq!(code, 1);
    /// assert!(String::from_utf8(err).unwrap().contains("unknown state type \"Printing\""));
    /// ```
    pub fn machines<T>(mut self, register: impl FnOnce(&mut MachineRegistry<A, W, T>)) -> Self
    where
        T: Copy + Eq + std::fmt::Debug + Send + Sync + 'static,
    {
        self.own = self.own.machines(register);
        self
    }

    /// The command's name in `--version` and the help (default `canopy`;
    /// usage lines use the name the binary was started by).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The version `--version` prints (default: canopy's).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The one-line description at the top of `--help`.
    pub fn about(mut self, about: impl Into<String>) -> Self {
        self.about = Some(about.into());
        self
    }

    /// How `--types` names this command's own node types, and a noun
    /// phrase saying what they are (`"builtin"`, `"the built-in node
    /// types"`); they are the default. Only matters with [`Cli::with_types`].
    pub fn types_named(mut self, name: impl Into<String>, about: impl Into<String>) -> Self {
        self.own_name = name.into();
        self.own_about = about.into();
        self
    }

    /// Offer more node types under `--types NAME`; `about` is a noun phrase
    /// saying what they are (`"the crowd demo's node types"`), used in help
    /// and hints. `run` and `bench` accept them if `types` has agent data
    /// and a world ([`Types::agent`], [`Types::world`]).
    ///
    /// ```
    /// use canopy_cli::{Cli, Types};
    /// use canopy_data::Registry;
    ///
    /// let cli = Cli::new(Registry::<(), ()>::new())
    ///     .agent(|_| ())
    ///     .world(())
    ///     .types_named("builtin", "the built-in node types")
    ///     .with_types("plain", "the built-in node types again, not runnable",
    ///                 Types::new(Registry::<u8, u8>::new()));
    /// let (mut out, mut err) = (Vec::new(), Vec::new());
    /// let code = cli.run_with(["canopy", "nodes", "--types", "plain"], &mut out, &mut err);
    /// assert_eq!(code, 0);
    /// assert!(String::from_utf8(out).unwrap().ends_with("node types\n"));
    /// ```
    pub fn with_types<B: Send + 'static, V: Send + Sync + 'static>(
        mut self,
        name: impl Into<String>,
        about: impl Into<String>,
        types: Types<B, V>,
    ) -> Self {
        self.others.push(OfferedTypes {
            name: name.into(),
            about: about.into(),
            types: Box::new(types),
        });
        self
    }

    /// The clap command: every subcommand, with `--types` accepting this
    /// command's names.
    pub fn command(&self) -> clap::Command {
        let mut names = vec![(self.own_name.as_str(), self.own_about.as_str())];
        names.extend(
            self.others
                .iter()
                .map(|n| (n.name.as_str(), n.about.as_str())),
        );
        let mut command = with_types_arg(Args::command(), &names);
        if let Some(name) = &self.name {
            command = command.name(name.clone());
        }
        if let Some(version) = &self.version {
            command = command.version(version.clone());
        }
        if let Some(about) = &self.about {
            command = command.about(about.clone());
        }
        command
    }

    /// Run with the process's arguments; write to standard output and error.
    pub fn run(self) -> ExitCode {
        self.run_from(std::env::args_os())
    }

    /// Run with `args` (the first is the binary's name); write to standard
    /// output and error.
    pub fn run_from<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        let code = self.execute(args, &mut out, &mut io::stderr(), Style::Terminal);
        ExitCode::from(code)
    }

    /// Run with `args` (the first is the binary's name), writing to `out`
    /// and `err`; returns the exit code (0 success, 1 invalid input file,
    /// 2 usage error). For tests and for embedding the commands in another
    /// program's interface.
    ///
    /// ```
    /// use canopy_cli::Cli;
    /// use canopy_data::Registry;
    ///
    /// let cli = Cli::new(Registry::<(), ()>::new()).agent(|_| ()).world(());
    /// let (mut out, mut err) = (Vec::new(), Vec::new());
    /// assert_eq!(cli.run_with(["canopy", "check", "no/such.json"], &mut out, &mut err), 1);
    /// assert!(String::from_utf8(err).unwrap().starts_with("no/such.json: cannot read: "));
    /// ```
    pub fn run_with<I, T>(self, args: I, out: &mut dyn Write, err: &mut dyn Write) -> u8
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        self.execute(args, out, err, Style::Plain)
    }

    fn execute<I, T>(self, args: I, out: &mut dyn Write, err: &mut dyn Write, style: Style) -> u8
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        let bin = args
            .first()
            .and_then(|a| Path::new(a).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .or_else(|| self.name.clone())
            .unwrap_or_else(|| "canopy".to_string());
        let command = self.command().bin_name(bin.clone());
        let parsed = command
            .clone()
            .try_get_matches_from(&args)
            .and_then(|m| Args::from_arg_matches(&m));
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(e) => return clap_error(e, out, err, style),
        };
        let mut sets = vec![OfferedTypes {
            name: self.own_name,
            about: self.own_about,
            types: Box::new(self.own),
        }];
        sets.extend(self.others);
        let chosen = parsed
            .command
            .types()
            .and_then(|t| sets.iter().position(|s| s.name == t))
            .unwrap_or(0);
        let result = check_workload(&parsed.command)
            .and_then(|()| sets[chosen].types.execute(&parsed.command, out, err))
            .and_then(|()| Ok(out.flush()?))
            .map_err(|f| f.cannot_run(&bin, &sets[chosen], sets.len() == 1));
        match result {
            Ok(()) => 0,
            Err(Failure::Usage(sub, message)) => {
                let mut command = command;
                command.build();
                let kind = clap::error::ErrorKind::ValueValidation;
                let e = match command.find_subcommand_mut(sub) {
                    Some(sub) => sub.error(kind, message),
                    None => command.error(kind, message),
                };
                clap_error(e, out, err, style)
            }
            Err(failure) => {
                let context = report::Context {
                    bin: &bin,
                    sets: &sets,
                    chosen,
                    runs: matches!(parsed.command, Command::Run(_) | Command::Bench(_)),
                };
                failure.report(&context, err)
            }
        }
    }
}

/// How clap's own messages are written.
#[derive(Clone, Copy)]
enum Style {
    /// By clap, to the process's streams, coloured when they are terminals.
    Terminal,
    /// As plain text, to the writers given.
    Plain,
}

/// Write a clap error (or help, or version) and return its exit code.
fn clap_error(e: clap::Error, out: &mut dyn Write, err: &mut dyn Write, style: Style) -> u8 {
    let code = e.exit_code().clamp(0, 255) as u8;
    match style {
        Style::Terminal => {
            let _ = out.flush();
            let _ = e.print();
        }
        Style::Plain => {
            let text = e.render().to_string();
            let stream: &mut dyn Write = if e.use_stderr() { err } else { out };
            let _ = stream.write_all(text.as_bytes());
            let _ = stream.flush();
        }
    }
    code
}

/// `command` and its subcommands with their `--types` accepting `names`
/// (the first is the default); hidden when there is only one.
fn with_types_arg(mut command: clap::Command, names: &[(&str, &str)]) -> clap::Command {
    if command.get_arguments().any(|a| a.get_id() == "types") {
        let values: Vec<PossibleValue> = names
            .iter()
            .map(|&(name, about)| PossibleValue::new(name.to_string()).help(about.to_string()))
            .collect();
        let default = names[0].0.to_string();
        let hide = names.len() < 2;
        command = command.mut_arg("types", move |arg| {
            arg.value_parser(PossibleValuesParser::new(values))
                .default_value(default)
                .hide(hide)
        });
    }
    let subcommands: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subcommands {
        command = command.mut_subcommand(name, |sub| with_types_arg(sub, names));
    }
    command
}

/// Reject crowds too large to finish, as a usage error (exit 2) like clap's own.
fn check_workload(command: &Command) -> Result<(), Failure> {
    let (name, agents, ticks, counted) = match command {
        Command::Run(a) if a.restore.is_none() => ("run", a.agents, a.ticks, ""),
        // A restored crowd's size is known once its file is read.
        Command::Bench(a) => (
            "bench",
            a.agents,
            bench::total_ticks(a.ticks),
            " (warm-up included)",
        ),
        _ => return Ok(()),
    };
    workload(name, "--agents", agents as u64, ticks, counted)
}

/// Agents × ticks within [`MAX_AGENT_TICKS`], or a usage error of `name`;
/// `agents_are` names the agents (`--agents`), `counted` says what the
/// ticks include.
pub(crate) fn workload(
    name: &'static str,
    agents_are: &str,
    agents: u64,
    ticks: u32,
    counted: &str,
) -> Result<(), Failure> {
    let work = agents * ticks as u64;
    if work > MAX_AGENT_TICKS {
        return Err(Failure::Usage(
            name,
            format!(
                "{agents_are} × --ticks is {work} agent-ticks{counted}, more than the limit of \
                 {MAX_AGENT_TICKS}"
            ),
        ));
    }
    Ok(())
}
