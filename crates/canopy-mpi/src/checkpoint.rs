//! Checkpoint and restart: each rank writes its part; a restart on any
//! number of ranks reads the parts that overlap its strip and keeps the
//! agents in its strip.
//!
//! A part is the crowd's configuration, the world's moving parts (step,
//! threats), the columns of the writer's strip, and a migrant message
//! holding the rank's agents (walker and canopy snapshot), which all lie
//! in those columns: restarting is every agent migrating from a rank of
//! the old run to one of the new. The fixed parts of the world are made
//! again from the seed, as a saved crowd's are, and the strips start even
//! (balancing then moves them where the load is: strips never change the
//! answer, only the cost). Every rank reads every part's header (a few
//! dozen bytes, and the threats), checks that the parts' strips tile the
//! arena, and reads in full only the parts whose strip overlaps its own;
//! then the ranks check together that every agent is held once (each
//! rank counting a share of the ids). The files are strangers' input,
//! read bounded, every number checked, every error naming the file.
//! Rejected: one file written through rank 0, which would gather the
//! whole crowd's bytes into one process at every checkpoint.

use std::ops::Range;
use std::path::{Path, PathBuf};

use canopy_core::{Mode, Tree};
use canopy_crowd::{
    Config, MAX_ARENA_SIZE, MAX_PLACES, MAX_SAVED_AGENTS, MAX_TIME_STEP, MAX_TRAIL, MIN_TIME_STEP,
    Threat, Walker, World,
};
use glam::Vec2;

use crate::setup;
use crate::shard::{Balance, Shard, ShardError};
use crate::strips::Strips;
use crate::transport::Transport;
use crate::wire::{Expect, Kind, Reader, Writer};

const MAGIC: &[u8; 4] = b"CNMK";
/// The checkpoint format's version; a restart reads only this one.
pub const CHECKPOINT_VERSION: u16 = 3;
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
        let strip = self.strips().strip(self.rank());
        for x in [self.rank(), self.strips().ranks(), strip.start, strip.end].map(|x| x as u32) {
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
    /// every rank reads the parts whose strip overlaps its own and keeps
    /// the agents in its strip. The crowd then steps as the checkpointed
    /// run would have. Collective.
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
        let first = read_header_bytes(&part_path(dir, 0), rank)?;
        let (header, _, _, _) = parse_header(&first).map_err(|p| error(&part_path(dir, 0), p))?;
        let (mut world, tree) = setup::empty_world(tree, &header.config)
            .map_err(|_| ShardError::OutOfMemory { rank })?;
        world.step = header.step;
        world.threats = header.threats.clone();
        let columns = world.grid.columns();
        let strips = Strips::even(columns, t.size());
        let mine = strips.strip(rank);
        let total = header.config.agents as u32;
        let parts = part_strips(dir, &header, columns, rank)?;
        let mut owned = Vec::new();
        for (part, strip) in parts.into_iter().enumerate() {
            if strip.start >= mine.end || mine.start >= strip.end {
                continue;
            }
            let path = part_path(dir, part);
            let bytes = read_part(&path, rank)?;
            let (this, _, _, at) = parse_header(&bytes).map_err(|p| error(&path, p))?;
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
                let column = world.grid.column(w.pos.x);
                if !strip.contains(&column) {
                    return Err(error(
                        &path,
                        format!(
                            "agent {id} lies in column {column}, outside the part's columns {} to {}",
                            strip.start,
                            strip.end - 1
                        ),
                    ));
                }
                if mine.contains(&column) {
                    owned.push((id, w, agent));
                }
            }
            r.finish().map_err(message)?;
        }
        let step = header.step;
        census(t, owned.iter().map(|e| e.0), total)
            .map_err(|e| ShardError::from_transport(rank, step, e))?
            .map_or(Ok(()), |id| Err(ShardError::Census { rank, id }))?;
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

/// Every part's strip, read from its header; checked to be parts of one
/// checkpoint whose strips tile the `columns` columns in order.
fn part_strips(
    dir: &Path,
    header: &Header,
    columns: usize,
    rank: usize,
) -> Result<Vec<Range<usize>>, ShardError> {
    let mut strips = Vec::with_capacity(header.parts as usize);
    let mut next = 0;
    for part in 0..header.parts as usize {
        let path = part_path(dir, part);
        let error = |problem: String| ShardError::Checkpoint {
            rank,
            path: path.clone(),
            problem,
        };
        let bytes = read_header_bytes(&path, rank)?;
        let (this, index, strip, _) = parse_header(&bytes).map_err(error)?;
        if index as usize != part {
            return Err(error(format!("it says it is part {index}")));
        }
        if this != *header {
            return Err(error("it is a part of another checkpoint".into()));
        }
        let last = part + 1 == header.parts as usize;
        if strip.start != next || strip.end < strip.start || (last && strip.end != columns) {
            return Err(error(format!(
                "its columns {}..{} do not follow the previous part's, which end at {next} of {columns}",
                strip.start, strip.end
            )));
        }
        next = strip.end;
        strips.push(strip);
    }
    Ok(strips)
}

/// Whether the ranks hold every id below `total` once between them, each
/// rank checking a share of the ids: the first id missing or doubled, if
/// any, on every rank. Collective.
fn census(
    t: &mut impl Transport,
    ids: impl Iterator<Item = u32>,
    total: u32,
) -> Result<Option<u32>, crate::transport::TransportError> {
    let n = t.size() as u64;
    let first = |r: u64| ((r * u64::from(total)).div_ceil(n)) as u32;
    let mut outgoing = vec![Vec::new(); t.size()];
    for id in ids {
        let to = (u64::from(id) * n / u64::from(total).max(1)) as usize;
        outgoing[to.min(t.size() - 1)].extend_from_slice(&id.to_le_bytes());
    }
    let share = first(t.rank() as u64)..first(t.rank() as u64 + 1);
    let mut seen = vec![false; share.len()];
    let mut bad = u32::MAX;
    for part in t.exchange(outgoing)? {
        for b in part.chunks_exact(4) {
            let id = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let fresh = share.contains(&id)
                && !std::mem::replace(&mut seen[(id - share.start) as usize], true);
            if !fresh {
                bad = bad.min(id);
            }
        }
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        bad = bad.min(share.start + k as u32);
    }
    let everyone = t.exchange(vec![bad.to_le_bytes().to_vec(); t.size()])?;
    let first_bad = (everyone.iter())
        .filter_map(|b| {
            b.get(..4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        })
        .min()
        .unwrap_or(u32::MAX);
    Ok((first_bad != u32::MAX).then_some(first_bad))
}

/// The longest header a part can have: its fixed fields and the most
/// threats a checkpoint may hold.
const MAX_HEADER_BYTES: u64 = 128 + 20 * MAX_PLACES as u64;

/// The beginning of a part, enough for its header.
fn read_header_bytes(path: &Path, rank: usize) -> Result<Vec<u8>, ShardError> {
    use std::io::Read;
    let error = |problem: String| ShardError::Checkpoint {
        rank,
        path: path.to_path_buf(),
        problem,
    };
    let meta = std::fs::metadata(path).map_err(|e| error(format!("cannot read it: {e}")))?;
    if !meta.is_file() {
        return Err(error("it is not a regular file".into()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_HEADER_BYTES).read_to_end(&mut bytes))
        .map_err(|e| error(format!("cannot read it: {e}")))?;
    Ok(bytes)
}

fn read_part(path: &Path, rank: usize) -> Result<Vec<u8>, ShardError> {
    canopy_data::read_file_up_to(path, MAX_CHECKPOINT_BYTES).map_err(|p| ShardError::Checkpoint {
        rank,
        path: path.to_path_buf(),
        problem: p.to_string(),
    })
}

/// A part's header, checked: what every part says alike, the part's
/// number and strip, and where its agents begin.
fn parse_header(bytes: &[u8]) -> Result<(Header, u32, Range<usize>, usize), String> {
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
    let head = c.u32s(5)?;
    let (parts, strip, agents) = (head[1], head[2] as usize..head[3] as usize, head[4]);
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
    Ok((header, head[0], strip, c.at))
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::census;
    use crate::transport::Mesh;

    /// The census of 10 agents held as `held[r]` by rank `r`, on each rank.
    fn census_of(held: [&[u32]; 3]) -> Vec<Option<u32>> {
        std::thread::scope(|s| {
            let ranks: Vec<_> = (Mesh::new(3, Duration::from_secs(10)).into_iter())
                .zip(held)
                .map(|(mut t, ids)| s.spawn(move || census(&mut t, ids.iter().copied(), 10)))
                .collect();
            ranks
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        })
    }

    #[test]
    fn every_id_held_once_passes_the_census_on_every_rank() {
        assert_eq!(
            census_of([&[0, 1, 9], &[2, 3, 4, 5], &[6, 7, 8]]),
            [None, None, None]
        );
    }

    #[test]
    fn a_missing_id_is_named_on_every_rank() {
        assert_eq!(
            census_of([&[0, 1, 9], &[2, 3, 4, 5], &[6, 8]]),
            [Some(7), Some(7), Some(7)]
        );
    }

    #[test]
    fn an_id_held_by_two_ranks_is_named_on_every_rank() {
        assert_eq!(
            census_of([&[0, 1, 2, 9], &[2, 3, 4, 5], &[6, 7, 8]]),
            [Some(2), Some(2), Some(2)]
        );
    }
}
