//! Perception and movement: what each agent notices of the others at the
//! start of a step, and how intents become motion.
//!
//! An agent's intent (the velocity its tree asked for) becomes motion in
//! two moves, with the parameters of its [`Model`]. First the agent picks
//! its way among those ahead of it: straight on or turned 20°, 40° or 69°
//! either side, whichever brings it nearest a point 3 m ahead before it
//! meets someone, at a speed that keeps its free path ahead for the time
//! gap ([`choose_way`]). Then ORCA keeps it clear of its nearest
//! neighbours (and walls, where a scene has them). ORCA alone lets a
//! column walking the same way keep its free speed at any density — the
//! agents' velocities relative to each other are zero — which pedestrians
//! do not; with the time gap the speeds follow Weidmann's diagram (see
//! [`crate::scenarios`]). Rejected, measured on the scenarios: the time
//! gap on the intent alone, straight ahead (a faster agent never passes a
//! slower one, ORCA seeing no collision: a ring at 0.5 p/m² walked at
//! 0.82 m/s against 1.30); the time gap applied again to ORCA's velocity
//! (agents at a door stood waiting for each other: 11 of 150 through a
//! 0.8 m bottleneck in seven minutes); counting only those more ahead than
//! aside as in the way (it took a time gap of 1.6 s to fit the diagram,
//! and a 0.8 m bottleneck let through 0.29 p/m/s); the same horizon for
//! walls as for agents (a door's posts held everyone back).
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

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;

use glam::{Vec2, Vec4};
use rayon::prelude::*;

use crate::model::Model;
use crate::orca::{self, Body, MAX_LINES};
use crate::walker::Walker;
use crate::world::{Grid, Wall, World};

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

/// What one agent wants of a step's movement, fetched in slot order.
#[derive(Clone, Copy, Debug, Default)]
struct Want {
    /// The intent (when `avoid`; else unused).
    velocity: Vec2,
    /// Top speed (when `avoid`).
    max_speed: f32,
    /// Whether avoidance chooses this step's velocity.
    avoid: bool,
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
    /// Bodies, avoidance and following ([`Model::PEDESTRIANS`] by default).
    model: Model,
    /// Everyone's position, velocity and radius at the start of the step.
    bodies: Vec<Body>,
    /// What each agent perceives.
    near: Vec<Near>,
    /// What each agent wants of this step's movement.
    wants: Vec<Want>,
    /// The velocities avoidance chose (for the agents steered this step;
    /// the others' are left from earlier steps, and not read).
    velocities: Vec<Vec2>,
}

impl Motion {
    /// Movement by `model` (the default is [`Model::PEDESTRIANS`]).
    pub fn with_model(model: Model) -> Motion {
        Motion {
            model,
            ..Motion::default()
        }
    }

    /// The movement model it steers with.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// After the grid was rebuilt: take the snapshot of bodies, find each
    /// agent's neighbours, and tell every walker how many there are and
    /// where the nearest is.
    pub fn sense(&mut self, walkers: &mut [Walker], world: &World) {
        self.sense_some(walkers, world, None);
    }

    /// [`Motion::sense`] for the agents whose `elapsed` is not 0 (and
    /// those past its end): everyone's body is taken, but only these
    /// perceive, and only their walkers are told. Pass the same `elapsed`
    /// to [`Motion::move_walkers_due`]: the others have no neighbours to
    /// avoid, and their walkers keep what they perceived last. The others
    /// keep their velocity this step, so avoidance gives them no share of
    /// the effort: an agent steered now avoids one that is not as it would
    /// a wall that moves, taking all of it (with everyone steered, ORCA's
    /// even shares).
    pub fn sense_due(&mut self, walkers: &mut [Walker], world: &World, elapsed: &[u32]) {
        self.sense_some(walkers, world, Some(elapsed));
    }

    fn sense_some(&mut self, walkers: &mut [Walker], world: &World, elapsed: Option<&[u32]>) {
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
                // An agent not steered this step keeps its velocity: it
                // takes no share of avoiding anyone, whoever meets it
                // takes all (see `Motion::sense_due`).
                body.responsibility = if is_due(elapsed, i as usize) {
                    1.0
                } else {
                    0.0
                };
            });
        self.near
            .par_iter_mut()
            .zip(grid.agents())
            .enumerate()
            .for_each_init(Scan::default, |scan, (slot, (near, &i))| {
                *near = if is_due(elapsed, i as usize) {
                    perceive(grid, slot, scan)
                } else {
                    Near::default()
                };
            });
        let near = &self.near;
        walkers
            .par_iter_mut()
            .zip(grid.slots())
            .enumerate()
            .filter(|(i, _)| is_due(elapsed, *i))
            .for_each(|(_, (w, slot))| {
                let seen = &near[slot.load(Relaxed) as usize];
                w.neighbours = seen.count;
                w.nearest = (seen.len > 0).then_some(seen.nearest);
            });
    }

    /// The movement phase: every walker's intent becomes a velocity that
    /// avoids its nearest neighbours (ORCA, solved on the stack), then it moves
    /// and its needs change.
    pub fn move_walkers(&mut self, walkers: &mut [Walker], world: &World) {
        self.move_some(walkers, world, None);
    }

    /// [`Motion::move_walkers`] with *movement level of detail*: only the
    /// agents whose `elapsed` is not 0 (those whose trees were ticked this
    /// step, see [`canopy_core::Lod::elapsed`]) choose a new velocity;
    /// the rest keep the one they last chose and move on with it. As in
    /// Unreal's Mass, an agent far from the camera is steered, like it is
    /// decided, only every few steps. Agents past the end of `elapsed`
    /// count as due.
    pub fn move_walkers_due(&mut self, walkers: &mut [Walker], world: &World, elapsed: &[u32]) {
        self.move_some(walkers, world, Some(elapsed));
    }

    fn move_some(&mut self, walkers: &mut [Walker], world: &World, elapsed: Option<&[u32]>) {
        let grid = &world.grid;
        let n = grid.len();
        self.wants.resize(n, Want::default());
        self.velocities.resize(n, Vec2::ZERO);
        // Fetch the intents in slot order first, in a pass short enough
        // for the processor to overlap its cache misses; inside the long
        // avoidance loop each miss would be waited out alone.
        let all = &*walkers;
        self.wants
            .par_iter_mut()
            .zip(grid.agents())
            .for_each(|(want, &i)| {
                // An agent not steered keeps its velocity: its walker is
                // not read here nor its velocity written back below (with
                // level of detail, three in four agents: a read from a
                // random place in the crowd each, saved).
                if !is_due(elapsed, i as usize) {
                    want.avoid = false;
                    return;
                }
                let w = &all[i as usize];
                *want = Want {
                    velocity: w.intent,
                    max_speed: w.max_speed,
                    avoid: true,
                };
            });
        let (bodies, near, wants) = (&self.bodies, &self.near, &self.wants);
        let step = avoidance_step(world.dt);
        let (model, walls, reach) = (self.model, &world.walls[..], grid.reach());
        self.velocities
            .par_iter_mut()
            .enumerate()
            .for_each(|(slot, velocity)| {
                let want = wants[slot];
                if !want.avoid {
                    return;
                }
                let (me, seen) = (&bodies[slot], &near[slot]);
                let kept = &seen.slots[..usize::from(seen.len)];
                let (asked, walking) = sane_want(want.velocity, want.max_speed);
                // An intent faster than the agent's walking speed (running
                // from a threat) is its top speed for this step.
                let top = walking.max(asked.length());
                let ahead = kept
                    .iter()
                    .map(|&other| (&bodies[other as usize], (other as usize) < slot));
                let following = (model.time_gap, model.press);
                let preferred = choose_way(me, asked, ahead, reach, following);
                let chosen = if walls.is_empty() {
                    let others = kept
                        .iter()
                        .map(|&other| (bodies[other as usize], other as usize > slot));
                    orca::avoid(me, others, preferred, top, step, model.time_horizon)
                } else {
                    let others = (bodies, slot, kept);
                    avoid_beside_walls(
                        me, walls, reach, others.0, others.1, others.2, preferred, top, step,
                        &model,
                    )
                };
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
            .enumerate()
            .for_each(|(i, (w, slot))| {
                if is_due(elapsed, i) {
                    w.vel = velocities[slot.load(Relaxed) as usize];
                }
                // `max` then `min`, not `clamp`: no panic on a NaN size.
                w.pos = (w.pos + w.vel * world.dt)
                    .max(Vec2::ZERO)
                    .min(Vec2::splat(world.size));
                update_needs(w, world);
            });
    }
}

/// Turns tried besides straight on, as (cosine, sine): 20°, 40° and 69°
/// either side (worked out once: a sine and cosine per turn per agent
/// cost more than the rest of the choice).
const TURNS: [(f32, f32); 6] = [
    (0.9393727, 0.3428978),
    (0.9393727, -0.3428978),
    (0.7648422, 0.6442177),
    (0.7648422, -0.6442177),
    (0.3623578, 0.9320391),
    (0.3623578, -0.9320391),
];

/// The nearest agents as a way is chosen among them: where each is, ahead
/// of the agent along its intent and to its left, and how close its body
/// comes to the agent's, four to a vector. Lanes past the last neighbour
/// are never in the way.
struct Ahead {
    ahead: [Vec4; 2],
    left: [Vec4; 2],
    reach: [Vec4; 2],
    /// 1 where the neighbour goes first when the two are side by side
    /// (its slot comes before the agent's), else 0.
    first: [Vec4; 2],
}

impl Ahead {
    fn new<'a>(me: &Body, straight: Vec2, others: impl Iterator<Item = (&'a Body, bool)>) -> Ahead {
        let mut lanes = [[0.0f32; 2 * LANES]; 4];
        // A lane past the last neighbour lies behind: never in the way.
        lanes[0] = [-1.0; 2 * LANES];
        for (k, (other, first)) in others.take(2 * LANES).enumerate() {
            let offset = other.position - me.position;
            lanes[0][k] = offset.dot(straight);
            lanes[1][k] = straight.perp_dot(offset);
            lanes[2][k] = me.radius + other.radius;
            lanes[3][k] = f32::from(u8::from(first));
        }
        let split =
            |l: &[f32; 2 * LANES]| [Vec4::from_slice(&l[..LANES]), Vec4::from_slice(&l[LANES..])];
        Ahead {
            ahead: split(&lanes[0]),
            left: split(&lanes[1]),
            reach: split(&lanes[2]),
            first: split(&lanes[3]),
        }
    }

    /// How far the agent can walk along its intent turned by (`cos`,
    /// `sin`) before its body meets one of theirs, as they stand now: at
    /// most `horizon`. Someone more aside than ahead is in the way only if
    /// it goes first (see [`Ahead::first`]): two agents converging side
    /// by side on a doorway would otherwise each wait for the other, for
    /// ever.
    fn free_path(&self, cos: f32, sin: f32, horizon: f32) -> f32 {
        let (c, s) = (Vec4::splat(cos), Vec4::splat(sin));
        let mut free = Vec4::splat(horizon);
        for k in 0..2 {
            let ahead = self.ahead[k] * c + self.left[k] * s;
            let aside = (self.left[k] * c - self.ahead[k] * s).abs();
            let reach = self.reach[k];
            let goes_first = self.first[k].cmpgt(Vec4::ZERO);
            let in_way =
                (ahead.cmpgt(aside) | (goes_first & ahead.cmpgt(Vec4::ZERO))) & aside.cmplt(reach);
            let gap = ahead - (reach * reach - aside * aside).max(Vec4::ZERO).sqrt_lanes();
            free = Vec4::select(in_way, free.min(gap.max(Vec4::ZERO)), free);
        }
        free.min_element()
    }
}

/// Square roots lane by lane (the compiler makes it one instruction).
trait SqrtLanes {
    fn sqrt_lanes(self) -> Self;
}

impl SqrtLanes for Vec4 {
    fn sqrt_lanes(self) -> Vec4 {
        Vec4::new(self.x.sqrt(), self.y.sqrt(), self.z.sqrt(), self.w.sqrt())
    }
}

/// The velocity an agent asks of avoidance: of the ways straight along
/// `intent` or turned by one of [`TURNS`], the one that brings it nearest
/// to the point `horizon` ahead, going as far as it can before it meets
/// someone (Moussaïd, Helbing and Theraulaz's heuristic, 2011); at most
/// its intent's speed, and slow enough to keep `time_gap` seconds of free
/// path ahead — but never below `press` of its intent's speed. With
/// nobody in the way, the intent unchanged; with `time_gap` 0, too (ORCA
/// alone).
fn choose_way<'a>(
    me: &Body,
    intent: Vec2,
    others: impl Iterator<Item = (&'a Body, bool)>,
    horizon: f32,
    (time_gap, press): (f32, f32),
) -> Vec2 {
    let speed = intent.length();
    if time_gap <= 0.0 || speed <= 0.0 {
        return intent;
    }
    let straight = intent / speed;
    let ahead = Ahead::new(me, straight, others);
    let free = ahead.free_path(1.0, 0.0, horizon);
    if free >= horizon {
        return intent;
    }
    // The distance left to the point `horizon` straight ahead after
    // walking `free` along a way turned by an angle of cosine `cos`;
    // squared.
    let left = |cos: f32, free: f32| horizon * horizon + free * free - 2.0 * horizon * free * cos;
    let mut best = (left(1.0, free), (1.0, 0.0), free);
    for (cos, sin) in TURNS {
        let free = ahead.free_path(cos, sin, horizon);
        let remaining = left(cos, free);
        if remaining < best.0 {
            best = (remaining, (cos, sin), free);
        }
    }
    let (cos, sin) = best.1;
    Vec2::new(cos, sin).rotate(straight) * speed.min((best.2 / time_gap).max(speed * press))
}

/// Most walls one agent avoids at a time: the nearest.
const MAX_WALLS: usize = 2;

/// Avoidance for the agent in `slot` where there are walls: the nearest
/// point of each of the [`MAX_WALLS`] nearest walls within `reach`, and
/// the nearest of the agents it perceived (`kept`) to fill the rest of the
/// solver's places.
#[allow(clippy::too_many_arguments)]
fn avoid_beside_walls(
    me: &Body,
    walls: &[Wall],
    reach: f32,
    bodies: &[Body],
    slot: usize,
    kept: &[u32],
    preferred: Vec2,
    top: f32,
    step: f32,
    model: &Model,
) -> Vec2 {
    let mut near = [(f32::INFINITY, Vec2::ZERO); MAX_WALLS];
    for wall in walls {
        let point = wall.nearest(me.position);
        let mut carry = (point.distance_squared(me.position), point);
        if carry.0 > reach * reach {
            continue;
        }
        for place in &mut near {
            if carry.0 < place.0 {
                std::mem::swap(place, &mut carry);
            }
        }
    }
    let count = near.iter().filter(|w| w.0.is_finite()).count();
    let points = near.map(|w| w.1);
    let mut agents = [(0.0f32, 0u32); MAX_NEIGHBOURS];
    for (to, &other) in agents.iter_mut().zip(kept) {
        *to = (
            bodies[other as usize]
                .position
                .distance_squared(me.position),
            other,
        );
    }
    let kept = kept.len().min(MAX_NEIGHBOURS);
    agents[..kept].sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let others = agents[..kept.min(MAX_NEIGHBOURS - count)]
        .iter()
        .map(|&(_, other)| (bodies[other as usize], other as usize > slot));
    orca::avoid_beside_walls(
        me,
        &points[..count],
        others,
        preferred,
        top,
        step,
        model.time_horizon,
        model.wall_horizon,
    )
}

/// Whether agent `i` is due by `elapsed` (everyone without a plan, and
/// agents past its end).
fn is_due(elapsed: Option<&[u32]>, i: usize) -> bool {
    elapsed.is_none_or(|e| e.get(i).is_none_or(|&e| e > 0))
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
/// [`MAX_NEIGHBOURS`].
const CANDIDATES: usize = 64;

/// Candidates a neighbour query looks at together, one per lane of a
/// [`Vec4`]: the grid pads its coordinate lists with as many.
const LANES: usize = Grid::PADDING;
const _: () = assert!(LANES == 4, "a query's masks and tables are four lanes wide");

/// For each 4-bit mask, the lanes whose bits are set, in order (the rest
/// repeat lane 0, and are written but not counted).
const LEFT_PACK: [[u32; 4]; 16] = {
    let mut table = [[0; 4]; 16];
    let mut mask = 0;
    while mask < 16 {
        let (mut lane, mut k) = (0, 0);
        while lane < 4 {
            if mask & (1 << lane) != 0 {
                table[mask][k] = lane as u32;
                k += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// How many bits each 4-bit mask has set: the processors this builds for
/// by default have no instruction for it, and the loop a compiler writes
/// in its place costs more than the lookup.
const ONES: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];

/// Who the agent in `slot` perceives within the grid's reach: how many,
/// where the nearest is, and the nearest [`MAX_NEIGHBOURS`] — by distance,
/// then slot, a total order, so who is kept never depends on the order
/// they were found in.
///
/// Most of the crowd stands in a crush of thirty or more within reach, and
/// only the nearest eight matter to avoidance. So the pass over the cells
/// keeps only candidates within a *guess* of the eighth's distance, made
/// from how many share the agent's row of cells (at that density about
/// twelve are that close): in a crush about a dozen, not thirty, are
/// ordered at the end. The answer never depends on the guess: if fewer
/// than eight (or fewer than all there are) were within it, the pass runs
/// again with no guess. Measured 700 to 1,000 steps into the demo's
/// crush: 11.8 kept a query and one pass in ninety run again (a guess of
/// fourteen: 13.8 and one in four hundred; ten: 9.5 and one in nine; the
/// agent's own cell alone as the density: a little worse each time).
fn perceive(grid: &Grid, slot: usize, scan: &mut Scan) -> Near {
    const GUESS: f32 = 12.0;
    let here = grid.position(slot);
    let r2 = grid.reach() * grid.reach();
    let runs = grid.runs_near(here);
    // The own row's run is three cells wide (fewer at the arena's edge,
    // which only makes the guess wider) and counts the agent itself.
    let per_cell = runs[1].len().saturating_sub(1).max(1) as f32 / 3.0;
    let guess2 = GUESS * r2 / (std::f32::consts::PI * per_cell);
    scan_near(grid, &runs, slot, here, guess2.min(r2), scan);
    if scan.passed < scan.count.min(MAX_NEIGHBOURS) {
        scan_near(grid, &runs, slot, here, r2, scan);
    }
    let mut near = Near {
        count: scan.count.min(255) as u8,
        len: scan.count.min(MAX_NEIGHBOURS) as u8,
        ..Near::default()
    };
    let found = &scan.found[..scan.len];
    if scan.count > MAX_NEIGHBOURS {
        // The nearest first. Where nobody was dropped the order is the
        // grid's scan order, already fixed.
        let nearest = nearest_keys(grid, here, slot as u32, found);
        for (slot, key) in near.slots.iter_mut().zip(nearest) {
            *slot = key as u32;
        }
        near.nearest = grid.position(near.slots[0] as usize);
    } else {
        // Everyone within reach, in scan order, but the agent itself.
        let mut closest = u64::MAX;
        let mut k = 0;
        for &other in found.iter().filter(|&&other| other as usize != slot) {
            near.slots[k] = other;
            closest = closest.min(key_of(grid, here, other));
            k += 1;
        }
        if k > 0 {
            near.nearest = grid.position(closest as u32 as usize);
        }
    }
    near
}

/// How near the agent in slot `other` is to `here`, as one number: its
/// squared distance's bits above its slot. Squared distances are never
/// negative, so their bits order like the numbers, and the keys order by
/// distance, then slot.
fn key_of(grid: &Grid, here: Vec2, other: u32) -> u64 {
    let d2 = grid.position(other as usize).distance_squared(here);
    (u64::from(d2.to_bits()) << 32) | u64::from(other)
}

/// What one pass over the cells near an agent found: a buffer each thread
/// reuses from query to query (returned by value, its copy cost as much
/// as a quarter of the pass).
#[derive(Clone, Debug)]
struct Scan {
    /// Slots of the candidates kept, in scan order (unless some were
    /// dropped); the agent's own among them.
    found: [u32; CANDIDATES],
    /// How many of `found` are in use.
    len: usize,
    /// Others within reach.
    count: usize,
    /// Others within the pass's limit: each is in `found`, unless it was
    /// farther than [`MAX_NEIGHBOURS`] others found before it.
    passed: usize,
}

impl Default for Scan {
    fn default() -> Self {
        Scan {
            found: [0; CANDIDATES],
            len: 0,
            count: 0,
            passed: 0,
        }
    }
}

/// One pass over `runs`, the cells near the agent in `slot` (at `here`):
/// counts everyone else within reach, and keeps in scan order those within
/// `limit2` (a squared distance) — all of them, or once the buffer fills,
/// the nearest [`MAX_NEIGHBOURS`] and, from then on, only those no farther
/// than the farthest of those. The agent itself may be among those kept.
///
/// Distances are worked out four at a time from the grid's coordinate
/// lists, as whole vectors; who is within reach is summed in the lanes,
/// and the slots of those within the limit are packed into the buffer by
/// table: no branch per candidate, and nothing per candidate to exclude
/// the agent itself, which is taken out of the sums at the end.
fn scan_near(
    grid: &Grid,
    runs: &[Range<usize>; 3],
    slot: usize,
    here: Vec2,
    limit2: f32,
    scan: &mut Scan,
) {
    let (xs, ys) = (grid.xs(), grid.ys());
    let (hx, hy) = (Vec4::splat(here.x), Vec4::splat(here.y));
    let r2 = grid.reach() * grid.reach();
    let (reach2, mut limit) = (Vec4::splat(r2), Vec4::splat(limit2));
    let lanes = Vec4::new(0.0, 1.0, 2.0, 3.0);
    let mut within = Vec4::ZERO;
    (scan.len, scan.passed) = (0, 0);
    for run in runs {
        for from in run.clone().step_by(LANES) {
            if scan.len > CANDIDATES - LANES {
                limit = Vec4::splat(keep_nearest(grid, here, slot as u32, scan));
            }
            let (Some(x), Some(y)) = (xs.get(from..from + LANES), ys.get(from..from + LANES))
            else {
                // The grid pads its lists: a run never reads past them.
                break;
            };
            let (dx, dy) = (Vec4::from_slice(x) - hx, Vec4::from_slice(y) - hy);
            // `Vec2::distance_squared`'s own arithmetic, lane by lane.
            let d2 = dx * dx + dy * dy;
            // Lanes past the run's end hold agents of other cells.
            let valid = lanes.cmplt(Vec4::splat((run.end - from) as f32));
            within += Vec4::select(d2.cmple(reach2) & valid, Vec4::ONE, Vec4::ZERO);
            let bits = (d2.cmple(limit) & valid).bitmask() as usize;
            let to = &mut scan.found[scan.len..scan.len + LANES];
            for (to, lane) in to.iter_mut().zip(LEFT_PACK[bits]) {
                *to = from as u32 + lane;
            }
            scan.len += usize::from(ONES[bits]);
            scan.passed += usize::from(ONES[bits]);
        }
    }
    // The agent's own lane (its own run always holds it) worked out this
    // distance: zero, or NaN where it stands nowhere.
    let own = here.distance_squared(here);
    scan.count = (within.element_sum() as usize).saturating_sub(usize::from(own <= r2));
    scan.passed = scan.passed.saturating_sub(usize::from(own <= limit2));
}

/// Keep only the nearest [`MAX_NEIGHBOURS`] others (not `me`) of a full
/// buffer; returns the squared distance of the farthest kept: nobody
/// found later but farther can be among the nearest.
#[cold]
fn keep_nearest(grid: &Grid, here: Vec2, me: u32, scan: &mut Scan) -> f32 {
    let nearest = nearest_keys(grid, here, me, &scan.found[..scan.len]);
    for (slot, key) in scan.found.iter_mut().zip(nearest) {
        *slot = key as u32;
    }
    scan.len = MAX_NEIGHBOURS;
    f32::from_bits((nearest[MAX_NEIGHBOURS - 1] >> 32) as u32)
}

/// The [`MAX_NEIGHBOURS`] nearest to `here` of the agents in slots
/// `found` (at least that many besides `me`, who is passed over), as
/// [`key_of`]s, in order: each key passes down a sorted row, a
/// compare-exchange per place, without a branch. Sorting a dozen keys the
/// usual way mispredicts a branch for nearly every one. Measured no
/// faster: a sorting network for the first eight (more values than
/// registers), skipping keys beyond the eighth (a branch again), and the
/// row kept in the lanes of two vectors (each insertion still waits on
/// the one before).
fn nearest_keys(grid: &Grid, here: Vec2, me: u32, found: &[u32]) -> [u64; MAX_NEIGHBOURS] {
    let mut best = [u64::MAX; MAX_NEIGHBOURS];
    for &other in found {
        let key = key_of(grid, here, other);
        let mut carry = if other == me { u64::MAX } else { key };
        for place in &mut best {
            let low = (*place).min(carry);
            carry = (*place).max(carry);
            *place = low;
        }
    }
    best
}

/// Needs change with time, effort and danger.
fn update_needs(walker: &mut Walker, world: &World) {
    let effort = walker.vel.length() / walker.max_speed;
    let dt = world.dt;
    walker.hunger = (walker.hunger + dt * (0.010 + 0.010 * effort)).min(1.0);
    walker.fatigue = (walker.fatigue + dt * (0.006 + 0.012 * effort)).min(1.0);
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
        /// within reach counted (up to 255), and kept: all of them in slot
        /// order when there are at most eight, else the nearest eight by
        /// distance, then slot; the nearest of them reported.
        #[test]
        fn perception_matches_brute_force(positions in crowd()) {
            let walkers: Vec<Walker> = positions.iter().map(|&p| walker_at(p)).collect();
            let mut grid = Grid::new(40.0, 3.0);
            grid.rebuild(&walkers);
            let mut scan = Scan::default();
            for slot in 0..grid.len() {
                let here = grid.position(slot);
                let mut within: Vec<(f32, usize)> = (0..grid.len())
                    .filter(|&other| other != slot)
                    .map(|other| (grid.position(other).distance_squared(here), other))
                    .filter(|&(d2, _)| d2 <= 9.0)
                    .collect();
                let seen = perceive(&grid, slot, &mut scan);
                prop_assert_eq!(seen.count as usize, within.len().min(255));
                let kept: Vec<u32> = seen.slots[..seen.len as usize].to_vec();
                let in_slot_order: Vec<u32> = within.iter().map(|&(_, s)| s as u32).collect();
                within.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let expected: Vec<u32> = if within.len() > MAX_NEIGHBOURS {
                    within.iter().take(MAX_NEIGHBOURS).map(|&(_, s)| s as u32).collect()
                } else {
                    in_slot_order
                };
                prop_assert_eq!(kept, expected);
                if let Some(&(_, closest)) = within.first() {
                    prop_assert_eq!(seen.nearest, grid.position(closest));
                }
            }
        }

        /// With level of detail, an agent that is due and has only agents
        /// that are due within reach perceives and moves exactly as it
        /// would with everyone due; one that is not keeps its velocity and
        /// moves on with it, and its walker keeps what it perceived last;
        /// agents past the end of the list count as due.
        #[test]
        fn agents_not_due_keep_their_velocity_and_the_rest_avoid_as_usual(
            positions in crowd(),
            due in prop::collection::vec(any::<bool>(), 0..200),
        ) {
            let walkers: Vec<Walker> = positions
                .iter()
                .enumerate()
                .map(|(i, &p)| Walker {
                    vel: Vec2::from_angle(i as f32).clamp_length_max(1.0),
                    intent: Vec2::from_angle(i as f32 * 0.7) * 2.0,
                    neighbours: 77,
                    nearest: Some(Vec2::NEG_ONE),
                    ..walker_at(p)
                })
                .collect();
            let mut world = World {
                size: 40.0,
                dt: 0.1,
                step: 0,
                food: World::food_patches(Vec::new(), 40.0),
                rest: World::rest_areas(Vec::new(), 40.0),
                threats: Vec::new(),
                social_radius: 3.0,
                walls: Vec::new(),
                grid: Grid::new(40.0, 3.0),
            };
            world.grid.rebuild(&walkers);
            let elapsed: Vec<u32> = due.iter().map(|&d| u32::from(d)).collect();
            let (mut everyone, mut some) = (walkers.clone(), walkers.clone());
            let mut motion = Motion::default();
            motion.sense(&mut everyone, &world);
            motion.move_walkers(&mut everyone, &world);
            let mut motion = Motion::default();
            motion.sense_due(&mut some, &world, &elapsed);
            motion.move_walkers_due(&mut some, &world, &elapsed);
            let is_due = |i: usize| due.get(i).is_none_or(|&d| d);
            for (i, ((some, all), before)) in some.iter().zip(&everyone).zip(&walkers).enumerate() {
                let among_due = (0..walkers.len())
                    .filter(|&j| walkers[j].pos.distance(before.pos) <= 3.0)
                    .all(is_due);
                if is_due(i) {
                    prop_assert_eq!((some.neighbours, some.nearest), (all.neighbours, all.nearest));
                    if among_due {
                        prop_assert_eq!(some, all, "agent {} is due among agents due", i);
                    }
                } else {
                    prop_assert_eq!(some.vel, before.vel, "agent {} keeps its velocity", i);
                    let moved = (before.pos + before.vel * 0.1).max(Vec2::ZERO).min(Vec2::splat(40.0));
                    prop_assert_eq!(some.pos, moved);
                    prop_assert_eq!((some.neighbours, some.nearest), (77, Some(Vec2::NEG_ONE)));
                }
            }
        }
    }

    /// Two agents walking into each other: when both are steered, each
    /// takes half of the swerve; when one keeps its velocity this step
    /// (level of detail), the other takes all of it.
    #[test]
    fn an_agent_steered_takes_all_the_effort_beside_one_that_is_not() {
        let walker = |x: f32, dir: f32| Walker {
            vel: Vec2::new(dir * 1.3, 0.0),
            intent: Vec2::new(dir * 1.3, 0.0),
            max_speed: 1.3,
            radius: 0.25,
            ..walker_at(Vec2::new(x, 20.05))
        };
        let world = |walkers: &[Walker]| {
            let mut world = World {
                size: 40.0,
                dt: 0.1,
                step: 0,
                food: World::food_patches(Vec::new(), 40.0),
                rest: World::rest_areas(Vec::new(), 40.0),
                threats: Vec::new(),
                social_radius: 3.0,
                walls: Vec::new(),
                grid: Grid::new(40.0, 3.0),
            };
            world.grid.rebuild(walkers);
            world
        };
        let swerve = |due: &[u32]| {
            let mut walkers = vec![walker(19.0, 1.0), walker(21.0, -1.0)];
            let world = world(&walkers);
            let mut motion = Motion::with_model(Model::ORCA_ONLY);
            motion.sense_due(&mut walkers, &world, due);
            motion.move_walkers_due(&mut walkers, &world, due);
            walkers[0].vel.y.abs()
        };
        let (shared, alone) = (swerve(&[1, 1]), swerve(&[1, 0]));
        assert!(shared > 0.05, "{shared}");
        assert!(
            (alone / shared - 2.0).abs() < 0.05,
            "{alone} against {shared}"
        );
    }
}
