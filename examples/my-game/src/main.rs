//! A small game's AI on canopy: guards patrol between points, shoot an
//! intruder they can see, and ask a path service (an async leaf) for a way
//! to the intruder when it is out of sight. One tree file, shared by every
//! guard; each guard owns only its running tasks.

use canopy::data::{Format, Params, Registry, TreeSource};
use canopy::{Agent, Completion, Ctx, Status, Ticket};

/// A guard: the game's own data, which the tree's leaves read and write.
#[derive(Default)]
struct Guard {
    pos: [f32; 2],
    shots: u32,
    /// Path requests waiting for the path service: the goal and the ticket
    /// that completes the leaf which asked.
    asked: Vec<([f32; 2], Ticket)>,
    /// The path the service found, walked one point per tick.
    path: Vec<[f32; 2]>,
}

/// What every guard sees.
struct World {
    intruder: [f32; 2],
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// True while the intruder is within `radius`.
#[derive(Params)]
struct Sees {
    /// How far a guard sees.
    #[param(default = 10.0, range = 0.0..=1000.0)]
    radius: f32,
}

/// Shoots at the intruder; Success.
#[derive(Params)]
struct Shoot {}

/// Walks to each point in turn, one unit per tick; Success at the last.
#[derive(Params)]
struct Patrol {
    /// The points, in order.
    #[param(len = 1..)]
    points: Vec<[f32; 2]>,
}

/// Asks the path service for a path to the intruder; completes when the
/// service answers.
#[derive(Params)]
struct FindPath {}

/// Walks the path the service found; Success at its end.
#[derive(Params)]
struct FollowPath {}

fn step_towards(pos: &mut [f32; 2], to: [f32; 2]) -> bool {
    let d = distance(*pos, to);
    if d <= 1.0 {
        *pos = to;
        return true;
    }
    pos[0] += (to[0] - pos[0]) / d;
    pos[1] += (to[1] - pos[1]) / d;
    false
}

fn registry() -> Registry<Guard, World> {
    let mut r = Registry::new();
    r.condition("Sees", |p: Sees| {
        move |cx: &Ctx<Guard, World>| distance(cx.agent.pos, cx.world.intruder) <= p.radius
    })
    .expect("a new name");
    r.action("Shoot", |_: Shoot| {
        |cx: &mut Ctx<Guard, World>| {
            cx.agent.shots += 1;
            Status::Success
        }
    })
    .expect("a new name");
    r.action("Patrol", |p: Patrol| {
        move |cx: &mut Ctx<Guard, World>| {
            let next = p.points.iter().find(|&&q| distance(cx.agent.pos, q) > 0.0);
            match next {
                Some(&q) if !step_towards(&mut cx.agent.pos, q) => Status::Running,
                _ => Status::Success,
            }
        }
    })
    .expect("a new name");
    r.async_action("FindPath", |_: FindPath| {
        |cx: &mut Ctx<Guard, World>, ticket: Ticket| {
            let goal = cx.world.intruder;
            cx.agent.asked.push((goal, ticket));
            Status::Running
        }
    })
    .expect("a new name");
    r.action("FollowPath", |_: FollowPath| {
        |cx: &mut Ctx<Guard, World>| {
            if cx.agent.path.is_empty() {
                return Status::Success;
            }
            let next = cx.agent.path[0];
            if step_towards(&mut cx.agent.pos, next) {
                cx.agent.path.remove(0);
            }
            Status::Running
        }
    })
    .expect("a new name");
    r
}

const TREE: &str = r#"{"tree": {"type": "ReactiveSelector", "name": "guard", "children": [
    {"type": "ReactiveSequence", "name": "shoot what you see", "children": [
        {"type": "Sees", "radius": 6},
        {"type": "Shoot"}
    ]},
    {"type": "Sequence", "name": "hunt", "children": [
        {"type": "FindPath"},
        {"type": "FollowPath"}
    ]}
]}}"#;

fn main() {
    let tree = registry()
        .loading(TreeSource::text(TREE, Format::Json, "guard.json")).load()
        .unwrap_or_else(|e| panic!("{e}"));
    // The same tree as BehaviorTree.CPP XML, for Groot2.
    let xml = canopy::xml::export_str(&registry(), TREE, Format::Json, "guard.json", &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let world = World { intruder: [20.0, 0.0] };
    let mut guards: Vec<(Guard, Agent)> = (0..100)
        .map(|i| {
            let guard = Guard { pos: [0.0, i as f32 * 0.1], ..Guard::default() };
            (guard, Agent::new(&tree))
        })
        .collect();
    let mut answered = 0;
    for _ in 0..40 {
        for (guard, agent) in &mut guards {
            agent.tick(&tree, guard, &world);
            // The path service answers every request at once: a straight line.
            for (goal, ticket) in guard.asked.drain(..) {
                guard.path = vec![[goal[0] / 2.0, goal[1] / 2.0], goal];
                if agent.complete(ticket, Status::Success) == Completion::Completed {
                    answered += 1;
                }
            }
        }
    }
    let shots: u32 = guards.iter().map(|(g, _)| g.shots).sum();
    println!("{} guards, {answered} paths found, {shots} shots", guards.len());
    println!("the tree in BehaviorTree.CPP XML: {} bytes", xml.len());
}
