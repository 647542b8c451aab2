//! BehaviorTree.CPP 4's standard node library, as the importer sees it:
//! which IDs canopy runs (and how), which it refuses (and what to write
//! instead), and the element names with a meaning of their own.

use std::sync::OnceLock;

use canopy_core::NodeKind;

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

/// A standard node canopy runs with BehaviorTree.CPP's semantics; what
/// the importer knows of each is its row of [`CATALOGUE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standard {
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

/// What the importer knows of one standard node: its ID, how it is
/// written, how many children it takes, its ports, and canopy's built-in
/// kind with exactly its semantics, named by the kind's type (a kind
/// renamed in canopy fails to compile here, not to load at run time).
#[derive(Clone, Copy)]
struct Entry {
    id: &'static str,
    node: Standard,
    category: Category,
    /// The fewest and most children.
    children: (usize, usize),
    ports: &'static [Port],
    /// canopy's built-in with exactly these semantics (with the
    /// milliseconds of Timeout and Sleep turned into ticks), if any: a
    /// node of that kind, whose parameters do not matter.
    canopy: Option<fn() -> NodeKind<(), ()>>,
    /// Whether it names a blackboard entry rather than reads it:
    /// `UnsetBlackboard` and the entry-update nodes, whose ports
    /// [`crate::ported::entry_update`] reads.
    names_an_entry: bool,
}

/// The rows every control, decorator and action starts from.
const CONTROL: Entry = Entry {
    id: "",
    node: Standard::Sequence,
    category: Category::Control,
    // canopy gives controls a meaning without children (BehaviorTree.CPP
    // refuses them), so canopy's own empty ones export and import.
    children: (0, usize::MAX),
    ports: &[],
    canopy: None,
    names_an_entry: false,
};
const DECORATOR: Entry = Entry {
    category: Category::Decorator,
    children: (1, 1),
    ..CONTROL
};
const ACTION: Entry = Entry {
    category: Category::Action,
    children: (0, 0),
    ..CONTROL
};

/// BehaviorTree.CPP 4's standard nodes that canopy runs, in the order of
/// [`Standard`]'s variants.
const CATALOGUE: [Entry; 25] = {
    use PortType::{Bool, Int, Msec};
    use Standard as S;
    use canopy_core::nodes;
    [
        Entry {
            id: "Sequence",
            node: S::Sequence,
            canopy: Some(|| nodes::Sequence.into()),
            ..CONTROL
        },
        Entry {
            id: "SequenceWithMemory",
            node: S::SequenceWithMemory,
            canopy: Some(|| nodes::SequenceWithMemory::default().into()),
            ..CONTROL
        },
        Entry {
            id: "Fallback",
            node: S::Fallback,
            canopy: Some(|| nodes::Selector.into()),
            ..CONTROL
        },
        Entry {
            id: "ReactiveSequence",
            node: S::ReactiveSequence,
            canopy: Some(|| nodes::ReactiveSequence.into()),
            ..CONTROL
        },
        Entry {
            id: "ReactiveFallback",
            node: S::ReactiveFallback,
            canopy: Some(|| nodes::ReactiveSelector.into()),
            ..CONTROL
        },
        Entry {
            id: "Parallel",
            node: S::Parallel,
            children: (1, usize::MAX),
            ports: &[
                port("success_count", Int, Some(-1)),
                port("failure_count", Int, Some(1)),
            ],
            ..CONTROL
        },
        Entry {
            id: "ParallelAll",
            node: S::ParallelAll,
            children: (1, usize::MAX),
            ports: &[port("max_failures", Int, Some(1))],
            ..CONTROL
        },
        Entry {
            id: "IfThenElse",
            node: S::IfThenElse,
            children: (2, 3),
            ..CONTROL
        },
        Entry {
            id: "WhileDoElse",
            node: S::WhileDoElse,
            children: (2, 3),
            ..CONTROL
        },
        Entry {
            id: "Inverter",
            node: S::Inverter,
            canopy: Some(|| nodes::Inverter.into()),
            ..DECORATOR
        },
        Entry {
            id: "ForceSuccess",
            node: S::ForceSuccess,
            canopy: Some(|| nodes::ForceSuccess.into()),
            ..DECORATOR
        },
        Entry {
            id: "ForceFailure",
            node: S::ForceFailure,
            canopy: Some(|| nodes::ForceFailure.into()),
            ..DECORATOR
        },
        Entry {
            id: "KeepRunningUntilFailure",
            node: S::KeepRunningUntilFailure,
            ..DECORATOR
        },
        Entry {
            id: "RetryUntilSuccessful",
            node: S::RetryUntilSuccessful,
            ports: &[port("num_attempts", Int, None)],
            ..DECORATOR
        },
        Entry {
            id: "Repeat",
            node: S::Repeat,
            ports: &[port("num_cycles", Int, None)],
            ..DECORATOR
        },
        Entry {
            id: "RunOnce",
            node: S::RunOnce,
            ports: &[port("then_skip", Bool, Some(1))],
            canopy: Some(|| {
                nodes::RunOnce {
                    then: canopy_core::Afterwards::Same,
                }
                .into()
            }),
            ..DECORATOR
        },
        Entry {
            id: "Timeout",
            node: S::Timeout,
            ports: &[port("msec", Msec, None)],
            canopy: Some(|| nodes::Timeout { ticks: 1 }.into()),
            ..DECORATOR
        },
        Entry {
            id: "Delay",
            node: S::Delay,
            ports: &[port("delay_msec", Msec, None)],
            ..DECORATOR
        },
        Entry {
            id: "Sleep",
            node: S::Sleep,
            ports: &[port("msec", Msec, None)],
            canopy: Some(|| nodes::Wait { ticks: 1 }.into()),
            ..ACTION
        },
        Entry {
            id: "AlwaysSuccess",
            node: S::AlwaysSuccess,
            canopy: Some(|| nodes::AlwaysSuccess.into()),
            ..ACTION
        },
        Entry {
            id: "AlwaysFailure",
            node: S::AlwaysFailure,
            canopy: Some(|| nodes::AlwaysFailure.into()),
            ..ACTION
        },
        Entry {
            id: "UnsetBlackboard",
            node: S::UnsetBlackboard,
            names_an_entry: true,
            ..ACTION
        },
        Entry {
            id: "WasEntryUpdated",
            node: S::WasEntryUpdated,
            names_an_entry: true,
            ..ACTION
        },
        Entry {
            id: "SkipUnlessUpdated",
            node: S::SkipUnlessUpdated,
            names_an_entry: true,
            ..DECORATOR
        },
        Entry {
            id: "WaitValueUpdate",
            node: S::WaitValueUpdate,
            names_an_entry: true,
            ..DECORATOR
        },
    ]
};

/// The names canopy's registry gives the built-in kinds of
/// [`CATALOGUE`], by row: read once from the kinds themselves.
fn canopy_names() -> &'static [Option<&'static str>; 25] {
    static NAMES: OnceLock<[Option<&'static str>; 25]> = OnceLock::new();
    NAMES.get_or_init(|| {
        let builtins = canopy_core::nodes::builtins::<(), ()>();
        CATALOGUE.map(|entry| {
            let kind = (entry.canopy?)();
            let name = builtins.iter().find(|b| b.name == kind.type_name());
            Some(name.expect("every kind without code is a built-in").name)
        })
    })
}

impl Standard {
    pub(crate) const ALL: [Standard; 25] = {
        let mut all = [Standard::Sequence; 25];
        let mut i = 0;
        while i < all.len() {
            all[i] = CATALOGUE[i].node;
            i += 1;
        }
        all
    };

    fn entry(self) -> &'static Entry {
        &CATALOGUE[self as usize]
    }

    pub(crate) fn id(self) -> &'static str {
        self.entry().id
    }

    pub(crate) fn from_id(id: &str) -> Option<Standard> {
        CATALOGUE.iter().find(|e| e.id == id).map(|e| e.node)
    }

    pub(crate) fn category(self) -> Category {
        self.entry().category
    }

    /// Whether it is one of the nodes that name a blackboard entry rather
    /// than read it: `UnsetBlackboard` and the entry-update nodes, whose
    /// ports [`crate::ported::entry_update`] reads.
    pub(crate) fn names_an_entry(self) -> bool {
        self.entry().names_an_entry
    }

    pub(crate) fn ports(self) -> &'static [Port] {
        self.entry().ports
    }

    /// The fewest and most children it takes.
    pub(crate) fn children(self) -> (usize, usize) {
        self.entry().children
    }

    /// The name of canopy's built-in with exactly these semantics, if any
    /// (with the milliseconds of Timeout and Sleep turned into ticks).
    pub(crate) fn canopy_builtin(self) -> Option<&'static str> {
        canopy_names()[self as usize]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_is_in_the_order_of_its_nodes() {
        for (i, entry) in CATALOGUE.iter().enumerate() {
            assert_eq!(entry.node as usize, i, "{}", entry.id);
            assert_eq!(format!("{:?}", entry.node), entry.id);
        }
    }

    #[test]
    fn standard_nodes_run_as_canopy_kinds_of_their_own_name_or_canopy_s() {
        let runs_as: Vec<(&str, &str)> = Standard::ALL
            .iter()
            .filter_map(|s| Some((s.id(), s.canopy_builtin()?)))
            .collect();
        assert_eq!(
            runs_as,
            [
                ("Sequence", "Sequence"),
                ("SequenceWithMemory", "SequenceWithMemory"),
                ("Fallback", "Selector"),
                ("ReactiveSequence", "ReactiveSequence"),
                ("ReactiveFallback", "ReactiveSelector"),
                ("Inverter", "Inverter"),
                ("ForceSuccess", "ForceSuccess"),
                ("ForceFailure", "ForceFailure"),
                ("RunOnce", "RunOnce"),
                ("Timeout", "Timeout"),
                ("Sleep", "Wait"),
                ("AlwaysSuccess", "AlwaysSuccess"),
                ("AlwaysFailure", "AlwaysFailure"),
            ]
        );
    }
}
