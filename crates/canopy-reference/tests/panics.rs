//! A node that panics must not leave its agent inconsistent: the agent is
//! poisoned — every call says so — until it is reset, and after the reset
//! it behaves exactly like a fresh agent. Random trees, a panic at a random
//! leaf call, both modes.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use canopy_core::{Agent, Builder, Mode, Status, Tree, agent::POISONED};
use common::{Events, Probe, build, spec};
use proptest::prelude::*;

/// What an agent does over `ticks` ticks from now: statuses, events, and
/// what its leaves saw.
fn play(
    tree: &Tree<Probe, ()>,
    agent: &mut Agent,
    ticks: usize,
) -> (Vec<Status>, Vec<String>, u64, u32) {
    let (mut probe, mut events) = (Probe::default(), Events::default());
    let statuses = (0..ticks)
        .map(|_| agent.tick_observed(tree, &mut probe, &(), &mut events))
        .collect();
    let events = events
        .0
        .iter()
        .map(|e| format!("{} {} {:?}", e.tick, e.node.index(), e.kind))
        .collect();
    (statuses, events, probe.trace, probe.calls)
}

fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn after_a_panic_the_agent_is_poisoned_then_reset_to_new(
        spec in spec(true),
        bomb in 1u32..60,
        event in any::<bool>(),
    ) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let mode = if event { Mode::Event } else { Mode::Tick };
        let mut agent = Agent::with_id(&tree, 5);
        agent.set_mode(&tree, mode);
        let mut probe = Probe { bomb, ..Probe::default() };
        let mut exploded = false;
        for _ in 0..40 {
            let tick = catch_unwind(AssertUnwindSafe(|| agent.tick(&tree, &mut probe, &())));
            if let Err(payload) = tick {
                prop_assert_eq!(message(payload), "a leaf blew up");
                exploded = true;
                break;
            }
        }
        if exploded {
            prop_assert!(agent.is_poisoned());
            let again = catch_unwind(AssertUnwindSafe(|| agent.tick(&tree, &mut probe, &())));
            prop_assert_eq!(message(again.unwrap_err()), POISONED);
            agent.reset(&tree, &mut probe, &());
        } else {
            prop_assert!(!agent.is_poisoned());
            agent.reset(&tree, &mut probe, &());
        }
        prop_assert!(!agent.is_poisoned());
        prop_assert_eq!((agent.ticks(), agent.active_tasks(&tree), agent.mode()), (0, 0, mode));
        let mut fresh = Agent::with_id(&tree, 5);
        fresh.set_mode(&tree, mode);
        prop_assert_eq!(play(&tree, &mut agent, 30), play(&tree, &mut fresh, 30));
    }
}

#[test]
fn the_bomb_goes_off_in_most_runs() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = spec(true);
    let mut exploded = 0;
    for _ in 0..200 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let mut agent = Agent::new(&tree);
        let mut probe = Probe {
            bomb: 3,
            ..Probe::default()
        };
        let blew = catch_unwind(AssertUnwindSafe(|| {
            for _ in 0..40 {
                agent.tick(&tree, &mut probe, &());
            }
        }));
        exploded += usize::from(blew.is_err());
    }
    // Trees of conditions, constants and waits call no counted leaf; a good
    // share of the rest must reach the bomb.
    assert!(
        exploded > 60,
        "only {exploded} of 200 runs reached a third leaf call"
    );
}
