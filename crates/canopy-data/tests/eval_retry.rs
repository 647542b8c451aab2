//! `EvalRetry`: a Retry whose retries go on only while a script holds,
//! tested after each failure of its child.

use canopy_core::{Agent, Ctx, Status, Tree};
use canopy_data::{Format, Registry, TreeSource};

/// Attempts made, by the leaf `Attempt`.
type Attempts = u32;

/// A registry with `Attempt` (counts itself, fails) and `Succeed`
/// (counts itself, succeeds from the second attempt on).
fn registry() -> Registry<Attempts, ()> {
    let mut registry = Registry::new();
    registry
        .action("Attempt", |(): ()| {
            |cx: &mut Ctx<Attempts, ()>| {
                *cx.agent += 1;
                Status::Failure
            }
        })
        .unwrap();
    registry
        .action("SecondTime", |(): ()| {
            |cx: &mut Ctx<Attempts, ()>| {
                *cx.agent += 1;
                match *cx.agent {
                    1 => Status::Failure,
                    _ => Status::Success,
                }
            }
        })
        .unwrap();
    registry
}

fn load(json: &str) -> Result<Tree<Attempts, ()>, String> {
    let source = TreeSource::text(json, Format::Json, "retry.json");
    registry().loading(source).load().map_err(|e| e.to_string())
}

/// The statuses of `ticks` ticks, and the attempts made.
fn run(tree: &Tree<Attempts, ()>, ticks: usize) -> (Vec<Status>, Attempts) {
    let (mut attempts, mut agent) = (0, Agent::new(tree));
    let statuses = (0..ticks)
        .map(|_| agent.tick(tree, &mut attempts, &()))
        .collect();
    (statuses, attempts)
}

/// A tree that counts tries in the key `tries` and retries an attempt
/// under `retry`'s parameters.
fn counting(retry: &str) -> String {
    format!(
        r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Eval", "code": "tries := 0"}},
            {{"type": "EvalRetry", {retry}, "children": [
                {{"type": "Sequence", "children": [
                    {{"type": "Eval", "code": "tries += 1"}},
                    {{"type": "Attempt"}}]}}]}}]}}}}"#
    )
}

#[test]
fn a_failed_attempt_is_retried_at_the_next_tick_while_the_script_holds() {
    let tree = load(&counting(r#""times": 10, "while": "tries < 3""#)).unwrap();
    let (statuses, attempts) = run(&tree, 3);
    use Status::{Failure, Running};
    assert_eq!(statuses, [Running, Running, Failure]);
    assert_eq!(attempts, 3);
}

#[test]
fn it_fails_after_times_attempts_however_long_the_script_holds() {
    let tree = load(&counting(r#""times": 2, "while": "true""#)).unwrap();
    let (statuses, attempts) = run(&tree, 2);
    assert_eq!(statuses, [Status::Running, Status::Failure]);
    assert_eq!(attempts, 2);
}

#[test]
fn a_script_false_at_the_first_failure_makes_no_second_attempt() {
    let tree = load(&counting(r#""times": 5, "while": "tries > 1""#)).unwrap();
    let (statuses, attempts) = run(&tree, 1);
    assert_eq!(statuses, [Status::Failure]);
    assert_eq!(attempts, 1);
}

#[test]
fn a_success_ends_it_with_success() {
    let tree = load(
        r#"{"tree": {"type": "EvalRetry", "times": 3, "while": "true",
            "children": [{"type": "SecondTime"}]}}"#,
    )
    .unwrap();
    let (statuses, attempts) = run(&tree, 2);
    assert_eq!(statuses, [Status::Running, Status::Success]);
    assert_eq!(attempts, 2);
}

#[test]
fn it_shows_its_parameters_and_its_script() {
    let tree = load(&counting(r#""times": 4, "while": "tries < 3""#)).unwrap();
    let shown = tree.display().to_string();
    assert!(
        shown.contains("EvalRetry(times=4, while=\"tries < 3\")"),
        "{shown}"
    );
}

#[test]
fn its_script_is_checked_when_the_file_loads() {
    let err = load(&counting(r#""times": 3, "while": "trys < 3""#)).unwrap_err();
    assert_eq!(
        err,
        "retry.json:3:15: tree/children[1] (name \"EvalRetry\"): parameter \"while\": \
         script \"trys < 3\", column 1: unknown key \"trys\""
    );
    let err =
        load(r#"{"tree": {"type": "EvalRetry", "times": 3, "children": [{"type": "Attempt"}]}}"#)
            .unwrap_err();
    assert_eq!(
        err,
        "retry.json:1:12: tree (name \"EvalRetry\"): missing parameter \"while\" (string, required)"
    );
    let err = load(&counting(r#""times": 0, "while": "true""#)).unwrap_err();
    assert_eq!(
        err,
        "retry.json:3:15: tree/children[1] (name \"EvalRetry\"): parameter \"times\" must be at least 1, got 0"
    );
}
