//! The reference tree on one engine — canopy, the flat limit or the naive
//! baseline — for a fixed number of ticks, with nothing else in the
//! process: a target for profilers and instruction counters, which measure
//! work where wall-clock benches on a shared machine are noisy.
//!
//! ```text
//! cargo build --release -p canopy-reference --example engines
//! valgrind --tool=callgrind --toggle-collect='engines::measured*' \
//!     target/release/examples/engines flat 10000 100
//! ```
//!
//! Arguments: the engine (`canopy`, `flat` or `naive`), the number of
//! agents, the number of measured ticks. The crowd is warmed up for 200
//! ticks first, outside `measured`. Prints the wall-clock time per
//! agent-tick of the measured ticks, and on Linux also the time the thread
//! spent on a CPU (from `/proc/thread-self/schedstat`, which leaves out the
//! time other processes had the CPU: on a shared, loaded machine it is the
//! steadier figure), and a checksum of the crowd, which is the same for
//! every engine. Runs of the engines interleaved in a shell loop give
//! ratios that slow changes in the machine's load affect alike.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::hint::black_box;
use std::time::Instant;

use canopy_core::Agent;
use canopy_reference::flat::{self, FlatCrowd};
use canopy_reference::naive::NaiveAgent;
use canopy_reference::{Critter, Meadow, critters, reference_tree};

/// One step of the whole crowd.
type Step<'a> = Box<dyn FnMut(&mut [Critter], &Meadow) + 'a>;

#[inline(never)]
fn measured(step: &mut Step<'_>, crowd: &mut [Critter], meadow: &mut Meadow, ticks: usize) {
    for _ in 0..ticks {
        step(crowd, meadow);
        meadow.advance();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: engines canopy|flat|naive AGENTS TICKS";
    let [engine, agents, ticks] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let (Ok(n), Ok(ticks)) = (agents.parse::<usize>(), ticks.parse::<usize>()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let tree = reference_tree();
    let flat = flat::reference();
    let mut step: Step<'_> = match engine.as_str() {
        "canopy" => {
            let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
            Box::new(move |crowd, meadow| {
                for (a, c) in agents.iter_mut().zip(crowd) {
                    black_box(a.tick(&tree, c, meadow));
                }
            })
        }
        "flat" => {
            let mut agents = FlatCrowd::new(&flat, n);
            Box::new(move |crowd, meadow| {
                for (id, (state, c)) in agents.agents_mut().zip(crowd).enumerate() {
                    black_box(flat.tick(state, id as u32, c, meadow));
                }
            })
        }
        "naive" => {
            let mut agents: Vec<NaiveAgent<Critter, Meadow>> = (0..n as u32)
                .map(|i| NaiveAgent::new(&tree, i).expect("the reference tree is built-in only"))
                .collect();
            Box::new(move |crowd, meadow| {
                for (a, c) in agents.iter_mut().zip(crowd) {
                    black_box(a.tick(c, meadow));
                }
            })
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let mut meadow = Meadow::new(128);
    let mut crowd = critters(n, 42, &meadow);
    for _ in 0..200 {
        step(&mut crowd, &meadow);
        meadow.advance();
    }
    let (start, cpu_start) = (Instant::now(), on_cpu_ns());
    measured(&mut step, &mut crowd, &mut meadow, ticks);
    let agent_ticks = (n * ticks).max(1) as f64;
    let wall = start.elapsed().as_nanos() as f64 / agent_ticks;
    let cpu = match (cpu_start, on_cpu_ns()) {
        (Some(a), Some(b)) => format!(", {:.1} ns on CPU", (b - a) as f64 / agent_ticks),
        _ => String::new(),
    };
    let mut hash = DefaultHasher::new();
    crowd.hash(&mut hash);
    println!(
        "{engine}: {n} agents, {ticks} ticks, {wall:.1} ns per agent-tick{cpu}, \
         crowd checksum {:016x}",
        hash.finish()
    );
}

/// Nanoseconds this thread has run on a CPU, where Linux says.
fn on_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}
