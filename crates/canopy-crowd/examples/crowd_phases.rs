//! Where a crowd step's time goes: the crowd is taken apart
//! ([`Crowd::into_parts`]) and stepped phase by phase as
//! [`Crowd::step`] does, each phase timed on its own — wall time, and the
//! processor time of all the process's threads together (on Linux), which
//! a machine busy with other work inflates less than wall time.
//!
//! ```text
//! cargo run --release -p canopy-crowd --example crowd_phases -- 100000 2 50
//! ```
//!
//! Arguments: agents, threads, measured steps (after 100 unmeasured ones).

use std::time::{Duration, Instant};

use canopy_crowd::{Config, Crowd, Motion, load_default_tree, state_hash_of};
use glam::Vec2;
use rayon::prelude::*;

/// Processor time of every thread of this process so far, from
/// `/proc/self/task/*/schedstat`; zero where that is not there.
fn cpu_time() -> Duration {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    let nanos: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(nanos)
}

const PHASES: [&str; 6] = [
    "tree tick",
    "avoidance + integration",
    "threats",
    "grid rebuild",
    "visitors counted",
    "perception",
];

fn median(mut xs: Vec<Duration>) -> f64 {
    xs.sort_unstable();
    xs.get(xs.len() / 2)
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: agents threads steps"))
        .collect();
    let (count, threads, steps) = match args[..] {
        [a, t, s] => (a, t, s),
        _ => (100_000, 2, 50),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let config = Config {
        agents: count,
        ..Config::default()
    };
    let mut crowd = Crowd::new(load_default_tree().expect("the crowd tree"), &config);
    pool.install(|| {
        for _ in 0..100 {
            crowd.step();
        }
    });
    let (mut world, mut walkers, mut agents, tree) = crowd.into_parts();
    let mut motion = Motion::default();
    motion.sense(&mut walkers, &world);
    let mut wall = vec![Vec::new(); PHASES.len()];
    let mut cpu = vec![Vec::new(); PHASES.len()];
    let mut whole = Vec::new();
    pool.install(|| {
        for _ in 0..steps {
            let step = Instant::now();
            for (phase, (wall, cpu)) in wall.iter_mut().zip(&mut cpu).enumerate() {
                let (start, start_cpu) = (Instant::now(), cpu_time());
                match phase {
                    0 => agents.par_iter_mut().zip(walkers.par_iter_mut()).for_each(
                        |(agent, walker)| {
                            walker.intent = Vec2::ZERO;
                            agent.tick(&tree, walker, &world);
                        },
                    ),
                    1 => motion.move_walkers(&mut walkers, &world),
                    2 => world.advance(),
                    3 => world.grid.rebuild(&walkers),
                    4 => world.count_visitors(&walkers),
                    _ => motion.sense(&mut walkers, &world),
                }
                wall.push(start.elapsed());
                cpu.push(cpu_time().saturating_sub(start_cpu));
            }
            whole.push(step.elapsed());
        }
    });
    println!("{count} agents, {threads} thread(s), {steps} steps: medians (ms)");
    println!("| phase | wall | processor, all threads |");
    println!("|---|---:|---:|");
    for (k, name) in PHASES.iter().enumerate() {
        let (w, c) = (median(wall[k].clone()), median(cpu[k].clone()));
        println!("| {name} | {w:.2} | {c:.2} |");
    }
    println!("| whole step | {:.2} | |", median(whole));
    let active = agents.iter().map(|a| a.active_tasks(&tree) as u32);
    let hash = state_hash_of(world.step, &world.threats, &walkers, active);
    println!("state hash after {} steps: {hash:016x}", world.step);
}
