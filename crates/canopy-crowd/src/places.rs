//! Food patches and rest areas: places that serve agents at a rate.
//!
//! A place serves its visitors together: each of those within its reach
//! has its need (hunger, fatigue) taken down at [`Places::rate`] per
//! second while no more than [`Places::seats`] are there, and the place's
//! whole rate shared among them when more are (so a crowded patch feeds
//! each of its eaters more slowly, and its meals per second stay the
//! same). Who is bound for each place and who is within its reach are
//! counted once a step ([`World::count_visitors`](crate::World::count_visitors))
//! and read by the trees: an agent picks the place it would be served at
//! soonest — walking there, then waiting its turn — and the demo's tree
//! scores eating by how crowded the best patch is.
//!
//! Why a rate and not a queue of agents in order: the counts are sums, so
//! they are the same however the crowd is split over threads or over MPI
//! ranks (each rank counts its own agents, the sums are added); a queue
//! would need every rank's agents in one order.
//!
//! An agent looks only at the places near it (in the nine cells of a grid
//! whose cells hold about two places each round its own), so a choice
//! costs the same with 6 places or 2,000.

use glam::Vec2;

/// Who is bound for one place and who is within its reach, at the start
/// of the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Visitors {
    /// Agents whose activity is the place's and who chose it (those within
    /// its reach among them).
    pub bound: u32,
    /// Those of them within its reach: being served.
    pub here: u32,
}

/// The places of one kind, fixed for a run, and their visitors now.
#[derive(Clone, Debug)]
pub struct Places {
    centres: Vec<Vec2>,
    visitors: Vec<Visitors>,
    /// Scratch for counting visitors in parallel: one row of counts per
    /// part of the crowd (see [`World::count_visitors`](crate::World::count_visitors)).
    tallies: Vec<Visitors>,
    /// Radius of each place, m.
    pub radius: f32,
    /// How close to its centre an agent must be to be served, m.
    pub reach: f32,
    /// How many a place serves at the full rate.
    pub seats: u32,
    /// Need taken off a visitor per second at the full rate.
    pub rate: f32,
    /// The lookup grid: side of a cell, columns (and rows).
    cell: f32,
    cols: usize,
    /// `start[c]..start[c + 1]` index `items`: the places in cell `c`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Places {
    /// Places at `centres` in an arena of side `size`, each `radius` wide,
    /// serving within `reach`, `seats` at a time at `rate` per second.
    pub fn new(
        centres: Vec<Vec2>,
        size: f32,
        radius: f32,
        reach: f32,
        seats: u32,
        rate: f32,
    ) -> Places {
        let n = centres.len();
        // About two places a cell; one cell when there are few.
        let cols = if n <= 32 {
            1
        } else {
            ((n as f32 / 2.0).sqrt().floor() as usize).max(1)
        };
        let cell = (size / cols as f32).max(f32::MIN_POSITIVE);
        let cell_of = |p: Vec2| {
            let at = |v: f32| ((v / cell).max(0.0) as usize).min(cols - 1);
            at(p.y) * cols + at(p.x)
        };
        let mut start = vec![0u32; cols * cols + 1];
        for &p in &centres {
            start[cell_of(p) + 1] += 1;
        }
        for c in 1..start.len() {
            start[c] += start[c - 1];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; n];
        for (k, &p) in centres.iter().enumerate() {
            let c = cell_of(p);
            items[fill[c] as usize] = k as u32;
            fill[c] += 1;
        }
        Places {
            visitors: vec![Visitors::default(); n],
            tallies: Vec::new(),
            centres,
            radius,
            reach,
            seats,
            rate,
            cell,
            cols,
            start,
            items,
        }
    }

    /// How many places.
    pub fn len(&self) -> usize {
        self.centres.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.centres.is_empty()
    }

    /// Every place's centre.
    pub fn centres(&self) -> &[Vec2] {
        &self.centres
    }

    /// Place `k`'s centre, if there is one.
    pub fn centre(&self, k: i32) -> Option<Vec2> {
        usize::try_from(k)
            .ok()
            .and_then(|k| self.centres.get(k).copied())
    }

    /// Every place's visitors, as last counted.
    pub fn visitors(&self) -> &[Visitors] {
        &self.visitors
    }

    /// Every place's visitors, to count them.
    pub(crate) fn visitors_mut(&mut self) -> &mut [Visitors] {
        &mut self.visitors
    }

    /// The scratch rows of counts, `parts` rows of one count per place
    /// (at least one: a row is never empty), all zero; kept between steps, so counting allocates only the first
    /// time (or when the parts grow).
    pub(crate) fn take_tallies(&mut self, parts: usize) -> Vec<Visitors> {
        let mut tallies = std::mem::take(&mut self.tallies);
        tallies.clear();
        tallies.resize(parts * self.visitors.len().max(1), Visitors::default());
        tallies
    }

    /// Sum the rows of `tallies` into the visitors, and keep them as
    /// scratch for the next count.
    pub(crate) fn add_tallies(&mut self, tallies: Vec<Visitors>) {
        let n = self.visitors.len().max(1);
        self.visitors.fill(Visitors::default());
        for row in tallies.chunks_exact(n) {
            for (v, t) in self.visitors.iter_mut().zip(row) {
                v.bound += t.bound;
                v.here += t.here;
            }
        }
        self.tallies = tallies;
    }

    /// Whether `p` is within reach of place `k`.
    pub fn within_reach(&self, k: i32, p: Vec2) -> bool {
        self.centre(k)
            .is_some_and(|c| c.distance_squared(p) <= self.reach * self.reach)
    }

    /// Need taken off each visitor of place `k` per second: the full rate
    /// while it has no more than its seats' worth, its rate shared among
    /// them when it has more.
    pub fn rate_at(&self, k: usize) -> f32 {
        let here = self.visitors.get(k).map_or(0, |v| v.here);
        self.rate * (self.seats as f32 / here.max(1) as f32).min(1.0)
    }

    /// How crowded place `k` is: agents bound for it per seat.
    pub fn crowding(&self, k: usize) -> f32 {
        self.visitors.get(k).map_or(0.0, |v| v.bound as f32) / self.seats.max(1) as f32
    }

    /// The place an agent at `p` walking at `speed` would be served at
    /// soonest, with the seconds that takes: walking there, then waiting
    /// while those bound for it before it take their turns (each turn
    /// `turn` seconds, the place's seats at a time). Place `shunned` is
    /// passed over. Only places near `p` are looked at (see the module
    /// documentation); ties go to the lower index.
    pub fn best(
        &self,
        p: Vec2,
        speed: f32,
        turn: f32,
        shunned: Option<usize>,
    ) -> Option<(usize, f32)> {
        let speed = speed.max(0.1);
        let seats = self.seats.max(1) as f32;
        let mut best: Option<(usize, f32)> = None;
        // A plain loop over slices: a place costs a few instructions, so
        // an iterator behind `dyn` (a call per place) would be most of it.
        let consider = |best: &mut Option<(usize, f32)>, k: usize| {
            if Some(k) == shunned {
                return;
            }
            let waiting = self.visitors[k].bound.saturating_sub(self.seats);
            let cost = self.centres[k].distance(p) / speed + turn * waiting as f32 / seats;
            if best.is_none_or(|(b, c)| cost < c || (cost == c && k < b)) {
                *best = Some((k, cost));
            }
        };
        if self.cols == 1 || !(p.is_finite() && turn.is_finite()) {
            (0..self.len()).for_each(|k| consider(&mut best, k));
            return best;
        }
        let at = |v: f32| ((v / self.cell).max(0.0) as usize).min(self.cols - 1);
        let (x, y) = (at(p.x), at(p.y));
        // The nine cells round `p`'s first; the best of those, if any.
        for run in self.runs(x, y, 1) {
            run.iter().for_each(|&k| consider(&mut best, k as usize));
        }
        if best.is_some() {
            return best;
        }
        // None there: the best of all places, found ring by ring of cells
        // outwards. A place in ring `r` is at least `r - 1` cells away
        // (less a margin for rounding), so it costs at least that walk:
        // once that is more than the best so far, no further ring can
        // win or tie, and the answer is the one a scan of every place
        // gives — at a million agents such a scan over thousands of
        // places was a sixth of the tree's time.
        for r in 2..self.cols {
            let walk = (r as f32 - 1.0 - 1e-3) * self.cell / speed;
            if best.is_some_and(|(_, c)| walk > c) {
                break;
            }
            for run in self.ring(x, y, r) {
                run.iter().for_each(|&k| consider(&mut best, k as usize));
            }
        }
        best
    }

    /// The runs of `items` of the cells within `r` cells of cell (`x`,
    /// `y`) (a square `2r + 1` wide, cut at the grid's edges), row by row.
    fn runs(&self, x: usize, y: usize, r: usize) -> impl Iterator<Item = &[u32]> + '_ {
        let last = self.cols - 1;
        let (first_col, last_col) = (x.saturating_sub(r), (x + r).min(last));
        (y.saturating_sub(r)..=(y + r).min(last))
            .map(move |row| self.cells(row, first_col, last_col))
    }

    /// The runs of `items` of the cells exactly `r` cells from cell (`x`,
    /// `y`) (the edge of the square [`Places::runs`] covers).
    fn ring(&self, x: usize, y: usize, r: usize) -> impl Iterator<Item = &[u32]> + '_ {
        let last = self.cols - 1;
        let (first_col, last_col) = (x.saturating_sub(r), (x + r).min(last));
        (y.saturating_sub(r)..=(y + r).min(last)).flat_map(move |row| {
            let edge_row = row + r == y || row == y + r;
            let whole = edge_row.then(|| self.cells(row, first_col, last_col));
            // A middle row: its two end cells, where they are in the grid.
            let left = (!edge_row && x >= r).then(|| self.cells(row, x - r, x - r));
            let right = (!edge_row && x + r <= last).then(|| self.cells(row, x + r, x + r));
            whole.into_iter().chain(left).chain(right)
        })
    }

    /// The places of the cells `first..=last` of `row`, next to each other
    /// in `items`.
    fn cells(&self, row: usize, first: usize, last: usize) -> &[u32] {
        let run = self.start[row * self.cols + first]..self.start[row * self.cols + last + 1];
        &self.items[run.start as usize..run.end as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The best place as the definition says: the cheapest of the nine
    /// cells round `p`'s if there is one there, else the cheapest of all;
    /// ties to the lower index.
    fn by_scanning(
        places: &Places,
        p: Vec2,
        speed: f32,
        turn: f32,
        shunned: Option<usize>,
    ) -> Option<(usize, f32)> {
        let speed = speed.max(0.1);
        let seats = places.seats.max(1) as f32;
        let cost = |k: usize| {
            let waiting = places.visitors[k].bound.saturating_sub(places.seats);
            places.centres[k].distance(p) / speed + turn * waiting as f32 / seats
        };
        let cheapest = |ks: &mut dyn Iterator<Item = usize>| {
            ks.filter(|&k| Some(k) != shunned)
                .map(|k| (k, cost(k)))
                .reduce(|a, b| if b.1 < a.1 { b } else { a })
        };
        let at = |v: f32| ((v / places.cell).max(0.0) as usize).min(places.cols - 1);
        let cell = |c: Vec2| (at(c.x), at(c.y));
        let (x, y) = cell(p);
        let mut near = (0..places.len()).filter(|&k| {
            let (cx, cy) = cell(places.centres[k]);
            places.cols == 1 || cx.abs_diff(x) <= 1 && cy.abs_diff(y) <= 1
        });
        cheapest(&mut near).or_else(|| cheapest(&mut (0..places.len())))
    }

    proptest! {
        #[test]
        fn the_best_place_is_the_one_a_scan_of_every_place_finds(
            // Places in clumps, so that many cells round an agent are empty.
            clumps in prop::collection::vec((0.0f32..400.0, 0.0f32..400.0), 1..4),
            spread in prop::collection::vec((0usize..4, -20.0f32..20.0, -20.0f32..20.0, 0u32..40), 1..120),
            agents in prop::collection::vec((-10.0f32..410.0, -10.0f32..410.0), 1..40),
            speed in 0.0f32..3.0,
            turn in 0.0f32..60.0,
            shun in prop::option::of(0usize..120),
        ) {
            let centres: Vec<Vec2> = spread
                .iter()
                .map(|&(c, dx, dy, _)| {
                    let (x, y) = clumps[c % clumps.len()];
                    Vec2::new((x + dx).clamp(0.0, 400.0), (y + dy).clamp(0.0, 400.0))
                })
                .collect();
            let mut places = Places::new(centres, 400.0, 2.0, 3.0, 4, 0.1);
            for (v, &(_, _, _, bound)) in places.visitors_mut().iter_mut().zip(&spread) {
                v.bound = bound;
            }
            for &(x, y) in &agents {
                let p = Vec2::new(x, y);
                let found = places.best(p, speed, turn, shun);
                prop_assert_eq!(found, by_scanning(&places, p, speed, turn, shun), "{:?}", p);
            }
        }
    }
}
