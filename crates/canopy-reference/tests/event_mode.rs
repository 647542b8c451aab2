//! Event-driven execution must be indistinguishable from tick-from-root:
//! random trees over every node kind — async leaves completed from outside
//! the tick and custom nodes included — run in both modes (and switching
//! between them mid-run), and must agree on every root status, every leaf
//! call, every install, exit and abort, and every ticket completion. And a
//! run saved to bytes and restored mid-way, in either mode, must be exactly
//! the run that was never interrupted.

mod common;

use std::collections::BTreeMap;

use canopy_core::{Agent, Builder, Event, EventKind, Mode, Snapshot, Status, Tree};
use canopy_reference::{Critter, Meadow, critters, reference_root};
use common::{Events, Probe, build, spec};
use proptest::prelude::*;

/// Something done to every agent between two ticks of a run.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// Switch to this mode.
    Switch(Mode),
    /// Go on with a clone of the agent.
    Clone,
    /// Reset the agent (its running tasks are aborted).
    Reset,
    /// Save the agent to bytes and go on with one restored from them.
    SaveRestore,
}

/// What a run does to its agents, and before which tick.
type Ops<'a> = &'a [(usize, Op)];

/// What must be the same in both modes (`PartialEq`), and the updates
/// event mode may skip, counted.
#[derive(Debug)]
struct Run {
    statuses: Vec<Status>,
    active: Vec<usize>,
    completions: Vec<bool>,
    probes: Vec<Probe>,
    events: Vec<Event>,
    /// `Update(Running)` events of nodes event mode need not visit, per
    /// (tick, agent, node).
    skippable: BTreeMap<(u32, u32, usize), u32>,
}

impl PartialEq for Run {
    fn eq(&self, other: &Run) -> bool {
        // Tickets differ between runs in the number of their agent's wait
        // table; compare what they name instead.
        let probes = |run: &Run| {
            run.probes
                .iter()
                .map(|p| {
                    let pending: Vec<_> = p
                        .pending
                        .iter()
                        .map(|(t, at, s)| (t.agent(), t.node(), *at, *s))
                        .collect();
                    (p.trace, p.calls, pending, p.log.borrow().clone())
                })
                .collect::<Vec<_>>()
        };
        (
            &self.statuses,
            &self.active,
            &self.completions,
            probes(self),
            &self.events,
        ) == (
            &other.statuses,
            &other.active,
            &other.completions,
            probes(other),
            &other.events,
        )
    }
}

/// Event mode reports no skippable update tick mode does not, and never
/// one node twice where tick mode reports it once.
fn fewer_updates(event: &Run, tick: &Run) -> bool {
    event
        .skippable
        .iter()
        .all(|(key, &n)| tick.skippable.get(key).is_some_and(|&m| n <= m))
}

fn run(tree: &Tree<Probe, ()>, agents: u32, ticks: usize, ops: Ops<'_>) -> Run {
    let mut probes = vec![Probe::default(); agents as usize];
    let mut rt: Vec<Agent> = (0..agents).map(|i| Agent::with_id(tree, i)).collect();
    let mut out = Run {
        statuses: Vec::new(),
        active: Vec::new(),
        completions: Vec::new(),
        probes: Vec::new(),
        events: Vec::new(),
        skippable: BTreeMap::new(),
    };
    let mut events = Events::default();
    for t in 0..ticks {
        for &(_, op) in ops.iter().filter(|(at, _)| *at == t) {
            for (agent, probe) in rt.iter_mut().zip(&mut probes) {
                match op {
                    Op::Switch(mode) => agent.set_mode(tree, mode),
                    Op::Clone => {
                        // A clone has a wait table of its own: trade the
                        // original's tickets in for the clone's.
                        *agent = agent.clone();
                        for (ticket, _, _) in &mut probe.pending {
                            if let Some(traded) = agent.reissue(*ticket) {
                                *ticket = traded;
                            }
                        }
                    }
                    Op::Reset => agent.reset_observed(tree, probe, &(), &mut events),
                    Op::SaveRestore => {
                        let bytes = agent.snapshot(tree).to_bytes();
                        let snapshot = Snapshot::from_bytes(&bytes).unwrap();
                        *agent = Agent::restore(tree, &snapshot).unwrap();
                        for (ticket, _, _) in &mut probe.pending {
                            if let Some(traded) = agent.reissue(*ticket) {
                                *ticket = traded;
                            }
                        }
                    }
                }
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
                    out.completions
                        .push(agent.complete(ticket, outcome).is_completed());
                } else {
                    k += 1;
                }
            }
            out.statuses
                .push(agent.tick_observed(tree, probe, &(), &mut events));
            out.active.push(agent.active_tasks(tree));
        }
    }
    for (agent, probe) in rt.iter_mut().zip(&mut probes) {
        agent.reset_observed(tree, probe, &(), &mut events);
        assert_eq!(agent.active_tasks(tree), 0);
    }
    out.probes = probes;
    let (kept, skipped): (Vec<Event>, Vec<Event>) =
        events.0.into_iter().partition(|e| !skippable(tree, e));
    for e in skipped {
        *out.skippable
            .entry((e.tick, e.agent, e.node.index()))
            .or_default() += 1;
    }
    out.events = kept;
    out
}

/// A `Running` update of a node whose own code does not run on that update:
/// event mode does not visit such nodes. Every other event both modes must
/// report identically.
fn skippable(tree: &Tree<Probe, ()>, e: &Event) -> bool {
    let passive = matches!(
        tree.node(e.node).type_name(),
        "Sequence"
            | "Selector"
            | "Parallel"
            | "Inverter"
            | "ForceSuccess"
            | "ForceFailure"
            | "Guard"
            | "Cooldown"
            | "SequenceWithMemory"
            | "Shuffle"
            | "RunOnce"
            | "Repeat"
            | "Retry"
            | "Timeout"
            | "Utility"
            | "Wait"
            | "Async"
            | "AlwaysRunning"
    );
    passive && e.kind == EventKind::Update(Status::Running)
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
        let tick = run(&tree, agents, ticks, &[(23, Op::Clone), (35, Op::Reset)]);
        let event = run(
            &tree, agents, ticks, &[(0, Op::Switch(Mode::Event)), (23, Op::Clone), (35, Op::Reset)],
        );
        prop_assert_eq!(&event, &tick);
        // Switching while tasks run rebuilds the schedule from task state.
        let switching = run(
            &tree,
            agents,
            ticks,
            &[
                (7, Op::Switch(Mode::Event)),
                (19, Op::Switch(Mode::Tick)),
                (23, Op::Clone),
                (30, Op::Switch(Mode::Event)),
                (35, Op::Reset),
            ],
        );
        prop_assert_eq!(&switching, &tick, "switching modes mid-run");
        prop_assert!(fewer_updates(&event, &tick), "event mode reported an update tick mode did not");
        prop_assert!(fewer_updates(&switching, &tick), "switching");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() / 3))]

    #[test]
    fn a_restored_run_is_the_uninterrupted_run(spec in spec(true), at in 1usize..40, event in any::<bool>()) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let mode = if event { Mode::Event } else { Mode::Tick };
        let whole = run(&tree, 3, 48, &[(0, Op::Switch(mode))]);
        let restored = run(&tree, 3, 48, &[(0, Op::Switch(mode)), (at, Op::SaveRestore)]);
        prop_assert_eq!(&restored, &whole, "restored before tick {}", at + 1);
        prop_assert_eq!(&restored.skippable, &whole.skippable);
    }
}

/// Statuses, events (by node) and probes of `agents` agents over `ticks`
/// ticks on `first`, moved onto `second` by a reload before tick `at + 1`.
fn reloaded(
    first: &Tree<Probe, ()>,
    second: &Tree<Probe, ()>,
    mode: Mode,
    at: usize,
) -> (Vec<Status>, Vec<Event>, Vec<(u64, u32)>) {
    let mut probes = vec![Probe::default(); 3];
    let mut rt: Vec<Agent> = (0..3).map(|i| Agent::with_id(first, i)).collect();
    for a in &mut rt {
        a.set_mode(first, mode);
    }
    let (mut statuses, mut events) = (Vec::new(), Events::default());
    for t in 0..48 {
        let tree = if t < at { first } else { second };
        for (agent, probe) in rt.iter_mut().zip(&mut probes) {
            if t == at {
                let report = agent.reload(first, second, probe, &());
                assert!(
                    report.aborted.is_empty(),
                    "an identical tree aborted {:?}",
                    report.aborted
                );
            }
            let now = agent.ticks();
            probe.pending.retain(|&(ticket, due, outcome)| {
                due > now || {
                    let _ = agent.complete(ticket, outcome);
                    false
                }
            });
            statuses.push(agent.tick_observed(tree, probe, &(), &mut events));
        }
    }
    (
        statuses,
        events.0,
        probes.iter().map(|p| (p.trace, p.calls)).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() / 3))]

    #[test]
    fn reloading_an_identical_tree_changes_nothing(spec in spec(true), at in 1usize..40, event in any::<bool>()) {
        let (b1, b2) = (Builder::new(), Builder::new());
        let first = b1.build(build(&b1, &spec)).unwrap();
        let second = b2.build(build(&b2, &spec)).unwrap();
        let mode = if event { Mode::Event } else { Mode::Tick };
        prop_assert_eq!(reloaded(&first, &second, mode, at), reloaded(&first, &first, mode, usize::MAX));
    }
}

#[test]
fn the_generator_reaches_every_interesting_case() {
    // Guard against a generator that never builds the trees the property
    // is about: over a fixed sample, tickets must complete and go stale,
    // event mode must skip updates tick mode makes, and parallels must
    // finish in event mode (their reactions to finished children).
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = spec(true);
    let (mut completed, mut stale, mut parallel_exits) = (0, 0, 0);
    let (mut tick_skippable, mut event_skippable) = (0, 0);
    for _ in 0..300 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let event = run(&tree, 3, 48, &[(0, Op::Switch(Mode::Event))]);
        let tick = run(&tree, 3, 48, &[]);
        completed += event.completions.iter().filter(|&&c| c).count();
        stale += event.completions.iter().filter(|&&c| !c).count();
        parallel_exits += event
            .events
            .iter()
            .filter(|e| {
                tree.node(e.node).type_name() == "Parallel" && matches!(e.kind, EventKind::Exit(_))
            })
            .count();
        tick_skippable += tick.skippable.values().sum::<u32>();
        event_skippable += event.skippable.values().sum::<u32>();
    }
    assert!(completed > 100, "only {completed} tickets completed");
    assert!(stale > 10, "only {stale} stale tickets");
    assert!(
        parallel_exits > 100,
        "only {parallel_exits} parallels finished"
    );
    assert!(
        event_skippable * 10 < tick_skippable * 8,
        "event mode skipped little: {event_skippable} of {tick_skippable} passive updates"
    );
}

#[test]
fn reference_tree_agrees_in_tick_and_event_mode() {
    // Under a Repeat, so the root is scheduled by events (the bare
    // reference tree's root is reactive and runs tick-from-root anyway).
    let b = Builder::new();
    let tree = b
        .build(b.repeat("again", u32::MAX, reference_root(&b)))
        .unwrap();
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
