//! The flat interpreter must be canopy, exactly: on the reference tree and
//! on random trees of every built-in kind, the same root status for every
//! agent at every tick, the same leaf calls in the same order, and the same
//! enter, update, exit and abort events.

mod common;

use std::cell::RefCell;

use canopy_core::{
    Agent, Builder, Ctx, Draft, Event, EventKind, NodeKind, Observer, Status, Tree,
    inspect::NodeRef,
};
use canopy_reference::flat::{Def, FlatCrowd, FlatError, FlatLeaf, FlatTree, Trace};
use canopy_reference::{Critter, Leaf, Meadow, Outcome, critters, flat, reference_tree};
use common::{Comp, Deco, Probe, Spec, build, spec};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Shapes: the flat tree is the canopy tree, node for node.

/// Check that flat node `i` and canopy node `node` are the same subtree
/// (names, kinds, parameters, children), and record for each flat node the
/// canopy node it stands for. A subtree canopy shares is expanded in the
/// flat tree, so several flat nodes may stand for one canopy node.
fn map_nodes<L, A, W>(flat: &FlatTree<L>, i: usize, node: NodeRef<'_, A, W>, ids: &mut [usize]) {
    assert_eq!(flat.name(i), node.name(), "flat node {i}");
    let expected = match node.kind() {
        // Flat guards have no label.
        NodeKind::Guard(_) | NodeKind::ReactiveGuard(_) => node.type_name().to_string(),
        kind => format!("{kind:?}"),
    };
    assert_eq!(
        flat.describe(i),
        expected,
        "flat node {i} ({})",
        flat.name(i)
    );
    let kids = flat.children(i);
    assert_eq!(kids.len(), node.children().len(), "flat node {i}");
    ids[i] = node.id().index();
    for (k, child) in kids.zip(node.children()) {
        map_nodes(flat, k, child, ids);
    }
}

fn node_ids<L, A, W>(flat: &FlatTree<L>, tree: &Tree<A, W>) -> Vec<usize> {
    let mut ids = vec![usize::MAX; flat.len()];
    map_nodes(flat, 0, tree.node(tree.root()), &mut ids);
    assert!(
        ids.iter().all(|&id| id != usize::MAX),
        "unreached flat nodes"
    );
    ids
}

/// The condition leaf of each guard of the reference tree (canopy guards
/// hold closures, which cannot be compared).
fn guard_leaf(name: &str) -> Leaf {
    match name {
        "remembered" => Leaf::KnowsFood,
        "go rest" => Leaf::StillTired,
        other => panic!("the reference tree has no guard {other:?}"),
    }
}

#[test]
fn reference_mirrors_the_canopy_reference_tree() {
    let (flat, tree) = (flat::reference(), reference_tree());
    assert_eq!((flat.len(), tree.len()), (39, 39));
    let ids = node_ids(&flat, &tree);
    for (i, &id) in ids.iter().enumerate() {
        let node = tree.nodes().nth(id).unwrap();
        let expected = match node.kind() {
            NodeKind::Action(_) | NodeKind::Condition(_) => Leaf::from_name(node.name()),
            NodeKind::Guard(_) | NodeKind::ReactiveGuard(_) => Some(guard_leaf(node.name())),
            _ => None,
        };
        assert_eq!(flat.leaf(i).copied(), expected, "flat node {i}");
    }
    // Each canopy node exactly once: the reference tree shares nothing.
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..39).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------
// The reference tree: 300 critters, 800 ticks.

/// Root statuses and critters after every tick, on plain critters.
#[test]
fn reference_gives_canopys_statuses_and_critters() {
    let (flat, tree) = (flat::reference(), reference_tree());
    let n = 300;
    let mut meadow = Meadow::new(128);
    let mut canopy_crowd = critters(n, 11, &meadow);
    let mut flat_crowd = canopy_crowd.clone();
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
    let mut states = FlatCrowd::new(&flat, n);
    let mut seen = [0usize; 3];
    for tick in 1..=800 {
        let flat_states = states.agents_mut().zip(&mut flat_crowd);
        for (i, ((agent, c), (state, f))) in agents
            .iter_mut()
            .zip(&mut canopy_crowd)
            .zip(flat_states)
            .enumerate()
        {
            let expected = agent.tick(&tree, c, &meadow);
            let got = flat.tick(state, i as u32, f, &meadow);
            assert_eq!(got, expected, "agent {i}, tick {tick}");
            assert_eq!(f, c, "agent {i}, tick {tick}");
            seen[expected as usize] += 1;
        }
        meadow.advance();
    }
    // Not vacuous: every branch ran, and the root both ran and finished
    // (the idle branch cannot fail, so neither can the root).
    assert!(canopy_crowd.iter().any(|c| c.shouts > 0), "nobody fled");
    assert!(canopy_crowd.iter().any(|c| c.bites > 0), "nobody ate");
    assert!(canopy_crowd.iter().any(|c| c.naps > 0), "nobody slept");
    assert!(canopy_crowd.iter().any(|c| c.waves > 0), "nobody chatted");
    let count = |s: Status| seen[s as usize];
    assert!(count(Status::Running) > 0 && count(Status::Success) > 0);
    assert_eq!(count(Status::Failure), 0);
}

/// A critter that writes down every leaf call, conditions included.
#[derive(Clone)]
struct Traced {
    critter: Critter,
    calls: RefCell<Vec<Leaf>>,
}

fn outcome(o: Outcome) -> Status {
    match o {
        Outcome::Running => Status::Running,
        Outcome::Success => Status::Success,
        Outcome::Failure => Status::Failure,
    }
}

/// A condition: conditions only read the critter, so a copy will do.
fn traced_check(leaf: Leaf, cx: &Ctx<Traced, Meadow>) -> bool {
    cx.agent.calls.borrow_mut().push(leaf);
    leaf.run(&mut cx.agent.critter.clone(), cx.world) == Outcome::Success
}

fn traced_act(leaf: Leaf, cx: &mut Ctx<Traced, Meadow>) -> Status {
    cx.agent.calls.get_mut().push(leaf);
    outcome(leaf.run(&mut cx.agent.critter, cx.world))
}

/// The flat side's traced leaf.
#[derive(Clone, Copy)]
struct Rec(Leaf);

impl FlatLeaf<Traced, Meadow> for Rec {
    fn act(&self, cx: &mut Ctx<'_, Traced, Meadow>) -> Status {
        traced_act(self.0, cx)
    }
    fn check(&self, cx: &mut Ctx<'_, Traced, Meadow>) -> bool {
        traced_check(self.0, cx)
    }
}

/// The canopy reference tree, node for node, with leaves that record
/// their calls in the agent data.
fn rehost<'b>(
    b: &'b Builder<'b, Traced, Meadow>,
    node: NodeRef<'_, Critter, Meadow>,
) -> &'b Draft<'b, Traced, Meadow> {
    let kids: Vec<_> = node.children().map(|c| rehost(b, c)).collect();
    let name = node.name();
    let leaf = || Leaf::from_name(name).expect("a reference leaf");
    let kind = match node.kind() {
        NodeKind::Action(_) => {
            let leaf = leaf();
            return b.action(name, move |cx| traced_act(leaf, cx));
        }
        NodeKind::Condition(_) => {
            let leaf = leaf();
            return b.condition(name, move |cx| traced_check(leaf, cx));
        }
        NodeKind::Guard(_) => {
            let leaf = guard_leaf(name);
            return b.guard(name, move |cx| traced_check(leaf, cx), kids[0]);
        }
        NodeKind::ReactiveGuard(_) => {
            let leaf = guard_leaf(name);
            return b.reactive_guard(name, move |cx| traced_check(leaf, cx), kids[0]);
        }
        // Every other kind holds no code: the same kind.
        kind => kind.for_types().expect("a kind without code"),
    };
    b.node(name, kind, kids)
}

/// Events of one agent-tick as (canopy node, kind).
#[derive(Default)]
struct CanopyEvents(Vec<(usize, EventKind)>);

impl Observer for CanopyEvents {
    fn event(&mut self, e: Event) {
        self.0.push((e.node.index(), e.kind));
    }
}

/// The flat side's events, translated to canopy nodes.
struct FlatEvents<'i> {
    ids: &'i [usize],
    events: Vec<(usize, EventKind)>,
}

impl Trace for FlatEvents<'_> {
    fn event(&mut self, node: usize, kind: EventKind) {
        self.events.push((self.ids[node], kind));
    }
}

/// Leaf calls (guards' conditions included) and events, every agent, every
/// tick.
#[test]
fn reference_makes_canopys_leaf_calls_and_events() {
    let original = reference_tree();
    let b = Builder::new();
    let tree = b.build(rehost(&b, original.node(original.root()))).unwrap();
    let flat = flat::reference().map_leaves(Rec);
    let ids = node_ids(&flat, &tree);

    let n = 300;
    let mut meadow = Meadow::new(128);
    let crowd: Vec<Traced> = critters(n, 11, &meadow)
        .into_iter()
        .map(|critter| Traced {
            critter,
            calls: RefCell::new(Vec::new()),
        })
        .collect();
    let (mut canopy_crowd, mut flat_crowd) = (crowd.clone(), crowd);
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
    let mut states = FlatCrowd::new(&flat, n);
    let mut observed = CanopyEvents::default();
    let mut traced = FlatEvents {
        ids: &ids,
        events: Vec::new(),
    };
    let (mut calls, mut aborts) = (0, 0);
    for tick in 1..=800 {
        let flat_states = states.agents_mut().zip(&mut flat_crowd);
        for (i, ((agent, c), (state, f))) in agents
            .iter_mut()
            .zip(&mut canopy_crowd)
            .zip(flat_states)
            .enumerate()
        {
            let expected = agent.tick_observed(&tree, c, &meadow, &mut observed);
            let got = flat.tick_traced(state, i as u32, f, &meadow, &mut traced);
            assert_eq!(got, expected, "agent {i}, tick {tick}");
            assert_eq!(f.calls, c.calls, "leaf calls of agent {i}, tick {tick}");
            assert_eq!(
                traced.events, observed.0,
                "events of agent {i}, tick {tick}"
            );
            calls += c.calls.get_mut().len();
            aborts += observed
                .0
                .iter()
                .filter(|e| e.1 == EventKind::Abort)
                .count();
            c.calls.get_mut().clear();
            f.calls.get_mut().clear();
            observed.0.clear();
            traced.events.clear();
        }
        meadow.advance();
    }
    assert!(calls > 300 * 800, "only {calls} leaf calls");
    assert!(aborts > 1000, "only {aborts} aborts");
}

// ---------------------------------------------------------------------------
// Random trees with scripted leaves.

/// The flat side's scripted leaves: the very functions canopy's closures call.
#[derive(Clone, Copy, Debug)]
enum Script {
    Act(u32),
    Check(u32),
    Guard(u32),
}

impl FlatLeaf<Probe, ()> for Script {
    fn act(&self, cx: &mut Ctx<'_, Probe, ()>) -> Status {
        match *self {
            Script::Act(seed) => common::act(seed, cx),
            other => panic!("{other:?} is not an action"),
        }
    }
    fn check(&self, cx: &mut Ctx<'_, Probe, ()>) -> bool {
        match *self {
            Script::Check(seed) => common::check(seed, cx),
            Script::Guard(seed) => common::guard_check(seed, cx),
            Script::Act(_) => panic!("an action is not a condition"),
        }
    }
}

fn composite(name: &str, comp: Comp, kids: Vec<Def<Script>>) -> Def<Script> {
    match comp {
        Comp::Sequence => Def::sequence(name, kids),
        Comp::Selector => Def::selector(name, kids),
        Comp::SequenceWithMemory => Def::sequence_with_memory(name, kids),
        Comp::ReactiveSequence => Def::reactive_sequence(name, kids),
        Comp::ReactiveSelector => Def::reactive_selector(name, kids),
        Comp::Parallel(success, failure) => Def::parallel(name, success, failure, kids),
        Comp::Shuffle(like, salt) => Def::shuffle(name, like, salt, kids),
        Comp::Utility(_) => unreachable!("spec(false) makes no Utility: the flat engine has none"),
    }
}

fn decorator(deco: Deco, child: Def<Script>) -> Def<Script> {
    let name = "deco";
    match deco {
        Deco::Inverter => Def::inverter(name, child),
        Deco::ForceSuccess => Def::force_success(name, child),
        Deco::ForceFailure => Def::force_failure(name, child),
        Deco::Repeat(n) => Def::repeat(name, n, child),
        Deco::Retry(n) => Def::retry(name, n, child),
        Deco::Guard(seed) => Def::guard(name, Script::Guard(seed), child),
        Deco::ReactiveGuard(seed) => Def::reactive_guard(name, Script::Guard(seed), child),
        Deco::Timeout(n) => Def::timeout(name, n, child),
        Deco::Cooldown(n) => Def::cooldown(name, n, child),
        Deco::RunOnce(then) => Def::run_once(name, then, child),
    }
}

/// The flat description of a random tree, named as `common::build` names
/// canopy's nodes.
fn def(spec: &Spec) -> Def<Script> {
    match spec {
        &Spec::Action(seed) => Def::action(&format!("a{seed}"), Script::Act(seed)),
        &Spec::Condition(seed) => Def::condition(&format!("c{seed}"), Script::Check(seed)),
        Spec::Constant(Status::Success) => Def::always_success("yes"),
        Spec::Constant(Status::Failure) => Def::always_failure("no"),
        Spec::Constant(Status::Running) => Def::always_running("busy"),
        &Spec::Wait(n) => Def::wait("wait", n),
        Spec::Decorator(deco, child) => decorator(*deco, def(child)),
        Spec::Composite(comp, kids) => composite("comp", *comp, kids.iter().map(def).collect()),
        Spec::Shared(comp, kid) => {
            let kid = def(kid);
            composite("shared", *comp, vec![kid.clone(), kid])
        }
        Spec::Async(_) | Spec::CustomLeaf(_) | Spec::CustomNode(_) => {
            panic!("the flat interpreter has no async or custom nodes")
        }
    }
}

/// Whether the flat interpreter has every node of `spec`. Random trees
/// without async or custom nodes always qualify; this keeps shrinking from
/// wandering into those kinds.
fn built_in(spec: &Spec) -> bool {
    match spec {
        Spec::Async(_) | Spec::CustomLeaf(_) | Spec::CustomNode(_) => false,
        Spec::Decorator(_, child) | Spec::Shared(_, child) => built_in(child),
        Spec::Composite(_, kids) => kids.iter().all(built_in),
        _ => true,
    }
}

/// What differs first between canopy and the flat interpreter on `spec`.
fn compare(spec: &Spec, agents: u32, ticks: u32) -> Result<(), TestCaseError> {
    let b = Builder::new();
    let tree = b.build(build(&b, spec)).unwrap();
    let flat = FlatTree::build(&def(spec)).unwrap();
    let ids = node_ids(&flat, &tree);
    let mut canopy: Vec<(Agent, Probe)> = (0..agents)
        .map(|i| (Agent::with_id(&tree, i), Probe::default()))
        .collect();
    let mut flat_agents: Vec<(Vec<u32>, Probe)> = (0..agents)
        .map(|_| (flat.new_state(), Probe::default()))
        .collect();
    let mut observed = CanopyEvents::default();
    let mut traced = FlatEvents {
        ids: &ids,
        events: Vec::new(),
    };
    for tick in 1..=ticks {
        for (i, ((agent, c), (state, f))) in canopy.iter_mut().zip(&mut flat_agents).enumerate() {
            let expected = agent.tick_observed(&tree, c, &(), &mut observed);
            let got = flat.tick_traced(state, i as u32, f, &(), &mut traced);
            prop_assert_eq!(got, expected, "agent {}, tick {}", i, tick);
            prop_assert_eq!(&f.log, &c.log, "leaf calls of agent {}, tick {}", i, tick);
            prop_assert_eq!(
                &traced.events,
                &observed.0,
                "events of agent {}, tick {}",
                i,
                tick
            );
            prop_assert_eq!((f.trace, f.calls), (c.trace, c.calls));
            f.log.get_mut().clear();
            c.log.get_mut().clear();
            observed.0.clear();
            traced.events.clear();
        }
    }
    // Resetting aborts what runs, in the same order.
    for (i, ((agent, c), (state, f))) in canopy.iter_mut().zip(&mut flat_agents).enumerate() {
        agent.reset_observed(&tree, c, &(), &mut observed);
        flat.reset(state, i as u32, f, &(), &mut traced);
        prop_assert_eq!(&traced.events, &observed.0, "reset of agent {}", i);
        prop_assert!(state.iter().all(|&w| w == 0));
        observed.0.clear();
        traced.events.clear();
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_run_exactly_as_in_canopy(spec in spec(false)) {
        prop_assume!(built_in(&spec));
        compare(&spec, 3, 60)?;
    }
}

// ---------------------------------------------------------------------------
// Building.

#[test]
fn bad_descriptions_are_rejected_naming_the_node() {
    let ok = || Def::<Script>::always_success("ok");
    let cases = [
        (
            Def::parallel("p", canopy_core::Policy::One, canopy_core::Policy::All, []),
            "tree (name \"p\"): a Parallel needs at least one child, got 0",
        ),
        (
            Def::sequence("s", [ok(), Def::retry("r", 0, ok())]),
            "tree/children[1] (name \"r\"): a Retry needs a count of at least 1, got 0",
        ),
        (
            Def::inverter("i", Def::timeout("t", 0, ok())),
            "tree/children[0] (name \"t\"): a Timeout needs a duration of at least 1 tick, got 0",
        ),
        (
            Def::cooldown("c\n\u{7}", 0, ok()),
            "tree (name \"c\\n\\u{7}\"): a Cooldown needs a duration of at least 1 tick, got 0",
        ),
    ];
    for (def, message) in cases {
        assert_eq!(FlatTree::build(&def).unwrap_err().to_string(), message);
    }
    let long = "x".repeat(100);
    let err = FlatTree::build(&Def::<Script>::repeat(&long, 0, ok())).unwrap_err();
    assert_eq!(
        err,
        FlatError {
            path: "tree".to_string(),
            name: format!("\"{}…\" (100 characters)", "x".repeat(80)),
            problem: "a Repeat needs a count of at least 1, got 0".to_string(),
        }
    );
}

#[test]
fn too_deep_a_tree_is_rejected() {
    let mut def = Def::<Script>::always_success("leaf");
    for _ in 0..flat::MAX_DEPTH {
        def = Def::inverter("not", def);
    }
    let err = FlatTree::build(&def).unwrap_err();
    assert_eq!(err.problem, "the tree is deeper than 256 levels");
    assert_eq!(err.path.matches("children[0]").count(), 256);
}

#[test]
fn state_is_shared_by_children_that_never_run_together() {
    let wait = |n| Def::<Script>::wait("w", n);
    // Header (2) + sequence index (1) + one Wait's tick (1): the two Waits
    // share their word.
    let seq = FlatTree::build(&Def::sequence("s", [wait(1), wait(2)])).unwrap();
    assert_eq!(seq.words_per_agent(), 4);
    // A Parallel's children may run together: two bit words, two Waits.
    let par = Def::parallel(
        "p",
        canopy_core::Policy::All,
        canopy_core::Policy::All,
        [wait(1), wait(2)],
    );
    assert_eq!(FlatTree::build(&par).unwrap().words_per_agent(), 6);
    // A Cooldown's word is its own, apart from the shared task words.
    let cool = Def::sequence("s", [Def::cooldown("c", 3, wait(1)), wait(2)]);
    assert_eq!(FlatTree::build(&cool).unwrap().words_per_agent(), 5);
    assert_eq!(flat::reference().words_per_agent(), 19);
}

#[test]
#[should_panic(expected = "an agent's state must be the tree's words_per_agent() long")]
fn a_state_of_the_wrong_length_panics() {
    let tree = flat::reference();
    let meadow = Meadow::new(64);
    let mut critter = critters(1, 1, &meadow).remove(0);
    tree.tick(&mut [0; 3], 0, &mut critter, &meadow);
}
