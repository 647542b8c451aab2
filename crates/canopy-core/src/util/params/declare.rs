//! Declared parameters: what a node type accepts for each field of its
//! node objects ([`Param`], [`ParamKind`]), in words for `canopy nodes`
//! and for error messages.

use crate::util::params::literal::Literal;
use crate::util::text::number;

/// What values a parameter accepts: the data under every declaration,
/// which tools read (`canopy nodes` describes it; the BehaviorTree.CPP
/// export declares ports from it).
///
/// ```
/// use canopy_core::params::{Param, ParamKind};
/// assert_eq!(Param::of::<Vec<[f32; 2]>>("route", "").kind, ParamKind::List {
///     item: Box::new(ParamKind::Point { dims: 2, min: -(f32::MAX as f64), max: f32::MAX as f64 }),
///     min_len: 0,
///     max_len: usize::MAX,
/// });
/// ```
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
    /// A point or vector of `dims` (2 or 3) coordinates, written as a list
    /// of numbers: `[0, 10]`, `[1.5, 0, -2]`; each coordinate in `min..=max`.
    Point {
        /// How many coordinates: 2 or 3.
        dims: usize,
        /// Smallest accepted coordinate.
        min: f64,
        /// Largest accepted coordinate.
        max: f64,
    },
    /// A blackboard port: for an input, a value of the kind `value` or a
    /// key in braces (`"{goal}"`) whose slot holds a `ty`; for an output,
    /// a key only. Two ports bound to one key must agree on `ty`.
    Port {
        /// What a value given in place must be (inputs).
        value: Box<ParamKind>,
        /// The type of the slot a key names.
        ty: crate::util::board::SlotType,
        /// Whether the node writes it (an output port).
        output: bool,
    },
    /// A list of `min_len..=max_len` values, each of the kind `item`:
    /// `[[0, 0], [10, 0]]` for a list of points.
    List {
        /// What each item holds.
        item: Box<ParamKind>,
        /// Fewest items.
        min_len: usize,
        /// Most items.
        max_len: usize,
    },
}

/// One declared parameter of a node type.
///
/// Declare it with the constructor of its kind, then narrow it:
///
/// ```
/// use canopy_core::params::{Param, Ticks};
/// let speed = Param::float("speed", "cells per tick").range(0.0, 10.0).default(1.0);
/// assert_eq!(speed.describe(), "number in 0..=10, default 1.0");
///
/// // Any type that reads from a file: points, lists, ticks, options.
/// let route = Param::of::<Vec<[f32; 2]>>("route", "where to walk").len(2, 16);
/// assert_eq!(route.describe(), "list of 2 to 16 points [x, y], required");
/// let pause = Param::of::<Option<Ticks>>("pause", "ticks to stand still");
/// assert_eq!(pause.describe(), "integer ≥ 0, optional");
/// ```
///
/// A struct with `#[derive(Params)]` declares its parameters from its
/// fields instead: see [`NodeParams`](crate::params::NodeParams).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The field name in tree files.
    pub name: String,
    /// Accepted values.
    pub kind: ParamKind,
    /// Used when the field is absent; `None` makes the parameter required,
    /// and `Some(null)` optional with no value ([`Param::optional`]).
    pub default: Option<Literal>,
    /// One line for `canopy nodes`.
    pub doc: String,
}

/// The extremes of `f32`, as the kind of an `f32` parameter bounds it.
pub(crate) const F32_MAX: f64 = f32::MAX as f64;

impl Param {
    pub(crate) fn new(name: &str, doc: &str, kind: ParamKind) -> Param {
        Param {
            name: name.to_string(),
            kind,
            default: None,
            doc: doc.to_string(),
        }
    }

    /// A whole number (any `i64` until narrowed with [`Param::range`]).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::int("floor", "").range(-2.0, 40.0).describe(), "integer in -2..=40, required");
    /// ```
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
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::count("times", "").describe(), "integer ≥ 1, required");
    /// ```
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

    /// A duration in ticks: a whole number from `min` to 2³¹ − 1
    /// ([`MAX_TICKS`](crate::limits::MAX_TICKS)); read it as a `u32` or a
    /// [`Ticks`](crate::params::Ticks).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::ticks("wait", "", 0).default(5).describe(), "integer ≥ 0, default 5");
    /// ```
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
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::float("gain", "").describe(), "number, required");
    /// ```
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
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::boolean("loud", "").default(false).describe(), "true or false, default false");
    /// ```
    pub fn boolean(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Bool)
    }

    /// Any string.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::text("line", "").default("hello").describe(), "string, default \"hello\"");
    /// ```
    pub fn text(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Text)
    }

    /// One of `words`. With `#[derive(ParamEnum)]` on an enum, the words
    /// are its variants: [`ParamEnum`](crate::ParamEnum).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// let gait = Param::choice("gait", "", &["walk", "run"]).default("walk");
    /// assert_eq!(gait.describe(), "one of \"walk\", \"run\", default \"walk\"");
    /// ```
    pub fn choice(name: &str, doc: &str, words: &[&str]) -> Param {
        let words = words.iter().map(|w| w.to_string()).collect();
        Param::new(name, doc, ParamKind::Choice(words))
    }

    /// A non-empty list of status words.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::statuses("play", "").describe(),
    ///     "list of \"Running\" / \"Success\" / \"Failure\", required");
    /// ```
    pub fn statuses(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Statuses)
    }

    /// A guard condition (a condition node object).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::condition("when", "").describe(), "condition node, required");
    /// ```
    pub fn condition(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Condition)
    }

    /// A reference to an entry of `subtrees`.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::subtree("tree", "").describe(), "name of a subtree, required");
    /// ```
    pub fn subtree(name: &str, doc: &str) -> Param {
        Param::new(name, doc, ParamKind::Subtree)
    }

    /// A 2D or 3D point or vector (`dims` is 2 or 3; other values are
    /// taken as the nearer of the two), written `[x, y]` or `[x, y, z]`.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::point("goal", "", 2).range(0.0, 100.0).describe(),
    ///     "point [x, y], each in 0..=100, required");
    /// ```
    pub fn point(name: &str, doc: &str, dims: usize) -> Param {
        let kind = ParamKind::Point {
            dims: dims.clamp(2, 3),
            min: f64::MIN,
            max: f64::MAX,
        };
        Param::new(name, doc, kind)
    }

    /// A list of values of `item`'s kind, of any length until narrowed
    /// with [`Param::len`]; [`Param::range`] narrows the numbers in it.
    ///
    /// ```
    /// # use canopy_core::params::{Param, ParamKind};
    /// let weights = Param::list("weights", "", ParamKind::Float { min: 0.0, max: 1.0 });
    /// assert_eq!(weights.describe(), "list of numbers in 0..=1, required");
    /// ```
    pub fn list(name: &str, doc: &str, item: ParamKind) -> Param {
        let kind = ParamKind::List {
            item: Box::new(item),
            min_len: 0,
            max_len: usize::MAX,
        };
        Param::new(name, doc, kind)
    }

    /// Narrow the numbers of the parameter to `min..=max`: an integer or a
    /// number, each coordinate of a point, each number of a list. Bounds
    /// are intersected with the kind's own (an `u8` parameter stays within
    /// `0..=255`); other kinds are left as they are.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::of::<u8>("level", "").range(1.0, 1000.0).describe(),
    ///     "integer in 1..=255, required");
    /// ```
    pub fn range(mut self, min: f64, max: f64) -> Param {
        narrow(&mut self.kind, min, max);
        self
    }

    /// Narrow the numbers of the parameter to at least `min`
    /// (as [`Param::range`] does).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::int("n", "").at_least(1.0).describe(), "integer ≥ 1, required");
    /// ```
    pub fn at_least(self, min: f64) -> Param {
        self.range(min, f64::MAX)
    }

    /// Narrow the numbers of the parameter to at most `max`
    /// (as [`Param::range`] does).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::float("p", "").at_most(1.0).describe(), "number ≤ 1, required");
    /// ```
    pub fn at_most(self, max: f64) -> Param {
        self.range(f64::MIN, max)
    }

    /// Require a list parameter to hold `min..=max` items (`usize::MAX`:
    /// no upper bound). Other kinds are left as they are.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::of::<Vec<String>>("lines", "").len(1, usize::MAX).describe(),
    ///     "list of at least 1 string, required");
    /// ```
    pub fn len(mut self, min: usize, max: usize) -> Param {
        if let ParamKind::List {
            min_len, max_len, ..
        } = &mut self.kind
        {
            *min_len = min;
            *max_len = max.max(min);
        }
        self
    }

    /// Make the parameter optional with this default, as a tree file
    /// would write the value (checked when the type is registered).
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::of::<[f32; 2]>("home", "").default([0.0, 5.0]).describe(),
    ///     "point [x, y], default [0.0,5.0]");
    /// ```
    pub fn default(mut self, value: impl Into<Literal>) -> Param {
        self.default = Some(value.into());
        self
    }

    /// Make the parameter optional with no value when it is absent (or
    /// `null`): the factory reads it as an `Option`.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::float("limit", "").optional().describe(), "number, optional");
    /// ```
    pub fn optional(mut self) -> Param {
        self.default = Some(Literal::Null);
        self
    }

    /// Whether the parameter may be absent with no value.
    pub fn is_optional(&self) -> bool {
        matches!(self.default, Some(Literal::Null))
    }

    /// What the parameter accepts, in words, for `canopy nodes` and errors.
    ///
    /// ```
    /// # use canopy_core::params::Param;
    /// assert_eq!(Param::count("times", "").describe(), "integer ≥ 1, required");
    /// ```
    pub fn describe(&self) -> String {
        let kind = describe_kind(&self.kind, false);
        match &self.default {
            Some(Literal::Null) => format!("{kind}, optional"),
            Some(d) => format!("{kind}, default {d}"),
            None => format!("{kind}, required"),
        }
    }
}

/// Intersect the numbers of `kind` with `min..=max`.
fn narrow(kind: &mut ParamKind, min: f64, max: f64) {
    match kind {
        ParamKind::Int { min: lo, max: hi } => {
            // `as` saturates: ±1e300 become the i64 extremes.
            *lo = (*lo).max(min.ceil() as i64);
            *hi = (*hi).min(max.floor() as i64);
        }
        ParamKind::Float { min: lo, max: hi }
        | ParamKind::Point {
            min: lo, max: hi, ..
        } => {
            *lo = lo.max(min);
            *hi = hi.min(max);
        }
        ParamKind::List { item, .. } => narrow(item, min, max),
        ParamKind::Port { value, .. } => narrow(value, min, max),
        _ => {}
    }
}

/// Whether a bound is no bound: an extreme of `f64` or `f32`.
pub(crate) fn open(bound: f64) -> bool {
    ParamKind::no_bound(bound)
}

/// ` in 0..=1`, ` ≥ 0`, ` ≤ 1` or nothing, for a number kind's bounds.
fn bounds(min: f64, max: f64) -> String {
    match (open(min), open(max)) {
        (true, true) => String::new(),
        (false, true) => format!(" ≥ {}", number(min)),
        (true, false) => format!(" ≤ {}", number(max)),
        (false, false) => format!(" in {}..={}", number(min), number(max)),
    }
}

impl ParamKind {
    /// Whether a number's bound is no bound at all: an extreme of `f64`
    /// or `f32`, as a parameter's kind has until it is narrowed.
    ///
    /// ```
    /// use canopy_core::params::ParamKind;
    /// assert!(ParamKind::no_bound(f64::MAX) && ParamKind::no_bound(-(f32::MAX as f64)));
    /// assert!(!ParamKind::no_bound(100.0));
    /// ```
    pub fn no_bound(bound: f64) -> bool {
        bound.abs() == f64::MAX || bound.abs() == F32_MAX
    }

    /// What the kind accepts, in words, as `canopy nodes` and error
    /// messages say it.
    ///
    /// ```
    /// use canopy_core::params::ParamKind;
    /// assert_eq!(ParamKind::Int { min: 1, max: 9 }.describe(), "integer in 1..=9");
    /// ```
    pub fn describe(&self) -> String {
        describe_kind(self, false)
    }
}

/// What a kind accepts, in words; `plural` for the items of a list.
pub(crate) fn describe_kind(kind: &ParamKind, plural: bool) -> String {
    let s = if plural { "s" } else { "" };
    match kind {
        // Bounds at or beyond a 32-bit type's are the field type's, not the
        // node's: "integer ≥ 1" reads better than "in 1..=4294967295" (the
        // load error for a value out of range still gives the exact bounds).
        ParamKind::Int { min, max } => match (*min > i32::MIN as i64, *max < i32::MAX as i64) {
            (false, false) => format!("integer{s}"),
            (true, false) => format!("integer{s} ≥ {min}"),
            (false, true) => format!("integer{s} ≤ {max}"),
            (true, true) => format!("integer{s} in {min}..={max}"),
        },
        ParamKind::Float { min, max } => format!("number{s}{}", bounds(*min, *max)),
        ParamKind::Bool if plural => "booleans".to_string(),
        ParamKind::Bool => "true or false".to_string(),
        ParamKind::Text => format!("string{s}"),
        ParamKind::Choice(words) => {
            let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            if plural {
                quoted.join(" / ")
            } else {
                format!("one of {}", quoted.join(", "))
            }
        }
        ParamKind::Statuses => "list of \"Running\" / \"Success\" / \"Failure\"".to_string(),
        ParamKind::Condition => format!("condition node{s}"),
        ParamKind::Subtree => format!("name{s} of a subtree"),
        ParamKind::Port {
            output: true, ty, ..
        } => format!("output port{s} of {ty}: a blackboard key like \"{{key}}\""),
        ParamKind::Port { value, ty, .. } => format!(
            "{}, or a blackboard key of {ty} like \"{{key}}\"",
            describe_kind(value, plural)
        ),
        ParamKind::Point { dims, min, max } => {
            let shape = point_shape(*dims);
            match bounds(*min, *max) {
                b if b.is_empty() => format!("point{s} {shape}"),
                b => format!("point{s} {shape}, each{b}"),
            }
        }
        ParamKind::List {
            item,
            min_len,
            max_len,
        } => {
            let count = match (*min_len, *max_len) {
                (0, usize::MAX) => String::new(),
                (min, usize::MAX) => format!("at least {min} "),
                (0, max) => format!("at most {max} "),
                (min, max) if min == max => format!("{min} "),
                (min, max) => format!("{min} to {max} "),
            };
            // "list of 1 string", "list of 2 strings".
            let many = !(*min_len == 1 && *max_len == usize::MAX || *max_len == 1);
            format!("list of {count}{}", describe_kind(item, many))
        }
    }
}

/// `[x, y]` or `[x, y, z]`.
pub(crate) fn point_shape(dims: usize) -> &'static str {
    if dims == 2 { "[x, y]" } else { "[x, y, z]" }
}
