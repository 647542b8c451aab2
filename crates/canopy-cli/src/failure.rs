//! Why a command did not succeed (reported by the `report` module).

use std::io;
use std::path::Path;

use canopy_data::LoadError;

use crate::files::shown;

/// Why a command did not succeed.
pub(crate) enum Failure {
    /// The tree file is bad (exit 1, with a hint when one helps).
    Load(LoadError),
    /// The state machine file is bad (exit 1).
    Machine(canopy_fsm::MachineLoadError),
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

/// The end of a run that may save to `save` once it has run: a run cut
/// short by a closed output pipe saves nothing and says so (the file would
/// hold a state nobody saw), another failure is the run's, and a whole run
/// saves with `write`.
pub(crate) fn then_save(
    save: Option<&Path>,
    ran: io::Result<()>,
    write: impl FnOnce(&Path) -> Result<(), Failure>,
) -> Result<(), Failure> {
    match (save, ran) {
        (Some(path), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            Err(Failure::Message(format!(
                "{}: not written: the output was closed before the run ended",
                shown(path)
            )))
        }
        (_, Err(e)) => Err(e.into()),
        (None, Ok(())) => Ok(()),
        (Some(path), Ok(())) => write(path),
    }
}
