//! BehaviorTree.CPP's standard nodes whose ports read the blackboard
//! (`<Repeat num_cycles="{n}">`), and the nodes that name an entry
//! (`UnsetBlackboard`, `WasEntryUpdated`, `SkipUnlessUpdated`,
//! `WaitValueUpdate`), lowered to this crate's own node types
//! ([`crate::nodes`]) by name, with their keys in braces: the registry
//! resolves those as any port's, in the subtree's scope, so a string key
//! read by a number port converts as BehaviorTree.CPP converts it.
//!
//! A standard node whose ports the file gives as values keeps its faster
//! lowering (a canopy built-in where one is exact, the durations turned
//! into ticks at load); only a port written as a key makes it one of
//! these, every port of it then given to the node, values and keys alike.
//!
//! The entry-update nodes and a RunOnce reading `then_skip` remember
//! something across activations, which BehaviorTree.CPP keeps in the node
//! object: here a key of the blackboard named after the element
//! (`__updated_…`, `__runonce_…`), in braces too, so that each copy of a
//! subtree with keys of its own has its own, as each BehaviorTree.CPP
//! instance of a subtree has its own nodes.

use serde_json::Value;

use crate::error::XmlIssue;
use crate::params::key_of;
use crate::scripted::{SKIPS_INTO, missing_ports, unknown_port};
use crate::standard::{PortType, Standard};
use canopy_core::text::quote;

/// An own node type and its parameters, as the lowered document takes them.
pub(crate) type Lowered = (&'static str, Vec<(&'static str, Value)>);

/// The start of the key holding a RunOnce's memory (`__` keeps it out of
/// what the root blackboard shows, as a subtree's own keys are).
const RUN_ONCE_MEMORY: &str = "__runonce_";

/// The start of the bool key a RunOnce sets when it skips, which the
/// node running its element's post-condition scripts reads
/// ([`crate::scripted::SKIP_FROM`]).
const SKIP_FLAG: &str = "__skipped_";

/// The start of the key holding the update an entry-update node saw last.
const SEEN: &str = "__updated_";

/// The port's text if it reads the blackboard (`{key}`).
fn key_text<'p>(ports: &'p [(String, String)], name: &str) -> Option<&'p str> {
    ports
        .iter()
        .find(|(k, v)| k == name && key_of(v.trim()).is_some())
        .map(|(_, v)| v.trim())
}

/// A standard node with a port read from the blackboard, given the values
/// of its ports as checked from the file (`values`, in the order of
/// [`Standard::ports`], whatever for the ports that are keys); `None` when no
/// port is a key. `tag` is unique to the element in the files loaded.
/// `post`: the element has post-condition scripts, which must not run
/// after a SKIPPED — a RunOnce that skips is then this crate's own,
/// whatever its ports, as it tells the scripts' node when it skips.
pub(crate) fn keyed(
    std: Standard,
    ports: &[(String, String)],
    values: &[(&'static str, i64)],
    parent: Option<Standard>,
    tag: &str,
    (tick_ms, post): (u32, bool),
) -> Option<Result<Lowered, XmlIssue>> {
    let declared = std.ports();
    let skips = values
        .iter()
        .any(|&(name, v)| name == "then_skip" && v != 0);
    let own_run_once = std == Standard::RunOnce && post && skips;
    if !own_run_once && !declared.iter().any(|p| key_text(ports, p.name).is_some()) {
        return None;
    }
    let mut params: Vec<(&'static str, Value)> = declared
        .iter()
        .map(|port| {
            let value = match key_text(ports, port.name) {
                Some(key) => Value::from(key),
                None => {
                    let v = values
                        .iter()
                        .find(|(n, _)| *n == port.name)
                        .map_or(0, |v| v.1);
                    match port.kind {
                        PortType::Bool => Value::Bool(v != 0),
                        PortType::Int | PortType::Msec => Value::from(v),
                    }
                }
            };
            (port.name, value)
        })
        .collect();
    let type_name = match std {
        Standard::Parallel => "btcpp:Parallel",
        Standard::ParallelAll => "btcpp:ParallelAll",
        Standard::Repeat => "btcpp:Repeat",
        Standard::RetryUntilSuccessful => "btcpp:RetryUntilSuccessful",
        Standard::Delay | Standard::Timeout | Standard::Sleep => {
            params.push(("tick_ms", Value::from(tick_ms.max(1))));
            match std {
                Standard::Delay => "btcpp:Delay",
                Standard::Timeout => "btcpp:Timeout",
                _ => "btcpp:Sleep",
            }
        }
        Standard::RunOnce => {
            let skipped = match skip_as(parent) {
                Some(reading) => reading,
                None => return Some(Err(run_once_nowhere(parent).into())),
            };
            params.push(("skipped", Value::from(skipped)));
            params.push(("memory", memory(RUN_ONCE_MEMORY, tag)));
            params.push((SKIPS_INTO, memory(SKIP_FLAG, tag)));
            "btcpp:RunOnce"
        }
        _ => return None,
    };
    Some(Ok((type_name, params)))
}

/// The status canopy returns for a SKIPPED under `parent`: the one the
/// parent reads as a skip; `None` for a parent that cannot read one.
fn skip_as(parent: Option<Standard>) -> Option<&'static str> {
    match parent? {
        Standard::Sequence | Standard::SequenceWithMemory | Standard::ReactiveSequence => {
            Some("success")
        }
        Standard::Fallback | Standard::ReactiveFallback => Some("failure"),
        _ => None,
    }
}

/// Where a node stands, for a message.
fn standing(parent: Option<Standard>) -> String {
    match parent {
        Some(std) => format!("its parent is <{}>", std.id()),
        None => "it is not the child of a standard node".to_string(),
    }
}

fn run_once_nowhere(parent: Option<Standard>) -> String {
    format!(
        "RunOnce reads then_skip from the blackboard, and when it is true (its default) \
         returns SKIPPED once its child has run, a status canopy does not have; canopy reads \
         it as a Sequence or a Fallback does (as SUCCESS or FAILURE), but {}; put the RunOnce \
         directly under a Sequence or a Fallback",
        standing(parent)
    )
}

/// The key a node's memory is kept in, in braces.
fn memory(prefix: &str, tag: &str) -> Value {
    Value::from(format!("{{{prefix}{tag}}}"))
}

/// The entry a port names, as BehaviorTree.CPP reads it: `{key}` and
/// `key` alike name `key` (`@key` the root's), in braces for the
/// registry to resolve; `None` for a name no key has (empty, `{}`,
/// `{=}`), whose entry never exists.
fn entry(text: &str) -> Option<Value> {
    let text = text.trim();
    let name = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    let bare = name.strip_prefix('@').unwrap_or(name);
    if bare.is_empty() || name == "=" || name.contains(['{', '}']) {
        return None;
    }
    Some(Value::from(format!("{{{name}}}")))
}

/// `UnsetBlackboard` and the entry-update nodes; `None` for other nodes.
/// `tag` is unique to the element in the files loaded.
pub(crate) fn entry_update(
    std: Standard,
    ports: &[(String, String)],
    parent: Option<Standard>,
    tag: &str,
) -> Option<Result<Lowered, XmlIssue>> {
    if !std.names_an_entry() {
        return None;
    }
    Some(lower_entry_update(std, ports, parent, tag))
}

fn lower_entry_update(
    std: Standard,
    ports: &[(String, String)],
    parent: Option<Standard>,
    tag: &str,
) -> Result<Lowered, XmlIssue> {
    let id = std.id();
    let port_name = if std == Standard::UnsetBlackboard {
        "key"
    } else {
        "entry"
    };
    if let Some((unknown, _)) = ports.iter().find(|(k, _)| k != port_name) {
        let close = canopy_core::text::suggest(unknown, [port_name]);
        return Err(unknown_port(id, unknown, &[port_name], close).into());
    }
    let Some((_, text)) = ports.first() else {
        return Err(missing_ports(id, &[port_name]).into());
    };
    if std == Standard::UnsetBlackboard {
        return unset(text);
    }
    if text.trim().is_empty() {
        // BehaviorTree.CPP's constructor refuses it too.
        return Err(format!("{id} needs the port entry, naming a key").into());
    }
    let mut params = Vec::with_capacity(5);
    if let Some(entry) = entry(text) {
        params.push(("entry", entry));
    }
    params.push(("seen", memory(SEEN, tag)));
    let type_name = match std {
        Standard::WasEntryUpdated => "btcpp:WasEntryUpdated",
        Standard::WaitValueUpdate => {
            params.push(("otherwise", Value::from("wait")));
            "btcpp:EntryUpdated"
        }
        _ => {
            let Some(skipped) = skip_as(parent) else {
                return Err(format!(
                    "SkipUnlessUpdated returns SKIPPED while its entry was not written, a status \
                     canopy does not have; canopy reads it as a Sequence or a Fallback does (as \
                     SUCCESS or FAILURE), but {}; put it directly under a Sequence or a \
                     Fallback, or use WaitValueUpdate",
                    standing(parent)
                )
                .into());
            };
            params.push(("otherwise", Value::from("skip")));
            params.push(("skipped", Value::from(skipped)));
            "btcpp:EntryUpdated"
        }
    };
    Ok((type_name, params))
}

/// `UnsetBlackboard key="name"`: the key to empty is named in the file.
/// BehaviorTree.CPP reads the port as a string, so `key="{k}"` empties the
/// entry whose name `k` holds at run time — a name canopy cannot look up
/// in a blackboard laid out at load — and `key="@k"` names no entry its
/// `unset` finds (it does not follow `@`), so it empties nothing.
fn unset(text: &str) -> Result<Lowered, XmlIssue> {
    if let Some(k) = key_of(text.trim()) {
        return Err(format!(
            "UnsetBlackboard key={} empties the entry whose name the key {} holds when it runs; \
             canopy resolves every key when the tree is loaded, so name the entry itself: \
             key={}",
            quote(text),
            quote(k),
            quote(k)
        )
        .into());
    }
    let name = text.trim();
    let mut params = Vec::with_capacity(1);
    if !name.is_empty() && !name.starts_with('@') && !name.contains(['{', '}']) {
        params.push(("key", Value::from(format!("{{{name}}}"))));
    }
    Ok(("btcpp:UnsetBlackboard", params))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_standard_node_becomes_an_own_type_only_when_a_port_is_a_key() {
        let values = [("success_count", -1), ("failure_count", 2)];
        let literal = ports(&[("failure_count", "2")]);
        assert!(
            keyed(
                Standard::Parallel,
                &literal,
                &values,
                None,
                "0_1",
                (100, false)
            )
            .is_none()
        );
        let keyed_ports = ports(&[("success_count", "{s}"), ("failure_count", "2")]);
        let (type_name, params) = keyed(
            Standard::Parallel,
            &keyed_ports,
            &values,
            None,
            "0_1",
            (100, false),
        )
        .unwrap()
        .unwrap();
        assert_eq!(type_name, "btcpp:Parallel");
        assert_eq!(
            params,
            [
                ("success_count", Value::from("{s}")),
                ("failure_count", Value::from(2))
            ]
        );
    }

    #[test]
    fn durations_carry_the_tick_length_and_run_once_its_memory_and_reading() {
        let sleep = keyed(
            Standard::Sleep,
            &ports(&[("msec", "{@t}")]),
            &[("msec", 0)],
            None,
            "0_3",
            (40, false),
        );
        assert_eq!(
            sleep.unwrap().unwrap(),
            (
                "btcpp:Sleep",
                vec![("msec", Value::from("{@t}")), ("tick_ms", Value::from(40))]
            )
        );
        let skip = ports(&[("then_skip", "{k}")]);
        let under_fallback = keyed(
            Standard::RunOnce,
            &skip,
            &[("then_skip", 1)],
            Some(Standard::ReactiveFallback),
            "1_9",
            (100, false),
        );
        assert_eq!(
            under_fallback.unwrap().unwrap().1,
            [
                ("then_skip", Value::from("{k}")),
                ("skipped", Value::from("failure")),
                ("memory", Value::from("{__runonce_1_9}")),
                ("skips_into", Value::from("{__skipped_1_9}"))
            ]
        );
        let nowhere = keyed(
            Standard::RunOnce,
            &skip,
            &[("then_skip", 1)],
            None,
            "1_9",
            (100, false),
        );
        assert!(
            nowhere
                .unwrap()
                .unwrap_err()
                .to_string()
                .contains("it is not the child of a standard node")
        );
    }

    #[test]
    fn an_entry_is_named_with_or_without_braces() {
        assert_eq!(entry("{goal}"), Some(Value::from("{goal}")));
        assert_eq!(entry("goal"), Some(Value::from("{goal}")));
        assert_eq!(entry(" {@goal} "), Some(Value::from("{@goal}")));
        assert_eq!((entry("{}"), entry("{=}"), entry("@")), (None, None, None));
    }

    #[test]
    fn unset_names_its_key_in_the_file() {
        assert_eq!(
            unset("goal").unwrap(),
            (
                "btcpp:UnsetBlackboard",
                vec![("key", Value::from("{goal}"))]
            )
        );
        assert_eq!(unset("@goal").unwrap().1, []);
        assert_eq!(
            unset("{name}").unwrap_err().to_string(),
            "UnsetBlackboard key=\"{name}\" empties the entry whose name the key \"name\" holds \
             when it runs; canopy resolves every key when the tree is loaded, so name the entry \
             itself: key=\"name\""
        );
    }

    #[test]
    fn skip_unless_updated_needs_a_parent_that_reads_skipped() {
        let entry = ports(&[("entry", "{x}")]);
        let seq = entry_update(
            Standard::SkipUnlessUpdated,
            &entry,
            Some(Standard::Sequence),
            "0_2",
        );
        assert_eq!(
            seq.unwrap().unwrap(),
            (
                "btcpp:EntryUpdated",
                vec![
                    ("entry", Value::from("{x}")),
                    ("seen", Value::from("{__updated_0_2}")),
                    ("otherwise", Value::from("skip")),
                    ("skipped", Value::from("success"))
                ]
            )
        );
        let lone = entry_update(Standard::SkipUnlessUpdated, &entry, None, "0_2");
        assert!(
            lone.unwrap()
                .unwrap_err()
                .to_string()
                .contains("use WaitValueUpdate")
        );
        let wait = entry_update(Standard::WaitValueUpdate, &entry, None, "0_2");
        assert_eq!(
            wait.unwrap().unwrap().1[2],
            ("otherwise", Value::from("wait"))
        );
        let typo = entry_update(
            Standard::WasEntryUpdated,
            &ports(&[("entyr", "x")]),
            None,
            "0_2",
        );
        assert_eq!(
            typo.unwrap().unwrap_err().to_string(),
            "unknown port \"entyr\" for WasEntryUpdated (did you mean \"entry\"?); it takes: entry"
        );
    }
}
