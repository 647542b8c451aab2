//! A headless Bevy crowd: thousands of entities share one tree file
//! (`assets/npc.json`), each chasing the nearest target it sees, else
//! wandering, and fleeing when hurt. The tree only writes intents (a
//! wanted direction); ordinary systems move everyone and apply the damage,
//! in batches. Prints a summary after a fixed number of frames.
//!
//! ```text
//! cargo run --release -p canopy-bevy --example bevy_crowd -- --entities 10000 --frames 200 --threads 2
//! cargo run --release -p canopy-bevy --features inspector --example bevy_crowd -- --serve
//! ```
//!
//! `--serve` (feature `inspector`) runs until stopped, at 30 frames a
//! second, with canopy's inspector on <http://127.0.0.1:7878>: the crowd
//! as dots coloured by what each NPC does; click one to see its tree. With
//! the feature `file_watcher` too, editing `assets/npc.json` moves the
//! running crowd onto the new tree, and the example says what was kept.

use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolOptions, TaskPoolPlugin, Update};
use bevy_asset::{AssetPlugin, AssetServer, Assets, Handle};
use bevy_ecs::prelude::*;
use canopy_bevy::{Brain, CanopyPlugin, CanopySystems, TreeAsset, TreeReloaded};
use canopy_core::Status;
use canopy_counting::Counting;
use canopy_data::{Params, Registry};

/// Counts live heap bytes: the bytes per NPC the summary reports are
/// measured the same way as in the bevy_behave side-by-side bench.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SIZE: f32 = 200.0;
const SPEED: f32 = 0.5;

/// What an NPC's tree reads and writes: its position and health, and the
/// direction it wants to go (the intent the movement system carries out).
#[derive(Component, Clone, Copy, Debug, Default)]
struct Npc {
    pos: [f32; 2],
    health: f32,
    want: [f32; 2],
    doing: Doing,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Doing {
    #[default]
    Wander,
    Chase,
    Flee,
}

/// The world view every tree reads: where the targets are.
#[derive(Resource)]
struct Targets(Vec<[f32; 2]>);

impl Targets {
    fn nearest(&self, from: [f32; 2]) -> ([f32; 2], f32) {
        self.0
            .iter()
            .map(|&t| (t, distance(t, from)))
            .fold(([0.0; 2], f32::INFINITY), |best, c| {
                if c.1 < best.1 { c } else { best }
            })
    }
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn toward(from: [f32; 2], to: [f32; 2]) -> [f32; 2] {
    let d = distance(from, to).max(1e-6);
    [(to[0] - from[0]) / d, (to[1] - from[1]) / d]
}

/// True while health is below `below`.
#[derive(Params)]
struct Hurt {
    /// The health under which the NPC counts as hurt.
    below: f32,
}

/// Runs away from the nearest target until health is back to `until`.
#[derive(Params)]
struct Flee {
    /// The health at which fleeing ends.
    until: f32,
}

/// True while a target is within `radius`.
#[derive(Params)]
struct Sees {
    /// How far the NPC sees.
    radius: f32,
}

/// Walks in a direction that changes every `turn_every` ticks.
#[derive(Params)]
struct Wander {
    /// Ticks between turns.
    turn_every: u32,
}

fn registry() -> Registry<Npc, Targets> {
    let mut r = Registry::<Npc, Targets>::new();
    r.condition("Hurt", |p: Hurt| move |cx| cx.agent.health < p.below)
        .unwrap();
    r.condition("Sees", |p: Sees| {
        move |cx| cx.world.nearest(cx.agent.pos).1 <= p.radius
    })
    .unwrap();
    r.action("Flee", |p: Flee| {
        move |cx| {
            let (target, _) = cx.world.nearest(cx.agent.pos);
            let away = toward(target, cx.agent.pos);
            cx.agent.want = away;
            cx.agent.doing = Doing::Flee;
            if cx.agent.health >= p.until {
                Status::Success
            } else {
                Status::Running
            }
        }
    })
    .unwrap();
    r.action("Chase", |()| {
        move |cx| {
            let (target, _) = cx.world.nearest(cx.agent.pos);
            cx.agent.want = toward(cx.agent.pos, target);
            cx.agent.doing = Doing::Chase;
            Status::Running
        }
    })
    .unwrap();
    r.action("Wander", |p: Wander| {
        move |cx| {
            let turn = u64::from(cx.tick / p.turn_every.max(1));
            let angle = (mix(u64::from(cx.id) << 32 | turn) % 6283) as f32 / 1000.0;
            cx.agent.want = [angle.cos(), angle.sin()];
            cx.agent.doing = Doing::Wander;
            Status::Running
        }
    })
    .unwrap();
    r
}

/// splitmix64's finaliser: a reproducible pseudo-random number from a key.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The game's movement: every intent carried out at once.
fn walk(mut npcs: Query<&mut Npc>) {
    npcs.par_iter_mut().for_each(|mut npc| {
        for axis in 0..2 {
            npc.pos[axis] = (npc.pos[axis] + npc.want[axis] * SPEED).clamp(0.0, SIZE);
        }
    });
}

/// Targets bite whoever stands next to them; the others heal slowly.
fn bite(targets: Res<Targets>, mut npcs: Query<&mut Npc>) {
    npcs.par_iter_mut().for_each(|mut npc| {
        let hurt = targets.nearest(npc.pos).1 < 1.5;
        npc.health = if hurt {
            npc.health - 10.0
        } else {
            npc.health + 0.5
        }
        .clamp(0.0, 100.0);
    });
}

/// Say what an edit of the tree file did to the running crowd.
fn say_reloads(mut reloads: MessageReader<TreeReloaded<Npc, Targets>>) {
    for r in reloads.read() {
        println!(
            "reloaded npc.json: {} NPCs moved, {} running tasks kept, {} aborted",
            r.brains, r.kept, r.aborted
        );
    }
}

/// Time spent in the tick set, frame by frame.
#[derive(Resource, Default)]
struct Clock {
    started: Option<Instant>,
    frames: Vec<Duration>,
}

fn start_clock(mut clock: ResMut<Clock>) {
    clock.started = Some(Instant::now());
}

fn stop_clock(mut clock: ResMut<Clock>) {
    if let Some(started) = clock.started.take() {
        clock.frames.push(started.elapsed());
    }
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let (entities, frames) = (arg("--entities", 10_000), arg("--frames", 200));
    // Bevy's default is one thread per core.
    let threads = arg("--threads", 0);
    let mut pool = TaskPoolPlugin::default();
    if threads > 0 {
        pool.task_pool_options = TaskPoolOptions::with_num_threads(threads);
    }
    let mut app = App::new();
    let assets = AssetPlugin {
        file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_owned(),
        // With the feature, editing assets/npc.json reloads the running crowd.
        watch_for_changes_override: Some(cfg!(feature = "file_watcher")),
        ..AssetPlugin::default()
    };
    let targets = (0..64u64)
        .map(|i| [(mix(i) % 200) as f32, (mix(i + 1000) % 200) as f32])
        .collect();
    app.add_plugins((pool, assets))
        .add_plugins(CanopyPlugin::new(registry()))
        .insert_resource(Targets(targets))
        .init_resource::<Clock>()
        .add_systems(Update, start_clock.before(CanopySystems::Tick))
        .add_systems(Update, stop_clock.after(CanopySystems::Tick).before(walk))
        .add_systems(Update, (walk, bite).chain().after(CanopySystems::Tick))
        .add_systems(Update, say_reloads.after(CanopySystems::Reload));

    let tree: Handle<TreeAsset<Npc, Targets>> =
        app.world().resource::<AssetServer>().load("npc.json");
    while !app
        .world()
        .resource::<Assets<TreeAsset<Npc, Targets>>>()
        .contains(&tree)
    {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    let world = app.world_mut();
    let before = Before {
        entities: world.query::<Entity>().iter(world).count(),
        heap: canopy_counting::stats().live_bytes,
    };
    for i in 0..entities as u64 {
        let npc = Npc {
            pos: [(mix(i) % 200) as f32, (mix(i + 7) % 200) as f32],
            health: 100.0,
            ..Npc::default()
        };
        app.world_mut().spawn((npc, Brain::new(tree.clone())));
    }
    app.world_mut().resource_mut::<Clock>().frames.clear();
    if std::env::args().any(|a| a == "--serve") {
        serve(&mut app, tree);
    }

    let started = Instant::now();
    for _ in 0..frames {
        app.update();
    }
    let total = started.elapsed();
    summary(&mut app, before, frames, total);
}

/// The live entities and heap bytes before the NPCs were spawned.
struct Before {
    entities: usize,
    heap: u64,
}

fn summary(app: &mut App, before: Before, frames: usize, total: Duration) {
    let heap_now = canopy_counting::stats().live_bytes;
    let world = app.world_mut();
    let all_entities = world.query::<Entity>().iter(world).count();
    let mut counts = [0usize; 3];
    let mut heap = 0usize;
    let mut query = world.query::<(&Npc, &Brain<Npc, Targets>)>();
    for (npc, brain) in query.iter(world) {
        counts[npc.doing as usize] += 1;
        heap += brain.agent().map_or(0, |a| a.heap_bytes());
    }
    let entities = counts.iter().sum::<usize>();
    let n = entities.max(1);
    let mut ai = world.resource::<Clock>().frames.clone();
    ai.sort();
    let median = ai.get(ai.len() / 2).copied().unwrap_or_default();
    let mean = ai.iter().sum::<Duration>().as_secs_f64() / ai.len().max(1) as f64;
    let per_entity = (all_entities - before.entities) as f64 / n as f64;
    let live = heap_now.saturating_sub(before.heap) as f64 / n as f64;
    let per_npc =
        std::mem::size_of::<Brain<Npc, Targets>>() + std::mem::size_of::<Npc>() + heap / n;
    println!("bevy_crowd: {entities} entities, {frames} frames, {per_entity:.2} entities per NPC");
    println!(
        "  AI (tick set): median {:.3} ms/frame, mean {:.3}; whole frame: {:.3} ms/frame",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
        total.as_secs_f64() * 1e3 / frames as f64
    );
    println!(
        "  bytes per NPC: {per_npc} (Brain {} + Npc {} + agent memory {}); \
         live heap growth since spawning: {live:.0}",
        std::mem::size_of::<Brain<Npc, Targets>>(),
        std::mem::size_of::<Npc>(),
        heap / n
    );
    println!(
        "  at the end: {} wandering, {} chasing, {} fleeing",
        counts[Doing::Wander as usize],
        counts[Doing::Chase as usize],
        counts[Doing::Flee as usize]
    );
    // One line for scripts (the side-by-side bench with bevy_behave).
    println!(
        "RESULT side=canopy npcs={entities} frames={frames} median_ms={:.3} mean_ms={:.3} \
         entities_per_npc={per_entity:.2} bytes_per_npc={live:.0}",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
    );
}

#[cfg(feature = "inspector")]
fn serve(app: &mut App, tree: Handle<TreeAsset<Npc, Targets>>) {
    use canopy_bevy::BrainInspector;
    use canopy_inspector::{Label, Options};
    let options = Options {
        title: "canopy in Bevy".to_owned(),
        legend: vec![
            Label::new("wander", "#8e24aa"),
            Label::new("chase", "#e53935"),
            Label::new("flee", "#43a047"),
        ],
        ..Options::default()
    };
    let trees = app.world().resource::<Assets<TreeAsset<Npc, Targets>>>();
    let dot = |npc: &Npc| (npc.pos, npc.doing as u8);
    let inspector = BrainInspector::start(trees, tree, options, ([0.0; 2], [SIZE; 2]), dot)
        .unwrap_or_else(|e| {
            eprintln!("error: cannot serve the inspector: {e}");
            std::process::exit(1);
        });
    println!(
        "inspector: {} (Ctrl-C to stop)",
        inspector.inspector().url()
    );
    app.insert_resource(inspector);
    loop {
        let started = Instant::now();
        app.update();
        std::thread::sleep(Duration::from_millis(33).saturating_sub(started.elapsed()));
    }
}

#[cfg(not(feature = "inspector"))]
fn serve(_: &mut App, _: Handle<TreeAsset<Npc, Targets>>) {
    eprintln!("error: --serve needs the inspector: add `--features inspector`");
    std::process::exit(2);
}
