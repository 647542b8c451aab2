//! Event-driven execution must be indistinguishable from tick-from-root:
//! random trees over every node kind — async leaves completed from outside
//! the tick and custom nodes included — run in both modes (and switching
//! between them mid-run), and must agree on every root status, every leaf
//! call, every install, exit and abort, and every ticket completion.

mod common;

use canopy_core::pool::{FreeListPool, InlinePool, TaskPool};
use canopy_core::{Agent, Builder, Event, EventKind, Mode, Status, Tree};
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use common::{Events, Probe, build, spec};
use proptest::prelude::*;

/// When a run switches its agents' mode: `(tick, mode)` pairs.
type Switches = &'static [(usize, Mode)];

#[derive(Debug, PartialEq)]
struct Run {
    statuses: Vec<Status>,
    active: Vec<usize>,
    completions: Vec<bool>,
    probes: Vec<Probe>,
    events: Vec<Event>,
}

fn run<P: TaskPool>(tree: &Tree<Probe, ()>, agents: u32, ticks: usize, switches: Switches) -> Run {
    let mut probes = vec![Probe::default(); agents as usize];
    let mut rt: Vec<Agent<P>> = (0..agents).map(|i| Agent::for_tree(tree, i)).collect();
    let mut out = Run {
        statuses: Vec::new(),
        active: Vec::new(),
        completions: Vec::new(),
        probes: Vec::new(),
        events: Vec::new(),
    };
    let mut events = Events::default();
    for t in 0..ticks {
        for &(_, mode) in switches.iter().filter(|(at, _)| *at == t) {
            for agent in &mut rt {
                agent.set_mode(tree, mode);
            }
        }
        for (agent, probe) in rt.iter_mut().zip(&mut probes) {
            // Deliver the tickets that are due, as a job system would
            // between frames. Some are stale by now: both modes must say so.
            let now = agent.ticks();
            let mut k = 0;
            while k < probe.pending.len() {
                if probe.pending[k].1 <= now {
                    let (ticket, _, outcome) = probe.pending.swap_remove(k);
                    out.completions.push(agent.complete(ticket, outcome));
                } else {
                    k += 1;
                }
            }
            out.statuses
                .push(agent.tick_observed(tree, probe, &(), &mut events));
            out.active.push(agent.active_tasks());
        }
    }
    for (agent, probe) in rt.iter_mut().zip(&mut probes) {
        agent.reset_observed(tree, probe, &(), &mut events);
        assert_eq!(agent.active_tasks(), 0);
    }
    out.probes = probes;
    out.events = comparable(tree, events.0);
    out
}

/// The events both modes must report identically: all of them except a
/// `Running` update of a node whose own code does not run on that update
/// — event mode does not visit such nodes at all.
fn comparable(tree: &Tree<Probe, ()>, events: Vec<Event>) -> Vec<Event> {
    events
        .into_iter()
        .filter(|e| {
            let skippable = matches!(
                tree.node(e.node).type_name(),
                "Sequence"
                    | "Selector"
                    | "Parallel"
                    | "Inverter"
                    | "ForceSuccess"
                    | "ForceFailure"
                    | "Guard"
                    | "Cooldown"
                    | "Repeat"
                    | "Retry"
                    | "Timeout"
                    | "Wait"
                    | "Async"
                    | "AlwaysRunning"
            );
            !(skippable && e.kind == EventKind::Update(Status::Running))
        })
        .collect()
}

fn cases() -> u32 {
    std::env::var("EVENT_MODE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_trees_agree_in_tick_and_event_mode(spec in spec(true)) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let (agents, ticks) = (3, 48);
        let tick = run::<InlinePool>(&tree, agents, ticks, &[]);
        let event = run::<InlinePool>(&tree, agents, ticks, &[(0, Mode::Event)]);
        prop_assert_eq!(&event, &tick);
        // Switching while tasks run rebuilds the schedule from task state.
        let switching = run::<InlinePool>(
            &tree, agents, ticks, &[(7, Mode::Event), (19, Mode::Tick), (30, Mode::Event)],
        );
        prop_assert_eq!(&switching, &tick, "switching modes mid-run");
        // A pool whose task locations are handles, not offsets.
        let handles = run::<FreeListPool>(&tree, agents, ticks, &[(0, Mode::Event)]);
        prop_assert_eq!(&handles, &tick, "event mode on the free-list pool");
    }
}

#[test]
fn the_generator_reaches_every_interesting_case() {
    // Guard against a generator that never builds the trees the property
    // is about: over a fixed sample, event mode must have slept, woken
    // tickets, and reacted to finished children under parallels.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = spec(true);
    let (mut completed, mut stale, mut parallels) = (0, 0, 0);
    for _ in 0..300 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let r = run::<InlinePool>(&tree, 3, 48, &[(0, Mode::Event)]);
        completed += r.completions.iter().filter(|&&c| c).count();
        stale += r.completions.iter().filter(|&&c| !c).count();
        parallels += tree.nodes().filter(|n| n.type_name() == "Parallel").count();
    }
    assert!(completed > 100, "only {completed} tickets completed");
    assert!(stale > 10, "only {stale} stale tickets");
    assert!(parallels > 50, "only {parallels} parallels");
}

#[test]
fn reference_tree_agrees_in_tick_and_event_mode() {
    let tree = reference_tree();
    let (n, ticks) = (200, 600);
    let play = |mode: Mode| {
        let mut meadow = Meadow::new(128);
        let mut crowd = critters(n, 11, &meadow);
        let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
        for a in &mut agents {
            a.set_mode(&tree, mode);
        }
        let mut statuses = Vec::new();
        for _ in 0..ticks {
            for (agent, critter) in agents.iter_mut().zip(&mut crowd) {
                statuses.push(agent.tick(&tree, critter, &meadow));
            }
            meadow.advance();
        }
        (statuses, crowd)
    };
    let (statuses, crowd): (Vec<Status>, Vec<Critter>) = play(Mode::Tick);
    assert!(crowd.iter().any(|c| c.bites > 0) && crowd.iter().any(|c| c.naps > 0));
    assert_eq!(play(Mode::Event), (statuses, crowd));
}
