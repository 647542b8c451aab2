//! What the game does around the trees in `run` and `bench`: the world's
//! own step between ticks, and the answers to async leaves' requests.
//!
//! Kept apart from the registries ([`Types`](crate::Types)) so that the
//! loops that run a crowd depend only on this, not on the commands.

use canopy_core::Status;

/// What the game does around the trees in `run` and `bench`: its world's
/// own step, and the answers to async leaves' requests.
pub(crate) struct Game<A, W> {
    /// Called before every tick with the tick about to run (from 1).
    pub(crate) update: Option<WorldUpdate<W>>,
    /// Asked after each agent's tick about each of its waiting async leaves.
    pub(crate) answer: Option<Answer<A, W>>,
}

/// A world's step between ticks.
pub(crate) type WorldUpdate<W> = Box<dyn FnMut(&mut W, u32) + Send>;

/// The answer to a waiting async leaf: its agent's data (to write the
/// result into), the world, the ticket and the ticks it has waited; `Some`
/// completes it.
pub(crate) type Answer<A, W> =
    Box<dyn Fn(&mut A, &W, canopy_core::Ticket, u32) -> Option<Status> + Send + Sync>;

/// After `agent` ticked (with `data`): answer its waiting async leaves.
/// A function of the answer alone, so that parallel ticks can share it.
#[inline]
pub(crate) fn answer<A, W>(
    answer: Option<&Answer<A, W>>,
    agent: &mut canopy_core::Agent,
    data: &mut A,
    world: &W,
) {
    if let Some(answer) = answer {
        agent.complete_pending(|ticket, waited| answer(data, world, ticket, waited));
    }
}

impl<A, W> Game<A, W> {
    /// Before tick `tick` of the crowd: the world's step.
    pub(crate) fn update(&mut self, world: &mut W, tick: u32) {
        if let Some(update) = &mut self.update {
            update(world, tick);
        }
    }
}
