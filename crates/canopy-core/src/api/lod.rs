//! Level of detail for a crowd: which agents to tick on each frame, and how
//! many world ticks passed since each one's last tick.
//!
//! Crowd games do not tick every agent every frame: agents far from the
//! camera or the player are ticked every 2nd, 4th, 30th frame. A [`Lod`]
//! keeps, per agent, a *rate class* — a band of a distance the game
//! computes, and a period in frames — and plans each frame: the agents due
//! now and, for each, the world ticks since its last tick, which
//! [`Agent::tick_elapsed`](crate::Agent::tick_elapsed) takes so that every
//! timer of its tree still counts world ticks.
//!
//! - Classes are assigned from the game's distance ([`Lod::assign`]) with
//!   hysteresis: an agent leaves its band only once it is past the band's
//!   edge by a margin, so agents near an edge do not flip every frame.
//!   A class may have a cap: the farthest agents over it go to the next
//!   class (agents already in the class count as nearer by the margin).
//! - Phases are spread: the agents entering a class of period `p` are
//!   dealt out over the next `p` frames in turn, so each frame ticks about
//!   the same number of agents. An agent that changes class is never left
//!   longer than its new period since its last tick.
//! - Budget mode ([`Lod::set_budget`]): each frame ticks as many agents as
//!   the budget's time fits, at the cost per agent measured on earlier
//!   frames ([`Lod::report`]): first every agent at the end of its period
//!   (so none waits longer than its class period, whatever the budget),
//!   then the others, oldest first.
//!
//! The plan is data — the due agents' indices in order ([`Lod::due`]) and
//! a per-agent slice of elapsed world ticks, 0 for agents not due
//! ([`Lod::elapsed`]) — and the game ticks its agents itself: in a loop,
//! or zipped with rayon's `par_iter_mut`, in tick or event mode. Nothing
//! is allocated after [`Lod::new`]: planning a frame and assigning classes
//! reuse the scheduler's own buffers.
//!
//! It lives in the engine crate rather than with the crowd demo because it
//! needs nothing of a crowd but agent indices and a distance: any game's
//! own crowd uses it. Considered and rejected: ticking the agents from
//! inside the scheduler through a callback (it would have to own or borrow
//! the tree, the agents and their data, and could not hand a parallel
//! iterator to the game), a priority queue of deadlines (a heap update per
//! ticked agent costs more than one pass over a few bytes per agent), and
//! sorting by age in budget mode (a count per age finds the oldest in two
//! passes with no sort).

use std::fmt;
use std::time::Duration;

use crate::util::primitives::reached;

/// The longest period a rate class may have, in frames: 2¹⁶.
pub const MAX_PERIOD: u32 = 1 << 16;

/// The most one frame's measured cost moves budget mode's cost per agent:
/// 5% (see [`Lod::report`]).
pub const COST_STEP: f64 = 0.05;

/// The most rate classes a [`Lod`] may have.
pub const MAX_CLASSES: usize = 64;

/// One rate class: agents whose distance is below `below` (and not in a
/// nearer class) are ticked every `period` frames; at most `cap` of them,
/// if given. The last class takes every agent farther out, whatever its
/// `below`, and has no cap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateClass {
    /// The band's far edge (exclusive), in the game's distance units.
    pub below: f32,
    /// Frames between two ticks of an agent of this class (1: every frame).
    pub period: u32,
    /// The most agents this class holds; the farthest over it go to the
    /// next class.
    pub cap: Option<u32>,
}

impl RateClass {
    /// A class of agents below `below`, ticked every `period` frames, with
    /// no cap.
    pub fn new(below: f32, period: u32) -> RateClass {
        RateClass {
            below,
            period,
            cap: None,
        }
    }

    /// This class with at most `cap` agents.
    pub fn capped(self, cap: u32) -> RateClass {
        RateClass {
            cap: Some(cap),
            ..self
        }
    }
}

/// Why a [`Lod`] cannot be made from its classes.
#[derive(Clone, Debug, PartialEq)]
pub enum LodError {
    /// No class, or more than [`MAX_CLASSES`].
    ClassCount(usize),
    /// A class's period is 0 or longer than [`MAX_PERIOD`].
    Period {
        /// The class, counted from 0.
        class: usize,
        /// Its period.
        period: u32,
    },
    /// A class's band edge is not a number, or not farther out than the
    /// class before's.
    Band {
        /// The class, counted from 0.
        class: usize,
        /// Its band edge.
        below: f32,
    },
    /// The last class has a cap: there is no farther class for its overflow.
    CapOnLastClass,
    /// The hysteresis margin is negative or not finite.
    Hysteresis(f32),
}

impl fmt::Display for LodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LodError::ClassCount(n) => {
                write!(
                    f,
                    "a level of detail needs 1 to {MAX_CLASSES} rate classes, got {n}"
                )
            }
            LodError::Period { class, period } => write!(
                f,
                "rate class {class} has a period of {period} frames; periods are 1 to {MAX_PERIOD}"
            ),
            LodError::Band { class, below } => write!(
                f,
                "rate class {class}'s band ends below {below}, which is not a number \
                 or not farther out than the class before's"
            ),
            LodError::CapOnLastClass => write!(
                f,
                "the last rate class has a cap, but there is no farther class for its overflow"
            ),
            LodError::Hysteresis(h) => {
                write!(f, "the hysteresis margin must be a distance ≥ 0, got {h}")
            }
        }
    }
}

impl std::error::Error for LodError {}

/// Budget mode: tick as many agents as fit in `per_frame`.
#[derive(Clone, Copy, Debug)]
struct Budget {
    per_frame: Duration,
    /// The measured cost of one agent's tick, in nanoseconds.
    cost_ns: f64,
}

/// A crowd's level of detail: per agent a rate class and when it is due;
/// each frame, the agents to tick and the world ticks since each one's
/// last tick, for [`Agent::tick_elapsed`](crate::Agent::tick_elapsed).
///
/// - Classes come from the game's distance ([`assign`](Lod::assign)),
///   with hysteresis: an agent leaves its band only once it is past the
///   band's edge by the margin. A class may have a cap: the farthest agents
///   over it go to the next class, and agents already in the class count
///   as nearer by the margin.
/// - Phases are spread: the agents entering a class of period `p` are dealt
///   out over the next `p` frames in turn, so each frame ticks about the
///   same number. An agent that changes class is ticked no later than its
///   new period after its last tick (or on the next frame, if that is past).
/// - Budget mode ([`set_budget`](Lod::set_budget)): each frame ticks as many
///   agents as fit in the budget at the cost per agent measured on earlier
///   frames ([`report`](Lod::report)): every agent at the end of its period
///   first (so none waits longer than its class period, whatever the
///   budget), then the others, oldest first.
///
/// The plan is data: [`due`](Lod::due) in a loop, or [`elapsed`](Lod::elapsed)
/// zipped with the agents in a parallel iterator. Nothing is allocated
/// after [`new`](Lod::new).
///
/// ```
/// use canopy_core::{Agent, Builder, Lod, Status, lod::RateClass};
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.wait("nap", 8)).unwrap();
/// let mut agents: Vec<Agent> = (0..4).map(|i| Agent::with_id(&tree, i)).collect();
/// // Near agents every frame, far ones every 4th.
/// let mut lod = Lod::new(&[RateClass::new(10.0, 1), RateClass::new(f32::INFINITY, 4)], 0.0, 4).unwrap();
/// let distance = [1.0, 50.0, 50.0, 2.0];
/// lod.assign(|i| distance[i]);
/// let mut ticked = 0;
/// for _ in 0..8 {
///     lod.next_frame();
///     for &i in lod.due() {
///         let i = i as usize;
///         agents[i].tick_elapsed(&tree, &mut (), &(), lod.elapsed()[i]);
///         ticked += 1;
///     }
/// }
/// assert_eq!(ticked, 2 * 8 + 2 * 2);
/// // Every agent's clock is the world tick of its last tick.
/// assert_eq!(agents.iter().map(|a| a.ticks()).collect::<Vec<_>>(), [8, 6, 7, 8]);
/// ```
#[derive(Clone)]
pub struct Lod {
    classes: Box<[RateClass]>,
    hysteresis: f32,
    /// Per agent: its class, the class the last assignment wants, the
    /// frame of its last tick, the frame it is due at, its distance.
    class: Vec<u8>,
    want: Vec<u8>,
    last: Vec<u32>,
    next: Vec<u32>,
    distance: Vec<f32>,
    /// Per agent: world ticks since its last tick if due this frame, else 0.
    elapsed: Vec<u32>,
    /// The agents due this frame, in index order.
    due: Vec<u32>,
    /// Per class: its agents, and the turn that deals out phases.
    counts: Vec<u32>,
    turn: Vec<u32>,
    /// Caps: the agents of one class with their distances.
    scratch: Vec<(f32, u32)>,
    /// Budget mode: agents not due, per age in frames.
    ages: Vec<u32>,
    now: u32,
    placed: bool,
    budget: Option<Budget>,
    /// Phases by runs of this many neighbouring indices (0: dealt out
    /// agent by agent); see [`Lod::set_phase_runs`].
    run: u32,
}

impl fmt::Debug for Lod {
    /// A summary: the per-agent lists of a crowd would be pages long.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lod")
            .field("agents", &self.agents())
            .field("classes", &self.classes)
            .field("counts", &self.counts)
            .field("frame", &self.now)
            .field("due", &self.due.len())
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl Lod {
    /// A scheduler for `agents` agents over `classes`, nearest first, with
    /// a hysteresis margin in the same units as the distances. Until the
    /// first [`assign`](Lod::assign) every agent is in the last class, its
    /// first ticks spread over that class's period. Allocates every buffer
    /// it will use.
    pub fn new(classes: &[RateClass], hysteresis: f32, agents: usize) -> Result<Lod, LodError> {
        check(classes, hysteresis)?;
        let max_period = classes.iter().map(|c| c.period).max().unwrap_or(1);
        let far = (classes.len() - 1) as u8;
        let mut lod = Lod {
            classes: classes.into(),
            hysteresis,
            class: vec![far; agents],
            want: vec![far; agents],
            last: vec![0; agents],
            next: vec![0; agents],
            distance: vec![f32::INFINITY; agents],
            elapsed: vec![0; agents],
            due: Vec::with_capacity(agents),
            counts: vec![0; classes.len()],
            turn: vec![0; classes.len()],
            scratch: Vec::with_capacity(agents),
            ages: vec![0; max_period as usize + 1],
            now: 0,
            placed: false,
            budget: None,
            run: 0,
        };
        lod.counts[far as usize] = agents as u32;
        for i in 0..agents {
            lod.next[i] = lod.first_due(i, far, 0);
        }
        Ok(lod)
    }

    /// How many agents this scheduler plans for.
    pub fn agents(&self) -> usize {
        self.class.len()
    }

    /// The rate classes, nearest first.
    pub fn classes(&self) -> &[RateClass] {
        &self.classes
    }

    /// Agent `i`'s class (an index into [`classes`](Lod::classes)).
    ///
    /// # Panics
    /// If `i` is not below [`agents`](Lod::agents).
    pub fn class_of(&self, i: usize) -> usize {
        self.class[i] as usize
    }

    /// How many agents each class holds.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// The current frame: 0 before the first [`next_frame`](Lod::next_frame),
    /// then 1, 2, … (the world tick, for agents created at frame 0).
    pub fn frame(&self) -> u32 {
        self.now
    }

    /// The agents due this frame, by index, in order.
    pub fn due(&self) -> &[u32] {
        &self.due
    }

    /// Per agent, the world ticks since its last tick if it is due this
    /// frame, else 0: what to pass to
    /// [`Agent::tick_elapsed`](crate::Agent::tick_elapsed), and, zipped
    /// with the agents, a parallel iterator's filter.
    pub fn elapsed(&self) -> &[u32] {
        &self.elapsed
    }

    /// Put every agent in a class by `distance(i)`, with hysteresis and
    /// caps (see [`Lod`]). A distance that is not a number
    /// counts as farthest. Agents that change class get a phase in their
    /// new class, no later than their new period after their last tick.
    pub fn assign(&mut self, mut distance: impl FnMut(usize) -> f32) {
        let bands = Bands {
            classes: &self.classes,
            hysteresis: self.placed.then_some(self.hysteresis),
        };
        let rows = (self.distance.iter_mut())
            .zip(&mut self.want)
            .zip(&self.class);
        for (i, ((kept, want), &class)) in rows.enumerate() {
            let d = distance(i);
            let d = if d.is_nan() { f32::INFINITY } else { d };
            *kept = d;
            *want = bands.wanted(class, d);
        }
        self.placed = true;
        self.counts.fill(0);
        for &c in &self.want {
            self.counts[c as usize] += 1;
        }
        for c in 0..self.classes.len() - 1 {
            self.apply_cap(c);
        }
        for i in 0..self.agents() {
            if self.want[i] != self.class[i] {
                self.move_to(i, self.want[i]);
            }
        }
    }

    /// Phases by runs of `run` neighbouring agents from now on: in a class
    /// of period `p`, agent `i` is due on the frames `f` with
    /// `f mod p = (i / run) mod p`, so the agents due on one frame come in
    /// runs of `run` consecutive indices. A game that numbers its agents
    /// by place (neighbours in space near in memory, as a crowd sorted by
    /// grid cell is) then ticks the due agents in memory order, a run at a
    /// time, instead of one agent in every `p`: the processor fetches
    /// whole runs of their data ahead, and a ticked agent costs about what
    /// it costs when every agent is ticked. The frames stay even as long
    /// as a class holds many runs. 0 or 1 deals phases out agent by agent
    /// as agents enter a class (the default). Every agent's next tick is
    /// dealt again, no later than its class period after its last tick.
    pub fn set_phase_runs(&mut self, run: u32) {
        self.run = run;
        for i in 0..self.agents() {
            self.move_to(i, self.class[i]);
        }
    }

    /// Budget mode from now on: each frame ticks as many agents as fit in
    /// `per_frame`, at `first_guess` per agent until [`report`](Lod::report)
    /// has measured the cost; `None` for the class periods alone.
    pub fn set_budget(&mut self, budget: Option<(Duration, Duration)>) {
        self.budget = budget.map(|(per_frame, first_guess)| Budget {
            per_frame,
            cost_ns: first_guess.as_nanos() as f64,
        });
    }

    /// How long ticking this frame's due agents took: budget mode's
    /// measure of the cost per agent. Each frame moves the measure towards
    /// its own cost per agent by at most [`COST_STEP`], so it follows the
    /// median cost rather than the mean: a frame slowed down by something
    /// else (a thread descheduled) moves it little, and the median frame
    /// keeps to the budget.
    pub fn report(&mut self, took: Duration) {
        let (Some(budget), n) = (self.budget.as_mut(), self.due.len()) else {
            return;
        };
        if n > 0 {
            let cost = took.as_nanos() as f64 / n as f64;
            let ratio = cost / budget.cost_ns.max(1.0);
            budget.cost_ns *= ratio.clamp(1.0 / (1.0 + COST_STEP), 1.0 + COST_STEP);
        }
    }

    /// Budget mode's measured cost of one agent's tick.
    pub fn cost_per_agent(&self) -> Option<Duration> {
        self.budget
            .map(|b| Duration::from_nanos(b.cost_ns.max(0.0) as u64))
    }

    /// Go to the next frame and plan it: [`due`](Lod::due) and
    /// [`elapsed`](Lod::elapsed) say whom to tick.
    pub fn next_frame(&mut self) {
        for &i in &self.due {
            self.elapsed[i as usize] = 0;
        }
        self.due.clear();
        self.now = self.now.wrapping_add(1);
        let extra = self.extra_agents();
        if extra == 0 {
            // One pass over the per-agent rows side by side, no index
            // checks: a frame visits every agent, and a quarter of a
            // million are due in a big crowd.
            let (now, run, classes, due) = (self.now, self.run, &self.classes, &mut self.due);
            let rows = (self.elapsed.iter_mut())
                .zip(&mut self.last)
                .zip(&mut self.next)
                .zip(&self.class);
            for (i, (((elapsed, last), next), &class)) in rows.enumerate() {
                if reached(now, *next) {
                    *elapsed = now.wrapping_sub(*last);
                    *last = now;
                    *next = after_tick(i, run, classes[class as usize].period, now);
                    due.push(i as u32);
                }
            }
            return;
        }
        let (oldest, at_oldest) = self.oldest(extra);
        // Of the agents of the youngest age taken, the first in order.
        let mut room = at_oldest;
        for i in 0..self.agents() {
            let age = self.now.wrapping_sub(self.last[i]);
            let mut take = reached(self.now, self.next[i]) || age > oldest;
            if !take && age == oldest && room > 0 {
                room -= 1;
                take = true;
            }
            if take {
                self.tick_now(i);
            }
        }
    }

    /// Send the farthest agents over class `c`'s cap to class `c + 1`.
    /// Agents already in `c` count as nearer by the margin.
    fn apply_cap(&mut self, c: usize) {
        let Some(cap) = self.classes[c].cap else {
            return;
        };
        if self.counts[c] <= cap {
            return;
        }
        self.scratch.clear();
        for i in 0..self.agents() {
            if self.want[i] as usize == c {
                let bonus = if self.class[i] as usize == c {
                    self.hysteresis
                } else {
                    0.0
                };
                self.scratch.push((self.distance[i] - bonus, i as u32));
            }
        }
        let by_distance = |a: &(f32, u32), b: &(f32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        self.scratch
            .select_nth_unstable_by(cap as usize, by_distance);
        for &(_, i) in &self.scratch[cap as usize..] {
            self.want[i as usize] = c as u8 + 1;
        }
        let over = self.counts[c] - cap;
        self.counts[c] = cap;
        self.counts[c + 1] += over;
    }

    /// Agent `i` goes to class `c`: its next tick is its turn in the new
    /// class, but no later than a period after its last tick.
    fn move_to(&mut self, i: usize, c: u8) {
        self.class[i] = c;
        let spread = self.first_due(i, c, self.now);
        let deadline = self.last[i].wrapping_add(self.classes[c as usize].period);
        let deadline = if reached(self.now, deadline) {
            self.now.wrapping_add(1)
        } else {
            deadline
        };
        self.next[i] = if reached(spread, deadline) {
            deadline
        } else {
            spread
        };
    }

    /// The frame after `now` at which agent `i`, entering class `c`, is
    /// first due: the class's turns go round its period, or with phase
    /// runs, the frame of its run's phase.
    fn first_due(&mut self, i: usize, c: u8, now: u32) -> u32 {
        let period = self.classes[c as usize].period;
        if self.run > 1 {
            let first = now.wrapping_add(1);
            return first.wrapping_add(phase_wait(i, self.run, period, first));
        }
        let turn = self.turn[c as usize];
        self.turn[c as usize] = (turn + 1) % period;
        now.wrapping_add(1 + turn)
    }

    /// Tick agent `i` this frame.
    fn tick_now(&mut self, i: usize) {
        self.elapsed[i] = self.now.wrapping_sub(self.last[i]);
        self.last[i] = self.now;
        let class = self.class[i];
        let period = self.classes[class as usize].period;
        self.next[i] = after_tick(i, self.run, period, self.now);
        self.due.push(i as u32);
    }

    /// Budget mode: how many agents to tick beyond those due.
    fn extra_agents(&mut self) -> usize {
        let Some(budget) = self.budget else {
            return 0;
        };
        let fit = budget.per_frame.as_nanos() as f64 / budget.cost_ns.max(1.0);
        let fit = fit.min(self.agents() as f64) as usize;
        let mut due = 0;
        let oldest = self.ages.len() - 1;
        self.ages.fill(0);
        for i in 0..self.agents() {
            if reached(self.now, self.next[i]) {
                due += 1;
            } else {
                let age = self.now.wrapping_sub(self.last[i]) as usize;
                self.ages[age.min(oldest)] += 1;
            }
        }
        fit.saturating_sub(due)
    }

    /// The youngest age (in frames) among the `extra` oldest agents not
    /// due, and how many of that age to take (the rest are older).
    fn oldest(&self, extra: usize) -> (u32, usize) {
        let mut left = extra;
        for age in (1..self.ages.len()).rev() {
            let n = self.ages[age] as usize;
            if n >= left {
                return (age as u32, left);
            }
            left -= n;
        }
        (0, 0)
    }
}

/// The classes' bands, as an assignment reads them.
struct Bands<'a> {
    classes: &'a [RateClass],
    /// The hysteresis margin, once agents have been placed (the first
    /// assignment places them by their bands alone).
    hysteresis: Option<f32>,
}

impl Bands<'_> {
    /// The class an agent of class `now_in` at `distance` goes to: the
    /// band edges move out by the margin for leaving outwards and in by it
    /// for coming inwards.
    #[inline]
    fn wanted(&self, now_in: u8, distance: f32) -> u8 {
        let Some(margin) = self.hysteresis else {
            return self.band(distance);
        };
        let out = self.band(distance - margin);
        let inward = self.band(distance + margin);
        if out > now_in {
            out
        } else if inward < now_in {
            inward
        } else {
            now_in
        }
    }

    /// The class whose band holds `distance`.
    #[inline]
    fn band(&self, distance: f32) -> u8 {
        let last = self.classes.len() - 1;
        self.classes[..last]
            .iter()
            .position(|c| distance < c.below)
            .unwrap_or(last) as u8
    }
}

/// The frame agent `i`, ticked at frame `now` in a class of `period`
/// frames, is next due. With phase runs, back onto its run's phase (a
/// tick at a deadline, or an extra one in budget mode, may have been off
/// it): never later than a period from now.
#[inline]
fn after_tick(i: usize, run: u32, period: u32, now: u32) -> u32 {
    if run > 1 {
        let first = now.wrapping_add(1);
        first.wrapping_add(phase_wait(i, run, period, first))
    } else {
        now.wrapping_add(period)
    }
}

/// With phase runs of `run` agents, the frames from `first` until agent
/// `i`'s phase in a class of `period` frames comes round:
/// `(i / run) mod period` less `first`, modulo `period`.
///
/// Why two ways: this runs for every agent ticked (its next frame) and
/// every agent that changes class, and the general form is four integer
/// divisions, most of a frame's planning when a quarter of a million
/// agents are due. Periods and runs that are powers of two (as games
/// choose them: 2, 4, 8 frames) need only shifts and masks, with the
/// same result.
#[inline]
fn phase_wait(i: usize, run: u32, period: u32, first: u32) -> u32 {
    if run.is_power_of_two() && period.is_power_of_two() {
        let mask = period - 1;
        let phase = (i >> run.trailing_zeros()) as u32 & mask;
        return phase.wrapping_sub(first) & mask;
    }
    let phase = (i / run as usize % period as usize) as u32;
    (phase + period - first % period) % period
}

/// What is wrong with `classes` and `hysteresis`, if anything.
fn check(classes: &[RateClass], hysteresis: f32) -> Result<(), LodError> {
    if classes.is_empty() || classes.len() > MAX_CLASSES {
        return Err(LodError::ClassCount(classes.len()));
    }
    for (class, c) in classes.iter().enumerate() {
        if c.period == 0 || c.period > MAX_PERIOD {
            return Err(LodError::Period {
                class,
                period: c.period,
            });
        }
        let last = class == classes.len() - 1;
        if !last && (c.below.is_nan() || (class > 0 && c.below <= classes[class - 1].below)) {
            return Err(LodError::Band {
                class,
                below: c.below,
            });
        }
        if last && c.cap.is_some() {
            return Err(LodError::CapOnLastClass);
        }
    }
    if !hysteresis.is_finite() || hysteresis < 0.0 {
        return Err(LodError::Hysteresis(hysteresis));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::phase_wait;
    use proptest::prelude::*;

    /// What the wait means, counted out: the fewest frames from `first`
    /// to one whose number modulo `period` is the phase of `i`'s run.
    fn counted(i: usize, run: u32, period: u32, first: u32) -> u32 {
        let phase = (i / run as usize) as u64 % u64::from(period);
        (0..period)
            .find(|w| (u64::from(first) + u64::from(*w)) % u64::from(period) == phase)
            .unwrap()
    }

    proptest! {
        #[test]
        fn with_powers_of_two_the_wait_is_the_counted_one(
            i in 0usize..1 << 40,
            run_bits in 1u32..12,
            period_bits in 0u32..13,
            first in any::<u32>(),
        ) {
            let (run, period) = (1 << run_bits, 1 << period_bits);
            prop_assert_eq!(phase_wait(i, run, period, first), counted(i, run, period, first));
        }

        #[test]
        fn with_any_run_and_period_the_wait_is_the_counted_one(
            i in 0usize..1 << 32,
            run in 2u32..1000,
            period in 1u32..4096,
            first in any::<u32>(),
        ) {
            prop_assert_eq!(phase_wait(i, run, period, first), counted(i, run, period, first));
        }
    }
}
