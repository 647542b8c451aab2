//! Checkpoint and restart: each rank writes its part; a restart on any
//! number of ranks reads every part and keeps the agents in its strip.
//!
//! A part is the crowd's configuration, the world's moving parts (step,
//! threats) and a migrant message holding the rank's agents (walker and
//! canopy snapshot): restarting is every agent migrating from a rank of
//! the old run to one of the new. The fixed parts of the world are made
//! again from the seed, as a saved crowd's are, and the strips start even
//! (balancing then moves them where the load is: strips never change the
//! answer, only the cost). Every rank reads every part, so a restart costs
//! each rank a pass over the whole crowd; the files are strangers' input,
//! read bounded, every number checked, every error naming the file.
//! Rejected: one file written through rank 0, which would gather the
//! whole crowd's bytes into one process at every checkpoint.

use std::path::{Path, PathBuf};

use canopy_core::{Mode, Tree};
use canopy_crowd::{
    Config, Crowd, MAX_ARENA_SIZE, MAX_PLACES, MAX_SAVED_AGENTS, MAX_TIME_STEP, MAX_TRAIL,
    MIN_TIME_STEP, Threat, Walker, World,
};
use glam::Vec2;

use crate::shard::{Balance, Shard, ShardError};
use crate::strips::Strips;
use crate::transport::Transport;
use crate::wire::{Expect, Kind, Reader, Writer};

const MAGIC: &[u8; 4] = b"CNMK";
/// The checkpoint format's version; a restart reads only this one.
pub const CHECKPOINT_VERSION: u16 = 1;
/// The largest part a restart reads, in bytes (4 GiB).
pub const MAX_CHECKPOINT_BYTES: u64 = 4 << 30;
/// The most parts a checkpoint may have.
const MAX_PARTS: u32 = 1 << 16;

/// The file of part `part` in `dir`.
fn part_path(dir: &Path, part: usize) -> PathBuf {
    dir.join(format!("part-{part}.cnmk"))
}

/// What every part of one checkpoint says alike.
#[derive(Clone, Debug, PartialEq)]
struct Header {
    parts: u32,
    config: Config,
    step: u32,
    threats: Vec<Threat>,
}

impl Shard {
    /// Write this rank's part of a checkpoint into `dir` (which must
    /// exist), as `part-<rank>.cnmk`, through a temporary file renamed
    /// into place. Every rank calls it at the same step.
    pub fn checkpoint(&self, dir: &Path) -> Result<(), ShardError> {
        let path = part_path(dir, self.rank());
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        let c = self.config();
        let world = self.world();
        for x in [self.rank() as u32, self.strips().ranks() as u32] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        bytes.extend_from_slice(&(c.agents as u32).to_le_bytes());
        bytes.extend_from_slice(&c.seed.to_le_bytes());
        for x in [c.dt, world.size] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        let counts = [world.food.len(), world.rest.len(), world.threats.len()];
        for x in counts.into_iter().chain([c.trail, c.trail_every as usize]) {
            bytes.extend_from_slice(&(x as u32).to_le_bytes());
        }
        bytes.push(u8::from(c.mode == Mode::Event));
        bytes.extend_from_slice(&world.step.to_le_bytes());
        for t in &world.threats {
            for x in [t.pos.x, t.pos.y, t.vel.x, t.vel.y, t.radius] {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        let mut agents = Writer::new(Kind::Migrants, self.rank(), world.step);
        for (id, w, agent) in self.owned_agents() {
            agents.migrant(id, w, &agent.snapshot(self.tree()).to_bytes());
        }
        bytes.extend_from_slice(&agents.finish());
        let temporary = path.with_extension("cnmk.partial");
        std::fs::write(&temporary, &bytes)
            .and_then(|()| std::fs::rename(&temporary, &path))
            .map_err(|e| self.checkpoint_error(&path, e.to_string()))
    }

    /// Go on from the checkpoint in `dir`, written by any number of ranks:
    /// every rank reads every part and keeps the agents in its strip. The
    /// crowd then steps as the checkpointed run would have. Collective.
    pub fn restart(
        tree: Tree<Walker, World>,
        dir: &Path,
        balance: Balance,
        t: &mut impl Transport,
    ) -> Result<Shard, ShardError> {
        let rank = t.rank();
        let error = |path: &Path, problem: String| ShardError::Checkpoint {
            rank,
            path: path.to_path_buf(),
            problem,
        };
        let first = read_part(&part_path(dir, 0), rank)?;
        let (header, _, _) = parse_header(&first).map_err(|p| error(&part_path(dir, 0), p))?;
        let config = Config {
            agents: 0,
            ..header.config.clone()
        };
        let crowd = Crowd::try_new(tree, &config).map_err(|_| ShardError::OutOfMemory { rank })?;
        let (mut world, _, _, tree) = crowd.into_parts();
        world.step = header.step;
        world.threats = header.threats.clone();
        let strips = Strips::even(world.grid.columns(), t.size());
        let mine = strips.strip(rank);
        let total = header.config.agents as u32;
        let mut seen = vec![false; total as usize];
        let mut owned = Vec::new();
        for part in 0..header.parts as usize {
            let path = part_path(dir, part);
            let bytes = if part == 0 {
                first.clone()
            } else {
                read_part(&path, rank)?
            };
            let (this, index, at) = parse_header(&bytes).map_err(|p| error(&path, p))?;
            if index as usize != part {
                return Err(error(&path, format!("it says it is part {index}")));
            }
            if this != header {
                return Err(error(&path, "it is a part of another checkpoint".into()));
            }
            let expect = Expect {
                from: part,
                step: header.step,
                agents: total,
                world: &world,
            };
            let message = |e: crate::wire::WireError| error(&path, e.problem.to_string());
            let mut r = Reader::new(&bytes[at..], Kind::Migrants, expect).map_err(message)?;
            while r.left() > 0 {
                let (id, w, agent) = r.migrant(&tree).map_err(message)?;
                if std::mem::replace(&mut seen[id as usize], true) {
                    return Err(ShardError::Census { rank, id });
                }
                if mine.contains(&world.grid.column(w.pos.x)) {
                    owned.push((id, w, agent));
                }
            }
            r.finish().map_err(message)?;
        }
        if let Some(id) = seen.iter().position(|s| !s) {
            return Err(ShardError::Census {
                rank,
                id: id as u32,
            });
        }
        let config = header.config;
        Shard::assemble(tree, world, config, strips, balance, owned, t)
    }

    fn checkpoint_error(&self, path: &Path, problem: String) -> ShardError {
        ShardError::Checkpoint {
            rank: self.rank(),
            path: path.to_path_buf(),
            problem,
        }
    }
}

fn read_part(path: &Path, rank: usize) -> Result<Vec<u8>, ShardError> {
    canopy_data::read_file_up_to(path, MAX_CHECKPOINT_BYTES).map_err(|p| ShardError::Checkpoint {
        rank,
        path: path.to_path_buf(),
        problem: p.to_string(),
    })
}

/// A part's header, checked, and where its agents begin.
fn parse_header(bytes: &[u8]) -> Result<(Header, u32, usize), String> {
    let mut c = Cursor { bytes, at: 0 };
    if c.take(4)? != MAGIC {
        return Err("it is not a canopy-mpi checkpoint".into());
    }
    let b = c.take(2)?;
    let version = u16::from_le_bytes([b[0], b[1]]);
    if version != CHECKPOINT_VERSION {
        return Err(format!(
            "it is of checkpoint version {version}, this program reads {CHECKPOINT_VERSION}"
        ));
    }
    let head = c.u32s(3)?;
    let (parts, agents) = (head[1], head[2]);
    check("the number of parts", parts, 1, MAX_PARTS)?;
    check("the number of agents", agents, 1, MAX_SAVED_AGENTS)?;
    let seed_lo = c.u32s(2)?;
    let seed = u64::from(seed_lo[0]) | (u64::from(seed_lo[1]) << 32);
    let floats = c.u32s(2)?;
    let (dt, size) = (f32::from_bits(floats[0]), f32::from_bits(floats[1]));
    checkf("the time step", dt, MIN_TIME_STEP, MAX_TIME_STEP)?;
    checkf("the arena's side", size, f32::MIN_POSITIVE, MAX_ARENA_SIZE)?;
    let counts = c.u32s(5)?;
    check("the number of food patches", counts[0], 1, MAX_PLACES)?;
    check("the number of rest areas", counts[1], 1, MAX_PLACES)?;
    check("the number of threats", counts[2], 0, MAX_PLACES)?;
    check("the trail's length", counts[3], 1, MAX_TRAIL)?;
    check("the steps between trail samples", counts[4], 1, u32::MAX)?;
    let mode = match c.take(1)?[0] {
        0 => Mode::Tick,
        1 => Mode::Event,
        m => return Err(format!("its mode is {m}, not 0 (tick) or 1 (event)")),
    };
    let step = c.u32s(1)?[0];
    let mut threats = Vec::new();
    for _ in 0..counts[2] {
        let t = c.u32s(5)?;
        let x: Vec<f32> = t.into_iter().map(f32::from_bits).collect();
        if x.iter()
            .any(|v| !v.is_finite() || v.abs() > 2.0 * MAX_ARENA_SIZE)
        {
            return Err("a threat's position, velocity or radius is out of range".into());
        }
        threats.push(Threat {
            pos: Vec2::new(x[0], x[1]),
            vel: Vec2::new(x[2], x[3]),
            radius: x[4],
        });
    }
    let config = Config {
        agents: agents as usize,
        seed,
        dt,
        size: Some(size),
        food: Some(counts[0] as usize),
        rest: Some(counts[1] as usize),
        threats: counts[2] as usize,
        trail: counts[3] as usize,
        trail_every: counts[4],
        mode,
    };
    let header = Header {
        parts,
        config,
        step,
        threats,
    };
    Ok((header, head[0], c.at))
}

/// Reads a part's header front to back.
struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    fn take(&mut self, n: usize) -> Result<&'b [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("it ends inside its header")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32s(&mut self, n: usize) -> Result<Vec<u32>, String> {
        let b = self.take(4 * n)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

fn check(what: &str, value: u32, lo: u32, hi: u32) -> Result<(), String> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(format!("{what} is {value}, not in {lo} to {hi}"))
    }
}

fn checkf(what: &str, value: f32, lo: f32, hi: f32) -> Result<(), String> {
    if value >= lo && value <= hi {
        Ok(())
    } else {
        Err(format!("{what} is {value:?}, not in {lo:?} to {hi:?}"))
    }
}
