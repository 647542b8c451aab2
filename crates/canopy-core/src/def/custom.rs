//! User-defined node types with their own per-agent task state.
//!
//! A custom node is two types: the *node* (shared, holds the parameters,
//! implements [`Node`]) and its *task* (per agent, plain data, created when
//! the node is installed and left in pooled memory when it is
//! uninstalled). The task must be [`bytemuck::Pod`]: pooled memory is
//! reused without running destructors, an aborted task needs no cleanup,
//! and an agent's whole state stays plain bytes that can be copied, saved
//! and restored. Anything large or owning belongs in the agent data `A`,
//! not in the task.

use std::any::type_name;
use std::fmt;
use std::sync::Arc;

use bytemuck::Pod;

use crate::util::context::Ctx;
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

/// Largest task state a custom node may declare, in bytes. A task whose
/// bytes are not aligned for its type, or whose node has children, is
/// copied onto the stack around each update, so tasks are meant to be small.
pub const MAX_TASK_BYTES: usize = 256;

/// A user-defined node type: the shared definition of a node that creates
/// and drives its own per-agent [`Node::Task`].
///
/// A `MoveTo` that remembers which waypoint of its path it is walking to —
/// per-agent progress in the task, the shared path in the node:
///
/// ```
/// use canopy_core::{Agent, Builder, Children, Ctx, Node, Status};
/// use bytemuck::{Pod, Zeroable};
///
/// struct Walker { pos: (i32, i32) }
///
/// /// Shared by every agent: the path to walk.
/// struct MoveTo { path: Vec<(i32, i32)> }
///
/// /// Per agent, while MoveTo runs: the index of the next waypoint.
/// #[derive(Clone, Copy, Pod, Zeroable)]
/// #[repr(C)]
/// struct MoveToTask { next: u32 }
///
/// impl Node<Walker, ()> for MoveTo {
///     type Task = MoveToTask;
///     fn create_task(&self, _cx: &mut Ctx<Walker, ()>) -> MoveToTask {
///         MoveToTask { next: 0 }
///     }
///     fn update(&self, task: &mut MoveToTask, cx: &mut Ctx<Walker, ()>,
///               _children: &mut Children<Walker, ()>) -> Status {
///         let Some(&target) = self.path.get(task.next as usize) else {
///             return Status::Success;
///         };
///         cx.agent.pos = target; // one waypoint per tick
///         task.next += 1;
///         if task.next as usize == self.path.len() { Status::Success } else { Status::Running }
///     }
/// }
///
/// let b = Builder::new();
/// let walk = b.custom("patrol", MoveTo { path: vec![(1, 0), (1, 1), (0, 1)] }, []);
/// let tree = b.build(walk).unwrap();
/// let (mut w1, mut w2) = (Walker { pos: (0, 0) }, Walker { pos: (0, 0) });
/// let (mut a1, mut a2) = (Agent::new(&tree), Agent::new(&tree));
/// assert_eq!(a1.tick(&tree, &mut w1, &()), Status::Running);
/// assert_eq!(a1.tick(&tree, &mut w1, &()), Status::Running);
/// assert_eq!(a2.tick(&tree, &mut w2, &()), Status::Running);
/// assert_eq!((w1.pos, w2.pos), ((1, 1), (1, 0))); // each agent has its own progress
/// assert_eq!(a1.tick(&tree, &mut w1, &()), Status::Success);
/// ```
pub trait Node<A, W>: Send + Sync + 'static {
    /// The per-agent runtime state of this node while it is installed.
    type Task: Pod;

    /// The type name shown in traces and printed trees.
    fn type_name(&self) -> &str {
        let full = type_name::<Self>();
        let base = full.split('<').next().unwrap_or(full);
        base.rsplit("::").next().unwrap_or(base)
    }

    /// How many children this node takes; checked when the tree is built.
    fn arity(&self) -> Arity {
        Arity::Leaf
    }

    /// Parameters as `(name, value)` pairs, for printing the tree.
    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Install: create the task. Runs in the same tick as, and just before,
    /// the first update.
    fn create_task(&self, cx: &mut Ctx<A, W>) -> Self::Task;

    /// Advance the task by one tick. Children, if any, are run through
    /// `children`; a child that finishes is uninstalled at once.
    fn update(
        &self,
        task: &mut Self::Task,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status;

    /// The task ends: it finished with `Success`/`Failure`, or was aborted.
    /// Children still running were aborted just before.
    fn terminate(&self, task: &mut Self::Task, cx: &mut Ctx<A, W>, exit: Exit) {
        let _ = (task, cx, exit);
    }

    /// Whether `task` is a state this node's task can be in. Tasks are
    /// plain data, so any bytes make *a* task; a node whose update would
    /// misbehave on some (an index past a table, say) says so here, and a
    /// restored agent with such a task is refused instead of run
    /// ([`Agent::restore`](crate::Agent::restore)).
    fn task_is_valid(&self, task: &Self::Task) -> bool {
        let _ = task;
        true
    }

    /// The running task's state in words, for inspectors
    /// ([`Agent::running`](crate::Agent::running)); `None` says nothing.
    fn describe(&self, task: &Self::Task) -> Option<String> {
        let _ = task;
        None
    }
}

/// The children of a custom node, as its update sees them.
pub struct Children<'c, A, W> {
    runner: &'c mut dyn ChildRunner<A, W>,
}

impl<A, W> fmt::Debug for Children<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Children").finish_non_exhaustive()
    }
}

/// What the engine lends a custom node for the duration of one update.
pub(crate) trait ChildRunner<A, W> {
    fn len(&self) -> usize;
    fn is_running(&mut self, index: usize) -> bool;
    fn update(&mut self, index: usize, cx: &mut Ctx<A, W>) -> Status;
    fn abort(&mut self, index: usize, cx: &mut Ctx<A, W>);
}

/// A custom task being updated with children: its bytes and its children.
pub(crate) trait Host<A, W>: ChildRunner<A, W> {
    fn task(&mut self) -> &mut [u8];
    fn children(&mut self) -> &mut dyn ChildRunner<A, W>;
}

impl<'c, A, W> Children<'c, A, W> {
    pub(crate) fn new(runner: &'c mut dyn ChildRunner<A, W>) -> Self {
        Children { runner }
    }

    /// Number of children.
    pub fn len(&self) -> usize {
        self.runner.len()
    }

    /// `true` for a leaf.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether child `index` is installed (it returned `Running` and has not
    /// been aborted since).
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn is_running(&mut self, index: usize) -> bool {
        self.check(index);
        self.runner.is_running(index)
    }

    /// Update child `index`, installing it first if it is not running. When
    /// it finishes it is uninstalled, and the next update starts it afresh.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn update(&mut self, index: usize, cx: &mut Ctx<A, W>) -> Status {
        self.check(index);
        self.runner.update(index, cx)
    }

    /// Abort child `index` (deepest task first) if it is running.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn abort(&mut self, index: usize, cx: &mut Ctx<A, W>) {
        self.check(index);
        self.runner.abort(index, cx)
    }

    fn check(&self, index: usize) {
        let len = self.len();
        assert!(
            index < len,
            "child index {index} out of range: this node has {len} children"
        );
    }
}

/// What a custom leaf's update gets for children.
pub(crate) struct NoChildren;

impl<A, W> ChildRunner<A, W> for NoChildren {
    fn len(&self) -> usize {
        0
    }
    fn is_running(&mut self, _: usize) -> bool {
        false
    }
    fn update(&mut self, _: usize, _: &mut Ctx<A, W>) -> Status {
        Status::Failure
    }
    fn abort(&mut self, _: usize, _: &mut Ctx<A, W>) {}
}

/// A custom node with its task type erased, as the tree stores it. Every
/// method is one virtual call into the user's code, which works on the
/// task in place where its bytes are aligned for the task type, and on a
/// typed copy otherwise: no buffer, no other dispatch.
trait ErasedNode<A, W>: Send + Sync {
    fn type_name(&self) -> &str;
    fn params(&self) -> Vec<(String, String)>;
    fn create(&self, task: &mut [u8], cx: &mut Ctx<A, W>);
    fn run_leaf(&self, task: &mut [u8], fresh: bool, end: bool, cx: &mut Ctx<A, W>) -> Status;
    fn update_with(&self, host: &mut dyn Host<A, W>, cx: &mut Ctx<A, W>) -> Status;
    fn terminate(&self, task: &mut [u8], cx: &mut Ctx<A, W>, exit: Exit);
    fn describe(&self, task: &[u8]) -> Option<String>;
    fn valid(&self, task: &[u8]) -> bool;
}

/// Run `f` on the task whose bytes are `task`: in place if they are
/// aligned for `T` (a task at the start of an agent's memory, or at an
/// offset that happens to suit it), else on a copy written back after.
#[inline(always)]
fn typed<T: Pod, R>(task: &mut [u8], f: impl FnOnce(&mut T) -> R) -> R {
    match bytemuck::try_from_bytes_mut::<T>(task) {
        Ok(typed) => f(typed),
        Err(_) => {
            let mut typed: T = bytemuck::pod_read_unaligned(task);
            let out = f(&mut typed);
            task.copy_from_slice(bytemuck::bytes_of(&typed));
            out
        }
    }
}

impl<A, W, N: Node<A, W>> ErasedNode<A, W> for N {
    fn type_name(&self) -> &str {
        Node::type_name(self)
    }
    fn params(&self) -> Vec<(String, String)> {
        Node::params(self)
    }
    fn create(&self, task: &mut [u8], cx: &mut Ctx<A, W>) {
        let fresh = self.create_task(cx);
        task.copy_from_slice(bytemuck::bytes_of(&fresh));
    }
    fn run_leaf(&self, task: &mut [u8], fresh: bool, end: bool, cx: &mut Ctx<A, W>) -> Status {
        typed(task, |task: &mut N::Task| {
            if fresh {
                *task = self.create_task(cx);
            }
            let status = Node::update(self, task, cx, &mut Children::new(&mut NoChildren));
            if end && status != Status::Running {
                Node::terminate(self, task, cx, Exit::from(status));
            }
            status
        })
    }
    fn update_with(&self, host: &mut dyn Host<A, W>, cx: &mut Ctx<A, W>) -> Status {
        // Children live in the same memory as the task, so the task is
        // read out while they run and written back after.
        let mut typed: N::Task = bytemuck::pod_read_unaligned(host.task());
        let status = Node::update(self, &mut typed, cx, &mut Children::new(host.children()));
        host.task().copy_from_slice(bytemuck::bytes_of(&typed));
        status
    }
    fn terminate(&self, task: &mut [u8], cx: &mut Ctx<A, W>, exit: Exit) {
        typed(task, |task| Node::terminate(self, task, cx, exit))
    }
    fn describe(&self, task: &[u8]) -> Option<String> {
        Node::describe(self, &bytemuck::pod_read_unaligned(task))
    }
    fn valid(&self, task: &[u8]) -> bool {
        Node::task_is_valid(self, &bytemuck::pod_read_unaligned(task))
    }
}

/// A user-defined node, type-erased and shareable. Build one with
/// [`Builder::custom`](crate::Builder::custom) or [`CustomNode::new`].
pub struct CustomNode<A, W> {
    node: Arc<dyn ErasedNode<A, W>>,
    /// Kept here, not asked of the node, so that the engine reads it
    /// without a virtual call.
    task_size: u32,
    arity: Arity,
}

impl<A, W> fmt::Debug for CustomNode<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CustomNode")
            .field("task_size", &self.task_size)
            .field("arity", &self.arity)
            .finish_non_exhaustive()
    }
}

impl<A, W> CustomNode<A, W> {
    /// Erase a [`Node`] implementation.
    pub fn new<N: Node<A, W>>(node: N) -> Self {
        let arity = node.arity();
        CustomNode {
            node: Arc::new(node),
            // Saturates: a task this large is refused when the tree is built.
            task_size: u32::try_from(size_of::<N::Task>()).unwrap_or(u32::MAX),
            arity,
        }
    }

    /// The node's type name.
    pub fn type_name(&self) -> &str {
        self.node.type_name()
    }

    /// How many children the node takes.
    pub fn arity(&self) -> Arity {
        self.arity
    }

    /// The node's parameters for printing.
    pub fn params(&self) -> Vec<(String, String)> {
        self.node.params()
    }

    /// Size of the node's task state in bytes.
    #[inline]
    pub fn task_size(&self) -> usize {
        self.task_size as usize
    }

    pub(crate) fn create(&self, task: &mut [u8], cx: &mut Ctx<A, W>) {
        self.node.create(task, cx)
    }

    /// A leaf's visit in one call: create the task when `fresh`, update
    /// it, and, with `end`, terminate it if it finished.
    #[inline]
    pub(crate) fn run_leaf(
        &self,
        task: &mut [u8],
        fresh: bool,
        end: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        self.node.run_leaf(task, fresh, end, cx)
    }

    pub(crate) fn update_with(&self, host: &mut dyn Host<A, W>, cx: &mut Ctx<A, W>) -> Status {
        self.node.update_with(host, cx)
    }

    #[inline]
    pub(crate) fn terminate(&self, task: &mut [u8], cx: &mut Ctx<A, W>, exit: Exit) {
        self.node.terminate(task, cx, exit)
    }

    pub(crate) fn describe(&self, task: &[u8]) -> Option<String> {
        self.node.describe(task)
    }

    pub(crate) fn task_is_valid(&self, task: &[u8]) -> bool {
        self.node.valid(task)
    }
}

impl<A, W> Clone for CustomNode<A, W> {
    fn clone(&self) -> Self {
        CustomNode {
            node: Arc::clone(&self.node),
            task_size: self.task_size,
            arity: self.arity,
        }
    }
}
