//! Wait: Running for a number of ticks, then Success. Rules:
//! [`nodes`](super#waitn).
//!
//! Task state: the tick it was entered (4 bytes). In event mode it sleeps
//! until the tick it ends.

use super::Plain;
use super::timeout::{check_ticks, ticks_left, ticks_since_entry};
use crate::Params;
use crate::def::exec::{Exec, Visit, Wake, bytes};
use crate::def::kind::{Carry, Facts, Kind, Sched};
use crate::util::context::Ctx;
use crate::util::primitives::{Arity, MAX_TICKS};
use crate::util::status::Status;

/// Bytes of task state.
const OWN: usize = 4;

/// Running until `ticks` ticks have passed since it was entered, then
/// Success.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Wait {
    /// Ticks to wait.
    #[param(range = 0..=MAX_TICKS)]
    pub ticks: u32,
}

impl Plain for Wait {
    const ARITY: Arity = Arity::Leaf;
}

impl<A, W> Kind<A, W> for Wait {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            own: OWN as u32,
            sched: Sched::OnItsOwn,
            ..Facts::LEAF
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        check_ticks("Wait", self.ticks, 0)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        if ticks_since_entry(t.state_array::<OWN>(), visit.is_fresh(), cx.tick) >= self.ticks {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn next_running(
        &self,
        _state: &[u8],
        _children: usize,
        _from: usize,
    ) -> Option<(usize, usize)> {
        None
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        Wake::At(bytes::u32_at(t.state_array::<OWN>(), 0).wrapping_add(self.ticks))
    }

    fn carry(&self, old: &[u8], new: &mut [u8], _carry: &Carry<'_>) -> bool {
        new.copy_from_slice(old);
        true
    }

    fn describe(&self, state: &[u8], _children: usize, now: u32) -> String {
        ticks_left(state, self.ticks, now)
    }
}
