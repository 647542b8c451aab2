//! The crowd simulation (canopy-crowd) at 1k, 10k and 100k agents: one
//! whole step (behavior tick, avoidance, movement, world update) and the
//! behavior tick alone, on every core (rayon's global pool).
//! Throughput is agents per second.
//!
//! `cargo bench --bench crowd_scaling -- --noplot`

use std::hint::black_box;

use canopy_crowd::{Config, Crowd, load_default_tree};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn crowd(agents: usize) -> Crowd {
    let mut crowd = Crowd::new(
        load_default_tree().unwrap(),
        &Config {
            agents,
            ..Config::default()
        },
    );
    // Let the crowd spread out over its activities first.
    for _ in 0..100 {
        crowd.step();
    }
    crowd
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("crowd");
    group.sample_size(10);
    for agents in [1_000usize, 10_000, 100_000] {
        group.throughput(Throughput::Elements(agents as u64));
        let mut sim = crowd(agents);
        group.bench_function(BenchmarkId::new("tree-tick", agents), |b| {
            b.iter(|| {
                sim.tick_trees();
                black_box(&sim.walkers);
            })
        });
        group.bench_function(BenchmarkId::new("step", agents), |b| {
            b.iter(|| black_box(sim.step()))
        });
    }
    group.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
