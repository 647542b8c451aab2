//! The leaves without state: Action, Condition and the constants. Rules:
//! [`nodes`](super#action).
//!
//! They need no task memory, so the engine runs them without touching the
//! agent's memory at all ([`stateless`]): the hot case of conditions
//! re-checked every tick costs a call and an event or two.

use super::{Carry, Kind};
use crate::def::exec::{Exec, Visit, Wake};
use crate::def::kind::{Facts, NodeKind, Sched, SlotPlan};
use crate::util::context::{ActionFn, ConditionFn, Ctx};
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

/// Action, Condition, AlwaysSuccess, AlwaysFailure and AlwaysRunning.
pub(crate) enum Leaf<'k, A, W> {
    Action(&'k ActionFn<A, W>),
    Condition(&'k ConditionFn<A, W>),
    Constant(Status),
}

/// The kind as a leaf without state, if it is one: the engine runs those
/// without touching the agent's memory.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn stateless<A, W>(kind: &NodeKind<A, W>) -> Option<Leaf<'_, A, W>> {
    match kind {
        NodeKind::Action(f) => Some(Leaf::Action(f)),
        NodeKind::Condition(f) => Some(Leaf::Condition(f)),
        NodeKind::AlwaysSuccess => Some(Leaf::Constant(Status::Success)),
        NodeKind::AlwaysFailure => Some(Leaf::Constant(Status::Failure)),
        NodeKind::AlwaysRunning => Some(Leaf::Constant(Status::Running)),
        _ => None,
    }
}

impl<A, W> Leaf<'_, A, W> {
    /// The leaf's status this update.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn run(&self, cx: &mut Ctx<A, W>) -> Status {
        match self {
            Leaf::Action(f) => f(cx),
            Leaf::Condition(f) => Status::from_bool(f(cx)),
            Leaf::Constant(status) => *status,
        }
    }
}

impl<A, W> Kind<A, W> for Leaf<'_, A, W> {
    fn facts(&self, _children: usize) -> Facts {
        let (about, sched) = match self {
            Leaf::Action(_) => ("user code returning a status", Sched::EveryTick),
            Leaf::Condition(_) => (
                "user code returning true (Success) or false (Failure)",
                Sched::EveryTick,
            ),
            Leaf::Constant(Status::Success) => ("always Success", Sched::EveryTick),
            Leaf::Constant(Status::Failure) => ("always Failure", Sched::EveryTick),
            Leaf::Constant(Status::Running) => ("always Running", Sched::OnItsOwn),
        };
        Facts {
            arity: Arity::Leaf,
            about,
            own: 0,
            persist: 0,
            persist_ticks: false,
            slots: SlotPlan::None,
            sched,
            waits: 0,
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        None
    }

    fn enter<E: Exec<A, W>>(&self, _t: &mut E, _cx: &mut Ctx<A, W>) {}

    fn update<E: Exec<A, W>>(&self, _t: &mut E, _visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        self.run(cx)
    }

    fn end<E: Exec<A, W>>(&self, _t: &mut E, _exit: Exit, _cx: &mut Ctx<A, W>) {}

    fn next_running(
        &self,
        _state: &[u8],
        _children: usize,
        _from: usize,
    ) -> Option<(usize, usize)> {
        None
    }

    fn valid(&self, _state: &[u8], _children: usize) -> bool {
        true
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        match self {
            Leaf::Constant(Status::Running) => Wake::Never,
            _ => Wake::Always,
        }
    }

    fn holds_wait(&self, _state: &[u8]) -> Option<u32> {
        None
    }

    fn carry(&self, old: &[u8], new: &mut [u8], _carry: &Carry<'_>) -> bool {
        new.copy_from_slice(old);
        true
    }

    fn describe(&self, _state: &[u8], _children: usize, _now: u32) -> String {
        String::new()
    }
}
