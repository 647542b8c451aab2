//! Saving a state machine agent where it is, and carrying on from there.
//!
//! An [`FsmAgent`]'s state is its active path, its states' data bytes, its
//! tick, its id, and the runtimes of the behavior trees its states run: an
//! [`FsmSnapshot`] holds them, with the [fingerprint](Machine::fingerprint)
//! of the machine, and the trees' runtimes as canopy
//! [`Snapshot`](canopy_core::Snapshot)s. Restoring checks the fingerprint,
//! the path (each state the child of the one before, down to a state
//! without children) and every tree runtime, so damaged bytes are an error,
//! never a panic. A machine run inside a tree leaf ([`MachineLeaf`]) is
//! saved with the tree's snapshot, as its leaf's task.
//!
//! [`MachineLeaf`]: crate::MachineLeaf

use std::fmt;

use canopy_core::{Agent, Snapshot, snapshot::RestoreError};

use crate::agent::FsmAgent;
use crate::machine::{Body, Machine, StateId};

const MAGIC: &[u8; 4] = b"CNFM";
/// The binary format's version; [`FsmSnapshot::from_bytes`] reads only this one.
pub const FSM_SNAPSHOT_VERSION: u16 = 1;

/// One state machine agent, saved: see the [`snapshot` module docs](crate).
///
/// ```
/// use canopy_fsm::{FsmAgent, FsmSnapshot, Hooks, MachineBuilder};
/// let mut b = MachineBuilder::<u32, (), u8>::new();
/// b.state("Idle", Hooks::new());
/// b.state("Run", Hooks::new().on_update(|cx| { *cx.agent += 1; None }));
/// b.transition("Idle", 1, "Run");
/// b.start("Idle");
/// let machine = b.build().unwrap();
/// let (mut steps, mut agent) = (0, FsmAgent::new(&machine));
/// agent.send(&machine, 1, &mut steps, &());
/// let bytes = agent.snapshot(&machine).to_bytes();
/// let mut back = FsmAgent::restore(&machine, &FsmSnapshot::from_bytes(&bytes).unwrap()).unwrap();
/// assert!(back.is_in(&machine, "Run"));
/// back.update(&machine, &mut steps, &());
/// assert_eq!(steps, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsmSnapshot {
    fingerprint: u64,
    id: u32,
    tick: u32,
    path: Vec<u16>,
    data: Vec<u8>,
    trees: Vec<Snapshot>,
}

/// Why an [`FsmSnapshot`] could not be read or restored.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FsmRestoreError {
    /// The bytes do not start with a machine snapshot's mark.
    NotASnapshot,
    /// A format version this build does not read.
    Version {
        /// The version in the bytes.
        found: u16,
    },
    /// The bytes end before the snapshot does, or go on after it.
    Length,
    /// The snapshot was taken of another machine, or another version of it.
    OtherMachine {
        /// The fingerprint in the snapshot.
        snapshot: u64,
        /// The machine's.
        machine: u64,
    },
    /// The saved data cannot be an agent of this machine.
    Corrupt(&'static str),
    /// A behavior tree runtime of a state could not be restored.
    Tree(RestoreError),
    /// A saved crowd holds more agents than the caller's limit.
    TooManyAgents {
        /// The agents in the bytes.
        found: u32,
        /// The limit given to [`restore_crowd`].
        limit: u32,
    },
}

impl fmt::Display for FsmRestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsmRestoreError::NotASnapshot => {
                f.write_str("not a canopy machine snapshot (no CNFM or CNFC mark)")
            }
            FsmRestoreError::Version { found } => write!(
                f,
                "machine snapshot format version {found}; this build reads version {FSM_SNAPSHOT_VERSION}"
            ),
            FsmRestoreError::Length => f.write_str("the machine snapshot is cut short or too long"),
            FsmRestoreError::OtherMachine { snapshot, machine } => write!(
                f,
                "the snapshot was taken of another machine, or another version of this one \
                 (fingerprint {snapshot:016x}, this machine's is {machine:016x})"
            ),
            FsmRestoreError::Corrupt(problem) => {
                write!(f, "the machine snapshot is damaged: {problem}")
            }
            FsmRestoreError::Tree(e) => write!(f, "a tree run by a state: {e}"),
            FsmRestoreError::TooManyAgents { found, limit } => write!(
                f,
                "the saved crowd has {found} agents, more than the limit of {limit}"
            ),
        }
    }
}

impl std::error::Error for FsmRestoreError {}

impl FsmAgent {
    /// Save this agent: see [`FsmSnapshot`].
    ///
    /// # Panics
    /// If `machine` is not the machine this agent was created for.
    pub fn snapshot<A, W, T>(&self, machine: &Machine<A, W, T>) -> FsmSnapshot {
        self.check_machine(machine);
        let trees = tree_bodies(machine)
            .zip(self.tree_runtimes())
            .map(|(tree, a)| a.snapshot(tree))
            .collect();
        FsmSnapshot {
            fingerprint: machine.fingerprint,
            id: self.id(),
            tick: self.ticks(),
            path: self.active().iter().map(|s| s.0).collect(),
            data: self.data_bytes().to_vec(),
            trees,
        }
    }

    /// An agent of `machine` that carries on exactly where `snapshot` was
    /// taken; see [`FsmSnapshot`] for what is checked.
    pub fn restore<A, W, T>(
        machine: &Machine<A, W, T>,
        snapshot: &FsmSnapshot,
    ) -> Result<FsmAgent, FsmRestoreError> {
        if snapshot.fingerprint != machine.fingerprint {
            return Err(FsmRestoreError::OtherMachine {
                snapshot: snapshot.fingerprint,
                machine: machine.fingerprint,
            });
        }
        let path: Vec<StateId> = snapshot.path.iter().map(|&s| StateId(s)).collect();
        if path.len() > machine.depth() || !machine.valid_path(&path) {
            return Err(FsmRestoreError::Corrupt(
                "the active states are not a path of this machine",
            ));
        }
        if snapshot.data.len() != machine.data_bytes()
            || snapshot.trees.len() != machine.trees as usize
        {
            return Err(FsmRestoreError::Corrupt(
                "its data or trees are not this machine's",
            ));
        }
        let mut trees = Vec::with_capacity(snapshot.trees.len());
        for (state, (tree, saved)) in
            tree_states(machine).zip(tree_bodies(machine).zip(&snapshot.trees))
        {
            let agent = Agent::restore(tree, saved).map_err(FsmRestoreError::Tree)?;
            if agent.is_running() && !path.contains(&state) {
                return Err(FsmRestoreError::Corrupt(
                    "a tree runs for a state that is not active",
                ));
            }
            trees.push(agent);
        }
        Ok(FsmAgent::from_parts(
            machine,
            snapshot.id,
            snapshot.tick,
            &path,
            &snapshot.data,
            trees,
        ))
    }
}

const CROWD_MAGIC: &[u8; 4] = b"CNFC";

/// Save every agent of a crowd of `machine` in one byte string: `CNFC`,
/// the format version, the number of agents, then each agent's
/// [`FsmSnapshot`] with its length. [`restore_crowd`] reads it back.
///
/// # Panics
/// If an agent was not created for `machine`.
pub fn save_crowd<A, W, T>(machine: &Machine<A, W, T>, agents: &[FsmAgent]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(CROWD_MAGIC);
    out.extend_from_slice(&FSM_SNAPSHOT_VERSION.to_le_bytes());
    out.extend_from_slice(&(agents.len() as u32).to_le_bytes());
    for agent in agents {
        let bytes = agent.snapshot(machine).to_bytes();
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    out
}

/// The agents [`save_crowd`] saved, restored onto `machine`, if there are
/// at most `max_agents` (a caller's bound on the memory they take); any
/// bytes give agents or an error.
///
/// ```
/// use canopy_fsm::{FsmAgent, FsmRestoreError, Hooks, MachineBuilder, restore_crowd, save_crowd};
/// let mut b = MachineBuilder::<(), (), u8>::new();
/// b.state("Idle", Hooks::new());
/// b.state("Run", Hooks::new());
/// b.transition("Idle", 1, "Run");
/// b.start("Idle");
/// let machine = b.build().unwrap();
/// let mut agents: Vec<FsmAgent> = (0..3).map(|id| FsmAgent::with_id(&machine, id)).collect();
/// agents[1].send(&machine, 1, &mut (), &());
/// let bytes = save_crowd(&machine, &agents);
/// let back = restore_crowd(&machine, &bytes, 3).unwrap();
/// assert!(back[1].is_in(&machine, "Run") && back[2].id() == 2);
/// assert_eq!(restore_crowd(&machine, &bytes, 2).unwrap_err(), FsmRestoreError::TooManyAgents { found: 3, limit: 2 });
/// ```
pub fn restore_crowd<A, W, T>(
    machine: &Machine<A, W, T>,
    bytes: &[u8],
    max_agents: u32,
) -> Result<Vec<FsmAgent>, FsmRestoreError> {
    let mut r = Reader(bytes);
    if r.take(4).ok() != Some(&CROWD_MAGIC[..]) {
        return Err(FsmRestoreError::NotASnapshot);
    }
    let v = r.take(2)?;
    let found = u16::from_le_bytes([v[0], v[1]]);
    if found != FSM_SNAPSHOT_VERSION {
        return Err(FsmRestoreError::Version { found });
    }
    // Each agent takes at least its length and a snapshot's header.
    let count = r.len(4 + 34)?;
    if count > max_agents as usize {
        return Err(FsmRestoreError::TooManyAgents {
            found: count as u32,
            limit: max_agents,
        });
    }
    let mut agents = Vec::new();
    agents
        .try_reserve_exact(count)
        .map_err(|_| FsmRestoreError::Corrupt("no memory for its agents"))?;
    for _ in 0..count {
        let len = r.len(1)?;
        let snapshot = FsmSnapshot::from_bytes(r.take(len)?)?;
        agents.push(FsmAgent::restore(machine, &snapshot)?);
    }
    if !r.0.is_empty() {
        return Err(FsmRestoreError::Length);
    }
    Ok(agents)
}

/// The trees of the machine's tree-running states, in slot order.
fn tree_bodies<A, W, T>(
    machine: &Machine<A, W, T>,
) -> impl Iterator<Item = &canopy_core::Tree<A, W>> {
    machine.states.iter().filter_map(|s| match &s.body {
        Body::Tree(t) => Some(&*t.tree),
        Body::Hooks(_) => None,
    })
}

/// The tree-running states, in slot order.
fn tree_states<A, W, T>(machine: &Machine<A, W, T>) -> impl Iterator<Item = StateId> + '_ {
    (0..machine.states.len() as u16)
        .filter(|&i| matches!(machine.states[i as usize].body, Body::Tree(_)))
        .map(StateId)
}

/// Reads the binary form, never past its end.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], FsmRestoreError> {
        if n > self.0.len() {
            return Err(FsmRestoreError::Length);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, FsmRestoreError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A length, refused unless that many items of `item` bytes follow.
    fn len(&mut self, item: usize) -> Result<usize, FsmRestoreError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(item) > self.0.len() {
            return Err(FsmRestoreError::Length);
        }
        Ok(n)
    }
}

impl FsmSnapshot {
    /// The compact binary form: `CNFM`, the format version, the machine's
    /// fingerprint, then the agent; its trees as canopy snapshots.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FSM_SNAPSHOT_VERSION.to_le_bytes());
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        for n in [self.id, self.tick, self.path.len() as u32] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for s in &self.path {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.data);
        out.extend_from_slice(&(self.trees.len() as u32).to_le_bytes());
        for tree in &self.trees {
            let bytes = tree.to_bytes();
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(&bytes);
        }
        out
    }

    /// Read the binary form; any bytes give a snapshot or an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<FsmSnapshot, FsmRestoreError> {
        let mut r = Reader(bytes);
        if r.take(4).ok() != Some(&MAGIC[..]) {
            return Err(FsmRestoreError::NotASnapshot);
        }
        let v = r.take(2)?;
        let found = u16::from_le_bytes([v[0], v[1]]);
        if found != FSM_SNAPSHOT_VERSION {
            return Err(FsmRestoreError::Version { found });
        }
        let f = r.take(8)?;
        let fingerprint = u64::from_le_bytes(f.try_into().map_err(|_| FsmRestoreError::Length)?);
        let (id, tick) = (r.u32()?, r.u32()?);
        let n = r.len(2)?;
        let path = r
            .take(n * 2)?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let n = r.len(1)?;
        let data = r.take(n)?.to_vec();
        let n = r.len(4)?;
        let mut trees = Vec::with_capacity(n);
        for _ in 0..n {
            let len = r.len(1)?;
            trees.push(Snapshot::from_bytes(r.take(len)?).map_err(FsmRestoreError::Tree)?);
        }
        if !r.0.is_empty() {
            return Err(FsmRestoreError::Length);
        }
        Ok(FsmSnapshot {
            fingerprint,
            id,
            tick,
            path,
            data,
            trees,
        })
    }
}
