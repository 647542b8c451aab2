//! `canopy run`: the per-tick summary, and the `--trace` JSON lines that
//! tools rely on — every field, in engine order, aborts deepest first.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use common::{canopy, command, stderr, success};
use serde_json::{Value, json};

/// A root Script on the tick clock: Running, Success, Failure, Running,
/// then Failure forever, for every agent.
const CYCLE: &str = "crates/canopy-cli/tests/fixtures/cycle.ron";

/// A ReactiveSelector whose higher-priority branch ("alert") starts to run
/// on tick 3, aborting the running "patrol" branch.
const TAKEOVER: &str = "crates/canopy-cli/tests/fixtures/takeover.json";

#[test]
fn summary_counts_root_statuses_per_tick() {
    let out = success(&["run", CYCLE, "--ticks", "6", "--agents", "3"]);
    assert_eq!(
        out,
        "\
tick 1: 3 running, 0 success, 0 failure
tick 2: 0 running, 3 success, 0 failure
tick 3: 0 running, 0 success, 3 failure
tick 4: 3 running, 0 success, 0 failure
tick 5: 0 running, 0 success, 3 failure
tick 6: 0 running, 0 success, 3 failure
total over 6 ticks × 3 agents: 6 running, 3 success, 9 failure
"
    );
}

#[test]
fn summary_of_the_takeover_tree() {
    let out = success(&["run", TAKEOVER, "--ticks", "5", "--agents", "12"]);
    assert_eq!(
        out,
        "\
tick 1: 12 running,  0 success,  0 failure
tick 2: 12 running,  0 success,  0 failure
tick 3: 12 running,  0 success,  0 failure
tick 4:  0 running, 12 success,  0 failure
tick 5: 12 running,  0 success,  0 failure
total over 5 ticks × 12 agents: 48 running, 12 success, 0 failure
"
    );
}

#[test]
fn runs_are_reproducible_for_a_seed() {
    for file in ["examples/trees/sentry.json", "examples/trees/pet.ron"] {
        let args = [
            "run", file, "--ticks", "40", "--agents", "50", "--seed", "7",
        ];
        let first = success(&args);
        assert_eq!(first, success(&args), "{file}");
        let total = first.lines().last().unwrap();
        assert!(
            total.starts_with("total over 40 ticks × 50 agents: "),
            "{total}"
        );
        let traced = [
            "run", file, "--ticks", "10", "--agents", "3", "--seed", "7", "--trace",
        ];
        assert_eq!(success(&traced), success(&traced), "{file}");
    }
}

fn trace(args: &[&str]) -> Vec<Value> {
    success(args)
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"))
        })
        .collect()
}

/// A task event as `--trace` writes it.
fn event(
    tick: u32,
    event: &str,
    node: &str,
    type_name: &str,
    id: u32,
    status: Option<&str>,
) -> Value {
    let mut line = json!({
        "tick": tick, "agent": 0, "event": event, "node": node, "type": type_name, "id": id,
    });
    if let Some(status) = status {
        line["status"] = json!(status);
    }
    line
}

#[test]
fn trace_reports_every_event_and_aborts_deepest_first() {
    let lines = trace(&["run", TAKEOVER, "--ticks", "4", "--trace"]);
    let walk = "walk \"north\""; // a name that needs escaping
    let (r, s, f) = (Some("Running"), Some("Success"), Some("Failure"));
    let tick =
        |t: u32, status: &str| json!({"tick": t, "agent": 0, "event": "tick", "status": status});
    let mut expected = vec![
        event(1, "enter", "root", "ReactiveSelector", 0, None),
        event(1, "enter", "alert", "Sequence", 1, None),
        event(1, "enter", "threat?", "Script", 2, None),
        event(1, "update", "threat?", "Script", 2, f),
        event(1, "exit", "threat?", "Script", 2, f),
        event(1, "update", "alert", "Sequence", 1, f),
        event(1, "exit", "alert", "Sequence", 1, f),
        event(1, "enter", "patrol", "Sequence", 4, None),
        event(1, "enter", walk, "Script", 5, None),
        event(1, "update", walk, "Script", 5, r),
        event(1, "update", "patrol", "Sequence", 4, r),
        event(1, "update", "root", "ReactiveSelector", 0, r),
        tick(1, "Running"),
    ];
    // Tick 2: the same, except that patrol is resumed, not entered.
    expected.extend([
        event(2, "enter", "alert", "Sequence", 1, None),
        event(2, "enter", "threat?", "Script", 2, None),
        event(2, "update", "threat?", "Script", 2, f),
        event(2, "exit", "threat?", "Script", 2, f),
        event(2, "update", "alert", "Sequence", 1, f),
        event(2, "exit", "alert", "Sequence", 1, f),
        event(2, "update", walk, "Script", 5, r),
        event(2, "update", "patrol", "Sequence", 4, r),
        event(2, "update", "root", "ReactiveSelector", 0, r),
        tick(2, "Running"),
    ]);
    // Tick 3: alert runs, so the running patrol branch is aborted, its
    // deepest task first.
    expected.extend([
        event(3, "enter", "alert", "Sequence", 1, None),
        event(3, "enter", "threat?", "Script", 2, None),
        event(3, "update", "threat?", "Script", 2, s),
        event(3, "exit", "threat?", "Script", 2, s),
        event(3, "enter", "flee", "Script", 3, None),
        event(3, "update", "flee", "Script", 3, r),
        event(3, "update", "alert", "Sequence", 1, r),
        event(3, "abort", walk, "Script", 5, None),
        event(3, "abort", "patrol", "Sequence", 4, None),
        event(3, "update", "root", "ReactiveSelector", 0, r),
        tick(3, "Running"),
    ]);
    // Tick 4: flee succeeds, and with it the whole tree.
    expected.extend([
        event(4, "update", "flee", "Script", 3, s),
        event(4, "exit", "flee", "Script", 3, s),
        event(4, "update", "alert", "Sequence", 1, s),
        event(4, "exit", "alert", "Sequence", 1, s),
        event(4, "update", "root", "ReactiveSelector", 0, s),
        event(4, "exit", "root", "ReactiveSelector", 0, s),
        tick(4, "Success"),
    ]);
    for (i, (actual, expected)) in lines.iter().zip(&expected).enumerate() {
        assert_eq!(actual, expected, "line {}", i + 1);
    }
    assert_eq!(lines.len(), expected.len());
}

#[test]
fn trace_has_one_tick_line_per_agent_per_tick() {
    let lines = trace(&[
        "run",
        "examples/trees/sentry.json",
        "--ticks",
        "5",
        "--agents",
        "3",
        "--trace",
    ]);
    let ticks: Vec<(u64, u64)> = lines
        .iter()
        .filter(|l| l["event"] == "tick")
        .map(|l| (l["tick"].as_u64().unwrap(), l["agent"].as_u64().unwrap()))
        .collect();
    let expected: Vec<(u64, u64)> = (1..=5).flat_map(|t| (0..3).map(move |a| (t, a))).collect();
    assert_eq!(ticks, expected);
    // The root's last update of each agent-tick is the tick line's status.
    let mut root_status = None;
    for line in &lines {
        match line["event"].as_str().unwrap() {
            "update" if line["id"] == 0 => root_status = Some(line["status"].clone()),
            "tick" => assert_eq!(root_status.take(), Some(line["status"].clone())),
            "enter" | "exit" | "update" | "abort" => {
                assert!(line["node"].is_string() && line["type"].is_string());
            }
            other => panic!("unknown event {other}"),
        }
    }
}

#[test]
fn a_closed_pipe_ends_the_trace_quietly() {
    let mut child = command(&[
        "run",
        "examples/trees/sentry.json",
        "--ticks",
        "1000000",
        "--agents",
        "100",
        "--trace",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(
        first.starts_with(r#"{"tick":1,"agent":0,"event":"enter""#),
        "{first}"
    );
    drop(reader);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn run_needs_ticks() {
    let output = canopy(&["run", CYCLE]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--ticks"));
}

#[test]
fn event_mode_gives_the_same_run() {
    for file in [
        "examples/trees/sentry.json",
        "examples/trees/pet.ron",
        TAKEOVER,
    ] {
        let args = |mode: &'static str| {
            [
                "run", file, "--ticks", "40", "--agents", "4", "--seed", "3", "--mode", mode,
            ]
        };
        assert_eq!(success(&args("tick")), success(&args("event")), "{file}");
        // The traces agree but for the updates event mode skips: a node
        // still running whose own code had nothing to do.
        let traced = |mode: &'static str| {
            let mut a = args(mode).to_vec();
            a.push("--trace");
            trace(&a)
                .into_iter()
                .filter(|l| !(l["event"] == "update" && l["status"] == "Running"))
                .collect::<Vec<_>>()
        };
        let (tick, event) = (traced("tick"), traced("event"));
        assert!(tick.iter().any(|l| l["event"] == "exit"), "{file}");
        assert_eq!(tick, event, "{file}");
    }
}

#[test]
fn periodic_offset_moves_the_cycle_earlier() {
    // As `canopy nodes` says: period 30, on 6, offset 20 is true at ticks
    // 11–16 and 41–46 of each agent.
    let dir = std::env::temp_dir().join(format!("canopy-cli-periodic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("periodic.json");
    std::fs::write(
        &file,
        r#"{"tree": {"type": "Periodic", "period": 30, "on": 6, "offset": 20}}"#,
    )
    .unwrap();
    let out = success(&["run", file.to_str().unwrap(), "--ticks", "50"]);
    std::fs::remove_dir_all(&dir).unwrap();
    let true_at: Vec<u32> = out
        .lines()
        .filter(|line| line.ends_with("1 success, 0 failure"))
        .map(|line| {
            line["tick ".len()..line.find(':').unwrap()]
                .trim()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(
        true_at,
        [11, 12, 13, 14, 15, 16, 41, 42, 43, 44, 45, 46],
        "{out}"
    );
}
