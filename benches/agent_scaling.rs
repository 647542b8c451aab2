//! Ticks of the reference tree (canopy_reference::reference_tree) for 1k,
//! 10k and 100k agents, in one run: canopy; canopy on the same tree loaded
//! from `examples/trees/reference.json` with user node types for leaves
//! (`canopy-file`); the flat limit (the same
//! semantics as a hand-optimised flat-array interpreter, one word array for
//! the whole crowd, leaves dispatched by a `match`); and the naive baseline
//! in which every agent owns a full copy of every node; plus canopy and the
//! flat limit on all cores. Throughput is agent-ticks per second.
//!
//! Then the tree files made only of built-in node types
//! (`examples/trees/random35.json`, the plain `canopy bench` case;
//! `crates/canopy-reference/trees/deep12.json`, Sequence and Selector
//! alternating 12 levels deep over a mostly running leaf; `wide16.json`, a
//! Selector over 16 short Sequences), loaded
//! by canopy and read by the flat interpreter (`flat::read_builtin`, the
//! same statuses and events), side by side at the same three sizes.
//!
//! Last, what one level of Sequence or Selector costs (group `levels`):
//! alternating chains 6 and 12 levels deep, resumed every tick over a
//! mostly running leaf, or installed, updated and finished every tick over
//! `AlwaysSuccess`, in both engines.
//!
//! And what a ticked agent costs under level of detail (group `lod`,
//! 100,000 agents of the reference tree, one thread): every agent ticked in
//! order, against the agents a [`Lod`] plans as due (four classes ticked
//! every 1, 2, 4 and 8 frames, phases in runs of 64 neighbouring agents),
//! visited in memory order, the plan included; the classes in blocks of
//! neighbouring agents (a crowd numbered by place) or scattered agent by
//! agent; the due agents ticked with their elapsed world ticks, or with
//! one (the same work a tick as in order: only the visiting differs).
//! Throughput counts the agents ticked.
//!
//! `cargo bench --bench agent_scaling -- --noplot`
//! (`-- --noplot 'random35|deep12|wide16|levels'` for the file trees alone)

use std::hint::black_box;

use canopy::data::{Format, Registry, TreeSource};
use canopy::lod::RateClass;
use canopy::{Agent, Event, Lod, Observer, Tree};
use canopy_reference::flat::{self, FlatCrowd};
use canopy_reference::naive::NaiveAgent;
use canopy_reference::{Critter, Meadow, critters, file, reference_tree};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use rayon::prelude::*;

fn crowd(n: usize) -> (Meadow, Vec<Critter>) {
    let meadow = Meadow::new(128);
    let crowd = critters(n, 42, &meadow);
    (meadow, crowd)
}

/// `n` canopy agents warmed up for 200 ticks, so every agent is somewhere
/// in its tree.
fn warmed(tree: &Tree<Critter, Meadow>, n: usize) -> (Meadow, Vec<Critter>, Vec<Agent>) {
    let (mut meadow, mut critters) = crowd(n);
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(tree, i)).collect();
    for _ in 0..200 {
        for (a, c) in agents.iter_mut().zip(&mut critters) {
            a.tick(tree, c, &meadow);
        }
        meadow.advance();
    }
    (meadow, critters, agents)
}

fn scaling(c: &mut Criterion) {
    let tree = reference_tree();
    let file_tree = file::reference_tree();
    let mut group = c.benchmark_group("reference");
    group.sample_size(20);
    for n in [1_000usize, 10_000, 100_000] {
        group.throughput(Throughput::Elements(n as u64));

        let (mut meadow, mut critters, mut agents) = warmed(&tree, n);
        group.bench_function(BenchmarkId::new("canopy", n), |b| {
            b.iter(|| {
                for (a, c) in agents.iter_mut().zip(&mut critters) {
                    black_box(a.tick(&tree, c, &meadow));
                }
                meadow.advance();
            })
        });
        group.bench_function(BenchmarkId::new("canopy-rayon", n), |b| {
            b.iter(|| {
                agents
                    .par_iter_mut()
                    .zip(critters.par_iter_mut())
                    .for_each(|(a, c)| {
                        black_box(a.tick(&tree, c, &meadow));
                    });
                meadow.advance();
            })
        });
        drop(agents);

        // The same tree from its file, its leaves user node types.
        let (mut meadow, mut critters, mut agents) = warmed(&file_tree, n);
        group.bench_function(BenchmarkId::new("canopy-file", n), |b| {
            b.iter(|| {
                for (a, c) in agents.iter_mut().zip(&mut critters) {
                    black_box(a.tick(&file_tree, c, &meadow));
                }
                meadow.advance();
            })
        });
        drop(agents);

        flat_limit(&mut group, n);

        let (mut meadow, mut critters) = crowd(n);
        let mut naive: Vec<NaiveAgent<Critter, Meadow>> = (0..n as u32)
            .map(|i| NaiveAgent::new(&tree, i).unwrap())
            .collect();
        for _ in 0..200 {
            for (a, c) in naive.iter_mut().zip(&mut critters) {
                a.tick(c, &meadow);
            }
            meadow.advance();
        }
        group.bench_function(BenchmarkId::new("naive", n), |b| {
            b.iter(|| {
                for (a, c) in naive.iter_mut().zip(&mut critters) {
                    black_box(a.tick(c, &meadow));
                }
                meadow.advance();
            })
        });
    }
    group.finish();
}

/// The flat limit on `n` critters, warmed up like the others, on one
/// thread and on all cores.
fn flat_limit(group: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    let tree = flat::reference();
    let (mut meadow, mut critters) = crowd(n);
    let mut agents = FlatCrowd::new(&tree, n);
    let step = |agents: &mut FlatCrowd, critters: &mut [Critter], meadow: &mut Meadow| {
        for (id, (state, c)) in agents.agents_mut().zip(critters).enumerate() {
            black_box(tree.tick(state, id as u32, c, meadow));
        }
        meadow.advance();
    };
    for _ in 0..200 {
        step(&mut agents, &mut critters, &mut meadow);
    }
    group.bench_function(BenchmarkId::new("flat", n), |b| {
        b.iter(|| step(&mut agents, &mut critters, &mut meadow))
    });
    let stride = agents.stride();
    group.bench_function(BenchmarkId::new("flat-rayon", n), |b| {
        b.iter(|| {
            agents
                .words_mut()
                .par_chunks_exact_mut(stride)
                .zip(critters.par_iter_mut())
                .enumerate()
                .for_each(|(id, (state, c))| {
                    black_box(tree.tick(state, id as u32, c, &meadow));
                });
            meadow.advance();
        })
    });
}

/// The tree files of built-in node types only, by name and text: the
/// plain `canopy bench` case, a deep alternating chain of Sequences and
/// Selectors over a mostly running leaf (what a level costs when resumed),
/// and a wide Selector of short Sequences (what a level costs when
/// installed, updated and finished).
const BUILTIN_FILES: [(&str, &str); 3] = [
    ("random35", include_str!("../examples/trees/random35.json")),
    (
        "deep12",
        include_str!("../crates/canopy-reference/trees/deep12.json"),
    ),
    (
        "wide16",
        include_str!("../crates/canopy-reference/trees/wide16.json"),
    ),
];

/// Each built-in-only file tree in canopy (loaded as `canopy bench` loads
/// it, seed 0) and in the flat interpreter, warmed up for 200 ticks.
fn files(c: &mut Criterion) {
    for (name, text) in BUILTIN_FILES {
        let mut group = c.benchmark_group(name);
        group.sample_size(20);
        for n in [1_000usize, 10_000, 100_000] {
            side_by_side(&mut group, text, "", n);
        }
        group.finish();
    }
}

/// What one level of Sequence or Selector costs: alternating chains
/// ([`flat::alternating_chain`]) 6 and 12 levels deep, 10,000 agents.
/// Over a mostly running leaf, each level is resumed (updated) every tick;
/// over `AlwaysSuccess`, each level is installed, updated and finished
/// every tick, its padding leaf with it. A level's cost is the difference
/// of the two depths over 6.
fn levels(c: &mut Criterion) {
    let running = r#"{"type": "Random", "name": "work", "success": 0.05, "failure": 0.05}"#;
    let finishing = r#"{"type": "AlwaysSuccess", "name": "done"}"#;
    let mut group = c.benchmark_group("levels");
    group.sample_size(20);
    for (leaf, what) in [(running, "resumed"), (finishing, "finished")] {
        for depth in [6, 12] {
            let text = flat::alternating_chain(depth, leaf);
            side_by_side(&mut group, &text, &format!("{what}{depth}-"), 10_000);
        }
    }
    group.finish();
}

/// `text` in canopy and in the flat interpreter on `n` agents, warmed up
/// for 200 ticks: rows `{prefix}canopy/{n}` and `{prefix}flat/{n}`.
fn side_by_side(group: &mut BenchmarkGroup<'_, WallTime>, text: &str, prefix: &str, n: usize) {
    let tree: Tree<(), ()> = Registry::new()
        .loading(TreeSource::text(text, Format::Json, "tree.json"))
        .load()
        .expect("the file loads");
    let flat_tree = flat::FlatTree::build(&flat::read_builtin(text, 0).expect("built-ins only"))
        .expect("the flat tree builds");
    group.throughput(Throughput::Elements(n as u64));
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
    let step = |agents: &mut [Agent]| {
        for a in agents {
            black_box(a.tick(&tree, &mut (), &()));
        }
    };
    for _ in 0..200 {
        step(&mut agents);
    }
    group.bench_function(BenchmarkId::new(format!("{prefix}canopy"), n), |b| {
        b.iter(|| step(&mut agents))
    });
    drop(agents);

    let mut crowd = FlatCrowd::new(&flat_tree, n);
    let step = |crowd: &mut FlatCrowd| {
        for (id, state) in crowd.agents_mut().enumerate() {
            black_box(flat_tree.tick(state, id as u32, &mut (), &()));
        }
    };
    for _ in 0..200 {
        step(&mut crowd);
    }
    group.bench_function(BenchmarkId::new(format!("{prefix}flat"), n), |b| {
        b.iter(|| step(&mut crowd))
    });
}

/// Counts events: the cheapest observer that is really on.
struct Count(u64);

impl Observer for Count {
    fn event(&mut self, _: Event) {
        self.0 += 1;
    }
}

/// An observer switched off at run time, the way a logging flag usually is:
/// every event site still tests the flag.
struct Switch<'a>(Option<&'a mut dyn Observer>);

impl Observer for Switch<'_> {
    fn event(&mut self, event: Event) {
        if let Some(inner) = &mut self.0 {
            inner.event(event);
        }
    }
}

/// What observing costs: off (the `()` observer of `Agent::tick`, compiled
/// away), off by a run-time switch, and on (counting every event).
fn observer(c: &mut Criterion) {
    let tree = reference_tree();
    let n = 10_000;
    let mut group = c.benchmark_group("observer");
    group.sample_size(20);
    group.throughput(Throughput::Elements(n as u64));
    let (mut meadow, mut critters, mut agents) = warmed(&tree, n);
    group.bench_function(BenchmarkId::new("off", n), |b| {
        b.iter(|| {
            for (a, c) in agents.iter_mut().zip(&mut critters) {
                black_box(a.tick(&tree, c, &meadow));
            }
            meadow.advance();
        })
    });
    group.bench_function(BenchmarkId::new("switched-off", n), |b| {
        b.iter(|| {
            for (a, c) in agents.iter_mut().zip(&mut critters) {
                black_box(a.tick_observed(&tree, c, &meadow, Switch(black_box(None))));
            }
            meadow.advance();
        })
    });
    let mut count = Count(0);
    group.bench_function(BenchmarkId::new("counting", n), |b| {
        b.iter(|| {
            for (a, c) in agents.iter_mut().zip(&mut critters) {
                black_box(a.tick_observed(&tree, c, &meadow, &mut count));
            }
            meadow.advance();
        })
    });
    black_box(count.0);
    group.finish();
}

/// A ticked agent under level of detail against one ticked in order.
fn lod(c: &mut Criterion) {
    const N: usize = 100_000;
    let tree = reference_tree();
    let mut group = c.benchmark_group("lod");
    group.sample_size(20);
    group.throughput(Throughput::Elements(N as u64));
    let (mut meadow, mut critters, mut agents) = warmed(&tree, N);
    group.bench_function(BenchmarkId::new("every-agent", N), |b| {
        b.iter(|| {
            for (a, c) in agents.iter_mut().zip(&mut critters) {
                black_box(a.tick(&tree, c, &meadow));
            }
            meadow.advance();
        })
    });
    drop(agents);
    // Class 0..=3 by blocks of 4,096 neighbouring agents, or agent by agent.
    fn banded(i: usize) -> f32 {
        (i / 4096 % 4) as f32 + 0.5
    }
    fn scattered(i: usize) -> f32 {
        ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62) as f32 + 0.5
    }
    type Distance = fn(usize) -> f32;
    let classes: [(&str, Distance, bool); 3] = [
        ("banded-elapsed", banded, true),
        ("banded-one", banded, false),
        ("scattered-elapsed", scattered, true),
    ];
    for (name, distance, elapsed) in classes {
        let (mut meadow, mut critters, mut agents) = warmed(&tree, N);
        let bands = [1.0, 2.0, 3.0, f32::INFINITY];
        let rates: Vec<RateClass> = bands
            .iter()
            .zip([1, 2, 4, 8])
            .map(|(&below, period)| RateClass::new(below, period))
            .collect();
        let mut lod = Lod::new(&rates, 0.0, N).unwrap();
        lod.set_phase_runs(64);
        lod.assign(distance);
        // Agents ticked a frame, on average over the longest period.
        let mut ticked = 0;
        for _ in 0..8 {
            lod.next_frame();
            ticked += lod.due().len();
        }
        group.throughput(Throughput::Elements(ticked as u64 / 8));
        group.bench_function(BenchmarkId::new(name, N), |b| {
            b.iter(|| {
                lod.next_frame();
                let due = lod.elapsed();
                let rows = agents.iter_mut().zip(&mut critters).zip(due);
                for ((a, c), &e) in rows.filter(|(_, e)| **e > 0) {
                    let e = if elapsed { e } else { 1 };
                    black_box(a.tick_elapsed(&tree, c, &meadow, e));
                }
                meadow.advance();
            })
        });
    }
    group.finish();
}

criterion_group!(benches, scaling, observer, files, levels, lod);
criterion_main!(benches);
