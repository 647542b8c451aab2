//! Utility: a composite that runs the child whose score is best, each
//! score made of considerations read from the agent and world. Rules:
//! [`nodes`](super#utility).
//!
//! The shape follows the utility systems games use (scorers and pickers,
//! considerations through response curves, Dave Mark's Infinite Axis
//! Utility System): each child has a [`Choice`] — a weight and a list of
//! [`Consideration`]s, each a [`Scorer`] (user code returning a number)
//! mapped into `[0, 1]` by a [`Curve`] — combined by [`Combine`]. The
//! scores live in the node, not in the children, so scoring never runs a
//! child: a child is entered only once it has won.
//!
//! Product is the default combination because one consideration at zero
//! must veto the choice (no food in sight: eating scores 0 however hungry
//! the agent is), which an average cannot do; its known flaw, that more
//! considerations drag a score down, is offset by the IAUS compensation
//! factor. Min and max are offered for designers who think in "weakest
//! reason" or "strongest reason". An average was rejected: it lets a
//! strong reason outvote a veto.
//!
//! A switch aborts the running child before the winner is entered (one
//! behavior slot suffices): the scores decide without running anything, so
//! unlike a reactive selector there is no child to try first.
//!
//! Task state: the running child + 1 (2 bytes, 0: none), the tick of the
//! last evaluation (4 bytes), then the last score of each child as an
//! `f32` (4 bytes each), which inspectors show.
//!
//! In event mode a running Utility is woken only when its next scoring is
//! due (a deadline `every` ticks after the last one, as a Timeout's) or
//! when its running child finishes; in between its child's subtree is
//! scheduled on its own. So the scorers run on exactly the ticks they run
//! in tick mode. Updating it every tick with its subtree run from the
//! root, as a reactive node is, was rejected: between scorings it has
//! nothing to check, and that would run every running leaf below it every
//! tick.

use std::fmt;
use std::sync::Arc;

use super::Code;
use crate::ParamEnum;
use crate::def::exec::{Exec, Visit, Wake, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind};
use crate::util::context::Ctx;
use crate::util::hash::{agent_tick, unit};
use crate::util::primitives::Arity;
use crate::util::status::Status;
use crate::util::text::number;

/// User code scoring the agent in its world: any number; a
/// consideration's curve maps it into `[0, 1]`.
pub type ScoreFn<A, W> = Arc<dyn Fn(&Ctx<A, W>) -> f32 + Send + Sync>;

/// A named [`ScoreFn`]: the name is how files and printed trees refer to it.
pub struct Scorer<A, W> {
    /// The name files use as a consideration's input.
    pub name: String,
    /// The code.
    pub score: ScoreFn<A, W>,
}

impl<A, W> Scorer<A, W> {
    /// A scorer named `name` running `score`.
    pub fn new(name: &str, score: impl Fn(&Ctx<A, W>) -> f32 + Send + Sync + 'static) -> Self {
        Scorer {
            name: name.to_string(),
            score: Arc::new(score),
        }
    }
}

impl<A, W> Clone for Scorer<A, W> {
    fn clone(&self) -> Self {
        Scorer {
            name: self.name.clone(),
            score: Arc::clone(&self.score),
        }
    }
}

impl<A, W> fmt::Debug for Scorer<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Scorer").field(&self.name).finish()
    }
}

/// A response curve: how an input becomes a score in `[0, 1]`. Every
/// curve's output is clamped to `[0, 1]`, and a result that is not a
/// number (a NaN input) scores 0.
#[derive(Clone, Debug, PartialEq)]
pub enum Curve {
    /// `slope · x + shift`. `Linear { slope: 1, shift: 0 }` passes an
    /// input that is already in `[0, 1]` through.
    Linear {
        /// Multiplies the input.
        slope: f32,
        /// Added after.
        shift: f32,
    },
    /// `slope · x^exponent + shift` (`x` clamped to `[0, 1]` first, so
    /// any exponent is defined).
    Polynomial {
        /// The power.
        exponent: f32,
        /// Multiplies the power.
        slope: f32,
        /// Added after.
        shift: f32,
    },
    /// `1 / (1 + e^(−steepness · (x − midpoint)))`: an S from 0 to 1,
    /// crossing ½ at `midpoint`.
    Logistic {
        /// How sharp the S is; negative turns it around.
        steepness: f32,
        /// Where it crosses ½.
        midpoint: f32,
    },
    /// The inverse of [`Curve::Logistic`]: `midpoint + ln(x / (1 − x)) /
    /// steepness`, flat in the middle and steep near 0 and 1 (`x` kept
    /// inside `(0, 1)`).
    Logit {
        /// The steepness of the logistic curve it inverts.
        steepness: f32,
        /// Its value at `x = ½`.
        midpoint: f32,
    },
    /// Straight lines between points `(x, y)` given in increasing `x`;
    /// flat before the first and after the last.
    Piecewise(Arc<[(f32, f32)]>),
}

impl Curve {
    /// The identity on `[0, 1]`.
    pub const IDENTITY: Curve = Curve::Linear {
        slope: 1.0,
        shift: 0.0,
    };

    /// The score of input `x`, in `[0, 1]`.
    ///
    /// ```
    /// use canopy_core::nodes::Curve;
    /// let half = Curve::Logistic { steepness: 10.0, midpoint: 0.3 };
    /// assert_eq!(half.map(0.3), 0.5);
    /// assert_eq!(Curve::Linear { slope: -0.1, shift: 1.0 }.map(4.0), 0.6);
    /// assert_eq!(Curve::IDENTITY.map(7.0), 1.0);
    /// ```
    pub fn map(&self, x: f32) -> f32 {
        let y = match self {
            Curve::Linear { slope, shift } => slope * x + shift,
            Curve::Polynomial {
                exponent,
                slope,
                shift,
            } => slope * clamp(x).powf(*exponent) + shift,
            Curve::Logistic {
                steepness,
                midpoint,
            } => 1.0 / (1.0 + (-steepness * (x - midpoint)).exp()),
            Curve::Logit {
                steepness,
                midpoint,
            } => {
                let x = x.clamp(1e-6, 1.0 - 1e-6);
                midpoint + (x / (1.0 - x)).ln() / steepness
            }
            Curve::Piecewise(points) => piecewise(points, x),
        };
        clamp(y)
    }

    /// The curve applied to `input` as files write it: `logistic(hunger,
    /// 10, 0.5)`; the identity is the input's name alone.
    ///
    /// ```
    /// use canopy_core::nodes::Curve;
    /// assert_eq!(Curve::Logistic { steepness: 10.0, midpoint: 0.5 }.spell("hunger"),
    ///     "logistic(hunger, 10, 0.5)");
    /// assert_eq!(Curve::IDENTITY.spell("fear"), "fear");
    /// ```
    pub fn spell(&self, input: &str) -> String {
        let n = |x: &f32| number(f64::from(*x));
        match self {
            c if *c == Curve::IDENTITY => input.to_string(),
            Curve::Linear { slope, shift } => {
                format!("linear({input}, {}, {})", n(slope), n(shift))
            }
            Curve::Polynomial {
                exponent,
                slope,
                shift,
            } => format!(
                "polynomial({input}, {}, {}, {})",
                n(exponent),
                n(slope),
                n(shift)
            ),
            Curve::Logistic {
                steepness,
                midpoint,
            } => format!("logistic({input}, {}, {})", n(steepness), n(midpoint)),
            Curve::Logit {
                steepness,
                midpoint,
            } => format!("logit({input}, {}, {})", n(steepness), n(midpoint)),
            Curve::Piecewise(points) => {
                let mut s = format!("piecewise({input}");
                for (x, y) in points.iter() {
                    s += &format!(", {}, {}", n(x), n(y));
                }
                s + ")"
            }
        }
    }

    /// What is wrong with the curve's numbers, if anything.
    fn problem(&self) -> Option<String> {
        let finite = |xs: &[f32]| xs.iter().all(|x| x.is_finite());
        match self {
            Curve::Linear { slope, shift } if !finite(&[*slope, *shift]) => {
                Some("a linear curve's numbers must be finite".to_string())
            }
            Curve::Polynomial {
                exponent,
                slope,
                shift,
            } if !finite(&[*exponent, *slope, *shift]) || *exponent < 0.0 => {
                Some("a polynomial's numbers must be finite, its exponent ≥ 0".to_string())
            }
            Curve::Logistic {
                steepness,
                midpoint,
            }
            | Curve::Logit {
                steepness,
                midpoint,
            } if !finite(&[*steepness, *midpoint]) || *steepness == 0.0 => {
                Some("a logistic or logit curve needs a finite, non-zero steepness".to_string())
            }
            Curve::Piecewise(points)
                if points.is_empty()
                    || !points.iter().all(|(x, y)| finite(&[*x, *y]))
                    || points.windows(2).any(|w| w[1].0 <= w[0].0) =>
            {
                Some("a piecewise curve needs finite points in increasing x".to_string())
            }
            _ => None,
        }
    }
}

/// `x` in `[0, 1]`; NaN is 0.
fn clamp(x: f32) -> f32 {
    if x >= 0.0 { x.min(1.0) } else { 0.0 }
}

fn piecewise(points: &[(f32, f32)], x: f32) -> f32 {
    let Some(at) = points.iter().position(|&(px, _)| x < px) else {
        return points.last().map_or(0.0, |p| p.1);
    };
    if at == 0 {
        return points[0].1;
    }
    let ((x0, y0), (x1, y1)) = (points[at - 1], points[at]);
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

/// One reason for a choice: an input through a curve.
pub struct Consideration<A, W> {
    /// The input.
    pub input: Scorer<A, W>,
    /// How the input becomes a score.
    pub curve: Curve,
}

impl<A, W> Clone for Consideration<A, W> {
    fn clone(&self) -> Self {
        Consideration {
            input: self.input.clone(),
            curve: self.curve.clone(),
        }
    }
}

impl<A, W> fmt::Debug for Consideration<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.curve.spell(&self.input.name))
    }
}

/// What one child scores by: its considerations, combined, times its weight.
pub struct Choice<A, W> {
    /// Multiplies the combined score (≥ 0).
    pub weight: f32,
    /// The reasons; a choice without any scores its weight.
    pub considerations: Vec<Consideration<A, W>>,
}

impl<A, W> Choice<A, W> {
    /// A choice of weight 1 with these considerations.
    pub fn new(considerations: Vec<Consideration<A, W>>) -> Self {
        Choice {
            weight: 1.0,
            considerations,
        }
    }

    /// The considerations as files write them: `hunger, linear(fear, -1,
    /// 1)`.
    pub fn spell(&self) -> String {
        let parts: Vec<_> = (self.considerations.iter())
            .map(|c| c.curve.spell(&c.input.name))
            .collect();
        parts.join(", ")
    }
}

impl<A, W> Clone for Choice<A, W> {
    fn clone(&self) -> Self {
        Choice {
            weight: self.weight,
            considerations: self.considerations.clone(),
        }
    }
}

impl<A, W> fmt::Debug for Choice<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Choice")
            .field("weight", &self.weight)
            .field("considerations", &self.considerations)
            .finish()
    }
}

/// How a choice's considerations make one score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ParamEnum)]
pub enum Combine {
    /// The product, each score first raised by the IAUS compensation
    /// factor so that more considerations do not mean lower scores: with
    /// `n` considerations, `s + s · (1 − s) · (1 − 1/n)`. Any zero vetoes.
    Product,
    /// The weakest reason.
    Min,
    /// The strongest reason.
    Max,
}

/// How the child to run is picked from the scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ParamEnum)]
pub enum Pick {
    /// The highest score; a tie goes to the first child.
    Highest,
    /// A draw with chances in proportion to the scores, reproducible per
    /// agent and tick.
    Weighted,
}

/// Runs the child whose considerations score best; re-scores while it
/// runs and switches, aborting the running child, when another wins.
pub struct Utility<A, W> {
    /// One per child, in child order.
    pub choices: Arc<[Choice<A, W>]>,
    /// How each choice's considerations combine.
    pub combine: Combine,
    /// How the child is picked.
    pub pick: Pick,
    /// Only a score above this can be picked; with none above, the node
    /// fails.
    pub threshold: f32,
    /// Added to the running child's score when re-scoring, so that
    /// another child must beat it by more than this to take over.
    pub inertia: f32,
    /// Re-score every this many ticks while a child runs; 0: only when
    /// entered.
    pub every: u32,
    /// Sets this node's weighted draws apart from another's.
    pub salt: u64,
}

impl<A, W> Utility<A, W> {
    /// What the kind does, in one line.
    pub const ABOUT: &'static str =
        "Runs the child whose considerations score highest; re-scores and switches while it runs.";

    /// A Utility over `choices`, one per child: highest score, product,
    /// threshold 0, no inertia, re-scored every tick.
    pub fn new(choices: Vec<Choice<A, W>>) -> Self {
        Utility {
            choices: choices.into(),
            combine: Combine::Product,
            pick: Pick::Highest,
            threshold: 0.0,
            inertia: 0.0,
            every: 1,
            salt: 0,
        }
    }

    /// Child `child`'s score now, before any inertia: its considerations
    /// combined, times its weight.
    pub fn score(&self, child: usize, cx: &Ctx<A, W>) -> f32 {
        let choice = &self.choices[child];
        let n = choice.considerations.len();
        let scores = (choice.considerations.iter()).map(|c| c.curve.map((c.input.score)(cx)));
        let combined = match self.combine {
            Combine::Product => {
                let raise = 1.0 - 1.0 / n.max(1) as f32;
                scores.fold(1.0, |p, s| p * (s + s * (1.0 - s) * raise))
            }
            Combine::Min => scores.fold(1.0, f32::min),
            Combine::Max => scores.fold(if n == 0 { 1.0 } else { 0.0 }, f32::max),
        };
        combined * choice.weight
    }

    /// Score every child into `state`, the running one with its bonus, and
    /// pick one; `None` when no score is above the threshold.
    fn choose(&self, state: &mut [u8], running: Option<usize>, cx: &Ctx<A, W>) -> Option<usize> {
        let (mut best, mut total) = (None::<(usize, f32)>, 0.0);
        for child in 0..self.choices.len() {
            let bonus = if running == Some(child) {
                self.inertia
            } else {
                0.0
            };
            let score = self.score(child, cx) + bonus;
            bytes::set_u32_at(state, SCORES + 4 * child, score.to_bits());
            if score > self.threshold {
                total += score;
                if best.is_none_or(|(_, b)| score > b) {
                    best = Some((child, score));
                }
            }
        }
        if self.pick == Pick::Highest || best.is_none() {
            return best.map(|(child, _)| child);
        }
        // The draw walks the eligible scores again, from the state.
        let mut left = unit(self.salt ^ agent_tick(cx.id, cx.tick)) as f32 * total;
        let mut last = None;
        for child in 0..self.choices.len() {
            let score = score_at(state, child);
            if score > self.threshold {
                last = Some(child);
                if left < score {
                    return last;
                }
                left -= score;
            }
        }
        last
    }
}

/// Where the scores start in the task state.
const SCORES: usize = 6;

fn running(state: &[u8]) -> Option<usize> {
    (bytes::u16_at(state, 0) as usize).checked_sub(1)
}

fn set_running(state: &mut [u8], child: Option<usize>) {
    bytes::set_u16_at(state, 0, child.map_or(0, |c| c as u16 + 1));
}

fn score_at(state: &[u8], child: usize) -> f32 {
    f32::from_bits(bytes::u32_at(state, SCORES + 4 * child))
}

impl<A, W> Clone for Utility<A, W> {
    fn clone(&self) -> Self {
        Utility {
            choices: Arc::clone(&self.choices),
            ..*self
        }
    }
}

impl<A, W> fmt::Debug for Utility<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Utility")
            .field("choices", &self.choices)
            .field("combine", &self.combine)
            .field("pick", &self.pick)
            .field("threshold", &self.threshold)
            .field("inertia", &self.inertia)
            .field("every", &self.every)
            .finish_non_exhaustive()
    }
}

impl<A, W> Code for Utility<A, W> {
    fn type_name(&self) -> &str {
        "Utility"
    }
    fn about(&self) -> &'static str {
        Self::ABOUT
    }
    fn arity(&self) -> Arity {
        Arity::Composite
    }
    fn shown(&self) -> Vec<(String, String)> {
        let n = |x: f32| number(f64::from(x));
        let scores: Vec<_> = self
            .choices
            .iter()
            .map(|c| format!("{:?}", c.spell()))
            .collect();
        let weights: Vec<_> = self.choices.iter().map(|c| n(c.weight)).collect();
        let word = |w: &str| w.to_lowercase();
        vec![
            ("scores".to_string(), format!("[{}]", scores.join(", "))),
            ("weights".to_string(), format!("[{}]", weights.join(", "))),
            ("combine".to_string(), word(&format!("{:?}", self.combine))),
            ("pick".to_string(), word(&format!("{:?}", self.pick))),
            ("threshold".to_string(), n(self.threshold)),
            ("inertia".to_string(), n(self.inertia)),
            ("every".to_string(), self.every.to_string()),
        ]
    }
}

impl<A, W> Kind<A, W> for Utility<A, W> {
    fn facts(&self, children: usize) -> Facts {
        Facts {
            own: (SCORES + 4 * children) as u32,
            ..Facts::COMPOSITE
        }
    }

    fn check(&self, children: usize) -> Option<String> {
        if self.choices.len() != children {
            return Some(format!(
                "has {} choices for {children} children: give one per child",
                self.choices.len()
            ));
        }
        if !(self.threshold.is_finite() && self.inertia.is_finite() && self.inertia >= 0.0) {
            return Some("threshold must be finite and inertia finite and ≥ 0".to_string());
        }
        let mut choices = self.choices.iter().enumerate();
        choices.find_map(|(i, choice)| {
            if !(choice.weight.is_finite() && choice.weight >= 0.0) {
                return Some(format!("child {}'s weight must be finite and ≥ 0", i + 1));
            }
            let problem = choice
                .considerations
                .iter()
                .find_map(|c| c.curve.problem())?;
            Some(format!("child {}: {problem}", i + 1))
        })
    }

    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        if t.children() == 0 {
            return Status::Failure;
        }
        let current = match visit.is_fresh() {
            true => None,
            false => running(t.state()),
        };
        let due = match (current, visit) {
            (None, _) => true,
            // Event mode telling it its child finished: a scoring due this
            // tick was done before the child ran (frames go in tree order).
            (Some(_), Visit::ChildDone { .. }) => false,
            (Some(_), _) => {
                let last = bytes::u32_at(t.state(), 2);
                self.every > 0 && cx.tick.wrapping_sub(last) >= self.every
            }
        };
        let (child, fresh) = match (due, current) {
            (false, Some(child)) => (child, false),
            _ => {
                bytes::set_u32_at(t.state(), 2, cx.tick);
                let picked = self.choose(t.state(), current, cx);
                if let Some(old) = current.filter(|&old| picked != Some(old)) {
                    t.abort(old, 0, cx);
                }
                match picked {
                    None => {
                        set_running(t.state(), None);
                        return Status::Failure;
                    }
                    Some(child) => (child, current != Some(child)),
                }
            }
        };
        let status = visit_child(t, visit, child, 0, fresh, cx);
        set_running(t.state(), (status == Status::Running).then_some(child));
        status
    }

    fn next_running(&self, state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        running(state)
            .filter(|&child| child >= from)
            .map(|child| (child, 0))
    }

    fn valid(&self, state: &[u8], children: usize) -> bool {
        running(state).is_none_or(|child| child < children)
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        match self.every {
            0 => Wake::Pass,
            every => Wake::Deadline(bytes::u32_at(t.state(), 2).wrapping_add(every)),
        }
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // The scores were of the old children; a lost running child leaves
        // none running, and the next update scores afresh.
        let kept = running(old).and_then(|child| carry.kept_at(child));
        set_running(new, kept);
        bytes::set_u32_at(new, 2, bytes::u32_at(old, 2));
        true
    }

    fn describe(&self, state: &[u8], children: usize, _now: u32) -> String {
        let scores: Vec<_> = (0..children)
            .map(|child| number(f64::from(score_at(state, child))))
            .collect();
        let scores = scores.join(", ");
        match running(state) {
            Some(child) => format!("running child {} of {children}; scores {scores}", child + 1),
            None => format!("no child running; scores {scores}"),
        }
    }
}
