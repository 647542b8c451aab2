//! Leaves with state of their own: Wait, and user-defined nodes (which may
//! also take children). Actions, conditions and the constant leaves are
//! one-liners in the dispatch of `nodes/mod.rs`. Semantics: [`nodes`](super).

use crate::behavior::{At, Runner};
use crate::context::Ctx;
use crate::custom::{ChildRunner, Children, CustomNode, MAX_TASK_BYTES};
use crate::observer::Observer;
use crate::pool::TaskPool;
use crate::status::{Exit, Status};
use crate::tree::NodeDef;

impl<A, W, P: TaskPool, O: Observer> Runner<'_, A, W, P, O> {
    pub(super) fn wait(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        fresh: bool,
        cx: &mut Ctx<A, W>,
        ticks: u32,
    ) -> Status {
        if self.ticks_since_entry(def, at, fresh, cx) >= ticks {
            Status::Success
        } else {
            Status::Running
        }
    }

    /// Create a custom node's task and clear its "child installed" bits.
    #[inline(never)]
    pub(crate) fn custom_enter(
        &mut self,
        custom: &CustomNode<A, W>,
        def: &NodeDef<A, W>,
        at: At,
        cx: &mut Ctx<A, W>,
    ) {
        let size = custom.task_size();
        let mem = self.state(def, at);
        mem[size..].fill(0);
        custom.0.create(&mut mem[..size], cx);
    }

    #[inline(never)]
    pub(super) fn custom_update(
        &mut self,
        custom: &CustomNode<A, W>,
        def: &NodeDef<A, W>,
        at: At,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let size = custom.task_size();
        if def.child_count == 0 {
            // A leaf runs nothing else, so it can work on its task in place.
            let task = &mut self.state(def, at)[..size];
            return custom
                .0
                .update(task, cx, &mut Children::new(&mut NoChildren));
        }
        // The task is copied out while its children run: they live in the
        // same pool, and the copy keeps the two borrows apart.
        let mut task = [0u8; MAX_TASK_BYTES];
        task[..size].copy_from_slice(&self.state(def, at)[..size]);
        let mut children = CustomChildren {
            runner: self,
            def,
            at,
        };
        let status = custom
            .0
            .update(&mut task[..size], cx, &mut Children::new(&mut children));
        self.state(def, at)[..size].copy_from_slice(&task[..size]);
        status
    }

    /// A custom task ends: abort the children it left running, then run its
    /// terminate hook.
    #[inline(never)]
    pub(crate) fn custom_end(
        &mut self,
        custom: &CustomNode<A, W>,
        def: &NodeDef<A, W>,
        at: At,
        exit: Exit,
        cx: &mut Ctx<A, W>,
    ) {
        if exit != Exit::Aborted {
            // When aborted, `abort` has already done this.
            self.abort_custom_children(def, at, cx);
        }
        let size = custom.task_size();
        let mut task = [0u8; MAX_TASK_BYTES];
        task[..size].copy_from_slice(&self.state(def, at)[..size]);
        custom.0.terminate(&mut task[..size], cx, exit);
        self.state(def, at)[..size].copy_from_slice(&task[..size]);
    }

    #[inline(never)]
    pub(super) fn abort_custom_children(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        cx: &mut Ctx<A, W>,
    ) {
        let mut children = CustomChildren {
            runner: self,
            def,
            at,
        };
        for i in 0..def.child_count as usize {
            children.abort(i, cx);
        }
    }
}

/// What a custom leaf's update gets for children.
struct NoChildren;

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

/// A custom node's children, lent to its update.
struct CustomChildren<'x, 'r, A, W, P, O> {
    runner: &'x mut Runner<'r, A, W, P, O>,
    def: &'x NodeDef<A, W>,
    at: At,
}

impl<A, W, P: TaskPool, O: Observer> CustomChildren<'_, '_, A, W, P, O> {
    /// The byte of the task's memory holding the "child installed" bit of
    /// child `index`, and the bit's mask.
    fn bit(&self, index: usize) -> (usize, u8) {
        let bits_at = (self.def.size.own - self.def.child_count.div_ceil(8)) as usize;
        (bits_at + index / 8, 1 << (index % 8))
    }

    fn set_installed(&mut self, index: usize, installed: bool) {
        let (byte, mask) = self.bit(index);
        let cell = &mut self.runner.state(self.def, self.at)[byte];
        if installed {
            *cell |= mask;
        } else {
            *cell &= !mask;
        }
    }
}

impl<A, W, P: TaskPool, O: Observer> ChildRunner<A, W> for CustomChildren<'_, '_, A, W, P, O> {
    fn len(&self) -> usize {
        self.def.child_count as usize
    }

    fn is_running(&mut self, index: usize) -> bool {
        let (byte, mask) = self.bit(index);
        self.runner.state(self.def, self.at)[byte] & mask != 0
    }

    fn update(&mut self, index: usize, cx: &mut Ctx<A, W>) -> Status {
        let tree = self.runner.tree;
        let fresh = !self.is_running(index);
        let slot = tree.slot(self.def, index);
        let edge = tree.edges_of(self.def)[index];
        let status = self.runner.run_child(self.at, slot, edge, fresh, cx);
        self.set_installed(index, status == Status::Running);
        status
    }

    fn abort(&mut self, index: usize, cx: &mut Ctx<A, W>) {
        if self.is_running(index) {
            let tree = self.runner.tree;
            let slot = tree.slot(self.def, index);
            let edge = tree.edges_of(self.def)[index];
            self.runner.abort_child(self.at, slot, edge, cx);
            self.set_installed(index, false);
        }
    }
}
