//! Saving a running crowd and loading it back: how a game's own agent data
//! and canopy's snapshots go together.
//!
//! canopy saves where each agent is in its tree
//! ([`canopy_core::save_crowd`]); the agent data (`A`, here a [`Walker`])
//! and the world are the game's to save. A saved crowd is both, in one
//! file: the configuration it was made with, the moving parts of the world
//! (the step, the threats), every walker, and every agent's snapshot. The
//! fixed parts (arena, food, rest areas) are made again from the seed, and
//! what each step derives from positions (the neighbour grid, what each
//! walker perceives) is derived again, so a loaded crowd steps exactly as
//! the saved one would have: same state hash, step for step (tested).
//!
//! The file is a stranger's input like any other: every count is checked
//! against the bytes that remain before anything is allocated, every
//! number is checked (finite, in range), and a damaged or foreign file is
//! a [`SavedCrowdError`], never a panic.
//!
//! Layout (little-endian): `CNCW`, version `u16`, the configuration, the
//! world's step and threats, one fixed-size record per walker, then the
//! length and bytes of canopy's crowd snapshot.

use std::fmt;

use canopy_core::{Mode, RestoreError, Tree, restore_crowd, save_crowd};
use glam::Vec2;

use crate::sim::{Config, Crowd};
use crate::walker::{Activity, Walker};
use crate::world::{Threat, World};

const MAGIC: &[u8; 4] = b"CNCW";
/// The saved-crowd format's version; [`Crowd::load`] reads only this one.
pub const SAVED_CROWD_VERSION: u16 = 1;
/// The most agents a saved crowd may hold: the demo's own limit.
pub const MAX_SAVED_AGENTS: u32 = 2_000_000;
/// The most threats a saved crowd may hold.
const MAX_THREATS: u32 = 10_000;
/// Bytes of one walker's record.
const WALKER_BYTES: usize = 4 * 17 + 3;

/// Why a saved crowd cannot be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum SavedCrowdError {
    /// The bytes do not start with a saved crowd's mark.
    NotACrowd,
    /// A version this build does not read.
    Version(u16),
    /// The bytes end before the crowd does.
    Truncated,
    /// A value no saved crowd holds.
    Invalid(&'static str),
    /// The agents' snapshots do not fit the tree, or are damaged.
    Agents(RestoreError),
}

impl fmt::Display for SavedCrowdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SavedCrowdError::NotACrowd => write!(f, "not a saved crowd (no CNCW mark)"),
            SavedCrowdError::Version(v) => write!(
                f,
                "a saved crowd of format version {v}; this build reads version {SAVED_CROWD_VERSION}"
            ),
            SavedCrowdError::Truncated => write!(f, "the saved crowd is cut short"),
            SavedCrowdError::Invalid(what) => write!(f, "damaged saved crowd: {what}"),
            SavedCrowdError::Agents(e) => write!(f, "the agents' snapshots: {e}"),
        }
    }
}

impl std::error::Error for SavedCrowdError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SavedCrowdError::Agents(e) => Some(e),
            _ => None,
        }
    }
}

impl Crowd {
    /// The whole crowd, saved, for [`Crowd::load`]: how a game's own agent
    /// data goes with canopy's snapshots. canopy saves where each agent is
    /// in its tree ([`canopy_core::save_crowd`]); the walkers and the
    /// world's moving parts (step, threats) are the game's to save, and are
    /// saved alongside, with the configuration. The fixed parts (arena,
    /// food, rest areas) are made again from the seed, and what each step
    /// derives from positions (the neighbour grid, what each walker
    /// perceives) is derived again, so a loaded crowd steps exactly as the
    /// saved one would have. Loading checks every count against the bytes
    /// left and every number against its range: a damaged file is a
    /// [`SavedCrowdError`], never a panic.
    ///
    /// ```
    /// use canopy_crowd::{Config, Crowd, load_default_tree};
    /// let config = Config { agents: 200, ..Config::default() };
    /// let mut crowd = Crowd::new(load_default_tree().unwrap(), &config);
    /// for _ in 0..20 { crowd.step(); }
    /// let saved = crowd.save();
    /// let mut loaded = Crowd::load(load_default_tree().unwrap(), &saved).unwrap();
    /// for _ in 0..20 { crowd.step(); loaded.step(); }
    /// assert_eq!(loaded.state_hash(), crowd.state_hash());
    /// ```
    pub fn save(&self) -> Vec<u8> {
        let agents = save_crowd(self.tree(), &self.agents);
        let mut w = Vec::with_capacity(64 + self.walkers.len() * WALKER_BYTES + agents.len());
        w.extend_from_slice(MAGIC);
        put_u16(&mut w, SAVED_CROWD_VERSION);
        let c = &self.config;
        put_u32(&mut w, c.agents as u32);
        w.extend_from_slice(&c.seed.to_le_bytes());
        put_f32(&mut w, c.dt);
        put_f32(&mut w, self.world.size);
        put_u32(&mut w, self.world.food.len() as u32);
        put_u32(&mut w, self.world.rest.len() as u32);
        put_u32(&mut w, c.trail as u32);
        put_u32(&mut w, c.trail_every);
        w.push(match c.mode {
            Mode::Tick => 0,
            Mode::Event => 1,
        });
        put_u32(&mut w, self.world.step);
        put_u32(&mut w, self.world.threats.len() as u32);
        for t in &self.world.threats {
            put_vec(&mut w, t.pos);
            put_vec(&mut w, t.vel);
            put_f32(&mut w, t.radius);
        }
        for walker in &self.walkers {
            put_walker(&mut w, walker);
        }
        w.extend_from_slice(&(agents.len() as u64).to_le_bytes());
        w.extend_from_slice(&agents);
        w
    }

    /// A crowd saved by [`Crowd::save`], running `tree` (the tree it was
    /// saved with: another is an error, as hot reload is the way across
    /// versions of a tree).
    pub fn load(tree: Tree<Walker, World>, bytes: &[u8]) -> Result<Crowd, SavedCrowdError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(4)? != MAGIC {
            return Err(SavedCrowdError::NotACrowd);
        }
        let version = r.u16()?;
        if version != SAVED_CROWD_VERSION {
            return Err(SavedCrowdError::Version(version));
        }
        let config = read_config(&mut r)?;
        let step = r.u32()?;
        let threats = r.count(MAX_THREATS, 20)?;
        let threats: Vec<Threat> = (0..threats)
            .map(|_| {
                let threat = Threat {
                    pos: r.vec()?,
                    vel: r.vec()?,
                    radius: r.f32()?,
                };
                let size = config.size.unwrap_or(0.0);
                let fits = in_arena(threat.pos, size)
                    && threat.vel.length() <= MAX_SPEED
                    && threat.radius > 0.0
                    && threat.radius <= size;
                fits.then_some(threat)
                    .ok_or(SavedCrowdError::Invalid("a threat out of range"))
            })
            .collect::<Result<_, SavedCrowdError>>()?;
        if r.remaining() < config.agents * WALKER_BYTES {
            return Err(SavedCrowdError::Truncated);
        }
        let size = config.size.unwrap_or(0.0);
        let walkers: Vec<Walker> = (0..config.agents)
            .map(|_| read_walker(&mut r, size))
            .collect::<Result<_, _>>()?;
        let len = usize::try_from(r.u64()?).map_err(|_| SavedCrowdError::Truncated)?;
        let agents = restore_crowd(&tree, r.take(len)?).map_err(SavedCrowdError::Agents)?;
        if r.remaining() != 0 {
            return Err(SavedCrowdError::Invalid("bytes after the end"));
        }
        if agents.len() != config.agents {
            return Err(SavedCrowdError::Invalid(
                "agent count differs from the walkers'",
            ));
        }
        if agents.iter().any(|a| a.mode() != config.mode) {
            return Err(SavedCrowdError::Invalid(
                "an agent's mode differs from the crowd's",
            ));
        }
        let config = Config {
            threats: threats.len(),
            ..config
        };
        let mut crowd = Crowd::new(tree, &config);
        crowd.world.step = step;
        crowd.world.threats = threats;
        crowd.resume(walkers, agents);
        Ok(crowd)
    }
}

fn read_config(r: &mut Reader<'_>) -> Result<Config, SavedCrowdError> {
    let agents = r.count(MAX_SAVED_AGENTS, WALKER_BYTES)?;
    let seed = r.u64()?;
    let dt = r.f32()?;
    let size = r.f32()?;
    let food = r.count(1_000_000, 0)?;
    let rest = r.count(1_000_000, 0)?;
    let trail = r.count(1_000, 0)?;
    let trail_every = r.u32()?;
    let mode = match r.take(1)?[0] {
        0 => Mode::Tick,
        1 => Mode::Event,
        _ => return Err(SavedCrowdError::Invalid("mode")),
    };
    if !(dt > 0.0 && dt <= 10.0 && size > 0.0 && size <= 1.0e6) {
        return Err(SavedCrowdError::Invalid(
            "time step or arena size out of range",
        ));
    }
    if agents == 0 || food == 0 || rest == 0 || trail == 0 || trail_every == 0 {
        return Err(SavedCrowdError::Invalid("a count of zero"));
    }
    Ok(Config {
        agents,
        seed,
        dt,
        size: Some(size),
        food: Some(food),
        rest: Some(rest),
        // Set from the threats that follow.
        threats: 0,
        trail,
        trail_every,
        mode,
    })
}

fn put_u16(w: &mut Vec<u8>, v: u16) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_u32(w: &mut Vec<u8>, v: u32) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_f32(w: &mut Vec<u8>, v: f32) {
    w.extend_from_slice(&v.to_le_bytes());
}

fn put_vec(w: &mut Vec<u8>, v: Vec2) {
    put_f32(w, v.x);
    put_f32(w, v.y);
}

fn put_walker(w: &mut Vec<u8>, k: &Walker) {
    put_vec(w, k.pos);
    put_vec(w, k.vel);
    put_f32(w, k.radius);
    put_f32(w, k.max_speed);
    put_vec(w, k.goal);
    put_f32(w, k.hunger);
    put_f32(w, k.fatigue);
    put_f32(w, k.fear);
    w.extend_from_slice(&k.known_food.to_le_bytes());
    put_vec(w, k.intent);
    put_u32(w, k.rng);
    w.push(k.activity as u8);
    w.push(k.neighbours);
    w.push(k.nearest.is_some() as u8);
    put_vec(w, k.nearest.unwrap_or(Vec2::ZERO));
}

/// The fastest anything may move, in units per second: far above what the
/// simulation produces, low enough that no sum of them overflows.
const MAX_SPEED: f32 = 1.0e3;

/// Whether `p` is in the arena, or near it (goals may lie just outside).
fn in_arena(p: Vec2, size: f32) -> bool {
    let (lo, hi) = (-size, 2.0 * size);
    p.x >= lo && p.x <= hi && p.y >= lo && p.y <= hi
}

fn read_walker(r: &mut Reader<'_>, size: f32) -> Result<Walker, SavedCrowdError> {
    let (pos, vel, radius, max_speed, goal) = (r.vec()?, r.vec()?, r.f32()?, r.f32()?, r.vec()?);
    let (hunger, fatigue, fear) = (r.f32()?, r.f32()?, r.f32()?);
    let known_food = r.u32()? as i32;
    let (intent, rng) = (r.vec()?, r.u32()?);
    let code = r.take(1)?[0];
    let activity = [Activity::Idle]
        .into_iter()
        .chain(Activity::ALL)
        .find(|a| *a as u8 == code)
        .ok_or(SavedCrowdError::Invalid("activity"))?;
    let neighbours = r.take(1)?[0];
    let has_nearest = r.take(1)?[0];
    let nearest = r.vec()?;
    let need = |v: f32| (0.0..=1.0).contains(&v);
    let fits = has_nearest <= 1
        && rng != 0
        && known_food >= -1
        && [pos, goal, nearest].iter().all(|&p| in_arena(p, size))
        && vel.length() <= MAX_SPEED
        && intent.length() <= MAX_SPEED
        && radius > 0.0
        && radius <= 10.0
        && max_speed > 0.0
        && max_speed <= MAX_SPEED
        && need(hunger)
        && need(fatigue)
        && need(fear);
    if !fits {
        return Err(SavedCrowdError::Invalid("a walker out of range"));
    }
    Ok(Walker {
        pos,
        vel,
        radius,
        max_speed,
        goal,
        hunger,
        fatigue,
        fear,
        known_food,
        activity,
        intent,
        neighbours,
        nearest: (has_nearest == 1).then_some(nearest),
        rng,
    })
}

/// Checked reads over a byte slice.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], SavedCrowdError> {
        if n > self.remaining() {
            return Err(SavedCrowdError::Truncated);
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], SavedCrowdError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16, SavedCrowdError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, SavedCrowdError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, SavedCrowdError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A finite number.
    fn f32(&mut self) -> Result<f32, SavedCrowdError> {
        let v = f32::from_le_bytes(self.array()?);
        if !v.is_finite() {
            return Err(SavedCrowdError::Invalid("a number that is not finite"));
        }
        Ok(v)
    }

    fn vec(&mut self) -> Result<Vec2, SavedCrowdError> {
        Ok(Vec2::new(self.f32()?, self.f32()?))
    }

    /// A count of at most `max` items of at least `each` bytes each: no
    /// more than the bytes left could hold.
    fn count(&mut self, max: u32, each: usize) -> Result<usize, SavedCrowdError> {
        let n = self.u32()?;
        if n > max {
            return Err(SavedCrowdError::Invalid("a count above its limit"));
        }
        if (n as usize).saturating_mul(each) > self.remaining() {
            return Err(SavedCrowdError::Truncated);
        }
        Ok(n as usize)
    }
}
