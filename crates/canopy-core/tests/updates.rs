//! Update counters: every write of a counted key is counted, whoever
//! writes it (a port, a script, the game); unset empties the key; the
//! counters live in the agent's memory, so snapshots and hot reload carry
//! them; keys nobody counts are left alone.

use canopy_core::{Agent, Builder, Input, Output, Status, Tree, board::Updates};

/// A tree whose leaf writes `hp` through an output port and whose script
/// adds to `hp` and copies it into `copy`, with `hp` and `copy` counted
/// and `other` written but not counted.
fn counted() -> (Tree<(), ()>, Updates, Updates) {
    let b = Builder::<(), ()>::new();
    let hp = b.key::<i32>("hp").unwrap();
    b.key::<i32>("other").unwrap();
    let out = Output::from(hp);
    let updates = b.updates("hp");
    let copy = b.updates("copy");
    let tree = b
        .build(b.sequence(
            "s",
            [
                b.action("set", move |cx| {
                    cx.board.set(&out, 10);
                    Status::Success
                }),
                b.eval("script", "hp += 1; copy := hp; other := 3").unwrap(),
            ],
        ))
        .unwrap();
    (tree, updates, copy)
}

#[test]
fn ports_scripts_and_the_game_each_count_one_write() {
    let (tree, hp, copy) = counted();
    let mut agent = Agent::new(&tree);
    assert_eq!(agent.board(&tree).updates(hp), Some(0));
    assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
    // The port's write and the script's `+=`; `copy := hp` once.
    assert_eq!(agent.board(&tree).updates(hp), Some(2));
    assert_eq!(agent.board(&tree).updates(copy), Some(1));
    let key = tree.key::<i32>("hp").unwrap();
    agent.board_mut(&tree).write(key, 11);
    assert_eq!(agent.board(&tree).updates(hp), Some(3));
    agent.tick(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).updates(hp), Some(5));
}

#[test]
fn a_write_of_the_same_value_counts_too() {
    let b = Builder::<(), ()>::new();
    let n = b.key::<u8>("n").unwrap();
    let updates = b.updates("n");
    let tree = b.build(b.always_success("ok")).unwrap();
    let mut agent = Agent::new(&tree);
    let mut board = agent.board_mut(&tree);
    board.write(n, 0);
    board.write(n, 0);
    assert_eq!(board.updates(updates), Some(2));
}

#[test]
fn unset_empties_the_key_until_the_next_write_which_counts_from_one() {
    let (tree, hp, _) = counted();
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut (), &());
    let key = tree.key::<i32>("hp").unwrap();
    let mut board = agent.board_mut(&tree);
    assert_eq!((board.read(key), board.updates(hp)), (11, Some(2)));
    board.unset(hp);
    assert_eq!((board.read(key), board.updates(hp)), (0, None));
    board.unset(hp);
    assert_eq!(board.updates(hp), None);
    board.write(key, 4);
    assert_eq!((board.read(key), board.updates(hp)), (4, Some(1)));
}

#[test]
fn a_key_only_counted_takes_its_type_from_its_other_uses() {
    let b = Builder::<(), ()>::new();
    let updates = b.updates("speed");
    let speed = b.key::<f64>("speed").unwrap();
    let tree = b.build(b.eval("go", "speed := 2.5").unwrap()).unwrap();
    assert_eq!(tree.slots().len(), 1);
    assert_eq!(tree.slots()[0].ty.name(), "double");
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).read(speed), 2.5);
    assert_eq!(agent.board(&tree).updates(updates), Some(1));
}

#[test]
fn counters_are_saved_in_snapshots_and_restored() {
    let (tree, hp, copy) = counted();
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut (), &());
    let snapshot = agent.snapshot(&tree);
    let mut restored = Agent::restore(&tree, &snapshot).unwrap();
    assert_eq!(restored.board(&tree).updates(hp), Some(2));
    restored.board_mut(&tree).unset(copy);
    let unset = restored.snapshot(&tree);
    let mut again = Agent::restore(&tree, &unset).unwrap();
    assert_eq!(again.board(&tree).updates(copy), None);
    // Both go on counting from where they were.
    agent.tick(&tree, &mut (), &());
    again.tick(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).updates(hp), Some(4));
    assert_eq!(again.board(&tree).updates(hp), Some(4));
    assert_eq!(again.board(&tree).updates(copy), Some(1));
}

#[test]
fn a_tree_counting_keys_is_another_tree_to_a_snapshot() {
    let build = |count: bool| {
        let b = Builder::<(), ()>::new();
        b.key::<i32>("hp").unwrap();
        if count {
            b.updates("hp");
        }
        b.build(b.always_success("ok")).unwrap()
    };
    let (plain, counting) = (build(false), build(true));
    assert_ne!(plain.fingerprint(), counting.fingerprint());
    assert_eq!(plain.fingerprint(), build(false).fingerprint());
    let snapshot = Agent::new(&plain).snapshot(&plain);
    assert!(Agent::restore(&counting, &snapshot).is_err());
}

#[test]
fn hot_reload_keeps_a_counter_with_its_key_and_drops_it_with_it() {
    let (old, _, _) = counted();
    let mut agent = Agent::new(&old);
    agent.tick(&old, &mut (), &());
    // The new tree counts hp (kept, same type) and copy (now a float: a
    // new key, counted from 0), and no longer writes hp from a port.
    let b = Builder::<(), ()>::new();
    b.key::<i32>("hp").unwrap();
    b.key::<f64>("copy").unwrap();
    let (hp, copy) = (b.updates("hp"), b.updates("copy"));
    let new = b.build(b.eval("script", "hp += 1").unwrap()).unwrap();
    agent.reload(&old, &new, &mut (), &());
    assert_eq!(agent.board(&new).updates(hp), Some(2));
    assert_eq!(agent.board(&new).updates(copy), Some(0));
    agent.tick(&new, &mut (), &());
    assert_eq!(agent.board(&new).updates(hp), Some(3));
    let value = new.key::<i32>("hp").unwrap();
    assert_eq!(agent.board(&new).read(value), 12);
}

#[test]
fn a_reset_agent_counts_from_zero() {
    let (tree, hp, _) = counted();
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut (), &());
    agent.reset(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).updates(hp), Some(0));
}

#[test]
fn reads_of_a_counted_key_are_not_writes() {
    let b = Builder::<(), ()>::new();
    let hp = b.key::<i32>("hp").unwrap();
    let updates = b.updates("hp");
    let input = Input::from(hp);
    let tree = b
        .build(b.condition("alive?", move |cx| cx.board.get(&input) > 0))
        .unwrap();
    let mut agent = Agent::new(&tree);
    agent.tick(&tree, &mut (), &());
    agent.board_mut(&tree).write(hp, 1);
    agent.tick(&tree, &mut (), &());
    assert_eq!(agent.board(&tree).updates(updates), Some(1));
}
