//! Flat machines: what the scenario files cannot say. The hook order of
//! updates, transitions, self-transitions, unknown and fired triggers and
//! final states is data: `testdata/machines/flat.toml`, run by
//! `crates/canopy-reference/tests/scenarios/`. What stays here needs Rust:
//! starting and stopping an agent, the clock hooks see, per-state data,
//! and an agent used with another machine.

mod common;

use bytemuck::{Pod, Zeroable};
use canopy_core::Ctx;
use canopy_fsm::{FsmAgent, Machine, MachineBuilder, State};
use common::{Trace, traced};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    ToJump,
    Land,
    Again,
}

type Log = Trace<Ev>;

/// The smallest machine: Idle, Jump, a trigger between them, and back.
fn idle_jump() -> Machine<Log, (), Ev> {
    let mut b = MachineBuilder::new();
    b.state("Idle", traced("Idle"));
    b.state("Jump", traced("Jump"));
    b.transition("Idle", Ev::ToJump, "Jump")
        .transition("Jump", Ev::Land, "Idle")
        .transition("Jump", Ev::Again, "Jump");
    b.start("Idle");
    b.build().unwrap()
}

#[test]
fn start_enters_once_and_stop_exits() {
    let m = idle_jump();
    let (mut t, mut agent) = (Log::new(), FsmAgent::new(&m));
    agent.start(&m, &mut t, &());
    agent.start(&m, &mut t, &());
    assert_eq!(t.take(), ["enter Idle"]);
    agent.stop(&m, &mut t, &());
    agent.stop(&m, &mut t, &());
    assert_eq!(t.take(), ["exit Idle"]);
    assert!(!agent.is_active());
    assert!(agent.active().is_empty());
    // Stopped: the next send starts over from the start state, then transitions.
    assert!(agent.send(&m, Ev::ToJump, &mut t, &()));
    assert_eq!(t.take(), ["enter Idle", "exit Idle", "enter Jump"]);
}

#[test]
fn update_counts_ticks_and_hooks_see_them() {
    let mut b = MachineBuilder::<Vec<u32>, (), ()>::new();
    b.state(
        "A",
        canopy_fsm::Hooks::new().on_update(|cx: &mut Ctx<Vec<u32>, ()>| {
            let tick = cx.tick;
            cx.agent.push(tick);
            None
        }),
    );
    b.start("A");
    let m = b.build().unwrap();
    let (mut seen, mut agent) = (Vec::new(), FsmAgent::with_id(&m, 9));
    for _ in 0..3 {
        agent.update(&m, &mut seen, &());
    }
    assert_eq!(seen, [1, 2, 3]);
    assert_eq!((agent.ticks(), agent.id()), (3, 9));
}

/// A state with per-agent data: counts its updates, reports them on exit.
struct Counter(&'static str);

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Count {
    updates: u32,
    start: u32,
}

impl State<Log, (), Ev> for Counter {
    type Data = Count;
    fn enter(&self, cx: &mut Ctx<Log, ()>) -> Count {
        Count {
            updates: 0,
            start: cx.tick,
        }
    }
    fn update(&self, data: &mut Count, _: &mut Ctx<Log, ()>) -> Option<Ev> {
        data.updates += 1;
        None
    }
    fn exit(&self, data: &mut Count, cx: &mut Ctx<Log, ()>) {
        cx.agent.log.push(format!(
            "exit {} after {} updates, entered at tick {}",
            self.0, data.updates, data.start
        ));
    }
}

#[test]
fn state_data_is_per_agent_and_fresh_on_every_enter() {
    let mut b = MachineBuilder::new();
    b.state("A", Counter("A"));
    b.state("B", Counter("B"));
    b.transition("A", Ev::ToJump, "B")
        .transition("B", Ev::Land, "A");
    b.start("A");
    let m = b.build().unwrap();
    // Siblings share one region: the machine needs one Count per agent.
    assert_eq!(m.data_bytes(), size_of::<Count>());

    let mut t = Log::new();
    let (mut one, mut two) = (FsmAgent::new(&m), FsmAgent::new(&m));
    for _ in 0..3 {
        one.update(&m, &mut t, &());
    }
    two.update(&m, &mut t, &());
    one.send(&m, Ev::ToJump, &mut t, &());
    two.send(&m, Ev::ToJump, &mut t, &());
    one.update(&m, &mut t, &());
    one.send(&m, Ev::Land, &mut t, &());
    assert_eq!(
        t.take(),
        [
            "exit A after 3 updates, entered at tick 1",
            "exit A after 1 updates, entered at tick 1",
            "exit B after 1 updates, entered at tick 3",
        ]
    );
}

#[test]
#[should_panic(expected = "this agent was created for another machine")]
fn an_agent_refuses_another_machine() {
    let (m1, m2) = (idle_jump(), idle_jump());
    let mut agent = FsmAgent::new(&m1);
    agent.update(&m2, &mut Log::new(), &());
}
