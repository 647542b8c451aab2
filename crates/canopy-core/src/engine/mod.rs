//! The engine: runs the kinds of [`nodes`](crate::nodes) on one agent's
//! memory.
//!
//! - [`runner`]: the behavior slot — install a node's task, update it,
//!   uninstall it, abort it — and the [`Exec`](crate::def::exec::Exec)
//!   handle through which a kind's code reaches its task and children;
//! - [`scheduler`]: the event-driven mode;
//! - [`walk`]: reading back which tasks run, from their state alone (for
//!   counting, inspecting, scheduling and checking restored memory).

pub(crate) mod runner;
pub(crate) mod scheduler;
pub(crate) mod walk;
