//! Saving an agent exactly where it is, and carrying on from there later:
//! the rules are on [`Snapshot`], the public face of this module.

use std::fmt;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::api::agent::Agent;
use crate::engine::walk::{self, Invalid};
use crate::nodes;
use crate::state::waits::{Entry, Wait, Waits};
use crate::tree::Tree;
use crate::tree::layout::MAX_AGENT_BYTES;
use crate::util::primitives::{Mode, NodeId};

/// The binary format's version; [`Snapshot::from_bytes`] reads only this one.
pub const SNAPSHOT_VERSION: u16 = 1;

const MAGIC: &[u8; 4] = b"CNPY";
const KIND_AGENT: u8 = 1;
const KIND_CROWD: u8 = 2;
/// Bytes of one saved wait: generation, node, state.
const WAIT_BYTES: usize = 8 + 4 + 1;

/// One entry of a saved wait table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
struct SavedWait {
    generation: u64,
    node: u32,
    /// 0 free, 1 pending, 2 completed with Success, 3 with Failure, 4 free
    /// after its leaf was aborted, 5 free after its leaf finished.
    state: u8,
}

/// One agent, saved exactly where it is, to carry on from there later, in
/// this process or another.
///
/// An agent's whole state is plain data — its memory's bytes, its tick, its
/// id, whether its root runs, its mode, and its table of async waits — so a
/// [`Snapshot`] is that data plus the [fingerprint](crate::Tree::fingerprint)
/// of the tree it runs. Restoring checks the fingerprint (a snapshot of
/// another tree, or of an edited version of the same file, is refused:
/// moving agents across versions is hot reload's job), then checks every
/// running task's state before it makes an agent of it, so damaged or
/// hostile bytes are an error, never a panic and never a wrong run. The
/// event-driven schedule is not saved; it is read back from the tasks, as
/// when an agent switches mode.
///
/// **Outstanding tickets.** A restored agent is a new agent with a wait
/// table of its own, so tickets issued before the snapshot do not complete
/// its waits (they might belong to the original, still running). Its async
/// leaves are still waiting: trade a saved ticket in with
/// [`Agent::reissue`], or collect fresh ones with
/// [`Agent::pending_tickets`], and send the requests again.
///
/// The binary form ([`Snapshot::to_bytes`]) starts with `CNPY`, a format
/// version and the fingerprint; every length in it is checked against the
/// bytes that follow and against [`MAX_AGENT_BYTES`](crate::limits::MAX_AGENT_BYTES)
/// before anything is allocated. [`save_crowd`] and [`restore_crowd`] do the
/// same for a whole crowd in one buffer.
///
/// ```
/// use canopy_core::{Agent, Builder, Snapshot, Status};
/// let b = Builder::<u32, ()>::new();
/// let tree = b.build(b.sequence("day", [
///     b.wait("sleep", 3),
///     b.action("work", |cx| { *cx.agent += 1; Status::Success }),
/// ])).unwrap();
/// let mut agent = Agent::new(&tree);
/// let mut worked = 0;
/// agent.tick(&tree, &mut worked, &());
/// let bytes = agent.snapshot(&tree).to_bytes();
///
/// // Later, perhaps in another process with the same tree:
/// let snapshot = Snapshot::from_bytes(&bytes).unwrap();
/// let mut again = Agent::restore(&tree, &snapshot).unwrap();
/// assert_eq!(again.ticks(), 1);
/// let statuses: Vec<Status> = (0..3).map(|_| again.tick(&tree, &mut worked, &())).collect();
/// assert_eq!(statuses, [Status::Running, Status::Running, Status::Success]);
/// assert_eq!(worked, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Snapshot {
    fingerprint: u64,
    id: u32,
    tick: u32,
    running: bool,
    mode: SavedMode,
    memory: Vec<u8>,
    waits: Vec<SavedWait>,
}

/// [`Mode`] as saved (kept apart so the public enum needs no serde).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
enum SavedMode {
    Tick,
    Event,
}

/// Why a snapshot could not be read or restored.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestoreError {
    /// The bytes do not start with a canopy snapshot's mark.
    NotASnapshot,
    /// A snapshot of a format version this build does not read.
    Version {
        /// The version in the bytes.
        found: u16,
    },
    /// An agent's snapshot where a crowd's was expected, or the reverse.
    WrongKind {
        /// What the bytes hold: `"agent"`, `"crowd"` or `"unknown"`.
        found: &'static str,
    },
    /// The bytes end before the snapshot does.
    Truncated {
        /// The byte offset where more was needed.
        at: usize,
    },
    /// Bytes left over after the snapshot.
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// The snapshot was taken of another tree, or of another version of
    /// this one.
    OtherTree {
        /// The fingerprint in the snapshot.
        snapshot: u64,
        /// The fingerprint of the tree it was restored onto.
        tree: u64,
    },
    /// The restored crowd would hold more memory than its limit
    /// ([`MAX_RESTORED_CROWD_BYTES`], or the one given to
    /// [`restore_crowd_within`]), with each agent at its peak
    /// ([`Agent::peak_bytes`]): a small snapshot can stand for a large
    /// crowd, as an event-mode agent's schedule is rebuilt, not saved.
    TooLarge {
        /// The agents in the snapshot.
        agents: u32,
        /// Bytes one of them needs at its peak, in its mode.
        bytes_per_agent: u64,
        /// The limit.
        limit: u64,
    },
    /// The system refused the memory for the crowd's list of agents.
    OutOfMemory,
    /// The saved data cannot be an agent of this tree.
    Corrupt {
        /// The node whose task is damaged, if one is to blame.
        node: Option<NodeId>,
        /// What is wrong.
        problem: &'static str,
    },
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::NotASnapshot => f.write_str("not a canopy snapshot (no CNPY mark)"),
            RestoreError::Version { found } => write!(
                f,
                "snapshot format version {found}; this build reads version {SNAPSHOT_VERSION}"
            ),
            RestoreError::WrongKind { found } => write!(f, "the bytes hold a snapshot of {found}"),
            RestoreError::Truncated { at } => write!(f, "the snapshot is cut short at byte {at}"),
            RestoreError::TrailingBytes { count } => {
                write!(f, "{count} bytes follow the end of the snapshot")
            }
            RestoreError::OtherTree { snapshot, tree } => write!(
                f,
                "the snapshot was taken of another tree, or another version of this one \
                 (fingerprint {snapshot:016x}, this tree's is {tree:016x}); \
                 to move running agents onto an edited tree, reload them instead"
            ),
            RestoreError::TooLarge {
                agents,
                bytes_per_agent,
                limit,
            } => write!(
                f,
                "its {agents} agents need more than the limit of {limit} bytes \
                 ({bytes_per_agent} bytes per agent of this tree at its peak, \
                 its event schedule included)"
            ),
            RestoreError::OutOfMemory => {
                f.write_str("the system refused the memory for the crowd's agents")
            }
            RestoreError::Corrupt {
                node: Some(node),
                problem,
            } => {
                write!(
                    f,
                    "the snapshot is damaged: node {}: {problem}",
                    node.index()
                )
            }
            RestoreError::Corrupt {
                node: None,
                problem,
            } => {
                write!(f, "the snapshot is damaged: {problem}")
            }
        }
    }
}

impl std::error::Error for RestoreError {}

impl From<Invalid> for RestoreError {
    fn from(invalid: Invalid) -> Self {
        corrupt_at(
            invalid.node,
            "its task's state is not one its kind can be in",
        )
    }
}

fn corrupt(problem: &'static str) -> RestoreError {
    RestoreError::Corrupt {
        node: None,
        problem,
    }
}

fn corrupt_at(node: u32, problem: &'static str) -> RestoreError {
    RestoreError::Corrupt {
        node: Some(NodeId(node)),
        problem,
    }
}

impl Agent {
    /// Save this agent: see [`Snapshot`].
    ///
    /// # Panics
    /// As every method taking a tree: see [`Agent`].
    pub fn snapshot<A, W>(&self, tree: &Tree<A, W>) -> Snapshot {
        self.check_usable(tree);
        let waits = self.extra.as_ref().map_or(Vec::new(), |e| {
            e.waits.used().iter().map(save_wait).collect()
        });
        Snapshot {
            fingerprint: tree.fingerprint,
            id: self.id(),
            tick: self.tick,
            running: self.is_running(),
            mode: match self.mode() {
                Mode::Tick => SavedMode::Tick,
                Mode::Event => SavedMode::Event,
            },
            memory: self.mem.to_vec(),
            waits,
        }
    }

    /// An agent of `tree` that carries on exactly where `snapshot` was
    /// taken: same id, tick, running tasks and their state, mode. See
    /// [`Snapshot`] for what is checked and what happens to tickets.
    pub fn restore<A, W>(tree: &Tree<A, W>, snapshot: &Snapshot) -> Result<Agent, RestoreError> {
        if snapshot.fingerprint != tree.fingerprint {
            return Err(RestoreError::OtherTree {
                snapshot: snapshot.fingerprint,
                tree: tree.fingerprint,
            });
        }
        if snapshot.memory.len() != tree.task_memory() {
            return Err(corrupt("its memory is not the size this tree lays out"));
        }
        let mut agent = Agent::with_id(tree, snapshot.id);
        agent.mem.copy_from_slice(&snapshot.memory);
        agent.tick = snapshot.tick;
        if !snapshot.waits.is_empty() {
            let extra = agent
                .extra
                .get_or_insert_with(|| crate::state::Extra::new(tree.waits));
            let entries = snapshot
                .waits
                .iter()
                .map(|saved| load_wait(saved, snapshot.tick))
                .collect::<Result<Vec<Entry>, RestoreError>>()?;
            let capacity = extra.waits.entries.len();
            extra.waits = Waits::restored(&entries, capacity);
        }
        agent.set_root_running(tree, snapshot.running);
        check_tasks(tree, &agent)?;
        check_persistent(tree, &agent)?;
        if snapshot.mode == SavedMode::Event || agent.extra.is_some() {
            let mode = match snapshot.mode {
                SavedMode::Tick => Mode::Tick,
                SavedMode::Event => Mode::Event,
            };
            agent.set_mode(tree, mode);
        }
        Ok(agent)
    }
}

fn save_wait(entry: &Entry) -> SavedWait {
    SavedWait {
        generation: entry.generation(),
        node: entry.node,
        state: entry.saved_state(),
    }
}

fn load_wait(saved: &SavedWait, now: u32) -> Result<Entry, RestoreError> {
    // A generation past 61 bits is taken modulo 2⁶¹, as the table counts.
    Entry::from_saved(saved.generation, saved.node, saved.state, now)
        .ok_or_else(|| corrupt("a wait in an unknown state"))
}

/// Every node's persistent memory must be memory its kind can have left
/// by the snapshot's tick: a forged cooldown end far in the future would
/// otherwise make the node refuse for billions of ticks, a run that never
/// happened.
fn check_persistent<A, W>(tree: &Tree<A, W>, agent: &Agent) -> Result<(), RestoreError> {
    let persist = &agent.mem[tree.task_bytes as usize..];
    crate::tree::layout::persist_places(&tree.nodes, &tree.info, &tree.edges, |node, at| {
        let def = tree.def(node);
        let len = nodes::facts(&def.kind, def.child_count as usize).persist as usize;
        let words = &persist[at as usize..at as usize + len];
        if nodes::persist_valid(&def.kind, words, def.child_count as usize, agent.tick) {
            Ok(())
        } else {
            Err(corrupt_at(
                node,
                "persistent memory its kind cannot have left",
            ))
        }
    })
}

/// Every running task's state must be one its kind can be in, every
/// running async leaf must hold its wait, and every held wait must belong
/// to a running async leaf.
fn check_tasks<A, W>(tree: &Tree<A, W>, agent: &Agent) -> Result<(), RestoreError> {
    let entries = agent
        .extra
        .as_ref()
        .map_or(&[][..], |e| &e.waits.entries[..]);
    let mut held = vec![false; entries.len()];
    if agent.is_running() {
        walk::running(tree, &agent.mem, &mut |task, state| {
            let def = tree.def(task.node);
            if let Some(wait) = nodes::waits_on(&def.kind, state) {
                let index = wait as usize;
                let ok = entries
                    .get(index)
                    .is_some_and(|e| e.node == task.node && e.wait() != Wait::Free);
                if !ok || std::mem::replace(&mut held[index], true) {
                    return Err(corrupt_at(task.node, "an async leaf without its wait"));
                }
            }
            Ok::<(), RestoreError>(())
        })?;
    }
    let stray = entries
        .iter()
        .zip(&held)
        .any(|(e, &h)| e.wait() != Wait::Free && !h);
    if stray {
        return Err(corrupt("a wait held by no running async leaf"));
    }
    Ok(())
}

/// Reads the binary form, never past its end.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], RestoreError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let end = end.ok_or(RestoreError::Truncated {
            at: self.bytes.len(),
        })?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], RestoreError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, RestoreError> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, RestoreError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, RestoreError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, RestoreError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A count of items of `item` bytes each, refused unless that many
    /// bytes follow: nothing is allocated for data that is not there.
    fn count(&mut self, item: usize) -> Result<usize, RestoreError> {
        let n = self.u32()? as usize;
        let left = self.bytes.len() - self.at;
        if n.saturating_mul(item) > left {
            return Err(RestoreError::Truncated {
                at: self.bytes.len(),
            });
        }
        Ok(n)
    }

    /// The header: mark, version, kind.
    fn header(&mut self, kind: u8) -> Result<(), RestoreError> {
        if self.take(4).ok() != Some(&MAGIC[..]) {
            return Err(RestoreError::NotASnapshot);
        }
        let found = self.u16()?;
        if found != SNAPSHOT_VERSION {
            return Err(RestoreError::Version { found });
        }
        match self.u8()? {
            k if k == kind => Ok(()),
            KIND_AGENT => Err(RestoreError::WrongKind { found: "an agent" }),
            KIND_CROWD => Err(RestoreError::WrongKind { found: "a crowd" }),
            _ => Err(RestoreError::WrongKind {
                found: "an unknown kind",
            }),
        }
    }

    /// Pass over one agent's body (see [`Snapshot::read_body`]) without
    /// making anything of it; its mode.
    fn skip_body(&mut self, memory: usize) -> Result<SavedMode, RestoreError> {
        self.take(8)?;
        let flags = self.u8()?;
        self.take(memory)?;
        let waits = self.count(WAIT_BYTES)?;
        self.take(waits * WAIT_BYTES)?;
        Ok(if flags & 2 != 0 {
            SavedMode::Event
        } else {
            SavedMode::Tick
        })
    }

    fn finish(&self) -> Result<(), RestoreError> {
        match self.bytes.len() - self.at {
            0 => Ok(()),
            count => Err(RestoreError::TrailingBytes { count }),
        }
    }
}

fn header(out: &mut Vec<u8>, kind: u8) {
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
    out.push(kind);
}

impl Snapshot {
    /// The fingerprint of the tree this snapshot was taken of.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The agent's id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The agent's tick when it was saved.
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// The compact binary form: see [`Snapshot`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.memory.len() + self.waits.len() * WAIT_BYTES);
        header(&mut out, KIND_AGENT);
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        out.extend_from_slice(&(self.memory.len() as u32).to_le_bytes());
        self.write_body(&mut out);
        out
    }

    /// Everything but the fingerprint and the memory's length, which a
    /// crowd's snapshot writes once.
    fn write_body(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.tick.to_le_bytes());
        out.push(u8::from(self.running) | (u8::from(self.mode == SavedMode::Event) << 1));
        out.extend_from_slice(&self.memory);
        out.extend_from_slice(&(self.waits.len() as u32).to_le_bytes());
        for wait in &self.waits {
            out.extend_from_slice(&wait.generation.to_le_bytes());
            out.extend_from_slice(&wait.node.to_le_bytes());
            out.push(wait.state);
        }
    }

    /// Read the binary form. Any bytes at all give a snapshot or an error;
    /// whether the snapshot fits a tree is checked by [`Agent::restore`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Snapshot, RestoreError> {
        let mut r = Reader { bytes, at: 0 };
        r.header(KIND_AGENT)?;
        let fingerprint = r.u64()?;
        let memory = memory_len(&mut r)?;
        let snapshot = Snapshot::read_body(&mut r, fingerprint, memory)?;
        r.finish()?;
        Ok(snapshot)
    }

    fn read_body(
        r: &mut Reader<'_>,
        fingerprint: u64,
        memory: usize,
    ) -> Result<Snapshot, RestoreError> {
        let id = r.u32()?;
        let tick = r.u32()?;
        let flags = r.u8()?;
        if flags > 3 {
            return Err(corrupt("unknown flags"));
        }
        let memory = r.take(memory)?.to_vec();
        let n = r.count(WAIT_BYTES)?;
        let mut waits = Vec::with_capacity(n);
        for _ in 0..n {
            waits.push(SavedWait {
                generation: r.u64()?,
                node: r.u32()?,
                state: r.u8()?,
            });
        }
        Ok(Snapshot {
            fingerprint,
            id,
            tick,
            running: flags & 1 != 0,
            mode: if flags & 2 != 0 {
                SavedMode::Event
            } else {
                SavedMode::Tick
            },
            memory,
            waits,
        })
    }
}

/// The memory length field, bounded by what any tree may need.
fn memory_len(r: &mut Reader<'_>) -> Result<usize, RestoreError> {
    let len = r.u32()? as usize;
    if len as u64 > MAX_AGENT_BYTES {
        return Err(corrupt("more memory per agent than any tree needs"));
    }
    Ok(len)
}

/// Save a whole crowd of agents of `tree` in one buffer: the header and
/// the tree's fingerprint once, then each agent.
///
/// ```
/// use canopy_core::{Agent, Builder, snapshot::{restore_crowd, save_crowd}};
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.wait("nap", 10)).unwrap();
/// let mut crowd: Vec<Agent> = (0..100).map(|i| Agent::with_id(&tree, i)).collect();
/// for agent in &mut crowd { agent.tick(&tree, &mut (), &()); }
/// let bytes = save_crowd(&tree, &crowd);
/// let back = restore_crowd(&tree, &bytes).unwrap();
/// assert_eq!(back.len(), 100);
/// assert_eq!((back[42].id(), back[42].ticks(), back[42].is_running()), (42, 1, true));
/// ```
///
/// # Panics
/// As every method taking a tree (see [`Agent`]), for any of the agents.
pub fn save_crowd<A, W>(tree: &Tree<A, W>, agents: &[Agent]) -> Vec<u8> {
    let per_agent = 13 + tree.task_memory() + 4;
    let mut out = Vec::with_capacity(32 + agents.len() * per_agent);
    header(&mut out, KIND_CROWD);
    out.extend_from_slice(&tree.fingerprint.to_le_bytes());
    out.extend_from_slice(&(tree.task_memory() as u32).to_le_bytes());
    out.extend_from_slice(&(agents.len() as u32).to_le_bytes());
    for agent in agents {
        agent.snapshot(tree).write_body(&mut out);
    }
    out
}

/// The most memory [`restore_crowd`] lets a restored crowd hold, in bytes
/// (16 GiB), with each agent at its peak ([`Agent::peak_bytes`]).
pub const MAX_RESTORED_CROWD_BYTES: u64 = 16 << 30;

/// Restore a crowd saved by [`save_crowd`] onto `tree`: every agent is
/// checked as [`Agent::restore`] checks one, and the first problem is the
/// error. The crowd may hold at most [`MAX_RESTORED_CROWD_BYTES`]; see
/// [`restore_crowd_within`].
pub fn restore_crowd<A, W>(tree: &Tree<A, W>, bytes: &[u8]) -> Result<Vec<Agent>, RestoreError> {
    restore_crowd_within(tree, bytes, MAX_RESTORED_CROWD_BYTES)
}

/// [`restore_crowd`] with a memory limit of `limit` bytes for the restored
/// agents, each counted at its peak in its saved mode
/// ([`Agent::peak_bytes`]: the event schedule is rebuilt on restore, so a
/// few bytes of snapshot can stand for many of memory). The sum is kept
/// as agents are read, before each is made; more is
/// [`RestoreError::TooLarge`], and a list the system refuses is
/// [`RestoreError::OutOfMemory`], not an abort.
///
/// ```
/// use canopy_core::{Agent, Builder, Mode, snapshot::{RestoreError, restore_crowd_within, save_crowd}};
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.wait("nap", 10)).unwrap();
/// let crowd: Vec<Agent> = (0..100).map(|i| Agent::with_id(&tree, i)).collect();
/// let bytes = save_crowd(&tree, &crowd);
/// let peak = Agent::peak_bytes(&tree, Mode::Tick) as u64;
/// assert_eq!(restore_crowd_within(&tree, &bytes, 100 * peak).unwrap().len(), 100);
/// assert!(matches!(
///     restore_crowd_within(&tree, &bytes, 100 * peak - 1),
///     Err(RestoreError::TooLarge { agents: 100, .. })
/// ));
/// ```
pub fn restore_crowd_within<A, W>(
    tree: &Tree<A, W>,
    bytes: &[u8],
    limit: u64,
) -> Result<Vec<Agent>, RestoreError> {
    let mut r = Reader { bytes, at: 0 };
    r.header(KIND_CROWD)?;
    let fingerprint = r.u64()?;
    if fingerprint != tree.fingerprint {
        return Err(RestoreError::OtherTree {
            snapshot: fingerprint,
            tree: tree.fingerprint,
        });
    }
    let memory = memory_len(&mut r)?;
    // Each agent takes at least its fixed fields and its memory.
    let n = r.count(13 + memory)?;
    let peak = |mode| Agent::peak_bytes(tree, mode) as u64;
    // The whole crowd's peak, from each agent's saved mode, before any
    // agent is made: reading the modes first costs a pass over the bytes,
    // making agents first could cost the memory the limit is there to keep.
    let (tick, event) = (peak(Mode::Tick), peak(Mode::Event));
    let mut total = 0u64;
    let mut ahead = Reader { bytes, at: r.at };
    for _ in 0..n {
        let per_agent = if ahead.skip_body(memory)? == SavedMode::Event {
            event
        } else {
            tick
        };
        total = total.saturating_add(per_agent);
        if total > limit {
            return Err(RestoreError::TooLarge {
                agents: n as u32,
                bytes_per_agent: per_agent,
                limit,
            });
        }
    }
    // Ask for the whole crowd's memory once, as one block, and give it
    // back: under an address-space limit a crowd that cannot fit is refused
    // here, rather than by an abort at its thousandth agent's allocation.
    // The block is never touched, so this costs a mapping, not the memory.
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(usize::try_from(total).unwrap_or(usize::MAX))
        .map_err(|_| RestoreError::OutOfMemory)?;
    drop(probe);
    let mut agents = Vec::new();
    agents
        .try_reserve_exact(n)
        .map_err(|_| RestoreError::OutOfMemory)?;
    for _ in 0..n {
        let snapshot = Snapshot::read_body(&mut r, fingerprint, memory)?;
        agents.push(Agent::restore(tree, &snapshot)?);
    }
    r.finish()?;
    Ok(agents)
}
