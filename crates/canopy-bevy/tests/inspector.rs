//! The browser inspector in a Bevy app (feature `inspector`): a frame per
//! update, the watched agent ticked through the probe with the same
//! results, the new tree shown after a reload.
#![cfg(feature = "inspector")]

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, Assets};
use bevy_ecs::prelude::*;
use canopy_bevy::{Brain, BrainInspector, CanopyPlugin, TreeAsset};
use canopy_core::{Builder, Status, Tree};
use canopy_data::Registry;
use canopy_inspector::{Label, Options};

#[derive(Component, Default)]
struct Ant {
    x: f32,
}

#[derive(Resource)]
struct Nest;

fn tree(rest: u32) -> Tree<Ant, Nest> {
    let b = Builder::<Ant, Nest>::new();
    b.build(b.sequence(
        "forage",
        [
            b.action("walk", |cx| {
                cx.agent.x += 1.0;
                Status::Success
            }),
            b.wait("rest", rest),
        ],
    ))
    .unwrap()
}

#[test]
fn the_inspector_shows_every_update_and_the_new_tree_after_a_reload() {
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), AssetPlugin::default()))
        .add_plugins(CanopyPlugin::<Ant, Nest>::new(Registry::new()))
        .insert_resource(Nest);
    let handle = app
        .world_mut()
        .resource_mut::<Assets<TreeAsset<Ant, Nest>>>()
        .add(TreeAsset::new(tree(2)));
    let ants: Vec<Entity> = (0..10)
        .map(|i| {
            let brain = Brain::new(handle.clone()).with_id(i);
            app.world_mut().spawn((Ant::default(), brain)).id()
        })
        .collect();
    let options = Options {
        addr: "127.0.0.1:0".parse().unwrap(),
        legend: vec![Label::new("ant", "#43a047")],
        max_fps: 0.0,
        ..Options::default()
    };
    let trees = app.world().resource::<Assets<TreeAsset<Ant, Nest>>>();
    let dot = |ant: &Ant| ([ant.x, 0.0], 0);
    let inspector = BrainInspector::start(
        trees,
        handle.clone(),
        options,
        ([0.0; 2], [100.0, 1.0]),
        dot,
    )
    .unwrap();
    inspector.inspector().watch(Some(3));
    app.insert_resource(inspector);

    for _ in 0..3 {
        app.update();
    }
    let shown = |app: &App| {
        app.world()
            .resource::<BrainInspector<Ant, Nest>>()
            .inspector()
            .stats()
    };
    assert_eq!(shown(&app).frames_published, 3);
    // The watched ant, ticked through the probe, went as the others did:
    // walked and rested two ticks, finishing at the third; then walks again.
    let statuses: Vec<Option<Status>> = ants
        .iter()
        .map(|&a| app.world().get::<Brain<Ant, Nest>>(a).unwrap().status())
        .collect();
    assert_eq!(statuses, [Some(Status::Success); 10]);
    app.update();
    let xs: Vec<f32> = ants
        .iter()
        .map(|&a| app.world().get::<Ant>(a).unwrap().x)
        .collect();
    assert_eq!(xs, [2.0; 10]);

    app.world_mut()
        .resource_mut::<Assets<TreeAsset<Ant, Nest>>>()
        .insert(&handle, TreeAsset::new(tree(5)))
        .unwrap();
    app.update();
    app.update();
    let version = app
        .world()
        .resource::<BrainInspector<Ant, Nest>>()
        .inspector()
        .tree_version();
    assert_eq!(version, 1);
    assert_eq!(shown(&app).frames_published, 6);
}
