//! The tick system allocates nothing in steady state: counted with
//! canopy's counting allocator over many ticks of a thousand brains, after
//! one warm-up tick has made every agent. One test in this file: the
//! counters are the whole process's.

mod common;

use canopy_bevy::Brain;
use canopy_counting::Counting;
use common::{Guard, app, tick_schedule};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn ticking_a_thousand_brains_allocates_nothing_after_the_first_tick() {
    // One compute thread: Bevy's parallel iteration runs the batches in
    // place. With more, Bevy's scope allocates its task handles per frame
    // (tests/parallel_alloc.rs measures those).
    let (mut app, handle) = app(1);
    for i in 0..1000 {
        let guard = Guard {
            x: i as f32,
            heading: 1.0,
        };
        // Half of them watch their patrol's nodes: the events they keep
        // reuse their list's memory.
        let brain = Brain::new(handle.clone());
        let brain = if i % 2 == 0 {
            brain.watching(["rest", "turn"])
        } else {
            brain
        };
        app.world_mut().spawn((guard, brain));
    }
    let mut tick = tick_schedule();
    let world = app.world_mut();
    tick.run(world); // warm-up: every agent is made
    // The counters are the whole process's, and Bevy's pool threads start
    // on their own time, allocating as they do (22 allocations fell into
    // the ticks once, on a loaded machine): they get a moment to start,
    // and a first window of ticks that may still see them. A tick that
    // allocates shows in every window.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let windows: [u64; 4] = std::array::from_fn(|_| {
        let before = canopy_counting::stats().allocations;
        for _ in 0..25 {
            tick.run(world);
        }
        canopy_counting::stats().allocations - before
    });
    assert_eq!(
        windows[1..],
        [0, 0, 0],
        "allocations in each window of 25 ticks: {windows:?}"
    );
    // The guards within 50 of the intruder (at 0) chase it; the one
    // standing on it keeps its heading.
    let mut headings: Vec<(f32, f32)> = world
        .query::<&Guard>()
        .iter(world)
        .filter(|g| g.x < 50.0)
        .map(|g| (g.x, g.heading))
        .collect();
    headings.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(headings[0], (0.0, 1.0));
    assert!(headings[1..].iter().all(|&(_, heading)| heading == -1.0));
    assert_eq!(headings.len(), 50);
}
