//! Perception and movement: what each agent notices of the others at the
//! start of a step, and how intents become motion through ORCA avoidance.
//!
//! Both run in *slot order* (see [`Grid`]): consecutive agents are
//! neighbours in space, so the positions and bodies a neighbour query or an
//! avoidance solve reads are already in cache. Data that lives in agent
//! order is fetched in short passes of their own, where the processor can
//! overlap the cache misses, and results reach the walkers the same way.
//! Every pass reads only the step's snapshot and writes only its own
//! element, so the outcome does not depend on how rayon splits the work.
//! Buffers are kept between steps: after the first step nothing here
//! allocates, and the avoidance solver works on the stack.

use glam::Vec2;
use rayon::prelude::*;

use crate::orca::{self, Body, MAX_LINES};
use crate::walker::Walker;
use crate::world::{Grid, World};

/// Most neighbours one agent avoids at a time: its nearest.
const MAX_NEIGHBOURS: usize = MAX_LINES;

/// What one agent perceives of the others at the start of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Near {
    /// Other agents within the social radius, at most 255.
    count: u8,
    /// How many of `slots` are in use.
    len: u8,
    /// Slots of the nearest agents within the social radius: all of them
    /// when there are at most [`MAX_NEIGHBOURS`].
    slots: [u32; MAX_NEIGHBOURS],
    /// Where the nearest is (when `len > 0`).
    nearest: Vec2,
}

/// The per-step buffers of perception and movement, in slot order.
///
/// [`Crowd::step`](crate::Crowd::step) runs these for the whole crowd; a
/// program that keeps a part of a crowd (its own agents plus read-only
/// copies of their neighbours) runs them on its part: after the world's
/// grid is rebuilt over the part, [`Motion::sense`], and at the next step
/// [`Motion::move_walkers`].
#[derive(Clone, Debug, Default)]
pub struct Motion {
    /// Everyone's position, velocity and radius at the start of the step.
    bodies: Vec<Body>,
    /// What each agent perceives.
    near: Vec<Near>,
    /// Each agent's intent and top speed for this step.
    wants: Vec<(Vec2, f32)>,
    /// The velocities avoidance chose.
    velocities: Vec<Vec2>,
}

impl Motion {
    /// After the grid was rebuilt: take the snapshot of bodies, find each
    /// agent's neighbours, and tell every walker how many there are and
    /// where the nearest is.
    pub fn sense(&mut self, walkers: &mut [Walker], world: &World) {
        let grid = &world.grid;
        let n = grid.len();
        self.bodies.resize(n, Body::default());
        self.near.resize(n, Near::default());
        let all = &*walkers;
        self.bodies
            .par_iter_mut()
            .zip(grid.agents())
            .for_each(|(body, &i)| {
                let w = &all[i as usize];
                body.position = w.pos;
                body.velocity = w.vel;
                body.radius = w.radius;
            });
        self.near
            .par_iter_mut()
            .enumerate()
            .for_each(|(slot, near)| *near = perceive(grid, slot));
        let near = &self.near;
        walkers
            .par_iter_mut()
            .zip(grid.slots())
            .for_each(|(w, &slot)| {
                let seen = &near[slot as usize];
                w.neighbours = seen.count;
                w.nearest = (seen.len > 0).then_some(seen.nearest);
            });
    }

    /// The movement phase: every walker's intent becomes a velocity that
    /// avoids its nearest neighbours (ORCA, solved on the stack), then it moves
    /// and its needs change.
    pub fn move_walkers(&mut self, walkers: &mut [Walker], world: &World) {
        let grid = &world.grid;
        let n = grid.len();
        self.wants.resize(n, (Vec2::ZERO, 0.0));
        self.velocities.resize(n, Vec2::ZERO);
        // Fetch the intents in slot order first, in a pass short enough
        // for the processor to overlap its cache misses; inside the long
        // avoidance loop each miss would be waited out alone.
        let all = &*walkers;
        self.wants
            .par_iter_mut()
            .zip(grid.agents())
            .for_each(|(want, &i)| {
                let w = &all[i as usize];
                *want = (w.intent, w.max_speed);
            });
        let (bodies, near, wants) = (&self.bodies, &self.near, &self.wants);
        let horizon = avoidance_step(world.dt);
        self.velocities
            .par_iter_mut()
            .enumerate()
            .for_each(|(slot, velocity)| {
                let (intent, max_speed) = wants[slot];
                let seen = &near[slot];
                let others = seen.slots[..usize::from(seen.len)]
                    .iter()
                    .map(|&other| (bodies[other as usize], other as usize > slot));
                let (intent, max_speed) = sane_want(intent, max_speed);
                let chosen = orca::avoid(&bodies[slot], others, intent, max_speed, horizon);
                *velocity = if chosen.is_finite() {
                    chosen
                } else {
                    Vec2::ZERO
                };
            });
        let velocities = &self.velocities;
        walkers
            .par_iter_mut()
            .zip(grid.slots())
            .for_each(|(w, &slot)| {
                w.vel = velocities[slot as usize];
                // `max` then `min`, not `clamp`: no panic on a NaN size.
                w.pos = (w.pos + w.vel * world.dt)
                    .max(Vec2::ZERO)
                    .min(Vec2::splat(world.size));
                update_needs(w, world);
            });
    }
}

/// The shortest time step avoidance plans for, in seconds. ORCA divides
/// the distance between overlapping agents by the step: below about a
/// millisecond that overflows to infinity and the solver's answer to NaN
/// (an agent then stands still for the step). A shorter simulation step still moves agents by
/// its own length; only the avoidance's look-ahead is floored.
pub(crate) const MIN_AVOIDANCE_STEP: f32 = 1.0e-3;

/// The step avoidance plans for: `dt`, at least [`MIN_AVOIDANCE_STEP`]
/// (also when `dt` is NaN, which `f32::max` passes over).
fn avoidance_step(dt: f32) -> f32 {
    dt.max(MIN_AVOIDANCE_STEP)
}

/// An intent and top speed avoidance can work with: a non-finite intent
/// is standing still, a top speed that is not a finite positive number is
/// zero (avoidance then only pushes the agent out of others' way).
fn sane_want(intent: Vec2, max_speed: f32) -> (Vec2, f32) {
    let intent = if intent.is_finite() {
        intent
    } else {
        Vec2::ZERO
    };
    let max_speed = if max_speed.is_finite() && max_speed > 0.0 {
        max_speed
    } else {
        0.0
    };
    (intent, max_speed)
}

/// Candidates one neighbour query holds before it keeps only the nearest
/// [`MAX_NEIGHBOURS`]; only a crush fills it.
const CANDIDATES: usize = 32;

/// Who the agent in `slot` perceives within the grid's reach: how many,
/// where the nearest is, and the nearest [`MAX_NEIGHBOURS`].
///
/// Every candidate is written to a buffer, and only those within reach
/// advance it: no branch on the distance, which would be mispredicted about
/// a third of the time. A candidate is one number, its squared distance's
/// bits above its slot: squared distances are never negative, so their bits
/// order like the numbers, and comparing the pairs orders by distance, then
/// by slot — a total order, so who is kept never depends on the order they
/// were found in.
fn perceive(grid: &Grid, slot: usize) -> Near {
    let here = grid.position(slot);
    let r2 = grid.reach() * grid.reach();
    let positions = grid.positions();
    let mut found = [0u64; CANDIDATES];
    let (mut len, mut dropped) = (0usize, 0usize);
    for run in grid.runs_near(here) {
        let mut from = run.start;
        while from < run.end {
            let to = run.end.min(from + CANDIDATES - MAX_NEIGHBOURS);
            if len + (to - from) > CANDIDATES {
                found[..len].select_nth_unstable(MAX_NEIGHBOURS - 1);
                dropped += len - MAX_NEIGHBOURS;
                len = MAX_NEIGHBOURS;
            }
            for (other, q) in (from..to).zip(&positions[from..to]) {
                let d2 = q.distance_squared(here);
                found[len] = (u64::from(d2.to_bits()) << 32) | other as u64;
                len += usize::from((d2 <= r2) & (other != slot));
            }
            from = to;
        }
    }
    let mut near = Near {
        count: (dropped + len).min(255) as u8,
        len: len.min(MAX_NEIGHBOURS) as u8,
        ..Near::default()
    };
    if len > MAX_NEIGHBOURS {
        found[..len].select_nth_unstable(MAX_NEIGHBOURS - 1);
    }
    if dropped + len > MAX_NEIGHBOURS {
        // The selection leaves the kept ones in an order of the standard
        // library's choosing, and avoidance reads them in order: sorting the
        // few kept (unique keys: distance, then slot) keeps the result a
        // function of the crowd alone, whatever the toolchain. Where nobody
        // was dropped the order is the grid's scan order, already fixed.
        found[..MAX_NEIGHBOURS].sort_unstable();
    }
    let kept = &found[..near.len as usize];
    for (k, &other) in kept.iter().enumerate() {
        near.slots[k] = other as u32;
    }
    if let Some(&closest) = kept.iter().min() {
        near.nearest = grid.position(closest as u32 as usize);
    }
    near
}

/// Needs change with time, effort and danger.
fn update_needs(walker: &mut Walker, world: &World) {
    let effort = walker.vel.length() / walker.max_speed;
    let dt = world.dt;
    walker.hunger = (walker.hunger + dt * (0.010 + 0.012 * effort)).min(1.0);
    walker.fatigue = (walker.fatigue + dt * (0.006 + 0.016 * effort)).min(1.0);
    let danger = match world.nearest_threat(walker.pos) {
        Some((_, d)) if d < 0.0 => 1.0,
        Some((_, d)) if d < 8.0 => 0.8 - d * 0.1,
        _ => 0.0,
    };
    walker.fear = (walker.fear - dt * 0.25).max(danger);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::tests::{crowd, walker_at};
    use proptest::prelude::*;

    proptest! {
        /// The grid's answer is the brute-force one: every other agent
        /// within reach counted (up to 255), the nearest kept (by distance,
        /// then slot), and the nearest of those reported.
        #[test]
        fn perception_matches_brute_force(positions in crowd()) {
            let walkers: Vec<Walker> = positions.iter().map(|&p| walker_at(p)).collect();
            let mut grid = Grid::new(40.0, 3.0);
            grid.rebuild(&walkers);
            for slot in 0..grid.len() {
                let here = grid.position(slot);
                let mut within: Vec<(f32, usize)> = (0..grid.len())
                    .filter(|&other| other != slot)
                    .map(|other| (grid.position(other).distance_squared(here), other))
                    .filter(|&(d2, _)| d2 <= 9.0)
                    .collect();
                within.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let seen = perceive(&grid, slot);
                prop_assert_eq!(seen.count as usize, within.len().min(255));
                let mut kept: Vec<u32> = seen.slots[..seen.len as usize].to_vec();
                kept.sort_unstable();
                let mut expected: Vec<u32> =
                    within.iter().take(MAX_NEIGHBOURS).map(|&(_, s)| s as u32).collect();
                expected.sort_unstable();
                prop_assert_eq!(kept, expected);
                if let Some(&(_, closest)) = within.first() {
                    prop_assert_eq!(seen.nearest, grid.position(closest));
                }
            }
        }
    }
}
