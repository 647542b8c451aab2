//! Hybrids: a guard whose state machine runs a behavior tree while on
//! patrol, and whose fight tree runs a small state machine as a leaf.
//!
//! - `Patrol` is a tree state: while it is active its tree ticks once per
//!   update (walk to the gate, then to the tower). The alarm moves the
//!   machine to `Fight`, and the patrol tree is aborted on the way out —
//!   its running walk reports `Aborted`.
//! - `Fight` is a tree state too, whose tree is `sequence [reload, fire]`;
//!   `reload` is a [`MachineLeaf`] running Eject → Insert → Ready, a
//!   machine whose final state `Ready` makes the leaf succeed. When the
//!   fight tree succeeds, the state sends `Won` and the guard patrols again
//!   — from the start of the patrol, not where it was interrupted.
//!
//! ```text
//! cargo run --example fsm_hybrid
//! ```

use std::sync::Arc;

use canopy::bytemuck::{Pod, Zeroable};
use canopy::fsm::{FsmAgent, Hooks, MachineBuilder, MachineLeaf, TreeState};
use canopy::{Builder, Children, Ctx, Exit, Node, Status};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    Alarm,
    Won,
    Next,
}

#[derive(Default)]
struct Guard {
    shots: u32,
}

/// A leaf walking to a place in `steps` ticks, reporting an abort.
struct WalkTo {
    place: &'static str,
    steps: u32,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy::bytemuck")]
struct Steps {
    done: u32,
}

impl Node<Guard, ()> for WalkTo {
    type Task = Steps;
    fn create_task(&self, _: &mut Ctx<Guard, ()>) -> Steps {
        println!("      [tree] start walking to the {}", self.place);
        Steps { done: 0 }
    }
    fn update(
        &self,
        task: &mut Steps,
        _: &mut Ctx<Guard, ()>,
        _: &mut Children<Guard, ()>,
    ) -> Status {
        task.done += 1;
        println!("      [tree] step {} to the {}", task.done, self.place);
        if task.done == self.steps {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn terminate(&self, _: &mut Steps, _: &mut Ctx<Guard, ()>, exit: Exit) {
        println!("      [tree] walk to the {}: {exit:?}", self.place);
    }
}

/// Reloading as a tiny machine: Eject, Insert, Ready (final).
fn reload() -> MachineLeaf<Guard, (), Ev> {
    type H = Hooks<Guard, (), Ev>;
    let step = |name: &'static str| {
        H::new()
            .on_enter(move |_| println!("        [reload] {name}"))
            .on_update(|_| Some(Ev::Next))
    };
    let mut m = MachineBuilder::new();
    m.state("Eject", step("eject"));
    m.state("Insert", step("insert"));
    m.state(
        "Ready",
        H::new().on_enter(|_| println!("        [reload] ready")),
    )
    .succeeds();
    m.transition("Eject", Ev::Next, "Insert")
        .transition("Insert", Ev::Next, "Ready");
    m.start("Eject");
    MachineLeaf::new(Arc::new(m.build().expect("reload machine is valid")))
        .expect("the reload machine fits a leaf")
}

fn main() {
    let b = Builder::<Guard, ()>::new();
    let patrol = b
        .build(b.sequence(
            "patrol",
            [
                b.custom(
                    "to gate",
                    WalkTo {
                        place: "gate",
                        steps: 2,
                    },
                    [],
                ),
                b.custom(
                    "to tower",
                    WalkTo {
                        place: "tower",
                        steps: 3,
                    },
                    [],
                ),
            ],
        ))
        .expect("patrol tree is valid");
    let b = Builder::<Guard, ()>::new();
    let fight = b
        .build(b.sequence(
            "fight",
            [
                b.custom("reload", reload(), []),
                b.action("fire", |cx| {
                    cx.agent.shots += 1;
                    println!("      [tree] fire! ({} shots)", cx.agent.shots);
                    Status::Success
                }),
            ],
        ))
        .expect("fight tree is valid");

    let mut m = MachineBuilder::new();
    m.tree_state("Patrol", TreeState::new(Arc::new(patrol)));
    m.tree_state("Fight", TreeState::new(Arc::new(fight)).on_success(Ev::Won));
    m.transition("Patrol", Ev::Alarm, "Fight")
        .transition("Fight", Ev::Won, "Patrol");
    m.start("Patrol");
    let machine = m.build().expect("guard machine is valid");
    println!("{}", machine.display());

    let (mut guard, mut fsm) = (Guard::default(), FsmAgent::new(&machine));
    for frame in 0..9 {
        let state = fsm.active().first().map_or("-", |&s| machine.name(s));
        println!("frame {frame} ({state})");
        if frame == 3 {
            println!("    ALARM");
            fsm.send(&machine, Ev::Alarm, &mut guard, &());
        }
        fsm.update(&machine, &mut guard, &());
    }
    fsm.stop(&machine, &mut guard, &());
}
