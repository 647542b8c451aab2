//! The crowd simulation (canopy-crowd) at 10k and 100k agents, on 1 and 2
//! threads, and at 1,000,000 on 2 (a short measurement: a few dozen steps): the behavior tick (every agent's tree, as timed inside real
//! steps) and the whole step (tick, perception, avoidance, movement, world
//! update). Throughput is agents per second.
//!
//! At 100k and 1,000,000 agents the crowd also runs with level of detail (`--lod` in the
//! demo: agents ticked every step near a moving focus, 1 step in 2, 4 or 8
//! farther out, and perceiving and steered on the steps they are ticked),
//! so the tree's cost per frame and the whole step with and without it
//! stand side by side.
//!
//! After criterion's own lines, a table puts them side by side: the
//! median tree tick and whole step (ms) over every step the benches ran,
//! and the agents ticked per step.
//!
//! `cargo bench --bench crowd_scaling -- --noplot`

use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use canopy_crowd::{Config, Crowd, load_default_tree};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn crowd(agents: usize, lod: bool) -> Crowd {
    let mut crowd = Crowd::new(
        load_default_tree().unwrap(),
        &Config {
            agents,
            ..Config::default()
        },
    );
    crowd.set_lod(lod).unwrap();
    // Let the crowd spread out over its activities first.
    for _ in 0..100 {
        crowd.step();
    }
    crowd
}

/// Every step's (tree tick, whole step, agents ticked) for one
/// configuration.
type Record = Mutex<Vec<(Duration, Duration, usize)>>;

/// Run `iters` steps of the crowd of `agents` (made on the first call,
/// with level of detail if `lod`); the time is what `pick` takes from each step's
/// (tree tick, whole step), and every step is recorded.
fn steps(
    sim: &Mutex<Option<Crowd>>,
    (agents, lod): (usize, bool),
    record: &Record,
    iters: u64,
    pick: fn((Duration, Duration)) -> Duration,
) -> Duration {
    let (mut sim, mut record) = (sim.lock().unwrap(), record.lock().unwrap());
    let sim = sim.get_or_insert_with(|| crowd(agents, lod));
    (0..iters)
        .map(|_| {
            let start = Instant::now();
            let times = black_box(sim.step());
            let both = (times.tree, start.elapsed());
            let ticked = sim.lod().map_or(sim.walkers.len(), |l| l.due().len());
            record.push((both.0, both.1, ticked));
            pick(both)
        })
        .sum()
}

fn median(mut xs: Vec<Duration>) -> f64 {
    xs.sort_unstable();
    xs.get(xs.len() / 2)
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("crowd");
    group.sample_size(10);
    let mut table = Vec::new();
    let configurations = [
        (10_000usize, false),
        (100_000, false),
        (100_000, true),
        (1_000_000, false),
        (1_000_000, true),
    ];
    for (agents, lod) in configurations {
        group.throughput(Throughput::Elements(agents as u64));
        let (seconds, threads): (u64, &[usize]) = match agents {
            ..=50_000 => (5, &[1, 2]),
            50_001..=500_000 => (20, &[1, 2]),
            // A million: 2 threads, a short measurement.
            _ => (5, &[2]),
        };
        group.measurement_time(Duration::from_secs(seconds));
        // Made at its first step: a filter that leaves a configuration out
        // spares its setup (a million agents take a while to spread out).
        let sim = Mutex::new(None);
        for &threads in threads {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let record = Record::default();
            let id = format!("{agents}/{threads}t{}", if lod { "/lod" } else { "" });
            group.bench_function(BenchmarkId::new("tree-tick", &id), |b| {
                b.iter_custom(|iters| {
                    pool.install(|| steps(&sim, (agents, lod), &record, iters, |t| t.0))
                })
            });
            group.bench_function(BenchmarkId::new("step", &id), |b| {
                b.iter_custom(|iters| {
                    pool.install(|| steps(&sim, (agents, lod), &record, iters, |t| t.1))
                })
            });
            let record = record.into_inner().unwrap();
            let tree = median(record.iter().map(|t| t.0).collect());
            let step = median(record.iter().map(|t| t.1).collect());
            let ticked = record.iter().map(|t| t.2).sum::<usize>() / record.len().max(1);
            table.push((agents, lod, threads, record.len(), ticked, tree, step));
        }
    }
    group.finish();
    println!("\ncrowd step, medians over every step the benches ran (ms):");
    println!(
        "| agents | level of detail | threads | steps | agents ticked per step | tree tick | whole step |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    // Configurations a filter left out ran no steps.
    for (agents, lod, threads, n, ticked, tree, step) in table.into_iter().filter(|t| t.3 > 0) {
        let lod = if lod { "on" } else { "off" };
        println!("| {agents} | {lod} | {threads} | {n} | {ticked} | {tree:.2} | {step:.2} |");
    }
}

criterion_group!(benches, scaling);
criterion_main!(benches);
