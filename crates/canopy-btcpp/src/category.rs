//! BehaviorTree.CPP's four categories of node (action, condition,
//! control, decorator) as the importer meets them: the category of each of
//! BehaviorTree.CPP's own IDs, the one a registered canopy type is written
//! as, their words in messages, and the warning for an element whose tag
//! names another category than its type's.
//!
//! Reading elements ([`crate::model`]), checking node models
//! ([`crate::palette`]), standing types in ([`crate::stand_in`]) and
//! exporting ([`crate::export`]) all ask these questions; they stand here,
//! below all four, because the answers need both the standard library's
//! IDs ([`crate::standard`]) and the scripted controls'
//! ([`crate::scripted`]), which imports the standard library itself.
//! Rejected: keeping them in `palette.rs`, which had the element reader
//! and the node-model checker import each other.

use canopy_core::Arity;
use canopy_core::text::quote;
use canopy_data::NodeType;

use crate::scripted::is_scripted_control;
use crate::standard::{Category, Standard, is_scripting, refused};

/// The category BehaviorTree.CPP 4.10 registers one of its own node types
/// under, for every ID its factory registers.
pub(crate) fn builtin_category(id: &str) -> Option<Category> {
    if let Some(std) = Standard::from_id(id) {
        return Some(std.category());
    }
    Some(match id {
        "Script" | "SetBlackboard" | "UnsetBlackboard" | "WasEntryUpdated" => Category::Action,
        "ScriptCondition" => Category::Condition,
        "AsyncSequence" | "AsyncFallback" | "SequenceStar" | "TryCatch" => Category::Control,
        "Precondition" | "SkipUnlessUpdated" | "WaitValueUpdate" => Category::Decorator,
        _ if id.starts_with("Switch") && is_scripted_control(id) => Category::Control,
        _ if is_scripted_control(id) => Category::Decorator,
        _ => return None,
    })
}

/// Whether `id` is one of BehaviorTree.CPP's own node types (supported,
/// lowered or refused): their models, as Groot2 may list them, are not
/// checked against the registry.
pub(crate) fn is_btcpp_builtin(id: &str) -> bool {
    builtin_category(id).is_some()
        || Standard::from_id(id).is_some()
        || refused(id).is_some()
        || is_scripting(id)
        || id == "SubTree"
}

/// How a registered type is written in a model and the explicit form.
pub(crate) fn category<A, W>(node_type: &NodeType<A, W>) -> Category {
    match node_type.arity() {
        Arity::Composite => Category::Control,
        Arity::Decorator => Category::Decorator,
        Arity::Leaf if node_type.is_condition() => Category::Condition,
        Arity::Leaf => Category::Action,
    }
}

/// What a node of a category is called in words.
pub(crate) fn noun(category: Category) -> &'static str {
    match category {
        Category::Action => "an action",
        Category::Condition => "a condition",
        Category::Control => "a control",
        Category::Decorator => "a decorator",
    }
}

/// The warning for an element in the explicit form whose tag names
/// another category than its type's, `is`.
pub(crate) fn category_warning(id: &str, written: Category, is: Category) -> String {
    let close = match is {
        Category::Action | Category::Condition => "/>",
        Category::Control | Category::Decorator => ">",
    };
    let word = noun(is).split_once(' ').map_or("", |(_, w)| w);
    format!(
        "{} is {}, not {}; BehaviorTree.CPP runs it as the {word} it is, and so does canopy: \
         write <{} ID={}{close} or <{}{close}",
        quote(id),
        noun(is),
        noun(written),
        is.tag(),
        quote(id),
        canopy_core::text::bare(id)
    )
}
