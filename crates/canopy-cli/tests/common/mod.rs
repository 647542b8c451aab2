//! Running the built `canopy` binary from the workspace root, so paths in
//! its output read as in the book (`docs/tree-files-and-the-command.md`:
//! `examples/trees/sentry.json`).

#![allow(dead_code)] // each test file uses its own share of these helpers

use std::path::PathBuf;
use std::process::{Command, Output};

/// The workspace root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A `canopy` command, run from the workspace root.
pub(crate) fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_canopy"));
    cmd.args(args).current_dir(root());
    cmd
}

/// Run `canopy` with `args` to completion.
pub(crate) fn canopy(args: &[&str]) -> Output {
    command(args).output().expect("the canopy binary runs")
}

/// Its stdout, as text.
pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

/// Its stderr, as text.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// Run, expect exit code 0, return stdout.
pub(crate) fn success(args: &[&str]) -> String {
    let output = canopy(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "canopy {args:?} failed; stderr:\n{}",
        stderr(&output)
    );
    assert_eq!(stderr(&output), "", "canopy {args:?} wrote to stderr");
    stdout(&output)
}

/// Compare `actual` with the golden file `name`, or rewrite it when
/// `UPDATE_GOLDEN` is set.
pub(crate) fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; create it with UPDATE_GOLDEN=1 cargo test -p canopy-cli",
            path.display()
        )
    });
    assert!(
        actual == expected,
        "output differs from {}\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}
