//! BehaviorTree.CPP's blackboard controls — `Precondition`,
//! `Switch2`…`Switch6`, `LoopInt`/`LoopDouble`/`LoopBool`/`LoopString` —
//! as canopy's script nodes: each port becomes a script the registry
//! compiles and type-checks with the file's others.
//!
//! - `Precondition(if, else)` is `EvalAround` with `if` as its
//!   `precondition` (compiled on its own, negated after compiling) and
//!   `else` as what to do when it is false: both test it once, on entry,
//!   and otherwise run
//!   the child. Its `latch`, a bool key of its own (`__precondition_…`),
//!   is BehaviorTree.CPP's memory that the child was started, kept through
//!   a halt: entered again, it runs the child without testing `if` until
//!   the child finishes. `else="RUNNING"` is `running_if`, tested again at each
//!   tick until it lets the child run, as BehaviorTree.CPP's node, left
//!   RUNNING with its child idle, tests again; SKIPPED is read as the
//!   parent reads it, as for `RunOnce`. BehaviorTree.CPP throws on
//!   `else="IDLE"` when the condition is false; canopy refuses it at load.
//! - `SwitchN(variable, case_1…case_N)` is `EvalSwitch` with `variable`
//!   and `values`, compared as BehaviorTree.CPP 4.10's Switch compares
//!   texts (else whole numbers, else numbers): a case is a text or a
//!   `{key}`, never pasted into a script.
//! - `LoopT(queue, value, if_empty)` is `EvalLoop` with the item scripts
//!   `key := item` for a queue written in the file (`queue="1;2;3"`,
//!   BehaviorTree.CPP's static queue, which it copies on entry as canopy
//!   starts the list over). A queue on the blackboard (`queue="{q}"`) is
//!   `EvalLoop` over the string key `q`, copied on entry as
//!   BehaviorTree.CPP 4.10 copies a string queue (see canopy-data's
//!   `EvalLoop` for why a string, and its bound), each item assigned by
//!   `value := 0` (`false`, `''`) with the item's value.

use serde_json::{Map, Value};

use crate::error::XmlIssue;
use crate::params::script_key_of;
use crate::standard::{CANOPY_PREFIX, Standard, is_scripting, refused};
use canopy_core::text::quote;
use canopy_data::{EvalKind, XmlProblem};

/// The start of a Precondition's memory key, which the element's tag ends:
/// `__` keeps it out of what the root blackboard shows, as a subtree's
/// own keys are.
const PRECONDITION_LATCH: &str = "__precondition_";

/// A `case_N` the file leaves out, which never matches: a text no XML
/// attribute can hold (`EvalSwitch` reads it as "no case").
const NO_CASE: &str = "\u{0}";

/// The parameter of canopy's `EvalAround` and `EvalLoop` naming the bool
/// key a node sets when it returns its SKIPPED, and of `EvalAround` the
/// one it reads from its child (after which its post-condition scripts
/// do not run, as BehaviorTree.CPP runs none after a SKIPPED).
pub(crate) const SKIPS_INTO: &str = "skips_into";
pub(crate) const SKIP_FROM: &str = "skip_from";

/// The skip flag of the element `tag`: `__` keeps it out of what the root
/// blackboard shows.
fn skip_flag(tag: &str) -> String {
    format!("__skipped_{tag}")
}

/// Whether `id` is one of the controls this module imports.
pub(crate) fn is_scripted_control(id: &str) -> bool {
    id == "Precondition" || switch_cases(id).is_some() || loop_type(id).is_some()
}

/// Names that never name a registered canopy type in XML: the standard
/// IDs (supported or refused) and the format's own element names. A canopy
/// type with one of these names is written `canopy_Name`.
pub(crate) fn is_reserved(name: &str) -> bool {
    Standard::from_id(name).is_some()
        || refused(name).is_some()
        || is_scripting(name)
        || is_scripted_control(name)
        || matches!(
            name,
            "Action"
                | "Condition"
                | "Control"
                | "Decorator"
                | "SubTree"
                | "BehaviorTree"
                | "TreeNodesModel"
                | "include"
                | "root"
                | "Root"
        )
        || name.starts_with(CANOPY_PREFIX)
}

/// The canopy type and parameters of `id` with `ports` and `children`
/// children under `parent`; the problem in words otherwise.
/// `tag` is unique to the element in the files loaded (it names a
/// Precondition's memory key).
pub(crate) fn lower(
    id: &str,
    ports: &[(String, String)],
    children: usize,
    parent: Option<Standard>,
    tag: &str,
) -> Result<(EvalKind, Map<String, Value>), XmlIssue> {
    if let Some(n) = switch_cases(id) {
        return switch(id, n, ports, children);
    }
    let takes: &[&str] = match loop_type(id) {
        Some(_) => &["queue", "value", "if_empty"],
        None => &["if", "else"],
    };
    unknown(id, ports, takes)?;
    if children != 1 {
        return Err(child_count(id, 1, children));
    }
    match loop_type(id) {
        Some(item) => lower_loop(id, item, ports, parent, tag),
        None => precondition(ports, parent, tag),
    }
}

/// The number of cases of `SwitchN`: BehaviorTree.CPP registers exactly
/// `Switch2` to `Switch6` (`Switch02` and `Switch+2` are other names).
fn switch_cases(id: &str) -> Option<usize> {
    match id.strip_prefix("Switch")?.as_bytes() {
        &[n @ b'2'..=b'6'] => Some(usize::from(n - b'0')),
        _ => None,
    }
}

/// What a `LoopT` iterates over.
#[derive(Clone, Copy, PartialEq)]
enum Item {
    Int,
    Double,
    Bool,
    Text,
}

fn loop_type(id: &str) -> Option<Item> {
    Some(match id {
        "LoopInt" => Item::Int,
        "LoopDouble" => Item::Double,
        "LoopBool" => Item::Bool,
        "LoopString" => Item::Text,
        _ => return None,
    })
}

fn port<'p>(ports: &'p [(String, String)], name: &str) -> Option<&'p str> {
    ports
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn unknown(id: &str, ports: &[(String, String)], takes: &[&str]) -> Result<(), XmlIssue> {
    match ports.iter().find(|(k, _)| !takes.contains(&k.as_str())) {
        Some((k, _)) => Err(unknown_port(id, k, takes, None).into()),
        None => Ok(()),
    }
}

/// A port `node` does not take.
pub(crate) fn unknown_port(
    node: &str,
    port: &str,
    takes: &[&str],
    suggestion: Option<&str>,
) -> XmlProblem {
    XmlProblem::UnknownPort {
        port: port.to_string(),
        node: node.to_string(),
        suggestion: suggestion.map(str::to_string),
        takes: takes.iter().map(|t| t.to_string()).collect(),
    }
}

/// `node` lacks the ports `ports`.
pub(crate) fn missing_ports(node: &str, ports: &[&str]) -> XmlProblem {
    XmlProblem::MissingPorts {
        node: node.to_string(),
        ports: ports.iter().map(|p| p.to_string()).collect(),
    }
}

/// `node` takes exactly `needs` children, not `got`.
fn child_count(node: &str, needs: usize, got: usize) -> XmlIssue {
    XmlProblem::ChildCount {
        node: node.to_string(),
        min: needs,
        max: Some(needs),
        got,
    }
    .into()
}

/// The key of a port that must name one.
fn key_port<'p>(id: &str, ports: &'p [(String, String)], name: &str) -> Result<&'p str, XmlIssue> {
    let text = port(ports, name).ok_or_else(|| missing_ports(id, &[name]))?;
    script_key_of(text).filter(|k| *k != "=").ok_or_else(|| {
        XmlProblem::PortNotAKey {
            port: name.to_string(),
            value: text.to_string(),
        }
        .into()
    })
}

fn precondition(
    ports: &[(String, String)],
    parent: Option<Standard>,
    tag: &str,
) -> Result<(EvalKind, Map<String, Value>), XmlIssue> {
    let condition = port(ports, "if").ok_or_else(|| missing_ports("Precondition", &["if"]))?;
    let param = match port(ports, "else").unwrap_or("FAILURE") {
        "FAILURE" => "failure",
        "SUCCESS" => "success",
        "SKIPPED" => "skip",
        "RUNNING" => "running",
        "IDLE" => {
            return Err(
                "else=\"IDLE\": a node may not return IDLE (BehaviorTree.CPP \
                 throws when the condition is false); write SUCCESS, FAILURE, RUNNING or SKIPPED"
                    .into(),
            );
        }
        other => {
            return Err(format!(
                "else={} is not a status; write SUCCESS, FAILURE, RUNNING or SKIPPED",
                quote(other)
            )
            .into());
        }
    };
    let mut params = Map::new();
    // The condition stays a script of its own, negated after compiling.
    params.insert("precondition".to_string(), Value::from(condition));
    params.insert("otherwise".to_string(), Value::from(param));
    params.insert(
        "latch".to_string(),
        Value::from(format!("{PRECONDITION_LATCH}{tag}")),
    );
    if param == "skip" {
        let skipped = skip_as(parent, "else=\"SKIPPED\"", "Precondition")?;
        params.insert("skipped".to_string(), Value::from(skipped));
        params.insert(SKIPS_INTO.to_string(), Value::from(skip_flag(tag)));
    }
    Ok((EvalKind::Around, params))
}

/// The status canopy returns for a SKIPPED that `what` (an attribute of
/// a `node`) gives under `parent`: the one the parent reads as a skip.
fn skip_as(parent: Option<Standard>, what: &str, node: &str) -> Result<&'static str, XmlIssue> {
    match parent {
        Some(Standard::Fallback | Standard::ReactiveFallback) => Ok("failure"),
        Some(Standard::Sequence | Standard::SequenceWithMemory | Standard::ReactiveSequence) => {
            Ok("success")
        }
        _ => Err(format!(
            "{what} returns SKIPPED, a status canopy does not have; canopy reads it as a \
             Sequence or a Fallback does, so put the {node} directly under one"
        )
        .into()),
    }
}

fn switch(
    id: &str,
    n: usize,
    ports: &[(String, String)],
    children: usize,
) -> Result<(EvalKind, Map<String, Value>), XmlIssue> {
    let names: Vec<String> = (1..=n).map(|i| format!("case_{i}")).collect();
    let mut takes = vec!["variable"];
    takes.extend(names.iter().map(String::as_str));
    unknown(id, ports, &takes)?;
    if children != n + 1 {
        return Err(child_count(id, n + 1, children));
    }
    let variable = port(ports, "variable").ok_or_else(|| missing_ports(id, &["variable"]))?;
    // Cases are texts (or `{key}`s), compared as BehaviorTree.CPP's Switch
    // compares them: never script text. A case not given never matches.
    let values = names
        .iter()
        .map(|name| Value::from(port(ports, name).unwrap_or(NO_CASE)))
        .collect();
    let mut params = Map::new();
    params.insert("variable".to_string(), Value::from(variable));
    params.insert("values".to_string(), Value::Array(values));
    Ok((EvalKind::Switch, params))
}

fn lower_loop(
    id: &str,
    item: Item,
    ports: &[(String, String)],
    parent: Option<Standard>,
    tag: &str,
) -> Result<(EvalKind, Map<String, Value>), XmlIssue> {
    let queue = port(ports, "queue").ok_or_else(|| missing_ports(id, &["queue"]))?;
    let key = key_port(id, ports, "value")?;
    let if_empty = match port(ports, "if_empty").unwrap_or("SUCCESS") {
        "SUCCESS" => "success",
        "FAILURE" => "failure",
        "SKIPPED" => skip_as(parent, "if_empty=\"SKIPPED\"", id)?,
        "RUNNING" => "running",
        other => {
            return Err(format!(
                "if_empty={} is not a status a loop returns; write SUCCESS, FAILURE, RUNNING \
                 or SKIPPED",
                quote(other)
            )
            .into());
        }
    };
    let mut params = Map::new();
    params.insert("if_empty".to_string(), Value::from(if_empty));
    if port(ports, "if_empty") == Some("SKIPPED") {
        params.insert(SKIPS_INTO.to_string(), Value::from(skip_flag(tag)));
    }
    if let Some(queue_key) = script_key_of(queue) {
        let queue_key = if queue_key == "=" { "queue" } else { queue_key };
        let (item, zero) = match item {
            Item::Int => ("whole", "0"),
            Item::Double => ("number", "0"),
            Item::Bool => ("bool", "false"),
            Item::Text => ("string", "''"),
        };
        params.insert("queue".to_string(), Value::from(queue_key));
        params.insert("value".to_string(), Value::from(format!("{key} := {zero}")));
        params.insert("item".to_string(), Value::from(item));
        return Ok((EvalKind::Loop, params));
    }
    let mut items = Vec::new();
    for text in queue.split(';').map(str::trim).filter(|t| !t.is_empty()) {
        let value = literal(text, Some(item)).map_err(|p| XmlProblem::BadAttribute {
            attribute: "queue".to_string(),
            problem: p.to_string(),
        })?;
        items.push(Value::from(format!("{key} := {value}")));
    }
    params.insert("items".to_string(), Value::Array(items));
    Ok((EvalKind::Loop, params))
}

/// `text` as a script literal: of the item type when one is given,
/// else a number when it reads as one and a string otherwise.
fn literal(text: &str, item: Option<Item>) -> Result<String, String> {
    let string = || {
        if text.contains('\'') {
            Err(format!(
                "{} holds a `'`, which a script string cannot",
                quote(text)
            ))
        } else {
            Ok(format!("'{text}'"))
        }
    };
    let not = |what: &str| Err(format!("{} is not {what}", quote(text)));
    match item {
        Some(Item::Text) => string(),
        Some(Item::Bool) => match text {
            "true" | "True" | "TRUE" | "1" => Ok("true".to_string()),
            "false" | "False" | "FALSE" | "0" => Ok("false".to_string()),
            _ => not("true or false"),
        },
        Some(Item::Int) => match text.parse::<i64>() {
            Ok(n) => Ok(n.to_string()),
            Err(_) => not("a whole number"),
        },
        Some(Item::Double) => match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(format!("{x:?}")),
            _ => not("a number"),
        },
        None => match (text.parse::<i64>(), text.parse::<f64>()) {
            (Ok(n), _) => Ok(n.to_string()),
            (_, Ok(x)) if x.is_finite() => Ok(format!("{x:?}")),
            _ => string(),
        },
    }
}
