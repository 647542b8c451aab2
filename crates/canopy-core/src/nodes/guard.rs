//! Guard and ReactiveGuard: a condition in front of one child. Rules:
//! [`nodes`](super#guard).
//!
//! No task state: a running guard always has its child running. A Guard
//! checks once, when entered, so it passes ticks through in event mode; a
//! ReactiveGuard checks every tick, so its child runs tick-from-root.

use super::{Carry, Kind};
use crate::def::exec::{Exec, Visit, Wake, visit_child};
use crate::def::kind::{Facts, Sched, SlotPlan};
use crate::util::context::{ConditionFn, Ctx};
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

pub(super) struct Guard<'k, A, W> {
    pub(super) check: &'k ConditionFn<A, W>,
}

pub(super) struct ReactiveGuard<'k, A, W> {
    pub(super) check: &'k ConditionFn<A, W>,
}

fn facts(about: &'static str, sched: Sched) -> Facts {
    Facts {
        arity: Arity::Decorator,
        about,
        own: 0,
        persist: 0,
        persist_ticks: false,
        slots: SlotPlan::Shared,
        sched,
        waits: 0,
    }
}

impl<A, W> Kind<A, W> for Guard<'_, A, W> {
    fn facts(&self, _children: usize) -> Facts {
        facts(
            "enters the child only if the condition holds when the guard is entered",
            Sched::Passive,
        )
    }

    fn check(&self, _children: usize) -> Option<String> {
        None
    }

    fn enter<E: Exec<A, W>>(&self, _t: &mut E, _cx: &mut Ctx<A, W>) {}

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if fresh && !(self.check)(cx) {
            return Status::Failure;
        }
        visit_child(t, visit, 0, 0, fresh, cx)
    }

    fn end<E: Exec<A, W>>(&self, _t: &mut E, _exit: Exit, _cx: &mut Ctx<A, W>) {}

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        (from == 0).then_some((0, 0))
    }

    fn valid(&self, _state: &[u8], _children: usize) -> bool {
        true
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        Wake::Pass
    }

    fn holds_wait(&self, _state: &[u8]) -> Option<u32> {
        None
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // Its one child is its reason to run: without it, it is lost too.
        new.copy_from_slice(old);
        carry.kept_at(0).is_some()
    }

    fn describe(&self, _state: &[u8], _children: usize, _now: u32) -> String {
        String::new()
    }
}

impl<A, W> Kind<A, W> for ReactiveGuard<'_, A, W> {
    fn facts(&self, _children: usize) -> Facts {
        facts(
            "re-checks the condition every tick and aborts the child when it fails",
            Sched::EveryTick,
        )
    }

    fn check(&self, _children: usize) -> Option<String> {
        None
    }

    fn enter<E: Exec<A, W>>(&self, _t: &mut E, _cx: &mut Ctx<A, W>) {}

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if !(self.check)(cx) {
            if !fresh {
                t.abort(0, 0, cx);
            }
            return Status::Failure;
        }
        t.run(0, 0, fresh, cx)
    }

    fn end<E: Exec<A, W>>(&self, _t: &mut E, _exit: Exit, _cx: &mut Ctx<A, W>) {}

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        (from == 0).then_some((0, 0))
    }

    fn valid(&self, _state: &[u8], _children: usize) -> bool {
        true
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        Wake::Always
    }

    fn holds_wait(&self, _state: &[u8]) -> Option<u32> {
        None
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // Its one child is its reason to run: without it, it is lost too.
        new.copy_from_slice(old);
        carry.kept_at(0).is_some()
    }

    fn describe(&self, _state: &[u8], _children: usize, _now: u32) -> String {
        String::new()
    }
}
