//! 100,000 agents sharing one hierarchical state machine (three levels,
//! eight states with per-agent data): updates per second, transitions per
//! second, and both together on one and two threads.
//!
//! - `update`: every agent updates once; every active state's update hook
//!   runs (one to three per agent, 23 per 11 agents on average: the crowd
//!   is spread evenly over the 11 positions of the cycle below), no
//!   transition.
//! - `send`: every agent is sent the next trigger of a cycle that each
//!   state takes, so every send is a transition — within a child machine,
//!   into a nested state, to an ancestor and out of three levels at once.
//!   After the measurement, one more round checks that the crowd is still
//!   in step with the cycle, i.e. that every measured send was taken.
//! - `update+send/threads=N`: both, on a rayon pool of N threads.
//!
//! It also prints the bytes one agent costs (`size_of::<FsmAgent>()` plus
//! its heap); `tests/zero_alloc.rs` in canopy-fsm checks with dhat that
//! this is exactly what creating agents allocates.
//!
//! `cargo bench --bench fsm -- --noplot`

use std::hint::black_box;

use canopy::Ctx;
use canopy::fsm::{FsmAgent, Machine, MachineBuilder, State};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;

const AGENTS: usize = 100_000;

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
}

/// Sent in turn from Idle, every one is taken and the cycle ends in Idle.
const CYCLE: [Ev; 11] = [
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
];

#[derive(Clone, Default)]
struct Mind {
    work: u64,
}

/// A state counting its updates in its own per-agent data.
struct Counter;

impl State<Mind, (), Ev> for Counter {
    type Data = u32;
    fn enter(&self, cx: &mut Ctx<Mind, ()>) -> u32 {
        cx.agent.work += 1;
        0
    }
    fn update(&self, n: &mut u32, cx: &mut Ctx<Mind, ()>) -> Option<Ev> {
        *n += 1;
        cx.agent.work = cx.agent.work.wrapping_add(u64::from(*n));
        None
    }
    fn exit(&self, n: &mut u32, cx: &mut Ctx<Mind, ()>) {
        cx.agent.work ^= u64::from(*n);
    }
}

/// Idle, Move{Walk, Run, Jump{Rise, Fall}}, Attack.
fn machine() -> Machine<Mind, (), Ev> {
    let mut jump = MachineBuilder::new();
    jump.state("Rise", Counter);
    jump.state("Fall", Counter);
    jump.transition("Rise", Ev::Peak, "Fall");
    jump.start("Rise");
    let mut moving = MachineBuilder::new();
    moving.state("Walk", Counter);
    moving.state("Run", Counter);
    moving.state("Jump", Counter).child_machine(jump);
    moving
        .transition("Walk", Ev::Fast, "Run")
        .transition("Walk", Ev::Jump, "Jump")
        .transition("Run", Ev::Jump, "Jump");
    moving.start("Walk");
    let mut b = MachineBuilder::new();
    b.state("Idle", Counter);
    b.state("Move", Counter).child_machine(moving);
    b.state("Attack", Counter);
    b.transition("Idle", Ev::Go, "Move")
        .transition("Idle", Ev::Leap, "Fall")
        .transition("Move", Ev::Stop, "Idle")
        .transition("Move", Ev::Attack, "Attack")
        .transition("Fall", Ev::Land, "Walk")
        .transition("Attack", Ev::Done, "Idle");
    b.start("Idle");
    b.build().expect("bench machine is valid")
}

/// Agent `i` is sent the first `i % 11` triggers of the cycle, so the
/// crowd is spread over every state.
fn crowd(m: &Machine<Mind, (), Ev>) -> (Vec<Mind>, Vec<FsmAgent>) {
    let mut minds = vec![Mind::default(); AGENTS];
    let mut agents: Vec<FsmAgent> = (0..AGENTS as u32)
        .map(|i| FsmAgent::with_id(m, i))
        .collect();
    for (i, (a, mind)) in agents.iter_mut().zip(&mut minds).enumerate() {
        a.start(m, mind, &());
        for &ev in &CYCLE[..i % CYCLE.len()] {
            assert!(a.send(m, ev, mind, &()), "{ev:?} not taken");
        }
    }
    (minds, agents)
}

/// Send agent `i` its trigger of round `round`; `true` if taken.
fn send_round(
    m: &Machine<Mind, (), Ev>,
    round: usize,
    i: usize,
    a: &mut FsmAgent,
    mind: &mut Mind,
) -> bool {
    black_box(a.send(m, CYCLE[(i + round) % CYCLE.len()], mind, &()))
}

/// Outside the measurement: one more round must be taken by every agent,
/// which holds only if every measured round was.
fn assert_in_step(
    m: &Machine<Mind, (), Ev>,
    round: usize,
    agents: &mut [FsmAgent],
    minds: &mut [Mind],
) {
    let mut refused = 0;
    for (i, (a, mind)) in agents.iter_mut().zip(minds).enumerate() {
        refused += usize::from(!send_round(m, round, i, a, mind));
    }
    assert_eq!(
        refused, 0,
        "sends were refused: the bench did not measure transitions"
    );
}

fn fsm(c: &mut Criterion) {
    let m = machine();
    let sample = FsmAgent::new(&m);
    println!(
        "fsm: {} states, depth {}, {} data bytes: {} bytes per agent ({} FsmAgent + {} heap)",
        m.len(),
        m.depth(),
        m.data_bytes(),
        size_of::<FsmAgent>() + sample.heap_bytes(),
        size_of::<FsmAgent>(),
        sample.heap_bytes()
    );
    let mut group = c.benchmark_group("fsm");
    group.sample_size(20);
    group.throughput(Throughput::Elements(AGENTS as u64));

    let (mut minds, mut agents) = crowd(&m);
    group.bench_function(BenchmarkId::new("update", AGENTS), |b| {
        b.iter(|| {
            for (a, mind) in agents.iter_mut().zip(&mut minds) {
                black_box(a.update(&m, mind, &()));
            }
        })
    });

    let (mut minds, mut agents) = crowd(&m);
    let mut round = 0;
    group.bench_function(BenchmarkId::new("send", AGENTS), |b| {
        b.iter(|| {
            for (i, (a, mind)) in agents.iter_mut().zip(&mut minds).enumerate() {
                send_round(&m, round, i, a, mind);
            }
            round += 1;
        })
    });
    assert_in_step(&m, round, &mut agents, &mut minds);

    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        let (mut minds, mut agents) = crowd(&m);
        let mut round = 0;
        let id = BenchmarkId::new(format!("update+send/threads={threads}"), AGENTS);
        group.bench_function(id, |b| {
            b.iter(|| {
                pool.install(|| {
                    agents
                        .par_iter_mut()
                        .zip(minds.par_iter_mut())
                        .enumerate()
                        .for_each(|(i, (a, mind))| {
                            black_box(a.update(&m, mind, &()));
                            send_round(&m, round, i, a, mind);
                        })
                });
                round += 1;
            })
        });
        assert_in_step(&m, round, &mut agents, &mut minds);
    }
    group.finish();
}

criterion_group!(benches, fsm);
criterion_main!(benches);
