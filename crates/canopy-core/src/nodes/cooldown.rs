//! Cooldown: after its child ends, the node refuses for a while. Rules:
//! [`nodes`](super#cooldownn).
//!
//! No task state; 4 bytes of persistent memory per place in the tree: the
//! tick from which it may be entered again. A tick that has been reached
//! means "free"; a new agent's memory is zero, which its clock (starting at
//! 0) has reached. The agent moves reached ticks up to the present now and
//! then (see `Agent::tick`), so a stored tick never ages past the range
//! where wrapping tick comparisons are exact.

use super::Plain;
use super::timeout::check_ticks;
use crate::Params;
use crate::def::exec::{Exec, Visit, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind, one_child};
use crate::util::context::Ctx;
use crate::util::primitives::{Arity, MAX_TICKS, reached};
use crate::util::status::{Exit, Status};

/// Bytes of persistent memory: the tick from which the node may be entered again.
const PERSIST: usize = 4;

/// After the child ends, fails for the next `ticks` ticks without running
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Cooldown {
    /// Ticks to cool down.
    #[param(range = 1..=MAX_TICKS)]
    pub ticks: u32,
}

impl Plain for Cooldown {
    const ARITY: Arity = Arity::Decorator;
}

impl Cooldown {
    /// The child ended (finished or was aborted) at tick `now`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn start<A, W, E: Exec<A, W>>(&self, t: &mut E, now: u32) {
        let ready_at = now.wrapping_add(self.ticks).wrapping_add(1);
        bytes::set_u32_at(t.persist::<PERSIST>(), 0, ready_at);
    }
}

impl<A, W> Kind<A, W> for Cooldown {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            persist: PERSIST as u32,
            persist_ticks: true,
            ..Facts::DECORATOR
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        check_ticks("Cooldown", self.ticks, 1)
    }

    fn persist_valid(&self, persist: &[u8], _children: usize, now: u32) -> bool {
        // Set when the child ended, at `now` at the latest, to the tick
        // after `ticks` more: never further ahead than that. (A tick
        // reached long ago is "free", whatever it is.)
        let ahead = bytes::u32_at(persist, 0).wrapping_sub(now) as i32;
        ahead <= self.ticks as i32 + 1
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if fresh && !reached(cx.tick, bytes::u32_at(t.persist::<PERSIST>(), 0)) {
            return Status::Failure;
        }
        let status = visit_child(t, visit, 0, 0, fresh, cx);
        if status != Status::Running {
            self.start(t, cx.tick);
        }
        status
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, cx: &mut Ctx<A, W>) {
        // A child that finished started the cooldown in `update`; one that
        // was aborted starts it here. (A refusal ran no child: no cooldown.)
        if exit == Exit::Aborted {
            self.start(t, cx.tick);
        }
    }

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        one_child::next_running(from)
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        one_child::carry(old, new, carry)
    }
}
