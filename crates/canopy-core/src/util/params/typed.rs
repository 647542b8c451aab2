//! Typed parameters: Rust types that read from a tree file
//! ([`FromParam`]), structs of them that declare a node type's parameters
//! once ([`NodeParams`], with `#[derive(Params)]`), enums of words
//! ([`ParamEnum`], with `#[derive(ParamEnum)]`), and durations ([`Ticks`]).

use crate::util::board::{BoardValue, Input, Key, Output, SlotType, Text, Updates};
use crate::util::params::declare::{F32_MAX, Param, ParamKind};
use crate::util::params::error::ParamError;
use crate::util::params::literal::Literal;
use crate::util::params::value::{ParamValue, Params};
use crate::util::primitives::MAX_TICKS;
use crate::util::status::Status;

// Reading a declared type: these live with `FromParam`, so declarations
// and values do not depend on the typed layer above them.

impl Param {
    /// A parameter read as the type `T`: its kind is `T`'s
    /// ([`FromParam::kind`]), and an `Option` is optional.
    ///
    /// ```
    /// use canopy_core::params::Param;
    /// assert_eq!(Param::of::<u8>("level", "").describe(), "integer in 0..=255, required");
    /// assert_eq!(Param::of::<[f64; 3]>("at", "").describe(), "point [x, y, z], required");
    /// assert_eq!(Param::of::<Option<String>>("say", "").describe(), "string, optional");
    /// ```
    pub fn of<T: FromParam>(name: &str, doc: &str) -> Param {
        let param = Param::new(name, doc, T::kind());
        if T::OPTIONAL { param.optional() } else { param }
    }
}

impl Params<'_> {
    /// A parameter read as the type `T` it was declared as (with
    /// [`Param::of`], or a kind `T` reads): numbers, strings, points,
    /// lists, [`Ticks`](crate::params::Ticks), `Option`s, enums.
    ///
    /// ```
    /// use canopy_core::{Params, params::{Param, ParamValue}};
    /// let (via, laps) = (Param::of::<Vec<[f32; 2]>>("via", ""), Param::of::<Option<u32>>("laps", ""));
    /// let p = Params::new("Route", vec![
    ///     (&via, ParamValue::List(vec![ParamValue::Point([2.5, 1.0, 0.0], 2)])),
    ///     (&laps, ParamValue::Absent),
    /// ], 0, 0);
    /// assert_eq!(p.get::<Vec<[f32; 2]>>("via").unwrap(), [[2.5, 1.0]]);
    /// assert_eq!(p.get::<Option<u32>>("laps").unwrap(), None);
    /// assert_eq!(p.get::<u32>("via").unwrap_err().to_string(),
    ///     "parameter \"via\" cannot be read as `u32`");
    /// ```
    pub fn get<T: FromParam>(&self, name: &str) -> Result<T, ParamError> {
        let value = self.find(name)?;
        T::from_value(value).ok_or_else(|| ParamError::NotReadable {
            param: name.to_string(),
            as_type: std::any::type_name::<T>(),
        })
    }
}

/// A type a parameter can be read as: what a tree file may hold for it,
/// and how to read the checked value.
///
/// Implemented for the integers, `f32`, `f64`, `bool`, `String`,
/// [`Ticks`], `Status`, points (`[f32; 2]`, `[f32; 3]`, `[f64; 2]`,
/// `[f64; 3]`), `Vec<T>` and `Option<T>` of any of them, and by
/// `#[derive(ParamEnum)]` for enums of words.
///
/// A type of your own reads as one of those, converted:
///
/// ```
/// use canopy_core::params::{FromParam, Literal, Param, ParamKind, ParamValue};
///
/// #[derive(Debug, PartialEq)]
/// struct Vec2 { x: f32, y: f32 }
///
/// impl FromParam for Vec2 {
///     fn kind() -> ParamKind { <[f32; 2]>::kind() }
///     fn from_value(value: &ParamValue<'_>) -> Option<Self> {
///         <[f32; 2]>::from_value(value).map(|[x, y]| Vec2 { x, y })
///     }
///     fn to_literal(&self) -> Literal { [self.x, self.y].to_literal() }
///     const NUMERIC: bool = true;
/// }
///
/// assert_eq!(Param::of::<Vec<Vec2>>("path", "").describe(), "list of points [x, y], required");
/// ```
pub trait FromParam: Sized {
    /// What a tree file may hold for it.
    fn kind() -> ParamKind;

    /// Read a value checked against [`kind`](Self::kind) (or a narrower
    /// kind); `None` only for a value of another kind.
    fn from_value(value: &ParamValue<'_>) -> Option<Self>;

    /// The value as a tree file writes it: defaults are kept so, checked
    /// like a file's values, and shown so by `canopy nodes`.
    fn to_literal(&self) -> Literal;

    /// Whether the parameter may be left out: `true` for `Option<T>`.
    const OPTIONAL: bool = false;

    /// Whether it holds numbers a `range` can narrow.
    const NUMERIC: bool = false;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl FromParam for $t {
            fn kind() -> ParamKind {
                // The type's own bounds, within i64 (u64 and usize above
                // 2^63 cannot be written in a file).
                ParamKind::Int {
                    min: i64::try_from(<$t>::MIN).unwrap_or(i64::MIN),
                    max: i64::try_from(<$t>::MAX).unwrap_or(i64::MAX),
                }
            }
            fn from_value(value: &ParamValue<'_>) -> Option<Self> {
                match *value {
                    ParamValue::Int(n) => <$t>::try_from(n).ok(),
                    _ => None,
                }
            }
            fn to_literal(&self) -> Literal {
                Literal::from(*self)
            }
            const NUMERIC: bool = true;
        }
    )*};
}

integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl FromParam for f64 {
    fn kind() -> ParamKind {
        ParamKind::Float {
            min: f64::MIN,
            max: f64::MAX,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match *value {
            ParamValue::Float(x) => Some(x),
            ParamValue::Int(n) => Some(n as f64),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::from(*self)
    }
    const NUMERIC: bool = true;
}

impl FromParam for f32 {
    fn kind() -> ParamKind {
        // Bounded so that every accepted number is a finite f32.
        ParamKind::Float {
            min: -F32_MAX,
            max: F32_MAX,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        f64::from_value(value).map(|x| x as f32)
    }
    fn to_literal(&self) -> Literal {
        Literal::from(*self)
    }
    const NUMERIC: bool = true;
}

impl FromParam for bool {
    fn kind() -> ParamKind {
        ParamKind::Bool
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match *value {
            ParamValue::Bool(b) => Some(b),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Bool(*self)
    }
}

impl FromParam for String {
    fn kind() -> ParamKind {
        ParamKind::Text
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match *value {
            ParamValue::Text(text) => Some(text.to_string()),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Text(self.clone())
    }
}

impl FromParam for Status {
    fn kind() -> ParamKind {
        ParamKind::Choice(Status::WORDS.iter().map(|w| w.to_string()).collect())
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match *value {
            ParamValue::Text(word) => Status::from_word(word),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::from(self.as_str())
    }
}

macro_rules! points {
    ($($t:ty, $n:literal, $max:expr;)*) => {$(
        impl FromParam for [$t; $n] {
            fn kind() -> ParamKind {
                ParamKind::Point { dims: $n, min: -$max, max: $max }
            }
            fn from_value(value: &ParamValue<'_>) -> Option<Self> {
                match *value {
                    ParamValue::Point(c, $n) => Some(std::array::from_fn(|i| c[i] as $t)),
                    _ => None,
                }
            }
            fn to_literal(&self) -> Literal {
                Literal::List(self.iter().map(|&c| Literal::from(c)).collect())
            }
            const NUMERIC: bool = true;
        }
    )*};
}

points! {
    f32, 2, F32_MAX;
    f32, 3, F32_MAX;
    f64, 2, f64::MAX;
    f64, 3, f64::MAX;
}

impl<T: FromParam> FromParam for Vec<T> {
    fn kind() -> ParamKind {
        ParamKind::List {
            item: Box::new(T::kind()),
            min_len: 0,
            max_len: usize::MAX,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match value {
            ParamValue::List(items) => items.iter().map(T::from_value).collect(),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::List(self.iter().map(T::to_literal).collect())
    }
    const NUMERIC: bool = T::NUMERIC;
}

impl<T: FromParam> FromParam for Option<T> {
    fn kind() -> ParamKind {
        T::kind()
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match *value {
            ParamValue::Absent => Some(None),
            _ => T::from_value(value).map(Some),
        }
    }
    fn to_literal(&self) -> Literal {
        self.as_ref().map_or(Literal::Null, T::to_literal)
    }
    const OPTIONAL: bool = true;
    const NUMERIC: bool = T::NUMERIC;
}

/// A non-empty list of statuses, written as status words
/// (`["Running", "Success"]`): a parameter of [`ParamKind::Statuses`],
/// whose errors point at the item that is not a status word.
///
/// ```
/// use canopy_core::params::{Param, Statuses};
/// assert_eq!(Param::of::<Statuses>("play", "").describe(),
///     "list of \"Running\" / \"Success\" / \"Failure\", required");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Statuses(pub Vec<Status>);

impl FromParam for Statuses {
    fn kind() -> ParamKind {
        ParamKind::Statuses
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match value {
            ParamValue::Statuses(list) => Some(Statuses(list.clone())),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::List(self.0.iter().map(|s| Literal::from(s.as_str())).collect())
    }
}

/// A duration in agent ticks, from 0 to 2³¹ − 1 ([`MAX_TICKS`]): the
/// durations canopy's engine counts exactly. A parameter of this type
/// reads an integer in that range.
///
/// ```
/// use canopy_core::params::{Param, Ticks};
/// assert_eq!(Param::of::<Ticks>("rest", "").describe(), "integer ≥ 0, required");
/// assert_eq!(Ticks::new(40).map(Ticks::get), Some(40));
/// assert_eq!(Ticks::new(u32::MAX), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ticks(u32);

impl Ticks {
    /// The longest duration: 2³¹ − 1 ticks.
    pub const MAX: Ticks = Ticks(MAX_TICKS);

    /// `ticks` as a duration, if it is at most [`MAX_TICKS`].
    ///
    /// ```
    /// # use canopy_core::params::Ticks;
    /// assert_eq!(Ticks::new(2_147_483_647), Some(Ticks::MAX));
    /// assert_eq!(Ticks::new(2_147_483_648), None);
    /// ```
    pub const fn new(ticks: u32) -> Option<Ticks> {
        if ticks <= MAX_TICKS {
            Some(Ticks(ticks))
        } else {
            None
        }
    }

    /// The number of ticks.
    ///
    /// ```
    /// # use canopy_core::params::Ticks;
    /// assert_eq!(Ticks::MAX.get(), 2_147_483_647);
    /// ```
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl From<Ticks> for u32 {
    fn from(ticks: Ticks) -> u32 {
        ticks.0
    }
}

impl FromParam for Ticks {
    fn kind() -> ParamKind {
        ParamKind::Int {
            min: 0,
            max: MAX_TICKS as i64,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        u32::from_value(value).and_then(Ticks::new)
    }
    fn to_literal(&self) -> Literal {
        Literal::from(self.0)
    }
    const NUMERIC: bool = true;
}

/// What a `#[param(default = …)]` may be written as for a field of type
/// `T`: a `T`, or a plainer value that stands for one — a string literal
/// for a `String`, an integer for [`Ticks`] (at most [`MAX_TICKS`]), an
/// array for a `Vec`.
///
/// ```
/// use canopy_core::params::{IntoDefault, Ticks};
/// let wait: Ticks = IntoDefault::into_default(30);
/// let name: String = IntoDefault::into_default("guard");
/// let route: Vec<[f32; 2]> = IntoDefault::into_default([[0.0, 0.0], [4.0, 0.0]]);
/// assert_eq!((wait.get(), name.as_str(), route.len()), (30, "guard", 2));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the default of a `{T}` parameter: write a `{T}`",
    label = "not a `{T}`"
)]
pub trait IntoDefault<T> {
    /// The value it stands for.
    fn into_default(self) -> T;
}

impl<T> IntoDefault<T> for T {
    fn into_default(self) -> T {
        self
    }
}

impl IntoDefault<String> for &str {
    fn into_default(self) -> String {
        self.to_string()
    }
}

impl IntoDefault<Ticks> for u32 {
    /// Unchecked here: a default above [`MAX_TICKS`] is refused when the
    /// node type is registered, with the parameter's name.
    fn into_default(self) -> Ticks {
        Ticks(self)
    }
}

impl<T, const N: usize> IntoDefault<Vec<T>> for [T; N] {
    fn into_default(self) -> Vec<T> {
        self.into()
    }
}

/// The parameters of a node type, declared once as a struct: the type's
/// description, each parameter's name, kind, default, range and doc, and
/// how to read the struct from a node's checked values.
///
/// `#[derive(Params)]` implements it, the way clap's derive reads a
/// command line: the struct's doc comment is the node type's description,
/// each field a parameter named as the field, described by its doc
/// comment, read as the field's type ([`FromParam`]). Attributes narrow
/// them:
///
/// | attribute | effect |
/// |---|---|
/// | `#[param(default = 1.5)]` | optional, this value when absent ([`IntoDefault`]: `"text"` for a `String`, `10` for [`Ticks`]) |
/// | `#[param(range = 0.1..=10.0)]`, `range = 1..`, `range = ..=5` | numbers, point coordinates and list items within bounds |
/// | `#[param(len = 2..)]`, `len = 1..=8` | a list's length |
/// | `#[param(rename = "type_name")]` | the field's name in files |
/// | `#[params(check = Self::check)]` on the struct | `fn(&Self) -> Result<(), E>` run after reading, for rules between fields; `E` a `String`, `&str` or [`ParamError`] |
/// | `#[params(crate = "path::to::canopy_core")]` on the struct | when canopy is reached another way than as `canopy`, `canopy-core` or `canopy-data` |
///
/// An `Option<T>` field is optional with no default. A struct without
/// fields declares a type without parameters.
///
/// ```
/// use canopy_core::{Params, params::{NodeParams, Ticks}};
///
/// /// Walks between points, waiting at each.
/// #[derive(Params)]
/// #[params(check = Self::check)]
/// struct PatrolParams {
///     /// The points to walk between, in order.
///     #[param(len = 2..)]
///     points: Vec<[f32; 2]>,
///     /// Ticks to wait at each point.
///     #[param(default = 10)]
///     wait: Ticks,
///     /// Distance walked per tick.
///     #[param(default = 1.0, range = 0.1..=10.0)]
///     speed: f32,
/// }
///
/// impl PatrolParams {
///     fn check(&self) -> Result<(), String> {
///         match self.points.windows(2).position(|w| w[0] == w[1]) {
///             Some(i) => Err(format!("points {i} and {} are the same", i + 1)),
///             None => Ok(()),
///         }
///     }
/// }
///
/// assert_eq!(PatrolParams::description(), "Walks between points, waiting at each.");
/// let described: Vec<String> = PatrolParams::declare().iter()
///     .map(|p| format!("{}: {} — {}", p.name, p.describe(), p.doc)).collect();
/// assert_eq!(described, [
///     "points: list of at least 2 points [x, y], required — The points to walk between, in order.",
///     "wait: integer ≥ 0, default 10 — Ticks to wait at each point.",
///     "speed: number in 0.1..=10, default 1.0 — Distance walked per tick.",
/// ]);
/// ```
///
/// Register a node type with it through `canopy_data`'s
/// `Registry::action`, `Registry::condition` or `Registry::node`. The
/// engine's own node kinds declare their parameters the same way.
pub trait NodeParams: Sized + 'static {
    /// What a node type with these parameters does, in one line.
    fn description() -> &'static str {
        ""
    }

    /// The parameters, in the order `canopy nodes` lists them.
    fn declare() -> Vec<Param>;

    /// The struct, read from a node's checked values.
    fn from_params(params: &Params<'_>) -> Result<Self, ParamError>;

    /// The struct's values, by parameter name, as a tree file writes them:
    /// what a printed tree or an exported file shows of a node built in
    /// code. The derive writes it; the default says nothing.
    fn values(&self) -> Vec<(&'static str, Literal)> {
        Vec::new()
    }
}

/// No parameters.
impl NodeParams for () {
    fn declare() -> Vec<Param> {
        Vec::new()
    }

    fn from_params(_: &Params<'_>) -> Result<Self, ParamError> {
        Ok(())
    }
}

/// An enum whose variants are the words of a parameter, as
/// `#[derive(ParamEnum)]` implements it (with [`FromParam`], so a field
/// of the enum's type reads one word). Words are the variants' names in
/// `snake_case` unless renamed with `#[param(rename = "…")]`.
///
/// ```
/// use canopy_core::{ParamEnum, params::Param};
///
/// #[derive(Debug, PartialEq, ParamEnum)]
/// enum Gait { Walk, Run, #[param(rename = "sneak")] Crouch }
///
/// assert_eq!(Gait::WORDS, ["walk", "run", "sneak"]);
/// assert_eq!(Gait::from_word("sneak"), Some(Gait::Crouch));
/// assert_eq!(Gait::Run.word(), "run");
/// assert_eq!(Param::of::<Gait>("gait", "").describe(), "one of \"walk\", \"run\", \"sneak\", required");
/// ```
pub trait ParamEnum: Sized + 'static {
    /// The words, in declaration order.
    const WORDS: &'static [&'static str];

    /// The variant a word names.
    fn from_word(word: &str) -> Option<Self>;

    /// The word of this variant.
    fn word(&self) -> &'static str;
}

// The blackboard's types as parameters: a text, and ports that hold a
// literal or a key.

impl FromParam for Text {
    fn kind() -> ParamKind {
        ParamKind::Text
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        value.as_str().map(Text::new)
    }
    fn to_literal(&self) -> Literal {
        Literal::from(self.as_str())
    }
}

impl<T: BoardValue + FromParam> FromParam for Input<T> {
    fn kind() -> ParamKind {
        ParamKind::Port {
            value: Box::new(T::kind()),
            ty: SlotType::of::<T>(),
            output: false,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match value {
            ParamValue::Slot(slot) if slot.ty.is::<T>() => Some(Input::Key(Key::at(slot.offset))),
            // A string key a loader let this port read: converted when read.
            ParamValue::Slot(slot) if slot.ty.holds_text() => {
                Some(Input::Converted(Key::at(slot.offset)))
            }
            ParamValue::Slot(_) => None,
            other => T::from_value(other).map(Input::Value),
        }
    }
    fn to_literal(&self) -> Literal {
        match self {
            Input::Value(v) => v.to_literal(),
            // Keys are written by their name by whoever knows the tree.
            Input::Key(_) | Input::Converted(_) => Literal::Null,
        }
    }
    const OPTIONAL: bool = T::OPTIONAL;
    const NUMERIC: bool = T::NUMERIC;
}

impl<T: BoardValue> FromParam for Output<T> {
    fn kind() -> ParamKind {
        ParamKind::Port {
            value: Box::new(ParamKind::Text),
            ty: SlotType::of::<T>(),
            output: true,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match value {
            ParamValue::Slot(slot) if slot.ty.is::<T>() => Some(Output(Some(Key::at(slot.offset)))),
            ParamValue::Absent => Some(Output(None)),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Null
    }
    const OPTIONAL: bool = true;
}

impl FromParam for Updates {
    fn kind() -> ParamKind {
        ParamKind::Port {
            value: Box::new(ParamKind::Text),
            ty: SlotType::updates(),
            output: false,
        }
    }
    fn from_value(value: &ParamValue<'_>) -> Option<Self> {
        match value {
            ParamValue::Slot(slot) if slot.ty.is_updates() => Some(Updates::at(slot.offset)),
            _ => None,
        }
    }
    fn to_literal(&self) -> Literal {
        Literal::Null
    }
}
