//! User node types ([`Node`](crate::Node)), run through the same
//! interface as the built-in kinds. Rules: [`nodes`](super#custom).
//!
//! Task state: the user's task, then one "installed" bit per child. Each
//! child has its own behavior slot, since the node decides which run.

use super::{Code, NodeKind};
use crate::def::custom::{ChildRunner, CustomNode, Host, MAX_TASK_BYTES};
use crate::def::exec::{Exec, Visit, Wake};
use crate::def::kind::{Carry, Facts, Kind, Sched, SlotPlan};
use crate::util::context::Ctx;
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

impl<A, W> Code for CustomNode<A, W> {
    fn type_name(&self) -> &str {
        CustomNode::type_name(self)
    }
    fn about(&self) -> &'static str {
        "A node type of the user's own, with its own task."
    }
    fn arity(&self) -> Arity {
        CustomNode::arity(self)
    }
    fn shown(&self) -> Vec<(String, String)> {
        self.params()
    }
}

/// The node as a user leaf — a [`Node`](crate::Node) without children —
/// if it is one: the engine runs those without the general task path, its
/// create, update and terminate in one call into the user's code when
/// nothing observes the tick.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn user_leaf<A, W>(kind: &NodeKind<A, W>, children: u32) -> Option<&CustomNode<A, W>> {
    match kind {
        NodeKind::Custom(node) if children == 0 => Some(node),
        _ => None,
    }
}

/// Whether child `index` is installed, from the bits after the task.
#[cfg_attr(not(debug_assertions), inline(always))]
fn installed(state: &[u8], size: usize, index: usize) -> bool {
    state[size + index / 8] & (1 << (index % 8)) != 0
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn set_installed(state: &mut [u8], size: usize, index: usize, on: bool) {
    let cell = &mut state[size + index / 8];
    let mask = 1 << (index % 8);
    if on {
        *cell |= mask;
    } else {
        *cell &= !mask;
    }
}

/// A custom task with children, lent to the user's update.
struct CustomHost<'e, E> {
    t: &'e mut E,
    size: usize,
}

impl<A, W, E: Exec<A, W>> ChildRunner<A, W> for CustomHost<'_, E> {
    fn len(&self) -> usize {
        self.t.children()
    }

    fn is_running(&mut self, index: usize) -> bool {
        installed(self.t.state(), self.size, index)
    }

    fn update(&mut self, index: usize, cx: &mut Ctx<A, W>) -> Status {
        let fresh = !installed(self.t.state(), self.size, index);
        let status = self.t.run(index, index, fresh, cx);
        set_installed(self.t.state(), self.size, index, status == Status::Running);
        status
    }

    fn abort(&mut self, index: usize, cx: &mut Ctx<A, W>) {
        if installed(self.t.state(), self.size, index) {
            self.t.abort(index, index, cx);
            set_installed(self.t.state(), self.size, index, false);
        }
    }
}

impl<A, W, E: Exec<A, W>> Host<A, W> for CustomHost<'_, E> {
    fn task(&mut self) -> &mut [u8] {
        &mut self.t.state()[..self.size]
    }

    fn children(&mut self) -> &mut dyn ChildRunner<A, W> {
        self
    }
}

impl<A, W> Kind<A, W> for CustomNode<A, W> {
    fn facts(&self, children: usize) -> Facts {
        Facts {
            // Saturating: an oversized task is refused by `check`.
            own: (self.task_size() + children.div_ceil(8))
                .try_into()
                .unwrap_or(u32::MAX),
            persist: 0,
            persist_ticks: false,
            slots: SlotPlan::PerChild,
            sched: Sched::EveryTick,
            waits: 0,
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        (self.task_size() > MAX_TASK_BYTES).then(|| {
            format!(
                "the task of a {} is {} bytes, more than the limit of {MAX_TASK_BYTES}",
                self.type_name(),
                self.task_size()
            )
        })
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enter<E: Exec<A, W>>(&self, t: &mut E, cx: &mut Ctx<A, W>) {
        let size = self.task_size();
        let state = t.state();
        if state.len() > size {
            // No child is installed yet.
            state[size..].fill(0);
        }
        self.create(&mut state[..size], cx);
    }

    fn update<E: Exec<A, W>>(&self, t: &mut E, _visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let size = self.task_size();
        if t.children() == 0 {
            // A leaf runs nothing else, so it works on its task in place.
            return self.run_leaf(&mut t.state()[..size], false, false, cx);
        }
        self.update_with(&mut CustomHost { t, size }, cx)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, cx: &mut Ctx<A, W>) {
        if exit != Exit::Aborted {
            // Children it left running go first; when aborted, the engine
            // has already aborted them.
            super::abort_running(self, t, cx);
        }
        let size = self.task_size();
        self.terminate(&mut t.state()[..size], cx, exit);
    }

    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)> {
        let size = self.task_size();
        (from..children)
            .find(|&i| installed(state, size, i))
            .map(|i| (i, i))
    }

    fn valid(&self, state: &[u8], _children: usize) -> bool {
        // Every installed bit below the child count names a child; the
        // user's task is the user's to judge.
        self.task_is_valid(&state[..self.task_size()])
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        Wake::Always
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // The user's task as it was; each kept child's bit where it went.
        let size = self.task_size();
        new[..size].copy_from_slice(&old[..size]);
        for old_child in 0..carry.kept.len() {
            if let Some(at) = carry.kept_at(old_child)
                && installed(old, size, old_child)
            {
                set_installed(new, size, at, true);
            }
        }
        true
    }

    fn describe(&self, state: &[u8], _children: usize, _now: u32) -> String {
        self.describe(&state[..self.task_size()])
            .unwrap_or_default()
    }
}
