//! Parallel: every unfinished child each tick, decided by two policies.
//! Rules: [`nodes`](super#parallel).
//!
//! Task state: two bits per child — idle, running, succeeded, failed — so
//! a finished child keeps counting with its result and is never re-run.
//! Each child has its own behavior slot: they all run at once.

use super::Plain;
use crate::Params;
use crate::def::exec::{Exec, Visit, Wake, visit_child};
use crate::def::kind::{Carry, Facts, Kind, SlotPlan};
use crate::util::context::Ctx;
use crate::util::primitives::{Arity, Policy};
use crate::util::status::Status;

const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const SUCCEEDED: u8 = 2;
const FAILED: u8 = 3;

#[cfg_attr(not(debug_assertions), inline(always))]
fn code_of(status: Status) -> u8 {
    match status {
        Status::Running => RUNNING,
        Status::Success => SUCCEEDED,
        Status::Failure => FAILED,
    }
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn code(state: &[u8], child: usize) -> u8 {
    (state[child / 4] >> ((child % 4) * 2)) & 0b11
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn set_code(state: &mut [u8], child: usize, code: u8) {
    let cell = &mut state[child / 4];
    let shift = (child % 4) * 2;
    *cell = (*cell & !(0b11 << shift)) | (code << shift);
}

/// Updates every unfinished child each tick, in order; decided by the
/// success and failure policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Parallel {
    /// How many children must succeed.
    #[param(default = Policy::All)]
    pub success: Policy,
    /// How many children must fail.
    #[param(default = Policy::One)]
    pub failure: Policy,
}

impl Plain for Parallel {
    const ARITY: Arity = Arity::Composite;
}

impl Parallel {
    /// Whether `status` of one child decides the parallel at once.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn decides_alone(&self, status: Status) -> bool {
        match status {
            Status::Success => self.success == Policy::One,
            Status::Failure => self.failure == Policy::One,
            Status::Running => false,
        }
    }

    /// The event-driven reaction to child `child` finishing: what the full
    /// update would conclude, without visiting every child. A child that
    /// finished earlier would have decided a `One` policy then, so only
    /// this one can; and `All` needs every child finished. `None`: go on
    /// to the full decision.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn child_done<A, W, E: Exec<A, W>>(
        &self,
        t: &mut E,
        child: usize,
        status: Status,
        cx: &mut Ctx<A, W>,
    ) -> Option<Status> {
        set_code(t.state(), child, code_of(status));
        if self.decides_alone(status) {
            super::abort_running(self, t, cx);
            return Some(status);
        }
        let n = t.children();
        let state = t.state();
        let still_running = (0..n).any(|i| i != child && code(state, i) == RUNNING);
        still_running.then_some(Status::Running)
    }

    /// After every child had its say this tick: all failed, all
    /// succeeded, or all finished without meeting a policy (possible only
    /// with `All`/`All`), which fails because success can no longer come.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn decide(&self, n: usize, succeeded: usize, failed: usize) -> Option<Status> {
        if failed == n {
            Some(Status::Failure)
        } else if self.success == Policy::All && succeeded == n {
            Some(Status::Success)
        } else if succeeded + failed == n {
            Some(Status::Failure)
        } else {
            None
        }
    }
}

impl<A, W> Kind<A, W> for Parallel {
    fn facts(&self, children: usize) -> Facts {
        Facts {
            own: children.div_ceil(4) as u32,
            slots: SlotPlan::PerChild,
            ..Facts::COMPOSITE
        }
    }

    fn check(&self, children: usize) -> Option<String> {
        (children == 0).then(|| "a Parallel needs at least one child, got 0".to_string())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        if visit.is_fresh() {
            t.state().fill(IDLE);
        }
        if let Visit::ChildDone { child, status } = visit
            && let Some(reaction) = self.child_done(t, child as usize, status, cx)
        {
            return reaction;
        }
        let n = t.children();
        let (mut succeeded, mut failed) = (0, 0);
        let mut decided = None;
        for i in 0..n {
            let status = match code(t.state(), i) {
                SUCCEEDED => Status::Success,
                FAILED => Status::Failure,
                was => {
                    let status = visit_child(t, visit, i, i, was == IDLE, cx);
                    set_code(t.state(), i, code_of(status));
                    status
                }
            };
            match status {
                Status::Success => succeeded += 1,
                Status::Failure => failed += 1,
                Status::Running => {}
            }
            if self.decides_alone(status) {
                decided = Some(status);
                break;
            }
        }
        match decided.or_else(|| self.decide(n, succeeded, failed)) {
            Some(status) => {
                super::abort_running(self, t, cx);
                status
            }
            None => Status::Running,
        }
    }

    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)> {
        (from..children)
            .find(|&i| code(state, i) == RUNNING)
            .map(|i| (i, i))
    }

    fn valid(&self, state: &[u8], children: usize) -> bool {
        // After any update that leaves it running, one child at least still
        // runs; or, after a hot reload, one is yet to be entered.
        (0..children).any(|i| matches!(code(state, i), RUNNING | IDLE))
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        // Idle children (new, or lost by a hot reload) are entered on the
        // next update, as tick-from-root would.
        let n = t.children();
        let state = t.state();
        if (0..n).any(|i| code(state, i) == IDLE) {
            Wake::Restart
        } else {
            Wake::Pass
        }
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // Finished children keep their results where they went; running ones
        // run on if kept; the rest — lost or new — are idle, to be entered.
        for (i, to) in carry.to_new.iter().enumerate() {
            let Some(to) = to else { continue };
            let was = code(old, i);
            let now = match was {
                RUNNING if !carry.kept[i] => IDLE,
                was => was,
            };
            set_code(new, *to as usize, now);
        }
        true
    }

    fn describe(&self, state: &[u8], children: usize, _now: u32) -> String {
        let count = |c| (0..children).filter(|&i| code(state, i) == c).count();
        let mut text = format!(
            "{} running, {} succeeded, {} failed",
            count(RUNNING),
            count(SUCCEEDED),
            count(FAILED)
        );
        if count(IDLE) > 0 {
            text += &format!(", {} to enter", count(IDLE));
        }
        text
    }
}
