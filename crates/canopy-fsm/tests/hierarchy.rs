//! Hierarchical machines: what the scenario files cannot say. The hook
//! order — enter outermost first, update outermost first, exit innermost
//! first; triggers matched from the outermost active state inwards;
//! transitions within a child machine, across levels, into a substate, to
//! an ancestor, self-transitions, fired triggers, final states inside a
//! child machine — is data: `testdata/machines/hierarchy.toml` (the
//! machines `player.json` and `two_rooms.json` beside it), run by
//! `crates/canopy-reference/tests/scenarios/`. What stays here needs Rust:
//! stopping an agent, a long random run, and where each state's data
//! lives.

mod common;

use bytemuck::{Pod, Zeroable};
use canopy_core::Ctx;
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
