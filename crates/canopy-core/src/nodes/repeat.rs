//! Repeat and Retry: the child run to completion again and again, one
//! cycle per tick at most. Rules: [`nodes`](super#repeatn).
//!
//! Task state (5 bytes): completed cycles (a `u32`, so every count up to
//! `u32::MAX` is exact) and whether the child is installed. Between cycles
//! it is not: the next update installs it afresh.

use crate::Params;
use crate::def::exec::{Exec, Visit, Wake, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind};
use crate::util::context::Ctx;
use crate::util::status::Status;

/// Bytes of task state.
const OWN: usize = 5;

/// Runs the child to success `times` times, one completion per tick;
/// fails if it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Repeat {
    /// Successes needed.
    #[param(range = 1..)]
    pub times: u32,
}

/// Re-runs a failing child on the next tick, up to `times` attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Retry {
    /// Attempts in all.
    #[param(range = 1..)]
    pub times: u32,
}

members!(Decorator, Cycles:
    Repeat => |k| Cycles { times: k.times, counts: Status::Success },
    Retry => |k| Cycles { times: k.times, counts: Status::Failure },
);

/// The family: a child ending with `counts` is a completed cycle; after
/// `times` cycles the node ends with that status; a child ending otherwise
/// ends the node.
#[derive(Clone, Copy)]
pub(crate) struct Cycles {
    times: u32,
    counts: Status,
}

impl Cycles {
    fn name(&self) -> &'static str {
        if self.counts == Status::Success {
            "Repeat"
        } else {
            "Retry"
        }
    }
}

/// Completed cycles and whether the child is installed.
#[cfg_attr(not(debug_assertions), inline(always))]
fn read(state: &[u8]) -> (u32, bool) {
    (bytes::u32_at(state, 0), state[4] != 0)
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn write(state: &mut [u8], cycles: u32, installed: bool) {
    bytes::set_u32_at(state, 0, cycles);
    state[4] = u8::from(installed);
}

impl<A, W> Kind<A, W> for Cycles {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            own: OWN as u32,
            ..Facts::DECORATOR
        }
    }

    fn check(&self, _children: usize) -> Option<String> {
        (self.times == 0).then(|| format!("a {} needs a count of at least 1, got 0", self.name()))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let (cycles, installed) = if visit.is_fresh() {
            (0, false)
        } else {
            read(t.state_array::<OWN>())
        };
        let status = visit_child(t, visit, 0, 0, !installed, cx);
        if status == Status::Running {
            write(t.state_array::<OWN>(), cycles, true);
            return Status::Running;
        }
        if status != self.counts {
            return status;
        }
        // `cycles < times`, so this cannot overflow.
        let cycles = cycles + 1;
        if cycles >= self.times {
            return status;
        }
        write(t.state_array::<OWN>(), cycles, false);
        Status::Running
    }

    fn next_running(&self, state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        (read(state).1 && from == 0).then_some((0, 0))
    }

    fn valid(&self, state: &[u8], _children: usize) -> bool {
        let (cycles, _) = read(state);
        cycles < self.times && state[4] <= 1
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        if read(t.state_array::<OWN>()).1 {
            Wake::Pass
        } else {
            Wake::Restart
        }
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // A lost child is re-entered for the same cycle; the count may now
        // be out of range (fewer `times`), which `valid` refuses.
        let (cycles, installed) = read(old);
        write(new, cycles, installed && carry.kept_at(0).is_some());
        true
    }

    fn describe(&self, state: &[u8], _children: usize, _now: u32) -> String {
        let (cycles, installed) = read(state);
        let what = if self.counts == Status::Success {
            "succeeded"
        } else {
            "failed"
        };
        let child = if installed {
            "child running"
        } else {
            "child restarts next tick"
        };
        format!("{cycles} of {} {what}; {child}", self.times)
    }
}
