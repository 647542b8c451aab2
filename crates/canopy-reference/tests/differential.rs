//! Two independent implementations of the node semantics must agree: the
//! canopy engine and the naive per-agent tree.
//! They share leaf code, so any difference in statuses, in which leaves ran
//! or in what the leaves did is a semantic or memory-layout bug.

mod common;

use canopy_core::{Agent, Builder, Event, Status, Tree};
use canopy_reference::naive::NaiveAgent;
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use common::{Events, Probe, build, spec_of};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// The reference tree, many agents, many ticks.

fn run_reference(
    tree: &Tree<Critter, Meadow>,
    n: usize,
    ticks: usize,
) -> (Vec<Vec<Status>>, Vec<Critter>) {
    let mut meadow = Meadow::new(128);
    let mut crowd = critters(n, 11, &meadow);
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(tree, i)).collect();
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
fn reference_tree_agrees_with_naive_baseline() {
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

    assert_eq!(run_reference(&tree, n, ticks), (expected, crowd));
}

type Run = (Vec<Status>, Vec<Probe>);

fn run_canopy(tree: &Tree<Probe, ()>, agents: u32, ticks: usize) -> (Run, Vec<Event>, usize) {
    let mut probes = vec![Probe::default(); agents as usize];
    let mut rt: Vec<Agent> = (0..agents).map(|i| Agent::with_id(tree, i)).collect();
    let mut statuses = Vec::new();
    let mut events = Events::default();
    for _ in 0..ticks {
        for (agent, probe) in rt.iter_mut().zip(&mut probes) {
            statuses.push(agent.tick_observed(tree, probe, &(), &mut events));
        }
    }
    let active = rt.iter().map(|a| a.active_tasks(tree)).sum();
    for (agent, probe) in rt.iter_mut().zip(&mut probes) {
        agent.reset_observed(tree, probe, &(), &mut events);
        assert_eq!(agent.active_tasks(tree), 0);
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
    fn random_trees_agree_across_engines(spec in spec_of(false, true)) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let (agents, ticks) = (3, 40);
        let expected = run_naive(&tree, agents, ticks);
        let (run, events, _active) = run_canopy(&tree, agents, ticks);
        prop_assert_eq!(&run, &expected);

        // Enter/exit/abort events balance: every installed task ends once.
        let enters = events.iter().filter(|e| e.kind == canopy_core::EventKind::Enter).count();
        let ends = events.iter().filter(|e| matches!(e.kind, canopy_core::EventKind::Exit(_) | canopy_core::EventKind::Abort)).count();
        prop_assert_eq!(enters, ends);

    }
}
