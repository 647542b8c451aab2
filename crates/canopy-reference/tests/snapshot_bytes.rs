//! Snapshots from strangers: any change to a snapshot's bytes gives an
//! error or an agent that ticks — never a panic, never undefined behaviour
//! (CI runs this under AddressSanitizer too).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use canopy_core::{Agent, Builder, Mode, Snapshot, Status, snapshot::RestoreError};
use common::{Probe, build, spec};
use proptest::prelude::*;

/// What a damaged snapshot came to.
#[derive(Debug, PartialEq, Eq)]
enum Fate {
    Unreadable,
    Refused,
    Ticked,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn damaged_snapshots_are_errors_or_working_agents(
        spec in spec(true),
        ticks in 1u32..30,
        event in any::<bool>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let b = Builder::new();
        let tree = b.build(build(&b, &spec)).unwrap();
        let mut agent = Agent::with_id(&tree, 1);
        if event {
            agent.set_mode(&tree, Mode::Event);
        }
        let mut probe = Probe::default();
        for _ in 0..ticks {
            agent.tick(&tree, &mut probe, &());
        }
        let mut bytes = agent.snapshot(&tree).to_bytes();
        for (at, value) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= value;
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let fate = catch_unwind(AssertUnwindSafe(|| {
            let Ok(snapshot) = Snapshot::from_bytes(&bytes) else { return Fate::Unreadable };
            let Ok(mut agent) = Agent::restore(&tree, &snapshot) else { return Fate::Refused };
            for _ in 0..10 {
                agent.tick(&tree, &mut probe, &());
            }
            Fate::Ticked
        }));
        prop_assert!(fate.is_ok(), "a damaged snapshot made canopy panic");
        if flips.is_empty() && cut.is_none() {
            prop_assert_eq!(fate.unwrap(), Fate::Ticked);
        }
    }
}

#[test]
fn every_kind_of_damage_is_seen() {
    let b = Builder::<Probe, ()>::new();
    let tree = b
        .build(b.sequence("s", [b.always_success("a"), b.wait("w", 9)]))
        .unwrap();
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut Probe::default(), &());
    let bytes = agent.snapshot(&tree).to_bytes();
    // The sequence's running child index lives in the memory's first two
    // bytes (at 28 in the binary form): 7 is no child of a 2-child node.
    let mut bad = bytes.clone();
    bad[28] = 7;
    let err = Agent::restore(&tree, &Snapshot::from_bytes(&bad).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the snapshot is damaged: node 0: its task's state is not one its kind can be in"
    );
    // A memory length that is not this tree's.
    // (Its length is at bytes 15..19; the memory, 6 bytes here, at 28.)
    let mut short = bytes[..15].to_vec();
    short.extend_from_slice(&3u32.to_le_bytes());
    short.extend_from_slice(&bytes[19..31]);
    short.extend_from_slice(&bytes[34..]);
    assert!(matches!(
        Agent::restore(&tree, &Snapshot::from_bytes(&short).unwrap()),
        Err(RestoreError::Corrupt { node: None, .. })
    ));
    // The intact snapshot carries on.
    let mut back = Agent::restore(&tree, &Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    assert_eq!(
        back.tick(&tree, &mut Probe::default(), &()),
        Status::Running
    );
    assert_eq!(back.active_tasks(&tree), 2);
}
