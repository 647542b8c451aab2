//! Misuse that must never be undefined behaviour, counters that must not
//! wrap in a real run, and agents that must survive a panicking node. Each
//! case either works, returns an error, or panics with a documented
//! message — in release builds as in debug (CI also runs this file under
//! AddressSanitizer in release mode).

use std::panic::{AssertUnwindSafe, catch_unwind};

use canopy_core::{
    Agent, Builder, Completion, Mode, Snapshot, Status, Ticket, Tree,
    agent::{POISONED, WRONG_TREE},
    limits::MAX_TICKS,
    snapshot::RestoreError,
};

/// The message of a panic caught by `catch_unwind`.
fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

fn panics_with(f: impl FnOnce()) -> String {
    message(catch_unwind(AssertUnwindSafe(f)).expect_err("expected a panic"))
}

#[test]
fn a_draft_of_another_builder_is_a_build_error() {
    // Once this segfaulted in release builds: the foreign draft's number
    // made its parent sized before it.
    let b2 = Builder::<(), ()>::new();
    for _ in 0..5 {
        b2.always_success("pad");
    }
    let w = b2.wait("w", 5);
    let b1 = Builder::<(), ()>::new();
    let err = b1.build(b1.inverter("inv", w)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tree/children[0] (name \"w\"): this node was made by another Builder; \
         build a tree from the drafts of one builder"
    );
    // Deeper, and as the root.
    let deep = b1.sequence(
        "s",
        [b1.always_success("a"), b1.repeat("r", 2, b2.wait("x", 1))],
    );
    let err = b1.build(deep).unwrap_err();
    assert_eq!((err.path.steps(), err.name.as_str()), (&[1, 0][..], "x"));
    assert!(b1.build(b2.wait("root", 1)).is_err());
}

#[test]
fn sizes_do_not_depend_on_the_order_drafts_were_made_in() {
    // Drafts made parent-first through `node` and shared out of order.
    let b = Builder::<(), ()>::new();
    let late = b.wait("late", 2);
    let tree = b
        .build(b.parallel(
            "p",
            canopy_core::Policy::All,
            canopy_core::Policy::One,
            [b.sequence("s", [b.repeat("r", 3, late), late]), late],
        ))
        .unwrap();
    let mut agent = Agent::new(&tree);
    for _ in 0..3 {
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
    }
}

fn two_trees() -> (Tree<(), ()>, Tree<(), ()>) {
    let b = Builder::<(), ()>::new();
    let small = b.build(b.wait("w", 3)).unwrap();
    let big = b
        .build(b.parallel(
            "p",
            canopy_core::Policy::All,
            canopy_core::Policy::All,
            [b.wait("a", 9), b.wait("b", 9), b.wait("c", 9)],
        ))
        .unwrap();
    (small, big)
}

#[test]
fn an_agent_used_with_another_tree_panics_with_the_documented_message() {
    let (small, big) = two_trees();
    let mut agent = Agent::new(&small);
    agent.tick(&small, &mut (), &());
    let mut a = agent.clone();
    assert_eq!(
        panics_with(|| {
            a.tick(&big, &mut (), &());
        }),
        WRONG_TREE
    );
    assert_eq!(panics_with(|| a.reset(&big, &mut (), &())), WRONG_TREE);
    assert_eq!(panics_with(|| a.set_mode(&big, Mode::Event)), WRONG_TREE);
    assert_eq!(
        panics_with(|| {
            a.snapshot(&big);
        }),
        WRONG_TREE
    );
    assert_eq!(
        panics_with(|| {
            a.running(&big);
        }),
        WRONG_TREE
    );
    assert_eq!(
        panics_with(|| {
            a.active_tasks(&big);
        }),
        WRONG_TREE
    );
    // Nothing changed: it still runs on its own tree.
    assert_eq!(a.tick(&small, &mut (), &()), Status::Running);
    assert_eq!(a.tick(&small, &mut (), &()), Status::Running);
    assert_eq!(a.tick(&small, &mut (), &()), Status::Success);
}

#[test]
fn durations_that_would_not_be_exact_are_build_errors() {
    let b = Builder::<(), ()>::new();
    let too_long = MAX_TICKS + 1;
    for (draft, kind) in [
        (b.wait("w", too_long), "Wait"),
        (b.timeout("t", too_long, b.always_running("x")), "Timeout"),
        (b.cooldown("c", too_long, b.always_running("x")), "Cooldown"),
    ] {
        let err = b.build(draft).unwrap_err();
        assert_eq!(
            err.problem,
            format!(
                "a {kind} of 2147483648 ticks is longer than the limit of 2147483647 (2^31 - 1) ticks"
            )
        );
    }
    assert!(b.build(b.wait("w", MAX_TICKS)).is_ok());
}

/// `bytes` with the snapshot's memory bytes `at..` replaced by `with`.
fn patch_memory(bytes: &[u8], at: usize, with: &[u8]) -> Vec<u8> {
    // Mark 4, version 2, kind 1, fingerprint 8, memory length 4, id 4,
    // tick 4, flags 1: the memory starts at byte 28.
    let mut out = bytes.to_vec();
    out[28 + at..28 + at + with.len()].copy_from_slice(with);
    out
}

#[test]
fn a_repeat_counts_exactly_up_to_u32_max() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::<u64, ()>::new();
        let tree = b
            .build(b.repeat(
                "forever",
                u32::MAX,
                b.action("count", |cx| {
                    *cx.agent += 1;
                    Status::Success
                }),
            ))
            .unwrap();
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        let mut calls = 0;
        assert_eq!(agent.tick(&tree, &mut calls, &()), Status::Running);
        // Fast-forward: u32::MAX - 3 cycles done, child not installed.
        let near = (u32::MAX - 3).to_le_bytes();
        let bytes = patch_memory(
            &agent.snapshot(&tree).to_bytes(),
            0,
            &[near[0], near[1], near[2], near[3], 0],
        );
        let mut agent = Agent::restore(&tree, &Snapshot::from_bytes(&bytes).unwrap()).unwrap();
        let statuses: Vec<Status> = (0..3).map(|_| agent.tick(&tree, &mut calls, &())).collect();
        assert_eq!(
            statuses,
            [Status::Running, Status::Running, Status::Success],
            "{mode}"
        );
        assert_eq!(calls, 4);
    }
}

#[test]
fn timers_stay_exact_across_the_wrap_of_the_tick_counter() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::<Vec<u32>, ()>::new();
        let tree = b
            .build(b.sequence(
                "s",
                [
                    b.timeout("limit", 6, b.wait("w", 4)),
                    b.cooldown(
                        "cd",
                        3,
                        b.action("mark", |cx| {
                            cx.agent.push(cx.tick);
                            Status::Success
                        }),
                    ),
                    b.always_running("rest"),
                ],
            ))
            .unwrap();
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        agent.set_ticks(&tree, u32::MAX - 2);
        let mut marks = Vec::new();
        // Entered at u32::MAX - 1; the wait ends 4 ticks later, at tick 2.
        let ticks: Vec<(u32, Status)> = (0..5)
            .map(|_| {
                let s = agent.tick(&tree, &mut marks, &());
                (agent.ticks(), s)
            })
            .collect();
        assert_eq!(
            ticks.iter().map(|t| t.0).collect::<Vec<_>>(),
            [u32::MAX - 1, u32::MAX, 0, 1, 2]
        );
        assert_eq!(marks, [2], "{mode}");
        assert_eq!(agent.active_tasks(&tree), 2, "{mode}");
    }
}

#[test]
fn event_mode_sleeps_across_the_wrap() {
    let b = Builder::<u32, ()>::new();
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.wait("nap", 10),
                b.action("up", |cx| {
                    *cx.agent = cx.tick;
                    Status::Success
                }),
            ],
        ))
        .unwrap();
    let mut agent = Agent::new(&tree);
    agent.set_mode(&tree, Mode::Event);
    agent.set_ticks(&tree, u32::MAX - 4);
    let mut woke = 0;
    let statuses: Vec<Status> = (0..11).map(|_| agent.tick(&tree, &mut woke, &())).collect();
    assert_eq!(statuses[..10], [Status::Running; 10]);
    assert_eq!(statuses[10], Status::Success);
    assert_eq!(woke, 6); // entered at u32::MAX - 3, ten ticks later
}

#[test]
fn a_ticket_completes_nothing_after_many_requests_reused_its_entry() {
    let b = Builder::<Vec<Ticket>, ()>::new();
    let tree = b
        .build(b.async_action("ask", |cx, t| {
            cx.agent.push(t);
            Status::Running
        }))
        .unwrap();
    let (mut tickets, mut agent) = (Vec::new(), Agent::new(&tree));
    agent.tick(&tree, &mut tickets, &());
    let first = tickets[0];
    for _ in 0..1000 {
        assert_eq!(
            agent.complete(*tickets.last().unwrap(), Status::Success),
            Completion::Completed
        );
        agent.tick(&tree, &mut tickets, &()); // finishes
        agent.tick(&tree, &mut tickets, &()); // asks again, same entry
    }
    assert_eq!(tickets.len(), 1001);
    assert_eq!(agent.complete(first, Status::Success), Completion::Ended);
    assert_eq!(
        agent.complete(*tickets.last().unwrap(), Status::Failure),
        Completion::Completed
    );
}

#[test]
fn a_panicking_node_poisons_its_agent_until_reset() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::<u32, ()>::new();
        let tree = b
            .build(b.sequence(
                "s",
                [
                    b.wait("w", 1),
                    b.parallel(
                        "p",
                        canopy_core::Policy::All,
                        canopy_core::Policy::One,
                        [
                            b.wait("long", 50),
                            b.action("bomb", |cx| {
                                *cx.agent += 1;
                                if *cx.agent == 3 {
                                    panic!("boom");
                                }
                                Status::Running
                            }),
                        ],
                    ),
                ],
            ))
            .unwrap();
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        let mut n = 0;
        for _ in 0..3 {
            assert_eq!(agent.tick(&tree, &mut n, &()), Status::Running);
        }
        assert_eq!(
            panics_with(|| {
                agent.tick(&tree, &mut n, &());
            }),
            "boom"
        );
        assert!(agent.is_poisoned());
        assert_eq!(
            panics_with(|| {
                agent.tick(&tree, &mut n, &());
            }),
            POISONED
        );
        assert_eq!(
            panics_with(|| {
                agent.running(&tree);
            }),
            POISONED
        );
        assert_eq!(
            agent.complete(Ticket::clone(&dummy_ticket()), Status::Success),
            Completion::Poisoned
        );
        // Reset discards the half-updated tasks without running hooks.
        agent.reset(&tree, &mut n, &());
        assert!(!agent.is_poisoned());
        assert_eq!(
            (agent.ticks(), agent.active_tasks(&tree), agent.mode()),
            (0, 0, mode)
        );
        let fresh = Agent::new(&tree);
        assert_eq!(
            agent.snapshot(&tree).to_bytes().len(),
            fresh.snapshot(&tree).to_bytes().len()
        );
        n = 10;
        for _ in 0..4 {
            assert_eq!(agent.tick(&tree, &mut n, &()), Status::Running);
        }
        assert_eq!(agent.active_tasks(&tree), 4);
    }
}

fn dummy_ticket() -> Ticket {
    let b = Builder::<Option<Ticket>, ()>::new();
    let tree = b
        .build(b.async_action("a", |cx, t| {
            *cx.agent = Some(t);
            Status::Running
        }))
        .unwrap();
    let mut got = None;
    Agent::new(&tree).tick(&tree, &mut got, &());
    got.unwrap()
}

#[test]
fn snapshots_of_another_tree_or_damaged_ones_are_errors() {
    let (small, big) = two_trees();
    let mut agent = Agent::new(&small);
    agent.tick(&small, &mut (), &());
    let bytes = agent.snapshot(&small).to_bytes();
    let snap = Snapshot::from_bytes(&bytes).unwrap();
    let err = Agent::restore(&big, &snap).unwrap_err();
    assert!(matches!(err, RestoreError::OtherTree { .. }));
    assert!(
        err.to_string()
            .starts_with("the snapshot was taken of another tree")
    );
    for cut in 0..bytes.len() {
        assert!(Snapshot::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    assert_eq!(
        Snapshot::from_bytes(b"JUNK").unwrap_err().to_string(),
        "not a canopy snapshot (no CNPY mark)"
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        Snapshot::from_bytes(&longer).unwrap_err(),
        RestoreError::TrailingBytes { count: 1 }
    );
    let mut version = bytes.clone();
    version[4] = 9;
    assert_eq!(
        Snapshot::from_bytes(&version).unwrap_err().to_string(),
        "snapshot format version 9; this build reads version 1"
    );
}
