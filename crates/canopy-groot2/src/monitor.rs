//! One watched agent, and the answers to Groot2's requests about it.
//!
//! A simulation ticks its agents through a [`Probe`]: the watched agent
//! with the [`Mirror`](crate::mirror) as its observer, every other agent
//! plainly (one comparison more per agent). After the watched agent's
//! tick, its statuses, its blackboard's bytes and the tick's transitions
//! are copied where requests read them, under a lock held for those
//! copies only. A request is answered from that copy
//! ([`Monitor::answer`]), on the server's thread, never waiting for the
//! simulation, and the simulation never waits for a request.
//!
//! # What is served and what is refused
//!
//! | request | answer |
//! |---|---|
//! | FULLTREE `T` | the XML with `_uid`s ([`GrootTree::xml`]) |
//! | STATUS `S` | `(uid u16 LE, status u8)` for every node, idle-after-X as `10 + X` |
//! | BLACKBOARD `B` + names | MessagePack of the named trees' entries |
//! | TOGGLE_RECORDING `r` + `start`/`stop` | as BehaviorTree.CPP: `start` answers the time in µs |
//! | GET_TRANSITIONS `t` | the transitions since the last call (at most 1,000), 9 bytes each |
//! | HOOKS_DUMP `D` | `[]`: there are no hooks |
//! | REMOVE_ALL_HOOKS `A`, DISABLE_ALL_HOOKS `X` | done (there is nothing to remove) |
//! | HOOK_INSERT `I` | refused: `canopy does not stop an agent inside a tick: breakpoints and replaced nodes are not served` |
//! | HOOK_REMOVE `R`, BREAKPOINT_UNLOCK `U` | refused as BehaviorTree.CPP refuses an unknown hook: `Node ID not found` |
//! | canopy's own WATCH `W` + agent id | watch that agent (`""`: say which); the reply's payload is its id |
//!
//! Breakpoints are refused because a canopy agent cannot stop inside a
//! tick: an agent's tick runs to its end on whichever thread ticks it, in
//! parallel with the crowd, and a paused simulation is the inspector's
//! (pause, step, resume between steps). A malformed request is answered
//! with BehaviorTree.CPP's error reply, two frames `error` and a message:
//! `wrong request header`, `must be 2 parts message`, `Request not
//! recognized`, `a request has at most 2 parts`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use canopy_core::{Agent, Observer, Status, Tree};

use crate::align::Alignment;
use crate::board::BoardLayout;
use crate::btlog::BtLog;
use crate::mirror::{Mirror, Transition};
use crate::xml::GrootTree;

/// Request types of Groot2's protocol (`BT::Monitor::RequestType`).
pub mod request {
    /// The tree's XML.
    pub const FULLTREE: u8 = b'T';
    /// Every node's status.
    pub const STATUS: u8 = b'S';
    /// Blackboards, by tree name.
    pub const BLACKBOARD: u8 = b'B';
    /// Insert a hook (a breakpoint): refused.
    pub const HOOK_INSERT: u8 = b'I';
    /// Remove a hook.
    pub const HOOK_REMOVE: u8 = b'R';
    /// Sent by a publisher when a breakpoint is reached (never, here).
    pub const BREAKPOINT_REACHED: u8 = b'N';
    /// Let a breakpoint go on.
    pub const BREAKPOINT_UNLOCK: u8 = b'U';
    /// The hooks, as JSON.
    pub const HOOKS_DUMP: u8 = b'D';
    /// Remove every hook.
    pub const REMOVE_ALL_HOOKS: u8 = b'A';
    /// Disable every hook.
    pub const DISABLE_ALL_HOOKS: u8 = b'X';
    /// Start or stop recording transitions.
    pub const TOGGLE_RECORDING: u8 = b'r';
    /// The transitions recorded since the last call.
    pub const GET_TRANSITIONS: u8 = b't';
    /// canopy's own: watch another agent.
    pub const WATCH: u8 = b'W';
}

/// The protocol's version byte.
pub const PROTOCOL_ID: u8 = 2;

/// Most transitions kept while recording between two GET_TRANSITIONS, as
/// BehaviorTree.CPP keeps.
pub const MAX_RECORDED_TRANSITIONS: usize = 1000;

/// Most parts (frames) of a request.
pub const MAX_REQUEST_PARTS: usize = 2;

/// What the server thread reads: the last copy of the watched agent.
#[derive(Debug)]
struct Served {
    tree_id: [u8; 16],
    status: Vec<u8>,
    board: Vec<u8>,
    /// When recording started, if it is on.
    recording: Option<Instant>,
    transitions: VecDeque<(u64, Transition)>,
}

/// The tree shown: as Groot2 numbers it, and its blackboards.
#[derive(Debug)]
struct Shown {
    groot: GrootTree,
    board: BoardLayout,
    fingerprint: u64,
}

/// What the watched agent's ticks update.
#[derive(Debug)]
struct Watching {
    shown: Arc<Shown>,
    mirror: Mirror,
    /// The agent the mirror follows; `None` until its first tick.
    agent: Option<u32>,
    transitions: Vec<Transition>,
    status: Vec<u8>,
    board: Vec<u8>,
    log: Option<BtLog>,
}

/// Groot2's view of one agent of a crowd running one tree: the tree as
/// Groot2 numbers it, the watched agent's statuses and blackboard, and the
/// answers to Groot2's requests. `Publisher` (feature `zmq`) serves it
/// over ZeroMQ; without a socket it still answers requests given as bytes
/// and writes `.btlog` files.
///
/// ```
/// use canopy_btcpp::{XmlOptions, load_str};
/// use canopy_data::Registry;
/// use canopy_groot2::{GrootTree, Monitor, request};
///
/// let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="Main">
///   <Sequence><AlwaysSuccess/><Sleep msec="500"/></Sequence>
/// </BehaviorTree></root>"#;
/// let tree = load_str(&Registry::<(), ()>::new(), xml, "main.xml", None, &XmlOptions::default()).unwrap();
/// let monitor = Monitor::new(GrootTree::from_xml(xml).unwrap(), &tree);
/// let mut agents: Vec<canopy_core::Agent> = (0..3).map(|i| canopy_core::Agent::with_id(&tree, i)).collect();
/// let probe = monitor.probe();
/// for agent in &mut agents {
///     probe.tick(agent, &tree, &mut (), &());
/// }
/// let reply = monitor.answer(&[&[2, request::STATUS, 7, 0, 0, 0]]);
/// // The 22-byte header, then (uid, status): Sequence RUNNING, AlwaysSuccess SUCCESS, Sleep RUNNING.
/// assert_eq!(reply[1], [1, 0, 1, 2, 0, 2, 3, 0, 1]);
/// ```
#[derive(Debug)]
pub struct Monitor {
    shown: RwLock<Arc<Shown>>,
    watched: AtomicU32,
    /// Agents the crowd has (ids `0..agents`), if known.
    agents: AtomicU32,
    watching: Mutex<Watching>,
    served: Mutex<Served>,
}

/// No agent count known.
const UNKNOWN: u32 = u32::MAX;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fresh tree id, as BehaviorTree.CPP's publisher makes one: 16 random
/// bytes with a version 4 UUID's marks. (Random enough: it only tells a
/// client that the tree changed.)
fn tree_id(seed: u64) -> [u8; 16] {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut x = seed ^ nanos ^ (std::process::id() as u64).rotate_left(32);
    let mut out = [0u8; 16];
    for chunk in out.chunks_mut(8) {
        x = canopy_core::hash::mix(x.wrapping_add(0x9e37_79b9_7f4a_7c15));
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    out[6] = (out[6] & 0x4f) | 0x40;
    out[8] = (out[8] & 0xbf) | 0x80;
    out
}

impl Monitor {
    /// A monitor of agents running `tree`, which Groot2 sees as `groot`;
    /// it watches agent 0.
    pub fn new<A, W>(groot: GrootTree, tree: &Tree<A, W>) -> Monitor {
        let (shown, mirror, status) = Monitor::show(groot, tree);
        Monitor {
            served: Mutex::new(Served {
                tree_id: tree_id(tree.fingerprint()),
                status: status.clone(),
                board: Vec::new(),
                recording: None,
                transitions: VecDeque::new(),
            }),
            watching: Mutex::new(Watching {
                shown: Arc::clone(&shown),
                mirror,
                agent: None,
                transitions: Vec::new(),
                status,
                board: Vec::new(),
                log: None,
            }),
            shown: RwLock::new(shown),
            watched: AtomicU32::new(0),
            agents: AtomicU32::new(UNKNOWN),
        }
    }

    /// What showing `tree` as `groot` takes: the tree, a fresh mirror,
    /// and its first STATUS bytes (every node IDLE).
    fn show<A, W>(groot: GrootTree, tree: &Tree<A, W>) -> (Arc<Shown>, Mirror, Vec<u8>) {
        let mirror = Mirror::new(&groot, Alignment::new(&groot, tree));
        let board = BoardLayout::new(&groot, tree.slots());
        let mut status = Vec::new();
        mirror.write_status(&mut status);
        let shown = Arc::new(Shown {
            groot,
            board,
            fingerprint: tree.fingerprint(),
        });
        (shown, mirror, status)
    }

    fn shown(&self) -> Arc<Shown> {
        Arc::clone(&self.shown.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The tree as Groot2 sees it.
    pub fn tree(&self) -> GrootTree {
        self.shown().groot.clone()
    }

    /// The XML a FULLTREE request is answered with.
    pub fn xml(&self) -> String {
        self.shown().groot.xml().to_string()
    }

    /// Where the XML and canopy's tree disagree, in words: those parts of
    /// the tree show as IDLE. Empty for a tree canopy read from this XML.
    pub fn mismatches(&self) -> Vec<String> {
        lock(&self.watching).mirror.mismatches().to_vec()
    }

    /// The names a BLACKBOARD request may give: the main tree's ID and
    /// each subtree instance's path.
    pub fn board_names(&self) -> Vec<String> {
        self.shown().board.names().map(str::to_string).collect()
    }

    /// The agent watched.
    pub fn watched(&self) -> u32 {
        self.watched.load(Ordering::Acquire)
    }

    /// Watch `agent` from its next tick on. Its statuses start from its
    /// running tasks (everything else IDLE, as for a tree Groot2 attaches
    /// to while it runs).
    pub fn watch(&self, agent: u32) {
        self.watched.store(agent, Ordering::Release);
    }

    /// Say how many agents there are (ids `0..agents`), so that a WATCH
    /// request for another id is refused.
    pub fn set_agents(&self, agents: u32) {
        self.agents.store(agents, Ordering::Release);
    }

    /// Write the watched agent's transitions to `log` from now on (in
    /// place of any log before, which is returned).
    pub fn set_log(&self, log: Option<BtLog>) -> Option<BtLog> {
        std::mem::replace(&mut lock(&self.watching).log, log)
    }

    /// A probe for one step: it ticks the agent watched when it was made
    /// with the mirror observing, every other agent plainly. `Sync`: share
    /// it with a parallel loop.
    pub fn probe(&self) -> Probe<'_> {
        Probe {
            monitor: self,
            watched: self.watched(),
        }
    }

    /// After the watched agent's tick: copy what requests read.
    fn publish<A, W>(&self, watching: &mut Watching, agent: &mut Agent, tree: &Tree<A, W>) {
        watching.mirror.end_tick();
        watching.transitions.clear();
        watching.mirror.take_transitions(&mut watching.transitions);
        watching.mirror.write_status(&mut watching.status);
        watching
            .shown
            .board
            .capture(&mut agent.board_mut(tree), &mut watching.board);
        if let Some(log) = &mut watching.log {
            log.tick(agent.ticks(), &watching.transitions);
        }
        let mut served = lock(&self.served);
        served.status.clone_from(&watching.status);
        served.board.clone_from(&watching.board);
        if let Some(start) = served.recording {
            let at = start.elapsed().as_micros() as u64;
            for &t in &watching.transitions {
                served.transitions.push_back((at, t));
            }
            while served.transitions.len() > MAX_RECORDED_TRANSITIONS {
                served.transitions.pop_front();
            }
        }
    }

    /// The reply to one request, given as its frames: the frames to send
    /// back. Never panics, whatever the bytes.
    pub fn answer(&self, frames: &[&[u8]]) -> Vec<Vec<u8>> {
        let error = |message: &str| vec![b"error".to_vec(), message.as_bytes().to_vec()];
        let Some(head) = frames.first() else {
            return error("wrong request header");
        };
        if head.len() != 6 {
            return error("wrong request header");
        }
        if frames.len() > MAX_REQUEST_PARTS {
            return error("a request has at most 2 parts");
        }
        let kind = head[1];
        let second = || frames.get(1).copied();
        let needs_two = matches!(
            kind,
            request::BLACKBOARD
                | request::HOOK_INSERT
                | request::HOOK_REMOVE
                | request::BREAKPOINT_UNLOCK
                | request::TOGGLE_RECORDING
                | request::WATCH
        );
        if needs_two && frames.len() != 2 {
            return error("must be 2 parts message");
        }
        let shown = self.shown();
        let mut served = lock(&self.served);
        let mut reply_head = Vec::with_capacity(22);
        reply_head.push(PROTOCOL_ID);
        reply_head.extend_from_slice(&head[1..6]);
        reply_head.extend_from_slice(&served.tree_id);
        let payload: Option<Vec<u8>> = match kind {
            request::FULLTREE => Some(shown.groot.xml().as_bytes().to_vec()),
            request::STATUS => Some(served.status.clone()),
            request::BLACKBOARD => {
                let names = String::from_utf8_lossy(second().unwrap_or_default());
                Some(shown.board.encode(&names, &served.board))
            }
            request::HOOKS_DUMP => Some(b"[]".to_vec()),
            request::REMOVE_ALL_HOOKS | request::DISABLE_ALL_HOOKS => None,
            request::HOOK_INSERT => {
                return error(
                    "canopy does not stop an agent inside a tick: breakpoints and replaced \
                     nodes are not served",
                );
            }
            request::HOOK_REMOVE | request::BREAKPOINT_UNLOCK => {
                return error("Node ID not found");
            }
            request::TOGGLE_RECORDING => match second().unwrap_or_default() {
                b"start" => {
                    served.recording = Some(Instant::now());
                    served.transitions.clear();
                    let now = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_micros());
                    Some(now.to_string().into_bytes())
                }
                b"stop" => {
                    served.recording = None;
                    None
                }
                _ => None,
            },
            request::GET_TRANSITIONS => {
                let mut out = Vec::with_capacity(9 * served.transitions.len());
                for (at, t) in served.transitions.drain(..) {
                    out.extend_from_slice(&at.to_le_bytes()[..6]);
                    out.extend_from_slice(&t.uid.to_le_bytes());
                    out.push(t.status);
                }
                Some(out)
            }
            request::WATCH => {
                drop(served);
                let text = second().unwrap_or_default();
                if !text.is_empty() {
                    let agents = self.agents.load(Ordering::Acquire);
                    let id = std::str::from_utf8(text)
                        .ok()
                        .and_then(|t| t.trim().parse::<u32>().ok());
                    match id {
                        Some(id) if agents == UNKNOWN || id < agents => self.watch(id),
                        Some(id) => {
                            return error(&format!(
                                "no agent {id}: the agents are 0 to {}",
                                agents.saturating_sub(1)
                            ));
                        }
                        None => return error("an agent is named by its id, a whole number"),
                    }
                }
                return vec![reply_head, self.watched().to_string().into_bytes()];
            }
            _ => return error("Request not recognized"),
        };
        match payload {
            Some(payload) => vec![reply_head, payload],
            None => vec![reply_head],
        }
    }

    /// Show `tree` (with `groot`, its XML) instead: after moving the
    /// agents onto an edited tree. Clients see a new tree id and ask for
    /// the tree again; the watched agent's statuses start again from its
    /// running tasks at its next tick.
    pub fn set_tree<A, W>(&self, groot: GrootTree, tree: &Tree<A, W>) {
        let (shown, mirror, status) = Monitor::show(groot, tree);
        let mut watching = lock(&self.watching);
        watching.shown = Arc::clone(&shown);
        watching.mirror = mirror;
        watching.agent = None;
        *self.shown.write().unwrap_or_else(PoisonError::into_inner) = shown;
        let mut served = lock(&self.served);
        served.tree_id = tree_id(tree.fingerprint());
        served.status = status;
        served.board.clear();
        served.transitions.clear();
    }

    /// The fingerprint of the canopy tree shown.
    pub fn tree_fingerprint(&self) -> u64 {
        self.shown().fingerprint
    }
}

/// Ticks agents for one step, observing the watched one.
pub struct Probe<'m> {
    monitor: &'m Monitor,
    watched: u32,
}

impl std::fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("watched", &self.watched)
            .finish_non_exhaustive()
    }
}

impl Probe<'_> {
    /// The agent this probe observes.
    pub fn watched(&self) -> u32 {
        self.watched
    }

    /// Tick `agent` once: observed if it is the watched agent, else a
    /// plain `Agent::tick`.
    #[inline]
    pub fn tick<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        data: &mut A,
        world: &W,
    ) -> Status {
        self.tick_elapsed(agent, tree, data, world, 1)
    }

    /// [`Probe::tick`] for an agent ticked less often than the world
    /// (`Agent::tick_elapsed`).
    #[inline]
    pub fn tick_elapsed<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        data: &mut A,
        world: &W,
        elapsed: u32,
    ) -> Status {
        if agent.id() != self.watched {
            return agent.tick_elapsed(tree, data, world, elapsed);
        }
        self.watched_tick(agent, tree, |agent, observer| {
            agent.tick_elapsed_observed(tree, data, world, elapsed, observer)
        })
    }

    /// Tick `agent` with `tick`, which must tick it once, passing the
    /// observer it is given on (beside others of its own, e.g. the browser
    /// inspector's): the mirror for the watched agent, `None` for any other
    /// (tick it plainly, as `Agent::tick` does, at no cost).
    #[inline]
    pub fn tick_with<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        tick: impl FnOnce(&mut Agent, Option<&mut dyn Observer>) -> Status,
    ) -> Status {
        if agent.id() != self.watched {
            return tick(agent, None);
        }
        self.watched_tick(agent, tree, |agent, observer| tick(agent, Some(observer)))
    }

    /// Whether `agent` is the one this probe observes.
    #[inline]
    pub fn watches(&self, agent: &Agent) -> bool {
        agent.id() == self.watched
    }

    #[cold]
    fn watched_tick<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        tick: impl FnOnce(&mut Agent, &mut dyn Observer) -> Status,
    ) -> Status {
        let monitor = self.monitor;
        let mut watching = lock(&monitor.watching);
        let watching = &mut *watching;
        if watching.agent != Some(agent.id()) {
            watching.mirror.start(&agent.running(tree));
            watching.agent = Some(agent.id());
        }
        let status = tick(agent, &mut watching.mirror);
        monitor.publish(watching, agent, tree);
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::Builder;
    use proptest::prelude::*;

    fn monitor() -> Monitor {
        let b = Builder::<(), ()>::new();
        b.key::<i32>("n").unwrap();
        let tree = b
            .build(b.sequence("s", [b.always_success("a"), b.wait("w", 3)]))
            .unwrap();
        let groot = GrootTree::from_xml(
            r#"<root><BehaviorTree ID="M"><Sequence name="s"><AlwaysSuccess name="a"/><Sleep name="w" msec="300"/></Sequence></BehaviorTree></root>"#,
        )
        .unwrap();
        let monitor = Monitor::new(groot, &tree);
        let mut agent = Agent::new(&tree);
        monitor.probe().tick(&mut agent, &tree, &mut (), &());
        monitor
    }

    #[test]
    fn malformed_requests_get_behaviortree_cpps_error_replies() {
        let m = monitor();
        let error = |message: &str| vec![b"error".to_vec(), message.as_bytes().to_vec()];
        assert_eq!(m.answer(&[]), error("wrong request header"));
        assert_eq!(m.answer(&[b"ab"]), error("wrong request header"));
        assert_eq!(
            m.answer(&[&[2, b'B', 0, 0, 0, 0]]),
            error("must be 2 parts message")
        );
        assert_eq!(
            m.answer(&[&[2, b'Q', 0, 0, 0, 0]]),
            error("Request not recognized")
        );
        assert_eq!(
            m.answer(&[&[2, b'S', 0, 0, 0, 0], b"", b""]),
            error("a request has at most 2 parts")
        );
        assert_eq!(
            m.answer(&[&[2, b'R', 0, 0, 0, 0], b"{}"]),
            error("Node ID not found")
        );
        let hooks = m.answer(&[&[2, b'D', 9, 0, 0, 0]]);
        assert_eq!(
            (hooks[0][..6].to_vec(), hooks[1].clone()),
            (vec![2, b'D', 9, 0, 0, 0], b"[]".to_vec())
        );
        assert_eq!(
            m.answer(&[&[2, b'A', 9, 0, 0, 0]]).len(),
            1,
            "removing no hooks succeeds"
        );
    }

    #[test]
    fn a_watch_request_switches_agents_within_the_crowd() {
        let m = monitor();
        m.set_agents(10);
        let reply = m.answer(&[&[2, request::WATCH, 1, 0, 0, 0], b"7"]);
        assert_eq!(reply[1], b"7");
        assert_eq!(m.watched(), 7);
        assert_eq!(m.answer(&[&[2, request::WATCH, 1, 0, 0, 0], b""])[1], b"7");
        assert_eq!(
            m.answer(&[&[2, request::WATCH, 1, 0, 0, 0], b"10"])[1],
            b"no agent 10: the agents are 0 to 9"
        );
        assert_eq!(
            m.answer(&[&[2, request::WATCH, 1, 0, 0, 0], b"x"])[1],
            b"an agent is named by its id, a whole number"
        );
    }

    proptest! {
        /// Whatever a client sends, the answer is a reply or an error
        /// reply, never a panic; a reply echoes the request's header.
        #[test]
        fn any_request_gets_an_answer(frames in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..4)) {
            let m = monitor();
            let parts: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
            let reply = m.answer(&parts);
            prop_assert!(!reply.is_empty());
            if reply[0] != b"error" {
                prop_assert_eq!(reply[0].len(), 22);
                prop_assert_eq!(&reply[0][1..6], &frames[0][1..6]);
            }
        }
    }
}
