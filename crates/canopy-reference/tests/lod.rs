//! Level of detail: an agent ticked less often than the world counts time in
//! world ticks. Random trees run by agents ticked every k-th world tick
//! (and at irregular gaps) must agree, in both modes and across a save and
//! restore, with the naive interpreter ticked at the same world ticks —
//! an independent implementation whose timers compare the world tick with
//! the tick they started — and every leaf must see the world tick.

mod common;

use canopy_core::{Agent, Builder, Mode, Snapshot, Status, Tree};
use canopy_reference::naive::NaiveAgent;
use common::{Probe, build, spec};
use proptest::prelude::*;

/// The world ticks (from 1) at which one agent is ticked.
type Ticks = Vec<u32>;

/// What a run did: root statuses, and each agent's probe (trace, leaf
/// calls, and every leaf call's seed and tick).
type Run = (Vec<Status>, Vec<(u64, u32, Vec<(u32, u32)>)>);

fn outcome(statuses: Vec<Status>, probes: &[Probe]) -> Run {
    let probes = probes
        .iter()
        .map(|p| (p.trace, p.calls, p.log.borrow().clone()))
        .collect();
    (statuses, probes)
}

/// The world ticks up to `world` at which an agent of rate `k` and phase
/// `phase` is ticked: every k-th, from `phase + 1`.
fn every(k: u32, phase: u32, world: u32) -> Ticks {
    (1..=world).filter(|w| w % k == (phase + 1) % k).collect()
}

/// The naive interpreter, each agent ticked at its world ticks.
fn run_naive(tree: &Tree<Probe, ()>, plans: &[Ticks]) -> Run {
    let mut probes = vec![Probe::default(); plans.len()];
    let mut statuses = Vec::new();
    for (i, (plan, probe)) in plans.iter().zip(&mut probes).enumerate() {
        let mut agent = NaiveAgent::new(tree, i as u32).unwrap();
        let mut last = 0;
        for &w in plan {
            statuses.push(agent.tick_elapsed(probe, &(), w - last));
            last = w;
        }
    }
    outcome(statuses, &probes)
}

/// canopy in `mode`, each agent ticked at its world ticks, saved and
/// restored before its `save_at`-th tick.
fn run_canopy(tree: &Tree<Probe, ()>, plans: &[Ticks], mode: Mode, save_at: usize) -> Run {
    let mut probes = vec![Probe::default(); plans.len()];
    let mut statuses = Vec::new();
    for (i, (plan, probe)) in plans.iter().zip(&mut probes).enumerate() {
        let mut agent = Agent::with_id(tree, i as u32);
        agent.set_mode(tree, mode);
        let mut last = 0;
        for (n, &w) in plan.iter().enumerate() {
            if n == save_at {
                let bytes = agent.snapshot(tree).to_bytes();
                let snapshot = Snapshot::from_bytes(&bytes).unwrap();
                agent = Agent::restore(tree, &snapshot).unwrap();
                assert_eq!(agent.ticks(), last, "the clock is part of the snapshot");
            }
            statuses.push(agent.tick_elapsed(tree, probe, &(), w - last));
            assert_eq!(agent.ticks(), w, "the agent's clock is the world tick");
            last = w;
        }
    }
    outcome(statuses, &probes)
}

/// Every leaf call happened at a world tick its agent was ticked at.
fn leaves_see_world_ticks(run: &Run, plans: &[Ticks]) -> bool {
    run.1.iter().zip(plans).all(|((_, _, log), plan)| {
        log.iter()
            .all(|&(_, tick)| plan.binary_search(&tick).is_ok())
    })
}

/// A Wait(n) alone, by the rule: entered on an agent tick at world tick
/// `t`, it succeeds on the agent's first tick at or after `t + n`, and the
/// next tick enters it again.
fn wait_by_the_rule(n: u32, plan: &[u32]) -> Vec<Status> {
    let mut entered = None;
    plan.iter()
        .map(|&w| {
            let t = *entered.get_or_insert(w);
            if w >= t + n {
                entered = None;
                Status::Success
            } else {
                Status::Running
            }
        })
        .collect()
}

#[test]
fn a_wait_of_8_ticked_every_third_world_tick_ends_at_world_tick_12() {
    let b = Builder::<(), ()>::new();
    let tree = b.build(b.wait("w", 8)).unwrap();
    for mode in [Mode::Tick, Mode::Event] {
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        let ticks: Vec<(u32, Status)> = (0..5)
            .map(|_| {
                let status = agent.tick_elapsed(&tree, &mut (), &(), 3);
                (agent.ticks(), status)
            })
            .collect();
        assert_eq!(
            ticks,
            [
                (3, Status::Running),
                (6, Status::Running),
                (9, Status::Running),
                (12, Status::Success),
                (15, Status::Running),
            ],
            "{mode:?}"
        );
    }
}

#[test]
fn a_cooldown_refuses_until_its_world_ticks_are_over_for_a_slow_agent() {
    let b = Builder::<(), ()>::new();
    let tree = b
        .build(b.cooldown("rest", 5, b.always_success("act")))
        .unwrap();
    let mut agent = Agent::new(&tree);
    // Ticked every 2nd world tick: the child ends at 2, the cooldown
    // refuses up to 2 + 5 = 7, so at 4 and 6, and lets it run at 8.
    let statuses: Vec<Status> = (0..5)
        .map(|_| agent.tick_elapsed(&tree, &mut (), &(), 2))
        .collect();
    assert_eq!(
        statuses,
        [
            Status::Success,
            Status::Failure,
            Status::Failure,
            Status::Success,
            Status::Failure
        ]
    );
}

#[test]
fn a_timeout_aborts_its_child_on_the_first_agent_tick_at_or_after_its_end() {
    let b = Builder::<(), ()>::new();
    let tree = b
        .build(b.timeout("limit", 4, b.always_running("busy")))
        .unwrap();
    for mode in [Mode::Tick, Mode::Event] {
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        // Entered at 3; 6 is 3 ticks later, 9 is 6 ≥ 4 ticks later.
        let statuses: Vec<Status> = (0..3)
            .map(|_| agent.tick_elapsed(&tree, &mut (), &(), 3))
            .collect();
        assert_eq!(
            statuses,
            [Status::Running, Status::Running, Status::Failure],
            "{mode:?}"
        );
    }
}

#[test]
fn an_elapsed_of_zero_counts_as_one_world_tick() {
    let b = Builder::<(), ()>::new();
    let tree = b.build(b.wait("w", 1)).unwrap();
    let mut agent = Agent::new(&tree);
    assert_eq!(agent.tick_elapsed(&tree, &mut (), &(), 0), Status::Running);
    assert_eq!(agent.tick_elapsed(&tree, &mut (), &(), 0), Status::Success);
    assert_eq!(agent.ticks(), 2);
}

/// Per agent: a rate `k` and a phase below it.
fn rates() -> impl Strategy<Value = Vec<(u32, u32)>> {
    prop::collection::vec((1u32..6).prop_flat_map(|k| (Just(k), 0..k)), 1..4)
}

/// Per agent: irregular gaps between its ticks, as a budget gives.
fn gaps() -> impl Strategy<Value = Vec<Vec<u32>>> {
    prop::collection::vec(prop::collection::vec(1u32..8, 1..30), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn agents_ticked_every_kth_world_tick_agree_with_the_rule_in_both_modes(
        spec in spec(false),
        rates in rates(),
        save_at in 0usize..20,
    ) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let plans: Vec<Ticks> = rates.iter().map(|&(k, phase)| every(k, phase, 60)).collect();
        let expected = run_naive(&tree, &plans);
        prop_assert!(leaves_see_world_ticks(&expected, &plans));
        for mode in [Mode::Tick, Mode::Event] {
            prop_assert_eq!(&run_canopy(&tree, &plans, mode, save_at), &expected, "{:?}", mode);
        }
    }

    #[test]
    fn agents_ticked_at_irregular_gaps_agree_with_the_rule_in_both_modes(
        spec in spec(false),
        gaps in gaps(),
        save_at in 0usize..30,
    ) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let plans: Vec<Ticks> = gaps
            .iter()
            .map(|g| g.iter().scan(0, |w, gap| { *w += gap; Some(*w) }).collect())
            .collect();
        let expected = run_naive(&tree, &plans);
        for mode in [Mode::Tick, Mode::Event] {
            prop_assert_eq!(&run_canopy(&tree, &plans, mode, save_at), &expected, "{:?}", mode);
        }
    }

    #[test]
    fn a_wait_ends_on_the_first_agent_tick_at_or_after_its_end(
        n in 0u32..20,
        k in 1u32..7,
        phase in 0u32..7,
    ) {
        let b = Builder::<(), ()>::new();
        let tree = b.build(b.wait("w", n)).unwrap();
        let plan = every(k, phase % k, 80);
        for mode in [Mode::Tick, Mode::Event] {
            let mut agent = Agent::new(&tree);
            agent.set_mode(&tree, mode);
            let mut last = 0;
            let statuses: Vec<Status> = plan
                .iter()
                .map(|&w| {
                    let status = agent.tick_elapsed(&tree, &mut (), &(), w - last);
                    last = w;
                    status
                })
                .collect();
            prop_assert_eq!(statuses, wait_by_the_rule(n, &plan), "{:?}", mode);
        }
    }
}
