//! The movement model against pedestrian measurements: scenarios with
//! walls, in metres and seconds, each reduced to the figure an experiment
//! or a guideline gives for it.
//!
//! - [`walk_corridor`]: RiMEA test 1 — one person walks 40 m of a 2 m
//!   wide corridor at 1.33 m/s; the guideline expects 26 to 34 s.
//! - [`ring`]: the fundamental diagram (RiMEA test 4) — agents walking
//!   round a ring corridor at a given density, their mean speed against
//!   Weidmann's ([`weidmann_speed`](crate::weidmann_speed)). A ring has no
//!   ends, so the density holds (the laboratory experiments on the
//!   fundamental diagram walked round ovals for the same reason).
//! - [`bottleneck`]: a crowd leaves a room through a corridor 4 m long
//!   and 0.8 to 2.4 m wide; the specific flow (persons per metre of width
//!   per second) is about 1.9 in controlled experiments (Seyfried et al.
//!   2009, Liddle et al. 2011), nearly independent of the width.
//! - [`corner`]: RiMEA test 6 — twenty persons go round a left turn of a
//!   2 m corridor without passing through the walls.
//! - [`room`]: RiMEA test 9 — 1,000 persons leave a 30 × 20 m room by four
//!   1 m doors, then by two; the guideline expects about twice the time.
//!
//! Every scenario steps agents with [`Motion`], as the demo does: the
//! same perception, time gap and avoidance, with the scene's walls
//! ([`Wall`]). Agents walk at their free speed down a [`FloorField`] (the
//! shortest way out round the walls; no behavior tree: these measure
//! movement). Everything is drawn from the seed, so a run gives the same
//! figures every time.
//!
//! With [`Model::PEDESTRIANS`] (the `pedestrians` example prints the
//! table, `docs/crowd-demo.md` quotes it): RiMEA 1 in 30.1 s; the
//! fundamental diagram within 0.12 m/s of Weidmann's from 0.5 to 5 p/m²,
//! where ORCA alone walks at 1.13 m/s at 3 p/m² (Weidmann 0.33) and 0.88
//! at 5 (0.04); bottlenecks of 1.2 to 2.4 m at 1.33 to 1.48 p/m/s, about
//! three quarters of the measured 1.9 (ORCA alone 2.5 to 3.4), and 0.8 m
//! at 0.46 (round bodies pass one at a time where people pass two,
//! shoulders turned); RiMEA 6 with every agent through and none in a
//! wall; RiMEA 9 with two doors 1.6 times as long as with four (the
//! guideline: about twice).

use glam::Vec2;

use crate::model::Model;
use crate::motion::Motion;
use crate::walker::{Activity, Walker};
use crate::world::{Grid, Wall, World};

/// Seconds per step in every scenario (the demo's step).
pub const DT: f32 = 0.1;

/// A scene: walls, agents walking, and the motion that steps them.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The arena (a square of side `world.size`), its walls, the step.
    pub world: World,
    /// The agents still in the scene.
    pub walkers: Vec<Walker>,
    motion: Motion,
}

impl Scene {
    /// A scene of side `size` metres with these walls and agents, moved by
    /// `model`.
    pub fn new(model: Model, size: f32, walls: Vec<Wall>, walkers: Vec<Walker>) -> Scene {
        let reach = 3.0;
        let mut world = World {
            size,
            dt: DT,
            step: 0,
            food: World::food_patches(Vec::new(), size),
            rest: World::rest_areas(Vec::new(), size),
            threats: Vec::new(),
            social_radius: reach,
            walls,
            grid: Grid::new(size, reach),
        };
        let mut motion = Motion::with_model(model);
        let mut walkers = walkers;
        world.grid.rebuild(&walkers);
        motion.sense(&mut walkers, &world);
        Scene {
            world,
            walkers,
            motion,
        }
    }

    /// Seconds since the scene began.
    pub fn time(&self) -> f32 {
        self.world.step as f32 * DT
    }

    /// One step: each agent heads along `heading(position)` (any length;
    /// zero stands still) at its free speed, avoiding the others and the
    /// walls; then those for whom `gone` holds leave the scene.
    pub fn step(&mut self, heading: impl Fn(Vec2) -> Vec2, gone: impl Fn(Vec2) -> bool) {
        self.walk(heading);
        self.settle(gone);
    }

    /// The first half of [`Scene::step`]: everyone moves.
    fn walk(&mut self, heading: impl Fn(Vec2) -> Vec2) {
        for w in &mut self.walkers {
            w.intent = heading(w.pos).normalize_or_zero() * w.max_speed;
        }
        self.motion.move_walkers(&mut self.walkers, &self.world);
        self.world.advance();
    }

    /// The second half of [`Scene::step`]: those gone leave, the others
    /// perceive each other for the next step.
    fn settle(&mut self, gone: impl Fn(Vec2) -> bool) {
        self.walkers.retain(|w| !gone(w.pos));
        self.world.grid.rebuild(&self.walkers);
        self.motion.sense(&mut self.walkers, &self.world);
    }
}

/// A pedestrian standing at `pos`: body and free speed drawn from `model`
/// with dice from `seed` and `i`.
pub fn pedestrian(model: &Model, seed: u64, i: usize, pos: Vec2) -> Walker {
    let mut dice = Dice::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let (radius, speed) = model.draw([dice.roll(), dice.roll(), dice.roll()]);
    Walker {
        pos,
        vel: Vec2::ZERO,
        radius,
        max_speed: speed,
        goal: pos,
        hunger: 0.0,
        fatigue: 0.0,
        fear: 0.0,
        known_food: -1,
        known_rest: -1,
        meals: 0,
        naps: 0,
        activity: Activity::Wander,
        intent: Vec2::ZERO,
        neighbours: 0,
        nearest: None,
        rng: (dice.next() as u32) | 1,
    }
}

/// splitmix64 numbers in `0.0..1.0`.
struct Dice(u64);

impl Dice {
    fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    fn roll(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` places inside `inside` (a test on a point), on a hexagonal lattice
/// over `[lo, hi]` at `density` persons per m², shaken by up to a tenth of
/// its spacing and picked in an order drawn from `seed`. Fewer when the
/// lattice has fewer places inside.
fn places(
    lo: Vec2,
    hi: Vec2,
    density: f32,
    n: usize,
    seed: u64,
    inside: impl Fn(Vec2) -> bool,
) -> Vec<Vec2> {
    let spacing = (2.0 / (3f32.sqrt() * density)).sqrt();
    let row = spacing * 3f32.sqrt() / 2.0;
    let mut dice = Dice::new(seed);
    let mut all = Vec::new();
    let mut y = lo.y;
    let mut odd = false;
    while y <= hi.y {
        let mut x = lo.x + if odd { spacing / 2.0 } else { 0.0 };
        while x <= hi.x {
            let shake = Vec2::new(dice.roll() - 0.5, dice.roll() - 0.5) * spacing * 0.2;
            let p = Vec2::new(x, y) + shake;
            if inside(p) {
                all.push(p);
            }
            x += spacing;
        }
        y += row;
        odd = !odd;
    }
    // Fisher–Yates, then the first n.
    for k in (1..all.len()).rev() {
        let j = (dice.next() % (k as u64 + 1)) as usize;
        all.swap(k, j);
    }
    all.truncate(n);
    all
}

/// Where agents head in a scene with walls: every point's walking
/// distance to the way out, round the walls, on a grid of 10 cm cells
/// (Dijkstra over the eight neighbours of each cell), as the floor fields
/// of pedestrian simulators (JuPedSim, Vadere) are. An agent heads down
/// the field's slope. Routes keep `clearance` from walls (a body's width,
/// round door posts too); an agent pushed nearer than that heads back out
/// of the band first; cells on a wall are never crossed. Rejected: closing
/// the band altogether (an agent pushed into a corner found no way out
/// and stood there for good), and routes along it at three times the
/// cost (agents hugged the walls to the doors: four doors of RiMEA 9 took
/// 438 s instead of 211).
#[derive(Clone, Debug)]
pub struct FloorField {
    cols: usize,
    rows: usize,
    cell: f32,
    /// Walking distance to the way out, by cell, row by row; infinite in
    /// closed cells and where no way leads out.
    distance: Vec<f32>,
}

impl FloorField {
    /// The field over a square of side `size` (from the origin) with these
    /// walls, leading to the cells where `out` holds.
    pub fn new(
        size: f32,
        walls: &[Wall],
        clearance: f32,
        out: impl Fn(Vec2) -> bool,
    ) -> FloorField {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let cell = 0.1;
        let cols = (size / cell).ceil() as usize;
        let rows = cols;
        let centre =
            |c: usize, r: usize| Vec2::new((c as f32 + 0.5) * cell, (r as f32 + 0.5) * cell);
        // How near each cell's centre is to a wall.
        let near: Vec<f32> = (0..rows * cols)
            .map(|k| {
                let p = centre(k % cols, k / cols);
                (walls.iter())
                    .map(|w| w.nearest(p).distance(p))
                    .fold(f32::INFINITY, f32::min)
            })
            .collect();
        let open: Vec<bool> = near.iter().map(|&d| d >= clearance).collect();
        // Cells on a wall (within a cell of it) are never crossed: a band
        // two cells thick, which no step, straight or diagonal, jumps.
        let wall: Vec<bool> = near.iter().map(|&d| d < cell).collect();
        let mut distance = vec![f32::INFINITY; rows * cols];
        let mut queue = BinaryHeap::new();
        for k in 0..rows * cols {
            if open[k] && out(centre(k % cols, k / cols)) {
                distance[k] = 0.0;
                queue.push(Reverse((0u32, k)));
            }
        }
        let steps = [
            (-1, 0, 1.0),
            (1, 0, 1.0),
            (0, -1, 1.0),
            (0, 1, 1.0),
            (-1, -1, std::f32::consts::SQRT_2),
            (1, -1, std::f32::consts::SQRT_2),
            (-1, 1, std::f32::consts::SQRT_2),
            (1, 1, std::f32::consts::SQRT_2),
        ];
        // Routes run through open cells only. A closed cell (too near a
        // wall) takes its distance from the way out of the band, and passes
        // it on only to other closed cells: an agent pushed into the band
        // (against a wall, in a corner) heads out of it, and no route runs
        // along it.
        // Distances are non-negative: their bits order as they do.
        while let Some(Reverse((bits, k))) = queue.pop() {
            let d = f32::from_bits(bits);
            if d > distance[k] {
                continue;
            }
            let (c, r) = ((k % cols) as i64, (k / cols) as i64);
            for (dc, dr, len) in steps {
                let (nc, nr) = (c + dc, r + dr);
                if nc < 0 || nr < 0 || nc >= cols as i64 || nr >= rows as i64 {
                    continue;
                }
                let n = nr as usize * cols + nc as usize;
                if wall[n] || (!open[k] && open[n]) {
                    continue;
                }
                let nd = d + len * cell;
                if nd < distance[n] {
                    distance[n] = nd;
                    queue.push(Reverse((nd.to_bits(), n)));
                }
            }
        }
        FloorField {
            cols,
            rows,
            cell,
            distance,
        }
    }

    /// The distance at cell (`c`, `r`), infinite outside the grid.
    fn at(&self, c: i64, r: i64) -> f32 {
        if c < 0 || r < 0 || c >= self.cols as i64 || r >= self.rows as i64 {
            return f32::INFINITY;
        }
        self.distance[r as usize * self.cols + c as usize]
    }

    /// Which way is down the field from `p`: towards the lowest of the
    /// cell's eight neighbours, smoothed by the slope across the cell
    /// where both sides are open; zero where no way leads out.
    pub fn heading(&self, p: Vec2) -> Vec2 {
        let (c, r) = (
            (p.x / self.cell).floor() as i64,
            (p.y / self.cell).floor() as i64,
        );
        let here = self.at(c, r);
        let mut best = (here, Vec2::ZERO);
        for dr in -1..=1 {
            for dc in -1..=1 {
                let d = self.at(c + dc, r + dr);
                let step = Vec2::new(dc as f32, dr as f32);
                if (dc, dr) != (0, 0) && d < best.0 {
                    best = (d, step.normalize());
                }
            }
        }
        let slope = |a: f32, b: f32| {
            if a.is_finite() && b.is_finite() {
                Some(a - b)
            } else {
                None
            }
        };
        match (
            slope(self.at(c - 1, r), self.at(c + 1, r)),
            slope(self.at(c, r - 1), self.at(c, r + 1)),
        ) {
            (Some(x), Some(y)) if here.is_finite() && (x != 0.0 || y != 0.0) => {
                Vec2::new(x, y).normalize()
            }
            _ => best.1,
        }
    }
}

/// RiMEA test 1's result: seconds one person took for the 40 m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CorridorWalk {
    /// Seconds from crossing x = 0 to crossing x = 40 m.
    pub seconds: f32,
}

/// RiMEA test 1: one person of free speed 1.33 m/s walks a corridor 2 m
/// wide; the time it takes for 40 m. The guideline expects 26 to 34 s.
pub fn walk_corridor(model: &Model) -> CorridorWalk {
    let (left, right, y0) = (2.0, 42.0, 20.0);
    let walls = vec![
        Wall::Segment(Vec2::new(0.0, y0), Vec2::new(right + 2.0, y0)),
        Wall::Segment(Vec2::new(0.0, y0 + 2.0), Vec2::new(right + 2.0, y0 + 2.0)),
    ];
    let mut person = pedestrian(model, 1, 0, Vec2::new(left - 1.0, y0 + 1.0));
    person.max_speed = 1.33;
    let mut scene = Scene::new(*model, 46.0, walls, vec![person]);
    let (mut start, mut end) = (None, None);
    while end.is_none() && scene.time() < 120.0 {
        let before = scene.walkers[0].pos.x;
        scene.step(|_| Vec2::X, |_| false);
        let after = scene.walkers[0].pos.x;
        // Crossing times interpolated within the step.
        let at = |line: f32| scene.time() - DT * (after - line) / (after - before);
        if start.is_none() && after >= left {
            start = Some(at(left));
        }
        if after >= right {
            end = Some(at(right));
        }
    }
    CorridorWalk {
        seconds: end.zip(start).map_or(f32::INFINITY, |(e, s)| e - s),
    }
}

/// One point of the fundamental diagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RingPoint {
    /// Persons per m² in the ring.
    pub density: f32,
    /// Agents in the ring.
    pub agents: usize,
    /// Their mean speed along the ring, m/s, over the measured steps.
    pub speed: f32,
}

/// The fundamental diagram at `density` persons per m²: agents walking
/// round a ring corridor `width` metres wide, its inner wall of radius
/// `inner`, for `warm_up` seconds, then their mean speed along the ring
/// over `measure` seconds.
pub fn ring(
    model: &Model,
    density: f32,
    inner: f32,
    width: f32,
    warm_up: f32,
    measure: f32,
    seed: u64,
) -> RingPoint {
    let outer = inner + width;
    let size = 2.0 * outer + 2.0;
    let centre = Vec2::splat(size / 2.0);
    let area = std::f32::consts::PI * (outer * outer - inner * inner);
    let n = (density * area).round() as usize;
    let margin = model.radius[0];
    let spots = places(
        centre - outer,
        centre + outer,
        density * 1.3,
        n,
        seed,
        |p| {
            let d = p.distance(centre);
            d > inner + margin && d < outer - margin
        },
    );
    let walkers = (spots.iter().enumerate())
        .map(|(i, &p)| pedestrian(model, seed, i, p))
        .collect();
    let walls = vec![
        Wall::Circle {
            centre,
            radius: inner,
        },
        Wall::Circle {
            centre,
            radius: outer,
        },
    ];
    let mut scene = Scene::new(*model, size, walls, walkers);
    let along = |p: Vec2| (p - centre).perp().normalize_or_zero();
    let warm = (warm_up / DT).round() as u32;
    let steps = (measure / DT).round() as u32;
    let (mut sum, mut count) = (0.0f64, 0u64);
    for step in 0..warm + steps {
        scene.step(along, |_| false);
        if step >= warm {
            for w in &scene.walkers {
                sum += f64::from(w.vel.dot(along(w.pos)));
                count += 1;
            }
        }
    }
    RingPoint {
        density: scene.walkers.len() as f32 / area,
        agents: scene.walkers.len(),
        speed: (sum / count.max(1) as f64) as f32,
    }
}

/// A crowd's passage through a bottleneck.
#[derive(Clone, Debug, PartialEq)]
pub struct BottleneckRun {
    /// The bottleneck's width, m.
    pub width: f32,
    /// Agents that started in the room.
    pub agents: usize,
    /// Seconds at which each agent crossed the middle of the bottleneck,
    /// in order.
    pub passages: Vec<f32>,
    /// Persons per second through the bottleneck, between the passages of
    /// the first and last tenth of the crowd (the steady part).
    pub flow: f32,
    /// Persons per metre of width per second: `flow / width`.
    pub specific_flow: f32,
}

/// The bottleneck's geometry: a room `ROOM.x` deep and `ROOM.y` wide, with
/// the corridor's entrance in the middle of its right-hand wall.
const ROOM: Vec2 = Vec2::new(8.0, 10.0);
/// The bottleneck corridor's length, m (the experiments' 4 m).
const BOTTLENECK_LENGTH: f32 = 4.0;
/// Where the room begins in the arena.
const ORIGIN: Vec2 = Vec2::new(1.0, 1.0);

/// The walls of a room with a bottleneck `width` metres wide.
fn bottleneck_walls(width: f32) -> Vec<Wall> {
    let (o, room) = (ORIGIN, ROOM);
    let mid = o.y + room.y / 2.0;
    let (gate_lo, gate_hi) = (mid - width / 2.0, mid + width / 2.0);
    let (front, end) = (o.x + room.x, o.x + room.x + BOTTLENECK_LENGTH);
    vec![
        Wall::Segment(o, Vec2::new(front, o.y)),
        Wall::Segment(o, Vec2::new(o.x, o.y + room.y)),
        Wall::Segment(Vec2::new(o.x, o.y + room.y), Vec2::new(front, o.y + room.y)),
        Wall::Segment(Vec2::new(front, o.y), Vec2::new(front, gate_lo)),
        Wall::Segment(Vec2::new(front, gate_hi), Vec2::new(front, o.y + room.y)),
        Wall::Segment(Vec2::new(front, gate_lo), Vec2::new(end, gate_lo)),
        Wall::Segment(Vec2::new(front, gate_hi), Vec2::new(end, gate_hi)),
    ]
}

/// How far from walls routes keep, m: the widest body's radius and a
/// little.
const CLEARANCE: f32 = 0.3;

/// A crowd leaving a room through a bottleneck, step by step: the scene
/// to look at, and who has passed when.
#[derive(Clone, Debug)]
pub struct Bottleneck {
    /// The room, the bottleneck and the agents still there.
    pub scene: Scene,
    width: f32,
    agents: usize,
    field: FloorField,
    passages: Vec<f32>,
}

impl Bottleneck {
    /// `agents` standing in the room at about 2.5 persons per m², before
    /// the first step, the bottleneck `width` metres wide.
    pub fn new(model: &Model, width: f32, agents: usize, seed: u64) -> Bottleneck {
        let (o, room) = (ORIGIN, ROOM);
        let margin = model.radius[1];
        let spots = places(o + margin, o + room - margin, 2.6, agents, seed, |p| {
            p.x < o.x + room.x - margin && p.y < o.y + room.y - margin
        });
        let walkers = (spots.iter().enumerate())
            .map(|(i, &p)| pedestrian(model, seed, i, p))
            .collect();
        let size = (o.x + room.x + BOTTLENECK_LENGTH + 6.0).max(o.y + room.y + 2.0);
        let scene = Scene::new(*model, size, bottleneck_walls(width), walkers);
        let end = o.x + room.x + BOTTLENECK_LENGTH;
        let field = FloorField::new(size, &scene.world.walls, CLEARANCE, |p| p.x > end + 3.0);
        Bottleneck {
            scene,
            width,
            agents,
            field,
            passages: Vec::new(),
        }
    }

    /// One step: everyone heads out; those who cross the middle of the
    /// bottleneck are counted (one who steps back is taken off again),
    /// those 2 m beyond its end leave.
    pub fn step(&mut self) {
        let middle = ORIGIN.x + ROOM.x + BOTTLENECK_LENGTH / 2.0;
        let beyond = ORIGIN.x + ROOM.x + BOTTLENECK_LENGTH + 2.0;
        let before: Vec<f32> = self.scene.walkers.iter().map(|w| w.pos.x).collect();
        let field = &self.field;
        self.scene.walk(|p| field.heading(p));
        let now = self.scene.time();
        for (w, &x) in self.scene.walkers.iter().zip(&before) {
            if x < middle && w.pos.x >= middle {
                self.passages.push(now);
            } else if x >= middle && w.pos.x < middle {
                self.passages.pop();
            }
        }
        self.scene.settle(|p| p.x > beyond);
    }

    /// Whether everyone has left, or the time allowed (a minute, and ten
    /// seconds per person per metre of width) is over.
    pub fn done(&self) -> bool {
        let limit = 60.0 + self.agents as f32 * 10.0 / self.width.max(0.1);
        self.scene.walkers.is_empty() || self.scene.time() >= limit
    }

    /// The run's passages and flow.
    pub fn finish(self) -> BottleneckRun {
        let passages = self.passages;
        let n = passages.len();
        let (first, last) = (n / 10, n.saturating_sub(1 + n / 10));
        let flow = if n >= 10 && passages[last] > passages[first] {
            (last - first) as f32 / (passages[last] - passages[first])
        } else {
            0.0
        };
        BottleneckRun {
            width: self.width,
            agents: self.agents,
            passages,
            flow,
            specific_flow: flow / self.width,
        }
    }
}

/// A crowd of `agents` leaves a room through a bottleneck `width` metres
/// wide and 4 m long: when each crosses its middle, and the flow.
pub fn bottleneck(model: &Model, width: f32, agents: usize, seed: u64) -> BottleneckRun {
    let mut run = Bottleneck::new(model, width, agents, seed);
    while !run.done() {
        run.step();
    }
    run.finish()
}

/// RiMEA test 6's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CornerRun {
    /// Persons who reached the end of the corridor (of 20).
    pub arrived: usize,
    /// Seconds until the last arrived.
    pub seconds: f32,
    /// Steps × persons found with their centre inside a wall.
    pub inside_walls: usize,
}

/// RiMEA test 6: twenty persons walk a corridor 2 m wide that turns left
/// after 12 m, and 10 m on leave it; none may pass through the walls.
/// The corridor is JuPedSim's geometry for the test: the first leg along
/// x from 0 to 12 m, y from 0 to 2 m; the second up from there, x from
/// 10 to 12 m, to y = 12 m.
pub fn corner(model: &Model, seed: u64) -> CornerRun {
    let o = Vec2::splat(1.0);
    let at = |x: f32, y: f32| o + Vec2::new(x, y);
    let walls = vec![
        Wall::Segment(at(0.0, 0.0), at(12.0, 0.0)),
        Wall::Segment(at(12.0, 0.0), at(12.0, 12.0)),
        Wall::Segment(at(0.0, 0.0), at(0.0, 2.0)),
        Wall::Segment(at(0.0, 2.0), at(10.0, 2.0)),
        Wall::Segment(at(10.0, 2.0), at(10.0, 12.0)),
    ];
    let margin = model.radius[1];
    let spots = places(
        at(margin, margin),
        at(6.0, 2.0 - margin),
        2.0,
        20,
        seed,
        |p| p.y < o.y + 2.0 - margin && p.x < o.x + 6.0,
    );
    let walkers = (spots.iter().enumerate())
        .map(|(i, &p)| pedestrian(model, seed, i, p))
        .collect();
    let mut scene = Scene::new(*model, 16.0, walls, walkers);
    let field = FloorField::new(16.0, &scene.world.walls, CLEARANCE, |p| p.y > o.y + 13.5);
    let heading = |p: Vec2| field.heading(p);
    let inside_wall = |p: Vec2| {
        let q = p - o;
        (q.x < 10.0 && q.y > 2.0) || q.x < 0.0 || q.y < 0.0 || (q.x > 12.0 && q.y < 12.0)
    };
    let (mut arrived, mut inside_walls, mut last) = (0, 0, 0.0);
    while !scene.walkers.is_empty() && scene.time() < 120.0 {
        let before = scene.walkers.len();
        scene.step(heading, |p| p.y > o.y + 12.0);
        let now = scene.walkers.len();
        if now < before {
            arrived += before - now;
            last = scene.time();
        }
        inside_walls += scene.walkers.iter().filter(|w| inside_wall(w.pos)).count();
    }
    CornerRun {
        arrived,
        seconds: last,
        inside_walls,
    }
}

/// RiMEA test 9's result for one set of open doors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoomRun {
    /// Persons placed in the room (the lattice they stand on may hold a
    /// few fewer than asked).
    pub placed: usize,
    /// Persons who left.
    pub left: usize,
    /// Seconds until the last one left.
    pub seconds: f32,
}

/// RiMEA test 9: `agents` persons spread over a room `size` metres (the
/// test's 30 × 20) leave it by 1 m doors near its corners — all four, or
/// with `all_doors` false the two in the top wall locked — each by the
/// nearest open door. The guideline expects about twice the time with two
/// doors as with four.
pub fn room(model: &Model, size: Vec2, agents: usize, all_doors: bool, seed: u64) -> RoomRun {
    let o = Vec2::splat(2.0);
    let door_x = [4.0, size.x - 5.0];
    let mut walls = vec![
        Wall::Segment(o, o + Vec2::new(0.0, size.y)),
        Wall::Segment(o + Vec2::new(size.x, 0.0), o + size),
    ];
    for (y, open) in [(0.0, true), (size.y, all_doors)] {
        let wall_at = |a: f32, b: f32| Wall::Segment(o + Vec2::new(a, y), o + Vec2::new(b, y));
        if open {
            walls.push(wall_at(0.0, door_x[0]));
            walls.push(wall_at(door_x[0] + 1.0, door_x[1]));
            walls.push(wall_at(door_x[1] + 1.0, size.x));
        } else {
            walls.push(wall_at(0.0, size.x));
        }
    }
    let margin = model.radius[1];
    let spots = places(o + margin, o + size - margin, 2.0, agents, seed, |p| {
        p.x < o.x + size.x - margin && p.y < o.y + size.y - margin
    });
    let walkers: Vec<Walker> = (spots.iter().enumerate())
        .map(|(i, &p)| pedestrian(model, seed, i, p))
        .collect();
    let placed = walkers.len();
    let mut scene = Scene::new(*model, size.x.max(size.y) + 2.0 * o.x, walls, walkers);
    let field = FloorField::new(scene.world.size, &scene.world.walls, CLEARANCE, |p| {
        p.y < o.y - 1.5 || p.y > o.y + size.y + 1.5
    });
    let heading = |p: Vec2| field.heading(p);
    let gone = |p: Vec2| p.y < o.y - 1.0 || p.y > o.y + size.y + 1.0;
    let mut last = 0.0;
    while !scene.walkers.is_empty() && scene.time() < 1800.0 {
        let before = scene.walkers.len();
        scene.step(heading, gone);
        if scene.walkers.len() < before {
            last = scene.time();
        }
    }
    RoomRun {
        placed,
        left: placed - scene.walkers.len(),
        seconds: last,
    }
}
