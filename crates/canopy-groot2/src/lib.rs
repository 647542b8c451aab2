//! Groot2 watches a canopy agent: BehaviorTree.CPP's monitor protocol
//! served for any one agent of a running crowd, and `.btlog` files Groot2
//! replays.
//!
//! BehaviorTree.CPP's users watch running trees in Groot2: its
//! `Groot2Publisher` answers Groot2's requests for one tree — the tree's
//! XML with a UID on every node, each node's status, the blackboards —
//! over ZeroMQ, and its `FileLogger2` writes the status changes to a
//! `.btlog` file. A canopy crowd has a hundred thousand agents sharing one
//! tree; this crate serves one of them at a time, chosen at start and
//! switched while it runs (by a request, or by the inspector's watched
//! agent):
//!
//! - [`GrootTree`]: the tree as Groot2 sees it, from the XML canopy read
//!   (or exported): numbered as BehaviorTree.CPP numbers it, so that a
//!   node has the same UID as under BehaviorTree.CPP's publisher.
//! - [`Monitor`]: the watched agent's statuses — BehaviorTree.CPP's own,
//!   idle-after-success included, modelled from canopy's events (see
//!   `mirror.rs`) — and blackboard, and the answer to each request.
//!   Agents are ticked through its [`Probe`]; an agent that is not
//!   watched costs one comparison.
//! - `Publisher` (feature `zmq`): the monitor on a ZeroMQ socket, on
//!   its own thread, 127.0.0.1 by default.
//! - [`BtLog`]: the watched agent's transitions in `FileLogger2`'s format;
//!   [`BtLogFile`] reads one back.
//!
//! What is served and what is refused (breakpoints: canopy does not stop
//! an agent inside a tick) is in [`Monitor`]'s docs.
//!
//! # ZeroMQ: libzmq, behind a feature
//!
//! The server binds Debian's libzmq (`libzmq3-dev`, ZeroMQ 4.3) through
//! the `zmq` crate (0.10), rather than the pure-Rust `zeromq` crate
//! (0.7). libzmq is what Groot2, BehaviorTree.CPP and pyzmq speak
//! through, so the conformance test exercises the same wire code as the
//! users' tools; it bounds what a client may send where the bytes arrive
//! (`ZMQ_MAXMSGSIZE` drops a peer sending a larger frame before it is
//! buffered; `zeromq` 0.7 has no such option, so a hostile client could
//! make it buffer any frame); its REP socket is blocking with a receive
//! timeout, so the server is one plain thread, where `zeromq` needs an
//! async runtime; and `zeromq` 0.7 needs Rust 1.89, newer than canopy's
//! 1.88. The price is a system library at build time: the feature is off
//! by default, so the workspace builds without it, and CI installs the
//! Debian package before building with it. What was measured against
//! BehaviorTree.CPP's publisher (behaviortreepy 0.1.4, BehaviorTree.CPP
//! 4.8.2) with pyzmq: a request is one frame `[2, type, id u32 LE]` (a
//! second frame naming blackboards, JSON of a hook, `start`/`stop`); a
//! reply is the request's 6 bytes with a 16-byte tree id, then the
//! payload; an error reply is `error` and a message.
//!
//! # Where it lives
//!
//! A crate of its own, not a module of the inspector: the inspector's
//! server is HTTP on tokio and needs no system library; this one needs
//! libzmq, which a game showing the inspector should not have to install.
//! The command (`canopy run --groot2`) and the crowd demo turn it on with
//! their own `groot2` feature.
//!
//! ```
//! use canopy_btcpp::{XmlOptions, load_str};
//! use canopy_core::Agent;
//! use canopy_data::Registry;
//! use canopy_groot2::{GrootTree, Monitor, request};
//!
//! let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="Main">
//!   <Sequence><Script code="n := 1"/><Sleep msec="300"/></Sequence>
//! </BehaviorTree></root>"#;
//! let tree = load_str(&Registry::<(), ()>::new(), xml, "main.xml", None, &XmlOptions::default()).unwrap();
//! let monitor = Monitor::new(GrootTree::from_xml(xml).unwrap(), &tree);
//! monitor.watch(1);
//! let mut agents: Vec<Agent> = (0..2).map(|i| Agent::with_id(&tree, i)).collect();
//! let probe = monitor.probe();
//! for agent in &mut agents {
//!     probe.tick(agent, &tree, &mut (), &());
//! }
//! let tree_reply = monitor.answer(&[&[2, request::FULLTREE, 1, 0, 0, 0]]);
//! assert!(String::from_utf8_lossy(&tree_reply[1]).contains(r#"<Sleep name="Sleep" _uid="3" msec="300"/>"#));
//! let board = monitor.answer(&[&[2, request::BLACKBOARD, 2, 0, 0, 0], b"Main"]);
//! // `n := 1` makes a whole-number key, as BehaviorTree.CPP 4.10 does.
//! assert_eq!(board[1], [0x81, 0xa4, b'M', b'a', b'i', b'n', 0x81, 0xa1, b'n', 0x01]); // {"Main": {"n": 1}}
//! ```

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod align;
mod board;
mod btlog;
mod error;
mod mirror;
mod monitor;
#[cfg(feature = "zmq")]
mod server;
mod xml;

pub use board::MAX_BOARD_NAMES;
pub use btlog::{BTLOG_MAGIC, BtLog, BtLogFile, MAX_BTLOG_BYTES};
pub use error::Groot2Error;
pub use mirror::Transition;
pub use monitor::{
    MAX_RECORDED_TRANSITIONS, MAX_REQUEST_PARTS, Monitor, PROTOCOL_ID, Probe, request,
};
#[cfg(feature = "zmq")]
pub use server::{MAX_FRAME_BYTES, MAX_QUEUED_REQUESTS, Options, Publisher};
pub use xml::{
    GrootNode, GrootTree, MAX_GROOT_NODES, MAX_INCLUDED_FILES, MAX_NESTING, MAX_SOURCE_BYTES,
    NodeClass, Section,
};
