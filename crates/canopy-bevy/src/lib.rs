//! canopy in Bevy: behavior trees for crowds of entities.
//!
//! One tree file is one Bevy asset, shared by every entity that runs it;
//! each entity carries a [`Brain`] — a handle to that asset and its own
//! canopy [`Agent`](canopy_core::Agent), a few dozen bytes — and
//! [`CanopyPlugin`] ticks all brains in parallel on Bevy's task pool,
//! without allocating. Edited tree files reload running entities in place
//! (canopy's reload: what can go on keeps its state, the rest is aborted),
//! and a broken file is reported by the plugin ([`TreeLoadFailed`], and a
//! `tracing` error line) while the entities keep the tree they had.
//!
//! A game depends on canopy's one crate (`canopy = { package = "canopy-bt" }`,
//! library `canopy`) and on this one; the examples name canopy's types as
//! it does.
//!
//! ```
//! use bevy_app::{App, TaskPoolPlugin};
//! use bevy_asset::{AssetPlugin, Assets};
//! use bevy_ecs::prelude::*;
//! use canopy::data::Registry;
//! use canopy::{Builder, Status};
//! use canopy_bevy::{Brain, CanopyPlugin, TreeAsset};
//!
//! /// The agent's data: what its leaves read and the intent they write.
//! #[derive(Component, Default)]
//! struct Walker { x: f32, step: f32 }
//! /// The world view, written before the tick, read by every leaf.
//! #[derive(Resource)]
//! struct Goal { x: f32 }
//!
//! let mut app = App::new();
//! app.add_plugins((TaskPoolPlugin::default(), AssetPlugin::default()))
//!     .add_plugins(CanopyPlugin::<Walker, Goal>::new(Registry::new()))
//!     .insert_resource(Goal { x: 3.0 });
//! let b = Builder::<Walker, Goal>::new();
//! let tree = b.build(b.action("step toward goal", |cx| {
//!     cx.agent.step = (cx.world.x - cx.agent.x).clamp(-1.0, 1.0);
//!     if cx.agent.step == 0.0 { Status::Success } else { Status::Running }
//! })).unwrap();
//! let handle = app.world_mut().resource_mut::<Assets<TreeAsset<Walker, Goal>>>()
//!     .add(TreeAsset::new(tree));
//! let walker = app.world_mut().spawn((Walker::default(), Brain::new(handle))).id();
//! for _ in 0..4 {
//!     app.update();
//!     // The game's own system would do this, for all walkers at once.
//!     let mut w = app.world_mut().get_mut::<Walker>(walker).unwrap();
//!     w.x += w.step;
//! }
//! let brain = app.world().get::<Brain<Walker, Goal>>(walker).unwrap();
//! assert_eq!(brain.status(), Some(Status::Success));
//! assert_eq!(app.world().get::<Walker>(walker).unwrap().x, 3.0);
//! ```
//!
//! # Agent data and world, in ECS terms
//!
//! A canopy tree is generic over the agent's data `A` and the world `W`,
//! and a tick lends `&mut A` and `&W`. Here `A` is **one component** of the
//! entity and `W` is **one resource**:
//!
//! - `A: Component` — the leaves' view of their entity: what they read
//!   (position, health) and the *intents* they write (a desired velocity, a
//!   target, an attack request). Leaves never move anything themselves:
//!   the game's ordinary systems read the intents after
//!   [`CanopySystems::Tick`] and act on all entities in one batch, the way
//!   ECS code is written anyway. A component the game defines, so the
//!   tree's leaves and the game's systems share one plain struct.
//! - `W: Resource` — a read-only view of the world for this tick (a
//!   spatial grid of the others, the time, the player's position), which
//!   the game writes in a system before the tick. Every brain sees the
//!   same view, so the parallel tick needs no locks and its result does not
//!   depend on the order entities tick in.
//!
//! Rejected: a user-chosen `QueryData` for `A` (several components at once).
//! A query item borrows the world for a lifetime the tree would have to
//! name — `Tree<Q::Item<'w, 's>, W>` cannot be stored in an asset that
//! outlives the frame — and canopy's leaves take plain types on purpose.
//! A game that wants several components gathers what the leaves need into
//! its one `A` component. Rejected too: lending `&World` as the world view.
//! It conflicts with the tick's own mutable query (Bevy forbids both in one
//! system), and a leaf could then read another entity's state half-way
//! through the tick, which makes results depend on the schedule's batching.
//!
//! # The parts
//!
//! | part | what |
//! |---|---|
//! | [`CanopyPlugin`] | the tree asset, its loader, the reload, tick and report systems, in a schedule the game chooses |
//! | [`Brain`] | the component: a tree handle and the entity's agent |
//! | [`TreeAsset`], [`TreeLoader`] | `.json`, `.ron`, `.xml` tree files as assets, through the game's [`Registry`](canopy_data::Registry) ([`NodeTypes`]) |
//! | [`TreeReloaded`], [`TreeLoadFailed`], [`WaitAborted`], [`BrainFinished`], [`NodeEvent`] | messages: a tree changed (kept and aborted counts), a tree file did not load, a waiting async leaf was aborted, a root finished, a watched node started, ended or was aborted |
//! | [`save`] | every brain's state in canopy's snapshot format, restored with an entity mapping |
//! | `inspect` (feature `inspector`) | canopy's browser inspector for the brains of one tree: the crowd live, one entity's running tasks |
//!
//! Async leaves: a leaf stores its [`Ticket`](canopy_core::Ticket) in the
//! entity's `A` component; any system later calls [`Brain::complete`] with
//! it, and the leaf reports the result on the next tick. If the leaf is
//! aborted while it waits, a [`WaitAborted`] message says so.

#![forbid(unsafe_code)]
// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

pub mod aborted;
pub mod asset;
pub mod brain;
#[cfg(feature = "inspector")]
pub mod inspect;
pub mod plugin;
pub mod save;
pub mod watch;

pub use aborted::WaitAborted;
pub use asset::{TreeAsset, TreeLoadError, TreeLoadFailed, TreeLoader, TreeReloaded};
pub use brain::{Brain, BrainRestoreError};
#[cfg(feature = "inspector")]
pub use inspect::BrainInspector;
pub use plugin::{BrainFinished, CanopyPlugin, CanopySystems, NodeTypes, tick_brains};
pub use save::{SaveError, SavedBrains, restore_brains, save_brains};
pub use watch::{NodeChange, NodeEvent};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
