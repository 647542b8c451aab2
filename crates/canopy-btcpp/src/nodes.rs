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
//! - Time is the agent's tick counter; durations were converted from
//!   milliseconds to ticks at load.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Arity, Children, Ctx, Node, Status};

/// Abort, in child order, every child still running: BehaviorTree.CPP's
/// `resetChildren()` / `haltChildren()`.
fn abort_running<A, W>(children: &mut Children<A, W>, cx: &mut Ctx<A, W>) {
    for i in 0..children.len() {
        if children.is_running(i) {
            children.abort(i, cx);
        }
    }
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
/// aborted.
pub(crate) struct Parallel {
    pub(crate) success_count: i32,
    pub(crate) failure_count: i32,
    /// The thresholds for this node's number of children.
    pub(crate) success_needed: usize,
    pub(crate) failure_needed: usize,
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
        vec![
            ("success_count".to_string(), self.success_count.to_string()),
            ("failure_count".to_string(), self.failure_count.to_string()),
        ]
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
            if success >= self.success_needed {
                abort_running(children, cx);
                return Status::Success;
            }
            if n - failure < self.success_needed || failure == self.failure_needed {
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
/// failed, else Success.
pub(crate) struct ParallelAll {
    pub(crate) max_failures: i32,
    pub(crate) failures_needed: usize,
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
        vec![("max_failures".to_string(), self.max_failures.to_string())]
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
        } else if task.failure as usize >= self.failures_needed {
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
/// reaching `count` returns `until`, at once when `count` ≤ 0.
pub(crate) struct Loop {
    pub(crate) type_name: &'static str,
    pub(crate) param: &'static str,
    pub(crate) count: i32,
    pub(crate) until: Status,
}

impl Loop {
    fn more(&self, done: u32) -> bool {
        self.count == -1 || (done as i64) < self.count as i64
    }
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
        vec![(self.param.to_string(), self.count.to_string())]
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
        while self.more(task.done) {
            let entered = !children.is_running(0);
            let status = children.update(0, cx);
            if status == Status::Running {
                return Status::Running;
            }
            if status != self.until {
                return status;
            }
            task.done = task.done.saturating_add(1);
            // A child that started and finished within this update yields:
            // the next cycle starts at the next tick.
            if entered && self.more(task.done) {
                return Status::Running;
            }
        }
        self.until
    }
}

/// The tick a Delay was entered.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
pub(crate) struct Entered {
    tick: u32,
}

/// `Delay`: Running without touching the child until `ticks` ticks after
/// it was entered (`ticks` ≥ 1); from then on the child's status is the
/// node's.
pub(crate) struct Delay {
    pub(crate) delay_msec: u32,
    pub(crate) ticks: u32,
}

impl<A: 'static, W: 'static> Node<A, W> for Delay {
    type Task = Entered;

    fn type_name(&self) -> &str {
        "Delay"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("delay_msec".to_string(), self.delay_msec.to_string()),
            ("ticks".to_string(), self.ticks.to_string()),
        ]
    }

    fn create_task(&self, cx: &mut Ctx<A, W>) -> Entered {
        Entered { tick: cx.tick }
    }

    fn update(
        &self,
        task: &mut Entered,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        if cx.tick.wrapping_sub(task.tick) < self.ticks {
            return Status::Running;
        }
        children.update(0, cx)
    }
}

/// `Timeout` with `msec="0"`: BehaviorTree.CPP starts no timer, so the
/// child's status is the node's.
pub(crate) struct NoTimeout;

impl<A: 'static, W: 'static> Node<A, W> for NoTimeout {
    type Task = ();

    fn type_name(&self) -> &str {
        "Timeout"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("msec".to_string(), "0".to_string())]
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        children.update(0, cx)
    }
}
