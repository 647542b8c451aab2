//! The node semantics of `canopy_core::nodes` that the scenario files
//! cannot say: most scenarios are data, in `testdata/semantics/*.toml` at
//! the workspace root, run on canopy (both modes), the naive and the flat
//! interpreter by `crates/canopy-reference/tests/scenarios/`. What stays
//! here needs Rust:
//!
//! - custom nodes (`Counter`, `Relay`, `Race`, `Twice`): their hooks'
//!   log, tasks per agent and per cycle, children they update or abort
//!   themselves — a scenario file has only registered scripted leaves;
//! - an action that sees agent data and a world of its own types;
//! - `Agent::reset_observed`, `active_tasks`, `set_ticks` and ticking with
//!   another tree (a panic): agent API beyond ticking;
//! - build errors, which `Builder::build` reports (canopy-data's loader
//!   has its own, tested in canopy-data).
//!
//! A test that runs a tree (leaves scripted by the tick number) runs it in
//! **both modes** (tick-from-root and event-driven) with `run_all`, which
//! checks that the two runs agree (statuses, agent data, and every event
//! except the `update … Running` events event mode leaves out for nodes it
//! does not visit); the test then asserts on the tick-mode run: the status
//! of each tick, the exact events of a tick, the custom nodes' log.
//!
//! Events are written `enter x`, `update x Running`, `exit x Success` and
//! `abort x`, where `x` is the node's name.

use std::cell::RefCell;
use std::collections::BTreeMap;

use canopy_core::Status::{Failure as F, Running as R, Success as S};
use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{
    Agent, Arity, BuildError, Builder, Children, Ctx, Draft, Event, EventKind, Exit, Mode, Node,
    Observer, Policy, Status, Tree, nodes,
};

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

/// The agent data: how often each named leaf (or condition) ran, and a log
/// written by custom nodes. Interior mutability lets conditions and guards,
/// which only see `&Ctx`, count their calls too.
#[derive(Clone, Debug, Default, PartialEq)]
struct Data {
    calls: RefCell<BTreeMap<String, u32>>,
    log: RefCell<Vec<String>>,
}

impl Data {
    fn bump(&self, name: &str) {
        *self.calls.borrow_mut().entry(name.to_string()).or_default() += 1;
    }

    fn calls(&self, name: &str) -> u32 {
        self.calls.borrow().get(name).copied().unwrap_or(0)
    }

    fn note(&self, line: String) {
        self.log.borrow_mut().push(line);
    }
}

type B<'b> = Builder<'b, Data, ()>;
type D<'b> = &'b Draft<'b, Data, ()>;
type T = Tree<Data, ()>;

/// The id every test agent gets; events and `Ctx::id` must carry it.
const AGENT_ID: u32 = 7;

/// An action whose status at tick `t` is `f(t)`; counts its updates.
fn leaf<'b>(b: &'b B<'b>, name: &str, f: impl Fn(u32) -> Status + Send + Sync + 'static) -> D<'b> {
    let key = name.to_string();
    b.action(name, move |cx| {
        cx.agent.bump(&key);
        f(cx.tick)
    })
}

/// A condition leaf true at tick `t` when `f(t)`; counts its calls.
fn cond<'b>(b: &'b B<'b>, name: &str, f: impl Fn(u32) -> bool + Send + Sync + 'static) -> D<'b> {
    b.condition(name, check(name, f))
}

/// A guard predicate true at tick `t` when `f(t)`; counts its calls under `name`.
fn check(
    name: &str,
    f: impl Fn(u32) -> bool + Send + Sync + 'static,
) -> impl Fn(&Ctx<Data, ()>) -> bool + Send + Sync + 'static {
    let key = name.to_string();
    move |cx| {
        cx.agent.bump(&key);
        f(cx.tick)
    }
}

/// Records every event with the name of its node.
struct Recorder<'t> {
    tree: &'t T,
    events: Vec<Event>,
}

impl Observer for Recorder<'_> {
    fn event(&mut self, event: Event) {
        self.events.push(event);
    }
}

impl Recorder<'_> {
    fn lines(&self) -> Vec<String> {
        self.events
            .iter()
            .map(|e| {
                let name = self.tree.node(e.node).name();
                match e.kind {
                    EventKind::Enter => format!("enter {name}"),
                    EventKind::Update(s) => format!("update {name} {s:?}"),
                    EventKind::Exit(s) => format!("exit {name} {s:?}"),
                    EventKind::Abort => format!("abort {name}"),
                }
            })
            .collect()
    }
}

/// One agent in one mode, with its data, checking on every tick that the
/// events carry the right tick and agent and that `active_tasks` matches the
/// enters minus the exits and aborts observed so far.
struct Sim<'t> {
    tree: &'t T,
    agent: Agent,
    data: Data,
    installed: usize,
}

impl<'t> Sim<'t> {
    fn new(tree: &'t T) -> Self {
        Self::in_mode(tree, Mode::Tick)
    }

    fn in_mode(tree: &'t T, mode: Mode) -> Self {
        let mut agent = Agent::with_id(tree, AGENT_ID);
        agent.set_mode(tree, mode);
        Sim {
            tree,
            agent,
            data: Data::default(),
            installed: 0,
        }
    }

    fn mode(&self) -> Mode {
        self.agent.mode()
    }

    fn tick(&mut self) -> (Status, Vec<String>) {
        let mut rec = Recorder {
            tree: self.tree,
            events: Vec::new(),
        };
        let status = self
            .agent
            .tick_observed(self.tree, &mut self.data, &(), &mut rec);
        let now = self.agent.ticks();
        self.check(&rec, now);
        assert_eq!(self.agent.is_running(), status == R, "{}", self.mode());
        (status, rec.lines())
    }

    fn reset(&mut self) -> Vec<String> {
        let now = self.agent.ticks();
        let mut rec = Recorder {
            tree: self.tree,
            events: Vec::new(),
        };
        self.agent
            .reset_observed(self.tree, &mut self.data, &(), &mut rec);
        self.check(&rec, now);
        assert_eq!(self.agent.active_tasks(self.tree), 0);
        assert_eq!(self.agent.ticks(), 0);
        assert!(!self.agent.is_running());
        rec.lines()
    }

    fn check(&mut self, rec: &Recorder<'_>, now: u32) {
        for e in &rec.events {
            assert_eq!((e.tick, e.agent), (now, AGENT_ID), "{}: {e:?}", self.mode());
            match e.kind {
                EventKind::Enter => self.installed += 1,
                EventKind::Exit(_) | EventKind::Abort => self.installed -= 1,
                EventKind::Update(_) => {}
            }
        }
        let active = self.agent.active_tasks(self.tree);
        assert_eq!(active, self.installed, "{}", self.mode());
    }
}

/// What `ticks` ticks of one fresh agent did.
#[derive(Debug, PartialEq)]
struct Outcome {
    statuses: Vec<Status>,
    events: Vec<Vec<String>>,
    data: Data,
}

impl Outcome {
    /// The events of tick `t` (from 1).
    fn at(&self, t: usize) -> &[String] {
        &self.events[t - 1]
    }

    /// How often this exact event line occurred.
    fn count(&self, line: &str) -> usize {
        self.events.iter().flatten().filter(|l| *l == line).count()
    }

    /// The ticks (from 1) at which this event line occurred.
    fn ticks_with(&self, line: &str) -> Vec<usize> {
        (1..=self.events.len())
            .filter(|&t| self.at(t).iter().any(|l| l == line))
            .collect()
    }

    fn log(&self) -> Vec<String> {
        self.data.log.borrow().clone()
    }
}

fn run(tree: &T, ticks: usize, mode: Mode) -> Outcome {
    let mut sim = Sim::in_mode(tree, mode);
    let (statuses, events) = (0..ticks).map(|_| sim.tick()).unzip();
    Outcome {
        statuses,
        events,
        data: sim.data,
    }
}

/// The events of an outcome without `update … Running` lines, which event
/// mode reports only for the nodes it visits.
fn without_running_updates(events: &[Vec<String>]) -> Vec<Vec<String>> {
    events
        .iter()
        .map(|tick| {
            let kept = tick
                .iter()
                .filter(|l| !(l.starts_with("update ") && l.ends_with(" Running")));
            kept.cloned().collect()
        })
        .collect()
}

/// Run `tree` for `ticks` ticks in both modes; they must agree.
fn run_all(tree: &T, ticks: usize) -> Outcome {
    let tick = run(tree, ticks, Mode::Tick);
    let event = run(tree, ticks, Mode::Event);
    assert_eq!(
        event.statuses, tick.statuses,
        "event mode disagrees on statuses"
    );
    assert_eq!(
        event.data, tick.data,
        "event mode disagrees on the agent data"
    );
    assert_eq!(
        without_running_updates(&event.events),
        without_running_updates(&tick.events),
        "event mode disagrees on events"
    );
    tick
}

// ---------------------------------------------------------------------------
// Custom nodes used below
// ---------------------------------------------------------------------------

/// Never finishes, for `Counter::finish_after`.
const NEVER: u32 = u32::MAX;

/// A custom leaf: `Running` until its own task has counted `finish_after`
/// updates, then `Success`. Logs every hook.
struct Counter {
    name: &'static str,
    finish_after: u32,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct CounterTask {
    updates: u32,
    entered: u32,
}

impl Node<Data, ()> for Counter {
    type Task = CounterTask;

    fn create_task(&self, cx: &mut Ctx<Data, ()>) -> CounterTask {
        cx.agent.note(format!("{} create t{}", self.name, cx.tick));
        CounterTask {
            updates: 0,
            entered: cx.tick,
        }
    }

    fn update(
        &self,
        task: &mut CounterTask,
        cx: &mut Ctx<Data, ()>,
        children: &mut Children<Data, ()>,
    ) -> Status {
        assert!(children.is_empty());
        task.updates += 1;
        cx.agent.note(format!(
            "{} update {} t{} (entered t{})",
            self.name, task.updates, cx.tick, task.entered
        ));
        if task.updates >= self.finish_after {
            S
        } else {
            R
        }
    }

    fn terminate(&self, task: &mut CounterTask, cx: &mut Ctx<Data, ()>, exit: Exit) {
        cx.agent.note(format!(
            "{} terminate {exit:?} after {}",
            self.name, task.updates
        ));
    }
}

/// A custom decorator: passes its child's status through, logging whether
/// the child was installed before and after. On its `abort_on`-th update it
/// aborts the child itself instead and fails.
struct Relay {
    name: &'static str,
    abort_on: u32,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct RelayTask {
    updates: u32,
}

impl Node<Data, ()> for Relay {
    type Task = RelayTask;

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn create_task(&self, cx: &mut Ctx<Data, ()>) -> RelayTask {
        cx.agent.note(format!("{} create t{}", self.name, cx.tick));
        RelayTask { updates: 0 }
    }

    fn update(
        &self,
        task: &mut RelayTask,
        cx: &mut Ctx<Data, ()>,
        children: &mut Children<Data, ()>,
    ) -> Status {
        assert_eq!(children.len(), 1);
        task.updates += 1;
        let before = children.is_running(0);
        if task.updates == self.abort_on {
            children.abort(0, cx);
            let after = children.is_running(0);
            cx.agent.note(format!(
                "{} aborts its child: running {before} -> {after}",
                self.name
            ));
            return F;
        }
        let status = children.update(0, cx);
        let after = children.is_running(0);
        cx.agent.note(format!(
            "{} child {status:?}: running {before} -> {after}",
            self.name
        ));
        status
    }

    fn terminate(&self, task: &mut RelayTask, cx: &mut Ctx<Data, ()>, exit: Exit) {
        cx.agent.note(format!(
            "{} terminate {exit:?} after {}",
            self.name, task.updates
        ));
    }
}

/// A custom composite: updates its children in order every tick and
/// finishes with the first finished child's status, leaving the others
/// running (the engine must abort them).
struct Race {
    name: &'static str,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct RaceTask {
    updates: u32,
}

impl Node<Data, ()> for Race {
    type Task = RaceTask;

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn create_task(&self, _cx: &mut Ctx<Data, ()>) -> RaceTask {
        RaceTask { updates: 0 }
    }

    fn update(
        &self,
        task: &mut RaceTask,
        cx: &mut Ctx<Data, ()>,
        children: &mut Children<Data, ()>,
    ) -> Status {
        task.updates += 1;
        for i in 0..children.len() {
            let status = children.update(i, cx);
            if status != R {
                return status;
            }
        }
        R
    }

    fn terminate(&self, task: &mut RaceTask, cx: &mut Ctx<Data, ()>, exit: Exit) {
        cx.agent.note(format!(
            "{} terminate {exit:?} after {}",
            self.name, task.updates
        ));
    }
}

// ---------------------------------------------------------------------------
// Actions see the agent, the world, the tick and the id
// ---------------------------------------------------------------------------

#[test]
fn action_runs_on_every_update_and_sees_agent_world_tick_and_id() {
    struct Me {
        seen: Vec<(u32, u32, i32)>,
    }
    let b = Builder::<Me, i32>::new();
    let tree = b
        .build(b.action("act", |cx| {
            cx.agent.seen.push((cx.tick, cx.id, *cx.world));
            if cx.agent.seen.len() == 3 { S } else { R }
        }))
        .unwrap();
    let mut me = Me { seen: Vec::new() };
    let mut agent = Agent::with_id(&tree, 42);
    let statuses: Vec<Status> = (0..3).map(|_| agent.tick(&tree, &mut me, &-5)).collect();
    assert_eq!(statuses, [R, R, S]);
    assert_eq!(me.seen, [(1, 42, -5), (2, 42, -5), (3, 42, -5)]);
}

// ---------------------------------------------------------------------------
// Custom nodes: their hooks, tasks and children
// ---------------------------------------------------------------------------

#[test]
fn repeat_creates_a_fresh_child_task_every_cycle() {
    let b = B::new();
    let tree = b
        .build(b.repeat(
            "rep",
            2,
            b.custom(
                "c",
                Counter {
                    name: "c",
                    finish_after: 2,
                },
                [],
            ),
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    assert_eq!(
        o.log(),
        [
            "c create t1",
            "c update 1 t1 (entered t1)",
            "c update 2 t2 (entered t1)",
            "c terminate Success after 2",
            "c create t3",
            "c update 1 t3 (entered t3)",
            "c update 2 t4 (entered t3)",
            "c terminate Success after 2",
        ]
    );
}

#[test]
fn custom_leaf_lifecycle_create_update_terminate() {
    let b = B::new();
    let tree = b
        .build(b.custom(
            "c",
            Counter {
                name: "c",
                finish_after: 3,
            },
            [],
        ))
        .unwrap();
    assert_eq!(tree.node(tree.root()).type_name(), "Counter");
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, S, R]);
    assert_eq!(
        o.log(),
        [
            "c create t1",
            "c update 1 t1 (entered t1)",
            "c update 2 t2 (entered t1)",
            "c update 3 t3 (entered t1)",
            "c terminate Success after 3",
            "c create t4",
            "c update 1 t4 (entered t4)",
        ]
    );
    assert_eq!(o.at(3), ["update c Success", "exit c Success"]);
}

#[test]
fn custom_terminate_sees_aborted_when_aborted() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t >= 3),
                b.custom(
                    "c",
                    Counter {
                        name: "c",
                        finish_after: NEVER,
                    },
                    [],
                ),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(
        o.log(),
        [
            "c create t1",
            "c update 1 t1 (entered t1)",
            "c update 2 t2 (entered t1)",
            "c terminate Aborted after 2",
        ]
    );
    assert_eq!(o.at(3)[3], "abort c");
}

#[test]
fn custom_decorator_runs_its_child_through_children() {
    let b = B::new();
    let tree = b
        .build(b.custom(
            "relay",
            Relay {
                name: "relay",
                abort_on: 0,
            },
            [b.wait("w", 2)],
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, S, R]);
    assert_eq!(
        o.log(),
        [
            "relay create t1",
            "relay child Running: running false -> true",
            "relay child Running: running true -> true",
            "relay child Success: running true -> false",
            "relay terminate Success after 3",
            "relay create t4",
            "relay child Running: running false -> true",
        ]
    );
    assert_eq!(
        o.at(1),
        [
            "enter relay",
            "enter w",
            "update w Running",
            "update relay Running"
        ]
    );
    assert_eq!(o.ticks_with("enter w"), [1, 4]);
}

#[test]
fn custom_node_can_abort_its_child_itself() {
    let b = B::new();
    let tree = b
        .build(b.custom(
            "relay",
            Relay {
                name: "relay",
                abort_on: 2,
            },
            [b.custom(
                "c",
                Counter {
                    name: "c",
                    finish_after: NEVER,
                },
                [],
            )],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(
        o.log(),
        [
            "relay create t1",
            "c create t1",
            "c update 1 t1 (entered t1)",
            "relay child Running: running false -> true",
            "c terminate Aborted after 1",
            "relay aborts its child: running true -> false",
            "relay terminate Failure after 2",
        ]
    );
    assert_eq!(
        o.at(2),
        ["abort c", "update relay Failure", "exit relay Failure"]
    );
}

#[test]
fn custom_node_finishing_aborts_its_running_children_before_its_terminate() {
    let b = B::new();
    let counter = |name, finish_after| Counter { name, finish_after };
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.custom(
                    "race",
                    Race { name: "race" },
                    [
                        b.custom("slow", counter("slow", NEVER), []),
                        b.custom("fast", counter("fast", 2), []),
                        b.custom("idle", counter("idle", NEVER), []),
                    ],
                ),
                leaf(&b, "after", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "update slow Running",
            "update fast Success",
            "exit fast Success",
            "update race Success",
            "abort slow",
            "abort idle",
            "exit race Success",
            "enter after",
            "update after Success",
            "exit after Success",
            "update s Success",
            "exit s Success",
        ]
    );
    let log = o.log();
    assert_eq!(
        log[log.len() - 4..],
        [
            "fast terminate Success after 2",
            "slow terminate Aborted after 2",
            "idle terminate Aborted after 1",
            "race terminate Success after 2",
        ]
    );
}

#[test]
fn custom_node_with_many_children_tracks_each_child() {
    // Ten children: the "installed" bits span two bytes.
    const NAMES: [&str; 10] = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"];
    let b = B::new();
    let children: Vec<D<'_>> = (0..10)
        .map(|i| {
            let finish_after = if i == 9 { 3 } else { NEVER };
            let name = NAMES[i];
            b.custom(name, Counter { name, finish_after }, [])
        })
        .collect();
    let tree = b
        .build(b.custom("race", Race { name: "race" }, children))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    for name in NAMES {
        assert_eq!(o.count(&format!("enter {name}")), 1, "{name}");
        let running = if name == "c9" { 2 } else { 3 };
        assert_eq!(
            o.count(&format!("update {name} Running")),
            running,
            "{name}"
        );
    }
    let aborts: Vec<String> = NAMES[..9].iter().map(|n| format!("abort {n}")).collect();
    let at3 = o.at(3);
    let first_abort = at3.iter().position(|l| l.starts_with("abort")).unwrap();
    assert_eq!(at3[first_abort..first_abort + 9], aborts);
    assert_eq!(at3[first_abort + 9..], ["exit race Success"]);
}

#[test]
fn custom_node_aborted_has_its_children_aborted_first() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t >= 2),
                b.custom(
                    "relay",
                    Relay {
                        name: "relay",
                        abort_on: 0,
                    },
                    [b.inverter(
                        "not",
                        b.custom(
                            "c",
                            Counter {
                                name: "c",
                                finish_after: NEVER,
                            },
                            [],
                        ),
                    )],
                ),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(
        o.at(2)[3..],
        [
            "abort c",
            "abort not",
            "abort relay",
            "update ps Success",
            "exit ps Success"
        ]
    );
    let log = o.log();
    assert_eq!(
        log[log.len() - 2..],
        [
            "c terminate Aborted after 1",
            "relay terminate Aborted after 1"
        ]
    );
}

/// Hooks and events in one log: the agent data is the log, and the
/// observer writes into it too, so the test sees how they interleave.
type Shared = std::rc::Rc<RefCell<Vec<String>>>;

struct Into(Shared);

impl Observer for Into {
    fn event(&mut self, event: Event) {
        self.0
            .borrow_mut()
            .push(format!("{} {:?}", event.node.index(), event.kind));
    }
}

/// A user leaf with a `u64` task that logs its hooks and finishes on its
/// second update.
struct Twice;

impl Node<Shared, ()> for Twice {
    type Task = u64;

    fn create_task(&self, cx: &mut Ctx<Shared, ()>) -> u64 {
        cx.agent.borrow_mut().push("create".into());
        u64::MAX - 1
    }

    fn update(
        &self,
        task: &mut u64,
        cx: &mut Ctx<Shared, ()>,
        _: &mut Children<Shared, ()>,
    ) -> Status {
        *task = task.wrapping_add(1);
        cx.agent.borrow_mut().push(format!("update {task:x}"));
        if *task == 0 { S } else { R }
    }

    fn terminate(&self, task: &mut u64, cx: &mut Ctx<Shared, ()>, exit: Exit) {
        cx.agent
            .borrow_mut()
            .push(format!("terminate {exit:?} {task:x}"));
    }
}

/// Two ticks of `tree`, observed or not; the log of hooks (and events).
fn twice_log(tree: &Tree<Shared, ()>, observed: bool) -> Vec<String> {
    let log = Shared::default();
    let mut agent = Agent::new(tree);
    for _ in 0..2 {
        let mut data = log.clone();
        if observed {
            agent.tick_observed(tree, &mut data, &(), Into(log.clone()));
        } else {
            agent.tick(tree, &mut data, &());
        }
    }
    log.take()
}

#[test]
fn an_observed_user_leaf_reports_its_update_before_its_terminate_runs() {
    let b = Builder::<Shared, ()>::new();
    let tree = b.build(b.custom("twice", Twice, [])).unwrap();
    assert_eq!(
        twice_log(&tree, true),
        [
            "0 Enter",
            "create",
            "update ffffffffffffffff",
            "0 Update(Running)",
            "update 0",
            "0 Update(Success)",
            "terminate Success 0",
            "0 Exit(Success)",
        ]
    );
    // Unobserved, the engine merges the hooks of a visit into one call
    // into the node's code: the same hooks in the same order.
    assert_eq!(
        twice_log(&tree, false),
        [
            "create",
            "update ffffffffffffffff",
            "update 0",
            "terminate Success 0"
        ]
    );
}

#[test]
fn a_user_leaf_task_runs_alike_wherever_it_lies_in_memory() {
    // At the root the `u64` task starts the agent's memory; after a
    // Sequence's 2 bytes of state it is not aligned for a `u64`, and the
    // engine works on a copy. Both run the same.
    let b = Builder::<Shared, ()>::new();
    let root = b.build(b.custom("twice", Twice, [])).unwrap();
    let b = Builder::<Shared, ()>::new();
    let nested = b
        .build(b.sequence("s", [b.custom("twice", Twice, [])]))
        .unwrap();
    let expected = [
        "create",
        "update ffffffffffffffff",
        "update 0",
        "terminate Success 0",
    ];
    for observed in [false, true] {
        let hooks = |log: Vec<String>| -> Vec<String> {
            log.into_iter()
                .filter(|l| !l.starts_with(char::is_numeric))
                .collect()
        };
        assert_eq!(hooks(twice_log(&root, observed)), expected);
        assert_eq!(hooks(twice_log(&nested, observed)), expected);
    }
}

#[test]
fn custom_tasks_are_per_agent() {
    let b = B::new();
    let tree = b
        .build(b.custom(
            "c",
            Counter {
                name: "c",
                finish_after: 3,
            },
            [],
        ))
        .unwrap();
    let (mut d1, mut d2) = (Data::default(), Data::default());
    let mut a1 = Agent::with_id(&tree, 1);
    let mut a2 = Agent::with_id(&tree, 2);
    assert_eq!(a1.tick(&tree, &mut d1, &()), R);
    assert_eq!(a1.tick(&tree, &mut d1, &()), R);
    assert_eq!(a2.tick(&tree, &mut d2, &()), R);
    assert_eq!(a1.tick(&tree, &mut d1, &()), S);
    assert_eq!(a2.tick(&tree, &mut d2, &()), R);
    assert_eq!(a2.tick(&tree, &mut d2, &()), S);
}

// ---------------------------------------------------------------------------
// Agent: reset, active tasks
// ---------------------------------------------------------------------------

#[test]
fn reset_aborts_everything_deepest_first() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "root",
            [
                leaf(&b, "a", |_| S),
                b.parallel(
                    "p",
                    Policy::All,
                    Policy::All,
                    [
                        b.inverter("i", b.wait("w", 10)),
                        b.custom(
                            "c",
                            Counter {
                                name: "c",
                                finish_after: NEVER,
                            },
                            [],
                        ),
                    ],
                ),
            ],
        ))
        .unwrap();
    let mut sim = Sim::new(&tree);
    assert_eq!(sim.tick().0, R);
    assert_eq!(sim.tick().0, R);
    assert_eq!(sim.agent.active_tasks(&tree), 5);
    assert_eq!(
        sim.reset(),
        ["abort w", "abort i", "abort c", "abort p", "abort root"]
    );
    assert_eq!(
        sim.data.log.borrow().last().unwrap(),
        "c terminate Aborted after 2"
    );
    // Starts again from scratch, at tick 1.
    let (status, events) = sim.tick();
    assert_eq!(status, R);
    assert_eq!(events[..3], ["enter root", "enter a", "update a Success"]);
    assert_eq!(sim.agent.ticks(), 1);
    assert_eq!(
        sim.data.log.borrow().last().unwrap(),
        "c update 1 t1 (entered t1)"
    );
    assert_eq!(sim.agent.active_tasks(&tree), 5);
}

#[test]
fn reset_clears_cooldowns() {
    let b = B::new();
    let tree = b.build(b.cooldown("cd", 10, leaf(&b, "a", |_| S))).unwrap();
    let mut sim = Sim::new(&tree);
    assert_eq!(sim.tick().0, S);
    assert_eq!(sim.tick().0, F);
    // Nothing is running: reset aborts nothing.
    assert_eq!(sim.reset(), Vec::<String>::new());
    assert_eq!(sim.tick().0, S);
    assert_eq!(sim.data.calls("a"), 2);
}

#[test]
fn active_tasks_counts_installed_tasks() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.always_success("a"),
                b.parallel(
                    "p",
                    Policy::All,
                    Policy::All,
                    [b.wait("w1", 1), b.timeout("to", 9, b.wait("w2", 2))],
                ),
            ],
        ))
        .unwrap();
    let mut sim = Sim::new(&tree);
    assert_eq!(sim.agent.active_tasks(&tree), 0);
    // s, p, w1, to, w2.
    assert_eq!(sim.tick().0, R);
    assert_eq!(sim.agent.active_tasks(&tree), 5);
    // w1 finished.
    assert_eq!(sim.tick().0, R);
    assert_eq!(sim.agent.active_tasks(&tree), 4);
    assert_eq!(sim.tick().0, S);
    assert_eq!(sim.agent.active_tasks(&tree), 0);
    assert!(!sim.agent.is_running());
}

#[test]
#[should_panic(expected = "another tree")]
fn ticking_with_another_tree_panics() {
    let b = B::new();
    let one = b.build(b.always_success("a")).unwrap();
    let two = b.build(b.always_success("a")).unwrap();
    let mut agent = Agent::new(&one);
    agent.tick(&two, &mut Data::default(), &());
}

// ---------------------------------------------------------------------------
// Build errors
// ---------------------------------------------------------------------------

fn error(result: Result<T, BuildError>) -> String {
    let err = result.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{} (name {:?}): {}", err.path, err.name, err.problem)
    );
    err.to_string()
}

#[test]
fn build_error_decorator_without_a_child() {
    let b = B::new();
    let bad = b.node("not", nodes::Inverter, []);
    let root = b.sequence("root", [b.always_success("a"), b.sequence("mid", [bad])]);
    let err = b.build(root).unwrap_err();
    assert_eq!(err.path.to_string(), "tree/children[1]/children[0]");
    assert_eq!(err.name, "not");
    assert_eq!(err.problem, "an Inverter needs exactly one child, got 0");
    assert_eq!(
        error(b.build(root)),
        "tree/children[1]/children[0] (name \"not\"): an Inverter needs exactly one child, got 0"
    );
}

#[test]
fn build_error_decorator_with_two_children() {
    let b = B::new();
    let bad = b.node(
        "twice",
        nodes::ForceSuccess,
        [b.always_success("x"), b.always_success("y")],
    );
    assert_eq!(
        error(b.build(b.selector("root", [bad]))),
        "tree/children[0] (name \"twice\"): a ForceSuccess needs exactly one child, got 2"
    );
    let bad = b.node(
        "inv",
        nodes::Inverter,
        [b.always_success("x"), b.always_success("y")],
    );
    assert_eq!(
        error(b.build(bad)),
        "tree (name \"inv\"): an Inverter needs exactly one child, got 2"
    );
}

#[test]
fn build_error_leaf_with_children() {
    let b = B::new();
    let bad = b.node("ok", nodes::AlwaysSuccess, [b.always_failure("x")]);
    assert_eq!(
        error(b.build(b.sequence("root", [b.always_success("a"), b.always_success("b"), bad]))),
        "tree/children[2] (name \"ok\"): an AlwaysSuccess needs no children, got 1"
    );
    let bad = b.node(
        "nap",
        nodes::Wait { ticks: 3 },
        [b.always_failure("x"), b.always_failure("y")],
    );
    assert_eq!(
        error(b.build(b.inverter("root", bad))),
        "tree/children[0] (name \"nap\"): a Wait needs no children, got 2"
    );
    let bad = b.custom(
        "c",
        Counter {
            name: "c",
            finish_after: 1,
        },
        [b.always_success("x")],
    );
    assert_eq!(
        error(b.build(b.inverter("root", bad))),
        "tree/children[0] (name \"c\"): a Counter needs no children, got 1"
    );
}

#[test]
fn build_error_custom_decorator_without_a_child() {
    let b = B::new();
    let bad = b.custom(
        "relay",
        Relay {
            name: "relay",
            abort_on: 0,
        },
        [],
    );
    assert_eq!(
        error(b.build(bad)),
        "tree (name \"relay\"): a Relay needs exactly one child, got 0"
    );
}

#[test]
fn build_error_zero_counts() {
    let b = B::new();
    let bad = b.repeat("again", 0, b.always_success("x"));
    assert_eq!(
        error(b.build(b.sequence("root", [b.sequence("mid", [b.always_success("a"), bad])]))),
        "tree/children[0]/children[1] (name \"again\"): a Repeat needs a count of at least 1, got 0"
    );
    let bad = b.node("tries", nodes::Retry { times: 0 }, [b.always_failure("x")]);
    assert_eq!(
        error(b.build(b.selector("root", [bad]))),
        "tree/children[0] (name \"tries\"): a Retry needs a count of at least 1, got 0"
    );
}

#[test]
fn build_error_zero_durations() {
    let b = B::new();
    let bad = b.timeout("hurry", 0, b.always_running("x"));
    assert_eq!(
        error(b.build(b.sequence("root", [b.always_success("a"), bad]))),
        "tree/children[1] (name \"hurry\"): a Timeout needs a duration of at least 1 tick, got 0"
    );
    let bad = b.cooldown("rest", 0, b.always_success("x"));
    assert_eq!(
        error(b.build(b.selector("root", [b.inverter("not", bad)]))),
        "tree/children[0]/children[0] (name \"rest\"): a Cooldown needs a duration of at least 1 tick, got 0"
    );
}

#[test]
fn build_error_parallel_without_children() {
    let b = B::new();
    let bad = b.parallel("both", Policy::All, Policy::One, []);
    assert_eq!(
        error(b.build(b.sequence(
            "root",
            [
                b.always_success("a"),
                b.selector("sel", [b.always_failure("f"), bad])
            ]
        ))),
        "tree/children[1]/children[1] (name \"both\"): a Parallel needs at least one child, got 0"
    );
    assert_eq!(
        error(b.build(b.parallel("p", Policy::One, Policy::One, []))),
        "tree (name \"p\"): a Parallel needs at least one child, got 0"
    );
}

#[test]
fn build_error_names_the_first_wrong_node_in_depth_first_order() {
    let b = B::new();
    let first = b.repeat("first", 0, b.always_success("x"));
    let second = b.timeout("second", 0, b.always_success("y"));
    // `second` was created after `first` but comes first depth-first.
    let root = b.sequence(
        "root",
        [b.inverter("not", second), b.sequence("s", [first])],
    );
    assert_eq!(
        error(b.build(root)),
        "tree/children[0]/children[0] (name \"second\"): a Timeout needs a duration of at least 1 tick, got 0"
    );
}

// ---------------------------------------------------------------------------
// The clock and persistent memory
// ---------------------------------------------------------------------------

#[test]
fn the_clock_leaves_plain_persistent_words_alone() {
    // Setting the clock moves every cooldown end to "now", which used to
    // be done to every persistent word: SequenceWithMemory's child index
    // would then have read as the tick number.
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.cooldown("cd", 1, leaf(&b, "x", |_| S)),
                b.sequence_with_memory("swm", [leaf(&b, "a", |_| S), leaf(&b, "b", |_| F)]),
            ],
        ))
        .unwrap();
    let mut data = Data::default();
    let mut agent = Agent::new(&tree);
    assert_eq!(agent.tick(&tree, &mut data, &()), F);
    agent.set_ticks(&tree, 1_000);
    assert_eq!(agent.tick(&tree, &mut data, &()), F);
    // x cooled down by tick 1,001; a ran once: swm went on at b.
    assert_eq!(
        (data.calls("x"), data.calls("a"), data.calls("b")),
        (2, 1, 2)
    );
}
