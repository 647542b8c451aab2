//! The Behavior slot (seed 003): install a node's task, update it, and
//! uninstall it when it finishes or is aborted.
//!
//! A behavior slot is a place in a parent task's memory (see
//! [`pool`](crate::pool)); which child is installed there is part of the
//! parent's own state (a Sequence's current index, a Parallel's per-child
//! codes). Every node kind runs its children only through the two functions
//! here, [`Runner::run_child`] and [`Runner::abort_child`], so installing,
//! counting, observing and returning memory happen in exactly one place.

use crate::asynchronous::Waits;
use crate::context::Ctx;
use crate::node::{ActionFn, ConditionFn, NodeKind};
use crate::observer::{Event, EventKind, Observer};
use crate::pool::{Loc, Slot, TaskPool};
use crate::status::{Exit, Status};
use crate::tree::{Edge, NodeDef, NodeId, Tree};

/// Where an installed task lives: its task memory and its persistent memory.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    pub loc: Loc,
    pub persist: u32,
}

/// How a task is being updated. Tick-from-root only ever installs
/// (`Fresh`) or resumes (`Resume`); the event-driven scheduler also wakes a
/// parent because one of its children finished (`ChildDone`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visit {
    /// The update right after install.
    Fresh,
    /// A later update: the task resumes its running children.
    Resume,
    /// Child `child` of this running task finished with `status` and is
    /// already uninstalled. The task reacts exactly as its update would
    /// have on seeing that status, and updates no other running child:
    /// the scheduler updates those itself, in tree order.
    ChildDone { child: u16, status: Status },
}

impl Visit {
    #[inline(always)]
    pub fn of(fresh: bool) -> Visit {
        if fresh { Visit::Fresh } else { Visit::Resume }
    }

    #[inline(always)]
    pub fn is_fresh(self) -> bool {
        self == Visit::Fresh
    }
}

/// Everything one agent's tick needs besides the leaf context: the shared
/// tree, the agent's pool, the observer, and the running count of tasks.
pub(crate) struct Runner<'r, A, W, P, O> {
    pub tree: &'r Tree<A, W>,
    pub pool: &'r mut P,
    pub obs: O,
    pub active: u32,
    /// The agent's asynchronous waits, if its tree has async leaves.
    pub waits: Option<&'r mut Waits>,
}

impl<'r, A, W, P: TaskPool, O: Observer> Runner<'r, A, W, P, O> {
    #[inline(always)]
    pub fn emit(&mut self, cx: &Ctx<A, W>, node: u32, kind: EventKind) {
        self.obs.event(Event {
            tick: cx.tick,
            agent: cx.id,
            node: NodeId(node),
            kind,
        });
    }

    /// Update the root, installing it first if no task is installed.
    pub fn tick_root(&mut self, cx: &mut Ctx<A, W>) -> Status {
        let tree = self.tree;
        let def = tree.def(0);
        let fresh = self.active == 0;
        let loc = if fresh {
            let loc = self.pool.install_root(&def.size);
            self.enter(0, def, At { loc, persist: 0 }, cx);
            loc
        } else {
            self.pool.root()
        };
        let at = At { loc, persist: 0 };
        let status = self.update(0, at, Visit::of(fresh), cx);
        self.after_root_update(at, status, cx)
    }

    /// Update the installed root with `visit` (event-driven scheduling).
    #[inline(never)]
    pub fn resume_root(&mut self, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let at = At {
            loc: self.pool.root(),
            persist: 0,
        };
        let status = self.update(0, at, visit, cx);
        if status == Status::Running {
            // Reacting to a child is not a tick's update of this node:
            // reporting it could report one node twice in a tick.
            return status;
        }
        self.after_root_update(at, status, cx)
    }

    #[inline(always)]
    fn after_root_update(&mut self, at: At, status: Status, cx: &mut Ctx<A, W>) -> Status {
        self.emit(cx, 0, EventKind::Update(status));
        if status != Status::Running {
            let def = self.tree.def(0);
            self.finish(0, def, at, status, cx);
            self.pool.uninstall_root(at.loc, &def.size);
            self.pool.clear();
        }
        status
    }

    /// Abort the root's task tree, if installed.
    pub fn abort_root(&mut self, cx: &mut Ctx<A, W>) {
        if self.active == 0 {
            return;
        }
        let def = self.tree.def(0);
        let loc = self.pool.root();
        self.abort(0, At { loc, persist: 0 }, cx);
        self.pool.uninstall_root(loc, &def.size);
        self.pool.clear();
    }

    /// Update the child `edge` in `slot` of the task at `parent`, installing
    /// it first when `fresh`. A child that finishes is uninstalled at once,
    /// so its memory is free for the next child in the same tick.
    #[inline(always)]
    pub fn run_child(
        &mut self,
        parent: At,
        slot: &Slot,
        edge: Edge,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let def = self.tree.def(edge.node);
        // Leaves without state have no task memory at all: the hot case of
        // conditions re-checked every tick costs a call and two counters.
        if let Some(leaf) = StatelessLeaf::of(&def.kind) {
            if fresh {
                self.emit(cx, edge.node, EventKind::Enter);
            }
            let status = leaf.run(cx);
            self.emit(cx, edge.node, EventKind::Update(status));
            match (fresh, status) {
                (true, Status::Running) => self.active += 1,
                (true, _) => self.emit(cx, edge.node, EventKind::Exit(status)),
                (false, Status::Running) => {}
                (false, _) => {
                    self.emit(cx, edge.node, EventKind::Exit(status));
                    self.active -= 1;
                }
            }
            return status;
        }
        self.run_task(parent, slot, edge, def, fresh, cx)
    }

    /// [`run_child`](Self::run_child) for a node whose task has memory.
    /// The one call per tree level: everything a task's update does is
    /// inlined into it, so descending a level costs one call frame.
    #[inline(never)]
    fn run_task(
        &mut self,
        parent: At,
        slot: &Slot,
        edge: Edge,
        def: &NodeDef<A, W>,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let persist = parent.persist + edge.persist;
        let loc = if fresh {
            let loc = self.pool.install(parent.loc, slot, &def.size);
            self.enter(edge.node, def, At { loc, persist }, cx);
            loc
        } else {
            self.pool.child(parent.loc, slot)
        };
        let at = At { loc, persist };
        let status = self.update(edge.node, at, Visit::of(fresh), cx);
        self.after_update(parent, slot, edge.node, def, at, status, cx)
    }

    /// Tell the running task of child `edge` in `slot` of `parent` that its
    /// child finished (event-driven scheduling; `visit` is a `ChildDone`).
    #[inline(never)]
    pub fn resume_task(
        &mut self,
        parent: At,
        slot: &Slot,
        edge: Edge,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let def = self.tree.def(edge.node);
        let at = At {
            loc: self.pool.child(parent.loc, slot),
            persist: parent.persist + edge.persist,
        };
        let status = self.update(edge.node, at, visit, cx);
        if status == Status::Running {
            // As in `resume_root`: a reaction that goes on is not reported.
            return status;
        }
        self.after_update(parent, slot, edge.node, def, at, status, cx)
    }

    /// Report an update and uninstall the task if it finished.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn after_update(
        &mut self,
        parent: At,
        slot: &Slot,
        id: u32,
        def: &NodeDef<A, W>,
        at: At,
        status: Status,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        self.emit(cx, id, EventKind::Update(status));
        if status != Status::Running {
            self.finish(id, def, at, status, cx);
            self.pool.uninstall(parent.loc, slot, at.loc, &def.size);
        }
        status
    }

    /// The status of child `index` as a parent's update sees it: run it,
    /// unless the parent is being told that a child finished. Then the
    /// finished child reports its status and the others, still running,
    /// report `Running` without being updated.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn visit_child(
        &mut self,
        parent: At,
        slot: &Slot,
        edge: Edge,
        index: usize,
        fresh: bool,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        if let Visit::ChildDone { child, status } = visit
            && !fresh
        {
            return if child as usize == index {
                status
            } else {
                Status::Running
            };
        }
        self.run_child(parent, slot, edge, fresh, cx)
    }

    /// Abort the running child `edge` in `slot` of the task at `parent`:
    /// its own running children first (deepest first), then itself, then
    /// its memory goes back to the pool.
    pub fn abort_child(&mut self, parent: At, slot: &Slot, edge: Edge, cx: &mut Ctx<A, W>) {
        let def = self.tree.def(edge.node);
        if StatelessLeaf::of(&def.kind).is_some() {
            self.emit(cx, edge.node, EventKind::Abort);
            self.active -= 1;
            return;
        }
        let loc = self.pool.child(parent.loc, slot);
        let persist = parent.persist + edge.persist;
        self.abort(edge.node, At { loc, persist }, cx);
        self.pool.uninstall(parent.loc, slot, loc, &def.size);
    }

    /// A task was just installed: create its state.
    #[inline]
    fn enter(&mut self, id: u32, def: &NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        self.active += 1;
        self.emit(cx, id, EventKind::Enter);
        if let NodeKind::Custom(custom) = &def.kind {
            self.custom_enter(custom, def, at, cx);
        }
    }

    /// A task finished with `status`; its memory is about to be returned.
    #[inline]
    fn finish(&mut self, id: u32, def: &NodeDef<A, W>, at: At, status: Status, cx: &mut Ctx<A, W>) {
        if let NodeKind::Custom(custom) = &def.kind {
            self.custom_end(custom, def, at, Exit::from(status), cx);
        }
        self.emit(cx, id, EventKind::Exit(status));
        self.active -= 1;
    }

    /// A running task is cut short: abort what it runs, then tell it.
    fn abort(&mut self, id: u32, at: At, cx: &mut Ctx<A, W>) {
        let def = self.tree.def(id);
        self.abort_running_children(def, at, cx);
        match &def.kind {
            NodeKind::Custom(custom) => self.custom_end(custom, def, at, Exit::Aborted, cx),
            NodeKind::Cooldown(ticks) => self.start_cooldown(at, *ticks, cx),
            NodeKind::Async(_) => self.release_wait(def, at),
            _ => {}
        }
        self.emit(cx, id, EventKind::Abort);
        self.active -= 1;
    }

    /// The own state of the installed task of `def` at `at`. Every read and
    /// write of task state goes through here.
    #[inline]
    pub fn state(&mut self, def: &NodeDef<A, W>, at: At) -> &mut [u8] {
        // SAFETY: callers pass the node whose task is installed at `at` (the
        // task being updated, aborted or ended), and `size.own` is exactly
        // the own size it was installed with.
        unsafe { self.pool.mem_unchecked(at.loc, def.size.own as usize) }
    }

    // Little-endian fields at the start of a task's state; tasks are
    // byte-addressed so that no pool needs to care about alignment.

    #[inline]
    pub fn get_u16(&mut self, def: &NodeDef<A, W>, at: At) -> u16 {
        let m = self.state(def, at);
        u16::from_le_bytes([m[0], m[1]])
    }

    #[inline]
    pub fn set_u16(&mut self, def: &NodeDef<A, W>, at: At, value: u16) {
        self.state(def, at)[..2].copy_from_slice(&value.to_le_bytes());
    }

    #[inline]
    pub fn get_u32(&mut self, def: &NodeDef<A, W>, at: At) -> u32 {
        let m = self.state(def, at);
        u32::from_le_bytes([m[0], m[1], m[2], m[3]])
    }

    #[inline]
    pub fn set_u32(&mut self, def: &NodeDef<A, W>, at: At, value: u32) {
        self.state(def, at)[..4].copy_from_slice(&value.to_le_bytes());
    }

    /// Ticks since the task of a timed node (Wait, Timeout) was entered;
    /// its state is the tick of entry, recorded on the first update.
    #[inline]
    pub fn ticks_since_entry(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        fresh: bool,
        cx: &Ctx<A, W>,
    ) -> u32 {
        if fresh {
            self.set_u32(def, at, cx.tick);
            return 0;
        }
        cx.tick.wrapping_sub(self.get_u32(def, at))
    }

    /// The tick a running Wait or Timeout was entered.
    #[inline]
    pub fn entered_at(&mut self, def: &NodeDef<A, W>, at: At) -> u32 {
        self.get_u32(def, at)
    }

    pub fn get_persist_u32(&mut self, at: u32) -> u32 {
        let layout = self.tree.layout;
        let m = &self.pool.persist(&layout)[at as usize..at as usize + 4];
        u32::from_le_bytes([m[0], m[1], m[2], m[3]])
    }

    pub fn set_persist_u32(&mut self, at: u32, value: u32) {
        let layout = self.tree.layout;
        self.pool.persist(&layout)[at as usize..at as usize + 4]
            .copy_from_slice(&value.to_le_bytes());
    }
}

/// Whether a node's running task has no memory of its own (see
/// [`StatelessLeaf`]).
pub(crate) fn is_stateless<A, W>(kind: &NodeKind<A, W>) -> bool {
    StatelessLeaf::of(kind).is_some()
}

/// Leaves whose tasks have no state: they need no task memory, so the
/// engine runs them without touching the pool, in every strategy.
enum StatelessLeaf<'k, A, W> {
    Action(&'k ActionFn<A, W>),
    Condition(&'k ConditionFn<A, W>),
    Constant(Status),
}

impl<'k, A, W> StatelessLeaf<'k, A, W> {
    #[inline(always)]
    fn of(kind: &'k NodeKind<A, W>) -> Option<Self> {
        match kind {
            NodeKind::Action(f) => Some(StatelessLeaf::Action(f)),
            NodeKind::Condition(f) => Some(StatelessLeaf::Condition(f)),
            NodeKind::AlwaysSuccess => Some(StatelessLeaf::Constant(Status::Success)),
            NodeKind::AlwaysFailure => Some(StatelessLeaf::Constant(Status::Failure)),
            NodeKind::AlwaysRunning => Some(StatelessLeaf::Constant(Status::Running)),
            _ => None,
        }
    }

    #[inline(always)]
    fn run(self, cx: &mut Ctx<A, W>) -> Status {
        match self {
            StatelessLeaf::Action(f) => f(cx),
            StatelessLeaf::Condition(f) => Status::from_bool(f(cx)),
            StatelessLeaf::Constant(status) => status,
        }
    }
}
