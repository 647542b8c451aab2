//! After the first step, a crowd step allocates nothing of its own: the
//! grid, perception, movement and trail buffers are all reused, with one
//! thread or two. Counted by dhat.
//!
//! Its own test binary without the libtest harness (`harness = false`):
//! dhat replaces the global allocator and counts every allocation in the
//! process, and the harness's own threads would otherwise be counted too.
//!
//! The avoidance solver (`dodgy_2d`) collects its half-planes into a new
//! `Vec` whenever an agent has a neighbour to avoid; its API takes no
//! buffer. So the crowd measured here is spread thin — 60 agents over a
//! 2,000-unit arena, nobody within reach of anybody, which is checked —
//! while everything else runs as usual: trees tick, agents walk, trails
//! are sampled, the grid is rebuilt and queried. Three windows are
//! measured and the smallest must allocate nothing (a stray allocation by
//! the runtime around the test would fail a single window).
//!
//! ```text
//! cargo test -p canopy-crowd --test zero_alloc
//! ```

use canopy_crowd::{Config, Crowd, load_default_tree};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Blocks allocated over `steps` steps, and whether any agent had a
/// neighbour within reach at any of them.
fn window(crowd: &mut Crowd, steps: u32) -> (u64, bool) {
    let before = dhat::HeapStats::get().total_blocks;
    let mut crowded = false;
    for _ in 0..steps {
        crowd.step();
        crowded |= crowd.walkers.iter().any(|w| w.neighbours > 0);
    }
    (dhat::HeapStats::get().total_blocks - before, crowded)
}

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let config = Config {
            agents: 60,
            size: Some(2_000.0),
            seed: 3,
            ..Config::default()
        };
        let mut crowd = Crowd::new(load_default_tree().expect("the crowd tree"), &config);
        let start: Vec<_> = crowd.walkers.iter().map(|w| w.pos).collect();
        let windows: Vec<(u64, bool)> = pool.install(|| {
            crowd.step();
            (0..3).map(|_| window(&mut crowd, 50)).collect()
        });
        let moved = crowd
            .walkers
            .iter()
            .zip(&start)
            .filter(|(w, p)| w.pos != **p)
            .count();
        println!(
            "{threads} thread(s), 60 agents x 150 measured steps: allocations per window {:?}, \
             {moved} agents moved, doing {:?}",
            windows.iter().map(|w| w.0).collect::<Vec<_>>(),
            crowd.activity_counts()
        );
        assert!(
            windows.iter().all(|&(_, crowded)| !crowded),
            "an agent had a neighbour: the solver would allocate"
        );
        assert!(moved > 50, "only {moved} agents moved");
        dhat::assert_eq!(windows.iter().map(|w| w.0).min(), Some(0));
    }
}
