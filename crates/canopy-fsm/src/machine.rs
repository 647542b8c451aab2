//! The shared, immutable machine definition.
//!
//! A [`Machine`] is what every agent of a crowd shares: the states in one
//! flat table (each machine's states contiguous, children after their
//! parents), each state's transitions as a contiguous slice of one flat
//! transition table, and the offset of each state's data in an agent's data
//! bytes. Everything an update or a trigger needs is found by indexing, so
//! the hot path never allocates and never hashes. Nothing in it is
//! per-agent, so it is `Send + Sync` and one `&Machine` serves every thread.

use std::fmt;
use std::sync::Arc;

use canopy_core::{Status, Tree};

use crate::state::ErasedState;

/// A state of a [`Machine`], by index. Look one up with [`Machine::state`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct StateId(pub(crate) u16);

impl StateId {
    /// The state's index in its machine, from 0; top-level states first.
    ///
    /// ```
    /// use canopy_fsm::{Hooks, MachineBuilder};
    /// let mut b = MachineBuilder::<(), (), ()>::new();
    /// b.state("A", Hooks::new());
    /// b.start("A");
    /// assert_eq!(b.build().unwrap().state("A").unwrap().index(), 0);
    /// ```
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a state behaves: user hooks, or a behavior tree it runs.
pub(crate) enum Body<A, W, T> {
    Hooks(Box<dyn ErasedState<A, W, T>>),
    Tree(TreeBody<A, W, T>),
}

/// A state that runs a behavior tree; `slot` is its index among the
/// agent's tree runtimes.
pub(crate) struct TreeBody<A, W, T> {
    pub(crate) tree: Arc<Tree<A, W>>,
    pub(crate) slot: u16,
    pub(crate) on_success: Option<T>,
    pub(crate) on_failure: Option<T>,
}

/// One state of the flat table.
pub(crate) struct StateDef<A, W, T> {
    pub(crate) name: Box<str>,
    pub(crate) parent: Option<StateId>,
    /// Nesting level: 0 for top-level states.
    pub(crate) level: u16,
    /// Child states are `first_child..first_child + child_count`.
    pub(crate) first_child: u16,
    pub(crate) child_count: u16,
    /// The child machine's start state, if the state has children.
    pub(crate) initial: Option<StateId>,
    /// Transitions are `transitions[first_transition..][..transition_count]`.
    pub(crate) first_transition: u32,
    pub(crate) transition_count: u32,
    /// Where the state's data starts in an agent's data bytes.
    pub(crate) offset: u32,
    pub(crate) size: u32,
    pub(crate) body: Body<A, W, T>,
    pub(crate) outcome: Option<Status>,
}

/// A transition, stored in its source state's slice.
pub(crate) struct Transition<T> {
    pub(crate) trigger: T,
    pub(crate) to: StateId,
    /// The nesting level at which the active path changes: active states at
    /// this level and below are exited, the target's path from this level
    /// down is entered. Precomputed at build time.
    pub(crate) level: u16,
}

/// An immutable state machine, flat or hierarchical, shared by every agent
/// that runs it. Build one with [`MachineBuilder`](crate::MachineBuilder);
/// run it for one agent with an [`FsmAgent`](crate::FsmAgent).
///
/// `Machine<A, W, T>` is `Send + Sync` whatever `A` and `W` are, as long as
/// the trigger type is:
///
/// ```
/// fn shared<X: Send + Sync>(_: &X) {}
/// let mut b = canopy_fsm::MachineBuilder::<std::rc::Rc<u8>, (), u8>::new();
/// b.state("A", canopy_fsm::Hooks::new());
/// b.start("A");
/// shared(&b.build().unwrap());
/// ```
pub struct Machine<A, W, T> {
    pub(crate) states: Box<[StateDef<A, W, T>]>,
    pub(crate) transitions: Box<[Transition<T>]>,
    pub(crate) start: StateId,
    pub(crate) depth: u16,
    pub(crate) data_bytes: u32,
    pub(crate) trees: u16,
    pub(crate) id: u32,
    /// A hash of the machine's structure, for snapshots.
    pub(crate) fingerprint: u64,
}

impl<A, W, T> Machine<A, W, T> {
    /// A 64-bit hash of the machine's structure: every state's name,
    /// place, data and transitions, and the fingerprints of the trees its
    /// states run. An [`FsmSnapshot`](crate::FsmSnapshot) restores only onto
    /// a machine with the fingerprint it was taken of.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Whether `path` is an active path of this machine: a top-level state,
    /// then each state's child, down to a state without children.
    pub(crate) fn valid_path(&self, path: &[StateId]) -> bool {
        let Some(last) = path.last() else {
            return true;
        };
        let state = |id: &StateId| self.states.get(id.index());
        let nested = path.iter().enumerate().all(|(i, id)| {
            state(id).is_some_and(|s| match i {
                0 => s.parent.is_none(),
                _ => s.parent == Some(path[i - 1]),
            })
        });
        nested && state(last).is_some_and(|s| s.child_count == 0)
    }

    /// Number of states, at every level.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// `false`: a machine has at least one state (the builder rejects empty ones).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Nesting levels: 1 for a flat machine. The longest active path.
    pub fn depth(&self) -> usize {
        self.depth as usize
    }

    /// Bytes of state data an agent holds: the largest sum of data sizes
    /// along one path, since only one state per machine is active at a time
    /// and siblings share a region.
    pub fn data_bytes(&self) -> usize {
        self.data_bytes as usize
    }

    /// Number of states that run a behavior tree; each agent holds one tree
    /// runtime per such state.
    pub fn tree_states(&self) -> usize {
        self.trees as usize
    }

    /// The state with this name, if any (a linear search; resolve names
    /// once, outside the hot loop).
    ///
    /// ```
    /// use canopy_fsm::{Hooks, MachineBuilder};
    /// let mut b = MachineBuilder::<(), (), ()>::new();
    /// b.state("Idle", Hooks::new());
    /// b.start("Idle");
    /// let m = b.build().unwrap();
    /// assert_eq!(m.state("Idle").map(|s| m.name(s)), Some("Idle"));
    /// assert_eq!(m.state("Fly"), None);
    /// ```
    pub fn state(&self, name: &str) -> Option<StateId> {
        let index = self.states.iter().position(|s| &*s.name == name)?;
        // Fits: the builder accepts at most MAX_STATES (<= u16::MAX) states.
        Some(StateId(index as u16))
    }

    /// A state's name.
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn name(&self, id: StateId) -> &str {
        &self.def(id).name
    }

    /// The state whose child machine contains `id`; `None` at the top level.
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn parent(&self, id: StateId) -> Option<StateId> {
        self.def(id).parent
    }

    /// The states of the child machine of `id` (empty for a simple state).
    ///
    /// Walking a machine's hierarchy:
    ///
    /// ```
    /// use canopy_fsm::{Hooks, MachineBuilder};
    /// let mut moving = MachineBuilder::<(), (), ()>::new();
    /// moving.state("Walk", Hooks::new());
    /// moving.state("Jump", Hooks::new());
    /// moving.start("Walk");
    /// let mut b = MachineBuilder::new();
    /// b.state("Idle", Hooks::new());
    /// b.state("Move", Hooks::new()).child_machine(moving);
    /// b.start("Idle");
    /// let m = b.build().unwrap();
    ///
    /// let names = |ids: &mut dyn Iterator<Item = canopy_fsm::StateId>| {
    ///     ids.map(|s| m.name(s).to_string()).collect::<Vec<_>>()
    /// };
    /// assert_eq!(names(&mut m.top_level()), ["Idle", "Move"]);
    /// let moving = m.state("Move").unwrap();
    /// assert_eq!(names(&mut m.children(moving)), ["Walk", "Jump"]);
    /// assert_eq!(m.initial(moving), m.state("Walk"));
    /// assert_eq!(m.parent(m.state("Jump").unwrap()), Some(moving));
    /// assert_eq!(m.start(), m.state("Idle").unwrap());
    /// ```
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn children(&self, id: StateId) -> impl ExactSizeIterator<Item = StateId> + use<A, W, T> {
        let def = self.def(id);
        (def.first_child..def.first_child + def.child_count).map(StateId)
    }

    /// The top-level states.
    pub fn top_level(&self) -> impl ExactSizeIterator<Item = StateId> + use<A, W, T> {
        let count = self
            .states
            .iter()
            .take_while(|s| s.parent.is_none())
            .count();
        (0..count as u16).map(StateId)
    }

    /// The start state of the top-level machine.
    pub fn start(&self) -> StateId {
        self.start
    }

    /// The start state of the child machine of `id`, if it has one.
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn initial(&self, id: StateId) -> Option<StateId> {
        self.def(id).initial
    }

    /// A final state's outcome (`Success` or `Failure`); `None` for other states.
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn outcome(&self, id: StateId) -> Option<Status> {
        self.def(id).outcome
    }

    /// `true` if the state runs a behavior tree.
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn runs_tree(&self, id: StateId) -> bool {
        matches!(self.def(id).body, Body::Tree(_))
    }

    /// The behavior tree the state runs, if it runs one (to show it, or
    /// to look into its agents' runtimes).
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn tree(&self, id: StateId) -> Option<&Tree<A, W>> {
        match &self.def(id).body {
            Body::Tree(t) => Some(&t.tree),
            Body::Hooks(_) => None,
        }
    }

    /// The transitions declared on `id`, as `(trigger, target)` in
    /// declaration order.
    ///
    /// # Panics
    /// If `id` belongs to a larger machine.
    pub fn transitions(&self, id: StateId) -> impl ExactSizeIterator<Item = (&T, StateId)> {
        self.transitions_of(id.0).iter().map(|t| (&t.trigger, t.to))
    }

    /// A state's definition. The engine only passes ids read from this
    /// machine's tables or from a path this machine wrote; public callers
    /// passing a foreign id get the documented panic.
    pub(crate) fn def(&self, id: StateId) -> &StateDef<A, W, T> {
        &self.states[id.0 as usize]
    }

    pub(crate) fn transitions_of(&self, state: u16) -> &[Transition<T>] {
        let def = &self.states[state as usize];
        let start = def.first_transition as usize;
        &self.transitions[start..start + def.transition_count as usize]
    }
}

impl<A, W, T: fmt::Debug> fmt::Debug for Machine<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Machine")
            .field("states", &self.states.len())
            .field("depth", &self.depth)
            .field("data_bytes", &self.data_bytes)
            .field("tree_states", &self.trees)
            .finish()
    }
}
