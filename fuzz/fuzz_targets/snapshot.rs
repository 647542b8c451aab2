//! Any bytes as a snapshot: of one agent, of a crowd, of a state machine
//! agent. Reading and restoring must give a snapshot or an error — never a
//! panic, a hang or an unbounded allocation — and an agent restored from
//! them must tick. Half of the inputs are read as they are; the other half
//! say how to damage a real snapshot (after how many ticks it is taken,
//! then which bytes to flip), so the checks behind the fingerprint are
//! reached too.

#![no_main]

use std::sync::{Arc, LazyLock};

use canopy_core::{Agent, Builder, Policy, Snapshot, Status, Tree, snapshot::restore_crowd};
use canopy_fsm::{FsmAgent, FsmSnapshot, Hooks, Machine, MachineBuilder, TreeState};
use libfuzzer_sys::fuzz_target;

/// A tree with every kind of node whose state a snapshot holds.
fn every_kind() -> Tree<u32, ()> {
    let b = Builder::<u32, ()>::new();
    b.build(b.reactive_selector("root", [
        b.reactive_sequence("rs", [b.condition("c", |cx| cx.tick % 3 == 0), b.wait("w", 4)]),
        b.parallel("p", Policy::All, Policy::One, [
            b.repeat("r", 3, b.timeout("t", 5, b.wait("w2", 2))),
            b.retry("rt", 2, b.cooldown("cd", 3, b.action("a", |cx| {
                *cx.agent += 1;
                if *cx.agent % 4 == 0 { Status::Failure } else { Status::Running }
            }))),
            b.sequence("s", [b.guard("g", |_| true, b.inverter("i", b.always_failure("f"))), b.async_action("as", |_, _| Status::Running)]),
        ]),
        b.always_running("idle"),
    ]))
    .unwrap()
}

static TREE: LazyLock<Tree<u32, ()>> = LazyLock::new(every_kind);

static MACHINE: LazyLock<Machine<u32, (), u8>> = LazyLock::new(|| {
    let mut inner = MachineBuilder::new();
    inner.state("a", Hooks::new());
    inner.state("b", Hooks::new());
    inner.transition("a", 1, "b");
    inner.start("a");
    let mut m = MachineBuilder::new();
    m.state("top", Hooks::new()).child_machine(inner);
    m.tree_state("run", TreeState::new(Arc::new(every_kind())));
    m.transition("top", 2, "run");
    m.start("top");
    m.build().unwrap()
});

/// A real snapshot of one agent, of a crowd of three, and of a machine
/// agent, each after `ticks` ticks.
fn real(ticks: u8) -> [Vec<u8>; 3] {
    let tree = &*TREE;
    let mut crowd: Vec<Agent> = (0..3).map(|i| Agent::with_id(tree, i)).collect();
    let mut fsm = FsmAgent::new(&MACHINE);
    let mut n = 0;
    for t in 0..ticks {
        for agent in &mut crowd {
            agent.tick(tree, &mut n, &());
        }
        fsm.update(&MACHINE, &mut n, &());
        if t % 7 == 3 {
            fsm.send(&MACHINE, t % 3, &mut n, &());
        }
    }
    [
        crowd[0].snapshot(tree).to_bytes(),
        canopy_core::snapshot::save_crowd(tree, &crowd),
        fsm.snapshot(&MACHINE).to_bytes(),
    ]
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&mode, rest)) if mode & 1 == 1 => {
            for mut bytes in real(mode >> 1) {
                for edit in rest.chunks_exact(3) {
                    let at = u16::from_le_bytes([edit[0], edit[1]]) as usize % bytes.len();
                    bytes[at] ^= edit[2];
                }
                read(&bytes);
            }
        }
        _ => read(data),
    }
});

fn read(data: &[u8]) {
    let tree = &*TREE;
    if let Ok(snapshot) = Snapshot::from_bytes(data)
        && let Ok(mut agent) = Agent::restore(tree, &snapshot)
    {
        let mut n = 0;
        for _ in 0..8 {
            agent.tick(tree, &mut n, &());
        }
        let _ = agent.running(tree);
    }
    if let Ok(mut crowd) = restore_crowd(tree, data) {
        let mut n = 0;
        for agent in crowd.iter_mut().take(4) {
            agent.tick(tree, &mut n, &());
        }
    }
    if let Ok(snapshot) = FsmSnapshot::from_bytes(data)
        && let Ok(mut agent) = FsmAgent::restore(&MACHINE, &snapshot)
    {
        let mut n = 0;
        for _ in 0..4 {
            agent.update(&MACHINE, &mut n, &());
        }
    }
}
