//! Every brain of a world saved in canopy's snapshot format and restored
//! into a fresh app, whose entities have other ids: the restored run goes
//! on with the same per-frame state as the uninterrupted one.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, Assets, Handle};
use bevy_ecs::prelude::*;
use canopy_bevy::{
    Brain, CanopyPlugin, SaveError, SavedBrains, TreeAsset, restore_brains, save_brains,
};
use canopy_core::{Builder, Status, Tree};
use canopy_data::Registry;

/// A miner: its name in the save, and what it dug.
#[derive(Component, Clone, Copy)]
struct Miner {
    name: u32,
    gold: u32,
}

#[derive(Resource)]
struct Mine;

fn tree() -> Tree<Miner, Mine> {
    let b = Builder::<Miner, Mine>::new();
    b.build(b.sequence(
        "shift",
        [
            b.action("dig", |cx| {
                cx.agent.gold += cx.agent.name % 3 + 1;
                if cx.agent.gold % 5 == 0 {
                    Status::Success
                } else {
                    Status::Running
                }
            }),
            b.wait("rest", 2),
        ],
    ))
    .unwrap()
}

fn app() -> (App, Handle<TreeAsset<Miner, Mine>>) {
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), AssetPlugin::default()))
        .add_plugins(CanopyPlugin::<Miner, Mine>::new(Registry::new()))
        .insert_resource(Mine);
    let handle = app
        .world_mut()
        .resource_mut::<Assets<TreeAsset<Miner, Mine>>>()
        .add(TreeAsset::new(tree()));
    (app, handle)
}

fn spawn_miners(app: &mut App, handle: &Handle<TreeAsset<Miner, Mine>>) {
    for name in 0..20 {
        let miner = Miner { name, gold: 0 };
        app.world_mut().spawn((miner, Brain::new(handle.clone())));
    }
}

/// The whole crowd's state: every miner's data and snapshot, by name.
fn state_hash(app: &mut App) -> u64 {
    let mut rows: Vec<(u32, u32, Vec<u8>)> = app
        .world_mut()
        .query::<(&Miner, &Brain<Miner, Mine>)>()
        .iter(app.world())
        .map(|(m, b)| (m.name, m.gold, b.snapshot().unwrap().to_bytes()))
        .collect();
    rows.sort();
    let mut hasher = DefaultHasher::new();
    rows.hash(&mut hasher);
    hasher.finish()
}

fn run(app: &mut App, frames: usize) -> Vec<u64> {
    (0..frames)
        .map(|_| {
            app.update();
            state_hash(app)
        })
        .collect()
}

#[test]
fn brains_restored_into_a_fresh_app_go_on_as_the_uninterrupted_run() {
    let (mut whole, handle) = app();
    spawn_miners(&mut whole, &handle);
    let uninterrupted = run(&mut whole, 20);

    let (mut first, handle) = app();
    spawn_miners(&mut first, &handle);
    let mut hashes = run(&mut first, 8);
    let bytes = save_brains::<Miner, Mine>(first.world_mut()).to_bytes();
    let miners: Vec<(Entity, Miner)> = first
        .world_mut()
        .query::<(Entity, &Miner)>()
        .iter(first.world())
        .map(|(e, m)| (e, *m))
        .collect();

    // The fresh app spawns something else first: its miners get other ids.
    let (mut second, handle) = app();
    second.world_mut().spawn_empty();
    let mut now = HashMap::new();
    for (old, miner) in miners.iter().rev() {
        let entity = second
            .world_mut()
            .spawn((*miner, Brain::new(handle.clone())))
            .id();
        now.insert(*old, entity);
    }
    assert!(now.iter().any(|(old, new)| old != new));
    let saved = SavedBrains::from_bytes(&bytes).unwrap();
    assert_eq!(saved.len(), 20);
    // The tree asset is there, but no brain has ticked yet: restore makes
    // each agent from its snapshot.
    let restored =
        restore_brains::<Miner, Mine>(second.world_mut(), &saved, |e| now.get(&e).copied());
    assert_eq!(restored, Ok(20));
    assert_eq!(state_hash(&mut second), hashes[7]);
    hashes.extend(run(&mut second, 12));
    assert_eq!(hashes, uninterrupted);
}

#[test]
fn a_restore_that_cannot_place_every_brain_changes_none() {
    let (mut app, handle) = app();
    spawn_miners(&mut app, &handle);
    run(&mut app, 3);
    let saved = save_brains::<Miner, Mine>(app.world_mut());
    let before = state_hash(&mut app);
    let first = saved.entries()[0].0;
    let last = saved.entries()[19].0;
    // Every entity maps to itself but the last, which maps nowhere.
    let result =
        restore_brains::<Miner, Mine>(app.world_mut(), &saved, |e| (e != last).then_some(e));
    assert_eq!(result, Err(SaveError::Unmapped(last)));
    let lonely = app.world_mut().spawn(Miner { name: 99, gold: 0 }).id();
    let result = restore_brains::<Miner, Mine>(app.world_mut(), &saved, |e| {
        Some(if e == first { lonely } else { e })
    });
    assert_eq!(result, Err(SaveError::NoBrain(lonely)));
    assert_eq!(state_hash(&mut app), before);
}

#[test]
fn saved_brains_read_back_from_their_bytes_and_refuse_damaged_ones() {
    let (mut app, handle) = app();
    spawn_miners(&mut app, &handle);
    app.update();
    let saved = save_brains::<Miner, Mine>(app.world_mut());
    let bytes = saved.to_bytes();
    assert_eq!(SavedBrains::from_bytes(&bytes), Ok(saved));
    assert_eq!(
        SavedBrains::from_bytes(&bytes[..bytes.len() - 1]),
        Err(SaveError::Damaged("cut short"))
    );
    assert_eq!(
        SavedBrains::from_bytes(b"not a save"),
        Err(SaveError::Damaged("no mark"))
    );
    let mut huge = bytes[..10].to_vec();
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        SavedBrains::from_bytes(&huge),
        Err(SaveError::Damaged("more entries than bytes"))
    );
}
