//! `canopy bench`: what one tree file costs a crowd, in the three figures
//! that decide whether it scales — time per agent-tick, heap per agent, and
//! allocations per tick (which should be zero: a tick that allocates
//! contends on the allocator once agents tick in parallel).
//!
//! Heap and allocations come from the counting allocator the binary
//! installs (`canopy_counting`, the one the examples use too; the built-in
//! `canopy` does), so the figures need no profiler and no feature flag, and
//! measure exactly what canopy does with this file. Counting costs a few
//! relaxed atomic operations per allocation, which the other subcommands do
//! not notice. A binary without it gets the time and is told the rest was
//! not counted.

use std::hint::black_box;
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use canopy_core::{Mode, Tree};
use canopy_data::escape;
use rayon::prelude::*;
use serde::Serialize;

use crate::crowd::{self, CrowdError};

/// (allocations so far, heap bytes live now), from the binary's counting
/// allocator.
fn heap() -> (u64, u64) {
    let stats = canopy_counting::stats();
    (stats.allocations, stats.live_bytes)
}

/// Whether the binary counts its allocations: any program has allocated
/// by the time it runs a command (its arguments, at least), so a count of
/// zero means the counting allocator is not installed.
fn counting() -> bool {
    canopy_counting::stats().allocations > 0
}

/// Why a benchmark could not run.
#[derive(Debug)]
pub(crate) enum Error {
    /// The crowd is too large.
    Crowd(CrowdError),
    /// The thread pool could not start.
    Threads(String),
}

/// What to measure.
pub(crate) struct Config {
    /// Crowd size.
    pub(crate) agents: u32,
    /// Timed ticks.
    pub(crate) ticks: u32,
    /// Threads of the rayon pool; `None`: the calling thread alone.
    pub(crate) threads: Option<u32>,
    /// How the agents run the tree.
    pub(crate) mode: Mode,
}

/// What was measured.
pub(crate) struct Figures {
    /// Untimed ticks before the timed ones.
    pub(crate) warmup: u32,
    /// Wall time of the timed ticks.
    pub(crate) elapsed: Duration,
    /// Wall time per agent per timed tick, in nanoseconds.
    pub(crate) ns_per_agent_tick: f64,
    /// Heap held by the agents after creation and warm-up, per agent;
    /// `None` without the counting allocator.
    pub(crate) bytes_per_agent: Option<f64>,
    /// Allocations per timed tick (the whole crowd); `None` without the
    /// counting allocator.
    pub(crate) allocs_per_tick: Option<f64>,
}

/// The untimed ticks before `ticks` timed ones: enough for the agents to
/// reach their steady state and the caches to warm, a small share of the run.
fn warmup(ticks: u32) -> u32 {
    (ticks / 10).max(1)
}

/// All the ticks a benchmark of `ticks` timed ticks runs.
pub(crate) fn total_ticks(ticks: u32) -> u32 {
    ticks.saturating_add(warmup(ticks))
}

/// Create `config.agents` agents (data from `make`), warm them up, then
/// time `config.ticks` ticks.
pub(crate) fn measure<A: Send, W: Sync>(
    tree: &Tree<A, W>,
    config: &Config,
    make: &dyn Fn(u32) -> A,
    world: &W,
) -> Result<Figures, Error> {
    // Threads are started before the heap is read, so they are not counted
    // as the crowd's.
    let pool = match config.threads {
        Some(threads) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads as usize)
                .build()
                .map_err(|e| Error::Threads(format!("cannot start {threads} threads: {e}")))?,
        ),
        None => None,
    };
    // `ticks` ticks of the whole crowd. On a pool, all of them run inside
    // one `install`: each `install` from outside the pool queues a job on
    // rayon's injector, which allocates a block every few dozen jobs (the
    // 0.015 allocations per tick once reported here were those, not the
    // engine's); inside, the splits of `par_iter` are queued on the
    // workers' own deques, which stop growing after the warm-up.
    let run = |crowd: &mut crowd::Crowd<A>, ticks: u32| match &pool {
        Some(pool) => pool.install(|| {
            for _ in 0..ticks {
                crowd
                    .agents
                    .par_iter_mut()
                    .zip(crowd.data.par_iter_mut())
                    .for_each(|(agent, data)| {
                        black_box(agent.tick(tree, data, world));
                    })
            }
        }),
        None => {
            for _ in 0..ticks {
                for (agent, data) in crowd.agents.iter_mut().zip(&mut crowd.data) {
                    black_box(agent.tick(tree, data, world));
                }
            }
        }
    };

    let (_, live_before) = heap();
    let mut crowd = crowd::create(tree, config.agents, config.mode, make).map_err(Error::Crowd)?;
    let warmup = warmup(config.ticks);
    run(&mut crowd, warmup);
    let (allocs_before, live_warm) = heap();

    let start = Instant::now();
    run(&mut crowd, config.ticks);
    let elapsed = start.elapsed();
    let (allocs_after, _) = heap();
    drop(crowd);

    let agents = f64::from(config.agents);
    let ticks = f64::from(config.ticks);
    let counted = counting();
    Ok(Figures {
        warmup,
        elapsed,
        ns_per_agent_tick: elapsed.as_nanos() as f64 / (agents * ticks),
        bytes_per_agent: counted.then(|| live_warm.saturating_sub(live_before) as f64 / agents),
        allocs_per_tick: counted.then(|| allocs_after.saturating_sub(allocs_before) as f64 / ticks),
    })
}

/// The `--json` line; field order is part of the interface.
#[derive(Serialize)]
struct JsonFigures {
    agents: u32,
    ticks: u32,
    threads: u32,
    mode: String,
    ns_per_agent_tick: f64,
    bytes_per_agent: Option<f64>,
    allocs_per_tick: Option<f64>,
}

/// Print the figures for people, then with `json` as one JSON object.
pub(crate) fn report<A, W>(
    file: &Path,
    tree: &Tree<A, W>,
    config: &Config,
    figures: &Figures,
    json: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let threads = config.threads.unwrap_or(1);
    let per_tick = figures.elapsed / config.ticks;
    writeln!(
        out,
        "tree    {}: {} nodes, depth {}",
        escape(&file.display().to_string()),
        tree.len(),
        tree.depth()
    )?;
    writeln!(
        out,
        "crowd   {} agents × {} ticks (after {} warm-up), {} thread{}, {} mode",
        config.agents,
        config.ticks,
        figures.warmup,
        threads,
        if threads == 1 { "" } else { "s" },
        config.mode
    )?;
    writeln!(
        out,
        "time    {:.1} ns per agent-tick ({} per tick)",
        figures.ns_per_agent_tick,
        duration(per_tick)
    )?;
    match (figures.bytes_per_agent, figures.allocs_per_tick) {
        (Some(per_agent), Some(allocs)) => {
            writeln!(
                out,
                "memory  {per_agent:.1} bytes per agent ({} for the crowd)",
                bytes(per_agent * f64::from(config.agents))
            )?;
            writeln!(out, "allocs  {allocs} per tick")?;
        }
        _ => {
            let not = "not counted (install canopy_counting::Counting as the global allocator)";
            writeln!(out, "memory  {not}")?;
            writeln!(out, "allocs  {not}")?;
        }
    }
    if json {
        let line = JsonFigures {
            agents: config.agents,
            ticks: config.ticks,
            threads,
            mode: config.mode.to_string(),
            ns_per_agent_tick: (figures.ns_per_agent_tick * 100.0).round() / 100.0,
            bytes_per_agent: figures.bytes_per_agent,
            allocs_per_tick: figures.allocs_per_tick,
        };
        serde_json::to_writer(&mut *out, &line)?;
        writeln!(out)?;
    }
    Ok(())
}

/// `812 ns`, `5.13 µs`, `5.13 ms`, `1.20 s`.
fn duration(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    match ns {
        ns if ns < 1e3 => format!("{ns:.0} ns"),
        ns if ns < 1e6 => format!("{:.2} µs", ns / 1e3),
        ns if ns < 1e9 => format!("{:.2} ms", ns / 1e6),
        ns => format!("{:.2} s", ns / 1e9),
    }
}

/// `512 B`, `5.6 kB`, `5.6 MB`, `5.6 GB`.
fn bytes(n: f64) -> String {
    match n {
        n if n < 1e3 => format!("{n:.0} B"),
        n if n < 1e6 => format!("{:.1} kB", n / 1e3),
        n if n < 1e9 => format!("{:.1} MB", n / 1e6),
        n => format!("{:.1} GB", n / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::Builder;

    /// This test binary has no counting allocator: the figures it cannot
    /// count are reported as not counted, never as zero.
    #[test]
    fn without_the_counting_allocator_heap_figures_are_not_counted() {
        let b = Builder::<u8, ()>::new();
        let tree = b.build(b.wait("nap", 3)).unwrap();
        let config = Config {
            agents: 4,
            ticks: 10,
            threads: None,
            mode: Mode::Tick,
        };
        let figures = measure(&tree, &config, &|id| id as u8, &()).unwrap();
        assert_eq!(figures.warmup, 1);
        assert_eq!(
            (figures.bytes_per_agent, figures.allocs_per_tick),
            (None, None)
        );
        let mut out = Vec::new();
        report(
            Path::new("nap.json"),
            &tree,
            &config,
            &figures,
            true,
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "tree    nap.json: 1 nodes, depth 1");
        assert_eq!(
            lines[1],
            "crowd   4 agents × 10 ticks (after 1 warm-up), 1 thread, tick mode"
        );
        let not = "not counted (install canopy_counting::Counting as the global allocator)";
        assert_eq!(lines[3], format!("memory  {not}"));
        assert_eq!(lines[4], format!("allocs  {not}"));
        let json: serde_json::Value = serde_json::from_str(lines[5]).unwrap();
        assert_eq!(json["bytes_per_agent"], serde_json::Value::Null);
        assert_eq!(json["allocs_per_tick"], serde_json::Value::Null);
        assert_eq!(lines.len(), 6);
    }
}
