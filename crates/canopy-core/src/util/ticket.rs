//! The handle that completes one suspended asynchronous leaf.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::util::primitives::NodeId;

/// The handle that completes one suspended async leaf of one agent.
///
/// Cheap to copy and `Send`: hand it to a worker thread, put it in a
/// message, store it in a job queue. Deliver it back to its agent with
/// [`Agent::complete`](crate::Agent::complete). A ticket names its wait by
/// the wait table's own 64-bit number and a 64-bit generation, so it
/// completes only the request it was issued for: not after that request
/// ended, not on another agent, not on a clone or a restored copy of its
/// agent (those get tables of their own; see
/// [`Agent::pending_tickets`](crate::Agent::pending_tickets)).
///
/// ```
/// use canopy_core::{Agent, Builder, Completion, Status, Ticket};
///
/// struct Npc { ticket: Option<Ticket> }
///
/// let b = Builder::<Npc, ()>::new();
/// let tree = b.build(b.async_action("ask", |cx, ticket| {
///     cx.agent.ticket = Some(ticket); // e.g. sent to a worker with the request
///     Status::Running
/// })).unwrap();
/// let mut npc = Npc { ticket: None };
/// let mut agent = Agent::new(&tree);
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running); // still waiting
/// let ticket = npc.ticket.unwrap();
/// assert_eq!(agent.complete(ticket, Status::Success), Completion::Completed);
/// assert_eq!(agent.complete(ticket, Status::Success), Completion::AlreadyCompleted);
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Ticket {
    pub(crate) agent: u32,
    pub(crate) node: u32,
    pub(crate) index: u32,
    pub(crate) generation: u64,
    /// The number of the wait table that issued it: unique in the process,
    /// and new for every agent, clone and restored agent.
    pub(crate) owner: u64,
}

/// What [`Agent::complete`](crate::Agent::complete) did with a ticket:
/// completed its wait, or why not. A game that gets anything but
/// `Completed` dropped a result; the variant says whether that is normal
/// (the leaf was aborted because the agent moved on) or a bug (a ticket
/// sent to the wrong agent, or to a copy of it).
#[must_use = "a ticket that did not complete its wait is a dropped result"]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// The wait is completed: its leaf reports the status on its next update.
    Completed,
    /// The wait was completed already (a ticket completes once).
    AlreadyCompleted,
    /// Its leaf was aborted before the result came — the agent moved on
    /// (a higher-priority branch took over, a timeout fired, a reset):
    /// nothing waits for it any more.
    Aborted,
    /// Its wait ended some other way since the ticket was issued (it
    /// finished, or the slot has waited again), or the agent was restored
    /// from a snapshot taken before it ended.
    Ended,
    /// The ticket was issued to another copy of this agent — the original
    /// it was cloned from, a clone of it, the agent a snapshot was taken of
    /// — or to another agent with its id. Copies have waits of their own;
    /// trade a copy's ticket in with [`Agent::reissue`](crate::Agent::reissue).
    OtherCopy,
    /// The ticket is another agent's: another id, or a wait this agent's
    /// tree does not have.
    OtherAgent,
    /// `Running` is not a result: complete with `Success` or `Failure`.
    NotAResult,
    /// The agent is poisoned by a panic in its tick ([`POISONED`](crate::agent::POISONED)):
    /// reset it first.
    Poisoned,
}

impl Completion {
    /// Whether the wait was completed.
    ///
    /// ```
    /// assert!(canopy_core::Completion::Completed.is_completed());
    /// assert!(!canopy_core::Completion::Aborted.is_completed());
    /// ```
    pub fn is_completed(self) -> bool {
        self == Completion::Completed
    }
}

impl Ticket {
    /// The id of the agent whose leaf this ticket completes
    /// ([`Agent::id`](crate::Agent::id)), for routing it back.
    pub fn agent(&self) -> u32 {
        self.agent
    }

    /// The async leaf that is waiting.
    pub fn node(&self) -> NodeId {
        NodeId(self.node)
    }
}
