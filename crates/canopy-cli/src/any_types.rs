//! A registry as the command line uses it, whatever its agent data and
//! world: the object-safe [`AnyTypes`], and a registry offered under a name.

use std::io::Write;

use crate::args::Command;
use crate::failure::Failure;

/// What [`Cli`](crate::Cli) asks of a registry, whatever its agent data and
/// world.
pub(crate) trait AnyTypes {
    /// Whether a node type of this name is registered.
    fn knows(&self, type_name: &str) -> bool;
    /// Whether `run` and `bench` can run trees of these types.
    fn runs(&self) -> bool;
    /// Carry out `command`, writing to `out` (and warnings to `err`).
    fn execute(
        &mut self,
        command: &Command,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure>;
}

/// A registry offered under `--types NAME`.
pub(crate) struct OfferedTypes {
    /// The `--types` value.
    pub(crate) name: String,
    /// What the types are, as a noun phrase ("the crowd demo's node types").
    pub(crate) about: String,
    /// The registry, with agent data and world when it can run.
    pub(crate) types: Box<dyn AnyTypes>,
}
