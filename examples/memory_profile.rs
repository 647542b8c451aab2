//! Heap profile of the reference tree for a crowd: bytes the framework
//! holds per agent, peak heap, and allocations per tick in steady state.
//!
//! ```text
//! cargo run --release --example memory_profile --features dhat-heap -- --agents 100000 --ticks 100
//! ```
//!
//! With `dhat-heap` the counts come from dhat, which also writes
//! `dhat-heap.json` (open it in dhat's viewer); without it, from
//! `canopy_counting`, the counting allocator `canopy bench` and the `versus`
//! example use too. The last line printed is one JSON object.
//!
//! `bytes_per_agent` is the heap that appears when the agents are created
//! and warmed up — the `Vec<Agent>` and every agent's pool, slack included —
//! divided by the number of agents. The agents' own data (the critters) is
//! allocated before that and excluded. The naive baseline is measured the
//! same way on up to 10,000 agents for comparison.

use canopy::Agent;
use canopy_reference::naive::NaiveAgent;
use canopy_reference::{Critter, Meadow, critters, reference_tree};

#[cfg(feature = "dhat-heap")]
#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[cfg(not(feature = "dhat-heap"))]
#[global_allocator]
static ALLOC: canopy_counting::Counting = canopy_counting::Counting;

/// Heap totals so far: (blocks allocated ever, bytes live now, peak bytes so far).
fn heap() -> (u64, u64, u64) {
    #[cfg(feature = "dhat-heap")]
    {
        let s = dhat::HeapStats::get();
        (s.total_blocks, s.curr_bytes as u64, s.max_bytes as u64)
    }
    #[cfg(not(feature = "dhat-heap"))]
    {
        let s = canopy_counting::stats();
        (s.allocations, s.live_bytes, s.peak_bytes)
    }
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        Some(i) => match args.get(i + 1).and_then(|v| v.parse().ok()) {
            Some(v) => v,
            None => {
                eprintln!(
                    "usage: memory_profile [--agents N] [--ticks T]  ({name} needs a number)"
                );
                std::process::exit(2);
            }
        },
        None => default,
    }
}

fn main() {
    #[cfg(feature = "dhat-heap")]
    let profiler = dhat::Profiler::new_heap();

    let agents = arg("--agents", 100_000);
    let ticks = arg("--ticks", 100).max(2);
    let warmup = (ticks / 10).max(1);

    let tree = reference_tree();
    let mut meadow = Meadow::new(128);
    let mut crowd = critters(agents, 42, &meadow);

    // canopy: create and warm up, then count what the agents hold.
    let before = heap();
    let mut runtimes: Vec<Agent> = (0..agents as u32)
        .map(|i| Agent::with_id(&tree, i))
        .collect();
    let tick_all = |runtimes: &mut Vec<Agent>, crowd: &mut Vec<Critter>, meadow: &mut Meadow| {
        for (agent, critter) in runtimes.iter_mut().zip(crowd.iter_mut()) {
            agent.tick(&tree, critter, meadow);
        }
        meadow.advance();
    };
    for _ in 0..warmup {
        tick_all(&mut runtimes, &mut crowd, &mut meadow);
    }
    let warm = heap();
    for _ in warmup..ticks {
        tick_all(&mut runtimes, &mut crowd, &mut meadow);
    }
    let after = heap();
    let held = warm.1 - before.1;
    let bytes_per_agent = held as f64 / agents as f64;
    let steady_allocs = (after.0 - warm.0) as f64 / (ticks - warmup) as f64;
    let active: usize = runtimes.iter().map(|a| a.active_tasks(&tree)).sum();
    let pool_bytes: usize = runtimes.iter().map(|a| a.heap_bytes()).sum();
    // The peak while canopy's crowd was alive, critters included.
    let peak = after.2;
    drop(runtimes);

    // The naive baseline on up to 10,000 agents, measured the same way.
    let naive_n = agents.min(10_000);
    let mut naive_meadow = Meadow::new(128);
    let mut naive_crowd = critters(naive_n, 42, &naive_meadow);
    let naive_before = heap();
    let mut naive: Vec<NaiveAgent<Critter, Meadow>> = (0..naive_n as u32)
        .map(|i| NaiveAgent::new(&tree, i).expect("no custom nodes"))
        .collect();
    for _ in 0..warmup {
        for (agent, critter) in naive.iter_mut().zip(naive_crowd.iter_mut()) {
            agent.tick(critter, &naive_meadow);
        }
        naive_meadow.advance();
    }
    let naive_bytes = (heap().1 - naive_before.1) as f64 / naive_n as f64;
    drop(naive);

    println!(
        "reference tree: {} nodes, depth {}",
        tree.len(),
        tree.depth()
    );
    println!(
        "canopy: {agents} agents, {ticks} ticks ({warmup} warm-up): {bytes_per_agent:.1} heap bytes per agent \
         ({} B Agent + {:.1} B pool), {:.2} tasks active per agent, {steady_allocs} allocations per steady tick",
        size_of::<Agent>(),
        pool_bytes as f64 / agents as f64,
        active as f64 / agents as f64,
    );
    println!(
        "naive baseline: {naive_n} agents: {naive_bytes:.1} heap bytes per agent ({:.0}x canopy)",
        naive_bytes / bytes_per_agent
    );
    println!("peak heap while the canopy crowd ran (agent data included): {peak} bytes");

    #[cfg(feature = "dhat-heap")]
    drop(profiler);

    println!(
        "{{\"agents\":{agents},\"ticks\":{ticks},\"tree_nodes\":{},\"bytes_per_agent\":{bytes_per_agent:.1},\
         \"peak_bytes\":{peak},\"steady_allocs_per_tick\":{steady_allocs},\"naive_bytes_per_agent\":{naive_bytes:.1}}}",
        tree.len()
    );
}
