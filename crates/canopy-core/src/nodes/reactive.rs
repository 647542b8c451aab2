//! ReactiveSequence and ReactiveSelector: the children before the running
//! one are re-checked every tick. Rules: [`nodes`](super#reactivesequence).
//!
//! Task state (2 bytes): the running child + 1 in the low 15 bits (0: none)
//! and, in the top bit, which of the two behavior slots holds it. A child
//! re-checked while another runs goes in the other slot, so the running
//! child keeps its memory until the re-checked one turns out to take over.

use crate::Params;
use crate::def::exec::{Exec, Visit, Wake, bytes};
use crate::def::kind::{Carry, Facts, Kind, Sched, SlotPlan};
use crate::util::context::Ctx;
use crate::util::status::Status;

/// Re-checks the children before the running one every tick, from the
/// first; aborts the running child when an earlier one fails or runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct ReactiveSequence;

/// A priority selector: re-tries the children before the running one
/// every tick, from the first; aborts the running child when an earlier
/// one succeeds or runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct ReactiveSelector;

members!(Composite, Reactive:
    ReactiveSequence => |_| Reactive::SEQUENCE,
    ReactiveSelector => |_| Reactive::SELECTOR,
);

/// Bytes of task state.
const OWN: usize = 2;

#[derive(Clone, Copy)]
pub(crate) struct Reactive {
    go_on: Status,
}

impl Reactive {
    pub(super) const SEQUENCE: Reactive = Reactive {
        go_on: Status::Success,
    };
    pub(super) const SELECTOR: Reactive = Reactive {
        go_on: Status::Failure,
    };
}

/// The running child and its slot, from the task state.
#[cfg_attr(not(debug_assertions), inline(always))]
fn running(state: &[u8]) -> Option<(usize, usize)> {
    let word = bytes::u16_at(state, 0);
    let child = ((word & 0x7fff) as usize).checked_sub(1)?;
    Some((child, (word >> 15) as usize))
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn encode(child: usize, slot: usize) -> u16 {
    (child as u16 + 1) | ((slot as u16) << 15)
}

impl<A, W> Kind<A, W> for Reactive {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            own: OWN as u32,
            persist: 0,
            persist_ticks: false,
            slots: SlotPlan::Reactive,
            sched: Sched::EveryTick,
            waits: 0,
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let n = t.children();
        let fresh = visit.is_fresh();
        let current = match fresh {
            true => None,
            false => running(t.state_array::<OWN>()),
        };
        // The running child, resumed (`usize::MAX`: none), the children
        // before it, re-checked (none when none runs), and its slot. A
        // running child that now finishes needs no forgetting: the children
        // after it are entered in slot 0 and abort nothing either way.
        let (resumed, rechecked, running_slot) = match current {
            Some((r, slot)) => (r, r, slot),
            None => (usize::MAX, 0, 0),
        };
        for k in 0..n {
            // The running child stays where it is; a child re-checked while
            // it runs goes in the other slot; any other child in slot 0,
            // which is free by then.
            let (slot, child_fresh) = if k == resumed {
                (running_slot, false)
            } else if k < rechecked {
                (1 - running_slot, true)
            } else {
                (0, true)
            };
            let status = t.run(k, slot, child_fresh, cx);
            if status == self.go_on {
                continue;
            }
            if k < rechecked {
                t.abort(resumed, running_slot, cx);
            }
            if status == Status::Running {
                bytes::set_u16_at(t.state_array::<OWN>(), 0, encode(k, slot));
            }
            return status;
        }
        self.go_on
    }

    fn next_running(&self, state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        running(state).filter(|&(child, _)| child >= from)
    }

    fn valid(&self, state: &[u8], children: usize) -> bool {
        // The second slot is sized for every child but the last. No child
        // running happens only after a hot reload lost the running one.
        match running(state) {
            Some((child, 0)) => child < children,
            Some((child, 1)) => child + 1 < children,
            Some(_) => false,
            None => true,
        }
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        Wake::Always
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // A lost running child leaves none running: the next update checks
        // the children from the first, as a fresh one would.
        let word = running(old)
            .and_then(|(child, slot)| {
                let at = carry.kept_at(child)?;
                // The last child has no second slot (nor needs one).
                let slot = if at + 1 < carry.new_children { slot } else { 0 };
                Some(encode(at, slot))
            })
            .unwrap_or(0);
        bytes::set_u16_at(new, 0, word);
        true
    }

    fn describe(&self, state: &[u8], children: usize, _now: u32) -> String {
        match running(state) {
            Some((child, _)) => format!("running child {} of {children}", child + 1),
            None => "no child running".to_string(),
        }
    }
}
