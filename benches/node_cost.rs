//! What each node kind costs: for every built-in kind, a minimal tree whose
//! root is the node under test, over constant leaves, so that every agent
//! tick is one whole enter + update + exit cycle of it; plus an Action
//! closure leaf and a user `Node` leaf (a custom node with a `u32` task,
//! and one without a task) doing the same work, so the two ways of writing
//! leaf code can be compared; and Action closures reading and writing a
//! blackboard port, and an `Eval` leaf running a small script over two
//! keys (which drops the script's value, so only its writes run) and an
//! `EvalCondition` leaf testing the same script's value, against the
//! closure that touches only its agent data and one doing the script's
//! work by hand through two ports; and a
//! Utility over 2 and over 8 children, whose difference is the cost of
//! scoring one more child. Every tree runs in canopy and in the flat
//! limit (the same semantics as a hand-optimised flat-array interpreter; it
//! has no user nodes).
//!
//! ```text
//! cargo bench --bench node_cost -- --noplot
//! ```
//!
//! Each reported time is **nanoseconds per agent-tick**: 10,000 agents are
//! ticked round-robin, one agent-tick per criterion iteration. A row costs
//! the agent's tick itself (its counter, installing and uninstalling the
//! root) plus the nodes of its tree: `AlwaysSuccess` alone is that fixed
//! cost with the cheapest node, so a kind's own cost is roughly its row
//! minus the `AlwaysSuccess` row for each constant leaf under it.
//!
//! Async leaves: one that finishes at once (a wait claimed and released
//! every tick), and one that a `Timeout(1)` aborts while it waits, without
//! and with abort code (`async_action_with_abort`).
//!
//! Three rows are not one-tick cycles: `AlwaysRunning` never finishes
//! (after the first tick, an update without enter or exit), `Cooldown(1)`
//! alternates between a tick that runs its child and a tick that refuses
//! to enter, and the `Timeout(1)` rows between a tick that starts the wait
//! and one that aborts it (each row is their mean).

use std::hint::black_box;
use std::time::{Duration, Instant};

use canopy::nodes::{Choice, Consideration, Curve, Scorer, Utility};
use canopy::{Agent, Builder, Children, Ctx, Draft, Input, Node, Output, Policy, Status, Tree};
use canopy_reference::flat::{Def, FlatLeaf, FlatTree};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};

/// Agents per measurement.
const AGENTS: usize = 10_000;

/// The agent data the leaves touch.
#[derive(Clone, Copy, Default)]
struct Counter {
    n: u64,
}

/// A user node leaf doing the Action leaf's work, with a `u32` task.
struct Bump;

impl Node<Counter, ()> for Bump {
    type Task = u32;
    fn create_task(&self, _cx: &mut Ctx<Counter, ()>) -> u32 {
        0
    }
    fn update(
        &self,
        task: &mut u32,
        cx: &mut Ctx<Counter, ()>,
        _: &mut Children<Counter, ()>,
    ) -> Status {
        *task += 1;
        cx.agent.n += 1;
        Status::Success
    }
}

/// The same user node leaf with no task at all (a zero-sized one).
struct BumpStateless;

impl Node<Counter, ()> for BumpStateless {
    type Task = ();
    fn create_task(&self, _cx: &mut Ctx<Counter, ()>) {}
    fn update(
        &self,
        _: &mut (),
        cx: &mut Ctx<Counter, ()>,
        _: &mut Children<Counter, ()>,
    ) -> Status {
        cx.agent.n += 1;
        Status::Success
    }
}

/// The flat limit's leaves: the same work as the closures below.
#[derive(Clone, Copy)]
struct FlatBump;

impl FlatLeaf<Counter, ()> for FlatBump {
    #[inline(always)]
    fn act(&self, cx: &mut Ctx<'_, Counter, ()>) -> Status {
        cx.agent.n += 1;
        Status::Success
    }
    #[inline(always)]
    fn check(&self, cx: &mut Ctx<'_, Counter, ()>) -> bool {
        cx.agent.n != u64::MAX
    }
}

type Canopy = for<'b> fn(&'b Builder<'b, Counter, ()>) -> &'b Draft<'b, Counter, ()>;

/// One row: its name, the canopy tree, and the flat one if it has one.
struct Case {
    name: &'static str,
    canopy: Canopy,
    flat: Option<fn() -> Def<FlatBump>>,
}

fn case(name: &'static str, canopy: Canopy, flat: Option<fn() -> Def<FlatBump>>) -> Case {
    Case { name, canopy, flat }
}

fn leaves() -> Vec<Case> {
    vec![
        case(
            "AlwaysSuccess",
            |b| b.always_success("s"),
            Some(|| Def::always_success("s")),
        ),
        case(
            "AlwaysFailure",
            |b| b.always_failure("f"),
            Some(|| Def::always_failure("f")),
        ),
        case(
            "AlwaysRunning",
            |b| b.always_running("r"),
            Some(|| Def::always_running("r")),
        ),
        case(
            "Action (closure)",
            |b| {
                b.action("bump", |cx| {
                    cx.agent.n += 1;
                    Status::Success
                })
            },
            Some(|| Def::action("bump", FlatBump)),
        ),
        case(
            "Action (user Node, u32 task)",
            |b| b.custom("bump", Bump, []),
            None,
        ),
        case(
            "Action (user Node, no task)",
            |b| b.custom("bump", BumpStateless, []),
            None,
        ),
        case(
            "Action reading a port (key)",
            |b| {
                let step = Input::from(b.key::<u64>("step").unwrap());
                b.action("bump", move |cx| {
                    cx.agent.n += cx.board.get(&step);
                    Status::Success
                })
            },
            None,
        ),
        case(
            "Action reading a port (a string key, converted)",
            |b| {
                // BehaviorTree.CPP's string entry read by a typed port: the
                // text converted at each read.
                let key = b.key::<canopy::Text>("step").unwrap();
                b.set_initial(key, canopy::Text::new("7"));
                let step = Input::<u64>::Converted(key);
                b.action("bump", move |cx| {
                    cx.agent.n += cx.board.get(&step);
                    Status::Success
                })
            },
            None,
        ),
        case(
            "Action writing a port (key)",
            |b| {
                let seen = Output::from(b.key::<u64>("seen").unwrap());
                b.action("bump", move |cx| {
                    cx.agent.n += 1;
                    cx.board.set(&seen, cx.agent.n);
                    Status::Success
                })
            },
            None,
        ),
        case(
            "Eval, a small script (a key read, one written)",
            |b| {
                let _ = b.key::<u64>("step").unwrap();
                b.eval("bump", "hp := step * 2 + 1; hp > 10 && step != 3")
                    .unwrap()
            },
            None,
        ),
        case(
            "EvalCondition, the same script (its value tested)",
            |b| {
                let _ = b.key::<u64>("step").unwrap();
                b.eval_condition("bump", "hp := step * 2 + 1; hp > 10 && step != 3")
                    .unwrap()
            },
            None,
        ),
        case(
            "Action doing that script's work by hand (closure, two ports)",
            |b| {
                let step = Input::from(b.key::<u64>("step").unwrap());
                let hp = Output::from(b.key::<f64>("hp").unwrap());
                b.action("bump", move |cx| {
                    let step = cx.board.get(&step) as f64;
                    let value = step * 2.0 + 1.0;
                    cx.board.set(&hp, value);
                    if value > 10.0 && step != 3.0 {
                        Status::Success
                    } else {
                        Status::Failure
                    }
                })
            },
            None,
        ),
        case(
            "Condition (closure)",
            |b| b.condition("ok?", |cx| cx.agent.n != u64::MAX),
            Some(|| Def::condition("ok?", FlatBump)),
        ),
        case("Wait(0)", |b| b.wait("w", 0), Some(|| Def::wait("w", 0))),
        case(
            "Async finishing at once",
            |b| b.async_action("ask", |_, _| Status::Success),
            None,
        ),
        case(
            "Timeout(1)(Async), aborted",
            |b| b.timeout("t", 1, b.async_action("ask", |_, _| Status::Running)),
            None,
        ),
        case(
            "Timeout(1)(Async with abort code), aborted",
            |b| {
                b.timeout(
                    "t",
                    1,
                    b.async_action_with_abort(
                        "ask",
                        |_, _| Status::Running,
                        |cx, _| cx.agent.n += 1,
                    ),
                )
            },
            None,
        ),
    ]
}

fn controls() -> Vec<Case> {
    vec![
        case(
            "Sequence(S, S)",
            |b| b.sequence("seq", [b.always_success("s"), b.always_success("s")]),
            Some(|| Def::sequence("seq", [success(), success()])),
        ),
        case(
            "Selector(F, S)",
            |b| b.selector("sel", [b.always_failure("f"), b.always_success("s")]),
            Some(|| Def::selector("sel", [failure(), success()])),
        ),
        case(
            "ReactiveSequence(S, S)",
            |b| b.reactive_sequence("rseq", [b.always_success("s"), b.always_success("s")]),
            Some(|| Def::reactive_sequence("rseq", [success(), success()])),
        ),
        case(
            "ReactiveSelector(F, S)",
            |b| b.reactive_selector("rsel", [b.always_failure("f"), b.always_success("s")]),
            Some(|| Def::reactive_selector("rsel", [failure(), success()])),
        ),
        case(
            "Utility(F, S), 1 consideration each",
            |b| utility(b, 2),
            None,
        ),
        case(
            "Utility(F x7, S), 1 consideration each",
            |b| utility(b, 8),
            None,
        ),
        case(
            "Parallel(all, one)(S, S)",
            |b| {
                let kids = [b.always_success("s"), b.always_success("s")];
                b.parallel("par", Policy::All, Policy::One, kids)
            },
            Some(|| Def::parallel("par", Policy::All, Policy::One, [success(), success()])),
        ),
    ]
}

/// A Utility over `n` children, the last of which (AlwaysSuccess) wins:
/// every child is scored, each through one consideration (a scorer
/// reading the agent, a logistic curve), and one child runs. The row for
/// 8 children minus the row for 2, over 6, is the cost of a considered
/// child.
fn utility<'b>(b: &'b Builder<'b, Counter, ()>, n: usize) -> &'b Draft<'b, Counter, ()> {
    let choice = |last: bool| {
        let score = if last { 0.75 } else { 0.25 };
        let input = Scorer::new(
            "x",
            move |cx: &Ctx<Counter, ()>| {
                if cx.agent.n == u64::MAX { 0.0 } else { score }
            },
        );
        Choice::new(vec![Consideration {
            input,
            curve: Curve::Logistic {
                steepness: 8.0,
                midpoint: 0.5,
            },
        }])
    };
    let choices = (0..n).map(|i| choice(i + 1 == n)).collect();
    let children: Vec<_> = (0..n)
        .map(|i| match i + 1 == n {
            true => b.always_success("s"),
            false => b.always_failure("f"),
        })
        .collect();
    b.node("util", Utility::new(choices), children)
}

fn decorators() -> Vec<Case> {
    vec![
        case(
            "Inverter(F)",
            |b| b.inverter("not", b.always_failure("f")),
            Some(|| Def::inverter("not", failure())),
        ),
        case(
            "ForceSuccess(F)",
            |b| b.force_success("fs", b.always_failure("f")),
            Some(|| Def::force_success("fs", failure())),
        ),
        case(
            "ForceFailure(S)",
            |b| b.force_failure("ff", b.always_success("s")),
            Some(|| Def::force_failure("ff", success())),
        ),
        case(
            "Repeat(1)(S)",
            |b| b.repeat("rep", 1, b.always_success("s")),
            Some(|| Def::repeat("rep", 1, success())),
        ),
        case(
            "Retry(1)(S)",
            |b| b.retry("try", 1, b.always_success("s")),
            Some(|| Def::retry("try", 1, success())),
        ),
        case(
            "Guard(true)(S)",
            |b| b.guard("g", |cx| cx.agent.n != u64::MAX, b.always_success("s")),
            Some(|| Def::guard("g", FlatBump, success())),
        ),
        case(
            "ReactiveGuard(true)(S)",
            |b| b.reactive_guard("rg", |cx| cx.agent.n != u64::MAX, b.always_success("s")),
            Some(|| Def::reactive_guard("rg", FlatBump, success())),
        ),
        case(
            "Timeout(5)(S)",
            |b| b.timeout("t", 5, b.always_success("s")),
            Some(|| Def::timeout("t", 5, success())),
        ),
        case(
            "Cooldown(1)(S)",
            |b| b.cooldown("c", 1, b.always_success("s")),
            Some(|| Def::cooldown("c", 1, success())),
        ),
    ]
}

fn success() -> Def<FlatBump> {
    Def::always_success("s")
}

fn failure() -> Def<FlatBump> {
    Def::always_failure("f")
}

/// Time `iters` agent-ticks, round-robin over the agents.
fn round_robin(iters: u64, mut tick: impl FnMut(usize) -> Status) -> Duration {
    let start = Instant::now();
    let mut k = 0;
    for _ in 0..iters {
        black_box(tick(k));
        k += 1;
        if k == AGENTS {
            k = 0;
        }
    }
    start.elapsed()
}

fn bench_canopy(group: &mut BenchmarkGroup<'_, WallTime>, case: &Case) {
    let b = Builder::new();
    let tree: Tree<Counter, ()> = b.build((case.canopy)(&b)).expect("a well-formed tree");
    let mut agents: Vec<Agent> = (0..AGENTS as u32)
        .map(|i| Agent::with_id(&tree, i))
        .collect();
    let mut data = vec![Counter::default(); AGENTS];
    group.bench_function(BenchmarkId::new(case.name, "canopy"), |bench| {
        bench.iter_custom(|iters| round_robin(iters, |k| agents[k].tick(&tree, &mut data[k], &())))
    });
}

fn bench_flat(group: &mut BenchmarkGroup<'_, WallTime>, case: &Case) {
    let Some(def) = case.flat else { return };
    let tree = FlatTree::build(&def()).expect("a well-formed tree");
    let stride = tree.words_per_agent();
    let mut states = vec![0u32; AGENTS * stride];
    let mut data = vec![Counter::default(); AGENTS];
    group.bench_function(BenchmarkId::new(case.name, "flat"), |bench| {
        bench.iter_custom(|iters| {
            round_robin(iters, |k| {
                let state = &mut states[k * stride..(k + 1) * stride];
                tree.tick(state, k as u32, &mut data[k], &())
            })
        })
    });
}

fn node_cost(c: &mut Criterion) {
    let mut group = c.benchmark_group("node_cost");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    for case in leaves().into_iter().chain(controls()).chain(decorators()) {
        bench_canopy(&mut group, &case);
        bench_flat(&mut group, &case);
    }
    group.finish();
}

criterion_group!(benches, node_cost);
criterion_main!(benches);
