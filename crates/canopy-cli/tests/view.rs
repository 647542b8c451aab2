//! `canopy view`: a trace served in the replay inspector — the URL printed
//! at once, the page answering there — and every bad input an exit 1.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Stdio};

use common::{canopy, command, stderr, stdout, success};

const SENTRY: &str = "examples/trees/sentry.json";

/// A unique temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("canopy-cli-view-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, file: &str, text: &str) -> String {
        let path = self.0.join(file);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A server this test started, stopped when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `GET path` over HTTP/1.1: the status line and the body.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.lines().next().unwrap_or("").to_string();
    let body = response
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

#[test]
fn view_serves_a_trace_and_prints_its_url() {
    let dir = TempDir::new("serve");
    let trace = success(&[
        "run", SENTRY, "--ticks", "10", "--agents", "3", "--seed", "7", "--trace",
    ]);
    let file = dir.write("sentry.jsonl", &trace);
    let mut child = command(&["view", &file, "--tree", SENTRY, "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let served = Served(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .strip_prefix("replay: http://")
        .and_then(|rest| rest.strip_suffix("/ (Ctrl-C to stop)\n"))
        .unwrap_or_else(|| panic!("{line:?}"));
    let (status, body) = get(url, "/api/hello");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let hello: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(hello["mode"], "replay");
    assert_eq!(hello["agents"], 3);
    assert_eq!(
        (hello["first_tick"].clone(), hello["last_tick"].clone()),
        (1.into(), 10.into())
    );
    assert_eq!(hello["title"], format!("replay of {file}"));
    drop(served);
}

/// `args` exits with 1, nothing on stdout, exactly `error` on stderr.
fn assert_fails(args: &[&str], error: &str) {
    let output = canopy(args);
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    assert_eq!(stdout(&output), "", "{args:?}");
    assert_eq!(stderr(&output), format!("{error}\n"), "{args:?}");
}

#[test]
fn view_refuses_what_it_cannot_replay() {
    let dir = TempDir::new("bad");
    let check = |trace: &str, tree: &str, error: &str| {
        assert_fails(
            &["view", trace, "--tree", tree, "--addr", "127.0.0.1:0"],
            error,
        );
    };

    // A trace of another tree.
    let pet = dir.write(
        "pet.jsonl",
        &success(&["run", "examples/trees/pet.ron", "--ticks", "2", "--trace"]),
    );
    let first = success(&["run", "examples/trees/pet.ron", "--ticks", "1", "--trace"]);
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    check(
        &pet,
        SENTRY,
        &format!(
            "{pet}:1: node 0 is \"{}\" (\"{}\") in the trace but \"sentry\" (\"ReactiveSelector\") \
             in the tree",
            first["node"].as_str().unwrap(),
            first["type"].as_str().unwrap()
        ),
    );
    // Not a trace, no events, no file, not a regular file.
    let text = dir.write("notes.jsonl", "hello\n");
    check(
        &text,
        SENTRY,
        &format!("{text}:1: not a trace line: expected value at line 1 column 1"),
    );
    let empty = dir.write("empty.jsonl", "\n\n");
    check(&empty, SENTRY, &format!("{empty}: no events"));
    let missing = dir.0.join("missing.jsonl").display().to_string();
    check(
        &missing,
        SENTRY,
        &format!("{missing}: cannot read: No such file or directory (os error 2)"),
    );
    let fifo = dir.0.join("fifo.jsonl").display().to_string();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    check(
        &fifo,
        SENTRY,
        &format!("{fifo}: not a regular file (a FIFO); traces are read from regular files"),
    );
    // A bad tree file, as everywhere.
    check(
        &pet,
        "crates/canopy-cli/tests/fixtures/bad/empty.json",
        "crates/canopy-cli/tests/fixtures/bad/empty.json: the file is empty",
    );
    // A bad address is a usage error.
    let output = canopy(&["view", &pet, "--tree", SENTRY, "--addr", "localhost"]);
    assert_eq!(output.status.code(), Some(2));
}
