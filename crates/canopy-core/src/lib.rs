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
//! | Node — definition, parameters, children | [`NodeKind`], inside [`Tree`] | no, shared |
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
//! | definitions | `def/` | [`NodeKind`], [`Node`], [`Observer`], the interface kinds are written against |
//! | node kinds | `nodes/` | one file per kind: its facts and its semantics |
//! | the shared tree | `tree/` | [`Tree`] and its memory layout, validated once |
//! | per-agent state | `state/` | the wait table and the event schedule |
//! | the engine | `engine/` | the behavior slot, the event-driven scheduler, reading back running tasks |
//! | the API | `api/` | [`Agent`], [`Builder`], printing, [`TaskView`], the crowd scheduler [`Lod`] |
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
mod script;
mod state;
mod tree;
mod util;

pub use api::agent::{Agent, AgentMemory, MAX_ELAPSED, POISONED, WRONG_TREE};
pub use api::builder::{BuildError, Builder, Draft, KeyError, TreePath};
pub use api::display::{Display, Escape};
pub use api::inspect::TaskView;
pub use api::lod::{COST_STEP, Lod, LodError, MAX_CLASSES, MAX_PERIOD, RateClass};
pub use api::reload::Reload;
pub use api::snapshot::{
    MAX_RESTORED_CROWD_BYTES, RestoreError, SNAPSHOT_VERSION, Snapshot, restore_crowd,
    restore_crowd_within, save_crowd,
};
pub use def::custom::{Children, CustomNode, MAX_TASK_BYTES, Node};
pub use def::observer::{Event, EventKind, Observer};
pub use nodes::NodeKind;
pub use script::{
    Keys, MAX_SCRIPT_BYTES, MAX_SCRIPT_HEIGHT, MAX_SCRIPT_NESTING, MAX_SCRIPT_OPS,
    MAX_SCRIPT_STACK, MAX_SCRIPT_TEXTS, Refusal, Script, ScriptError, ScriptFault, ScriptType,
    ScriptValue, TextOrKey,
};
pub use tree::layout::{MAX_AGENT_BYTES, MAX_CHILDREN, MAX_DEPTH, MAX_EXPANDED_NODES};
pub use tree::{NodeRef, Tree};
pub use util::board::{
    Board, BoardValue, Input, Key, Output, SlotRef, SlotType, TEXT_BYTES, Text, Updates,
};
pub use util::context::{AbortFn, ActionFn, AsyncFn, ConditionFn, Ctx, Predicate};
pub use util::convert::ConvertError;
pub use util::params::declare::{Param, ParamKind};
pub use util::params::error::ParamError;
pub use util::params::literal::Literal;
pub use util::params::typed::{FromParam, IntoDefault, NodeParams, ParamEnum, Statuses, Ticks};
pub use util::params::value::{ParamValue, Params};
pub use util::primitives::{Afterwards, Arity, MAX_TICKS, Mode, NodeId, ParseError, Policy};
pub use util::status::{Exit, Status};
pub use util::ticket::{Completion, Ticket};
pub use util::{convert, hash, text};

/// `#[derive(Params)]`: a struct's fields as a node type's parameters
/// ([`NodeParams`]). `#[derive(ParamEnum)]`: an enum's variants as the
/// words of a parameter ([`ParamEnum`]). `#[derive(Task)]`: a custom
/// node's per-agent state, checked to be plain bytes ([`Node::Task`]).
pub use canopy_derive::{ParamEnum, Params, Task};

/// Re-exported so custom task types can derive `Pod` and `Zeroable`.
pub use bytemuck;
