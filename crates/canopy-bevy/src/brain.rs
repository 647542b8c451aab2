//! [`Brain`]: the component that gives an entity a behavior tree.
//!
//! A brain is a handle to the shared tree asset plus the entity's canopy
//! [`Agent`] — a few dozen bytes of task memory. The agent is made on the
//! first tick after the asset is loaded (so entities can be spawned before
//! their tree file has been read), and from then on it is tied to the
//! version of the tree it was made for: the brain keeps that version's
//! `Arc` next to the agent, so a changed asset can never be ticked by an
//! agent laid out for the old one. Moving to a new version is
//! [`reload`](Brain::reload), done by the plugin when the asset changes.

use std::sync::Arc;

use bevy_asset::{Assets, Handle};
use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity;
use canopy_core::{
    Agent, Completion, Mode, NodeId, Observer, Reload, Snapshot, Status, Ticket, Tree,
    snapshot::RestoreError,
};

use crate::aborted::{AbortSink, Aborts};
use crate::asset::TreeAsset;
use crate::watch::{NodeChange, Watch};

/// The agent and the exact tree version it was made for.
pub(crate) struct Running<A, W> {
    tree: Arc<Tree<A, W>>,
    agent: Agent,
}

/// An entity's behavior tree: which shared tree it runs, and its own
/// running state. Ticked by [`CanopyPlugin`](crate::CanopyPlugin)'s
/// system with the entity's `A` component and the `W` resource.
#[derive(Component)]
pub struct Brain<A: Send + Sync + 'static, W: Send + Sync + 'static> {
    handle: Handle<TreeAsset<A, W>>,
    id: Option<u32>,
    mode: Mode,
    running: Option<Running<A, W>>,
    last: Option<Status>,
    /// Only for brains that watch nodes: the others tick unobserved.
    watch: Option<Box<Watch>>,
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> Brain<A, W> {
    /// A brain running the tree behind `handle`, tick-from-root, with the
    /// entity's index as its agent id ([`Ctx::id`](canopy_core::Ctx::id)).
    pub fn new(handle: Handle<TreeAsset<A, W>>) -> Self {
        Brain {
            handle,
            id: None,
            mode: Mode::Tick,
            running: None,
            last: None,
            watch: None,
        }
    }

    /// The same with a chosen agent id: a stable seed for the leaves'
    /// randomness that does not depend on the order entities were spawned.
    pub fn with_id(mut self, id: u32) -> Self {
        self.id = Some(id);
        self
    }

    /// The same run in `mode` (event mode skips the tasks that are
    /// waiting; both modes give the same results).
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// The same watching the nodes with these names: each time one of
    /// them starts, ends or is aborted, a [`NodeEvent`](crate::NodeEvent)
    /// is sent (with [`CanopyPlugin::report_node_events`](crate::CanopyPlugin::report_node_events)).
    pub fn watching<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        let names = names.into_iter().map(Into::into).collect();
        self.watch = Some(Box::new(Watch::new(names)));
        self
    }

    /// The tree asset this brain runs.
    pub fn handle(&self) -> &Handle<TreeAsset<A, W>> {
        &self.handle
    }

    /// The root's status at the last tick; `None` before the first tick
    /// (or while the tree is not loaded yet).
    pub fn status(&self) -> Option<Status> {
        self.last
    }

    /// The canopy agent, once the tree is loaded and the brain ticked.
    pub fn agent(&self) -> Option<&Agent> {
        self.running.as_ref().map(|r| &r.agent)
    }

    /// The tree version this brain runs now, once it ticked.
    pub fn tree(&self) -> Option<&Arc<Tree<A, W>>> {
        self.running.as_ref().map(|r| &r.tree)
    }

    /// Complete the ticket of one of this brain's async leaves (see
    /// [`Agent::complete`]); the leaf reports `status` on the next tick.
    /// `None` if the brain has not started.
    pub fn complete(&mut self, ticket: Ticket, status: Status) -> Option<Completion> {
        Some(self.running.as_mut()?.agent.complete(ticket, status))
    }

    /// Tick once: start the agent if the tree has just become available,
    /// then tick it, adding the async leaves it aborts to `aborts`. `None`
    /// (and nothing done) while the tree is not loaded, or once a leaf's
    /// panic has poisoned the agent.
    pub(crate) fn tick(
        &mut self,
        entity: Entity,
        trees: &Assets<TreeAsset<A, W>>,
        data: &mut A,
        world: &W,
        aborts: &Aborts,
    ) -> Option<Status> {
        self.tick_via(
            entity,
            trees,
            data,
            world,
            aborts,
            |agent, tree, data, world, sink| agent.tick_observed(tree, data, world, sink),
        )
    }

    /// [`tick`](Self::tick), with `plain` doing the tick of a brain that
    /// watches no node (the inspector's probe, say), given the observer
    /// that hears aborted waits.
    pub(crate) fn tick_via(
        &mut self,
        entity: Entity,
        trees: &Assets<TreeAsset<A, W>>,
        data: &mut A,
        world: &W,
        aborts: &Aborts,
        plain: impl FnOnce(&mut Agent, &Tree<A, W>, &mut A, &W, AbortSink<'_>) -> Status,
    ) -> Option<Status> {
        if self.running.is_none() {
            let tree = trees.get(&self.handle)?.tree().clone();
            let agent = self.fresh_agent(&tree, entity.index_u32());
            self.install(Running { tree, agent });
        }
        let running = self.running.as_mut()?;
        // A leaf panicked in an earlier tick: canopy refuses to tick the
        // half-updated agent, and the panic was reported then. Leave it
        // for the game to reset rather than fail the whole system again.
        if running.agent.is_poisoned() {
            return None;
        }
        let sink = AbortSink { entity, aborts };
        let status = match self.watch.as_deref_mut() {
            None => plain(&mut running.agent, &running.tree, data, world, sink),
            Some(watch) => {
                watch.seen.clear();
                let recorder = watch.recorder(sink);
                running
                    .agent
                    .tick_observed(&running.tree, data, world, recorder)
            }
        };
        self.last = Some(status);
        Some(status)
    }

    fn fresh_agent(&self, tree: &Tree<A, W>, entity_index: u32) -> Agent {
        let mut agent = Agent::with_id(tree, self.id.unwrap_or(entity_index));
        if self.mode != Mode::Tick {
            agent.set_mode(tree, self.mode);
        }
        agent
    }

    /// Move onto `new`, an edited version of the tree, with canopy's
    /// reload: what was kept and aborted, or `None` if the brain has not
    /// started, already runs `new`, or is poisoned (a leaf panicked).
    /// (The plugin's reload also sends a [`WaitAborted`](crate::WaitAborted)
    /// for each waiting async leaf it aborts; here, `Reload::aborted` lists
    /// them, and their own abort code runs.)
    pub fn reload(&mut self, new: &Arc<Tree<A, W>>, data: &mut A, world: &W) -> Option<Reload> {
        self.reload_with(new, data, world, ())
    }

    /// [`reload`](Self::reload), telling `aborted` of the aborted waits.
    pub(crate) fn reload_with<O: Observer>(
        &mut self,
        new: &Arc<Tree<A, W>>,
        data: &mut A,
        world: &W,
        aborted: O,
    ) -> Option<Reload> {
        let running = self.running.as_mut()?;
        if Arc::ptr_eq(&running.tree, new) || running.agent.is_poisoned() {
            return None;
        }
        let report = match self.watch.as_deref_mut() {
            None => running
                .agent
                .reload_observed(&running.tree, new, data, world, aborted),
            Some(watch) => {
                let recorder = watch.recorder(aborted);
                running
                    .agent
                    .reload_observed(&running.tree, new, data, world, recorder)
            }
        };
        running.tree = Arc::clone(new);
        if let Some(watch) = self.watch.as_deref_mut() {
            watch.resolve(new);
        }
        Some(report)
    }

    /// This brain's state in canopy's snapshot format; `None` before it
    /// started.
    pub fn snapshot(&self) -> Option<Snapshot> {
        let running = self.running.as_ref()?;
        Some(running.agent.snapshot(&running.tree))
    }

    /// Go on from `snapshot`, on the tree version loaded in `trees` now
    /// (the snapshot must be of that version: canopy checks its
    /// fingerprint). Errors change nothing.
    pub fn restore(
        &mut self,
        trees: &Assets<TreeAsset<A, W>>,
        snapshot: &Snapshot,
    ) -> Result<(), BrainRestoreError> {
        let running = self.restored(trees, snapshot)?;
        self.install(running);
        Ok(())
    }

    /// The running state `snapshot` stands for, made but not installed.
    pub(crate) fn restored(
        &self,
        trees: &Assets<TreeAsset<A, W>>,
        snapshot: &Snapshot,
    ) -> Result<Running<A, W>, BrainRestoreError> {
        let Some(asset) = trees.get(&self.handle) else {
            return Err(BrainRestoreError::TreeNotLoaded);
        };
        let tree = Arc::clone(asset.tree());
        let agent = Agent::restore(&tree, snapshot).map_err(BrainRestoreError::Snapshot)?;
        Ok(Running { tree, agent })
    }

    /// Go on from a state made by [`restored`](Self::restored).
    pub(crate) fn install(&mut self, running: Running<A, W>) {
        if let Some(watch) = self.watch.as_deref_mut() {
            watch.resolve(&running.tree);
        }
        self.last = None;
        self.running = Some(running);
    }

    /// The watched nodes' events since the last call, oldest first.
    pub(crate) fn drain_node_events(&mut self) -> impl Iterator<Item = (NodeId, NodeChange)> + '_ {
        self.watch.iter_mut().flat_map(|w| w.seen.drain(..))
    }
}

/// Why a brain could not go on from a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BrainRestoreError {
    /// The brain's tree asset is not loaded (yet).
    #[error("the brain's tree is not loaded")]
    TreeNotLoaded,
    /// canopy refused the snapshot (another tree, damaged bytes, …).
    #[error("{0}")]
    Snapshot(RestoreError),
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> std::fmt::Debug for Brain<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brain")
            .field("handle", &self.handle)
            .field("id", &self.id)
            .field("mode", &self.mode)
            .field("agent", &self.agent())
            .field("status", &self.last)
            .finish()
    }
}
