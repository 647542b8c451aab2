//! Saving and loading every [`Brain`] of a world, in canopy's snapshot
//! format, with the entity mapping a Bevy save needs.
//!
//! A save game recreates its entities, and Bevy gives them new ids; so a
//! save holds each brain's [`Snapshot`] under the entity it was taken
//! from, and [`restore_brains`] asks the game where each saved entity is
//! now. Each entity's snapshot is canopy's own (tree fingerprint, tick,
//! running tasks, blackboard, pending waits), so everything canopy checks
//! when restoring one agent is checked here too; on top of that, a restore
//! is all or nothing: every snapshot is checked and made into an agent
//! before the first brain changes.
//!
//! The bytes ([`SavedBrains::to_bytes`]) are a mark, a count, and per
//! entity its id bits and canopy's snapshot bytes with their length. They
//! are read back with every length checked against what is left, so a
//! damaged or foreign file is an error, not a huge allocation. Not chosen:
//! a Bevy scene (reflection of the agent's task memory would expose the
//! engine's private layout as fields, and scenes do not check a tree's
//! fingerprint).

use bevy_asset::Assets;
use bevy_ecs::component::{Component, Mutable};
use bevy_ecs::entity::Entity;
use bevy_ecs::resource::Resource;
use bevy_ecs::world::World;
use canopy_core::{Snapshot, snapshot::RestoreError};

use crate::asset::TreeAsset;
use crate::brain::{Brain, BrainRestoreError};

const MARK: &[u8; 8] = b"CANOPYBV";
const VERSION: u16 = 1;

/// The state of every started brain of a world, by entity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SavedBrains {
    entries: Vec<(Entity, Snapshot)>,
}

/// Why saved brains could not be read or restored. A failed restore
/// changed no brain.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// The bytes are not saved brains, or are cut short or damaged.
    #[error("not saved brains: {0}")]
    Damaged(&'static str),
    /// The game did not say where a saved entity is now.
    #[error("saved entity {0} has no counterpart")]
    Unmapped(Entity),
    /// The entity a saved one maps to has no brain.
    #[error("entity {0} has no brain")]
    NoBrain(Entity),
    /// The brain of this entity could not go on from its snapshot.
    #[error("entity {entity}: {error}")]
    Brain {
        /// The entity, in the world restored into.
        entity: Entity,
        /// Why.
        error: BrainRestoreError,
    },
}

impl SavedBrains {
    /// How many brains were saved.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no brain was saved.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The saved entities and their snapshots.
    pub fn entries(&self) -> &[(Entity, Snapshot)] {
        &self.entries
    }

    /// The saved brains as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MARK);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for (entity, snapshot) in &self.entries {
            let bytes = snapshot.to_bytes();
            out.extend_from_slice(&entity.to_bits().to_le_bytes());
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(&bytes);
        }
        out
    }

    /// Read bytes written by [`to_bytes`](Self::to_bytes).
    pub fn from_bytes(bytes: &[u8]) -> Result<SavedBrains, SaveError> {
        let mut rest = bytes
            .strip_prefix(MARK.as_slice())
            .ok_or(SaveError::Damaged("no mark"))?;
        let version = u16::from_le_bytes(take(&mut rest)?);
        if version != VERSION {
            return Err(SaveError::Damaged("unknown version"));
        }
        let count = u32::from_le_bytes(take(&mut rest)?) as usize;
        // Each entry takes at least its id and length: bound the list by the bytes.
        if count > rest.len() / 12 {
            return Err(SaveError::Damaged("more entries than bytes"));
        }
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            let entity = Entity::try_from_bits(u64::from_le_bytes(take(&mut rest)?))
                .ok_or(SaveError::Damaged("an invalid entity"))?;
            let len = u32::from_le_bytes(take(&mut rest)?) as usize;
            if len > rest.len() {
                return Err(SaveError::Damaged("cut short"));
            }
            let (body, after) = rest.split_at(len);
            rest = after;
            let snapshot = Snapshot::from_bytes(body).map_err(|e| snapshot_error(entity, e))?;
            entries.push((entity, snapshot));
        }
        if !rest.is_empty() {
            return Err(SaveError::Damaged("bytes after the last entry"));
        }
        Ok(SavedBrains { entries })
    }
}

fn take<const N: usize>(rest: &mut &[u8]) -> Result<[u8; N], SaveError> {
    let Some((head, tail)) = rest.split_first_chunk::<N>() else {
        return Err(SaveError::Damaged("cut short"));
    };
    *rest = tail;
    Ok(*head)
}

fn snapshot_error(entity: Entity, error: RestoreError) -> SaveError {
    SaveError::Brain {
        entity,
        error: BrainRestoreError::Snapshot(error),
    }
}

/// Snapshot every started brain of agent data `A` and world `W`, in
/// entity order (brains whose tree has not loaded yet have nothing to save).
pub fn save_brains<A, W>(world: &mut World) -> SavedBrains
where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    let mut query = world.query::<(Entity, &Brain<A, W>)>();
    let mut entries: Vec<(Entity, Snapshot)> = query
        .iter(world)
        .filter_map(|(entity, brain)| Some((entity, brain.snapshot()?)))
        .collect();
    entries.sort_by_key(|(entity, _)| *entity);
    SavedBrains { entries }
}

/// Restore saved brains into `world`: `map` says which entity of this
/// world each saved entity is now, and that entity's brain must run the
/// same tree (loaded). All or nothing: returns how many brains were
/// restored, or the first problem, with no brain changed.
pub fn restore_brains<A, W>(
    world: &mut World,
    saved: &SavedBrains,
    mut map: impl FnMut(Entity) -> Option<Entity>,
) -> Result<usize, SaveError>
where
    A: Component<Mutability = Mutable>,
    W: Resource,
{
    let trees = world.resource::<Assets<TreeAsset<A, W>>>();
    let mut ready = Vec::with_capacity(saved.len());
    for (old, snapshot) in &saved.entries {
        let entity = map(*old).ok_or(SaveError::Unmapped(*old))?;
        let brain = world
            .get::<Brain<A, W>>(entity)
            .ok_or(SaveError::NoBrain(entity))?;
        let running = brain
            .restored(trees, snapshot)
            .map_err(|error| SaveError::Brain { entity, error })?;
        ready.push((entity, running));
    }
    let restored = ready.len();
    for (entity, running) in ready {
        if let Some(mut brain) = world.get_mut::<Brain<A, W>>(entity) {
            brain.install(running);
        }
    }
    Ok(restored)
}
