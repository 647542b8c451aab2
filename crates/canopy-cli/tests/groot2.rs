//! `canopy run --btlog` and `--groot2`: the watched agent as Groot2 sees
//! it, in a file Groot2 replays and over Groot2's monitor protocol.

mod common;

use canopy_groot2::BtLogFile;
use common::{canopy, stderr, success};

/// A ReactiveSelector whose higher-priority branch ("alert") starts to run
/// on tick 3, aborting the running "patrol" branch.
const TAKEOVER: &str = "crates/canopy-cli/tests/fixtures/takeover.json";

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-cli-groot2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn btlog_holds_the_watched_agents_transitions_tick_by_tick() {
    let path = temp("takeover.btlog");
    let out = success(&[
        "run",
        TAKEOVER,
        "--ticks",
        "4",
        "--agents",
        "3",
        "--watch",
        "2",
        "--tick-ms",
        "50",
        "--btlog",
        path.to_str().unwrap(),
    ]);
    assert!(out.ends_with("btlog: 28 transitions written\n"), "{out}");
    let log = BtLogFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    // The JSON tree as `export --to btcpp` writes it: ReactiveFallback 1,
    // alert 2, threat? 3, flee 4, patrol 5, walk 6.
    assert!(
        log.xml
            .contains(r#"<ReactiveFallback name="root" _uid="1">"#),
        "{}",
        log.xml
    );
    // What BehaviorTree.CPP's FileLogger writes for the exported tree
    // (behaviortreepy 0.1.4), ticks 50 ms (50,000 µs) apart.
    assert_eq!(
        log.transitions,
        [
            // Tick 1: threat? fails, patrol's walk runs.
            (0, 1, 1),
            (1, 2, 1),
            (2, 3, 1),
            (3, 3, 3),
            (4, 3, 0),
            (5, 2, 3),
            (6, 5, 1),
            (7, 6, 1),
            (8, 2, 0),
            // Tick 2: threat? fails again.
            (50_000, 2, 1),
            (50_001, 3, 1),
            (50_002, 3, 3),
            (50_003, 3, 0),
            (50_004, 2, 3),
            (50_005, 2, 0),
            // Tick 3: threat? succeeds, flee runs, patrol is halted (walk first).
            (100_000, 2, 1),
            (100_001, 3, 1),
            (100_002, 3, 2),
            (100_003, 4, 1),
            (100_004, 6, 0),
            (100_005, 5, 0),
            // Tick 4: flee succeeds; alert and the root finish and are reset.
            (150_000, 4, 2),
            (150_001, 3, 0),
            (150_002, 4, 0),
            (150_003, 2, 2),
            (150_004, 2, 0),
            (150_005, 1, 2),
            (150_006, 1, 0),
        ]
    );
    std::fs::remove_file(&path).ok();
}

#[test]
fn btlog_and_groot2_are_refused_where_they_cannot_be() {
    let out = canopy(&[
        "run", TAKEOVER, "--ticks", "2", "--agents", "3", "--watch", "3", "--btlog", "x.btlog",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--watch 3: the crowd has agents 0 to 2"),
        "{}",
        stderr(&out)
    );
    let out = canopy(&["run", TAKEOVER, "--ticks", "2", "--btlog", "run.log"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a log Groot2 opens ends in .btlog"),
        "{}",
        stderr(&out)
    );
    let out = canopy(&[
        "run", TAKEOVER, "--ticks", "2", "--trace", "--btlog", "x.btlog",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let machine = "examples/machines/player_fsm.json";
    let out = canopy(&["run", machine, "--ticks", "2", "--btlog", "x.btlog"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a state machine file has none"),
        "{}",
        stderr(&out)
    );
}

#[cfg(not(feature = "groot2"))]
#[test]
fn groot2_needs_the_feature() {
    let out = canopy(&["run", TAKEOVER, "--ticks", "2", "--groot2", "1667"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("this canopy was built without Groot2's server"),
        "{}",
        stderr(&out)
    );
}

#[cfg(feature = "groot2")]
mod served {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    use super::TAKEOVER;
    use super::common::command;

    /// Whether `btview` (PyPI, a Groot2 client) is here; `Err` says why not.
    fn btview() -> Result<(), String> {
        match std::process::Command::new("btview")
            .arg("--version")
            .output()
        {
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
            Err(e) => Err(format!(
                "btview cannot be run (pip install btview==0.2.0): {e}"
            )),
        }
    }

    #[test]
    fn groot2_serves_the_watched_agent_while_the_crowd_runs() {
        if let Err(why) = btview() {
            let required = ["CI", "CANOPY_REQUIRE_BTCPP"]
                .iter()
                .any(|v| std::env::var(v).is_ok_and(|v| !v.is_empty() && v != "0"));
            assert!(!required, "btview is required here: {why}");
            eprintln!("skipped: {why}");
            return;
        }
        // 60 ticks of 50 ms: three seconds to ask in.
        let mut child = command(&[
            "run",
            TAKEOVER,
            "--ticks",
            "60",
            "--agents",
            "4",
            "--watch",
            "1",
            "--tick-ms",
            "50",
            "--groot2",
            "0",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let port = first
            .strip_prefix("groot2: agent 1 on 127.0.0.1:")
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{first}"));
        std::thread::sleep(std::time::Duration::from_millis(400));
        let drawn = std::process::Command::new("btview")
            .args(["snapshot", "-p", port, "--uid", "--no-color", "--no-legend"])
            .output()
            .unwrap();
        let _ = child.kill();
        let _ = child.wait();
        let text = String::from_utf8_lossy(&drawn.stdout);
        assert!(
            drawn.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&drawn.stderr)
        );
        // From tick 3 on, the alert branch runs and patrol was halted.
        for line in [
            "root [ReactiveFallback] #1",
            "alert [Sequence] #2",
            "flee",
            "#4",
            "RUNNING",
            "was RUNNING",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
    }
}
