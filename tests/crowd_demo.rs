//! The crowd demo (`examples/crowd.rs`) as its users run it: a `--save-at`
//! step that never comes is a usage error, and `--load` refuses what is not
//! a saved crowd's regular file at once.
//!
//! The example is built by `cargo test` with the other targets; run alone
//! (`cargo test --test crowd_demo`), this builds it first.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The demo's binary, built in this test's profile and target directory.
fn demo() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/crowd_demo-… → target/<profile>/examples/crowd
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let mut build = Command::new(env!("CARGO"));
    build
        .args(["build", "--quiet", "--example", "crowd"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    assert!(build.status().unwrap().success(), "the demo builds");
    profile_dir.join("examples").join("crowd")
}

fn run(args: &[&str]) -> Output {
    Command::new(demo())
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn a_save_after_the_last_step_is_a_usage_error() {
    let save = std::env::temp_dir().join(format!("canopy-demo-{}.save", std::process::id()));
    let save = save.display().to_string();
    let output = run(&["--steps", "2", "--save-at", "5", "--save", &save]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(
            "error: --save-at 5 is after the last step (--steps 2): nothing would be saved\n"
        ),
        "{}",
        stderr(&output)
    );
    assert!(!std::path::Path::new(&save).exists());
}

#[cfg(unix)]
#[test]
fn loading_a_device_is_refused_at_once() {
    let output = run(&["--load", "/dev/zero", "--steps", "1"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error: /dev/zero: not a regular file (a character device); \
         saved crowds are read from regular files\n"
    );
}

#[test]
fn lod_ticks_fewer_agents_and_draws_the_classes() {
    let svg = std::env::temp_dir().join(format!("canopy-demo-lod-{}.svg", std::process::id()));
    let svg_arg = svg.display().to_string();
    let output = run(&[
        "--agents",
        "2000",
        "--steps",
        "16",
        "--threads",
        "1",
        "--lod",
        "--json",
        "--out",
        &svg_arg,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("\nlevel of detail now: "), "{stdout}");
    assert!(stdout.contains("\"lod\":true"), "{stdout}");
    let per_step: f64 = stdout
        .split("\"agent_ticks_per_step\":")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        per_step < 1000.0,
        "fewer than half the agents a step: {per_step}"
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    std::fs::remove_file(&svg).unwrap();
    assert!(picture.contains(">level of detail</text>"));
    assert!(picture.contains("1 step in 8 — "));
}

#[test]
fn lod_goes_with_the_inspector_which_names_the_classes() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = Command::new(demo())
        .args([
            "--serve",
            "--lod",
            "--agents",
            "200",
            "--addr",
            "127.0.0.1:0",
        ])
        .current_dir(std::env::temp_dir())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let hello = line
        .strip_prefix("inspector: http://")
        .and_then(|rest| rest.split('/').next())
        .map(|addr| {
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            write!(
                stream,
                "GET /api/hello HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let mut response = String::new();
            stream.read_to_string(&mut response).unwrap();
            response
        });
    child.kill().unwrap();
    child.wait().unwrap();
    let hello = hello.unwrap_or_else(|| panic!("no address in {line:?}"));
    assert!(
        hello.contains(r#""classes":[{"name":"every step","opacity":1.0},{"name":"1 step in 2","#)
            && hello.contains(r#"{"name":"1 step in 8","opacity":0.25}]"#),
        "{hello}"
    );
}
