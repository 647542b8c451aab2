//! Sequence, Selector and SequenceWithMemory: children in order. Rules:
//! [`nodes`](super#sequence).
//!
//! Task state: the index of the running child (2 bytes; at most 32,767
//! children). The top bit marks a child to be entered afresh at the next
//! update instead: after a hot reload lost the one that ran, or after a
//! SequenceWithMemory paused (`pause`) before it. All children
//! share one behavior slot, since one runs at a time.
//!
//! SequenceWithMemory also keeps a word of persistent memory: the child to
//! start from when next entered (a plain word, not a tick). Any value is
//! accepted there: one past the last child means the first, so memory
//! restored from damaged bytes cannot make it run a child that is not
//! there. Selector has no such variant, as BehaviorTree.CPP has none.

use crate::Params;
use crate::def::exec::{Exec, Visit, Wake, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind};
use crate::util::context::Ctx;
use crate::util::status::Status;

/// Runs its children in order until one fails or runs; resumes a running
/// child. Succeeds when every child has succeeded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct Sequence;

/// Runs its children in order until one succeeds or runs; resumes a
/// running child. Fails when every child has failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct Selector;

/// A Sequence that, entered again, goes on from the child that failed or
/// was running when it was aborted (BehaviorTree.CPP's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct SequenceWithMemory {
    /// `true`: after a child that was entered and succeeded within one
    /// update, return `Running` and enter the next child at the next tick
    /// (BehaviorTree.CPP's, in a tree it loaded, asks to be woken there).
    /// Absent or `false`: go on with the next child at once.
    pub pause: Option<bool>,
}

members!(Composite, InOrder:
    Sequence => |_| InOrder::SEQUENCE,
    Selector => |_| InOrder::SELECTOR,
    SequenceWithMemory => |k| InOrder {
        pause: k.pause == Some(true),
        ..InOrder::SEQUENCE_WITH_MEMORY
    },
);

/// Bytes of task state.
const OWN: usize = 2;

/// Bytes of persistent memory of SequenceWithMemory: where to start.
const PERSIST: usize = 4;

/// Sequence (`go_on` = Success) and Selector (`go_on` = Failure): move to
/// the next child while children return `go_on`.
#[derive(Clone, Copy)]
pub(crate) struct InOrder {
    go_on: Status,
    /// Whether where it stopped outlives the activation.
    memory: bool,
    /// Whether a child entered and succeeded in one update ends the update.
    pause: bool,
}

impl InOrder {
    pub(super) const SEQUENCE: InOrder = InOrder {
        go_on: Status::Success,
        memory: false,
        pause: false,
    };
    pub(super) const SEQUENCE_WITH_MEMORY: InOrder = InOrder {
        go_on: Status::Success,
        memory: true,
        pause: false,
    };
    pub(super) const SELECTOR: InOrder = InOrder {
        go_on: Status::Failure,
        memory: false,
        pause: false,
    };
}

/// The top bit of the state: the child at the index is not running yet.
const ENTER: u16 = 1 << 15;

/// The child at the state's index, and whether it must be entered afresh.
#[cfg_attr(not(debug_assertions), inline(always))]
fn read(state: &[u8]) -> (usize, bool) {
    let word = bytes::u16_at(state, 0);
    ((word & !ENTER) as usize, word & ENTER != 0)
}

impl InOrder {
    /// The child a fresh activation starts from.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn first<A, W, E: Exec<A, W>>(&self, t: &mut E, children: usize) -> usize {
        if !self.memory {
            return 0;
        }
        let at = bytes::u32_at(t.persist::<PERSIST>(), 0) as usize;
        if at < children { at } else { 0 }
    }

    /// Remember `index` as where the next activation starts.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn remember<A, W, E: Exec<A, W>>(&self, t: &mut E, index: usize) {
        if self.memory {
            bytes::set_u32_at(t.persist::<PERSIST>(), 0, index as u32);
        }
    }
}

impl<A, W> Kind<A, W> for InOrder {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            own: OWN as u32,
            persist: if self.memory { PERSIST as u32 } else { 0 },
            ..Facts::COMPOSITE
        }
    }

    fn persist_valid(&self, persist: &[u8], children: usize, _now: u32) -> bool {
        // Where to start next time: a child, or 0 for a sequence without.
        !self.memory || (bytes::u32_at(persist, 0) as usize) < children.max(1)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let n = t.children();
        if n == 0 {
            return self.go_on;
        }
        let (mut index, mut fresh) = if visit.is_fresh() {
            (self.first(t, n), true)
        } else {
            read(t.state_array::<OWN>())
        };
        if index >= n {
            // A reload passed over the last child: all done.
            self.remember(t, 0);
            return self.go_on;
        }
        loop {
            let status = visit_child(t, visit, index, 0, fresh, cx);
            if status != self.go_on {
                if status == Status::Running {
                    bytes::set_u16_at(t.state_array::<OWN>(), 0, index as u16);
                }
                // Failed or running (and perhaps aborted later): either
                // way the next activation starts here.
                self.remember(t, index);
                return status;
            }
            index += 1;
            if index == n {
                self.remember(t, 0);
                return self.go_on;
            }
            if self.pause && fresh {
                // The next child is entered at the next tick.
                bytes::set_u16_at(t.state_array::<OWN>(), 0, index as u16 | ENTER);
                self.remember(t, index);
                return Status::Running;
            }
            fresh = true;
        }
    }

    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)> {
        let (running, enter) = read(state);
        (!enter && running >= from && running < children).then_some((running, 0))
    }

    fn valid(&self, state: &[u8], children: usize) -> bool {
        match read(state) {
            (index, false) => index < children,
            (index, true) => index <= children,
        }
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        match read(t.state_array::<OWN>()) {
            (_, true) => Wake::Restart,
            (_, false) => Wake::Pass,
        }
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        let (running, _) = read(old);
        let word = match carry.kept_at(running) {
            Some(at) => at as u16,
            None => carry.resume_at(running) as u16 | ENTER,
        };
        bytes::set_u16_at(new, 0, word);
        true
    }

    fn describe(&self, state: &[u8], children: usize, _now: u32) -> String {
        match read(state) {
            (index, false) => format!("running child {} of {children}", index + 1),
            // After a reload removed the children it had to go on with.
            (index, true) if index >= children => {
                format!("past its last child (of {children}), finishing next update")
            }
            (index, true) => format!("entering child {} of {children} next", index + 1),
        }
    }
}
