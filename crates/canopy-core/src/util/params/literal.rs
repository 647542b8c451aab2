//! [`Literal`]: a parameter's value as a tree file writes it.

use std::fmt;

use crate::util::text::escape;

/// A parameter's value as a tree file writes it — a default, or a value
/// read back from a node to print or export it. The JSON values without
/// objects: what a parameter can hold.
///
/// Written in JSON syntax by `Display` (the way `canopy nodes` shows
/// defaults), strings escaped as [`escape`] does:
///
/// ```
/// use canopy_core::params::Literal;
/// assert_eq!(Literal::from([0.0f32, 5.0]).to_string(), "[0.0,5.0]");
/// assert_eq!(Literal::from("walk").to_string(), "\"walk\"");
/// assert_eq!(Literal::from(3u32).to_string(), "3");
/// assert_eq!(Literal::Null.to_string(), "null");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// No value: an optional parameter left out.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A whole number above `i64::MAX`.
    UInt(u64),
    /// A number with a fraction, finite.
    Float(f64),
    /// A string or a word.
    Text(String),
    /// A list: a point's coordinates, a list parameter's items.
    List(Vec<Literal>),
}

impl Literal {
    /// The number, if this is one.
    ///
    /// ```
    /// assert_eq!(canopy_core::params::Literal::Int(2).as_f64(), Some(2.0));
    /// ```
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Literal::Int(n) => Some(n as f64),
            Literal::UInt(n) => Some(n as f64),
            Literal::Float(x) => Some(x),
            _ => None,
        }
    }

    /// The whole number, if this is one that fits in `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Literal::Int(n) => Some(n),
            Literal::UInt(n) => i64::try_from(n).ok(),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Literal::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Literal::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_list(&self) -> Option<&[Literal]> {
        match self {
            Literal::List(items) => Some(items),
            _ => None,
        }
    }

    /// Whether this is [`Literal::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Literal::Null)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => f.write_str("null"),
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Int(n) => write!(f, "{n}"),
            Literal::UInt(n) => write!(f, "{n}"),
            // `{:?}` writes the shortest form that reads back, with `.0`
            // on whole numbers, as JSON writers do.
            Literal::Float(x) => write!(f, "{x:?}"),
            Literal::Text(s) => {
                f.write_str("\"")?;
                for c in escape(s).chars() {
                    if c == '"' {
                        f.write_str("\\\"")?;
                    } else {
                        write!(f, "{c}")?;
                    }
                }
                f.write_str("\"")
            }
            Literal::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Literal {
            fn from(n: $t) -> Literal {
                Literal::Int(n as i64)
            }
        }
    )*};
}

from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<u64> for Literal {
    fn from(n: u64) -> Literal {
        i64::try_from(n).map_or(Literal::UInt(n), Literal::Int)
    }
}

impl From<usize> for Literal {
    fn from(n: usize) -> Literal {
        Literal::from(n as u64)
    }
}

impl From<isize> for Literal {
    fn from(n: isize) -> Literal {
        Literal::Int(n as i64)
    }
}

impl From<f64> for Literal {
    fn from(x: f64) -> Literal {
        Literal::Float(x)
    }
}

impl From<f32> for Literal {
    /// The shortest decimal that reads back as the `f32` (`0.1`, not
    /// `0.10000000149011612`).
    fn from(x: f32) -> Literal {
        Literal::Float(x.to_string().parse::<f64>().unwrap_or(x as f64))
    }
}

impl From<bool> for Literal {
    fn from(b: bool) -> Literal {
        Literal::Bool(b)
    }
}

impl From<&str> for Literal {
    fn from(s: &str) -> Literal {
        Literal::Text(s.to_string())
    }
}

impl From<String> for Literal {
    fn from(s: String) -> Literal {
        Literal::Text(s)
    }
}

impl<T: Into<Literal>> From<Vec<T>> for Literal {
    fn from(items: Vec<T>) -> Literal {
        Literal::List(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Literal>, const N: usize> From<[T; N]> for Literal {
    fn from(items: [T; N]) -> Literal {
        Literal::List(items.into_iter().map(Into::into).collect())
    }
}

impl<T: Into<Literal>> From<Option<T>> for Literal {
    fn from(value: Option<T>) -> Literal {
        value.map_or(Literal::Null, Into::into)
    }
}
