//! Async leaves that hear their abort: the code given to
//! `async_action_with_abort` runs exactly once for each abort of a waiting
//! leaf — by a higher-priority branch, a timeout, a parallel that ended, a
//! reset, a reload that removed it — in both modes, on clones and restored
//! agents too, and never for a leaf that finished. The observer hears every
//! aborted wait as well, for leaves with and without abort code.
//!
//! Most of it is data: `testdata/semantics/async.toml` (a higher-priority
//! branch, a leaf started again, one that finished, an answer not yet
//! taken, a timeout, a parallel), run in both modes by
//! `crates/canopy-reference/tests/scenarios/`, whose harness checks each
//! abort is heard once, with its wait's ticket, by the observer too, and
//! that a late answer is refused. What stays here needs Rust: start code
//! that finishes at once, several leaves aborted in one tick in tree
//! order, reset, a poisoned agent, clones, reloads, snapshots, an observer
//! without events, and the wait table's size.

use canopy_core::{
    Agent, Builder, Completion, Draft, Event, Mode, NodeId, Observer, Policy, Snapshot, Status,
    Ticket, Tree,
};

/// The agent's data: what its async leaves asked for and what they heard.
#[derive(Default)]
struct Npc {
    /// `(leaf name, ticket)` for every start.
    asked: Vec<(&'static str, Ticket)>,
    /// `(leaf name, ticket)` for every abort heard.
    cancelled: Vec<(&'static str, Ticket)>,
    /// Makes the branch above the leaves take over.
    hurt: bool,
    /// Makes the "boom" action panic.
    explode: bool,
}

impl Npc {
    fn asked(&self) -> Vec<Ticket> {
        self.asked.iter().map(|&(_, t)| t).collect()
    }
    fn cancelled(&self) -> Vec<Ticket> {
        self.cancelled.iter().map(|&(_, t)| t).collect()
    }
}

/// An async leaf named `name` that records its starts and its aborts.
fn ask<'b>(b: &'b Builder<'b, Npc, ()>, name: &'static str) -> &'b Draft<'b, Npc, ()> {
    b.async_action_with_abort(
        name,
        move |cx, ticket| {
            cx.agent.asked.push((name, ticket));
            Status::Running
        },
        move |cx, ticket| cx.agent.cancelled.push((name, ticket)),
    )
}

/// `live`: flee when hurt, else ask for a path and wait for it.
fn priority_tree() -> Tree<Npc, ()> {
    let b = Builder::<Npc, ()>::new();
    b.build(b.reactive_selector(
        "live",
        [
            b.condition("hurt?", |cx| cx.agent.hurt),
            ask(&b, "find path"),
        ],
    ))
    .unwrap()
}

fn agent_in(tree: &Tree<Npc, ()>, mode: Mode) -> Agent {
    let mut agent = Agent::with_id(tree, 7);
    agent.set_mode(tree, mode);
    agent
}

const MODES: [Mode; 2] = [Mode::Tick, Mode::Event];

/// Hears only aborted waits.
#[derive(Default)]
struct Cancels(Vec<(NodeId, Ticket)>);

impl Observer for Cancels {
    fn observes(&self) -> bool {
        false
    }
    fn event(&mut self, _: Event) {
        unreachable!("an observer saying `false` gets no events");
    }
    fn wait_aborted(&mut self, node: NodeId, ticket: Ticket) {
        self.0.push((node, ticket));
    }
}

#[test]
fn a_leaf_finishing_at_once_hears_no_abort() {
    for mode in MODES {
        let b = Builder::<Npc, ()>::new();
        let tree = b
            .build(b.reactive_selector(
                "live",
                [
                    b.condition("hurt?", |cx| cx.agent.hurt),
                    b.sequence(
                        "errand",
                        [
                            b.async_action_with_abort(
                                "cached",
                                |_, _| Status::Success,
                                |cx, t| cx.agent.cancelled.push(("cached", t)),
                            ),
                            ask(&b, "find path"),
                        ],
                    ),
                ],
            ))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        npc.hurt = true;
        agent.tick(&tree, &mut npc, &());
        let heard: Vec<&str> = npc.cancelled.iter().map(|&(n, _)| n).collect();
        assert_eq!(heard, ["find path"], "{mode}");
    }
}

#[test]
fn a_parallel_that_ends_aborts_its_waiting_leaves_deepest_first_each_heard_once() {
    for mode in MODES {
        let b = Builder::<Npc, ()>::new();
        let tree = b
            .build(b.parallel(
                "together",
                Policy::One,
                Policy::One,
                [
                    ask(&b, "first"),
                    b.sequence("inner", [ask(&b, "second")]),
                    b.action("done?", |cx| {
                        if cx.agent.hurt {
                            Status::Success
                        } else {
                            Status::Running
                        }
                    }),
                ],
            ))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        agent.tick(&tree, &mut npc, &());
        npc.hurt = true;
        assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success);
        let heard: Vec<&str> = npc.cancelled.iter().map(|&(n, _)| n).collect();
        assert_eq!(
            heard,
            ["first", "second"],
            "{mode}: in tree order, once each"
        );
        assert_eq!(npc.cancelled(), npc.asked(), "{mode}");
    }
}

#[test]
fn a_reset_is_heard_once_and_a_second_reset_hears_nothing() {
    for mode in MODES {
        let tree = priority_tree();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        agent.reset(&tree, &mut npc, &());
        assert_eq!(npc.cancelled(), npc.asked(), "{mode}");
        agent.reset(&tree, &mut npc, &());
        assert_eq!(npc.cancelled.len(), 1, "{mode}");
    }
}

#[test]
fn a_poisoned_agents_reset_runs_no_code_so_its_waits_go_stale_unheard() {
    for mode in MODES {
        let b = Builder::<Npc, ()>::new();
        let tree = b
            .build(b.parallel(
                "both",
                Policy::All,
                Policy::One,
                [
                    ask(&b, "ask"),
                    b.action("boom", |cx| {
                        assert!(!cx.agent.explode, "boom");
                        Status::Running
                    }),
                ],
            ))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        npc.explode = true;
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            agent.tick(&tree, &mut npc, &());
        }));
        assert!(panicked.is_err() && agent.is_poisoned());
        agent.reset(&tree, &mut npc, &());
        assert_eq!(npc.cancelled.len(), 0, "{mode}");
        let ticket = npc.asked[0].1;
        assert_eq!(agent.complete(ticket, Status::Success), Completion::Aborted);
    }
}

#[test]
fn the_observer_hears_every_aborted_wait_with_or_without_abort_code() {
    for mode in MODES {
        let b = Builder::<Npc, ()>::new();
        let tree = b
            .build(b.reactive_selector(
                "live",
                [
                    b.condition("hurt?", |cx| cx.agent.hurt),
                    b.parallel(
                        "both",
                        Policy::All,
                        Policy::One,
                        [
                            ask(&b, "heard"),
                            b.async_action("unheard", |cx, t| {
                                cx.agent.asked.push(("unheard", t));
                                Status::Running
                            }),
                        ],
                    ),
                ],
            ))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        let mut cancels = Cancels::default();
        agent.tick_observed(&tree, &mut npc, &(), &mut cancels);
        agent.tick_observed(&tree, &mut npc, &(), &mut cancels);
        assert!(cancels.0.is_empty());
        npc.hurt = true;
        agent.tick_observed(&tree, &mut npc, &(), &mut cancels);
        let heard: Vec<Ticket> = cancels.0.iter().map(|&(_, t)| t).collect();
        assert_eq!(heard, npc.asked(), "{mode}: both leaves");
        let nodes: Vec<usize> = cancels.0.iter().map(|&(n, _)| n.index()).collect();
        assert_eq!(nodes, [3, 4], "{mode}");
        assert_eq!(
            npc.cancelled.len(),
            1,
            "{mode}: only one leaf has abort code"
        );
    }
}

#[test]
fn a_clone_hears_its_own_abort_with_its_own_ticket() {
    for mode in MODES {
        let tree = priority_tree();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        let mut copy = agent.clone();
        let copys: Vec<Ticket> = copy.pending_tickets().collect();
        let (mut copy_npc, original) = (Npc::default(), npc.asked[0].1);
        copy_npc.hurt = true;
        copy.tick(&tree, &mut copy_npc, &());
        assert_eq!(copy_npc.cancelled(), copys, "{mode}");
        assert_ne!(copys, [original], "{mode}: the clone's own ticket");
        assert!(npc.cancelled.is_empty(), "{mode}: the original still waits");
    }
}

/// A reload onto `new`: the leaf's abort code says which tree it came from.
fn tree_named(tag: &'static str, keep_leaf: bool) -> Tree<Npc, ()> {
    let b = Builder::<Npc, ()>::new();
    let leaf = b.async_action_with_abort(
        "find path",
        |cx, ticket| {
            cx.agent.asked.push(("find path", ticket));
            Status::Running
        },
        move |cx, ticket| cx.agent.cancelled.push((tag, ticket)),
    );
    let other = b.action("idle", |_| Status::Running);
    let hurt = b.condition("hurt?", |cx| cx.agent.hurt);
    b.build(b.reactive_selector("live", [hurt, if keep_leaf { leaf } else { other }]))
        .unwrap()
}

#[test]
fn a_reload_that_removes_the_waiting_leaf_is_heard_once_by_the_old_trees_code() {
    for mode in MODES {
        let (old, new) = (tree_named("old", true), tree_named("new", false));
        let (mut npc, mut agent) = (Npc::default(), agent_in(&old, mode));
        agent.tick(&old, &mut npc, &());
        let mut cancels = Cancels::default();
        let report = agent.reload_observed(&old, &new, &mut npc, &(), &mut cancels);
        let find_path = old.nodes().nth(2).unwrap().id();
        assert_eq!(report.aborted, [find_path], "{mode}");
        assert_eq!(npc.cancelled, [("old", npc.asked[0].1)], "{mode}");
        assert_eq!(cancels.0, [(find_path, npc.asked[0].1)], "{mode}");
        for _ in 0..3 {
            agent.tick(&new, &mut npc, &());
        }
        npc.hurt = true;
        agent.tick(&new, &mut npc, &());
        assert_eq!(npc.cancelled.len(), 1, "{mode}: heard once");
    }
}

#[test]
fn a_reload_that_keeps_the_waiting_leaf_is_silent_and_its_later_abort_heard_once() {
    for mode in MODES {
        let (old, new) = (tree_named("old", true), tree_named("new", true));
        let (mut npc, mut agent) = (Npc::default(), agent_in(&old, mode));
        agent.tick(&old, &mut npc, &());
        let report = agent.reload(&old, &new, &mut npc, &());
        assert!(report.aborted.is_empty(), "{mode}");
        assert!(npc.cancelled.is_empty(), "{mode}: nothing was aborted");
        agent.tick(&new, &mut npc, &());
        npc.hurt = true;
        agent.tick(&new, &mut npc, &());
        agent.tick(&new, &mut npc, &());
        assert_eq!(npc.cancelled, [("new", npc.asked[0].1)], "{mode}");
        assert_eq!(
            npc.asked.len(),
            1,
            "{mode}: the kept wait was not asked again"
        );
    }
}

#[test]
fn a_restored_waiting_leaf_hears_its_abort_once_with_the_restored_agents_ticket() {
    for mode in MODES {
        let tree = priority_tree();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        let bytes = agent.snapshot(&tree).to_bytes();
        let snapshot = Snapshot::from_bytes(&bytes).unwrap();
        let mut restored = Agent::restore(&tree, &snapshot).unwrap();
        assert_eq!(restored.mode(), mode);
        let original = npc.asked[0].1;
        let traded = restored.reissue(original).unwrap();
        let mut again = Npc {
            hurt: true,
            ..Npc::default()
        };
        assert!(again.cancelled.is_empty(), "restoring aborts nothing");
        restored.tick(&tree, &mut again, &());
        restored.tick(&tree, &mut again, &());
        assert_eq!(again.cancelled(), [traded], "{mode}");
        assert_eq!(
            restored.complete(traded, Status::Success),
            Completion::Aborted
        );
        // The original is untouched by its copy's abort, and hears its own.
        assert!(npc.cancelled.is_empty(), "{mode}");
        npc.hurt = true;
        agent.tick(&tree, &mut npc, &());
        assert_eq!(npc.cancelled(), [original], "{mode}");
    }
}

#[test]
fn a_restored_agent_reset_hears_the_restored_wait_once() {
    for mode in MODES {
        let tree = priority_tree();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        let mut restored = Agent::restore(&tree, &agent.snapshot(&tree)).unwrap();
        let pending: Vec<Ticket> = restored.pending_tickets().collect();
        let mut again = Npc::default();
        restored.reset(&tree, &mut again, &());
        restored.reset(&tree, &mut again, &());
        assert_eq!(again.cancelled(), pending, "{mode}");
    }
}

#[test]
fn an_agent_with_one_async_leaf_carries_56_bytes_of_wait_table() {
    let b = Builder::<Npc, ()>::new();
    let tree = b.build(ask(&b, "ask")).unwrap();
    let agent = Agent::new(&tree);
    assert_eq!(agent.memory().waits, 56);
    assert_eq!(agent.memory().schedule, 0);
}

#[test]
fn a_waiting_leaf_a_reload_moves_to_another_node_keeps_its_wait_its_tickets_and_its_snapshot() {
    for mode in MODES {
        let b = Builder::<Npc, ()>::new();
        let old = b.build(b.sequence("s", [ask(&b, "find path")])).unwrap();
        let b = Builder::<Npc, ()>::new();
        let new = b
            .build(b.sequence("s", [b.always_success("first"), ask(&b, "find path")]))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&old, mode));
        agent.tick(&old, &mut npc, &());
        let before = npc.asked[0].1;
        let report = agent.reload(&old, &new, &mut npc, &());
        let moved = new.nodes().nth(2).unwrap().id();
        assert_eq!(report.kept.last(), Some(&moved), "{mode}");
        let now: Vec<Ticket> = agent.pending_tickets().collect();
        assert_eq!(now.len(), 1);
        assert_eq!(
            now[0].node(),
            moved,
            "{mode}: its tickets name its new node"
        );
        // A snapshot of it restores (each waiting leaf holds a wait of its node).
        let mut restored = Agent::restore(&new, &agent.snapshot(&new)).unwrap();
        let mut again = Npc {
            hurt: true,
            ..Npc::default()
        };
        restored.reset(&new, &mut again, &());
        assert_eq!(again.cancelled.len(), 1, "{mode}");
        // The ticket issued before the reload still completes the wait.
        assert!(
            agent.complete(before, Status::Success).is_completed(),
            "{mode}"
        );
        assert_eq!(agent.tick(&new, &mut npc, &()), Status::Success, "{mode}");
        assert!(npc.cancelled.is_empty(), "{mode}");
    }
}
