//! Saving and loading a whole crowd, and moving it onto an edited tree.
//!
//! 100,000 agents of the reference tree, warmed up for 200 ticks so they
//! are spread over every branch, in tick mode and in event mode:
//!
//! - `save`: `save_crowd`, the whole crowd into one buffer;
//! - `load`: `restore_crowd`, every agent's tasks checked;
//! - `reload`: every agent moved onto a copy of the tree built again (the
//!   worst case for reload: every running task is looked up and kept).
//!
//! Criterion reports time per iteration and, through the throughput, bytes
//! per second (save, load) or agents per second (reload); ns per agent is
//! the time divided by 100,000. The bytes per agent are printed once.
//!
//! `cargo bench --bench snapshot -- --noplot`

use std::hint::black_box;

use canopy::{
    Agent, Builder, Mode,
    snapshot::{restore_crowd, save_crowd},
};
use canopy_reference::{Critter, Meadow, critters, reference_root, reference_tree};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const AGENTS: usize = 100_000;

fn snapshots(c: &mut Criterion) {
    let tree = reference_tree();
    let b = Builder::<Critter, Meadow>::new();
    let again = b.build(reference_root(&b)).unwrap();
    let mut group = c.benchmark_group("snapshot");
    group.sample_size(10);
    for mode in [Mode::Tick, Mode::Event] {
        let mut meadow = Meadow::new(128);
        let mut crowd = critters(AGENTS, 42, &meadow);
        let mut agents: Vec<Agent> = (0..AGENTS as u32)
            .map(|i| Agent::with_id(&tree, i))
            .collect();
        for agent in &mut agents {
            agent.set_mode(&tree, mode);
        }
        for _ in 0..200 {
            for (a, c) in agents.iter_mut().zip(&mut crowd) {
                a.tick(&tree, c, &meadow);
            }
            meadow.advance();
        }
        let bytes = save_crowd(&tree, &agents);
        println!(
            "{mode} mode: {} bytes for {AGENTS} agents, {:.1} per agent (the agent itself: {} bytes and {} of task memory)",
            bytes.len(),
            bytes.len() as f64 / AGENTS as f64,
            size_of::<Agent>(),
            agents[0].heap_bytes()
        );
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(BenchmarkId::new("save", mode), |b| {
            b.iter(|| black_box(save_crowd(&tree, &agents)))
        });
        group.bench_function(BenchmarkId::new("load", mode), |b| {
            b.iter(|| black_box(restore_crowd(&tree, &bytes).unwrap()))
        });
        group.throughput(Throughput::Elements(AGENTS as u64));
        group.bench_function(BenchmarkId::new("reload", mode), |b| {
            b.iter_batched(
                || agents.clone(),
                |mut moved| {
                    for (agent, critter) in moved.iter_mut().zip(&mut crowd) {
                        black_box(agent.reload(&tree, &again, critter, &meadow));
                    }
                    moved
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, snapshots);
criterion_main!(benches);
