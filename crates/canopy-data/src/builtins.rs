//! The built-in node types every [`Registry::new`](crate::Registry::new)
//! holds: all of canopy's node kinds, plus `Script` and `Random`, leaves for
//! prototyping and tests whose outcomes come from the file.

use canopy_core::{Afterwards, Arity, Children, Ctx, CustomNode, Node, NodeKind, Policy, Status};
use canopy_derive::Task;

use crate::error::ParamError;
use crate::param::Param;
use crate::registry::{Build, NodeType, Registry};
use crate::text::number;
use crate::value::Params;

use Arity::{Composite, Decorator, Leaf};

/// A Parallel policy; the parameter's choices are checked already.
fn policy(p: &Params, name: &str) -> Result<Policy, ParamError> {
    Ok(match p.text(name)? {
        "one" => Policy::One,
        _ => Policy::All,
    })
}

/// A factory from parameters to a node kind.
type KindFn<A, W> = fn(&Params) -> Result<NodeKind<A, W>, ParamError>;

/// Register every built-in type, grouped as `canopy nodes` lists them.
pub(crate) fn register<A: 'static, W: 'static>(r: &mut Registry<A, W>) {
    let mut add = |t: NodeType<A, W>| r.register(t).expect("built-in names are unique");
    controls(&mut add);
    decorators(&mut add);
    guards(&mut add);
    leaves(&mut add);
    prototyping_leaves(&mut add);
    conditions(&mut add);
}

fn kind<A: 'static, W: 'static>(
    name: &str,
    description: &str,
    arity: Arity,
    params: Vec<Param>,
    factory: KindFn<A, W>,
) -> NodeType<A, W> {
    NodeType::new(name, description, arity, params, factory)
}

/// Composites.
fn controls<A: 'static, W: 'static>(add: &mut impl FnMut(NodeType<A, W>)) {
    add(kind(
        "Sequence",
        "children in order until one fails or runs; resumes a running child",
        Composite,
        vec![],
        |_| Ok(NodeKind::Sequence),
    ));
    add(kind(
        "Selector",
        "children in order until one succeeds or runs; resumes a running child",
        Composite,
        vec![],
        |_| Ok(NodeKind::Selector),
    ));
    add(kind(
        "SequenceWithMemory",
        "a Sequence that, when entered again, goes on from the child that failed or was aborted",
        Composite,
        vec![],
        |_| Ok(NodeKind::SequenceWithMemory),
    ));
    add(kind(
        "ReactiveSequence",
        "re-checks the children before the running one every tick; aborts it when one fails or runs",
        Composite,
        vec![],
        |_| Ok(NodeKind::ReactiveSequence),
    ));
    add(kind(
        "ReactiveSelector",
        "priority selector: re-tries higher-priority children every tick, aborting a lower running one",
        Composite,
        vec![],
        |_| Ok(NodeKind::ReactiveSelector),
    ));
    add(kind(
        "Parallel",
        "updates every unfinished child each tick; decided by the success and failure policies",
        Composite,
        vec![
            Param::choice("success", "how many children must succeed", &["one", "all"])
                .default("all"),
            Param::choice("failure", "how many children must fail", &["one", "all"]).default("one"),
        ],
        |p| {
            Ok(NodeKind::Parallel {
                success: policy(p, "success")?,
                failure: policy(p, "failure")?,
            })
        },
    ));
}

/// Decorators with a number or nothing as parameter.
fn decorators<A: 'static, W: 'static>(add: &mut impl FnMut(NodeType<A, W>)) {
    add(kind(
        "Inverter",
        "swaps Success and Failure",
        Decorator,
        vec![],
        |_| Ok(NodeKind::Inverter),
    ));
    add(kind(
        "ForceSuccess",
        "a finished child counts as Success",
        Decorator,
        vec![],
        |_| Ok(NodeKind::ForceSuccess),
    ));
    add(kind(
        "ForceFailure",
        "a finished child counts as Failure",
        Decorator,
        vec![],
        |_| Ok(NodeKind::ForceFailure),
    ));
    add(kind(
        "Repeat",
        "runs the child to success `times` times, one completion per tick; fails if it fails",
        Decorator,
        vec![Param::count("times", "successes needed")],
        |p| Ok(NodeKind::Repeat(p.u32("times")?)),
    ));
    add(kind(
        "Retry",
        "re-runs a failing child on the next tick, up to `times` attempts",
        Decorator,
        vec![Param::count("times", "attempts")],
        |p| Ok(NodeKind::Retry(p.u32("times")?)),
    ));
    add(kind(
        "Timeout",
        "fails and aborts the child once it has run `ticks` ticks",
        Decorator,
        vec![Param::ticks("ticks", "updates the child gets", 1)],
        |p| Ok(NodeKind::Timeout(p.u32("ticks")?)),
    ));
    add(kind(
        "Cooldown",
        "after the child ends, fails for the next `ticks` ticks without running it",
        Decorator,
        vec![Param::ticks("ticks", "ticks to cool down", 1)],
        |p| Ok(NodeKind::Cooldown(p.u32("ticks")?)),
    ));
    add(kind(
        "RunOnce",
        "runs the child to the end once per agent; afterwards returns `then` without running it",
        Decorator,
        vec![
            Param::choice(
                "then",
                "what later activations return: the child's status, success or failure",
                &["same", "success", "failure"],
            )
            .default("same"),
        ],
        |p| {
            Ok(NodeKind::RunOnce(match p.text("then")? {
                "success" => Afterwards::Success,
                "failure" => Afterwards::Failure,
                _ => Afterwards::Same,
            }))
        },
    ));
}

/// Guards, whose condition the loader resolves.
fn guards<A: 'static, W: 'static>(add: &mut impl FnMut(NodeType<A, W>)) {
    add(NodeType::with_build(
        "Guard",
        "enters the child only if the condition holds when the guard is entered",
        Decorator,
        vec![Param::condition("condition", "a condition node object")],
        Build::Guard { reactive: false },
    ));
    add(NodeType::with_build(
        "ReactiveGuard",
        "re-checks the condition every tick and aborts the child when it fails",
        Decorator,
        vec![Param::condition("condition", "a condition node object")],
        Build::Guard { reactive: true },
    ));
}

/// The engine's own leaves, and SubTree.
fn leaves<A: 'static, W: 'static>(add: &mut impl FnMut(NodeType<A, W>)) {
    add(kind(
        "Wait",
        "Running until `ticks` ticks have passed since it was entered, then Success",
        Leaf,
        vec![Param::ticks("ticks", "ticks to wait", 0)],
        |p| Ok(NodeKind::Wait(p.u32("ticks")?)),
    ));
    add(kind(
        "AlwaysSuccess",
        "always Success",
        Leaf,
        vec![],
        |_| Ok(NodeKind::AlwaysSuccess),
    ));
    add(kind(
        "AlwaysFailure",
        "always Failure",
        Leaf,
        vec![],
        |_| Ok(NodeKind::AlwaysFailure),
    ));
    add(kind(
        "AlwaysRunning",
        "always Running",
        Leaf,
        vec![],
        |_| Ok(NodeKind::AlwaysRunning),
    ));
    add(NodeType::with_build(
        "SubTree",
        "stands for the named entry of the file's \"subtrees\", shared by every reference",
        Leaf,
        vec![Param::subtree("tree", "a key of \"subtrees\"")],
        Build::SubTree,
    ));
}

/// Leaves whose outcomes come from the file: for prototypes and tests.
fn prototyping_leaves<A: 'static, W: 'static>(add: &mut impl FnMut(NodeType<A, W>)) {
    add(kind(
        "Script",
        "plays back a list of statuses, one per update (clock \"install\") or per agent tick (clock \"tick\")",
        Leaf,
        vec![
            Param::statuses(
                "statuses",
                "the statuses to play back; the last one repeats",
            ),
            Param::choice("clock", "what advances the script", &["install", "tick"])
                .default("install"),
        ],
        |p| {
            let script = Script {
                statuses: p.statuses("statuses")?,
                per_tick: p.text("clock")? == "tick",
            };
            Ok(NodeKind::Custom(CustomNode::new(script)))
        },
    ));
    add(kind(
        "Random",
        "Success with probability `success`, Failure with `failure`, else Running; reproducible per agent",
        Leaf,
        vec![
            Param::float("success", "probability of Success").range(0.0, 1.0),
            Param::float("failure", "probability of Failure").range(0.0, 1.0),
        ],
        |p| {
            let (success, failure) = (p.float("success")?, p.float("failure")?);
            if success + failure > 1.0 {
                return Err(ParamError::invalid(format!(
                    "success + failure must be at most 1, got {}",
                    number(success + failure)
                )));
            }
            let random = Random {
                success,
                failure,
                salt: mix(p.seed() ^ mix(p.index())),
            };
            Ok(NodeKind::Custom(CustomNode::new(random)))
        },
    ));
}

/// Conditions that need no agent data: for prototypes and tests.
fn conditions<A: 'static, W: 'static>(add: &mut impl FnMut(NodeType<A, W>)) {
    add(NodeType::with_build(
        "Chance",
        "condition: true with probability `p`, reproducibly per agent and tick",
        Leaf,
        vec![Param::float("p", "probability of true").range(0.0, 1.0)],
        Build::Condition(Box::new(|p| {
            let (chance, salt) = (p.float("p")?, mix(p.seed() ^ mix(p.index())));
            Ok(std::sync::Arc::new(move |cx: &Ctx<A, W>| {
                unit(salt ^ mix(((cx.id as u64) << 32) | cx.tick as u64)) < chance
            }))
        })),
    ));
    add(NodeType::with_build(
        "Periodic",
        "condition: true for the first `on` of every `period` agent ticks (ticks 1..=on, period+1..=period+on, …), the cycle moved `offset` ticks earlier",
        Leaf,
        vec![
            Param::ticks("period", "length of the cycle", 1),
            Param::ticks("on", "ticks of each cycle it is true", 0),
            Param::ticks(
                "offset",
                "ticks the cycle is moved earlier: period 30, on 6, offset 20 is true at ticks 11–16, 41–46, …",
                0,
            )
            .default(0),
        ],
        Build::Condition(Box::new(|p| {
            let (period, on, offset) = (p.u32("period")?, p.u32("on")?, p.u32("offset")?);
            Ok(std::sync::Arc::new(move |cx: &Ctx<A, W>| {
                periodic(cx.tick, period, on, offset)
            }))
        })),
    ));
}

/// Whether a Periodic condition holds at agent tick `tick` (from 1).
fn periodic(tick: u32, period: u32, on: u32, offset: u32) -> bool {
    (tick.wrapping_sub(1).wrapping_add(offset)) % period < on
}

/// Plays back statuses. With the install clock, the k-th update since the
/// task was installed (k from 0) returns `statuses[min(k, len-1)]`; with the
/// tick clock, the update during the agent's tick T (from 1) returns
/// `statuses[min(T-1, len-1)]`.
struct Script {
    statuses: Vec<Status>,
    per_tick: bool,
}

/// Updates since install.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Updates {
    count: u32,
}

impl<A: 'static, W: 'static> Node<A, W> for Script {
    type Task = Updates;

    fn type_name(&self) -> &str {
        "Script"
    }

    fn params(&self) -> Vec<(String, String)> {
        let words: Vec<&str> = self.statuses.iter().map(|s| s.as_str()).collect();
        let clock = if self.per_tick { "tick" } else { "install" };
        vec![
            ("statuses".to_string(), format!("[{}]", words.join(", "))),
            ("clock".to_string(), clock.to_string()),
        ]
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Updates {
        Updates { count: 0 }
    }

    fn update(&self, task: &mut Updates, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        let k = if self.per_tick {
            cx.tick.saturating_sub(1)
        } else {
            let k = task.count;
            task.count = task.count.saturating_add(1);
            k
        };
        self.statuses[(k as usize).min(self.statuses.len() - 1)]
    }
}

/// Deterministic randomness: the outcome of an update is a hash of the
/// registry seed, the node, the agent id, the tick and the update count.
struct Random {
    success: f64,
    failure: f64,
    salt: u64,
}

fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser: every input bit affects every output bit.
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A hash as a number in `0.0..1.0`.
fn unit(key: u64) -> f64 {
    (mix(key) >> 11) as f64 / (1u64 << 53) as f64
}

impl<A: 'static, W: 'static> Node<A, W> for Random {
    type Task = Updates;

    fn type_name(&self) -> &str {
        "Random"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("success".to_string(), self.success.to_string()),
            ("failure".to_string(), self.failure.to_string()),
        ]
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Updates {
        Updates { count: 0 }
    }

    fn update(&self, task: &mut Updates, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        let key = self.salt ^ mix(((cx.id as u64) << 32) | cx.tick as u64) ^ mix(task.count as u64);
        task.count = task.count.wrapping_add(1);
        let roll = unit(key);
        if roll < self.success {
            Status::Success
        } else if roll < self.success + self.failure {
            Status::Failure
        } else {
            Status::Running
        }
    }
}

#[cfg(test)]
mod tests {
    use super::periodic;

    #[test]
    fn periodic_offset_moves_the_cycle_earlier() {
        let on_ticks = |period, on, offset| -> Vec<u32> {
            (1..=70)
                .filter(|&t| periodic(t, period, on, offset))
                .collect()
        };
        assert_eq!(
            on_ticks(30, 6, 0),
            [
                1, 2, 3, 4, 5, 6, 31, 32, 33, 34, 35, 36, 61, 62, 63, 64, 65, 66
            ]
        );
        assert_eq!(
            on_ticks(30, 6, 20),
            [11, 12, 13, 14, 15, 16, 41, 42, 43, 44, 45, 46]
        );
        assert_eq!(
            on_ticks(30, 6, 1),
            [
                1, 2, 3, 4, 5, 30, 31, 32, 33, 34, 35, 60, 61, 62, 63, 64, 65
            ]
        );
    }
}
