//! Watching canopy agents: record their events, look inside one of them
//! live in a browser, replay a recording.
//!
//! A crowd of 100,000 agents shares one tree; the question a developer has
//! is about one of them — which branch is it in, what is each running node
//! doing, why did it switch. This crate answers it without slowing the
//! crowd:
//!
//! - [`Recorder`]: the events of chosen agents (or all, for small runs),
//!   each agent in a bounded log allocated up front, written out in the
//!   trace format of `canopy run --trace` ([`trace`] has a writer and a
//!   reader of it).
//! - [`Inspector`]: a web page served from the simulation process
//!   (127.0.0.1 by default): the crowd as dots coloured by what each agent
//!   is doing, live; click one to see its tree with the running path
//!   highlighted and its last events; pause, step and resume. The
//!   simulation never waits for the browser: frames go into a slot holding
//!   only the latest, so a slow or absent viewer skips frames.
//! - [`replay`]: the same page over a recorded trace, with a timeline.
//!
//! Which tasks of the watched agent run is derived from its events
//! ([`AgentLog`]); an engine view of an agent plugs in through
//! [`RunningSource`]. State machines are shown through one already:
//! [`fsm`] draws a machine as a tree of states and an `FsmAgent`'s active
//! path as its running tasks.
//!
//! The page is three files compiled into the crate (no network, no build
//! step); every name from a tree reaches it as text, never as markup.

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

pub mod control;
mod frame;
pub mod fsm;
mod live;
mod record;
pub mod replay;
mod server;
mod shape;
mod text;
pub mod trace;
mod view;

pub use frame::{Frame, Label, MAGIC, NO_POSITION};
pub use live::{Inspector, Options, Probe};
pub use record::{RECORD_BYTES, Recorder, Selection};
pub use server::Stats;
pub use shape::{Shape, ShapeNode};
pub use view::{
    AgentLog, AgentView, EngineView, EventView, NodeState, NodeView, Ring, RunningSource,
    RunningTask,
};
