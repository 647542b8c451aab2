//! `print`, `dot` and `nodes` are read by people and by Graphviz, so their
//! output is pinned: golden files under `tests/golden/`, compared exactly.
//! After an intended change, regenerate them with
//! `UPDATE_GOLDEN=1 cargo test -p canopy-cli --test golden` and review the diff.

mod common;

use std::path::PathBuf;

use canopy_data::Registry;
use common::success;

/// Compare `actual` with the golden file `name`, or rewrite it when
/// `UPDATE_GOLDEN` is set.
fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with UPDATE_GOLDEN=1 cargo test -p canopy-cli",
            path.display()
        )
    });
    assert!(
        actual == expected,
        "output differs from {}\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

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
    assert_eq!(count, 23);
    assert!(listing.ends_with("\n23 node types\n"));
    assert!(listing.contains("times: integer ≥ 1, required — successes needed"));
}
