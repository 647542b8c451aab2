//! Async leaves: "running — wake me when this completes". Rules:
//! [`nodes`](super#async).
//!
//! Task state: the index of the agent's wait it is suspended on (4 bytes).
//! The start code runs once, on the first update, with the ticket; later
//! updates poll the wait (tick mode) or are skipped until the ticket is
//! completed (event mode). Ending the leaf, by finishing or by abort,
//! releases the wait, which makes its ticket stale.
//!
//! **Hearing the abort.** A leaf may carry a second piece of code, run when
//! it is aborted while it waits — a higher-priority branch took over, a
//! Timeout fired, the agent was reset, a reload removed the leaf — with
//! the ticket it was started with, so that the service working on the
//! request can drop it (BehaviorTree.CPP's `onHalted`). It runs in the
//! leaf's `end`, where every abort of every mode passes, once per abort,
//! deepest task first like every terminate hook, and never for a leaf
//! that finished (its result was taken). A leaf without it pays nothing:
//! the hook is looked at only when an async leaf is aborted. The engine
//! also tells the tick's [`Observer`](crate::Observer)
//! ([`Observer::wait_aborted`](crate::Observer::wait_aborted)), for every
//! async leaf, so that an integration (canopy-bevy's `WaitAborted`
//! message) can report aborts without the game writing the hook.
//!
//! Rejected: a per-agent queue of aborted tickets for the game to drain.
//! It would cost every agent with async leaves memory and a bound (what
//! when nobody drains it?), and the game would learn of the abort only
//! after the tick, where the hook can act at once, with the agent's data
//! at hand, in the thread that ticks it.

use std::sync::Arc;

use super::Code;
use crate::def::exec::{Exec, Visit, Wake, bytes};
use crate::def::kind::{Carry, Facts, Kind, Sched};
use crate::util::context::{AbortFn, AsyncFn, Ctx};
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};
use crate::util::ticket::Ticket;

/// Bytes of task state.
const OWN: usize = 4;

/// Leaf: user code called once, when the leaf is entered, with a
/// [`Ticket`](crate::Ticket); Running until the ticket is completed from
/// outside the tick. Optionally, code called when it is aborted while it
/// waits ([`on_abort`](Async::on_abort)).
pub struct Async<A, W> {
    start: AsyncFn<A, W>,
    aborted: Option<AbortFn<A, W>>,
}

impl<A, W> Async<A, W> {
    /// An async leaf running `start` when it is entered: see
    /// [`AsyncFn`].
    pub fn new<F>(start: F) -> Self
    where
        F: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
    {
        Async {
            start: Arc::new(start),
            aborted: None,
        }
    }

    /// The same leaf, running `aborted` whenever it is aborted while it
    /// waits (see [`AbortFn`]).
    pub fn on_abort<G>(mut self, aborted: G) -> Self
    where
        G: Fn(&mut Ctx<A, W>, Ticket) + Send + Sync + 'static,
    {
        self.aborted = Some(Arc::new(aborted));
        self
    }

    /// Whether the leaf has code for its abort.
    pub fn hears_abort(&self) -> bool {
        self.aborted.is_some()
    }
}

impl<A, W> Clone for Async<A, W> {
    fn clone(&self) -> Self {
        Async {
            start: Arc::clone(&self.start),
            aborted: self.aborted.clone(),
        }
    }
}

impl<A, W> std::fmt::Debug for Async<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Async")
            .field("hears_abort", &self.hears_abort())
            .finish_non_exhaustive()
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
        let status = (self.start)(cx, ticket);
        if status != Status::Running {
            t.release_wait(index, false);
        }
        status
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, cx: &mut Ctx<A, W>) {
        // A leaf that finished released its wait in `update`.
        if exit == Exit::Aborted {
            let index = bytes::u32_at(t.state_array::<OWN>(), 0);
            self.aborted(t, index, cx);
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

impl<A, W> Async<A, W> {
    /// The leaf is aborted while it holds wait `index`: release it, then
    /// tell the observer and the leaf's own code, with the ticket.
    #[inline(never)]
    fn aborted<E: Exec<A, W>>(&self, t: &mut E, index: u32, cx: &mut Ctx<A, W>) {
        let held = t.held_wait(index, cx.id);
        t.release_wait(index, true);
        let Some(ticket) = held else {
            return;
        };
        t.wait_aborted(ticket);
        if let Some(aborted) = &self.aborted {
            aborted(cx, ticket);
        }
    }
}
