//! With several compute threads, Bevy's parallel iteration allocates a few
//! task handles per frame for its batches; the brains add nothing to that:
//! a frame of 10,000 brains stays under the same small bound as a frame of
//! 1,000 (one allocation per brain would be 100 times more).
//! One test in this file: the counters (and Bevy's task pools) are the
//! whole process's.

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
fn ticking_ten_times_the_brains_in_parallel_allocates_no_more_per_frame() {
    let mut app = App::new();
    // Eight threads in all: four of them compute.
    let threads = TaskPoolPlugin {
        task_pool_options: TaskPoolOptions::with_num_threads(8),
    };
    app.add_plugins((threads, AssetPlugin::default()))
        .add_plugins(CanopyPlugin::<Guard, Intruder>::new(Registry::new()))
        .insert_resource(Intruder { x: 0.0 });
    let handle = app
        .world_mut()
        .resource_mut::<Assets<TreeAsset<Guard, Intruder>>>()
        .add(TreeAsset::new(tree()));
    let mut tick = Schedule::default();
    tick.set_executor(SingleThreadedExecutor::new());
    tick.add_systems(tick_brains::<Guard, Intruder>);
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
