//! Tree files as Bevy assets, read from a temporary asset directory through
//! Bevy's asset server: JSON, RON and XML load; an edited file moves the
//! running brains onto it (kept and aborted counted); a broken file is an
//! asset load error carrying canopy's message and changes nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{
    AssetLoadError, AssetLoadFailedEvent, AssetMetaCheck, AssetPlugin, AssetServer, Assets, Handle,
};
use bevy_ecs::message::Messages;
use bevy_ecs::prelude::*;
use canopy_bevy::{Brain, CanopyPlugin, TreeAsset, TreeLoadError, TreeLoadFailed, TreeReloaded};
use canopy_core::{Status, Tree};
use canopy_data::{Format, Registry, TreeSource};

#[derive(Component, Default)]
struct Sleeper;

#[derive(Resource)]
struct Night;

type Day = TreeAsset<Sleeper, Night>;

const V1: &str = r#"{"tree": {"type": "Sequence", "name": "day", "children": [
    {"type": "Wait", "name": "sleep", "ticks": 1000},
    {"type": "Wait", "name": "eat", "ticks": 2}]}}"#;

/// "wake" inserted before "sleep", which is shorter now.
const V2: &str = r#"{"tree": {"type": "Sequence", "name": "day", "children": [
    {"type": "AlwaysSuccess", "name": "wake"},
    {"type": "Wait", "name": "sleep", "ticks": 999},
    {"type": "Wait", "name": "eat", "ticks": 2}]}}"#;

/// "sleep" removed.
const V3: &str = r#"{"tree": {"type": "Sequence", "name": "day", "children": [
    {"type": "Wait", "name": "eat", "ticks": 2}]}}"#;

/// "sleep" lost its `ticks`.
const BROKEN: &str = r#"{"tree": {"type": "Sequence", "name": "day", "children": [
    {"type": "Wait", "name": "sleep"}]}}"#;

/// A fresh asset directory for one test, removed when the test ends.
struct AssetDir(PathBuf);

impl std::ops::Deref for AssetDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for AssetDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn asset_dir(test: &str) -> AssetDir {
    let dir = std::env::temp_dir().join(format!("canopy-bevy-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    AssetDir(dir)
}

fn app(dir: &Path) -> App {
    let mut app = App::new();
    let assets = AssetPlugin {
        file_path: dir.display().to_string(),
        meta_check: AssetMetaCheck::Never,
        ..AssetPlugin::default()
    };
    app.add_plugins((TaskPoolPlugin::default(), assets))
        .add_plugins(CanopyPlugin::<Sleeper, Night>::new(Registry::new()))
        .insert_resource(Night);
    app
}

/// Update until `done` says so; the asset server reads files on its own
/// threads, so this waits a little between frames, for at most 10 s.
fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..1000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("gave up waiting for {what}");
}

fn load(app: &mut App, file: &str) -> Handle<Day> {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<Day>(file.to_owned());
    let h = handle.clone();
    update_until(app, file, |app| {
        app.world().resource::<Assets<Day>>().contains(&h)
    });
    handle
}

fn spawn(app: &mut App, handle: &Handle<Day>, n: usize) -> Vec<Entity> {
    (0..n)
        .map(|_| {
            app.world_mut()
                .spawn((Sleeper, Brain::new(handle.clone())))
                .id()
        })
        .collect()
}

fn trees_of(app: &mut App) -> Vec<Arc<Tree<Sleeper, Night>>> {
    let mut brains = app.world_mut().query::<&Brain<Sleeper, Night>>();
    brains
        .iter(app.world())
        .map(|b| b.tree().unwrap().clone())
        .collect()
}

fn statuses_of(app: &mut App) -> Vec<Option<Status>> {
    let mut brains = app.world_mut().query::<&Brain<Sleeper, Night>>();
    brains.iter(app.world()).map(|b| b.status()).collect()
}

fn reloads(app: &mut App) -> Vec<(u32, u32, u32)> {
    let mut messages = app
        .world_mut()
        .resource_mut::<Messages<TreeReloaded<Sleeper, Night>>>();
    messages
        .drain()
        .map(|r| (r.brains, r.kept, r.aborted))
        .collect()
}

/// Write `text` to the file and ask the asset server to read it again (what
/// Bevy's file watcher does when it sees the change).
fn edit(app: &mut App, dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
    app.world()
        .resource::<AssetServer>()
        .reload(file.to_owned());
}

/// The first asset load failure, once one comes: canopy's error inside it.
fn loader_error(app: &mut App, what: &str) -> TreeLoadError {
    let mut failures = Vec::new();
    update_until(app, what, |app| {
        let mut messages = app
            .world_mut()
            .resource_mut::<Messages<AssetLoadFailedEvent<Day>>>();
        failures.extend(messages.drain());
        !failures.is_empty()
    });
    let AssetLoadError::AssetLoaderError(error) = &failures[0].error else {
        panic!("not the loader's error: {}", failures[0].error);
    };
    let canopy = error.error().downcast_ref::<TreeLoadError>().unwrap();
    TreeLoadError(canopy.0.clone())
}

/// canopy-bevy's reports of files that did not load, once one comes.
fn load_failures(app: &mut App, what: &str) -> Vec<TreeLoadFailed<Sleeper, Night>> {
    let mut failures = Vec::new();
    update_until(app, what, |app| {
        let mut messages = app
            .world_mut()
            .resource_mut::<Messages<TreeLoadFailed<Sleeper, Night>>>();
        failures.extend(messages.drain());
        !failures.is_empty()
    });
    failures
}

const BROKEN_MESSAGE: &str = "day.json:2:7: tree/children[0] (name \"sleep\"): missing parameter \"ticks\" (integer ≥ 0, required)";

#[test]
fn a_broken_tree_file_is_reported_by_canopy_bevy_in_an_app_without_a_log_plugin() {
    let dir = asset_dir("first-broken");
    std::fs::write(dir.join("day.json"), BROKEN).unwrap();
    // The app has no LogPlugin, and nothing reads Bevy's own failure event.
    let mut app = app(&dir);
    let day = app
        .world()
        .resource::<AssetServer>()
        .load::<Day>("day.json".to_owned());
    spawn(&mut app, &day, 4);
    let failures = load_failures(&mut app, "the report of the broken file");
    assert_eq!(failures.len(), 1);
    let failure = &failures[0];
    assert_eq!(failure.tree, day.id());
    assert_eq!(failure.path, "day.json");
    assert_eq!(failure.message, BROKEN_MESSAGE);
    let expected = Registry::<Sleeper, Night>::new()
        .loading(TreeSource::text(BROKEN, Format::Json, "day.json"))
        .load()
        .unwrap_err();
    assert_eq!(failure.error, Some(expected));
    assert_eq!((failure.waiting, failure.running), (4, 0));
    assert_eq!(statuses_of(&mut app), [None; 4]);
}

#[test]
fn a_missing_tree_file_is_reported_with_bevys_reason() {
    let dir = asset_dir("missing");
    let mut app = app(&dir);
    let day = app
        .world()
        .resource::<AssetServer>()
        .load::<Day>("nowhere.json".to_owned());
    spawn(&mut app, &day, 1);
    let failures = load_failures(&mut app, "the report of the missing file");
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].path, "nowhere.json");
    assert_eq!(failures[0].error, None);
    assert!(
        failures[0].message.contains("nowhere.json"),
        "{}",
        failures[0].message
    );
    assert_eq!((failures[0].waiting, failures[0].running), (1, 0));
}

#[test]
fn an_edited_tree_file_moves_running_brains_onto_it_and_reports_what_was_kept() {
    let dir = asset_dir("edit");
    std::fs::write(dir.join("day.json"), V1).unwrap();
    let mut app = app(&dir);
    let day = load(&mut app, "day.json");
    spawn(&mut app, &day, 10);
    app.update();
    assert_eq!(statuses_of(&mut app), [Some(Status::Running); 10]);

    edit(&mut app, &dir, "day.json", V2);
    let mut seen = Vec::new();
    update_until(&mut app, "the reload to V2", |app| {
        seen.extend(reloads(app));
        !seen.is_empty()
    });
    // Each brain keeps the sequence and "sleep" (now its second child).
    assert_eq!(seen, [(10, 20, 0)]);
    let v2 = app
        .world()
        .resource::<Assets<Day>>()
        .get(&day)
        .unwrap()
        .tree()
        .clone();
    assert!(trees_of(&mut app).iter().all(|t| Arc::ptr_eq(t, &v2)));

    edit(&mut app, &dir, "day.json", V3);
    let mut seen = Vec::new();
    update_until(&mut app, "the reload to V3", |app| {
        seen.extend(reloads(app));
        !seen.is_empty()
    });
    // Each keeps the sequence; "sleep" is gone, so it is aborted.
    assert_eq!(seen, [(10, 10, 10)]);
    assert_eq!(statuses_of(&mut app), [Some(Status::Running); 10]);
}

#[test]
fn a_broken_tree_file_is_a_load_error_with_canopys_message_and_brains_keep_their_tree() {
    let dir = asset_dir("broken");
    std::fs::write(dir.join("day.json"), V1).unwrap();
    let mut app = app(&dir);
    let day = load(&mut app, "day.json");
    spawn(&mut app, &day, 3);
    app.update();
    let before = trees_of(&mut app);

    edit(&mut app, &dir, "day.json", BROKEN);
    let canopy = loader_error(&mut app, "the failed load");
    let expected = Registry::<Sleeper, Night>::new()
        .loading(TreeSource::text(BROKEN, Format::Json, "day.json"))
        .load()
        .unwrap_err();
    assert_eq!(canopy.0, expected);
    assert_eq!(canopy.to_string(), BROKEN_MESSAGE);
    let mut reported = load_failures(&mut app, "canopy-bevy's report");
    // Bevy tries a failed reload twice; canopy-bevy reports it once.
    for _ in 0..20 {
        app.update();
        std::thread::sleep(Duration::from_millis(5));
        let mut more = app
            .world_mut()
            .resource_mut::<Messages<TreeLoadFailed<Sleeper, Night>>>();
        reported.extend(more.drain());
    }
    assert_eq!(reported.len(), 1);
    assert_eq!(reported[0].message, BROKEN_MESSAGE);
    assert_eq!((reported[0].waiting, reported[0].running), (0, 3));

    for _ in 0..3 {
        app.update();
    }
    let after = trees_of(&mut app);
    assert!(before.iter().zip(&after).all(|(b, a)| Arc::ptr_eq(b, a)));
    let asset = app
        .world()
        .resource::<Assets<Day>>()
        .get(&day)
        .unwrap()
        .tree()
        .clone();
    assert!(Arc::ptr_eq(&asset, &before[0]));
    assert_eq!(reloads(&mut app), []);
    assert_eq!(statuses_of(&mut app), [Some(Status::Running); 3]);
}

#[test]
fn replacing_the_asset_in_place_reloads_its_brains_but_not_another_trees() {
    let dir = asset_dir("replace");
    std::fs::write(dir.join("day.json"), V1).unwrap();
    std::fs::write(dir.join("other.json"), V1).unwrap();
    let mut app = app(&dir);
    let day = load(&mut app, "day.json");
    let other = load(&mut app, "other.json");
    spawn(&mut app, &day, 4);
    spawn(&mut app, &other, 2);
    app.update();
    let v3 = Registry::<Sleeper, Night>::new()
        .loading(TreeSource::text(V3, Format::Json, "day.json"))
        .load()
        .unwrap();
    app.world_mut()
        .resource_mut::<Assets<Day>>()
        .insert(&day, TreeAsset::new(v3))
        .unwrap();
    // Bevy hands out the asset's `Modified` at the end of this frame; the
    // brains move at the start of the next one.
    app.update();
    assert_eq!(reloads(&mut app), []);
    app.update();
    // Each of the four keeps the sequence and loses "sleep"; the two
    // brains of the other file are left alone.
    assert_eq!(reloads(&mut app), [(4, 4, 4)]);
}

#[test]
fn ron_and_xml_tree_files_load_through_the_same_registry() {
    let dir = asset_dir("formats");
    let ron = r#"(tree: (type: "Sequence", name: "day", children: [(type: "Wait", ticks: 2)]))"#;
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="Main">
        <Sequence name="day"><AlwaysSuccess/><AlwaysFailure/></Sequence>
    </BehaviorTree></root>"#;
    std::fs::write(dir.join("day.ron"), ron).unwrap();
    std::fs::write(dir.join("day.xml"), xml).unwrap();
    let mut app = app(&dir);
    let from_ron = load(&mut app, "day.ron");
    let from_xml = load(&mut app, "day.xml");
    let ron_brain = spawn(&mut app, &from_ron, 1)[0];
    let xml_brain = spawn(&mut app, &from_xml, 1)[0];
    let status = |app: &App, e| {
        app.world()
            .get::<Brain<Sleeper, Night>>(e)
            .unwrap()
            .status()
    };
    let mut seen = Vec::new();
    for _ in 0..3 {
        app.update();
        seen.push((status(&app, ron_brain), status(&app, xml_brain)));
    }
    let (r, s, f) = (
        Some(Status::Running),
        Some(Status::Success),
        Some(Status::Failure),
    );
    assert_eq!(seen, [(r, f), (r, f), (s, f)]);
}

#[test]
fn a_tree_file_over_the_size_limit_is_refused_after_reading_one_byte_more() {
    let dir = asset_dir("huge");
    let limit = canopy_data::MAX_FILE_BYTES;
    std::fs::write(dir.join("huge.json"), vec![b' '; limit as usize + 4096]).unwrap();
    let mut app = app(&dir);
    let _huge = app
        .world()
        .resource::<AssetServer>()
        .load::<Day>("huge.json");
    let canopy = loader_error(&mut app, "the refusal");
    assert_eq!(canopy.0.file(), "huge.json");
    assert_eq!(
        *canopy.0.problem(),
        canopy_data::Problem::TooLarge { bytes: None, limit }
    );
}
