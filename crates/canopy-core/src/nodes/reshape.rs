//! Inverter, ForceSuccess and ForceFailure: one child, its finished status
//! reshaped. Rules: [`nodes`](super#inverter).
//!
//! No task state: a running one always has its child running, in its one
//! behavior slot.

use super::{Carry, Kind};
use crate::def::exec::{Exec, Visit, Wake, visit_child};
use crate::def::kind::{Facts, Sched, SlotPlan};
use crate::util::context::Ctx;
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

pub(super) struct Reshape {
    shape: fn(Status) -> Status,
    about: &'static str,
}

impl Reshape {
    pub(super) const INVERTER: Reshape = Reshape {
        shape: Status::invert,
        about: "swaps Success and Failure",
    };
    pub(super) const FORCE_SUCCESS: Reshape = Reshape {
        shape: |_| Status::Success,
        about: "a finished child counts as Success",
    };
    pub(super) const FORCE_FAILURE: Reshape = Reshape {
        shape: |_| Status::Failure,
        about: "a finished child counts as Failure",
    };
}

impl<A, W> Kind<A, W> for Reshape {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            arity: Arity::Decorator,
            about: self.about,
            own: 0,
            persist: 0,
            persist_ticks: false,
            slots: SlotPlan::Shared,
            sched: Sched::Passive,
            waits: 0,
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        None
    }

    fn enter<E: Exec<A, W>>(&self, _t: &mut E, _cx: &mut Ctx<A, W>) {}

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        match visit_child(t, visit, 0, 0, visit.is_fresh(), cx) {
            Status::Running => Status::Running,
            done => (self.shape)(done),
        }
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
