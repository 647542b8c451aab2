//! Random trees with scripted leaves, shared by the differential tests.
//! Every leaf's outcome is a pure function of its seed, the agent, the tick
//! and how many leaves the agent has run, so a run varies but replays
//! exactly, and two runs agree only if they called the same leaves in the
//! same order.

#![allow(dead_code)]

use std::cell::RefCell;

use canopy_core::{
    Afterwards, Arity, Builder, Children, Ctx, Draft, Event, Node, NodeKind, Observer, Policy,
    Status, Ticket, context::Predicate, nodes,
};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Random trees with scripted leaves.

/// Agent data for random trees: a running hash of which leaf ran at which
/// tick, so two runs agree only if they called the same leaves in the same order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Probe {
    pub trace: u64,
    pub calls: u32,
    /// Tickets of suspended async leaves: when to complete them, and how.
    pub pending: Vec<(Ticket, u32, Status)>,
    /// Every call of an action, condition or guard predicate: (seed, tick).
    /// Conditions only see the agent by shared reference, hence the cell.
    pub log: RefCell<Vec<(u32, u32)>>,
    /// The leaf call (counted from 1) that panics instead; 0 for none.
    pub bomb: u32,
}

impl Probe {
    /// Count a leaf call, panicking if it is the bomb.
    pub(crate) fn call(&mut self) {
        self.calls += 1;
        if self.calls == self.bomb {
            panic!("a leaf blew up");
        }
    }
}

pub(crate) fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A leaf's outcome: a pure function of its seed, the agent, the tick and
/// how many leaves this agent has run, so it varies but replays exactly.
pub(crate) fn roll(seed: u32, id: u32, tick: u32, calls: u32) -> u64 {
    mix(((seed as u64) << 40) ^ ((id as u64) << 32) ^ ((tick as u64) << 12) ^ calls as u64)
}

#[derive(Clone, Debug)]
pub(crate) enum Spec {
    Action(u32),
    Condition(u32),
    Constant(Status),
    Wait(u32),
    Decorator(Deco, Box<Spec>),
    Composite(Comp, Vec<Spec>),
    /// One child definition used twice under the same composite.
    Shared(Comp, Box<Spec>),
    /// An async leaf whose ticket the harness completes a few ticks later.
    Async(u32),
    /// A custom leaf with a countdown in its task.
    CustomLeaf(u32),
    /// A custom node running its children round-robin, one per update.
    CustomNode(Vec<Spec>),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Deco {
    Inverter,
    ForceSuccess,
    ForceFailure,
    Repeat(u32),
    Retry(u32),
    Guard(u32),
    ReactiveGuard(u32),
    Timeout(u32),
    Cooldown(u32),
    RunOnce(Afterwards),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Comp {
    Sequence,
    Selector,
    SequenceWithMemory,
    ReactiveSequence,
    ReactiveSelector,
    Parallel(Policy, Policy),
    Shuffle(nodes::Like, u64),
    /// A Utility whose parameters and scorers come from the seed.
    Utility(u64),
}

/// The code of scripted action `seed`.
pub(crate) fn act(seed: u32, cx: &mut Ctx<Probe, ()>) -> Status {
    cx.agent.log.get_mut().push((seed, cx.tick));
    let r = roll(seed, cx.id, cx.tick, cx.agent.calls);
    cx.agent.call();
    cx.agent.trace = mix(cx.agent.trace ^ ((seed as u64) << 32) ^ cx.tick as u64);
    [Status::Running, Status::Success, Status::Failure][(r % 3) as usize]
}

/// The code of scripted condition `seed`.
pub(crate) fn check(seed: u32, cx: &Ctx<Probe, ()>) -> bool {
    cx.agent.log.borrow_mut().push((seed, cx.tick));
    roll(seed, cx.id, cx.tick, cx.agent.calls).is_multiple_of(2)
}

/// The code of scripted guard predicate `seed`.
pub(crate) fn guard_check(seed: u32, cx: &Ctx<Probe, ()>) -> bool {
    cx.agent.log.borrow_mut().push((seed, cx.tick));
    !roll(seed, cx.id, cx.tick, cx.agent.calls).is_multiple_of(3)
}

pub(crate) fn predicate(seed: u32) -> Predicate<Probe, ()> {
    Predicate::<Probe, ()>::new(format!("p{seed}"), move |cx| guard_check(seed, cx))
}

pub(crate) fn build<'b>(b: &'b Builder<'b, Probe, ()>, spec: &Spec) -> &'b Draft<'b, Probe, ()> {
    match spec {
        &Spec::Action(seed) => b.action(&format!("a{seed}"), move |cx| act(seed, cx)),
        &Spec::Condition(seed) => b.condition(&format!("c{seed}"), move |cx| check(seed, cx)),
        Spec::Constant(Status::Success) => b.always_success("yes"),
        Spec::Constant(Status::Failure) => b.always_failure("no"),
        Spec::Constant(Status::Running) => b.always_running("busy"),
        &Spec::Wait(n) => b.wait("wait", n),
        Spec::Decorator(deco, child) => {
            let child = build(b, child);
            let kind: NodeKind<Probe, ()> = match *deco {
                Deco::Inverter => nodes::Inverter.into(),
                Deco::ForceSuccess => nodes::ForceSuccess.into(),
                Deco::ForceFailure => nodes::ForceFailure.into(),
                Deco::Repeat(times) => nodes::Repeat { times }.into(),
                Deco::Retry(times) => nodes::Retry { times }.into(),
                Deco::Guard(s) => nodes::Guard(predicate(s)).into(),
                Deco::ReactiveGuard(s) => nodes::ReactiveGuard(predicate(s)).into(),
                Deco::Timeout(ticks) => nodes::Timeout { ticks }.into(),
                Deco::Cooldown(ticks) => nodes::Cooldown { ticks }.into(),
                Deco::RunOnce(then) => nodes::RunOnce { then }.into(),
            };
            b.node("deco", kind, [child])
        }
        Spec::Composite(comp, children) => {
            let children: Vec<_> = children.iter().map(|c| build(b, c)).collect();
            let kind = comp_kind(*comp, children.len());
            b.node("comp", kind, children)
        }
        Spec::Shared(comp, child) => {
            let child = build(b, child);
            b.node("shared", comp_kind(*comp, 2), [child, child])
        }
        &Spec::Async(seed) => b.async_action(&format!("async{seed}"), move |cx, ticket| {
            let r = roll(seed, cx.id, cx.tick, cx.agent.calls);
            cx.agent.call();
            cx.agent.trace = mix(cx.agent.trace ^ ((seed as u64) << 32) ^ cx.tick as u64);
            match r % 5 {
                0 => Status::Success,
                1 => Status::Failure,
                k => {
                    let outcome = [Status::Success, Status::Failure][(r >> 8) as usize % 2];
                    let at = cx.tick + k as u32 - 1 + (r >> 16) as u32 % 4;
                    cx.agent.pending.push((ticket, at, outcome));
                    Status::Running
                }
            }
        }),
        &Spec::CustomLeaf(seed) => b.custom(&format!("count{seed}"), Countdown(seed), []),
        Spec::CustomNode(children) => {
            let children: Vec<_> = children.iter().map(|c| build(b, c)).collect();
            b.custom("round", RoundRobin, children)
        }
    }
}

/// A custom leaf: runs for `seed % 4` more updates, calling the agent each time.
pub(crate) struct Countdown(pub u32);

impl Node<Probe, ()> for Countdown {
    type Task = u32;
    fn create_task(&self, cx: &mut Ctx<Probe, ()>) -> u32 {
        (roll(self.0, cx.id, cx.tick, cx.agent.calls) % 4) as u32
    }
    fn update(
        &self,
        left: &mut u32,
        cx: &mut Ctx<Probe, ()>,
        _: &mut Children<Probe, ()>,
    ) -> Status {
        cx.agent.call();
        cx.agent.trace = mix(cx.agent.trace ^ ((self.0 as u64) << 20) ^ cx.tick as u64);
        if *left == 0 {
            return Status::Success;
        }
        *left -= 1;
        Status::Running
    }
}

/// A custom composite: each update runs one child, taking turns; succeeds
/// after each child has succeeded once in turn, fails when one fails.
pub(crate) struct RoundRobin;

impl Node<Probe, ()> for RoundRobin {
    type Task = u32;
    fn arity(&self) -> Arity {
        Arity::Composite
    }
    fn create_task(&self, _: &mut Ctx<Probe, ()>) -> u32 {
        0
    }
    fn update(
        &self,
        next: &mut u32,
        cx: &mut Ctx<Probe, ()>,
        children: &mut Children<Probe, ()>,
    ) -> Status {
        if children.is_empty() {
            return Status::Success;
        }
        // Any task value picks a child: a task restored from damaged bytes
        // is the user's to make sense of, and this one makes do.
        match children.update(*next as usize % children.len(), cx) {
            Status::Running => Status::Running,
            Status::Failure => Status::Failure,
            Status::Success => {
                *next += 1;
                if *next as usize == children.len() {
                    Status::Success
                } else {
                    Status::Running
                }
            }
        }
    }
}

/// A Utility over `n` children, its parameters drawn from `seed`, each
/// child scored by one input — a pure function of the agent's id, the tick
/// and the child — through a curve of each shape in turn.
fn utility(seed: u64, n: usize) -> nodes::Utility<Probe, ()> {
    let curve = |k: u64| match k % 5 {
        0 => nodes::Curve::IDENTITY,
        1 => nodes::Curve::Linear {
            slope: -1.0,
            shift: 1.0,
        },
        2 => nodes::Curve::Polynomial {
            exponent: 2.0,
            slope: 1.0,
            shift: 0.0,
        },
        3 => nodes::Curve::Logistic {
            steepness: 8.0,
            midpoint: 0.5,
        },
        _ => nodes::Curve::Piecewise(vec![(0.0, 1.0), (0.5, 0.25), (1.0, 0.75)].into()),
    };
    let choices = (0..n as u64)
        .map(|i| {
            let k = mix(seed ^ i);
            let input = nodes::Scorer::new("roll", move |cx: &Ctx<Probe, ()>| {
                (roll(k as u32, cx.id, cx.tick, 0) % 1000) as f32 / 1000.0
            });
            nodes::Choice::new(vec![nodes::Consideration {
                input,
                curve: curve(k >> 32),
            }])
        })
        .collect();
    let mut utility = nodes::Utility::new(choices);
    utility.pick = [nodes::Pick::Highest, nodes::Pick::Weighted][(seed & 1) as usize];
    utility.combine = [
        nodes::Combine::Product,
        nodes::Combine::Min,
        nodes::Combine::Max,
    ][(seed >> 1) as usize % 3];
    utility.inertia = [0.0, 0.125, 0.375][(seed >> 3) as usize % 3];
    utility.threshold = [0.0, 0.25][(seed >> 5) as usize % 2];
    utility.every = (seed >> 6) as u32 % 4;
    utility.salt = seed;
    utility
}

/// The kind of a composite of `children` children.
pub(crate) fn comp_kind(comp: Comp, children: usize) -> NodeKind<Probe, ()> {
    match comp {
        Comp::Sequence => nodes::Sequence.into(),
        Comp::Selector => nodes::Selector.into(),
        Comp::SequenceWithMemory => nodes::SequenceWithMemory::default().into(),
        Comp::ReactiveSequence => nodes::ReactiveSequence.into(),
        Comp::ReactiveSelector => nodes::ReactiveSelector.into(),
        Comp::Parallel(success, failure) => nodes::Parallel { success, failure }.into(),
        Comp::Shuffle(like, salt) => nodes::Shuffle { like, salt }.into(),
        Comp::Utility(seed) => utility(seed, children).into(),
    }
}

pub(crate) fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![Just(Policy::One), Just(Policy::All)]
}

/// A composite; Utilities too when `utility` (the flat engine has none).
pub(crate) fn comp(utility: bool) -> impl Strategy<Value = Comp> {
    let utilities = if utility { 2 } else { 0 };
    prop_oneof![
        utilities => any::<u64>().prop_map(Comp::Utility),
        2 => Just(Comp::Sequence),
        2 => Just(Comp::Selector),
        2 => Just(Comp::SequenceWithMemory),
        2 => Just(Comp::ReactiveSequence),
        2 => Just(Comp::ReactiveSelector),
        2 => (policy(), policy()).prop_map(|(s, f)| Comp::Parallel(s, f)),
        2 => (
            prop_oneof![Just(nodes::Like::Sequence), Just(nodes::Like::Selector)],
            any::<u64>()
        )
            .prop_map(|(like, salt)| Comp::Shuffle(like, salt)),
    ]
}

pub(crate) fn deco() -> impl Strategy<Value = Deco> {
    prop_oneof![
        Just(Deco::Inverter),
        Just(Deco::ForceSuccess),
        Just(Deco::ForceFailure),
        (1u32..4).prop_map(Deco::Repeat),
        (1u32..4).prop_map(Deco::Retry),
        any::<u32>().prop_map(Deco::Guard),
        any::<u32>().prop_map(Deco::ReactiveGuard),
        (1u32..6).prop_map(Deco::Timeout),
        (1u32..6).prop_map(Deco::Cooldown),
        prop_oneof![
            Just(Afterwards::Same),
            Just(Afterwards::Success),
            Just(Afterwards::Failure)
        ]
        .prop_map(Deco::RunOnce),
    ]
}

/// Random trees over every built-in node kind; with `extended`, also
/// async leaves and custom nodes (which the naive interpreter lacks).
pub(crate) fn spec(extended: bool) -> impl Strategy<Value = Spec> {
    spec_of(extended, extended)
}

/// A random tree: with async leaves and user nodes when `extended`, with
/// Utilities when `utility`.
pub(crate) fn spec_of(extended: bool, utility: bool) -> impl Strategy<Value = Spec> {
    let extra = if extended { 2 } else { 0 };
    let leaf = prop_oneof![
        4 => any::<u32>().prop_map(Spec::Action),
        2 => any::<u32>().prop_map(Spec::Condition),
        1 => prop_oneof![Just(Status::Success), Just(Status::Failure), Just(Status::Running)]
            .prop_map(Spec::Constant),
        2 => (0u32..4).prop_map(Spec::Wait),
        extra => any::<u32>().prop_map(Spec::Async),
        extra / 2 => any::<u32>().prop_map(Spec::CustomLeaf),
    ];
    leaf.prop_recursive(6, 64, 4, move |inner| {
        prop_oneof![
            extra / 2 => prop::collection::vec(inner.clone(), 0..4).prop_map(Spec::CustomNode),
            3 => (deco(), inner.clone()).prop_map(|(d, c)| Spec::Decorator(d, Box::new(c))),
            4 => (comp(utility), prop::collection::vec(inner.clone(), 0..7)).prop_filter_map(
                "a Parallel needs children",
                |(c, kids)| match c {
                    Comp::Parallel(..) if kids.is_empty() => None,
                    _ => Some(Spec::Composite(c, kids)),
                },
            ),
            1 => (comp(utility), inner).prop_map(|(c, k)| Spec::Shared(c, Box::new(k))),
        ]
    })
}

/// Records every event as (tick, node, kind) for comparing pools.
#[derive(Default)]
pub(crate) struct Events(pub Vec<Event>);

impl Observer for Events {
    fn event(&mut self, e: Event) {
        self.0.push(e);
    }
}
