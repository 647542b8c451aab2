//! A rank's part of a new crowd, made without making the whole crowd.
//!
//! [`Crowd::new`] scatters agent `i` with dice seeded by the crowd's seed
//! and `i` alone, then numbers the agents in the order of its neighbour
//! grid: cells row by row, and within a cell by `i`. The ranks share that
//! work: each draws the positions of a share of the `i`s (two draws of
//! their dice), the column loads are summed to cut the strips, each `i`
//! is sent to the owner of its column, and each row's agents per strip
//! are summed, so that an owner numbers its agents as one process would:
//! an agent in row `y` of the strip gets as id the number of agents in
//! the rows above `y`, plus those in row `y` left of the strip, plus its
//! place among the strip's agents of row `y`. Each rank then builds the
//! walkers and canopy runtimes of its own strip only. Three exchanges, of
//! a column histogram, of four bytes an agent, and of one row histogram
//! per strip; a rank's work and memory are its share of the crowd.
//!
//! The draws are `canopy-crowd`'s own ([`Walker::scattered`],
//! [`Config::resolved`]); every test still compares the shards' hashes
//! with a crowd made by [`Crowd::new`].
//! Rejected: every rank drawing every agent's position, simpler but a
//! pass over the whole crowd on every rank.

use canopy_core::{Agent, Tree};
use canopy_crowd::{Config, Crowd, Walker, World};
use rayon::prelude::*;

use crate::strips::Strips;
use crate::transport::{Transport, TransportError};

/// The world of a crowd made with `config` (resolved), with no agents:
/// food, rest areas and threats are drawn from the seed alone.
pub(crate) fn empty_world(
    tree: Tree<Walker, World>,
    config: &Config,
) -> Result<(World, Tree<Walker, World>), std::collections::TryReserveError> {
    let empty = Config {
        agents: 0,
        ..config.clone()
    };
    let (world, _, _, tree) = Crowd::try_new(tree, &empty)?.into_parts();
    Ok((world, tree))
}

/// Agent `i`'s cell, as (column, row).
fn cell(config: &Config, world: &World, i: usize) -> (usize, usize) {
    let size = config.size.unwrap_or(world.size);
    let p = Walker::scattered(config.seed, size, i).pos;
    (world.grid.column(p.x), world.grid.column(p.y))
}

/// An agent on its way into a shard: id, walker, runtime.
pub(crate) type Entry = (u32, Walker, Agent);

/// Why a rank could not make its part.
#[derive(Debug)]
pub(crate) enum Failure {
    /// An exchange failed.
    Transport(TransportError),
    /// A rank was sent an agent that is not the crowd's or not in its
    /// strip (a transport that garbled a message).
    Stray(u32),
}

impl From<TransportError> for Failure {
    fn from(e: TransportError) -> Failure {
        Failure::Transport(e)
    }
}

/// This rank's part of the crowd of `config` (resolved) in `world`: the
/// strips, cut by the crowd's load, and the agents of this rank's strip
/// with their ids, walkers and runtimes. Collective.
pub(crate) fn rank_part(
    config: &Config,
    world: &World,
    tree: &Tree<Walker, World>,
    t: &mut impl Transport,
) -> Result<(Strips, Vec<Entry>), Failure> {
    let (ranks, rank) = (t.size(), t.rank());
    let share = rank * config.agents / ranks..(rank + 1) * config.agents / ranks;
    let cells: Vec<(usize, usize)> = (share.clone().into_par_iter())
        .map(|i| cell(config, world, i))
        .collect();
    let rows = world.grid.columns();
    let mut load = vec![0u64; rows];
    for &(column, _) in &cells {
        load[column] += 1;
    }
    let strips = Strips::balanced(&t.sum(&load)?, ranks);
    // Agents per strip and row, `per_strip[s * rows + row]`, and each
    // strip's owner its agents' `i`s.
    let mut per_strip = vec![0u64; ranks * rows];
    let mut outgoing = vec![Vec::new(); ranks];
    for (i, &(column, row)) in share.zip(&cells) {
        let owner = strips.owner(column);
        per_strip[owner * rows + row] += 1;
        outgoing[owner].extend_from_slice(&(i as u32).to_le_bytes());
    }
    drop(cells);
    let per_strip = t.sum(&per_strip)?;
    let strip = strips.strip(rank);
    let mut mine = Vec::new();
    for part in t.exchange(outgoing)? {
        for b in part.chunks_exact(4) {
            let i = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if i as usize >= config.agents {
                return Err(Failure::Stray(i));
            }
            let (column, row) = cell(config, world, i as usize);
            if !strip.contains(&column) {
                return Err(Failure::Stray(i));
            }
            mine.push((row as u32, column as u32, i));
        }
    }
    mine.par_sort_unstable();
    // The first id of each row's agents in this strip: every agent of the
    // rows above, and of this row in the strips to the left.
    let mut above = 0u64;
    let mut next: Vec<u64> = (0..rows)
        .map(|row| {
            let left: u64 = (0..rank).map(|s| per_strip[s * rows + row]).sum();
            let here = above + left;
            above += (0..ranks).map(|s| per_strip[s * rows + row]).sum::<u64>();
            here
        })
        .collect();
    let ids: Vec<u32> = (mine.iter())
        .map(|&(row, _, _)| {
            let id = next[row as usize];
            next[row as usize] += 1;
            id as u32
        })
        .collect();
    let size = config.size.unwrap_or(world.size);
    let agents = (mine.par_iter().zip(ids))
        .map(|(&(_, _, i), id)| {
            let mut agent = Agent::with_id(tree, id);
            agent.set_mode(tree, config.mode);
            (id, Walker::scattered(config.seed, size, i as usize), agent)
        })
        .collect();
    Ok((strips, agents))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::transport::Mesh;
    use canopy_crowd::load_default_tree;

    #[test]
    fn the_ranks_parts_together_are_the_whole_crowd_with_the_same_ids() {
        let config = Config::resolved(&Config {
            agents: 2_000,
            seed: 3,
            ..Config::default()
        });
        let crowd = Crowd::new(load_default_tree().unwrap(), &config);
        let (world, tree) = empty_world(load_default_tree().unwrap(), &config).unwrap();
        let (c, w, tr) = (&config, &world, &tree);
        let parts: Vec<_> = std::thread::scope(|s| {
            let ranks: Vec<_> = (Mesh::new(3, Duration::from_secs(10)).into_iter())
                .map(|mut t| s.spawn(move || rank_part(c, w, tr, &mut t).unwrap()))
                .collect();
            ranks.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all = Vec::new();
        for (rank, (strips, part)) in parts.into_iter().enumerate() {
            assert!(
                part.len() < 1_000,
                "rank {rank} built {} agents",
                part.len()
            );
            for (id, w, _) in &part {
                assert_eq!(strips.owner(world.grid.column(w.pos.x)), rank, "agent {id}");
            }
            all.extend(part.into_iter().map(|(id, w, _)| (id, w)));
        }
        all.sort_by_key(|e| e.0);
        let expected: Vec<(u32, Walker)> = (0u32..)
            .zip(&crowd.walkers)
            .map(|(id, w)| {
                let unsensed = Walker {
                    neighbours: 0,
                    nearest: None,
                    ..w.clone()
                };
                (id, unsensed)
            })
            .collect();
        assert_eq!(all, expected);
    }
}
