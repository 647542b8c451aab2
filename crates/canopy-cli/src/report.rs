//! How a failed command is reported: the message, the exit code, and the
//! hint after a node type the command does not know (another `--types`
//! that knows it, or how to build one's own `canopy`).

use std::io::{self, Write};

use canopy_data::{LoadError, Problem, XmlProblem, quote};

use crate::any_types::OfferedTypes;
use crate::failure::Failure;

/// What a report needs to know about the command that failed.
pub(crate) struct Context<'a> {
    /// The binary's name, as started.
    pub(crate) bin: &'a str,
    /// Every registry offered, the default first.
    pub(crate) sets: &'a [OfferedTypes],
    /// The one the command used.
    pub(crate) chosen: usize,
    /// Whether the command runs trees (`run`, `bench`).
    pub(crate) runs: bool,
}

impl Failure {
    /// `CannotRun` as the usage error it is, naming the node types.
    /// `alone`: the command offers no other node types.
    pub(crate) fn cannot_run(self, bin: &str, set: &OfferedTypes, alone: bool) -> Failure {
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
            Failure::Machine(e) => {
                // A tree state's tree may use node types another `--types` knows.
                let hint = match e.problem() {
                    canopy_fsm::MachineProblem::Tree(tree) => hint(tree, cx),
                    _ => None,
                };
                let hint = hint.map_or(String::new(), |h| format!("hint: {h}\n"));
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
        Problem::Xml(XmlProblem::UnknownType {
            type_name,
            suggestion,
        }) => (type_name, suggestion),
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
        .find(|&(i, set)| i != cx.chosen && set.types.knows(type_name));
    if let Some((_, set)) = other {
        return Some(if cx.runs && !set.types.runs() {
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
    let model = if canopy_btcpp::is_xml(e.file()) {
        "; or, to check and dry-run this file without their code, give the node model that \
         declares them: `--model MODEL.xml`"
    } else {
        ""
    };
    Some(format!(
        "this `{bin}` knows {}; a file using other node types needs a `canopy` built with \
         their registry (`canopy_cli::Cli`){model}",
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
