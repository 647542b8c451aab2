//! The bytes ranks send each other and write to checkpoints: halo copies,
//! migrating agents, and the records a state hash is gathered from.
//!
//! Every message is read as a stranger's input. A rank that sends garbage
//! (a bug, a version mismatch, a damaged checkpoint) must make the reader
//! stop with an error naming the sender and the problem, never crash it
//! or make it allocate what the bytes claim: every count is checked
//! against the bytes that follow before anything is reserved, every number
//! against the range the simulation runs with, every snapshot through
//! canopy's own checked reader.
//!
//! Layout (little-endian): `CNMP`, version `u16`, kind `u8`, the sender's
//! rank `u32`, the step `u32`, the record count `u32`, then the records:
//! a halo record is an id and the body (position, velocity, radius) that
//! perception and avoidance read; a walker record is an id and every field
//! of the walker that outlives a step (what perception derives is derived
//! again); a migrant is a walker record and the agent's canopy snapshot.
//! Rejected: serde with a self-describing format, which would spend bytes
//! on field names in the one place where bytes per step are measured.

use std::fmt;

use canopy_core::{Agent, Snapshot, Tree, snapshot::RestoreError};
use canopy_crowd::{Activity, Walker, World};
use glam::Vec2;

const MAGIC: &[u8; 4] = b"CNMP";
/// The message format's version; readers accept only this one. Version 3:
/// migration messages travel behind the sender's sparse visitor counts, so
/// a rank of version 2 would misread them; the version says so instead.
pub const WIRE_VERSION: u16 = 3;
/// Bytes of a message's header.
pub const HEADER_BYTES: usize = 4 + 2 + 1 + 4 + 4 + 4;
/// Bytes of one halo record.
pub const HALO_BYTES: usize = 4 + 5 * 4;
/// Bytes of one walker record.
pub const WALKER_BYTES: usize = 4 + 15 * 4 + 1;
/// The largest agent snapshot a migrant may carry, in bytes: canopy's own
/// per-agent memory limit is far below it for any tree a crowd runs.
pub const MAX_SNAPSHOT_BYTES: usize = 1 << 20;
/// Top speed and speed a walker may have, in m/s.
const MAX_SPEED: f32 = 1_000.0;

/// What a message carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Read-only copies of agents near the receiver's strip.
    Halo = 1,
    /// Agents whose owner changes: walker and behaviour.
    Migrants = 2,
    /// Walker records and active-task counts, for the state hash.
    Hash = 3,
}

/// What is wrong with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Fewer bytes than the header or the records need.
    Truncated,
    /// Not a canopy-mpi message at all.
    NotAMessage,
    /// Another version of the format.
    Version(u16),
    /// A message of another kind than expected.
    Kind {
        /// The kind expected.
        expected: u8,
        /// The kind found.
        found: u8,
    },
    /// The header names another sender than the one it came from.
    Sender(u32),
    /// The header names another step than the receiver's.
    Step {
        /// The receiver's step.
        expected: u32,
        /// The step in the header.
        found: u32,
    },
    /// An agent id outside the crowd.
    Id(u32),
    /// A field out of the range the simulation runs with.
    Field {
        /// The agent.
        id: u32,
        /// The field.
        field: &'static str,
    },
    /// An agent's snapshot does not fit the tree, or is damaged.
    Snapshot {
        /// The agent.
        id: u32,
        /// Why.
        error: RestoreError,
    },
    /// A snapshot of one agent carried under another's id.
    SnapshotId {
        /// The record's id.
        id: u32,
        /// The snapshot's id.
        found: u32,
    },
    /// An agent sent to a rank whose strip it is not in.
    Misplaced(u32),
    /// An agent the receiver already holds, or sent twice.
    Duplicate(u32),
    /// Halo copies out of id order: this one after a larger or equal id.
    Unordered(u32),
    /// Bytes after the last record.
    TrailingBytes,
    /// The visitor counts ahead of a migration message are damaged: cut
    /// short, a place past the world's, or places out of order.
    VisitorCounts,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Truncated => write!(f, "it ends before its records do"),
            Problem::NotAMessage => write!(f, "it is not a canopy-mpi message"),
            Problem::Version(v) => write!(
                f,
                "it is of format version {v}, this program reads {WIRE_VERSION}"
            ),
            Problem::Kind { expected, found } => {
                write!(f, "it is of kind {found}, kind {expected} was expected")
            }
            Problem::Sender(r) => write!(f, "its header names rank {r} as its sender"),
            Problem::Step { expected, found } => {
                write!(
                    f,
                    "it is of step {found}, the receiver is at step {expected}"
                )
            }
            Problem::Id(id) => write!(f, "agent id {id} is outside the crowd"),
            Problem::Field { id, field } => {
                write!(f, "agent {id}: its {field} is out of range")
            }
            Problem::Snapshot { id, error } => write!(f, "agent {id}: its snapshot: {error}"),
            Problem::SnapshotId { id, found } => {
                write!(f, "agent {id} carries the snapshot of agent {found}")
            }
            Problem::Misplaced(id) => {
                write!(f, "agent {id} is not in or beside the receiver's strip")
            }
            Problem::Duplicate(id) => write!(f, "agent {id} is already held"),
            Problem::Unordered(id) => write!(f, "agent {id} comes after a larger id"),
            Problem::TrailingBytes => write!(f, "bytes follow its last record"),
            Problem::VisitorCounts => write!(f, "its visitor counts are damaged"),
        }
    }
}

/// A message that could not be read: who sent it and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// The rank that sent it (or the checkpoint part it was read from).
    pub from: usize,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the message from rank {}: {}", self.from, self.problem)
    }
}

impl std::error::Error for WireError {}

/// What a reader knows in advance about the messages it accepts.
#[derive(Clone, Copy, Debug)]
pub struct Expect<'a> {
    /// The sender (the rank the transport says it came from).
    pub from: usize,
    /// The receiver's step.
    pub step: u32,
    /// Agents in the whole crowd: ids are below it.
    pub agents: u32,
    /// The world: positions must lie in or near its arena, remembered food
    /// must exist.
    pub world: &'a World,
}

/// A message being written.
#[derive(Debug)]
pub struct Writer {
    bytes: Vec<u8>,
    count: u32,
}

impl Writer {
    /// An empty message of `kind` from rank `from` at `step`.
    pub fn new(kind: Kind, from: usize, step: u32) -> Writer {
        let mut bytes = Vec::with_capacity(HEADER_BYTES);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&WIRE_VERSION.to_le_bytes());
        bytes.push(kind as u8);
        bytes.extend_from_slice(&(from as u32).to_le_bytes());
        bytes.extend_from_slice(&step.to_le_bytes());
        bytes.extend_from_slice(&0u32.to_le_bytes());
        Writer { bytes, count: 0 }
    }

    /// Records written so far.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Add agent `id`'s body.
    pub fn halo(&mut self, id: u32, w: &Walker) {
        self.u32(id);
        self.vec(w.pos);
        self.vec(w.vel);
        self.f32(w.radius);
        self.count += 1;
    }

    /// Add agent `id`'s walker, without counting a record (a record may
    /// go on with more).
    fn walker(&mut self, id: u32, w: &Walker) {
        self.u32(id);
        self.vec(w.pos);
        self.vec(w.vel);
        self.f32(w.radius);
        self.f32(w.max_speed);
        self.vec(w.goal);
        self.f32(w.hunger);
        self.f32(w.fatigue);
        self.f32(w.fear);
        self.u32(w.known_food as u32);
        self.u32(w.known_rest as u32);
        self.u32(w.meals);
        self.u32(w.naps);
        self.u32(w.rng);
        self.bytes.push(w.activity as u8);
    }

    /// Add a migrant: agent `id`'s walker and its behaviour.
    pub fn migrant(&mut self, id: u32, w: &Walker, snapshot: &[u8]) {
        self.walker(id, w);
        self.u32(snapshot.len() as u32);
        self.bytes.extend_from_slice(snapshot);
        self.count += 1;
    }

    /// Add a hash record: agent `id`'s walker and its active tasks.
    pub fn hashed(&mut self, id: u32, w: &Walker, active_tasks: u32) {
        self.walker(id, w);
        self.u32(active_tasks);
        self.count += 1;
    }

    /// The finished message.
    pub fn finish(mut self) -> Vec<u8> {
        let at = HEADER_BYTES - 4;
        self.bytes[at..HEADER_BYTES].copy_from_slice(&self.count.to_le_bytes());
        self.bytes
    }

    fn u32(&mut self, x: u32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    fn f32(&mut self, x: f32) {
        self.u32(x.to_bits());
    }
    fn vec(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }
}

/// A message being read.
#[derive(Debug)]
pub struct Reader<'b, 'w> {
    bytes: &'b [u8],
    at: usize,
    expect: Expect<'w>,
    left: u32,
}

impl<'b, 'w> Reader<'b, 'w> {
    /// Check `bytes`' header: a message of `kind` from `expect.from` at
    /// `expect.step`, whose record count fits the bytes that follow.
    pub fn new(bytes: &'b [u8], kind: Kind, expect: Expect<'w>) -> Result<Self, WireError> {
        let mut r = Reader {
            bytes,
            at: 0,
            expect,
            left: 0,
        };
        if r.take(4)? != MAGIC {
            return Err(r.error(Problem::NotAMessage));
        }
        let version = u16::from_le_bytes([r.byte()?, r.byte()?]);
        if version != WIRE_VERSION {
            return Err(r.error(Problem::Version(version)));
        }
        let found = r.byte()?;
        if found != kind as u8 {
            return Err(r.error(Problem::Kind {
                expected: kind as u8,
                found,
            }));
        }
        let sender = r.u32()?;
        if sender as usize != expect.from {
            return Err(r.error(Problem::Sender(sender)));
        }
        let step = r.u32()?;
        if step != expect.step {
            return Err(r.error(Problem::Step {
                expected: expect.step,
                found: step,
            }));
        }
        let count = r.u32()?;
        let least = match kind {
            Kind::Halo => HALO_BYTES,
            Kind::Migrants => WALKER_BYTES + 4,
            Kind::Hash => WALKER_BYTES + 4,
        };
        if (count as usize).saturating_mul(least) > r.bytes.len() - r.at {
            return Err(r.error(Problem::Truncated));
        }
        r.left = count;
        Ok(r)
    }

    /// Records not read yet.
    pub fn left(&self) -> u32 {
        self.left
    }

    /// The next halo record: an id and a walker with that body (the rest
    /// of it is never read on the receiving side).
    pub fn halo(&mut self) -> Result<(u32, Walker), WireError> {
        self.left = self.left.saturating_sub(1);
        let id = self.id()?;
        let mut w = blank();
        w.pos = self.position(id, "position")?;
        w.vel = self.velocity(id)?;
        w.radius = self.ranged(id, "radius", 0.0, 10.0)?;
        Ok((id, w))
    }

    /// The next migrant: its id, walker and agent, restored on `tree`.
    pub fn migrant(
        &mut self,
        tree: &Tree<Walker, World>,
    ) -> Result<(u32, Walker, Agent), WireError> {
        self.left = self.left.saturating_sub(1);
        let (id, w) = self.walker()?;
        let len = self.u32()? as usize;
        if len > MAX_SNAPSHOT_BYTES {
            return Err(self.error(Problem::Snapshot {
                id,
                error: RestoreError::Corrupt {
                    node: None,
                    problem: "its length is above the limit",
                },
            }));
        }
        let bytes = self.take(len)?;
        let agent = Snapshot::from_bytes(bytes)
            .and_then(|s| {
                if s.id() == id {
                    Agent::restore(tree, &s).map(Some)
                } else {
                    Ok(None)
                }
            })
            .map_err(|error| self.error(Problem::Snapshot { id, error }))?;
        let Some(agent) = agent else {
            let found = Snapshot::from_bytes(bytes).map_or(id, |s| s.id());
            return Err(self.error(Problem::SnapshotId { id, found }));
        };
        Ok((id, w, agent))
    }

    /// The next hash record: an id, a walker and its active tasks.
    pub fn hashed(&mut self) -> Result<(u32, Walker, u32), WireError> {
        self.left = self.left.saturating_sub(1);
        let (id, w) = self.walker()?;
        let active = self.u32()?;
        Ok((id, w, active))
    }

    /// The end: every record read and no byte left.
    pub fn finish(self) -> Result<(), WireError> {
        if self.at != self.bytes.len() {
            return Err(self.error(Problem::TrailingBytes));
        }
        Ok(())
    }

    fn walker(&mut self) -> Result<(u32, Walker), WireError> {
        let id = self.id()?;
        let mut w = blank();
        w.pos = self.position(id, "position")?;
        w.vel = self.velocity(id)?;
        w.radius = self.ranged(id, "radius", 0.0, 10.0)?;
        w.max_speed = self.ranged(id, "top speed", 0.0, MAX_SPEED)?;
        w.goal = self.position(id, "goal")?;
        w.hunger = self.ranged(id, "hunger", 0.0, 1.0)?;
        w.fatigue = self.ranged(id, "fatigue", 0.0, 1.0)?;
        w.fear = self.ranged(id, "fear", 0.0, 1.0)?;
        let food = self.u32()? as i32;
        if food < -1 || food >= self.expect.world.food.len() as i32 {
            return Err(self.field(id, "chosen food patch"));
        }
        w.known_food = food;
        let rest = self.u32()? as i32;
        if rest < -1 || rest >= self.expect.world.rest.len() as i32 {
            return Err(self.field(id, "chosen rest area"));
        }
        w.known_rest = rest;
        w.meals = self.u32()?;
        w.naps = self.u32()?;
        w.rng = self.u32()?;
        if w.rng == 0 {
            return Err(self.field(id, "dice"));
        }
        let activity = self.byte()?;
        w.activity = *Activity::ALL
            .iter()
            .find(|a| **a as u8 == activity)
            .ok_or_else(|| self.field(id, "activity"))?;
        Ok((id, w))
    }

    fn id(&mut self) -> Result<u32, WireError> {
        let id = self.u32()?;
        if id >= self.expect.agents {
            return Err(self.error(Problem::Id(id)));
        }
        Ok(id)
    }

    fn position(&mut self, id: u32, field: &'static str) -> Result<Vec2, WireError> {
        // The arena and around it, as a saved crowd allows.
        let size = self.expect.world.size;
        let x = self.ranged(id, field, -size, 2.0 * size)?;
        let y = self.ranged(id, field, -size, 2.0 * size)?;
        Ok(Vec2::new(x, y))
    }

    fn velocity(&mut self, id: u32) -> Result<Vec2, WireError> {
        let x = self.ranged(id, "velocity", -MAX_SPEED, MAX_SPEED)?;
        let y = self.ranged(id, "velocity", -MAX_SPEED, MAX_SPEED)?;
        Ok(Vec2::new(x, y))
    }

    /// A number in `lo..=hi` (NaN is not).
    fn ranged(&mut self, id: u32, field: &'static str, lo: f32, hi: f32) -> Result<f32, WireError> {
        let x = f32::from_bits(self.u32()?);
        if x >= lo && x <= hi {
            Ok(x)
        } else {
            Err(self.field(id, field))
        }
    }

    fn field(&self, id: u32, field: &'static str) -> WireError {
        self.error(Problem::Field { id, field })
    }

    fn error(&self, problem: Problem) -> WireError {
        WireError {
            from: self.expect.from,
            problem,
        }
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], WireError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| self.error(Problem::Truncated))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn byte(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// A walker with nothing set: what a halo copy holds beyond its body.
pub(crate) fn blank() -> Walker {
    Walker {
        pos: Vec2::ZERO,
        vel: Vec2::ZERO,
        radius: 0.0,
        max_speed: 0.0,
        goal: Vec2::ZERO,
        hunger: 0.0,
        fatigue: 0.0,
        fear: 0.0,
        known_food: -1,
        known_rest: -1,
        meals: 0,
        naps: 0,
        activity: Activity::Idle,
        intent: Vec2::ZERO,
        neighbours: 0,
        nearest: None,
        rng: 1,
    }
}
