//! Async leaves and tickets, and what event mode does (and does not) run:
//! exact statuses, ticks and events.

use canopy_core::{
    Agent, Builder, Completion, Event, EventKind, Mode, NodeId, Observer, Policy, Status, Ticket,
    Tree,
};

#[derive(Default)]
struct Npc {
    tickets: Vec<Ticket>,
    starts: u32,
}

fn ask<'b>(b: &'b Builder<'b, Npc, ()>) -> &'b canopy_core::Draft<'b, Npc, ()> {
    b.async_action("ask", |cx, ticket| {
        cx.agent.starts += 1;
        cx.agent.tickets.push(ticket);
        Status::Running
    })
}

#[derive(Default)]
struct Log(Vec<(u32, NodeId, EventKind)>);

impl Observer for Log {
    fn event(&mut self, e: Event) {
        self.0.push((e.tick, e.node, e.kind));
    }
}

fn agent_in(tree: &Tree<Npc, ()>, mode: Mode) -> Agent {
    let mut agent = Agent::with_id(tree, 3);
    agent.set_mode(tree, mode);
    agent
}

#[test]
fn a_suspended_leaf_finishes_on_the_tick_after_its_ticket_is_completed() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::new();
        let tree = b
            .build(b.sequence("s", [ask(&b), b.always_success("then")]))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        for _ in 0..5 {
            assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running, "{mode}");
        }
        assert_eq!((npc.starts, npc.tickets.len()), (1, 1), "started once");
        let ticket = npc.tickets[0];
        assert_eq!((ticket.agent(), ticket.node().index()), (3, 1));
        assert_eq!(
            agent.complete(ticket, Status::Success),
            Completion::Completed
        );
        assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success, "{mode}");
        assert_eq!(agent.active_tasks(&tree), 0);
    }
}

#[test]
fn a_failed_completion_fails_the_leaf() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::new();
        let tree = b
            .build(b.selector("s", [ask(&b), b.always_success("plan b")]))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        agent.tick(&tree, &mut npc, &());
        assert_eq!(
            agent.complete(npc.tickets[0], Status::Failure),
            Completion::Completed
        );
        let mut log = Log::default();
        assert_eq!(
            agent.tick_observed(&tree, &mut npc, &(), &mut log),
            Status::Success
        );
        let ask = tree.nodes().nth(1).unwrap().id();
        assert!(
            log.0.contains(&(2, ask, EventKind::Exit(Status::Failure))),
            "{mode}"
        );
    }
}

#[test]
fn stale_tickets_do_nothing() {
    for mode in [Mode::Tick, Mode::Event] {
        let b = Builder::new();
        // A race: the wait ends on tick 4 and the parallel aborts the leaf;
        // the root starts over on tick 5 and the leaf gets a new ticket for
        // the same wait entry.
        let tree = b
            .build(b.parallel(
                "race",
                Policy::One,
                Policy::One,
                [b.wait("deadline", 3), ask(&b)],
            ))
            .unwrap();
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        let statuses: Vec<Status> = (0..5).map(|_| agent.tick(&tree, &mut npc, &())).collect();
        use Status::*;
        assert_eq!(
            statuses,
            [Running, Running, Running, Success, Running],
            "{mode}"
        );
        assert_eq!(npc.starts, 2);
        let (old, new) = (npc.tickets[0], npc.tickets[1]);
        assert_ne!(old, new);
        // Aborted, and its slot has waited again since.
        assert_eq!(agent.complete(old, Status::Success), Completion::Ended);
        assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running, "{mode}");
        assert_eq!(
            agent.complete(new, Status::Running),
            Completion::NotAResult,
            "Running completes nothing"
        );
        let mut other = Agent::with_id(&tree, 4);
        assert_eq!(
            other.complete(new, Status::Success),
            Completion::OtherAgent,
            "another agent's ticket"
        );
        assert_eq!(agent.complete(new, Status::Success), Completion::Completed);
        assert_eq!(
            agent.complete(new, Status::Success),
            Completion::AlreadyCompleted,
            "completed twice"
        );
        assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success, "{mode}");
    }
}

#[test]
fn finishing_at_once_or_resetting_makes_the_ticket_stale() {
    let b = Builder::<Npc, ()>::new();
    let tree = b
        .build(b.async_action("quick", |cx, t| {
            cx.agent.tickets.push(t);
            if cx.tick == 1 {
                Status::Success
            } else {
                Status::Running
            }
        }))
        .unwrap();
    let (mut npc, mut agent) = (Npc::default(), Agent::new(&tree));
    assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success);
    assert_eq!(
        agent.complete(npc.tickets[0], Status::Success),
        Completion::Ended
    );
    assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running);
    agent.reset(&tree, &mut npc, &());
    assert_eq!(
        agent.complete(npc.tickets[1], Status::Success),
        Completion::Aborted
    );
}

#[test]
fn event_mode_leaves_a_suspended_agent_alone() {
    let b = Builder::new();
    let tree = b
        .build(b.repeat("again", 2, b.sequence("s", [b.wait("w", 2), ask(&b)])))
        .unwrap();
    let run = |mode: Mode| {
        let (mut npc, mut agent, mut log) = (Npc::default(), agent_in(&tree, mode), Log::default());
        let mut statuses = Vec::new();
        for t in 1..=12 {
            if t == 8 {
                assert_eq!(
                    agent.complete(npc.tickets[0], Status::Success),
                    Completion::Completed
                );
            }
            statuses.push(agent.tick_observed(&tree, &mut npc, &(), &mut log));
        }
        (statuses, log.0)
    };
    let (tick_statuses, tick_log) = run(Mode::Tick);
    let (event_statuses, event_log) = run(Mode::Event);
    assert_eq!(event_statuses, tick_statuses);
    let updates = |log: &[(u32, NodeId, EventKind)], t: u32| {
        log.iter()
            .filter(|(tick, _, k)| *tick == t && matches!(k, EventKind::Update(_)))
            .count()
    };
    // Tick 1 enters repeat, sequence, wait; tick 3 the wait ends and the
    // leaf starts. Ticks 4 to 7 it waits: tick mode walks the tree (3
    // updates a tick), event mode does nothing at all.
    for t in 4..=7 {
        assert_eq!(
            (updates(&tick_log, t), updates(&event_log, t)),
            (3, 0),
            "tick {t}"
        );
    }
    // The wait sleeps too: tick 2 is its only non-final tick.
    assert_eq!((updates(&tick_log, 2), updates(&event_log, 2)), (3, 0));
    // Tick 8: the completed leaf and the sequence finish; the repeat, which
    // goes on between cycles, reacted without an update of its own.
    assert_eq!((updates(&tick_log, 8), updates(&event_log, 8)), (3, 2));
    let not_updates = |log: &[(u32, NodeId, EventKind)]| {
        log.iter()
            .filter(|(_, _, k)| !matches!(k, EventKind::Update(_)))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(not_updates(&event_log), not_updates(&tick_log));
}

#[test]
fn a_timeout_fires_on_the_same_tick_in_both_modes() {
    let b = Builder::new();
    let tree = b.build(b.timeout("patience", 4, ask(&b))).unwrap();
    for mode in [Mode::Tick, Mode::Event] {
        let (mut npc, mut agent) = (Npc::default(), agent_in(&tree, mode));
        let statuses: Vec<Status> = (0..6).map(|_| agent.tick(&tree, &mut npc, &())).collect();
        use Status::*;
        assert_eq!(
            statuses,
            [Running, Running, Running, Running, Failure, Running],
            "{mode}"
        );
        assert_eq!(npc.starts, 2, "{mode}");
    }
}

#[test]
fn switching_modes_while_waiting_keeps_the_wait() {
    let b = Builder::new();
    let tree = b.build(b.sequence("s", [ask(&b), b.wait("w", 3)])).unwrap();
    let (mut npc, mut agent) = (Npc::default(), Agent::new(&tree));
    agent.tick(&tree, &mut npc, &());
    agent.set_mode(&tree, Mode::Event);
    assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running);
    assert_eq!(
        agent.complete(npc.tickets[0], Status::Success),
        Completion::Completed
    );
    agent.set_mode(&tree, Mode::Tick);
    agent.set_mode(&tree, Mode::Event);
    let statuses: Vec<Status> = (0..4).map(|_| agent.tick(&tree, &mut npc, &())).collect();
    use Status::*;
    // Tick 3: the leaf succeeds and the wait starts; it ends on tick 6.
    assert_eq!(statuses, [Running, Running, Running, Success]);
    assert_eq!(npc.starts, 1);
}

#[test]
fn a_ticket_completes_only_its_own_agents_wait() {
    // Agent::new gives every agent id 0: the ticket must still tell them
    // apart, and tell trees apart.
    let b = Builder::new();
    let tree = b.build(ask(&b)).unwrap();
    let b2 = Builder::new();
    let other_tree = b2
        .build(b2.sequence("s", [b2.always_success("first"), ask(&b2)]))
        .unwrap();
    let (mut a, mut twin, mut stranger) = (
        Agent::new(&tree),
        Agent::new(&tree),
        Agent::new(&other_tree),
    );
    let (mut na, mut nt, mut ns) = (Npc::default(), Npc::default(), Npc::default());
    a.tick(&tree, &mut na, &());
    twin.tick(&tree, &mut nt, &());
    stranger.tick(&other_tree, &mut ns, &());
    let ticket = na.tickets[0];
    assert_eq!(
        twin.complete(ticket, Status::Success),
        Completion::OtherCopy
    );
    assert_eq!(
        stranger.complete(ticket, Status::Failure),
        Completion::OtherCopy
    );
    assert_eq!(twin.tick(&tree, &mut nt, &()), Status::Running);
    assert_eq!(stranger.tick(&other_tree, &mut ns, &()), Status::Running);
    // A clone is another agent: the original's ticket does not complete
    // the clone's wait (nor the other way round); the clone hands out
    // tickets of its own.
    let mut copy = a.clone();
    assert_eq!(
        copy.complete(ticket, Status::Success),
        Completion::OtherCopy
    );
    let copied: Vec<_> = copy.pending_tickets().collect();
    assert_eq!(copied.len(), 1);
    assert_ne!(copied[0], ticket);
    assert_eq!(
        a.complete(copied[0], Status::Success),
        Completion::OtherCopy
    );
    assert_eq!(
        copy.complete(copied[0], Status::Success),
        Completion::Completed
    );
    assert_eq!(a.complete(ticket, Status::Failure), Completion::Completed);
    assert_eq!(copy.tick(&tree, &mut na, &()), Status::Success);
    assert_eq!(a.tick(&tree, &mut na, &()), Status::Failure);
}
