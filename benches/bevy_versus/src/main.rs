//! canopy-bevy's `bevy_crowd` world, written the bevy_behave way, on the
//! Bevy version bevy_behave supports: NPCs flee while hurt,
//! chase the nearest target while one is in sight, else wander. The world
//! and the rules are canopy-bevy's example's `rules.rs`, included word for
//! word, so the sides can be timed side by side (`run.sh`).
//!
//! ```text
//! cargo run --release -- --entities 10000 --frames 100 --side behave
//! cargo run --release -- --side behave-sync --compute 2
//! cargo run --release -- --side hand
//! cargo run --release -- --side behave-sync --beside-hand
//! ```
//!
//! bevy_behave's idioms, as in its `chase` example: one `BehaveTree`
//! entity per NPC (a child of the NPC), holding its own copy of the tree;
//! every running leaf is a task entity the tree spawns, with a component
//! that an ordinary system acts on and that reports success or failure
//! back through a trigger; conditions are `Behave::trigger` requests
//! answered by observers. bevy_behave has no reactive selector, so a
//! running task watches the guards of the branches above it and ends
//! itself when one of them holds, handing back to the top of the tree.
//!
//! `--side behave-sync` is bevy_behave's synchronous mode
//! (`BehavePlugin::with_synchronous`: the trees are ticked in an exclusive
//! system until every trigger is answered, so a decision does not wait for
//! the next frame). `--side hand` is the rules as one hand-written system
//! on this Bevy, beside the same system on canopy's Bevy. `--beside-hand`
//! runs the hand-written crowd in a second app of the same process, the
//! two taking turns frame by frame, and prints the median ratio of their
//! frames' AI times.

#[path = "../../../crates/canopy-bevy/examples/bevy_crowd/rules.rs"]
mod rules;

use std::time::{Duration, Instant};

use bevy::app::{App, TaskPoolOptions, TaskPoolPlugin, Update};
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy::time::TimePlugin;
use bevy_behave::prelude::*;
use canopy_counting::Counting;
use rules::{Doing, Targets};

/// Counts live heap bytes, so bytes per NPC are measured the same way on
/// both sides.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The NPC's own data, on the NPC entity: as in the canopy example.
#[derive(Component, Clone, Copy, Debug, Default)]
struct Npc {
    pos: [f32; 2],
    health: f32,
    want: [f32; 2],
    id: u32,
    doing: Doing,
    fleeing: bool,
}

/// The world view: the targets and the frame number.
#[derive(Resource)]
struct Field {
    targets: Targets,
    frame: u32,
}

/// Condition request: is the NPC hurt?
#[derive(Clone)]
struct IsHurt;

/// Condition request: does the NPC see a target?
#[derive(Clone)]
struct SeesTarget;

/// Task component: run from the nearest target until healed.
#[derive(Component, Clone)]
struct Flee;

/// Task component: go to the nearest target while one is in sight.
#[derive(Component, Clone)]
struct Chase;

/// Task component: walk in a direction that changes every few frames.
#[derive(Component, Clone)]
struct Wander;

fn tree() -> BehaveTree {
    BehaveTree::new(behave! {
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
        .is_ok_and(|n| n.health < rules::HURT_BELOW);
    commands.trigger(if hurt { ctx.success() } else { ctx.failure() });
}

fn on_sees_target(
    ev: On<BehaveTrigger<SeesTarget>>,
    npcs: Query<&Npc>,
    field: Res<Field>,
    mut commands: Commands,
) {
    let ctx = ev.event().ctx();
    let sees = npcs
        .get(ctx.target_entity())
        .is_ok_and(|n| field.targets.nearest(n.pos).1 <= rules::SEES);
    commands.trigger(if sees { ctx.success() } else { ctx.failure() });
}

/// Flee until health is back: the intent of this frame, then success.
fn flee_tasks(
    tasks: Query<&BehaveCtx, With<Flee>>,
    mut npcs: Query<&mut Npc>,
    field: Res<Field>,
    mut commands: Commands,
) {
    for ctx in &tasks {
        let Ok(mut npc) = npcs.get_mut(ctx.target_entity()) else {
            continue;
        };
        let (target, _) = field.targets.nearest(npc.pos);
        npc.want = rules::toward(target, npc.pos);
        npc.doing = Doing::Flee;
        if npc.health >= rules::FLEE_UNTIL {
            commands.trigger(ctx.success());
        }
    }
}

/// Chase while a target is in sight. Hurt: success, so that the tree
/// starts again from the top (fleeing); no target in sight: failure, so
/// that the fallback goes on to wander.
fn chase_tasks(
    tasks: Query<&BehaveCtx, With<Chase>>,
    mut npcs: Query<&mut Npc>,
    field: Res<Field>,
    mut commands: Commands,
) {
    for ctx in &tasks {
        let Ok(mut npc) = npcs.get_mut(ctx.target_entity()) else {
            continue;
        };
        if npc.health < rules::HURT_BELOW {
            commands.trigger(ctx.success());
            continue;
        }
        let (target, d) = field.targets.nearest(npc.pos);
        if d > rules::SEES {
            commands.trigger(ctx.failure());
            continue;
        }
        npc.want = rules::toward(npc.pos, target);
        npc.doing = Doing::Chase;
    }
}

/// Wander until hurt or a target is seen, then hand back to the top.
fn wander_tasks(
    tasks: Query<&BehaveCtx, With<Wander>>,
    mut npcs: Query<&mut Npc>,
    field: Res<Field>,
    mut commands: Commands,
) {
    for ctx in &tasks {
        let Ok(mut npc) = npcs.get_mut(ctx.target_entity()) else {
            continue;
        };
        if npc.health < rules::HURT_BELOW || field.targets.nearest(npc.pos).1 <= rules::SEES {
            commands.trigger(ctx.success());
            continue;
        }
        npc.want = rules::wander(npc.id, field.frame, rules::TURN_EVERY);
        npc.doing = Doing::Wander;
    }
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

/// The game's movement, as in the canopy example.
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

/// Time spent in the AI part of each frame: bevy_behave's set, the task
/// systems, and the commands and observers they run (or the hand-written
/// system).
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Behave,
    BehaveSync,
    Hand,
}

fn main() {
    let entities = number("--entities", 10_000);
    let frames = number("--frames", 100);
    let compute = number("--compute", 0);
    let side = match arg("--side").as_deref() {
        None | Some("behave") => Side::Behave,
        Some("behave-sync") => Side::BehaveSync,
        Some("hand") => Side::Hand,
        Some(other) => {
            eprintln!("error: --side is behave, behave-sync or hand, not {other:?}");
            std::process::exit(2);
        }
    };
    // The yardstick in the same process, built first so that the heap
    // growth counted for this side is its own; the two take turns frame by
    // frame.
    let mut yardstick = std::env::args().any(|a| a == "--beside-hand").then(|| {
        let mut hand = Crowd::new(Side::Hand, compute, entities);
        // Its heap stops at its spawning (the hand-written system
        // allocates nothing after): what comes next is the other's.
        hand.heap_after = Some(canopy_counting::stats().live_bytes);
        hand
    });
    let mut crowd = Crowd::new(side, compute, entities);

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

/// One crowd in its own Bevy app.
struct Crowd {
    app: App,
    side: Side,
    /// The heap bytes of one more copy of the tree.
    clone_bytes: u64,
    /// The live entities and heap bytes before the NPCs were spawned.
    entities_before: usize,
    heap_before: u64,
    /// Where its heap count stops, when another crowd was built after it.
    heap_after: Option<u64>,
}

impl Crowd {
    fn new(side: Side, compute: usize, entities: usize) -> Crowd {
        let mut app = App::new();
        app.add_plugins((pools(compute), TimePlugin))
            .insert_resource(Field {
                targets: Targets::new(),
                frame: 0,
            })
            .init_resource::<Clock>();
        match side {
            Side::Hand => {
                app.add_systems(Update, (start_clock, think, stop_clock, walk, bite).chain());
            }
            Side::Behave | Side::BehaveSync => {
                let plugin = BehavePlugin::new(Update);
                let plugin = match side {
                    Side::BehaveSync => plugin.with_synchronous(),
                    _ => plugin,
                };
                app.add_plugins(plugin)
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
            }
        }
        app.update();

        let world = app.world_mut();
        let entities_before = world.query::<Entity>().iter(world).count();
        let heap_before = canopy_counting::stats().live_bytes;
        let tree = tree();
        let clone_bytes = tree_clone_bytes(&tree);
        for i in 0..entities as u32 {
            let npc = Npc {
                pos: rules::start(u64::from(i)),
                health: 100.0,
                id: i,
                ..Npc::default()
            };
            if side == Side::Hand {
                world.spawn(npc);
            } else {
                world.spawn(npc).with_child(tree.clone());
            }
        }
        drop(tree);
        world.resource_mut::<Clock>().frames.clear();
        // The frames run before the NPCs came (loading) do not count.
        world.resource_mut::<Field>().frame = 0;
        Crowd {
            app,
            side,
            clone_bytes,
            entities_before,
            heap_before,
            heap_after: None,
        }
    }
}

/// Print what the crowd did and what it cost, and give back its AI time
/// frame by frame.
fn summary(crowd: &mut Crowd, frames: usize, total: Duration) -> Vec<Duration> {
    let side = crowd.side;
    let heap = crowd
        .heap_after
        .unwrap_or_else(|| canopy_counting::stats().live_bytes)
        .saturating_sub(crowd.heap_before);
    let compute = ComputeTaskPool::get().thread_num();
    let world = crowd.app.world_mut();
    let spawned = world.query::<Entity>().iter(world).count() - crowd.entities_before;
    let mut counts = [0usize; 3];
    for npc in world.query::<&Npc>().iter(world) {
        counts[npc.doing as usize] += 1;
    }
    let entities = counts.iter().sum::<usize>();
    let frame_times = world.resource::<Clock>().frames.clone();
    let mut ai = frame_times.clone();
    ai.sort();
    let median = ai.get(ai.len() / 2).copied().unwrap_or_default();
    let mean = ai.iter().sum::<Duration>().as_secs_f64() / ai.len().max(1) as f64;
    let n = entities.max(1) as f64;
    let name = match side {
        Side::Behave => "bevy_behave",
        Side::BehaveSync => "bevy_behave-sync",
        Side::Hand => "hand-0.18",
    };
    println!("{name}: {entities} NPCs, {frames} frames, {compute} compute threads");
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
    if side != Side::Hand {
        println!(
            "  of which one clone of the tree: {} heap bytes",
            crowd.clone_bytes
        );
    }
    println!(
        "  at the end: {} wandering, {} chasing, {} fleeing",
        counts[0], counts[1], counts[2]
    );
    println!(
        "RESULT side={name} bevy=0.18 compute={compute} npcs={entities} frames={frames} \
         median_ms={:.3} mean_ms={:.3} entities_per_npc={:.2} bytes_per_npc={:.0} \
         wander={} chase={} flee={}",
        median.as_secs_f64() * 1e3,
        mean * 1e3,
        spawned as f64 / n,
        heap as f64 / n,
        counts[0],
        counts[1],
        counts[2]
    );
    frame_times
}
