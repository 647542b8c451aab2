//! Tick-from-root against event-driven execution, side by side in one run,
//! for 10,000 agents on three trees:
//!
//! - `reference`: the reference tree. Its root is a ReactiveSelector, which
//!   re-checks its conditions every tick, so event mode can skip nothing and
//!   must merely not cost more.
//! - `deep`: 11 levels of sequences, decorators and a parallel above two
//!   actions that run for dozens of ticks. Tick mode walks all the levels
//!   every tick; event mode updates the two actions.
//! - `suspended`: agents waiting on async leaves (a path search on a job
//!   system, say) whose tickets complete for 1% (`10‰`) or 0.1% (`1‰`) of
//!   the agents per tick. Tick mode polls every waiting leaf; event mode
//!   does not visit them.
//!
//! - `wide-parallel`: event mode's bad case, one agent whose Parallel has
//!   16,000 running children that all move on in the same tick (its first
//!   6 ticks, from a fresh agent).
//!
//! Throughput is agent-ticks per second.
//!
//! `cargo bench --bench scheduling -- --noplot`

use std::hint::black_box;

use canopy::{Agent, Builder, Mode, Policy, Status, Ticket, Tree};
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const AGENTS: usize = 10_000;

/// Agent data of the `deep` and `suspended` trees.
#[derive(Clone, Default)]
struct Worker {
    /// Ticks of work left in the current job.
    work: u32,
    hummed: u32,
    /// The ticket of the path search this worker waits on, if any.
    ticket: Option<Ticket>,
    steps: u32,
}

fn deep_tree() -> Tree<Worker, ()> {
    let b = Builder::<Worker, ()>::new();
    let work = b.action("work", |cx| {
        if cx.agent.work == 0 {
            cx.agent.work = 40 + cx.id % 40;
            return Status::Success;
        }
        cx.agent.work -= 1;
        Status::Running
    });
    let hum = b.action("hum", |cx| {
        cx.agent.hummed = cx.agent.hummed.wrapping_add(1);
        Status::Running
    });
    let root = b.repeat(
        "forever",
        u32::MAX,
        b.sequence(
            "shift",
            [
                b.condition("awake?", |_| true),
                b.selector(
                    "plan",
                    [b.guard(
                        "has job?",
                        |_| true,
                        b.timeout(
                            "deadline",
                            100_000,
                            b.sequence(
                                "job",
                                [
                                    b.force_success("prepare", b.always_success("tidy")),
                                    b.parallel(
                                        "work and hum",
                                        Policy::One,
                                        Policy::One,
                                        [
                                            b.inverter(
                                                "not",
                                                b.inverter("not not", b.retry("again", 3, work)),
                                            ),
                                            hum,
                                        ],
                                    ),
                                ],
                            ),
                        ),
                    )],
                ),
            ],
        ),
    );
    b.build(root).unwrap()
}

fn suspended_tree() -> Tree<Worker, ()> {
    let b = Builder::<Worker, ()>::new();
    let root = b.repeat(
        "forever",
        u32::MAX,
        b.sequence(
            "travel",
            [
                b.condition("has goal?", |_| true),
                b.timeout(
                    "give up",
                    100_000,
                    b.async_action("find path", |cx, ticket| {
                        cx.agent.ticket = Some(ticket);
                        Status::Running
                    }),
                ),
                b.force_success(
                    "walk",
                    b.action("step", |cx| {
                        cx.agent.steps += 1;
                        if cx.agent.steps % 4 == 0 {
                            Status::Success
                        } else {
                            Status::Running
                        }
                    }),
                ),
            ],
        ),
    );
    b.build(root).unwrap()
}

fn agents<A, W>(tree: &Tree<A, W>, mode: Mode) -> Vec<Agent> {
    (0..AGENTS as u32)
        .map(|i| {
            let mut a = Agent::with_id(tree, i);
            a.set_mode(tree, mode);
            a
        })
        .collect()
}

/// What event mode costs in memory: the agent value and its heap.
fn report_bytes(name: &str, mode: Mode, agents: &[Agent]) {
    let heap: usize = agents.iter().map(|a| a.heap_bytes()).sum();
    let per_agent = size_of::<Agent>() + heap / agents.len();
    eprintln!("{name}/{mode}: {per_agent} bytes per agent");
}

fn scheduling(c: &mut Criterion) {
    let modes = [Mode::Tick, Mode::Event];

    let mut group = c.benchmark_group("reference");
    group
        .sample_size(20)
        .throughput(Throughput::Elements(AGENTS as u64));
    let tree = reference_tree();
    for mode in modes {
        let mut meadow = Meadow::new(128);
        let mut crowd: Vec<Critter> = critters(AGENTS, 42, &meadow);
        let mut rt = agents(&tree, mode);
        let mut tick = || {
            for (a, c) in rt.iter_mut().zip(&mut crowd) {
                black_box(a.tick(&tree, c, &meadow));
            }
            meadow.advance();
        };
        for _ in 0..200 {
            tick();
        }
        group.bench_function(BenchmarkId::new(mode.to_string(), AGENTS), |b| {
            b.iter(&mut tick)
        });
        report_bytes("reference", mode, &rt);
    }
    group.finish();

    let mut group = c.benchmark_group("deep");
    group
        .sample_size(20)
        .throughput(Throughput::Elements(AGENTS as u64));
    let tree = deep_tree();
    for mode in modes {
        let mut workers = vec![Worker::default(); AGENTS];
        let mut rt = agents(&tree, mode);
        let mut tick = || {
            for (a, w) in rt.iter_mut().zip(&mut workers) {
                black_box(a.tick(&tree, w, &()));
            }
        };
        for _ in 0..200 {
            tick();
        }
        group.bench_function(BenchmarkId::new(mode.to_string(), AGENTS), |b| {
            b.iter(&mut tick)
        });
        report_bytes("deep", mode, &rt);
    }
    group.finish();

    // Searches finishing for 1% and for 0.1% of the agents per tick: on
    // average a search takes 100 or 1,000 ticks.
    let tree = suspended_tree();
    for per_mille in [10usize, 1] {
        let mut group = c.benchmark_group(format!("suspended-{per_mille}‰"));
        group
            .sample_size(20)
            .throughput(Throughput::Elements(AGENTS as u64));
        for mode in modes {
            let mut workers = vec![Worker::default(); AGENTS];
            let mut rt = agents(&tree, mode);
            let done_per_tick = AGENTS * per_mille / 1000;
            let mut turn = 0usize;
            let mut tick = || {
                for k in 0..done_per_tick {
                    let i = (turn * done_per_tick + k) % AGENTS;
                    if let Some(ticket) = workers[i].ticket.take() {
                        let _ = rt[i].complete(ticket, Status::Success);
                    }
                }
                turn += 1;
                for (a, w) in rt.iter_mut().zip(&mut workers) {
                    black_box(a.tick(&tree, w, &()));
                }
            };
            for _ in 0..2000 {
                tick();
            }
            group.bench_function(BenchmarkId::new(mode.to_string(), AGENTS), |b| {
                b.iter(&mut tick)
            });
            report_bytes("suspended", mode, &rt);
        }
        group.finish();
    }
}

/// A Parallel of `n` children that each wait 3 ticks, then run forever.
fn wide_tree(n: usize) -> Tree<(), ()> {
    let b = Builder::<(), ()>::new();
    let children: Vec<_> = (0..n)
        .map(|_| b.sequence("s", [b.wait("w", 3), b.always_running("r")]))
        .collect();
    b.build(b.parallel("all", Policy::All, Policy::All, children))
        .unwrap()
}

fn wide_parallel(c: &mut Criterion) {
    const CHILDREN: usize = 16_000;
    let mut group = c.benchmark_group("wide-parallel");
    group.sample_size(10);
    let tree = wide_tree(CHILDREN);
    for mode in [Mode::Tick, Mode::Event] {
        group.bench_function(BenchmarkId::new(mode.to_string(), CHILDREN), |b| {
            b.iter_batched(
                || {
                    let mut agent = Agent::new(&tree);
                    agent.set_mode(&tree, mode);
                    agent
                },
                |mut agent| {
                    for _ in 0..6 {
                        black_box(agent.tick(&tree, &mut (), &()));
                    }
                    agent
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, scheduling, wide_parallel);
criterion_main!(benches);
