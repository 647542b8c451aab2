//! The tick system allocates nothing in steady state: counted with
//! canopy's counting allocator over many ticks of a thousand brains, after
//! one warm-up tick has made every agent. One test in this file: the
//! counters are the whole process's.

use bevy_app::{App, TaskPoolOptions, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, Assets};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{Schedule, SingleThreadedExecutor};
use canopy_bevy::{Brain, CanopyPlugin, TreeAsset, tick_brains};
use canopy_core::{Builder, Status};
use canopy_counting::Counting;
use canopy_data::Registry;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[derive(Component, Default)]
struct Guard {
    x: f32,
    heading: f32,
}

#[derive(Resource)]
struct Intruder {
    x: f32,
}

fn tree() -> canopy_core::Tree<Guard, Intruder> {
    let b = Builder::<Guard, Intruder>::new();
    b.build(b.reactive_selector(
        "guard",
        [
            b.sequence(
                "chase",
                [
                    b.condition("intruder near?", |cx| {
                        (cx.world.x - cx.agent.x).abs() < 50.0
                    }),
                    b.action("head for the intruder", |cx| {
                        cx.agent.heading = (cx.world.x - cx.agent.x).signum();
                        Status::Running
                    }),
                ],
            ),
            b.sequence(
                "patrol",
                [
                    b.wait("rest", 3),
                    b.action("turn", |cx| {
                        cx.agent.heading = -cx.agent.heading;
                        Status::Success
                    }),
                ],
            ),
        ],
    ))
    .unwrap()
}

#[test]
fn ticking_a_thousand_brains_allocates_nothing_after_the_first_tick() {
    let mut app = App::new();
    // One compute thread: Bevy's parallel iteration runs the batches in
    // place. With more, Bevy's scope allocates its task handles per frame
    // (tests/parallel_alloc.rs measures those).
    let one_thread = TaskPoolPlugin {
        task_pool_options: TaskPoolOptions::with_num_threads(1),
    };
    app.add_plugins((one_thread, AssetPlugin::default()))
        .add_plugins(CanopyPlugin::<Guard, Intruder>::new(Registry::new()))
        .insert_resource(Intruder { x: 0.0 });
    let handle = app
        .world_mut()
        .resource_mut::<Assets<TreeAsset<Guard, Intruder>>>()
        .add(TreeAsset::new(tree()));
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
    let mut tick = Schedule::default();
    tick.set_executor(SingleThreadedExecutor::new());
    tick.add_systems(tick_brains::<Guard, Intruder>);
    let world = app.world_mut();
    tick.run(world); // warm-up: every agent is made
    let before = canopy_counting::stats().allocations;
    for _ in 0..100 {
        tick.run(world);
    }
    let allocations = canopy_counting::stats().allocations - before;
    assert_eq!(allocations, 0);
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
