//! Saving a running crowd and loading it back: how a game's own agent data
//! and canopy's snapshots go together.
//!
//! canopy saves where each agent is in its tree
//! ([`canopy_core::snapshot::save_crowd`]); the agent data (`A`, here a [`Walker`])
//! and the world are the game's to save. A saved crowd is both, in one
//! file: the configuration it was made with, the moving parts of the world
//! (the step, the threats), every walker, and every agent's snapshot. The
//! fixed parts (arena, food, rest areas) are made again from the seed, and
//! what each step derives from positions (the neighbour grid, what each
//! walker perceives) is derived again, so a loaded crowd steps exactly as
//! the saved one would have: same state hash, step for step (tested).
//!
//! The file is a stranger's input like any other. A number that merely
//! parses is not enough: every value is checked against the range the
//! simulation runs with, because a legal-looking one can still break it (a
//! time step of 1e-20 s makes avoidance overflow to NaN, an arena a million
//! metres wide asks for a neighbour grid of hundreds of gigabytes, a million
//! food patches make every agent's tick scan them all). The limits are
//! listed in the crate's documentation ("Limits of a saved crowd").
//!
//! Counts are checked against the bytes that remain before anything is
//! allocated, the grid and the crowd's lists are allocated with
//! `try_reserve`, and the agents' snapshots are restored within canopy's
//! crowd memory limit ([`canopy_core::snapshot::restore_crowd`]); a file is read
//! with [`Crowd::load_file`] as tree files are (regular files only, opened
//! without blocking, at most [`MAX_SAVED_CROWD_BYTES`]). A damaged or
//! foreign file is a [`SavedCrowdError`] naming the field, never a panic.
//! Rejected: clamping out-of-range values into range, which would load a
//! crowd that was never saved.
//!
//! Layout (little-endian): `CNCW`, version `u16`, the configuration, the
//! world's step and threats, one fixed-size record per walker, then the
//! length and bytes of canopy's crowd snapshot.

use std::fmt;
use std::path::{Path, PathBuf};

use canopy_core::{
    Mode, Tree,
    snapshot::{RestoreError, restore_crowd, save_crowd},
};
use canopy_data::Problem;
use glam::Vec2;

use crate::sim::{Config, Crowd};
use crate::walker::{Activity, Walker};
use crate::world::{Threat, World};

const MAGIC: &[u8; 4] = b"CNCW";
/// The saved-crowd format's version; [`Crowd::load`] reads only this one.
pub const SAVED_CROWD_VERSION: u16 = 2;
/// The most agents a saved crowd may hold: the demo's own limit.
pub const MAX_SAVED_AGENTS: u32 = 2_000_000;
/// The largest saved crowd [`Crowd::load_file`] reads, in bytes (1 GiB).
pub const MAX_SAVED_CROWD_BYTES: u64 = 1 << 30;
/// The shortest time step a saved crowd may hold, in seconds: below it,
/// avoidance divides distances by the step into numbers that overflow.
pub const MIN_TIME_STEP: f32 = crate::motion::MIN_AVOIDANCE_STEP;
/// The longest time step a saved crowd may hold, in seconds.
pub const MAX_TIME_STEP: f32 = 10.0;
/// The widest arena a saved crowd may hold, in metres: its neighbour grid
/// has at most 1,667 × 1,667 cells (22 MB). A crowd of
/// [`MAX_SAVED_AGENTS`] at the default density is 3,465 wide.
pub const MAX_ARENA_SIZE: f32 = 5_000.0;
/// The most food patches, rest areas and threats (each) a saved crowd may
/// hold; fewer still for a small crowd (no more than `max(agents, 16)`).
/// Every agent scans them every tick.
pub const MAX_PLACES: u32 = 4_096;
/// The most trail samples per agent a saved crowd may keep.
pub const MAX_TRAIL: u32 = 64;
/// Bytes of one walker's record.
const WALKER_BYTES: usize = 4 * 20 + 3;
/// Bytes of one threat's record.
const THREAT_BYTES: usize = 4 * 5;

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
    /// A value outside the range the simulation runs with.
    OutOfRange {
        /// Which value (`"the time step"`, `"walker 7's radius"`).
        field: String,
        /// The value as saved.
        value: String,
        /// What it may be.
        allowed: String,
    },
    /// The crowd's memory cannot be had.
    OutOfMemory,
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
            SavedCrowdError::OutOfRange {
                field,
                value,
                allowed,
            } => write!(
                f,
                "damaged saved crowd: {field} is {value}; the simulation runs with {allowed}"
            ),
            SavedCrowdError::OutOfMemory => {
                write!(f, "the system refused the memory the saved crowd needs")
            }
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

/// Why a saved crowd's file cannot be loaded: the file, and what is wrong
/// with it.
#[derive(Debug)]
pub struct CrowdFileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong (boxed: errors stay small to pass around).
    pub kind: Box<CrowdFileProblem>,
}

/// What is wrong with a saved crowd's file.
#[derive(Debug)]
#[non_exhaustive]
pub enum CrowdFileProblem {
    /// It cannot be read: not a regular file, too large, unreadable.
    Read(Problem),
    /// It was read, and is not a crowd that can be loaded.
    Load(SavedCrowdError),
}

impl fmt::Display for CrowdFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &*self.kind {
            CrowdFileProblem::Read(Problem::NotARegularFile { what }) => write!(
                f,
                "{path}: not a regular file ({what}); saved crowds are read from regular files"
            ),
            CrowdFileProblem::Read(problem) => write!(f, "{path}: {problem}"),
            CrowdFileProblem::Load(e) => write!(f, "{path}: {e}"),
        }
    }
}

impl std::error::Error for CrowdFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            CrowdFileProblem::Read(_) => None,
            CrowdFileProblem::Load(e) => Some(e),
        }
    }
}

/// `value` unless it is 0 or less or more than `hi`, which is an error
/// naming `field`.
fn positive(
    field: impl Fn() -> String,
    value: f32,
    hi: f32,
    unit: &str,
) -> Result<f32, SavedCrowdError> {
    if value > 0.0 && value <= hi {
        return Ok(value);
    }
    Err(SavedCrowdError::OutOfRange {
        field: field(),
        value: format!("{value:?}{unit}"),
        allowed: format!("more than 0{unit}, at most {hi:?}{unit}"),
    })
}

/// `value` unless it lies outside `lo..=hi`, which is an error naming `field`.
fn within<T: PartialOrd + fmt::Debug>(
    field: impl Fn() -> String,
    value: T,
    lo: T,
    hi: T,
    unit: &str,
) -> Result<T, SavedCrowdError> {
    if value >= lo && value <= hi {
        return Ok(value);
    }
    Err(SavedCrowdError::OutOfRange {
        field: field(),
        value: format!("{value:?}{unit}"),
        allowed: format!("{lo:?}{unit} to {hi:?}{unit}"),
    })
}

impl Crowd {
    /// The whole crowd, saved, for [`Crowd::load`]: how a game's own agent
    /// data goes with canopy's snapshots. canopy saves where each agent is
    /// in its tree ([`canopy_core::snapshot::save_crowd`]); the walkers and the
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
    /// versions of a tree). Every value is checked against the range the
    /// simulation runs with (see the module's table of limits).
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
        let size = config.size.unwrap_or(0.0);
        let step = r.u32()?;
        let threats = r.count(
            "the number of threats",
            0,
            places_limit(config.agents),
            THREAT_BYTES,
        )?;
        let mut saved_threats = Vec::new();
        saved_threats
            .try_reserve_exact(threats)
            .map_err(|_| SavedCrowdError::OutOfMemory)?;
        for k in 0..threats {
            saved_threats.push(read_threat(&mut r, k, size)?);
        }
        if r.remaining() < config.agents * WALKER_BYTES {
            return Err(SavedCrowdError::Truncated);
        }
        let places = (config.food.unwrap_or(0), config.rest.unwrap_or(0));
        let mut walkers = Vec::new();
        walkers
            .try_reserve_exact(config.agents)
            .map_err(|_| SavedCrowdError::OutOfMemory)?;
        for i in 0..config.agents {
            walkers.push(read_walker(&mut r, i, size, places)?);
        }
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
            threats: saved_threats.len(),
            ..config
        };
        let mut crowd = Crowd::try_new(tree, &config).map_err(|_| SavedCrowdError::OutOfMemory)?;
        crowd.world.step = step;
        crowd.world.threats = saved_threats;
        crowd.resume(walkers, agents);
        Ok(crowd)
    }

    /// [`Crowd::load`] from a file, read as tree files are
    /// ([`canopy_data::read_file_up_to`]): a regular file, opened without
    /// blocking, of at most [`MAX_SAVED_CROWD_BYTES`]. A FIFO, a device such
    /// as `/dev/zero`, a directory or a larger file is an error at once.
    pub fn load_file(tree: Tree<Walker, World>, path: &Path) -> Result<Crowd, CrowdFileError> {
        let fail = |kind| CrowdFileError {
            path: path.to_owned(),
            kind: Box::new(kind),
        };
        let bytes = canopy_data::read_file_up_to(path, MAX_SAVED_CROWD_BYTES)
            .map_err(|e| fail(CrowdFileProblem::Read(e)))?;
        Crowd::load(tree, &bytes).map_err(|e| fail(CrowdFileProblem::Load(e)))
    }
}

/// How many food patches, rest areas or threats a crowd of `agents` may
/// hold: one per walker record the file holds (at least 16), at most
/// [`MAX_PLACES`].
fn places_limit(agents: usize) -> u32 {
    (agents.max(16) as u32).min(MAX_PLACES)
}

fn read_config(r: &mut Reader<'_>) -> Result<Config, SavedCrowdError> {
    let agents = r.count("the number of agents", 1, MAX_SAVED_AGENTS, WALKER_BYTES)?;
    let seed = r.u64()?;
    let dt = r.f32("the time step")?;
    let dt = within(
        || "the time step".into(),
        dt,
        MIN_TIME_STEP,
        MAX_TIME_STEP,
        " s",
    )?;
    let size = r.f32("the arena's side")?;
    let size = positive(|| "the arena's side".into(), size, MAX_ARENA_SIZE, "")?;
    let places = places_limit(agents);
    let food = r.count("the number of food patches", 1, places, 0)?;
    let rest = r.count("the number of rest areas", 1, places, 0)?;
    let trail = r.count("the number of trail samples", 1, MAX_TRAIL, 0)?;
    let trail_every = r.u32()?;
    let trail_every = within(
        || "the steps between trail samples".into(),
        trail_every,
        1,
        u32::MAX,
        "",
    )?;
    let mode = match r.take(1)?[0] {
        0 => Mode::Tick,
        1 => Mode::Event,
        other => {
            return Err(SavedCrowdError::OutOfRange {
                field: "the mode".into(),
                value: other.to_string(),
                allowed: "0 (tick) or 1 (event)".into(),
            });
        }
    };
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

fn read_threat(r: &mut Reader<'_>, k: usize, size: f32) -> Result<Threat, SavedCrowdError> {
    let name = |what: &str| format!("threat {k}'s {what}");
    let pos = r.vec(&name("position"))?;
    let vel = r.vec(&name("velocity"))?;
    let radius = r.f32(&name("radius"))?;
    in_arena(pos, size, || name("position"))?;
    within(|| name("speed"), vel.length(), 0.0, MAX_SPEED, " m/s")?;
    positive(|| name("radius"), radius, size, "")?;
    Ok(Threat { pos, vel, radius })
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
    w.extend_from_slice(&k.known_rest.to_le_bytes());
    put_u32(w, k.meals);
    put_u32(w, k.naps);
    put_vec(w, k.intent);
    put_u32(w, k.rng);
    w.push(k.activity as u8);
    w.push(k.neighbours);
    w.push(k.nearest.is_some() as u8);
    put_vec(w, k.nearest.unwrap_or(Vec2::ZERO));
}

/// The fastest anything may move, in m/s: far above what the
/// simulation produces, low enough that no sum of them overflows.
const MAX_SPEED: f32 = 1.0e3;

/// `p`, if it is in the arena or near it (goals may lie just outside).
fn in_arena(p: Vec2, size: f32, field: impl Fn() -> String) -> Result<Vec2, SavedCrowdError> {
    let (lo, hi) = (-size, 2.0 * size);
    if p.x >= lo && p.x <= hi && p.y >= lo && p.y <= hi {
        return Ok(p);
    }
    Err(SavedCrowdError::OutOfRange {
        field: field(),
        value: format!("({:?}, {:?})", p.x, p.y),
        allowed: format!("coordinates from {lo:?} to {hi:?} (the arena and around it)"),
    })
}

fn read_walker(
    r: &mut Reader<'_>,
    i: usize,
    size: f32,
    (food, rest): (usize, usize),
) -> Result<Walker, SavedCrowdError> {
    let name = |what: &str| format!("walker {i}'s {what}");
    let pos = in_arena(r.vec(&name("position"))?, size, || name("position"))?;
    let vel = r.vec(&name("velocity"))?;
    within(|| name("speed"), vel.length(), 0.0, MAX_SPEED, " m/s")?;
    let radius = positive(|| name("radius"), r.f32(&name("radius"))?, 10.0, "")?;
    let max_speed = r.f32(&name("top speed"))?;
    let max_speed = positive(|| name("top speed"), max_speed, MAX_SPEED, " m/s")?;
    let goal = in_arena(r.vec(&name("goal"))?, size, || name("goal"))?;
    let need = |what: &str, v: f32| within(|| name(what), v, 0.0, 1.0, "");
    let hunger = need("hunger", r.f32(&name("hunger"))?)?;
    let fatigue = need("fatigue", r.f32(&name("fatigue"))?)?;
    let fear = need("fear", r.f32(&name("fear"))?)?;
    let known_food = r.u32()? as i32;
    let known_food = within(
        || name("chosen food patch"),
        known_food,
        -1,
        food as i32 - 1,
        "",
    )?;
    let known_rest = r.u32()? as i32;
    let known_rest = within(
        || name("chosen rest area"),
        known_rest,
        -1,
        rest as i32 - 1,
        "",
    )?;
    let meals = r.u32()?;
    let naps = r.u32()?;
    let intent = r.vec(&name("intent"))?;
    within(
        || name("intended speed"),
        intent.length(),
        0.0,
        MAX_SPEED,
        " m/s",
    )?;
    let rng = within(|| name("dice"), r.u32()?, 1, u32::MAX, "")?;
    let code = r.take(1)?[0];
    let activity = [Activity::Idle]
        .into_iter()
        .chain(Activity::ALL)
        .find(|a| *a as u8 == code)
        .ok_or_else(|| SavedCrowdError::OutOfRange {
            field: name("activity"),
            value: code.to_string(),
            allowed: "0 to 5".into(),
        })?;
    let neighbours = r.take(1)?[0];
    let has_nearest = within(|| name("nearest-neighbour flag"), r.take(1)?[0], 0, 1, "")?;
    let nearest = in_arena(r.vec(&name("nearest neighbour"))?, size, || {
        name("nearest neighbour")
    })?;
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
        known_rest,
        meals,
        naps,
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

    /// A finite number: `field`.
    fn f32(&mut self, field: &str) -> Result<f32, SavedCrowdError> {
        let v = f32::from_le_bytes(self.array()?);
        if !v.is_finite() {
            return Err(SavedCrowdError::OutOfRange {
                field: field.to_string(),
                value: format!("{v:?}"),
                allowed: "finite numbers".into(),
            });
        }
        Ok(v)
    }

    fn vec(&mut self, field: &str) -> Result<Vec2, SavedCrowdError> {
        Ok(Vec2::new(self.f32(field)?, self.f32(field)?))
    }

    /// `field`, a count of `min..=max` items of at least `each` bytes
    /// each: no more than the bytes left could hold.
    fn count(
        &mut self,
        field: &str,
        min: u32,
        max: u32,
        each: usize,
    ) -> Result<usize, SavedCrowdError> {
        let n = within(|| field.to_string(), self.u32()?, min, max, "")?;
        if (n as usize).saturating_mul(each) > self.remaining() {
            return Err(SavedCrowdError::Truncated);
        }
        Ok(n as usize)
    }
}
