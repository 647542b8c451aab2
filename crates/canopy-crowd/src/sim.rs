//! The simulation step: a parallel behavior phase on a read-only world,
//! then a parallel movement phase, then the world moves on.
//!
//! 1. **Behavior**: every agent's tree ticks, in parallel (rayon), against
//!    the same read-only [`World`]; each agent writes only its own
//!    [`Walker`] (intent, goal, needs, activity). No locks.
//! 2. **Movement**: intents become velocities through ORCA collision
//!    avoidance against a snapshot of everyone's position and
//!    velocity; needs grow; positions advance by the fixed time step.
//! 3. **World**: threats move, the neighbour grid is rebuilt, and every
//!    agent perceives its neighbours once for the next step: how many there
//!    are and where the nearest is (for the tree), the closest few (for
//!    avoidance). Trails are sampled.
//!
//! With level of detail, only the agents due in a step decide and steer;
//! they perceive at its start, when the plan says who they are, and the
//! others keep their velocity.
//!
//! Every per-agent computation reads only the snapshot and writes only its
//! agent, and the grid lists neighbours in a fixed order, so the result is
//! the same with one thread or many; the seed fixes everything else.

use std::collections::TryReserveError;
use std::time::{Duration, Instant};

use canopy_core::{Agent, Lod, Mode, Status, Tree, lod::LodError};
use glam::Vec2;
use rayon::prelude::*;

use crate::lod::CrowdLod;
use crate::model::Model;
use crate::motion::Motion;
use crate::walker::{Activity, Walker};
use crate::world::{Grid, Threat, World};

/// With level of detail, an agent that had at least this many others
/// within the social radius when it last looked is steered every step,
/// whatever its class: holding its velocity for up to 8 steps in a crowd
/// is what pressed agents into each other (measured with `crowd_spacing`:
/// agents steered 1 step in 8 overlapped 35 times as deep as those
/// steered every step; with a dozen, 1.1 times, for about a sixth more
/// movement time at 100,000 agents).
pub const STEER_IN_A_CROWD: u8 = 12;

/// Everything that shapes a run, with the demo's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Number of agents.
    pub agents: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// Seconds per step.
    pub dt: f32,
    /// Arena side, m; by default it grows with the crowd (6 m² per agent).
    pub size: Option<f32>,
    /// Food patches; by default one per 500 agents, at least 6.
    pub food: Option<usize>,
    /// Rest areas; by default one per 800 agents, at least 4.
    pub rest: Option<usize>,
    /// Roaming threats.
    pub threats: usize,
    /// Trail samples kept per agent, one every [`Config::trail_every`] steps.
    pub trail: usize,
    /// Steps between trail samples.
    pub trail_every: u32,
    /// How agents run the tree: tick-from-root or event-driven (same
    /// results; see [`Mode`]).
    pub mode: Mode,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            agents: 10_000,
            seed: 1,
            dt: 0.1,
            size: None,
            food: None,
            rest: None,
            threats: 3,
            trail: 8,
            trail_every: 3,
            mode: Mode::Tick,
        }
    }
}

/// The `n` items of `items` in a list whose memory was asked for first,
/// so that a refusal is an error rather than an abort.
fn collect_exact<T>(n: usize, items: impl Iterator<Item = T>) -> Result<Vec<T>, TryReserveError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n)?;
    out.extend(items.take(n));
    Ok(out)
}

/// splitmix64: seeds per-agent generators and places things.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A reproducible stream of numbers in `0.0..1.0` for setting up a run.
struct Dice(u64);

impl Dice {
    fn roll(&mut self) -> f32 {
        self.0 = mix(self.0);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn point(&mut self, size: f32, margin: f32) -> Vec2 {
        Vec2::new(
            margin + self.roll() * (size - 2.0 * margin),
            margin + self.roll() * (size - 2.0 * margin),
        )
    }
}

impl Config {
    /// This configuration with its defaults filled in as [`Crowd::new`]
    /// fills them: the arena's side from the agent count, food and rest
    /// areas in proportion to it.
    pub fn resolved(&self) -> Config {
        let agents = self.agents;
        Config {
            size: Some(
                self.size
                    .unwrap_or_else(|| (agents.max(100) as f32 * 6.0).sqrt()),
            ),
            food: Some(self.food.unwrap_or((agents / 500).max(6))),
            rest: Some(self.rest.unwrap_or((agents / 800).max(4))),
            ..self.clone()
        }
    }
}

impl Walker {
    /// Agent `i`'s walker as [`Crowd::new`] scatters it over an arena of
    /// side `size`: drawn from the seed and `i` alone, so a part of the
    /// crowd (one MPI rank's) can be made without making the rest. Its
    /// body and free speed are drawn from [`Model::PEDESTRIANS`].
    pub fn scattered(seed: u64, size: f32, i: usize) -> Walker {
        let mut own = Dice(mix(seed ^ mix(i as u64 + 1)));
        let pos = own.point(size, 1.0);
        let (radius, max_speed) = Model::PEDESTRIANS.draw([own.roll(), own.roll(), own.roll()]);
        Walker {
            pos,
            vel: Vec2::ZERO,
            radius,
            max_speed,
            goal: Vec2::ZERO,
            hunger: own.roll() * 0.7,
            fatigue: own.roll() * 0.8,
            fear: 0.0,
            known_food: -1,
            known_rest: -1,
            meals: 0,
            naps: 0,
            activity: Activity::Idle,
            intent: Vec2::ZERO,
            neighbours: 0,
            nearest: None,
            rng: (mix(seed ^ (i as u64).rotate_left(17)) as u32) | 1,
        }
    }
}

/// Time spent in the two phases of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepTimes {
    /// The behavior phase: every agent's tree tick.
    pub tree: Duration,
    /// Perception, movement, needs, and the world update.
    pub movement: Duration,
}

/// A running crowd: the world, every agent's data and canopy runtime, and
/// the one tree they all share.
pub struct Crowd {
    /// The shared world.
    pub world: World,
    /// Every agent's own data.
    pub walkers: Vec<Walker>,
    pub(crate) agents: Vec<Agent>,
    tree: Tree<Walker, World>,
    /// Perception and movement buffers.
    motion: Motion,
    /// `trails[k * agents..][..agents]` holds everyone's position at sample
    /// `k` of a ring of `trail_len` samples: one sample is one contiguous copy.
    trails: Vec<Vec2>,
    trail_len: usize,
    trail_every: u32,
    trail_samples: usize,
    /// What it was made with, its defaults resolved: what a save records.
    pub(crate) config: Config,
    /// Level of detail, when on.
    lod: Option<CrowdLod>,
    /// With level of detail, which agents are steered this step (not 0).
    steered: Vec<u32>,
    /// Whether some walkers have not perceived where everyone is now: with
    /// level of detail only the agents due perceive, at the start of the
    /// step (see [`Motion::sense_due`]).
    perception_stale: bool,
}

impl std::fmt::Debug for Crowd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crowd")
            .field("agents", &self.agents.len())
            .field("step", &self.world.step)
            .finish_non_exhaustive()
    }
}

impl Crowd {
    /// Scatter `config.agents` agents over a fresh world; all run `tree`.
    ///
    /// # Panics
    /// If the crowd's memory cannot be had; [`Crowd::try_new`] says so
    /// instead.
    pub fn new(tree: Tree<Walker, World>, config: &Config) -> Crowd {
        Crowd::try_new(tree, config).expect("memory for the crowd")
    }

    /// [`Crowd::new`], or the error if the memory of its lists (walkers,
    /// agents, trails, the neighbour grid) cannot be had: a crowd too large
    /// for the machine is an error, not an abort.
    pub fn try_new(tree: Tree<Walker, World>, config: &Config) -> Result<Crowd, TryReserveError> {
        let resolved = config.resolved();
        let size = resolved.size.unwrap_or_default();
        let mut dice = Dice(mix(config.seed));
        let food_count = resolved.food.unwrap_or_default();
        let rest_count = resolved.rest.unwrap_or_default();
        let food = collect_exact(
            food_count,
            (0..food_count).map(|_| dice.point(size, size * 0.08)),
        )?;
        let rest = collect_exact(
            rest_count,
            (0..rest_count).map(|_| dice.point(size, size * 0.08)),
        )?;
        // Threats start spread around the middle, each heading off sideways
        // at its own speed, so they sweep different parts of the arena.
        let threats = (0..config.threats)
            .map(|k| {
                let angle =
                    (k as f32 + dice.roll() * 0.5) * std::f32::consts::TAU / config.threats as f32;
                let centre = Vec2::splat(size / 2.0);
                Threat {
                    pos: centre + Vec2::from_angle(angle) * size * 0.3,
                    vel: Vec2::from_angle(angle + 1.2 + dice.roll()) * (1.0 + dice.roll() * 0.6),
                    radius: 6.0 + size * 0.04,
                }
            })
            .collect();
        let social_radius = 3.0;
        let mut world = World {
            size,
            dt: config.dt,
            step: 0,
            food: World::food_patches(food, size),
            rest: World::rest_areas(rest, size),
            threats,
            social_radius,
            walls: Vec::new(),
            grid: Grid::try_new(size, social_radius)?,
        };
        let scattered = collect_exact(
            config.agents,
            (0..config.agents).map(|i| Walker::scattered(config.seed, size, i)),
        )?;
        // Number the agents in the grid's order, so that agents near in
        // space start near in memory: the movement phase works in grid order
        // and reaches each agent's data through its index.
        world.grid.rebuild(&scattered);
        let mut walkers = collect_exact(
            config.agents,
            (world.grid.agents().iter()).map(|&i| scattered[i as usize].clone()),
        )?;
        drop(scattered);
        world.grid.rebuild(&walkers);
        let mut motion = Motion::default();
        motion.sense(&mut walkers, &world);
        let agents = collect_exact(
            config.agents,
            (0..config.agents as u32).map(|i| {
                let mut agent = Agent::with_id(&tree, i);
                agent.set_mode(&tree, config.mode);
                agent
            }),
        )?;
        let trail_len = config.trail.max(1);
        let trails = collect_exact(
            trail_len.saturating_mul(walkers.len()),
            (0..trail_len).flat_map(|_| walkers.iter().map(|w| w.pos)),
        )?;
        Ok(Crowd {
            world,
            walkers,
            agents,
            tree,
            motion,
            trails,
            trail_len,
            trail_every: config.trail_every.max(1),
            trail_samples: 0,
            config: resolved,
            lod: None,
            steered: Vec::new(),
            perception_stale: false,
        })
    }

    /// Go on from saved walkers and agents: what each step derives from
    /// positions (the grid, each walker's perception) is derived again, the
    /// trails start afresh.
    pub(crate) fn resume(&mut self, walkers: Vec<Walker>, agents: Vec<Agent>) {
        self.walkers = walkers;
        self.agents = agents;
        self.world.grid.rebuild(&self.walkers);
        self.world.count_visitors(&self.walkers);
        self.motion.sense(&mut self.walkers, &self.world);
        self.perception_stale = false;
        let n = self.walkers.len();
        for (k, t) in self.trails.iter_mut().enumerate() {
            *t = self.walkers[k % n].pos;
        }
        self.trail_samples = 0;
    }

    /// What the crowd was made with (or loaded with), its defaults resolved.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The tree every agent runs.
    pub fn tree(&self) -> &Tree<Walker, World> {
        &self.tree
    }

    /// Agent `i`'s canopy runtime, to look inside (`Agent::running`).
    ///
    /// # Panics
    /// If there is no agent `i`.
    pub fn agent(&self, i: usize) -> &Agent {
        &self.agents[i]
    }

    /// Level of detail on or off. On, agents are ticked by distance to a
    /// focus point circling the arena: near ones every step, farther ones
    /// every 2nd, 4th or 8th step, and their trees count the steps they
    /// missed ([`Agent::tick_elapsed`]); an agent is steered when it is
    /// ticked and otherwise keeps the velocity it last chose
    /// ([`Motion::move_walkers_due`]). Off, every agent is ticked and
    /// steered every step. An error
    /// only for an arena whose side is not a positive number.
    pub fn set_lod(&mut self, on: bool) -> Result<(), LodError> {
        self.lod = if on {
            Some(CrowdLod::new(self.world.size, self.agents.len())?)
        } else {
            None
        };
        Ok(())
    }

    /// Level of detail's budget mode (when it is on): each step ticks as
    /// many agents as fit in `per_step` at the cost per agent measured on
    /// the steps before — first those at the end of their class's period,
    /// then the others, oldest first — or, with `None`, the class periods
    /// alone.
    pub fn set_lod_budget(&mut self, per_step: Option<Duration>) {
        if let Some(lod) = self.lod.as_mut() {
            // A first guess of the cost per agent; measured from the first
            // step on.
            let guess = Duration::from_nanos(100);
            lod.lod.set_budget(per_step.map(|b| (b, guess)));
        }
    }

    /// The level of detail's scheduler (each agent's class, the agents due
    /// this step), when it is on.
    pub fn lod(&self) -> Option<&Lod> {
        self.lod.as_ref().map(|l| &l.lod)
    }

    /// Where the level of detail's focus is, when it is on.
    pub fn lod_focus(&self) -> Option<Vec2> {
        self.lod.as_ref().map(|l| l.focus)
    }

    /// One full step; returns the time spent in each phase (planning the
    /// level of detail counts as tree time). Runs on the current rayon
    /// pool (wrap in `ThreadPool::install` to choose threads).
    pub fn step(&mut self) -> StepTimes {
        self.step_elapsed_with(|agent, tree, walker, world, elapsed| {
            agent.tick_elapsed(tree, walker, world, elapsed)
        })
    }

    /// [`Crowd::step`] with `tick` ticking each agent's tree in place of
    /// `Agent::tick`: how an inspector observes the agents it watches
    /// (`Agent::tick_observed` for those, `Agent::tick` for the rest).
    /// `tick` must tick the agent it is given once, with the arguments it
    /// is given, or the run is no longer the crowd's. Every agent is
    /// ticked: this turns level of detail off
    /// ([`Crowd::step_elapsed_with`] keeps it).
    pub fn step_with<F>(&mut self, tick: F) -> StepTimes
    where
        F: Fn(&mut Agent, &Tree<Walker, World>, &mut Walker, &World) -> Status + Sync,
    {
        self.lod = None;
        let sensed = self.perceive_if_stale();
        let start = Instant::now();
        self.tick_trees_with(&tick);
        self.finish_step(start.elapsed(), sensed)
    }

    /// [`Crowd::step_with`] keeping level of detail: `tick` ticks each
    /// agent due this step with the world ticks since its last tick (1
    /// with level of detail off), as `Agent::tick_elapsed` takes them —
    /// how an inspector observes a crowd ticked by level of detail. `tick`
    /// must tick the agent it is given once, with the arguments it is
    /// given.
    pub fn step_elapsed_with<F>(&mut self, tick: F) -> StepTimes
    where
        F: Fn(&mut Agent, &Tree<Walker, World>, &mut Walker, &World, u32) -> Status + Sync,
    {
        let Some(lod) = self.lod.as_mut() else {
            let sensed = self.perceive_if_stale();
            let start = Instant::now();
            self.tick_trees_with(&|agent, tree, walker, world| tick(agent, tree, walker, world, 1));
            return self.finish_step(start.elapsed(), sensed);
        };
        let start = Instant::now();
        lod.plan(self.world.step + 1, &self.walkers);
        let planned = start.elapsed();
        // Only the agents due perceive: the others neither decide nor
        // steer this step.
        let sensing = Instant::now();
        let elapsed = lod.lod.elapsed();
        // Steered: the agents due, and those in a crowd.
        // In parallel: one thread reading a million walkers in turn cost
        // more than the perception of the few steered.
        self.steered
            .resize(elapsed.len().min(self.walkers.len()), 0);
        (self.steered.par_iter_mut())
            .zip(elapsed)
            .zip(&self.walkers)
            .for_each(|((s, &e), w)| *s = u32::from(e > 0 || w.neighbours >= STEER_IN_A_CROWD));
        self.motion
            .sense_due(&mut self.walkers, &self.world, &self.steered);
        let sensed = sensing.elapsed();
        let ticking = Instant::now();
        let (tree, world) = (&self.tree, &self.world);
        self.agents
            .par_iter_mut()
            .zip(self.walkers.par_iter_mut())
            .zip(elapsed)
            .filter(|(_, e)| **e > 0)
            .for_each(|((agent, walker), &e)| {
                walker.intent = Vec2::ZERO;
                tick(agent, tree, walker, world, e);
            });
        // Planning counts as tree time: budget mode measures it.
        let ticked = planned + ticking.elapsed();
        lod.lod.report(ticked);
        self.finish_step(ticked, sensed)
    }

    /// Perceive everyone if some walkers have not perceived where everyone
    /// is now (level of detail was on); how long that took.
    fn perceive_if_stale(&mut self) -> Duration {
        let start = Instant::now();
        if std::mem::take(&mut self.perception_stale) {
            self.motion.sense(&mut self.walkers, &self.world);
        }
        start.elapsed()
    }

    /// Movement and the world's update, after the trees ticked (in
    /// `tree`; perception before them took `sensed`).
    fn finish_step(&mut self, tree: Duration, sensed: Duration) -> StepTimes {
        let moving = Instant::now();
        match &self.lod {
            // Steered as often as decided: see `Motion::move_walkers_due`.
            Some(_) => {
                self.motion
                    .move_walkers_due(&mut self.walkers, &self.world, &self.steered);
            }
            None => self.motion.move_walkers(&mut self.walkers, &self.world),
        }
        self.world.advance();
        self.world.grid.rebuild(&self.walkers);
        self.world.count_visitors(&self.walkers);
        // With level of detail, the agents due next step perceive when
        // the step's plan is made.
        self.perception_stale = self.lod.is_some();
        if !self.perception_stale {
            self.motion.sense(&mut self.walkers, &self.world);
        }
        self.sample_trails();
        StepTimes {
            tree,
            movement: sensed + moving.elapsed(),
        }
    }

    /// Move every agent onto `new`, an edited version of the tree, while
    /// the crowd runs (hot reload, see [`Agent::reload`]): each running
    /// task whose node is still there keeps its state, the rest are aborted.
    /// Returns how many running tasks were kept and how many aborted, over
    /// the whole crowd.
    pub fn reload(&mut self, new: Tree<Walker, World>) -> (usize, usize) {
        let (old, world) = (&self.tree, &self.world);
        let (kept, aborted) = self
            .agents
            .par_iter_mut()
            .zip(self.walkers.par_iter_mut())
            .map(|(agent, walker)| {
                let moved = agent.reload(old, &new, walker, world);
                (moved.kept.len(), moved.aborted.len())
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        self.tree = new;
        (kept, aborted)
    }

    /// The behavior phase alone: every agent's tree ticks once, in parallel.
    pub fn tick_trees(&mut self) {
        self.perceive_if_stale();
        self.tick_trees_with(&|agent, tree, walker, world| agent.tick(tree, walker, world));
    }

    fn tick_trees_with<F>(&mut self, tick: &F)
    where
        F: Fn(&mut Agent, &Tree<Walker, World>, &mut Walker, &World) -> Status + Sync,
    {
        let (tree, world) = (&self.tree, &self.world);
        self.agents
            .par_iter_mut()
            .zip(self.walkers.par_iter_mut())
            .for_each(|(agent, walker)| {
                walker.intent = Vec2::ZERO;
                tick(agent, tree, walker, world);
            });
    }

    fn sample_trails(&mut self) {
        if !self.world.step.is_multiple_of(self.trail_every) {
            return;
        }
        let n = self.walkers.len();
        let slot = self.trail_samples % self.trail_len;
        self.trails[slot * n..(slot + 1) * n]
            .par_iter_mut()
            .zip(&self.walkers)
            .for_each(|(t, w)| *t = w.pos);
        self.trail_samples += 1;
    }

    /// Agent `i`'s recent positions, oldest first.
    pub fn trail(&self, i: usize) -> impl Iterator<Item = Vec2> + '_ {
        let (len, n) = (self.trail_len, self.walkers.len());
        let filled = self.trail_samples.min(len);
        let first = if self.trail_samples >= len {
            self.trail_samples % len
        } else {
            0
        };
        (0..filled).map(move |k| self.trails[(first + k) % len * n + i])
    }

    /// Meals finished so far, by every agent together.
    pub fn meals(&self) -> u64 {
        self.walkers.iter().map(|w| u64::from(w.meals)).sum()
    }

    /// Naps finished so far, by every agent together.
    pub fn naps(&self) -> u64 {
        self.walkers.iter().map(|w| u64::from(w.naps)).sum()
    }

    /// How many agents are doing each activity.
    pub fn activity_counts(&self) -> Vec<(Activity, usize)> {
        let mut counts = [0usize; 6];
        for w in &self.walkers {
            counts[w.activity as usize] += 1;
        }
        let mut out: Vec<_> = Activity::ALL
            .iter()
            .map(|&a| (a, counts[a as usize]))
            .collect();
        out.retain(|&(a, n)| n > 0 || a != Activity::Idle);
        out
    }

    /// Heap plus inline bytes the behavior state takes per agent: the
    /// `Agent` value and its task memory (the walkers' own data excluded).
    pub fn behavior_bytes_per_agent(&self) -> f64 {
        let heap: usize = self.agents.iter().map(|a| a.heap_bytes()).sum();
        size_of::<Agent>() as f64 + heap as f64 / self.agents.len().max(1) as f64
    }

    /// A fingerprint of the whole state (agents and world), bit for bit:
    /// FNV-1a over every number, stable across runs, platforms and thread counts.
    pub fn state_hash(&self) -> u64 {
        state_hash_of(
            self.world.step,
            &self.world.threats,
            &self.walkers,
            self.agents
                .iter()
                .map(|a| a.active_tasks(&self.tree) as u32),
        )
    }

    /// Take the crowd apart: its world, walkers, agents and tree, for a
    /// program that steps a part of a crowd itself (with [`Motion`]), as a
    /// crowd sharded over processes does. Agent `i` runs walker `i`.
    pub fn into_parts(self) -> (World, Vec<Walker>, Vec<Agent>, Tree<Walker, World>) {
        (self.world, self.walkers, self.agents, self.tree)
    }
}

/// [`Crowd::state_hash`] of a crowd at `step` with these `threats`, these
/// walkers (in agent order) and these counts of active tasks (one per
/// agent, in the same order): how a crowd kept in pieces computes the hash
/// the whole crowd would have.
pub fn state_hash_of<'a>(
    step: u32,
    threats: &[Threat],
    walkers: impl IntoIterator<Item = &'a Walker>,
    active_tasks: impl IntoIterator<Item = u32>,
) -> u64 {
    let mut h = Fnv::default();
    h.u32(step);
    for t in threats {
        h.vec(t.pos);
        h.vec(t.vel);
    }
    for w in walkers {
        h.vec(w.pos);
        h.vec(w.vel);
        h.vec(w.goal);
        h.f32(w.hunger);
        h.f32(w.fatigue);
        h.f32(w.fear);
        h.u32(w.known_food as u32);
        h.u32(w.known_rest as u32);
        h.u32(w.meals);
        h.u32(w.naps);
        h.u32(w.activity as u32);
        h.u32(w.rng);
    }
    for active in active_tasks {
        h.u32(active);
    }
    h.0
}

#[derive(Clone, Copy)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn u32(&mut self, x: u32) {
        for b in x.to_le_bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn f32(&mut self, x: f32) {
        self.u32(x.to_bits());
    }
    fn vec(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }
}
