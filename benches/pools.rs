//! The task-memory strategies of `canopy::pool` on the same engine, on
//! trees that install and uninstall tasks all the time, so the cost of
//! getting and returning task memory dominates. Decides the default pool.
//!
//! `cargo bench --bench pools -- --noplot`

use std::hint::black_box;

use canopy::pool::{BoxPool, BumpPool, FreeListPool, InlinePool, SharedPool, TaskPool};
use canopy::{Agent, Builder, Ctx, Policy, Status, Tree};
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;

const AGENTS: usize = 10_000;

/// A tree that re-enters stateful tasks every tick: a priority selector
/// whose branches flip with the tick, each a sequence of decorated waits,
/// repeats and parallels that finish after a few ticks, so every tick
/// installs and uninstalls several tasks with state. Its root finishes
/// often, so bumpalo gets to reset.
fn churn() -> Tree<u32, ()> {
    let b = Builder::<u32, ()>::new();
    let phase = |k: u32| move |cx: &Ctx<u32, ()>| (cx.tick + cx.id + k) % 5 < 2;
    let branch = |name: &'static str, k: u32| {
        b.sequence(
            name,
            [
                b.condition("now?", phase(k)),
                b.repeat(
                    "twice",
                    2,
                    b.parallel(
                        "both",
                        Policy::All,
                        Policy::One,
                        [b.wait("short", 1), b.timeout("limit", 4, b.wait("long", 2))],
                    ),
                ),
                b.retry(
                    "again",
                    2,
                    b.action("count", |cx| {
                        *cx.agent += 1;
                        Status::from_bool(*cx.agent % 3 != 0)
                    }),
                ),
            ],
        )
    };
    let root = b.reactive_selector(
        "root",
        [
            branch("a", 0),
            branch("b", 2),
            branch("c", 4),
            b.sequence("idle", [b.wait("idle", 1)]),
        ],
    );
    b.build(root).unwrap()
}

fn bench_tree<A: Send + Sync, W: Sync, P: TaskPool>(
    c: &mut Criterion,
    group: &str,
    tree: &Tree<A, W>,
    data: &mut [A],
    world: &W,
    threads: bool,
) {
    let mut agents: Vec<Agent<P>> = (0..data.len() as u32)
        .map(|i| Agent::for_tree(tree, i))
        .collect();
    for _ in 0..50 {
        for (a, d) in agents.iter_mut().zip(data.iter_mut()) {
            a.tick(tree, d, world);
        }
    }
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(data.len() as u64));
    g.sample_size(20);
    g.bench_function(BenchmarkId::new(P::NAME, data.len()), |b| {
        b.iter(|| {
            if threads {
                agents
                    .par_iter_mut()
                    .zip(data.par_iter_mut())
                    .for_each(|(a, d)| {
                        black_box(a.tick(tree, d, world));
                    });
            } else {
                for (a, d) in agents.iter_mut().zip(data.iter_mut()) {
                    black_box(a.tick(tree, d, world));
                }
            }
        })
    });
    g.finish();
}

fn pools(c: &mut Criterion) {
    let tree = churn();
    let mut counters = vec![0u32; AGENTS];
    macro_rules! each_pool {
        ($group:expr, $tree:expr, $data:expr, $world:expr, $threads:expr) => {
            bench_tree::<_, _, InlinePool>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, FreeListPool>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, BoxPool>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, SharedPool>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, BumpPool>(c, $group, $tree, $data, $world, $threads);
        };
    }
    each_pool!("pools/churn", &tree, &mut counters, &(), false);
    each_pool!("pools/churn-2-threads", &tree, &mut counters, &(), true);

    let reference = reference_tree();
    let meadow = Meadow::new(128);
    let mut crowd: Vec<Critter> = critters(AGENTS, 42, &meadow);
    each_pool!("pools/reference", &reference, &mut crowd, &meadow, false);
}

criterion_group!(benches, pools);
criterion_main!(benches);
