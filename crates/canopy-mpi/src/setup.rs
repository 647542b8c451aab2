//! A rank's part of a new crowd, made without making the whole crowd.
//!
//! [`Crowd::new`] scatters agent `i` with dice seeded by the crowd's seed
//! and `i` alone, then numbers the agents in the order of its neighbour
//! grid: cells row by row, and within a cell by `i`. A rank therefore
//! needs every agent's position (two draws of its dice) to know the
//! strips and the ids, but builds the walkers and canopy runtimes of its
//! own strip only: an agent in row `y` of the strip gets as id the number
//! of agents in the rows above `y`, plus those in row `y` left of the
//! strip, plus its place among the strip's agents of row `y`.
//!
//! The draws repeat those of `canopy-crowd`'s set-up, which keeps them
//! private; every test compares the shards' hashes with a crowd made by
//! [`Crowd::new`], so the two cannot drift apart unnoticed.
//! Rejected: each rank rolling the positions of a share of the ids and
//! sending each agent to its owner, which would spare each rank the pass
//! over every id (a few nanoseconds an agent) at the cost of two more
//! exchanges and a sum of per-row histograms for every strip.

use std::ops::Range;

use canopy_core::{Agent, Tree};
use canopy_crowd::{Activity, Config, Crowd, Walker, World};
use glam::Vec2;
use rayon::prelude::*;

use crate::strips::Strips;

/// `config` with its defaults resolved as [`Crowd::new`] resolves them.
pub(crate) fn resolved(config: &Config) -> Config {
    let agents = config.agents;
    Config {
        size: Some(
            config
                .size
                .unwrap_or_else(|| (agents.max(100) as f32 * 6.0).sqrt()),
        ),
        food: Some(config.food.unwrap_or((agents / 1_250).max(6))),
        rest: Some(config.rest.unwrap_or((agents / 2_000).max(4))),
        ..config.clone()
    }
}

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

/// splitmix64, as the crowd's set-up mixes.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Agent `i`'s set-up dice.
struct Dice(u64);

impl Dice {
    fn of(seed: u64, i: usize) -> Dice {
        Dice(mix(seed ^ mix(i as u64 + 1)))
    }

    fn roll(&mut self) -> f32 {
        self.0 = mix(self.0);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn point(&mut self, size: f32) -> Vec2 {
        let margin = 1.0;
        Vec2::new(
            margin + self.roll() * (size - 2.0 * margin),
            margin + self.roll() * (size - 2.0 * margin),
        )
    }
}

/// Agent `i`'s walker as the crowd's set-up makes it.
fn walker(seed: u64, size: f32, i: usize) -> Walker {
    let mut own = Dice::of(seed, i);
    Walker {
        pos: own.point(size),
        vel: Vec2::ZERO,
        radius: 0.35 + own.roll() * 0.15,
        max_speed: 3.0 + own.roll() * 1.5,
        goal: Vec2::ZERO,
        hunger: own.roll() * 0.75,
        fatigue: own.roll() * 0.85,
        fear: 0.0,
        known_food: -1,
        activity: Activity::Idle,
        intent: Vec2::ZERO,
        neighbours: 0,
        nearest: None,
        rng: (mix(seed ^ (i as u64).rotate_left(17)) as u32) | 1,
    }
}

/// Agent `i`'s cell, as (column, row).
fn cell(config: &Config, world: &World, i: usize) -> (usize, usize) {
    let size = config.size.unwrap_or(world.size);
    let p = Dice::of(config.seed, i).point(size);
    (world.grid.column(p.x), world.grid.column(p.y))
}

/// Each column's number of agents, for cutting the strips.
pub(crate) fn column_loads(config: &Config, world: &World) -> Vec<u64> {
    let columns = world.grid.columns();
    (0..config.agents)
        .into_par_iter()
        .fold(
            || vec![0u64; columns],
            |mut load, i| {
                load[cell(config, world, i).0] += 1;
                load
            },
        )
        .reduce(|| vec![0u64; columns], add)
}

fn add(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// What one pass over every agent's cell tells a strip: per row, the
/// agents in all columns and those left of the strip; the strip's own
/// agents as (row, column, `i`).
#[derive(Default)]
struct Census {
    rows: Vec<u64>,
    left: Vec<u64>,
    mine: Vec<(u32, u32, u32)>,
}

/// The agents of columns `mine`, with their ids, walkers and runtimes.
pub(crate) fn strip_agents(
    config: &Config,
    world: &World,
    tree: &Tree<Walker, World>,
    mine: Range<usize>,
) -> Vec<(u32, Walker, Agent)> {
    let rows = world.grid.columns();
    let empty = || Census {
        rows: vec![0; rows],
        left: vec![0; rows],
        mine: Vec::new(),
    };
    let census = (0..config.agents)
        .into_par_iter()
        .fold(empty, |mut c, i| {
            let (column, row) = cell(config, world, i);
            c.rows[row] += 1;
            if column < mine.start {
                c.left[row] += 1;
            } else if mine.contains(&column) {
                c.mine.push((row as u32, column as u32, i as u32));
            }
            c
        })
        .reduce(empty, |mut a, b| {
            a.rows = add(a.rows, b.rows);
            a.left = add(a.left, b.left);
            a.mine.extend(b.mine);
            a
        });
    let mut mine = census.mine;
    mine.par_sort_unstable();
    // The first id of each row's agents in the strip.
    let mut next: Vec<u64> = census
        .rows
        .iter()
        .scan(0u64, |above, &n| {
            let here = *above;
            *above += n;
            Some(here)
        })
        .zip(&census.left)
        .map(|(above, left)| above + left)
        .collect();
    let ids: Vec<u32> = (mine.iter())
        .map(|&(row, _, _)| {
            let id = next[row as usize];
            next[row as usize] += 1;
            id as u32
        })
        .collect();
    let size = config.size.unwrap_or(world.size);
    (mine.par_iter().zip(ids))
        .map(|(&(_, _, i), id)| {
            let mut agent = Agent::with_id(tree, id);
            agent.set_mode(tree, config.mode);
            (id, walker(config.seed, size, i as usize), agent)
        })
        .collect()
}

/// The strips of a new crowd: cut by its columns' loads.
pub(crate) fn strips(config: &Config, world: &World, ranks: usize) -> Strips {
    Strips::balanced(&column_loads(config, world), ranks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_crowd::load_default_tree;

    #[test]
    fn the_strips_agents_together_are_the_whole_crowds_with_the_same_ids() {
        let config = resolved(&Config {
            agents: 2_000,
            seed: 3,
            ..Config::default()
        });
        let crowd = Crowd::new(load_default_tree().unwrap(), &config);
        let (world, tree) = empty_world(load_default_tree().unwrap(), &config).unwrap();
        let strips = strips(&config, &world, 3);
        let mut all = Vec::new();
        for rank in 0..3 {
            let part = strip_agents(&config, &world, &tree, strips.strip(rank));
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
