//! Checked parameter values: what a loader hands a factory, read back
//! through [`Params`]' getters or typed with [`FromParam`](crate::params::FromParam), and printed
//! back in trees unambiguously (`[[0, 0], [10, 0]]`, `"a, b"`).

use std::fmt::Write;

use crate::util::params::declare::{Param, ParamKind};
use crate::util::params::error::ParamError;
use crate::util::params::literal::Literal;
use crate::util::status::Status;
use crate::util::text::number;

/// One parameter's value as a loader checked it against its declaration:
/// of the kind the declaration states, so a type reads it with the
/// conversion of that kind ([`FromParam::from_value`](crate::params::FromParam::from_value)). Strings borrow
/// from the file, or from the declaration's default.
///
/// ```
/// use canopy_core::params::{FromParam, Literal, ParamKind, ParamValue};
///
/// /// A colour by name, read as a word.
/// struct Colour(u32);
/// impl FromParam for Colour {
///     fn kind() -> ParamKind { ParamKind::Choice(vec!["red".into(), "green".into()]) }
///     fn from_value(value: &ParamValue<'_>) -> Option<Self> {
///         match value.as_str()? { "red" => Some(Colour(0xff0000)), _ => Some(Colour(0x00ff00)) }
///     }
///     fn to_literal(&self) -> Literal {
///         (if self.0 == 0xff0000 { "red" } else { "green" }).into()
///     }
/// }
/// assert_eq!(Colour::from_value(&ParamValue::Text("red")).map(|c| c.0), Some(0xff0000));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue<'a> {
    /// A whole number.
    Int(i64),
    /// A number.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A string or a word of a choice.
    Text(&'a str),
    /// A list of statuses.
    Statuses(Vec<Status>),
    /// Coordinates, of which the first `dims` (the second field) are the point's.
    Point([f64; 3], usize),
    /// A list's items.
    List(Vec<ParamValue<'a>>),
    /// A blackboard key, resolved to its slot (a port's `"{key}"`).
    Slot(crate::util::board::SlotRef),
    /// An optional parameter the file does not give.
    Absent,
    /// A guard's condition: the loader reads it from the node object.
    Condition,
}

impl<'a> ParamValue<'a> {
    /// The string or word, if the value is one (a `string` parameter,
    /// a choice, a [`ParamEnum`](crate::ParamEnum)'s word).
    pub fn as_str(&self) -> Option<&'a str> {
        match *self {
            ParamValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// A default as a checked value. Defaults are checked against their
    /// kind when a type is registered; `None` for one that does not fit.
    ///
    /// ```
    /// use canopy_core::params::{Literal, ParamKind, ParamValue};
    /// let kind = ParamKind::Point { dims: 2, min: -1e9, max: 1e9 };
    /// assert_eq!(ParamValue::from_default(&kind, &Literal::from([1.0, 2.0])),
    ///     Some(ParamValue::Point([1.0, 2.0, 0.0], 2)));
    /// ```
    pub fn from_default(kind: &ParamKind, literal: &'a Literal) -> Option<ParamValue<'a>> {
        if literal.is_null() {
            return Some(ParamValue::Absent);
        }
        Some(match kind {
            ParamKind::Int { .. } => ParamValue::Int(literal.as_i64()?),
            ParamKind::Float { .. } => ParamValue::Float(literal.as_f64()?),
            ParamKind::Bool => ParamValue::Bool(literal.as_bool()?),
            ParamKind::Text | ParamKind::Choice(_) | ParamKind::Subtree => {
                ParamValue::Text(literal.as_str()?)
            }
            ParamKind::Statuses => ParamValue::Statuses(
                literal
                    .as_list()?
                    .iter()
                    .map(|w| w.as_str().and_then(Status::from_word))
                    .collect::<Option<_>>()?,
            ),
            ParamKind::Point { dims, .. } => {
                let coordinates = literal.as_list().filter(|c| c.len() == *dims)?;
                let mut point = [0.0; 3];
                for (slot, c) in point.iter_mut().zip(coordinates) {
                    *slot = c.as_f64()?;
                }
                ParamValue::Point(point, *dims)
            }
            ParamKind::List { item, .. } => ParamValue::List(
                literal
                    .as_list()?
                    .iter()
                    .map(|l| ParamValue::from_default(item, l))
                    .collect::<Option<_>>()?,
            ),
            ParamKind::Port { value, .. } => return ParamValue::from_default(value, literal),
            ParamKind::Condition => return None,
        })
    }
}

/// The checked parameters of one node, as its factory sees them.
///
/// Every declared parameter is present (given, defaulted, or absent and
/// optional) and of the declared kind, so the getters fail only when a
/// factory asks for a parameter its type did not declare, or as another
/// kind. A type registered with a [`NodeParams`](crate::params::NodeParams)
/// struct never sees this: its factory gets the struct.
///
/// ```
/// use canopy_core::{Params, params::{Param, ParamValue}};
///
/// let terms = Param::of::<Vec<u32>>("terms", "numbers to add");
/// let params = Params::new("Add", vec![
///     (&terms, ParamValue::List(vec![ParamValue::Int(1), ParamValue::Int(2)])),
/// ], 0, 0);
/// let sum: u32 = params.get::<Vec<u32>>("terms").unwrap().iter().sum();
/// assert_eq!(sum, 3);
/// assert_eq!(params.shown(), [("terms".to_string(), "[1, 2]".to_string())]);
/// ```
#[derive(Debug)]
pub struct Params<'a> {
    type_name: &'a str,
    /// In declaration order.
    values: Vec<(&'a Param, ParamValue<'a>)>,
    seed: u64,
    index: u64,
}

impl<'a> Params<'a> {
    /// The checked values of a node of type `type_name`, one per declared
    /// parameter in declaration order, for a loader to hand a factory;
    /// `seed` and `index` as [`Params::seed`] and [`Params::index`] say.
    pub fn new(
        type_name: &'a str,
        values: Vec<(&'a Param, ParamValue<'a>)>,
        seed: u64,
        index: u64,
    ) -> Params<'a> {
        Params {
            type_name,
            values,
            seed,
            index,
        }
    }

    /// The values, in declaration order.
    pub fn values(&self) -> &[(&'a Param, ParamValue<'a>)] {
        &self.values
    }

    pub(crate) fn find(&self, name: &str) -> Result<&ParamValue<'a>, ParamError> {
        self.values
            .iter()
            .find(|(p, _)| p.name == name)
            .map(|(_, v)| v)
            .ok_or_else(|| ParamError::Undeclared {
                type_name: self.type_name.to_string(),
                param: name.to_string(),
            })
    }

    fn not_of_kind(name: &str, expected: &'static str, value: &ParamValue) -> ParamError {
        match value {
            ParamValue::Absent => ParamError::Absent {
                param: name.to_string(),
            },
            _ => ParamError::NotOfKind {
                param: name.to_string(),
                expected,
            },
        }
    }

    /// An integer parameter.
    ///
    /// The getters below read a parameter by name, as declared with
    /// [`Param`]; each example's factory runs on the node
    /// `{"type": "T", "n": 3, "x": 0.5, "on": true, "word": "b", "play": ["Success"]}`:
    ///
    /// ```
    /// # use canopy_core::{Params, Status, params::{Param, ParamError, ParamValue}};
    /// # fn load(check: impl Fn(&Params) -> Result<(), ParamError>) {
    /// #     let declared = [Param::count("n", ""), Param::float("x", ""), Param::boolean("on", ""),
    /// #         Param::choice("word", "", &["a", "b"]), Param::statuses("play", "")];
    /// #     let values = [ParamValue::Int(3), ParamValue::Float(0.5), ParamValue::Bool(true),
    /// #         ParamValue::Text("b"), ParamValue::Statuses(vec![Status::Success])];
    /// #     let p = Params::new("T", declared.iter().zip(values).collect(), 0, 0);
    /// #     check(&p).unwrap();
    /// # }
    /// load(|p| {
    ///     assert_eq!(p.int("n")?, 3);
    ///     assert_eq!(p.u32("n")?, 3);
    ///     assert_eq!(p.float("x")?, 0.5);
    ///     assert_eq!(p.float("n")?, 3.0); // an integer reads as a number too
    ///     assert!(p.boolean("on")?);
    ///     assert_eq!(p.text("word")?, "b");
    ///     assert_eq!(p.statuses("play")?, [Status::Success]);
    ///     assert_eq!(p.int("x").unwrap_err().to_string(), "parameter \"x\" is not an integer");
    ///     assert_eq!(p.int("m").unwrap_err().to_string(), "T declares no parameter \"m\"");
    ///     Ok(())
    /// });
    /// ```
    pub fn int(&self, name: &str) -> Result<i64, ParamError> {
        match self.find(name)? {
            ParamValue::Int(n) => Ok(*n),
            other => Err(Self::not_of_kind(name, "an integer", other)),
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
        match self.find(name)? {
            ParamValue::Int(n) => Ok(*n as f64),
            ParamValue::Float(x) => Ok(*x),
            other => Err(Self::not_of_kind(name, "a number", other)),
        }
    }

    /// A boolean parameter.
    pub fn boolean(&self, name: &str) -> Result<bool, ParamError> {
        match self.find(name)? {
            ParamValue::Bool(b) => Ok(*b),
            other => Err(Self::not_of_kind(name, "a boolean", other)),
        }
    }

    /// A string or choice parameter.
    pub fn text(&self, name: &str) -> Result<&str, ParamError> {
        match self.find(name)? {
            ParamValue::Text(s) => Ok(s),
            other => Err(Self::not_of_kind(name, "a string", other)),
        }
    }

    /// A list-of-statuses parameter.
    pub fn statuses(&self, name: &str) -> Result<Vec<Status>, ParamError> {
        match self.find(name)? {
            ParamValue::Statuses(list) => Ok(list.clone()),
            other => Err(Self::not_of_kind(name, "a list of statuses", other)),
        }
    }

    /// The loader's seed (a registry's `with_seed`), for node types with
    /// deterministic randomness; with [`Params::index`], a per-node salt.
    ///
    /// ```
    /// let p = canopy_core::Params::new("Salted", vec![], 42, 1);
    /// assert_eq!((p.seed(), p.index()), (42, 1));
    /// ```
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// A number for this node's reproducible randomness: the loader's
    /// [seed](Params::seed) mixed with the node's [index](Params::index),
    /// so two nodes of one file, or one node under two seeds, draw apart.
    /// What a `#[param(salt)]` field of a `#[derive(Params)]` struct reads.
    ///
    /// ```
    /// let a = canopy_core::Params::new("Dice", vec![], 42, 1);
    /// let b = canopy_core::Params::new("Dice", vec![], 42, 2);
    /// assert_ne!(a.salt(), b.salt());
    /// ```
    pub fn salt(&self) -> u64 {
        crate::util::hash::mix(self.seed ^ crate::util::hash::mix(self.index))
    }

    /// This node's position in the file (0 for the first node read), stable
    /// across loads of the same file: a per-node salt for randomness
    /// (see [`Params::seed`]).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The parameters as printed trees show them, in declaration order;
    /// absent optional ones are left out.
    pub fn shown(&self) -> Vec<(String, String)> {
        self.values
            .iter()
            .filter_map(|(param, value)| {
                let mut text = String::new();
                render(&param.kind, value, &mut text).then(|| (param.name.clone(), text))
            })
            .collect()
    }
}

/// Parameters as printed trees show them (as [`Params::shown`] does), from
/// their declarations and their values as literals: what a node kind built
/// in code shows.
pub(crate) fn show(declared: &[Param], values: &[(&str, Literal)]) -> Vec<(String, String)> {
    values
        .iter()
        .filter_map(|(name, literal)| {
            let param = declared.iter().find(|p| p.name == *name)?;
            let value = ParamValue::from_default(&param.kind, literal)?;
            let mut text = String::new();
            render(&param.kind, &value, &mut text).then(|| (name.to_string(), text))
        })
        .collect()
}

/// Write a value as printed trees show it: numbers at their shortest,
/// strings in double quotes (a comma in one cannot pass for a separator),
/// words of a choice bare, points and lists in brackets. `false` when the
/// value is not shown (absent, or a guard's condition).
fn render(kind: &ParamKind, value: &ParamValue, out: &mut String) -> bool {
    match value {
        ParamValue::Int(n) => {
            let _ = write!(out, "{n}");
        }
        ParamValue::Float(x) => out.push_str(&number(*x)),
        ParamValue::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        ParamValue::Text(word) if matches!(kind, ParamKind::Choice(_)) => out.push_str(word),
        ParamValue::Text(text) => {
            out.push('"');
            for c in text.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
        ParamValue::Statuses(list) => {
            let words: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            let _ = write!(out, "[{}]", words.join(", "));
        }
        ParamValue::Point(coordinates, dims) => {
            let shown: Vec<String> = coordinates[..*dims].iter().map(|c| number(*c)).collect();
            let _ = write!(out, "[{}]", shown.join(", "));
        }
        ParamValue::List(items) => {
            let item_kind = match kind {
                ParamKind::List { item, .. } => item,
                _ => kind,
            };
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render(item_kind, item, out);
            }
            out.push(']');
        }
        ParamValue::Slot(slot) => {
            let _ = write!(out, "{{{}}}", slot.key);
        }
        ParamValue::Absent | ParamValue::Condition => return false,
    }
    true
}
