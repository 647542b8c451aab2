//! The guards both allocation tests tick: their data, their world, their
//! tree, and an app of them on a given number of threads.

use bevy_app::{App, TaskPoolOptions, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, Assets, Handle};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{Schedule, SingleThreadedExecutor};
use canopy_bevy::{CanopyPlugin, TreeAsset, tick_brains};
use canopy_core::{Builder, Status};
use canopy_data::Registry;

#[derive(Component, Default)]
pub(crate) struct Guard {
    pub(crate) x: f32,
    pub(crate) heading: f32,
}

#[derive(Resource)]
pub(crate) struct Intruder {
    pub(crate) x: f32,
}

pub(crate) fn tree() -> canopy_core::Tree<Guard, Intruder> {
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

/// An app with `threads` threads in all (Bevy gives half of them to
/// compute), the guards' plugin and their tree as an asset.
pub(crate) fn app(threads: usize) -> (App, Handle<TreeAsset<Guard, Intruder>>) {
    let mut app = App::new();
    let pools = TaskPoolPlugin {
        task_pool_options: TaskPoolOptions::with_num_threads(threads),
    };
    app.add_plugins((pools, AssetPlugin::default()))
        .add_plugins(CanopyPlugin::<Guard, Intruder>::new(Registry::new()))
        .insert_resource(Intruder { x: 0.0 });
    let handle = app
        .world_mut()
        .resource_mut::<Assets<TreeAsset<Guard, Intruder>>>()
        .add(TreeAsset::new(tree()));
    (app, handle)
}

/// The tick system alone, run on the calling thread.
pub(crate) fn tick_schedule() -> Schedule {
    let mut tick = Schedule::default();
    tick.set_executor(SingleThreadedExecutor::new());
    tick.add_systems(tick_brains::<Guard, Intruder>);
    tick
}
