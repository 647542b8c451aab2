//! The shared definition of one node: its kind and parameters.
//!
//! A node definition is immutable and shared by every agent; the per-agent
//! side of a node is its *task*, which exists only while the node is
//! installed (see [`nodes`](crate::nodes) for what each kind's task does).
//! Leaf code is stored as `Arc<dyn Fn>` so a definition can be cloned into
//! several trees (and into the naive baseline) without copying closures.

use std::fmt;
use std::sync::Arc;

use crate::asynchronous::AsyncFn;
use crate::context::Ctx;
use crate::custom::CustomNode;
use crate::status::Status;

/// Leaf code of an [`NodeKind::Action`]: may change the agent, reads the world.
pub type ActionFn<A, W> = Arc<dyn Fn(&mut Ctx<A, W>) -> Status + Send + Sync>;

/// Leaf code of a [`NodeKind::Condition`] or a guard: reads only.
pub type ConditionFn<A, W> = Arc<dyn Fn(&Ctx<A, W>) -> bool + Send + Sync>;

/// How many children a Parallel needs to meet a policy (seed 000's
/// `RequireOne` / `RequireAll`).
///
/// ```
/// use canopy_core::Policy;
/// assert_eq!("all".parse::<Policy>(), Ok(Policy::All));
/// assert_eq!(Policy::One.to_string(), "one");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Decided as soon as one child meets it.
    One,
    /// Decided when every child meets it.
    All,
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::One => "one",
            Policy::All => "all",
        })
    }
}

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Policy, String> {
        match s {
            "one" => Ok(Policy::One),
            "all" => Ok(Policy::All),
            other => Err(format!(
                "unknown policy \"{other}\", expected \"one\" or \"all\""
            )),
        }
    }
}

/// How many children a node takes: BehaviorTree.CPP's grouping of nodes into
/// controls, decorators and leaves.
///
/// ```
/// use canopy_core::{Arity, NodeKind};
/// assert_eq!(NodeKind::<(), ()>::Inverter.arity(), Arity::Decorator);
/// assert!(Arity::Composite.accepts(0));
/// assert!(!Arity::Decorator.accepts(2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arity {
    /// No children.
    Leaf,
    /// Exactly one child.
    Decorator,
    /// Any number of children.
    Composite,
}

impl Arity {
    /// Whether a node of this arity may have `children` children.
    pub fn accepts(self, children: usize) -> bool {
        match self {
            Arity::Leaf => children == 0,
            Arity::Decorator => children == 1,
            Arity::Composite => true,
        }
    }

    /// What this arity requires, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Arity::Leaf => "no children",
            Arity::Decorator => "exactly one child",
            Arity::Composite => "any number of children",
        }
    }
}

/// A guard's condition together with a label for printing the tree.
pub struct Predicate<A, W> {
    /// Shown by tree printers as the guard's `condition` parameter.
    pub label: Option<String>,
    /// The check itself.
    pub check: ConditionFn<A, W>,
}

impl<A, W> Predicate<A, W> {
    /// A labelled condition.
    ///
    /// ```
    /// use canopy_core::Predicate;
    /// let hungry = Predicate::<u32, ()>::new("hungry", |cx| *cx.agent > 5);
    /// assert_eq!(hungry.label.as_deref(), Some("hungry"));
    /// ```
    pub fn new<F>(label: impl Into<String>, check: F) -> Self
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        Predicate {
            label: Some(label.into()),
            check: Arc::new(check),
        }
    }
}

impl<A, W> Clone for Predicate<A, W> {
    fn clone(&self) -> Self {
        Predicate {
            label: self.label.clone(),
            check: Arc::clone(&self.check),
        }
    }
}

/// Every kind of node, with its parameters. Durations are in ticks.
///
/// The semantics of each kind are documented once, in [`nodes`](crate::nodes).
pub enum NodeKind<A, W> {
    /// Children in order until one runs or fails (with memory).
    Sequence,
    /// Children in order until one runs or succeeds (with memory).
    Selector,
    /// Sequence that re-checks the children before the running one every tick.
    ReactiveSequence,
    /// Priority selector that re-tries higher-priority children every tick.
    ReactiveSelector,
    /// All children every tick, decided by the two policies.
    Parallel {
        /// When the parallel succeeds.
        success: Policy,
        /// When the parallel fails.
        failure: Policy,
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

    /// How many children this kind takes.
    pub fn arity(&self) -> Arity {
        match self {
            NodeKind::Sequence
            | NodeKind::Selector
            | NodeKind::ReactiveSequence
            | NodeKind::ReactiveSelector
            | NodeKind::Parallel { .. } => Arity::Composite,
            NodeKind::Inverter
            | NodeKind::ForceSuccess
            | NodeKind::ForceFailure
            | NodeKind::Repeat(_)
            | NodeKind::Retry(_)
            | NodeKind::Guard(_)
            | NodeKind::ReactiveGuard(_)
            | NodeKind::Timeout(_)
            | NodeKind::Cooldown(_) => Arity::Decorator,
            NodeKind::Action(_)
            | NodeKind::Condition(_)
            | NodeKind::AlwaysSuccess
            | NodeKind::AlwaysFailure
            | NodeKind::AlwaysRunning
            | NodeKind::Wait(_)
            | NodeKind::Async(_) => Arity::Leaf,
            NodeKind::Custom(c) => c.arity(),
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
            NodeKind::Custom(c) => c.params(),
            _ => Vec::new(),
        }
    }
}

impl<A, W> Clone for NodeKind<A, W> {
    fn clone(&self) -> Self {
        match self {
            NodeKind::Sequence => NodeKind::Sequence,
            NodeKind::Selector => NodeKind::Selector,
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
