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
//! and a behavior tree runs a machine as a leaf. Counters kept over the
//! measured windows check that each of these really happened there: every
//! trigger taken by a send (so every transition kind, across levels too),
//! triggers fired by updates, tree states aborted, machine leaves finished.
//! After 100 warm-up ticks, three windows of 300 ticks are measured and
//! the smallest must allocate nothing (the pattern in CRATES.md: a stray
//! allocation by the runtime around the test would fail a single window).
//!
//! ```text
//! cargo test -p canopy-fsm --test zero_alloc
//! ```

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use canopy_core::{Agent, Builder, Children, Ctx, Exit, Node, Status, Tree};
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

/// Every trigger, in `Ev` order.
const TRIGGERS: [Ev; 10] = [
    Ev::Go,
    Ev::Stop,
    Ev::Fast,
    Ev::Jump,
    Ev::Peak,
    Ev::Land,
    Ev::Attack,
    Ev::Done,
    Ev::Leap,
    Ev::Watch,
];

/// The trigger agent `i` is sent at `tick`: a hash of both (splitmix64),
/// so that no agent's sends fall into step with its own update-driven
/// cycle — a fixed rotation did, and then some transitions never ran.
fn trigger(i: usize, tick: usize) -> Ev {
    let mut h = (i as u64) << 32 ^ tick as u64;
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    TRIGGERS[(h % TRIGGERS.len() as u64) as usize]
}

/// The agent data: some work for the hooks to do, and counters that show
/// which runtime paths the measured windows went through.
#[derive(Clone, Default)]
struct Mind {
    work: u64,
    /// Triggers returned by update hooks.
    fired: u64,
    /// Watch trees aborted by a transition out of Watch.
    aborted: u64,
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
        let fire = (*n == self.after).then_some(self.fire);
        cx.agent.fired += u64::from(fire.is_some());
        fire
    }
    fn exit(&self, n: &mut u32, cx: &mut Ctx<Mind, ()>) {
        cx.agent.work ^= u64::from(*n);
    }
}

fn counter(after: u32, fire: Ev) -> Counter {
    Counter { after, fire }
}

/// Looks for two ticks, then succeeds; counts being aborted.
struct Look;

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Looked {
    ticks: u32,
}

impl Node<Mind, ()> for Look {
    type Task = Looked;
    fn create_task(&self, _: &mut Ctx<Mind, ()>) -> Looked {
        Looked { ticks: 0 }
    }
    fn update(&self, t: &mut Looked, _: &mut Ctx<Mind, ()>, _: &mut Children<Mind, ()>) -> Status {
        t.ticks += 1;
        if t.ticks == 2 {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn terminate(&self, _: &mut Looked, cx: &mut Ctx<Mind, ()>, exit: Exit) {
        cx.agent.aborted += u64::from(exit == Exit::Aborted);
    }
}

fn watch_tree() -> Arc<Tree<Mind, ()>> {
    let b = Builder::<Mind, ()>::new();
    Arc::new(
        b.build(b.sequence(
            "watch",
            [
                b.custom("look", Look, []),
                b.action("note", |cx| {
                    cx.agent.work += 1;
                    Status::Success
                }),
            ],
        ))
        .unwrap(),
    )
}

/// Idle, Move{Walk, Run, Jump{Rise, Fall}}, Attack, and with `watch` also
/// Watch (a tree state). Without it, it is the machine the bench runs.
fn crowd_machine(watch: bool) -> Machine<Mind, (), Ev> {
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
    b.transition("Idle", Ev::Go, "Move")
        .transition("Idle", Ev::Leap, "Fall")
        .transition("Move", Ev::Stop, "Idle")
        .transition("Move", Ev::Attack, "Attack")
        .transition("Fall", Ev::Land, "Walk")
        .transition("Attack", Ev::Done, "Idle");
    if watch {
        b.tree_state("Watch", TreeState::new(watch_tree()).on_success(Ev::Done));
        b.transition("Idle", Ev::Watch, "Watch")
            .transition("Watch", Ev::Done, "Idle")
            .transition("Watch", Ev::Go, "Move");
    }
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
    /// Sends taken, per trigger (indexed by `Ev as usize`).
    taken_by: [u64; TRIGGERS.len()],
    /// Machine leaves that reached their final state.
    leaf_done: u64,
}

impl Crowd {
    fn new(machine: &Machine<Mind, (), Ev>, tree: &Tree<Mind, ()>, n: u32) -> Self {
        Crowd {
            minds: vec![Mind::default(); n as usize],
            agents: (0..n).map(|i| FsmAgent::with_id(machine, i)).collect(),
            tree_agents: (0..n).map(|i| Agent::with_id(tree, i)).collect(),
            sent: 0,
            taken: 0,
            taken_by: [0; TRIGGERS.len()],
            leaf_done: 0,
        }
    }

    /// Every agent: one update, one trigger (a hash of agent and tick),
    /// and one tick of the tree with the machine leaf.
    fn step(&mut self, machine: &Machine<Mind, (), Ev>, tree: &Tree<Mind, ()>, tick: usize) {
        let agents = self.agents.iter_mut().zip(&mut self.tree_agents);
        for (i, ((fsm, bt), mind)) in agents.zip(&mut self.minds).enumerate() {
            std::hint::black_box(fsm.update(machine, mind, &()));
            let trigger = trigger(i, tick);
            self.sent += 1;
            let taken = u64::from(fsm.send(machine, trigger, mind, &()));
            self.taken += taken;
            self.taken_by[trigger as usize] += taken;
            let leaf = bt.tick(tree, mind, &());
            self.leaf_done += u64::from(leaf == Status::Success);
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
    let machine = crowd_machine(true);
    let tree = leaf_tree();
    let mut crowd = Crowd::new(&machine, &tree, 1_000);
    // Warm-up: every agent's memory is allocated at creation; this only
    // lets lazily grown structures (none expected) reach their size.
    for tick in 0..100 {
        crowd.step(&machine, &tree, tick);
    }
    let before = Snapshot::of(&crowd);
    let windows: Vec<u64> = (0..3)
        .map(|w| window(&mut crowd, &machine, &tree, 100 + w * 300, 300))
        .collect();
    let seen = Snapshot::of(&crowd).minus(&before);
    println!(
        "1000 agents x 900 measured ticks: {} triggers sent, {} taken, {} fired by updates, \
         {} tree states aborted, {} machine leaves finished; allocations per window {windows:?}",
        seen.sent, seen.taken, seen.fired, seen.aborted, seen.leaf_done
    );
    dhat::assert_eq!(windows.iter().min().copied(), Some(0));
    // Every runtime path ran inside the measured windows.
    for ev in TRIGGERS {
        assert!(
            seen.taken_by[ev as usize] > 0,
            "{ev:?} was never taken in the measured windows"
        );
    }
    assert!(seen.taken < seen.sent, "some sends must be refused too");
    assert!(seen.fired > 0, "no update fired a trigger");
    assert!(seen.aborted > 0, "no tree state was aborted");
    assert!(seen.leaf_done > 0, "no machine leaf finished");

    // What an agent costs: measured by dhat, and exactly what the agent
    // says it holds plus the FsmAgent value in the Vec.
    for (label, machine) in [
        ("with a tree state", crowd_machine(true)),
        ("without", crowd_machine(false)),
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

/// The counters of a crowd at one moment, to count what one span did.
struct Snapshot {
    sent: u64,
    taken: u64,
    taken_by: [u64; TRIGGERS.len()],
    fired: u64,
    aborted: u64,
    leaf_done: u64,
}

impl Snapshot {
    fn of(crowd: &Crowd) -> Self {
        Snapshot {
            sent: crowd.sent,
            taken: crowd.taken,
            taken_by: crowd.taken_by,
            fired: crowd.minds.iter().map(|m| m.fired).sum(),
            aborted: crowd.minds.iter().map(|m| m.aborted).sum(),
            leaf_done: crowd.leaf_done,
        }
    }

    fn minus(&self, earlier: &Snapshot) -> Snapshot {
        Snapshot {
            sent: self.sent - earlier.sent,
            taken: self.taken - earlier.taken,
            taken_by: std::array::from_fn(|i| self.taken_by[i] - earlier.taken_by[i]),
            fired: self.fired - earlier.fired,
            aborted: self.aborted - earlier.aborted,
            leaf_done: self.leaf_done - earlier.leaf_done,
        }
    }
}
