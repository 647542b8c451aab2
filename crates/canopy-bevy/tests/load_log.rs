//! With a `tracing` subscriber installed (Bevy's `LogPlugin` installs one;
//! here a minimal one that keeps every line), a tree file that does not
//! load is one `error` line of canopy-bevy's, beside Bevy's own. A test
//! binary of its own: the subscriber is the process's global one.

use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy_ecs::prelude::*;
use canopy_bevy::{Brain, CanopyPlugin, TreeAsset};
use canopy_data::Registry;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

#[derive(Component, Default)]
struct Sleeper;

#[derive(Resource)]
struct Night;

/// Every `(level, message)` logged in the process.
static LINES: Mutex<Vec<(Level, String)>> = Mutex::new(Vec::new());

struct Keep;

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        }
    }
}

impl Subscriber for Keep {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        let level = *event.metadata().level();
        LINES.lock().unwrap().push((level, message.0));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn a_broken_tree_file_is_one_error_line_of_canopy_bevys() {
    tracing::subscriber::set_global_default(Keep).unwrap();
    let dir = std::env::temp_dir().join(format!("canopy-bevy-{}-log", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("day.json"),
        r#"{"tree": {"type": "Wiat", "name": "sleep", "ticks": 3}}"#,
    )
    .unwrap();
    let mut app = App::new();
    let assets = AssetPlugin {
        file_path: dir.display().to_string(),
        meta_check: AssetMetaCheck::Never,
        ..AssetPlugin::default()
    };
    app.add_plugins((TaskPoolPlugin::default(), assets))
        .add_plugins(CanopyPlugin::<Sleeper, Night>::new(Registry::new()))
        .insert_resource(Night);
    let day = app
        .world()
        .resource::<AssetServer>()
        .load::<TreeAsset<Sleeper, Night>>("day.json".to_owned());
    app.world_mut().spawn((Sleeper, Brain::new(day)));
    let ours = |lines: &[(Level, String)]| {
        lines
            .iter()
            .filter(|(_, line)| line.starts_with("canopy:"))
            .cloned()
            .collect::<Vec<_>>()
    };
    for _ in 0..1000 {
        app.update();
        if !ours(&LINES.lock().unwrap()).is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    for _ in 0..5 {
        app.update();
    }
    let _ = std::fs::remove_dir_all(&dir);
    let lines = ours(&LINES.lock().unwrap());
    assert_eq!(
        lines,
        [(
            Level::ERROR,
            "canopy: the tree \"day.json\" did not load: day.json:1:12: tree (name \"sleep\"): \
             unknown node type \"Wiat\" (did you mean \"Wait\"?); \
             brains waiting for it: 1, keeping the version they run: 0"
                .to_string()
        )]
    );
}
