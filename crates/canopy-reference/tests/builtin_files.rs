//! Tree files of built-in node types only, read for the flat interpreter
//! (`flat::read_builtin`), must run exactly as canopy loads and runs them:
//! the same root status for every agent at every tick and the same enter,
//! update, exit and abort events. `Random` and `Chance` draw from the
//! loader's salts, so this also checks that both count nodes alike.

use canopy_core::{Agent, Event, EventKind, Observer, Tree, inspect::NodeRef};
use canopy_data::{Format, Registry, TreeSource};
use canopy_reference::flat::{self, Builtin, FlatTree, Trace};

/// `examples/trees/random35.json`: 35 nodes over `Random`.
const RANDOM35: &str = include_str!("../../../examples/trees/random35.json");

/// `trees/deep12.json`: Sequence and Selector alternating 12 levels deep,
/// each level padded with an `AlwaysSuccess` or `AlwaysFailure` before the
/// next, over a `Random` leaf that runs nine ticks in ten.
const DEEP12: &str = include_str!("../trees/deep12.json");

/// `trees/wide16.json`: a Selector over 16 Sequences, each a padding
/// `AlwaysSuccess` and a `Random` leaf; the first 15 mostly fail.
const WIDE16: &str = include_str!("../trees/wide16.json");

/// Every built-in leaf the flat interpreter reads, a guard's condition, and
/// a subtree referred to twice (one draft, so one set of salts).
const LEAVES: &str = r#"{
  "tree": {"type": "ReactiveSelector", "name": "root", "children": [
    {"type": "ReactiveSequence", "name": "respond", "children": [
      {"type": "Chance", "name": "alarm?", "p": 0.15},
      {"type": "SubTree", "tree": "Fight"}
    ]},
    {"type": "Sequence", "name": "patrol", "children": [
      {"type": "Wait", "name": "walk", "ticks": 3},
      {"type": "Cooldown", "name": "rest cooldown", "ticks": 10, "children": [
        {"type": "Random", "name": "rest", "success": 0.3, "failure": 0.3}
      ]},
      {"type": "Guard", "name": "if daylight",
       "condition": {"type": "Periodic", "name": "daylight?", "period": 24, "on": 12, "offset": 5},
       "children": [{"type": "SubTree", "tree": "Fight"}]}
    ]}
  ]},
  "subtrees": {
    "Fight": {"type": "Parallel", "name": "fight", "success": "one", "failure": "all", "children": [
      {"type": "Timeout", "name": "give up", "ticks": 8, "children": [
        {"type": "Random", "name": "strike", "success": 0.2, "failure": 0.1}
      ]},
      {"type": "Retry", "name": "shout thrice", "times": 3, "children": [
        {"type": "Random", "name": "shout", "success": 0.5, "failure": 0.1}
      ]}
    ]}
  }
}"#;

/// For each flat node, the canopy node it stands for: the same names and
/// children, node for node (a shared subtree is expanded in the flat tree).
fn map_nodes(flat: &FlatTree<Builtin>, i: usize, node: NodeRef<'_, (), ()>, ids: &mut [usize]) {
    assert_eq!(flat.name(i), node.name(), "flat node {i}");
    let kids = flat.children(i);
    assert_eq!(kids.len(), node.children().len(), "flat node {i}");
    ids[i] = node.id().index();
    for (k, child) in kids.zip(node.children()) {
        map_nodes(flat, k, child, ids);
    }
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

/// Run `text` loaded by canopy and read by the flat interpreter side by
/// side, and return how many root statuses of each kind were seen, indexed
/// by `Status as usize` (so a test can tell the run did something).
fn run_side_by_side(text: &str, seed: u64, agents: u32, ticks: u32) -> [usize; 3] {
    let tree: Tree<(), ()> = Registry::new()
        .with_seed(seed)
        .loading(TreeSource::text(text, Format::Json, "tree.json"))
        .load()
        .unwrap();
    let flat = FlatTree::build(&flat::read_builtin(text, seed).unwrap()).unwrap();
    let mut ids = vec![usize::MAX; flat.len()];
    map_nodes(&flat, 0, tree.node(tree.root()), &mut ids);
    let mut canopy: Vec<Agent> = (0..agents).map(|i| Agent::with_id(&tree, i)).collect();
    let mut states: Vec<Vec<u32>> = (0..agents).map(|_| flat.new_state()).collect();
    let (mut observed, mut traced) = (
        CanopyEvents::default(),
        FlatEvents {
            ids: &ids,
            events: Vec::new(),
        },
    );
    let mut seen = [0; 3];
    for tick in 1..=ticks {
        for (i, (agent, state)) in canopy.iter_mut().zip(&mut states).enumerate() {
            let expected = agent.tick_observed(&tree, &mut (), &(), &mut observed);
            let got = flat.tick_traced(state, i as u32, &mut (), &(), &mut traced);
            assert_eq!(got, expected, "agent {i}, tick {tick}");
            assert_eq!(
                traced.events, observed.0,
                "events of agent {i}, tick {tick}"
            );
            seen[got as usize] += 1;
            observed.0.clear();
            traced.events.clear();
        }
    }
    for (i, (agent, state)) in canopy.iter_mut().zip(&mut states).enumerate() {
        agent.reset_observed(&tree, &mut (), &(), &mut observed);
        flat.reset(state, i as u32, &mut (), &(), &mut traced);
        assert_eq!(traced.events, observed.0, "reset of agent {i}");
        observed.0.clear();
        traced.events.clear();
    }
    seen
}

#[test]
fn random35_runs_in_the_flat_interpreter_exactly_as_in_canopy() {
    for seed in [0, 7] {
        let seen = run_side_by_side(RANDOM35, seed, 200, 60);
        // Its root fails only when all four children fail on one tick.
        let (running, success) = (seen[0], seen[1]);
        assert!(running > 0 && success > 0, "seed {seed}: {seen:?}");
    }
}

#[test]
fn a_deep_alternating_chain_runs_in_the_flat_interpreter_exactly_as_in_canopy() {
    for seed in [0, 5] {
        let seen = run_side_by_side(DEEP12, seed, 200, 60);
        // The leaf runs 90% of ticks; the chain passes its outcome up.
        assert!(seen.iter().all(|&n| n > 0), "seed {seed}: {seen:?}");
        assert!(seen[0] > 8 * (seen[1] + seen[2]), "seed {seed}: {seen:?}");
    }
}

#[test]
fn the_deep_chain_file_is_the_alternating_chain_of_twelve_levels() {
    use canopy_data::serde_json::{Value, from_str};
    let leaf = r#"{"type": "Random", "name": "work", "success": 0.05, "failure": 0.05}"#;
    let made: Value = from_str(&flat::alternating_chain(12, leaf)).unwrap();
    assert_eq!(made, from_str::<Value>(DEEP12).unwrap());
}

#[test]
fn chains_that_finish_every_tick_run_in_the_flat_interpreter_exactly_as_in_canopy() {
    for (leaf, status) in [
        (r#"{"type": "AlwaysSuccess"}"#, 1),
        (r#"{"type": "AlwaysFailure"}"#, 2),
    ] {
        for levels in [1, 6, 7] {
            let seen = run_side_by_side(&flat::alternating_chain(levels, leaf), 0, 20, 10);
            assert_eq!(seen[status], 200, "{leaf}, {levels} levels: {seen:?}");
        }
    }
}

#[test]
fn a_wide_selector_of_sequences_runs_in_the_flat_interpreter_exactly_as_in_canopy() {
    for seed in [0, 9] {
        let seen = run_side_by_side(WIDE16, seed, 200, 60);
        assert!(seen.iter().all(|&n| n > 0), "seed {seed}: {seen:?}");
    }
}

#[test]
fn every_built_in_leaf_runs_in_the_flat_interpreter_exactly_as_in_canopy() {
    for seed in [0, 3] {
        let seen = run_side_by_side(LEAVES, seed, 200, 80);
        assert!(seen.iter().all(|&n| n > 0), "seed {seed}: {seen:?}");
    }
}

#[test]
fn a_file_with_a_script_is_refused_naming_the_node() {
    let text = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "Wait", "ticks": 1}, {"type": "Script", "statuses": ["Success"]}]}}"#;
    assert_eq!(
        flat::read_builtin(text, 0).unwrap_err(),
        "tree/children[1]: the flat interpreter has no node type \"Script\""
    );
}
