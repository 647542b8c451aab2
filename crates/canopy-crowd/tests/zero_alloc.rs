//! After the first step, a crowd step allocates nothing of its own: the
//! grid, perception, movement and trail buffers are all reused, with one
//! thread or two. Counted by dhat.
//!
//! Its own test binary without the libtest harness (`harness = false`):
//! dhat replaces the global allocator and counts every allocation in the
//! process, and the harness's own threads would otherwise be counted too.
//!
//! The crowd is the demo's at 2,000 agents, crowded enough that agents
//! avoid each other every step (which is checked): trees tick, neighbours
//! are found, avoidance solves, agents walk, places count their visitors,
//! trails are sampled, the grid is rebuilt; and the same with level of
//! detail (classes assigned, agents in a crowd steered between ticks). Three windows are measured and the smallest must allocate
//! nothing (a stray allocation by the runtime around the test would fail a
//! single window).
//!
//! ```text
//! cargo test -p canopy-crowd --test zero_alloc
//! ```

use canopy_crowd::{Config, Crowd, load_default_tree};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Blocks allocated over `steps` steps, and whether at every one of them
/// some agent had a neighbour within reach.
fn window(crowd: &mut Crowd, steps: u32) -> (u64, bool) {
    let before = dhat::HeapStats::get().total_blocks;
    let mut crowded = true;
    for _ in 0..steps {
        crowd.step();
        crowded &= crowd.walkers.iter().any(|w| w.neighbours > 0);
    }
    (dhat::HeapStats::get().total_blocks - before, crowded)
}

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();
    for (threads, lod) in [(1, false), (2, false), (2, true)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let config = Config {
            agents: 2_000,
            seed: 3,
            ..Config::default()
        };
        let mut crowd = Crowd::new(load_default_tree().expect("the crowd tree"), &config);
        crowd.set_lod(lod).expect("an arena with a positive side");
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
            "{threads} thread(s), level of detail {lod}, 2,000 agents x 150 measured steps: \
             allocations per window {:?}, {moved} agents moved, doing {:?}",
            windows.iter().map(|w| w.0).collect::<Vec<_>>(),
            crowd.activity_counts()
        );
        assert!(
            windows.iter().all(|&(_, crowded)| crowded),
            "a step where nobody had a neighbour: avoidance went unmeasured"
        );
        assert!(moved > 1_500, "only {moved} agents moved");
        dhat::assert_eq!(windows.iter().map(|w| w.0).min(), Some(0));
    }
}
