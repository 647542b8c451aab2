//! The shared world: arena, food sources, rest areas, roaming threats, and
//! a spatial grid of everyone's positions at the start of the step.
//!
//! During the behavior phase the world is read-only — every agent's tree
//! sees the same snapshot — which is what lets the phase run in parallel
//! without locks.

use std::collections::TryReserveError;
use std::ops::Range;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use glam::Vec2;
use rayon::prelude::*;

use crate::places::{Places, Visitors};
use crate::walker::{Activity, Walker};

/// A roaming danger: agents within its radius grow afraid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threat {
    /// Centre.
    pub pos: Vec2,
    /// Velocity, m/s; threats bounce off the arena's edges.
    pub vel: Vec2,
    /// Radius of the danger zone.
    pub radius: f32,
}

/// A wall: agents avoid it as they avoid each other, and it takes no
/// share of the effort (see [`Motion`](crate::Motion)). The demo's arena
/// has none; the scenarios of [`crate::scenarios`] are built of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wall {
    /// A straight wall from one end to the other.
    Segment(Vec2, Vec2),
    /// A round wall: the inner or the outer side of a ring.
    Circle {
        /// Centre.
        centre: Vec2,
        /// Radius.
        radius: f32,
    },
}

impl Wall {
    /// The point of the wall nearest to `p`.
    ///
    /// ```
    /// use canopy_crowd::Wall;
    /// use glam::Vec2;
    /// let wall = Wall::Segment(Vec2::ZERO, Vec2::new(10.0, 0.0));
    /// assert_eq!(wall.nearest(Vec2::new(3.0, 2.0)), Vec2::new(3.0, 0.0));
    /// assert_eq!(wall.nearest(Vec2::new(-3.0, 2.0)), Vec2::ZERO);
    /// ```
    pub fn nearest(&self, p: Vec2) -> Vec2 {
        match *self {
            Wall::Segment(a, b) => {
                let ab = b - a;
                let len2 = ab.length_squared();
                if len2 <= 0.0 {
                    return a;
                }
                a + ab * ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
            }
            Wall::Circle { centre, radius } => {
                let out = p - centre;
                let out = if out == Vec2::ZERO { Vec2::X } else { out };
                centre + out.normalize_or(Vec2::X) * radius
            }
        }
    }
}

/// A uniform grid over the arena for neighbour queries, rebuilt every step
/// by counting sort.
///
/// Agents are stored cell by cell, cells row by row: an agent's place in
/// that order is its *slot*. The cells a query covers in one row are then
/// one contiguous run of slots, and positions are kept in slot order, so a
/// query reads a few short runs of memory front to back instead of jumping
/// to every candidate — at 100,000 agents that, not the arithmetic, is what
/// a neighbour query costs. Within a cell, slots follow agent indices, so
/// the order is fixed by the positions alone. Rebuilding reuses its buffers.
///
/// The coordinates are kept as two lists, x and y, each followed by
/// [`Grid::PADDING`] far-away entries: a query then reads
/// [`Grid::PADDING`] candidates at a time as whole vectors, also at the end
/// of the last run, without a bounds check per candidate.
#[derive(Clone, Debug)]
pub struct Grid {
    cell: f32,
    /// `1 / cell`: finding a cell multiplies instead of dividing.
    per_cell: f32,
    /// The chord half-width [`Grid::runs_near`] finds in a query's own
    /// row, computed once by the same formula (it does not depend on the
    /// query): one square root a query fewer.
    own_row_half: f32,
    cols: usize,
    /// `start[c]..start[c + 1]` are the slots of cell `c`.
    start: Vec<u32>,
    /// Scratch for the sort: the next free slot of each cell.
    fill: Vec<u32>,
    /// Scratch for the sort: each agent's cell, by agent index.
    cells: Vec<u32>,
    /// The agent in each slot.
    agents: Vec<u32>,
    /// Each agent's slot, by agent index (written by the thread placing
    /// its cell's band; read once the rebuild is over).
    slots: Slots,
    /// The x coordinate in each slot, then [`Grid::PADDING`] infinities.
    xs: Vec<f32>,
    /// The y coordinate in each slot, then [`Grid::PADDING`] infinities.
    ys: Vec<f32>,
}

impl Grid {
    /// Entries past the last slot in [`Grid::xs`] and [`Grid::ys`], all
    /// infinitely far from any point.
    pub const PADDING: usize = 4;

    /// A grid over a `size × size` arena for neighbour queries that reach
    /// `reach` metres: its cells are that wide.
    ///
    /// # Panics
    /// If the grid's memory cannot be had; [`Grid::try_new`] says so instead.
    pub fn new(size: f32, reach: f32) -> Grid {
        Grid::try_new(size, reach).expect("memory for the neighbour grid")
    }

    /// [`Grid::new`], or the error if its cells' memory (8 bytes a cell,
    /// `⌈size / reach⌉²` cells) cannot be had: an arena too wide for the
    /// machine is an error, not an abort.
    pub fn try_new(size: f32, reach: f32) -> Result<Grid, TryReserveError> {
        let cell = reach;
        // A float-to-int cast saturates (NaN gives 0), so `cols` is always
        // a number; its square may still overflow, which is refused below.
        let cols = ((size / cell).ceil() as usize).max(1);
        let cells = cols.checked_mul(cols);
        Ok(Grid {
            cell,
            per_cell: 1.0 / cell,
            own_row_half: chord_half(cell, 0.0),
            cols,
            start: zeroed(cells.and_then(|c| c.checked_add(1)))?,
            fill: zeroed(cells)?,
            cells: Vec::new(),
            agents: Vec::new(),
            slots: Slots::default(),
            xs: Vec::new(),
            ys: Vec::new(),
        })
    }

    /// The column or row of coordinate `v`; outside the arena, the nearest.
    fn index(&self, v: f32) -> usize {
        index(self.per_cell, self.cols, v)
    }

    /// Re-sort the walkers into cells, all of it in parallel: finding each
    /// walker's cell, counting, and placing. The cells are cut into one
    /// band of consecutive cells per thread; each band's thread reads
    /// every walker's cell in index order and counts and places those in
    /// its band, so its cells' slots, a run of their own, come out in
    /// index order whatever the number of bands. At 1,000,000 agents the
    /// sequential counting sort was the longest pass of the step that ran
    /// on one thread.
    pub fn rebuild(&mut self, walkers: &[Walker]) {
        let n = walkers.len();
        self.cells.resize(n, 0);
        self.agents.resize(n, 0);
        self.slots.0.resize_with(n, AtomicU32::default);
        self.xs.resize(n + Grid::PADDING, f32::INFINITY);
        self.ys.resize(n + Grid::PADDING, f32::INFINITY);
        self.xs[n..].fill(f32::INFINITY);
        self.ys[n..].fill(f32::INFINITY);
        let (per_cell, cols) = (self.per_cell, self.cols);
        self.cells.par_iter_mut().zip(walkers).for_each(|(c, w)| {
            let (x, y) = (
                index(per_cell, cols, w.pos.x),
                index(per_cell, cols, w.pos.y),
            );
            *c = (y * cols + x) as u32;
        });
        let cells = &self.cells[..];
        // One band a thread (a power of two, for the halving below).
        let bands = rayon::current_num_threads()
            .clamp(1, 64)
            .next_power_of_two()
            .min(cols * cols);
        let band = (cols * cols).div_ceil(bands);
        // Count: `start[c + 1]` the agents in cells up to `c` of its band.
        self.start[0] = 0;
        self.start[1..]
            .par_chunks_mut(band)
            .enumerate()
            .for_each(|(k, counts)| {
                counts.fill(0);
                let first = k * band;
                for &c in cells {
                    if let Some(count) = counts.get_mut((c as usize).wrapping_sub(first)) {
                        *count += 1;
                    }
                }
                let mut sum = 0;
                for count in counts.iter_mut() {
                    sum += *count;
                    *count = sum;
                }
            });
        // Then up to `c` of every band: each band starts where the one
        // before ends.
        let mut before = 0;
        for counts in self.start[1..].chunks_mut(band) {
            let total = counts.last().copied().unwrap_or(0);
            if before > 0 {
                counts.par_iter_mut().for_each(|count| *count += before);
            }
            before += total;
        }
        let (start, slots) = (&self.start[..], &self.slots.0[..]);
        place(
            cells,
            start,
            0,
            cols * cols,
            &mut self.fill,
            &mut self.agents,
            slots,
            bands,
        );
        let (xs, ys) = (&mut self.xs[..n], &mut self.ys[..n]);
        xs.par_iter_mut()
            .zip(ys)
            .zip(&self.agents)
            .for_each(|((x, y), &i)| (*x, *y) = walkers[i as usize].pos.into());
    }

    /// Number of agents sorted in.
    pub fn len(&self) -> usize {
        self.agents.len()
    }

    /// True when no agent is sorted in.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The agent in `slot`.
    pub fn agent(&self, slot: usize) -> usize {
        self.agents[slot] as usize
    }

    /// Agent `i`'s slot.
    pub fn slot(&self, i: usize) -> usize {
        self.slots.0[i].load(Relaxed) as usize
    }

    /// The agents' indices in slot order.
    pub fn agents(&self) -> &[u32] {
        &self.agents
    }

    /// Every agent's slot, by agent index.
    pub(crate) fn slots(&self) -> &[AtomicU32] {
        &self.slots.0
    }

    /// The position in `slot` at the last rebuild.
    ///
    /// # Panics
    /// If there is no agent in `slot`.
    pub fn position(&self, slot: usize) -> Vec2 {
        assert!(slot < self.len(), "no agent in slot {slot}");
        Vec2::new(self.xs[slot], self.ys[slot])
    }

    /// Everyone's x coordinate in slot order, then [`Grid::PADDING`]
    /// infinities.
    pub fn xs(&self) -> &[f32] {
        &self.xs
    }

    /// Everyone's y coordinate in slot order, then [`Grid::PADDING`]
    /// infinities.
    pub fn ys(&self) -> &[f32] {
        &self.ys
    }

    /// The runs of slots that hold every agent within [`Grid::reach`] of
    /// `p` (and some a little farther): one run per row of cells — the
    /// circle spans at most three — covering only the cells the circle
    /// reaches in that row. Rows come in order, so the slots do too.
    ///
    /// Inlined: a neighbour query then reads the runs from registers
    /// instead of a returned array.
    #[inline]
    pub fn runs_near(&self, p: Vec2) -> [Range<usize>; 3] {
        let (x, y) = (self.index(p.x), self.index(p.y));
        let (left, top) = (x as f32 * self.cell, y as f32 * self.cell);
        // A row `dy` away from `p` vertically holds the circle's chord of
        // half-width `half`, which decides whether the cells left and right
        // are reached (no branch: which way it goes is a coin toss).
        let run = |row: usize, half: f32| {
            let first = x - usize::from((x > 0) & (p.x - half < left));
            let last = x + usize::from((x + 1 < self.cols) & (p.x + half >= left + self.cell));
            let row = row * self.cols;
            self.start[row + first] as usize..self.start[row + last + 1] as usize
        };
        let above = if y > 0 {
            run(y - 1, chord_half(self.cell, p.y - top))
        } else {
            0..0
        };
        let below = if y + 1 < self.cols {
            run(y + 1, chord_half(self.cell, top + self.cell - p.y))
        } else {
            0..0
        };
        [above, run(y, self.own_row_half), below]
    }

    /// How far neighbour queries reach: the cells' side.
    pub fn reach(&self) -> f32 {
        self.cell
    }

    /// Columns (and rows) of cells.
    pub fn columns(&self) -> usize {
        self.cols
    }

    /// The column of cells holding x coordinate `x`; outside the arena,
    /// the nearest. A neighbour query from column `c` reads only columns
    /// `c - 1` to `c + 1`.
    pub fn column(&self, x: f32) -> usize {
        self.index(x)
    }
}

/// Each agent's slot, by agent index: atomics, so that the threads
/// placing different bands of cells may each note their own agents'.
#[derive(Debug, Default)]
struct Slots(Vec<AtomicU32>);

impl Clone for Slots {
    fn clone(&self) -> Slots {
        Slots(
            self.0
                .iter()
                .map(|s| AtomicU32::new(s.load(Relaxed)))
                .collect(),
        )
    }
}

/// Place the agents of cells `first..last` (their `fill`, by cell from
/// `first`) into their slots (`agents`, the slots from `start[first]`),
/// in index order within each cell, and note each agent's slot: halved
/// into `bands` parts placed at once (each part reads every agent's cell).
#[allow(clippy::too_many_arguments)]
fn place(
    cells: &[u32],
    start: &[u32],
    first: usize,
    last: usize,
    fill: &mut [u32],
    agents: &mut [u32],
    slots: &[AtomicU32],
    bands: usize,
) {
    if bands > 1 && last - first > 1 {
        let mid = first + (last - first) / 2;
        let (fill_lo, fill_hi) = fill.split_at_mut(mid - first);
        let (agents_lo, agents_hi) = agents.split_at_mut((start[mid] - start[first]) as usize);
        rayon::join(
            || {
                place(
                    cells,
                    start,
                    first,
                    mid,
                    fill_lo,
                    agents_lo,
                    slots,
                    bands / 2,
                )
            },
            || {
                place(
                    cells,
                    start,
                    mid,
                    last,
                    fill_hi,
                    agents_hi,
                    slots,
                    bands / 2,
                )
            },
        );
        return;
    }
    let base = start[first];
    fill.copy_from_slice(&start[first..last]);
    for (i, &c) in cells.iter().enumerate() {
        if let Some(next) = fill.get_mut((c as usize).wrapping_sub(first)) {
            agents[(*next - base) as usize] = i as u32;
            slots[i].store(*next, Relaxed);
            *next += 1;
        }
    }
}

/// Half the chord a circle of radius `cell` cuts from a line `dy` from its
/// centre (0 when the line misses it).
fn chord_half(cell: f32, dy: f32) -> f32 {
    (cell * cell - dy * dy).max(0.0).sqrt()
}

/// `n` zeros, if the memory can be had; `None` (a count that overflowed)
/// asks for more than any machine has, which `try_reserve_exact` refuses.
fn zeroed(n: Option<usize>) -> Result<Vec<u32>, TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n.unwrap_or(usize::MAX))?;
    v.resize(n.unwrap_or(0), 0);
    Ok(v)
}

/// The column or row of coordinate `v` in a grid of `cols` cells of side
/// `1 / per_cell`; points outside the arena count in the nearest border cell.
fn index(per_cell: f32, cols: usize, v: f32) -> usize {
    ((v * per_cell).max(0.0) as usize).min(cols - 1)
}

/// Count into `food` and `rest` who of `walkers` is bound for each place
/// and who is within its reach.
///
/// The crowd is cut into one part a thread, each counted into its own row
/// of counts, and the rows are summed: integer sums, so the counts are the
/// same whatever the split. At 1,000,000 agents the count was the one pass
/// of the step that ran on one thread while the others waited.
fn count_visitors(food: &mut Places, rest: &mut Places, walkers: &[Walker]) {
    let parts = rayon::current_num_threads().clamp(1, 64);
    let chunk = walkers.len().div_ceil(parts).max(1);
    let (mut food_rows, mut rest_rows) = (food.take_tallies(parts), rest.take_tallies(parts));
    let (food_n, rest_n) = (food.visitors().len().max(1), rest.visitors().len().max(1));
    let (food_at, rest_at) = (&*food, &*rest);
    walkers
        .par_chunks(chunk)
        .zip(food_rows.par_chunks_mut(food_n))
        .zip(rest_rows.par_chunks_mut(rest_n))
        .for_each(|((walkers, food_row), rest_row)| {
            for w in walkers {
                let (places, row, k) = match w.activity {
                    Activity::Eat => (food_at, &mut *food_row, w.known_food),
                    Activity::Rest => (rest_at, &mut *rest_row, w.known_rest),
                    _ => continue,
                };
                let here = places.within_reach(k, w.pos);
                if let Some(v) = usize::try_from(k).ok().and_then(|k| row.get_mut(k)) {
                    v.bound += 1;
                    v.here += u32::from(here);
                }
            }
        });
    food.add_tallies(food_rows);
    rest.add_tallies(rest_rows);
}

/// Everything the agents share.
#[derive(Clone, Debug)]
pub struct World {
    /// The arena is `size × size` metres.
    pub size: f32,
    /// Seconds per step (fixed).
    pub dt: f32,
    /// Steps so far.
    pub step: u32,
    /// Food patches: agents within their reach who chose them eat.
    pub food: Places,
    /// Rest areas: agents within their reach who chose them sleep.
    pub rest: Places,
    /// Roaming threats.
    pub threats: Vec<Threat>,
    /// Radius within which agents count as neighbours.
    pub social_radius: f32,
    /// Walls (none in the demo's open arena).
    pub walls: Vec<Wall>,
    /// Everyone's position at the start of the step.
    pub grid: Grid,
}

impl World {
    /// Radius of a food patch, m.
    pub const FOOD_RADIUS: f32 = 5.0;
    /// How close to a food patch's centre an agent must be to eat, m.
    pub const FOOD_REACH: f32 = World::FOOD_RADIUS + 1.0;
    /// How many a food patch feeds at the full rate.
    pub const FOOD_SEATS: u32 = 40;
    /// Hunger an eater loses per second at the full rate.
    pub const EATING_RATE: f32 = 0.15;
    /// Radius of a rest area, m.
    pub const REST_RADIUS: f32 = 6.0;
    /// How close to a rest area's centre an agent must be to sleep, m.
    pub const REST_REACH: f32 = World::REST_RADIUS + 1.0;
    /// How many a rest area lets sleep at the full rate.
    pub const REST_BEDS: u32 = 60;
    /// Fatigue a sleeper loses per second at the full rate.
    pub const SLEEPING_RATE: f32 = 0.1;

    /// Food patches at `centres` in an arena of side `size`, with the
    /// demo's radius, reach, seats and rate.
    pub fn food_patches(centres: Vec<Vec2>, size: f32) -> Places {
        let (radius, reach) = (World::FOOD_RADIUS, World::FOOD_REACH);
        Places::new(
            centres,
            size,
            radius,
            reach,
            World::FOOD_SEATS,
            World::EATING_RATE,
        )
    }

    /// Rest areas at `centres` in an arena of side `size`, with the demo's
    /// radius, reach, beds and rate.
    pub fn rest_areas(centres: Vec<Vec2>, size: f32) -> Places {
        let (radius, reach) = (World::REST_RADIUS, World::REST_REACH);
        Places::new(
            centres,
            size,
            radius,
            reach,
            World::REST_BEDS,
            World::SLEEPING_RATE,
        )
    }

    /// The nearest of `points` to `p`: its index and position.
    pub fn nearest(points: &[Vec2], p: Vec2) -> Option<(usize, Vec2)> {
        points
            .iter()
            .copied()
            .enumerate()
            .min_by(|a, b| a.1.distance_squared(p).total_cmp(&b.1.distance_squared(p)))
    }

    /// The places an agent doing `activity` goes to, and the one it chose
    /// (food patches when eating, rest areas when resting).
    pub fn places_for(&self, w: &Walker) -> Option<(&Places, i32)> {
        match w.activity {
            Activity::Eat => Some((&self.food, w.known_food)),
            Activity::Rest => Some((&self.rest, w.known_rest)),
            _ => None,
        }
    }

    /// Count who is bound for each place and who is within its reach, over
    /// `walkers` (the whole crowd): what the trees read during the next
    /// step. One pass, in order; nothing allocated.
    pub fn count_visitors(&mut self, walkers: &[Walker]) {
        count_visitors(&mut self.food, &mut self.rest, walkers);
    }

    /// [`World::count_visitors`] for a crowd kept in parts (one MPI rank's
    /// agents): the counts over `walkers` as numbers to add up over the
    /// parts — bound and within reach for each food patch, then for each
    /// rest area — for [`World::set_visitor_counts`].
    pub fn visitor_counts(&self, walkers: &[Walker]) -> Vec<u64> {
        let (mut food, mut rest) = (self.food.clone(), self.rest.clone());
        count_visitors(&mut food, &mut rest, walkers);
        (food.visitors().iter())
            .chain(rest.visitors())
            .flat_map(|v| [u64::from(v.bound), u64::from(v.here)])
            .collect()
    }

    /// Set every place's visitors from counts laid out as
    /// [`World::visitor_counts`] gives them, added up over a crowd's parts.
    /// Counts of another length (another world's) are refused: false, and
    /// nothing changed.
    pub fn set_visitor_counts(&mut self, counts: &[u64]) -> bool {
        if counts.len() != 2 * (self.food.len() + self.rest.len()) {
            return false;
        }
        let all = self.food.visitors_mut().iter_mut();
        let mut pairs = counts.chunks_exact(2);
        for (v, pair) in all.zip(&mut pairs) {
            *v = Visitors {
                bound: pair[0].min(u64::from(u32::MAX)) as u32,
                here: pair[1].min(u64::from(u32::MAX)) as u32,
            };
        }
        for (v, pair) in self.rest.visitors_mut().iter_mut().zip(pairs) {
            *v = Visitors {
                bound: pair[0].min(u64::from(u32::MAX)) as u32,
                here: pair[1].min(u64::from(u32::MAX)) as u32,
            };
        }
        true
    }

    /// The threat whose danger zone is nearest to `p`, and how far `p` is
    /// from that zone's edge (negative inside).
    pub fn nearest_threat(&self, p: Vec2) -> Option<(&Threat, f32)> {
        self.threats
            .iter()
            .map(|t| (t, t.pos.distance(p) - t.radius))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Move the threats one step, bouncing off the walls. The step count
    /// wraps after `u32::MAX`, as agents' ticks do.
    pub fn advance(&mut self) {
        self.step = self.step.wrapping_add(1);
        for t in &mut self.threats {
            t.pos += t.vel * self.dt;
            for axis in 0..2 {
                if t.pos[axis] < 0.0 || t.pos[axis] > self.size {
                    t.vel[axis] = -t.vel[axis];
                    // `max` then `min`, not `clamp`: no panic on a NaN.
                    t.pos[axis] = t.pos[axis].max(0.0).min(self.size);
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A walker standing at `pos`; nothing else matters to the grid.
    pub(crate) fn walker_at(pos: Vec2) -> Walker {
        Walker {
            pos,
            vel: Vec2::ZERO,
            radius: 0.4,
            max_speed: 3.0,
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

    /// Positions scattered over a 40 × 40 arena and a little beyond its
    /// edges, some of them piled onto a few spots (a crush).
    pub(crate) fn crowd() -> impl Strategy<Value = Vec<Vec2>> {
        let spot = (-1.0f32..41.0, -1.0f32..41.0).prop_map(|(x, y)| Vec2::new(x, y));
        let scattered = prop::collection::vec(spot.clone(), 0..150);
        let piled = prop::collection::vec((spot, 0usize..120), 0..3);
        (scattered, piled).prop_map(|(mut all, piles)| {
            for (centre, n) in piles {
                all.extend((0..n).map(|k| centre + Vec2::new(k as f32 * 1e-3, 0.0)));
            }
            all
        })
    }

    proptest! {
        #[test]
        fn slots_sort_agents_by_cell_then_index_and_runs_hold_everyone_within_reach(
            positions in crowd(),
        ) {
            let walkers: Vec<Walker> = positions.iter().map(|&p| walker_at(p)).collect();
            let mut grid = Grid::new(40.0, 3.0);
            // Twice: a rebuild must not depend on the previous one.
            grid.rebuild(&walkers);
            grid.rebuild(&walkers);
            prop_assert_eq!(grid.len(), walkers.len());
            let cell = |i: usize| {
                let p = walkers[i].pos;
                grid.index(p.y) * grid.cols + grid.index(p.x)
            };
            for slot in 0..grid.len() {
                let i = grid.agent(slot);
                prop_assert_eq!(grid.slot(i), slot);
                prop_assert_eq!(grid.position(slot), walkers[i].pos);
                if slot > 0 {
                    let before = grid.agent(slot - 1);
                    prop_assert!((cell(before), before) < (cell(i), i));
                }
            }
            for slot in 0..grid.len() {
                let here = grid.position(slot);
                let runs = grid.runs_near(here);
                prop_assert!(runs.windows(2).all(|w| w[0].end <= w[1].start || w[1].is_empty() || w[0].is_empty()));
                for other in 0..grid.len() {
                    if grid.position(other).distance_squared(here) <= 9.0 {
                        prop_assert!(runs.iter().any(|r| r.contains(&other)),
                            "slot {} at {:?} misses slot {} at {:?}", slot, here, other, grid.position(other));
                    }
                }
            }
        }

        #[test]
        fn visitors_counted_in_parts_are_those_counted_one_by_one_on_any_thread_count(
            positions in crowd(),
            choices in prop::collection::vec((0u8..4, -2i32..7), 0..400),
            threads in 1usize..4,
        ) {
            let (food, rest) = (vec![Vec2::new(10.0, 10.0), Vec2::new(30.0, 12.0), Vec2::new(20.0, 30.0)], vec![Vec2::new(5.0, 35.0), Vec2::new(35.0, 35.0)]);
            let walkers: Vec<Walker> = positions.iter().zip(choices.iter().cycle()).map(|(&p, &(what, k))| {
                let mut w = walker_at(p);
                w.activity = [Activity::Eat, Activity::Rest, Activity::Wander, Activity::Idle][usize::from(what)];
                (w.known_food, w.known_rest) = (k, k - 1);
                w
            }).collect();
            let (mut foods, mut rests) = (World::food_patches(food, 40.0), World::rest_areas(rest, 40.0));
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            // Twice: the scratch rows of the first count must not leak into the second.
            pool.install(|| count_visitors(&mut foods, &mut rests, &walkers));
            pool.install(|| count_visitors(&mut foods, &mut rests, &walkers));
            let one_by_one = |places: &Places, of: Activity, pick: fn(&Walker) -> i32| {
                let mut counts = vec![Visitors::default(); places.visitors().len()];
                for w in walkers.iter().filter(|w| w.activity == of) {
                    if let Some(v) = usize::try_from(pick(w)).ok().and_then(|k| counts.get_mut(k)) {
                        v.bound += 1;
                        v.here += u32::from(places.within_reach(pick(w), w.pos));
                    }
                }
                counts
            };
            prop_assert_eq!(foods.visitors(), &one_by_one(&foods, Activity::Eat, |w| w.known_food)[..]);
            prop_assert_eq!(rests.visitors(), &one_by_one(&rests, Activity::Rest, |w| w.known_rest)[..]);
        }
    }
}
