//! The behavior slot: install a node's task, update it, and uninstall it
//! when it finishes or is aborted.
//!
//! A behavior slot is a place in a parent task's memory (see
//! [`layout`](crate::tree::layout)); which child is installed there is part
//! of the parent's own state (a Sequence's current index, a Parallel's
//! per-child codes). Every node kind runs its children only through
//! [`Runner::run_child`] and [`Runner::abort_child`], so installing,
//! observing and ending tasks happen in exactly one place.

use crate::def::custom::CustomNode;
use crate::def::exec::{Exec, Visit};
use crate::def::observer::{Event, EventKind, Observer};
use crate::nodes;
use crate::state::waits::Waits;
use crate::tree::layout::{TaskLocation, def_at};
use crate::tree::{NodeDef, Tree};
use crate::util::context::Ctx;
use crate::util::primitives::NodeId;
use crate::util::status::{Exit, Status};
use crate::util::ticket::Ticket;

/// Everything one agent's tick needs besides the leaf context: the shared
/// tree, the agent's memory and waits, and the observer.
///
/// Every position ([`TaskLocation`]) a runner handles was made for its `tree`: it
/// starts from `TaskLocation::ROOT` and goes down through `TaskLocation::child` with the same
/// tree, and the schedule it keeps positions in belongs to an agent of
/// that tree. With `mem` that tree's memory, every access stays in bounds.
pub(crate) struct Runner<'r, A, W, O> {
    pub(crate) tree: &'r Tree<A, W>,
    /// The agent's task memory followed by its persistent memory, laid
    /// out for `tree` (its blackboard, after them, is lent to the leaves
    /// through their context instead).
    mem: &'r mut [u8],
    /// The agent's asynchronous waits, if its tree has async leaves.
    pub(crate) waits: Option<&'r mut Waits>,
    pub(crate) obs: O,
}

/// A kind's handle on its running task: the [`Exec`] the engine lends to
/// the code in [`nodes`].
pub(crate) struct TaskHandle<'h, 'r, A, W, O> {
    r: &'h mut Runner<'r, A, W, O>,
    def: &'r NodeDef<A, W>,
    at: TaskLocation,
}

/// `N` bytes as an array (the slice is `N` long: this never fails).
#[cfg_attr(not(debug_assertions), inline(always))]
fn array<const N: usize>(bytes: &mut [u8]) -> &mut [u8; N] {
    bytes.try_into().expect("a slice of N bytes")
}

impl<A, W, O: Observer> Exec<A, W> for TaskHandle<'_, '_, A, W, O> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn state(&mut self) -> &mut [u8] {
        let start = self.at.loc() as usize;
        &mut self.r.mem[start..start + self.def.own as usize]
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn state_array<const N: usize>(&mut self) -> &mut [u8; N] {
        debug_assert_eq!(N, self.def.own as usize, "a kind's state size");
        let start = self.at.loc() as usize;
        array(&mut self.r.mem[start..start + N])
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn persist<const N: usize>(&mut self) -> &mut [u8; N] {
        let start = self.r.tree.task_bytes as usize + self.at.persist() as usize;
        array(&mut self.r.mem[start..start + N])
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn children(&self) -> usize {
        self.def.child_count as usize
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run(&mut self, child: usize, slot: usize, fresh: bool, cx: &mut Ctx<A, W>) -> Status {
        self.r.run_child(self.at, self.def, child, slot, fresh, cx)
    }

    #[inline]
    fn abort(&mut self, child: usize, slot: usize, cx: &mut Ctx<A, W>) {
        self.r.abort_child(self.at, self.def, child, slot, cx)
    }

    fn claim_wait(&mut self, cx: &Ctx<A, W>) -> Option<(u32, Ticket)> {
        let id = self.at.node();
        self.r
            .waits
            .as_deref_mut()
            .map(|w| w.claim(cx.id, id, cx.tick))
    }

    fn wait_outcome(&self, index: u32) -> Option<Option<Status>> {
        self.r.waits.as_deref().map(|w| w.outcome(index))
    }

    fn release_wait(&mut self, index: u32, aborted: bool) {
        if let Some(waits) = self.r.waits.as_deref_mut() {
            waits.release(index, aborted);
        }
    }

    fn held_wait(&self, index: u32, agent: u32) -> Option<Ticket> {
        self.r.waits.as_deref()?.held(agent, index)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn wait_aborted(&mut self, ticket: Ticket) {
        self.r.obs.wait_aborted(NodeId(self.at.node()), ticket);
    }
}

/// One tick-from-root visit of a task, for a kind known statically:
/// install it when `fresh`, update it, and end it if it finished.
struct Cycle<'c, 'x, 'h, 'r, A, W, O> {
    here: TaskHandle<'h, 'r, A, W, O>,
    fresh: bool,
    cx: &'c mut Ctx<'x, A, W>,
}

impl<A, W, O: Observer> nodes::WithKind<A, W> for Cycle<'_, '_, '_, '_, A, W, O> {
    type Out = Status;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn with<K: crate::def::kind::Kind<A, W>>(self, k: &K) -> Status {
        let Cycle {
            mut here,
            fresh,
            cx,
        } = self;
        let id = here.at.node();
        if fresh {
            here.r.emit(cx, id, EventKind::Enter);
            k.enter(&mut here, cx);
        }
        let status = k.update(&mut here, Visit::of(fresh), cx);
        here.r.emit(cx, id, EventKind::Update(status));
        if status != Status::Running {
            k.end(&mut here, Exit::from(status), cx);
            here.r.emit(cx, id, EventKind::Exit(status));
        }
        status
    }
}

impl<'r, A, W, O: Observer> Runner<'r, A, W, O> {
    /// A runner of `tree` on `mem`, an agent's memory for it.
    ///
    /// # Panics
    /// If `mem` is not as long as `tree` lays out (an agent checks it has
    /// the right tree before it lends its memory, so this never fails).
    #[inline]
    pub(crate) fn new(
        tree: &'r Tree<A, W>,
        mem: &'r mut [u8],
        waits: Option<&'r mut Waits>,
        obs: O,
    ) -> Self {
        assert_eq!(
            mem.len(),
            tree.board_start(),
            "an agent's memory does not fit its tree"
        );
        Runner {
            tree,
            mem,
            waits,
            obs,
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn emit(&mut self, cx: &Ctx<A, W>, node: u32, kind: EventKind) {
        if !self.obs.observes() {
            return;
        }
        self.obs.event(Event {
            tick: cx.tick,
            agent: cx.id,
            node: NodeId(node),
            kind,
        });
    }

    /// The definition of the node whose task is at `at`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn def(&self, at: TaskLocation) -> &'r NodeDef<A, W> {
        def_at(self.tree, at)
    }

    /// The handle on the task at `at`, of node `def`, for its kind's code.
    /// (Every `def` the engine pairs with an `at` is `self.def(at)`, or the
    /// copy of it in the edge the engine came down, which `validate`
    /// checked to be the same; either is looked up once per visit.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn here<'h>(
        &'h mut self,
        at: TaskLocation,
        def: &'r NodeDef<A, W>,
    ) -> TaskHandle<'h, 'r, A, W, O> {
        TaskHandle { r: self, def, at }
    }

    /// Where child `child` of the task at `at` lives, in its own place
    /// (`slot` 0) or its alternate one (1).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn child_at(
        &self,
        at: TaskLocation,
        def: &NodeDef<A, W>,
        child: usize,
        slot: usize,
    ) -> TaskLocation {
        at.child(self.tree, def, child, slot)
    }

    /// Update the root, installing it first when `fresh`.
    pub(crate) fn tick_root(&mut self, fresh: bool, cx: &mut Ctx<A, W>) -> Status {
        self.run_at(TaskLocation::ROOT, fresh, cx)
    }

    /// Tell the running task at `at` that its child finished (event-driven
    /// scheduling; `visit` is a `ChildDone`).
    #[inline(never)]
    pub(crate) fn resume_task(
        &mut self,
        at: TaskLocation,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let def = self.def(at);
        let status = self.update(at, def, visit, cx);
        if status == Status::Running {
            // Reacting to a child is not a tick's update of this node:
            // reporting it could report one node twice in a tick.
            return status;
        }
        self.after_update(at, def, status, cx)
    }

    /// Abort the running root's whole task tree.
    pub(crate) fn abort_root(&mut self, cx: &mut Ctx<A, W>) {
        let def = self.def(TaskLocation::ROOT);
        self.abort(TaskLocation::ROOT, def, cx);
    }

    /// Update child `child` (in `slot`) of the task at `at`, installing it
    /// first when `fresh`. A child that finishes is uninstalled at once, so
    /// its memory is free for the next child in the same tick.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn run_child(
        &mut self,
        at: TaskLocation,
        parent: &NodeDef<A, W>,
        child: usize,
        slot: usize,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let (child_at, def) = at.down(self.tree, parent, child, slot);
        self.run_def(child_at, def, fresh, cx)
    }

    /// Update the task at `at`, installing it first when `fresh`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run_at(&mut self, at: TaskLocation, fresh: bool, cx: &mut Ctx<A, W>) -> Status {
        let def = self.def(at);
        self.run_def(at, def, fresh, cx)
    }

    /// [`run_at`](Self::run_at), given the task's definition.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run_def(
        &mut self,
        at: TaskLocation,
        def: &'r NodeDef<A, W>,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        // Leaves without state have no task memory at all: the hot case of
        // conditions re-checked every tick costs a call and an event.
        if let Some(leaf) = nodes::stateless(&def.kind) {
            let id = at.node();
            if fresh {
                self.emit(cx, id, EventKind::Enter);
            }
            return self.run_leaf(id, leaf, cx);
        }
        if let Some(node) = nodes::user_leaf(&def.kind, def.child_count) {
            return self.run_user_leaf(at, node, fresh, cx);
        }
        self.run_task(at, def, fresh, cx)
    }

    /// A user leaf's visit. Unobserved, it is one call into the user's
    /// code (create, update, terminate); observed, terminate is a call of
    /// its own, so that the update is reported before it runs.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run_user_leaf(
        &mut self,
        at: TaskLocation,
        node: &CustomNode<A, W>,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let id = at.node();
        if fresh {
            self.emit(cx, id, EventKind::Enter);
        }
        let start = at.loc() as usize;
        let task = &mut self.mem[start..start + node.task_size()];
        let observes = self.obs.observes();
        let status = node.run_leaf(task, fresh, !observes, cx);
        self.emit(cx, id, EventKind::Update(status));
        if status != Status::Running {
            if observes {
                let task = &mut self.mem[start..start + node.task_size()];
                node.terminate(task, cx, Exit::from(status));
            }
            self.emit(cx, id, EventKind::Exit(status));
        }
        status
    }

    /// A stateless leaf's update, and its exit if it finished.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run_leaf(&mut self, id: u32, leaf: nodes::Leaf<'_, A, W>, cx: &mut Ctx<A, W>) -> Status {
        let status = leaf.run(cx);
        self.emit(cx, id, EventKind::Update(status));
        if status != Status::Running {
            self.emit(cx, id, EventKind::Exit(status));
        }
        status
    }

    /// [`run_child`](Self::run_child) for a node whose task has memory.
    /// The one call per tree level: everything a task's update does is
    /// inlined into it, so descending a level costs one call frame.
    /// The kind is dispatched once, and its enter, update and end are
    /// inlined together ([`Cycle`]).
    #[inline(never)]
    fn run_task(
        &mut self,
        at: TaskLocation,
        def: &'r NodeDef<A, W>,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let here = self.here(at, def);
        nodes::with_kind(&def.kind, Cycle { here, fresh, cx })
    }

    /// Resume the running task at `at` for a tick (event-driven scheduling
    /// of a frame that is due).
    pub(crate) fn resume(&mut self, at: TaskLocation, cx: &mut Ctx<A, W>) -> Status {
        self.run_at(at, false, cx)
    }

    /// Report an update and end the task if it finished.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn after_update(
        &mut self,
        at: TaskLocation,
        def: &'r NodeDef<A, W>,
        status: Status,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        self.emit(cx, at.node(), EventKind::Update(status));
        if status != Status::Running {
            nodes::end(&def.kind, &mut self.here(at, def), Exit::from(status), cx);
            self.emit(cx, at.node(), EventKind::Exit(status));
        }
        status
    }

    /// Abort the running child `child` (in `slot`) of the task at `at`: its
    /// own running children first (deepest first), then itself.
    pub(crate) fn abort_child(
        &mut self,
        at: TaskLocation,
        parent: &NodeDef<A, W>,
        child: usize,
        slot: usize,
        cx: &mut Ctx<A, W>,
    ) {
        let child_at = self.child_at(at, parent, child, slot);
        let def = self.def(child_at);
        if nodes::stateless(&def.kind).is_some() {
            self.emit(cx, child_at.node(), EventKind::Abort);
            return;
        }
        self.abort(child_at, def, cx);
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update(
        &mut self,
        at: TaskLocation,
        def: &'r NodeDef<A, W>,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        nodes::update(&def.kind, &mut self.here(at, def), visit, cx)
    }

    /// A running task is cut short: abort what it runs, then tell it.
    #[inline(never)]
    fn abort(&mut self, at: TaskLocation, def: &'r NodeDef<A, W>, cx: &mut Ctx<A, W>) {
        let mut here = self.here(at, def);
        nodes::abort_children(&def.kind, &mut here, cx);
        nodes::end(&def.kind, &mut here, Exit::Aborted, cx);
        self.emit(cx, at.node(), EventKind::Abort);
    }
}
