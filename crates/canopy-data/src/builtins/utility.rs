//! `Utility` in files: the engine's [`Utility`] kind, its considerations
//! written one text per child and their inputs resolved among the
//! registry's scorers ([`Registry::scorer`](crate::Registry::scorer)).
//!
//! A child's text lists its considerations separated by commas, each an
//! input through a curve: `hunger` (the input as it is, clamped to
//! `[0, 1]`), `linear(distance, -0.1, 1)`, `polynomial(x, 2)`,
//! `logistic(fear, 10, 0.5)`, `logit(x, 4, 0.5)`, `piecewise(x, 0, 0,
//! 0.5, 1, 1, 0)`. That text is what the engine prints back
//! ([`Curve::spell`]), so a printed or exported tree reads back the same.
//! Text, rather than nested objects, because every parameter kind canopy
//! has — and BehaviorTree.CPP's attributes — carry a list of strings as
//! they are; nested objects would need a kind of their own in the loader
//! and an XML spelling of their own.

use std::collections::BTreeMap;
use std::sync::Arc;

use canopy_core::nodes::{Choice, Combine, Consideration, Curve, Pick, ScoreFn, Scorer, Utility};
use canopy_core::text::{did_you_mean, quote, suggest};
use canopy_core::{Arity, NodeKind, Params, params::NodeParams, params::ParamError};

use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};

/// Most considerations a child's text holds.
const MAX_CONSIDERATIONS: usize = 32;
/// Most numbers one curve takes (a piecewise curve's points).
const MAX_NUMBERS: usize = 128;

/// Runs the child whose considerations score highest; re-scores and
/// switches, aborting the running child, while it runs.
#[derive(Params)]
pub(crate) struct UtilityParams {
    /// One text per child, its considerations: `hunger,
    /// logistic(fear, 10, 0.5)`.
    #[param(len = 1..)]
    scores: Vec<String>,
    /// One weight per child, multiplying its score (none: all 1).
    #[param(default = [], range = 0.0..=1.0e9)]
    weights: Vec<f64>,
    /// How a child's considerations combine: a compensated product, the
    /// least or the greatest.
    #[param(default = Combine::Product)]
    combine: Combine,
    /// The highest score, or a draw in proportion to the scores.
    #[param(default = Pick::Highest)]
    pick: Pick,
    /// Only a score above this can be picked.
    #[param(default = 0.0, range = -1.0e9..=1.0e9)]
    threshold: f64,
    /// Added to the running child's score when re-scoring.
    #[param(default = 0.0, range = 0.0..=1.0e9)]
    inertia: f64,
    /// Re-score every this many ticks while a child runs (0: never).
    #[param(default = 1, range = 0..=2147483647)]
    every: u32,
    #[param(salt)]
    salt: u64,
}

/// The node type.
pub(crate) fn node_type<A: 'static, W: 'static>() -> NodeType<A, W> {
    NodeType::resolved(
        "Utility",
        UtilityParams::description(),
        Arity::Composite,
        UtilityParams::declare(),
        UtilityKind,
    )
}

/// `Utility` as the loader builds it: its inputs looked up among the
/// registry's scorers.
struct UtilityKind;

impl<A: 'static, W: 'static> Resolve<A, W> for UtilityKind {
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        build(params, at.scorers())
            .map(Made::Kind)
            .map_err(|e| at.invalid(e))
    }
}

/// The Utility a node's checked parameters describe, its inputs looked up
/// among the registry's `scorers`.
fn build<A, W>(
    params: &Params<'_>,
    scorers: &BTreeMap<String, ScoreFn<A, W>>,
) -> Result<NodeKind<A, W>, ParamError> {
    let p = UtilityParams::from_params(params)?;
    if !p.weights.is_empty() && p.weights.len() != p.scores.len() {
        return Err(ParamError::invalid(format!(
            "\"weights\" has {} items for {} \"scores\": give one per child, or none",
            p.weights.len(),
            p.scores.len()
        )));
    }
    let mut choices = Vec::with_capacity(p.scores.len());
    for (i, text) in p.scores.iter().enumerate() {
        let considerations = considerations(text, scorers)
            .map_err(|problem| ParamError::invalid(format!("scores[{i}]: {problem}")))?;
        choices.push(Choice {
            weight: p.weights.get(i).copied().unwrap_or(1.0) as f32,
            considerations,
        });
    }
    let mut utility = Utility::new(choices);
    utility.combine = p.combine;
    utility.pick = p.pick;
    utility.threshold = p.threshold as f32;
    utility.inertia = p.inertia as f32;
    utility.every = p.every;
    utility.salt = p.salt;
    Ok(utility.into())
}

/// The considerations of one child's text.
fn considerations<A, W>(
    text: &str,
    scorers: &BTreeMap<String, ScoreFn<A, W>>,
) -> Result<Vec<Consideration<A, W>>, String> {
    let parts = split(text, MAX_CONSIDERATIONS + 1);
    if parts.len() > MAX_CONSIDERATIONS {
        return Err(format!("more than {MAX_CONSIDERATIONS} considerations"));
    }
    let parts = parts.into_iter().filter(|part| !part.trim().is_empty());
    parts
        .map(|part| consideration(part.trim(), scorers))
        .collect()
}

/// `text` split at the commas outside parentheses, into at most `most`
/// parts (the last holds the rest): a hostile text costs no more than
/// that.
fn split(text: &str, most: usize) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (at, c) in text.char_indices() {
        if parts.len() + 1 == most {
            break;
        }
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// One consideration: `input` or `curve(input, numbers…)`.
fn consideration<A, W>(
    text: &str,
    scorers: &BTreeMap<String, ScoreFn<A, W>>,
) -> Result<Consideration<A, W>, String> {
    let Some((curve, rest)) = text.split_once('(') else {
        return Ok(Consideration {
            input: scorer(text, scorers)?,
            curve: Curve::IDENTITY,
        });
    };
    let Some(args) = rest.strip_suffix(')') else {
        return Err(format!("{} must end with \")\"", quote(text)));
    };
    let mut args = args.split(',').map(str::trim);
    let input = scorer(args.next().unwrap_or_default(), scorers)?;
    let numbers = args
        .map(|a| match a.parse::<f32>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(format!("{} is not a number, in {}", quote(a), quote(text))),
        })
        .take(MAX_NUMBERS + 1)
        .collect::<Result<Vec<f32>, String>>()?;
    if numbers.len() > MAX_NUMBERS {
        return Err(format!(
            "more than {MAX_NUMBERS} numbers in {}",
            quote(text)
        ));
    }
    let curve = curve_of(curve.trim(), &numbers)?;
    Ok(Consideration { input, curve })
}

/// The curves' names.
const CURVES: [&str; 5] = ["linear", "polynomial", "logistic", "logit", "piecewise"];

/// The curve named `name` with these numbers, or what is wrong.
fn curve_of(name: &str, n: &[f32]) -> Result<Curve, String> {
    let takes = |what: &str| Err(format!("{} takes {what}", quote(name)));
    match (name, n) {
        ("linear", &[slope, shift]) => Ok(Curve::Linear { slope, shift }),
        ("linear", _) => takes("an input, a slope and a shift"),
        ("polynomial", &[exponent, ref rest @ ..]) if rest.len() <= 2 => Ok(Curve::Polynomial {
            exponent,
            slope: rest.first().copied().unwrap_or(1.0),
            shift: rest.get(1).copied().unwrap_or(0.0),
        }),
        ("polynomial", _) => takes("an input, an exponent, and an optional slope and shift"),
        ("logistic", &[steepness, midpoint]) => Ok(Curve::Logistic {
            steepness,
            midpoint,
        }),
        ("logit", &[steepness, midpoint]) => Ok(Curve::Logit {
            steepness,
            midpoint,
        }),
        ("logistic" | "logit", _) => takes("an input, a steepness and a midpoint"),
        ("piecewise", points) if !points.is_empty() && points.len() % 2 == 0 => {
            let pairs: Vec<_> = points.chunks(2).map(|p| (p[0], p[1])).collect();
            Ok(Curve::Piecewise(Arc::from(pairs)))
        }
        ("piecewise", _) => takes("an input and points x, y in increasing x"),
        _ => {
            let hint = did_you_mean(suggest(name, CURVES));
            Err(format!(
                "no curve is called {}{hint}; curves are {}",
                quote(name),
                CURVES.join(", ")
            ))
        }
    }
}

/// The registered scorer `name`.
fn scorer<A, W>(
    name: &str,
    scorers: &BTreeMap<String, ScoreFn<A, W>>,
) -> Result<Scorer<A, W>, String> {
    match scorers.get(name) {
        Some(score) => Ok(Scorer {
            name: name.to_string(),
            score: Arc::clone(score),
        }),
        None => {
            let known = scorers.keys().map(String::as_str);
            let hint = did_you_mean(suggest(name, known));
            Err(format!("no scorer is registered as {}{hint}", quote(name)))
        }
    }
}
