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
    pub(crate) schedule: Schedule,
    pub(crate) mode: Mode,
}

impl Extra {
    /// Room for `waits` suspended async leaves (capped; past the cap the
    /// table grows once, to its peak). The schedule's memory comes when
    /// event mode is first set.
    pub(crate) fn new(waits: u32) -> Box<Extra> {
        Box::new(Extra {
            waits: Waits::with_capacity((waits as usize).min(1024)),
            schedule: Schedule::default(),
            mode: Mode::Tick,
        })
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        size_of::<Extra>() + self.waits.heap_bytes() + self.schedule.heap_bytes()
    }
}
