//! The reference tree loaded from its file, with user node types for its
//! leaves, is the code-built reference tree: same shape and names, and the
//! same events, root statuses and critters tick for tick, in both modes.

use canopy_core::{Agent, Event, EventKind, Mode, Observer, Status, Tree};
use canopy_reference::{Critter, Meadow, critters, file, reference_tree};

/// Every event of every agent, as (agent, node, kind).
#[derive(Default)]
struct Log(Vec<(u32, u32, EventKind)>);

impl Observer for Log {
    fn event(&mut self, e: Event) {
        self.0.push((e.agent, e.node.index() as u32, e.kind));
    }
}

/// What 300 agents do in 400 ticks of `tree` in `mode`.
fn run(tree: &Tree<Critter, Meadow>, mode: Mode) -> (Vec<Status>, Log, Vec<Critter>) {
    let mut meadow = Meadow::new(64);
    let mut crowd = critters(300, 7, &meadow);
    let mut agents: Vec<Agent> = (0..300).map(|i| Agent::with_id(tree, i)).collect();
    for a in &mut agents {
        a.set_mode(tree, mode);
    }
    let (mut statuses, mut log) = (Vec::new(), Log::default());
    for _ in 0..400 {
        for (a, c) in agents.iter_mut().zip(&mut crowd) {
            statuses.push(a.tick_observed(tree, c, &meadow, &mut log));
        }
        meadow.advance();
    }
    (statuses, log, crowd)
}

#[test]
fn the_file_tree_has_the_code_trees_shape() {
    let (code, loaded) = (reference_tree(), file::reference_tree());
    assert_eq!((loaded.len(), loaded.depth()), (code.len(), code.depth()));
    for (a, b) in code.nodes().zip(loaded.nodes()) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.children().len(), b.children().len(), "{}", a.name());
    }
}

#[test]
fn the_file_tree_runs_as_the_code_tree_does() {
    let (code, loaded) = (reference_tree(), file::reference_tree());
    for mode in [Mode::Tick, Mode::Event] {
        let (s1, l1, c1) = run(&code, mode);
        let (s2, l2, c2) = run(&loaded, mode);
        assert_eq!(s1, s2, "{mode:?}: root statuses");
        assert!(l1.0.len() > 100_000, "{mode:?}: {} events", l1.0.len());
        assert_eq!(l1.0, l2.0, "{mode:?}: events");
        assert_eq!(c1, c2, "{mode:?}: critters");
        // The run reached every branch, so the comparison covers them all.
        let entered: std::collections::BTreeSet<u32> =
            l1.0.iter()
                .filter(|e| e.2 == EventKind::Enter)
                .map(|e| e.1)
                .collect();
        assert_eq!(entered.len(), code.len(), "{mode:?}: nodes entered");
    }
}
