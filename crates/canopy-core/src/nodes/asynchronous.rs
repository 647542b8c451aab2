//! Async leaves: "running — wake me when this completes". Rules:
//! [`nodes`](super#async).
//!
//! Task state: the index of the agent's wait it is suspended on (4 bytes).
//! The start code runs once, on the first update, with the ticket; later
//! updates poll the wait (tick mode) or are skipped until the ticket is
//! completed (event mode). Ending the leaf, by finishing or by abort,
//! releases the wait, which makes its ticket stale.

use std::sync::Arc;

use super::Code;
use crate::def::exec::{Exec, Visit, Wake, bytes};
use crate::def::kind::{Carry, Facts, Kind, Sched};
use crate::util::context::{AsyncFn, Ctx};
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

/// Bytes of task state.
const OWN: usize = 4;

/// Leaf: user code called once, when the leaf is entered, with a
/// [`Ticket`](crate::Ticket); Running until the ticket is completed from
/// outside the tick.
pub struct Async<A, W>(pub AsyncFn<A, W>);

impl<A, W> Clone for Async<A, W> {
    fn clone(&self) -> Self {
        Async(Arc::clone(&self.0))
    }
}

impl<A, W> std::fmt::Debug for Async<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Async(…)")
    }
}

impl<A, W> Code for Async<A, W> {
    fn type_name(&self) -> &str {
        "Async"
    }
    fn about(&self) -> &'static str {
        "Starts work when entered and runs until its ticket is completed."
    }
    fn arity(&self) -> Arity {
        Arity::Leaf
    }
    fn shown(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

impl<A, W> Kind<A, W> for Async<A, W> {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            own: OWN as u32,
            sched: Sched::OnItsOwn,
            waits: 1,
            ..Facts::LEAF
        }
    }

    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        if !visit.is_fresh() {
            let index = bytes::u32_at(t.state_array::<OWN>(), 0);
            return match t.wait_outcome(index) {
                Some(Some(status)) => {
                    t.release_wait(index, false);
                    status
                }
                Some(None) => Status::Running,
                // Agents of trees with async leaves always have a wait
                // table; this is for one that is missing all the same.
                None => Status::Failure,
            };
        }
        let Some((index, ticket)) = t.claim_wait(cx) else {
            return Status::Failure;
        };
        bytes::set_u32_at(t.state_array::<OWN>(), 0, index);
        let status = (self.0)(cx, ticket);
        if status != Status::Running {
            t.release_wait(index, false);
        }
        status
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, _cx: &mut Ctx<A, W>) {
        // A leaf that finished released its wait in `update`.
        if exit == Exit::Aborted {
            let index = bytes::u32_at(t.state_array::<OWN>(), 0);
            t.release_wait(index, true);
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

    fn valid(&self, _state: &[u8], _children: usize) -> bool {
        // The wait index is checked against the agent's wait table.
        true
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        let index = bytes::u32_at(t.state_array::<OWN>(), 0);
        match t.wait_outcome(index) {
            None | Some(None) => Wake::Suspended(index),
            Some(Some(_)) => Wake::Always,
        }
    }

    fn holds_wait(&self, state: &[u8]) -> Option<u32> {
        Some(bytes::u32_at(state, 0))
    }

    fn carry(&self, old: &[u8], new: &mut [u8], _carry: &Carry<'_>) -> bool {
        new.copy_from_slice(old);
        true
    }

    fn describe(&self, _state: &[u8], _children: usize, _now: u32) -> String {
        "waiting for its ticket".to_string()
    }
}
