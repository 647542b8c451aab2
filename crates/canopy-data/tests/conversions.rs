//! Keys BehaviorTree.CPP types at run time, as canopy loads them: a key a
//! string port wrote first, read by a port of another type, converts the
//! text each time it is read (BehaviorTree.CPP's `convertFromString`); a
//! text that does not convert fails the node reading it; a string a
//! script assigns to a typed key converts when the script runs.

use canopy_core::{Agent, Ctx, Input, Output, Status, Text};
use canopy_data::{Format, Params, Registry, TreeSource};

/// Says where to go, as text.
#[derive(Params)]
struct Tell {
    /// What it says.
    says: Text,
    /// Where it writes it.
    out: Output<Text>,
}

/// Walks to a point.
#[derive(Params)]
struct Walk {
    /// Where to.
    goal: Input<[f32; 2]>,
}

/// Whether the count is above 2.
#[derive(Params)]
struct Many {
    /// The count.
    count: Input<i32>,
}

type Seen = Vec<[f32; 2]>;

fn registry() -> Registry<Seen, ()> {
    let mut registry = Registry::new();
    registry
        .action("Tell", |p: Tell| {
            move |cx: &mut Ctx<Seen, ()>| {
                cx.board.set(&p.out, p.says);
                Status::Success
            }
        })
        .unwrap();
    registry
        .action("Walk", |p: Walk| {
            move |cx: &mut Ctx<Seen, ()>| {
                let goal = cx.board.get(&p.goal);
                cx.agent.push(goal);
                Status::Success
            }
        })
        .unwrap();
    registry
        .condition("Many", |p: Many| {
            move |cx: &Ctx<Seen, ()>| cx.board.get(&p.count) > 2
        })
        .unwrap();
    registry
}

fn run(json: &str) -> (Status, Seen) {
    let tree = registry()
        .loading(TreeSource::text(json, Format::Json, "walk.json"))
        .load()
        .unwrap();
    let mut seen = Seen::new();
    let status = Agent::new(&tree).tick(&tree, &mut seen, &());
    (status, seen)
}

fn walk(says: &str) -> String {
    format!(
        r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Tell", "says": "{says}", "out": "{{goal}}"}},
            {{"type": "Walk", "goal": "{{goal}}"}}
        ]}}}}"#
    )
}

#[test]
fn a_string_key_read_by_a_typed_port_is_converted_when_read() {
    assert_eq!(run(&walk("3;-4")), (Status::Success, vec![[3.0, -4.0]]));
}

#[test]
fn a_text_that_does_not_convert_fails_the_node_reading_it() {
    // The leaf's code ran and read the zero point (`Board::try_get` would
    // have told it); the leaf fails all the same.
    assert_eq!(run(&walk("north")), (Status::Failure, vec![[0.0, 0.0]]));
    assert_eq!(run(&walk("1;2;3")), (Status::Failure, vec![[0.0, 0.0]]));
}

#[test]
fn a_condition_reading_a_text_that_does_not_convert_is_false() {
    let json = |says: &str| {
        format!(
            r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Tell", "says": "{says}", "out": "{{n}}"}},
            {{"type": "Many", "count": "{{n}}"}}
        ]}}}}"#
        )
    };
    // As BehaviorTree.CPP reads an int from text: the digits it starts with.
    assert_eq!(run(&json("7 apples")).0, Status::Success);
    assert_eq!(run(&json("2")).0, Status::Failure);
    assert_eq!(run(&json("none")).0, Status::Failure);
}

#[test]
fn a_typed_port_first_and_a_string_port_after_is_still_a_type_conflict() {
    // BehaviorTree.CPP refuses this order when it loads the tree too.
    let err = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Sequence", "children": [
                {"type": "Walk", "goal": "{goal}"},
                {"type": "Tell", "says": "x", "out": "{goal}"}
            ]}}"#,
            Format::Json,
            "walk.json",
        ))
        .load()
        .unwrap_err();
    assert!(
        err.to_string().contains(
            "port \"out\" wants key \"{goal}\" to hold std::string, but it holds canopy::Point2f"
        ),
        "{err}"
    );
}

#[test]
fn a_string_a_script_assigns_to_a_typed_key_converts_when_it_runs() {
    let json = |value: &str| {
        format!(
            r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Eval", "code": "goal := '{value}'"}},
            {{"type": "Walk", "goal": "{{goal}}"}}
        ]}}}}"#
        )
    };
    assert_eq!(run(&json("-1;3")), (Status::Success, vec![[-1.0, 3.0]]));
    assert_eq!(run(&json("up")), (Status::Failure, vec![]));
}

#[test]
fn an_eval_assigns_a_value_that_is_never_code() {
    let json = |value: &str| {
        format!(
            r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Eval", "assign": "goal", "value": "{value}"}},
            {{"type": "Walk", "goal": "{{goal}}"}}
        ]}}}}"#
        )
    };
    assert_eq!(run(&json("5;6")), (Status::Success, vec![[5.0, 6.0]]));
    // A quote in the value is part of the value: nothing runs.
    assert_eq!(run(&json("1;2' ; goal := '9;9")), (Status::Failure, vec![]));
}
