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
//! ```
//!
//! Everything specific to the game is the registry, the agent data and the
//! world; the command itself is [`canopy_cli::Cli`]. (A snapshot saves where
//! each agent is in its tree; agent data such as a watchman's position is
//! the game's to save, so `--restore` gives each agent fresh data.)

use std::process::ExitCode;

use canopy::bytemuck::{Pod, Zeroable};
use canopy::data::{NodeType, Param, Registry};
use canopy::{Arity, Children, Ctx, CustomNode, Node, NodeKind, Status};
use canopy_cli::Cli;

/// Counts heap bytes and allocations, so that `bench` reports them.
#[global_allocator]
static ALLOCATOR: canopy_counting::Counting = canopy_counting::Counting;

/// A watchman: the game's data for one agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watchman {
    /// Where on the wall it stands.
    pub pos: i32,
}

impl Watchman {
    /// Watchmen start three steps apart: agent `id` at `3 × id`.
    pub fn new(id: u32) -> Watchman {
        Watchman { pos: 3 * id as i32 }
    }
}

/// What every watchman sees.
#[derive(Clone, Debug)]
pub struct Wall {
    /// Where the intruder stands.
    pub intruder: i32,
}

type Cx<'a, 'b> = &'a mut Ctx<'b, Watchman, Wall>;

/// One step from `from` towards `to`.
fn step(from: i32, to: i32) -> i32 {
    from + (to - from).signum()
}

/// Walks between two points, one step per tick, `laps` round trips; then
/// Success. The node holds the parameters, shared by every agent; each
/// agent's task holds where it is heading and the laps left.
struct Patrol {
    from: i32,
    to: i32,
    laps: u32,
}

/// A patrol's per-agent state: plain bytes, as every task is.
#[derive(Clone, Copy, Pod, Zeroable)]
#[bytemuck(crate = "canopy::bytemuck")]
#[repr(C)]
struct Leg {
    target: i32,
    laps_left: u32,
}

impl Node<Watchman, Wall> for Patrol {
    type Task = Leg;

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("from".into(), self.from.to_string()),
            ("to".into(), self.to.to_string()),
            ("laps".into(), self.laps.to_string()),
        ]
    }

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

/// The game's node types, with canopy's built-in ones.
pub fn registry() -> Registry<Watchman, Wall> {
    let mut registry = Registry::new();
    registry
        .register(NodeType::new(
            "Patrol",
            "walks between `from` and `to`, one step per tick, `laps` round trips; then Success",
            Arity::Leaf,
            vec![
                Param::int("from", "one end of the walk"),
                Param::int("to", "the other end"),
                Param::count("laps", "round trips").default(1),
            ],
            |p| {
                let patrol = Patrol {
                    from: p.int("from")? as i32,
                    to: p.int("to")? as i32,
                    laps: p.u32("laps")?,
                };
                if patrol.from == patrol.to {
                    return Err("`from` and `to` must differ".into());
                }
                Ok(NodeKind::Custom(CustomNode::new(patrol)))
            },
        ))
        .expect("a new name");
    registry
        .register_condition(
            "IntruderWithin",
            "true while the intruder is at most `steps` steps away",
            vec![Param::count("steps", "how far the watchman sees")],
            |p| {
                let steps = p.int("steps")?;
                Ok(move |cx: &Ctx<Watchman, Wall>| {
                    i64::from((cx.world.intruder - cx.agent.pos).abs()) <= steps
                })
            },
        )
        .expect("a new name");
    registry
        .register_action(
            "Approach",
            "steps towards the intruder; Success once next to it",
            vec![],
            |_| {
                Ok(|cx: Cx| {
                    if (cx.world.intruder - cx.agent.pos).abs() <= 1 {
                        return Status::Success;
                    }
                    cx.agent.pos = step(cx.agent.pos, cx.world.intruder);
                    Status::Running
                })
            },
        )
        .expect("a new name");
    registry
}

/// The game's `canopy`.
pub fn cli() -> Cli<Watchman, Wall> {
    Cli::new(registry())
        .name("my_canopy")
        .about("The watchmen's trees: check, print, run and snapshot them")
        .agent(Watchman::new)
        .world(Wall { intruder: 10 })
}

fn main() -> ExitCode {
    cli().run()
}
