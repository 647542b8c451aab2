//! Behavior trees and machines inside each other: a tree leaf running a
//! machine to a final state, aborted leaves exiting their states, and a
//! state running a tree that is aborted when the state exits.

mod common;

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use canopy_core::{Agent, Builder, Children, Ctx, Exit, Node, Status, Tree};
use canopy_fsm::{FsmAgent, FsmSnapshot, Machine, MachineBuilder, MachineLeaf, TreeState};
use common::{Trace, traced};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Done,
    Lose,
    Alarm,
    Calm,
    Next,
}

type Log = Trace<Ev>;

/// Heat (inside Cook) until told, then Done or Lost.
fn cooking() -> Arc<Machine<Log, (), Ev>> {
    let mut cook = MachineBuilder::new();
    cook.state("Heat", traced("Heat"));
    cook.start("Heat");
    let mut b = MachineBuilder::new();
    b.state("Cook", traced("Cook")).child_machine(cook);
    b.state("Done", traced("Done")).succeeds();
    b.state("Lost", traced("Lost")).fails();
    b.transition("Heat", Ev::Done, "Done")
        .transition("Cook", Ev::Lose, "Lost");
    b.start("Cook");
    Arc::new(b.build().unwrap())
}

/// A leaf logging its own install, updates and terminate; always Running.
struct Probe(&'static str);

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Nothing {
    _unused: u8,
}

impl Node<Log, ()> for Probe {
    type Task = Nothing;
    fn create_task(&self, cx: &mut Ctx<Log, ()>) -> Nothing {
        cx.agent.log.push(format!("bt install {}", self.0));
        Nothing::zeroed()
    }
    fn update(&self, _: &mut Nothing, cx: &mut Ctx<Log, ()>, _: &mut Children<Log, ()>) -> Status {
        cx.agent.log.push(format!("bt update {}", self.0));
        match cx.agent.fire {
            Some((name, _)) if name == self.0 => {
                cx.agent.fire = None;
                Status::Success
            }
            _ => Status::Running,
        }
    }
    fn terminate(&self, _: &mut Nothing, cx: &mut Ctx<Log, ()>, exit: Exit) {
        cx.agent
            .log
            .push(format!("bt terminate {} {exit:?}", self.0));
    }
}

/// `sequence [machine leaf, probe "after"]`.
fn tree_with_leaf() -> Tree<Log, ()> {
    let b = Builder::new();
    let leaf = MachineLeaf::new(cooking()).unwrap();
    b.build(b.sequence(
        "dinner",
        [
            b.custom("cook", leaf, []),
            b.custom("after", Probe("after"), []),
        ],
    ))
    .unwrap()
}

#[test]
fn a_leaf_runs_its_machine_and_succeeds_at_a_final_state() {
    let tree = tree_with_leaf();
    let (mut t, mut agent) = (Log::new(), Agent::new(&tree));
    assert_eq!(agent.tick(&tree, &mut t, &()), Status::Running);
    assert_eq!(
        t.take(),
        ["enter Cook", "enter Heat", "update Cook", "update Heat"]
    );
    t.fire = Some(("Heat", Ev::Done));
    assert_eq!(agent.tick(&tree, &mut t, &()), Status::Running);
    assert_eq!(
        t.take(),
        [
            "update Cook",
            "update Heat",
            "exit Heat",
            "exit Cook",
            "enter Done",
            // The leaf succeeded: it is uninstalled, its machine stops.
            "exit Done",
            "bt install after",
            "bt update after",
        ]
    );
}

#[test]
fn a_leaf_fails_at_a_failing_final_state() {
    let m = cooking();
    let b = Builder::new();
    let tree = b
        .build(b.custom("cook", MachineLeaf::new(m).unwrap(), []))
        .unwrap();
    let (mut t, mut agent) = (Log::new(), Agent::new(&tree));
    agent.tick(&tree, &mut t, &());
    t.take();
    t.fire = Some(("Cook", Ev::Lose));
    assert_eq!(agent.tick(&tree, &mut t, &()), Status::Failure);
    assert_eq!(
        t.take(),
        [
            "update Cook",
            "exit Heat",
            "exit Cook",
            "enter Lost",
            "exit Lost"
        ]
    );
    // The root finished: the next tick installs the leaf afresh.
    agent.tick(&tree, &mut t, &());
    assert_eq!(
        t.take(),
        ["enter Cook", "enter Heat", "update Cook", "update Heat"]
    );
}

#[test]
fn an_aborted_leaf_exits_its_states_innermost_first() {
    let b = Builder::<Log, ()>::new();
    let leaf = MachineLeaf::new(cooking()).unwrap();
    let tree = b
        .build(b.reactive_selector(
            "priority",
            [
                b.condition("alarm?", |cx| cx.agent.fire.is_some()),
                b.custom("cook", leaf, []),
            ],
        ))
        .unwrap();
    let (mut t, mut agent) = (Log::new(), Agent::new(&tree));
    agent.tick(&tree, &mut t, &());
    t.take();
    t.fire = Some(("nobody", Ev::Next));
    assert_eq!(agent.tick(&tree, &mut t, &()), Status::Success);
    assert_eq!(t.take(), ["exit Heat", "exit Cook"]);
}

/// Patrol runs `sequence [probe "walk"]`; Alert is plain. Alarm and Calm
/// switch between them; when the walk succeeds, Patrol sends Next.
fn guard() -> Machine<Log, (), Ev> {
    let b = Builder::new();
    let patrol = Arc::new(
        b.build(b.sequence("patrol", [b.custom("walk", Probe("walk"), [])]))
            .unwrap(),
    );
    let mut m = MachineBuilder::new();
    m.tree_state("Patrol", TreeState::new(patrol).on_success(Ev::Next));
    m.state("Alert", traced("Alert"));
    m.state("Rest", traced("Rest"));
    m.transition("Patrol", Ev::Alarm, "Alert")
        .transition("Patrol", Ev::Next, "Rest")
        .transition("Alert", Ev::Calm, "Patrol")
        .transition("Rest", Ev::Calm, "Patrol");
    m.start("Patrol");
    m.build().unwrap()
}

#[test]
fn a_tree_inside_a_state_is_aborted_on_exit() {
    let m = guard();
    assert_eq!(m.tree_states(), 1);
    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    agent.update(&m, &mut t, &());
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        ["bt install walk", "bt update walk", "bt update walk"]
    );
    assert!(agent.send(&m, Ev::Alarm, &mut t, &()));
    assert_eq!(t.take(), ["bt terminate walk Aborted", "enter Alert"]);
    // Back on patrol: the tree starts afresh, not where it was aborted.
    assert!(agent.send(&m, Ev::Calm, &mut t, &()));
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        ["exit Alert", "bt install walk", "bt update walk"]
    );
    // Stopping the machine aborts it too.
    agent.stop(&m, &mut t, &());
    assert_eq!(t.take(), ["bt terminate walk Aborted"]);
}

#[test]
fn a_tree_that_finishes_sends_its_trigger() {
    let m = guard();
    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    agent.update(&m, &mut t, &());
    t.take();
    t.fire = Some(("walk", Ev::Done));
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        ["bt update walk", "bt terminate walk Success", "enter Rest"]
    );
    assert!(agent.is_in(&m, "Rest"));
}

#[test]
fn a_tree_state_deep_in_a_hierarchy_is_aborted_by_a_cross_level_transition() {
    let b = Builder::new();
    let work = Arc::new(b.build(b.custom("dig", Probe("dig"), [])).unwrap());
    let mut inner = MachineBuilder::new();
    inner.tree_state("Dig", TreeState::new(work));
    inner.start("Dig");
    let mut m = MachineBuilder::new();
    m.state("Shift", traced("Shift")).child_machine(inner);
    m.state("Home", traced("Home"));
    m.transition("Dig", Ev::Alarm, "Home");
    m.start("Shift");
    let m = m.build().unwrap();

    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    agent.update(&m, &mut t, &());
    agent.send(&m, Ev::Alarm, &mut t, &());
    assert_eq!(
        t.take(),
        [
            "enter Shift",
            "update Shift",
            "bt install dig",
            "bt update dig",
            "bt terminate dig Aborted",
            "exit Shift",
            "enter Home"
        ]
    );
}

#[test]
fn each_agent_has_its_own_tree_runtime() {
    let m = guard();
    let mut t = Log::new();
    let mut agents: Vec<FsmAgent> = (0..3).map(|i| FsmAgent::with_id(&m, i)).collect();
    for agent in &mut agents {
        agent.update(&m, &mut t, &());
    }
    agents[1].send(&m, Ev::Alarm, &mut t, &());
    t.take();
    for agent in &mut agents {
        agent.update(&m, &mut t, &());
    }
    // Agents 0 and 2 resume their walk; agent 1 is alert.
    assert_eq!(
        t.take(),
        ["bt update walk", "update Alert", "bt update walk"]
    );
}

#[test]
fn a_leaf_ends_at_a_final_state_nested_in_a_child_machine() {
    let mut job = MachineBuilder::new();
    job.state("Work", traced("Work"));
    job.state("Broke", traced("Broke")).fails();
    job.transition("Work", Ev::Lose, "Broke");
    job.start("Work");
    let mut m = MachineBuilder::new();
    m.state("Shift", traced("Shift")).child_machine(job);
    m.start("Shift");
    let leaf = MachineLeaf::new(Arc::new(m.build().unwrap())).unwrap();
    let b = Builder::new();
    let tree = b.build(b.custom("job", leaf, [])).unwrap();

    let (mut t, mut agent) = (Log::new(), Agent::new(&tree));
    assert_eq!(agent.tick(&tree, &mut t, &()), Status::Running);
    t.take();
    t.fire = Some(("Work", Ev::Lose));
    assert_eq!(agent.tick(&tree, &mut t, &()), Status::Failure);
    assert_eq!(
        t.take(),
        [
            "update Shift",
            "update Work",
            "exit Work",
            "enter Broke",
            // The leaf failed: its whole machine stops, innermost first.
            "exit Broke",
            "exit Shift"
        ]
    );
}

/// Patrol's tree is `probe "walk"`; it sends Lose when the tree fails and
/// nothing when it succeeds.
fn guard_without_success_trigger() -> Machine<Log, (), Ev> {
    let b = Builder::new();
    let walk = b.custom("walk", Probe("walk"), []);
    let patrol = Arc::new(b.build(b.inverter("fails when done", walk)).unwrap());
    let mut m = MachineBuilder::new();
    m.tree_state("Patrol", TreeState::new(patrol).on_failure(Ev::Lose));
    m.state("Lost", traced("Lost"));
    m.transition("Patrol", Ev::Lose, "Lost");
    m.start("Patrol");
    m.build().unwrap()
}

#[test]
fn a_tree_that_fails_sends_its_failure_trigger() {
    let m = guard_without_success_trigger();
    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    agent.update(&m, &mut t, &());
    t.take();
    t.fire = Some(("walk", Ev::Done)); // the walk succeeds, the inverter fails
    agent.update(&m, &mut t, &());
    assert_eq!(
        t.take(),
        ["bt update walk", "bt terminate walk Success", "enter Lost"]
    );
}

#[test]
fn a_tree_that_finishes_without_a_trigger_starts_again_next_update() {
    let b = Builder::new();
    let walk = Arc::new(b.build(b.custom("walk", Probe("walk"), [])).unwrap());
    let mut mb = MachineBuilder::<Log, (), Ev>::new();
    mb.tree_state("Patrol", TreeState::new(walk));
    mb.start("Patrol");
    let looping = mb.build().unwrap();

    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&looping));
    agent.update(&looping, &mut t, &());
    t.fire = Some(("walk", Ev::Done));
    assert_eq!(agent.update(&looping, &mut t, &()), Status::Running);
    agent.update(&looping, &mut t, &());
    assert_eq!(
        t.take(),
        [
            "bt install walk",
            "bt update walk",
            "bt update walk",
            "bt terminate walk Success",
            "bt install walk",
            "bt update walk"
        ]
    );
    assert!(agent.is_in(&looping, "Patrol"));
}

#[test]
fn a_state_running_a_tree_is_saved_and_restored_with_its_tree() {
    let m = guard();
    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    agent.update(&m, &mut t, &());
    let bytes = agent.snapshot(&m).to_bytes();
    let mut back = FsmAgent::restore(&m, &FsmSnapshot::from_bytes(&bytes).unwrap()).unwrap();
    t.take();
    // Same tree, still running: updated, not installed again.
    back.update(&m, &mut t, &());
    assert_eq!(t.take(), ["bt update walk"]);
    assert!(back.send(&m, Ev::Alarm, &mut t, &()));
    assert_eq!(t.take(), ["bt terminate walk Aborted", "enter Alert"]);
    // Another machine's fingerprint is refused.
    let other = cooking();
    let err = FsmAgent::restore(&other, &FsmSnapshot::from_bytes(&bytes).unwrap()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the snapshot was taken of another machine")
    );
}

#[test]
fn a_machine_inside_a_leaf_is_saved_with_the_tree_and_checked() {
    let tree = tree_with_leaf();
    let (mut t, mut agent) = (Log::new(), Agent::new(&tree));
    agent.tick(&tree, &mut t, &());
    let bytes = agent.snapshot(&tree).to_bytes();
    let mut back =
        Agent::restore(&tree, &canopy_core::Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    t.take();
    t.fire = Some(("Heat", Ev::Done));
    back.tick(&tree, &mut t, &());
    assert_eq!(
        t.take()[..4],
        ["update Cook", "update Heat", "exit Heat", "exit Cook"]
    );
    // The leaf's task holds the machine's path: a state that is not the
    // child of the one before it is damage, refused.
    let mut bad = bytes.clone();
    // Memory at 28: the sequence's child index (2 bytes), then the leaf's
    // task: its path length (2 bytes), then the path.
    bad[28 + 2 + 2] ^= 0x7f;
    let err = Agent::restore(&tree, &canopy_core::Snapshot::from_bytes(&bad).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the snapshot is damaged: node 1: its task's state is not one its kind can be in"
    );
}

/// Patrol runs `Wait(wait)` and, done, goes to the final state Rest; Calm
/// comes back to Patrol from Alert.
fn waiting_patrol(wait: u32) -> Machine<(), (), Ev> {
    let b = Builder::<(), ()>::new();
    let patrol = Arc::new(b.build(b.wait("walk", wait)).unwrap());
    let mut m = MachineBuilder::new();
    m.tree_state("Patrol", TreeState::new(patrol).on_success(Ev::Done));
    m.state("Alert", canopy_fsm::Hooks::new());
    m.state("Rest", canopy_fsm::Hooks::new()).succeeds();
    m.transition("Patrol", Ev::Done, "Rest")
        .transition("Patrol", Ev::Alarm, "Alert")
        .transition("Alert", Ev::Calm, "Patrol");
    m.start("Patrol");
    m.build().unwrap()
}

/// Updates of an agent updated every `every`-th world tick until it is
/// done.
fn updates_until_done(machine: &Machine<(), (), Ev>, every: u32) -> u32 {
    let mut agent = FsmAgent::new(machine);
    (1..=100)
        .find(|_| agent.update_elapsed(machine, &mut (), &(), every) == Status::Success)
        .unwrap()
}

#[test]
fn a_tree_in_a_state_counts_world_ticks_when_the_machine_is_updated_less_often() {
    for wait in 1..=10 {
        let machine = waiting_patrol(wait);
        for every in 1..=5 {
            // The wait starts on the first update, at world tick `every`,
            // and ends on the first update at or after `every + wait`: the
            // update after ⌈wait / every⌉ more.
            let expected = 1 + wait.div_ceil(every);
            assert_eq!(
                updates_until_done(&machine, every),
                expected,
                "Wait({wait}) updated every {every} world ticks"
            );
        }
    }
}

#[test]
fn updating_with_one_elapsed_tick_is_a_plain_update() {
    let machine = waiting_patrol(4);
    let (mut plain, mut elapsed) = (FsmAgent::new(&machine), FsmAgent::new(&machine));
    for _ in 0..7 {
        assert_eq!(
            plain.update(&machine, &mut (), &()),
            elapsed.update_elapsed(&machine, &mut (), &(), 1)
        );
        assert_eq!(plain.ticks(), elapsed.ticks());
    }
    assert_eq!(plain.status(&machine), Status::Success);
}

#[test]
fn a_tree_state_entered_again_waits_its_whole_time_at_the_slower_rate() {
    // Every 4th world tick: the patrol's Wait(8) starts on the first update
    // (world tick 4); an alarm after it leaves Patrol (aborting the wait),
    // a calm after the second brings it back, so the wait starts again on
    // the third update (world tick 12) and ends on the fifth (world tick 20).
    let machine = waiting_patrol(8);
    let mut agent = FsmAgent::new(&machine);
    assert_eq!(
        agent.update_elapsed(&machine, &mut (), &(), 4),
        Status::Running
    );
    assert!(agent.send(&machine, Ev::Alarm, &mut (), &()));
    assert_eq!(
        agent.update_elapsed(&machine, &mut (), &(), 4),
        Status::Running
    );
    assert!(agent.send(&machine, Ev::Calm, &mut (), &()));
    assert_eq!(
        agent.update_elapsed(&machine, &mut (), &(), 4),
        Status::Running
    );
    let statuses: Vec<Status> = (0..2)
        .map(|_| agent.update_elapsed(&machine, &mut (), &(), 4))
        .collect();
    assert_eq!(statuses, [Status::Running, Status::Success]);
    assert_eq!(agent.ticks(), 20);
}
