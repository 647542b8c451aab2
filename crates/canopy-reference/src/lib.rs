//! The reference workload of canopy's benches and profiles, in one place.
//!
//! - [`reference_tree`]: a 39-node crowd-agent tree (flee / eat / rest /
//!   wander) mixing every composite kind, depth 7.
//! - [`Critter`] and [`Meadow`]: the agent data and world it runs on, and
//!   [`critters`] to scatter a reproducible crowd.
//! - [`naive`]: the same tree run in the classic style, where every agent
//!   owns a full copy of every node with its state — the baseline canopy is
//!   measured against, and an independent second implementation of the
//!   node semantics for the differential tests.
//! - [`flat`]: the same semantics as a hand-optimised flat-array
//!   interpreter — the limit canopy is measured against.
//!
//! ```
//! use canopy_core::Agent;
//! use canopy_reference::{critters, reference_tree, Meadow};
//!
//! let tree = reference_tree();
//! let mut meadow = Meadow::new(128);
//! let mut crowd = critters(100, 1, &meadow);
//! let mut agents: Vec<Agent> = (0..100).map(|i| Agent::with_id(&tree, i)).collect();
//! for _ in 0..50 {
//!     for (agent, critter) in agents.iter_mut().zip(&mut crowd) {
//!         agent.tick(&tree, critter, &meadow);
//!     }
//!     meadow.advance();
//! }
//! ```

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

pub mod critter;
pub mod file;
pub mod flat;
pub mod naive;
mod tree;

pub use critter::{Critter, Leaf, Meadow, Outcome, critters, leaves};
pub use tree::{reference_root, reference_tree};
