//! [`ParamError`]: why a parameter's value was refused, or why a node
//! type's factory refused a node.

use std::fmt;

use crate::util::text::{did_you_mean, escape, message, quote, quoted_list};

/// The most choices a message lists.
const LISTED: usize = 10;

/// Why a parameter's value was refused, or why a node type's factory
/// refused a node. Factories return it; [`Params`](struct@crate::Params)' getters
/// produce it, so that `?` works in a factory.
///
/// ```
/// use canopy_core::params::ParamError;
/// let e = ParamError::invalid("min_ticks (5) must not exceed max_ticks (3)");
/// assert_eq!(e.to_string(), "min_ticks (5) must not exceed max_ticks (3)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamError {
    /// The value is of the wrong kind.
    WrongKind {
        /// The parameter; for an item of a list or a point, with its
        /// index: `points[2]`, `points[2][0]`.
        param: String,
        /// What it must be: `"an integer"`, `"a number"`, `"true or false"`,
        /// `"a string"`, `"a non-empty list of statuses"`, `"a list"`,
        /// `"a point [x, y]"`, `"a point [x, y, z]"`.
        expected: &'static str,
        /// The value found, as messages show it.
        got: String,
    },
    /// A number outside the parameter's range, or a list of a length
    /// outside its bounds.
    OutOfRange {
        /// The parameter, or the item (`points[2][0]`).
        param: String,
        /// `"at least 1"`, `"at most 2147483647"`, `"in 0..=1"`,
        /// `"a list of at least 2 items"`.
        expected: String,
        /// The number found, as messages show it.
        got: String,
    },
    /// A word that is not one of the parameter's choices.
    NotAChoice {
        /// The parameter.
        param: String,
        /// The choices.
        choices: Vec<String>,
        /// The word found.
        word: String,
        /// A close choice, if any.
        suggestion: Option<String>,
    },
    /// An item of a status list that is not a status word.
    NotAStatus {
        /// The parameter.
        param: String,
        /// The item's index.
        index: usize,
        /// The item, as messages show it.
        got: String,
        /// A close status word, if any.
        suggestion: Option<&'static str>,
    },
    /// A factory asked for a parameter its type does not declare.
    Undeclared {
        /// The node type.
        type_name: String,
        /// The parameter asked for.
        param: String,
    },
    /// A factory asked for a parameter as the wrong kind.
    NotOfKind {
        /// The parameter.
        param: String,
        /// The kind asked for: `"an integer"`, `"a number"`, …
        expected: &'static str,
    },
    /// A factory asked for an optional parameter the file does not give
    /// as a value (read it as an `Option`).
    Absent {
        /// The parameter.
        param: String,
    },
    /// A factory asked for a parameter as a type that cannot read its kind.
    NotReadable {
        /// The parameter.
        param: String,
        /// The type asked for.
        as_type: &'static str,
    },
    /// An integer parameter asked for as `u32` does not fit.
    DoesNotFit {
        /// The parameter.
        param: String,
        /// Its value.
        value: i64,
    },
    /// A factory's own reason (parameters that contradict each other).
    Invalid(String),
}

impl ParamError {
    /// A factory's own reason for refusing a node.
    pub fn invalid(reason: impl Into<String>) -> ParamError {
        ParamError::Invalid(reason.into())
    }
}

impl From<String> for ParamError {
    fn from(reason: String) -> ParamError {
        ParamError::Invalid(reason)
    }
}

impl From<&str> for ParamError {
    fn from(reason: &str) -> ParamError {
        ParamError::Invalid(reason.to_string())
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::WrongKind {
                param,
                expected,
                got,
            } => write!(
                f,
                "parameter {} must be {expected}, got {got}",
                quote(param)
            ),
            ParamError::OutOfRange {
                param,
                expected,
                got,
            } => write!(
                f,
                "parameter {} must be {expected}, got {got}",
                quote(param)
            ),
            ParamError::NotAChoice {
                param,
                choices,
                word,
                suggestion,
            } => write!(
                f,
                "parameter {} must be one of {}, got {}{}",
                quote(param),
                quoted_list(
                    choices.iter().map(String::as_str),
                    choices.len(),
                    LISTED,
                    ", "
                ),
                quote(word),
                did_you_mean(suggestion.as_deref())
            ),
            ParamError::NotAStatus {
                param,
                index,
                got,
                suggestion,
            } => write!(
                f,
                "parameter {}: item {index} is {got}, not \"Running\", \"Success\" or \"Failure\"{}",
                quote(param),
                did_you_mean(*suggestion)
            ),
            ParamError::Undeclared { type_name, param } => write!(
                f,
                "{} declares no parameter {}",
                escape(type_name),
                quote(param)
            ),
            ParamError::NotOfKind { param, expected } => {
                write!(f, "parameter {} is not {expected}", quote(param))
            }
            ParamError::Absent { param } => write!(
                f,
                "parameter {} is optional and not given: read it as an `Option`",
                quote(param)
            ),
            ParamError::NotReadable { param, as_type } => write!(
                f,
                "parameter {} cannot be read as `{as_type}`",
                quote(param)
            ),
            ParamError::DoesNotFit { param, value } => write!(
                f,
                "parameter {} = {value} does not fit in 0..=4294967295",
                quote(param)
            ),
            // A factory's words may quote the file: bound and escape them.
            ParamError::Invalid(reason) => f.write_str(&message(reason)),
        }
    }
}

impl std::error::Error for ParamError {}
