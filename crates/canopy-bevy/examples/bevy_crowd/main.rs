//! A headless Bevy crowd: thousands of entities share one tree file
//! (`assets/npc.json`): flee while hurt, chase the nearest
//! target while one is in sight, else wander. The tree only writes intents
//! (a wanted direction); ordinary systems move everyone and apply the
//! damage, in batches. Prints a summary after a fixed number of frames.
//!
//! ```text
//! cargo run --release -p canopy-bevy --example bevy_crowd -- --entities 10000 --frames 100
//! cargo run --release -p canopy-bevy --example bevy_crowd -- --side hand --compute 2
//! cargo run --release -p canopy-bevy --example bevy_crowd -- --beside-hand
//! cargo run --release -p canopy-bevy --features inspector --example bevy_crowd -- --serve
//! ```
//!
//! `--side hand` runs the same rules as one hand-written system instead
//! of the tree (`rules::decide`, the yardstick of `benches/bevy_versus`);
//! `--beside-hand` runs that system's crowd in a second app of the same
//! process, the two taking turns frame by frame, and prints the median
//! ratio of their frames' AI times (a slow spell of a shared machine then
//! touches both alike);
//! `--compute N` gives Bevy's compute pool N threads (the default is
//! Bevy's own split of the machine's cores). The world and the rules are
//! in `rules.rs`, which the bevy_behave side of the bench shares.
//!
//! `--serve` (feature `inspector`) runs until stopped, at 30 frames a
//! second, with canopy's inspector on <http://127.0.0.1:7878>: the crowd
//! as dots coloured by what each NPC does; click one to see its tree. With
//! the feature `file_watcher` too, editing `assets/npc.json` moves the
//! running crowd onto the new tree, and the example says what was kept.

mod rules;

use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolOptions, TaskPoolPlugin, Update};
use bevy_asset::{AssetPlugin, AssetServer, Assets, Handle};
use bevy_ecs::prelude::*;
use bevy_tasks::ComputeTaskPool;
use canopy::Status;
use canopy::data::{Params, Registry};
use canopy_bevy::{Brain, CanopyPlugin, CanopySystems, TreeAsset, TreeReloaded};
use canopy_counting::Counting;
use rules::{Doing, Targets};

/// Counts live heap bytes: the bytes per NPC the summary reports are
/// measured the same way as in the bevy_behave side-by-side bench.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What an NPC's tree reads and writes: its number, position and health,
/// and the direction it wants to go (the intent the movement system
/// carries out). `fleeing` is the hand-written system's memory; the tree
/// keeps its own.
#[derive(Component, Clone, Copy, Debug, Default)]
struct Npc {
    pos: [f32; 2],
    health: f32,
    want: [f32; 2],
    id: u32,
    doing: Doing,
    fleeing: bool,
}

/// The world view every tree reads: the targets and the frame number.
#[derive(Resource)]
struct Field {
    targets: Targets,
    frame: u32,
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

/// Goes to the nearest target; fails once none is within `radius`.
#[derive(Params)]
struct Chase {
    /// How far the NPC sees.
    radius: f32,
}

/// Walks in a direction that changes every `turn_every` frames.
#[derive(Params)]
struct Wander {
    /// Frames between turns.
    turn_every: u32,
}

fn registry() -> Registry<Npc, Field> {
    let mut r = Registry::<Npc, Field>::new();
    r.condition("Hurt", |p: Hurt| move |cx| cx.agent.health < p.below)
        .unwrap();
    r.condition("Sees", |p: Sees| {
        move |cx| cx.world.targets.nearest(cx.agent.pos).1 <= p.radius
    })
    .unwrap();
    r.action("Flee", |p: Flee| {
        move |cx| {
            let (target, _) = cx.world.targets.nearest(cx.agent.pos);
            cx.agent.want = rules::toward(target, cx.agent.pos);
            cx.agent.doing = Doing::Flee;
            if cx.agent.health >= p.until {
                Status::Success
            } else {
                Status::Running
            }
        }
    })
    .unwrap();
    r.action("Chase", |p: Chase| {
        move |cx| {
            let (target, d) = cx.world.targets.nearest(cx.agent.pos);
            if d > p.radius {
                return Status::Failure;
            }
            cx.agent.want = rules::toward(cx.agent.pos, target);
            cx.agent.doing = Doing::Chase;
            Status::Running
        }
    })
    .unwrap();
    r.action("Wander", |p: Wander| {
        move |cx| {
            cx.agent.want = rules::wander(cx.agent.id, cx.world.frame, p.turn_every);
            cx.agent.doing = Doing::Wander;
            Status::Running
        }
    })
    .unwrap();
    r
}

/// The same rules without a tree: one hand-written system.
fn think(field: Res<Field>, mut npcs: Query<&mut Npc>) {
    let field = &*field;
    npcs.par_iter_mut().for_each(|mut npc| {
        let npc = &mut *npc;
        let (want, doing) = rules::decide(
            npc.pos,
            npc.health,
            npc.id,
            &mut npc.fleeing,
            &field.targets,
            field.frame,
        );
        npc.want = want;
        npc.doing = doing;
    });
}

/// The game's movement: every intent carried out at once.
fn walk(mut npcs: Query<&mut Npc>) {
    npcs.par_iter_mut().for_each(|mut npc| {
        let want = npc.want;
        rules::walk(&mut npc.pos, want);
    });
}

/// Targets bite whoever stands next to them; the others heal slowly. Then
/// the frame is over.
fn bite(mut field: ResMut<Field>, mut npcs: Query<&mut Npc>) {
    let field = &mut *field;
    let targets = &field.targets;
    npcs.par_iter_mut().for_each(|mut npc| {
        npc.health = rules::bite(npc.health, targets, npc.pos);
    });
    field.frame += 1;
}

/// Say what an edit of the tree file did to the running crowd.
fn say_reloads(mut reloads: MessageReader<TreeReloaded<Npc, Field>>) {
    for r in reloads.read() {
        println!(
            "reloaded npc.json: {} NPCs moved, {} running tasks kept, {} aborted",
            r.brains, r.kept, r.aborted
        );
    }
}

/// Time spent in the AI (the tick set, or the hand-written system), frame
/// by frame.
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

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

fn number(name: &str, default: usize) -> usize {
    arg(name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Bevy's task pools, with `compute` threads for the compute pool (0:
/// Bevy's own split of the cores).
fn pools(compute: usize) -> TaskPoolPlugin {
    let mut options = TaskPoolOptions::default();
    if compute > 0 {
        options.compute.min_threads = compute;
        options.compute.max_threads = compute;
    }
    TaskPoolPlugin {
        task_pool_options: options,
    }
}

fn main() {
    let (entities, frames) = (number("--entities", 10_000), number("--frames", 100));
    let compute = number("--compute", 0);
    let hand = match arg("--side").as_deref() {
        None | Some("canopy") => false,
        Some("hand") => true,
        Some(other) => {
            eprintln!("error: --side is canopy or hand, not {other:?}");
            std::process::exit(2);
        }
    };
    // The yardstick in the same process, built first so that the heap
    // growth counted for this side is its own; the two take turns frame by
    // frame.
    let mut yardstick = std::env::args().any(|a| a == "--beside-hand").then(|| {
        let mut hand = Crowd::new(true, compute, entities);
        // Its heap stops at its spawning (the hand-written system
        // allocates nothing after): what comes next is the other's.
        hand.heap_after = Some(canopy_counting::stats().live_bytes);
        hand
    });
    let mut crowd = Crowd::new(hand, compute, entities);
    if std::env::args().any(|a| a == "--serve") {
        match crowd.tree.take() {
            Some(tree) => serve(&mut crowd.app, tree),
            None => {
                eprintln!("error: --serve shows the tree: leave out --side hand");
                std::process::exit(2);
            }
        }
    }

    let started = Instant::now();
    for frame in 0..frames {
        match &mut yardstick {
            // Each goes first on every other frame.
            Some(other) if frame % 2 == 1 => {
                other.app.update();
                crowd.app.update();
            }
            Some(other) => {
                crowd.app.update();
                other.app.update();
            }
            None => crowd.app.update(),
        }
    }
    let total = started.elapsed();
    let mine = summary(&mut crowd, frames, total);
    if let Some(mut other) = yardstick {
        let theirs = summary(&mut other, frames, total);
        let ratio = median_ratio(&mine, &theirs);
        println!(
            "  frame by frame, the median of this side's AI time over the hand-written's: {ratio:.3}"
        );
        println!("RESULT side=ratio npcs={entities} frames={frames} ratio={ratio:.3}");
    }
}

/// The median of `a[i] / b[i]`: two crowds timed frame by frame in turn,
/// so that a slow spell of the machine touches both.
fn median_ratio(a: &[Duration], b: &[Duration]) -> f64 {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64().max(1e-9))
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN)
}

/// One crowd in its own Bevy app: the tree's or the hand-written rules'.
struct Crowd {
    app: App,
    hand: bool,
    tree: Option<Handle<TreeAsset<Npc, Field>>>,
    /// The live entities and heap bytes before the NPCs were spawned.
    entities_before: usize,
    heap_before: u64,
    /// Where its heap count stops, when another crowd was built after it.
    heap_after: Option<u64>,
}

impl Crowd {
    fn new(hand: bool, compute: usize, entities: usize) -> Crowd {
        let mut app = App::new();
        let assets = AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_owned(),
            // With the feature, editing assets/npc.json reloads the running crowd.
            watch_for_changes_override: Some(cfg!(feature = "file_watcher")),
            ..AssetPlugin::default()
        };
        app.add_plugins((pools(compute), assets))
            .insert_resource(Field {
                targets: Targets::new(),
                frame: 0,
            })
            .init_resource::<Clock>();
        let tree = if hand {
            app.add_systems(Update, (start_clock, think, stop_clock, walk, bite).chain());
            None
        } else {
            app.add_plugins(CanopyPlugin::new(registry()))
                // The clock spans canopy's sets up to the tick: the reload
                // check as well as the tick.
                .add_systems(Update, start_clock.before(CanopySystems::Reload))
                .add_systems(Update, stop_clock.after(CanopySystems::Tick).before(walk))
                .add_systems(Update, (walk, bite).chain().after(CanopySystems::Tick))
                .add_systems(Update, say_reloads.after(CanopySystems::Reload));
            Some(load_tree(&mut app))
        };
        let world = app.world_mut();
        let entities_before = world.query::<Entity>().iter(world).count();
        let heap_before = canopy_counting::stats().live_bytes;
        for i in 0..entities as u32 {
            let npc = Npc {
                pos: rules::start(u64::from(i)),
                health: 100.0,
                id: i,
                ..Npc::default()
            };
            match &tree {
                Some(tree) => world.spawn((npc, Brain::new(tree.clone()))),
                None => world.spawn(npc),
            };
        }
        world.resource_mut::<Clock>().frames.clear();
        // The frames run before the NPCs came (loading) do not count.
        world.resource_mut::<Field>().frame = 0;
        Crowd {
            app,
            hand,
            tree,
            entities_before,
            heap_before,
            heap_after: None,
        }
    }
}

/// Ask the asset server for the tree file and wait until it is loaded.
fn load_tree(app: &mut App) -> Handle<TreeAsset<Npc, Field>> {
    let tree: Handle<TreeAsset<Npc, Field>> =
        app.world().resource::<AssetServer>().load("npc.json");
    while !app
        .world()
        .resource::<Assets<TreeAsset<Npc, Field>>>()
        .contains(&tree)
    {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    tree
}

/// Print what the crowd did and what it cost, and give back its AI time
/// frame by frame.
fn summary(crowd: &mut Crowd, frames: usize, total: Duration) -> Vec<Duration> {
    let hand = crowd.hand;
    let heap_now = crowd
        .heap_after
        .unwrap_or_else(|| canopy_counting::stats().live_bytes);
    let compute = ComputeTaskPool::get().thread_num();
    let world = crowd.app.world_mut();
    let all_entities = world.query::<Entity>().iter(world).count();
    let mut counts = [0usize; 3];
    for npc in world.query::<&Npc>().iter(world) {
        counts[npc.doing as usize] += 1;
    }
    let mut agents = 0usize;
    for brain in world.query::<&Brain<Npc, Field>>().iter(world) {
        agents += brain.agent().map_or(0, |a| a.heap_bytes());
    }
    let entities = counts.iter().sum::<usize>();
    let n = entities.max(1);
    let frame_times = world.resource::<Clock>().frames.clone();
    let mut ai = frame_times.clone();
    ai.sort();
    let median = ai.get(ai.len() / 2).copied().unwrap_or_default();
    let mean = ai.iter().sum::<Duration>().as_secs_f64() / ai.len().max(1) as f64;
    let per_entity = (all_entities - crowd.entities_before) as f64 / n as f64;
    let live = heap_now.saturating_sub(crowd.heap_before) as f64 / n as f64;
    let side = if hand { "hand" } else { "canopy" };
    println!(
        "bevy_crowd ({side}): {entities} NPCs, {frames} frames, {compute} compute threads, \
         {per_entity:.2} entities per NPC"
    );
    println!(
        "  AI: median {:.3} ms/frame, mean {:.3}; whole frame: {:.3} ms/frame",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
        total.as_secs_f64() * 1e3 / frames as f64
    );
    let brain = if hand {
        0
    } else {
        std::mem::size_of::<Brain<Npc, Field>>()
    };
    println!(
        "  bytes per NPC: {} (Brain {brain} + Npc {} + agent memory {}); \
         live heap growth since spawning: {live:.0}",
        brain + std::mem::size_of::<Npc>() + agents / n,
        std::mem::size_of::<Npc>(),
        agents / n
    );
    println!(
        "  at the end: {} wandering, {} chasing, {} fleeing",
        counts[Doing::Wander as usize],
        counts[Doing::Chase as usize],
        counts[Doing::Flee as usize]
    );
    // One line for scripts (the side-by-side bench with bevy_behave).
    println!(
        "RESULT side={side} bevy=0.20 compute={compute} npcs={entities} frames={frames} \
         median_ms={:.3} mean_ms={:.3} entities_per_npc={per_entity:.2} bytes_per_npc={live:.0} \
         wander={} chase={} flee={}",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
        counts[Doing::Wander as usize],
        counts[Doing::Chase as usize],
        counts[Doing::Flee as usize]
    );
    frame_times
}

#[cfg(feature = "inspector")]
fn serve(app: &mut App, tree: Handle<TreeAsset<Npc, Field>>) {
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
    let trees = app.world().resource::<Assets<TreeAsset<Npc, Field>>>();
    let dot = |npc: &Npc| (npc.pos, npc.doing as u8);
    let bounds = ([0.0; 2], [rules::SIZE; 2]);
    let inspector = BrainInspector::start(trees, tree, options, bounds, dot).unwrap_or_else(|e| {
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
fn serve(_: &mut App, _: Handle<TreeAsset<Npc, Field>>) {
    eprintln!("error: --serve needs the inspector: add `--features inspector`");
    std::process::exit(2);
}
