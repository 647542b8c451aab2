//! Two independent implementations of the node semantics must agree: the
//! canopy engine (with every pool strategy) and the naive per-agent tree.
//! They share leaf code, so any difference in statuses, in which leaves ran
//! or in what the leaves did is a semantic or memory-layout bug.

use canopy_core::pool::{BoxPool, BumpPool, FreeListPool, InlinePool, SharedPool, TaskPool};
use canopy_core::{
    Agent, Builder, Draft, Event, NodeKind, Observer, Policy, Predicate, Status, Tree,
};
use canopy_reference::naive::NaiveAgent;
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// The reference tree, many agents, many ticks.

fn run_reference<P: TaskPool>(
    tree: &Tree<Critter, Meadow>,
    n: usize,
    ticks: usize,
) -> (Vec<Vec<Status>>, Vec<Critter>) {
    let mut meadow = Meadow::new(128);
    let mut crowd = critters(n, 11, &meadow);
    let mut agents: Vec<Agent<P>> = (0..n as u32).map(|i| Agent::for_tree(tree, i)).collect();
    let mut statuses = vec![Vec::with_capacity(ticks); n];
    for _ in 0..ticks {
        for (i, (agent, critter)) in agents.iter_mut().zip(&mut crowd).enumerate() {
            statuses[i].push(agent.tick(tree, critter, &meadow));
        }
        meadow.advance();
    }
    (statuses, crowd)
}

#[test]
fn reference_tree_agrees_with_naive_baseline_on_every_pool() {
    let tree = reference_tree();
    let (n, ticks) = (300, 800);

    let mut meadow = Meadow::new(128);
    let mut crowd = critters(n, 11, &meadow);
    let mut naive: Vec<NaiveAgent<Critter, Meadow>> = (0..n as u32)
        .map(|i| NaiveAgent::new(&tree, i).unwrap())
        .collect();
    let mut expected = vec![Vec::with_capacity(ticks); n];
    for _ in 0..ticks {
        for (i, (agent, critter)) in naive.iter_mut().zip(&mut crowd).enumerate() {
            expected[i].push(agent.tick(critter, &meadow));
        }
        meadow.advance();
    }

    // The run exercises every branch, so agreement means something.
    assert!(crowd.iter().any(|c| c.shouts > 0), "nobody fled");
    assert!(crowd.iter().any(|c| c.bites > 0), "nobody ate");
    assert!(crowd.iter().any(|c| c.naps > 0), "nobody slept");
    assert!(crowd.iter().any(|c| c.waves > 0), "nobody chatted");
    let flat: Vec<Status> = expected.iter().flatten().copied().collect();
    // The idle branch cannot fail, so neither can the root.
    for s in [Status::Running, Status::Success] {
        assert!(flat.contains(&s), "root never returned {s}");
    }

    assert_eq!(
        run_reference::<InlinePool>(&tree, n, ticks),
        (expected.clone(), crowd.clone())
    );
    assert_eq!(
        run_reference::<FreeListPool>(&tree, n, ticks),
        (expected.clone(), crowd.clone())
    );
    assert_eq!(
        run_reference::<BoxPool>(&tree, n, ticks),
        (expected.clone(), crowd.clone())
    );
    assert_eq!(
        run_reference::<SharedPool>(&tree, n, ticks),
        (expected.clone(), crowd.clone())
    );
    assert_eq!(
        run_reference::<BumpPool>(&tree, n, ticks),
        (expected, crowd)
    );
}

// ---------------------------------------------------------------------------
// Random trees with scripted leaves.

/// Agent data for random trees: a running hash of which leaf ran at which
/// tick, so two runs agree only if they called the same leaves in the same order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Probe {
    trace: u64,
    calls: u32,
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A leaf's outcome: a pure function of its seed, the agent, the tick and
/// how many leaves this agent has run, so it varies but replays exactly.
fn roll(seed: u32, id: u32, tick: u32, calls: u32) -> u64 {
    mix(((seed as u64) << 40) ^ ((id as u64) << 32) ^ ((tick as u64) << 12) ^ calls as u64)
}

#[derive(Clone, Debug)]
enum Spec {
    Action(u32),
    Condition(u32),
    Constant(Status),
    Wait(u32),
    Decorator(Deco, Box<Spec>),
    Composite(Comp, Vec<Spec>),
    /// One child definition used twice under the same composite.
    Shared(Comp, Box<Spec>),
}

#[derive(Clone, Copy, Debug)]
enum Deco {
    Inverter,
    ForceSuccess,
    ForceFailure,
    Repeat(u32),
    Retry(u32),
    Guard(u32),
    ReactiveGuard(u32),
    Timeout(u32),
    Cooldown(u32),
}

#[derive(Clone, Copy, Debug)]
enum Comp {
    Sequence,
    Selector,
    ReactiveSequence,
    ReactiveSelector,
    Parallel(Policy, Policy),
}

fn predicate(seed: u32) -> Predicate<Probe, ()> {
    Predicate::<Probe, ()>::new(format!("p{seed}"), move |cx| {
        !roll(seed, cx.id, cx.tick, cx.agent.calls).is_multiple_of(3)
    })
}

fn build<'b>(b: &'b Builder<'b, Probe, ()>, spec: &Spec) -> &'b Draft<'b, Probe, ()> {
    match spec {
        &Spec::Action(seed) => b.action(&format!("a{seed}"), move |cx| {
            let r = roll(seed, cx.id, cx.tick, cx.agent.calls);
            cx.agent.calls += 1;
            cx.agent.trace = mix(cx.agent.trace ^ ((seed as u64) << 32) ^ cx.tick as u64);
            [Status::Running, Status::Success, Status::Failure][(r % 3) as usize]
        }),
        &Spec::Condition(seed) => b.condition(&format!("c{seed}"), move |cx| {
            roll(seed, cx.id, cx.tick, cx.agent.calls).is_multiple_of(2)
        }),
        Spec::Constant(Status::Success) => b.always_success("yes"),
        Spec::Constant(Status::Failure) => b.always_failure("no"),
        Spec::Constant(Status::Running) => b.always_running("busy"),
        &Spec::Wait(n) => b.wait("wait", n),
        Spec::Decorator(deco, child) => {
            let child = build(b, child);
            let kind = match *deco {
                Deco::Inverter => NodeKind::Inverter,
                Deco::ForceSuccess => NodeKind::ForceSuccess,
                Deco::ForceFailure => NodeKind::ForceFailure,
                Deco::Repeat(n) => NodeKind::Repeat(n),
                Deco::Retry(n) => NodeKind::Retry(n),
                Deco::Guard(s) => NodeKind::Guard(predicate(s)),
                Deco::ReactiveGuard(s) => NodeKind::ReactiveGuard(predicate(s)),
                Deco::Timeout(n) => NodeKind::Timeout(n),
                Deco::Cooldown(n) => NodeKind::Cooldown(n),
            };
            b.node("deco", kind, [child])
        }
        Spec::Composite(comp, children) => {
            let children: Vec<_> = children.iter().map(|c| build(b, c)).collect();
            b.node("comp", comp_kind(*comp), children)
        }
        Spec::Shared(comp, child) => {
            let child = build(b, child);
            b.node("shared", comp_kind(*comp), [child, child])
        }
    }
}

fn comp_kind(comp: Comp) -> NodeKind<Probe, ()> {
    match comp {
        Comp::Sequence => NodeKind::Sequence,
        Comp::Selector => NodeKind::Selector,
        Comp::ReactiveSequence => NodeKind::ReactiveSequence,
        Comp::ReactiveSelector => NodeKind::ReactiveSelector,
        Comp::Parallel(success, failure) => NodeKind::Parallel { success, failure },
    }
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![Just(Policy::One), Just(Policy::All)]
}

fn comp() -> impl Strategy<Value = Comp> {
    prop_oneof![
        Just(Comp::Sequence),
        Just(Comp::Selector),
        Just(Comp::ReactiveSequence),
        Just(Comp::ReactiveSelector),
        (policy(), policy()).prop_map(|(s, f)| Comp::Parallel(s, f)),
    ]
}

fn deco() -> impl Strategy<Value = Deco> {
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
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        4 => any::<u32>().prop_map(Spec::Action),
        2 => any::<u32>().prop_map(Spec::Condition),
        1 => prop_oneof![Just(Status::Success), Just(Status::Failure), Just(Status::Running)]
            .prop_map(Spec::Constant),
        1 => (0u32..4).prop_map(Spec::Wait),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            3 => (deco(), inner.clone()).prop_map(|(d, c)| Spec::Decorator(d, Box::new(c))),
            4 => (comp(), prop::collection::vec(inner.clone(), 0..7)).prop_filter_map(
                "a Parallel needs children",
                |(c, kids)| match c {
                    Comp::Parallel(..) if kids.is_empty() => None,
                    _ => Some(Spec::Composite(c, kids)),
                },
            ),
            1 => (comp(), inner).prop_map(|(c, k)| Spec::Shared(c, Box::new(k))),
        ]
    })
}

/// Records every event as (tick, node, kind) for comparing pools.
#[derive(Default)]
struct Events(Vec<Event>);

impl Observer for Events {
    fn event(&mut self, e: Event) {
        self.0.push(e);
    }
}

type Run = (Vec<Status>, Vec<Probe>);

fn run_canopy<P: TaskPool>(
    tree: &Tree<Probe, ()>,
    agents: u32,
    ticks: usize,
) -> (Run, Vec<Event>, usize) {
    let mut probes = vec![Probe::default(); agents as usize];
    let mut rt: Vec<Agent<P>> = (0..agents).map(|i| Agent::for_tree(tree, i)).collect();
    let mut statuses = Vec::new();
    let mut events = Events::default();
    for _ in 0..ticks {
        for (agent, probe) in rt.iter_mut().zip(&mut probes) {
            statuses.push(agent.tick_observed(tree, probe, &(), &mut events));
        }
    }
    let active = rt.iter().map(|a| a.active_tasks()).sum();
    for (agent, probe) in rt.iter_mut().zip(&mut probes) {
        agent.reset_observed(tree, probe, &(), &mut events);
        assert_eq!(agent.active_tasks(), 0);
    }
    ((statuses, probes), events.0, active)
}

fn run_naive(tree: &Tree<Probe, ()>, agents: u32, ticks: usize) -> Run {
    let mut probes = vec![Probe::default(); agents as usize];
    let mut rt: Vec<NaiveAgent<Probe, ()>> = (0..agents)
        .map(|i| NaiveAgent::new(tree, i).unwrap())
        .collect();
    let mut statuses = Vec::new();
    for _ in 0..ticks {
        for (agent, probe) in rt.iter_mut().zip(&mut probes) {
            statuses.push(agent.tick(probe, &()));
        }
    }
    (statuses, probes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_agree_across_engines_and_pools(spec in spec()) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let (agents, ticks) = (3, 40);
        let expected = run_naive(&tree, agents, ticks);
        let (run, events, active) = run_canopy::<InlinePool>(&tree, agents, ticks);
        prop_assert_eq!(&run, &expected);

        // Enter/exit/abort events balance: every installed task ends once.
        let enters = events.iter().filter(|e| e.kind == canopy_core::EventKind::Enter).count();
        let ends = events.iter().filter(|e| matches!(e.kind, canopy_core::EventKind::Exit(_) | canopy_core::EventKind::Abort)).count();
        prop_assert_eq!(enters, ends);

        for (name, other) in [
            ("free-list", run_canopy::<FreeListPool>(&tree, agents, ticks)),
            ("box", run_canopy::<BoxPool>(&tree, agents, ticks)),
            ("object-pool", run_canopy::<SharedPool>(&tree, agents, ticks)),
            ("bumpalo", run_canopy::<BumpPool>(&tree, agents, ticks)),
        ] {
            prop_assert_eq!(&other.0, &expected, "pool {}", name);
            prop_assert_eq!(&other.1, &events, "pool {} events", name);
            prop_assert_eq!(other.2, active, "pool {} active tasks", name);
        }
    }
}
