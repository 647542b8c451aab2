//! Declaring a machine in code, and checking it.
//!
//! States, transitions and start states are named by strings while a
//! machine is declared, so that a definition reads like its diagram and a
//! misspelt name can be reported by name. A child machine is declared with
//! a builder of its own and handed to the state that owns it (the classic hierarchical machine's
//! states owning child machines); names are global, so a transition may
//! cross levels. [`MachineBuilder::build`] resolves every name once, checks
//! the whole definition, and lays out the flat tables of the [`Machine`]:
//! after that no name is ever looked up again.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU32, Ordering};

use canopy_core::Status;

use crate::error::FsmError;
use crate::hybrid::TreeState;
use crate::machine::{Body, Machine, StateDef, StateId, Transition, TreeBody};
use crate::state::{ErasedState, State};

/// Most states one machine may have, at all levels together.
pub const MAX_STATES: usize = 32_768;

// State ids, child ranges and the tree-state count are `u16`: every one of
// them is below MAX_STATES once `build` has checked the count.
const _: () = assert!(MAX_STATES <= u16::MAX as usize);

/// Deepest nesting accepted: an agent's active path holds one state per level.
pub const MAX_DEPTH: usize = 32;

/// Largest per-agent data one state may declare, in bytes.
pub const MAX_STATE_BYTES: usize = 256;

/// What a declared state does.
enum DraftBody<A, W, T> {
    Hooks(Box<dyn ErasedState<A, W, T>>),
    Tree(TreeState<A, W, T>),
}

/// A state being declared; returned by [`MachineBuilder::state`] to give
/// it a child machine or make it final.
pub struct StateDraft<A, W, T> {
    name: String,
    body: DraftBody<A, W, T>,
    child: Option<MachineBuilder<A, W, T>>,
    outcome: Option<Status>,
}

impl<A, W, T: fmt::Debug> fmt::Debug for StateDraft<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateDraft")
            .field("name", &self.name)
            .field("child", &self.child)
            .field("outcome", &self.outcome)
            .finish_non_exhaustive()
    }
}

impl<A, W, T> StateDraft<A, W, T> {
    /// Give this state a child machine: while the state is active, exactly
    /// one state of `machine` is active too, starting from its start state.
    ///
    /// ```
    /// use canopy_fsm::{Hooks, MachineBuilder};
    /// let mut moving = MachineBuilder::<(), (), ()>::new();
    /// moving.state("Walk", Hooks::new());
    /// moving.start("Walk");
    /// let mut b = MachineBuilder::new();
    /// b.state("Move", Hooks::new()).child_machine(moving);
    /// b.start("Move");
    /// let m = b.build().unwrap();
    /// assert_eq!(m.depth(), 2);
    /// ```
    pub fn child_machine(&mut self, machine: MachineBuilder<A, W, T>) -> &mut Self {
        self.child = Some(machine);
        self
    }

    /// Make this a final state whose machine has succeeded: an update that
    /// ends with this state active returns `Success`. A final state may sit
    /// in a child machine; it still ends the whole machine (see
    /// [`runtime`](crate::runtime)).
    ///
    /// ```
    /// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
    /// use canopy_core::Status;
    /// let mut b = MachineBuilder::<(), (), ()>::new();
    /// b.state("Try", Hooks::new().on_update(|_| Some(())));
    /// b.state("Won", Hooks::new()).succeeds();
    /// b.transition("Try", (), "Won");
    /// b.start("Try");
    /// let m = b.build().unwrap();
    /// assert_eq!(FsmAgent::new(&m).update(&m, &mut (), &()), Status::Success);
    /// ```
    pub fn succeeds(&mut self) -> &mut Self {
        self.outcome = Some(Status::Success);
        self
    }

    /// Make this a final state whose machine has failed: an update that ends
    /// with this state active returns `Failure`.
    pub fn fails(&mut self) -> &mut Self {
        self.outcome = Some(Status::Failure);
        self
    }
}

/// Declares a [`Machine`]: states (optionally with child machines),
/// transitions between them on triggers of type `T`, and a start state.
///
/// The smallest useful machine, Idle jumping on a trigger:
///
/// ```
/// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// enum Trigger { ToJump }
///
/// let log = |s: &'static str| move |cx: &mut canopy_core::Ctx<Vec<&str>, ()>| cx.agent.push(s);
/// let mut b = MachineBuilder::new();
/// b.state("Idle", Hooks::new().on_enter(log("enter Idle")).on_exit(log("exit Idle")));
/// b.state("Jump", Hooks::new().on_enter(log("enter Jump")));
/// b.transition("Idle", Trigger::ToJump, "Jump");
/// b.start("Idle");
/// let machine = b.build().unwrap();
///
/// let (mut log, mut agent) = (Vec::new(), FsmAgent::new(&machine));
/// assert!(agent.send(&machine, Trigger::ToJump, &mut log, &()));
/// assert!(!agent.send(&machine, Trigger::ToJump, &mut log, &())); // Jump has no such transition
/// assert_eq!(log, ["enter Idle", "exit Idle", "enter Jump"]);
/// ```
pub struct MachineBuilder<A, W, T> {
    states: Vec<StateDraft<A, W, T>>,
    transitions: Vec<(String, T, String)>,
    start: Option<String>,
}

impl<A, W, T: fmt::Debug> fmt::Debug for MachineBuilder<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MachineBuilder")
            .field("states", &self.states)
            .field("transitions", &self.transitions)
            .field("start", &self.start)
            .finish()
    }
}

impl<A, W, T> Default for MachineBuilder<A, W, T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A state placed in the flat table, before its definition is complete.
struct Placed<A, W, T> {
    name: String,
    parent: Option<u16>,
    level: u16,
    body: DraftBody<A, W, T>,
    outcome: Option<Status>,
    first_child: u16,
    child_count: u16,
    /// The child machine's start name, checked once every state is named.
    child_start: Option<Option<String>>,
}

impl<A, W, T> MachineBuilder<A, W, T> {
    /// An empty machine.
    pub fn new() -> Self {
        MachineBuilder {
            states: Vec::new(),
            transitions: Vec::new(),
            start: None,
        }
    }

    /// Declare a state of this machine with its hooks and data type.
    /// Returns the draft, to add a child machine or make it final.
    pub fn state(&mut self, name: &str, state: impl State<A, W, T>) -> &mut StateDraft<A, W, T> {
        self.push(name, DraftBody::Hooks(Box::new(state)))
    }

    /// Declare a state that runs a behavior tree while it is active; see
    /// [`TreeState`].
    pub fn tree_state(
        &mut self,
        name: &str,
        state: TreeState<A, W, T>,
    ) -> &mut StateDraft<A, W, T> {
        self.push(name, DraftBody::Tree(state))
    }

    /// Declare a state whose hooks were made by a factory of a machine
    /// file's registry.
    pub(crate) fn boxed_state(
        &mut self,
        name: &str,
        state: Box<dyn ErasedState<A, W, T>>,
    ) -> &mut StateDraft<A, W, T> {
        self.push(name, DraftBody::Hooks(state))
    }

    fn push(&mut self, name: &str, body: DraftBody<A, W, T>) -> &mut StateDraft<A, W, T> {
        self.states.push(StateDraft {
            name: name.to_string(),
            body,
            child: None,
            outcome: None,
        });
        let last = self.states.len() - 1; // just pushed: at least one
        &mut self.states[last]
    }

    /// Declare a transition: while `from` is active, `trigger` makes `to`
    /// active. `from` and `to` may be at any levels of the hierarchy; the
    /// states are named here and resolved by [`build`](Self::build).
    pub fn transition(&mut self, from: &str, trigger: T, to: &str) -> &mut Self {
        self.transitions
            .push((from.to_string(), trigger, to.to_string()));
        self
    }

    /// Name this machine's start state (called again, the last name wins).
    pub fn start(&mut self, name: &str) -> &mut Self {
        self.start = Some(name.to_string());
        self
    }
}

impl<A, W, T: Copy + Eq + Debug> MachineBuilder<A, W, T> {
    /// Check the definition and lay out the shared machine.
    ///
    /// Every error names the state it concerns; see [`FsmError`]:
    ///
    /// ```
    /// use canopy_fsm::{Hooks, MachineBuilder};
    /// let mut b = MachineBuilder::<(), (), char>::new();
    /// b.state("Idle", Hooks::new());
    /// b.state("Jump", Hooks::new());
    /// b.transition("Idle", 'j', "Jump").transition("Idle", 'j', "Idle");
    /// b.start("Idle");
    /// assert_eq!(b.build().unwrap_err().to_string(),
    ///     r#"state "Idle" has two transitions on trigger 'j'"#);
    /// ```
    pub fn build(self) -> Result<Machine<A, W, T>, FsmError> {
        let mut placed = Vec::new();
        let mut transitions = Vec::new();
        let start = place_machine(self, None, 0, &mut placed, &mut transitions)?;
        let ids = index_names(&placed)?;
        let parent_name = |p: Option<u16>| p.map(|p| placed[p as usize].name.clone());
        let start = resolve_start(&ids, &placed, start, None, &parent_name)?;
        let mut initials = vec![None; placed.len()];
        for (i, state) in placed.iter().enumerate() {
            if let Some(child_start) = &state.child_start {
                let initial = resolve_start(
                    &ids,
                    &placed,
                    child_start.clone(),
                    Some(i as u16),
                    &parent_name,
                )?;
                initials[i] = Some(StateId(initial));
            }
        }
        let table = transition_table(&ids, &placed, transitions)?;
        let (offsets, sizes, data_bytes) = layout_data(&placed)?;
        let depth = placed.iter().map(|s| s.level + 1).max().unwrap_or(1);

        let mut trees = 0u16;
        let mut states = Vec::with_capacity(placed.len());
        for (i, state) in placed.into_iter().enumerate() {
            let body = match state.body {
                DraftBody::Hooks(hooks) => Body::Hooks(hooks),
                DraftBody::Tree(tree) => {
                    // At most MAX_STATES tree states: no overflow.
                    trees += 1;
                    Body::Tree(TreeBody {
                        tree: tree.tree,
                        slot: trees - 1,
                        on_success: tree.on_success,
                        on_failure: tree.on_failure,
                    })
                }
            };
            let (first_transition, transition_count) = table.ranges[i];
            states.push(StateDef {
                name: state.name.into(),
                parent: state.parent.map(StateId),
                level: state.level,
                first_child: state.first_child,
                child_count: state.child_count,
                initial: initials[i],
                first_transition,
                transition_count,
                offset: offsets[i],
                size: sizes[i],
                body,
                outcome: state.outcome,
            });
        }
        // Numbers are never reused, so an agent can never be taken for one
        // of another machine's.
        static NEXT_ID: AtomicU32 = AtomicU32::new(0);
        let id = NEXT_ID
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1))
            .map_err(|_| FsmError::TooManyMachines)?;
        let mut machine = Machine {
            states: states.into(),
            transitions: table.transitions.into(),
            start: StateId(start),
            depth,
            data_bytes,
            trees,
            id,
            fingerprint: 0,
        };
        machine.fingerprint = fingerprint(&machine);
        Ok(machine)
    }
}

/// Place one machine's states contiguously, then each child machine after
/// them; collect transitions. Returns the machine's start name.
fn place_machine<A, W, T>(
    builder: MachineBuilder<A, W, T>,
    parent: Option<u16>,
    level: usize,
    placed: &mut Vec<Placed<A, W, T>>,
    transitions: &mut Vec<(String, T, String)>,
) -> Result<Option<String>, FsmError> {
    let parent_name = parent.map(|p| placed[p as usize].name.clone());
    if builder.states.is_empty() {
        return Err(FsmError::EmptyMachine {
            parent: parent_name,
        });
    }
    if level >= MAX_DEPTH {
        return Err(FsmError::TooDeep {
            state: builder.states[0].name.clone(),
            depth: level + 1,
            max: MAX_DEPTH,
        });
    }
    transitions.extend(builder.transitions);
    let first = placed.len();
    let mut children = Vec::new();
    for draft in builder.states {
        children.push(draft.child);
        placed.push(Placed {
            name: draft.name,
            parent,
            level: level as u16,
            body: draft.body,
            outcome: draft.outcome,
            first_child: 0,
            child_count: 0,
            child_start: None,
        });
    }
    // Checked as soon as a machine is placed, so that every index below,
    // and every index stored in the machine, fits a u16.
    if let Some(over) = placed.get(MAX_STATES) {
        return Err(FsmError::TooManyStates {
            state: over.name.clone(),
            max: MAX_STATES,
        });
    }
    for (i, child) in children.into_iter().enumerate() {
        let Some(child) = child else { continue };
        let id = first + i;
        let child_first = placed.len();
        let start = place_machine(child, Some(id as u16), level + 1, placed, transitions)?;
        let count = count_level(placed, child_first, level + 1);
        let state = &mut placed[id];
        state.first_child = child_first as u16;
        state.child_count = count as u16;
        state.child_start = Some(start);
    }
    Ok(builder.start)
}

/// The number of consecutive states at `level` starting at `first` (one
/// child machine: its own descendants come after all of them).
fn count_level<A, W, T>(placed: &[Placed<A, W, T>], first: usize, level: usize) -> usize {
    placed[first..]
        .iter()
        .take_while(|s| s.level as usize == level)
        .count()
}

/// Map every name to its state, rejecting repeated names.
fn index_names<A, W, T>(placed: &[Placed<A, W, T>]) -> Result<HashMap<&str, u16>, FsmError> {
    let mut ids: HashMap<&str, u16> = HashMap::with_capacity(placed.len());
    for (i, state) in placed.iter().enumerate() {
        if let Some(&first) = ids.get(state.name.as_str()) {
            let first_parent = placed[first as usize].parent;
            if first_parent == state.parent {
                return Err(FsmError::DuplicateState {
                    state: state.name.clone(),
                });
            }
            let name = |p: Option<u16>| p.map(|p| placed[p as usize].name.clone());
            return Err(FsmError::NestedTwice {
                state: state.name.clone(),
                first: name(first_parent),
                second: name(state.parent),
            });
        }
        ids.insert(&state.name, i as u16);
    }
    Ok(ids)
}

/// The id of a machine's start state, which must be one of its own states.
fn resolve_start<A, W, T>(
    ids: &HashMap<&str, u16>,
    placed: &[Placed<A, W, T>],
    start: Option<String>,
    parent: Option<u16>,
    parent_name: &impl Fn(Option<u16>) -> Option<String>,
) -> Result<u16, FsmError> {
    let Some(start) = start else {
        return Err(FsmError::NoStart {
            parent: parent_name(parent),
        });
    };
    let Some(&id) = ids.get(start.as_str()) else {
        return Err(FsmError::UnknownStart { state: start });
    };
    if placed[id as usize].parent != parent {
        return Err(FsmError::StartElsewhere {
            state: start,
            parent: parent_name(parent),
        });
    }
    Ok(id)
}

/// The flat transition table: each state's transitions contiguous, in
/// declaration order.
struct Table<T> {
    transitions: Vec<Transition<T>>,
    /// Per state: (first transition, count).
    ranges: Vec<(u32, u32)>,
}

fn transition_table<A, W, T: Copy + Eq + Debug>(
    ids: &HashMap<&str, u16>,
    placed: &[Placed<A, W, T>],
    declared: Vec<(String, T, String)>,
) -> Result<Table<T>, FsmError> {
    let mut resolved = Vec::with_capacity(declared.len());
    for (from, trigger, to) in declared {
        let Some(&from_id) = ids.get(from.as_str()) else {
            return Err(FsmError::UnknownSource {
                from,
                trigger: format!("{trigger:?}"),
            });
        };
        let Some(&to_id) = ids.get(to.as_str()) else {
            return Err(FsmError::UnknownTarget {
                from,
                trigger: format!("{trigger:?}"),
                to,
            });
        };
        resolved.push((from_id, trigger, to_id));
    }
    // Stable: each state's transitions keep their declaration order.
    resolved.sort_by_key(|&(from, _, _)| from);
    let mut ranges = vec![(0u32, 0u32); placed.len()];
    let mut transitions: Vec<Transition<T>> = Vec::with_capacity(resolved.len());
    for (from, trigger, to) in resolved {
        let range = &mut ranges[from as usize];
        if range.1 == 0 {
            // Fits: 2^32 transitions would need hundreds of GB of names first.
            range.0 = transitions.len() as u32;
        }
        let mine = &transitions[range.0 as usize..];
        if mine.iter().any(|t| t.trigger == trigger) {
            return Err(FsmError::DuplicateTrigger {
                state: placed[from as usize].name.clone(),
                trigger: format!("{trigger:?}"),
            });
        }
        range.1 += 1;
        transitions.push(Transition {
            trigger,
            to: StateId(to),
            level: change_level(placed, from, to),
        });
    }
    Ok(Table {
        transitions,
        ranges,
    })
}

/// The path of a state from the top level down to itself.
fn path_of<A, W, T>(placed: &[Placed<A, W, T>], mut state: u16) -> Vec<u16> {
    let mut path = vec![state];
    while let Some(parent) = placed[state as usize].parent {
        path.push(parent);
        state = parent;
    }
    path.reverse();
    path
}

/// The level at which a transition from `from` to `to` changes the active
/// path: the first level where their paths differ. When one path contains
/// the other (a self-transition, or a transition to an ancestor or a
/// descendant), the shallower of the two is exited and entered again.
fn change_level<A, W, T>(placed: &[Placed<A, W, T>], from: u16, to: u16) -> u16 {
    let (a, b) = (path_of(placed, from), path_of(placed, to));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    common.min(a.len().min(b.len()) - 1) as u16
}

/// Each state's data offset and size, and the agent's total data bytes:
/// a child machine's states start where their parent's data ends, and
/// siblings share their region since only one of them is active.
fn layout_data<A, W, T>(placed: &[Placed<A, W, T>]) -> Result<(Vec<u32>, Vec<u32>, u32), FsmError> {
    let mut offsets = vec![0u32; placed.len()];
    let mut sizes = vec![0u32; placed.len()];
    let mut total = 0u32;
    // Parents come before their children in the flat table.
    for (i, state) in placed.iter().enumerate() {
        let size = match &state.body {
            DraftBody::Hooks(hooks) => hooks.data_size(),
            DraftBody::Tree(_) => 0,
        };
        if size > MAX_STATE_BYTES {
            return Err(FsmError::DataTooLarge {
                state: state.name.clone(),
                bytes: size,
                max: MAX_STATE_BYTES,
            });
        }
        let offset = state
            .parent
            .map_or(0, |p| offsets[p as usize] + sizes[p as usize]);
        offsets[i] = offset;
        // Fits: at most MAX_STATE_BYTES per state times MAX_DEPTH levels.
        sizes[i] = size as u32;
        total = total.max(offset + size as u32);
    }
    Ok((offsets, sizes, total))
}

/// The hash behind [`Machine::fingerprint`], written out field by field.
fn fingerprint<A, W, T>(m: &Machine<A, W, T>) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    h.write(b"canopy machine v1");
    for n in [
        m.start.0 as u32,
        m.depth as u32,
        m.data_bytes,
        m.trees as u32,
    ] {
        h.write(&n.to_le_bytes());
    }
    for s in m.states.iter() {
        h.write(&(s.name.len() as u64).to_le_bytes());
        h.write(s.name.as_bytes());
        let parent = s.parent.map_or(u32::MAX, |p| p.0 as u32);
        let initial = s.initial.map_or(u32::MAX, |p| p.0 as u32);
        let outcome = s.outcome.map_or(0, |o| o as u32 + 1);
        let fields = [
            parent,
            s.level as u32,
            s.first_child as u32,
            s.child_count as u32,
            initial,
        ];
        for n in fields
            .into_iter()
            .chain([s.offset, s.size, outcome, s.transition_count])
        {
            h.write(&n.to_le_bytes());
        }
        let first = s.first_transition as usize;
        for t in &m.transitions[first..first + s.transition_count as usize] {
            h.write(&(t.to.0 as u32).to_le_bytes());
        }
        if let Body::Tree(t) = &s.body {
            h.write(&t.tree.fingerprint().to_le_bytes());
        }
    }
    h.finish()
}
