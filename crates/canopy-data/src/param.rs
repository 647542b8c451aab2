//! Typed node parameters: what a node type declares, and the checked values
//! its factory receives.
//!
//! A node type lists its parameters once ([`Param`]); the loader checks
//! every value in a tree file against that list — unknown names, missing
//! values, wrong types, out-of-range numbers, misspelt words — before any
//! factory runs, so factories only see well-formed values and error
//! messages are uniform across built-in and user types.

use std::collections::BTreeMap;

use canopy_core::Status;
use serde_json::Value;

/// What values a parameter accepts.
#[derive(Clone, Debug, PartialEq)]
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
    pub default: Option<Value>,
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
    pub fn default(mut self, value: impl Into<Value>) -> Param {
        self.default = Some(value.into());
        self
    }

    /// What the parameter accepts, in words, for `canopy nodes` and errors.
    pub fn describe(&self) -> String {
        let kind = match &self.kind {
            ParamKind::Int { min, max } => match (*min, *max) {
                (i64::MIN, i64::MAX) => "integer".to_string(),
                (min, max) if max == i32::MAX as i64 => format!("integer ≥ {min}"),
                (min, max) => format!("integer in {min}..={max}"),
            },
            ParamKind::Float { min, max } if *min == f64::MIN && *max == f64::MAX => {
                "number".to_string()
            }
            ParamKind::Float { min, max } => format!("number in {min}..={max}"),
            ParamKind::Bool => "true or false".to_string(),
            ParamKind::Text => "string".to_string(),
            ParamKind::Choice(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
            ParamKind::Statuses => "list of \"Running\" / \"Success\" / \"Failure\"".to_string(),
            ParamKind::Condition => "condition node".to_string(),
            ParamKind::Subtree => "name of a subtree".to_string(),
        };
        match &self.default {
            Some(d) => format!("{kind}, default {d}"),
            None => format!("{kind}, required"),
        }
    }

    /// Check one value from a file against this parameter.
    pub(crate) fn check(&self, value: &Value) -> Result<Value, String> {
        let name = &self.name;
        let got = || describe_value(value);
        match &self.kind {
            ParamKind::Int { min, max } => {
                let n = match (value.as_i64(), value.as_f64()) {
                    (Some(n), _) => n,
                    // A whole number beyond i64 (1e20, 2^64 - 1) is out of
                    // range rather than "not an integer".
                    (None, Some(x)) if x.fract() == 0.0 && x.abs() >= 9.2e18 => {
                        let bound = if x < 0.0 {
                            format!("at least {min}")
                        } else {
                            format!("at most {max}")
                        };
                        return Err(format!("parameter \"{name}\" must be {bound}, got {value}"));
                    }
                    _ => {
                        return Err(format!(
                            "parameter \"{name}\" must be an integer, got {}",
                            got()
                        ));
                    }
                };
                if n < *min || n > *max {
                    let bound = if n < *min {
                        format!("at least {min}")
                    } else {
                        format!("at most {max}")
                    };
                    return Err(format!("parameter \"{name}\" must be {bound}, got {n}"));
                }
                Ok(value.clone())
            }
            ParamKind::Float { min, max } => {
                let x = value.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                    format!("parameter \"{name}\" must be a number, got {}", got())
                })?;
                if x < *min || x > *max {
                    return Err(format!(
                        "parameter \"{name}\" must be in {min}..={max}, got {x}"
                    ));
                }
                Ok(value.clone())
            }
            ParamKind::Bool => match value {
                Value::Bool(_) => Ok(value.clone()),
                _ => Err(format!(
                    "parameter \"{name}\" must be true or false, got {}",
                    got()
                )),
            },
            ParamKind::Text | ParamKind::Subtree => match value {
                Value::String(_) => Ok(value.clone()),
                _ => Err(format!(
                    "parameter \"{name}\" must be a string, got {}",
                    got()
                )),
            },
            ParamKind::Choice(words) => {
                let word = value.as_str().ok_or_else(|| {
                    format!("parameter \"{name}\" must be a string, got {}", got())
                })?;
                if words.iter().any(|w| w == word) {
                    Ok(value.clone())
                } else {
                    Err(format!(
                        "parameter \"{name}\" must be {}, got \"{word}\"{}",
                        self.describe()
                            .split(", default")
                            .next()
                            .unwrap_or_default(),
                        did_you_mean(word, words.iter().map(String::as_str))
                    ))
                }
            }
            ParamKind::Statuses => {
                let list = value.as_array().filter(|l| !l.is_empty()).ok_or_else(|| {
                    format!(
                        "parameter \"{name}\" must be a non-empty list of statuses, got {}",
                        got()
                    )
                })?;
                for (i, item) in list.iter().enumerate() {
                    let word = item.as_str().unwrap_or_default();
                    if parse_status(word).is_none() {
                        let shown = match item {
                            Value::String(s) => format!("\"{}\"", short(s)),
                            other => describe_value(other),
                        };
                        return Err(format!(
                            "parameter \"{name}\": item {i} is {shown}, not \"Running\", \"Success\" or \"Failure\"{}",
                            did_you_mean(word, STATUS_WORDS.iter().copied())
                        ));
                    }
                }
                Ok(value.clone())
            }
            ParamKind::Condition => Ok(value.clone()),
        }
    }
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

/// ` (did you mean "X"?)` when one of `candidates` is close to `word`:
/// one edit for short words, more for longer ones.
pub(crate) fn did_you_mean<'c>(word: &str, candidates: impl Iterator<Item = &'c str>) -> String {
    // Names are short; a long word is no typo and comparing it is slow.
    if word.len() > 64 {
        return String::new();
    }
    let word = word.to_lowercase();
    candidates
        .filter(|c| c.len() <= 64)
        .map(|c| (strsim::damerau_levenshtein(&word, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (word.len().min(c.len()) / 4).max(1))
        .min()
        .map(|(_, c)| format!(" (did you mean \"{c}\"?)"))
        .unwrap_or_default()
}

/// A name from a file, cut to a readable length for error messages.
pub(crate) fn short(name: &str) -> String {
    const MAX: usize = 60;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(MAX).collect::<String>())
    }
}

/// A value as an error message shows it: short, with its JSON type.
pub(crate) fn describe_value(value: &Value) -> String {
    let text = value.to_string();
    let text = if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    };
    let kind = match value {
        Value::Null => return "null".to_string(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    };
    format!("{kind} {text}")
}

/// The checked parameters of one node, as its factory sees them.
///
/// Every declared parameter is present (given or defaulted) and of the
/// declared kind, so the getters fail only when a factory asks for a
/// parameter its type did not declare.
#[derive(Debug)]
pub struct Params<'a> {
    pub(crate) type_name: &'a str,
    pub(crate) values: BTreeMap<String, Value>,
    pub(crate) seed: u64,
    pub(crate) index: u64,
}

impl Params<'_> {
    fn get(&self, name: &str) -> Result<&Value, String> {
        self.values
            .get(name)
            .ok_or_else(|| format!("{} declares no parameter \"{name}\"", self.type_name))
    }

    /// An integer parameter.
    pub fn int(&self, name: &str) -> Result<i64, String> {
        let v = self.get(name)?;
        v.as_i64()
            .ok_or_else(|| format!("parameter \"{name}\" is not an integer"))
    }

    /// An integer parameter that fits in `u32` (counts, ticks).
    pub fn u32(&self, name: &str) -> Result<u32, String> {
        let n = self.int(name)?;
        u32::try_from(n)
            .map_err(|_| format!("parameter \"{name}\" = {n} does not fit in 0..=4294967295"))
    }

    /// A number parameter.
    pub fn float(&self, name: &str) -> Result<f64, String> {
        let v = self.get(name)?;
        v.as_f64()
            .ok_or_else(|| format!("parameter \"{name}\" is not a number"))
    }

    /// A boolean parameter.
    pub fn boolean(&self, name: &str) -> Result<bool, String> {
        let v = self.get(name)?;
        v.as_bool()
            .ok_or_else(|| format!("parameter \"{name}\" is not a boolean"))
    }

    /// A string or choice parameter.
    pub fn text(&self, name: &str) -> Result<&str, String> {
        let v = self.get(name)?;
        v.as_str()
            .ok_or_else(|| format!("parameter \"{name}\" is not a string"))
    }

    /// A list-of-statuses parameter.
    pub fn statuses(&self, name: &str) -> Result<Vec<Status>, String> {
        let v = self.get(name)?;
        v.as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                s.as_str()
                    .and_then(parse_status)
                    .ok_or_else(|| format!("parameter \"{name}\" holds a non-status"))
            })
            .collect()
    }

    /// The registry's seed ([`Registry::with_seed`](crate::Registry::with_seed)),
    /// for node types with deterministic randomness.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The parameters as printed trees show them, in declaration order.
    pub(crate) fn shown(&self, declared: &[Param]) -> Vec<(String, String)> {
        declared
            .iter()
            .filter_map(|p| {
                let value = self.values.get(&p.name)?;
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Array(items) => {
                        let words: Vec<String> = items
                            .iter()
                            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                            .collect();
                        format!("[{}]", words.join(", "))
                    }
                    // Whole numbers as integers, others at their shortest.
                    Value::Number(n) => match n.as_i64() {
                        Some(i) => i.to_string(),
                        None => n.as_f64().unwrap_or_default().to_string(),
                    },
                    other => other.to_string(),
                };
                Some((p.name.clone(), text))
            })
            .collect()
    }

    /// This node's position in the file (0 for the first node read), stable
    /// across loads of the same file: a per-node salt for randomness.
    pub fn index(&self) -> u64 {
        self.index
    }
}
