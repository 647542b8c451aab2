//! A game's own `canopy` command: the `canopy` tool, built with the game's
//! node types, so that the game's real tree files can be checked, printed,
//! drawn, run, benchmarked, exported, replayed and snapshotted from the
//! shell.
//!
//! The game is a line of watchmen on a wall. Each patrols between two
//! points (`Patrol`, a node type with its own per-agent state: where the
//! watchman is heading and how many laps are left) and, when an intruder
//! comes within reach (`IntruderWithin`), walks up to it (`Approach`) and
//! stares it down.
//!
//! ```text
//! cargo run --example my_canopy -- nodes
//! cargo run --example my_canopy -- print examples/trees/my_canopy.json
//! cargo run --example my_canopy -- run examples/trees/my_canopy.json --ticks 8 --agents 4
//! cargo run --example my_canopy -- run examples/trees/my_canopy.json --ticks 3 --trace
//! cargo run --example my_canopy -- run examples/trees/my_canopy.json --ticks 5 --agents 4 --save wall.snap
//! cargo run --example my_canopy -- snapshot inspect wall.snap --tree examples/trees/my_canopy.json
//! cargo run --example my_canopy -- run examples/machines/watch.json --ticks 8 --agents 3
//! ```
//!
//! Everything specific to the game is the registry, the agent data, the
//! world and the state types of its machine files (`Post`); the command
//! itself is [`canopy_cli::Cli`]. (A snapshot saves where
//! each agent is in its tree; agent data such as a watchman's position is
//! the game's to save, so `--restore` gives each agent fresh data.)

use std::process::ExitCode;

use canopy::data::{Params, Registry};
use canopy::fsm::{Hooks, MachineRegistry};
use canopy::{Arity, Children, Ctx, Node, Status, Task};
use canopy_cli::Cli;

/// Counts heap bytes and allocations, so that `bench` reports them.
#[global_allocator]
static ALLOCATOR: canopy_counting::Counting = canopy_counting::Counting;

/// A watchman: the game's data for one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Watchman {
    /// Where on the wall it stands.
    pub pos: i32,
}

impl Watchman {
    /// Watchmen start three steps apart: agent `id` at `3 × id`.
    pub(crate) fn new(id: u32) -> Watchman {
        Watchman { pos: 3 * id as i32 }
    }
}

/// What every watchman sees.
#[derive(Clone, Debug)]
pub(crate) struct Wall {
    /// Where the intruder stands.
    pub intruder: i32,
}

type Cx<'a, 'b> = &'a mut Ctx<'b, Watchman, Wall>;

/// One step from `from` towards `to`.
fn step(from: i32, to: i32) -> i32 {
    from + (to - from).signum()
}

/// Walks between `from` and `to`, one step per tick, `laps` round trips;
/// then Success.
#[derive(Params)]
#[params(check = Self::check)]
struct Patrol {
    /// One end of the walk.
    from: i32,
    /// The other end.
    to: i32,
    /// Round trips.
    #[param(default = 1, range = 1..)]
    laps: u32,
}

impl Patrol {
    fn check(&self) -> Result<(), &'static str> {
        if self.from == self.to {
            return Err("`from` and `to` must differ");
        }
        Ok(())
    }
}

/// A patrol's per-agent state: plain bytes, as every task is.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Leg {
    target: i32,
    laps_left: u32,
}

/// The node holds the parameters, shared by every agent; each agent's task
/// holds where it is heading and the laps left.
impl Node<Watchman, Wall> for Patrol {
    type Task = Leg;

    fn create_task(&self, _: Cx) -> Leg {
        Leg {
            target: self.to,
            laps_left: self.laps,
        }
    }

    fn update(&self, leg: &mut Leg, cx: Cx, _: &mut Children<Watchman, Wall>) -> Status {
        cx.agent.pos = step(cx.agent.pos, leg.target);
        if cx.agent.pos == leg.target {
            if leg.target == self.from {
                leg.laps_left -= 1;
            }
            leg.target = if leg.target == self.to {
                self.from
            } else {
                self.to
            };
        }
        if leg.laps_left == 0 {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn task_is_valid(&self, leg: &Leg) -> bool {
        (leg.target == self.from || leg.target == self.to) && leg.laps_left <= self.laps
    }

    fn describe(&self, leg: &Leg) -> Option<String> {
        let laps = if leg.laps_left == 1 { "lap" } else { "laps" };
        Some(format!(
            "heading to {}, {} {laps} left",
            leg.target, leg.laps_left
        ))
    }
}

/// True while the intruder is at most `steps` steps away.
#[derive(Params)]
struct IntruderWithin {
    /// How far the watchman sees.
    #[param(range = 1..)]
    steps: u32,
}

/// Steps towards the intruder; Success once next to it.
#[derive(Params)]
struct Approach {}

/// The game's node types, with canopy's built-in ones: one line each.
pub(crate) fn registry() -> Registry<Watchman, Wall> {
    let mut registry = Registry::new();
    registry
        .node("Patrol", Arity::Leaf, |patrol: Patrol| patrol)
        .expect("a new name");
    registry
        .condition("IntruderWithin", |p: IntruderWithin| {
            move |cx: &Ctx<Watchman, Wall>| {
                (cx.world.intruder - cx.agent.pos).unsigned_abs() <= p.steps
            }
        })
        .expect("a new name");
    registry
        .action("Approach", |_: Approach| {
            |cx: Cx| {
                if (cx.world.intruder - cx.agent.pos).abs() <= 1 {
                    return Status::Success;
                }
                cx.agent.pos = step(cx.agent.pos, cx.world.intruder);
                Status::Running
            }
        })
        .expect("a new name");
    registry
}

/// What moves a watchman's state machine (`examples/machines/watch.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    /// The intruder is in sight.
    Intruder,
    /// The chase is over.
    Calm,
}

/// The game's state types and triggers for machine files. `Post` walks to
/// its post (`at`) and calls `Intruder` once the intruder is within `sees`
/// steps; a state's tree may use the game's node types (`Approach`).
fn machines(m: &mut MachineRegistry<Watchman, Wall, Call>) {
    m.state_type("Post", |state| {
        let number = |field: &str| {
            state
                .get(field)
                .and_then(|v| v.as_f64())
                .filter(|n| n.fract() == 0.0 && n.abs() <= 1e6)
                .map(|n| n as i32)
                .ok_or(format!("\"{field}\" must be a whole number"))
        };
        let (at, sees) = (number("at")?, number("sees")?);
        Ok(Hooks::new().on_update(move |cx: Cx| {
            cx.agent.pos = step(cx.agent.pos, at);
            ((cx.world.intruder - cx.agent.pos).abs() <= sees).then_some(Call::Intruder)
        }))
    });
    m.trigger("Intruder", Call::Intruder)
        .trigger("Calm", Call::Calm);
}

/// The game's `canopy`.
pub(crate) fn cli() -> Cli<Watchman, Wall> {
    Cli::new(registry())
        .name("my_canopy")
        .about("The watchmen's trees: check, print, run and snapshot them")
        .agent(Watchman::new)
        .world(Wall { intruder: 10 })
        .machines(machines)
}

fn main() -> ExitCode {
    cli().run()
}
