//! Ids, arities, policies, modes, and the arithmetic of ticks.

use std::fmt;

/// Identifies a node definition within its [`Tree`](crate::Tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The node's index in [`Tree::nodes`](crate::Tree::nodes); the root is 0.
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// assert_eq!(tree.root().index(), 0);
    /// ```
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How many children a node takes: BehaviorTree.CPP's grouping of nodes into
/// controls, decorators and leaves.
///
/// ```
/// use canopy_core::{Arity, NodeKind, nodes::Inverter};
/// assert_eq!(NodeKind::<(), ()>::from(Inverter).arity(), Arity::Decorator);
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
    ///
    /// ```
    /// assert_eq!(canopy_core::Arity::Decorator.describe(), "exactly one child");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            Arity::Leaf => "no children",
            Arity::Decorator => "exactly one child",
            Arity::Composite => "any number of children",
        }
    }
}

/// How many children a Parallel needs to meet a policy (the classic
/// `RequireOne` / `RequireAll`).
///
/// ```
/// use canopy_core::Policy;
/// assert_eq!("all".parse::<Policy>(), Ok(Policy::All));
/// assert_eq!(Policy::One.to_string(), "one");
/// assert_eq!("some".parse::<Policy>().unwrap_err().to_string(),
///     "unknown policy \"some\", expected \"one\" or \"all\"");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, crate::ParamEnum)]
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
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Policy, ParseError> {
        match s {
            "one" => Ok(Policy::One),
            "all" => Ok(Policy::All),
            other => Err(ParseError::new("policy", other, "\"one\" or \"all\"")),
        }
    }
}

/// What a [RunOnce](crate::nodes#runoncethen) node returns on the
/// activations after the one in which its child ran to the end.
///
/// ```
/// use canopy_core::Afterwards;
/// assert_eq!("same".parse::<Afterwards>(), Ok(Afterwards::Same));
/// assert_eq!(Afterwards::Success.to_string(), "success");
/// assert_eq!("skip".parse::<Afterwards>().unwrap_err().to_string(),
///     "unknown afterwards \"skip\", expected \"same\", \"success\" or \"failure\"");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, crate::ParamEnum)]
pub enum Afterwards {
    /// The status the child ended with.
    Same,
    /// Success.
    Success,
    /// Failure.
    Failure,
}

impl fmt::Display for Afterwards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Afterwards::Same => "same",
            Afterwards::Success => "success",
            Afterwards::Failure => "failure",
        })
    }
}

impl std::str::FromStr for Afterwards {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Afterwards, ParseError> {
        match s {
            "same" => Ok(Afterwards::Same),
            "success" => Ok(Afterwards::Success),
            "failure" => Ok(Afterwards::Failure),
            other => Err(ParseError::new(
                "afterwards",
                other,
                "\"same\", \"success\" or \"failure\"",
            )),
        }
    }
}

/// How an [`Agent`](crate::Agent) runs its tree. Both give identical
/// results; they differ in cost.
///
/// ```
/// use canopy_core::{Agent, Builder, Mode, Status};
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("s", [b.wait("w", 100), b.always_success("ok")])).unwrap();
/// let mut agent = Agent::new(&tree);
/// agent.set_mode(&tree, Mode::Event);
/// assert_eq!(agent.mode(), Mode::Event);
/// for _ in 0..100 {
///     assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running); // the wait sleeps
/// }
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// assert_eq!("event".parse::<Mode>(), Ok(Mode::Event));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Walk from the root to the running leaves on every tick.
    #[default]
    Tick,
    /// Update only the tasks that can change this tick, and let parents
    /// react when a child finishes (the event-driven tree).
    Event,
}

impl std::str::FromStr for Mode {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Mode, ParseError> {
        match s {
            "tick" => Ok(Mode::Tick),
            "event" => Ok(Mode::Event),
            other => Err(ParseError::new("mode", other, "\"tick\" or \"event\"")),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Tick => "tick",
            Mode::Event => "event",
        })
    }
}

/// A word that is not one of the accepted ones ([`Policy`], [`Mode`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    what: &'static str,
    got: String,
    expected: &'static str,
}

impl ParseError {
    fn new(what: &'static str, got: &str, expected: &'static str) -> Self {
        ParseError {
            what,
            got: got.to_string(),
            expected,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {:?}, expected {}",
            self.what, self.got, self.expected
        )
    }
}

impl std::error::Error for ParseError {}

/// The longest duration, in ticks, a Wait, Timeout or Cooldown may have:
/// 2³¹ − 1. Tick numbers are `u32` and compared with wrapping arithmetic,
/// which is exact for differences below 2³¹, so this bound keeps every
/// timer exact, also across the wrap of the tick counter.
pub const MAX_TICKS: u32 = i32::MAX as u32;

/// Whether tick `now` is at or past tick `then`, in wrapping tick
/// arithmetic (exact while the two are less than 2³¹ apart).
#[inline(always)]
pub(crate) fn reached(now: u32, then: u32) -> bool {
    (now.wrapping_sub(then) as i32) >= 0
}

/// The tick after `tick`: after `u32::MAX` comes 0, then 1, … — plain
/// wrapping, so every difference of ticks stays exact across the wrap.
#[inline(always)]
pub(crate) fn next_tick(tick: u32) -> u32 {
    tick.wrapping_add(1)
}
