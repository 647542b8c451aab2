//! Level of detail for the demo crowd: rate classes by distance to a focus
//! point — a stand-in for a camera — that circles the arena.
//!
//! The bands are fractions of the arena side, so a crowd of any size has
//! the same share of agents in each: within 12% of the side every step
//! (at most one agent in 20), within 25% every 2nd, within 50% every 4th,
//! the rest every 8th. Classes are reassigned every 4th step (distances
//! change slowly next to the bands' widths, and hysteresis of 1% of the
//! side keeps agents on an edge from flipping); the plan itself is made
//! every step by [`Lod::next_frame`]. Movement follows the plan too: an
//! agent's avoidance runs on the steps its tree is ticked. The scheduler
//! is the engine's ([`canopy_core::Lod`]); this module only says what
//! distance means here.

use canopy_core::{
    Lod,
    lod::{LodError, RateClass},
};
use glam::Vec2;
use rayon::prelude::*;

use crate::walker::Walker;

/// The bands' outer edges, as fractions of the arena's side.
const BANDS: [f32; 3] = [0.12, 0.25, 0.5];

/// Steps between two assignments of classes.
const ASSIGN_EVERY: u32 = 4;

/// Agents due together come in runs of this many neighbouring indices
/// ([`Lod::set_phase_runs`]): the crowd numbers its agents in grid order,
/// so a step ticks and steers runs of neighbours in memory order rather
/// than one agent in every 2, 4 or 8. Agents dealt their phases one by
/// one cost about twice as much each to tick (every one of them a fresh
/// cache miss); 64 agents are about 9 KB of walkers and runtimes, a
/// stretch the processor fetches ahead.
const PHASE_RUN: u32 = 64;

/// Steps the focus takes to go once round the arena.
const ORBIT_STEPS: f32 = 600.0;

/// The demo's level of detail: the scheduler and where the focus is.
#[derive(Clone, Debug)]
pub(crate) struct CrowdLod {
    pub(crate) lod: Lod,
    pub(crate) focus: Vec2,
    size: f32,
    /// Every agent's distance to the focus, worked out in parallel before
    /// the scheduler reads them in order: reading the walkers one by one
    /// on one thread cost a million-agent crowd more than the assignment.
    distances: Vec<f32>,
}

impl CrowdLod {
    /// Bands for an arena of side `size` and `agents` agents (an arena
    /// whose side is not a positive number has no bands).
    pub(crate) fn new(size: f32, agents: usize) -> Result<CrowdLod, LodError> {
        let near_cap = (agents / 20).max(1) as u32;
        let classes = [
            RateClass::new(size * BANDS[0], 1).capped(near_cap),
            RateClass::new(size * BANDS[1], 2),
            RateClass::new(size * BANDS[2], 4),
            RateClass::new(f32::INFINITY, 8),
        ];
        let mut lod = Lod::new(&classes, size * 0.01, agents)?;
        lod.set_phase_runs(PHASE_RUN);
        Ok(CrowdLod {
            lod,
            focus: focus_at(size, 0),
            size,
            distances: Vec::new(),
        })
    }

    /// Plan step `step`: move the focus, reassign classes every few steps,
    /// and say who is due ([`Lod::elapsed`]).
    pub(crate) fn plan(&mut self, step: u32, walkers: &[Walker]) {
        self.focus = focus_at(self.size, step);
        if step.is_multiple_of(ASSIGN_EVERY) {
            let focus = self.focus;
            self.distances.resize(walkers.len(), 0.0);
            (self.distances.par_iter_mut())
                .zip(walkers)
                .for_each(|(d, w)| *d = w.pos.distance(focus));
            let distances = &self.distances;
            self.lod
                .assign(|i| distances.get(i).copied().unwrap_or(f32::INFINITY));
        }
        self.lod.next_frame();
    }
}

/// The focus at step `step`: on a circle of radius 0.3 × the side round
/// the arena's centre.
fn focus_at(size: f32, step: u32) -> Vec2 {
    let angle = step as f32 * std::f32::consts::TAU / ORBIT_STEPS;
    Vec2::splat(size / 2.0) + Vec2::from_angle(angle) * size * 0.3
}

/// The band (0 the nearest, 3 the farthest) `pos` lies in at step `step`
/// in an arena of side `size`, by its distance to the focus alone — no
/// hysteresis, no cap on the nearest: how a crowd run without level of
/// detail is split into the same bands, to compare it with one run with it.
///
/// ```
/// use canopy_crowd::lod_band;
/// use glam::Vec2;
/// // At step 0 the focus is at (0.8, 0.5) of the side.
/// assert_eq!(lod_band(100.0, 0, Vec2::new(80.0, 50.0)), 0);
/// assert_eq!(lod_band(100.0, 0, Vec2::new(10.0, 50.0)), 3);
/// ```
pub fn lod_band(size: f32, step: u32, pos: Vec2) -> usize {
    let d = pos.distance(focus_at(size, step));
    BANDS.iter().take_while(|&&edge| d >= size * edge).count()
}

/// How a rate class is named in a legend (the picture's, the
/// inspector's): its period in steps, "every step" or "1 step in 4".
pub fn class_label(period: u32) -> String {
    match period {
        1 => "every step".to_string(),
        p => format!("1 step in {p}"),
    }
}
