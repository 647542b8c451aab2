//! Hostile tree files against the `canopy` command: what reaches the
//! terminal is escaped, crowds too large for memory are refused before any
//! agent is made, and things that are not files are refused without being
//! read. (The loader's own hostile tests are in canopy-data.)

mod common;

use std::path::{Path, PathBuf};

use canopy_core::Agent;
use canopy_data::{Registry, TreeSource};
use common::{canopy, stderr, stdout, success};

/// A unique temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("canopy-cli-hostile-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Write `text` to `file` in the directory; returns its path as text.
    fn write(&self, file: &str, text: &str) -> String {
        let path = self.0.join(file);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// No byte a terminal acts on: no control character but the newlines
/// between lines.
fn assert_inert(output: &str) {
    assert!(
        !output.chars().any(|c| c.is_control() && c != '\n'),
        "control character in {output:?}"
    );
}

/// A tree whose names and parameters try to take over the terminal: a
/// colour, a window title, a bell, a carriage return, a forged line.
const INJECTION: &str = r#"{"tree": {"type": "Sequence", "name": "root\u001b]0;pwned\u0007", "children": [
    {"type": "Wait", "name": "\u001b[31mred\u001b[0m", "ticks": 1},
    {"type": "Parallel", "name": "two\nlines\r", "success": "one", "children": [
        {"type": "Script", "name": "say \"hi\" \\ bye", "statuses": ["Success"]}]}]}}"#;

#[test]
fn print_escapes_names_from_the_file() {
    let dir = TempDir::new("print");
    let file = dir.write("inject.json", INJECTION);
    let out = success(&["print", &file]);
    assert_eq!(
        out,
        r#"root\u{1b}]0;pwned\u{7}  Sequence
├── \u{1b}[31mred\u{1b}[0m  Wait(ticks=1)
└── two\nlines\r  Parallel(success=one, failure=one)
    └── say "hi" \\ bye  Script(statuses=[Success], clock=install)
"#
    );
    assert_inert(&out);
}

#[test]
fn dot_escapes_names_for_people_then_for_graphviz() {
    let dir = TempDir::new("dot");
    let file = dir.write("inject.json", INJECTION);
    let out = success(&["dot", &file]);
    assert_eq!(
        out,
        r#"digraph tree {
  node [fontname="Helvetica"];
  n0 [label="root\\u{1b}]0;pwned\\u{7}\nSequence", shape=box];
  n1 [label="\\u{1b}[31mred\\u{1b}[0m\nWait(ticks=1)", shape=ellipse];
  n2 [label="two\\nlines\\r\nParallel(success=one, failure=one)", shape=box];
  n3 [label="say \"hi\" \\\\ bye\nScript(statuses=[Success], clock=install)", shape=ellipse];
  n0 -> n1;
  n0 -> n2;
  n2 -> n3;
}
"#
    );
    assert_inert(&out);
}

#[test]
fn errors_escape_names_from_the_file() {
    let dir = TempDir::new("errors");
    let file = dir.write(
        "bad.json",
        r#"{"tree": {"type": "Wait", "name": "\u001b[2J\u001b[H", "ticks": -1}}"#,
    );
    let output = canopy(&["check", &file]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "{file}:1:12: tree (name \"\\u{{1b}}[2J\\u{{1b}}[H\"): parameter \"ticks\" must be at least 0, got -1\n"
        )
    );
    assert_inert(&stderr(&output));
}

#[test]
fn file_names_are_escaped_too() {
    let dir = TempDir::new("names");
    let file = dir.write("\u{1b}]0;x\u{7}.json", r#"{"tree": {"type": "Nope"}}"#);
    let output = canopy(&["check", &file]);
    assert_eq!(output.status.code(), Some(1));
    let shown = file.replace('\u{1b}', r"\u{1b}").replace('\u{7}', r"\u{7}");
    let first = stderr(&output).lines().next().unwrap().to_string();
    assert_eq!(
        first,
        format!(r#"{shown}:1:12: tree (name "Nope"): unknown node type "Nope""#)
    );
    assert_inert(&stderr(&output));
}

/// A Parallel of `n` Wait leaves: every agent keeps a task for each.
fn wide_parallel(n: usize) -> String {
    let waits = vec![r#"{"type": "Wait", "ticks": 1000}"#; n].join(",");
    format!(r#"{{"tree": {{"type": "Parallel", "children": [{waits}]}}}}"#)
}

/// What one agent of the tree in `file` costs, as the command computes it.
fn bytes_per_agent(file: &Path) -> u64 {
    let tree = Registry::<(), ()>::new()
        .loading(TreeSource::file(&file))
        .load()
        .unwrap();
    (size_of::<Agent>() + Agent::new(&tree).heap_bytes()) as u64
}

#[test]
fn a_crowd_too_large_for_memory_is_refused_before_it_is_made() {
    let dir = TempDir::new("crowd");
    let file = dir.write("wide.json", &wide_parallel(20_000));
    let per_agent = bytes_per_agent(&dir.path("wide.json"));
    let agents: u64 = 10_000_000;
    assert!(agents * per_agent > 16 << 30, "{per_agent} bytes per agent");
    for (command, extra) in [
        ("run", &["--ticks", "1"][..]),
        ("bench", &["--ticks", "1"][..]),
    ] {
        let mut args = vec![command, &file, "--agents", "10000000"];
        args.extend(extra);
        let output = canopy(&args);
        // A usage error (exit 2), not an abort on a failed allocation.
        assert_eq!(
            output.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "");
        let expected = format!(
            "error: 10000000 agents need {} bytes ({per_agent} bytes per agent for this tree), \
             more than the limit of 17179869184 bytes (16 GiB); use fewer agents\n",
            agents * per_agent
        );
        assert!(
            stderr(&output).starts_with(&expected),
            "{command}: {}",
            stderr(&output)
        );
    }
    // The same tree for a crowd that fits runs.
    let out = success(&["run", &file, "--ticks", "1", "--agents", "10"]);
    assert!(
        out.starts_with("tick 1: 10 running,  0 success,  0 failure\n"),
        "{out}"
    );
}

#[test]
fn things_that_are_not_files_are_refused() {
    let dir = TempDir::new("special");
    let zero = dir.path("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let fifo = dir.path("fifo.json");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (path, what) in [(zero, "a character device"), (fifo, "a FIFO")] {
        let shown = path.display().to_string();
        for command in ["check", "print", "dot"] {
            let output = canopy(&[command, &shown]);
            assert_eq!(output.status.code(), Some(1), "{command} {shown}");
            assert_eq!(
                stderr(&output),
                format!(
                    "{shown}: not a regular file ({what}); tree files are read from regular files\n"
                )
            );
        }
        let output = canopy(&["run", &shown, "--ticks", "1"]);
        assert_eq!(output.status.code(), Some(1));
    }
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = TempDir::new("bom");
    let json = dir.write(
        "bom.json",
        "\u{feff}{\"tree\": {\"type\": \"Wait\", \"ticks\": 1}}",
    );
    let ron = dir.write("bom.ron", "\u{feff}(tree: (type: \"Wait\", ticks: 1))");
    assert_eq!(success(&["check", &json]), "ok\n");
    assert_eq!(success(&["check", &ron]), "ok\n");
}

#[test]
fn unknown_types_get_a_hint() {
    let dir = TempDir::new("hint");
    // A type neither built in nor the crowd demo's, nothing close.
    let mine = dir.write("mine.json", r#"{"tree": {"type": "PatrolBetween"}}"#);
    let output = canopy(&["check", &mine]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "{mine}:1:12: tree (name \"PatrolBetween\"): unknown node type \"PatrolBetween\"\n\
             hint: this `canopy` knows the built-in node types (`canopy nodes` lists them) and the \
             crowd demo's node types (`--types crowd`); a file using other node types needs a \
             `canopy` built with their registry (`canopy_cli::Cli`)\n"
        )
    );
    // A typo of a built-in type: the suggestion is the hint.
    let typo = dir.write("typo.json", r#"{"tree": {"type": "Wiat", "ticks": 1}}"#);
    assert_eq!(
        stderr(&canopy(&["check", &typo])),
        format!(
            "{typo}:1:12: tree (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)\n"
        )
    );
    // A crowd type where only built-in types run.
    let crowd = "examples/trees/crowd.json";
    let output = canopy(&["run", crowd, "--ticks", "1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).ends_with(
            "unknown node type \"NeedAbove\"\n\
             hint: \"NeedAbove\" is one of the crowd demo's node types, which this `canopy` \
             cannot run (it has no agent data and world for them)\n"
        ),
        "{}",
        stderr(&output)
    );
    // Asking for them is a usage error.
    let output = canopy(&["run", crowd, "--ticks", "1", "--types", "crowd"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(
            "error: `canopy run` cannot run the crowd demo's node types (`--types crowd`): this \
             `canopy` has no agent data and world for them; it checks, prints and draws them\n\n\
             Usage: canopy run "
        ),
        "{}",
        stderr(&output)
    );
}
