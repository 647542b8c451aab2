//! canopy: behavior trees for crowds.
//!
//! One immutable tree definition is shared by every agent; each agent owns
//! only the small runtime state of the nodes active for it right now, in
//! pooled memory, so 100,000 agents cost little more than their active
//! tasks, tick without allocating, and tick in parallel.
//!
//! This facade is the one crate a game depends on (package `canopy-bt`,
//! library `canopy`). It re-exports the parts: the engine
//! ([`canopy_core`], at the top level), data-driven trees ([`canopy_data`],
//! as [`data`]) and state machines ([`canopy_fsm`], as [`fsm`]); with
//! features, BehaviorTree.CPP XML (`xml`), a game's own command (`cli`), the
//! browser inspector (`inspector`), the crowd simulation (`crowd`) and a
//! counting allocator (`counting`); `full` turns on all of them.
//!
//! ```toml
//! [dependencies]
//! canopy-bt = { version = "0.1", features = ["xml"] }  # code says `use canopy::…`
//! ```
//!
//! The manual is a book of markdown pages in the repository's `docs/`
//! directory (`docs/README.md` is its table of contents): a tutorial, your
//! own nodes, tree files and the command, event mode and async leaves,
//! state machines, saving and reloading, the inspector, BehaviorTree.CPP
//! and Groot2, semantics, limits and soundness, and figures. Its examples
//! are compiled and run as doctests of this crate.
//!
//! ```
//! use canopy::{Agent, Builder, Status};
//! let b = Builder::<(), ()>::new();
//! let tree = b.build(b.sequence("hello", [b.always_success("world")])).unwrap();
//! assert_eq!(Agent::new(&tree).tick(&tree, &mut (), &()), Status::Success);
//! ```

pub use canopy_core::*;

/// Node registry and tree files (JSON, RON): [`canopy_data`].
pub mod data {
    pub use canopy_data::*;
}

/// State machines, flat and hierarchical, and hybrids with trees: [`canopy_fsm`].
pub mod fsm {
    pub use canopy_fsm::*;
}

/// BehaviorTree.CPP XML (format 4) in and out: [`canopy_btcpp`]
/// (feature `xml`).
#[cfg(feature = "xml")]
pub mod xml {
    pub use canopy_btcpp::*;
}

/// A game's own `canopy` command: [`canopy_cli`] (feature `cli`).
#[cfg(feature = "cli")]
pub mod cli {
    pub use canopy_cli::*;
}

/// The live browser inspector, recordings and replays:
/// [`canopy_inspector`] (feature `inspector`).
#[cfg(feature = "inspector")]
pub mod inspector {
    pub use canopy_inspector::*;
}

/// The crowd simulation of the demo: [`canopy_crowd`] (feature `crowd`).
#[cfg(feature = "crowd")]
pub mod crowd {
    pub use canopy_crowd::*;
}

/// Groot2 watches an agent — its monitor protocol, `.btlog` files:
/// [`canopy_groot2`] (feature `groot2`).
#[cfg(feature = "groot2")]
pub mod groot2 {
    pub use canopy_groot2::*;
}

/// A counting global allocator for memory tests: [`canopy_counting`]
/// (feature `counting`).
#[cfg(feature = "counting")]
pub mod counting {
    pub use canopy_counting::*;
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The book in `docs/`: every page's examples, compiled and run as
/// doctests (one module per page, so a failure names its page).
#[cfg(doctest)]
mod book {
    #[doc = include_str!("../docs/README.md")]
    mod contents {}
    #[doc = include_str!("../docs/tutorial.md")]
    mod tutorial {}
    #[doc = include_str!("../docs/own-nodes.md")]
    mod own_nodes {}
    #[doc = include_str!("../docs/tree-files-and-the-command.md")]
    mod tree_files_and_the_command {}
    #[doc = include_str!("../docs/event-mode-and-async.md")]
    mod event_mode_and_async {}
    #[doc = include_str!("../docs/blackboard.md")]
    mod blackboard {}
    #[doc = include_str!("../docs/btcpp-tutorials.md")]
    mod btcpp_tutorials {}
    #[doc = include_str!("../docs/state-machines.md")]
    mod state_machines {}
    #[doc = include_str!("../docs/saving-and-reloading.md")]
    mod saving_and_reloading {}
    #[doc = include_str!("../docs/inspector.md")]
    mod inspector {}
    #[doc = include_str!("../docs/behaviortree-cpp-and-groot2.md")]
    mod behaviortree_cpp_and_groot2 {}
    #[doc = include_str!("../docs/semantics.md")]
    mod semantics {}
    #[doc = include_str!("../docs/limits-and-soundness.md")]
    mod limits_and_soundness {}
    #[doc = include_str!("../docs/crowd-demo.md")]
    mod crowd_demo {}
    #[doc = include_str!("../docs/figures.md")]
    mod figures {}
    #[doc = include_str!("../docs/utility.md")]
    mod utility {}
}
