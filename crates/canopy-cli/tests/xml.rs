//! BehaviorTree.CPP XML wherever tree files are read (`check`, `print`,
//! `dot`, `run`, `bench`), with `--tick-ms`, errors with line and column,
//! and `export --to btcpp`.

mod common;

use common::{canopy, golden, stderr, stdout, success};

/// A burglar's way in: a Fallback over a Sequence and a SubTree, a Sleep of
/// 250 ms and a RetryUntilSuccessful.
const DOOR: &str = "crates/canopy-cli/tests/fixtures/door.xml";

const DOOR_PRINTED: &str = "\
get in  Selector
├── through the door  Sequence
│   ├── door open?  Script(statuses=[Failure], clock=install)
│   └── walk in  AlwaysSuccess
└── through the window  Sequence
    ├── climb  Wait(ticks=3)
    └── try the latch  RetryUntilSuccessful(num_attempts=3)
        └── latch  Script(statuses=[Failure, Failure, Success], clock=install)
";

#[test]
fn an_xml_file_is_checked_printed_and_drawn() {
    assert_eq!(success(&["check", DOOR]), "ok\n");
    assert_eq!(success(&["print", DOOR]), DOOR_PRINTED);
    let dot = success(&["dot", DOOR]);
    assert!(dot.starts_with("digraph tree {\n"), "{dot}");
    assert!(
        dot.contains("  n5 [label=\"climb\\nWait(ticks=3)\", shape=ellipse];\n"),
        "{dot}"
    );
}

#[test]
fn tick_ms_sets_how_milliseconds_become_ticks() {
    // 250 ms is ⌈250 / 100⌉ = 3 ticks by default, ⌈250 / 50⌉ = 5 at 50 ms
    // and 1 at 250 ms or more.
    for (tick_ms, ticks) in [("50", 5), ("100", 3), ("250", 1), ("1000", 1)] {
        let printed = success(&["print", DOOR, "--tick-ms", tick_ms]);
        assert_eq!(
            printed,
            DOOR_PRINTED.replace("Wait(ticks=3)", &format!("Wait(ticks={ticks})")),
            "--tick-ms {tick_ms}"
        );
    }
    let output = canopy(&["print", DOOR, "--tick-ms", "0"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn an_xml_file_runs() {
    // The window takes three ticks to climb; from the fourth, the latch is
    // tried once a tick (BehaviorTree.CPP's retry yields after an attempt
    // that failed at once) and fails each time, as a Script restarts when
    // it is installed again: the third failure fails the whole.
    assert_eq!(
        success(&["run", DOOR, "--ticks", "6", "--agents", "2"]),
        "\
tick 1: 2 running, 0 success, 0 failure
tick 2: 2 running, 0 success, 0 failure
tick 3: 2 running, 0 success, 0 failure
tick 4: 2 running, 0 success, 0 failure
tick 5: 2 running, 0 success, 0 failure
tick 6: 0 running, 0 success, 2 failure
total over 6 ticks × 2 agents: 10 running, 0 success, 2 failure
"
    );
    golden(
        "door_trace.jsonl",
        &success(&["run", DOOR, "--ticks", "4", "--trace"]),
    );
    let bench = success(&["bench", DOOR, "--agents", "10", "--ticks", "5"]);
    assert!(
        bench.starts_with(&format!("tree    {DOOR}: 8 nodes, depth 4\n")),
        "{bench}"
    );
}

/// `check FILE` exits with 1, prints nothing on stdout, and exactly `error`.
fn assert_invalid(args: &[&str], error: &str) {
    let output = canopy(args);
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    assert_eq!(stdout(&output), "", "{args:?}");
    assert_eq!(stderr(&output), format!("{error}\n"), "{args:?}");
}

#[test]
fn bad_xml_is_reported_with_line_and_column() {
    let dir = "crates/canopy-cli/tests/fixtures/bad";
    let unclosed = format!("{dir}/unclosed.xml");
    let error = format!(
        "{unclosed}:5:3: malformed XML: ill-formed document: expected `</Sequence>`, but \
         `</BehaviorTree>` was found"
    );
    for command in ["check", "print", "dot"] {
        assert_invalid(&[command, &unclosed], &error);
    }
    assert_invalid(&["run", &unclosed, "--ticks", "1"], &error);
    assert_invalid(
        &["bench", &unclosed, "--ticks", "1", "--agents", "1"],
        &error,
    );
    let script = format!("{dir}/script.xml");
    assert_invalid(
        &["check", &script],
        &format!(
            "{script}:4:7: <Script>: parameter \"code\": script \"door_open := \", column 11: \
             expected an expression after `:=`"
        ),
    );
}

#[test]
fn export_writes_btcpp_xml_that_reads_back_as_the_same_tree() {
    let dir = std::env::temp_dir().join(format!("canopy-cli-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, golden_name) in [
        ("examples/trees/sentry.json", "sentry.xml"),
        ("examples/trees/pet.ron", "pet.xml"),
    ] {
        let xml = success(&["export", "--to", "btcpp", file]);
        golden(golden_name, &xml);
        let exported = dir.join(golden_name);
        std::fs::write(&exported, &xml).unwrap();
        let exported = exported.to_str().unwrap();
        assert_eq!(success(&["print", exported]), success(&["print", file]));
        let run = |f: &str| {
            success(&[
                "run", f, "--ticks", "30", "--agents", "3", "--seed", "5", "--trace",
            ])
        };
        assert_eq!(run(exported), run(file), "{file}");
    }
    // Times are written in milliseconds of the tick given.
    let xml = success(&[
        "export",
        "--to",
        "btcpp",
        "examples/trees/sentry.json",
        "--tick-ms",
        "40",
    ]);
    assert!(
        xml.contains(r#"<Sleep name="walk to post A" msec="120"/>"#),
        "{xml}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_reports_bad_input() {
    // The crowd's tree needs the crowd's types.
    let crowd = "examples/trees/crowd.json";
    let xml = success(&["export", "--to", "btcpp", crowd, "--types", "crowd"]);
    assert!(xml.contains(r#"<NeedAbove name="afraid?""#), "{xml}");
    assert_invalid(
        &["export", "--to", "btcpp", crowd],
        "examples/trees/crowd.json:5:11: tree/children[0]/children[0] (name \"afraid?\"): \
         unknown node type \"NeedAbove\"\n\
         hint: \"NeedAbove\" is one of the crowd demo's node types: add `--types crowd`",
    );
    // A file of another extension is no tree file.
    assert_invalid(
        &[
            "export",
            "--to",
            "json",
            "crates/canopy-cli/tests/fixtures/bad/notes.txt",
        ],
        "crates/canopy-cli/tests/fixtures/bad/notes.txt: unknown file extension: tree files end \
         in .json or .ron\nhint: `canopy` also reads BehaviorTree.CPP XML files (.xml)",
    );
    for args in [
        &["export", "examples/trees/pet.ron"][..],
        &["export", "--to", "yaml", "examples/trees/pet.ron"],
    ] {
        let output = canopy(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "");
    }
}

/// A condition written `<Action>`: BehaviorTree.CPP runs it, and so does canopy.
const SWAPPED: &str = "crates/canopy-cli/tests/fixtures/xml/swapped.xml";

/// Two trees and no `main_tree_to_execute`.
const TWO_TREES: &str = "crates/canopy-cli/tests/fixtures/xml/two_trees.xml";

#[test]
fn what_behaviortree_cpp_runs_loads_with_a_warning_unless_strict() {
    let output = canopy(&["check", SWAPPED]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "ok\n");
    let warning = format!(
        "{SWAPPED}:6:7: <Action ID=\"Chance\">: \"Chance\" is a condition, not an action; \
         BehaviorTree.CPP runs it as the condition it is, and so does canopy: write <Condition \
         ID=\"Chance\"/> or <Chance/>"
    );
    assert_eq!(stderr(&output), format!("warning: {warning}\n"));
    // It runs: the chance of 0 fails, the fallback succeeds.
    let output = canopy(&["run", SWAPPED, "--ticks", "1"]);
    assert_eq!(
        stdout(&output),
        "tick 1: 0 running, 1 success, 0 failure\ntotal over 1 tick × 1 agent: 0 running, 1 success, 0 failure\n"
    );
    assert_eq!(stderr(&output), format!("warning: {warning}\n"));
    // Strict, it is refused.
    let output = canopy(&["check", "--strict", SWAPPED]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!("{warning} (a warning: strict loading refuses it)\n")
    );
}

#[test]
fn a_tree_of_a_file_of_several_is_chosen_with_tree() {
    let output = canopy(&["check", TWO_TREES]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "{TWO_TREES}:1:1: <root>: the files define 2 trees (\"Patrol\", \"Flee\") and no \
             main_tree_to_execute, so which to run is not said; name it in <root \
             main_tree_to_execute=\"…\">, or choose it when loading (`--tree ID`, \
             XmlOptions::main_tree)\n"
        )
    );
    assert_eq!(success(&["check", "--tree", "Flee", TWO_TREES]), "ok\n");
    assert_eq!(
        success(&["print", "--tree", "Patrol", TWO_TREES]),
        "Sleep  Wait(ticks=2)\n"
    );
    assert_eq!(
        success(&["run", "--tree", "Flee", TWO_TREES, "--ticks", "1"]),
        "tick 1: 0 running, 0 success, 1 failure\ntotal over 1 tick × 1 agent: 0 running, 0 success, 1 failure\n"
    );
    let bench = success(&[
        "bench", "--tree", "Patrol", TWO_TREES, "--agents", "2", "--ticks", "2",
    ]);
    assert!(bench.contains("2 agents"), "{bench}");
    let output = canopy(&["run", "--tree", "Fleee", TWO_TREES, "--ticks", "1"]);
    assert_eq!(
        stderr(&output),
        format!(
            "{TWO_TREES}:1:1: <root>: the tree to run, \"Fleee\", is not defined (did you mean \
             \"Flee\"?); the files define \"Patrol\", \"Flee\"\n"
        )
    );
}

#[test]
fn export_goes_both_ways() {
    let dir = std::env::temp_dir().join(format!("canopy-both-ways-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (to, name) in [("json", "door.json"), ("ron", "door.ron")] {
        let text = success(&["export", "--to", to, DOOR]);
        let file = dir.join(name);
        std::fs::write(&file, &text).unwrap();
        let file = file.to_string_lossy().into_owned();
        // The same tree, printed and run alike.
        assert_eq!(success(&["print", &file]), DOOR_PRINTED, "{text}");
        assert_eq!(
            success(&["run", &file, "--ticks", "6", "--agents", "2"]),
            success(&["run", DOOR, "--ticks", "6", "--agents", "2"])
        );
        assert_eq!(success(&["check", &file]), "ok\n");
        // And back to XML, for Groot2.
        let back = success(&["export", "--to", "btcpp", &file]);
        let back_file = dir.join(format!("{name}.xml"));
        std::fs::write(&back_file, &back).unwrap();
        assert_eq!(
            success(&["print", &back_file.to_string_lossy()]),
            DOOR_PRINTED
        );
    }
    // JSON and RON into each other.
    let ron = success(&[
        "export",
        "--to",
        "ron",
        &dir.join("door.json").to_string_lossy(),
    ]);
    assert_eq!(ron, success(&["export", "--to", "ron", DOOR]));
    // XML is XML already.
    let output = canopy(&["export", "--to", "btcpp", DOOR]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("is BehaviorTree.CPP XML already; export it --to json or --to ron"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
