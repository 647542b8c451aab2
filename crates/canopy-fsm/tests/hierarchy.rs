//! Hierarchical machines: enter outermost first, update outermost first,
//! exit innermost first; triggers matched from the outermost active state
//! inwards; transitions within a child machine, across levels, into a
//! substate, to an ancestor, and self-transitions of a superstate.

mod common;

use bytemuck::{Pod, Zeroable};
use canopy_core::{Ctx, Status};
use canopy_fsm::{FsmAgent, Machine, MachineBuilder, State};
use common::{Trace, traced};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Go,
    JumpNow,
    Jump,
    Attack,
    Peak,
    Land,
    Hit,
    Reset,
    Done,
    Nothing,
}

type Log = Trace<Ev>;

/// ```text
/// Idle  [start]
/// Move
/// ├── Walk  [start]
/// └── Jump
///     ├── Rise  [start]
///     └── Fall
/// Attack
/// ```
fn player() -> Machine<Log, (), Ev> {
    let mut jump = MachineBuilder::new();
    jump.state("Rise", traced("Rise"));
    jump.state("Fall", traced("Fall"));
    jump.transition("Rise", Ev::Peak, "Fall");
    jump.start("Rise");

    let mut moving = MachineBuilder::new();
    moving.state("Walk", traced("Walk"));
    moving.state("Jump", traced("Jump")).child_machine(jump);
    moving
        .transition("Walk", Ev::Jump, "Jump")
        // Shadowed: Move, the outer state, also handles Attack.
        .transition("Walk", Ev::Attack, "Jump")
        .transition("Jump", Ev::Reset, "Jump");
    moving.start("Walk");

    let mut b = MachineBuilder::new();
    b.state("Idle", traced("Idle"));
    b.state("Move", traced("Move")).child_machine(moving);
    b.state("Attack", traced("Attack"));
    b.transition("Idle", Ev::Go, "Move")
        .transition("Idle", Ev::JumpNow, "Jump")
        .transition("Move", Ev::Attack, "Attack")
        .transition("Fall", Ev::Land, "Move")
        .transition("Fall", Ev::Hit, "Attack")
        .transition("Attack", Ev::Done, "Idle");
    b.start("Idle");
    b.build().unwrap()
}

/// An agent already in the states named, trace emptied.
fn agent_at(m: &Machine<Log, (), Ev>, route: &[Ev]) -> (FsmAgent, Log) {
    let (mut t, mut agent) = (Log::new(), FsmAgent::new(m));
    agent.start(m, &mut t, &());
    for &ev in route {
        assert!(agent.send(m, ev, &mut t, &()), "{ev:?} not taken");
    }
    t.take();
    (agent, t)
}

fn active(m: &Machine<Log, (), Ev>, agent: &FsmAgent) -> Vec<String> {
    agent
        .active()
        .iter()
        .map(|&s| m.name(s).to_string())
        .collect()
}

#[test]
fn entering_a_superstate_enters_its_start_descendants_outermost_first() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[]);
    assert!(agent.send(&m, Ev::Go, &mut t, &()));
    assert_eq!(t.take(), ["exit Idle", "enter Move", "enter Walk"]);
    assert_eq!(active(&m, &agent), ["Move", "Walk"]);
}

#[test]
fn updates_run_outermost_first() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump]);
    assert_eq!(agent.update(&m, &mut t, &()), Status::Running);
    assert_eq!(t.take(), ["update Move", "update Jump", "update Rise"]);
}

#[test]
fn transition_inside_a_child_machine_leaves_the_parent_alone() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go]);
    assert!(agent.send(&m, Ev::Jump, &mut t, &()));
    assert_eq!(t.take(), ["exit Walk", "enter Jump", "enter Rise"]);
    assert!(agent.send(&m, Ev::Peak, &mut t, &()));
    assert_eq!(t.take(), ["exit Rise", "enter Fall"]);
    assert_eq!(active(&m, &agent), ["Move", "Jump", "Fall"]);
}

#[test]
fn transition_on_an_outer_state_exits_the_subtree_innermost_first() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump, Ev::Peak]);
    assert!(agent.send(&m, Ev::Attack, &mut t, &()));
    assert_eq!(
        t.take(),
        ["exit Fall", "exit Jump", "exit Move", "enter Attack"]
    );
    assert_eq!(active(&m, &agent), ["Attack"]);
}

#[test]
fn triggers_are_matched_by_the_outermost_state_first() {
    // Walk and Move both handle Attack; Move wins.
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go]);
    assert!(agent.send(&m, Ev::Attack, &mut t, &()));
    assert_eq!(t.take(), ["exit Walk", "exit Move", "enter Attack"]);
}

#[test]
fn inner_states_handle_what_outer_states_do_not() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump]);
    // Move and Jump have no Peak: Rise, the innermost, takes it.
    assert!(agent.send(&m, Ev::Peak, &mut t, &()));
    assert_eq!(t.take(), ["exit Rise", "enter Fall"]);
    // Nobody on the path has Nothing, or Go (only Idle has Go).
    assert!(!agent.send(&m, Ev::Nothing, &mut t, &()));
    assert!(!agent.send(&m, Ev::Go, &mut t, &()));
    assert!(t.take().is_empty());
}

#[test]
fn cross_level_transition_from_an_inner_state_to_a_top_level_state() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump, Ev::Peak]);
    assert!(agent.send(&m, Ev::Hit, &mut t, &()));
    assert_eq!(
        t.take(),
        ["exit Fall", "exit Jump", "exit Move", "enter Attack"]
    );
}

#[test]
fn cross_level_transition_into_a_nested_state_enters_its_ancestors() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[]);
    assert!(agent.send(&m, Ev::JumpNow, &mut t, &()));
    // Jump's ancestors down to it, then Jump's start state; Walk, Move's
    // start state, is skipped because the target is Jump.
    assert_eq!(
        t.take(),
        ["exit Idle", "enter Move", "enter Jump", "enter Rise"]
    );
    assert_eq!(active(&m, &agent), ["Move", "Jump", "Rise"]);
}

#[test]
fn transition_to_an_ancestor_exits_and_reenters_it() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump, Ev::Peak]);
    assert!(agent.send(&m, Ev::Land, &mut t, &()));
    assert_eq!(
        t.take(),
        [
            "exit Fall",
            "exit Jump",
            "exit Move",
            "enter Move",
            "enter Walk"
        ]
    );
}

#[test]
fn self_transition_of_a_superstate_restarts_its_child_machine() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump, Ev::Peak]);
    assert!(agent.send(&m, Ev::Reset, &mut t, &()));
    assert_eq!(
        t.take(),
        ["exit Fall", "exit Jump", "enter Jump", "enter Rise"]
    );
    assert_eq!(active(&m, &agent), ["Move", "Jump", "Rise"]);
}

#[test]
fn a_firing_update_ends_the_pass_before_inner_states() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump, Ev::Peak]);
    t.fire = Some(("Jump", Ev::Reset));
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        [
            "update Move",
            "update Jump",
            "exit Fall",
            "exit Jump",
            "enter Jump",
            "enter Rise"
        ]
    );
    // The trigger is matched like a sent one: outermost first. Jump fires
    // Attack, which Move handles.
    t.fire = Some(("Rise", Ev::Attack));
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        [
            "update Move",
            "update Jump",
            "update Rise",
            "exit Rise",
            "exit Jump",
            "exit Move",
            "enter Attack"
        ]
    );
}

#[test]
fn stop_exits_every_level_innermost_first() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump]);
    agent.stop(&m, &mut t, &());
    assert_eq!(t.take(), ["exit Rise", "exit Jump", "exit Move"]);
    assert!(!agent.is_active());
    agent.update(&m, &mut t, &());
    assert_eq!(t.take(), ["enter Idle", "update Idle"]);
}

#[test]
fn a_long_run_returns_where_it_started() {
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[]);
    let route = [
        Ev::Go,
        Ev::Jump,
        Ev::Peak,
        Ev::Hit,
        Ev::Done,
        Ev::JumpNow,
        Ev::Attack,
        Ev::Done,
    ];
    for ev in route {
        assert!(agent.send(&m, ev, &mut t, &()), "{ev:?}");
    }
    assert_eq!(active(&m, &agent), ["Idle"]);
    let log = t.take();
    let enters = log.iter().filter(|l| l.starts_with("enter")).count();
    let exits = log.iter().filter(|l| l.starts_with("exit")).count();
    // Per trigger: 2+2+1+1+1+3+1+1 enters, 1+1+1+3+1+1+3+1 exits.
    assert_eq!((enters, exits), (12, 12));
}

/// A state with `N` bytes of data that checks it gets its own bytes back.
struct Stamp(u8);

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Bytes {
    value: [u8; 3],
}

impl State<Vec<String>, (), Ev> for Stamp {
    type Data = Bytes;
    fn enter(&self, _: &mut Ctx<Vec<String>, ()>) -> Bytes {
        Bytes { value: [self.0; 3] }
    }
    fn update(&self, data: &mut Bytes, cx: &mut Ctx<Vec<String>, ()>) -> Option<Ev> {
        cx.agent.push(format!("{}:{:?}", self.0, data.value));
        data.value[2] += 1;
        None
    }
}

#[test]
fn nested_data_regions_do_not_overlap_and_siblings_share_one() {
    let mut inner = MachineBuilder::new();
    inner.state("A", Stamp(10));
    inner.state("B", Stamp(20));
    inner.transition("A", Ev::Go, "B");
    inner.start("A");
    let mut b = MachineBuilder::new();
    b.state("P", Stamp(1)).child_machine(inner);
    b.state("Q", Stamp(2));
    b.start("P");
    let m = b.build().unwrap();
    // P's 3 bytes, then one region of 3 for A or B; Q shares P's region.
    assert_eq!(m.data_bytes(), 6);

    let (mut log, mut agent) = (Vec::new(), FsmAgent::new(&m));
    agent.update(&m, &mut log, &());
    agent.update(&m, &mut log, &());
    agent.send(&m, Ev::Go, &mut log, &());
    agent.update(&m, &mut log, &());
    assert_eq!(
        log,
        [
            "1:[1, 1, 1]",
            "10:[10, 10, 10]",
            "1:[1, 1, 2]",
            "10:[10, 10, 11]",
            "1:[1, 1, 3]",
            "20:[20, 20, 20]"
        ]
    );
}

#[test]
fn a_final_state_inside_a_child_machine_ends_the_machine() {
    let mut inner = MachineBuilder::new();
    inner.state("Working", traced("Working"));
    inner.state("Finished", traced("Finished")).succeeds();
    inner.transition("Working", Ev::Done, "Finished");
    inner.start("Working");
    let mut b = MachineBuilder::new();
    b.state("Job", traced("Job")).child_machine(inner);
    b.state("Fired", traced("Fired")).fails();
    b.transition("Job", Ev::Hit, "Fired");
    b.start("Job");
    let m = b.build().unwrap();

    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    assert_eq!(agent.update(&m, &mut t, &()), Status::Running);
    t.fire = Some(("Working", Ev::Done));
    assert_eq!(agent.update(&m, &mut t, &()), Status::Success);
    assert!(agent.send(&m, Ev::Hit, &mut t, &()));
    assert_eq!(agent.status(&m), Status::Failure);
}

#[test]
fn a_fired_trigger_nobody_takes_lets_the_pass_go_on_inwards() {
    // Move fires Nothing, which no active state handles: nothing changed,
    // so the states inside Move still update this pass.
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump]);
    t.fire = Some(("Move", Ev::Nothing));
    assert_eq!(agent.update(&m, &mut t, &()), Status::Running);
    assert_eq!(t.take(), ["update Move", "update Jump", "update Rise"]);
    assert_eq!(active(&m, &agent), ["Move", "Jump", "Rise"]);
}

#[test]
fn a_fired_trigger_taken_by_an_inner_state_still_ends_the_pass() {
    // Move fires Peak; Rise, inside it, takes it. The path below Move
    // changed, so the pass ends: Fall is entered, not updated.
    let m = player();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go, Ev::Jump]);
    t.fire = Some(("Move", Ev::Peak));
    agent.update(&m, &mut t, &());
    assert_eq!(t.take(), ["update Move", "exit Rise", "enter Fall"]);
}

/// Two superstates side by side, for transitions between their insides:
///
/// ```text
/// A  [start]
/// ├── A1  [start]
/// └── A2
/// B
/// ├── B1  [start]
/// └── B2
/// ```
fn two_rooms() -> Machine<Log, (), Ev> {
    let mut a = MachineBuilder::new();
    a.state("A1", traced("A1"));
    a.state("A2", traced("A2"));
    a.start("A1");
    let mut b = MachineBuilder::new();
    b.state("B1", traced("B1"));
    b.state("B2", traced("B2"));
    b.start("B1");
    let mut top = MachineBuilder::new();
    top.state("A", traced("A")).child_machine(a);
    top.state("B", traced("B")).child_machine(b);
    top.transition("A1", Ev::Go, "A2")
        .transition("A2", Ev::Jump, "B2")
        .transition("A2", Ev::Reset, "A2")
        .transition("A", Ev::Attack, "A2")
        .transition("B2", Ev::Land, "A");
    top.start("A");
    top.build().unwrap()
}

#[test]
fn cross_level_transition_to_a_substate_of_a_sibling_superstate() {
    let m = two_rooms();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go]);
    assert!(agent.send(&m, Ev::Jump, &mut t, &()));
    // The paths part at the top level: all of A exits, B is entered down
    // to B2, skipping B's start state B1.
    assert_eq!(t.take(), ["exit A2", "exit A", "enter B", "enter B2"]);
    assert_eq!(active(&m, &agent), ["B", "B2"]);
    // And back to the other superstate itself: into its start state.
    assert!(agent.send(&m, Ev::Land, &mut t, &()));
    assert_eq!(t.take(), ["exit B2", "exit B", "enter A", "enter A1"]);
}

#[test]
fn transition_from_a_superstate_to_its_own_substate_reenters_the_superstate() {
    let m = two_rooms();
    let (mut agent, mut t) = agent_at(&m, &[]);
    assert_eq!(active(&m, &agent), ["A", "A1"]);
    assert!(agent.send(&m, Ev::Attack, &mut t, &()));
    assert_eq!(t.take(), ["exit A1", "exit A", "enter A", "enter A2"]);
    assert_eq!(active(&m, &agent), ["A", "A2"]);
}

#[test]
fn self_transition_of_a_nested_simple_state_leaves_its_parent_alone() {
    let m = two_rooms();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go]);
    assert!(agent.send(&m, Ev::Reset, &mut t, &()));
    assert_eq!(t.take(), ["exit A2", "enter A2"]);
    assert_eq!(active(&m, &agent), ["A", "A2"]);
}

#[test]
fn a_trigger_fired_by_an_inner_update_crosses_levels() {
    let m = two_rooms();
    let (mut agent, mut t) = agent_at(&m, &[Ev::Go]);
    t.fire = Some(("A2", Ev::Jump));
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        [
            "update A",
            "update A2",
            "exit A2",
            "exit A",
            "enter B",
            "enter B2"
        ]
    );
    agent.update(&m, &mut t, &());
    assert_eq!(t.take(), ["update B", "update B2"]);
}
