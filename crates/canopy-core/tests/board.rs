//! The blackboard: keys laid out when the tree is built, read and written
//! through ports, carried by snapshots and hot reload.

use canopy_core::{Agent, Builder, Input, Mode, Output, Snapshot, Status, Text, Tree};

/// A tree that counts: `count` += `step` each tick, until it reaches `goal`.
fn counter<'b>(b: &'b Builder<'b, (), ()>) -> (Tree<(), ()>, canopy_core::Key<i64>) {
    let count = b.key::<i64>("count").unwrap();
    let step = Input::Key(b.key::<i64>("step").unwrap());
    let goal = Input::Value(10i64);
    let out = Output::from(count);
    b.set_initial(b.key::<i64>("step").unwrap(), 3);
    let input = Input::from(count);
    let tree = b
        .build(b.action("count", move |cx| {
            let next = cx.board.get(&input) + cx.board.get(&step);
            cx.board.set(&out, next);
            if next >= cx.board.get(&goal) {
                Status::Success
            } else {
                Status::Running
            }
        }))
        .unwrap();
    (tree, count)
}

#[test]
fn ports_read_and_write_the_agents_own_slots() {
    let b = Builder::new();
    let (tree, count) = counter(&b);
    let (mut a, mut z) = (Agent::new(&tree), Agent::new(&tree));
    z.board_mut(&tree).write(count, 5);
    let statuses: Vec<Status> = (0..4).map(|_| a.tick(&tree, &mut (), &())).collect();
    assert_eq!(
        statuses,
        [
            Status::Running,
            Status::Running,
            Status::Running,
            Status::Success
        ]
    );
    assert_eq!(a.board(&tree).read(count), 12);
    // Another agent has a blackboard of its own.
    assert_eq!(z.tick(&tree, &mut (), &()), Status::Running);
    assert_eq!(z.board(&tree).read(count), 8);
}

#[test]
fn keys_have_one_type_and_the_memory_they_need() {
    let b = Builder::<(), ()>::new();
    let speed = b.key::<f32>("speed").unwrap();
    assert_eq!(b.key::<f32>("speed").unwrap(), speed);
    assert_eq!(
        b.key::<bool>("speed").unwrap_err().to_string(),
        r#"key "speed" holds float, not bool"#
    );
    let mode = b.key::<Text>("mode").unwrap();
    let tree = b.build(b.always_success("ok")).unwrap();
    // 4 bytes of f32, 32 of Text; no task memory.
    assert_eq!(tree.task_memory(), 36);
    assert_eq!(mode.offset(), 4);
}

#[test]
fn a_reset_returns_the_blackboard_to_its_initial_values() {
    let b = Builder::new();
    let (tree, count) = counter(&b);
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).read(count), 3);
    agent.reset(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).read(count), 0);
    assert_eq!(
        agent.board_values(&tree),
        [
            ("count".to_string(), "0".to_string()),
            ("step".to_string(), "3".to_string())
        ]
    );
}

#[test]
fn snapshots_carry_the_blackboard_in_both_modes() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::new();
        let (tree, count) = counter(&b);
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        agent.tick(&tree, &mut (), &());
        agent.tick(&tree, &mut (), &());
        let bytes = agent.snapshot(&tree).to_bytes();
        let mut restored = Agent::restore(&tree, &Snapshot::from_bytes(&bytes).unwrap()).unwrap();
        assert_eq!(restored.board(&tree).read(count), 6);
        for _ in 0..3 {
            assert_eq!(
                agent.tick(&tree, &mut (), &()),
                restored.tick(&tree, &mut (), &())
            );
            assert_eq!(
                agent.board(&tree).read(count),
                restored.board(&tree).read(count)
            );
        }
    }
}

#[test]
fn hot_reload_keeps_values_whose_key_and_type_are_unchanged() {
    let old_b = Builder::<(), ()>::new();
    let (hp, name, speed) = (
        old_b.key::<i32>("hp").unwrap(),
        old_b.key::<Text>("name").unwrap(),
        old_b.key::<f32>("speed").unwrap(),
    );
    let old = old_b.build(old_b.always_running("idle")).unwrap();
    let mut agent = Agent::new(&old);
    agent.board_mut(&old).write(hp, 40);
    agent.board_mut(&old).write(name, Text::new("Ada"));
    agent.board_mut(&old).write(speed, 2.5);
    agent.tick(&old, &mut (), &());

    // The new tree: `name` unchanged, `speed` now a double, a new key first.
    let new_b = Builder::<(), ()>::new();
    let fresh = new_b.key::<bool>("alarm").unwrap();
    new_b.set_initial(fresh, true);
    let name2 = new_b.key::<Text>("name").unwrap();
    let speed2 = new_b.key::<f64>("speed").unwrap();
    let hp2 = new_b.key::<i32>("hp").unwrap();
    let new = new_b.build(new_b.always_running("idle")).unwrap();
    agent.reload(&old, &new, &mut (), &());
    let mut board = agent.board(&new);
    assert_eq!(board.read(hp2), 40);
    assert_eq!(board.read(name2).as_str(), "Ada");
    assert_eq!(board.read(speed2), 0.0, "another type: starts afresh");
    assert!(board.read(fresh), "a new key starts at its initial value");
    let _ = &mut board;
}

/// A tree whose leaves write the blackboard from each other's values as a
/// script of `ops` says: the key each op reads and writes (of five keys of
/// three types), run as a Sequence of actions, one of which stays Running
/// every other tick so that snapshots land mid-run.
fn busy_tree<'b>(b: &'b Builder<'b, (), ()>, ops: &[(u8, u8)]) -> Tree<(), ()> {
    let ints = [b.key::<i64>("a").unwrap(), b.key::<i64>("b").unwrap()];
    let floats = [b.key::<f32>("c").unwrap(), b.key::<f32>("d").unwrap()];
    let text = b.key::<Text>("e").unwrap();
    let leaves: Vec<_> = ops
        .iter()
        .enumerate()
        .map(|(i, &(from, to))| {
            let (from, to) = (from as usize % 5, to as usize % 5);
            b.action(&format!("op{i}"), move |cx| {
                let tick = i64::from(cx.tick);
                let value = match from {
                    0 | 1 => cx.board.read(ints[from]),
                    2 | 3 => cx.board.read(floats[from - 2]) as i64,
                    _ => cx.board.read(text).as_str().len() as i64,
                }
                .wrapping_mul(31)
                .wrapping_add(tick + i as i64);
                match to {
                    0 | 1 => cx.board.write(ints[to], value),
                    2 | 3 => cx.board.write(floats[to - 2], (value % 1000) as f32 / 8.0),
                    _ => cx
                        .board
                        .write(text, Text::new(&format!("v{}", value % 997))),
                }
                if i == 0 && cx.tick % 2 == 1 {
                    Status::Running
                } else {
                    Status::Success
                }
            })
        })
        .collect();
    b.build(b.sequence("ops", leaves)).unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A snapshot taken at any tick and restored goes on exactly as the
    /// agent that was never interrupted, blackboard values included.
    #[test]
    fn a_restored_blackboard_goes_on_as_the_uninterrupted_one(
        ops in proptest::collection::vec((0u8..5, 0u8..5), 1..8),
        at in 0usize..12,
        event in proptest::bool::ANY,
    ) {
        let b = Builder::new();
        let tree = busy_tree(&b, &ops);
        let mode = if event { Mode::Event } else { Mode::Tick };
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        for _ in 0..at {
            agent.tick(&tree, &mut (), &());
        }
        let bytes = agent.snapshot(&tree).to_bytes();
        let mut restored = Agent::restore(&tree, &Snapshot::from_bytes(&bytes).unwrap()).unwrap();
        proptest::prop_assert_eq!(restored.board_values(&tree), agent.board_values(&tree));
        for _ in 0..12 {
            let (x, y) = (agent.tick(&tree, &mut (), &()), restored.tick(&tree, &mut (), &()));
            proptest::prop_assert_eq!(x, y);
            proptest::prop_assert_eq!(restored.board_values(&tree), agent.board_values(&tree));
        }
    }

    /// Hot reload onto a tree with the same keys keeps every value: the
    /// reloaded agent goes on as one that was never reloaded.
    #[test]
    fn a_reload_onto_the_same_keys_keeps_every_value(
        ops in proptest::collection::vec((0u8..5, 0u8..5), 1..8),
        at in 0usize..12,
    ) {
        let (b1, b2) = (Builder::new(), Builder::new());
        let (old, new) = (busy_tree(&b1, &ops), busy_tree(&b2, &ops));
        let (mut reloaded, mut steady) = (Agent::new(&old), Agent::new(&old));
        for _ in 0..at {
            reloaded.tick(&old, &mut (), &());
            steady.tick(&old, &mut (), &());
        }
        reloaded.reload(&old, &new, &mut (), &());
        proptest::prop_assert_eq!(reloaded.board_values(&new), steady.board_values(&old));
        for _ in 0..12 {
            let (x, y) = (reloaded.tick(&new, &mut (), &()), steady.tick(&old, &mut (), &()));
            proptest::prop_assert_eq!(x, y);
            proptest::prop_assert_eq!(reloaded.board_values(&new), steady.board_values(&old));
        }
    }
}
