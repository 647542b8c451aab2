//! `run --save`, `run --restore` and `snapshot inspect`: a restored run
//! carries on exactly where the saved one stopped, and a snapshot that
//! does not fit, or is not one, is an error naming the file.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use canopy_data::{Registry, TreeSource};
use common::{canopy, command, root, stderr, stdout, success};

/// A unique temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("canopy-cli-snap-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, file: &str) -> String {
        self.0.join(file).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const SENTRY: &str = "examples/trees/sentry.json";
const PET: &str = "examples/trees/pet.ron";
const TAKEOVER: &str = "crates/canopy-cli/tests/fixtures/takeover.json";
const DOOR: &str = "crates/canopy-cli/tests/fixtures/door.xml";

/// The lines of a trace after tick `after`.
fn trace_after(trace: &str, after: u64) -> Vec<&str> {
    trace
        .lines()
        .filter(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["tick"].as_u64().unwrap() > after
        })
        .collect()
}

#[test]
fn a_restored_run_gives_the_trace_of_an_uninterrupted_one() {
    let dir = TempDir::new("same");
    let (n, k) = (13u32, 17u32);
    for file in [SENTRY, PET, TAKEOVER, DOOR] {
        for mode in ["tick", "event"] {
            let snap = dir.path("crowd.snap");
            let common = ["--agents", "5", "--seed", "7", "--mode", mode];
            let mut whole = vec!["run", file, "--trace", "--ticks"];
            let total = (n + k).to_string();
            whole.push(&total);
            whole.extend(common);
            let whole = success(&whole);

            let mut first = vec!["run", file, "--trace", "--ticks", "13", "--save", &snap];
            first.extend(common);
            let first = success(&first);
            let before = whole.lines().count() - trace_after(&whole, n as u64).len();
            assert_eq!(
                first,
                whole
                    .lines()
                    .take(before)
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
            );

            let rest = success(&[
                "run",
                file,
                "--restore",
                &snap,
                "--ticks",
                "17",
                "--seed",
                "7",
                "--trace",
            ]);
            let expected = trace_after(&whole, n as u64);
            assert!(expected.len() >= 5 * k as usize, "{file} {mode}");
            assert_eq!(rest.lines().collect::<Vec<_>>(), expected, "{file} {mode}");
        }
    }
}

#[test]
fn a_restored_summary_carries_on_counting() {
    let dir = TempDir::new("summary");
    let snap = dir.path("sentry.snap");
    let saved = success(&[
        "run", SENTRY, "--ticks", "12", "--agents", "3", "--seed", "7", "--save", &snap,
    ]);
    let size = std::fs::metadata(&snap).unwrap().len();
    assert!(
        saved.ends_with(&format!(
            "total over 12 ticks × 3 agents: 34 running, 1 success, 1 failure\n\
             saved 3 agents at tick 12 to {snap} ({size} bytes)\n"
        )),
        "{saved}"
    );
    let whole = success(&[
        "run", SENTRY, "--ticks", "17", "--agents", "3", "--seed", "7",
    ]);
    let rest = success(&[
        "run",
        SENTRY,
        "--restore",
        &snap,
        "--ticks",
        "5",
        "--seed",
        "7",
    ]);
    assert_eq!(
        rest,
        "\
tick 13: 2 running, 0 success, 1 failure
tick 14: 2 running, 0 success, 1 failure
tick 15: 3 running, 0 success, 0 failure
tick 16: 2 running, 0 success, 1 failure
tick 17: 3 running, 0 success, 0 failure
total over 5 ticks × 3 agents: 12 running, 0 success, 3 failure
"
    );
    let whole_lines: Vec<&str> = whole.lines().collect();
    assert_eq!(
        rest.lines().take(5).collect::<Vec<_>>(),
        whole_lines[12..17]
    );
    // Switching mode on restore changes nothing a summary shows.
    let event = success(&[
        "run",
        SENTRY,
        "--restore",
        &snap,
        "--ticks",
        "5",
        "--seed",
        "7",
        "--mode",
        "event",
    ]);
    assert_eq!(event, rest);
}

#[test]
fn snapshot_inspect_shows_each_agents_running_path() {
    let dir = TempDir::new("inspect");
    let snap = dir.path("sentry.snap");
    success(&[
        "run", SENTRY, "--ticks", "12", "--agents", "3", "--seed", "7", "--save", &snap,
    ]);
    assert_eq!(
        success(&["snapshot", "inspect", &snap, "--tree", SENTRY]),
        "\
agent 0 (tick 12): sentry [running child 2 of 2] > patrol [running child 1 of 3] > walk to post A [1 tick left]
agent 1 (tick 12): not running
agent 2 (tick 12): sentry [running child 2 of 2] > patrol [running child 2 of 3] > rest cooldown > rest [2 ticks left]
"
    );
    assert_eq!(
        success(&[
            "snapshot", "inspect", &snap, "--tree", SENTRY, "--agent", "2"
        ]),
        "agent 2 (tick 12): sentry [running child 2 of 2] > patrol [running child 2 of 3] > \
         rest cooldown > rest [2 ticks left]\n"
    );
    let output = canopy(&[
        "snapshot", "inspect", &snap, "--tree", SENTRY, "--agent", "9",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!("{snap}: no agent 9 among its 3 agents\n")
    );
}

#[test]
fn snapshot_inspect_shows_every_path_below_a_parallel_escaped() {
    let dir = TempDir::new("parallel");
    let tree = dir.path("both.json");
    std::fs::write(
        &tree,
        r#"{"tree": {"type": "Parallel", "name": "both", "children": [
            {"type": "Wait", "name": "left\u001b[31m", "ticks": 5},
            {"type": "Sequence", "name": "right", "children": [
                {"type": "Wait", "name": "a", "ticks": 1},
                {"type": "Wait", "name": "b", "ticks": 4}]}]}}"#,
    )
    .unwrap();
    let snap = dir.path("both.snap");
    success(&["run", &tree, "--ticks", "2", "--save", &snap]);
    assert_eq!(
        success(&["snapshot", "inspect", &snap, "--tree", &tree]),
        "\
agent 0 (tick 2): both [2 running, 0 succeeded, 0 failed] > left\\u{1b}[31m [4 ticks left]
agent 0 (tick 2): both [2 running, 0 succeeded, 0 failed] > right [running child 2 of 2] > b [4 ticks left]
"
    );
}

/// `args` exits with 1 and exactly `error` on stderr, nothing on stdout.
fn assert_fails(args: &[&str], error: &str) {
    let output = canopy(args);
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    assert_eq!(stdout(&output), "", "{args:?}");
    assert_eq!(stderr(&output), format!("{error}\n"), "{args:?}");
}

/// What restoring `bytes` onto `file`'s tree says, as the engine says it.
fn restore_error(file: &str, bytes: &[u8]) -> String {
    let tree = Registry::<(), ()>::new()
        .loading(TreeSource::file(&root().join(file)))
        .load()
        .unwrap();
    match canopy_core::snapshot::restore_crowd(&tree, bytes) {
        Ok(_) => panic!("the bytes restore"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_snapshot_of_another_tree_or_a_damaged_one_is_refused() {
    let dir = TempDir::new("damaged");
    let snap = dir.path("sentry.snap");
    success(&[
        "run", SENTRY, "--ticks", "4", "--agents", "2", "--save", &snap,
    ]);
    let bytes = std::fs::read(&snap).unwrap();
    let sentry = Registry::<(), ()>::new()
        .loading(TreeSource::file(&root().join(SENTRY)))
        .load()
        .unwrap();
    let pet = Registry::<(), ()>::new()
        .loading(TreeSource::file(&root().join(PET)))
        .load()
        .unwrap();
    let other = format!(
        "{snap}: cannot restore onto {PET}: the snapshot was taken of another tree, or another \
         version of this one (fingerprint {:016x}, this tree's is {:016x}); to move running \
         agents onto an edited tree, reload them instead",
        sentry.fingerprint(),
        pet.fingerprint()
    );
    assert_fails(&["run", PET, "--restore", &snap, "--ticks", "1"], &other);
    assert_fails(&["snapshot", "inspect", &snap, "--tree", PET], &other);

    let mut damaged: Vec<(&str, Vec<u8>)> = vec![
        ("cut.snap", bytes[..bytes.len() - 3].to_vec()),
        ("long.snap", [&bytes[..], b"more"].concat()),
        ("text.snap", b"{\"tree\": {}}".to_vec()),
        ("empty.snap", Vec::new()),
    ];
    // Every single byte of the saved agents changed.
    for at in (bytes.len() - 20)..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0xa5;
        if canopy_core::snapshot::restore_crowd(&sentry, &flipped).is_err() {
            damaged.push(("flipped.snap", flipped));
        }
    }
    assert!(damaged.len() > 6, "some flips are refused");
    for (name, bytes) in damaged {
        let path = dir.path(name);
        std::fs::write(&path, &bytes).unwrap();
        let error = format!(
            "{path}: cannot restore onto {SENTRY}: {}",
            restore_error(SENTRY, &bytes)
        );
        assert_fails(&["run", SENTRY, "--restore", &path, "--ticks", "1"], &error);
        assert_fails(&["snapshot", "inspect", &path, "--tree", SENTRY], &error);
    }
    let text = dir.path("text.snap");
    assert_fails(
        &["run", SENTRY, "--restore", &text, "--ticks", "1"],
        &format!("{text}: cannot restore onto {SENTRY}: not a canopy snapshot (no CNPY mark)"),
    );
}

#[test]
fn snapshot_files_are_bounded_and_regular() {
    let dir = TempDir::new("bounds");
    let fifo = dir.path("fifo.snap");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let huge = dir.path("huge.snap");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let missing = dir.path("missing.snap");
    for (path, error) in [
        (
            &fifo,
            format!("{fifo}: not a regular file (a FIFO); snapshots are read from regular files"),
        ),
        (
            &huge,
            format!(
                "{huge}: the file is 1073741825 bytes, more than the limit of 1073741824 bytes (1 GiB)"
            ),
        ),
        (
            &missing,
            format!("{missing}: cannot read: No such file or directory (os error 2)"),
        ),
    ] {
        assert_fails(&["run", SENTRY, "--restore", path, "--ticks", "1"], &error);
        assert_fails(&["snapshot", "inspect", path, "--tree", SENTRY], &error);
    }
}

#[test]
fn saving_reports_what_it_cannot_write() {
    let dir = TempDir::new("save");
    let nowhere = dir.path("no/such/dir/out.snap");
    let output = canopy(&["run", SENTRY, "--ticks", "2", "--save", &nowhere]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!("{nowhere}: cannot write the snapshot: No such file or directory (os error 2)\n")
    );
    // --agents comes from the snapshot when restoring.
    let output = canopy(&[
        "run",
        SENTRY,
        "--ticks",
        "2",
        "--agents",
        "3",
        "--restore",
        &nowhere,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with(
        "error: the argument '--agents <AGENTS>' cannot be used with '--restore <FILE.snap>'"
    ));
}

#[test]
fn a_run_cut_short_by_a_closed_pipe_saves_nothing() {
    let dir = TempDir::new("pipe");
    let snap = dir.path("cut.snap");
    let mut child = command(&[
        "run", SENTRY, "--ticks", "1000000", "--agents", "100", "--trace", "--save", &snap,
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    drop(reader);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("{snap}: not written: the output was closed before the run ended\n")
    );
    assert!(!Path::new(&snap).exists());
}
