//! [`WaitAborted`]: an async leaf that was waiting for its ticket was
//! aborted, so whatever works on its request can stop.
//!
//! A game's async leaf hands its [`Ticket`] to a service (a path search on
//! a task pool, a request to a server) and a system completes it with
//! [`Brain::complete`](crate::Brain::complete). When a higher-priority
//! branch takes over, a timeout fires or a reload removes the leaf while
//! it waits, canopy aborts it and the ticket goes stale; this message tells
//! the service at once, instead of when it answers and hears
//! [`Completion::Aborted`](canopy_core::Completion::Aborted). It is sent
//! for every async leaf, whether or not the leaf has abort code of its own
//! (`async_action_with_abort`, which runs inside the tick with the
//! entity's `A`).
//!
//! The tick runs in parallel and Bevy's message writer is one per system,
//! so the brains hand their aborts to a per-thread list (Bevy's
//! `Parallel`), looked up only when an abort happens; the tick system then
//! sends them. A brain's tick observes nothing else: canopy's observer hook
//! for aborted waits ([`Observer::wait_aborted`]) is the only code added
//! to it, and it runs only when an async leaf is aborted.

use bevy_ecs::entity::Entity;
use bevy_ecs::message::Message;
use bevy_utils::Parallel;
use canopy_core::{Event, NodeId, Observer, Ticket};

/// Sent when an async leaf of an entity's tree was aborted while it waited
/// for its ticket (or before it took a result that had come): the request
/// behind `ticket` can be dropped. Once per abort, in the frame it
/// happened, from the tick or from a reload of the tree asset.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitAborted {
    /// The entity whose leaf it was.
    pub entity: Entity,
    /// The async leaf, in the tree version the brain ran when it was
    /// aborted.
    pub node: NodeId,
    /// The ticket the leaf was started with (now stale).
    pub ticket: Ticket,
}

/// The lists the tick's threads add aborts to.
pub(crate) type Aborts = Parallel<Vec<WaitAborted>>;

/// The observer a brain ticks with: it hears only aborted waits, and adds
/// them to its thread's list.
pub(crate) struct AbortSink<'a> {
    pub(crate) entity: Entity,
    pub(crate) aborts: &'a Aborts,
}

impl Observer for AbortSink<'_> {
    #[inline(always)]
    fn observes(&self) -> bool {
        false
    }

    #[inline(always)]
    fn event(&mut self, _event: Event) {}

    fn wait_aborted(&mut self, node: NodeId, ticket: Ticket) {
        let entity = self.entity;
        self.aborts.scope(|list| {
            list.push(WaitAborted {
                entity,
                node,
                ticket,
            });
        });
    }
}
