//! Every build error, with its exact message.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use canopy_core::{Builder, Ctx};
use canopy_fsm::{
    FsmError, Hooks, MAX_DEPTH, MAX_STATES, MachineBuilder, MachineLeaf, State, TreeState,
};

type B = MachineBuilder<(), (), Ev>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Go,
    Back,
}

fn h() -> Hooks<(), (), Ev> {
    Hooks::new()
}

/// Idle and Jump at the top, Walk inside Move.
fn base() -> B {
    let mut inner = B::new();
    inner.state("Walk", h());
    inner.start("Walk");
    let mut b = B::new();
    b.state("Idle", h());
    b.state("Jump", h());
    b.state("Move", h()).child_machine(inner);
    b.start("Idle");
    b
}

fn error(b: B) -> (FsmError, String) {
    let err = b.build().unwrap_err();
    let text = err.to_string();
    (err, text)
}

#[test]
fn the_base_machine_builds() {
    let m = base().build().unwrap();
    assert_eq!((m.len(), m.depth(), m.data_bytes()), (4, 2, 0));
}

#[test]
fn empty_top_level_machine() {
    let (err, text) = error(B::new());
    assert_eq!(err, FsmError::EmptyMachine { parent: None });
    assert_eq!(text, "the top-level machine has no states");
}

#[test]
fn empty_child_machine() {
    let mut b = base();
    b.state("Fly", h()).child_machine(B::new());
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::EmptyMachine {
            parent: Some("Fly".into())
        }
    );
    assert_eq!(text, r#"the child machine of "Fly" has no states"#);
}

#[test]
fn no_start_state() {
    let mut b = B::new();
    b.state("Idle", h());
    assert_eq!(error(b).1, "the top-level machine has no start state");

    let mut inner = B::new();
    inner.state("Walk", h());
    let mut b = B::new();
    b.state("Move", h()).child_machine(inner);
    b.start("Move");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::NoStart {
            parent: Some("Move".into())
        }
    );
    assert_eq!(text, r#"the child machine of "Move" has no start state"#);
}

#[test]
fn unknown_start_state() {
    let mut b = base();
    b.start("Idel");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::UnknownStart {
            state: "Idel".into()
        }
    );
    assert_eq!(text, r#"start state "Idel" is not declared"#);
}

#[test]
fn start_state_of_another_machine() {
    let mut b = base();
    b.start("Walk");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::StartElsewhere {
            state: "Walk".into(),
            parent: None
        }
    );
    assert_eq!(
        text,
        r#"start state "Walk" is not a state of the top-level machine"#
    );

    let mut inner = B::new();
    inner.state("Walk", h());
    inner.start("Idle");
    let mut b = B::new();
    b.state("Idle", h());
    b.state("Move", h()).child_machine(inner);
    b.start("Idle");
    assert_eq!(
        error(b).1,
        r#"start state "Idle" is not a state of the child machine of "Move""#
    );
}

#[test]
fn duplicate_state_in_one_machine() {
    let mut b = base();
    b.state("Jump", h());
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::DuplicateState {
            state: "Jump".into()
        }
    );
    assert_eq!(text, r#"state "Jump" is declared twice in one machine"#);
}

#[test]
fn state_nested_in_two_parents() {
    let mut inner = B::new();
    inner.state("Walk", h());
    inner.start("Walk");
    let mut b = base();
    b.state("Swim", h()).child_machine(inner);
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::NestedTwice {
            state: "Walk".into(),
            first: Some("Move".into()),
            second: Some("Swim".into())
        }
    );
    assert_eq!(
        text,
        r#"state "Walk" is nested in two parents: inside "Move" and inside "Swim""#
    );

    let mut inner = B::new();
    inner.state("Idle", h());
    inner.start("Idle");
    let mut b = base();
    b.state("Swim", h()).child_machine(inner);
    assert_eq!(
        error(b).1,
        r#"state "Idle" is nested in two parents: at the top level and inside "Swim""#
    );
}

#[test]
fn transition_from_an_unknown_state() {
    let mut b = base();
    b.transition("Idel", Ev::Go, "Jump");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::UnknownSource {
            from: "Idel".into(),
            trigger: "Go".into()
        }
    );
    assert_eq!(
        text,
        r#"transition on trigger Go: unknown source state "Idel""#
    );
}

#[test]
fn transition_to_an_unknown_state() {
    let mut b = base();
    b.transition("Idle", Ev::Go, "Jmp");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::UnknownTarget {
            from: "Idle".into(),
            trigger: "Go".into(),
            to: "Jmp".into()
        }
    );
    assert_eq!(
        text,
        r#"transition from "Idle" on trigger Go: unknown target state "Jmp""#
    );
}

#[test]
fn duplicate_trigger_on_one_state() {
    let mut b = base();
    b.transition("Idle", Ev::Go, "Jump")
        .transition("Idle", Ev::Back, "Jump")
        .transition("Idle", Ev::Go, "Move");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::DuplicateTrigger {
            state: "Idle".into(),
            trigger: "Go".into()
        }
    );
    assert_eq!(text, r#"state "Idle" has two transitions on trigger Go"#);
}

#[test]
fn duplicate_trigger_declared_from_two_builders() {
    let mut inner = B::new();
    inner.state("Walk", h());
    inner.start("Walk");
    inner.transition("Walk", Ev::Go, "Walk");
    let mut b = B::new();
    b.state("Move", h()).child_machine(inner);
    b.start("Move");
    b.transition("Walk", Ev::Go, "Move");
    assert_eq!(
        error(b).1,
        r#"state "Walk" has two transitions on trigger Go"#
    );
}

#[test]
fn the_same_trigger_on_different_states_is_fine() {
    let mut b = base();
    b.transition("Idle", Ev::Go, "Jump")
        .transition("Jump", Ev::Go, "Idle")
        .transition("Walk", Ev::Go, "Idle");
    assert!(b.build().is_ok());
}

#[test]
fn too_many_states() {
    let mut b = B::new();
    for i in 0..=MAX_STATES {
        b.state(&format!("S{i}"), h());
    }
    b.start("S0");
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::TooManyStates {
            state: "S32768".into(),
            max: MAX_STATES
        }
    );
    assert_eq!(
        text,
        r#"state "S32768" is over the limit of 32768 states in one machine"#
    );
}

#[test]
fn too_many_states_across_levels() {
    // The limit counts every level; the state named is the first one over
    // it, even in a child machine, and later errors are not reached.
    let mut inner = B::new();
    for i in 0..MAX_STATES {
        inner.state(&format!("Inner{i}"), h());
    }
    inner.start("Inner0");
    let mut b = B::new();
    b.state("Outer", h()).child_machine(inner);
    b.state("Empty", h()).child_machine(B::new());
    b.start("Outer");
    let (err, _) = error(b);
    assert_eq!(
        err,
        FsmError::TooManyStates {
            state: "Inner32766".into(),
            max: MAX_STATES
        }
    );
}

/// A chain of `levels` nested machines: L0 contains L1 contains …
fn chain(levels: usize) -> B {
    let mut machine: Option<B> = None;
    for level in (0..levels).rev() {
        let mut b = B::new();
        let name = format!("L{level}");
        let draft = b.state(&name, h());
        if let Some(inner) = machine.take() {
            draft.child_machine(inner);
        }
        b.start(&name);
        machine = Some(b);
    }
    machine.unwrap()
}

#[test]
fn nested_too_deep() {
    assert_eq!(chain(MAX_DEPTH).build().unwrap().depth(), MAX_DEPTH);
    let (err, text) = error(chain(MAX_DEPTH + 1));
    assert_eq!(
        err,
        FsmError::TooDeep {
            state: "L32".into(),
            depth: 33,
            max: MAX_DEPTH
        }
    );
    assert_eq!(
        text,
        r#"state "L32" is nested 33 levels deep; at most 32 are allowed"#
    );
}

struct Big;

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct BigData {
    words: [u64; 33],
}

impl State<(), (), Ev> for Big {
    type Data = BigData;
    fn enter(&self, _: &mut Ctx<(), ()>) -> BigData {
        BigData::zeroed()
    }
}

#[test]
fn state_data_too_large() {
    let mut b = base();
    b.state("Big", Big);
    let (err, text) = error(b);
    assert_eq!(
        err,
        FsmError::DataTooLarge {
            state: "Big".into(),
            bytes: 264,
            max: 256
        }
    );
    assert_eq!(
        text,
        r#"state "Big" has 264 bytes of runtime data; at most 256 are allowed"#
    );
}

#[test]
fn a_leaf_refuses_tree_states_and_oversized_machines() {
    let t = Builder::<(), ()>::new();
    let tree = Arc::new(t.build(t.always_running("idle")).unwrap());
    let mut b = base();
    b.tree_state("Patrol", TreeState::new(tree));
    let err = MachineLeaf::new(Arc::new(b.build().unwrap()))
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        r#"state "Patrol" runs a behavior tree, which a machine inside a tree leaf cannot hold"#
    );

    let err = MachineLeaf::new(Arc::new(chain(8).build().unwrap()))
        .err()
        .unwrap();
    assert_eq!(
        err,
        FsmError::TooLargeForLeaf {
            what: "levels",
            size: 8,
            max: 7
        }
    );
    assert_eq!(
        err.to_string(),
        "the machine needs 8 levels but a tree leaf holds at most 7"
    );
    assert!(MachineLeaf::new(Arc::new(chain(7).build().unwrap())).is_ok());

    let mut b = base();
    b.state("Big", Big);
    b.start("Big");
    assert!(b.build().is_err()); // over the machine's own limit first
    let mut b = B::new();
    b.state("Half", Half);
    b.start("Half");
    let err = MachineLeaf::new(Arc::new(b.build().unwrap()))
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        "the machine needs 128 data bytes but a tree leaf holds at most 112"
    );
}

struct Half;

impl State<(), (), Ev> for Half {
    type Data = [u64; 16];
    fn enter(&self, _: &mut Ctx<(), ()>) -> [u64; 16] {
        [0; 16]
    }
}
