//! The flat interpreter allocates nothing per tick, counted by dhat.
//!
//! Its own test binary without the libtest harness (`harness = false`):
//! dhat replaces the global allocator and counts every allocation in the
//! process, and the harness's own threads would otherwise be counted too.
//! After 100 warm-up ticks of 300 reference critters, three windows of 300
//! ticks are measured and the smallest must allocate nothing (a stray
//! allocation by the runtime around the test would fail a single window).
//!
//! ```text
//! cargo test -p canopy-reference --test flat_alloc
//! ```

use canopy_core::Status;
use canopy_reference::flat::{self, FlatCrowd};
use canopy_reference::{Meadow, critters};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let tree = flat::reference();
    let n = 300;
    let mut meadow = Meadow::new(128);
    let mut crowd = critters(n, 3, &meadow);
    let mut agents = FlatCrowd::new(&tree, n);
    let mut finished = 0u64;
    let mut step = |meadow: &mut Meadow| {
        for (id, (state, critter)) in agents.agents_mut().zip(&mut crowd).enumerate() {
            if tree.tick(state, id as u32, critter, meadow) != Status::Running {
                finished += 1;
            }
        }
        meadow.advance();
    };
    for _ in 0..100 {
        step(&mut meadow);
    }
    let windows: Vec<u64> = (0..3)
        .map(|_| {
            let before = dhat::HeapStats::get().total_blocks;
            for _ in 0..300 {
                step(&mut meadow);
            }
            dhat::HeapStats::get().total_blocks - before
        })
        .collect();
    dhat::assert_eq!(windows.iter().min().copied(), Some(0));
    // Not vacuous: roots finished and restarted during the run.
    dhat::assert!(finished > 1000, "only {finished} roots finished");
    println!("flat interpreter: allocations per 300-tick window {windows:?}");
}
