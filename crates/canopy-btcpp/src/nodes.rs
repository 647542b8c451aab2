//! BehaviorTree.CPP's standard nodes whose semantics differ from every
//! canopy built-in, as canopy custom nodes.
//!
//! Each follows BehaviorTree.CPP 4's `tick()` for one `executeTick()` of
//! the node, with these translations (the crate docs say why):
//! - BehaviorTree.CPP keeps a finished child's status until the parent
//!   resets it; canopy uninstalls a finished child at once. So "completed"
//!   below is "updated before in this activation and no longer running".
//! - `haltChild` / `resetChildren` is aborting the children still running.
//! - Repeat and RetryUntilSuccessful yield after a cycle of a child
//!   entered in the tick, as BehaviorTree.CPP's do in a tree (they ask to
//!   be woken and re-ticked), so they run two cycles per tick at most.
//! - Time is the agent's tick counter: a duration of `d` ms is
//!   `⌈d / tick_ms⌉` ticks ([`ms_to_ticks`]), converted at load for a value
//!   written in the file and when the node reads it for one read from the
//!   blackboard.
//!
//! **Ports.** A port is an [`Input`]: the value written in the file, or a
//! key read when BehaviorTree.CPP's `getInput` reads it — every tick for
//! Repeat, RetryUntilSuccessful (and again after each failed attempt),
//! Parallel, ParallelAll, Timeout, Delay and RunOnce, once on entry for
//! Sleep. A string key read by a number or bool port is converted on each
//! read ([`Input::Converted`]); where the text does not convert,
//! BehaviorTree.CPP throws out of the tick, and here the node fails
//! (aborting its running children), as does a Parallel whose thresholds
//! read from the blackboard exceed its children. RunOnce, whose `then_skip`
//! BehaviorTree.CPP reads with a default, takes `true` then, as it does.
//! Rejected: checking values read at run time when the tree is loaded
//! (they are not known), and stopping the agent's whole tick as a throw
//! does (canopy's tick has no way out but a status).
//!
//! **Memory across activations.** BehaviorTree.CPP's RunOnce and
//! entry-update nodes remember, for as long as the tree lives, whether the
//! child ran and which write of the entry they saw last. A custom node's
//! task ends with its activation, so that memory is a key of the agent's
//! blackboard each such node is given (`__runonce_…`, `__updated_…`): per
//! agent, saved in snapshots and kept by hot reload, as the Precondition's
//! decision is.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{
    Arity, Children, Ctx, Input, Key, Node, Status,
    board::{BoardValue, Updates},
    limits::MAX_TICKS,
};

/// The parameters a node shows (in printed trees and fingerprints), as the
/// file gave them: a number, or a key in braces.
pub(crate) type Shown = Vec<(String, String)>;

/// A port's value now; `None` where BehaviorTree.CPP's `getInput` fails (a
/// string key whose text does not convert to the port's type).
fn read<A, W, T: BoardValue>(cx: &Ctx<A, W>, input: &Input<T>) -> Option<T> {
    cx.board.try_get(input).ok()
}

/// `msec` milliseconds in ticks of `tick_ms`: the first tick at or after
/// that time, `⌈msec / tick_ms⌉`, at most [`MAX_TICKS`].
pub(crate) fn ms_to_ticks(msec: u32, tick_ms: u32) -> u32 {
    let tick_ms = u64::from(tick_ms.max(1));
    let ticks = u64::from(msec).div_ceil(tick_ms);
    ticks.min(u64::from(MAX_TICKS)) as u32
}

/// Abort, in child order, every child still running: BehaviorTree.CPP's
/// `resetChildren()` / `haltChildren()`.
fn abort_running<A, W>(children: &mut Children<A, W>, cx: &mut Ctx<A, W>) {
    for i in 0..children.len() {
        if children.is_running(i) {
            children.abort(i, cx);
        }
    }
}

/// A node whose port could not be read: its running children aborted,
/// Failure (BehaviorTree.CPP throws).
fn unread<A, W>(children: &mut Children<A, W>, cx: &mut Ctx<A, W>) -> Status {
    abort_running(children, cx);
    Status::Failure
}

/// `threshold` as BehaviorTree.CPP reads it for `n` children: a negative
/// value counts from the end (−1 is all of them).
pub(crate) fn threshold(value: i32, n: usize) -> usize {
    if value < 0 {
        (n as i64 + value as i64 + 1).max(0) as usize
    } else {
        value as usize
    }
}

/// Completed-children counts of a Parallel, and whether its first update
/// is over (after which every child has been updated at least once).
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
pub(crate) struct Counts {
    success: u32,
    failure: u32,
    started: u32,
}

/// `Parallel`: every child not yet completed is updated each tick, in
/// order; after each child, `success_count` successes decide Success,
/// `failure_count` failures (or too few children left to reach
/// `success_count`) decide Failure, and the children still running are
/// aborted. Both counts are read on every tick.
pub(crate) struct Parallel {
    pub(crate) success_count: Input<i32>,
    pub(crate) failure_count: Input<i32>,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for Parallel {
    type Task = Counts;

    fn type_name(&self) -> &str {
        "Parallel"
    }

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Counts {
        Counts::zeroed()
    }

    fn update(
        &self,
        task: &mut Counts,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        let n = children.len();
        let (Some(success_count), Some(failure_count)) =
            (read(cx, &self.success_count), read(cx, &self.failure_count))
        else {
            return unread(children, cx);
        };
        let success_needed = threshold(success_count, n);
        let failure_needed = threshold(failure_count, n);
        // BehaviorTree.CPP throws: it could never succeed, or never fail.
        if n < success_needed || n < failure_needed {
            return unread(children, cx);
        }
        for i in 0..n {
            let completed = task.started != 0 && !children.is_running(i);
            if !completed {
                match children.update(i, cx) {
                    Status::Success => task.success += 1,
                    Status::Failure => task.failure += 1,
                    Status::Running => {}
                }
            }
            let (success, failure) = (task.success as usize, task.failure as usize);
            if success >= success_needed {
                abort_running(children, cx);
                return Status::Success;
            }
            if n - failure < success_needed || failure == failure_needed {
                abort_running(children, cx);
                return Status::Failure;
            }
        }
        task.started = 1;
        Status::Running
    }
}

/// `ParallelAll`: every child not yet completed is updated each tick, in
/// order; once all have completed, Failure if at least `max_failures`
/// failed, else Success. `max_failures` is read on every tick.
pub(crate) struct ParallelAll {
    pub(crate) max_failures: Input<i32>,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for ParallelAll {
    type Task = Counts;

    fn type_name(&self) -> &str {
        "ParallelAll"
    }

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Counts {
        Counts::zeroed()
    }

    fn update(
        &self,
        task: &mut Counts,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        let Some(max_failures) = read(cx, &self.max_failures) else {
            return unread(children, cx);
        };
        let failures_needed = threshold(max_failures, children.len());
        if children.len() < failures_needed {
            return unread(children, cx);
        }
        let mut running = false;
        for i in 0..children.len() {
            if task.started != 0 && !children.is_running(i) {
                continue;
            }
            match children.update(i, cx) {
                Status::Failure => task.failure += 1,
                Status::Success => {}
                Status::Running => running = true,
            }
        }
        task.started = 1;
        if running {
            Status::Running
        } else if task.failure as usize >= failures_needed {
            Status::Failure
        } else {
            Status::Success
        }
    }
}

/// Which branch an IfThenElse runs: 0 while its condition (child 0) runs.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
pub(crate) struct Branch {
    child: u32,
}

/// `IfThenElse`: child 0 is the condition, updated until it finishes;
/// Success runs child 1, Failure child 2 (or fails when there are only
/// two); the branch's status is the node's.
pub(crate) struct IfThenElse;

impl<A: 'static, W: 'static> Node<A, W> for IfThenElse {
    type Task = Branch;

    fn type_name(&self) -> &str {
        "IfThenElse"
    }

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Branch {
        Branch::zeroed()
    }

    fn update(
        &self,
        task: &mut Branch,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        if task.child == 0 {
            match children.update(0, cx) {
                Status::Running => return Status::Running,
                Status::Success => task.child = 1,
                Status::Failure if children.len() == 3 => task.child = 2,
                Status::Failure => return Status::Failure,
            }
        }
        children.update(task.child as usize, cx)
    }
}

/// `WhileDoElse`: child 0, the condition, is updated every tick. While it
/// runs, so does the node (a branch left running stays so); Success aborts
/// child 2 and updates child 1; Failure aborts child 1 and updates child 2
/// (or fails when there are only two). When the updated branch finishes,
/// every child still running is aborted and the branch's status is the
/// node's.
pub(crate) struct WhileDoElse;

impl<A: 'static, W: 'static> Node<A, W> for WhileDoElse {
    type Task = ();

    fn type_name(&self) -> &str {
        "WhileDoElse"
    }

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        let three = children.len() == 3;
        let status = match children.update(0, cx) {
            Status::Running => return Status::Running,
            Status::Success => {
                if three {
                    children.abort(2, cx);
                }
                children.update(1, cx)
            }
            Status::Failure if three => {
                children.abort(1, cx);
                children.update(2, cx)
            }
            Status::Failure => Status::Failure,
        };
        if status != Status::Running {
            abort_running(children, cx);
        }
        status
    }
}

/// `KeepRunningUntilFailure`: a child Success restarts it at the next tick
/// and the node runs on; a child Failure is the node's.
pub(crate) struct KeepRunningUntilFailure;

impl<A: 'static, W: 'static> Node<A, W> for KeepRunningUntilFailure {
    type Task = ();

    fn type_name(&self) -> &str {
        "KeepRunningUntilFailure"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        match children.update(0, cx) {
            Status::Failure => Status::Failure,
            Status::Success | Status::Running => Status::Running,
        }
    }
}

/// Cycles a Repeat or RetryUntilSuccessful has completed in this activation.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
pub(crate) struct Cycles {
    done: u32,
}

/// `Repeat` (`until` = Success: a child Success counts, Failure ends it) and
/// `RetryUntilSuccessful` (`until` = Failure: a child Failure counts,
/// Success ends it), while fewer than `count` cycles are done (−1: for
/// ever): a child still running returns Running; a counting cycle of a
/// child that was running goes on with the next cycle in the same tick,
/// one of a child entered in this tick returns Running and the next cycle
/// starts at the next tick (BehaviorTree.CPP asks to be woken there);
/// reaching `count` returns `until`, at once when `count` ≤ 0. `count` is
/// read at each update, and a Retry reads it again after each failed
/// attempt (keeping the value it had if that read fails), as
/// BehaviorTree.CPP's do.
pub(crate) struct Loop {
    pub(crate) type_name: &'static str,
    pub(crate) count: Input<i32>,
    pub(crate) until: Status,
    pub(crate) shown: Shown,
}

/// Whether a loop of `count` cycles (−1: for ever) goes on after `done`.
fn more(count: i32, done: u32) -> bool {
    count == -1 || (done as i64) < count as i64
}

impl<A: 'static, W: 'static> Node<A, W> for Loop {
    type Task = Cycles;

    fn type_name(&self) -> &str {
        self.type_name
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Cycles {
        Cycles::zeroed()
    }

    fn update(
        &self,
        task: &mut Cycles,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        let Some(mut count) = read(cx, &self.count) else {
            return unread(children, cx);
        };
        while more(count, task.done) {
            let entered = !children.is_running(0);
            let status = children.update(0, cx);
            if status == Status::Running {
                return Status::Running;
            }
            if status != self.until {
                return status;
            }
            task.done = task.done.saturating_add(1);
            if self.until == Status::Failure {
                count = read(cx, &self.count).unwrap_or(count);
            }
            // A child that started and finished within this update yields:
            // the next cycle starts at the next tick.
            if entered && more(count, task.done) {
                return Status::Running;
            }
        }
        self.until
    }
}

/// When a timed node was entered and how many ticks it counts: its
/// duration is read, and turned into ticks, on its first update.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
pub(crate) struct Timer {
    entered: u32,
    ticks: u32,
    started: u32,
}

/// A duration in milliseconds: a value of the file's, or a key's turned
/// into ticks when read.
pub(crate) struct Msec {
    pub(crate) msec: Input<u32>,
    /// The ticks of a value written in the file, converted at load.
    pub(crate) ticks: Option<u32>,
    pub(crate) tick_ms: u32,
}

impl Msec {
    /// The duration in ticks now; `None` where it cannot be read.
    fn ticks<A, W>(&self, cx: &Ctx<A, W>) -> Option<u32> {
        let msec = read(cx, &self.msec)?;
        Some(
            self.ticks
                .unwrap_or_else(|| ms_to_ticks(msec, self.tick_ms)),
        )
    }
}

impl Timer {
    /// Start the timer on the first update, with `ticks`.
    fn start(&mut self, ticks: u32, now: u32) {
        if self.started == 0 {
            *self = Timer {
                entered: now,
                ticks,
                started: 1,
            };
        }
    }

    /// Whether its ticks have passed since it was started.
    fn over(&self, now: u32) -> bool {
        now.wrapping_sub(self.entered) >= self.ticks
    }
}

/// `Delay`: Running without touching the child until `delay_msec` after it
/// was entered (at least one tick); from then on the child's status is the
/// node's. `delay_msec` is read on every tick and used on the first.
pub(crate) struct Delay {
    pub(crate) msec: Msec,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for Delay {
    type Task = Timer;

    fn type_name(&self) -> &str {
        "Delay"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Timer {
        Timer::zeroed()
    }

    fn update(
        &self,
        task: &mut Timer,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        let Some(ticks) = self.msec.ticks(cx) else {
            return unread(children, cx);
        };
        task.start(ticks.max(1), cx.tick);
        if !task.over(cx.tick) {
            return Status::Running;
        }
        children.update(0, cx)
    }
}

/// `Timeout`: the child is aborted and the node fails on the first tick at
/// least `msec` after entry; `msec` 0 starts no timer (the child's status
/// is the node's). `msec` is read on every tick and used on the first.
pub(crate) struct Timeout {
    pub(crate) msec: Msec,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for Timeout {
    type Task = Timer;

    fn type_name(&self) -> &str {
        "Timeout"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Timer {
        Timer::zeroed()
    }

    fn update(
        &self,
        task: &mut Timer,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        let Some(ticks) = self.msec.ticks(cx) else {
            return unread(children, cx);
        };
        task.start(ticks, cx.tick);
        if task.ticks > 0 && task.over(cx.tick) {
            children.abort(0, cx);
            return Status::Failure;
        }
        children.update(0, cx)
    }
}

/// `Sleep`: Success on the first tick at least `msec` after entry, at once
/// for 0. `msec` is read on entry only.
pub(crate) struct Sleep {
    pub(crate) msec: Msec,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for Sleep {
    type Task = Timer;

    fn type_name(&self) -> &str {
        "Sleep"
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Timer {
        Timer::zeroed()
    }

    fn update(&self, task: &mut Timer, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        if task.started == 0 {
            let Some(ticks) = self.msec.ticks(cx) else {
                return Status::Failure;
            };
            task.start(ticks, cx.tick);
        }
        if task.over(cx.tick) {
            Status::Success
        } else {
            Status::Running
        }
    }
}

/// What a RunOnce remembers, in its key: not run yet, or how its child
/// ended.
const NOT_RUN: u32 = 0;
const RAN_SUCCESS: u32 = 1;
const RAN_FAILURE: u32 = 2;

/// `RunOnce` whose `then_skip` is read from the blackboard: the child runs
/// to its end once per agent (the key `memory` remembers how it ended);
/// afterwards, at each update, `then_skip` true (or unreadable: its
/// default) returns `skipped` — how the parent reads BehaviorTree.CPP's
/// SKIPPED — and false the child's final status.
pub(crate) struct RunOnce {
    pub(crate) then_skip: Input<bool>,
    pub(crate) skipped: Status,
    pub(crate) memory: Key<u32>,
    /// Set when the node skips: its element's post-condition scripts do
    /// not run then, as BehaviorTree.CPP runs none after a SKIPPED.
    pub(crate) skips_into: Option<Key<bool>>,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for RunOnce {
    type Task = ();

    fn type_name(&self) -> &str {
        "RunOnce"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        let skip = read(cx, &self.then_skip).unwrap_or(true);
        match cx.board.read(self.memory) {
            NOT_RUN => {}
            _ if skip => {
                if let Some(flag) = self.skips_into {
                    cx.board.write(flag, true);
                }
                return self.skipped;
            }
            RAN_SUCCESS => return Status::Success,
            _ => return Status::Failure,
        }
        let status = children.update(0, cx);
        match status {
            Status::Success => cx.board.write(self.memory, RAN_SUCCESS),
            Status::Failure => cx.board.write(self.memory, RAN_FAILURE),
            Status::Running => {}
        }
        status
    }
}

/// Whether the entry was written since the node last looked: `None` while
/// it is unset (the node's memory left as it was), else whether its
/// update counter moved from the one the node saw last, which it now
/// remembers (BehaviorTree.CPP's `sequence_id_`).
fn updated<A, W>(cx: &mut Ctx<A, W>, entry: Option<Updates>, seen: Key<u32>) -> Option<bool> {
    let now = cx.board.updates(entry?)?;
    let before = cx.board.read(seen);
    if before != now {
        cx.board.write(seen, now);
    }
    Some(before != now)
}

/// `WasEntryUpdated`: Success if the entry was written since this node
/// last looked, Failure if not or if it is unset. No entry: never updated.
pub(crate) struct WasEntryUpdated {
    pub(crate) entry: Option<Updates>,
    pub(crate) seen: Key<u32>,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for WasEntryUpdated {
    type Task = ();

    fn type_name(&self) -> &str {
        "WasEntryUpdated"
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        match updated(cx, self.entry, self.seen) {
            Some(true) => Status::Success,
            _ => Status::Failure,
        }
    }
}

/// `SkipUnlessUpdated` (`otherwise` = how the parent reads SKIPPED) and
/// `WaitValueUpdate` (`otherwise` = Running): a child still running is
/// updated; else the child is updated if the entry was written since this
/// node last looked, and `otherwise` is returned if not (or if it is
/// unset).
pub(crate) struct EntryUpdated {
    pub(crate) type_name: &'static str,
    pub(crate) entry: Option<Updates>,
    pub(crate) seen: Key<u32>,
    pub(crate) otherwise: Status,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for EntryUpdated {
    type Task = ();

    fn type_name(&self) -> &str {
        self.type_name
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        if !children.is_running(0) && updated(cx, self.entry, self.seen) != Some(true) {
            return self.otherwise;
        }
        children.update(0, cx)
    }
}

/// `UnsetBlackboard`: empties its key ([`canopy_core::Board::unset`]) and
/// succeeds; without a key it can empty, only succeeds.
pub(crate) struct UnsetBlackboard {
    pub(crate) key: Option<Updates>,
    pub(crate) shown: Shown,
}

impl<A: 'static, W: 'static> Node<A, W> for UnsetBlackboard {
    type Task = ();

    fn type_name(&self) -> &str {
        "UnsetBlackboard"
    }

    fn params(&self) -> Vec<(String, String)> {
        self.shown.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        if let Some(key) = self.key {
            cx.board.unset(key);
        }
        Status::Success
    }
}

#[cfg(test)]
mod tests {
    use canopy_core::{Agent, Builder, Draft, Text};

    use super::*;

    /// A leaf that runs for `n` updates, then succeeds.
    fn busy<'b>(b: &'b Builder<'b, (), ()>, n: u32) -> &'b Draft<'b, (), ()> {
        let left = std::sync::atomic::AtomicU32::new(n);
        b.action("busy", move |_| {
            match left.fetch_update(
                std::sync::atomic::Ordering::Relaxed,
                std::sync::atomic::Ordering::Relaxed,
                |l| l.checked_sub(1),
            ) {
                Ok(1) | Err(_) => Status::Success,
                Ok(_) => Status::Running,
            }
        })
    }

    #[test]
    fn milliseconds_read_at_run_time_become_ticks_by_the_same_rule() {
        let ticks: Vec<u32> = [0, 1, 99, 100, 101, 250, u32::MAX]
            .iter()
            .map(|&ms| ms_to_ticks(ms, 100))
            .collect();
        assert_eq!(ticks, [0, 1, 1, 1, 2, 3, 42_949_673]);
        assert_eq!(ms_to_ticks(u32::MAX, 1), MAX_TICKS);
        assert_eq!(ms_to_ticks(7, 0), 7);
    }

    #[test]
    fn a_string_key_that_does_not_convert_fails_the_loop_and_aborts_its_child() {
        let b = Builder::<(), ()>::new();
        let n = b.key::<Text>("n").unwrap();
        let repeat = Loop {
            type_name: "Repeat",
            count: Input::Converted(n),
            until: Status::Success,
            shown: Vec::new(),
        };
        let tree = b
            .build(b.custom("repeat", repeat, [busy(&b, 100)]))
            .unwrap();
        let mut agent = Agent::new(&tree);
        agent.board_mut(&tree).write(n, Text::new("2"));
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
        assert_eq!(agent.active_tasks(&tree), 2);
        agent.board_mut(&tree).write(n, Text::new("two"));
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Failure);
        assert_eq!(agent.active_tasks(&tree), 0);
    }

    #[test]
    fn a_parallel_whose_thresholds_exceed_its_children_fails() {
        let b = Builder::<(), ()>::new();
        let s = b.key::<i32>("s").unwrap();
        let parallel = Parallel {
            success_count: Input::Key(s),
            failure_count: Input::Value(1),
            shown: Vec::new(),
        };
        let tree = b
            .build(b.custom("parallel", parallel, [busy(&b, 3), busy(&b, 3)]))
            .unwrap();
        let mut agent = Agent::new(&tree);
        agent.board_mut(&tree).write(s, 2);
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
        agent.board_mut(&tree).write(s, 3);
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Failure);
        assert_eq!(agent.active_tasks(&tree), 0);
    }

    #[test]
    fn run_once_takes_then_skip_as_true_when_it_cannot_read_it() {
        let b = Builder::<(), ()>::new();
        let skip = b.key::<Text>("skip").unwrap();
        let memory = b.key::<u32>("__runonce").unwrap();
        let once = RunOnce {
            then_skip: Input::Converted(skip),
            skipped: Status::Success,
            memory,
            skips_into: None,
            shown: Vec::new(),
        };
        let tree = b
            .build(b.custom("once", once, [b.always_failure("no")]))
            .unwrap();
        let mut agent = Agent::new(&tree);
        agent.board_mut(&tree).write(skip, Text::new("false"));
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Failure);
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Failure);
        agent.board_mut(&tree).write(skip, Text::new("maybe"));
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
    }
}
