//! Zero heap allocations per update and per trigger in steady state, and
//! the heap bytes an agent costs, counted by dhat.
//!
//! Its own test binary without the libtest harness (`harness = false`):
//! dhat replaces the global allocator and counts every allocation in the
//! process, and the harness's own threads would otherwise be counted too.
//!
//! The machine is hierarchical (three levels, states with data), its
//! updates fire triggers that cross levels, the agents are also sent
//! triggers every tick, one state runs a behavior tree that gets aborted,
//! and a behavior tree runs a machine as a leaf — so every runtime path is
//! exercised in the measured windows.
//!
//! ```text
//! cargo test -p canopy-fsm --test zero_alloc
//! ```

use std::sync::Arc;

use canopy_core::{Agent, Builder, Ctx, Status, Tree};
use canopy_fsm::{FsmAgent, Hooks, Machine, MachineBuilder, MachineLeaf, State, TreeState};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Go,
    Stop,
    Fast,
    Jump,
    Peak,
    Land,
    Attack,
    Done,
    Leap,
    Watch,
}

/// Every one of these, sent in turn from the start state, is taken.
const CYCLE: [Ev; 13] = [
    Ev::Go,
    Ev::Jump,
    Ev::Peak,
    Ev::Land,
    Ev::Fast,
    Ev::Jump,
    Ev::Attack,
    Ev::Done,
    Ev::Leap,
    Ev::Land,
    Ev::Stop,
    Ev::Watch,
    Ev::Done,
];

#[derive(Clone, Default)]
struct Mind {
    work: u64,
}

/// Counts its updates in its own data; fires `fire` after `after` of them.
struct Counter {
    after: u32,
    fire: Ev,
}

impl State<Mind, (), Ev> for Counter {
    type Data = u32;
    fn enter(&self, cx: &mut Ctx<Mind, ()>) -> u32 {
        cx.agent.work += 1;
        0
    }
    fn update(&self, n: &mut u32, cx: &mut Ctx<Mind, ()>) -> Option<Ev> {
        *n += 1;
        cx.agent.work = cx.agent.work.wrapping_add(u64::from(*n));
        (*n == self.after).then_some(self.fire)
    }
    fn exit(&self, n: &mut u32, cx: &mut Ctx<Mind, ()>) {
        cx.agent.work ^= u64::from(*n);
    }
}

fn counter(after: u32, fire: Ev) -> Counter {
    Counter { after, fire }
}

fn watch_tree() -> Arc<Tree<Mind, ()>> {
    let b = Builder::<Mind, ()>::new();
    Arc::new(
        b.build(b.sequence(
            "watch",
            [
                b.wait("look", 2),
                b.action("note", |cx| {
                    cx.agent.work += 1;
                    Status::Success
                }),
            ],
        ))
        .unwrap(),
    )
}

/// Idle, Move{Walk, Run, Jump{Rise, Fall}}, Attack, Watch (a tree).
fn crowd_machine() -> Machine<Mind, (), Ev> {
    let mut jump = MachineBuilder::new();
    jump.state("Rise", counter(2, Ev::Peak));
    jump.state("Fall", counter(1, Ev::Land));
    jump.transition("Rise", Ev::Peak, "Fall");
    jump.start("Rise");

    let mut moving = MachineBuilder::new();
    moving.state("Walk", counter(3, Ev::Fast));
    moving.state("Run", counter(2, Ev::Jump));
    moving
        .state("Jump", counter(9, Ev::Jump))
        .child_machine(jump);
    moving
        .transition("Walk", Ev::Fast, "Run")
        .transition("Walk", Ev::Jump, "Jump")
        .transition("Run", Ev::Jump, "Jump")
        .transition("Jump", Ev::Jump, "Jump");
    moving.start("Walk");

    let mut b = MachineBuilder::new();
    b.state("Idle", counter(1, Ev::Go));
    b.state("Move", counter(20, Ev::Attack))
        .child_machine(moving);
    b.state("Attack", counter(2, Ev::Done));
    b.tree_state("Watch", TreeState::new(watch_tree()).on_success(Ev::Done));
    b.transition("Idle", Ev::Go, "Move")
        .transition("Idle", Ev::Leap, "Fall")
        .transition("Idle", Ev::Watch, "Watch")
        .transition("Move", Ev::Stop, "Idle")
        .transition("Move", Ev::Attack, "Attack")
        .transition("Fall", Ev::Land, "Walk")
        .transition("Attack", Ev::Done, "Idle")
        .transition("Watch", Ev::Done, "Idle")
        .transition("Watch", Ev::Go, "Move");
    b.start("Idle");
    b.build().unwrap()
}

/// A tree that runs a flat machine as a leaf, over and over.
fn leaf_tree() -> Tree<Mind, ()> {
    let mut m = MachineBuilder::new();
    m.state("A", counter(2, Ev::Go));
    m.state("B", counter(1, Ev::Done));
    m.state("End", Hooks::new()).succeeds();
    m.transition("A", Ev::Go, "B")
        .transition("B", Ev::Done, "End");
    m.start("A");
    let leaf = MachineLeaf::new(Arc::new(m.build().unwrap())).unwrap();
    let b = Builder::new();
    b.build(b.custom("machine", leaf, [])).unwrap()
}

struct Crowd {
    minds: Vec<Mind>,
    agents: Vec<FsmAgent>,
    tree_agents: Vec<Agent>,
    sent: u64,
    taken: u64,
}

impl Crowd {
    fn new(machine: &Machine<Mind, (), Ev>, tree: &Tree<Mind, ()>, n: u32) -> Self {
        Crowd {
            minds: vec![Mind::default(); n as usize],
            agents: (0..n).map(|i| FsmAgent::with_id(machine, i)).collect(),
            tree_agents: (0..n).map(|i| Agent::with_id(tree, i)).collect(),
            sent: 0,
            taken: 0,
        }
    }

    /// Every agent: one update, one trigger (varying by agent and tick),
    /// and one tick of the tree with the machine leaf.
    fn step(&mut self, machine: &Machine<Mind, (), Ev>, tree: &Tree<Mind, ()>, tick: usize) {
        let agents = self.agents.iter_mut().zip(&mut self.tree_agents);
        for (i, ((fsm, bt), mind)) in agents.zip(&mut self.minds).enumerate() {
            std::hint::black_box(fsm.update(machine, mind, &()));
            let trigger = CYCLE[(i * 7 + tick) % CYCLE.len()];
            self.sent += 1;
            self.taken += u64::from(fsm.send(machine, trigger, mind, &()));
            std::hint::black_box(bt.tick(tree, mind, &()));
        }
    }
}

/// Blocks allocated over `ticks` steps.
fn window(
    crowd: &mut Crowd,
    m: &Machine<Mind, (), Ev>,
    t: &Tree<Mind, ()>,
    from: usize,
    ticks: usize,
) -> u64 {
    let before = dhat::HeapStats::get().total_blocks;
    for tick in from..from + ticks {
        crowd.step(m, t, tick);
    }
    dhat::HeapStats::get().total_blocks - before
}

/// Heap bytes that appear when `n` agents are created, per agent.
fn bytes_per_agent(machine: &Machine<Mind, (), Ev>, n: u32) -> (f64, FsmAgent) {
    let before = dhat::HeapStats::get().curr_bytes;
    let agents: Vec<FsmAgent> = (0..n).map(|i| FsmAgent::with_id(machine, i)).collect();
    let after = dhat::HeapStats::get().curr_bytes;
    let sample = agents[0].clone();
    drop(agents);
    ((after - before) as f64 / f64::from(n), sample)
}

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let machine = crowd_machine();
    let tree = leaf_tree();
    let mut crowd = Crowd::new(&machine, &tree, 1_000);
    for tick in 0..100 {
        crowd.step(&machine, &tree, tick);
    }
    let (sent0, taken0, work0) = (crowd.sent, crowd.taken, crowd.minds[0].work);
    let windows: Vec<u64> = (0..3)
        .map(|w| window(&mut crowd, &machine, &tree, 100 + w * 300, 300))
        .collect();
    let (sent, taken) = (crowd.sent - sent0, crowd.taken - taken0);
    println!(
        "1000 agents x 900 measured ticks: {sent} triggers sent, {taken} taken, allocations per window {windows:?}"
    );
    dhat::assert_eq!(windows.iter().min().copied(), Some(0));
    assert!(
        taken > sent / 4 && taken < sent,
        "taken {taken} of {sent}: the machine is not exercised"
    );
    assert_ne!(crowd.minds[0].work, work0);

    // What an agent costs: measured by dhat, and exactly what the agent
    // says it holds plus the FsmAgent value in the Vec.
    for (label, machine) in [
        ("with a tree state", crowd_machine()),
        ("without", without_tree()),
    ] {
        let n = 100_000;
        let (measured, sample) = bytes_per_agent(&machine, n);
        let expected = size_of::<FsmAgent>() + sample.heap_bytes();
        println!(
            "{n} agents, {} states, depth {}, {} data bytes, {label}: {measured} heap bytes per agent",
            machine.len(),
            machine.depth(),
            machine.data_bytes()
        );
        dhat::assert_eq!(measured, expected as f64);
    }
}

/// The crowd machine without its tree state: what the bench runs.
fn without_tree() -> Machine<Mind, (), Ev> {
    let mut jump = MachineBuilder::new();
    jump.state("Rise", counter(2, Ev::Peak));
    jump.state("Fall", counter(1, Ev::Land));
    jump.start("Rise");
    let mut moving = MachineBuilder::new();
    moving.state("Walk", counter(3, Ev::Fast));
    moving.state("Run", counter(2, Ev::Jump));
    moving
        .state("Jump", counter(9, Ev::Jump))
        .child_machine(jump);
    moving.start("Walk");
    let mut b = MachineBuilder::new();
    b.state("Idle", counter(1, Ev::Go));
    b.state("Move", counter(20, Ev::Attack))
        .child_machine(moving);
    b.state("Attack", counter(2, Ev::Done));
    b.start("Idle");
    b.build().unwrap()
}
