//! The handle that completes one suspended asynchronous leaf.

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
/// use canopy_core::{Agent, Builder, Status, Ticket};
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
/// assert!(agent.complete(ticket, Status::Success));
/// assert!(!agent.complete(ticket, Status::Success)); // once only
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ticket {
    pub(crate) agent: u32,
    pub(crate) node: u32,
    pub(crate) index: u32,
    pub(crate) generation: u64,
    /// The number of the wait table that issued it: unique in the process,
    /// and new for every agent, clone and restored agent.
    pub(crate) owner: u64,
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
