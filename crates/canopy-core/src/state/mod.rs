//! Per-agent state beyond the task memory: the table of suspended async
//! leaves ([`waits`]) and the event-driven schedule ([`schedule`]). Only
//! agents that need them have them — an agent of a tree with async leaves,
//! or one in event mode — so a plain tick-mode agent stays small.

pub(crate) mod schedule;
pub(crate) mod waits;

use crate::util::primitives::Mode;
use schedule::Schedule;
use waits::Waits;

/// The wait table's first capacity: past it, it grows once its peak needs.
const WAITS_CAP: usize = 1024;

/// The capacity a list made with room for `min(peak, cap)` entries has
/// once `peak` entries were pushed: it doubles from its first capacity.
fn peak_len(peak: usize, cap: usize) -> usize {
    let mut len = peak.min(cap);
    while len < peak {
        len = len.saturating_mul(2);
    }
    len
}

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
            waits: Waits::with_capacity((waits as usize).min(WAITS_CAP)),
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

    /// Heap bytes of this block at its largest, for a tree of `waits`
    /// async leaves and, in event mode, `frames` frames: each list starts
    /// at its capped capacity and grows by doubling to its peak.
    pub(crate) fn peak_bytes(waits: u32, frames: Option<u32>) -> usize {
        let table = peak_len(waits as usize, WAITS_CAP) * size_of::<waits::Entry>();
        let schedule = frames.map_or(0, |f| {
            size_of::<Schedule>()
                + peak_len(f as usize, schedule::FRAMES_CAP) * size_of::<schedule::Frame>()
        });
        size_of::<Extra>() + table + schedule
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let schedule = self
            .schedule
            .as_ref()
            .map_or(0, |s| size_of::<Schedule>() + s.heap_bytes());
        size_of::<Extra>() + self.waits.heap_bytes() + schedule
    }
}
