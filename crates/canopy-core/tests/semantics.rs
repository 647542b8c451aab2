//! The node semantics of `canopy_core::nodes`, tick by tick.
//!
//! Every scenario builds a small tree whose leaves are scripted by the tick
//! number, runs it in **both modes** (tick-from-root and event-driven),
//! checks that the two runs agree (statuses, agent data, and every event
//! except the `update … Running` events event mode leaves out for nodes it
//! does not visit), and then asserts on the tick-mode run: the status of each tick, the exact events of a tick (so the
//! order of updates and aborts is checked, not only their number), and how
//! often each leaf's code ran.
//!
//! Events are written `enter x`, `update x Running`, `exit x Success` and
//! `abort x`, where `x` is the node's name.

use std::cell::RefCell;
use std::collections::BTreeMap;

use canopy_core::Status::{Failure as F, Running as R, Success as S};
use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{
    Afterwards, Agent, Arity, BuildError, Builder, Children, Ctx, Draft, Event, EventKind, Exit,
    Mode, Node, Observer, Policy, Status, Tree, nodes,
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

/// An action returning `script[t - 1]` at tick `t` (the last entry once the
/// script has run out); counts its updates.
fn script<'b>(b: &'b B<'b>, name: &str, script: &[Status]) -> D<'b> {
    let script = script.to_vec();
    leaf(b, name, move |t| {
        script[(t as usize - 1).min(script.len() - 1)]
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

    /// How often the leaf or condition `name` ran.
    fn calls(&self, name: &str) -> u32 {
        self.data.calls(name)
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
// Sequence
// ---------------------------------------------------------------------------

#[test]
fn sequence_continues_within_the_tick_after_each_success() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.always_success("a"),
                script(&b, "b", &[S]),
                b.always_success("c"),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 1);
    assert_eq!(o.statuses, [S]);
    assert_eq!(
        o.at(1),
        [
            "enter s",
            "enter a",
            "update a Success",
            "exit a Success",
            "enter b",
            "update b Success",
            "exit b Success",
            "enter c",
            "update c Success",
            "exit c Success",
            "update s Success",
            "exit s Success",
        ]
    );
}

#[test]
fn sequence_resumes_the_running_child_without_rerunning_earlier_children() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                leaf(&b, "a", |_| S),
                script(&b, "b", &[R, R, S]),
                leaf(&b, "c", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(
        o.at(1),
        [
            "enter s",
            "enter a",
            "update a Success",
            "exit a Success",
            "enter b",
            "update b Running",
            "update s Running",
        ]
    );
    assert_eq!(o.at(2), ["update b Running", "update s Running"]);
    assert_eq!(
        o.at(3),
        [
            "update b Success",
            "exit b Success",
            "enter c",
            "update c Success",
            "exit c Success",
            "update s Success",
            "exit s Success",
        ]
    );
    assert_eq!((o.calls("a"), o.calls("b"), o.calls("c")), (1, 3, 1));
    assert_eq!(o.count("enter b"), 1);
}

#[test]
fn sequence_returns_the_first_failure_and_skips_the_rest() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                leaf(&b, "a", |_| S),
                script(&b, "b", &[R, F]),
                leaf(&b, "c", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(
        o.at(2),
        [
            "update b Failure",
            "exit b Failure",
            "update s Failure",
            "exit s Failure"
        ]
    );
    assert_eq!((o.calls("a"), o.calls("b"), o.calls("c")), (1, 2, 0));
}

#[test]
fn empty_sequence_succeeds() {
    let b = B::new();
    let tree = b.build(b.sequence("s", [])).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [S, S]);
    assert_eq!(o.at(2), ["enter s", "update s Success", "exit s Success"]);
}

#[test]
fn sequence_restarts_from_a_fresh_install_on_the_tick_after_it_finished() {
    let b = B::new();
    let tree = b
        .build(b.sequence("s", [leaf(&b, "a", |_| S), script(&b, "b", &[R, S, R, F])]))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, S, R, F]);
    assert_eq!(
        o.at(3),
        [
            "enter s",
            "enter a",
            "update a Success",
            "exit a Success",
            "enter b",
            "update b Running",
            "update s Running",
        ]
    );
    assert_eq!((o.calls("a"), o.calls("b")), (2, 4));
    assert_eq!(o.ticks_with("enter s"), [1, 3]);
}

// ---------------------------------------------------------------------------
// Selector
// ---------------------------------------------------------------------------

#[test]
fn selector_continues_within_the_tick_after_each_failure() {
    let b = B::new();
    let tree = b
        .build(b.selector(
            "s",
            [
                leaf(&b, "a", |_| F),
                leaf(&b, "b", |_| S),
                leaf(&b, "c", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 1);
    assert_eq!(o.statuses, [S]);
    assert_eq!(
        o.at(1),
        [
            "enter s",
            "enter a",
            "update a Failure",
            "exit a Failure",
            "enter b",
            "update b Success",
            "exit b Success",
            "update s Success",
            "exit s Success",
        ]
    );
    assert_eq!(o.calls("c"), 0);
}

#[test]
fn selector_resumes_the_running_child_without_retrying_earlier_children() {
    let b = B::new();
    let tree = b
        .build(b.selector(
            "s",
            [
                leaf(&b, "a", |_| F),
                script(&b, "b", &[R, R, F]),
                leaf(&b, "c", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(o.at(2), ["update b Running", "update s Running"]);
    assert_eq!(
        o.at(3),
        [
            "update b Failure",
            "exit b Failure",
            "enter c",
            "update c Success",
            "exit c Success",
            "update s Success",
            "exit s Success",
        ]
    );
    assert_eq!((o.calls("a"), o.calls("b"), o.calls("c")), (1, 3, 1));
}

#[test]
fn selector_fails_when_every_child_fails() {
    let b = B::new();
    let tree = b
        .build(b.selector("s", [leaf(&b, "a", |_| F), script(&b, "b", &[R, F])]))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(
        o.at(2),
        [
            "update b Failure",
            "exit b Failure",
            "update s Failure",
            "exit s Failure"
        ]
    );
}

#[test]
fn empty_selector_fails() {
    let b = B::new();
    let tree = b.build(b.selector("s", [])).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [F, F]);
    assert_eq!(o.at(1), ["enter s", "update s Failure", "exit s Failure"]);
}

#[test]
fn selector_restarts_from_a_fresh_install_on_the_tick_after_it_finished() {
    let b = B::new();
    let tree = b
        .build(b.selector("s", [leaf(&b, "a", |_| F), script(&b, "b", &[R, S, R, S])]))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, S, R, S]);
    assert_eq!(o.ticks_with("enter a"), [1, 3]);
    assert_eq!(o.ticks_with("enter b"), [1, 3]);
}

// ---------------------------------------------------------------------------
// ReactiveSequence
// ---------------------------------------------------------------------------

#[test]
fn reactive_sequence_reenters_earlier_children_every_tick_and_resumes_the_running_one() {
    let b = B::new();
    let tree = b
        .build(b.reactive_sequence(
            "rs",
            [cond(&b, "c", |_| true), script(&b, "r", &[R, R, R, S])],
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    assert_eq!(
        o.at(1),
        [
            "enter rs",
            "enter c",
            "update c Success",
            "exit c Success",
            "enter r",
            "update r Running",
            "update rs Running",
        ]
    );
    assert_eq!(
        o.at(2),
        [
            "enter c",
            "update c Success",
            "exit c Success",
            "update r Running",
            "update rs Running",
        ]
    );
    assert_eq!(
        o.at(4),
        [
            "enter c",
            "update c Success",
            "exit c Success",
            "update r Success",
            "exit r Success",
            "update rs Success",
            "exit rs Success",
        ]
    );
    assert_eq!((o.calls("c"), o.calls("r")), (4, 4));
    assert_eq!(o.count("enter r"), 1);
}

#[test]
fn reactive_sequence_earlier_failure_aborts_the_running_child_after_its_update() {
    let b = B::new();
    let tree = b
        .build(b.reactive_sequence("rs", [cond(&b, "c", |t| t < 3), leaf(&b, "r", |_| R)]))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, F]);
    assert_eq!(
        o.at(3),
        [
            "enter c",
            "update c Failure",
            "exit c Failure",
            "abort r",
            "update rs Failure",
            "exit rs Failure",
        ]
    );
    assert_eq!(o.calls("r"), 2);
}

#[test]
fn reactive_sequence_earlier_child_running_takes_over_from_the_running_child() {
    let b = B::new();
    let tree = b
        .build(b.reactive_sequence(
            "rs",
            [
                leaf(&b, "a", |_| S),
                script(&b, "b", &[S, R, R, S]),
                leaf(&b, "c", |_| R),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 5);
    assert_eq!(o.statuses, [R, R, R, R, R]);
    let a = ["enter a", "update a Success", "exit a Success"];
    assert_eq!(o.at(2)[..3], a);
    assert_eq!(
        o.at(2)[3..],
        [
            "enter b",
            "update b Running",
            "abort c",
            "update rs Running"
        ]
    );
    // b is now the running child: resumed, not re-entered; c left alone.
    assert_eq!(o.at(3)[..3], a);
    assert_eq!(o.at(3)[3..], ["update b Running", "update rs Running"]);
    // b finishes: the sequence goes on to c, entered afresh.
    assert_eq!(o.at(4)[..3], a);
    assert_eq!(
        o.at(4)[3..],
        [
            "update b Success",
            "exit b Success",
            "enter c",
            "update c Running",
            "update rs Running",
        ]
    );
    // c running again: b is re-entered before it.
    assert_eq!(o.at(5)[..3], a);
    assert_eq!(
        o.at(5)[3..],
        [
            "enter b",
            "update b Success",
            "exit b Success",
            "update c Running",
            "update rs Running",
        ]
    );
    assert_eq!(o.ticks_with("enter c"), [1, 4]);
    assert_eq!(o.count("abort c"), 1);
}

#[test]
fn reactive_sequence_rechecks_do_not_disturb_the_running_childs_state() {
    // The Wait keeps its entry tick in its task; re-entering the Wait(0)
    // and the sequence before it every tick must not touch that memory.
    let b = B::new();
    let tree = b
        .build(b.reactive_sequence(
            "rs",
            [
                b.wait("w0", 0),
                b.sequence("chk", [b.wait("w00", 0), b.always_success("ok")]),
                b.wait("w", 3),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 5);
    assert_eq!(o.statuses, [R, R, R, S, R]);
}

#[test]
fn reactive_sequence_running_child_memory_survives_a_switch_of_running_child() {
    // b (under a Timeout, which keeps its entry tick) takes over at tick 2,
    // finishes at tick 4, then w is entered afresh at tick 4 and must
    // succeed at tick 7 while b's timeout is re-entered every tick.
    let b = B::new();
    let tree = b
        .build(b.reactive_sequence(
            "rs",
            [
                leaf(&b, "a", |_| S),
                b.timeout("tb", 10, script(&b, "b", &[S, R, R, S])),
                b.wait("w", 3),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 7);
    assert_eq!(o.statuses, [R, R, R, R, R, R, S]);
    assert_eq!(o.ticks_with("enter w"), [1, 4]);
    assert_eq!(o.ticks_with("abort w"), [2]);
    assert_eq!(o.ticks_with("exit w Success"), [7]);
}

#[test]
fn reactive_sequence_running_child_success_continues_with_later_children() {
    let b = B::new();
    let tree = b
        .build(b.reactive_sequence(
            "rs",
            [
                leaf(&b, "a", |_| S),
                script(&b, "b", &[R, S]),
                leaf(&b, "c", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "enter a",
            "update a Success",
            "exit a Success",
            "update b Success",
            "exit b Success",
            "enter c",
            "update c Success",
            "exit c Success",
            "update rs Success",
            "exit rs Success",
        ]
    );
}

#[test]
fn empty_reactive_sequence_succeeds() {
    let b = B::new();
    let tree = b.build(b.reactive_sequence("rs", [])).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [S, S]);
    assert_eq!(
        o.at(1),
        ["enter rs", "update rs Success", "exit rs Success"]
    );
}

// ---------------------------------------------------------------------------
// ReactiveSelector
// ---------------------------------------------------------------------------

#[test]
fn reactive_selector_retries_higher_priority_children_every_tick_and_resumes_the_running_one() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [cond(&b, "hi", |_| false), script(&b, "lo", &[R, R, R, S])],
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    assert_eq!(
        o.at(2),
        [
            "enter hi",
            "update hi Failure",
            "exit hi Failure",
            "update lo Running",
            "update ps Running",
        ]
    );
    assert_eq!((o.calls("hi"), o.calls("lo")), (4, 4));
    assert_eq!(o.count("enter lo"), 1);
}

#[test]
fn reactive_selector_higher_priority_success_aborts_the_running_child() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector("ps", [cond(&b, "hi", |t| t >= 3), leaf(&b, "lo", |_| R)]))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(
        o.at(1),
        [
            "enter ps",
            "enter hi",
            "update hi Failure",
            "exit hi Failure",
            "enter lo",
            "update lo Running",
            "update ps Running",
        ]
    );
    assert_eq!(
        o.at(3),
        [
            "enter hi",
            "update hi Success",
            "exit hi Success",
            "abort lo",
            "update ps Success",
            "exit ps Success",
        ]
    );
    assert_eq!(o.calls("lo"), 2);
}

#[test]
fn reactive_selector_higher_priority_running_aborts_the_running_child_and_takes_over() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [script(&b, "hi", &[F, R, R, S]), leaf(&b, "lo", |_| R)],
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    assert_eq!(
        o.at(2),
        [
            "enter hi",
            "update hi Running",
            "abort lo",
            "update ps Running"
        ]
    );
    assert_eq!(o.at(3), ["update hi Running", "update ps Running"]);
    assert_eq!(
        o.at(4),
        [
            "update hi Success",
            "exit hi Success",
            "update ps Success",
            "exit ps Success"
        ]
    );
    assert_eq!((o.calls("hi"), o.calls("lo")), (4, 1));
    assert_eq!(o.ticks_with("enter hi"), [1, 2]);
}

#[test]
fn reactive_selector_running_child_failure_falls_through_to_lower_priorities() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |_| false),
                script(&b, "mid", &[R, F]),
                leaf(&b, "lo", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "enter hi",
            "update hi Failure",
            "exit hi Failure",
            "update mid Failure",
            "exit mid Failure",
            "enter lo",
            "update lo Success",
            "exit lo Success",
            "update ps Success",
            "exit ps Success",
        ]
    );
}

#[test]
fn reactive_selector_fails_when_every_child_fails() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector("ps", [cond(&b, "a", |_| false), cond(&b, "b", |_| false)]))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [F, F]);
}

#[test]
fn empty_reactive_selector_fails() {
    let b = B::new();
    let tree = b.build(b.reactive_selector("ps", [])).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [F, F]);
    assert_eq!(
        o.at(1),
        ["enter ps", "update ps Failure", "exit ps Failure"]
    );
}

#[test]
fn takeover_aborts_a_deep_branch_deepest_first() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t >= 3),
                b.sequence(
                    "branch",
                    [b.always_success("prep"), b.inverter("not", b.wait("w", 10))],
                ),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(
        o.at(2),
        [
            "enter hi",
            "update hi Failure",
            "exit hi Failure",
            "update w Running",
            "update not Running",
            "update branch Running",
            "update ps Running",
        ]
    );
    assert_eq!(
        o.at(3),
        [
            "enter hi",
            "update hi Success",
            "exit hi Success",
            "abort w",
            "abort not",
            "abort branch",
            "update ps Success",
            "exit ps Success",
        ]
    );
}

// ---------------------------------------------------------------------------
// Parallel
// ---------------------------------------------------------------------------

fn par<'b>(b: &'b B<'b>, success: Policy, failure: Policy, children: Vec<D<'b>>) -> D<'b> {
    b.parallel("p", success, failure, children)
}

#[test]
fn parallel_updates_unfinished_children_in_order_and_never_reruns_finished_ones() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::All,
            Policy::One,
            vec![
                script(&b, "a", &[S]),
                script(&b, "b", &[R, S]),
                script(&b, "c", &[R, R, S]),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(
        o.at(1),
        [
            "enter p",
            "enter a",
            "update a Success",
            "exit a Success",
            "enter b",
            "update b Running",
            "enter c",
            "update c Running",
            "update p Running",
        ]
    );
    assert_eq!(
        o.at(2),
        [
            "update b Success",
            "exit b Success",
            "update c Running",
            "update p Running"
        ]
    );
    assert_eq!(
        o.at(3),
        [
            "update c Success",
            "exit c Success",
            "update p Success",
            "exit p Success"
        ]
    );
    assert_eq!((o.calls("a"), o.calls("b"), o.calls("c")), (1, 2, 3));
}

#[test]
fn parallel_success_one_decides_at_once_and_aborts_running_children_in_child_order() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::One,
            Policy::All,
            vec![
                leaf(&b, "a", |_| R),
                script(&b, "b", &[R, S]),
                leaf(&b, "c", |_| R),
                leaf(&b, "d", |_| R),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "update a Running",
            "update b Success",
            "exit b Success",
            "abort a",
            "abort c",
            "abort d",
            "update p Success",
            "exit p Success",
        ]
    );
    // c and d are not updated on the deciding tick.
    assert_eq!(
        (o.calls("a"), o.calls("b"), o.calls("c"), o.calls("d")),
        (2, 2, 1, 1)
    );
}

#[test]
fn parallel_success_one_failure_all_fails_only_when_every_child_failed() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::One,
            Policy::All,
            vec![
                script(&b, "a", &[F]),
                script(&b, "b", &[R, F]),
                script(&b, "c", &[R, R, F]),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, F]);
    assert_eq!((o.calls("a"), o.calls("b"), o.calls("c")), (1, 2, 3));
}

#[test]
fn parallel_success_one_failure_all_succeeds_on_a_success_after_failures() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::One,
            Policy::All,
            vec![script(&b, "a", &[F]), script(&b, "b", &[R, S])],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "update b Success",
            "exit b Success",
            "update p Success",
            "exit p Success"
        ]
    );
}

#[test]
fn parallel_failure_one_decides_at_once_and_aborts_running_children_in_child_order() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::All,
            Policy::One,
            vec![
                leaf(&b, "a", |_| R),
                script(&b, "b", &[R, F]),
                leaf(&b, "c", |_| R),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(
        o.at(2),
        [
            "update a Running",
            "update b Failure",
            "exit b Failure",
            "abort a",
            "abort c",
            "update p Failure",
            "exit p Failure",
        ]
    );
    assert_eq!(o.calls("c"), 1);
}

#[test]
fn parallel_one_one_is_decided_by_the_first_child_in_order_to_finish() {
    // On tick 2 both would finish, a with Failure first: b is not updated.
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::One,
            Policy::One,
            vec![script(&b, "a", &[R, F]), script(&b, "b", &[R, S])],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(
        o.at(2),
        [
            "update a Failure",
            "exit a Failure",
            "abort b",
            "update p Failure",
            "exit p Failure",
        ]
    );
    assert_eq!(o.calls("b"), 1);

    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::One,
            Policy::One,
            vec![script(&b, "a", &[R, S]), script(&b, "b", &[R, F])],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(o.calls("b"), 1);
}

#[test]
fn parallel_all_all_succeeds_when_every_child_succeeded() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::All,
            Policy::All,
            vec![script(&b, "a", &[R, S]), script(&b, "b", &[S])],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "update a Success",
            "exit a Success",
            "update p Success",
            "exit p Success"
        ]
    );
    assert_eq!((o.calls("a"), o.calls("b")), (2, 1));
}

#[test]
fn parallel_all_all_fails_when_every_child_failed() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::All,
            Policy::All,
            vec![script(&b, "a", &[F]), script(&b, "b", &[R, F])],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
}

#[test]
fn parallel_all_all_with_mixed_results_fails_once_every_child_finished() {
    // Documented deliberate difference from the classic parallel, which would return
    // Running for ever.
    for (a, b_script) in [([S], [R, F]), ([F], [R, S])] {
        let b = B::new();
        let tree = b
            .build(par(
                &b,
                Policy::All,
                Policy::All,
                vec![script(&b, "a", &a), script(&b, "b", &b_script)],
            ))
            .unwrap();
        let o = run_all(&tree, 2);
        assert_eq!(o.statuses, [R, F]);
        assert_eq!(o.at(2)[2..], ["update p Failure", "exit p Failure"]);
        assert_eq!((o.calls("a"), o.calls("b")), (1, 2));
    }
}

#[test]
fn parallel_is_entered_afresh_after_it_finished() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::All,
            Policy::All,
            vec![script(&b, "a", &[S]), script(&b, "b", &[R, S, R, S])],
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, S, R, S]);
    assert_eq!(o.ticks_with("enter a"), [1, 3]);
    assert_eq!(o.calls("a"), 2);
}

#[test]
fn parallel_aborted_from_above_aborts_its_running_children_in_order_each_deepest_first() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "top",
            [
                cond(&b, "hi", |t| t >= 2),
                par(
                    &b,
                    Policy::All,
                    Policy::All,
                    vec![
                        b.inverter("i0", b.wait("w0", 10)),
                        leaf(&b, "done", |_| S),
                        b.wait("w1", 10),
                    ],
                ),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2),
        [
            "enter hi",
            "update hi Success",
            "exit hi Success",
            "abort w0",
            "abort i0",
            "abort w1",
            "abort p",
            "update top Success",
            "exit top Success",
        ]
    );
}

#[test]
fn parallel_keeps_running_children_with_a_one_policy_unmet() {
    let b = B::new();
    let tree = b
        .build(par(
            &b,
            Policy::One,
            Policy::One,
            vec![leaf(&b, "a", |_| R), leaf(&b, "b", |_| R)],
        ))
        .unwrap();
    let o = run_all(&tree, 5);
    assert_eq!(o.statuses, [R; 5]);
    assert_eq!((o.count("enter a"), o.count("enter b")), (1, 1));
    assert_eq!((o.calls("a"), o.calls("b")), (5, 5));
}

#[test]
fn parallel_with_many_children_keeps_every_childs_state() {
    // More than four children: the per-child codes span several bytes.
    let b = B::new();
    let names: Vec<String> = (1..=10).map(|k| format!("w{k}")).collect();
    let waits: Vec<D<'_>> = (1..=10).map(|k| b.wait(&names[k - 1], k as u32)).collect();
    let tree = b
        .build(b.sequence(
            "s",
            [b.wait("w0", 1), par(&b, Policy::All, Policy::One, waits)],
        ))
        .unwrap();
    let o = run_all(&tree, 13);
    let mut expected = [R; 13];
    expected[11] = S;
    assert_eq!(o.statuses, expected);
    for (k, name) in (1..).zip(&names) {
        // Entered at tick 2, Wait(k) succeeds at tick 2 + k.
        assert_eq!(
            o.ticks_with(&format!("exit {name} Success")),
            [2 + k],
            "{name}"
        );
        assert_eq!(o.count(&format!("update {name} Running")), k, "{name}");
    }
}

// ---------------------------------------------------------------------------
// Inverter, ForceSuccess, ForceFailure
// ---------------------------------------------------------------------------

#[test]
fn inverter_swaps_success_and_failure_and_keeps_running() {
    let b = B::new();
    let tree = b
        .build(b.inverter("not", script(&b, "a", &[R, S, F])))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, F, S]);
    assert_eq!(
        o.at(2),
        [
            "update a Success",
            "exit a Success",
            "update not Failure",
            "exit not Failure"
        ]
    );
}

#[test]
fn force_success_replaces_a_finished_status_and_keeps_running() {
    let b = B::new();
    let tree = b
        .build(b.force_success("fs", script(&b, "a", &[R, F, S])))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, S, S]);
}

#[test]
fn force_failure_replaces_a_finished_status_and_keeps_running() {
    let b = B::new();
    let tree = b
        .build(b.force_failure("ff", script(&b, "a", &[R, S, F])))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, F, F]);
}

// ---------------------------------------------------------------------------
// Repeat
// ---------------------------------------------------------------------------

#[test]
fn repeat_completes_one_cycle_per_tick_and_succeeds_after_n_successes() {
    let b = B::new();
    let tree = b.build(b.repeat("rep", 3, leaf(&b, "a", |_| S))).unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, S, R]);
    assert_eq!(
        o.at(1),
        [
            "enter rep",
            "enter a",
            "update a Success",
            "exit a Success",
            "update rep Running"
        ]
    );
    assert_eq!(
        o.at(2),
        [
            "enter a",
            "update a Success",
            "exit a Success",
            "update rep Running"
        ]
    );
    assert_eq!(
        o.at(3),
        [
            "enter a",
            "update a Success",
            "exit a Success",
            "update rep Success",
            "exit rep Success",
        ]
    );
    assert_eq!(o.calls("a"), 4);
}

#[test]
fn repeat_waits_for_a_running_child_and_reenters_it_on_the_next_tick() {
    let b = B::new();
    let tree = b.build(b.repeat("rep", 2, b.wait("w", 1))).unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    // The first cycle ends on tick 2; the second starts on tick 3, not 2.
    assert_eq!(
        o.at(2),
        ["update w Success", "exit w Success", "update rep Running"]
    );
    assert_eq!(o.ticks_with("enter w"), [1, 3]);
}

#[test]
fn repeat_fails_when_the_child_fails() {
    let b = B::new();
    let tree = b
        .build(b.repeat("rep", 5, script(&b, "a", &[S, F])))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(
        o.at(2),
        [
            "enter a",
            "update a Failure",
            "exit a Failure",
            "update rep Failure",
            "exit rep Failure",
        ]
    );
}

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
fn repeat_one_is_the_child_itself() {
    let b = B::new();
    let tree = b
        .build(b.repeat("rep", 1, script(&b, "a", &[R, S, F])))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, S, F]);
}

#[test]
fn repeat_aborted_mid_cycle_aborts_its_child_first() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t >= 2),
                b.repeat("rep", 5, b.wait("w", 2)),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, S]);
    assert_eq!(
        o.at(2)[3..],
        [
            "abort w",
            "abort rep",
            "update ps Success",
            "exit ps Success"
        ]
    );
}

#[test]
fn repeat_aborted_between_cycles_has_no_child_to_abort() {
    // The Wait(1) finishes a cycle at tick 2; it would be entered again at
    // tick 3, but the higher-priority child takes over first.
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t >= 3),
                b.repeat("rep", 5, b.wait("w", 1)),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(
        o.at(3)[3..],
        ["abort rep", "update ps Success", "exit ps Success"]
    );
}

// ---------------------------------------------------------------------------
// Retry
// ---------------------------------------------------------------------------

#[test]
fn retry_reruns_a_failed_child_on_the_next_tick_until_it_succeeds() {
    let b = B::new();
    let tree = b
        .build(b.retry("try", 3, script(&b, "a", &[F, F, S])))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);
    assert_eq!(o.ticks_with("enter a"), [1, 2, 3]);
    assert_eq!(
        o.at(3),
        [
            "enter a",
            "update a Success",
            "exit a Success",
            "update try Success",
            "exit try Success",
        ]
    );
}

#[test]
fn retry_fails_on_the_nth_failure() {
    let b = B::new();
    let tree = b.build(b.retry("try", 2, leaf(&b, "a", |_| F))).unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, F, R]);
    assert_eq!(
        o.at(2),
        [
            "enter a",
            "update a Failure",
            "exit a Failure",
            "update try Failure",
            "exit try Failure",
        ]
    );
    assert_eq!(o.calls("a"), 3);
}

#[test]
fn retry_waits_for_a_running_child() {
    let b = B::new();
    let tree = b
        .build(b.retry("try", 2, script(&b, "a", &[R, F, R, S])))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    assert_eq!(o.ticks_with("enter a"), [1, 3]);
}

#[test]
fn retry_succeeds_at_once_on_a_first_success() {
    let b = B::new();
    let tree = b.build(b.retry("try", 3, leaf(&b, "a", |_| S))).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [S, S]);
    assert_eq!(o.calls("a"), 2);
}

// ---------------------------------------------------------------------------
// Guard and ReactiveGuard
// ---------------------------------------------------------------------------

#[test]
fn guard_checks_its_condition_only_when_entered() {
    let b = B::new();
    let tree = b
        .build(b.guard("g", check("ok?", |t| t == 1), script(&b, "a", &[R, R, S])))
        .unwrap();
    let o = run_all(&tree, 4);
    // Tick 4 enters the guard afresh: checked again, now false.
    assert_eq!(o.statuses, [R, R, S, F]);
    assert_eq!(o.calls("ok?"), 2);
    assert_eq!(o.calls("a"), 3);
    assert_eq!(o.at(4), ["enter g", "update g Failure", "exit g Failure"]);
}

#[test]
fn guard_false_on_entry_fails_without_entering_the_child() {
    let b = B::new();
    let tree = b
        .build(b.guard("g", check("ok?", |_| false), leaf(&b, "a", |_| S)))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [F, F]);
    assert_eq!(o.count("enter a"), 0);
    assert_eq!(o.calls("a"), 0);
}

#[test]
fn reactive_guard_rechecks_every_tick_and_aborts_the_child_once_false() {
    let b = B::new();
    let tree = b
        .build(b.reactive_guard("rg", check("ok?", |t| t < 3), leaf(&b, "a", |_| R)))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, F]);
    assert_eq!(o.at(2), ["update a Running", "update rg Running"]);
    assert_eq!(o.at(3), ["abort a", "update rg Failure", "exit rg Failure"]);
    assert_eq!((o.calls("ok?"), o.calls("a")), (3, 2));
}

#[test]
fn reactive_guard_false_on_entry_fails_without_entering_the_child() {
    let b = B::new();
    let tree = b
        .build(b.reactive_guard("rg", check("ok?", |_| false), leaf(&b, "a", |_| S)))
        .unwrap();
    let o = run_all(&tree, 1);
    assert_eq!(o.statuses, [F]);
    assert_eq!(
        o.at(1),
        ["enter rg", "update rg Failure", "exit rg Failure"]
    );
}

#[test]
fn reactive_guard_passes_the_childs_status_while_true() {
    let b = B::new();
    let tree = b
        .build(b.reactive_guard("rg", check("ok?", |_| true), script(&b, "a", &[R, F, S])))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, F, S]);
    assert_eq!(o.calls("ok?"), 3);
}

#[test]
fn reactive_guard_aborts_a_deep_child_deepest_first() {
    let b = B::new();
    let tree = b
        .build(b.reactive_guard(
            "rg",
            check("ok?", |t| t < 2),
            b.sequence(
                "s",
                [b.always_success("a"), b.inverter("not", b.wait("w", 9))],
            ),
        ))
        .unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(
        o.at(2),
        [
            "abort w",
            "abort not",
            "abort s",
            "update rg Failure",
            "exit rg Failure"
        ]
    );
}

// ---------------------------------------------------------------------------
// Timeout
// ---------------------------------------------------------------------------

#[test]
fn timeout_updates_the_child_n_ticks_then_aborts_it_and_fails() {
    let b = B::new();
    let tree = b.build(b.timeout("to", 3, leaf(&b, "a", |_| R))).unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, F]);
    assert_eq!(o.at(4), ["abort a", "update to Failure", "exit to Failure"]);
    assert_eq!(o.calls("a"), 3);
}

#[test]
fn timeout_passes_a_child_that_finishes_in_time() {
    let b = B::new();
    // Wait(2) entered at tick 1 succeeds at tick 3, the last tick Timeout(3) allows.
    let tree = b.build(b.timeout("to", 3, b.wait("w", 2))).unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, S]);

    // Timeout(2) fires at tick 3, before the Wait(2) gets its update.
    let b = B::new();
    let tree = b.build(b.timeout("to", 2, b.wait("w", 2))).unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [R, R, F]);
    assert_eq!(o.at(3), ["abort w", "update to Failure", "exit to Failure"]);
}

#[test]
fn timeout_one_gives_the_child_a_single_tick() {
    let b = B::new();
    let tree = b.build(b.timeout("to", 1, b.wait("w", 1))).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [R, F]);
    assert_eq!(o.count("update w Running"), 1);
}

#[test]
fn timeout_counts_from_its_own_entry() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                script(&b, "a", &[R, R, S, R]),
                b.timeout("to", 2, leaf(&b, "x", |_| R)),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 6);
    // Entered at tick 3: x updated on ticks 3 and 4, timeout fires at 5;
    // the root starts afresh at 6.
    assert_eq!(o.statuses, [R, R, R, R, F, R]);
    assert_eq!(o.calls("x"), 2);
    assert_eq!(o.ticks_with("abort x"), [5]);
}

#[test]
fn timeout_restarts_its_clock_when_entered_again() {
    let b = B::new();
    let tree = b.build(b.timeout("to", 2, leaf(&b, "a", |_| R))).unwrap();
    let o = run_all(&tree, 6);
    assert_eq!(o.statuses, [R, R, F, R, R, F]);
}

// ---------------------------------------------------------------------------
// Cooldown
// ---------------------------------------------------------------------------

#[test]
fn cooldown_runs_the_child_then_fails_without_running_it_while_cooling() {
    // Boundary-free version: for a Cooldown(5), the activations right after
    // the child finished fail without the child, and it runs again later.
    let b = B::new();
    let tree = b.build(b.cooldown("cd", 5, leaf(&b, "a", |_| S))).unwrap();
    let o = run_all(&tree, 8);
    assert_eq!(o.statuses[..5], [S, F, F, F, F]);
    for t in 2..=5 {
        assert_eq!(
            o.at(t),
            ["enter cd", "update cd Failure", "exit cd Failure"]
        );
    }
    // Runs again within 8 ticks, then cools down again.
    assert_eq!(o.calls("a"), 2);
}

#[test]
fn cooldown_fails_for_exactly_the_next_n_ticks() {
    // Documented: "When the child finishes, ... for the next n ticks entering
    // it fails at once without running the child."
    let b = B::new();
    let tree = b.build(b.cooldown("cd", 2, leaf(&b, "a", |_| S))).unwrap();
    let o = run_all(&tree, 7);
    // Child finishes at 1: ticks 2 and 3 fail, 4 runs; 5 and 6 fail, 7 runs.
    assert_eq!(o.statuses, [S, F, F, S, F, F, S]);
    assert_eq!(o.ticks_with("enter a"), [1, 4, 7]);

    let b = B::new();
    let tree = b.build(b.cooldown("cd", 1, leaf(&b, "a", |_| S))).unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [S, F, S, F]);
}

#[test]
fn cooldown_starts_when_the_child_finishes_not_when_it_was_entered() {
    let b = B::new();
    let tree = b
        .build(b.cooldown("cd", 3, script(&b, "a", &[R, R, F, S])))
        .unwrap();
    let o = run_all(&tree, 5);
    // The child fails at tick 3; a Failure cools down too.
    assert_eq!(o.statuses, [R, R, F, F, F]);
    assert_eq!(o.calls("a"), 3);
}

#[test]
fn cooldown_is_kept_across_activations_of_the_node() {
    // The cooldown lives under a Selector that is re-entered every tick.
    let b = B::new();
    let tree = b
        .build(b.selector(
            "s",
            [
                b.cooldown("cd", 4, leaf(&b, "a", |_| S)),
                leaf(&b, "fallback", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [S, S, S, S]);
    assert_eq!(o.calls("a"), 1);
    assert_eq!(o.calls("fallback"), 3);
    assert_eq!(
        o.at(2),
        [
            "enter s",
            "enter cd",
            "update cd Failure",
            "exit cd Failure",
            "enter fallback",
            "update fallback Success",
            "exit fallback Success",
            "update s Success",
            "exit s Success",
        ]
    );
}

#[test]
fn cooldown_is_started_by_an_abort() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t == 2),
                b.cooldown("cd", 5, leaf(&b, "r", |_| R)),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 12);
    assert_eq!(o.statuses[..6], [R, S, F, F, F, F]);
    assert_eq!(o.at(2)[3..5], ["abort r", "abort cd"]);
    for t in 3..=6 {
        assert_eq!(
            o.at(t),
            [
                "enter ps",
                "enter hi",
                "update hi Failure",
                "exit hi Failure",
                "enter cd",
                "update cd Failure",
                "exit cd Failure",
                "update ps Failure",
                "exit ps Failure",
            ]
        );
    }
    // Cooled down: the child runs again (and then never finishes).
    assert_eq!(o.count("enter r"), 2);
    assert_eq!(o.statuses[11], R);
}

#[test]
fn cooldowns_of_different_nodes_are_independent() {
    let b = B::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.cooldown("c1", 10, leaf(&b, "a", |_| S)),
                b.inverter("not", b.cooldown("c2", 10, leaf(&b, "b", |_| F))),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    // Tick 1: both run. Tick 2: c1 is cooling, the sequence fails at once.
    assert_eq!(o.statuses, [S, F, F]);
    assert_eq!((o.calls("a"), o.calls("b")), (1, 1));
}

// ---------------------------------------------------------------------------
// Wait and the constant leaves
// ---------------------------------------------------------------------------

#[test]
fn wait_entered_at_t_succeeds_at_t_plus_n() {
    let b = B::new();
    let tree = b.build(b.wait("w", 3)).unwrap();
    let o = run_all(&tree, 8);
    assert_eq!(o.statuses, [R, R, R, S, R, R, R, S]);
    assert_eq!(o.ticks_with("enter w"), [1, 5]);
}

#[test]
fn wait_counts_from_its_own_entry() {
    let b = B::new();
    let tree = b
        .build(b.sequence("s", [script(&b, "a", &[R, S]), b.wait("w", 2)]))
        .unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [R, R, R, S]);
    assert_eq!(o.ticks_with("enter w"), [2]);
}

#[test]
fn wait_zero_succeeds_at_once() {
    let b = B::new();
    let tree = b.build(b.wait("w", 0)).unwrap();
    let o = run_all(&tree, 2);
    assert_eq!(o.statuses, [S, S]);
    assert_eq!(o.at(1), ["enter w", "update w Success", "exit w Success"]);
}

#[test]
fn constant_leaves() {
    let b = B::new();
    let tree = b.build(b.always_running("r")).unwrap();
    let o = run_all(&tree, 5);
    assert_eq!(o.statuses, [R; 5]);
    assert_eq!(o.count("enter r"), 1);
    assert_eq!(o.count("update r Running"), 5);

    let b = B::new();
    let tree = b.build(b.always_success("s")).unwrap();
    assert_eq!(run_all(&tree, 2).statuses, [S, S]);

    let b = B::new();
    let tree = b.build(b.always_failure("f")).unwrap();
    assert_eq!(run_all(&tree, 2).statuses, [F, F]);
}

// ---------------------------------------------------------------------------
// Action and Condition
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

#[test]
fn condition_maps_true_and_false_to_success_and_failure() {
    let b = B::new();
    let tree = b.build(cond(&b, "even?", |t| t % 2 == 0)).unwrap();
    let o = run_all(&tree, 4);
    assert_eq!(o.statuses, [F, S, F, S]);
    assert_eq!(o.calls("even?"), 4);
}

// ---------------------------------------------------------------------------
// Custom nodes
// ---------------------------------------------------------------------------

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
// Whole trees
// ---------------------------------------------------------------------------

#[test]
fn a_subtree_used_twice_runs_as_two_independent_tasks() {
    let b = B::new();
    let nap = b.wait("nap", 2);
    let tree = b
        .build(b.sequence(
            "s",
            [
                nap,
                b.parallel("p", Policy::All, Policy::All, [nap, b.wait("long", 3), nap]),
            ],
        ))
        .unwrap();
    assert_eq!(tree.len(), 4);
    let o = run_all(&tree, 7);
    // The first nap runs on ticks 1-3; the parallel is entered at 3 with
    // two naps of its own, done at 5, and "long", done at 6.
    assert_eq!(o.statuses, [R, R, R, R, R, S, R]);
    assert_eq!(o.ticks_with("enter nap"), [1, 3, 7]);
    assert_eq!(o.count("enter nap"), 4);
    assert_eq!(o.ticks_with("exit nap Success"), [3, 5]);
    assert_eq!(o.count("exit nap Success"), 3);
}

#[test]
fn runs_are_deterministic() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t % 5 == 0),
                b.parallel(
                    "p",
                    Policy::One,
                    Policy::All,
                    [
                        b.repeat("rep", 3, b.wait("w", 1)),
                        b.retry("try", 2, script(&b, "a", &[F, R, F, S])),
                        b.cooldown("cd", 2, leaf(&b, "x", |t| if t % 3 == 0 { S } else { R })),
                    ],
                ),
            ],
        ))
        .unwrap();
    assert_eq!(run(&tree, 30, Mode::Tick), run(&tree, 30, Mode::Tick));
    run_all(&tree, 30);
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

#[test]
fn valid_edge_values_build() {
    let b = B::new();
    let root = b.sequence(
        "root",
        [
            b.wait("w", 0),
            b.repeat("r", 1, b.always_success("x")),
            b.retry("t", 1, b.always_success("y")),
            b.timeout("to", 1, b.always_success("z")),
            b.cooldown("cd", 1, b.always_success("u")),
            b.parallel("p", Policy::One, Policy::One, [b.always_success("v")]),
            b.sequence("empty", []),
        ],
    );
    let tree = b.build(root).unwrap();
    assert_eq!(run_all(&tree, 1).statuses, [S]);
}

// ---------------------------------------------------------------------------
// SequenceWithMemory and RunOnce: memory that outlives an activation
// ---------------------------------------------------------------------------

#[test]
fn sequence_with_memory_goes_on_from_the_child_that_failed() {
    let b = B::new();
    let tree = b
        .build(b.sequence_with_memory(
            "swm",
            [
                leaf(&b, "a", |_| S),
                script(&b, "b", &[F, S, S]),
                leaf(&b, "c", |_| S),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 3);
    assert_eq!(o.statuses, [F, S, S]);
    // Tick 2 starts at b, the child that failed; tick 3 from the first again.
    assert_eq!(
        o.at(2),
        [
            "enter swm",
            "enter b",
            "update b Success",
            "exit b Success",
            "enter c",
            "update c Success",
            "exit c Success",
            "update swm Success",
            "exit swm Success",
        ]
    );
    assert_eq!(o.ticks_with("enter a"), [1, 3]);
    assert_eq!((o.calls("a"), o.calls("b"), o.calls("c")), (2, 3, 2));
}

#[test]
fn sequence_with_memory_goes_on_from_the_child_that_was_aborted() {
    // A higher-priority condition aborts the sequence at tick 3 while b
    // runs; at tick 4 the sequence is entered again and goes on at b.
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t == 3),
                b.sequence_with_memory(
                    "swm",
                    [
                        leaf(&b, "a", |_| S),
                        leaf(&b, "b", |t| if t < 5 { R } else { S }),
                    ],
                ),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 5);
    assert_eq!(o.statuses, [R, R, S, R, S]);
    assert!(o.at(3).contains(&"abort b".to_string()), "{:?}", o.at(3));
    assert_eq!(o.ticks_with("enter a"), [1]);
    assert_eq!(o.ticks_with("enter b"), [1, 4]);
    // A plain Sequence starts from the first child again.
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t == 3),
                b.sequence(
                    "seq",
                    [
                        leaf(&b, "a", |_| S),
                        leaf(&b, "b", |t| if t < 5 { R } else { S }),
                    ],
                ),
            ],
        ))
        .unwrap();
    assert_eq!(run_all(&tree, 5).ticks_with("enter a"), [1, 4]);
}

#[test]
fn sequence_with_memory_is_kept_per_place_of_a_shared_subtree() {
    let b = B::new();
    let shared = b.sequence_with_memory("swm", [leaf(&b, "a", |_| S), script(&b, "b", &[F, S])]);
    let tree = b.build(b.selector("sel", [shared, shared])).unwrap();
    let o = run_all(&tree, 2);
    // Tick 1: both places fail at b (a and b run twice); tick 2: the first
    // place goes on at b, which now succeeds; the second is not entered.
    assert_eq!(o.statuses, [F, S]);
    assert_eq!((o.calls("a"), o.calls("b")), (2, 3));
}

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

#[test]
fn run_once_runs_its_child_to_the_end_once_then_answers_without_it() {
    for (then, later) in [
        (Afterwards::Same, F),
        (Afterwards::Success, S),
        (Afterwards::Failure, F),
    ] {
        let b = B::new();
        let tree = b
            .build(b.run_once("once", then, script(&b, "a", &[R, F, S])))
            .unwrap();
        let o = run_all(&tree, 4);
        assert_eq!(o.statuses, [R, F, later, later], "{then}");
        assert_eq!(o.calls("a"), 2, "{then}");
        assert_eq!(
            o.at(3),
            [
                "enter once",
                format!("update once {later:?}").as_str(),
                format!("exit once {later:?}").as_str()
            ],
            "{then}"
        );
    }
}

#[test]
fn run_once_aborted_before_the_end_runs_its_child_afresh() {
    let b = B::new();
    let tree = b
        .build(b.reactive_selector(
            "ps",
            [
                cond(&b, "hi", |t| t == 2),
                b.run_once(
                    "once",
                    Afterwards::Same,
                    leaf(&b, "a", |t| if t < 4 { R } else { S }),
                ),
            ],
        ))
        .unwrap();
    let o = run_all(&tree, 6);
    assert_eq!(o.statuses, [R, S, R, S, S, S]);
    assert_eq!(o.ticks_with("enter a"), [1, 3]);
    assert_eq!(o.calls("a"), 3);
    // Tick 5 and 6: the run is over; the child is not entered.
    assert_eq!(o.ticks_with("enter once"), [1, 3, 5, 6]);
}
