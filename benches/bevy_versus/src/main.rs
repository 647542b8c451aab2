//! canopy-bevy's `bevy_crowd` world, written the bevy_behave way, on the
//! Bevy version bevy_behave supports: NPCs flee while hurt, chase the
//! nearest target they see, else wander. Same counts, same sensing radius,
//! same damage and movement as the canopy example, so the two can be timed
//! side by side (`run.sh`).
//!
//! ```text
//! cargo run --release -- --entities 10000 --frames 200 --threads 2
//! ```
//!
//! bevy_behave's idioms: one `BehaveTree` entity per NPC (a child of the
//! NPC), holding its own copy of the tree; every running leaf is a task
//! entity the tree spawns, with a component that an ordinary system acts
//! on and that reports success or failure back through a trigger;
//! conditions are `Behave::trigger` requests answered by observers.
//! bevy_behave has no reactive selector, so a running leaf watches the
//! guards of the branches above it and ends itself when one of them holds,
//! which makes the tree pick again from the top.

use std::time::{Duration, Instant};

use bevy::app::{App, TaskPoolOptions, TaskPoolPlugin, Update};
use bevy::prelude::*;
use bevy::time::TimePlugin;
use bevy_behave::prelude::*;
use canopy_counting::Counting;

/// Counts live heap bytes, so bytes per NPC are measured the same way on
/// both sides.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SIZE: f32 = 200.0;
const SPEED: f32 = 0.5;
const TARGETS: u64 = 64;
const HURT_BELOW: f32 = 30.0;
const FLEE_UNTIL: f32 = 80.0;
const SEES_RADIUS: f32 = 6.0;
const TURN_EVERY: u32 = 20;

/// The NPC's own data, on the NPC entity: as in the canopy example.
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

/// Where the targets are.
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
    fn sees(&self, from: [f32; 2]) -> bool {
        self.nearest(from).1 <= SEES_RADIUS
    }
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn toward(from: [f32; 2], to: [f32; 2]) -> [f32; 2] {
    let d = distance(from, to).max(1e-6);
    [(to[0] - from[0]) / d, (to[1] - from[1]) / d]
}

/// splitmix64's finaliser, as in the canopy example.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Condition request: is the NPC hurt?
#[derive(Clone)]
struct IsHurt;

/// Condition request: does the NPC see a target?
#[derive(Clone)]
struct SeesTarget;

/// Task component: run from the nearest target.
#[derive(Component, Clone)]
struct Flee;

/// Task component: go to the nearest target.
#[derive(Component, Clone)]
struct Chase;

/// Task component: walk in a direction that changes every few frames.
#[derive(Component, Clone)]
struct Wander;

/// Frames so far, for the wander direction (canopy's `cx.tick`).
#[derive(Resource, Default)]
struct Frame(u32);

fn tree() -> BehaveTree {
    BehaveTree::new(tree! {
        Behave::Forever => {
            Behave::Fallback => {
                Behave::Sequence => {
                    Behave::trigger(IsHurt),
                    Behave::spawn_named("flee", Flee),
                },
                Behave::Sequence => {
                    Behave::trigger(SeesTarget),
                    Behave::spawn_named("chase", Chase),
                },
                Behave::spawn_named("wander", Wander),
            }
        }
    })
}

fn on_is_hurt(ev: On<BehaveTrigger<IsHurt>>, npcs: Query<&Npc>, mut commands: Commands) {
    let ctx = ev.event().ctx();
    let hurt = npcs
        .get(ctx.target_entity())
        .is_ok_and(|n| n.health < HURT_BELOW);
    commands.trigger(if hurt { ctx.success() } else { ctx.failure() });
}

fn on_sees_target(
    ev: On<BehaveTrigger<SeesTarget>>,
    npcs: Query<&Npc>,
    targets: Res<Targets>,
    mut commands: Commands,
) {
    let ctx = ev.event().ctx();
    let sees = npcs
        .get(ctx.target_entity())
        .is_ok_and(|n| targets.sees(n.pos));
    commands.trigger(if sees { ctx.success() } else { ctx.failure() });
}

/// Flee while hurt; end when health is back (success) or when no longer
/// hurt (failure: canopy's reactive selector would abort it then).
fn flee_tasks(
    tasks: Query<&BehaveCtx, With<Flee>>,
    mut npcs: Query<&mut Npc>,
    targets: Res<Targets>,
    mut commands: Commands,
) {
    for ctx in &tasks {
        let Ok(mut npc) = npcs.get_mut(ctx.target_entity()) else {
            continue;
        };
        if npc.health >= HURT_BELOW {
            commands.trigger(ctx.failure());
            continue;
        }
        let (target, _) = targets.nearest(npc.pos);
        npc.want = toward(target, npc.pos);
        npc.doing = Doing::Flee;
        if npc.health >= FLEE_UNTIL {
            commands.trigger(ctx.success());
        }
    }
}

/// Chase while a target is seen and the NPC is not hurt.
fn chase_tasks(
    tasks: Query<&BehaveCtx, With<Chase>>,
    mut npcs: Query<&mut Npc>,
    targets: Res<Targets>,
    mut commands: Commands,
) {
    for ctx in &tasks {
        let Ok(mut npc) = npcs.get_mut(ctx.target_entity()) else {
            continue;
        };
        let (target, d) = targets.nearest(npc.pos);
        if npc.health < HURT_BELOW || d > SEES_RADIUS {
            commands.trigger(ctx.failure());
            continue;
        }
        npc.want = toward(npc.pos, target);
        npc.doing = Doing::Chase;
    }
}

/// Wander until hurt or a target is seen, then hand back to the tree.
fn wander_tasks(
    tasks: Query<&BehaveCtx, With<Wander>>,
    mut npcs: Query<&mut Npc>,
    targets: Res<Targets>,
    frame: Res<Frame>,
    mut commands: Commands,
) {
    for ctx in &tasks {
        let entity = ctx.target_entity();
        let Ok(mut npc) = npcs.get_mut(entity) else {
            continue;
        };
        if npc.health < HURT_BELOW || targets.sees(npc.pos) {
            commands.trigger(ctx.success());
            continue;
        }
        let turn = u64::from(frame.0 / TURN_EVERY);
        let angle = (mix(u64::from(entity.index_u32()) << 32 | turn) % 6283) as f32 / 1000.0;
        npc.want = [angle.cos(), angle.sin()];
        npc.doing = Doing::Wander;
    }
}

/// The game's movement, as in the canopy example.
fn walk(mut npcs: Query<&mut Npc>) {
    npcs.par_iter_mut().for_each(|mut npc| {
        for axis in 0..2 {
            npc.pos[axis] = (npc.pos[axis] + npc.want[axis] * SPEED).clamp(0.0, SIZE);
        }
    });
}

/// Targets bite whoever stands next to them; the others heal slowly.
fn bite(targets: Res<Targets>, mut npcs: Query<&mut Npc>, mut frame: ResMut<Frame>) {
    npcs.par_iter_mut().for_each(|mut npc| {
        let hurt = targets.nearest(npc.pos).1 < 1.5;
        npc.health = if hurt {
            npc.health - 10.0
        } else {
            npc.health + 0.5
        }
        .clamp(0.0, 100.0);
    });
    frame.0 += 1;
}

/// Time spent in the AI part of each frame: bevy_behave's set, the task
/// systems, and the commands and observers they run.
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

/// Heap bytes one more copy of the tree costs (each NPC gets one).
fn tree_clone_bytes(tree: &BehaveTree) -> u64 {
    const COPIES: u64 = 100;
    let mut copies = Vec::with_capacity(COPIES as usize);
    let before = canopy_counting::stats().live_bytes;
    for _ in 0..COPIES {
        copies.push(tree.clone());
    }
    let bytes = canopy_counting::stats().live_bytes - before;
    drop(copies);
    bytes / COPIES
}

fn main() {
    let entities = arg("--entities", 10_000);
    let frames = arg("--frames", 200);
    let threads = arg("--threads", 2);
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin {
            task_pool_options: TaskPoolOptions::with_num_threads(threads),
        },
        TimePlugin,
    ))
    .add_plugins(BehavePlugin::new(Update))
    .insert_resource(Targets(
        (0..TARGETS)
            .map(|i| [(mix(i) % 200) as f32, (mix(i + 1000) % 200) as f32])
            .collect(),
    ))
    .init_resource::<Frame>()
    .init_resource::<Clock>()
    .add_observer(on_is_hurt)
    .add_observer(on_sees_target)
    .add_systems(Update, start_clock.before(BehaveSet))
    .add_systems(
        Update,
        (flee_tasks, chase_tasks, wander_tasks).after(BehaveSet),
    )
    .add_systems(
        Update,
        stop_clock
            .after(flee_tasks)
            .after(chase_tasks)
            .after(wander_tasks),
    )
    .add_systems(Update, (walk, bite).chain().after(stop_clock));
    app.update();

    let world = app.world_mut();
    let entities_before = world.query::<Entity>().iter(world).count();
    let heap_before = canopy_counting::stats().live_bytes;
    let tree = tree();
    let clone_bytes = tree_clone_bytes(&tree);
    for i in 0..entities as u64 {
        let npc = Npc {
            pos: [(mix(i) % 200) as f32, (mix(i + 7) % 200) as f32],
            health: 100.0,
            ..Npc::default()
        };
        world.spawn(npc).with_child(tree.clone());
    }
    drop(tree);
    app.world_mut().resource_mut::<Clock>().frames.clear();

    let started = Instant::now();
    for _ in 0..frames {
        app.update();
    }
    let total = started.elapsed();
    let heap = canopy_counting::stats()
        .live_bytes
        .saturating_sub(heap_before);
    let world = app.world_mut();
    let spawned = world.query::<Entity>().iter(world).count() - entities_before;
    let mut counts = [0usize; 3];
    for npc in world.query::<&Npc>().iter(world) {
        counts[npc.doing as usize] += 1;
    }
    let clock = world.resource::<Clock>();
    let mut ai: Vec<Duration> = clock.frames.clone();
    ai.sort();
    let median = ai.get(ai.len() / 2).copied().unwrap_or_default();
    let mean = ai.iter().sum::<Duration>().as_secs_f64() / ai.len().max(1) as f64;
    let n = entities.max(1) as f64;
    println!("bevy_behave: {entities} NPCs, {frames} frames, {threads} threads");
    println!(
        "  AI: median {:.3} ms/frame, mean {:.3}; whole frame {:.3} ms",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
        total.as_secs_f64() * 1e3 / frames as f64
    );
    println!(
        "  {:.2} entities per NPC, {:.0} live heap bytes per NPC",
        spawned as f64 / n,
        heap as f64 / n
    );
    println!("  of which one clone of the tree: {clone_bytes} heap bytes");
    println!(
        "  at the end: {} wandering, {} chasing, {} fleeing",
        counts[0], counts[1], counts[2]
    );
    println!(
        "RESULT side=bevy_behave npcs={entities} frames={frames} median_ms={:.3} mean_ms={:.3} entities_per_npc={:.2} bytes_per_npc={:.0}",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
        spawned as f64 / n,
        heap as f64 / n
    );
}
