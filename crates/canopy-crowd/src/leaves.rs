//! The crowd's own node types, registered by name so the crowd's tree can
//! live in a file: need thresholds, threat and crowding checks, choosing
//! food and rest, moving, eating, resting, mingling, wandering.
//!
//! Leaves read the world snapshot and write only their own agent: the
//! preferred velocity in [`Walker::intent`], goals, needs, the activity
//! label. This is ordinary user code of canopy — nothing here is privileged.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Arity, Children, Ctx, CustomNode, Node, NodeKind, Status};
use canopy_data::{NodeType, Param, Registry, RegistryError};
use glam::Vec2;

use crate::walker::{Activity, Walker};
use crate::world::World;

type Cx<'a, 'b> = &'a mut Ctx<'b, Walker, World>;
type View<'a, 'b> = &'a Ctx<'b, Walker, World>;

/// Which need a threshold condition looks at.
fn need(walker: &Walker, which: Need) -> f32 {
    match which {
        Need::Hunger => walker.hunger,
        Need::Fatigue => walker.fatigue,
        Need::Fear => walker.fear,
    }
}

#[derive(Clone, Copy)]
enum Need {
    Hunger,
    Fatigue,
    Fear,
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

/// Add the crowd's node types to `registry`.
pub fn register(r: &mut Registry<Walker, World>) -> Result<(), RegistryError> {
    let words: Vec<&str> = Activity::ALL.iter().map(|a| a.word()).collect();

    r.register_condition(
        "NeedAbove",
        "true while the chosen need is above the threshold",
        vec![
            Param::choice("need", "which need", &["hunger", "fatigue", "fear"]),
            Param::float("threshold", "level in 0..=1").range(0.0, 1.0),
        ],
        |p| {
            let which = match p.text("need")? {
                "hunger" => Need::Hunger,
                "fatigue" => Need::Fatigue,
                _ => Need::Fear,
            };
            let threshold = p.float("threshold")? as f32;
            Ok(move |cx: View| need(cx.agent, which) > threshold)
        },
    )?;
    r.register_condition(
        "ThreatWithin",
        "true while the nearest threat's zone is closer than `distance`",
        vec![Param::float("distance", "units from the zone's edge").range(0.0, 1e6)],
        |p| {
            let distance = p.float("distance")? as f32;
            Ok(move |cx: View| {
                cx.world
                    .nearest_threat(cx.agent.pos)
                    .is_some_and(|(_, d)| d < distance)
            })
        },
    )?;
    r.register_condition(
        "Crowded",
        "true when at least `at_least` neighbours were within the social radius last step",
        vec![Param::int("at_least", "neighbours").range(1.0, 255.0)],
        |p| {
            let at_least = p.int("at_least")? as u8;
            Ok(move |cx: View| cx.agent.neighbours >= at_least)
        },
    )?;
    r.register_condition(
        "KnowsFood",
        "true when the agent remembers a food source",
        vec![],
        |_| Ok(|cx: View| cx.agent.known_food >= 0),
    )?;

    r.register_action(
        "Activity",
        "declares what the agent is doing (for the picture and the counts); Success",
        vec![Param::choice("is", "the activity", &words)],
        |p| {
            let activity = Activity::from_word(p.text("is")?).ok_or("unknown activity")?;
            Ok(move |cx: Cx| {
                cx.agent.activity = activity;
                Status::Success
            })
        },
    )?;
    r.register_action(
        "Flee",
        "runs away from the nearest threat; Success once `safe` units outside its zone",
        vec![
            Param::float("speed", "fraction of top speed")
                .range(0.0, 2.0)
                .default(1.0),
            Param::float("safe", "units outside the zone").range(0.0, 1e6),
        ],
        |p| {
            let (speed, safe) = (p.float("speed")? as f32, p.float("safe")? as f32);
            Ok(move |cx: Cx| match cx.world.nearest_threat(cx.agent.pos) {
                Some((_, d)) if d > safe => Status::Success,
                Some((threat, _)) => {
                    let away = cx.agent.pos - threat.pos;
                    let away = if away == Vec2::ZERO { Vec2::X } else { away };
                    steer(cx.agent, away, speed);
                    Status::Running
                }
                None => Status::Success,
            })
        },
    )?;
    r.register_action(
        "FindFood",
        "picks a spot in the nearest food patch as goal and remembers the patch",
        vec![],
        |_| {
            Ok(
                |cx: Cx| match World::nearest(&cx.world.food, cx.agent.pos) {
                    Some((i, centre)) => {
                        cx.agent.known_food = i as i32;
                        cx.agent.goal = spot_near(cx.agent, centre, World::FOOD_RADIUS);
                        Status::Success
                    }
                    None => Status::Failure,
                },
            )
        },
    )?;
    r.register_action(
        "RecallFood",
        "picks a spot in the remembered food patch as goal",
        vec![],
        |_| {
            Ok(
                |cx: Cx| match cx.world.food.get(cx.agent.known_food.max(0) as usize) {
                    Some(&centre) if cx.agent.known_food >= 0 => {
                        cx.agent.goal = spot_near(cx.agent, centre, World::FOOD_RADIUS);
                        Status::Success
                    }
                    _ => Status::Failure,
                },
            )
        },
    )?;
    r.register_action(
        "ForgetFood",
        "forgets the remembered food source; Success",
        vec![],
        |_| {
            Ok(|cx: Cx| {
                cx.agent.known_food = -1;
                Status::Success
            })
        },
    )?;
    r.register_action(
        "FindRest",
        "picks a spot in the nearest rest area as goal",
        vec![],
        |_| {
            Ok(
                |cx: Cx| match World::nearest(&cx.world.rest, cx.agent.pos) {
                    Some((_, centre)) => {
                        cx.agent.goal = spot_near(cx.agent, centre, World::REST_RADIUS);
                        Status::Success
                    }
                    None => Status::Failure,
                },
            )
        },
    )?;
    r.register_action(
        "MoveTo",
        "walks towards the goal; Success within `tolerance`",
        vec![
            Param::float("speed", "fraction of top speed")
                .range(0.0, 2.0)
                .default(1.0),
            Param::float("tolerance", "arrival distance")
                .range(0.0, 1e6)
                .default(1.0),
        ],
        |p| {
            let (speed, tolerance) = (p.float("speed")? as f32, p.float("tolerance")? as f32);
            Ok(move |cx: Cx| {
                let to_goal = cx.agent.goal - cx.agent.pos;
                if to_goal.length() <= tolerance {
                    return Status::Success;
                }
                steer(cx.agent, to_goal, speed);
                Status::Running
            })
        },
    )?;
    r.register_action(
        "Eat",
        "eats `amount` of hunger away if within reach of the remembered food patch; else Failure",
        vec![Param::float("amount", "hunger removed").range(0.0, 1.0)],
        |p| {
            let amount = p.float("amount")? as f32;
            Ok(move |cx: Cx| {
                let reach = World::FOOD_REACH;
                match cx.world.food.get(cx.agent.known_food.max(0) as usize) {
                    Some(&food)
                        if cx.agent.known_food >= 0 && food.distance(cx.agent.pos) <= reach =>
                    {
                        cx.agent.hunger = (cx.agent.hunger - amount).max(0.0);
                        Status::Success
                    }
                    _ => Status::Failure,
                }
            })
        },
    )?;
    r.register_action(
        "Rest",
        "recovers `amount` of fatigue; Success",
        vec![Param::float("amount", "fatigue removed").range(0.0, 1.0)],
        |p| {
            let amount = p.float("amount")? as f32;
            Ok(move |cx: Cx| {
                cx.agent.fatigue = (cx.agent.fatigue - amount).max(0.0);
                Status::Success
            })
        },
    )?;
    r.register_action(
        "Mingle",
        "drifts towards the nearest neighbour, keeping a little distance; always Running",
        vec![
            Param::float("speed", "fraction of top speed")
                .range(0.0, 2.0)
                .default(0.4),
        ],
        |p| {
            let speed = p.float("speed")? as f32;
            Ok(move |cx: Cx| {
                cx.agent.intent = Vec2::ZERO;
                if let Some(pos) = cx.agent.nearest
                    && pos.distance(cx.agent.pos) > 3.0 * cx.agent.radius
                {
                    steer(cx.agent, pos - cx.agent.pos, speed);
                }
                Status::Running
            })
        },
    )?;
    r.register_action("Stop", "stands still this tick; Success", vec![], |_| {
        Ok(|cx: Cx| {
            cx.agent.intent = Vec2::ZERO;
            Status::Success
        })
    })?;
    r.register(NodeType::new(
        "Wander",
        "strolls in a slowly turning direction for a random number of ticks, then Success",
        Arity::Leaf,
        vec![
            Param::float("speed", "fraction of top speed")
                .range(0.0, 2.0)
                .default(0.5),
            Param::ticks("min_ticks", "shortest stroll", 1).default(20),
            Param::ticks("max_ticks", "longest stroll", 1).default(60),
        ],
        |p| {
            let (min, max) = (p.u32("min_ticks")?, p.u32("max_ticks")?);
            if min > max {
                return Err(format!("min_ticks ({min}) must not exceed max_ticks ({max})").into());
            }
            let wander = Wander {
                speed: p.float("speed")? as f32,
                min,
                max,
            };
            Ok(NodeKind::Custom(CustomNode::new(wander)))
        },
    ))?;
    Ok(())
}

/// A stroll with its own per-agent state: the heading it keeps turning and
/// the ticks left — the task remembers them between ticks, the shared node
/// only holds the parameters.
struct Wander {
    speed: f32,
    min: u32,
    max: u32,
}

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
        vec![
            ("speed".into(), self.speed.to_string()),
            ("min_ticks".into(), self.min.to_string()),
            ("max_ticks".into(), self.max.to_string()),
        ]
    }

    fn create_task(&self, cx: Cx) -> Stroll {
        let span = (self.max - self.min + 1) as f32;
        Stroll {
            heading: cx.agent.roll() * std::f32::consts::TAU,
            left: self.min + ((cx.agent.roll() * span) as u32).min(self.max - self.min),
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
