//! A crowd's memory is checked with every agent at its peak: in event
//! mode its schedule as large as the tree can make it, not as it is before
//! the first tick. The check applies to new crowds (`run`, `bench`) and to
//! restored ones (`run --restore`, `snapshot inspect`), where a few bytes
//! of snapshot per agent stand for a schedule rebuilt on restore.

mod common;

use std::io::Write;
use std::path::PathBuf;

use common::{canopy, stderr, success};

/// Leaves of the wide tree: a Parallel over this many AlwaysRunning.
const LEAVES: usize = 32_767;

/// A scratch directory holding the wide tree, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("canopy-cli-mem-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let leaves: Vec<String> = (0..LEAVES)
            .map(|i| format!(r#"{{"type":"AlwaysRunning","name":"r{i}"}}"#))
            .collect();
        let tree = format!(
            r#"{{"tree":{{"type":"Parallel","name":"p","children":[{}]}}}}"#,
            leaves.join(",")
        );
        std::fs::write(dir.join("wide.json"), tree).unwrap();
        Scratch(dir)
    }

    fn path(&self, file: &str) -> String {
        self.0.join(file).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn an_event_mode_crowd_is_checked_with_its_schedule_at_its_peak() {
    let dir = Scratch::new("new");
    let tree = dir.path("wide.json");
    // Before the first tick the schedule holds 4,096 frames; at its peak
    // 32,768, which is what 22,000 agents would need.
    let output = canopy(&[
        "run", &tree, "--ticks", "1", "--agents", "22000", "--mode", "event",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(
            "error: 22000 agents need 17484544000 bytes (794752 bytes per agent for this tree), \
             more than the limit of 17179869184 bytes (16 GiB); use fewer agents\n"
        ),
        "{}",
        stderr(&output)
    );
}

/// A snapshot of `agents` agents of the wide tree, all running every leaf
/// in event mode: one real agent's snapshot, repeated with new ids.
fn wide_snapshot(dir: &Scratch, agents: u32) -> String {
    let tree = dir.path("wide.json");
    let one = dir.path("one.snap");
    success(&["run", &tree, "--ticks", "1", "--save", &one]);
    let bytes = std::fs::read(&one).unwrap();
    // Header (mark, version, kind), fingerprint, memory length, count.
    let (head, body) = bytes.split_at(4 + 2 + 1 + 8 + 4 + 4);
    let path = dir.path("wide.snap");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    out.write_all(&head[..head.len() - 4]).unwrap();
    out.write_all(&agents.to_le_bytes()).unwrap();
    let mut agent = body.to_vec();
    agent[8] |= 2; // event mode
    for id in 0..agents {
        agent[..4].copy_from_slice(&id.to_le_bytes());
        out.write_all(&agent).unwrap();
    }
    out.flush().unwrap();
    path
}

#[test]
fn a_restored_crowd_is_checked_with_its_rebuilt_schedules() {
    let dir = Scratch::new("restore");
    let tree = dir.path("wide.json");
    let snap = wide_snapshot(&dir, 22_000);
    let expected = format!(
        "{snap}: cannot restore onto {tree}: its 22000 agents need more than the limit \
         of 17179869184 bytes (794752 bytes per agent of this tree at its peak, its event \
         schedule included)\n"
    );
    for args in [
        vec!["run", &tree, "--ticks", "1", "--restore", &snap],
        vec![
            "snapshot", "inspect", &snap, "--tree", &tree, "--agent", "3",
        ],
    ] {
        let output = canopy(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&output), expected, "{args:?}");
    }
}

/// `canopy` with `args` under an address-space limit of 1.5 GB (`ulimit -v`).
#[cfg(unix)]
fn canopy_within_1_5_gb(args: &[&str]) -> std::process::Output {
    let mut script = String::from("ulimit -v 1500000 && exec \"$0\"");
    for k in 1..=args.len() {
        script.push_str(&format!(" \"${{{k}}}\""));
    }
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_canopy"))
        .args(args)
        .current_dir(common::root())
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_crowd_within_the_limit_but_not_the_machine_is_an_error_not_an_abort() {
    let dir = Scratch::new("machine");
    let tree = dir.path("wide.json");
    // 3,000 agents at their peak need 2.4 GB: under the 16 GiB limit, over
    // what the process may map.
    let output = canopy_within_1_5_gb(&[
        "run", &tree, "--ticks", "1", "--agents", "3000", "--mode", "event",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with(
            "error: cannot allocate 3000 agents (794752 bytes per agent for this tree): \
             memory allocation failed because the memory allocator returned an error\n"
        ),
        "{}",
        stderr(&output)
    );
    let snap = wide_snapshot(&dir, 3000);
    let output = canopy_within_1_5_gb(&["run", &tree, "--ticks", "1", "--restore", &snap]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "{snap}: cannot restore onto {tree}: \
             the system refused the memory for the crowd's agents\n"
        )
    );
    // The same crowd at a third of the size fits, and runs.
    let output = canopy_within_1_5_gb(&[
        "run", &tree, "--ticks", "1", "--agents", "1000", "--mode", "event",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}
