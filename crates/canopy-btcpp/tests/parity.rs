//! Hand-written BehaviorTree.CPP trees whose run on BehaviorTree.CPP 4.10
//! is recorded next to them, run on canopy in both modes.
//!
//! Each `parity/NAME.xml` has a `parity/NAME.trace`: the trace
//! BehaviorTree.CPP gave (through `behaviortreepy` and
//! `differential/btcpp_run.py`, one `tick_exactly_once()` per tick, in the
//! format the differential test prints). canopy's trace in tick mode and in
//! event mode must be that file. Where `behaviortreepy` can be imported the
//! recording is checked against BehaviorTree.CPP itself, so a trace file
//! cannot drift from what BehaviorTree.CPP does (`CI` or
//! `CANOPY_REQUIRE_BTCPP` make that check required, as for the
//! differential test). The first line of each XML file is a comment saying
//! what the tree shows and how many ticks it runs (`ticks=N`).
//!
//! Where canopy differs on purpose, for a reason the crate docs give, its
//! own trace is recorded beside BehaviorTree.CPP's as `NAME.canopy.trace`,
//! so the difference is exact and visible. So it is where BehaviorTree.CPP
//! 4.10 differs from the 4.8.2 that `behaviortreepy` embeds: canopy's trace
//! is then 4.10's, and the tree's first line names the 4.10 change.

#[path = "differential/trace.rs"]
mod trace;

use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_core::Mode;
use canopy_data::Registry;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity")
}

/// A scenario: its name, tree, BehaviorTree.CPP's trace and canopy's
/// where it differs.
struct Scenario {
    name: String,
    xml: String,
    btcpp: String,
    canopy: Option<String>,
}

/// Every scenario, by name.
fn scenarios() -> Vec<Scenario> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("tests/parity exists")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".xml").map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let read = |ext: &str| std::fs::read_to_string(dir().join(format!("{name}.{ext}")));
            let must = |ext: &str| read(ext).unwrap_or_else(|e| panic!("{name}.{ext}: {e}"));
            Scenario {
                xml: must("xml"),
                btcpp: must("trace"),
                canopy: read("canopy.trace").ok(),
                name,
            }
        })
        .collect()
}

/// The `ticks=N` of the tree's first line.
fn ticks(xml: &str) -> u32 {
    let first = xml.lines().next().unwrap_or_default();
    let at = first.find("ticks=").expect("the first line says ticks=N") + "ticks=".len();
    let digits: String = first[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().expect("ticks=N is a number")
}

/// The trace without its header line, which names the file.
fn body(trace: &str) -> &str {
    trace.split_once('\n').map_or("", |(_, rest)| rest)
}

#[test]
fn hand_written_trees_run_as_recorded_from_behaviortree_cpp() {
    let registry = Registry::new();
    let all = scenarios();
    assert!(all.len() >= 6, "the scenarios are found: {}", all.len());
    for s in &all {
        let ticks = ticks(&s.xml);
        let recorded = s.canopy.as_ref().unwrap_or(&s.btcpp);
        for mode in [Mode::Tick, Mode::Event] {
            let ours = trace::trace(&registry, &s.name, &s.xml, ticks, mode);
            assert_eq!(body(&ours), body(recorded), "{} in {mode:?} mode", s.name);
        }
    }
}

#[test]
fn the_recorded_traces_are_behaviortree_cpps() {
    let available = Command::new("python3")
        .args(["-c", "import behaviortreepy"])
        .output()
        .is_ok_and(|out| out.status.success());
    let required = ["CI", "CANOPY_REQUIRE_BTCPP"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|v| !v.is_empty() && v != "0"));
    if !available {
        assert!(
            !required,
            "BehaviorTree.CPP (behaviortreepy) is required here"
        );
        eprintln!("skipped: python3 cannot import behaviortreepy");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/btcpp_run.py");
    for s in scenarios() {
        let out = Command::new("python3")
            .arg(&script)
            .args(["--ticks", &ticks(&s.xml).to_string()])
            .arg(dir().join(format!("{}.xml", s.name)))
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs = String::from_utf8(out.stdout).expect("UTF-8");
        assert_eq!(body(&theirs), body(&s.btcpp), "{}", s.name);
    }
}
