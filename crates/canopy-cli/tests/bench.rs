//! `canopy bench`: the human report, and the `--json` last line scripts
//! parse.

mod common;

use common::success;
use serde_json::Value;

/// The `--json` line: every field, nothing else, in order.
fn figures(out: &str) -> Value {
    let last = out.lines().last().expect("output");
    let keys = [
        "agents",
        "ticks",
        "threads",
        "mode",
        "ns_per_agent_tick",
        "bytes_per_agent",
        "memory",
        "allocs_per_tick",
    ];
    let mut rest = last;
    for key in keys {
        let at = rest
            .find(&format!("\"{key}\":"))
            .unwrap_or_else(|| panic!("{key} missing or out of order in {last}"));
        rest = &rest[at..];
    }
    let value: Value = serde_json::from_str(last).expect("the last line is JSON");
    assert_eq!(value.as_object().unwrap().len(), keys.len(), "{last}");
    value
}

#[test]
fn sentry_ticks_without_allocating() {
    let out = success(&[
        "bench",
        "examples/trees/sentry.json",
        "--agents",
        "2000",
        "--ticks",
        "50",
        "--json",
    ]);
    let f = figures(&out);
    assert_eq!(f["agents"], 2000);
    assert_eq!(f["ticks"], 50);
    assert_eq!(f["threads"], 1);
    assert_eq!(f["mode"], "tick");
    assert!(f["ns_per_agent_tick"].as_f64().unwrap() > 0.0);
    // At least the Agent value itself; far below a naive per-agent tree.
    let bytes = f["bytes_per_agent"].as_f64().unwrap();
    assert!((24.0..1000.0).contains(&bytes), "{bytes}");
    assert_eq!(f["allocs_per_tick"].as_f64(), Some(0.0));
    // The split: a sentry has no async leaves and runs in tick mode.
    let m = &f["memory"];
    assert_eq!(
        (m["waits"].as_f64(), m["schedule"].as_f64()),
        (Some(0.0), Some(0.0))
    );
    assert!(m["agent"].as_f64().unwrap() >= 24.0, "{m}");
    assert!(m["tasks"].as_f64().unwrap() > 0.0, "{m}");
    for label in [
        "ns per agent-tick",
        "bytes per agent",
        "per tick",
        "+ your agent data",
    ] {
        assert!(out.contains(label), "{label} missing from\n{out}");
    }
}

#[test]
fn threads_are_reported() {
    let out = success(&[
        "bench",
        "examples/trees/pet.ron",
        "--agents",
        "1000",
        "--ticks",
        "20",
        "--threads",
        "2",
        "--mode",
        "event",
        "--json",
    ]);
    let f = figures(&out);
    assert_eq!(f["threads"], 2);
    assert_eq!(f["mode"], "event");
    assert!(f["allocs_per_tick"].as_f64().unwrap() >= 0.0);
}

#[test]
fn without_json_there_is_no_json_line() {
    let out = success(&[
        "bench",
        "examples/trees/sentry.json",
        "--agents",
        "10",
        "--ticks",
        "5",
    ]);
    assert!(!out.contains('{'), "{out}");
    assert!(out.contains("10 agents × 5 ticks"), "{out}");
}
