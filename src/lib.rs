//! canopy: behavior trees for crowds.
//!
//! One immutable tree definition is shared by every agent; each agent owns
//! only the small runtime state of the nodes active for it right now, in
//! pooled memory, so 100,000 agents cost little more than their active
//! tasks, tick without allocating, and tick in parallel.
//!
//! This facade re-exports the parts: the engine ([`canopy_core`], at the
//! top level), data-driven trees ([`canopy_data`], as [`data`]) and state
//! machines ([`canopy_fsm`], as [`fsm`]).
//!
//! ```
//! use canopy::{Agent, Builder, Status};
//! let b = Builder::<(), ()>::new();
//! let tree = b.build(b.sequence("hello", [b.always_success("world")])).unwrap();
//! assert_eq!(Agent::new(&tree).tick(&tree, &mut (), &()), Status::Success);
//! ```

pub use canopy_core::*;

/// `#[derive(Task)]`: a custom node's per-agent state, checked to be plain
/// bytes (see [`Node::Task`]).
pub use canopy_derive::Task;

/// Node registry and tree files (JSON, RON): [`canopy_data`].
pub mod data {
    pub use canopy_data::*;
}

/// State machines, flat and hierarchical, and hybrids with trees: [`canopy_fsm`].
pub mod fsm {
    pub use canopy_fsm::*;
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
