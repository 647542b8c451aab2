//! What every node kind does: the semantics, in one place.
//!
//! Each kind — or pair of mirror-image kinds — lives in a file of its own
//! holding everything about it: its facts (how many children, how much
//! task memory, how its children share memory, how the event-driven
//! scheduler treats it, what it says about itself) and its semantics
//! (update, end, which children run, when it wakes). The rules below are
//! the contract those files implement. Every
//! task is updated at most once per tick unless a parent re-enters it; a
//! child that finishes is uninstalled at once and starts fresh when entered
//! again. A task that is still running when its parent stops needing it is
//! **aborted**: its running children are aborted first (deepest first), then
//! its terminate hook sees [`Exit::Aborted`]. After the
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
//! ## SequenceWithMemory
//! A Sequence whose place outlives its activation: it remembers, per agent
//! (and per place in the tree), the child it stopped at. When it is
//! entered it goes on from the child that failed last time, or from the one
//! that was running when it was aborted, without re-running the children
//! before it; once every child has succeeded it starts from the first
//! again. BehaviorTree.CPP's `SequenceWithMemory`. No children: `Success`.
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
//! longer be reached (the classic version would return `Running` forever).
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
//! re-entered fresh on the next tick. `1 ≤ n ≤ u32::MAX`, counted exactly.
//!
//! ## Retry(n)
//! A child `Failure` re-runs it from scratch on the next tick, up to `n`
//! attempts in all; the n-th failure is `Failure`. A child `Success` is
//! `Success`. `1 ≤ n ≤ u32::MAX`.
//!
//! ## Guard
//! The condition is checked once, when the guard is entered: false is
//! `Failure` without running the child; true runs the child to its end
//! without checking again (the classic decorator).
//!
//! ## ReactiveGuard
//! The condition is checked every tick before the child: once false, the
//! running child is aborted and the guard fails.
//!
//! ## Timeout(n)
//! The child is updated on the first `n` ticks after the timeout was
//! entered; on the tick `n` ticks after entry, if the child is still
//! running, it is aborted and the timeout fails. `1 ≤ n ≤ 2³¹ − 1`.
//!
//! ## Cooldown(n)
//! When the child finishes (or is aborted), the node cools down: for the
//! next `n` ticks entering it fails at once without running the child. The
//! cooldown is kept per agent across activations of the node (and per
//! place in the tree, for a shared subtree). `1 ≤ n ≤ 2³¹ − 1`.
//!
//! ## RunOnce(then)
//! Runs the child to the end once per agent (and per place in the tree).
//! On later activations it does not run the child and returns, by `then`:
//! `same`, the status the child ended with; `success`; or `failure`. An
//! activation aborted while the child runs does not count: the next one
//! runs the child afresh. BehaviorTree.CPP's `RunOnce` with
//! `then_skip="false"` is `same`.
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
//! succeeds at once. `n ≤ 2³¹ − 1`.
//!
//! ## Async
//! User code called once, when the leaf is entered, with a
//! [`Ticket`](crate::Ticket); it may finish at once or return `Running`,
//! which suspends the leaf until the ticket is completed from outside the
//! tick ([`Agent::complete`](crate::Agent::complete)). The leaf then
//! reports the completed status on its next update. A ticket goes stale
//! when its leaf ends (finishes or is aborted), and completing a stale
//! ticket does nothing. See [`Ticket`](crate::Ticket).
//!
//! ## Custom
//! A user [`Node`](crate::Node) with its own task; it may run children
//! through [`Children`](crate::Children).
//!
//! # Scheduling
//! Everything above is stated for tick-from-root, where the root is updated
//! every tick. The event-driven mode ([`Mode::Event`](crate::Mode)) gives
//! the same results while updating only the tasks that can change; see
//! [`Mode`](crate::Mode).
//!
//! # Time
//! Durations are counted in the agent's ticks ([`Ctx::tick`](crate::Ctx)),
//! never in wall-clock time, so a run replays exactly. Tick numbers are
//! `u32`: after `u32::MAX` the counter goes on at 0. They are compared
//! with wrapping arithmetic, exact for differences below 2³¹, so durations
//! are limited to [`MAX_TICKS`](crate::MAX_TICKS) = 2³¹ − 1 (longer ones are
//! a [`BuildError`](crate::BuildError)), and every timer stays exact across
//! the wrap: a running Wait or Timeout measures from its own entry, and the
//! agent moves cooldown ends that have passed up to the present every 2³⁰
//! ticks, long before they could be mistaken for future ticks.
//!
//! # Where this differs from BehaviorTree.CPP
//! Repeat and Retry advance one child cycle per tick (as py_trees does)
//! where BT.CPP loops inside one tick; Sequence and Selector resume their
//! running child, as BT.CPP's `Sequence` and `Fallback` do, and start
//! again from the first child once they finish (SequenceWithMemory is
//! BT.CPP's, which after a failure goes on from the failed child); RunOnce
//! has no SKIPPED status to return after its run, so `then` says what it
//! returns instead; a Parallel never re-runs a
//! child that already finished within one activation; Guard is the classic
//! entry-checked decorator and ReactiveGuard its re-checking variant.
//!
//! [`One`]: crate::Policy::One
//!
//! # Inlining
//! A kind's hooks are `#[inline(always)]` into the task's visit in
//! optimised builds only (`cfg_attr(not(debug_assertions), …)`). At
//! opt-level 0 LLVM gives every inlined body stack slots of its own, so
//! inlining all kinds into one visit made debug frames so large that a tree
//! at the loader's depth limit (256 levels) overflowed an 8 MiB stack;
//! debug builds keep the calls and small frames instead.

mod asynchronous;
mod cooldown;
mod custom;
mod guard;
mod leaves;
mod once;
mod parallel;
mod reactive;
mod repeat;
mod reshape;
mod sequence;
mod timeout;
mod wait;

use crate::def::exec::{Exec, Visit, Wake};
use crate::def::kind::{Facts, NodeKind};
use crate::util::context::Ctx;
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

pub(crate) use custom::user_leaf;
pub(crate) use leaves::{Leaf, stateless};

/// Everything about one kind of node. Every item is required, so a new
/// kind cannot forget one; the engine, the layout, the scheduler, the
/// inspector and snapshots all ask through here.
pub(crate) trait Kind<A, W> {
    /// What the layout and the scheduler need to know.
    fn facts(&self, children: usize) -> Facts;

    /// What is wrong with the node's parameters, if anything (the child
    /// count is checked against `Facts::arity` separately).
    fn check(&self, children: usize) -> Option<String>;

    /// The task was just installed; its first update follows.
    fn enter<E: Exec<A, W>>(&self, t: &mut E, cx: &mut Ctx<A, W>);

    /// Advance the task: its first update, a later one, or the reaction
    /// to a finished child.
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status;

    /// The task ends: it finished, or it was aborted after its running
    /// children were.
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, cx: &mut Ctx<A, W>);

    /// The first running child at index `from` or later, and its slot,
    /// read from the state of a running task.
    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)>;

    /// Whether `state` is a state a running task of this kind can be in
    /// (checked before a restored agent's memory is used).
    fn valid(&self, state: &[u8], children: usize) -> bool;

    /// When the event-driven scheduler must update the running task.
    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake;

    /// The agent's wait that a running task with this state holds, if any.
    fn holds_wait(&self, state: &[u8]) -> Option<u32>;

    /// Rewrite a running task's state for an edited tree (hot reload):
    /// `old` is its state, `new` (zeroed) its state in the new tree, and
    /// `carry` says where each child went. `false` if the task cannot go
    /// on without a running child that was lost.
    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool;

    /// The running task's state in words, for inspectors (`now` is the
    /// agent's current tick).
    fn describe(&self, state: &[u8], children: usize, now: u32) -> String;
}

/// Where the children of a running task went in an edited tree.
pub(crate) struct Carry<'m> {
    /// For each old child: its index among the new children, if a child
    /// with its name and type is there.
    pub(crate) to_new: &'m [Option<u32>],
    /// For each old child: it was running and goes on running (its own
    /// state carried over) at its new index.
    pub(crate) kept: &'m [bool],
    /// How many children the node has in the new tree.
    pub(crate) new_children: usize,
}

impl Carry<'_> {
    /// The new index of old child `old` if it was running and goes on.
    pub(crate) fn kept_at(&self, old: usize) -> Option<usize> {
        match (self.kept.get(old), self.to_new.get(old)) {
            (Some(true), Some(Some(new))) => Some(*new as usize),
            _ => None,
        }
    }

    /// Where an in-order parent goes on after its running child `old` was
    /// lost: just after the last of the children before it that are in the
    /// new tree (so a renamed child is entered afresh, a removed one is
    /// passed over).
    pub(crate) fn resume_at(&self, old: usize) -> usize {
        self.to_new[..old.min(self.to_new.len())]
            .iter()
            .flatten()
            .map(|&new| new as usize + 1)
            .max()
            .unwrap_or(0)
    }
}

/// Runs `$body` with `$k` bound to the [`Kind`] of `$kind`: the one list
/// that connects each [`NodeKind`] variant to its file.
macro_rules! dispatch {
    ($kind:expr, $k:ident => $body:expr) => {
        match $kind {
            NodeKind::Sequence => {
                let $k = &sequence::InOrder::SEQUENCE;
                $body
            }
            NodeKind::Selector => {
                let $k = &sequence::InOrder::SELECTOR;
                $body
            }
            NodeKind::SequenceWithMemory => {
                let $k = &sequence::InOrder::SEQUENCE_WITH_MEMORY;
                $body
            }
            NodeKind::ReactiveSequence => {
                let $k = &reactive::Reactive::SEQUENCE;
                $body
            }
            NodeKind::ReactiveSelector => {
                let $k = &reactive::Reactive::SELECTOR;
                $body
            }
            NodeKind::Parallel { success, failure } => {
                let $k = &parallel::Parallel {
                    success: *success,
                    failure: *failure,
                };
                $body
            }
            NodeKind::Inverter => {
                let $k = &reshape::Reshape::INVERTER;
                $body
            }
            NodeKind::ForceSuccess => {
                let $k = &reshape::Reshape::FORCE_SUCCESS;
                $body
            }
            NodeKind::ForceFailure => {
                let $k = &reshape::Reshape::FORCE_FAILURE;
                $body
            }
            NodeKind::Repeat(times) => {
                let $k = &repeat::Repeat::counting_successes(*times);
                $body
            }
            NodeKind::Retry(times) => {
                let $k = &repeat::Repeat::counting_failures(*times);
                $body
            }
            NodeKind::Guard(p) => {
                let $k = &guard::Guard { check: &p.check };
                $body
            }
            NodeKind::ReactiveGuard(p) => {
                let $k = &guard::ReactiveGuard { check: &p.check };
                $body
            }
            NodeKind::Timeout(ticks) => {
                let $k = &timeout::Timeout { ticks: *ticks };
                $body
            }
            NodeKind::Cooldown(ticks) => {
                let $k = &cooldown::Cooldown { ticks: *ticks };
                $body
            }
            NodeKind::RunOnce(then) => {
                let $k = &once::RunOnce { then: *then };
                $body
            }
            NodeKind::Action(f) => {
                let $k = &leaves::Leaf::Action(f);
                $body
            }
            NodeKind::Condition(f) => {
                let $k = &leaves::Leaf::Condition(f);
                $body
            }
            NodeKind::AlwaysSuccess => {
                let $k = &leaves::Leaf::Constant(Status::Success);
                $body
            }
            NodeKind::AlwaysFailure => {
                let $k = &leaves::Leaf::Constant(Status::Failure);
                $body
            }
            NodeKind::AlwaysRunning => {
                let $k = &leaves::Leaf::Constant(Status::Running);
                $body
            }
            NodeKind::Wait(ticks) => {
                let $k = &wait::Wait { ticks: *ticks };
                $body
            }
            NodeKind::Async(start) => {
                let $k = &asynchronous::AsyncLeaf(start);
                $body
            }
            NodeKind::Custom(node) => {
                let $k = &custom::Custom(node);
                $body
            }
        }
    };
}

/// Something done with a node's [`Kind`] known statically: the engine's
/// task lifecycle is written once, against any kind, and [`with_kind`]
/// monomorphises it per kind, so a visit dispatches on the kind once.
pub(crate) trait WithKind<A, W> {
    type Out;
    fn with<K: Kind<A, W>>(self, k: &K) -> Self::Out;
}

/// Run `f` with the [`Kind`] of `kind`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn with_kind<A, W, F: WithKind<A, W>>(kind: &NodeKind<A, W>, f: F) -> F::Out {
    dispatch!(kind, k => f.with(k))
}

// The rest of the crate reaches the kinds through these functions.

pub(crate) fn facts<A, W>(kind: &NodeKind<A, W>, children: usize) -> Facts {
    dispatch!(kind, k => Kind::<A, W>::facts(k, children))
}

pub(crate) fn check<A, W>(kind: &NodeKind<A, W>, children: usize) -> Option<String> {
    dispatch!(kind, k => Kind::<A, W>::check(k, children))
}

#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn update<A, W, E: Exec<A, W>>(
    kind: &NodeKind<A, W>,
    t: &mut E,
    visit: Visit,
    cx: &mut Ctx<A, W>,
) -> Status {
    dispatch!(kind, k => k.update(t, visit, cx))
}

#[inline]
pub(crate) fn end<A, W, E: Exec<A, W>>(
    kind: &NodeKind<A, W>,
    t: &mut E,
    exit: Exit,
    cx: &mut Ctx<A, W>,
) {
    dispatch!(kind, k => k.end(t, exit, cx))
}

pub(crate) fn next_running<A, W>(
    kind: &NodeKind<A, W>,
    state: &[u8],
    children: usize,
    from: usize,
) -> Option<(usize, usize)> {
    dispatch!(kind, k => Kind::<A, W>::next_running(k, state, children, from))
}

/// Abort whichever children of a running task are running, in child
/// order, each deepest first.
#[inline(never)]
pub(crate) fn abort_children<A, W, E: Exec<A, W>>(
    kind: &NodeKind<A, W>,
    t: &mut E,
    cx: &mut Ctx<A, W>,
) {
    dispatch!(kind, k => abort_running(k, t, cx))
}

/// [`abort_children`] for a kind's own code, which knows its kind.
fn abort_running<A, W, K: Kind<A, W>, E: Exec<A, W>>(k: &K, t: &mut E, cx: &mut Ctx<A, W>) {
    let n = t.children();
    let mut from = 0;
    while let Some((child, slot)) = k.next_running(t.state(), n, from) {
        t.abort(child, slot, cx);
        from = child + 1;
    }
}

pub(crate) fn valid<A, W>(kind: &NodeKind<A, W>, state: &[u8], children: usize) -> bool {
    dispatch!(kind, k => Kind::<A, W>::valid(k, state, children))
}

pub(crate) fn wake<A, W, E: Exec<A, W>>(kind: &NodeKind<A, W>, t: &mut E) -> Wake {
    dispatch!(kind, k => k.wake(t))
}

pub(crate) fn waits_on<A, W>(kind: &NodeKind<A, W>, state: &[u8]) -> Option<u32> {
    dispatch!(kind, k => Kind::<A, W>::holds_wait(k, state))
}

pub(crate) fn carry<A, W>(
    kind: &NodeKind<A, W>,
    old: &[u8],
    new: &mut [u8],
    c: &Carry<'_>,
) -> bool {
    dispatch!(kind, k => Kind::<A, W>::carry(k, old, new, c))
}

pub(crate) fn describe<A, W>(
    kind: &NodeKind<A, W>,
    state: &[u8],
    children: usize,
    now: u32,
) -> String {
    dispatch!(kind, k => Kind::<A, W>::describe(k, state, children, now))
}

impl<A, W> NodeKind<A, W> {
    /// How many children this kind takes.
    pub fn arity(&self) -> Arity {
        facts(self, 0).arity
    }

    /// One line saying what this kind does, as `canopy nodes` shows it.
    ///
    /// ```
    /// use canopy_core::NodeKind;
    /// assert_eq!(NodeKind::<(), ()>::Inverter.about(), "swaps Success and Failure");
    /// ```
    pub fn about(&self) -> &'static str {
        facts(self, 0).about
    }
}
