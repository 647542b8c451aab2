//! [`CanopyPlugin`]: the systems that reload and tick every [`Brain`].
//!
//! Three system sets run in order in the schedule the game chooses
//! ([`CanopySystems`]): `Reload` moves brains whose tree asset changed onto
//! the new version and reports it ([`TreeReloaded`]), and reports tree
//! files that did not load ([`TreeLoadFailed`]); `Tick` ticks every
//! brain once, in parallel on Bevy's compute task pool, and reports the
//! async leaves aborted while they waited ([`WaitAborted`], from the
//! reload too); `Report` (only when
//! asked for with [`CanopyPlugin::report_finished`]) sends a
//! [`BrainFinished`] message for each root that finished this tick, and
//! (with [`CanopyPlugin::report_node_events`]) a [`NodeEvent`] for each
//! watched node that started, ended or was aborted. A game
//! writes the world view before `Tick` and acts on the intents after it.
//!
//! The tick is one `Query::par_iter_mut`: Bevy splits the entities into
//! batches for its own threads, so canopy adds no thread pool (rayon inside
//! a system would compete with Bevy's threads for the same cores). Brains
//! tick in any order; nothing one brain's tick does is visible to another
//! within the tick, because the world is read-only and each brain writes
//! only its own component.
//!
//! Once every brain has started, the tick allocates nothing: on one
//! compute thread a frame of ticks makes no allocation at all
//! (`tests/zero_alloc.rs`); on several, Bevy's parallel iteration itself
//! allocates a few task handles per frame for its batches, as many for
//! 10,000 brains as for 1,000 (`tests/parallel_alloc.rs`).

use std::sync::Arc;

use bevy_app::{App, Plugin, Update};
use bevy_asset::{AssetApp, AssetEvent, AssetId, AssetLoadFailedEvent, Assets};
use bevy_ecs::component::{Component, Mutable};
use bevy_ecs::entity::Entity;
use bevy_ecs::message::{Message, MessageReader, MessageWriter};
use bevy_ecs::resource::Resource;
use bevy_ecs::schedule::common_conditions::on_message;
use bevy_ecs::schedule::{InternedScheduleLabel, IntoScheduleConfigs, ScheduleLabel, SystemSet};
use bevy_ecs::system::{Local, Query, Res};
use canopy_core::Status;
use canopy_data::Registry;

use crate::aborted::{AbortSink, Aborts, WaitAborted};
use crate::asset::{TreeAsset, TreeLoadFailed, TreeLoader, TreeReloaded};
use crate::brain::Brain;
use crate::watch::NodeEvent;

/// The plugin for agents whose data is the component `A` and whose world
/// view is the resource `W`: registers the tree asset and its loader, the
/// [`NodeTypes`] resource and the systems (see the module docs).
pub struct CanopyPlugin<A, W> {
    registry: Arc<Registry<A, W>>,
    schedule: InternedScheduleLabel,
    report_finished: bool,
    report_node_events: bool,
}

impl<A, W> CanopyPlugin<A, W> {
    /// The plugin with the game's node types, ticking in `Update`.
    pub fn new(registry: Registry<A, W>) -> Self {
        CanopyPlugin {
            registry: Arc::new(registry),
            schedule: Update.intern(),
            report_finished: false,
            report_node_events: false,
        }
    }

    /// Tick in `schedule` instead (`FixedUpdate` for a fixed rate, say).
    pub fn in_schedule(mut self, schedule: impl ScheduleLabel) -> Self {
        self.schedule = schedule.intern();
        self
    }

    /// Send a [`NodeEvent`] message whenever a node a brain watches
    /// ([`Brain::watching`]) starts, ends or is aborted.
    pub fn report_node_events(mut self) -> Self {
        self.report_node_events = true;
        self
    }

    /// Send a [`BrainFinished`] message whenever a brain's root finishes.
    /// Off by default: then no system looks for them.
    pub fn report_finished(mut self) -> Self {
        self.report_finished = true;
        self
    }
}

impl<A, W> std::fmt::Debug for CanopyPlugin<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CanopyPlugin")
            .field("registry", &self.registry)
            .field("schedule", &self.schedule)
            .field("report_finished", &self.report_finished)
            .field("report_node_events", &self.report_node_events)
            .finish()
    }
}

/// The game's node types, as the loader sees them (read-only: the loader
/// holds the same registry, so it is fixed once the plugin is added).
#[derive(Resource)]
pub struct NodeTypes<A: Send + Sync + 'static, W: Send + Sync + 'static>(pub Arc<Registry<A, W>>);

impl<A: Send + Sync + 'static, W: Send + Sync + 'static> std::fmt::Debug for NodeTypes<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("NodeTypes").field(&self.0).finish()
    }
}

/// The plugin's system sets, run in this order in the chosen schedule.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CanopySystems {
    /// Brains move onto changed tree assets.
    Reload,
    /// Every brain ticks once.
    Tick,
    /// Finished roots are reported (when asked for).
    Report,
}

/// Sent (with [`CanopyPlugin::report_finished`]) when an entity's root
/// finished this tick; its next tick starts the tree again.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrainFinished {
    /// The entity whose brain finished.
    pub entity: Entity,
    /// How: `Success` or `Failure`.
    pub status: Status,
}

impl<A, W> Plugin for CanopyPlugin<A, W>
where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    fn build(&self, app: &mut App) {
        let schedule = self.schedule;
        app.init_asset::<TreeAsset<A, W>>()
            .register_asset_loader(TreeLoader::new(Arc::clone(&self.registry)))
            .insert_resource(NodeTypes(Arc::clone(&self.registry)))
            .add_message::<TreeReloaded<A, W>>()
            .add_message::<TreeLoadFailed<A, W>>()
            .add_message::<WaitAborted>()
            .configure_sets(
                schedule,
                (
                    CanopySystems::Reload,
                    CanopySystems::Tick,
                    CanopySystems::Report,
                )
                    .chain(),
            )
            // The asset systems run only in frames with asset news: the
            // executor checks a run condition without starting a task, so
            // the frames without any (nearly all) pay for no system there.
            .add_systems(
                schedule,
                (
                    report_load_failures::<A, W>.run_if(load_news::<A, W>),
                    reload_brains::<A, W>.run_if(on_message::<AssetEvent<TreeAsset<A, W>>>),
                )
                    .in_set(CanopySystems::Reload),
            )
            .add_systems(schedule, tick_brains::<A, W>.in_set(CanopySystems::Tick));
        if self.report_finished {
            app.add_message::<BrainFinished>().add_systems(
                schedule,
                report_finished::<A, W>.in_set(CanopySystems::Report),
            );
        }
        #[cfg(feature = "inspector")]
        app.add_systems(
            schedule,
            (
                crate::inspect::wait_turn::<A, W>.before(CanopySystems::Reload),
                crate::inspect::publish::<A, W>.in_set(CanopySystems::Report),
            ),
        );
        if self.report_node_events {
            app.add_message::<NodeEvent>().add_systems(
                schedule,
                report_node_events::<A, W>.in_set(CanopySystems::Report),
            );
        }
    }
}

/// Tick every brain once, in parallel, lending it its entity's `A` and the
/// world view `W`, and send a [`WaitAborted`] for each async leaf a brain
/// aborted while it waited. Allocates nothing once every brain has
/// started (an abort adds to a list whose capacity is kept).
pub fn tick_brains<A, W>(
    trees: Res<Assets<TreeAsset<A, W>>>,
    world: Res<W>,
    mut brains: Query<(Entity, &mut Brain<A, W>, &mut A)>,
    mut aborts: Local<Aborts>,
    mut aborted: MessageWriter<WaitAborted>,
    #[cfg(feature = "inspector")] inspector: Option<Res<crate::inspect::BrainInspector<A, W>>>,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    let (trees, world) = (&*trees, &*world);
    let shared = &*aborts;
    #[cfg(feature = "inspector")]
    let inspected = match inspector {
        Some(inspector) => {
            crate::inspect::tick_inspected(&inspector, trees, world, &mut brains, shared);
            true
        }
        None => false,
    };
    #[cfg(not(feature = "inspector"))]
    let inspected = false;
    if !inspected {
        brains
            .par_iter_mut()
            .for_each(|(entity, mut brain, mut data)| {
                brain.tick(entity, trees, &mut data, world, shared);
            });
    }
    send_aborts(&mut aborts, &mut aborted);
}

/// Send the aborts the threads collected, keeping the lists' memory.
fn send_aborts(aborts: &mut Aborts, out: &mut MessageWriter<WaitAborted>) {
    for list in aborts.iter_mut() {
        if !list.is_empty() {
            out.write_batch(list.drain(..));
        }
    }
}

/// Move the brains of every modified tree asset onto its new version and
/// report each asset's totals, and the async leaves aborted while they
/// waited.
fn reload_brains<A, W>(
    mut changes: MessageReader<AssetEvent<TreeAsset<A, W>>>,
    trees: Res<Assets<TreeAsset<A, W>>>,
    world: Res<W>,
    mut brains: Query<(Entity, &mut Brain<A, W>, &mut A)>,
    mut reports: MessageWriter<TreeReloaded<A, W>>,
    mut aborts: Local<Aborts>,
    mut aborted: MessageWriter<WaitAborted>,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    for change in changes.read() {
        let AssetEvent::Modified { id } = *change else {
            continue;
        };
        let Some(asset) = trees.get(id) else {
            continue;
        };
        let mut report = TreeReloaded {
            tree: id,
            brains: 0,
            kept: 0,
            aborted: 0,
        };
        for (entity, mut brain, mut data) in &mut brains {
            if brain.handle().id() != id {
                continue;
            }
            let sink = AbortSink {
                entity,
                aborts: &aborts,
            };
            if let Some(moved) = brain.reload_with(asset.tree(), &mut data, &world, sink) {
                report.brains += 1;
                report.kept += moved.kept.len() as u32;
                report.aborted += moved.aborted.len() as u32;
            }
        }
        if report.brains > 0 {
            reports.write(report);
        }
    }
    send_aborts(&mut aborts, &mut aborted);
}

/// Whether a tree file failed to load or (re)loaded since the last frame:
/// the run condition of [`report_load_failures`].
fn load_news<A, W>(
    mut failures: MessageReader<AssetLoadFailedEvent<TreeAsset<A, W>>>,
    mut loads: MessageReader<AssetEvent<TreeAsset<A, W>>>,
) -> bool
where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    // Both read to the end, so that neither reports the same news twice.
    let failed = failures.read().count() > 0;
    let loaded = loads.read().count() > 0;
    failed || loaded
}

/// The failures reported since each asset last loaded: its id and message.
type Reported<A, W> = Vec<(AssetId<TreeAsset<A, W>>, String)>;

/// Report every tree file that did not load: a [`TreeLoadFailed`] message
/// and an `error` log line, with the brains it concerns. Once per failure:
/// the same error for the same asset again, before a version of it loads,
/// is not news (Bevy tries a failed reload twice, typed then untyped).
fn report_load_failures<A, W>(
    mut failures: MessageReader<AssetLoadFailedEvent<TreeAsset<A, W>>>,
    mut loads: MessageReader<AssetEvent<TreeAsset<A, W>>>,
    brains: Query<&Brain<A, W>>,
    mut reported: Local<Reported<A, W>>,
    mut reports: MessageWriter<TreeLoadFailed<A, W>>,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    for load in loads.read() {
        if let AssetEvent::Added { id } | AssetEvent::Modified { id } = *load {
            reported.retain(|(seen, _)| *seen != id);
        }
    }
    for failure in failures.read() {
        let mut report = TreeLoadFailed::new(failure.id, failure.path.to_string(), &failure.error);
        let known = (report.tree, report.message.clone());
        if reported.contains(&known) {
            continue;
        }
        reported.retain(|(seen, _)| *seen != report.tree);
        reported.push(known);
        for brain in &brains {
            if brain.handle().id() != failure.id {
                continue;
            }
            if brain.tree().is_some() {
                report.running += 1;
            } else {
                report.waiting += 1;
            }
        }
        tracing::error!(
            "canopy: the tree {} did not load: {}; brains waiting for it: {}, keeping the version they run: {}",
            canopy_core::text::quote(&report.path),
            report.message,
            report.waiting,
            report.running
        );
        reports.write(report);
    }
}

/// Report the roots that finished at this tick. Every brain, not only the
/// changed ones: the tick touches every brain, so a change filter would
/// skip nothing.
fn report_finished<A, W>(
    brains: Query<(Entity, &Brain<A, W>)>,
    mut finished: MessageWriter<BrainFinished>,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    for (entity, brain) in &brains {
        if let Some(status @ (Status::Success | Status::Failure)) = brain.status() {
            finished.write(BrainFinished { entity, status });
        }
    }
}

/// Send the watched nodes' events of this frame, entity by entity.
fn report_node_events<A, W>(
    mut brains: Query<(Entity, &mut Brain<A, W>)>,
    mut events: MessageWriter<NodeEvent>,
) where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    for (entity, mut brain) in &mut brains {
        for (node, change) in brain.drain_node_events() {
            events.write(NodeEvent {
                entity,
                node,
                change,
            });
        }
    }
}
