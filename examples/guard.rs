//! The guard NPC, written as a user of canopy writes one: it patrols
//! between points, chases an enemy it sees, and flees when hurt. `Patrol`
//! is a node type of its own with per-guard state (the point it heads
//! for, how long it has waited there); the other leaves are closures. The
//! tree is a file, `examples/trees/guard.json`, with the patrol points
//! written as a list of points; 10,000 guards share it and tick on rayon.
//!
//! ```text
//! cargo run --release --example guard -- --guards 10000 --ticks 300
//! ```

use std::error::Error;

use canopy::data::{Params, Registry, RegistryError, Ticks};
use canopy::{Agent, Arity, Children, Ctx, Node, Status, Task};
use rayon::prelude::*;

/// What a guard is doing, for the counts at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doing {
    Patrol,
    Chase,
    Flee,
}

/// A guard's own data: the tree's `A`.
struct Guard {
    pos: [f32; 2],
    health: f32,
    doing: Doing,
}

/// The shared world: the tree's `W`, read-only while guards tick.
struct World {
    enemies: Vec<[f32; 2]>,
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// `from` moved `speed` towards `to` (or away, for a negative speed),
/// stopping on it.
fn step(from: [f32; 2], to: [f32; 2], speed: f32) -> [f32; 2] {
    let d = distance(from, to);
    if d <= speed {
        return if speed > 0.0 { to } else { from };
    }
    let k = speed / d;
    [
        from[0] + (to[0] - from[0]) * k,
        from[1] + (to[1] - from[1]) * k,
    ]
}

impl World {
    /// The nearest enemy and its distance.
    fn nearest_enemy(&self, at: [f32; 2]) -> Option<([f32; 2], f32)> {
        self.enemies
            .iter()
            .map(|&e| (e, distance(at, e)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Enemies circle the yard, each on its own orbit.
    fn at_tick(tick: u32) -> World {
        let enemies = (0..24)
            .map(|i| {
                let (r, speed) = (10.0 + 2.0 * i as f32, 0.01 + 0.002 * (i % 5) as f32);
                let angle = i as f32 + speed * tick as f32;
                [r * angle.cos(), r * angle.sin()]
            })
            .collect();
        World { enemies }
    }
}

/// Walks between points in order, waiting at each, for ever.
#[derive(Params)]
struct PatrolParams {
    /// The points to walk between, in order.
    #[param(len = 2..)]
    points: Vec<[f32; 2]>,
    /// Ticks to wait at each point.
    #[param(default = 10)]
    wait: Ticks,
    /// Distance walked per tick.
    #[param(default = 1.0, range = 0.1..=10.0)]
    speed: f32,
}

/// The shared node: one for every guard.
struct Patrol(PatrolParams);

/// Each guard's own state while it patrols: plain bytes in its agent.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct PatrolTask {
    next: u32,
    waited: u32,
}

impl Node<Guard, World> for Patrol {
    type Task = PatrolTask;

    fn create_task(&self, cx: &mut Ctx<Guard, World>) -> PatrolTask {
        // Back from a chase, a guard goes on from the nearest point.
        let points = &self.0.points;
        let nearest = (0..points.len())
            .min_by(|&a, &b| {
                let (da, db) = (
                    distance(cx.agent.pos, points[a]),
                    distance(cx.agent.pos, points[b]),
                );
                da.total_cmp(&db)
            })
            .unwrap_or(0);
        PatrolTask {
            next: nearest as u32,
            waited: 0,
        }
    }

    fn update(
        &self,
        task: &mut PatrolTask,
        cx: &mut Ctx<Guard, World>,
        _: &mut Children<Guard, World>,
    ) -> Status {
        let PatrolParams {
            points,
            wait,
            speed,
        } = &self.0;
        cx.agent.doing = Doing::Patrol;
        let target = points[task.next as usize];
        if cx.agent.pos != target {
            cx.agent.pos = step(cx.agent.pos, target, *speed);
        } else if task.waited < wait.get() {
            task.waited += 1;
        } else {
            task.next = (task.next + 1) % points.len() as u32;
            task.waited = 0;
        }
        Status::Running
    }

    fn task_is_valid(&self, task: &PatrolTask) -> bool {
        (task.next as usize) < self.0.points.len()
    }
}

/// True while an enemy is within `radius`.
#[derive(Params)]
struct EnemySeen {
    /// How far the guard sees.
    #[param(default = 10.0, range = 0.0..=1000.0)]
    radius: f32,
}

/// True while the guard's health is below `below`.
#[derive(Params)]
struct Hurt {
    /// Health, from 0 to 1, under which the guard counts as hurt.
    #[param(default = 0.3, range = 0.0..=1.0)]
    below: f32,
}

/// Runs at the nearest enemy; Running while it chases.
#[derive(Params)]
struct Chase {
    /// Distance run per tick.
    #[param(default = 1.2, range = 0.1..=10.0)]
    speed: f32,
}

/// Runs from the nearest enemy; Success once `safe` away from it.
#[derive(Params)]
struct Flee {
    /// Distance run per tick.
    #[param(default = 1.5, range = 0.1..=10.0)]
    speed: f32,
    /// Distance from the enemy that is safe.
    #[param(default = 20.0, range = 0.0..=1000.0)]
    safe: f32,
}

/// The built-in node types and the guard's.
fn registry() -> Result<Registry<Guard, World>, RegistryError> {
    let mut registry = Registry::new();
    registry.node("Patrol", Arity::Leaf, |p: PatrolParams| Patrol(p))?;
    registry.condition("EnemySeen", |p: EnemySeen| {
        move |cx| {
            cx.world
                .nearest_enemy(cx.agent.pos)
                .is_some_and(|(_, d)| d <= p.radius)
        }
    })?;
    registry.condition("Hurt", |p: Hurt| move |cx| cx.agent.health < p.below)?;
    registry.action("Chase", |p: Chase| {
        move |cx| {
            let Some((enemy, _)) = cx.world.nearest_enemy(cx.agent.pos) else {
                return Status::Failure;
            };
            cx.agent.doing = Doing::Chase;
            cx.agent.pos = step(cx.agent.pos, enemy, p.speed);
            Status::Running
        }
    })?;
    registry.action("Flee", |p: Flee| {
        move |cx| match cx.world.nearest_enemy(cx.agent.pos) {
            Some((enemy, d)) if d < p.safe => {
                cx.agent.doing = Doing::Flee;
                cx.agent.pos = step(cx.agent.pos, enemy, -p.speed);
                Status::Running
            }
            _ => Status::Success,
        }
    })?;
    Ok(registry)
}

/// The world's turn after the guards': a guard next to an enemy is hurt,
/// the others heal slowly.
fn hurt_or_heal(guard: &mut Guard, world: &World) {
    let near = world.nearest_enemy(guard.pos).is_some_and(|(_, d)| d < 2.0);
    guard.health = if near {
        guard.health - 0.05
    } else {
        guard.health + 0.005
    }
    .clamp(0.0, 1.0);
}

/// A guard's start: spread over the yard by a hash of its number.
fn start(i: u32) -> Guard {
    let h = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let unit = |bits: u64| (bits & 0xffff) as f32 / 65535.0;
    Guard {
        pos: [80.0 * unit(h >> 16) - 40.0, 80.0 * unit(h >> 40) - 40.0],
        health: 1.0,
        doing: Doing::Patrol,
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let (mut guards, mut ticks) = (10_000u32, 300u32);
    let mut path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/trees/guard.json").to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--export-xml" {
            // The tree file as BehaviorTree.CPP XML (how guard.xml was made).
            let options = canopy::xml::XmlOptions::default();
            print!(
                "{}",
                canopy::xml::export_file(&registry()?, &path, &options)?
            );
            return Ok(());
        }
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--guards" => guards = value.parse()?,
            "--ticks" => ticks = value.parse()?,
            "--tree" => path = value,
            _ => {
                let usage = "use --guards N --ticks T --tree FILE.json|FILE.xml [--export-xml]";
                return Err(format!("unknown option {arg}: {usage}").into());
            }
        }
    }
    let options = canopy::xml::XmlOptions::default();
    let tree = canopy::xml::load_any(&registry()?, &path, &options)?;
    print!("{}", tree.display());

    let mut data: Vec<Guard> = (0..guards).map(start).collect();
    let mut agents: Vec<Agent> = (0..guards).map(|i| Agent::with_id(&tree, i)).collect();
    for tick in 0..ticks {
        let world = World::at_tick(tick);
        agents
            .par_iter_mut()
            .zip(data.par_iter_mut())
            .for_each(|(agent, guard)| {
                agent.tick(&tree, guard, &world);
            });
        data.par_iter_mut()
            .for_each(|guard| hurt_or_heal(guard, &world));
    }

    let count = |doing| data.iter().filter(|g| g.doing == doing).count();
    println!(
        "{guards} guards × {ticks} ticks on {} threads; doing now: patrol {}, chase {}, flee {}",
        rayon::current_num_threads(),
        count(Doing::Patrol),
        count(Doing::Chase),
        count(Doing::Flee)
    );
    Ok(())
}
