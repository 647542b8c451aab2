//! Checking a file's values against declared parameter kinds.
//!
//! Every kind is checked here, once, with the same messages for built-in
//! and user types; what passes becomes a [`ParamValue`] value the factories
//! read without failing. A list's item is checked as a parameter of its
//! own named `points[2]`, so a wrong item deep in a list of points gets
//! the message a wrong parameter gets, with its place.

use std::fmt;

use canopy_core::text::{number, quote, suggest};
use canopy_core::{
    Params, Status, params::Param, params::ParamError, params::ParamKind, params::ParamValue,
};

use crate::document::{Field, Value, describe, field};
use crate::error::Problem;

/// The values of the parameters `declared`, read from an object's
/// `fields` (the further fields being `own`, the object's own: `type`,
/// `name`, …): a field neither declared nor the object's own is an
/// unknown parameter, a declared one left out takes its default or is
/// missing, and each given value is read by `given` (checked against its
/// kind, or a port made). Errors are made into `E` by `problem`.
pub(crate) fn read_fields<'p, E>(
    type_name: &str,
    declared: &'p [Param],
    fields: &'p [Field<'p>],
    own: &[&str],
    mut given: impl FnMut(&'p Param, &'p Value<'p>) -> Result<ParamValue<'p>, E>,
    problem: impl Fn(Problem) -> E,
) -> Result<Vec<(&'p Param, ParamValue<'p>)>, E> {
    for (key, _) in fields {
        let key = key.as_str();
        if own.contains(&key) || declared.iter().any(|p| p.name == key) {
            continue;
        }
        return Err(problem(Problem::UnknownParam {
            param: key.to_string(),
            type_name: type_name.to_string(),
            suggestion: suggest(key, declared.iter().map(|p| p.name.as_str())).map(str::to_string),
            takes: declared.iter().map(|p| p.name.clone()).collect(),
        }));
    }
    let mut values = Vec::with_capacity(declared.len());
    for param in declared {
        let value = field(fields, &param.name).filter(|v| {
            // `null` is "not given" for an optional parameter (RON's `None`).
            !(matches!(v, Value::Null) && param.is_optional())
        });
        let value = match (value, &param.default) {
            (Some(v), _) => given(param, v)?,
            // Defaults were checked when the type was registered.
            (None, Some(default)) => {
                ParamValue::from_default(&param.kind, default).ok_or_else(|| {
                    problem(Problem::Param(ParamError::invalid(format!(
                        "the default of parameter {} does not fit its kind",
                        quote(&param.name)
                    ))))
                })?
            }
            (None, None) => {
                return Err(problem(Problem::MissingParam {
                    param: param.name.clone(),
                    expects: param.describe(),
                }));
            }
        };
        values.push((param, value));
    }
    Ok(values)
}

/// The parameters `declared` of `type_name`, read from the fields of
/// `object` as a tree node's are (the same checks, defaults and messages),
/// for loaders of other files that declare parameters with
/// [`NodeParams`](canopy_core::params::NodeParams): a state machine's state types
/// and triggers. `own` are the object's fields that are not parameters.
/// A port's value is read as its literal: there is no blackboard to give
/// a key a slot.
///
/// ```
/// use canopy_core::{Params, params::NodeParams};
/// use canopy_data::{Format, parse_document, read_params};
///
/// /// Jumps.
/// #[derive(Params)]
/// struct Jump {
///     /// Ticks in the air.
///     #[param(default = 2, range = 1..=10)]
///     air: u32,
/// }
///
/// let (_, object) = parse_document(br#"{"name": "Up", "air": 3}"#, Format::Json, "s").unwrap();
/// let declared = Jump::declare();
/// let params = read_params("Jump", &declared, &object, &["name"]).unwrap();
/// assert_eq!(Jump::from_params(&params).unwrap().air, 3);
///
/// let (_, wrong) = parse_document(br#"{"name": "Up", "ari": 3}"#, Format::Json, "s").unwrap();
/// assert_eq!(read_params("Jump", &declared, &wrong, &["name"]).unwrap_err().to_string(),
///     "unknown parameter \"ari\" for Jump (did you mean \"air\"?); it takes: air");
/// ```
pub fn read_params<'p>(
    type_name: &'p str,
    declared: &'p [Param],
    object: &'p Value<'p>,
    own: &[&str],
) -> Result<Params<'p>, Problem> {
    let fields = object.as_object().unwrap_or_default();
    let values = read_fields(
        type_name,
        declared,
        fields,
        own,
        |param, given| {
            let kind = match &param.kind {
                ParamKind::Port { value, .. } => value,
                kind => kind,
            };
            check(kind, given, &Place::Param(&param.name)).map_err(Problem::Param)
        },
        |problem| problem,
    )?;
    Ok(Params::new(type_name, values, 0, 0))
}

/// Where a value is: a parameter, or an item of a list or point in one.
#[derive(Clone, Copy)]
pub(crate) enum Place<'n> {
    Param(&'n str),
    Item(&'n Place<'n>, usize),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Param(name) => f.write_str(name),
            Place::Item(outer, index) => write!(f, "{outer}[{index}]"),
        }
    }
}

fn wrong_kind(place: &Place, expected: &'static str, value: &Value) -> ParamError {
    ParamError::WrongKind {
        param: place.to_string(),
        expected,
        got: describe(value),
    }
}

fn out_of_range(place: &Place, expected: String, got: String) -> ParamError {
    ParamError::OutOfRange {
        param: place.to_string(),
        expected,
        got,
    }
}

/// Check `value` against `kind`.
pub(crate) fn check<'d>(
    kind: &ParamKind,
    value: &'d Value<'_>,
    place: &Place,
) -> Result<ParamValue<'d>, ParamError> {
    match kind {
        ParamKind::Int { min, max } => check_int(value, *min, *max, place),
        ParamKind::Float { min, max } => {
            check_float(value, *min, *max, place).map(ParamValue::Float)
        }
        ParamKind::Bool => match value {
            Value::Bool(b) => Ok(ParamValue::Bool(*b)),
            _ => Err(wrong_kind(place, "true or false", value)),
        },
        ParamKind::Text | ParamKind::Subtree => match value.as_str() {
            Some(text) => Ok(ParamValue::Text(text)),
            None => Err(wrong_kind(place, "a string", value)),
        },
        ParamKind::Choice(words) => check_choice(value, words, place),
        ParamKind::Statuses => check_statuses(value, place),
        ParamKind::Condition => Ok(ParamValue::Condition),
        // Keys are resolved by the loader, which knows the tree's
        // blackboard; here, a port's value given in place (or a default).
        ParamKind::Port { value: kind, .. } => check(kind, value, place),
        ParamKind::Point { dims, min, max } => check_point(value, *dims, *min, *max, place),
        ParamKind::List {
            item,
            min_len,
            max_len,
        } => check_list(value, item, *min_len, *max_len, place),
    }
}

fn check_int<'d>(
    value: &Value,
    min: i64,
    max: i64,
    place: &Place,
) -> Result<ParamValue<'d>, ParamError> {
    let bound = |below: bool| {
        if below {
            format!("at least {min}")
        } else {
            format!("at most {max}")
        }
    };
    let n = match *value {
        Value::Int(n) => n,
        // JSON's `-0` reaches the reader as the float -0.0 (an i64 has no
        // negative zero); RON's as the integer 0: both are zero.
        Value::Float(0.0) => 0,
        // A whole number beyond i64 (1e20, 2^64 - 1) is out of range
        // rather than "not an integer".
        Value::UInt(n) => return Err(out_of_range(place, bound(false), n.to_string())),
        Value::Float(x) if x.fract() == 0.0 && x.abs() >= 9.2e18 => {
            return Err(out_of_range(place, bound(x < 0.0), number(x)));
        }
        _ => return Err(wrong_kind(place, "an integer", value)),
    };
    if n < min || n > max {
        return Err(out_of_range(place, bound(n < min), n.to_string()));
    }
    Ok(ParamValue::Int(n))
}

fn check_float(value: &Value, min: f64, max: f64, place: &Place) -> Result<f64, ParamError> {
    let x = value
        .as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| wrong_kind(place, "a number", value))?;
    if x < min || x > max {
        let expected = match (ParamKind::no_bound(min), ParamKind::no_bound(max)) {
            (false, true) => format!("at least {}", number(min)),
            (true, false) => format!("at most {}", number(max)),
            _ => format!("in {}..={}", number(min), number(max)),
        };
        return Err(out_of_range(place, expected, number(x)));
    }
    Ok(x)
}

fn check_choice<'d>(
    value: &'d Value<'_>,
    words: &[String],
    place: &Place,
) -> Result<ParamValue<'d>, ParamError> {
    let word = value
        .as_str()
        .ok_or_else(|| wrong_kind(place, "a string", value))?;
    if words.iter().any(|w| w == word) {
        return Ok(ParamValue::Text(word));
    }
    Err(ParamError::NotAChoice {
        param: place.to_string(),
        choices: words.to_vec(),
        word: word.to_string(),
        suggestion: suggest(word, words.iter().map(String::as_str)).map(str::to_string),
    })
}

fn check_statuses<'d>(value: &Value, place: &Place) -> Result<ParamValue<'d>, ParamError> {
    let list = value
        .as_list()
        .filter(|l| !l.is_empty())
        .ok_or_else(|| wrong_kind(place, "a non-empty list of statuses", value))?;
    let mut statuses = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let word = item.as_str().unwrap_or_default();
        let Some(status) = Status::from_word(word) else {
            let got = match item.as_str() {
                Some(s) => quote(s),
                None => describe(item),
            };
            return Err(ParamError::NotAStatus {
                param: place.to_string(),
                index,
                got,
                suggestion: suggest(word, Status::WORDS),
            });
        };
        statuses.push(status);
    }
    Ok(ParamValue::Statuses(statuses))
}

fn check_point<'d>(
    value: &Value,
    dims: usize,
    min: f64,
    max: f64,
    place: &Place,
) -> Result<ParamValue<'d>, ParamError> {
    let expected = if dims == 2 {
        "a point [x, y]"
    } else {
        "a point [x, y, z]"
    };
    let coordinates = value
        .as_list()
        .filter(|c| c.len() == dims)
        .ok_or_else(|| wrong_kind(place, expected, value))?;
    let mut point = [0.0; 3];
    for (index, (c, slot)) in coordinates.iter().zip(&mut point).enumerate() {
        *slot = check_float(c, min, max, &Place::Item(place, index))?;
    }
    Ok(ParamValue::Point(point, dims))
}

fn check_list<'d>(
    value: &'d Value<'_>,
    item: &ParamKind,
    min_len: usize,
    max_len: usize,
    place: &Place,
) -> Result<ParamValue<'d>, ParamError> {
    let items = value
        .as_list()
        .ok_or_else(|| wrong_kind(place, "a list", value))?;
    if items.len() < min_len || items.len() > max_len {
        let items_word = |n: usize| if n == 1 { "item" } else { "items" };
        let expected = match (min_len, max_len) {
            (min, usize::MAX) => format!("a list of at least {min} {}", items_word(min)),
            (0, max) => format!("a list of at most {max} {}", items_word(max)),
            (min, max) if min == max => format!("a list of exactly {min} {}", items_word(min)),
            (min, max) => format!("a list of {min} to {max} items"),
        };
        let got = format!("{} {}", items.len(), items_word(items.len()));
        return Err(out_of_range(place, expected, got));
    }
    let mut checked = Vec::with_capacity(items.len());
    for (index, value) in items.iter().enumerate() {
        checked.push(check(item, value, &Place::Item(place, index))?);
    }
    Ok(ParamValue::List(checked))
}
