//! Behavior trees and state machines inside each other.
//!
//! - [`TreeState`]: a state that runs a behavior tree while it is active.
//!   Its per-agent tree runtime (a canopy [`Agent`](canopy_core::Agent)
//!   with its pool) is created once, with the [`FsmAgent`](crate::FsmAgent);
//!   entering the state installs nothing, each update ticks the tree once,
//!   and exiting the state resets the runtime, which aborts the running
//!   tasks deepest first (their terminate hooks see `Exit::Aborted`). So a
//!   state change allocates nothing.
//! - [`MachineLeaf`]: a behavior-tree leaf that runs a machine. The machine
//!   starts when the leaf is installed, updates once per tick, and the leaf
//!   succeeds or fails when a final state is active; when the leaf
//!   terminates for any reason — finished, or aborted by its parent — every
//!   active state exits, innermost first.
//!
//! Where the leaf keeps the machine's per-agent state: in its canopy task.
//! A task is plain bytes from the tree's pool, so the active path and the
//! state data live in a fixed-size [`LeafTask`] — installed with the leaf,
//! gone when it finishes, nothing for the user to store or thread through
//! the agent data. The price is a fixed capacity ([`LEAF_MAX_DEPTH`]
//! levels, [`LEAF_MAX_DATA`] data bytes) and no tree-running states inside
//! a leaf's machine, since a tree runtime owns heap memory and is not plain
//! bytes; [`MachineLeaf::new`] checks both. The alternative — the machine's
//! [`FsmAgent`](crate::FsmAgent) kept in the agent data and reached through
//! an accessor — lifts both limits but makes every user carry the runtime
//! in their own type and take it out around each update to satisfy the
//! borrow checker.

use std::fmt;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use canopy_core::{Children, Ctx, Exit, Node, Status, Tree};

use crate::error::FsmError;
use crate::machine::{Body, Machine, StateId};
use crate::runtime::Run;

/// A state that runs a behavior tree while it is active; declare it with
/// [`MachineBuilder::tree_state`](crate::MachineBuilder::tree_state).
///
/// A guard patrolling with a tree until an alarm, whose patrol is aborted
/// when the machine leaves the state:
///
/// ```
/// use std::sync::Arc;
/// use canopy_core::{Builder, Status};
/// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder, TreeState};
///
/// #[derive(Default)]
/// struct Guard { steps: u32 }
///
/// let b = Builder::<Guard, ()>::new();
/// let patrol = Arc::new(b.build(b.action("walk", |cx| { cx.agent.steps += 1; Status::Running })).unwrap());
///
/// let mut m = MachineBuilder::new();
/// m.tree_state("Patrol", TreeState::new(patrol));
/// m.state("Alert", Hooks::new());
/// m.transition("Patrol", "alarm", "Alert");
/// m.start("Patrol");
/// let machine = m.build().unwrap();
///
/// let (mut guard, mut agent) = (Guard::default(), FsmAgent::new(&machine));
/// agent.update(&machine, &mut guard, &());
/// agent.update(&machine, &mut guard, &());
/// agent.send(&machine, "alarm", &mut guard, &());
/// agent.update(&machine, &mut guard, &());
/// assert_eq!(guard.steps, 2);
/// ```
pub struct TreeState<A, W, T> {
    pub(crate) tree: Arc<Tree<A, W>>,
    pub(crate) on_success: Option<T>,
    pub(crate) on_failure: Option<T>,
}

impl<A, W, T: fmt::Debug> fmt::Debug for TreeState<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeState")
            .field("nodes", &self.tree.len())
            .field("on_success", &self.on_success)
            .field("on_failure", &self.on_failure)
            .finish()
    }
}

impl<A, W, T> TreeState<A, W, T> {
    /// Run `tree` while the state is active. When the tree finishes and no
    /// trigger is set for its outcome, the next update starts it again.
    pub fn new(tree: Arc<Tree<A, W>>) -> Self {
        TreeState {
            tree,
            on_success: None,
            on_failure: None,
        }
    }

    /// Send `trigger` when the tree succeeds.
    pub fn on_success(mut self, trigger: T) -> Self {
        self.on_success = Some(trigger);
        self
    }

    /// Send `trigger` when the tree fails.
    pub fn on_failure(mut self, trigger: T) -> Self {
        self.on_failure = Some(trigger);
        self
    }
}

/// Most levels a machine run by a [`MachineLeaf`] may have.
pub const LEAF_MAX_DEPTH: usize = 7;

/// Most state data bytes a machine run by a [`MachineLeaf`] may need.
pub const LEAF_MAX_DATA: usize = 112;

/// The per-agent task of a [`MachineLeaf`]: the machine's active path and
/// state data, as plain bytes in the tree's pool (128 bytes).
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
pub struct LeafTask {
    len: u16,
    path: [StateId; LEAF_MAX_DEPTH],
    data: [u8; LEAF_MAX_DATA],
}

// Two whole cache lines; and `repr(C)` leaves no padding for `Pod` to reject.
const _: () = assert!(size_of::<LeafTask>() == 128);

impl LeafTask {
    /// The task as the engine's borrowed runtime. No tree runtimes:
    /// [`MachineLeaf::new`] refuses machines with tree states, and checks
    /// the depth and data bytes against the arrays here.
    fn run(&mut self) -> Run<'_> {
        Run {
            path: &mut self.path,
            len: &mut self.len,
            data: &mut self.data,
            trees: &mut [],
            elapsed: 1,
        }
    }
}

/// A behavior-tree leaf that runs a machine to a final state.
///
/// ```
/// use std::sync::Arc;
/// use canopy_core::{Agent, Builder, Status};
/// use canopy_fsm::{Hooks, MachineBuilder, MachineLeaf};
///
/// let mut m = MachineBuilder::<u32, (), ()>::new();
/// m.state("Heat", Hooks::new().on_update(|cx| { *cx.agent += 1; (*cx.agent == 3).then_some(()) }));
/// m.state("Done", Hooks::new()).succeeds();
/// m.transition("Heat", (), "Done");
/// m.start("Heat");
/// let leaf = MachineLeaf::new(Arc::new(m.build().unwrap())).unwrap();
///
/// let b = Builder::new();
/// let tree = b.build(b.custom("cook", leaf, [])).unwrap();
/// let (mut heat, mut agent) = (0, Agent::new(&tree));
/// assert_eq!(agent.tick(&tree, &mut heat, &()), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut heat, &()), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut heat, &()), Status::Success);
/// ```
pub struct MachineLeaf<A, W, T> {
    machine: Arc<Machine<A, W, T>>,
}

impl<A, W, T> fmt::Debug for MachineLeaf<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MachineLeaf").finish_non_exhaustive()
    }
}

impl<A, W, T> MachineLeaf<A, W, T> {
    /// A leaf running `machine`, if it fits a leaf's task: no tree-running
    /// states, at most [`LEAF_MAX_DEPTH`] levels and [`LEAF_MAX_DATA`]
    /// data bytes.
    pub fn new(machine: Arc<Machine<A, W, T>>) -> Result<Self, FsmError> {
        if let Some(s) = machine
            .states
            .iter()
            .find(|s| matches!(s.body, Body::Tree(_)))
        {
            return Err(FsmError::TreeInLeaf {
                state: s.name.to_string(),
            });
        }
        let checks = [
            ("levels", machine.depth(), LEAF_MAX_DEPTH),
            ("data bytes", machine.data_bytes(), LEAF_MAX_DATA),
        ];
        for (what, size, max) in checks {
            if size > max {
                return Err(FsmError::TooLargeForLeaf { what, size, max });
            }
        }
        Ok(MachineLeaf { machine })
    }

    /// The machine this leaf runs.
    pub fn machine(&self) -> &Machine<A, W, T> {
        &self.machine
    }
}

impl<A, W, T> Node<A, W> for MachineLeaf<A, W, T>
where
    A: 'static,
    W: 'static,
    T: Copy + Eq + Send + Sync + 'static,
{
    type Task = LeafTask;

    fn params(&self) -> Vec<(String, String)> {
        vec![("states".to_string(), self.machine.len().to_string())]
    }

    fn create_task(&self, cx: &mut Ctx<A, W>) -> LeafTask {
        let mut task = LeafTask::zeroed();
        self.machine.run_start(&mut task.run(), cx);
        task
    }

    fn update(&self, task: &mut LeafTask, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        self.machine.run_update(&mut task.run(), cx)
    }

    fn terminate(&self, task: &mut LeafTask, cx: &mut Ctx<A, W>, _: Exit) {
        self.machine.run_stop(&mut task.run(), cx);
    }

    fn task_is_valid(&self, task: &LeafTask) -> bool {
        let len = task.len as usize;
        len <= LEAF_MAX_DEPTH && self.machine.valid_path(&task.path[..len])
    }
}
