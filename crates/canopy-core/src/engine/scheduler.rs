//! The event-driven tree: update only what can change.
//!
//! Tick-from-root walks from the root to every running leaf on every tick,
//! although most nodes on the way — a Sequence waiting for its running
//! child, an Inverter, a Parallel — would only pass the tick down and the
//! status up. The event-driven mode keeps, per agent, the running part of
//! the task tree as a list of *frames* in tree order, and on each tick
//! updates only the frames that need it:
//!
//! | running task | updated by the scheduler |
//! |---|---|
//! | Sequence, Selector, Parallel, Inverter, Force*, Guard, Cooldown, Repeat/Retry with its child running | never on its own: only when a child finishes |
//! | Timeout | at its deadline; before that it only reacts to its child |
//! | Utility | when its next scoring is due (every `every` ticks; never with 0); before that it only reacts to its child |
//! | Wait | at the tick it ends |
//! | async leaf | after its [`Ticket`](crate::Ticket) is completed |
//! | AlwaysRunning | never |
//! | Action, custom node, Repeat/Retry between cycles | every tick |
//! | ReactiveSequence, ReactiveSelector, ReactiveGuard | every tick, and their subtree runs tick-from-root below them: they must re-check their conditions anyway |
//!
//! When an updated task finishes, its parent is told
//! (a `ChildDone` visit) and reacts with the same code its ordinary update
//! runs — a Sequence starts its next child, a Parallel counts the result —
//! so node semantics stay in one place, [`nodes`](crate::nodes). The frames
//! below a parent that reacted are then read back from the task state. What
//! each kind does here is a fact of the kind (`Facts::sched` and
//! `Kind::wake`), never a list of kinds in this file.
//!
//! The results are those of tick-from-root: the same root status each
//! tick, the same leaf calls in the same order, the same installs, exits
//! and aborts (checked by a differential property test over random trees).
//! What differs is only what is not observable from leaf code: a node that
//! is not updated reports no `Update` event, and neither does a node that
//! reacts to a finished child and goes on running (a Parallel may react to
//! several children in one tick; tick mode reports it once). So event mode
//! reports a subset of tick mode's `Update(Running)` events and the same
//! events otherwise.
//!
//! One cost grows differently. A frame finds its parent by walking back
//! over its elder siblings' frames, and when a running task moves on to a
//! child whose subtree has a different number of frames, the frames after
//! it move in the list. Both are short for the parallels of game trees (a
//! handful of children); for a Parallel with thousands of running children
//! that finish in the same tick they add up to more than tick mode's walk
//! (`cargo bench --bench scheduling -- wide`: 16,000 such children, 161 ms
//! against 0.95 ms for an agent's first 6 ticks).
//!
//! Frames live in one `Vec` per agent with room, from the tree's shape, for
//! the most frames it can need, so scheduling allocates nothing.

use super::runner::Runner;
use crate::def::exec::{Visit, Wake};
use crate::def::kind::{Sched, SlotPlan};
use crate::def::observer::Observer;
use crate::nodes;
use crate::state::schedule::{Frame, LISTED, Schedule};
use crate::tree::layout::TaskLocation;
use crate::util::context::Ctx;
use crate::util::primitives::reached;
use crate::util::status::Status;

/// Where a tick goes on after a finished task has told its ancestors.
enum Next {
    /// At this frame index.
    At(usize),
    /// Nowhere: the root finished with this status.
    RootDone(Status),
}

impl<A, W, O: Observer> Runner<'_, A, W, O> {
    /// One event-driven tick: install the root if it is not running,
    /// otherwise update the due frames in tree order and let finished
    /// tasks notify their parents.
    pub(crate) fn tick_event(
        &mut self,
        s: &mut Schedule,
        root_running: bool,
        cx: &mut Ctx<A, W>,
    ) -> Status {
        let now = cx.tick;
        if !root_running {
            let status = self.tick_root(true, cx);
            self.schedule_all(s, status == Status::Running, now);
            return status;
        }
        if s.alarm.is_some_and(|t| reached(now, t)) || s.due_len as usize > LISTED {
            return self.scan(s, 0, cx);
        }
        // The steady state: only the listed frames are due, and as long as
        // they keep running nothing else changes.
        for k in 0..s.due_len as usize {
            let i = s.due[k] as usize;
            if s.frames[i].wake != Wake::Always {
                return self.scan(s, i, cx);
            }
            let status = self.update_frame(s, i, Visit::Resume, cx);
            if status != Status::Running {
                return match self.propagate(s, i, status, cx) {
                    Next::At(next) => self.scan(s, next, cx),
                    Next::RootDone(root) => {
                        s.clear();
                        root
                    }
                };
            }
        }
        Status::Running
    }

    /// Update every due frame from index `from` on, in tree order, letting
    /// finished tasks notify their parents; then recount what is due.
    fn scan(&mut self, s: &mut Schedule, from: usize, cx: &mut Ctx<A, W>) -> Status {
        let now = cx.tick;
        let mut i = from;
        while i < s.frames.len() {
            let frame = s.frames[i];
            if !frame.wake.is_due(now) {
                i += 1;
                continue;
            }
            let status = self.update_frame(s, i, Visit::Resume, cx);
            i = if status != Status::Running {
                match self.propagate(s, i, status, cx) {
                    Next::At(next) => next,
                    Next::RootDone(root) => {
                        s.clear();
                        return root;
                    }
                }
            } else if frame.wake == Wake::Always {
                i + 1
            } else {
                self.reschedule(s, i)
            };
        }
        s.refresh(now);
        Status::Running
    }

    /// Rebuild the whole schedule from the running tasks (after the root
    /// was installed, or when an agent switches to event mode).
    pub(crate) fn schedule_all(&mut self, s: &mut Schedule, root_running: bool, now: u32) {
        s.clear();
        if root_running {
            let wake = self.wake_of(TaskLocation::ROOT);
            s.frames.push(Frame {
                at: TaskLocation::ROOT,
                child: 0,
                depth: 0,
                wake,
            });
            self.schedule_below(s, 0);
        }
        s.refresh(now);
    }

    /// Update the task of frame `i`: resume it, or tell it a child finished.
    #[inline(always)]
    fn update_frame(&mut self, s: &Schedule, i: usize, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let frame = &s.frames[i];
        match (frame.depth, visit) {
            // The same path as tick-from-root.
            (0, Visit::Resume) => self.tick_root(false, cx),
            (_, Visit::Resume) => self.resume(frame.at, cx),
            (_, _) => self.resume_task(frame.at, visit, cx),
        }
    }

    /// Frame `i` finished with `status` (and is uninstalled): tell its
    /// parent, and its parent's parent while they finish too.
    fn propagate(
        &mut self,
        s: &mut Schedule,
        mut i: usize,
        mut status: Status,
        cx: &mut Ctx<A, W>,
    ) -> Next {
        loop {
            let frame = s.frames[i];
            if frame.depth == 0 {
                return Next::RootDone(status);
            }
            let p = s.parent(i);
            let visit = Visit::ChildDone {
                child: frame.child,
                status,
            };
            status = self.update_frame(s, p, visit, cx);
            if status != Status::Running {
                i = p;
                continue;
            }
            if self.def(s.frames[p].at).slot_plan == SlotPlan::PerChild {
                // A parent whose children run side by side (a Parallel)
                // that goes on has only recorded the result: its other
                // children's frames stand. The finished child's are marked
                // gone (removing them one child at a time would shift the
                // list once per child), and the tick goes on after them,
                // with the later siblings not yet updated.
                let end = s.subtree_end(i);
                for frame in &mut s.frames[i..end] {
                    frame.wake = Wake::Gone;
                }
                return Next::At(end);
            }
            // Anything else has moved on (a Sequence to its next child, a
            // Repeat between cycles): its subtree, updated this tick, is new.
            return Next::At(self.reschedule(s, p));
        }
    }

    /// Frame `i` was updated and still runs: read its wake-up and its
    /// children's frames back from the task state. Returns the index past
    /// its new subtree.
    fn reschedule(&mut self, s: &mut Schedule, i: usize) -> usize {
        let end = s.subtree_end(i);
        let frame = s.frames[i];
        s.frames[i].wake = self.wake_of(frame.at);
        // The old frames go first, so the list never holds more than the
        // tree can need (its capacity). The new ones are pushed at the end,
        // then the frames that were after the subtree are rotated behind
        // them: each moves once, where inserting one frame at a time would
        // move them once per frame.
        s.frames.drain(i + 1..end);
        let tail = s.frames.len() - (i + 1);
        let before = s.frames.len();
        self.schedule_below(s, i);
        let added = s.frames.len() - before;
        s.frames[i + 1..].rotate_left(tail);
        i + 1 + added
    }

    /// Push frames for the running children of frame `p` (and theirs, in
    /// tree order) at the end of the list, if its children are scheduled.
    fn schedule_below(&mut self, s: &mut Schedule, p: usize) {
        let frame = s.frames[p];
        let def = self.def(frame.at);
        if def.sched != Sched::Passive {
            return;
        }
        let n = def.child_count as usize;
        let mut from = 0;
        while let Some((child, slot)) = self.next_running(frame.at, from) {
            let at = self.child_at(frame.at, def, child, slot);
            let wake = self.wake_of(at);
            s.frames.push(Frame {
                at,
                child: child as u16,
                depth: frame.depth + 1,
                wake,
            });
            self.schedule_below(s, s.frames.len() - 1);
            from = child + 1;
        }
        debug_assert!(from <= n);
    }

    /// The first running child of the task at `at` from index `from` on,
    /// and its slot.
    fn next_running(&mut self, at: TaskLocation, from: usize) -> Option<(usize, usize)> {
        let def = self.def(at);
        let mut here = self.here(at, def);
        let state = crate::def::exec::Exec::state(&mut here);
        nodes::next_running(&def.kind, state, def.child_count as usize, from)
    }

    /// When the running task at `at` needs updating.
    fn wake_of(&mut self, at: TaskLocation) -> Wake {
        let def = self.def(at);
        nodes::wake(&def.kind, &mut self.here(at, def))
    }
}
