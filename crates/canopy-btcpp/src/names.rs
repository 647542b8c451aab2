//! Names as BehaviorTree.CPP 4.10 allows them, and as canopy spells them.
//!
//! BehaviorTree.CPP checks a node type or tree ID (`validateModelName`:
//! not empty, not `Root`, none of ` \t\n\r<>&"'/\:*?|.` or a control
//! character) and a port's name (`validatePortName`: not empty, not
//! starting with a digit, none of those characters, not an attribute the
//! format reserves: `name`, `ID`, `_autoremap` and the pre- and
//! post-condition attributes). canopy follows both.
//!
//! Two port names BehaviorTree.CPP allows are field names of canopy's
//! tree documents: `type` and `children` (a node object's own fields).
//! canopy's parameter for such a port is the name with `_` after it
//! (`type_`); in XML it is written as BehaviorTree.CPP writes it (`type`),
//! and `type_` is read as the same parameter. Rejected: a parameter named
//! `type` in the registry — every JSON and RON file would have to tell a
//! node's type from a parameter of that name.

use std::borrow::Cow;

use crate::standard::{bad_model_name, condition_script_param};

/// Port names BehaviorTree.CPP allows that are fields of canopy's node
/// objects.
const FIELD_NAMES: [&str; 2] = ["type", "children"];

/// canopy's parameter name for a port or attribute named `name` in XML.
pub(crate) fn param_name(name: &str) -> Cow<'_, str> {
    if FIELD_NAMES.contains(&name) {
        Cow::Owned(format!("{name}_"))
    } else {
        Cow::Borrowed(name)
    }
}

/// The XML attribute (and model port) name of canopy's parameter `param`.
pub(crate) fn attribute_name(param: &str) -> Cow<'_, str> {
    match param.strip_suffix('_') {
        Some(field) if FIELD_NAMES.contains(&field) => Cow::Borrowed(field),
        _ => Cow::Borrowed(param),
    }
}

/// Why BehaviorTree.CPP 4.10 refuses `name` as a port's name
/// (`validatePortName`), if it does.
pub(crate) fn bad_port_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_string());
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Some("starts with a digit, which BehaviorTree.CPP does not allow".to_string());
    }
    if let Some(why) = bad_model_name(name)
        && name != "Root"
        && name != "root"
    {
        return Some(why);
    }
    if is_reserved_attribute(name) {
        return Some(format!(
            "is an attribute BehaviorTree.CPP reserves ({}), not a port",
            RESERVED.join(", ")
        ));
    }
    None
}

/// The attributes BehaviorTree.CPP gives a meaning of their own besides
/// the pre- and post-condition scripts.
const RESERVED: [&str; 3] = ["name", "ID", "_autoremap"];

/// BehaviorTree.CPP's `IsReservedAttribute`.
pub(crate) fn is_reserved_attribute(name: &str) -> bool {
    RESERVED.contains(&name) || condition_script_param(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_node_objects_are_spelled_with_an_underscore() {
        assert_eq!(param_name("type"), "type_");
        assert_eq!(param_name("goal"), "goal");
        assert_eq!(attribute_name("type_"), "type");
        assert_eq!(attribute_name("children_"), "children");
        assert_eq!(attribute_name("speed_"), "speed_");
    }

    #[test]
    fn port_names_follow_behaviortree_cpp() {
        assert_eq!(bad_port_name("type"), None);
        assert_eq!(bad_port_name("Root"), None);
        assert!(bad_port_name("_autoremap").unwrap().contains("reserves"));
        assert!(bad_port_name("_onSuccess").unwrap().contains("reserves"));
        assert!(bad_port_name("2d").unwrap().contains("digit"));
        assert!(bad_port_name("a b").unwrap().contains("\" \""));
        assert_eq!(bad_port_name(""), Some("is empty".to_string()));
    }
}
