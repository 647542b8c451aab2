//! Per-agent state beyond the task memory: the table of suspended async
//! leaves ([`waits`]) and the event-driven schedule ([`schedule`]). Only
//! agents that need them have them — an agent of a tree with async leaves,
//! or one in event mode — so a plain tick-mode agent stays small.

pub(crate) mod schedule;
pub(crate) mod waits;

use crate::util::primitives::Mode;
use schedule::Schedule;
use waits::Waits;

/// The parts of an agent's runtime that not every agent needs.
#[derive(Clone, Debug)]
pub(crate) struct Extra {
    pub(crate) waits: Waits,
    /// Only in event mode: boxed, so that a tick-mode agent with async
    /// leaves does not carry an empty schedule's ~50 bytes.
    pub(crate) schedule: Option<Box<Schedule>>,
    pub(crate) mode: Mode,
}

impl Extra {
    /// Room for `waits` suspended async leaves (capped; past the cap the
    /// table grows once, to its peak). The schedule's memory comes when
    /// event mode is first set.
    pub(crate) fn new(waits: u32) -> Box<Extra> {
        Box::new(Extra {
            waits: Waits::with_capacity((waits as usize).min(1024)),
            schedule: None,
            mode: Mode::Tick,
        })
    }

    /// Heap bytes of the wait table (with this block, which exists for it
    /// or for the schedule) and of the schedule.
    pub(crate) fn heap_parts(&self) -> (usize, usize) {
        let schedule = self
            .schedule
            .as_ref()
            .map_or(0, |s| size_of::<Schedule>() + s.heap_bytes());
        (size_of::<Extra>() + self.waits.heap_bytes(), schedule)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let schedule = self
            .schedule
            .as_ref()
            .map_or(0, |s| size_of::<Schedule>() + s.heap_bytes());
        size_of::<Extra>() + self.waits.heap_bytes() + schedule
    }
}
