//! The crowd's own node types, registered by name so the crowd's tree can
//! live in a file: need thresholds, threat and crowding checks, choosing
//! food and rest, moving, eating, resting, mingling, wandering.
//!
//! Leaves read the world snapshot and write only their own agent: the
//! preferred velocity in [`Walker::intent`], goals, needs, the activity
//! label. This is ordinary user code of canopy — nothing here is privileged.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Arity, Children, Ctx, Node, ParamEnum, Status};
use canopy_data::{NodeParams, Params, Registry, RegistryError};
use glam::Vec2;

use crate::walker::{Activity, Walker};
use crate::world::World;

type Cx<'a, 'b> = &'a mut Ctx<'b, Walker, World>;
type View<'a, 'b> = &'a Ctx<'b, Walker, World>;

/// Which need a threshold condition looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
enum Need {
    Hunger,
    Fatigue,
    Fear,
}

fn need(walker: &Walker, which: Need) -> f32 {
    match which {
        Need::Hunger => walker.hunger,
        Need::Fatigue => walker.fatigue,
        Need::Fear => walker.fear,
    }
}

fn steer(walker: &mut Walker, towards: Vec2, speed: f32) {
    walker.intent = towards.normalize_or_zero() * speed * walker.max_speed;
}

/// A spot of the agent's own choosing within `radius` of `centre`, so a
/// crowd heading for one place spreads over it instead of queueing for a
/// single point.
fn spot_near(walker: &mut Walker, centre: Vec2, radius: f32) -> Vec2 {
    let angle = walker.roll() * std::f32::consts::TAU;
    centre + Vec2::from_angle(angle) * radius * walker.roll().sqrt()
}

/// A registry with canopy's built-in node types and the crowd's.
///
/// ```
/// let registry = canopy_crowd::registry();
/// assert!(registry.get("MoveTo").is_some());
/// assert!(registry.get("Sequence").is_some());
/// ```
pub fn registry() -> Registry<Walker, World> {
    let mut registry = Registry::new();
    register(&mut registry).expect("crowd node names are unique");
    registry
}

/// True while the chosen need is above the threshold.
#[derive(Params)]
struct NeedAbove {
    /// Which need.
    need: Need,
    /// Level in 0..=1.
    #[param(range = 0.0..=1.0)]
    threshold: f32,
}

/// True while the nearest threat's zone is closer than `distance`.
#[derive(Params)]
struct ThreatWithin {
    /// Units from the zone's edge.
    #[param(range = 0.0..=1e6)]
    distance: f32,
}

/// True when at least `at_least` neighbours were within the social radius
/// last step.
#[derive(Params)]
struct Crowded {
    /// Neighbours.
    #[param(range = 1..=255)]
    at_least: u8,
}

/// True when the agent remembers a food source.
#[derive(Params)]
struct KnowsFood {}

/// Declares what the agent is doing (for the picture and the counts);
/// Success.
#[derive(Params)]
struct Doing {
    /// The activity.
    is: Activity,
}

/// Runs away from the nearest threat; Success once `safe` units outside
/// its zone.
#[derive(Params)]
struct Flee {
    /// Fraction of top speed.
    #[param(default = 1.0, range = 0.0..=2.0)]
    speed: f32,
    /// Units outside the zone.
    #[param(range = 0.0..=1e6)]
    safe: f32,
}

/// Picks a spot in the nearest food patch as goal and remembers the patch.
#[derive(Params)]
struct FindFood {}

/// Picks a spot in the remembered food patch as goal.
#[derive(Params)]
struct RecallFood {}

/// Forgets the remembered food source; Success.
#[derive(Params)]
struct ForgetFood {}

/// Picks a spot in the nearest rest area as goal.
#[derive(Params)]
struct FindRest {}

/// Walks towards the goal; Success within `tolerance`.
#[derive(Params)]
struct MoveTo {
    /// Fraction of top speed.
    #[param(default = 1.0, range = 0.0..=2.0)]
    speed: f32,
    /// Arrival distance.
    #[param(default = 1.0, range = 0.0..=1e6)]
    tolerance: f32,
}

/// Eats `amount` of hunger away if within reach of the remembered food
/// patch; else Failure.
#[derive(Params)]
struct Eat {
    /// Hunger removed.
    #[param(range = 0.0..=1.0)]
    amount: f32,
}

/// Recovers `amount` of fatigue; Success.
#[derive(Params)]
struct Rest {
    /// Fatigue removed.
    #[param(range = 0.0..=1.0)]
    amount: f32,
}

/// Drifts towards the nearest neighbour, keeping a little distance; always
/// Running.
#[derive(Params)]
struct Mingle {
    /// Fraction of top speed.
    #[param(default = 0.4, range = 0.0..=2.0)]
    speed: f32,
}

/// Stands still this tick; Success.
#[derive(Params)]
struct Stop {}

/// Strolls in a slowly turning direction for a random number of ticks,
/// then Success.
#[derive(Params)]
#[params(check = Self::check)]
struct Wander {
    /// Fraction of top speed.
    #[param(default = 0.5, range = 0.0..=2.0)]
    speed: f32,
    /// Shortest stroll.
    #[param(default = 20, range = 1..)]
    min_ticks: u32,
    /// Longest stroll.
    #[param(default = 60, range = 1..)]
    max_ticks: u32,
}

impl Wander {
    fn check(&self) -> Result<(), String> {
        if self.min_ticks > self.max_ticks {
            return Err(format!(
                "min_ticks ({}) must not exceed max_ticks ({})",
                self.min_ticks, self.max_ticks
            ));
        }
        Ok(())
    }
}

/// The food patch the agent remembers, if it still exists.
fn known_food(walker: &Walker, world: &World) -> Option<Vec2> {
    usize::try_from(walker.known_food)
        .ok()
        .and_then(|i| world.food.get(i).copied())
}

/// Add the crowd's node types to `registry`.
pub fn register(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    register_conditions(r)?;
    register_goals(r)?;
    register_moves(r)?;
    r.node("Wander", Arity::Leaf, |p: Wander| p)
}

fn register_conditions(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    r.condition("NeedAbove", |p: NeedAbove| {
        move |cx: View| need(cx.agent, p.need) > p.threshold
    })?;
    r.condition("ThreatWithin", |p: ThreatWithin| {
        move |cx: View| {
            cx.world
                .nearest_threat(cx.agent.pos)
                .is_some_and(|(_, d)| d < p.distance)
        }
    })?;
    r.condition("Crowded", |p: Crowded| {
        move |cx: View| cx.agent.neighbours >= p.at_least
    })?;
    r.condition("KnowsFood", |_: KnowsFood| {
        |cx: View| cx.agent.known_food >= 0
    })
}

fn register_goals(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    r.action("Activity", |p: Doing| {
        move |cx: Cx| {
            cx.agent.activity = p.is;
            Status::Success
        }
    })?;
    r.action("FindFood", |_: FindFood| {
        |cx: Cx| match World::nearest(&cx.world.food, cx.agent.pos) {
            Some((i, centre)) => {
                cx.agent.known_food = i as i32;
                cx.agent.goal = spot_near(cx.agent, centre, World::FOOD_RADIUS);
                Status::Success
            }
            None => Status::Failure,
        }
    })?;
    r.action("RecallFood", |_: RecallFood| {
        |cx: Cx| match known_food(cx.agent, cx.world) {
            Some(centre) => {
                cx.agent.goal = spot_near(cx.agent, centre, World::FOOD_RADIUS);
                Status::Success
            }
            None => Status::Failure,
        }
    })?;
    r.action("ForgetFood", |_: ForgetFood| {
        |cx: Cx| {
            cx.agent.known_food = -1;
            Status::Success
        }
    })?;
    r.action("FindRest", |_: FindRest| {
        |cx: Cx| match World::nearest(&cx.world.rest, cx.agent.pos) {
            Some((_, centre)) => {
                cx.agent.goal = spot_near(cx.agent, centre, World::REST_RADIUS);
                Status::Success
            }
            None => Status::Failure,
        }
    })
}

fn register_moves(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    r.action("Flee", |p: Flee| {
        move |cx: Cx| match cx.world.nearest_threat(cx.agent.pos) {
            Some((_, d)) if d > p.safe => Status::Success,
            Some((threat, _)) => {
                let away = cx.agent.pos - threat.pos;
                let away = if away == Vec2::ZERO { Vec2::X } else { away };
                steer(cx.agent, away, p.speed);
                Status::Running
            }
            None => Status::Success,
        }
    })?;
    r.action("MoveTo", |p: MoveTo| {
        move |cx: Cx| {
            let to_goal = cx.agent.goal - cx.agent.pos;
            if to_goal.length() <= p.tolerance {
                return Status::Success;
            }
            steer(cx.agent, to_goal, p.speed);
            Status::Running
        }
    })?;
    r.action("Eat", |p: Eat| {
        move |cx: Cx| match known_food(cx.agent, cx.world) {
            Some(food) if food.distance(cx.agent.pos) <= World::FOOD_REACH => {
                cx.agent.hunger = (cx.agent.hunger - p.amount).max(0.0);
                Status::Success
            }
            _ => Status::Failure,
        }
    })?;
    r.action("Rest", |p: Rest| {
        move |cx: Cx| {
            cx.agent.fatigue = (cx.agent.fatigue - p.amount).max(0.0);
            Status::Success
        }
    })?;
    r.action("Mingle", |p: Mingle| {
        move |cx: Cx| {
            cx.agent.intent = Vec2::ZERO;
            if let Some(pos) = cx.agent.nearest
                && pos.distance(cx.agent.pos) > 3.0 * cx.agent.radius
            {
                steer(cx.agent, pos - cx.agent.pos, p.speed);
            }
            Status::Running
        }
    })?;
    r.action("Stop", |_: Stop| {
        |cx: Cx| {
            cx.agent.intent = Vec2::ZERO;
            Status::Success
        }
    })
}

/// A stroll with its own per-agent state: the heading it keeps turning and
/// the ticks left — the task remembers them between ticks, the shared node
/// only holds the parameters.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct Stroll {
    heading: f32,
    left: u32,
}

impl Node<Walker, World> for Wander {
    type Task = Stroll;

    fn params(&self) -> Vec<(String, String)> {
        let values = self.values().into_iter();
        values
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn create_task(&self, cx: Cx) -> Stroll {
        let span = (self.max_ticks - self.min_ticks + 1) as f32;
        Stroll {
            heading: cx.agent.roll() * std::f32::consts::TAU,
            left: self.min_ticks
                + ((cx.agent.roll() * span) as u32).min(self.max_ticks - self.min_ticks),
        }
    }

    fn update(&self, task: &mut Stroll, cx: Cx, _: &mut Children<Walker, World>) -> Status {
        if task.left == 0 {
            return Status::Success;
        }
        task.left -= 1;
        task.heading += (cx.agent.roll() - 0.5) * 0.6;
        let mut dir = Vec2::from_angle(task.heading);
        // Near a wall, turn back towards the middle.
        let centre = Vec2::splat(cx.world.size / 2.0);
        if (cx.agent.pos - centre).abs().max_element() > cx.world.size * 0.45 {
            dir = (centre - cx.agent.pos).normalize_or_zero();
            task.heading = dir.to_angle();
        }
        steer(cx.agent, dir, self.speed);
        if task.left == 0 {
            Status::Success
        } else {
            Status::Running
        }
    }
}
