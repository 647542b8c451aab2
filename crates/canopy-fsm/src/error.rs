//! Why a machine could not be built.
//!
//! Every mistake a machine definition can contain is caught once, by
//! [`MachineBuilder::build`](crate::MachineBuilder::build), and named here
//! with the state it concerns. A transition to an unregistered state is
//! never silently ignored: a crowd of 100,000 agents running a
//! machine with a dead transition is a bug that should stop the program at
//! load time, not be discovered by watching agents that never jump.
//!
//! Triggers are kept as their `Debug` text so that the error type does not
//! depend on the trigger type and can travel through `Box<dyn Error>`.

use std::fmt;

/// What is wrong with a machine definition.
///
/// ```
/// use canopy_fsm::{FsmError, Hooks, MachineBuilder};
/// let mut b = MachineBuilder::<(), (), u8>::new();
/// b.state("Idle", Hooks::new());
/// b.transition("Idle", 1, "Jump");
/// b.start("Idle");
/// let err = b.build().unwrap_err();
/// assert_eq!(err, FsmError::UnknownTarget { from: "Idle".into(), trigger: "1".into(), to: "Jump".into() });
/// assert_eq!(err.to_string(), r#"transition from "Idle" on trigger 1: unknown target state "Jump""#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FsmError {
    /// A machine (the top-level one or a child machine) has no states.
    /// `parent` is `None` for the top-level machine.
    EmptyMachine {
        /// The state owning the empty child machine, if any.
        parent: Option<String>,
    },
    /// A machine has states but no start state. `parent` is `None` for the
    /// top-level machine.
    NoStart {
        /// The state owning the child machine, if any.
        parent: Option<String>,
    },
    /// The start state named for a machine is not declared anywhere.
    UnknownStart {
        /// The name given to `start`.
        state: String,
    },
    /// The start state named for a machine is declared, but in another machine.
    StartElsewhere {
        /// The name given to `start`.
        state: String,
        /// The state owning the machine `start` was called on (`None`: top level).
        parent: Option<String>,
    },
    /// The same state name is declared twice in one machine.
    DuplicateState {
        /// The repeated name.
        state: String,
    },
    /// The same state name is declared in two different machines: a state
    /// has exactly one parent.
    NestedTwice {
        /// The repeated name.
        state: String,
        /// Where it was declared first (`None`: top level).
        first: Option<String>,
        /// Where it was declared again (`None`: top level).
        second: Option<String>,
    },
    /// A transition starts from a state that is not declared.
    UnknownSource {
        /// The name given as the source.
        from: String,
        /// The trigger, as its `Debug` text.
        trigger: String,
    },
    /// A transition leads to a state that is not declared.
    UnknownTarget {
        /// The transition's source state.
        from: String,
        /// The trigger, as its `Debug` text.
        trigger: String,
        /// The name given as the target.
        to: String,
    },
    /// One state has two transitions on the same trigger.
    DuplicateTrigger {
        /// The source state.
        state: String,
        /// The trigger, as its `Debug` text.
        trigger: String,
    },
    /// More states than [`MAX_STATES`](crate::MAX_STATES), at all levels
    /// together.
    TooManyStates {
        /// The first state over the limit, in the machine's flat order
        /// (each machine's states, then its child machines').
        state: String,
        /// The limit.
        max: usize,
    },
    /// A state nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) levels.
    TooDeep {
        /// The state.
        state: String,
        /// Its nesting level, counted from 1 for top-level states.
        depth: usize,
        /// The limit.
        max: usize,
    },
    /// A state's runtime data is larger than [`MAX_STATE_BYTES`](crate::MAX_STATE_BYTES).
    DataTooLarge {
        /// The state.
        state: String,
        /// Its data size.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A machine meant to run inside a tree leaf has a state that runs a
    /// behavior tree; see [`MachineLeaf`](crate::MachineLeaf) for why.
    TreeInLeaf {
        /// The state.
        state: String,
    },
    /// A machine meant to run inside a tree leaf does not fit the leaf's task.
    TooLargeForLeaf {
        /// What does not fit: `"levels"` or `"data bytes"`.
        what: &'static str,
        /// The machine's figure.
        size: usize,
        /// The leaf's capacity.
        max: usize,
    },
    /// This process has built so many machines that a new one could not be
    /// told apart from the others (machine numbers are never reused).
    TooManyMachines,
}

/// `"Move"` in quotes, or `the top level` for the top-level machine.
fn place(parent: &Option<String>) -> String {
    match parent {
        Some(p) => format!("inside {p:?}"),
        None => "at the top level".to_string(),
    }
}

/// `the child machine of "Move"` or `the top-level machine`.
fn machine(parent: &Option<String>) -> String {
    match parent {
        Some(p) => format!("the child machine of {p:?}"),
        None => "the top-level machine".to_string(),
    }
}

impl fmt::Display for FsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsmError::EmptyMachine { parent } => write!(f, "{} has no states", machine(parent)),
            FsmError::NoStart { parent } => write!(f, "{} has no start state", machine(parent)),
            FsmError::UnknownStart { state } => {
                write!(f, "start state {state:?} is not declared")
            }
            FsmError::StartElsewhere { state, parent } => write!(
                f,
                "start state {state:?} is not a state of {}",
                machine(parent)
            ),
            FsmError::DuplicateState { state } => {
                write!(f, "state {state:?} is declared twice in one machine")
            }
            FsmError::NestedTwice {
                state,
                first,
                second,
            } => write!(
                f,
                "state {state:?} is nested in two parents: {} and {}",
                place(first),
                place(second)
            ),
            FsmError::UnknownSource { from, trigger } => {
                write!(
                    f,
                    "transition on trigger {trigger}: unknown source state {from:?}"
                )
            }
            FsmError::UnknownTarget { from, trigger, to } => write!(
                f,
                "transition from {from:?} on trigger {trigger}: unknown target state {to:?}"
            ),
            FsmError::DuplicateTrigger { state, trigger } => write!(
                f,
                "state {state:?} has two transitions on trigger {trigger}"
            ),
            FsmError::TooManyStates { state, max } => write!(
                f,
                "state {state:?} is over the limit of {max} states in one machine"
            ),
            FsmError::TooDeep { state, depth, max } => write!(
                f,
                "state {state:?} is nested {depth} levels deep; at most {max} are allowed"
            ),
            FsmError::DataTooLarge { state, bytes, max } => write!(
                f,
                "state {state:?} has {bytes} bytes of runtime data; at most {max} are allowed"
            ),
            FsmError::TreeInLeaf { state } => write!(
                f,
                "state {state:?} runs a behavior tree, which a machine inside a tree leaf cannot hold"
            ),
            FsmError::TooLargeForLeaf { what, size, max } => write!(
                f,
                "the machine needs {size} {what} but a tree leaf holds at most {max}"
            ),
            FsmError::TooManyMachines => write!(
                f,
                "this process has built {} machines, the most it can tell apart",
                u32::MAX
            ),
        }
    }
}

impl std::error::Error for FsmError {}
