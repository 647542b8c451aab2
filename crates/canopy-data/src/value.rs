//! Checked parameter values: what the loader hands a factory, read back
//! through [`Params`]' getters or typed with [`FromParam`], and printed
//! back in trees unambiguously (`[[0, 0], [10, 0]]`, `"a, b"`).

use std::fmt::Write;

use canopy_core::Status;
use serde_json::Value as Json;

use crate::check::parse_status;
use crate::error::ParamError;
use crate::param::{Param, ParamKind};
use crate::text::number;
use crate::typed::FromParam;

/// A parameter's value once checked against its declaration, borrowed
/// from the file or the declaration's default.
#[derive(Clone, Debug)]
pub(crate) enum Checked<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(&'a str),
    Statuses(Vec<Status>),
    /// Coordinates, of which the first `dims` are the point's.
    Point([f64; 3], usize),
    List(Vec<ParamValue<'a>>),
    /// An optional parameter the file does not give.
    Absent,
    /// A guard's condition: the loader reads it from the node object.
    Condition,
}

/// One parameter's value as the loader checked it, for
/// [`FromParam::from_value`]: of the kind its declaration states, so a
/// type reads it with the conversion of that kind.
///
/// Opaque: a type of your own reads it through the impl of a type of the
/// same kind, as the [`FromParam`] example shows.
#[derive(Clone, Debug)]
pub struct ParamValue<'a>(pub(crate) Checked<'a>);

impl ParamValue<'_> {
    /// The string or word, if the value is one (a `string` parameter,
    /// a choice, a [`ParamEnum`](crate::ParamEnum)'s word).
    ///
    /// ```
    /// use canopy_data::{FromParam, ParamKind, ParamValue};
    ///
    /// /// A colour by name, read as a word.
    /// struct Colour(u32);
    /// impl FromParam for Colour {
    ///     fn kind() -> ParamKind { ParamKind::Choice(vec!["red".into(), "green".into()]) }
    ///     fn from_value(value: &ParamValue<'_>) -> Option<Self> {
    ///         match value.as_str()? { "red" => Some(Colour(0xff0000)), _ => Some(Colour(0x00ff00)) }
    ///     }
    ///     fn to_json(&self) -> serde_json::Value {
    ///         (if self.0 == 0xff0000 { "red" } else { "green" }).into()
    ///     }
    /// }
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self.0 {
            Checked::Text(text) => Some(text),
            _ => None,
        }
    }
}

impl<'a> From<Checked<'a>> for ParamValue<'a> {
    fn from(checked: Checked<'a>) -> Self {
        ParamValue(checked)
    }
}

/// A default as a checked value. Defaults were checked against their
/// kind when the type was registered, so a mismatch cannot happen here;
/// `None` if it did.
pub(crate) fn from_json<'p>(kind: &ParamKind, json: &'p Json) -> Option<Checked<'p>> {
    if json.is_null() {
        return Some(Checked::Absent);
    }
    Some(match kind {
        ParamKind::Int { .. } => Checked::Int(json.as_i64()?),
        ParamKind::Float { .. } => Checked::Float(json.as_f64()?),
        ParamKind::Bool => Checked::Bool(json.as_bool()?),
        ParamKind::Text | ParamKind::Choice(_) | ParamKind::Subtree => {
            Checked::Text(json.as_str()?)
        }
        ParamKind::Statuses => Checked::Statuses(
            json.as_array()?
                .iter()
                .map(|w| w.as_str().and_then(parse_status))
                .collect::<Option<_>>()?,
        ),
        ParamKind::Point { dims, .. } => {
            let coordinates = json.as_array().filter(|c| c.len() == *dims)?;
            let mut point = [0.0; 3];
            for (slot, c) in point.iter_mut().zip(coordinates) {
                *slot = c.as_f64()?;
            }
            Checked::Point(point, *dims)
        }
        ParamKind::List { item, .. } => Checked::List(
            json.as_array()?
                .iter()
                .map(|j| from_json(item, j).map(ParamValue))
                .collect::<Option<_>>()?,
        ),
        ParamKind::Condition => return None,
    })
}

/// The checked parameters of one node, as its factory sees them.
///
/// Every declared parameter is present (given, defaulted, or absent and
/// optional) and of the declared kind, so the getters fail only when a
/// factory asks for a parameter its type did not declare, or as another
/// kind. A type registered with a [`NodeParams`](crate::NodeParams)
/// struct never sees this: its factory gets the struct.
///
/// ```
/// use canopy_core::{Ctx, Status};
/// use canopy_data::{Format, Param, Registry};
///
/// let mut registry = Registry::<u32, ()>::new();
/// registry.register_action("Add", "adds up a list", vec![Param::of::<Vec<u32>>("terms", "")], |p| {
///     let sum: u32 = p.get::<Vec<u32>>("terms")?.iter().sum();
///     Ok(move |cx: &mut Ctx<u32, ()>| { *cx.agent += sum; Status::Success })
/// }).unwrap();
/// let tree = registry.load_str(r#"{"tree": {"type": "Add", "terms": [1, 2, 3]}}"#,
///     Format::Json, "add.json").unwrap();
/// assert_eq!(tree.display().to_string(), "Add(terms=[1, 2, 3])\n");
/// ```
#[derive(Debug)]
pub struct Params<'a> {
    pub(crate) type_name: &'a str,
    /// In declaration order.
    pub(crate) values: Vec<(&'a Param, Checked<'a>)>,
    pub(crate) seed: u64,
    pub(crate) index: u64,
}

impl Params<'_> {
    fn find(&self, name: &str) -> Result<&Checked<'_>, ParamError> {
        self.values
            .iter()
            .find(|(p, _)| p.name == name)
            .map(|(_, v)| v)
            .ok_or_else(|| ParamError::Undeclared {
                type_name: self.type_name.to_string(),
                param: name.to_string(),
            })
    }

    fn not_of_kind(name: &str, expected: &'static str, value: &Checked) -> ParamError {
        match value {
            Checked::Absent => ParamError::Absent {
                param: name.to_string(),
            },
            _ => ParamError::NotOfKind {
                param: name.to_string(),
                expected,
            },
        }
    }

    /// A parameter read as the type `T` it was declared as (with
    /// [`Param::of`], or a kind `T` reads): numbers, strings, points,
    /// lists, [`Ticks`](crate::Ticks), `Option`s, enums.
    ///
    /// ```
    /// # use canopy_data::{Format, Param, Registry, NodeType};
    /// # use canopy_core::{Arity, NodeKind};
    /// let mut registry = Registry::<(), ()>::new();
    /// registry.register(NodeType::new("Route", "", Arity::Leaf,
    ///     vec![Param::of::<Vec<[f32; 2]>>("via", ""), Param::of::<Option<u32>>("laps", "")],
    ///     |p| {
    ///         assert_eq!(p.get::<Vec<[f32; 2]>>("via")?, [[0.0, 0.0], [2.5, 1.0]]);
    ///         assert_eq!(p.get::<Option<u32>>("laps")?, None);
    ///         Ok(NodeKind::AlwaysSuccess)
    ///     })).unwrap();
    /// registry.load_str(r#"{"tree": {"type": "Route", "via": [[0, 0], [2.5, 1]]}}"#,
    ///     Format::Json, "r.json").unwrap();
    /// ```
    pub fn get<T: FromParam>(&self, name: &str) -> Result<T, ParamError> {
        let value = self.find(name)?;
        T::from_value(&ParamValue(value.clone())).ok_or_else(|| ParamError::NotReadable {
            param: name.to_string(),
            as_type: std::any::type_name::<T>(),
        })
    }

    /// An integer parameter.
    ///
    /// The getters below read a parameter by name, as declared with
    /// [`Param`]; each example's factory runs on the node
    /// `{"type": "T", "n": 3, "x": 0.5, "on": true, "word": "b", "play": ["Success"]}`:
    ///
    /// ```
    /// # use canopy_core::{Arity, NodeKind, Status};
    /// # use canopy_data::{Format, NodeType, Param, Params, ParamError, Registry};
    /// # fn load(check: impl Fn(&Params) -> Result<(), ParamError> + Send + Sync + 'static) {
    /// #     let mut registry = Registry::<(), ()>::new();
    /// #     registry.register(NodeType::new("T", "", Arity::Leaf, vec![
    /// #         Param::count("n", ""), Param::float("x", ""), Param::boolean("on", ""),
    /// #         Param::choice("word", "", &["a", "b"]), Param::statuses("play", ""),
    /// #     ], move |p| { check(p)?; Ok(NodeKind::AlwaysSuccess) })).unwrap();
    /// #     registry.load_str(r#"{"tree": {"type": "T", "n": 3, "x": 0.5, "on": true,
    /// #         "word": "b", "play": ["Success"]}}"#, Format::Json, "t").unwrap();
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
            Checked::Int(n) => Ok(*n),
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
            Checked::Int(n) => Ok(*n as f64),
            Checked::Float(x) => Ok(*x),
            other => Err(Self::not_of_kind(name, "a number", other)),
        }
    }

    /// A boolean parameter.
    pub fn boolean(&self, name: &str) -> Result<bool, ParamError> {
        match self.find(name)? {
            Checked::Bool(b) => Ok(*b),
            other => Err(Self::not_of_kind(name, "a boolean", other)),
        }
    }

    /// A string or choice parameter.
    pub fn text(&self, name: &str) -> Result<&str, ParamError> {
        match self.find(name)? {
            Checked::Text(s) => Ok(s),
            other => Err(Self::not_of_kind(name, "a string", other)),
        }
    }

    /// A list-of-statuses parameter.
    pub fn statuses(&self, name: &str) -> Result<Vec<Status>, ParamError> {
        match self.find(name)? {
            Checked::Statuses(list) => Ok(list.clone()),
            other => Err(Self::not_of_kind(name, "a list of statuses", other)),
        }
    }

    /// The registry's seed ([`Registry::with_seed`](crate::Registry::with_seed)),
    /// for node types with deterministic randomness; with
    /// [`Params::index`], a per-node salt.
    ///
    /// ```
    /// # use canopy_core::{Arity, NodeKind};
    /// # use canopy_data::{Format, NodeType, Registry};
    /// let mut registry = Registry::<(), ()>::new().with_seed(42);
    /// registry.register(NodeType::new("Salted", "", Arity::Leaf, vec![], |p| {
    ///     assert_eq!((p.seed(), p.index()), (42, 1)); // the second node of the file
    ///     Ok(NodeKind::AlwaysSuccess)
    /// })).unwrap();
    /// registry.load_str(r#"{"tree": {"type": "Inverter", "children": [{"type": "Salted"}]}}"#,
    ///     Format::Json, "s").unwrap();
    /// ```
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// This node's position in the file (0 for the first node read), stable
    /// across loads of the same file: a per-node salt for randomness
    /// (see [`Params::seed`]).
    pub fn index(&self) -> u64 {
        self.index
    }

    /// The parameters as printed trees show them, in declaration order;
    /// absent optional ones are left out.
    pub(crate) fn shown(&self) -> Vec<(String, String)> {
        self.values
            .iter()
            .filter_map(|(param, value)| {
                let mut text = String::new();
                render(&param.kind, value, &mut text).then(|| (param.name.clone(), text))
            })
            .collect()
    }
}

/// Write a value as printed trees show it: numbers at their shortest,
/// strings in double quotes (a comma in one cannot pass for a separator),
/// words of a choice bare, points and lists in brackets. `false` when the
/// value is not shown (absent, or a guard's condition).
fn render(kind: &ParamKind, value: &Checked, out: &mut String) -> bool {
    match value {
        Checked::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Checked::Float(x) => out.push_str(&number(*x)),
        Checked::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Checked::Text(word) if matches!(kind, ParamKind::Choice(_)) => out.push_str(word),
        Checked::Text(text) => {
            out.push('"');
            for c in text.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
        Checked::Statuses(list) => {
            let words: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            let _ = write!(out, "[{}]", words.join(", "));
        }
        Checked::Point(coordinates, dims) => {
            let shown: Vec<String> = coordinates[..*dims].iter().map(|c| number(*c)).collect();
            let _ = write!(out, "[{}]", shown.join(", "));
        }
        Checked::List(items) => {
            let item_kind = match kind {
                ParamKind::List { item, .. } => item,
                _ => kind,
            };
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render(item_kind, &item.0, out);
            }
            out.push(']');
        }
        Checked::Absent | Checked::Condition => return false,
    }
    true
}
