//! `print`, `dot` and `nodes` are read by people and by Graphviz, and
//! `run --trace` by tools, so their output is pinned: golden files under
//! `tests/golden/`, compared exactly.
//! After an intended change, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p canopy-cli --test golden` and review the diff.

mod common;

use canopy_data::Registry;
use common::{golden, success};

#[test]
fn print_examples() {
    golden(
        "sentry.txt",
        &success(&["print", "examples/trees/sentry.json"]),
    );
    golden("pet.txt", &success(&["print", "examples/trees/pet.ron"]));
}

#[test]
fn dot_examples() {
    golden(
        "sentry.dot",
        &success(&["dot", "examples/trees/sentry.json"]),
    );
    golden("pet.dot", &success(&["dot", "examples/trees/pet.ron"]));
}

#[test]
fn nodes_lists_every_builtin_type_with_its_parameters() {
    let listing = success(&["nodes"]);
    golden("nodes.txt", &listing);

    let registry = Registry::<(), ()>::new();
    let lines: Vec<&str> = listing.lines().collect();
    let mut count = 0;
    for node_type in registry.types() {
        count += 1;
        let name = node_type.name();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} is not listed"));
        assert!(
            lines[at].ends_with(node_type.description()),
            "{}",
            lines[at]
        );
        for (i, param) in node_type.params().iter().enumerate() {
            let expected = format!("{}: {} — {}", param.name, param.describe(), param.doc);
            assert_eq!(lines[at + 1 + i].trim_start(), expected);
        }
    }
    assert_eq!(count, 35);
    assert!(listing.ends_with("\n35 node types\n"));
    assert!(listing.contains("times: integer ≥ 1, required — Successes needed."));
}

#[test]
fn trace_lines_are_pinned_byte_for_byte() {
    // Two agents of the takeover tree: enter, update, exit, abort and tick
    // lines, and a name that JSON must escape.
    golden(
        "takeover_trace.jsonl",
        &success(&[
            "run",
            "crates/canopy-cli/tests/fixtures/takeover.json",
            "--ticks",
            "4",
            "--agents",
            "2",
            "--trace",
        ]),
    );
}
