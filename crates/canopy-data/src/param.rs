//! Typed node parameters: what a node type declares, and the checked values
//! its factory receives.
//!
//! A node type lists its parameters once ([`Param`]); the loader checks
//! every value in a tree file against that list — unknown names, missing
//! values, wrong types, out-of-range numbers, misspelt words — before any
//! factory runs, so factories only see well-formed values and error
//! messages are uniform across built-in and user types.

use canopy_core::Status;
use serde_json::Value as Json;

use crate::doc::{Value, describe};
use crate::error::ParamError;
use crate::text::number;

/// What values a parameter accepts.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ParamKind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// A finite number in `min..=max`.
    Float {
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// `true` or `false`.
    Bool,
    /// Any string.
    Text,
    /// One of a fixed set of words.
    Choice(Vec<String>),
    /// A non-empty list of status words: `"Running"`, `"Success"`, `"Failure"`.
    Statuses,
    /// A condition, written as a node object of a registered condition type
    /// (the `condition` of a Guard).
    Condition,
    /// The name of an entry of the file's `subtrees` (the `tree` of a SubTree).
    Subtree,
}

/// One declared parameter of a node type.
///
/// ```
/// use canopy_data::Param;
/// let speed = Param::float("speed", "cells per tick").range(0.0, 10.0).default(1.0);
/// assert_eq!(speed.describe(), "number in 0..=10, default 1.0");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The field name in tree files.
    pub name: String,
    /// Accepted values.
    pub kind: ParamKind,
    /// Used when the field is absent; `None` makes the parameter required.
    pub default: Option<Json>,
    /// One line for `canopy nodes`.
    pub doc: String,
}

impl Param {
    fn new(name: &str, doc: &str, kind: ParamKind) -> Param {
        Param {
            name: name.to_string(),
            kind,
            default: None,
            doc: doc.to_string(),
        }
    }

    /// A whole number (any `i64` until narrowed with [`Param::range`]).
    pub fn int(name: &str, doc: &str) -> Param {
        Param::new(
            name,
            doc,
            ParamKind::Int {
                min: i64::MIN,
                max: i64::MAX,
            },
        )
    }

    /// A count: a whole number from 1 to 2³¹ − 1.
    pub fn count(name: &str, doc: &str) -> Param {
        Param::new(
            name,
            doc,
            ParamKind::Int {
                min: 1,
                max: i32::MAX as i64,
            },
        )
    }

    /// A duration in ticks: a whole number from `min` to 2³¹ − 1.
    pub fn ticks(name: &str, doc: &str, min: i64) -> Param {
        Param::new(
            name,
            doc,
            ParamKind::Int {
                min,
                max: i32::MAX as i64,
            },
        )
    }

    /// A finite number (any until narrowed with [`Param::range`]).
    pub fn float(name: &str, doc: &str) -> Param {
        Param::new(
            name,
            doc,
            ParamKind::Float {
                min: f64::MIN,
                max: f64::MAX,
            },
        )
    }

    /// `true` or `false`.
    pub fn boolean(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Bool)
    }

    /// Any string.
    pub fn text(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Text)
    }

    /// One of `words`.
    pub fn choice(name: &str, doc: &str, words: &[&str]) -> Param {
        let words = words.iter().map(|w| w.to_string()).collect();
        Param::new(name, doc, ParamKind::Choice(words))
    }

    /// A list of status words.
    pub fn statuses(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Statuses)
    }

    /// A guard condition (a condition node object).
    pub fn condition(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Condition)
    }

    /// A reference to an entry of `subtrees`.
    pub fn subtree(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Subtree)
    }

    /// Narrow a number parameter to `min..=max`.
    pub fn range(mut self, min: f64, max: f64) -> Param {
        self.kind = match self.kind {
            ParamKind::Int { .. } => ParamKind::Int {
                min: min as i64,
                max: max as i64,
            },
            _ => ParamKind::Float { min, max },
        };
        self
    }

    /// Make the parameter optional with this default.
    pub fn default(mut self, value: impl Into<Json>) -> Param {
        self.default = Some(value.into());
        self
    }

    /// What the parameter accepts, in words, for `canopy nodes` and errors.
    pub fn describe(&self) -> String {
        let kind = self.describe_kind();
        match &self.default {
            Some(d) => format!("{kind}, default {d}"),
            None => format!("{kind}, required"),
        }
    }

    /// What the parameter accepts, without its default.
    fn describe_kind(&self) -> String {
        match &self.kind {
            ParamKind::Int { min, max } => match (*min, *max) {
                (i64::MIN, i64::MAX) => "integer".to_string(),
                (min, max) if max == i32::MAX as i64 => format!("integer ≥ {min}"),
                (min, max) => format!("integer in {min}..={max}"),
            },
            ParamKind::Float { min, max } if *min == f64::MIN && *max == f64::MAX => {
                "number".to_string()
            }
            ParamKind::Float { min, max } => {
                format!("number in {}..={}", number(*min), number(*max))
            }
            ParamKind::Bool => "true or false".to_string(),
            ParamKind::Text => "string".to_string(),
            ParamKind::Choice(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
            ParamKind::Statuses => "list of \"Running\" / \"Success\" / \"Failure\"".to_string(),
            ParamKind::Condition => "condition node".to_string(),
            ParamKind::Subtree => "name of a subtree".to_string(),
        }
    }

    /// Check one value from a file against this parameter.
    pub(crate) fn check<'d>(&self, value: &'d Value) -> Result<Checked<'d>, ParamError> {
        match &self.kind {
            ParamKind::Int { min, max } => self.check_int(value, *min, *max),
            ParamKind::Float { min, max } => self.check_float(value, *min, *max),
            ParamKind::Bool => match value {
                Value::Bool(b) => Ok(Checked::Bool(*b)),
                _ => Err(self.wrong_kind("true or false", value)),
            },
            ParamKind::Text | ParamKind::Subtree => match value.as_str() {
                Some(text) => Ok(Checked::Text(text)),
                None => Err(self.wrong_kind("a string", value)),
            },
            ParamKind::Choice(words) => self.check_choice(value, words),
            ParamKind::Statuses => self.check_statuses(value),
            ParamKind::Condition => Ok(Checked::Condition),
        }
    }

    fn wrong_kind(&self, expected: &'static str, value: &Value) -> ParamError {
        ParamError::WrongKind {
            param: self.name.clone(),
            expected,
            got: describe(value),
        }
    }

    fn out_of_range(&self, expected: String, got: String) -> ParamError {
        ParamError::OutOfRange {
            param: self.name.clone(),
            expected,
            got,
        }
    }

    fn check_int<'a>(&self, value: &Value, min: i64, max: i64) -> Result<Checked<'a>, ParamError> {
        let bound = |below: bool| {
            if below {
                format!("at least {min}")
            } else {
                format!("at most {max}")
            }
        };
        let n = match *value {
            Value::Int(n) => n,
            // A whole number beyond i64 (1e20, 2^64 - 1) is out of range
            // rather than "not an integer".
            Value::UInt(n) => return Err(self.out_of_range(bound(false), n.to_string())),
            Value::Float(x) if x.fract() == 0.0 && x.abs() >= 9.2e18 => {
                return Err(self.out_of_range(bound(x < 0.0), number(x)));
            }
            _ => return Err(self.wrong_kind("an integer", value)),
        };
        if n < min || n > max {
            return Err(self.out_of_range(bound(n < min), n.to_string()));
        }
        Ok(Checked::Int(n))
    }

    fn check_float<'a>(
        &self,
        value: &Value,
        min: f64,
        max: f64,
    ) -> Result<Checked<'a>, ParamError> {
        let x = value
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| self.wrong_kind("a number", value))?;
        if x < min || x > max {
            let expected = format!("in {}..={}", number(min), number(max));
            return Err(self.out_of_range(expected, number(x)));
        }
        Ok(Checked::Float(x))
    }

    fn check_choice<'d>(
        &self,
        value: &'d Value,
        words: &[String],
    ) -> Result<Checked<'d>, ParamError> {
        let word = value
            .as_str()
            .ok_or_else(|| self.wrong_kind("a string", value))?;
        if words.iter().any(|w| w == word) {
            return Ok(Checked::Text(word));
        }
        Err(ParamError::NotAChoice {
            param: self.name.clone(),
            choices: words.to_vec(),
            word: word.to_string(),
            suggestion: did_you_mean(word, words.iter().map(String::as_str)).map(str::to_string),
        })
    }

    fn check_statuses<'a>(&self, value: &Value) -> Result<Checked<'a>, ParamError> {
        let list = value
            .as_list()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| self.wrong_kind("a non-empty list of statuses", value))?;
        let mut statuses = Vec::with_capacity(list.len());
        for (index, item) in list.iter().enumerate() {
            let word = item.as_str().unwrap_or_default();
            let Some(status) = parse_status(word) else {
                let got = match item.as_str() {
                    Some(s) => crate::text::quote(s),
                    None => describe(item),
                };
                return Err(ParamError::NotAStatus {
                    param: self.name.clone(),
                    index,
                    got,
                    suggestion: did_you_mean(word, STATUS_WORDS.iter().copied()),
                });
            };
            statuses.push(status);
        }
        Ok(Checked::Statuses(statuses))
    }

    /// The default as a checked value, if the parameter has one.
    pub(crate) fn checked_default(&self) -> Option<Checked<'_>> {
        let default = self.default.as_ref()?;
        Some(match default {
            Json::Bool(b) => Checked::Bool(*b),
            Json::Number(n) => n.as_i64().map_or_else(
                || Checked::Float(n.as_f64().unwrap_or(f64::NAN)),
                Checked::Int,
            ),
            Json::String(s) => Checked::Text(s),
            Json::Array(items) => items
                .iter()
                .map(|i| i.as_str().and_then(parse_status))
                .collect::<Option<Vec<_>>>()
                .map_or(Checked::Unusable, Checked::Statuses),
            Json::Null | Json::Object(_) => Checked::Unusable,
        })
    }
}

/// A parameter's value once checked against its declaration, borrowed
/// from the file or the declaration's default.
#[derive(Clone, Debug)]
pub(crate) enum Checked<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(&'a str),
    Statuses(Vec<Status>),
    /// A guard's condition: the loader reads it from the node object.
    Condition,
    /// A default of a shape no getter reads (a registration mistake): the
    /// factory's getter reports it.
    Unusable,
}

const STATUS_WORDS: [&str; 3] = ["Running", "Success", "Failure"];

fn parse_status(word: &str) -> Option<Status> {
    match word {
        "Running" => Some(Status::Running),
        "Success" => Some(Status::Success),
        "Failure" => Some(Status::Failure),
        _ => None,
    }
}

/// Candidates [`did_you_mean`] compares in full, at most: a file can
/// define a hundred thousand subtrees, and one error must stay cheap.
const MAX_COMPARED: usize = 10_000;

/// The candidate closest to `word`, when one is close: one edit for short
/// words, more for longer ones.
pub(crate) fn did_you_mean<'c>(
    word: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> Option<&'c str> {
    // Names are short; a long word is no typo and comparing it is slow.
    if word.len() > 64 {
        return None;
    }
    let word = word.to_lowercase();
    let chars = word.chars().count();
    let limit = |c: &str| (word.len().min(c.len()) / 4).max(1);
    candidates
        // Each edit changes the length by at most one: skip what cannot be close.
        .filter(|c| c.len() <= 64 && c.chars().count().abs_diff(chars) <= limit(c))
        .take(MAX_COMPARED)
        .map(|c| (strsim::damerau_levenshtein(&word, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= limit(c))
        .min()
        .map(|(_, c)| c)
}

/// The checked parameters of one node, as its factory sees them.
///
/// Every declared parameter is present (given or defaulted) and of the
/// declared kind, so the getters fail only when a factory asks for a
/// parameter its type did not declare, or as another kind.
#[derive(Debug)]
pub struct Params<'a> {
    pub(crate) type_name: &'a str,
    /// In declaration order.
    pub(crate) values: Vec<(&'a str, Checked<'a>)>,
    pub(crate) seed: u64,
    pub(crate) index: u64,
}

impl Params<'_> {
    fn get(&self, name: &str) -> Result<&Checked<'_>, ParamError> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| ParamError::Undeclared {
                type_name: self.type_name.to_string(),
                param: name.to_string(),
            })
    }

    fn not_of_kind(name: &str, expected: &'static str) -> ParamError {
        ParamError::NotOfKind {
            param: name.to_string(),
            expected,
        }
    }

    /// An integer parameter.
    pub fn int(&self, name: &str) -> Result<i64, ParamError> {
        match self.get(name)? {
            Checked::Int(n) => Ok(*n),
            _ => Err(Self::not_of_kind(name, "an integer")),
        }
    }

    /// An integer parameter that fits in `u32` (counts, ticks).
    pub fn u32(&self, name: &str) -> Result<u32, ParamError> {
        let n = self.int(name)?;
        u32::try_from(n).map_err(|_| ParamError::DoesNotFit {
            param: name.to_string(),
            value: n,
        })
    }

    /// A number parameter.
    pub fn float(&self, name: &str) -> Result<f64, ParamError> {
        match self.get(name)? {
            Checked::Int(n) => Ok(*n as f64),
            Checked::Float(x) => Ok(*x),
            _ => Err(Self::not_of_kind(name, "a number")),
        }
    }

    /// A boolean parameter.
    pub fn boolean(&self, name: &str) -> Result<bool, ParamError> {
        match self.get(name)? {
            Checked::Bool(b) => Ok(*b),
            _ => Err(Self::not_of_kind(name, "a boolean")),
        }
    }

    /// A string or choice parameter.
    pub fn text(&self, name: &str) -> Result<&str, ParamError> {
        match self.get(name)? {
            Checked::Text(s) => Ok(s),
            _ => Err(Self::not_of_kind(name, "a string")),
        }
    }

    /// A list-of-statuses parameter.
    pub fn statuses(&self, name: &str) -> Result<Vec<Status>, ParamError> {
        match self.get(name)? {
            Checked::Statuses(list) => Ok(list.clone()),
            _ => Err(Self::not_of_kind(name, "a list of statuses")),
        }
    }

    /// The registry's seed ([`Registry::with_seed`](crate::Registry::with_seed)),
    /// for node types with deterministic randomness.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// This node's position in the file (0 for the first node read), stable
    /// across loads of the same file: a per-node salt for randomness.
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The parameters as printed trees show them, in declaration order.
    pub(crate) fn shown(&self) -> Vec<(String, String)> {
        self.values
            .iter()
            .filter_map(|(name, value)| {
                let text = match value {
                    Checked::Int(n) => n.to_string(),
                    Checked::Float(x) => number(*x),
                    Checked::Bool(b) => b.to_string(),
                    Checked::Text(s) => s.to_string(),
                    Checked::Statuses(list) => {
                        let words: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
                        format!("[{}]", words.join(", "))
                    }
                    Checked::Condition | Checked::Unusable => return None,
                };
                Some((name.to_string(), text))
            })
            .collect()
    }
}
