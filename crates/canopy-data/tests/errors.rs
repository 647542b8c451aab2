//! Bad tree files, one test per kind of mistake, each checking the exact
//! message a user sees: the file, where in it (`line:column` for syntax,
//! the node path and name for everything else) and the problem.
//!
//! Tests marked `#[ignore = "BUG: ..."]` assert the behaviour the loader
//! should have and does not have yet.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Agent, Arity, Children, Ctx, CustomNode, Node, NodeKind, Status};
use canopy_data::{
    Format, LoadError, Location, MAX_FILE_BYTES, MAX_NODES, NodePath, NodeType, Param, ParamError,
    Position, Problem, Registry, RegistryError, TreeSource,
};

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

fn registry() -> Registry<(), ()> {
    Registry::new()
}

/// The error message for a JSON text loaded as `t.json`.
fn json(text: &str) -> String {
    load_err(text.as_bytes(), Format::Json)
}

/// The error message for a RON text loaded as `t.ron`.
fn ron(text: &str) -> String {
    load_err(text.as_bytes(), Format::Ron)
}

fn load_err(bytes: &[u8], format: Format) -> String {
    let source = match format {
        Format::Ron => "t.ron",
        _ => "t.json",
    };
    match registry()
        .loading(TreeSource::bytes(bytes, format, source))
        .load()
    {
        Ok(tree) => panic!("expected an error, loaded:\n{}", tree.display()),
        Err(e) => e.to_string(),
    }
}

/// `text` must load; returns the printed tree.
fn loads(text: &str, format: Format) -> String {
    match registry()
        .loading(TreeSource::text(text, format, "ok"))
        .load()
    {
        Ok(tree) => tree.display().to_string(),
        Err(e) => panic!("expected to load, got: {e}"),
    }
}

/// A unique path in the system's temporary directory.
fn temp_path(file: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-data-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(file)
}

// ---------------------------------------------------------------------------
// Node types and parameters
// ---------------------------------------------------------------------------

#[test]
fn unknown_node_type_names_path_and_suggests_the_closest_type() {
    let text = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "AlwaysSuccess"},
        {"type": "AlwaysSuccess"},
        {"type": "Inverter", "children": [{"type": "Wiat", "name": "guard", "ticks": 2}]}
    ]}}"#;
    assert_eq!(
        json(text),
        r#"t.json:4:45: tree/children[2]/children[0] (name "guard"): unknown node type "Wiat" (did you mean "Wait"?)"#
    );
    // Case differences are forgiven by the suggestion, not by the loader.
    assert_eq!(
        json(r#"{"tree": {"type": "sequence"}}"#),
        r#"t.json:1:12: tree (name "sequence"): unknown node type "sequence" (did you mean "Sequence"?)"#
    );
    // Nothing close: no suggestion.
    assert_eq!(
        json(r#"{"tree": {"type": "Frobnicate"}}"#),
        r#"t.json:1:12: tree (name "Frobnicate"): unknown node type "Frobnicate""#
    );
}

#[test]
fn unknown_parameter_lists_the_parameters_the_type_takes() {
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "tick": 2}}"#),
        r#"t.json:1:12: tree (name "Wait"): unknown parameter "tick" for Wait (did you mean "ticks"?); it takes: ticks"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "AlwaysFailure", "name": "no", "ticks": 2}}"#),
        r#"t.json:1:12: tree (name "no"): unknown parameter "ticks" for AlwaysFailure; it takes no parameters"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Parallel", "sucess": "one", "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:12: tree (name "Parallel"): unknown parameter "sucess" for Parallel (did you mean "success"?); it takes: success, failure"#
    );
}

#[test]
fn missing_parameter_says_what_it_should_hold() {
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "name": "nap"}}"#),
        r#"t.json:1:12: tree (name "nap"): missing parameter "ticks" (integer ≥ 0, required)"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Repeat", "children": [{"type": "AlwaysSuccess"}]}}"#),
        r#"t.json:1:12: tree (name "Repeat"): missing parameter "times" (integer ≥ 1, required)"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Guard", "children": [{"type": "AlwaysSuccess"}]}}"#),
        r#"t.json:1:12: tree (name "Guard"): missing parameter "condition" (condition node, required)"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "SubTree"}}"#),
        r#"t.json:1:12: tree (name "SubTree"): missing parameter "tree" (name of a subtree, required)"#
    );
}

#[test]
fn wrong_parameter_type_shows_the_value_given() {
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": "2"}}"#),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be an integer, got string "2""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 2.5}}"#),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be an integer, got number 2.5"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 2.0}}"#),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be an integer, got number 2.0"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Random", "success": "half", "failure": 0}}"#),
        r#"t.json:1:12: tree (name "Random"): parameter "success" must be a number, got string "half""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Script", "statuses": "Running"}}"#),
        r#"t.json:1:12: tree (name "Script"): parameter "statuses" must be a non-empty list of statuses, got string "Running""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Script", "statuses": []}}"#),
        r#"t.json:1:12: tree (name "Script"): parameter "statuses" must be a non-empty list of statuses, got list []"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "SubTree", "tree": 3}}"#),
        r#"t.json:1:12: tree (name "SubTree"): parameter "tree" must be a string, got number 3"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Parallel", "success": 1, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:12: tree (name "Parallel"): parameter "success" must be a string, got number 1"#
    );
    // RON's unit `()` reads as JSON's null.
    assert_eq!(
        ron(r#"(tree: (type: "Wait", ticks: ()))"#),
        r#"t.ron:1:9: tree (name "Wait"): parameter "ticks" must be an integer, got null"#
    );
    // Long values are cut short in messages.
    assert_eq!(
        json(
            r#"{"tree": {"type": "Wait", "ticks": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]}}"#
        ),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be an integer, got list [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,… (20 items)"#
    );
}

#[test]
fn wrong_shape_of_the_reserved_fields() {
    assert_eq!(
        json(r#"{"tree": {"name": "x"}}"#),
        r#"t.json:1:12: tree: missing "type""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": 7}}"#),
        r#"t.json:1:12: tree: "type" must be a string, got number 7"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "name": ["a"], "ticks": 1}}"#),
        r#"t.json:1:12: tree (name "Wait"): "name" must be a string, got list ["a"]"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Sequence", "children": {}}}"#),
        r#"t.json:1:12: tree (name "Sequence"): "children" must be a list, got object {}"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Sequence", "children": [1]}}"#),
        r#"t.json: tree/children[0]: expected a node object like {"type": "Sequence"}, got number 1"#
    );
    // A bare RON identifier is a unit value, not a string.
    assert_eq!(
        ron(r#"(tree: (type: Wait, ticks: 1))"#),
        r#"t.ron:1:9: tree: "type" must be a string, got () — in RON, write words as strings in double quotes"#
    );
}

#[test]
fn out_of_range_parameters() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "Repeat", "times": 0, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:12: tree (name "Repeat"): parameter "times" must be at least 1, got 0"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Timeout", "name": "hurry", "ticks": 0, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:12: tree (name "hurry"): parameter "ticks" must be at least 1, got 0"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Random", "success": 0.6, "failure": 0.7}}"#),
        r#"t.json:1:12: tree (name "Random"): success + failure must be at most 1, got 1.2999999999999998"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Random", "success": 1.5, "failure": 0}}"#),
        r#"t.json:1:12: tree (name "Random"): parameter "success" must be in 0..=1, got 1.5"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": -1}}"#),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be at least 0, got -1"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 2147483648}}"#),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be at most 2147483647, got 2147483648"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Periodic", "period": 0, "on": 0}}"#),
        r#"t.json:1:12: tree (name "Periodic"): parameter "period" must be at least 1, got 0"#
    );
    // Sums that are exactly 1 in decimal are accepted.
    assert_eq!(
        loads(
            r#"{"tree": {"type": "Random", "success": 0.3, "failure": 0.7}}"#,
            Format::Json
        ),
        "Random(success=0.3, failure=0.7)\n"
    );
}

#[test]
fn choice_and_status_words() {
    assert_eq!(
        json(r#"{"tree": {"type": "Script", "name": "s", "statuses": ["Running", "Sucess"]}}"#),
        r#"t.json:1:12: tree (name "s"): parameter "statuses": item 1 is "Sucess", not "Running", "Success" or "Failure" (did you mean "Success"?)"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Script", "statuses": ["Running", 3]}}"#),
        r#"t.json:1:12: tree (name "Script"): parameter "statuses": item 1 is number 3, not "Running", "Success" or "Failure""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Script", "statuses": ["Running"], "clock": "tik"}}"#),
        r#"t.json:1:12: tree (name "Script"): parameter "clock" must be one of "install", "tick", got "tik" (did you mean "tick"?)"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Parallel", "failure": "some", "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:12: tree (name "Parallel"): parameter "failure" must be one of "one", "all", got "some""#
    );
}

// ---------------------------------------------------------------------------
// Children
// ---------------------------------------------------------------------------

#[test]
fn decorator_needs_exactly_one_child() {
    assert_eq!(
        json(r#"{"tree": {"type": "Inverter"}}"#),
        r#"t.json:1:12: tree (name "Inverter"): an Inverter needs exactly one child, got 0"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Repeat", "name": "twice", "times": 2, "children": [{"type": "AlwaysSuccess"}, {"type": "AlwaysFailure"}]}}"#
        ),
        r#"t.json:1:12: tree (name "twice"): a Repeat needs exactly one child, got 2"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Guard", "condition": {"type": "Chance", "p": 0.5}, "children": []}}"#
        ),
        r#"t.json:1:12: tree (name "Guard"): a Guard needs exactly one child, got 0"#
    );
}

#[test]
fn leaf_with_children() {
    assert_eq!(
        json(r#"{"tree": {"type": "AlwaysSuccess", "children": [{"type": "AlwaysSuccess"}]}}"#),
        r#"t.json:1:12: tree (name "AlwaysSuccess"): an AlwaysSuccess needs no children, got 1"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "SubTree", "tree": "A", "children": [{"type": "AlwaysSuccess"}]}, "subtrees": {"A": {"type": "AlwaysSuccess"}}}"#
        ),
        r#"t.json:1:12: tree (name "SubTree"): a SubTree needs no children, got 1"#
    );
    // An empty list is no children.
    assert_eq!(
        loads(
            r#"{"tree": {"type": "Wait", "ticks": 1, "children": []}}"#,
            Format::Json
        ),
        "Wait(ticks=1)\n"
    );
}

#[test]
fn parallel_without_children() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "Sequence", "children": [{"type": "Parallel", "name": "both"}]}}"#
        ),
        r#"t.json:1:46: tree/children[0] (name "both"): a Parallel needs at least one child, got 0"#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Parallel", "children": []}}"#),
        r#"t.json:1:12: tree (name "Parallel"): a Parallel needs at least one child, got 0"#
    );
}

// ---------------------------------------------------------------------------
// Subtrees
// ---------------------------------------------------------------------------

#[test]
fn errors_inside_subtrees_use_the_subtree_path() {
    let text = r#"{"tree": {"type": "SubTree", "tree": "Flee"},
        "subtrees": {"Flee": {"type": "Sequence", "children": [
            {"type": "AlwaysSuccess"}, {"type": "Wiat"}]}}}"#;
    assert_eq!(
        json(text),
        r#"t.json:3:42: subtrees/Flee/children[1] (name "Wiat"): unknown node type "Wiat" (did you mean "Wait"?)"#
    );
    // Subtrees nothing refers to are checked too.
    let text = r#"{"tree": {"type": "AlwaysSuccess"},
        "subtrees": {"Unused": {"type": "Wait"}}}"#;
    assert_eq!(
        json(text),
        r#"t.json:2:34: subtrees/Unused (name "Wait"): missing parameter "ticks" (integer ≥ 0, required)"#
    );
}

#[test]
fn missing_subtree() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "SubTree", "tree": "Fle"}, "subtrees": {"Flee": {"type": "AlwaysSuccess"}, "Rest": {"type": "AlwaysSuccess"}}}"#
        ),
        r#"t.json:1:12: tree (name "SubTree"): no subtree named "Fle" (did you mean "Flee"?); the file defines: "Flee", "Rest""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "SubTree", "name": "run", "tree": "Flee"}}"#),
        r#"t.json:1:12: tree (name "run"): no subtree named "Flee"; the file defines no subtrees"#
    );
}

#[test]
fn cyclic_subtrees() {
    let text = r#"{"tree": {"type": "SubTree", "tree": "A"}, "subtrees": {
        "A": {"type": "Inverter", "children": [{"type": "SubTree", "tree": "B"}]},
        "B": {"type": "Inverter", "children": [{"type": "SubTree", "tree": "A"}]}}}"#;
    assert_eq!(
        json(text),
        r#"t.json:3:50: subtrees/B/children[0] (name "SubTree"): subtrees refer to each other in a cycle: "A" → "B" → "A""#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "SubTree", "tree": "A"}, "subtrees": {"A": {"type": "SubTree", "tree": "A"}}}"#
        ),
        r#"t.json:1:64: subtrees/A (name "SubTree"): subtree "A" refers to itself"#
    );
    // A cycle nothing refers to is found as well.
    let text = r#"{"tree": {"type": "AlwaysSuccess"}, "subtrees": {
        "A": {"type": "Inverter", "children": [{"type": "SubTree", "tree": "B"}]},
        "B": {"type": "Inverter", "children": [{"type": "SubTree", "tree": "A"}]}}}"#;
    assert_eq!(
        json(text),
        r#"t.json:3:50: subtrees/B/children[0] (name "SubTree"): subtrees refer to each other in a cycle: "A" → "B" → "A""#
    );
}

#[test]
fn subtrees_must_be_an_object() {
    assert_eq!(
        json(r#"{"tree": {"type": "AlwaysSuccess"}, "subtrees": []}"#),
        r#"t.json: "subtrees" must be an object of named node objects, got list []"#
    );
}

// ---------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------

#[test]
fn guard_condition_must_be_a_condition_type() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "Guard", "condition": {"type": "Wait", "ticks": 1}, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:43: tree/condition (name "Wait"): "Wait" is not a condition type; a guard's condition is one of: Chance, Periodic"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "ReactiveGuard", "condition": "Chance", "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:50: tree/condition: a condition must be a node object of a condition type (Chance, Periodic), got string "Chance""#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Guard", "condition": {"type": "Chance", "name": "c", "p": 2}, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:43: tree/condition (name "c"): parameter "p" must be in 0..=1, got 2"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "Guard", "condition": {"type": "Chance", "p": 0.5, "children": []}, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:43: tree/condition (name "Chance"): a condition takes no children"#
    );
    assert_eq!(
        json(
            r#"{"tree": {"type": "ReactiveGuard", "condition": {"type": "Periodic", "period": 2}, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:51: tree/condition (name "Periodic"): missing parameter "on" (integer ≥ 0, required)"#
    );
}

#[test]
fn guard_condition_path_inside_children() {
    let text = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "AlwaysSuccess"},
        {"type": "Guard", "name": "g", "condition": {"type": "Chanse", "p": 0.5}, "children": [{"type": "AlwaysSuccess"}]}
    ]}}"#;
    assert_eq!(
        json(text),
        r#"t.json:3:55: tree/children[1]/condition (name "Chanse"): "Chanse" is not a condition type; a guard's condition is one of: Chance, Periodic"#
    );
}

// ---------------------------------------------------------------------------
// Syntax
// ---------------------------------------------------------------------------

#[test]
fn malformed_json_gives_line_and_column() {
    assert_eq!(
        json("{\"tree\": {\"type\": \"Sequence\",\n  \"children\": [}}"),
        "t.json:2:16: malformed JSON: expected value"
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 1},}"#),
        "t.json:1:39: malformed JSON: trailing comma"
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 1}} x"#),
        "t.json:1:40: malformed JSON: trailing characters"
    );
    assert_eq!(
        json("{\"tree\": {\"type\": \"Wait\",\n\n   \"ticks\": 1"),
        "t.json:3:13: malformed JSON: EOF while parsing an object"
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Random", "success": 1e400, "failure": 0}}"#),
        "t.json:1:44: malformed JSON: number out of range"
    );
}

#[test]
fn malformed_ron_gives_line_and_column() {
    assert_eq!(
        ron("(tree: (type: \"Sequence\",\n  children: [(type: \"Wait\" ticks: 1)]))"),
        "t.ron:2:28: malformed RON: Expected comma"
    );
    assert_eq!(
        ron(r#"(tree: (type: "Wait", ticks: 1)) x"#),
        "t.ron:1:33: malformed RON: Non-whitespace trailing characters"
    );
    // A missing closing parenthesis at the very end.
    assert_eq!(
        ron(r#"(tree: (type: "Wait", ticks: 1)"#),
        "t.ron:1:31: malformed RON: Expected comma"
    );
}

#[test]
fn ron_values_that_are_not_tree_data() {
    assert_eq!(
        ron(r#"(tree: (type: "Wait", ticks: b"x"))"#),
        "t.ron:1:32: byte strings are not tree data"
    );
    assert_eq!(ron("{1: 2}"), "t.ron:1:2: malformed RON: Expected string");
    assert_eq!(
        ron(r#"(tree: (type: "Random", success: inf, failure: 0))"#),
        "t.ron:1:34: numbers must be finite: infinity, NaN and numbers beyond ±1.8e308 are refused"
    );
    assert_eq!(
        ron(r#"(tree: (type: "Random", success: NaN, failure: 0))"#),
        "t.ron:1:34: numbers must be finite: infinity, NaN and numbers beyond ±1.8e308 are refused"
    );
}

#[test]
fn empty_and_whitespace_only_files() {
    assert_eq!(json(""), "t.json: the file is empty");
    assert_eq!(ron(""), "t.ron: the file is empty");
    assert_eq!(
        json(" \n\t\r\n  "),
        "t.json: the file holds only whitespace"
    );
    assert_eq!(ron("\n\n   \n"), "t.ron: the file holds only whitespace");
}

#[test]
fn binary_files() {
    assert_eq!(
        load_err(b"{\"tree\": {\"type\": \"Wait\"\0}}", Format::Json),
        "t.json: not a text file (it contains NUL bytes)"
    );
    assert_eq!(
        load_err(b"\0\0\0\0", Format::Ron),
        "t.ron: not a text file (it contains NUL bytes)"
    );
    assert_eq!(
        load_err(b"{\"tree\": \xff\xfe}", Format::Json),
        "t.json: not a text file (invalid UTF-8 at byte 9)"
    );
    assert_eq!(
        load_err(&[0x89, b'P', b'N', b'G', b'\r', b'\n'], Format::Ron),
        "t.ron: not a text file (invalid UTF-8 at byte 0)"
    );
}

#[test]
fn wrong_top_level_shape() {
    assert_eq!(
        json(r#"[{"type": "Wait", "ticks": 1}]"#),
        r#"t.json: expected an object with a "tree" field at the top, got list [{"type":"Wait","ticks":1}]"#
    );
    assert_eq!(
        ron("[1, 2]"),
        r#"t.ron: expected an object with a "tree" field at the top, got list [1,2]"#
    );
    assert_eq!(
        json("null"),
        r#"t.json: expected an object with a "tree" field at the top, got null"#
    );
    assert_eq!(
        json(r#"{"tre": {"type": "Wait", "ticks": 1}}"#),
        r#"t.json: unknown top-level field "tre" (did you mean "tree"?); a tree file has "tree" and optionally "subtrees""#
    );
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 1}, "version": 2}"#),
        r#"t.json: unknown top-level field "version"; a tree file has "tree" and optionally "subtrees""#
    );
    assert_eq!(
        json(r#"{"subtrees": {}}"#),
        r#"t.json: missing the "tree" field holding the root node"#
    );
    assert_eq!(
        ron("(subtrees: {})"),
        r#"t.ron: missing the "tree" field holding the root node"#
    );
}

// ---------------------------------------------------------------------------
// Absurd input
// ---------------------------------------------------------------------------

/// `n` Inverters around an AlwaysSuccess, as JSON.
fn nested_json(n: usize) -> String {
    let mut s = r#"{"type": "AlwaysSuccess"}"#.to_string();
    for _ in 0..n {
        s = format!(r#"{{"type": "Inverter", "children": [{s}]}}"#);
    }
    format!(r#"{{"tree": {s}}}"#)
}

/// `n` Inverters around an AlwaysSuccess, as RON.
fn nested_ron(n: usize) -> String {
    let mut s = r#"(type: "AlwaysSuccess")"#.to_string();
    for _ in 0..n {
        s = format!(r#"(type: "Inverter", children: [{s}])"#);
    }
    format!("(tree: {s})")
}

#[test]
fn absurd_nesting_hits_the_parsers_recursion_limit() {
    // Each node is two levels of nesting (object, children list) and both
    // parsers stop at 128 (MAX_NESTING): the error points at the 64th Inverter.
    assert_eq!(
        json(&nested_json(200)),
        "t.json:1:2152: nested more than 128 brackets deep; build deeper trees from subtrees"
    );
    assert_eq!(
        ron(&nested_ron(200)),
        "t.ron:1:1927: nested more than 128 brackets deep; build deeper trees from subtrees"
    );
    // The deepest trees each syntax can hold directly (far below
    // MAX_DEPTH = 256, which subtrees reach): 62 Inverters over a leaf in
    // JSON, 63 in RON (whose top level is a struct, not a map in a list).
    let ok = |text: &str, format| {
        registry()
            .loading(TreeSource::text(text, format, "deep"))
            .load()
            .is_ok()
    };
    assert!(ok(&nested_json(62), Format::Json));
    assert!(!ok(&nested_json(63), Format::Json));
    assert!(ok(&nested_ron(63), Format::Ron));
    assert!(!ok(&nested_ron(64), Format::Ron));
}

/// Subtrees `S0`..`S{n-1}`, each an Inverter over a reference to the next;
/// the last is an AlwaysSuccess. `named` gives every node a name.
fn subtree_chain(n: usize, named: bool) -> String {
    let mut subtrees = Vec::new();
    for i in 0..n - 1 {
        let (inv, r) = if named {
            (
                format!(r#""name": "inv {i}", "#),
                format!(r#""name": "ref {}", "#, i + 1),
            )
        } else {
            (String::new(), String::new())
        };
        subtrees.push(format!(
            r#""S{i}": {{"type": "Inverter", {inv}"children": [{{"type": "SubTree", {r}"tree": "S{}"}}]}}"#,
            i + 1
        ));
    }
    subtrees.push(format!(r#""S{}": {{"type": "AlwaysSuccess"}}"#, n - 1));
    format!(
        r#"{{"tree": {{"type": "SubTree", "tree": "S0"}}, "subtrees": {{{}}}}}"#,
        subtrees.join(",\n")
    )
}

/// Run `f` on a thread with `bytes` of stack.
fn with_stack(bytes: usize, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn absurd_nesting_through_subtrees_hits_max_depth() {
    // 8 MiB, a main thread's stack: see the ignored test below for 2 MiB.
    with_stack(8 << 20, max_depth_through_subtrees);
}

#[test]
fn max_depth_loads_on_a_default_thread_stack() {
    // 2 MiB is what std::thread::spawn and the test harness give a thread.
    with_stack(2 << 20, max_depth_through_subtrees);
}

fn max_depth_through_subtrees() {
    // S0's Inverter is at depth 1, S255's at 256: its child is one too many.
    assert_eq!(
        json(&subtree_chain(301, false)),
        r#"t.json:256:45: subtrees/S255/children[0] (name "SubTree"): nodes are nested more than 256 levels deep (through subtrees)"#
    );
    // 255 levels of Inverters plus the leaf: exactly the limit, accepted.
    let tree = registry()
        .loading(TreeSource::text(
            &subtree_chain(256, false),
            Format::Json,
            "deep.json",
        ))
        .load()
        .unwrap();
    assert_eq!(tree.depth(), 256);
    let mut agent = Agent::new(&tree);
    // 255 Inverters: an odd number of inversions of Success.
    assert_eq!(agent.tick(&tree, &mut (), &()), Status::Failure);
}

#[test]
fn max_depth_error_names_the_node_by_its_name() {
    with_stack(8 << 20, || {
        assert_eq!(
            json(&subtree_chain(301, true)),
            r#"t.json:256:64: subtrees/S255/children[0] (name "ref 256"): nodes are nested more than 256 levels deep (through subtrees)"#
        );
    });
}

#[test]
fn long_chain_of_bare_subtree_references_is_an_error_not_a_stack_overflow() {
    // R0 is a reference to R1, R1 to R2, …: the depth never grows, so the
    // MAX_DEPTH check never fires, and the loader recurses once per hop.
    let n = 50_000;
    let mut subtrees: Vec<String> = (0..n)
        .map(|i| format!(r#""R{i}": {{"type": "SubTree", "tree": "R{}"}}"#, i + 1))
        .collect();
    subtrees.push(format!(r#""R{n}": {{"type": "AlwaysSuccess"}}"#));
    let text = format!(
        r#"{{"tree": {{"type": "SubTree", "tree": "R0"}}, "subtrees": {{{}}}}}"#,
        subtrees.join(",")
    );
    let err = registry()
        .loading(TreeSource::text(&text, Format::Json, "t.json"))
        .load()
        .unwrap_err();
    // The exact wording is the fixer's choice; it must be the depth limit.
    assert!(
        err.to_string().contains("more than 256"),
        "unexpected error: {err}"
    );
}

#[test]
fn file_larger_than_the_limit() {
    let mut bytes = vec![b' '; MAX_FILE_BYTES as usize + 1];
    bytes[..2].copy_from_slice(b"{}");
    assert_eq!(
        load_err(&bytes, Format::Json),
        "t.json: the file is 16777217 bytes, more than the limit of 16777216"
    );
    assert_eq!(
        load_err(&bytes, Format::Ron),
        "t.ron: the file is 16777217 bytes, more than the limit of 16777216"
    );
    // load_file checks the size before reading (a sparse file costs nothing).
    let path = temp_path("huge.json");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES + 1).unwrap();
    drop(file);
    let err = registry()
        .loading(TreeSource::file(&path))
        .load()
        .unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(err.location(), &Location::File);
    assert_eq!(
        err.problem(),
        &Problem::TooLarge {
            bytes: Some(16777217),
            limit: MAX_FILE_BYTES
        }
    );
    assert_eq!(
        err.problem().to_string(),
        "the file is 16777217 bytes, more than the limit of 16777216"
    );
}

#[test]
fn more_nodes_than_the_limit() {
    // A one-letter action type keeps each node at 12 bytes: MAX_NODES + 1
    // nodes fit in 13 MB, under MAX_FILE_BYTES.
    let mut registry = Registry::<(), ()>::new();
    registry
        .register_action("A", "succeeds", vec![], |_| {
            Ok(|_: &mut Ctx<(), ()>| Status::Success)
        })
        .unwrap();
    let mut text = String::with_capacity(13 * MAX_NODES + 64);
    text.push_str(r#"{"tree":{"type":"Sequence","children":["#);
    for i in 0..MAX_NODES {
        if i > 0 {
            text.push(',');
        }
        text.push_str(r#"{"type":"A"}"#);
    }
    text.push_str("]}}");
    assert!(text.len() as u64 <= MAX_FILE_BYTES);
    let err = registry
        .loading(TreeSource::text(&text, Format::Json, "big.json"))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"big.json:1:13000029: tree/children[999999] (name "A"): the file holds more than 1000000 nodes"#
    );
}

#[test]
fn very_long_unknown_type_name_gives_a_short_message() {
    // 200,000 characters: about 2 s in a debug build; 16 MB takes minutes
    // (6 s in release) and makes a 32 MB message.
    let name = "a".repeat(200_000);
    let message = json(&format!(r#"{{"tree": {{"type": "{name}"}}}}"#));
    assert!(
        message.len() < 500,
        "message of {} bytes: {}…",
        message.len(),
        &message[..200]
    );
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

#[test]
fn load_file_refuses_unknown_extensions() {
    let err = registry()
        .loading(TreeSource::file("trees/notes.txt"))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "trees/notes.txt: unknown file extension: tree files end in .json or .ron"
    );
    let err = registry()
        .loading(TreeSource::file("trees/noextension"))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "trees/noextension: unknown file extension: tree files end in .json or .ron"
    );
    // Extensions are case-insensitive: this one is read (and is missing).
    let err = registry()
        .loading(TreeSource::file("TREE.JSON"))
        .load()
        .unwrap_err();
    assert!(
        err.to_string().starts_with("TREE.JSON: cannot read: "),
        "{err}"
    );
}

#[test]
fn load_file_reports_a_missing_file() {
    let err = registry()
        .loading(TreeSource::file("/nonexistent/canopy/guard.json"))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/nonexistent/canopy/guard.json: cannot read: No such file or directory (os error 2)"
    );
}

#[test]
fn load_file_names_the_file_in_node_errors() {
    let path = temp_path("bad.ron");
    std::fs::write(&path, "(tree: (type: \"Wait\", tick: 3))").unwrap();
    let err = registry()
        .loading(TreeSource::file(&path))
        .load()
        .unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        err,
        LoadError::new(
            path.display().to_string(),
            Location::Node {
                path: NodePath::default(),
                name: "Wait".to_string(),
                // The node object's first field, `type`, after `(tree: (`.
                at: Some(Position { line: 1, column: 9 }),
            },
            Problem::UnknownParam {
                param: "tick".to_string(),
                type_name: "Wait".to_string(),
                suggestion: Some("ticks".to_string()),
                takes: vec!["ticks".to_string()],
            }
        )
    );
    assert_eq!(
        err.problem().to_string(),
        r#"unknown parameter "tick" for Wait (did you mean "ticks"?); it takes: ticks"#
    );
}

#[test]
fn the_example_tree_files_load_and_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/trees");
    for file in ["sentry.json", "pet.ron"] {
        let tree = registry()
            .loading(TreeSource::file(&format!("{dir}/{file}")))
            .load()
            .unwrap_or_else(|e| panic!("{e}"));
        for id in 0..4 {
            let mut agent = Agent::with_id(&tree, id);
            for _ in 0..50 {
                agent.tick(&tree, &mut (), &());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The registry
// ---------------------------------------------------------------------------

#[test]
fn registering_a_duplicate_name_is_refused() {
    let mut registry = Registry::<(), ()>::new();
    let err = registry
        .register_action("Wait", "a second Wait", vec![], |_| {
            Ok(|_: &mut Ctx<(), ()>| Status::Success)
        })
        .unwrap_err();
    assert_eq!(err, RegistryError::Duplicate("Wait".to_string()));
    assert_eq!(err.to_string(), r#"node type "Wait" is already registered"#);

    let twice = || {
        NodeType::new("Twice", "", Arity::Decorator, vec![], |_| {
            Ok(canopy_core::nodes::Repeat { times: 2 }.into())
        })
    };
    registry.register(twice()).unwrap();
    assert_eq!(
        registry.register(twice()).unwrap_err().to_string(),
        r#"node type "Twice" is already registered"#
    );
}

#[test]
fn registering_bad_names_and_parameters_is_refused() {
    let mut registry = Registry::<(), ()>::empty();
    let leaf = |name: &str, params: Vec<Param>| {
        NodeType::new(name, "", Arity::Leaf, params, |_| {
            Ok(canopy_core::nodes::AlwaysSuccess.into())
        })
    };
    assert_eq!(
        registry.register(leaf("", vec![])).unwrap_err().to_string(),
        r#"node type name "" must be non-empty letters, digits and underscores"#
    );
    assert_eq!(
        registry
            .register(leaf("Go Home", vec![]))
            .unwrap_err()
            .to_string(),
        r#"node type name "Go Home" must be non-empty letters, digits and underscores"#
    );
    assert_eq!(
        registry
            .register(leaf("Eat", vec![Param::text("name", "")]))
            .unwrap_err()
            .to_string(),
        r#"node type "Eat": parameter "name" is declared twice or uses a reserved name (type, name, children)"#
    );
    assert_eq!(
        registry
            .register(leaf(
                "Eat",
                vec![Param::count("n", ""), Param::count("n", "")]
            ))
            .unwrap_err()
            .to_string(),
        r#"node type "Eat": parameter "n" is declared twice or uses a reserved name (type, name, children)"#
    );
    // The refused registrations left nothing behind.
    assert_eq!(registry.types().count(), 0);
}

// ---------------------------------------------------------------------------
// User node types from a file
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Miner {
    gold: u32,
    digs: u32,
    /// Child updates seen by the Tally decorator.
    tallied: u32,
}

/// A custom decorator: passes its child's status through, adding `weight`
/// to the agent's tally on every update.
struct Tally {
    weight: u32,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct TallyTask {
    updates: u32,
}

impl Node<Miner, ()> for Tally {
    type Task = TallyTask;

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("weight".to_string(), self.weight.to_string())]
    }

    fn create_task(&self, _cx: &mut Ctx<Miner, ()>) -> TallyTask {
        TallyTask { updates: 0 }
    }

    fn update(
        &self,
        task: &mut TallyTask,
        cx: &mut Ctx<Miner, ()>,
        children: &mut Children<Miner, ()>,
    ) -> Status {
        task.updates += 1;
        cx.agent.tallied += self.weight;
        children.update(0, cx)
    }
}

fn miner_registry() -> Registry<Miner, ()> {
    let mut registry = Registry::<Miner, ()>::new();
    registry
        .register_action(
            "Dig",
            "digs up `amount` gold",
            vec![Param::count("amount", "gold per dig")],
            |p| {
                let amount = p.u32("amount")?;
                Ok(move |cx: &mut Ctx<Miner, ()>| {
                    cx.agent.gold += amount;
                    cx.agent.digs += 1;
                    Status::Success
                })
            },
        )
        .unwrap();
    registry
        .register_condition(
            "Rich",
            "has at least `threshold` gold",
            vec![Param::int("threshold", "gold needed").default(10)],
            |p| {
                let threshold = p.int("threshold")?;
                Ok(move |cx: &Ctx<Miner, ()>| i64::from(cx.agent.gold) >= threshold)
            },
        )
        .unwrap();
    registry
        .register(NodeType::new(
            "Negate",
            "swaps Success and Failure",
            Arity::Decorator,
            vec![],
            |_| Ok(canopy_core::nodes::Inverter.into()),
        ))
        .unwrap();
    registry
        .register(NodeType::new(
            "Tally",
            "counts its child's updates",
            Arity::Decorator,
            vec![Param::count("weight", "added per update").default(1)],
            |p| {
                Ok(NodeKind::from(CustomNode::new(Tally {
                    weight: p.u32("weight")?,
                })))
            },
        ))
        .unwrap();
    registry
}

#[test]
fn user_registered_types_work_from_a_file() {
    let registry = miner_registry();
    let text = r#"(tree: (type: "Selector", name: "mine", children: [
        (type: "Rich", name: "rich?", threshold: 10),
        (type: "Tally", weight: 2, children: [
            (type: "Negate", children: [(type: "Dig", amount: 4)]),
        ]),
    ]))"#;
    let tree = registry
        .loading(TreeSource::text(text, Format::Ron, "miner.ron"))
        .load()
        .unwrap();
    assert_eq!(
        tree.display().to_string(),
        "mine  Selector\n\
         ├── rich?  Rich(threshold=10)\n\
         └── Tally(weight=2)\n    \
             └── Negate\n        \
                 └── Dig(amount=4)\n"
    );
    let mut miner = Miner::default();
    let mut agent = Agent::new(&tree);
    let statuses: Vec<Status> = (0..5).map(|_| agent.tick(&tree, &mut miner, &())).collect();
    // Three digs (4, 8, 12 gold), each negated to Failure; then rich.
    use Status::{Failure as F, Success as S};
    assert_eq!(statuses, [F, F, F, S, S]);
    assert_eq!((miner.gold, miner.digs, miner.tallied), (12, 3, 6));
}

#[test]
fn user_condition_guards_from_a_file() {
    let registry = miner_registry();
    let text = r#"{"tree": {"type": "ReactiveGuard", "name": "until rich",
        "condition": {"type": "Negate", "children": []},
        "children": [{"type": "Dig", "amount": 5}]}}"#;
    let err = registry
        .loading(TreeSource::text(text, Format::Json, "m.json"))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"m.json:2:24: tree/condition (name "Negate"): "Negate" is not a condition type; a guard's condition is one of: Chance, Periodic, Rich"#
    );

    let text = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "Guard", "name": "poor", "condition": {"type": "Rich", "name": "rich?", "threshold": 0},
         "children": [{"type": "Dig", "amount": 5}]},
        {"type": "Inverter", "children": [{"type": "Rich"}]}
    ]}}"#;
    let tree = registry
        .loading(TreeSource::text(text, Format::Json, "m.json"))
        .load()
        .unwrap();
    assert_eq!(
        tree.display().to_string(),
        "Sequence\n\
         ├── poor  Guard(condition=rich?)\n\
         │   └── Dig(amount=5)\n\
         └── Inverter\n    \
             └── Rich(threshold=10)\n"
    );
    let mut miner = Miner::default();
    let mut agent = Agent::new(&tree);
    // 5 gold: not rich yet (default threshold 10), so the Inverter succeeds.
    assert_eq!(agent.tick(&tree, &mut miner, &()), Status::Success);
    assert_eq!(agent.tick(&tree, &mut miner, &()), Status::Failure);
    assert_eq!(miner.gold, 10);

    // A missing user parameter reads like a built-in one.
    let err = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Dig"}}"#,
            Format::Json,
            "m.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"m.json:1:12: tree (name "Dig"): missing parameter "amount" (integer ≥ 1, required)"#
    );
}

#[test]
fn user_factory_errors_are_reported_at_the_node() {
    let mut registry = Registry::<(), ()>::new();
    registry
        .register_action("Jump", "jumps", vec![Param::int("height", "metres")], |p| {
            let h = p.int("height")?;
            if h % 2 != 0 {
                return Err(ParamError::invalid(format!("height must be even, got {h}")));
            }
            Ok(|_: &mut Ctx<(), ()>| Status::Success)
        })
        .unwrap();
    let err = registry
        .loading(TreeSource::text(r#"{"tree": {"type": "Sequence", "children": [{"type": "Jump", "name": "hop", "height": 3}]}}"#, Format::Json, "j.json")).load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"j.json:1:46: tree/children[0] (name "hop"): height must be even, got 3"#
    );
    // A factory asking for a parameter its type did not declare.
    let mut registry = Registry::<(), ()>::new();
    registry
        .register_action("Sloppy", "", vec![], |p| {
            p.int("speed")?;
            Ok(|_: &mut Ctx<(), ()>| Status::Success)
        })
        .unwrap();
    let err = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Sloppy"}}"#,
            Format::Json,
            "s.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"s.json:1:12: tree (name "Sloppy"): Sloppy declares no parameter "speed""#
    );
}

// ---------------------------------------------------------------------------
// Known bugs
// ---------------------------------------------------------------------------

#[test]
fn unreferenced_subtree_gets_the_structural_checks_too() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "AlwaysSuccess"}, "subtrees": {"Unused": {"type": "Parallel"}}}"#
        ),
        r#"t.json:1:62: subtrees/Unused (name "Parallel"): a Parallel needs at least one child, got 0"#
    );
}

#[test]
fn structural_errors_inside_subtrees_use_the_subtree_path() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "Sequence", "children": [{"type": "SubTree", "tree": "Both"}]}, "subtrees": {"Both": {"type": "Parallel", "name": "both"}}}"#
        ),
        r#"t.json:1:106: subtrees/Both (name "both"): a Parallel needs at least one child, got 0"#
    );
}

#[test]
fn guard_condition_name_must_be_a_string() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "Guard", "condition": {"type": "Chance", "p": 0.5, "name": 3}, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:43: tree/condition (name "Chance"): "name" must be a string, got number 3"#
    );
}

#[test]
fn guard_condition_without_type() {
    assert_eq!(
        json(
            r#"{"tree": {"type": "Guard", "condition": {"typ": "Chance", "p": 0.5}, "children": [{"type": "AlwaysSuccess"}]}}"#
        ),
        r#"t.json:1:43: tree/condition: missing "type""#
    );
}

#[test]
fn duplicate_fields_are_refused() {
    let err = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Wait", "ticks": 1, "ticks": 500}}"#,
            Format::Json,
            "t.json",
        ))
        .load()
        .unwrap_err();
    assert!(
        err.to_string().contains("\"ticks\""),
        "unexpected error: {err}"
    );
    let err = registry()
        .loading(TreeSource::text(
            r#"(tree: (type: "Wait", ticks: 1), tree: (type: "AlwaysFailure"))"#,
            Format::Ron,
            "t.ron",
        ))
        .load()
        .unwrap_err();
    assert!(
        err.to_string().contains("\"tree\""),
        "unexpected error: {err}"
    );
}

#[test]
fn json_error_columns_are_1_based() {
    // A file cut short after its first line.
    assert_eq!(
        json("{\"tree\":\n"),
        "t.json:2:1: malformed JSON: EOF while parsing a value"
    );
    // A raw newline inside a string: the newline is on line 1.
    let err = registry()
        .loading(TreeSource::text(
            "{\"tree\": {\"type\": \"Wa\nit\"}}",
            Format::Json,
            "t.json",
        ))
        .load()
        .unwrap_err();
    let Location::Text(at) = *err.location() else {
        panic!("not a text location: {err}");
    };
    assert!(at.column >= 1, "{err}");
}

#[test]
fn negative_zero_is_zero_in_json_as_in_ron() {
    let registry = registry();
    for (text, format) in [
        (r#"{"tree": {"type": "Wait", "ticks": -0}}"#, Format::Json),
        ("(tree: (type: \"Wait\", ticks: -0))", Format::Ron),
    ] {
        let tree = registry
            .loading(TreeSource::text(text, format, "z"))
            .load()
            .unwrap();
        assert_eq!(tree.display().to_string(), "Wait(ticks=0)\n");
    }
}

#[test]
fn a_whole_number_past_two_to_the_53_is_not_shown_as_a_wrong_integer() {
    // 2^64 reads as the float 1.8446744073709552e19; written out in full it
    // would end in ...552000, which is not the number in the file.
    assert_eq!(
        json(r#"{"tree": {"type": "Wait", "ticks": 18446744073709551616}}"#),
        r#"t.json:1:12: tree (name "Wait"): parameter "ticks" must be at most 2147483647, got 1.8446744073709552e19"#
    );
}

#[test]
fn a_word_no_script_node_knows_is_refused_with_the_closest_word() {
    let child = r#""children": [{"type": "AlwaysSuccess"}]"#;
    let errors: Vec<String> = [
        r#""type": "EvalAround", "skipped": "failur""#,
        r#""type": "EvalAround", "precondition": "true", "otherwise": "succes""#,
        r#""type": "EvalLoop", "items": [], "if_empty": "runing""#,
        r#""type": "EvalLoop", "queue": "q", "value": "x := 0", "item": "int""#,
    ]
    .iter()
    .map(|node| json(&format!(r#"{{"tree": {{{node}, {child}}}}}"#)))
    .collect();
    let at = r#"t.json:1:12: tree (name "#;
    assert_eq!(
        errors,
        [
            format!(
                r#"{at}"EvalAround"): parameter "skipped" must be one of "success", "failure", got "failur" (did you mean "failure"?)"#
            ),
            format!(
                r#"{at}"EvalAround"): parameter "otherwise" must be one of "failure", "success", "skip", "running", got "succes" (did you mean "success"?)"#
            ),
            format!(
                r#"{at}"EvalLoop"): parameter "if_empty" must be one of "success", "failure", "running", got "runing" (did you mean "running"?)"#
            ),
            format!(
                r#"{at}"EvalLoop"): parameter "item" must be one of "whole", "number", "bool", "string", got "int""#
            ),
        ]
    );
}
