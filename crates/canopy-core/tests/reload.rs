//! Hot reload, case by case: what is kept, what is aborted (with its
//! terminate hook), and what the parent does next.

use std::sync::{Arc, Mutex};

use canopy_core::{Agent, Builder, Event, EventKind, Mode, Observer, Status, Tree};

type Log = Arc<Mutex<Vec<String>>>;
type T = Tree<Log, ()>;

/// Every event as `kind name`, with the tree it came from for names.
struct Names<'t> {
    tree: &'t T,
    out: Vec<String>,
}

impl Observer for Names<'_> {
    fn event(&mut self, e: Event) {
        let name = self.tree.node(e.node).name();
        let line = match e.kind {
            EventKind::Enter => format!("enter {name}"),
            EventKind::Update(s) => format!("update {name} {s}"),
            EventKind::Exit(s) => format!("exit {name} {s}"),
            EventKind::Abort => format!("abort {name}"),
        };
        self.out.push(line);
    }
}

/// A leaf that runs for `ticks` updates, logging each.
fn work<'b>(
    b: &'b Builder<'b, Log, ()>,
    name: &'static str,
    ticks: u32,
) -> &'b canopy_core::Draft<'b, Log, ()> {
    let n = std::sync::atomic::AtomicU32::new(0);
    b.action(name, move |cx| {
        cx.agent.lock().unwrap().push(format!("{name}@{}", cx.tick));
        let k = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if k + 1 >= ticks {
            Status::Success
        } else {
            Status::Running
        }
    })
}

fn names(tree: &T, ids: &[canopy_core::NodeId]) -> Vec<String> {
    ids.iter()
        .map(|&id| tree.node(id).name().to_string())
        .collect()
}

/// Tick `agent` once on `tree`, returning its events.
fn tick(agent: &mut Agent, tree: &T, log: &mut Log) -> Vec<String> {
    let mut names = Names {
        tree,
        out: Vec::new(),
    };
    agent.tick_observed(tree, log, &(), &mut names);
    names.out
}

fn day<'b>(b: &'b Builder<'b, Log, ()>, middle: &[(&'static str, u32)]) -> T {
    let mut kids = vec![b.wait("wake", 1)];
    kids.extend(middle.iter().map(|&(n, t)| b.wait(n, t)));
    kids.push(b.always_running("rest"));
    b.build(b.sequence("day", kids)).unwrap()
}

#[test]
fn an_identical_tree_changes_nothing() {
    for mode in [Mode::Tick, Mode::Event] {
        let (b1, b2) = (Builder::new(), Builder::new());
        let (old, new) = (day(&b1, &[("eat", 5)]), day(&b2, &[("eat", 5)]));
        let (mut a, mut control) = (Agent::new(&old), Agent::new(&old));
        a.set_mode(&old, mode);
        control.set_mode(&old, mode);
        let mut log = Log::default();
        for _ in 0..3 {
            tick(&mut a, &old, &mut log);
            tick(&mut control, &old, &mut log);
        }
        let report = a.reload(&old, &new, &mut log, &());
        assert_eq!(names(&new, &report.kept), ["day", "eat"]);
        assert!(report.aborted.is_empty());
        for _ in 0..5 {
            assert_eq!(
                tick(&mut a, &new, &mut log),
                tick(&mut control, &old, &mut log),
                "{mode}"
            );
        }
    }
}

#[test]
fn an_inserted_sibling_before_the_running_child_keeps_it_running() {
    let (b1, b2) = (Builder::new(), Builder::new());
    let old = day(&b1, &[("eat", 4)]);
    let new = day(&b2, &[("stretch", 1), ("eat", 4)]);
    let mut a = Agent::new(&old);
    let mut log = Log::default();
    for _ in 0..3 {
        tick(&mut a, &old, &mut log); // wake, then eat entered at tick 2
    }
    let report = a.reload(&old, &new, &mut log, &());
    assert_eq!(names(&new, &report.kept), ["day", "eat"]);
    // eat ends at tick 6 (entered at 2, 4 ticks), then rest: stretch is
    // before it and is not run.
    assert_eq!(
        tick(&mut a, &new, &mut log),
        ["update eat Running", "update day Running"]
    );
    assert_eq!(
        tick(&mut a, &new, &mut log),
        ["update eat Running", "update day Running"]
    );
    assert_eq!(
        tick(&mut a, &new, &mut log),
        [
            "update eat Success",
            "exit eat Success",
            "enter rest",
            "update rest Running",
            "update day Running"
        ]
    );
}

#[test]
fn a_renamed_running_node_is_aborted_and_its_place_entered_afresh() {
    let (b1, b2) = (Builder::new(), Builder::new());
    let old = b1
        .build(b1.sequence(
            "s",
            [
                b1.wait("w", 1),
                work(&b1, "old name", 10),
                work(&b1, "after", 1),
            ],
        ))
        .unwrap();
    let new = b2
        .build(b2.sequence(
            "s",
            [
                b2.wait("w", 1),
                work(&b2, "new name", 10),
                work(&b2, "after", 1),
            ],
        ))
        .unwrap();
    let mut a = Agent::new(&old);
    let mut log = Log::default();
    tick(&mut a, &old, &mut log);
    tick(&mut a, &old, &mut log);
    let mut names_seen = Names {
        tree: &old,
        out: Vec::new(),
    };
    let report = a.reload_observed(&old, &new, &mut log, &(), &mut names_seen);
    assert_eq!(names_seen.out, ["abort old name"]);
    assert_eq!(names(&old, &report.aborted), ["old name"]);
    assert_eq!(names(&new, &report.kept), ["s"]);
    assert_eq!(
        tick(&mut a, &new, &mut log),
        [
            "enter new name",
            "update new name Running",
            "update s Running"
        ]
    );
}

#[test]
fn a_removed_subtree_aborts_exactly_that_branch_deepest_first() {
    for mode in [Mode::Tick, Mode::Event] {
        let (b1, b2) = (Builder::new(), Builder::new());
        let old = b1
            .build(b1.parallel(
                "p",
                canopy_core::Policy::All,
                canopy_core::Policy::One,
                [
                    b1.sequence("keep", [b1.wait("k", 9)]),
                    b1.sequence("drop", [b1.inverter("inv", b1.wait("d", 9))]),
                ],
            ))
            .unwrap();
        let new = b2
            .build(b2.parallel(
                "p",
                canopy_core::Policy::All,
                canopy_core::Policy::One,
                [b2.sequence("keep", [b2.wait("k", 9)])],
            ))
            .unwrap();
        let mut a = Agent::new(&old);
        a.set_mode(&old, mode);
        let mut log = Log::default();
        tick(&mut a, &old, &mut log);
        let mut seen = Names {
            tree: &old,
            out: Vec::new(),
        };
        let report = a.reload_observed(&old, &new, &mut log, &(), &mut seen);
        assert_eq!(seen.out, ["abort d", "abort inv", "abort drop"], "{mode}");
        assert_eq!(names(&new, &report.kept), ["p", "keep", "k"]);
        assert_eq!(a.active_tasks(&new), 3);
        let mut statuses = Vec::new();
        for _ in 0..8 {
            statuses.push(a.tick(&new, &mut log, &()));
        }
        // k was entered at tick 1: it ends at tick 10, the 9th tick after it.
        assert_eq!(statuses, [Status::Running; 8]);
        assert_eq!(a.tick(&new, &mut log, &()), Status::Success, "{mode}");
    }
}

#[test]
fn an_added_subtree_is_entered_by_a_parallel_on_its_next_update() {
    for mode in [Mode::Tick, Mode::Event] {
        let (b1, b2) = (Builder::new(), Builder::new());
        let old = b1
            .build(b1.parallel(
                "p",
                canopy_core::Policy::All,
                canopy_core::Policy::One,
                [b1.wait("a", 5)],
            ))
            .unwrap();
        let new = b2
            .build(b2.parallel(
                "p",
                canopy_core::Policy::All,
                canopy_core::Policy::One,
                [b2.wait("a", 5), b2.wait("b", 2)],
            ))
            .unwrap();
        let mut a = Agent::new(&old);
        a.set_mode(&old, mode);
        let mut log = Log::default();
        tick(&mut a, &old, &mut log);
        a.reload(&old, &new, &mut log, &());
        let events = tick(&mut a, &new, &mut log);
        assert!(
            events.contains(&"enter b".to_string()),
            "{mode}: {events:?}"
        );
        assert_eq!(a.active_tasks(&new), 3);
    }
}

#[test]
fn a_changed_parameter_keeps_state_and_a_changed_kind_does_not() {
    let (b1, b2, b3) = (Builder::new(), Builder::new(), Builder::new());
    let old = b1
        .build(b1.sequence("s", [b1.wait("w", 10), b1.always_running("z")]))
        .unwrap();
    let longer = b2
        .build(b2.sequence("s", [b2.wait("w", 4), b2.always_running("z")]))
        .unwrap();
    let other = b3
        .build(b3.sequence("s", [b3.always_running("w"), b3.always_running("z")]))
        .unwrap();
    let mut log = Log::default();
    let mut a = Agent::new(&old);
    for _ in 0..2 {
        a.tick(&old, &mut log, &());
    }
    let mut b = a.clone();
    // Same Wait, 4 ticks now: entered at tick 1, it ends at tick 5.
    assert_eq!(
        names(&longer, &a.reload(&old, &longer, &mut log, &()).kept),
        ["s", "w"]
    );
    let running = |a: &Agent, t: &T| -> Vec<String> {
        a.running(t)
            .iter()
            .map(|v| t.node(v.node).name().to_string())
            .collect()
    };
    a.tick(&longer, &mut log, &()); // tick 3
    a.tick(&longer, &mut log, &()); // tick 4
    assert_eq!(running(&a, &longer), ["s", "w"]);
    a.tick(&longer, &mut log, &()); // tick 5: w ends, z runs
    assert_eq!(running(&a, &longer), ["s", "z"]);
    // A Wait that became an AlwaysRunning is not the same task.
    let report = b.reload(&old, &other, &mut log, &());
    assert_eq!(
        (names(&other, &report.kept), names(&old, &report.aborted)),
        (vec!["s".to_string()], vec!["w".to_string()])
    );
}

#[test]
fn a_repeat_whose_count_no_longer_fits_is_aborted() {
    let (b1, b2) = (Builder::new(), Builder::new());
    let old = b1
        .build(b1.sequence(
            "s",
            [b1.repeat("r", 5, b1.wait("w", 1)), b1.always_running("z")],
        ))
        .unwrap();
    let new = b2
        .build(b2.sequence(
            "s",
            [b2.repeat("r", 2, b2.wait("w", 1)), b2.always_running("z")],
        ))
        .unwrap();
    let mut log = Log::default();
    let mut a = Agent::new(&old);
    for _ in 0..5 {
        a.tick(&old, &mut log, &());
    }
    let report = a.reload(&old, &new, &mut log, &());
    assert_eq!(names(&old, &report.aborted), ["w", "r"]);
    // The sequence enters "r" afresh, at its own place.
    assert_eq!(a.running(&new).len(), 1);
    assert_eq!(a.running(&new)[0].state, "entering child 1 of 2 next");
}

/// A SequenceWithMemory that pauses after a child that finished at once:
/// first, second (always running), then `last`.
fn steps<'b>(b: &'b Builder<'b, Log, ()>, last: &[&'static str]) -> T {
    let mut kids = vec![b.always_success("first"), b.always_running("second")];
    kids.extend(last.iter().map(|&name| b.always_success(name)));
    let pause = canopy_core::nodes::SequenceWithMemory { pause: Some(true) };
    b.build(b.node("steps", pause, kids)).unwrap()
}

#[test]
fn a_sequence_with_memory_reloaded_in_a_pause_enters_its_next_child() {
    for mode in [Mode::Tick, Mode::Event] {
        let (b1, b2) = (Builder::new(), Builder::new());
        let (old, new) = (steps(&b1, &[]), steps(&b2, &["third"]));
        let mut a = Agent::new(&old);
        a.set_mode(&old, mode);
        let mut log = Log::default();
        // The first child succeeds at once: the sequence pauses.
        assert_eq!(
            tick(&mut a, &old, &mut log),
            [
                "enter steps",
                "enter first",
                "update first Success",
                "exit first Success",
                "update steps Running"
            ],
            "{mode}"
        );
        // A child added at the end changes the tree; the pause holds.
        let report = a.reload(&old, &new, &mut log, &());
        assert_eq!(names(&new, &report.kept), ["steps"], "{mode}");
        assert_eq!(
            tick(&mut a, &new, &mut log),
            [
                "enter second",
                "update second Running",
                "update steps Running"
            ],
            "{mode}"
        );
    }
}

#[test]
fn a_sequence_whose_remaining_children_were_removed_says_it_finishes_next() {
    let (b1, b2) = (Builder::new(), Builder::new());
    let old = b1
        .build(b1.sequence("s", [b1.always_success("a"), b1.always_running("z")]))
        .unwrap();
    let new = b2
        .build(b2.sequence("s", [b2.always_success("a")]))
        .unwrap();
    let mut log = Log::default();
    let mut a = Agent::new(&old);
    a.tick(&old, &mut log, &());
    a.reload(&old, &new, &mut log, &());
    let running: Vec<String> = a.running(&new).iter().map(|r| r.state.clone()).collect();
    // Not "entering child 2 of 1".
    assert_eq!(
        running,
        ["past its last child (of 1), finishing next update"]
    );
    assert_eq!(a.tick(&new, &mut log, &()), canopy_core::Status::Success);
}
