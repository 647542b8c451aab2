//! Timeout: the child gets a number of ticks, then is aborted. Rules:
//! [`nodes`](super#timeoutn).
//!
//! Task state: the tick it was entered (4 bytes). In event mode it passes
//! ticks through to its child until its deadline.

use super::Plain;
use crate::Params;
use crate::def::exec::{Exec, Visit, Wake, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind, one_child};
use crate::util::context::Ctx;
use crate::util::primitives::{Arity, MAX_TICKS};
use crate::util::status::Status;

/// Bytes of task state.
const OWN: usize = 4;

/// Fails and aborts the child once it has run `ticks` ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Timeout {
    /// Ticks the child gets.
    #[param(range = 1..=MAX_TICKS)]
    pub ticks: u32,
}

impl Plain for Timeout {
    const ARITY: Arity = Arity::Decorator;
}

/// Ticks since the task of a timed node (Timeout, Wait) was entered; its
/// state is the tick of entry, recorded on the first update.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn ticks_since_entry(state: &mut [u8], fresh: bool, now: u32) -> u32 {
    if fresh {
        bytes::set_u32_at(state, 0, now);
        return 0;
    }
    now.wrapping_sub(bytes::u32_at(state, 0))
}

/// What is wrong with a duration, if anything.
pub(super) fn check_ticks(kind: &str, ticks: u32, min: u32) -> Option<String> {
    if ticks < min {
        Some(format!(
            "a {kind} needs a duration of at least {min} tick, got {ticks}"
        ))
    } else if ticks > MAX_TICKS {
        Some(format!(
            "a {kind} of {ticks} ticks is longer than the limit of {MAX_TICKS} (2^31 - 1) ticks"
        ))
    } else {
        None
    }
}

/// `"N ticks left"` for a timed task entered at the tick in `state`.
pub(super) fn ticks_left(state: &[u8], ticks: u32, now: u32) -> String {
    let elapsed = now.wrapping_sub(bytes::u32_at(state, 0));
    match ticks.saturating_sub(elapsed) {
        1 => "1 tick left".to_string(),
        left => format!("{left} ticks left"),
    }
}

impl<A, W> Kind<A, W> for Timeout {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            own: OWN as u32,
            ..Facts::DECORATOR
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        check_ticks("Timeout", self.ticks, 1)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if ticks_since_entry(t.state_array::<OWN>(), fresh, cx.tick) >= self.ticks {
            // Only reachable after the first update (ticks ≥ 1), so the
            // child is installed and running.
            t.abort(0, 0, cx);
            return Status::Failure;
        }
        visit_child(t, visit, 0, 0, fresh, cx)
    }

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        one_child::next_running(from)
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        Wake::Deadline(bytes::u32_at(t.state_array::<OWN>(), 0).wrapping_add(self.ticks))
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        one_child::carry(old, new, carry)
    }

    fn describe(&self, state: &[u8], _children: usize, now: u32) -> String {
        ticks_left(state, self.ticks, now)
    }
}
