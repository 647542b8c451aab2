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
//! A tree edited while the game runs is shown too: after moving its agents
//! onto it (`Agent::reload`), the game calls [`Inspector::set_tree`], and
//! open pages redraw the new tree. Every message naming nodes carries the
//! version of the tree whose ids it uses, so a page never draws one tree's
//! states on another tree's boxes. `?agent=ID` in the page's address
//! watches that agent.
//!
//! The watched agent's blackboard is shown beside its tree — each slot's
//! key, type and value, those changed since the frame before marked —
//! when the simulation hands it over before publishing
//! ([`Inspector::set_board`], [`board_of`]); it costs one agent's slots
//! per frame, nothing for the rest of the crowd.
//!
//! Which tasks of the watched agent run is derived from its events
//! ([`AgentLog`]); an engine view of an agent plugs in through
//! [`RunningSource`]. State machines are shown through one already:
//! [`fsm`] draws a machine as a tree of states and an `FsmAgent`'s active
//! path as its running tasks.
//!
//! The page is three files compiled into the crate (no network, no build
//! step); every name from a tree reaches it as text, never as markup.
//!
//! # Bounds
//!
//! A client of the server — the page, or anything else that reaches the
//! port — can make it hold only so much ([`Limits`], in
//! [`Options::limits`]; replays use the defaults):
//!
//! - **Viewers**: at most [`MAX_VIEWERS`] (8) live WebSockets; the next is
//!   answered `503 Service Unavailable` with `too many viewers: the
//!   inspector serves at most 8 at once`. The page reconnects every second,
//!   so it gets in once a tab closes.
//! - **What a viewer sends**: the page sends nothing over its WebSocket.
//!   A message or frame over [`MAX_INBOUND_MESSAGE`] (4 KiB) ends the
//!   connection with close code 1009 before more than that is buffered,
//!   any other data message with 1008, a malformed frame with 1002 (1007
//!   for text that is not UTF-8); pings are answered. The read buffer is 4 KiB and nothing is gathered for
//!   writing, so a viewer costs a few kilobytes plus the frame being sent
//!   to it.
//! - **Connections**: at most [`MAX_CONNECTIONS`] (64) TCP connections,
//!   viewers included. Past it a new connection replaces the one idle
//!   longest (no request under way), so silent connections cannot lock the
//!   page out; when every one is busy the new one is closed unanswered.
//! - **Time**: a request's head (request line and headers, at most
//!   [`MAX_HEAD_BYTES`]) must arrive within [`HEADER_TIMEOUT`] (10 s) of
//!   the server waiting for it — which also closes connections idle that
//!   long between requests — and a whole request, body included, within
//!   [`REQUEST_TIMEOUT`] (10 s), else `408 Request Timeout`.
//! - **Control messages** (`POST /api/control`, `POST /api/watch`): JSON
//!   of at most [`control::MAX_CONTROL_BYTES`] (1 KiB), refused with `413`
//!   as soon as a body passes it; an unknown message is a `400`
//!   ([`control::parse_command`], [`control::parse_watch`]).

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

pub mod control;
mod frame;
pub mod fsm;
mod json;
mod live;
mod net;
mod record;
pub mod replay;
mod server;
mod shape;
pub mod trace;
mod view;

pub use frame::{ClassLabel, Frame, Label, MAGIC, NO_POSITION};
pub use live::{Inspector, Options, Probe};
pub use net::{
    HEADER_TIMEOUT, Limits, MAX_CONNECTIONS, MAX_HEAD_BYTES, MAX_INBOUND_MESSAGE, MAX_VIEWERS,
    REQUEST_TIMEOUT,
};
pub use record::{RECORD_BYTES, Recorder, Selection};
pub use server::Stats;
pub use shape::{Shape, ShapeNode};
pub use view::{
    AgentLog, AgentView, BoardEntry, EngineView, EventView, LodView, NodeState, NodeView, Ring,
    RunningSource, RunningTask, SlotView, board_of,
};
