//! A game's own `canopy`, simulating the game: guards on a square map hunt
//! an intruder who walks in a circle. A guard that sees the intruder
//! shoots; one that does not asks the game's path service for a way to
//! where the intruder is now (`FindPath`, an async leaf: the request goes
//! out, the leaf waits, the service answers later) and walks it.
//!
//! Two things make `run` and `bench` behave like the game, not like a
//! frozen world: the world's own step between ticks
//! ([`Cli::world_update`]: the intruder moves) and the path service's
//! answers ([`Cli::answer_async`]: a path is ready after one tick per ten
//! units of distance).
//!
//! ```text
//! cargo run --example game_canopy -- run examples/trees/game.json --agents 100 --ticks 30
//! cargo run --example game_canopy -- bench examples/trees/game.json --agents 10000 --ticks 50
//! ```
//!
//! `bench` splits each agent's bytes into the `Agent` value, its task
//! memory, its table of waiting async leaves, and the game's own agent
//! data.

use std::process::ExitCode;

use canopy::data::{Params, Registry};
use canopy::{Ctx, Status, Ticket};
use canopy_cli::Cli;

/// Counts heap bytes and allocations, so that `bench` reports them.
#[global_allocator]
static ALLOCATOR: canopy_counting::Counting = canopy_counting::Counting;

/// A guard: the game's data for one agent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Guard {
    /// Where the guard stands.
    pub pos: [f32; 2],
    /// Where its path request goes, while one is out.
    pub asked: Option<[f32; 2]>,
    /// The path's end, once the service answered.
    pub goal: Option<[f32; 2]>,
    /// Shots fired.
    pub shots: u32,
    /// Paths the service found for this guard.
    pub paths: u32,
}

impl Guard {
    /// Guards start on a line along the map's bottom edge.
    pub(crate) fn new(id: u32) -> Guard {
        Guard {
            pos: [(id % 100) as f32, 0.0],
            ..Guard::default()
        }
    }
}

/// What every guard sees.
#[derive(Clone, Debug)]
pub(crate) struct Map {
    /// Where the intruder is.
    pub intruder: [f32; 2],
}

impl Map {
    /// The intruder walks a circle of radius 40 around (50, 50), one
    /// hundredth of it per tick.
    pub(crate) fn step(&mut self, tick: u32) {
        let angle = tick as f32 * std::f32::consts::TAU / 100.0;
        self.intruder = [50.0 + 40.0 * angle.cos(), 50.0 + 40.0 * angle.sin()];
    }
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// True while the intruder is within `radius`.
#[derive(Params)]
struct Sees {
    /// How far a guard sees.
    #[param(default = 15.0, range = 0.0..=1000.0)]
    radius: f32,
}

/// Shoots at the intruder; Success.
#[derive(Params)]
struct Shoot {}

/// Asks the path service for a path to where the intruder is now; Success
/// when the service has answered with one.
#[derive(Params)]
struct FindPath {}

/// Walks towards the path's end at `speed` units per tick; Success there.
#[derive(Params)]
struct FollowPath {
    /// Units per tick.
    #[param(default = 2.0, range = 0.1..=100.0)]
    speed: f32,
}

/// The game's node types, with canopy's built-in ones.
pub(crate) fn registry() -> Registry<Guard, Map> {
    let mut r = Registry::new();
    r.condition("Sees", |p: Sees| {
        move |cx: &Ctx<Guard, Map>| distance(cx.agent.pos, cx.world.intruder) <= p.radius
    })
    .expect("a new name");
    r.action("Shoot", |_: Shoot| {
        |cx: &mut Ctx<Guard, Map>| {
            cx.agent.shots += 1;
            Status::Success
        }
    })
    .expect("a new name");
    r.async_action("FindPath", |_: FindPath| {
        // The request: where to. The ticket would go to the service with
        // it; this game's service answers through `answer_async` below.
        |cx: &mut Ctx<Guard, Map>, _: Ticket| {
            cx.agent.asked = Some(cx.world.intruder);
            cx.agent.goal = None;
            Status::Running
        }
    })
    .expect("a new name");
    r.action("FollowPath", |p: FollowPath| {
        move |cx: &mut Ctx<Guard, Map>| {
            let Some(goal) = cx.agent.goal else {
                return Status::Failure;
            };
            let d = distance(cx.agent.pos, goal);
            if d <= p.speed {
                cx.agent.pos = goal;
                return Status::Success;
            }
            for (p_i, g_i) in cx.agent.pos.iter_mut().zip(goal) {
                *p_i += (g_i - *p_i) / d * p.speed;
            }
            Status::Running
        }
    })
    .expect("a new name");
    r
}

/// The path service: a request is answered after one tick per ten units
/// from the guard to its goal (at least one), with the path's end written
/// into the guard's data.
fn path_ready(guard: &mut Guard, waited: u32) -> Option<Status> {
    let goal = guard.asked?;
    let ticks = (distance(guard.pos, goal) / 10.0).ceil().max(1.0) as u32;
    if waited < ticks {
        return None;
    }
    guard.asked = None;
    guard.goal = Some(goal);
    guard.paths += 1;
    Some(Status::Success)
}

/// The game's `canopy`.
pub(crate) fn cli() -> Cli<Guard, Map> {
    Cli::new(registry())
        .name("game_canopy")
        .about("The guards' trees, run as the game runs them")
        .agent(Guard::new)
        .world(Map {
            intruder: [90.0, 50.0],
        })
        .world_update(|map, tick| map.step(tick))
        .answer_async(|guard, _, _, waited| path_ready(guard, waited))
}

fn main() -> ExitCode {
    cli().run()
}
