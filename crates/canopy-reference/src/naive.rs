//! The classic design canopy is measured against: every agent owns a full
//! copy of every node, each node an object keeping its own runtime state
//! and its own "am I running" flag, dispatched through `Box<dyn>` — the
//! shape of the textbook tutorial tree and of BehaviorTree.CPP's
//! per-instance trees.
//!
//! It is also the second, independent implementation of the node semantics
//! that the differential tests compare canopy against, so it is written from
//! the documented semantics (the table in `canopy_core::nodes`), not from
//! the engine's code, and in the classic style rather than canopy's: each
//! node has enter / update / abort hooks, a parent asks its children
//! whether they are running instead of keeping that in its own state, and
//! a Parallel keeps each child's result as an `Option<Status>`. It calls the
//! very same leaf closures, copied out of a canopy [`Tree`].

use std::fmt;

use canopy_core::{
    Afterwards, Ctx, NodeKind, Policy, Status, Tree,
    context::{ActionFn, ConditionFn},
    hash,
    inspect::NodeRef,
    nodes,
};

use canopy_core::text::{bare as clip, quote};

/// One agent's private copy of a whole tree.
///
/// ```
/// use canopy_core::Status;
/// use canopy_reference::{critters, naive::NaiveAgent, reference_tree, Meadow};
///
/// let tree = reference_tree();
/// let meadow = Meadow::new(128);
/// let mut critter = critters(1, 3, &meadow).remove(0);
/// let mut agent = NaiveAgent::new(&tree, 0).unwrap();
/// let status = agent.tick(&mut critter, &meadow);
/// assert_ne!(status, Status::Failure);
/// ```
pub struct NaiveAgent<A, W> {
    root: Child<A, W>,
    tick: u32,
    id: u32,
}

impl<A, W> std::fmt::Debug for NaiveAgent<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NaiveAgent")
            .field("tick", &self.tick)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// A node of a canopy tree that has no classic counterpart: a custom node
/// type or an async leaf.
///
/// ```
/// use canopy_core::{Builder, Status};
/// use canopy_reference::naive::NaiveAgent;
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.async_action("fetch", |_, _| Status::Running)).unwrap();
/// let err = NaiveAgent::new(&tree, 0).err().unwrap();
/// assert_eq!(err.to_string(), "node \"fetch\" is an Async node, which the naive baseline cannot run");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NaiveError {
    /// The node's name, quoted: at most 80 characters, control characters
    /// escaped.
    pub name: String,
    /// The node's type name, escaped and cut short the same way.
    pub kind: String,
}

impl fmt::Display for NaiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let article = if self.kind.starts_with(['A', 'E', 'I', 'O', 'U']) {
            "an"
        } else {
            "a"
        };
        write!(
            f,
            "node {} is {article} {} node, which the naive baseline cannot run",
            self.name, self.kind
        )
    }
}

impl std::error::Error for NaiveError {}

impl<A: 'static, W: 'static> NaiveAgent<A, W> {
    /// Copy every node of `tree` for one agent, as classic node objects.
    /// Custom node types and async leaves are not supported.
    pub fn new(tree: &Tree<A, W>, id: u32) -> Result<Self, NaiveError> {
        Ok(NaiveAgent {
            root: classic(tree.node(tree.root()))?,
            tick: 0,
            id,
        })
    }

    /// Tick the agent's tree once and return the root status. Ticks are
    /// counted from 1, as canopy counts them.
    pub fn tick(&mut self, agent: &mut A, world: &W) -> Status {
        self.tick_elapsed(agent, world, 1)
    }

    /// Tick the agent's tree once, `elapsed` world ticks (at least 1) after
    /// its last tick, and return the root status: the agent's clock moves
    /// on by `elapsed`, and the timed nodes measure on it (the rule of
    /// `Agent::tick_elapsed`).
    pub fn tick_elapsed(&mut self, agent: &mut A, world: &W, elapsed: u32) -> Status {
        self.tick = self.tick.wrapping_add(elapsed.max(1)).max(1);
        let mut cx = Ctx {
            board: canopy_core::Board::empty(),
            agent,
            world,
            tick: self.tick,
            id: self.id,
        };
        self.root.tick(&mut cx)
    }
}

/// A node object as its parent sees it.
trait Behavior<A, W>: Send + Sync {
    /// Enter the node if it is not running, then update it.
    fn tick(&mut self, cx: &mut Ctx<A, W>) -> Status;
    /// Stop the node if it is running (its running children first);
    /// nothing otherwise.
    fn abort(&mut self, cx: &mut Ctx<A, W>);
}

type Child<A, W> = Box<dyn Behavior<A, W>>;

/// What a node kind does, as the classic hooks.
trait Hooks<A, W>: Send + Sync {
    /// The node starts (its first update follows at once).
    fn enter(&mut self, _cx: &mut Ctx<A, W>) {}
    /// One update.
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status;
    /// The node is stopped while running: stop what it runs.
    fn stop(&mut self, cx: &mut Ctx<A, W>);
}

/// A node object: its hooks plus whether it is running.
struct Classic<H> {
    hooks: H,
    running: bool,
}

impl<A, W, H: Hooks<A, W>> Behavior<A, W> for Classic<H> {
    fn tick(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if !self.running {
            self.hooks.enter(cx);
        }
        let status = self.hooks.update(cx);
        self.running = status == Status::Running;
        status
    }

    fn abort(&mut self, cx: &mut Ctx<A, W>) {
        if self.running {
            self.hooks.stop(cx);
            self.running = false;
        }
    }
}

fn boxed<A, W, H: Hooks<A, W> + 'static>(hooks: H) -> Child<A, W> {
    Box::new(Classic {
        hooks,
        running: false,
    })
}

fn abort_all<A, W>(children: &mut [Child<A, W>], cx: &mut Ctx<A, W>) {
    for child in children {
        child.abort(cx);
    }
}

// ---------------------------------------------------------------------------
// Copying a canopy tree into node objects.

fn classic<A: 'static, W: 'static>(node: NodeRef<'_, A, W>) -> Result<Child<A, W>, NaiveError> {
    let children = node
        .children()
        .map(classic)
        .collect::<Result<Vec<_>, _>>()?;
    let unsupported = || NaiveError {
        name: quote(node.name()),
        kind: clip(node.type_name()),
    };
    let made = match node.kind() {
        // Any number of children, one included.
        NodeKind::Utility(kind) => Some(boxed(Utility {
            children,
            kind: kind.clone(),
            running: None,
            scored_at: 0,
        })),
        NodeKind::Action(_)
        | NodeKind::Condition(_)
        | NodeKind::AlwaysSuccess(_)
        | NodeKind::AlwaysFailure(_)
        | NodeKind::AlwaysRunning(_)
        | NodeKind::Wait(_) => leaf(node.kind()),
        kind => match <[Child<A, W>; 1]>::try_from(children) {
            Ok([child]) => decorator(kind, child),
            Err(children) => composite(kind, children),
        },
    };
    made.ok_or_else(unsupported)
}

fn composite<A: 'static, W: 'static>(
    kind: &NodeKind<A, W>,
    children: Vec<Child<A, W>>,
) -> Option<Child<A, W>> {
    Some(match kind {
        NodeKind::Sequence(_) => boxed(InOrder::new(children, Status::Success)),
        NodeKind::Selector(_) => boxed(InOrder::new(children, Status::Failure)),
        // Only without pauses, which only BehaviorTree.CPP's XML asks for.
        NodeKind::SequenceWithMemory(k) if k.pause != Some(true) => boxed(MemorySequence {
            children,
            current: 0,
        }),
        NodeKind::ReactiveSequence(_) => boxed(Reactive {
            children,
            go_on: Status::Success,
        }),
        NodeKind::ReactiveSelector(_) => boxed(Reactive {
            children,
            go_on: Status::Failure,
        }),
        &NodeKind::Shuffle(nodes::Shuffle { like, salt }) => boxed(Shuffle {
            order: Vec::with_capacity(children.len()),
            children,
            go_on: match like {
                nodes::Like::Sequence => Status::Success,
                nodes::Like::Selector => Status::Failure,
            },
            salt,
            current: 0,
        }),
        &NodeKind::Parallel(nodes::Parallel { success, failure }) => boxed(Parallel {
            results: vec![None; children.len()],
            children,
            success,
            failure,
        }),
        _ => return None,
    })
}

fn decorator<A: 'static, W: 'static>(
    kind: &NodeKind<A, W>,
    child: Child<A, W>,
) -> Option<Child<A, W>> {
    Some(match kind {
        NodeKind::Inverter(_) => boxed(Reshape(child, Status::invert)),
        NodeKind::ForceSuccess(_) => boxed(Reshape(child, |_| Status::Success)),
        NodeKind::ForceFailure(_) => boxed(Reshape(child, |_| Status::Failure)),
        &NodeKind::Repeat(nodes::Repeat { times }) => {
            boxed(Count::new(child, times, Status::Success))
        }
        &NodeKind::Retry(nodes::Retry { times }) => {
            boxed(Count::new(child, times, Status::Failure))
        }
        NodeKind::Guard(nodes::Guard(p)) => boxed(Guard {
            condition: p.check.clone(),
            child,
            open: false,
        }),
        NodeKind::ReactiveGuard(nodes::ReactiveGuard(p)) => boxed(ReactiveGuard {
            condition: p.check.clone(),
            child,
        }),
        &NodeKind::Timeout(nodes::Timeout { ticks }) => boxed(Timeout {
            child,
            ticks,
            started: 0,
        }),
        &NodeKind::RunOnce(nodes::RunOnce { then }) => boxed(RunOnce {
            child,
            then,
            ended: None,
            answer: None,
        }),
        &NodeKind::Cooldown(nodes::Cooldown { ticks }) => boxed(Cooldown {
            child,
            ticks,
            ended: None,
            refused: false,
        }),
        // A composite with one child.
        kind => return composite(kind, vec![child]),
    })
}

fn leaf<A: 'static, W: 'static>(kind: &NodeKind<A, W>) -> Option<Child<A, W>> {
    Some(match kind {
        NodeKind::Action(nodes::Action(f)) => boxed(Action(f.clone())),
        NodeKind::Condition(nodes::Condition(f)) => boxed(Condition(f.clone())),
        NodeKind::AlwaysSuccess(_) => boxed(Constant(Status::Success)),
        NodeKind::AlwaysFailure(_) => boxed(Constant(Status::Failure)),
        NodeKind::AlwaysRunning(_) => boxed(Constant(Status::Running)),
        &NodeKind::Wait(nodes::Wait { ticks }) => boxed(Wait { ticks, started: 0 }),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Controls.

/// SequenceWithMemory: where it stopped (the child that failed or was
/// running) lives as long as the node object, and the next activation goes
/// on from there.
struct MemorySequence<A, W> {
    children: Vec<Child<A, W>>,
    current: usize,
}

impl<A, W> Hooks<A, W> for MemorySequence<A, W> {
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        while let Some(child) = self.children.get_mut(self.current) {
            let status = child.tick(cx);
            if status != Status::Success {
                return status;
            }
            self.current += 1;
        }
        self.current = 0;
        Status::Success
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        abort_all(&mut self.children, cx);
    }
}

/// Sequence (`go_on` = Success) and Selector (`go_on` = Failure): the
/// children in order, moving on while they return `go_on`; a running child
/// is resumed on the next tick.
struct InOrder<A, W> {
    children: Vec<Child<A, W>>,
    go_on: Status,
    current: usize,
}

impl<A, W> InOrder<A, W> {
    fn new(children: Vec<Child<A, W>>, go_on: Status) -> Self {
        InOrder {
            children,
            go_on,
            current: 0,
        }
    }
}

impl<A, W> Hooks<A, W> for InOrder<A, W> {
    fn enter(&mut self, _cx: &mut Ctx<A, W>) {
        self.current = 0;
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        while let Some(child) = self.children.get_mut(self.current) {
            let status = child.tick(cx);
            if status != self.go_on {
                return status;
            }
            self.current += 1;
        }
        self.go_on
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        abort_all(&mut self.children, cx);
    }
}

/// Shuffle: a Sequence or Selector over its children in an order drawn
/// when it starts — the documented draw: Fisher–Yates from the last place
/// down, place `i` swapped with `mix(key ^ i) % (i + 1)`, where `key` is
/// the node's salt mixed with the agent's id and tick.
struct Shuffle<A, W> {
    children: Vec<Child<A, W>>,
    go_on: Status,
    salt: u64,
    order: Vec<usize>,
    current: usize,
}

impl<A, W> Hooks<A, W> for Shuffle<A, W> {
    fn enter(&mut self, cx: &mut Ctx<A, W>) {
        let key = self.salt ^ hash::agent_tick(cx.id, cx.tick);
        self.order.clear();
        self.order.extend(0..self.children.len());
        for i in (1..self.order.len()).rev() {
            let j = (hash::mix(key ^ i as u64) % (i as u64 + 1)) as usize;
            self.order.swap(i, j);
        }
        self.current = 0;
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        while let Some(&child) = self.order.get(self.current) {
            let status = self.children[child].tick(cx);
            if status != self.go_on {
                return status;
            }
            self.current += 1;
        }
        self.go_on
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        abort_all(&mut self.children, cx);
    }
}

/// Utility: scores every child when entered and every `every` ticks after,
/// the running child with its inertia; the scores themselves are the
/// kind's (`Utility::score`), the picking is written here again. A new
/// winner stops the running child before it is ticked.
struct Utility<A, W> {
    children: Vec<Child<A, W>>,
    kind: nodes::Utility<A, W>,
    running: Option<usize>,
    scored_at: u32,
}

impl<A, W> Utility<A, W> {
    fn pick(&self, cx: &Ctx<A, W>) -> Option<usize> {
        let k = &self.kind;
        let scores: Vec<(usize, f32)> = (0..self.children.len())
            .map(|c| {
                let bonus = if self.running == Some(c) {
                    k.inertia
                } else {
                    0.0
                };
                (c, k.score(c, cx) + bonus)
            })
            .filter(|&(_, score)| score > k.threshold)
            .collect();
        match k.pick {
            nodes::Pick::Highest => scores
                .iter()
                .fold(None::<(usize, f32)>, |best, &(c, s)| match best {
                    Some((_, b)) if s <= b => best,
                    _ => Some((c, s)),
                })
                .map(|(c, _)| c),
            nodes::Pick::Weighted => {
                let total: f32 = scores.iter().map(|&(_, s)| s).sum();
                let mut left = hash::unit(k.salt ^ hash::agent_tick(cx.id, cx.tick)) as f32 * total;
                for &(c, s) in &scores {
                    if left < s {
                        return Some(c);
                    }
                    left -= s;
                }
                scores.last().map(|&(c, _)| c)
            }
        }
    }
}

impl<A, W> Hooks<A, W> for Utility<A, W> {
    fn enter(&mut self, _cx: &mut Ctx<A, W>) {
        self.running = None;
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        let every = self.kind.every;
        let due =
            self.running.is_none() || (every > 0 && cx.tick.wrapping_sub(self.scored_at) >= every);
        if due {
            self.scored_at = cx.tick;
            let pick = self.pick(cx);
            if let Some(old) = self.running.filter(|&old| pick != Some(old)) {
                self.children[old].abort(cx);
            }
            self.running = pick;
        }
        let Some(child) = self.running else {
            return Status::Failure;
        };
        let status = self.children[child].tick(cx);
        self.running = (status == Status::Running).then_some(child);
        status
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        abort_all(&mut self.children, cx);
        self.running = None;
    }
}

/// ReactiveSequence and ReactiveSelector: every tick from the first child;
/// children that are not running start afresh, the running one resumes.
/// When a child decides (anything but `go_on`), a later child still
/// running has lost its turn and is stopped.
struct Reactive<A, W> {
    children: Vec<Child<A, W>>,
    go_on: Status,
}

impl<A, W> Hooks<A, W> for Reactive<A, W> {
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        for i in 0..self.children.len() {
            let status = self.children[i].tick(cx);
            if status != self.go_on {
                abort_all(&mut self.children[i + 1..], cx);
                return status;
            }
        }
        self.go_on
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        abort_all(&mut self.children, cx);
    }
}

/// Parallel: every child not yet finished in this activation is ticked, in
/// order; finished children keep their result.
struct Parallel<A, W> {
    children: Vec<Child<A, W>>,
    results: Vec<Option<Status>>,
    success: Policy,
    failure: Policy,
}

impl<A, W> Parallel<A, W> {
    /// The parallel is decided: stop the children still running.
    fn decide(&mut self, status: Status, cx: &mut Ctx<A, W>) -> Status {
        abort_all(&mut self.children, cx);
        status
    }
}

impl<A, W> Hooks<A, W> for Parallel<A, W> {
    fn enter(&mut self, _cx: &mut Ctx<A, W>) {
        self.results.fill(None);
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        for i in 0..self.children.len() {
            if self.results[i].is_none() {
                let status = self.children[i].tick(cx);
                if status != Status::Running {
                    self.results[i] = Some(status);
                }
            }
            // A `One` policy is met the moment one child meets it.
            match self.results[i] {
                Some(Status::Success) if self.success == Policy::One => {
                    return self.decide(Status::Success, cx);
                }
                Some(Status::Failure) if self.failure == Policy::One => {
                    return self.decide(Status::Failure, cx);
                }
                _ => {}
            }
        }
        let n = self.results.len();
        let count = |s: Status| self.results.iter().filter(|r| **r == Some(s)).count();
        let (succeeded, failed) = (count(Status::Success), count(Status::Failure));
        if failed == n {
            self.decide(Status::Failure, cx)
        } else if self.success == Policy::All && succeeded == n {
            self.decide(Status::Success, cx)
        } else if succeeded + failed == n {
            // All finished, success out of reach.
            self.decide(Status::Failure, cx)
        } else {
            Status::Running
        }
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        abort_all(&mut self.children, cx);
    }
}

// ---------------------------------------------------------------------------
// Decorators.

/// Inverter, ForceSuccess, ForceFailure: a finished child's status mapped.
struct Reshape<A, W>(Child<A, W>, fn(Status) -> Status);

impl<A, W> Hooks<A, W> for Reshape<A, W> {
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        match self.0.tick(cx) {
            Status::Running => Status::Running,
            finished => (self.1)(finished),
        }
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.0.abort(cx);
    }
}

/// Repeat (`counts` = Success) and Retry (`counts` = Failure): at most one
/// child run finishes per tick; the `times`-th `counts` ends the node with
/// it, any other finish ends it at once.
struct Count<A, W> {
    child: Child<A, W>,
    times: u32,
    counts: Status,
    done: u32,
}

impl<A, W> Count<A, W> {
    fn new(child: Child<A, W>, times: u32, counts: Status) -> Self {
        Count {
            child,
            times,
            counts,
            done: 0,
        }
    }
}

impl<A, W> Hooks<A, W> for Count<A, W> {
    fn enter(&mut self, _cx: &mut Ctx<A, W>) {
        self.done = 0;
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        let status = self.child.tick(cx);
        if status != self.counts {
            return status;
        }
        self.done += 1;
        if self.done == self.times {
            status
        } else {
            Status::Running
        }
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.child.abort(cx);
    }
}

/// Guard: the condition decides once, on entry.
struct Guard<A, W> {
    condition: ConditionFn<A, W>,
    child: Child<A, W>,
    open: bool,
}

impl<A, W> Hooks<A, W> for Guard<A, W> {
    fn enter(&mut self, cx: &mut Ctx<A, W>) {
        self.open = (self.condition)(cx);
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if self.open {
            self.child.tick(cx)
        } else {
            Status::Failure
        }
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.child.abort(cx);
    }
}

/// ReactiveGuard: the condition decides on every update.
struct ReactiveGuard<A, W> {
    condition: ConditionFn<A, W>,
    child: Child<A, W>,
}

impl<A, W> Hooks<A, W> for ReactiveGuard<A, W> {
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if (self.condition)(cx) {
            self.child.tick(cx)
        } else {
            self.child.abort(cx);
            Status::Failure
        }
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.child.abort(cx);
    }
}

/// Timeout: the child gets the `ticks` ticks from entry; on the next one it
/// is stopped and the node fails.
struct Timeout<A, W> {
    child: Child<A, W>,
    ticks: u32,
    started: u32,
}

impl<A, W> Hooks<A, W> for Timeout<A, W> {
    fn enter(&mut self, cx: &mut Ctx<A, W>) {
        self.started = cx.tick;
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if cx.tick.wrapping_sub(self.started) < self.ticks {
            return self.child.tick(cx);
        }
        self.child.abort(cx);
        Status::Failure
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.child.abort(cx);
    }
}

/// RunOnce: the child runs to the end once; how it ended lives as long as
/// the node object, and later activations answer without it.
struct RunOnce<A, W> {
    child: Child<A, W>,
    then: Afterwards,
    ended: Option<Status>,
    /// This activation's answer, decided when it was entered.
    answer: Option<Status>,
}

impl<A, W> Hooks<A, W> for RunOnce<A, W> {
    fn enter(&mut self, _cx: &mut Ctx<A, W>) {
        self.answer = self.ended.map(|ended| match self.then {
            Afterwards::Same => ended,
            Afterwards::Success => Status::Success,
            Afterwards::Failure => Status::Failure,
        });
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if let Some(answer) = self.answer {
            return answer;
        }
        let status = self.child.tick(cx);
        if status != Status::Running {
            self.ended = Some(status);
        }
        status
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.child.abort(cx);
    }
}

/// Cooldown: for `ticks` ticks after its child ended (finished or was
/// stopped), entering the node fails without running the child. The tick
/// the child ended lives as long as the node object.
struct Cooldown<A, W> {
    child: Child<A, W>,
    ticks: u32,
    ended: Option<u32>,
    /// Entered while cooling down: this activation fails.
    refused: bool,
}

impl<A, W> Hooks<A, W> for Cooldown<A, W> {
    fn enter(&mut self, cx: &mut Ctx<A, W>) {
        self.refused = self
            .ended
            .is_some_and(|t| cx.tick.wrapping_sub(t) <= self.ticks);
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if self.refused {
            return Status::Failure;
        }
        let status = self.child.tick(cx);
        if status != Status::Running {
            self.ended = Some(cx.tick);
        }
        status
    }

    fn stop(&mut self, cx: &mut Ctx<A, W>) {
        self.child.abort(cx);
        self.ended = Some(cx.tick);
    }
}

// ---------------------------------------------------------------------------
// Leaves.

struct Action<A, W>(ActionFn<A, W>);

impl<A, W> Hooks<A, W> for Action<A, W> {
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        (self.0)(cx)
    }

    fn stop(&mut self, _cx: &mut Ctx<A, W>) {}
}

struct Condition<A, W>(ConditionFn<A, W>);

impl<A, W> Hooks<A, W> for Condition<A, W> {
    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        Status::from_bool((self.0)(cx))
    }

    fn stop(&mut self, _cx: &mut Ctx<A, W>) {}
}

struct Constant(Status);

impl<A, W> Hooks<A, W> for Constant {
    fn update(&mut self, _cx: &mut Ctx<A, W>) -> Status {
        self.0
    }

    fn stop(&mut self, _cx: &mut Ctx<A, W>) {}
}

/// Wait: succeeds `ticks` ticks after entry.
struct Wait {
    ticks: u32,
    started: u32,
}

impl<A, W> Hooks<A, W> for Wait {
    fn enter(&mut self, cx: &mut Ctx<A, W>) {
        self.started = cx.tick;
    }

    fn update(&mut self, cx: &mut Ctx<A, W>) -> Status {
        if cx.tick.wrapping_sub(self.started) >= self.ticks {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn stop(&mut self, _cx: &mut Ctx<A, W>) {}
}
