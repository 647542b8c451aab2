//! `canopy check` and the exit codes: 0 for a good file, 1 with the loader's
//! one-line error for a bad one, 2 for a bad command line.

mod common;

use common::{canopy, stderr, stdout, success};

#[test]
fn example_trees_are_ok() {
    for file in ["examples/trees/sentry.json", "examples/trees/pet.ron"] {
        assert_eq!(success(&["check", file]), "ok\n", "{file}");
    }
}

#[test]
fn the_crowd_tree_needs_the_crowd_types() {
    let file = "examples/trees/crowd.json";
    assert_eq!(success(&["check", file, "--types", "crowd"]), "ok\n");
    let printed = success(&["print", file, "--types", "crowd"]);
    assert!(
        printed.starts_with("crowd  ReactiveSelector\n├── flee  ReactiveSequence\n"),
        "{printed}"
    );
    assert!(
        printed.contains("│   ├── afraid?  NeedAbove(need=fear, threshold=0.5)\n"),
        "{printed}"
    );
    // Without `--types crowd`: every unknown node (19 of them), then one
    // hint saying what to add.
    let output = canopy(&["check", file]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 20, "{err}");
    assert_eq!(
        lines[0],
        "examples/trees/crowd.json:5:11: tree/children[0]/children[0] (name \"afraid?\"): \
         unknown node type \"NeedAbove\""
    );
    assert_eq!(
        lines[19],
        "hint: \"NeedAbove\" is one of the crowd demo's node types: add `--types crowd`"
    );
    let nodes = success(&["nodes", "--types", "crowd"]);
    assert!(
        nodes.contains("  MoveTo") && nodes.contains("  Sequence"),
        "{nodes}"
    );
    assert!(nodes.ends_with("51 node types\n"), "{nodes}");
}

/// `check FILE` exits with 1, prints nothing on stdout, and exactly `error`
/// (one line, or two with a hint) on stderr.
fn assert_invalid(file: &str, error: &str) {
    let output = canopy(&["check", file]);
    assert_eq!(output.status.code(), Some(1), "check {file}");
    assert_eq!(stdout(&output), "", "check {file}");
    assert_eq!(stderr(&output), format!("{error}\n"), "check {file}");
}

#[test]
fn bad_files_name_file_node_and_problem() {
    let dir = "crates/canopy-cli/tests/fixtures/bad";
    let cases = [
        (
            "unknown_type.json",
            r#":1:46: tree/children[0] (name "Wiat"): unknown node type "Wiat" (did you mean "Wait"?)"#,
        ),
        (
            "missing_param.ron",
            r#":3:6: tree/children[1] (name "thrice"): missing parameter "times" (integer ≥ 1, required)"#,
        ),
        (
            "bad_param.ron",
            r#":1:9: tree (name "both"): parameter "success" must be one of "one", "all", got "most""#,
        ),
        (
            "decorator_children.json",
            r#":1:12: tree (name "not"): an Inverter needs exactly one child, got 2"#,
        ),
        (
            "cycle.json",
            r#":4:45: subtrees/B/children[0] (name "back"): subtrees refer to each other in a cycle: "A" → "B" → "A""#,
        ),
        ("empty.json", ": the file is empty"),
        (
            "notes.txt",
            ": unknown file extension: tree files end in .json or .ron\n\
             hint: `canopy` also reads BehaviorTree.CPP XML files (.xml)",
        ),
    ];
    for (file, problem) in cases {
        assert_invalid(&format!("{dir}/{file}"), &format!("{dir}/{file}{problem}"));
    }
    // Malformed text: line and column instead of a node path.
    assert_invalid(
        &format!("{dir}/malformed.json"),
        &format!("{dir}/malformed.json:4:3: malformed JSON: trailing comma"),
    );
    assert_invalid(
        &format!("{dir}/malformed.ron"),
        &format!("{dir}/malformed.ron:1:26: malformed RON: Expected comma"),
    );
}

#[test]
fn check_lists_every_wrong_node_one_per_line() {
    let file = "crates/canopy-cli/tests/fixtures/bad/three_errors.json";
    assert_invalid(
        file,
        &format!(
            "{file}:2:5: tree/children[0] (name \"Wiat\"): unknown node type \"Wiat\" \
             (did you mean \"Wait\"?)\n\
             {file}:3:5: tree/children[1] (name \"Wait\"): missing parameter \"ticks\" \
             (integer ≥ 0, required)\n\
             {file}:4:39: tree/children[2]/children[0] (name \"Repeat\"): parameter \"times\" \
             must be at least 1, got 0"
        ),
    );
    // The other commands stop at the first.
    let output = canopy(&["print", file]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));
}

#[test]
fn check_stops_after_twenty_errors() {
    let dir = std::env::temp_dir().join(format!("canopy-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("many.json");
    let children = vec![r#"{"type": "Wait"}"#; 30].join(",\n");
    std::fs::write(
        &file,
        format!("{{\"tree\": {{\"type\": \"Sequence\", \"children\": [\n{children}\n]}}}}"),
    )
    .unwrap();
    let output = canopy(&["check", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 21, "{err}");
    assert!(
        lines[19].ends_with(
            "tree/children[19] (name \"Wait\"): missing parameter \"ticks\" (integer ≥ 0, required)"
        ),
        "{err}"
    );
    assert_eq!(lines[20], "canopy: stopped after 20 errors");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreadable_and_binary_files_are_invalid_input() {
    let output = canopy(&["check", "no/such/tree.json"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("no/such/tree.json: cannot read: "),
        "{}",
        stderr(&output)
    );

    let path =
        std::env::temp_dir().join(format!("canopy-cli-test-{}-nul.json", std::process::id()));
    std::fs::write(&path, b"{\"tree\": \0}").unwrap();
    let shown = path.display().to_string();
    let output = canopy(&["check", &shown]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!("{shown}: not a text file (it contains NUL bytes)\n")
    );
}

#[test]
fn every_subcommand_reports_a_bad_file_the_same_way() {
    let file = "crates/canopy-cli/tests/fixtures/bad/unknown_type.json";
    for args in [
        vec!["print", file],
        vec!["dot", file],
        vec!["run", file, "--ticks", "3"],
        vec!["run", file, "--ticks", "3", "--trace"],
        vec!["bench", file, "--agents", "10", "--ticks", "3"],
    ] {
        let output = canopy(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        assert!(
            stderr(&output).starts_with(&format!("{file}:1:46: tree/children[0]")),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn usage_errors_exit_with_2() {
    let sentry = "examples/trees/sentry.json";
    let cases: [&[&str]; 19] = [
        &[],
        &["frobnicate"],
        &["check"],
        &["check", sentry, "extra"],
        &["run", sentry],
        &["run", sentry, "--ticks", "0"],
        &["run", sentry, "--ticks", "-3"],
        &["run", sentry, "--ticks", "many"],
        &["run", sentry, "--ticks", "5", "--agents", "0"],
        &["run", sentry, "--ticks", "5", "--agents", "10000001"],
        &[
            "run",
            sentry,
            "--ticks",
            "4000000000",
            "--agents",
            "10000000",
        ],
        &["bench", sentry, "--agents", "10", "--ticks", "0"],
        &[
            "bench",
            sentry,
            "--agents",
            "10",
            "--ticks",
            "5",
            "--threads",
            "0",
        ],
        &["bench", sentry, "--ticks", "5"],
        &["export", sentry],
        &["view", "trace.jsonl"],
        &["snapshot", "inspect", "x.snap"],
        &["snapshot"],
        &["check", sentry, "--types", "mine"],
    ];
    for args in cases {
        let output = canopy(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        // No subcommand at all gets the help text; anything else an error.
        let expected = if args.is_empty() || args == ["snapshot"] {
            "Usage:"
        } else {
            "error:"
        };
        assert!(stderr(&output).contains(expected), "{args:?}");
    }
    let output = canopy(&[
        "run",
        sentry,
        "--ticks",
        "4000000000",
        "--agents",
        "10000000",
    ]);
    assert!(stderr(&output).contains("--agents × --ticks is 40000000000000000 agent-ticks"));
}

#[test]
fn every_subcommand_has_help() {
    let top = success(&["--help"]);
    for sub in [
        "check", "print", "dot", "nodes", "run", "bench", "export", "view", "snapshot",
    ] {
        assert!(
            top.contains(&format!("  {sub} ")),
            "{sub} missing from --help"
        );
        let help = success(&[sub, "--help"]);
        assert!(help.contains(&format!("Usage: canopy {sub}")), "{help}");
    }
    let run = success(&["run", "--help"]);
    for flag in ["--ticks", "--agents", "--seed", "--trace"] {
        assert!(run.contains(flag), "{flag}");
    }
    let run = success(&["run", "--help"]);
    for flag in ["--save", "--restore", "--mode", "--tick-ms", "--types"] {
        assert!(run.contains(flag), "{flag}");
    }
    let inspect = success(&["snapshot", "inspect", "--help"]);
    assert!(
        inspect.contains("Usage: canopy snapshot inspect [OPTIONS] --tree <FILE> <SNAPSHOT>"),
        "{inspect}"
    );
    let bench = success(&["bench", "--help"]);
    for flag in ["--agents", "--ticks", "--threads", "--json"] {
        assert!(bench.contains(flag), "{flag}");
    }
}
