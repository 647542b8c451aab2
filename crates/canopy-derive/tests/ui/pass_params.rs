//! Parameters declared once, read typed: every kind, defaults, ranges,
//! lengths, renames, a check between fields, enums of words.

use canopy_core::{Agent, Arity, Children, Ctx, Node, Status};
use canopy_data::{Format, NodeParams, ParamEnum, Params, Registry, Ticks, TreeSource};
use canopy_derive::Task;

#[derive(Clone, Copy, Debug, PartialEq, ParamEnum)]
enum Gait {
    Walk,
    Run,
    #[param(rename = "sneak")]
    Crouch,
}

/// Walks between points.
#[derive(Params)]
#[params(check = Self::check)]
struct PatrolParams {
    /// The points.
    #[param(len = 2..=8)]
    points: Vec<[f32; 2]>,
    /// Ticks to wait at each.
    #[param(default = 10)]
    wait: Ticks,
    /// Distance per tick.
    #[param(default = 1.0, range = 0.1..=10.0)]
    speed: f32,
    /// How to move.
    #[param(default = Gait::Walk)]
    gait: Gait,
    /// A name to show.
    #[param(default = "patrol", rename = "label")]
    r#type: String,
    /// Stop after this many laps.
    laps: Option<u32>,
    /// Heights along the way.
    #[param(default = [0.0], range = ..=100.0)]
    heights: Vec<f64>,
}

impl PatrolParams {
    fn check(&self) -> Result<(), &'static str> {
        if self.laps == Some(0) { Err("laps must not be 0") } else { Ok(()) }
    }
}

/// No parameters.
#[derive(Params)]
struct Nothing;

struct Patrol(PatrolParams);

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Step {
    next: u32,
}

impl Node<Vec<[f32; 2]>, ()> for Patrol {
    type Task = Step;
    fn create_task(&self, _: &mut Ctx<Vec<[f32; 2]>, ()>) -> Step {
        Step { next: 0 }
    }
    fn update(&self, step: &mut Step, cx: &mut Ctx<Vec<[f32; 2]>, ()>, _: &mut Children<Vec<[f32; 2]>, ()>) -> Status {
        cx.agent.push(self.0.points[step.next as usize]);
        step.next += 1;
        if step.next as usize == self.0.points.len() { Status::Success } else { Status::Running }
    }
}

fn main() {
    assert_eq!(Gait::from_word("sneak"), Some(Gait::Crouch));
    assert_eq!(<Nothing as NodeParams>::declare(), []);
    let mut registry = Registry::<Vec<[f32; 2]>, ()>::new();
    registry.node("Patrol", Arity::Leaf, |p: PatrolParams| {
        assert_eq!((p.wait.get(), p.speed, p.gait, p.r#type.as_str(), p.laps), (10, 1.0, Gait::Run, "patrol", Some(2)));
        assert_eq!(p.heights, [0.0]);
        Patrol(p)
    }).unwrap();
    registry.action("Idle", |_: Nothing| |_| Status::Success).unwrap();
    let tree = registry
        .loading(TreeSource::text(r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Patrol", "points": [[0, 0], [10, 0.5]], "gait": "run", "laps": 2},
            {"type": "Idle"}]}}"#, Format::Json, "p.json")).load()
        .unwrap();
    let mut walked = Vec::new();
    let mut agent = Agent::new(&tree);
    assert_eq!(agent.tick(&tree, &mut walked, &()), Status::Running);
    assert_eq!(agent.tick(&tree, &mut walked, &()), Status::Success);
    assert_eq!(walked, [[0.0, 0.0], [10.0, 0.5]]);
}
