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
use crate::game::{self, Game};

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
    /// Those bytes, part by part; `None` without the counting allocator.
    pub(crate) memory: Option<Memory>,
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
/// time `config.ticks` ticks, each after the game's world step and with
/// its answers to async leaves, as the game would run them.
pub(crate) fn measure<A: Send, W: Send + Sync>(
    tree: &Tree<A, W>,
    config: &Config,
    make: &dyn Fn(u32) -> A,
    world: &mut W,
    game: &mut Game<A, W>,
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
    let (_, live_before) = heap();
    let mut crowd = crowd::create(tree, config.agents, config.mode, make).map_err(Error::Crowd)?;
    let warmup = warmup(config.ticks);
    let mut clock = Clock {
        tick: 0,
        world,
        game,
    };
    clock.run(tree, &mut crowd, pool.as_ref(), warmup);
    let (allocs_before, live_warm) = heap();
    let memory = Memory::of(&crowd, live_warm.saturating_sub(live_before));

    let start = Instant::now();
    clock.run(tree, &mut crowd, pool.as_ref(), config.ticks);
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
        memory: counted.then_some(memory),
        allocs_per_tick: counted.then(|| allocs_after.saturating_sub(allocs_before) as f64 / ticks),
    })
}

/// The crowd's ticks, with the game's world and answers.
struct Clock<'g, A, W> {
    /// Ticks run so far.
    tick: u32,
    world: &'g mut W,
    game: &'g mut Game<A, W>,
}

impl<A: Send, W: Send + Sync> Clock<'_, A, W> {
    /// `ticks` ticks of the whole crowd. On a pool, all of them run inside
    /// one `install`: each `install` from outside the pool queues a job on
    /// rayon's injector, which allocates a block every few dozen jobs (the
    /// 0.015 allocations per tick once reported here were those, not the
    /// engine's); inside, the splits of `par_iter` are queued on the
    /// workers' own deques, which stop growing after the warm-up.
    fn run(
        &mut self,
        tree: &Tree<A, W>,
        crowd: &mut crowd::Crowd<A>,
        pool: Option<&rayon::ThreadPool>,
        ticks: u32,
    ) {
        match pool {
            Some(pool) => pool.install(|| self.ticks(tree, crowd, ticks, true)),
            None => self.ticks(tree, crowd, ticks, false),
        }
    }

    fn ticks(&mut self, tree: &Tree<A, W>, crowd: &mut crowd::Crowd<A>, ticks: u32, par: bool) {
        for _ in 0..ticks {
            self.tick += 1;
            self.game.update(self.world, self.tick);
            let (world, answers) = (&*self.world, self.game.answer.as_ref());
            let one = |(agent, data): (&mut canopy_core::Agent, &mut A)| {
                black_box(agent.tick(tree, data, world));
                game::answer(answers, agent, data, world);
            };
            if par {
                crowd
                    .agents
                    .par_iter_mut()
                    .zip(crowd.data.par_iter_mut())
                    .for_each(one);
            } else {
                crowd
                    .agents
                    .iter_mut()
                    .zip(crowd.data.iter_mut())
                    .for_each(one);
            }
        }
    }
}

/// Where an agent's bytes go, averaged over the crowd: the engine's parts
/// from the agents themselves, the user's data as the rest of the heap
/// the crowd holds.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Memory {
    /// The `Agent` value.
    pub(crate) agent: f64,
    /// Task memory (running tasks, persistent memory, blackboard).
    pub(crate) tasks: f64,
    /// The table of waiting async leaves.
    pub(crate) waits: f64,
    /// The event-mode schedule.
    pub(crate) schedule: f64,
    /// The user's agent data: its inline size and what it holds on the heap.
    pub(crate) data: f64,
}

impl Memory {
    /// The split of `live` heap bytes held by `crowd`.
    fn of<A>(crowd: &crowd::Crowd<A>, live: u64) -> Memory {
        let n = crowd.agents.len().max(1) as f64;
        let mut parts = canopy_core::agent::AgentMemory::default();
        for agent in &crowd.agents {
            parts = parts + agent.memory();
        }
        let engine = (parts.value + parts.tasks + parts.waits + parts.schedule) as f64;
        Memory {
            agent: parts.value as f64 / n,
            tasks: parts.tasks as f64 / n,
            waits: parts.waits as f64 / n,
            schedule: parts.schedule as f64 / n,
            data: (live as f64 - engine).max(0.0) / n,
        }
    }
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
    memory: Option<Memory>,
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
            if let Some(m) = figures.memory {
                writeln!(
                    out,
                    "        agent {:.1} + tasks {:.1} + waits {:.1} + schedule {:.1} \
                     + your agent data {:.1}",
                    m.agent, m.tasks, m.waits, m.schedule, m.data
                )?;
            }
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
            memory: figures.memory,
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
        let mut game = Game {
            update: None,
            answer: None,
        };
        let figures = measure(&tree, &config, &|id| id as u8, &mut (), &mut game).unwrap();
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
