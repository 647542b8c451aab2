//! The crowd's own node types, registered by name so the crowd's tree can
//! live in a file: need thresholds, threat and crowding checks, choosing
//! a place to eat or sleep with its crowding in mind, giving up on one,
//! being served there and making room, moving, mingling, wandering; and
//! the scorers the tree's `Utility` weighs needs and crowding with.
//!
//! Leaves read the world snapshot and write only their own agent: the
//! preferred velocity in [`Walker::intent`], goals, needs, the activity
//! label, and their own blackboard keys. This is ordinary user code of
//! canopy — nothing here is privileged.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Arity, Children, Ctx, Input, Node, Output, ParamEnum, Status};
use canopy_data::{NodeParams, Params, Registry, RegistryError};
use glam::Vec2;

use crate::places::Places;
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
    /// Metres from the zone's edge.
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

/// True while the agent is within reach of the place it chose for what
/// it is doing (its food patch when eating, its rest area when resting).
#[derive(Params)]
struct AtPlace {}

/// Declares what the agent is doing (for the picture and the counts);
/// Success.
#[derive(Params)]
struct Doing {
    /// The activity.
    is: Activity,
}

/// Runs away from the nearest threat; Success once `safe` metres outside
/// its zone.
#[derive(Params)]
struct Flee {
    /// Fraction of the walking speed.
    #[param(default = 1.0, range = 0.0..=2.0)]
    speed: f32,
    /// Metres outside the zone.
    #[param(range = 0.0..=1e6)]
    safe: f32,
}

/// Picks a spot in the nearest food patch as goal and remembers the patch,
/// however crowded it is.
#[derive(Params)]
struct FindFood {}

/// Picks a spot in the nearest rest area as goal and remembers the area,
/// however crowded it is.
#[derive(Params)]
struct FindRest {}

/// Picks the place for what the agent is doing (a food patch when eating,
/// a rest area when resting) where it would be served soonest — walking
/// there, then waiting for those bound for it — passing over the one it
/// gave up on while `shunned_until` has not come; remembers it and takes a
/// spot in it as goal. Failure when there is none.
#[derive(Params)]
struct ChoosePlace {
    /// The place given up on: food patches are numbered from 0, rest
    /// areas after them.
    shunned: Input<i32>,
    /// The tick until which it is passed over.
    shunned_until: Input<u32>,
}

/// Gives up on the place the agent chose: writes it and until when it is
/// passed over, and forgets it; Success.
#[derive(Params)]
struct GiveUp {
    /// Where the place given up on goes (numbered as `ChoosePlace` reads it).
    shunned: Output<i32>,
    /// Where the tick until which it is passed over goes.
    until: Output<u32>,
    /// For how many ticks.
    #[param(default = 600, range = 0..=1_000_000)]
    for_ticks: u32,
}

/// Eats (or sleeps) at the place reached, at the rate the place serves
/// its visitors, edging towards its spot there; Success when the need is
/// down to `until` (a meal or a nap done), Failure when out of reach.
#[derive(Params)]
struct Served {
    /// Need level at which the agent is done.
    #[param(default = 0.1, range = 0.0..=1.0)]
    until: f32,
}

/// Takes as goal a spot `distance` metres beyond the edge of the place the
/// agent is at, on its side of it: making room; Success.
#[derive(Params)]
struct Leave {
    /// Metres beyond the place's edge.
    #[param(default = 6.0, range = 0.0..=1e6)]
    distance: f32,
}

/// Walks towards the goal; Success within `tolerance`.
#[derive(Params)]
struct MoveTo {
    /// Fraction of the walking speed.
    #[param(default = 1.0, range = 0.0..=2.0)]
    speed: f32,
    /// Arrival distance, m.
    #[param(default = 1.0, range = 0.0..=1e6)]
    tolerance: f32,
}

/// Drifts towards the nearest neighbour, keeping a little distance; always
/// Running.
#[derive(Params)]
struct Mingle {
    /// Fraction of the walking speed.
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
    /// Fraction of the walking speed.
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

/// Seconds of one visitor's turn at a place, for estimating the wait:
/// a meal or a nap from the need level a tree starts one at.
fn turn_seconds(places: &Places) -> f32 {
    0.6 / places.rate.max(1e-3)
}

/// The place for what the agent is doing, and the number the first place
/// of that kind has in `shunned` numbering.
fn kind<'w>(walker: &Walker, world: &'w World) -> Option<(usize, &'w Places)> {
    match walker.activity {
        Activity::Eat => Some((0, &world.food)),
        Activity::Rest => Some((world.food.len(), &world.rest)),
        _ => None,
    }
}

/// The place the agent chose for what it is doing, or -1.
fn chosen(walker: &Walker) -> i32 {
    match walker.activity {
        Activity::Rest => walker.known_rest,
        Activity::Eat => walker.known_food,
        _ => -1,
    }
}

fn set_chosen(walker: &mut Walker, place: i32) {
    match walker.activity {
        Activity::Rest => walker.known_rest = place,
        Activity::Eat => walker.known_food = place,
        _ => {}
    }
}

/// How crowded the best place of `places` is for this agent (bound for it
/// per seat; 0 when there is none).
fn crowding(walker: &Walker, places: &Places) -> f32 {
    places
        .best(walker.pos, walker.max_speed, turn_seconds(places), None)
        .map_or(0.0, |(k, _)| places.crowding(k))
}

/// Seconds until the agent would be served at the best place of
/// `places` (a day when there is none).
fn wait(walker: &Walker, places: &Places) -> f32 {
    places
        .best(walker.pos, walker.max_speed, turn_seconds(places), None)
        .map_or(86_400.0, |(_, cost)| cost)
}

/// Add the crowd's node types to `registry`.
pub fn register(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    register_conditions(r)?;
    register_goals(r)?;
    register_moves(r)?;
    register_scorers(r)?;
    r.node("Served", Arity::Leaf, |p: Served| p)?;
    r.node("Wander", Arity::Leaf, |p: Wander| p)
}

/// The inputs a `Utility` can weigh: `hunger`, `fatigue`, `fear` (0 to
/// 1), `neighbours` (others within the social radius), `food_crowding`
/// and `rest_crowding` (agents bound for the best place per seat),
/// `food_wait` and `rest_wait` (seconds until served there).
fn register_scorers(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    r.scorer("hunger", |cx: View| cx.agent.hunger)?;
    r.scorer("fatigue", |cx: View| cx.agent.fatigue)?;
    r.scorer("fear", |cx: View| cx.agent.fear)?;
    r.scorer("neighbours", |cx: View| f32::from(cx.agent.neighbours))?;
    r.scorer("food_crowding", |cx: View| {
        crowding(cx.agent, &cx.world.food)
    })?;
    r.scorer("rest_crowding", |cx: View| {
        crowding(cx.agent, &cx.world.rest)
    })?;
    r.scorer("food_wait", |cx: View| wait(cx.agent, &cx.world.food))?;
    r.scorer("rest_wait", |cx: View| wait(cx.agent, &cx.world.rest))
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
    r.condition("AtPlace", |_: AtPlace| {
        |cx: View| {
            cx.world
                .places_for(cx.agent)
                .is_some_and(|(places, k)| places.within_reach(k, cx.agent.pos))
        }
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
        |cx: Cx| match World::nearest(cx.world.food.centres(), cx.agent.pos) {
            Some((i, centre)) => {
                cx.agent.known_food = i as i32;
                cx.agent.goal = spot_near(cx.agent, centre, World::FOOD_RADIUS);
                Status::Success
            }
            None => Status::Failure,
        }
    })?;
    r.action("FindRest", |_: FindRest| {
        |cx: Cx| match World::nearest(cx.world.rest.centres(), cx.agent.pos) {
            Some((i, centre)) => {
                cx.agent.known_rest = i as i32;
                cx.agent.goal = spot_near(cx.agent, centre, World::REST_RADIUS);
                Status::Success
            }
            None => Status::Failure,
        }
    })?;
    r.action("ChoosePlace", |p: ChoosePlace| {
        move |cx: Cx| {
            let Some((first, places)) = kind(cx.agent, cx.world) else {
                return Status::Failure;
            };
            let shunned = (cx.tick < cx.board.get(&p.shunned_until))
                .then(|| usize::try_from(cx.board.get(&p.shunned)).ok())
                .flatten()
                .and_then(|k| k.checked_sub(first));
            let (speed, turn) = (cx.agent.max_speed, turn_seconds(places));
            match places.best(cx.agent.pos, speed, turn, shunned) {
                Some((k, _)) => {
                    let (centre, radius) = (places.centres()[k], places.radius);
                    set_chosen(cx.agent, k as i32);
                    cx.agent.goal = spot_near(cx.agent, centre, radius * 0.8);
                    Status::Success
                }
                None => Status::Failure,
            }
        }
    })?;
    r.action("GiveUp", |p: GiveUp| {
        move |cx: Cx| {
            if let Some((first, _)) = kind(cx.agent, cx.world) {
                let place = chosen(cx.agent);
                if place >= 0 {
                    cx.board.set(&p.shunned, place + first as i32);
                    cx.board.set(&p.until, cx.tick.saturating_add(p.for_ticks));
                }
                set_chosen(cx.agent, -1);
            }
            Status::Success
        }
    })?;
    r.action("Leave", |p: Leave| {
        move |cx: Cx| {
            let at = cx
                .world
                .places_for(cx.agent)
                .and_then(|(places, k)| places.centre(k).map(|c| (c, places.radius)));
            let (centre, radius) = at.unwrap_or((cx.agent.pos, 0.0));
            let turn = (cx.agent.roll() - 0.5) * 1.0;
            let away = (cx.agent.pos - centre)
                .try_normalize()
                .unwrap_or_else(|| Vec2::from_angle(cx.agent.roll() * std::f32::consts::TAU));
            cx.agent.goal = centre + Vec2::from_angle(turn).rotate(away) * (radius + p.distance);
            Status::Success
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

/// Being served: the tick of the agent's last update, so that an agent
/// ticked less often (level of detail) is served for every tick it
/// missed.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct Serving {
    last: u32,
}

impl Node<Walker, World> for Served {
    type Task = Serving;

    fn params(&self) -> Vec<(String, String)> {
        let values = self.values().into_iter();
        values
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn create_task(&self, cx: Cx) -> Serving {
        // Served from this tick on.
        Serving {
            last: cx.tick.wrapping_sub(1),
        }
    }

    fn update(&self, task: &mut Serving, cx: Cx, _: &mut Children<Walker, World>) -> Status {
        let Some((places, k)) = cx.world.places_for(cx.agent) else {
            return Status::Failure;
        };
        if !places.within_reach(k, cx.agent.pos) {
            return Status::Failure;
        }
        let ticks = cx.tick.wrapping_sub(task.last);
        task.last = cx.tick;
        let served = places.rate_at(k as usize) * cx.world.dt * ticks as f32;
        let walker = &mut *cx.agent;
        let need = match walker.activity {
            Activity::Rest => &mut walker.fatigue,
            _ => &mut walker.hunger,
        };
        *need = (*need - served).max(0.0);
        let done = *need <= self.until;
        // Edge towards its own spot, clearing the place's rim.
        let to_spot = walker.goal - walker.pos;
        walker.intent = if to_spot.length() > 0.5 {
            to_spot.normalize_or_zero() * 0.3 * walker.max_speed
        } else {
            Vec2::ZERO
        };
        if !done {
            return Status::Running;
        }
        match walker.activity {
            Activity::Rest => walker.naps = walker.naps.wrapping_add(1),
            _ => walker.meals = walker.meals.wrapping_add(1),
        }
        Status::Success
    }
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
