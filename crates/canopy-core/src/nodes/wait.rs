//! Wait: Running for a number of ticks, then Success. Rules:
//! [`nodes`](super#waitn).
//!
//! Task state: the tick it was entered (4 bytes). In event mode it sleeps
//! until the tick it ends.

use super::timeout::{check_ticks, ticks_left, ticks_since_entry};
use super::{Carry, Kind};
use crate::def::exec::{Exec, Visit, Wake, bytes};
use crate::def::kind::{Facts, Sched, SlotPlan};
use crate::util::context::Ctx;
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

/// Bytes of task state.
const OWN: usize = 4;

pub(super) struct Wait {
    pub(super) ticks: u32,
}

impl<A, W> Kind<A, W> for Wait {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            arity: Arity::Leaf,
            about: "Running until `ticks` ticks have passed since it was entered, then Success",
            own: OWN as u32,
            persist: 0,
            persist_ticks: false,
            slots: SlotPlan::None,
            sched: Sched::OnItsOwn,
            waits: 0,
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        check_ticks("Wait", self.ticks, 0)
    }

    fn enter<E: Exec<A, W>>(&self, _t: &mut E, _cx: &mut Ctx<A, W>) {}

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        if ticks_since_entry(t.state_array::<OWN>(), visit.is_fresh(), cx.tick) >= self.ticks {
            Status::Success
        } else {
            Status::Running
        }
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

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        Wake::At(bytes::u32_at(t.state_array::<OWN>(), 0).wrapping_add(self.ticks))
    }

    fn holds_wait(&self, _state: &[u8]) -> Option<u32> {
        None
    }

    fn carry(&self, old: &[u8], new: &mut [u8], _carry: &Carry<'_>) -> bool {
        new.copy_from_slice(old);
        true
    }

    fn describe(&self, state: &[u8], _children: usize, now: u32) -> String {
        ticks_left(state, self.ticks, now)
    }
}
