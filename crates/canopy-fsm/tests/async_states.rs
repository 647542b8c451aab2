//! Async leaves inside tree states: the game completes a leaf's wait with
//! the ticket it handed out, the ticket finds the tree state that issued
//! it, a wait whose state was left is aborted, and copies trade tickets in.

use std::sync::Arc;

use canopy_core::{Builder, Completion, Status, Ticket};
use canopy_fsm::{FsmAgent, Hooks, Machine, MachineBuilder, TreeState};

/// The requests the agent's async leaves sent, by leaf name.
type Asked = Vec<(&'static str, Ticket)>;

/// `Plan` asks for a path (success: `found` → `Go`, failure: `lost` →
/// `Lost`); the alarm sends the agent to `Scout`, which asks for a look
/// around and, when answered, the agent goes back to `Plan` (`calm`).
fn guard() -> Machine<Asked, (), &'static str> {
    let asking = |name: &'static str| {
        let b = Builder::<Asked, ()>::new();
        let leaf = b.async_action(name, move |cx, ticket| {
            cx.agent.push((name, ticket));
            Status::Running
        });
        Arc::new(b.build(leaf).unwrap())
    };
    let mut m = MachineBuilder::new();
    m.tree_state(
        "Plan",
        TreeState::new(asking("path"))
            .on_success("found")
            .on_failure("lost"),
    );
    m.tree_state("Scout", TreeState::new(asking("look")).on_success("calm"));
    m.state("Go", Hooks::new()).succeeds();
    m.state("Lost", Hooks::new()).fails();
    m.transition("Plan", "found", "Go")
        .transition("Plan", "lost", "Lost")
        .transition("Plan", "alarm", "Scout")
        .transition("Scout", "calm", "Plan");
    m.start("Plan");
    m.build().unwrap()
}

#[test]
fn a_ticket_completes_the_wait_of_the_tree_state_that_issued_it() {
    let machine = guard();
    let (mut asked, mut agent) = (Asked::new(), FsmAgent::new(&machine));
    assert_eq!(agent.update(&machine, &mut asked, &()), Status::Running);
    assert!(agent.send(&machine, "alarm", &mut asked, &()));
    assert_eq!(agent.update(&machine, &mut asked, &()), Status::Running);
    let [("path", path), ("look", look)] = asked[..] else {
        panic!("{asked:?}");
    };
    // Leaving Plan aborted its request; Scout's is still waited for.
    assert_eq!(agent.complete(path, Status::Success), Completion::Aborted);
    assert_eq!(agent.complete(look, Status::Success), Completion::Completed);
    assert_eq!(
        agent.complete(look, Status::Success),
        Completion::AlreadyCompleted
    );
    // Scout's tree succeeds on its next update: back to Plan, which asks
    // again; its failure ends the machine in Lost.
    assert_eq!(agent.update(&machine, &mut asked, &()), Status::Running);
    assert!(agent.is_in(&machine, "Plan"));
    agent.update(&machine, &mut asked, &());
    let &(name, again) = asked.last().unwrap();
    assert_eq!((name, asked.len()), ("path", 3));
    assert!(agent.complete(again, Status::Failure).is_completed());
    assert_eq!(agent.update(&machine, &mut asked, &()), Status::Failure);
    assert!(agent.is_in(&machine, "Lost"));
}

#[test]
fn tickets_of_other_agents_and_copies_are_refused_and_copies_trade_them_in() {
    let machine = guard();
    let (mut asked, mut agent) = (Asked::new(), FsmAgent::with_id(&machine, 7));
    agent.update(&machine, &mut asked, &());
    let ticket = asked[0].1;
    assert_eq!(
        agent.complete(ticket, Status::Running),
        Completion::NotAResult
    );
    let mut other = FsmAgent::with_id(&machine, 8);
    other.update(&machine, &mut Asked::new(), &());
    assert_eq!(
        other.complete(ticket, Status::Success),
        Completion::OtherAgent
    );
    let mut copy = agent.clone();
    assert_eq!(
        copy.complete(ticket, Status::Success),
        Completion::OtherCopy
    );
    let fresh: Vec<Ticket> = copy.pending_tickets().collect();
    assert_eq!(fresh.len(), 1);
    assert!(copy.complete(fresh[0], Status::Success).is_completed());
    assert_eq!(copy.update(&machine, &mut asked, &()), Status::Success);
    assert!(copy.is_in(&machine, "Go"));
    // The original still waits for its own answer.
    assert_eq!(agent.update(&machine, &mut asked, &()), Status::Running);
    assert!(agent.is_in(&machine, "Plan"));
}

#[test]
fn complete_pending_answers_every_tree_state_by_how_long_it_waited() {
    let machine = guard();
    let (mut asked, mut agent) = (Asked::new(), FsmAgent::new(&machine));
    let mut answered = Vec::new();
    for _ in 0..4 {
        let status = agent.update(&machine, &mut asked, &());
        // The service answers a request that has waited 2 updates.
        let n = agent.complete_pending(|_, waited| (waited >= 2).then_some(Status::Success));
        answered.push((status, n));
    }
    assert_eq!(
        answered,
        [
            (Status::Running, 0),
            (Status::Running, 0),
            (Status::Running, 1),
            (Status::Success, 0),
        ]
    );
    assert!(agent.is_in(&machine, "Go"));
}
