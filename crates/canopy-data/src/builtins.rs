//! The built-in node types every [`Registry::new`](crate::Registry::new)
//! holds: all of canopy's node kinds, plus `Script` and `Random`, leaves for
//! prototyping and tests whose outcomes come from the file.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Arity, Children, Ctx, CustomNode, Node, NodeKind, Policy, Status};

use crate::param::{Param, Params};
use crate::registry::{Build, NodeType, Registry};

fn policy(p: &Params, name: &str) -> Result<Policy, String> {
    p.text(name)?
        .parse()
        .map_err(|e: canopy_core::ParseError| e.to_string())
}

pub(crate) fn register<A: 'static, W: 'static>(r: &mut Registry<A, W>) {
    let mut add = |t: NodeType<A, W>| r.register(t).expect("built-in names are unique");
    let kind = |name: &str,
                desc: &str,
                arity: Arity,
                params: Vec<Param>,
                f: fn(&Params) -> Result<NodeKind<A, W>, String>| {
        NodeType::new(name, desc, arity, params, f)
    };
    use Arity::{Composite, Decorator, Leaf};

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
                return Err(format!(
                    "success + failure must be at most 1, got {}",
                    success + failure
                ));
            }
            let random = Random {
                success,
                failure,
                salt: mix(p.seed() ^ mix(p.index())),
            };
            Ok(NodeKind::Custom(CustomNode::new(random)))
        },
    ));
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
        "condition: true for the first `on` ticks of every `period` ticks (agent ticks, shifted by `offset`)",
        Leaf,
        vec![
            Param::ticks("period", "length of the cycle", 1),
            Param::ticks("on", "ticks of each cycle it is true", 0),
            Param::ticks("offset", "ticks to shift the cycle by", 0).default(0),
        ],
        Build::Condition(Box::new(|p| {
            let (period, on, offset) = (p.u32("period")?, p.u32("on")?, p.u32("offset")?);
            Ok(std::sync::Arc::new(move |cx: &Ctx<A, W>| {
                (cx.tick.wrapping_sub(1).wrapping_add(offset)) % period < on
            }))
        })),
    ));
    add(NodeType::with_build(
        "SubTree",
        "stands for the named entry of the file's \"subtrees\", shared by every reference",
        Leaf,
        vec![Param::subtree("tree", "a key of \"subtrees\"")],
        Build::SubTree,
    ));
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
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
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
