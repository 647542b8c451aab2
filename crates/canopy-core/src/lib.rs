//! The canopy engine: behavior trees for crowds.
//!
//! One immutable [`Tree`] is shared by every agent (the flyweight pattern:
//! the shared-node tree). What an agent owns is an [`Agent`]: the *tasks*
//! of the nodes active for it right now — a sequence's current index, a
//! wait's start tick — in memory laid out once, when the tree is built. So
//! an agent costs a few dozen bytes, a tick allocates nothing, and agents
//! tick in parallel with no locks.
//!
//! | concept | here | per agent? |
//! |---|---|---|
//! | Node — definition, parameters, children | a kind's type from [`nodes`], inside [`Tree`] | no, shared |
//! | Task — runtime state + logic of an active node | plain bytes in the agent's memory; logic in [`nodes`] | yes, only while active |
//! | Behavior — slot that installs / updates / uninstalls a task | a place in the parent task's memory, driven by the engine | part of the parent task |
//! | Agent state — root slot + task memory | [`Agent`] | yes |
//! | Scheduler — tick-from-root or event-driven | [`Mode`] | a mode per agent |
//!
//! # How the crate is built
//!
//! Modules depend only downwards, and the folders show the layers:
//!
//! | layer | folder | what |
//! |---|---|---|
//! | vocabulary | `util/` | [`Status`], [`Exit`], [`NodeId`], [`Arity`], [`Policy`], [`Afterwards`], [`Mode`], [`Ticket`], [`Ctx`], the leaf function types |
//! | definitions | `def/` | the kinds' enum, [`Node`], [`Observer`], the interface kinds are written against |
//! | node kinds | `nodes/` | one file per kind: its facts and its semantics |
//! | the shared tree | `tree/` | [`Tree`] and its memory layout, validated once |
//! | per-agent state | `state/` | the wait table and the event schedule |
//! | the engine | `engine/` | the behavior slot, the event-driven scheduler, reading back running tasks |
//! | the API | `api/` | [`Agent`], [`Builder`], printing, [`TaskView`](inspect::TaskView), the crowd scheduler [`Lod`] |
//!
//! The semantics of every node kind are documented in [`nodes`]; the
//! memory layout — the pool of task memory — and the invariant it
//! guarantees, in one place in `tree/layout.rs`; the event-driven
//! scheduler in `engine/scheduler.rs`. The crate has no `unsafe` code
//! (why: `tree/layout.rs`).
//!
//! # Context: how leaf code reaches agent and world
//!
//! The tree is generic over two plain types, the agent's own data `A` and
//! the shared world `W`. A tick lends `&mut A` and `&W` for its duration, as
//! the [`Ctx`] every leaf receives. The tree itself stores no data, only
//! code, so it is `Send + Sync` and outlives every frame; the borrow checker
//! proves that a parallel tick (disjoint `&mut A`, shared `&W`) is race-free,
//! with no `Rc`, `RefCell`, lock or clone. A crowd step is one line of rayon:
//!
//! ```
//! use canopy_core::{Agent, Builder, Status};
//! use rayon::prelude::*;
//!
//! struct Walker { x: f32, hungry: bool }
//! struct World { food_x: f32 }
//!
//! let b = Builder::<Walker, World>::new();
//! let tree = b.build(b.reactive_selector("root", [
//!     b.sequence("eat", [
//!         b.condition("hungry?", |cx| cx.agent.hungry),
//!         b.action("walk to food", |cx| {
//!             let dx = (cx.world.food_x - cx.agent.x).clamp(-1.0, 1.0);
//!             cx.agent.x += dx;
//!             if dx == 0.0 { cx.agent.hungry = false; Status::Success } else { Status::Running }
//!         }),
//!     ]),
//!     b.always_running("idle"),
//! ])).unwrap();
//!
//! let world = World { food_x: 3.0 };
//! let mut walkers: Vec<Walker> = (0..100).map(|i| Walker { x: 0.0, hungry: i % 2 == 0 }).collect();
//! let mut agents: Vec<Agent> = (0..100).map(|i| Agent::with_id(&tree, i)).collect();
//! for _ in 0..5 {
//!     agents.par_iter_mut().zip(walkers.par_iter_mut())
//!         .for_each(|(agent, walker)| { agent.tick(&tree, walker, &world); });
//! }
//! assert!(walkers.iter().all(|w| !w.hungry));
//! assert_eq!(walkers.iter().filter(|w| w.x == 3.0).count(), 50);
//! ```
//!
//! Considered and rejected: a context-family trait with a generic
//! associated type for borrowed views (more general, but every signature
//! pays in lifetimes), and bonsai-bt's split where the tree stores action
//! values and a closure passed at tick time interprets them (the leaf code
//! then lives outside the shared definition and every caller must re-supply
//! it).
//!
//! # Custom nodes
//!
//! Implement [`Node`] for a type holding the node's parameters and declare
//! its per-agent [`Node::Task`]; see the `MoveTo` example there.

#![forbid(unsafe_code)]
// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

// The derives name this crate `::canopy_core`, in its own code too.
extern crate self as canopy_core;

mod api;
mod def;
mod engine;
pub mod nodes;
pub mod script;
mod state;
mod tree;
mod util;

// The names a game meets first, in one list (as hecs keeps its own); the
// rest live in the modules below, by topic, each module complete for its
// topic. A name is here if the tutorial's trees, a custom node or a saved
// agent need it. Rejected: every public name at the root (a hundred, hard
// to scan, and `use canopy::*` brought in names such as `Display` that
// shadow the standard library's), and a `prelude` beside the root (two
// ways to import the same names).
pub use api::agent::Agent;
pub use api::builder::{BuildError, Builder, Draft};
pub use api::lod::Lod;
pub use api::reload::Reload;
pub use api::snapshot::Snapshot;
pub use def::custom::{Children, CustomNode, Node};
pub use def::observer::{Event, EventKind, Observer};
pub use tree::Tree;
pub use util::board::{Board, Input, Key, Output, Text};
pub use util::context::Ctx;
pub use util::params::{ParamEnum, Params};
pub use util::primitives::{Afterwards, Arity, Mode, NodeId, ParseError, Policy};
pub use util::status::{Exit, Status};
pub use util::ticket::{Completion, Ticket};

pub use api::{agent, builder, display, inspect, lod, snapshot};
pub use util::{board, context, convert, hash, params, text};

/// Every bound canopy puts on work and memory, in one place; each is also
/// beside what it bounds. A tree file, a script or a snapshot over one of
/// them is an error that names it, never a crash or an unbounded
/// allocation (see the book's *Limits and soundness*).
pub mod limits {
    pub use crate::api::agent::MAX_ELAPSED;
    pub use crate::api::lod::{MAX_CLASSES, MAX_PERIOD};
    pub use crate::api::snapshot::MAX_RESTORED_CROWD_BYTES;
    pub use crate::def::custom::MAX_TASK_BYTES;
    pub use crate::script::{
        MAX_SCRIPT_BYTES, MAX_SCRIPT_HEIGHT, MAX_SCRIPT_NESTING, MAX_SCRIPT_OPS, MAX_SCRIPT_STACK,
        MAX_SCRIPT_TEXTS,
    };
    pub use crate::tree::layout::{MAX_AGENT_BYTES, MAX_CHILDREN, MAX_DEPTH, MAX_EXPANDED_NODES};
    pub use crate::util::board::TEXT_BYTES;
    pub use crate::util::primitives::MAX_TICKS;
}

/// The engine's node kind enum, for the loaders and tests that build one
/// directly; a game passes a kind's own type from [`nodes`] to
/// [`Builder::node`] instead.
#[doc(hidden)]
pub use nodes::NodeKind;

/// `#[derive(Task)]`: a custom node's per-agent state, checked to be plain
/// bytes ([`Node::Task`]). `Params` and `ParamEnum` above are each a
/// type or trait and its derive ([`params`]).
pub use canopy_derive::Task;

/// Re-exported so custom task types can derive `Pod` and `Zeroable`.
pub use bytemuck;
