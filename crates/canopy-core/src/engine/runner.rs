//! The behavior slot: install a node's task, update it, and uninstall it
//! when it finishes or is aborted.
//!
//! A behavior slot is a place in a parent task's memory (see
//! [`layout`](crate::tree::layout)); which child is installed there is part
//! of the parent's own state (a Sequence's current index, a Parallel's
//! per-child codes). Every node kind runs its children only through
//! [`Runner::run_child`] and [`Runner::abort_child`], so installing,
//! observing and ending tasks happen in exactly one place.

use crate::def::exec::{Exec, Visit};
use crate::def::observer::{Event, EventKind, Observer};
use crate::nodes;
use crate::state::waits::Waits;
use crate::tree::{NodeDef, Tree};
use crate::util::context::Ctx;
use crate::util::primitives::NodeId;
use crate::util::status::{Exit, Status};
use crate::util::ticket::Ticket;

/// Where an installed task lives: the offset of its task memory, and of its
/// persistent memory within the persistent region.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    pub(crate) loc: u32,
    pub(crate) persist: u32,
}

impl At {
    pub(crate) const ROOT: At = At { loc: 0, persist: 0 };
}

/// Everything one agent's tick needs besides the leaf context: the shared
/// tree, the agent's memory and waits, and the observer.
pub(crate) struct Runner<'r, A, W, O> {
    pub(crate) tree: &'r Tree<A, W>,
    /// The agent's task memory followed by its persistent memory, laid
    /// out for `tree` (the agent checks it is ticked with its own tree).
    pub(crate) mem: &'r mut [u8],
    /// The agent's asynchronous waits, if its tree has async leaves.
    pub(crate) waits: Option<&'r mut Waits>,
    pub(crate) obs: O,
}

/// A kind's handle on its running task: the [`Exec`] the engine lends to
/// the code in [`nodes`].
pub(crate) struct Here<'h, 'r, A, W, O> {
    pub(crate) r: &'h mut Runner<'r, A, W, O>,
    pub(crate) id: u32,
    pub(crate) def: &'r NodeDef<A, W>,
    pub(crate) at: At,
}

impl<A, W, O: Observer> Exec<A, W> for Here<'_, '_, A, W, O> {
    #[inline(always)]
    fn state(&mut self) -> &mut [u8] {
        let start = self.at.loc as usize;
        &mut self.r.mem[start..start + self.def.own as usize]
    }

    #[inline]
    fn persist(&mut self) -> &mut [u8] {
        let start = self.r.tree.task_bytes as usize + self.at.persist as usize;
        &mut self.r.mem[start..]
    }

    #[inline(always)]
    fn children(&self) -> usize {
        self.def.child_count as usize
    }

    #[inline(always)]
    fn run(&mut self, child: usize, slot: usize, fresh: bool, cx: &mut Ctx<A, W>) -> Status {
        self.r.run_child(self.def, self.at, child, slot, fresh, cx)
    }

    #[inline]
    fn abort(&mut self, child: usize, slot: usize, cx: &mut Ctx<A, W>) {
        self.r.abort_child(self.def, self.at, child, slot, cx)
    }

    fn claim_wait(&mut self, cx: &Ctx<A, W>) -> Option<(u32, Ticket)> {
        let id = self.id;
        self.r.waits.as_deref_mut().map(|w| w.claim(cx.id, id))
    }

    fn wait_outcome(&self, index: u32) -> Option<Option<Status>> {
        self.r.waits.as_deref().map(|w| w.outcome(index))
    }

    fn release_wait(&mut self, index: u32) {
        if let Some(waits) = self.r.waits.as_deref_mut() {
            waits.release(index);
        }
    }
}

impl<'r, A, W, O: Observer> Runner<'r, A, W, O> {
    #[inline(always)]
    pub(crate) fn emit(&mut self, cx: &Ctx<A, W>, node: u32, kind: EventKind) {
        self.obs.event(Event {
            tick: cx.tick,
            agent: cx.id,
            node: NodeId(node),
            kind,
        });
    }

    #[inline(always)]
    pub(crate) fn here<'h>(
        &'h mut self,
        id: u32,
        def: &'r NodeDef<A, W>,
        at: At,
    ) -> Here<'h, 'r, A, W, O> {
        Here {
            r: self,
            id,
            def,
            at,
        }
    }

    /// Update the root, installing it first when `fresh`.
    pub(crate) fn tick_root(&mut self, fresh: bool, cx: &mut Ctx<A, W>) -> Status {
        let def = self.tree.def(0);
        if fresh {
            self.enter(0, def, At::ROOT, cx);
        }
        let status = self.update(0, def, At::ROOT, Visit::of(fresh), cx);
        self.after_update(0, def, At::ROOT, status, cx)
    }

    /// Tell the installed root that a child finished (event-driven
    /// scheduling; `visit` is a `ChildDone`).
    #[inline(never)]
    pub(crate) fn resume_root(&mut self, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let def = self.tree.def(0);
        let status = self.update(0, def, At::ROOT, visit, cx);
        if status == Status::Running {
            // Reacting to a child is not a tick's update of this node:
            // reporting it could report one node twice in a tick.
            return status;
        }
        self.after_update(0, def, At::ROOT, status, cx)
    }

    /// Abort the installed root's whole task tree.
    pub(crate) fn abort_root(&mut self, cx: &mut Ctx<A, W>) {
        let def = self.tree.def(0);
        self.abort(0, def, At::ROOT, cx);
    }

    /// Where child `child` of the task of `def` at `at` lives, in `slot`.
    #[inline(always)]
    pub(crate) fn child_at(
        &self,
        def: &NodeDef<A, W>,
        at: At,
        child: usize,
        slot: usize,
    ) -> (u32, At) {
        let tree = self.tree;
        let edge = tree.edges_of(def)[child];
        let child_at = At {
            loc: at.loc + tree.slot(def, slot),
            persist: at.persist + edge.persist,
        };
        (edge.node, child_at)
    }

    /// Update child `child` in `slot` of the task of `def` at `at`,
    /// installing it first when `fresh`. A child that finishes is
    /// uninstalled at once, so its memory is free for the next child in
    /// the same tick.
    #[inline(always)]
    pub(crate) fn run_child(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        child: usize,
        slot: usize,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let (id, child_at) = self.child_at(def, at, child, slot);
        let tree = self.tree;
        let child_def = tree.def(id);
        // Leaves without state have no task memory at all: the hot case of
        // conditions re-checked every tick costs a call and an event.
        if let Some(leaf) = nodes::stateless(&child_def.kind) {
            if fresh {
                self.emit(cx, id, EventKind::Enter);
            }
            let status = leaf.run(cx);
            self.emit(cx, id, EventKind::Update(status));
            if status != Status::Running {
                self.emit(cx, id, EventKind::Exit(status));
            }
            return status;
        }
        self.run_task(id, child_def, child_at, fresh, cx)
    }

    /// [`run_child`](Self::run_child) for a node whose task has memory.
    /// The one call per tree level: everything a task's update does is
    /// inlined into it, so descending a level costs one call frame.
    #[inline(never)]
    fn run_task(
        &mut self,
        id: u32,
        def: &'r NodeDef<A, W>,
        at: At,
        fresh: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        if fresh {
            self.enter(id, def, at, cx);
        }
        let status = self.update(id, def, at, Visit::of(fresh), cx);
        self.after_update(id, def, at, status, cx)
    }

    /// Tell the running task `id` at `at` that its child finished
    /// (event-driven scheduling; `visit` is a `ChildDone`).
    #[inline(never)]
    pub(crate) fn resume_task(
        &mut self,
        id: u32,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let def = self.tree.def(id);
        let status = self.update(id, def, at, visit, cx);
        if status == Status::Running {
            // As in `resume_root`: a reaction that goes on is not reported.
            return status;
        }
        self.after_update(id, def, at, status, cx)
    }

    /// Resume the running task `id` at `at` for a tick (event-driven
    /// scheduling of a frame that is due).
    pub(crate) fn resume(&mut self, id: u32, at: At, cx: &mut Ctx<A, W>) -> Status {
        let def = self.tree.def(id);
        if let Some(leaf) = nodes::stateless(&def.kind) {
            let status = leaf.run(cx);
            self.emit(cx, id, EventKind::Update(status));
            if status != Status::Running {
                self.emit(cx, id, EventKind::Exit(status));
            }
            return status;
        }
        self.run_task(id, def, at, false, cx)
    }

    /// Report an update and end the task if it finished.
    #[inline(always)]
    fn after_update(
        &mut self,
        id: u32,
        def: &'r NodeDef<A, W>,
        at: At,
        status: Status,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        self.emit(cx, id, EventKind::Update(status));
        if status != Status::Running {
            nodes::end(
                &def.kind,
                &mut self.here(id, def, at),
                Exit::from(status),
                cx,
            );
            self.emit(cx, id, EventKind::Exit(status));
        }
        status
    }

    /// Abort the running child `child` in `slot` of the task of `def` at
    /// `at`: its own running children first (deepest first), then itself.
    pub(crate) fn abort_child(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        child: usize,
        slot: usize,
        cx: &mut Ctx<A, W>,
    ) {
        let (id, child_at) = self.child_at(def, at, child, slot);
        let child_def = self.tree.def(id);
        if nodes::stateless(&child_def.kind).is_some() {
            self.emit(cx, id, EventKind::Abort);
            return;
        }
        self.abort(id, child_def, child_at, cx);
    }

    /// A task was just installed: create its state.
    #[inline]
    fn enter(&mut self, id: u32, def: &'r NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        self.emit(cx, id, EventKind::Enter);
        nodes::enter(&def.kind, &mut self.here(id, def, at), cx);
    }

    #[inline(always)]
    fn update(
        &mut self,
        id: u32,
        def: &'r NodeDef<A, W>,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        nodes::update(&def.kind, &mut self.here(id, def, at), visit, cx)
    }

    /// A running task is cut short: abort what it runs, then tell it.
    #[inline(never)]
    fn abort(&mut self, id: u32, def: &'r NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        let mut here = self.here(id, def, at);
        nodes::abort_children(&def.kind, &mut here, cx);
        nodes::end(&def.kind, &mut here, Exit::Aborted, cx);
        self.emit(cx, id, EventKind::Abort);
    }
}
