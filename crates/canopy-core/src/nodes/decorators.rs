//! Decorators: one child, its status reshaped. Inverter and the Force pair
//! are one-liners in the dispatch of `nodes/mod.rs`; the stateful ones are here.
//! Semantics: [`nodes`](super).

use crate::behavior::{At, Runner, Visit};
use crate::context::Ctx;
use crate::node::Predicate;
use crate::observer::Observer;
use crate::pool::TaskPool;
use crate::status::Status;
use crate::tree::NodeDef;

/// Repeat/Retry state: completed cycles, with the top bit set while the
/// child is installed.
const CHILD_INSTALLED: u32 = 1 << 31;

impl<A, W, P: TaskPool, O: Observer> Runner<'_, A, W, P, O> {
    /// Update the only child, installing it first when `fresh`.
    pub(super) fn only_child(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        fresh: bool,
        visit: Visit,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let tree = self.tree;
        let (slot, edge) = (tree.slot(def, 0), tree.edges_of(def)[0]);
        self.visit_child(at, slot, edge, 0, fresh, visit, cx)
    }

    /// Decorators whose running task always has its child installed.
    pub(super) fn abort_only_child(&mut self, def: &NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        let tree = self.tree;
        self.abort_child(at, tree.slot(def, 0), tree.edges_of(def)[0], cx);
    }

    /// Repeat (`counts` = Success) and Retry (`counts` = Failure): a child
    /// ending with `counts` is a completed cycle; after `times` cycles the
    /// node ends with that status; a child ending otherwise ends the node.
    pub(super) fn repeat(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
        times: u32,
        counts: Status,
    ) -> Status {
        let state = if visit.is_fresh() {
            0
        } else {
            self.get_u32(def, at)
        };
        let installed = state & CHILD_INSTALLED != 0;
        let cycles = state & !CHILD_INSTALLED;
        let status = self.only_child(def, at, !installed, visit, cx);
        if status == Status::Running {
            self.set_u32(def, at, cycles | CHILD_INSTALLED);
            return Status::Running;
        }
        if status != counts {
            return status;
        }
        let cycles = cycles + 1;
        if cycles >= times {
            return status;
        }
        self.set_u32(def, at, cycles);
        Status::Running
    }

    /// Whether a running Repeat or Retry has its child installed; between
    /// cycles it has not, and installs it afresh on its next update.
    pub(crate) fn repeat_child_installed(&mut self, def: &NodeDef<A, W>, at: At) -> bool {
        self.get_u32(def, at) & CHILD_INSTALLED != 0
    }

    pub(super) fn abort_repeat(&mut self, def: &NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        if self.repeat_child_installed(def, at) {
            self.abort_only_child(def, at, cx);
        }
    }

    pub(super) fn reactive_guard(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        fresh: bool,
        cx: &mut Ctx<A, W>,
        condition: &Predicate<A, W>,
    ) -> Status {
        if !(condition.check)(cx) {
            if !fresh {
                self.abort_only_child(def, at, cx);
            }
            return Status::Failure;
        }
        self.only_child(def, at, fresh, Visit::of(fresh), cx)
    }

    pub(super) fn timeout(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
        ticks: u32,
    ) -> Status {
        let fresh = visit.is_fresh();
        if self.ticks_since_entry(def, at, fresh, cx) >= ticks {
            // Only reachable after the first update (ticks ≥ 1), so the
            // child is installed and running.
            self.abort_only_child(def, at, cx);
            return Status::Failure;
        }
        self.only_child(def, at, fresh, visit, cx)
    }

    pub(super) fn cooldown(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
        ticks: u32,
    ) -> Status {
        let fresh = visit.is_fresh();
        if fresh {
            let ready_at = self.get_persist_u32(at.persist);
            if ready_at != 0 && (cx.tick.wrapping_sub(ready_at) as i32) < 0 {
                return Status::Failure;
            }
        }
        let status = self.only_child(def, at, fresh, visit, cx);
        if status != Status::Running {
            self.start_cooldown(at, ticks, cx);
        }
        status
    }

    /// The child of a Cooldown ended (finished or aborted) at this tick.
    pub(crate) fn start_cooldown(&mut self, at: At, ticks: u32, cx: &Ctx<A, W>) {
        let ready_at = cx.tick.wrapping_add(ticks).wrapping_add(1).max(1);
        self.set_persist_u32(at.persist, ready_at);
    }
}
