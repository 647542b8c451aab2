//! Every kind of node, with its parameters, and the facts about a kind that
//! the tree's layout and the event-driven scheduler need.
//!
//! A kind's facts and semantics are written in its own file under
//! [`nodes`](crate::nodes); this file only names the kinds. Adding one is a
//! variant here, a file there, and one line in the `dispatch!` list of
//! `nodes/mod.rs`; every fact and behaviour is a required item of the
//! `Kind` trait, so a forgotten one is a compile error, not a default.

use std::fmt;
use std::sync::Arc;

use crate::def::custom::CustomNode;
use crate::util::context::{ActionFn, AsyncFn, ConditionFn, Predicate};
use crate::util::primitives::Arity;

/// Every kind of node, with its parameters. Durations are in ticks.
///
/// The semantics of each kind are documented in [`nodes`](crate::nodes).
#[non_exhaustive]
pub enum NodeKind<A, W> {
    /// Children in order until one runs or fails; resumes a running child.
    Sequence,
    /// Children in order until one runs or succeeds; resumes a running child.
    Selector,
    /// A Sequence that remembers across activations where it stopped: after
    /// a failure or an abort it goes on from the child that failed or was
    /// running (BehaviorTree.CPP's `SequenceWithMemory`).
    SequenceWithMemory,
    /// Sequence that re-checks the children before the running one every tick.
    ReactiveSequence,
    /// Priority selector that re-tries higher-priority children every tick.
    ReactiveSelector,
    /// All children every tick, decided by the two policies.
    Parallel {
        /// When the parallel succeeds.
        success: crate::Policy,
        /// When the parallel fails.
        failure: crate::Policy,
    },
    /// Swaps Success and Failure.
    Inverter,
    /// Turns a finished child into Success.
    ForceSuccess,
    /// Turns a finished child into Failure.
    ForceFailure,
    /// Runs the child to success this many times, one completion per tick.
    Repeat(u32),
    /// Re-runs a failing child, up to this many attempts.
    Retry(u32),
    /// Enters the child only if the condition holds when the guard is entered.
    Guard(Predicate<A, W>),
    /// Re-checks the condition every tick and aborts the child when it fails.
    ReactiveGuard(Predicate<A, W>),
    /// Fails and aborts the child once it has run this many ticks.
    Timeout(u32),
    /// After the child finishes, fails for this many ticks without running it.
    Cooldown(u32),
    /// Runs the child to the end once per agent; afterwards returns what
    /// [`Afterwards`](crate::Afterwards) says without running it.
    RunOnce(crate::Afterwards),
    /// Leaf: user code returning a status.
    Action(ActionFn<A, W>),
    /// Leaf: user code returning true (Success) or false (Failure).
    Condition(ConditionFn<A, W>),
    /// Leaf: always Success.
    AlwaysSuccess,
    /// Leaf: always Failure.
    AlwaysFailure,
    /// Leaf: always Running.
    AlwaysRunning,
    /// Leaf: Running until this many ticks have passed since it was entered.
    Wait(u32),
    /// Leaf: starts work when entered and stays Running until the work's
    /// [`Ticket`](crate::Ticket) is completed from outside the tick.
    Async(AsyncFn<A, W>),
    /// A user-defined node type with its own task (see [`Node`](crate::Node)).
    Custom(CustomNode<A, W>),
}

/// How a node's behavior slots — the places its children's tasks are
/// installed — map to its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotPlan {
    /// Leaves.
    None,
    /// One slot shared by all children, which run one at a time.
    Shared,
    /// Two slots: the running child and the one being re-checked. The
    /// last child is never re-checked while another runs, so the second
    /// slot need not fit it.
    Reactive,
    /// One slot per child: they may all run at once.
    PerChild,
}

impl SlotPlan {
    /// How many slots a node with `children` children has.
    pub(crate) fn count(self, children: usize) -> usize {
        match self {
            SlotPlan::None => 0,
            SlotPlan::Shared => usize::from(children > 0),
            SlotPlan::Reactive => 2.min(children),
            SlotPlan::PerChild => children,
        }
    }
}

/// How the event-driven scheduler treats a running task of a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sched {
    /// Passes ticks through: its running children have frames of their
    /// own, and it is updated only when one of them finishes (or at a
    /// moment of its own, see [`Wake`](crate::def::exec::Wake)).
    Passive,
    /// Updated on every tick, with nothing below it scheduled: the subtree
    /// runs tick-from-root (user code, reactive nodes).
    EveryTick,
    /// A leaf that says itself when it must be updated (a Wait's end, an
    /// async leaf's completion, never).
    OnItsOwn,
}

/// What the tree's layout and the scheduler know about a kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts {
    /// How many children it takes.
    pub(crate) arity: Arity,
    /// One line saying what it does (for `canopy nodes` and the docs).
    pub(crate) about: &'static str,
    /// Bytes of its task's own state.
    pub(crate) own: u32,
    /// Bytes it keeps per agent across activations (per place in the
    /// tree), as little-endian `u32` words. Zero in a new agent.
    pub(crate) persist: u32,
    /// Whether those words are ticks on the agent's clock, from which the
    /// node is free again (a reached one means "free"). The agent moves
    /// reached ones up to the present every 2³⁰ ticks (see `Agent::tick`),
    /// so none ages into the range where wrapping comparisons would misread
    /// it, and a hot reload sets the ones it cannot carry to "now". Other
    /// words (a child index, a remembered status) are left alone by the
    /// clock and start at zero after a reload; the tree lists where the
    /// tick words are ([`Tree::tick_words`](crate::Tree)).
    pub(crate) persist_ticks: bool,
    /// Where its children's tasks live.
    pub(crate) slots: SlotPlan,
    /// How the event-driven scheduler treats it.
    pub(crate) sched: Sched,
    /// Suspended waits a running task of this kind holds itself.
    pub(crate) waits: u32,
}

impl<A, W> NodeKind<A, W> {
    /// The type name used in traces, printed trees and tree files.
    ///
    /// ```
    /// use canopy_core::{NodeKind, Policy};
    /// let p = NodeKind::<(), ()>::Parallel { success: Policy::One, failure: Policy::All };
    /// assert_eq!(p.type_name(), "Parallel");
    /// ```
    pub fn type_name(&self) -> &str {
        match self {
            NodeKind::Sequence => "Sequence",
            NodeKind::Selector => "Selector",
            NodeKind::SequenceWithMemory => "SequenceWithMemory",
            NodeKind::ReactiveSequence => "ReactiveSequence",
            NodeKind::ReactiveSelector => "ReactiveSelector",
            NodeKind::Parallel { .. } => "Parallel",
            NodeKind::Inverter => "Inverter",
            NodeKind::ForceSuccess => "ForceSuccess",
            NodeKind::ForceFailure => "ForceFailure",
            NodeKind::Repeat(_) => "Repeat",
            NodeKind::Retry(_) => "Retry",
            NodeKind::Guard(_) => "Guard",
            NodeKind::ReactiveGuard(_) => "ReactiveGuard",
            NodeKind::Timeout(_) => "Timeout",
            NodeKind::Cooldown(_) => "Cooldown",
            NodeKind::RunOnce(_) => "RunOnce",
            NodeKind::Action(_) => "Action",
            NodeKind::Condition(_) => "Condition",
            NodeKind::AlwaysSuccess => "AlwaysSuccess",
            NodeKind::AlwaysFailure => "AlwaysFailure",
            NodeKind::AlwaysRunning => "AlwaysRunning",
            NodeKind::Wait(_) => "Wait",
            NodeKind::Async(_) => "Async",
            NodeKind::Custom(c) => c.type_name(),
        }
    }

    /// The parameters as `(name, value)` pairs, in the words tree files use.
    ///
    /// ```
    /// use canopy_core::NodeKind;
    /// assert_eq!(NodeKind::<(), ()>::Repeat(3).params(), vec![("times".to_string(), "3".to_string())]);
    /// ```
    pub fn params(&self) -> Vec<(String, String)> {
        let one = |k: &str, v: String| vec![(k.to_string(), v)];
        match self {
            NodeKind::Parallel { success, failure } => vec![
                ("success".to_string(), success.to_string()),
                ("failure".to_string(), failure.to_string()),
            ],
            NodeKind::Repeat(n) | NodeKind::Retry(n) => one("times", n.to_string()),
            NodeKind::Wait(n) | NodeKind::Timeout(n) | NodeKind::Cooldown(n) => {
                one("ticks", n.to_string())
            }
            NodeKind::Guard(p) | NodeKind::ReactiveGuard(p) => match &p.label {
                Some(label) => one("condition", label.clone()),
                None => Vec::new(),
            },
            NodeKind::RunOnce(then) => one("then", then.to_string()),
            NodeKind::Custom(c) => c.params(),
            NodeKind::Sequence
            | NodeKind::Selector
            | NodeKind::SequenceWithMemory
            | NodeKind::ReactiveSequence
            | NodeKind::ReactiveSelector
            | NodeKind::Inverter
            | NodeKind::ForceSuccess
            | NodeKind::ForceFailure
            | NodeKind::Action(_)
            | NodeKind::Condition(_)
            | NodeKind::AlwaysSuccess
            | NodeKind::AlwaysFailure
            | NodeKind::AlwaysRunning
            | NodeKind::Async(_) => Vec::new(),
        }
    }
}

impl<A, W> Clone for NodeKind<A, W> {
    fn clone(&self) -> Self {
        match self {
            NodeKind::Sequence => NodeKind::Sequence,
            NodeKind::Selector => NodeKind::Selector,
            NodeKind::SequenceWithMemory => NodeKind::SequenceWithMemory,
            NodeKind::ReactiveSequence => NodeKind::ReactiveSequence,
            NodeKind::ReactiveSelector => NodeKind::ReactiveSelector,
            NodeKind::Parallel { success, failure } => NodeKind::Parallel {
                success: *success,
                failure: *failure,
            },
            NodeKind::Inverter => NodeKind::Inverter,
            NodeKind::ForceSuccess => NodeKind::ForceSuccess,
            NodeKind::ForceFailure => NodeKind::ForceFailure,
            NodeKind::Repeat(n) => NodeKind::Repeat(*n),
            NodeKind::Retry(n) => NodeKind::Retry(*n),
            NodeKind::Guard(p) => NodeKind::Guard(p.clone()),
            NodeKind::ReactiveGuard(p) => NodeKind::ReactiveGuard(p.clone()),
            NodeKind::Timeout(n) => NodeKind::Timeout(*n),
            NodeKind::Cooldown(n) => NodeKind::Cooldown(*n),
            NodeKind::RunOnce(then) => NodeKind::RunOnce(*then),
            NodeKind::Action(f) => NodeKind::Action(Arc::clone(f)),
            NodeKind::Condition(f) => NodeKind::Condition(Arc::clone(f)),
            NodeKind::AlwaysSuccess => NodeKind::AlwaysSuccess,
            NodeKind::AlwaysFailure => NodeKind::AlwaysFailure,
            NodeKind::AlwaysRunning => NodeKind::AlwaysRunning,
            NodeKind::Wait(n) => NodeKind::Wait(*n),
            NodeKind::Async(f) => NodeKind::Async(Arc::clone(f)),
            NodeKind::Custom(c) => NodeKind::Custom(c.clone()),
        }
    }
}

impl<A, W> fmt::Debug for NodeKind<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.type_name())?;
        let params = self.params();
        if !params.is_empty() {
            f.write_str("(")?;
            for (i, (k, v)) in params.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{k}={v}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}
