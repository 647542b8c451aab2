//! With several compute threads, Bevy's parallel iteration allocates a few
//! task handles per frame for its batches; the brains add nothing to that:
//! a frame of 10,000 brains stays under the same small bound as a frame of
//! 1,000 (one allocation per brain would be 100 times more).
//! One test in this file: the counters (and Bevy's task pools) are the
//! whole process's.

mod common;

use canopy_bevy::Brain;
use canopy_counting::Counting;
use common::{Guard, app, tick_schedule};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn ticking_ten_times_the_brains_in_parallel_allocates_no_more_per_frame() {
    // Eight threads in all: four of them compute.
    let (mut app, handle) = app(8);
    let mut tick = tick_schedule();
    let mut per_frame = Vec::new();
    for crowd in [1_000, 10_000] {
        let world = app.world_mut();
        let have = world.query::<&Guard>().iter(world).count();
        for i in have..crowd {
            let guard = Guard {
                x: i as f32,
                heading: 1.0,
            };
            world.spawn((guard, Brain::new(handle.clone())));
        }
        for _ in 0..3 {
            tick.run(world); // warm-up: every agent is made
        }
        let before = canopy_counting::stats().allocations;
        for _ in 0..100 {
            tick.run(world);
        }
        per_frame.push((canopy_counting::stats().allocations - before) as f64 / 100.0);
    }
    // Bevy's scope: a handful per frame, varying a little with how its
    // threads pick up the batches (about 7 here), never with the crowd.
    assert!(
        per_frame.iter().all(|&n| n <= 16.0),
        "allocations per frame: {per_frame:?}"
    );
}
