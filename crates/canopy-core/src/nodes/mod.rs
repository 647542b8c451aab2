//! What every node kind does: the semantics, in one place.
//!
//! The code is grouped as BehaviorTree.CPP groups nodes: [controls]
//! (several children), [decorators] (one child) and [leaves] (none). Every
//! task is updated at most once per tick unless a parent re-enters it; a
//! child that finishes is uninstalled at once and starts fresh when entered
//! again. A task that is still running when its parent stops needing it is
//! **aborted**: its running children are aborted first (deepest first), then
//! its terminate hook sees [`Exit::Aborted`](crate::Exit::Aborted). After the
//! root finishes, the agent's next tick installs it afresh.
//!
//! # Controls
//!
//! ## Sequence
//! Runs children in order, continuing within the same tick after a child
//! succeeds; returns the first `Running` or `Failure`; `Success` when all
//! succeed. *With memory*: a running child is resumed next tick and the
//! children before it are not re-run. No children: `Success`.
//!
//! ## Selector
//! The mirror of Sequence: returns the first `Running` or `Success`;
//! `Failure` when all fail. With memory. No children: `Failure`.
//!
//! ## ReactiveSequence
//! Every tick re-enters, from the first, the children before the running
//! one; the running child itself is resumed, not restarted, when reached. If
//! an earlier child now fails or runs, the child that was running is aborted
//! (after that earlier child's update) and the sequence returns its status.
//! No children: `Success`.
//!
//! ## ReactiveSelector
//! A priority selector: every tick re-tries, from the first (highest
//! priority), the children before the running one; the running child is
//! resumed when reached. If a higher-priority child now succeeds or runs,
//! the lower-priority running child is aborted. No children: `Failure`.
//!
//! ## Parallel
//! `Parallel { success, failure }`: each tick updates, in child order, every
//! child that has not finished in this activation; a finished child keeps
//! counting with its final status and is never re-run. A [`One`] policy is
//! decided the moment a child meets it (later children are not updated that
//! tick). After the loop, all-failed is checked before all-succeeded. If
//! every child has finished and neither policy is met — possible only with
//! `All`/`All` and mixed results — the parallel fails, because success can no
//! longer be reached (seed 000's version would return `Running` forever).
//! When it finishes, its running children are aborted. No children: a build
//! error.
//!
//! # Decorators
//!
//! ## Inverter
//! `Success` ↔ `Failure`; `Running` unchanged.
//!
//! ## ForceSuccess / ForceFailure
//! A finished child's status is replaced by `Success` (resp. `Failure`);
//! `Running` unchanged.
//!
//! ## Repeat(n)
//! Runs the child to completion once per tick at most: each child `Success`
//! counts; `Running` until the n-th success, then `Success`; a child
//! `Failure` is `Failure`. Between cycles the child is uninstalled and
//! re-entered fresh on the next tick. `n ≥ 1`.
//!
//! ## Retry(n)
//! A child `Failure` re-runs it from scratch on the next tick, up to `n`
//! attempts in all; the n-th failure is `Failure`. A child `Success` is
//! `Success`. `n ≥ 1`.
//!
//! ## Guard
//! The condition is checked once, when the guard is entered: false is
//! `Failure` without running the child; true runs the child to its end
//! without checking again (seed 001's decorator).
//!
//! ## ReactiveGuard
//! The condition is checked every tick before the child: once false, the
//! running child is aborted and the guard fails.
//!
//! ## Timeout(n)
//! The child is updated on the first `n` ticks after the timeout was
//! entered; on the tick `n` ticks after entry, if the child is still
//! running, it is aborted and the timeout fails. `n ≥ 1`.
//!
//! ## Cooldown(n)
//! When the child finishes (or is aborted), the node cools down: for the
//! next `n` ticks entering it fails at once without running the child. The
//! cooldown is kept per agent across activations of the node. `n ≥ 1`.
//!
//! # Leaves
//!
//! ## Action
//! User code returning any status, called on every update.
//!
//! ## Condition
//! User code returning `true` (`Success`) or `false` (`Failure`); never
//! `Running`.
//!
//! ## AlwaysSuccess, AlwaysFailure, AlwaysRunning
//! Constant statuses, for prototyping and tests.
//!
//! ## Wait(n)
//! `Running` until `n` ticks have passed since it was entered, then
//! `Success`: entered at tick `t`, it succeeds at tick `t + n`. `Wait(0)`
//! succeeds at once.
//!
//! ## Async
//! User code called once, when the leaf is entered, with a
//! [`Ticket`](crate::Ticket); it may finish at once or return `Running`,
//! which suspends the leaf until the ticket is completed from outside the
//! tick ([`Agent::complete`](crate::Agent::complete)). The leaf then
//! reports the completed status on its next update. A ticket goes stale
//! when its leaf ends (finishes or is aborted), and completing a stale
//! ticket does nothing. See [`asynchronous`](crate::asynchronous).
//!
//! ## Custom
//! A user [`Node`](crate::Node) with its own task; it may run children
//! through [`Children`](crate::Children).
//!
//! # Scheduling
//! Everything above is stated for tick-from-root, where the root is updated
//! every tick. The event-driven mode ([`Mode::Event`](crate::Mode)) gives
//! the same results while updating only the tasks that can change; see
//! [`scheduler`](crate::scheduler).
//!
//! # Time
//! Durations are counted in the agent's ticks ([`Ctx::tick`](crate::Ctx)),
//! never in wall-clock time, so a run replays exactly. Tick numbers are
//! `u32` and compared with wrapping arithmetic, so durations up to 2³¹ ticks
//! are exact.
//!
//! # Where this differs from BehaviorTree.CPP
//! Repeat and Retry advance one child cycle per tick (as seed 001 and
//! py_trees do) where BT.CPP loops inside one tick; Sequence and Selector
//! always resume (BT.CPP's `SequenceWithMemory`); a Parallel never re-runs a
//! child that already finished within one activation; Guard is seed 001's
//! entry-checked decorator and ReactiveGuard its re-checking variant.
//!
//! [`One`]: crate::Policy::One

pub mod controls;
pub mod decorators;
pub mod leaves;

use crate::behavior::{At, Runner, Visit};
use crate::context::Ctx;
use crate::node::{Arity, NodeKind};
use crate::observer::Observer;
use crate::pool::TaskPool;
use crate::status::Status;
use crate::tree::NodeDef;

/// How a node's behavior slots map to its children.
#[derive(Clone, Copy)]
pub(crate) enum SlotPlan {
    /// Leaves.
    None,
    /// One slot shared by all children, which run one at a time.
    Shared,
    /// Two slots: the running child and the one being re-checked.
    Reactive,
    /// One slot per child: they may all run at once.
    PerChild,
}

pub(crate) fn slot_plan<A, W>(kind: &NodeKind<A, W>) -> SlotPlan {
    match kind {
        NodeKind::ReactiveSequence | NodeKind::ReactiveSelector => SlotPlan::Reactive,
        NodeKind::Parallel { .. } | NodeKind::Custom(_) => SlotPlan::PerChild,
        // Sequence, Selector and every decorator run one child at a time.
        _ => match kind.arity() {
            Arity::Leaf => SlotPlan::None,
            Arity::Decorator | Arity::Composite => SlotPlan::Shared,
        },
    }
}

/// Bytes of a node's own task state (behavior slots not included).
pub(crate) fn own_bytes<A, W>(kind: &NodeKind<A, W>, children: usize) -> u32 {
    (match kind {
        // Index of the current child.
        NodeKind::Sequence | NodeKind::Selector => 2,
        // Running child + 1 (0: none) and which slot it is in (top bit).
        NodeKind::ReactiveSequence | NodeKind::ReactiveSelector => 2,
        // Two bits per child: idle, running, succeeded, failed.
        NodeKind::Parallel { .. } => children.div_ceil(4),
        // Completed cycles and whether the child is installed (top bit).
        NodeKind::Repeat(_) | NodeKind::Retry(_) => 4,
        // Tick the node was entered.
        NodeKind::Timeout(_) | NodeKind::Wait(_) => 4,
        // Index of the agent's wait it is suspended on.
        NodeKind::Async(_) => 4,
        // The user's task, then one "installed" bit per child.
        NodeKind::Custom(c) => c.task_size() + children.div_ceil(8),
        _ => 0,
    }) as u32
}

/// Bytes of memory a node keeps for its agent across activations.
pub(crate) fn persist_bytes<A, W>(kind: &NodeKind<A, W>) -> u32 {
    match kind {
        // Tick at which the node may be entered again (0: any time).
        NodeKind::Cooldown(_) => 4,
        _ => 0,
    }
}

impl<A, W, P: TaskPool, O: Observer> Runner<'_, A, W, P, O> {
    /// Advance the installed task of node `id` by one update: the first
    /// after install, a later one, or (event-driven) the reaction to a
    /// finished child.
    #[inline(always)]
    pub(crate) fn update(&mut self, id: u32, at: At, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let def = self.tree.def(id);
        let fresh = visit.is_fresh();
        match &def.kind {
            NodeKind::Sequence => self.in_order(def, at, visit, cx, Status::Success),
            NodeKind::Selector => self.in_order(def, at, visit, cx, Status::Failure),
            NodeKind::ReactiveSequence => self.reactive(def, at, fresh, cx, Status::Success),
            NodeKind::ReactiveSelector => self.reactive(def, at, fresh, cx, Status::Failure),
            NodeKind::Parallel { success, failure } => {
                self.parallel(def, at, visit, cx, *success, *failure)
            }
            NodeKind::Inverter => self.only_child(def, at, fresh, visit, cx).invert(),
            NodeKind::ForceSuccess => match self.only_child(def, at, fresh, visit, cx) {
                Status::Running => Status::Running,
                _ => Status::Success,
            },
            NodeKind::ForceFailure => match self.only_child(def, at, fresh, visit, cx) {
                Status::Running => Status::Running,
                _ => Status::Failure,
            },
            NodeKind::Repeat(times) => self.repeat(def, at, visit, cx, *times, Status::Success),
            NodeKind::Retry(times) => self.repeat(def, at, visit, cx, *times, Status::Failure),
            NodeKind::Guard(p) => {
                if fresh && !(p.check)(cx) {
                    return Status::Failure;
                }
                self.only_child(def, at, fresh, visit, cx)
            }
            NodeKind::ReactiveGuard(p) => self.reactive_guard(def, at, fresh, cx, p),
            NodeKind::Timeout(ticks) => self.timeout(def, at, visit, cx, *ticks),
            NodeKind::Cooldown(ticks) => self.cooldown(def, at, visit, cx, *ticks),
            NodeKind::Action(f) => f(cx),
            NodeKind::Condition(f) => Status::from_bool(f(cx)),
            NodeKind::AlwaysSuccess => Status::Success,
            NodeKind::AlwaysFailure => Status::Failure,
            NodeKind::AlwaysRunning => Status::Running,
            NodeKind::Wait(ticks) => self.wait(def, at, fresh, cx, *ticks),
            NodeKind::Async(start) => self.async_leaf(def, at, fresh, cx, start, id),
            NodeKind::Custom(custom) => self.custom_update(custom, def, at, cx),
        }
    }

    /// Abort whatever children of a running task are installed, in child
    /// order, each deepest first. Which ones are installed is read from the
    /// task's own state.
    #[inline(never)]
    pub(crate) fn abort_running_children(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        cx: &mut Ctx<A, W>,
    ) {
        match &def.kind {
            NodeKind::Sequence | NodeKind::Selector => self.abort_in_order(def, at, cx),
            NodeKind::ReactiveSequence | NodeKind::ReactiveSelector => {
                self.abort_reactive(def, at, cx)
            }
            NodeKind::Parallel { .. } => self.abort_parallel(def, at, cx),
            NodeKind::Repeat(_) | NodeKind::Retry(_) => self.abort_repeat(def, at, cx),
            NodeKind::Inverter
            | NodeKind::ForceSuccess
            | NodeKind::ForceFailure
            | NodeKind::Guard(_)
            | NodeKind::ReactiveGuard(_)
            | NodeKind::Timeout(_)
            | NodeKind::Cooldown(_) => self.abort_only_child(def, at, cx),
            NodeKind::Custom(_) => self.abort_custom_children(def, at, cx),
            NodeKind::Action(_)
            | NodeKind::Condition(_)
            | NodeKind::AlwaysSuccess
            | NodeKind::AlwaysFailure
            | NodeKind::AlwaysRunning
            | NodeKind::Wait(_)
            | NodeKind::Async(_) => {}
        }
    }
}
