//! BehaviorTree.CPP 4's standard node library, as the importer sees it:
//! which IDs canopy runs (and how), which it refuses (and what to write
//! instead), and the element names with a meaning of their own.

/// How a node is written in a `<TreeNodesModel>` and in the explicit form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Category {
    Action,
    Condition,
    Control,
    Decorator,
}

impl Category {
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Category::Action => "Action",
            Category::Condition => "Condition",
            Category::Control => "Control",
            Category::Decorator => "Decorator",
        }
    }

    pub(crate) fn from_tag(tag: &str) -> Option<Category> {
        Some(match tag {
            "Action" => Category::Action,
            "Condition" => Category::Condition,
            "Control" => Category::Control,
            "Decorator" => Category::Decorator,
            _ => return None,
        })
    }
}

/// A standard node canopy runs with BehaviorTree.CPP's semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Std {
    Sequence,
    SequenceWithMemory,
    Fallback,
    ReactiveSequence,
    ReactiveFallback,
    Parallel,
    ParallelAll,
    IfThenElse,
    WhileDoElse,
    Inverter,
    ForceSuccess,
    ForceFailure,
    KeepRunningUntilFailure,
    RetryUntilSuccessful,
    Repeat,
    RunOnce,
    Timeout,
    Delay,
    Sleep,
    AlwaysSuccess,
    AlwaysFailure,
    UnsetBlackboard,
    WasEntryUpdated,
    SkipUnlessUpdated,
    WaitValueUpdate,
}

/// The type of a standard node's port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PortType {
    /// BehaviorTree.CPP's `int`.
    Int,
    /// BehaviorTree.CPP's `unsigned`: milliseconds.
    Msec,
    /// BehaviorTree.CPP's `bool`: `true` or `false` (1 or 0).
    Bool,
}

/// One input port of a standard node, with its default (`None`: required).
pub(crate) struct Port {
    pub(crate) name: &'static str,
    pub(crate) kind: PortType,
    pub(crate) default: Option<i64>,
}

const fn port(name: &'static str, kind: PortType, default: Option<i64>) -> Port {
    Port {
        name,
        kind,
        default,
    }
}

impl Std {
    pub(crate) const ALL: [Std; 25] = [
        Std::Sequence,
        Std::SequenceWithMemory,
        Std::Fallback,
        Std::ReactiveSequence,
        Std::ReactiveFallback,
        Std::Parallel,
        Std::ParallelAll,
        Std::IfThenElse,
        Std::WhileDoElse,
        Std::Inverter,
        Std::ForceSuccess,
        Std::ForceFailure,
        Std::KeepRunningUntilFailure,
        Std::RetryUntilSuccessful,
        Std::Repeat,
        Std::RunOnce,
        Std::Timeout,
        Std::Delay,
        Std::Sleep,
        Std::AlwaysSuccess,
        Std::AlwaysFailure,
        Std::UnsetBlackboard,
        Std::WasEntryUpdated,
        Std::SkipUnlessUpdated,
        Std::WaitValueUpdate,
    ];

    pub(crate) fn id(self) -> &'static str {
        match self {
            Std::Sequence => "Sequence",
            Std::SequenceWithMemory => "SequenceWithMemory",
            Std::Fallback => "Fallback",
            Std::ReactiveSequence => "ReactiveSequence",
            Std::ReactiveFallback => "ReactiveFallback",
            Std::Parallel => "Parallel",
            Std::ParallelAll => "ParallelAll",
            Std::IfThenElse => "IfThenElse",
            Std::WhileDoElse => "WhileDoElse",
            Std::Inverter => "Inverter",
            Std::ForceSuccess => "ForceSuccess",
            Std::ForceFailure => "ForceFailure",
            Std::KeepRunningUntilFailure => "KeepRunningUntilFailure",
            Std::RetryUntilSuccessful => "RetryUntilSuccessful",
            Std::Repeat => "Repeat",
            Std::RunOnce => "RunOnce",
            Std::Timeout => "Timeout",
            Std::Delay => "Delay",
            Std::Sleep => "Sleep",
            Std::AlwaysSuccess => "AlwaysSuccess",
            Std::AlwaysFailure => "AlwaysFailure",
            Std::UnsetBlackboard => "UnsetBlackboard",
            Std::WasEntryUpdated => "WasEntryUpdated",
            Std::SkipUnlessUpdated => "SkipUnlessUpdated",
            Std::WaitValueUpdate => "WaitValueUpdate",
        }
    }

    pub(crate) fn from_id(id: &str) -> Option<Std> {
        Std::ALL.into_iter().find(|s| s.id() == id)
    }

    pub(crate) fn category(self) -> Category {
        match self {
            Std::Sequence
            | Std::SequenceWithMemory
            | Std::Fallback
            | Std::ReactiveSequence
            | Std::ReactiveFallback
            | Std::Parallel
            | Std::ParallelAll
            | Std::IfThenElse
            | Std::WhileDoElse => Category::Control,
            Std::Inverter
            | Std::ForceSuccess
            | Std::ForceFailure
            | Std::KeepRunningUntilFailure
            | Std::RetryUntilSuccessful
            | Std::Repeat
            | Std::RunOnce
            | Std::Timeout
            | Std::Delay
            | Std::SkipUnlessUpdated
            | Std::WaitValueUpdate => Category::Decorator,
            Std::Sleep
            | Std::AlwaysSuccess
            | Std::AlwaysFailure
            | Std::UnsetBlackboard
            | Std::WasEntryUpdated => Category::Action,
        }
    }

    /// Whether it is one of the nodes that name a blackboard entry rather
    /// than read it: `UnsetBlackboard` and the entry-update nodes, whose
    /// ports [`crate::ported::entry_update`] reads.
    pub(crate) fn names_an_entry(self) -> bool {
        matches!(
            self,
            Std::UnsetBlackboard
                | Std::WasEntryUpdated
                | Std::SkipUnlessUpdated
                | Std::WaitValueUpdate
        )
    }

    pub(crate) fn ports(self) -> &'static [Port] {
        use PortType::{Bool, Int, Msec};
        const PARALLEL: &[Port] = &[
            port("success_count", Int, Some(-1)),
            port("failure_count", Int, Some(1)),
        ];
        const PARALLEL_ALL: &[Port] = &[port("max_failures", Int, Some(1))];
        const RETRY: &[Port] = &[port("num_attempts", Int, None)];
        const REPEAT: &[Port] = &[port("num_cycles", Int, None)];
        const MSEC: &[Port] = &[port("msec", Msec, None)];
        const DELAY: &[Port] = &[port("delay_msec", Msec, None)];
        const RUN_ONCE: &[Port] = &[port("then_skip", Bool, Some(1))];
        match self {
            Std::Parallel => PARALLEL,
            Std::ParallelAll => PARALLEL_ALL,
            Std::RetryUntilSuccessful => RETRY,
            Std::Repeat => REPEAT,
            Std::Timeout | Std::Sleep => MSEC,
            Std::Delay => DELAY,
            Std::RunOnce => RUN_ONCE,
            _ => &[],
        }
    }

    /// The fewest and most children it takes.
    pub(crate) fn children(self) -> (usize, usize) {
        match self {
            // canopy gives these a meaning without children (BehaviorTree.CPP
            // refuses them), so canopy's own empty ones export and import.
            Std::Sequence
            | Std::SequenceWithMemory
            | Std::Fallback
            | Std::ReactiveSequence
            | Std::ReactiveFallback => (0, usize::MAX),
            Std::Parallel | Std::ParallelAll => (1, usize::MAX),
            Std::IfThenElse | Std::WhileDoElse => (2, 3),
            _ => match self.category() {
                Category::Decorator => (1, 1),
                _ => (0, 0),
            },
        }
    }

    /// The canopy built-in with exactly these semantics, if any (with the
    /// milliseconds of Timeout and Sleep turned into ticks).
    pub(crate) fn canopy_builtin(self) -> Option<&'static str> {
        Some(match self {
            Std::Sequence => "Sequence",
            Std::SequenceWithMemory => "SequenceWithMemory",
            Std::RunOnce => "RunOnce",
            Std::Fallback => "Selector",
            Std::ReactiveSequence => "ReactiveSequence",
            Std::ReactiveFallback => "ReactiveSelector",
            Std::Inverter => "Inverter",
            Std::ForceSuccess => "ForceSuccess",
            Std::ForceFailure => "ForceFailure",
            Std::AlwaysSuccess => "AlwaysSuccess",
            Std::AlwaysFailure => "AlwaysFailure",
            Std::Timeout => "Timeout",
            Std::Sleep => "Wait",
            _ => return None,
        })
    }
}

/// Standard IDs canopy refuses, with what to write instead.
pub(crate) fn refused(id: &str) -> Option<String> {
    let why = match id {
        "SequenceStar" => "SequenceStar is the name of BehaviorTree.CPP 3; format 4 calls it \
             SequenceWithMemory, which canopy runs: write that"
            .to_string(),
        "AsyncSequence" | "AsyncFallback" => format!(
            "{id} returns RUNNING after each child to be ticked again at once through \
             BehaviorTree.CPP's wake-up signal, which canopy's ticks do not have; use {}",
            if id == "AsyncSequence" {
                "Sequence"
            } else {
                "Fallback"
            }
        ),
        "TryCatch" => "TryCatch is not supported by canopy's importer".to_string(),
        _ => return None,
    };
    Some(why)
}

/// BehaviorTree.CPP's script leaves, imported as canopy's script node
/// types (`Eval`, `EvalCondition`).
pub(crate) fn is_scripting(id: &str) -> bool {
    matches!(id, "Script" | "ScriptCondition" | "SetBlackboard")
}

/// Prefix that marks a registered canopy type whose own name is reserved.
pub(crate) const CANOPY_PREFIX: &str = "canopy_";

/// The canopy `EvalAround` parameter of a pre- or post-condition
/// attribute (`_skipIf` → `skip_if`).
pub(crate) fn condition_script_param(attr: &str) -> Option<&'static str> {
    CONDITION_SCRIPTS
        .iter()
        .find(|(a, _)| *a == attr)
        .map(|(_, param)| *param)
}

/// The pre- or post-condition attribute of an `EvalAround` parameter
/// (`skip_if` → `_skipIf`).
pub(crate) fn condition_script_attr(param: &str) -> Option<&'static str> {
    CONDITION_SCRIPTS
        .iter()
        .find(|(_, p)| *p == param)
        .map(|(attr, _)| *attr)
}

/// The pre- and post-condition attributes and their `EvalAround` parameters.
const CONDITION_SCRIPTS: [(&str, &str); 8] = [
    ("_failureIf", "failure_if"),
    ("_successIf", "success_if"),
    ("_skipIf", "skip_if"),
    ("_while", "while"),
    ("_onSuccess", "on_success"),
    ("_onFailure", "on_failure"),
    ("_onHalted", "on_halted"),
    ("_post", "post"),
];

/// The canopy node type running pre- and post-condition scripts.
pub(crate) const AROUND: &str = "EvalAround";

/// BehaviorTree.CPP's rule for model names (node type and tree IDs): not
/// empty, not `Root`, no whitespace, control characters or `<>&"'/\:*?|.`.
pub(crate) fn bad_model_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_string());
    }
    if name == "Root" || name == "root" {
        return Some("is reserved".to_string());
    }
    let bad = name
        .chars()
        .find(|c| c.is_control() || " \t\n\r<>&\"'/\\:*?|.".contains(*c))?;
    Some(format!(
        "contains the character {}, which BehaviorTree.CPP does not allow in IDs",
        canopy_core::text::quote(&bad.to_string())
    ))
}

/// BehaviorTree.CPP's rule for port names: a letter first, no forbidden
/// characters, not a reserved attribute.
pub(crate) fn is_port_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_alphabetic())
        && bad_model_name(name).is_none()
        && condition_script_param(name).is_none()
        && !matches!(name, "name" | "ID")
}
