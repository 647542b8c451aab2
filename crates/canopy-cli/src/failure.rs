//! Why a command did not succeed, how that is reported, and the hint after
//! a node type the command does not know.

use std::io::{self, Write};

use canopy_data::{LoadError, Problem, quote};

use crate::types::Kit;

/// A registry offered under `--types NAME`.
pub(crate) struct Named {
    /// The `--types` value.
    pub(crate) name: String,
    /// What the types are, as a noun phrase ("the crowd demo's node types").
    pub(crate) about: String,
    /// The registry, with agent data and world when it can run.
    pub(crate) kit: Box<dyn Kit>,
}

/// Why a command did not succeed.
pub(crate) enum Failure {
    /// The tree file is bad (exit 1, with a hint when one helps).
    Load(LoadError),
    /// `check` found these errors in the tree file (exit 1), at most
    /// [`MAX_ERRORS`](canopy_data::MAX_ERRORS), one per line.
    Loads(Vec<LoadError>),
    /// Another input (a snapshot, a trace), or the output file, is bad
    /// (exit 1); the message is complete and escaped.
    Message(String),
    /// Writing the output failed (exit 1; quietly 0 for a closed pipe).
    Io(io::Error),
    /// The command asks for too much, or for what this binary cannot do
    /// (exit 2, like clap's own errors): the subcommand and the message.
    Usage(&'static str, String),
    /// `run` or `bench` with node types that have no agent data or world
    /// (exit 2): the subcommand; the message is [`Failure::cannot_run`]'s.
    CannotRun(&'static str),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// What a report needs to know about the command that failed.
pub(crate) struct Context<'a> {
    /// The binary's name, as started.
    pub(crate) bin: &'a str,
    /// Every registry offered, the default first.
    pub(crate) sets: &'a [Named],
    /// The one the command used.
    pub(crate) chosen: usize,
    /// Whether the command runs trees (`run`, `bench`).
    pub(crate) runs: bool,
}

impl Failure {
    /// `CannotRun` as the usage error it is, naming the node types.
    /// `alone`: the command offers no other node types.
    pub(crate) fn cannot_run(self, bin: &str, set: &Named, alone: bool) -> Failure {
        match self {
            Failure::CannotRun(sub) if alone => Failure::Usage(
                sub,
                format!(
                    "`{bin} {sub}` needs each agent's data and the world: this `{bin}` was \
                     built without them (`Cli::agent`, `Cli::world`)"
                ),
            ),
            Failure::CannotRun(sub) => Failure::Usage(
                sub,
                format!(
                    "`{bin} {sub}` cannot run {} (`--types {}`): this `{bin}` has no agent data \
                     and world for them; it checks, prints and draws them",
                    set.about, set.name
                ),
            ),
            other => other,
        }
    }

    /// Write the failure to `err`; return the exit code. `Usage` failures
    /// are clap's to write (see `Cli::execute`).
    pub(crate) fn report(self, cx: &Context<'_>, err: &mut dyn Write) -> u8 {
        let bin = cx.bin;
        let (code, text) = match self {
            // The reader went away (`| head`): it has what it wanted.
            Failure::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => (0, String::new()),
            Failure::Io(e) => (1, format!("{bin}: cannot write the output: {e}\n")),
            Failure::Message(message) => (1, format!("{message}\n")),
            Failure::Load(e) => {
                // The loader's message names file, place and problem (escaped).
                let hint = hint(&e, cx).map_or(String::new(), |h| format!("hint: {h}\n"));
                (1, format!("{e}\n{hint}"))
            }
            Failure::Loads(errors) => {
                let mut text: String = errors.iter().map(|e| format!("{e}\n")).collect();
                if errors.len() >= canopy_data::MAX_ERRORS {
                    text.push_str(&format!(
                        "{bin}: stopped after {} errors\n",
                        canopy_data::MAX_ERRORS
                    ));
                }
                if let Some(h) = errors.iter().find_map(|e| hint(e, cx)) {
                    text.push_str(&format!("hint: {h}\n"));
                }
                (1, text)
            }
            Failure::Usage(_, message) => (2, format!("error: {message}\n")),
            Failure::CannotRun(sub) => (2, format!("error: `{bin} {sub}` cannot run them\n")),
        };
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
        code
    }
}

/// What to try when a file uses a node type this command does not know, or
/// a file extension it does not read.
fn hint(e: &LoadError, cx: &Context<'_>) -> Option<String> {
    let (type_name, suggestion) = match e.problem() {
        Problem::UnknownType {
            type_name,
            suggestion,
        } => (type_name, suggestion),
        Problem::UnknownExtension => {
            return Some(format!(
                "`{}` also reads BehaviorTree.CPP XML files (.xml)",
                cx.bin
            ));
        }
        _ => return None,
    };
    let other = cx
        .sets
        .iter()
        .enumerate()
        .find(|&(i, set)| i != cx.chosen && set.kit.knows(type_name));
    if let Some((_, set)) = other {
        return Some(if cx.runs && !set.kit.runs() {
            format!(
                "{} is one of {}, which this `{}` cannot run (it has no agent data and world \
                 for them)",
                quote(type_name),
                set.about,
                cx.bin
            )
        } else {
            format!(
                "{} is one of {}: add `--types {}`",
                quote(type_name),
                set.about,
                set.name
            )
        });
    }
    if suggestion.is_some() {
        // A close name: most likely a typo, which the error shows.
        return None;
    }
    Some(format!(
        "this `{bin}` knows {}; a file using other node types needs a `canopy` built with \
         their registry (`canopy_cli::Cli`)",
        known(cx),
        bin = cx.bin
    ))
}

/// "the built-in node types (`canopy nodes` lists them) and the crowd
/// demo's node types (`--types crowd`)".
fn known(cx: &Context<'_>) -> String {
    let mut parts = vec![format!(
        "{} (`{} nodes` lists them)",
        cx.sets[0].about, cx.bin
    )];
    parts.extend(
        cx.sets[1..]
            .iter()
            .map(|set| format!("{} (`--types {}`)", set.about, set.name)),
    );
    match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.concat(),
    }
}
