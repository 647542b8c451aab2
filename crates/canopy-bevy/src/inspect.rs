//! The browser inspector for a Bevy app (feature `inspector`): the crowd
//! as dots, and any one entity's running tasks, live, as canopy's crowd
//! demo shows them.
//!
//! [`BrainInspector`] is a resource holding canopy's [`Inspector`] for one
//! tree asset. With it present, the plugin's systems
//!
//! - wait for the page's pause and step controls before the tick
//!   (a paused app stops in that system, as the demo's loop does);
//! - tick the agent the page watches with the inspector's probe (every
//!   other brain ticks as usual);
//! - after the tick, when a frame is due, draw every brain of that tree as
//!   a dot, where and how the game's `dot` function says, and send the
//!   watched agent's running tasks, read from its memory;
//! - after a reload, show the new version of the tree.
//!
//! The page knows agents by their canopy id ([`Brain::with_id`], or the
//! entity's index by default), so `?agent=ID` in its address is that id.
//! Without the resource, nothing of this runs: the systems are not there
//! unless the feature is on, and they return at once when the resource is
//! absent.
//!
//! [`Brain::with_id`]: crate::Brain::with_id

use std::io;
use std::sync::Arc;

use bevy_asset::{Assets, Handle};
use bevy_ecs::component::{Component, Mutable};
use bevy_ecs::message::MessageReader;
use bevy_ecs::resource::Resource;
use bevy_ecs::system::{Query, Res, ResMut};
use canopy_core::Tree;
use canopy_inspector::{EngineView, Frame, Inspector, Options};

use crate::asset::{TreeAsset, TreeReloaded};
use crate::brain::Brain;

/// Where an entity's dot is drawn, and its label (an index into the
/// legend of [`Options::legend`]).
pub type Dot<A> = fn(&A) -> ([f32; 2], u8);

/// canopy's inspector serving the brains of one tree asset.
#[derive(Resource)]
pub struct BrainInspector<A: Send + Sync + 'static, W: Send + Sync + 'static> {
    inspector: Inspector,
    handle: Handle<TreeAsset<A, W>>,
    shown: Arc<Tree<A, W>>,
    dot: Dot<A>,
    bounds: ([f32; 2], [f32; 2]),
    frame: Frame,
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> BrainInspector<A, W> {
    /// Serve the inspector for the brains running `handle`, whose tree
    /// must be loaded in `trees`; `bounds` (least and greatest corner) is
    /// the area the page draws, `dot` places each entity in it.
    ///
    /// # Errors
    /// When the tree is not loaded (`NotFound`), or the address cannot be
    /// bound.
    pub fn start(
        trees: &Assets<TreeAsset<A, W>>,
        handle: Handle<TreeAsset<A, W>>,
        options: Options,
        bounds: ([f32; 2], [f32; 2]),
        dot: Dot<A>,
    ) -> io::Result<Self> {
        let Some(asset) = trees.get(&handle) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "the tree asset is not loaded",
            ));
        };
        let shown = Arc::clone(asset.tree());
        Ok(BrainInspector {
            inspector: Inspector::start(&shown, options)?,
            handle,
            shown,
            dot,
            bounds,
            frame: Frame::new(),
        })
    }

    /// canopy's inspector: its address, what it sent, whom it watches.
    pub fn inspector(&self) -> &Inspector {
        &self.inspector
    }
}

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> std::fmt::Debug for BrainInspector<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrainInspector")
            .field("inspector", &self.inspector)
            .field("handle", &self.handle)
            .finish_non_exhaustive()
    }
}

/// Before the tick: the page's pause and step.
pub(crate) fn wait_turn<A, W>(inspector: Option<Res<BrainInspector<A, W>>>)
where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    if let Some(inspector) = inspector {
        inspector.inspector.wait_turn();
    }
}

/// The tick with the inspector: the watched agent through its probe.
pub(crate) fn tick_inspected<A, W>(
    inspector: &BrainInspector<A, W>,
    trees: &Assets<TreeAsset<A, W>>,
    world: &W,
    brains: &mut Query<(bevy_ecs::entity::Entity, &mut Brain<A, W>, &mut A)>,
    aborts: &crate::aborted::Aborts,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    let probe = inspector.inspector.probe();
    let probe = &probe;
    brains
        .par_iter_mut()
        .for_each(|(entity, mut brain, mut data)| {
            brain.tick_via(
                entity,
                trees,
                &mut data,
                world,
                aborts,
                |a, t, d, w, mut sink| {
                    if Some(a.id()) == probe.watched() {
                        probe.tick_elapsed_with(a, t, d, w, 1, Some(&mut sink))
                    } else {
                        a.tick_observed(t, d, w, sink)
                    }
                },
            );
        });
}

/// After the tick: a new tree version shown, and a frame when one is due.
pub(crate) fn publish<A, W>(
    inspector: Option<ResMut<BrainInspector<A, W>>>,
    mut reloads: MessageReader<TreeReloaded<A, W>>,
    trees: Res<Assets<TreeAsset<A, W>>>,
    brains: Query<(&Brain<A, W>, &A)>,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    let Some(mut inspector) = inspector else {
        return;
    };
    let inspector = &mut *inspector;
    if reloads.read().any(|r| r.tree == inspector.handle.id())
        && let Some(asset) = trees.get(&inspector.handle)
    {
        inspector.shown = Arc::clone(asset.tree());
        inspector.inspector.set_tree(&inspector.shown);
    }
    if !inspector.inspector.frame_due() {
        return;
    }
    let shown = Arc::clone(&inspector.shown);
    let ours = |brain: &Brain<A, W>| brain.tree().is_some_and(|t| Arc::ptr_eq(t, &shown));
    // The frame's tick: the furthest agent's.
    let tick = brains
        .iter()
        .filter(|(brain, _)| ours(brain))
        .filter_map(|(brain, _)| brain.agent().map(|a| a.ticks()))
        .max()
        .unwrap_or(0);
    let (min, max) = inspector.bounds;
    let watching = inspector.inspector.watched();
    let mut watched = None;
    inspector.frame.begin(tick, min, max);
    for (brain, data) in &brains {
        let Some(agent) = brain.agent().filter(|_| ours(brain)) else {
            continue;
        };
        let (position, label) = (inspector.dot)(data);
        inspector.frame.push_at(agent.id(), position, label);
        if watching == Some(agent.id()) {
            watched = Some(agent);
        }
    }
    match watched {
        Some(agent) => {
            let view = EngineView {
                agent,
                tree: &*shown,
            };
            inspector
                .inspector
                .publish_with(&inspector.frame, Some(&view));
        }
        None => inspector.inspector.publish(&inspector.frame),
    }
}
