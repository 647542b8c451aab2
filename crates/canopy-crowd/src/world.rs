//! The shared world: arena, food sources, rest areas, roaming threats, and
//! a spatial grid of everyone's positions at the start of the step.
//!
//! During the behavior phase the world is read-only — every agent's tree
//! sees the same snapshot — which is what lets the phase run in parallel
//! without locks.

use glam::Vec2;

/// A roaming danger: agents within its radius grow afraid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threat {
    /// Centre.
    pub pos: Vec2,
    /// Velocity in units per second; threats bounce off the walls.
    pub vel: Vec2,
    /// Radius of the danger zone.
    pub radius: f32,
}

/// A uniform grid over the arena, rebuilt every step by counting sort, for
/// neighbour queries. Rebuilding reuses its buffers.
#[derive(Clone, Debug, Default)]
pub struct Grid {
    cell: f32,
    cols: usize,
    /// `items[start[c]..start[c + 1]]` are the agents in cell `c`.
    start: Vec<u32>,
    items: Vec<u32>,
    positions: Vec<Vec2>,
}

impl Grid {
    /// A grid over a `size × size` arena with square cells of side `cell`.
    pub fn new(size: f32, cell: f32) -> Grid {
        let cols = ((size / cell).ceil() as usize).max(1);
        Grid {
            cell,
            cols,
            start: vec![0; cols * cols + 1],
            items: Vec::new(),
            positions: Vec::new(),
        }
    }

    fn cell_of(&self, p: Vec2) -> (usize, usize) {
        let clamp = |v: f32| ((v / self.cell).max(0.0) as usize).min(self.cols - 1);
        (clamp(p.x), clamp(p.y))
    }

    /// Re-sort the agents into cells.
    pub fn rebuild(&mut self, positions: impl Iterator<Item = Vec2>) {
        self.positions.clear();
        self.positions.extend(positions);
        self.start.iter_mut().for_each(|s| *s = 0);
        for &p in &self.positions {
            let (x, y) = self.cell_of(p);
            self.start[y * self.cols + x + 1] += 1;
        }
        for c in 1..self.start.len() {
            self.start[c] += self.start[c - 1];
        }
        self.items.clear();
        self.items.resize(self.positions.len(), 0);
        let mut fill = self.start.clone();
        for (i, &p) in self.positions.iter().enumerate() {
            let (x, y) = self.cell_of(p);
            let slot = &mut fill[y * self.cols + x];
            self.items[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    /// The position of agent `i` at the last rebuild.
    pub fn position(&self, i: usize) -> Vec2 {
        self.positions[i]
    }

    /// Call `f(index, position)` for every agent within `radius` of `p`, in
    /// a fixed order (cell by cell, then by index).
    pub fn for_each_near(&self, p: Vec2, radius: f32, mut f: impl FnMut(usize, Vec2)) {
        let (lo_x, lo_y) = self.cell_of(p - Vec2::splat(radius));
        let (hi_x, hi_y) = self.cell_of(p + Vec2::splat(radius));
        let r2 = radius * radius;
        for y in lo_y..=hi_y {
            for x in lo_x..=hi_x {
                let c = y * self.cols + x;
                for &i in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                    let q = self.positions[i as usize];
                    if q.distance_squared(p) <= r2 {
                        f(i as usize, q);
                    }
                }
            }
        }
    }
}

/// Everything the agents share.
#[derive(Clone, Debug)]
pub struct World {
    /// The arena is `size × size` units.
    pub size: f32,
    /// Seconds per step (fixed).
    pub dt: f32,
    /// Steps so far.
    pub step: u32,
    /// Centres of food patches: eating happens within [`World::FOOD_REACH`]
    /// of one.
    pub food: Vec<Vec2>,
    /// Centres of rest areas, [`World::REST_RADIUS`] across.
    pub rest: Vec<Vec2>,
    /// Roaming threats.
    pub threats: Vec<Threat>,
    /// Radius within which agents count as neighbours.
    pub social_radius: f32,
    /// Everyone's position at the start of the step.
    pub grid: Grid,
}

impl World {
    /// Radius of a food patch.
    pub const FOOD_RADIUS: f32 = 10.0;
    /// How close to a food patch's centre an agent must be to eat.
    pub const FOOD_REACH: f32 = World::FOOD_RADIUS + 2.0;
    /// Radius of a rest area.
    pub const REST_RADIUS: f32 = 10.0;

    /// The nearest of `points` to `p`: its index and position.
    pub fn nearest(points: &[Vec2], p: Vec2) -> Option<(usize, Vec2)> {
        points
            .iter()
            .copied()
            .enumerate()
            .min_by(|a, b| a.1.distance_squared(p).total_cmp(&b.1.distance_squared(p)))
    }

    /// The threat whose danger zone is nearest to `p`, and how far `p` is
    /// from that zone's edge (negative inside).
    pub fn nearest_threat(&self, p: Vec2) -> Option<(&Threat, f32)> {
        self.threats
            .iter()
            .map(|t| (t, t.pos.distance(p) - t.radius))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Move the threats one step, bouncing off the walls.
    pub fn advance(&mut self) {
        self.step += 1;
        for t in &mut self.threats {
            t.pos += t.vel * self.dt;
            for axis in 0..2 {
                if t.pos[axis] < 0.0 || t.pos[axis] > self.size {
                    t.vel[axis] = -t.vel[axis];
                    t.pos[axis] = t.pos[axis].clamp(0.0, self.size);
                }
            }
        }
    }
}
