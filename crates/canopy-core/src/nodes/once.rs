//! RunOnce: runs its child to the end once per agent, then answers without
//! it. Rules: [`nodes`](super#runoncethen).
//!
//! No task state; 4 bytes of persistent memory per place in the tree: 0
//! while the child has not run to the end, then 1 (it succeeded) or 2 (it
//! failed). A plain word, not a tick. Any other value, which only damaged
//! bytes could hold, reads as 0: the child runs again, which is a sensible
//! outcome, never a misread one.

use super::Plain;
use crate::Params;
use crate::def::exec::{Exec, Visit, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind, one_child};
use crate::util::context::Ctx;
use crate::util::primitives::{Afterwards, Arity};
use crate::util::status::{Exit, Status};

/// Bytes of persistent memory: how the child's one run ended.
const PERSIST: usize = 4;

/// The persistent word once the child succeeded.
const SUCCEEDED: u32 = 1;
/// The persistent word once the child failed.
const FAILED: u32 = 2;

/// Runs the child to the end once per agent; afterwards returns `then`
/// without running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct RunOnce {
    /// What later activations return: the child's status, success or failure.
    #[param(default = Afterwards::Same)]
    pub then: Afterwards,
}

impl Plain for RunOnce {
    const ARITY: Arity = Arity::Decorator;
}

impl RunOnce {
    /// What an activation after the run returns, if the child has run.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn answer(&self, word: u32) -> Option<Status> {
        let ended = match word {
            SUCCEEDED => Status::Success,
            FAILED => Status::Failure,
            _ => return None,
        };
        Some(match self.then {
            Afterwards::Same => ended,
            Afterwards::Success => Status::Success,
            Afterwards::Failure => Status::Failure,
        })
    }
}

impl<A, W> Kind<A, W> for RunOnce {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            persist: PERSIST as u32,
            ..Facts::DECORATOR
        }
    }

    fn persist_valid(&self, persist: &[u8], _children: usize, _now: u32) -> bool {
        matches!(bytes::u32_at(persist, 0), 0 | SUCCEEDED | FAILED)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if fresh && let Some(status) = self.answer(bytes::u32_at(t.persist::<PERSIST>(), 0)) {
            return status;
        }
        let status = visit_child(t, visit, 0, 0, fresh, cx);
        let word = match status {
            Status::Running => return status,
            Status::Success => SUCCEEDED,
            Status::Failure => FAILED,
        };
        bytes::set_u32_at(t.persist::<PERSIST>(), 0, word);
        status
    }

    fn end<E: Exec<A, W>>(&self, _t: &mut E, _exit: Exit, _cx: &mut Ctx<A, W>) {
        // An aborted run did not reach the end: nothing to remember.
    }

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        one_child::next_running(from)
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        one_child::carry(old, new, carry)
    }
}
