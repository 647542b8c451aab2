//! The blackboard: data between nodes, typed and laid out when the tree is
//! built.
//!
//! BehaviorTree.CPP passes data between nodes through a blackboard: a
//! string-keyed map of type-erased values behind a mutex, one per tree
//! instance, whose entries take their type when first written, at run time
//! — the source of its users' most frequent complaints (types locked by
//! whichever node wrote first, races, remapping surprises). A canopy tree
//! is built once, so every key, every port and every type is known before
//! any agent runs: each key becomes a **slot** at a fixed place in each
//! agent's own memory, beside its tasks, with one type fixed at build; a
//! port bound to a key is that place ([`Key`]). Reading a port is reading a
//! few bytes at a known offset — no map, no string, no lock, no
//! allocation — and writing one is writing them. The values are part of
//! the agent's memory, so snapshots carry them and hot reload keeps those
//! whose key and type are unchanged.
//!
//! A node type declares its ports as parameters ([`Input`], [`Output`]):
//! in a tree file a port holds a literal (`"speed": 2.5`) or a key
//! (`"goal": "{target}"`); code builds them from a [`Key`] the builder
//! made ([`Builder::key`](crate::Builder::key)). The value types are
//! [`BoardValue`]s: numbers, `bool`, points, [`Text`] (a string stored in
//! place, so copying one allocates nothing), and plain-bytes types of a
//! game's own.
//!
//! **Update counters.** BehaviorTree.CPP counts the writes of each entry
//! (its `sequence_id`), which its entry-update nodes compare. canopy
//! counts only the keys such a node names, known when the tree is built
//! ([`Updates`]): each gets a `u32` counter in the agent's blackboard bytes,
//! so snapshots carry it and hot reload keeps it with its key. Every write
//! of a counted key — a port, a script, [`Board::write`] from the game —
//! adds one to its counter; [`Board::unset`] empties it. A tree without
//! counted keys pays one test of an empty list per write and nothing per
//! read; a tree with them looks the written offset up among its few
//! counted keys. Rejected: a counter for every key (every write of every
//! tree pays it), and counters kept outside the agent's memory (snapshots
//! and reloads would have to carry them separately).
//!
//! Considered and rejected: a per-agent `HashMap<String, Box<dyn Any>>`
//! (BehaviorTree.CPP's shape: an allocation per write of a new key, a hash
//! per read, types found wrong at run time), and one `enum Value` per
//! slot (every read a match, every slot as large as the largest type).

use std::any::{TypeId, type_name};
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use crate::util::convert::{self, ConvertError};

/// A type a blackboard slot can hold: plain bytes of a fixed size, copied
/// in and out of an agent's memory.
///
/// Implemented for the integers, `f32`, `f64`, `bool`, points (`[f32; 2]`,
/// `[f32; 3]`, `[f64; 2]`, `[f64; 3]`) and [`Text`]; for a plain-bytes type
/// of your own, use [`board_value!`](crate::board_value).
pub trait BoardValue: Copy + PartialEq + Zeroable + Send + Sync + 'static {
    /// Bytes in an agent's memory.
    const SIZE: usize;
    /// The name tools and messages give the type (`double`, `bool`, as a
    /// BehaviorTree.CPP node model writes it, for the common ones).
    const NAME: &'static str;
    /// The value in `bytes` (exactly [`SIZE`](Self::SIZE) of them). Any
    /// bytes make some value: restored memory cannot misread.
    fn read(bytes: &[u8]) -> Self;
    /// Write the value into `bytes` (exactly [`SIZE`](Self::SIZE)).
    fn write(&self, bytes: &mut [u8]);
    /// The value as an inspector shows it.
    fn show(&self) -> String;
    /// The value a text stands for, as BehaviorTree.CPP's
    /// `convertFromString` reads it: what a port of this type reads from
    /// a string entry, and what a script's string assigned to a key of
    /// this type becomes. A type without a conversion (the default) says
    /// [`ConvertError::NoConversion`], as BehaviorTree.CPP throws for a
    /// type without a `convertFromString` specialisation.
    fn parse(_text: &str) -> Result<Self, ConvertError> {
        Err(ConvertError::NoConversion)
    }
}

/// Implements [`BoardValue`] for plain-bytes types (`bytemuck::Pod`): a
/// game's own `Copy` types as blackboard values. With `from_text = F`
/// (a `fn(&str) -> Result<T, ConvertError>`), the type also reads from
/// text as BehaviorTree.CPP's `convertFromString<T>` specialisation does:
/// a script assigning `'1;2'` to a key of the type, or a port of the type
/// reading a string key, converts through it.
///
/// ```
/// use canopy_core::{board_value, board::BoardValue, convert::ConvertError};
/// use canopy_core::bytemuck::{Pod, Zeroable};
///
/// #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
/// #[repr(C)]
/// struct Cell { x: i16, y: i16 }
/// board_value!(Cell);
///
/// let mut bytes = [0u8; 4];
/// Cell { x: 3, y: -1 }.write(&mut bytes);
/// assert_eq!(Cell::read(&bytes), Cell { x: 3, y: -1 });
/// assert_eq!(<Cell as BoardValue>::NAME, "Cell");
/// assert_eq!(Cell::parse("3;-1"), Err(ConvertError::NoConversion));
///
/// #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
/// #[repr(C)]
/// struct Spot { x: f64, y: f64 }
/// fn spot(text: &str) -> Result<Spot, ConvertError> {
///     let [x, y] = canopy_core::convert::text_to_point::<2>(text)?;
///     Ok(Spot { x, y })
/// }
/// board_value!(Spot, from_text = spot);
/// assert_eq!(Spot::parse("-1;3"), Ok(Spot { x: -1.0, y: 3.0 }));
/// ```
#[macro_export]
macro_rules! board_value {
    ($t:ty, from_text = $parse:expr $(,)?) => {
        $crate::board_value!(@impl $t, fn parse(text: &str) -> ::core::result::Result<Self, $crate::convert::ConvertError> {
            let parse: fn(&str) -> ::core::result::Result<$t, $crate::convert::ConvertError> = $parse;
            parse(text)
        });
    };
    ($($t:ty),* $(,)?) => {$(
        $crate::board_value!(@impl $t,);
    )*};
    (@impl $t:ty, $($parse:item)?) => {
        impl $crate::board::BoardValue for $t {
            const SIZE: usize = ::core::mem::size_of::<$t>();
            const NAME: &'static str = stringify!($t);
            fn read(bytes: &[u8]) -> Self {
                $crate::bytemuck::pod_read_unaligned(bytes)
            }
            fn write(&self, bytes: &mut [u8]) {
                bytes.copy_from_slice($crate::bytemuck::bytes_of(self));
            }
            fn show(&self) -> ::std::string::String {
                ::std::format!("{:?}", self)
            }
            $($parse)?
        }
    };
}

macro_rules! numbers {
    ($($t:ty => $name:literal, $parse:expr;)*) => {$(
        impl BoardValue for $t {
            const SIZE: usize = size_of::<$t>();
            const NAME: &'static str = $name;
            fn read(bytes: &[u8]) -> Self {
                bytemuck::pod_read_unaligned(bytes)
            }
            fn write(&self, bytes: &mut [u8]) {
                bytes.copy_from_slice(&self.to_le_bytes());
            }
            fn show(&self) -> String {
                self.to_string()
            }
            fn parse(text: &str) -> Result<Self, ConvertError> {
                let parse: fn(&str) -> Result<$t, ConvertError> = $parse;
                parse(text)
            }
        }
    )*};
}

// BehaviorTree.CPP's `convertFromString` for each: the number at the
// start of the text, checked against the type's range.
numbers! {
    i8 => "int8_t", |s| convert::text_to_int(s, i8::MIN.into(), i8::MAX.into()).map(|v| v as i8);
    i16 => "int16_t", |s| convert::text_to_int(s, i16::MIN.into(), i16::MAX.into()).map(|v| v as i16);
    i32 => "int", |s| convert::text_to_int(s, i32::MIN.into(), i32::MAX.into()).map(|v| v as i32);
    i64 => "int64_t", |s| convert::text_to_int(s, i64::MIN, i64::MAX);
    u8 => "uint8_t", |s| convert::text_to_uint(s, u8::MAX.into()).map(|v| v as u8);
    u16 => "uint16_t", |s| convert::text_to_uint(s, u16::MAX.into()).map(|v| v as u16);
    u32 => "unsigned int", |s| convert::text_to_uint(s, u32::MAX.into()).map(|v| v as u32);
    u64 => "uint64_t", |s| convert::text_to_uint(s, u64::MAX);
    f32 => "float", |s| {
        let v = convert::text_to_f64(s)?;
        // `from_chars` for a float: out of range when the value is not.
        if v.is_finite() && (v as f32).is_infinite() {
            return Err(ConvertError::OutOfRange);
        }
        Ok(v as f32)
    };
    f64 => "double", convert::text_to_f64;
}

impl BoardValue for bool {
    const SIZE: usize = 1;
    const NAME: &'static str = "bool";
    fn read(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    fn write(&self, bytes: &mut [u8]) {
        bytes[0] = u8::from(*self);
    }
    fn show(&self) -> String {
        self.to_string()
    }
    fn parse(text: &str) -> Result<Self, ConvertError> {
        convert::text_to_bool(text)
    }
}

macro_rules! points {
    ($($t:ty, $n:literal => $name:literal;)*) => {$(
        impl BoardValue for [$t; $n] {
            const SIZE: usize = size_of::<[$t; $n]>();
            const NAME: &'static str = $name;
            fn read(bytes: &[u8]) -> Self {
                bytemuck::pod_read_unaligned(bytes)
            }
            fn write(&self, bytes: &mut [u8]) {
                bytes.copy_from_slice(bytemuck::bytes_of(self));
            }
            fn show(&self) -> String {
                let shown: Vec<String> = self.iter().map(|c| c.to_string()).collect();
                format!("[{}]", shown.join(", "))
            }
            /// `x;y` (or `x;y;z`), as BehaviorTree.CPP splits vectors.
            fn parse(text: &str) -> Result<Self, ConvertError> {
                let v = convert::text_to_point::<$n>(text)?;
                Ok(v.map(|c| c as $t))
            }
        }
    )*};
}

points! {
    f32, 2 => "canopy::Point2f";
    f32, 3 => "canopy::Point3f";
    f64, 2 => "canopy::Point2";
    f64, 3 => "canopy::Point3";
}

/// Bytes a [`Text`] holds, at most.
pub const TEXT_BYTES: usize = 31;

/// A string stored in place: at most [`TEXT_BYTES`] bytes of UTF-8, so a
/// blackboard string is copied, compared and saved with no allocation. A
/// longer string is cut at the last whole character that fits (names,
/// states and modes, what trees pass around, are short; anything long
/// belongs in the agent's data).
///
/// ```
/// use canopy_core::Text;
/// assert_eq!(Text::new("FollowPath").as_str(), "FollowPath");
/// assert_eq!(Text::new(&"é".repeat(20)).as_str(), "é".repeat(15)); // 30 bytes of 40
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Pod, Zeroable)]
#[repr(C)]
pub struct Text {
    len: u8,
    bytes: [u8; TEXT_BYTES],
}

impl Text {
    /// `text`, cut to [`TEXT_BYTES`] at a character boundary.
    pub fn new(text: &str) -> Text {
        let mut end = text.len().min(TEXT_BYTES);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut bytes = [0; TEXT_BYTES];
        bytes[..end].copy_from_slice(&text.as_bytes()[..end]);
        Text {
            len: end as u8,
            bytes,
        }
    }

    /// The string. Bytes that are not UTF-8 (only damaged memory holds
    /// them) read as the longest valid start.
    pub fn as_str(&self) -> &str {
        let bytes = &self.bytes[..(self.len as usize).min(TEXT_BYTES)];
        match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::new("")
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::new(text)
    }
}

impl BoardValue for Text {
    const SIZE: usize = size_of::<Text>();
    const NAME: &'static str = "std::string";
    fn read(bytes: &[u8]) -> Self {
        bytemuck::pod_read_unaligned(bytes)
    }
    fn write(&self, bytes: &mut [u8]) {
        bytes.copy_from_slice(bytemuck::bytes_of(self));
    }
    fn show(&self) -> String {
        crate::util::text::quote(self.as_str())
    }
    fn parse(text: &str) -> Result<Self, ConvertError> {
        Ok(Text::new(text))
    }
}

/// The type of a blackboard slot, fixed when the tree is built: two ports
/// bound to one key must agree on it.
///
/// ```
/// use canopy_core::{Text, board::SlotType};
/// assert_eq!(SlotType::of::<f64>().name(), "double");
/// assert_eq!(SlotType::of::<Text>().size(), 32);
/// assert_ne!(SlotType::of::<f32>(), SlotType::of::<f64>());
/// // A type known only by name (a node model's port type) holds its
/// // value as text, as BehaviorTree.CPP hands such values to the code
/// // that converts them.
/// let pose = SlotType::named("geometry_msgs::msg::PoseStamped");
/// assert_eq!((pose.size(), pose.name(), pose.is_named()), (32, "geometry_msgs::msg::PoseStamped", true));
/// // A port of any type (BehaviorTree.CPP's `AnyTypeAllowed`, `BT::Any`)
/// // takes the type of the key's other uses.
/// assert!(SlotType::any().is_any());
/// ```
#[derive(Clone)]
pub struct SlotType {
    name: Arc<str>,
    size: u32,
    id: Option<TypeId>,
    kind: SlotKind,
    show: fn(&[u8]) -> String,
    parse: fn(&str, &mut [u8]) -> Result<(), ConvertError>,
}

/// What a slot type is made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotKind {
    /// A [`BoardValue`].
    Value,
    /// A type known by name only: its value as text.
    Named,
    /// Any type: a port that takes the key's type from its other uses.
    Any,
    /// A key's update counter ([`Updates`]).
    Updates,
}

impl SlotType {
    /// The type of slots holding `T`.
    pub fn of<T: BoardValue>() -> SlotType {
        SlotType {
            name: Arc::from(T::NAME),
            size: T::SIZE as u32,
            id: Some(TypeId::of::<T>()),
            kind: SlotKind::Value,
            show: |bytes| T::read(bytes).show(),
            parse: |text, bytes| {
                T::parse(text)?.write(bytes);
                Ok(())
            },
        }
    }

    /// A type known only by its name, as a node model declares a port's
    /// type for a node whose code is not here: its value is held as
    /// text (what BehaviorTree.CPP would hand the node's code to convert),
    /// and two ports connect only if they name the same type.
    pub fn named(name: &str) -> SlotType {
        SlotType {
            name: Arc::from(name),
            kind: SlotKind::Named,
            ..SlotType::of::<Text>()
        }
    }

    /// Any type, as BehaviorTree.CPP's `AnyTypeAllowed` and `BT::Any`
    /// ports are: a port of this type takes the type the key has from
    /// its other uses, and a key only such ports use holds text.
    pub fn any() -> SlotType {
        SlotType {
            name: Arc::from("AnyTypeAllowed"),
            kind: SlotKind::Any,
            ..SlotType::of::<Text>()
        }
    }

    /// The update counter of a key, as a port of type [`Updates`] asks for
    /// it: a loader resolving such a port to key `k` gets `k`'s counter
    /// (made on first use), not `k`'s slot, and `k` keeps its own type.
    ///
    /// ```
    /// use canopy_core::{Builder, board::SlotType};
    /// let b = Builder::<(), ()>::new();
    /// b.key::<i32>("n").unwrap();
    /// let counter = b.port_slot("n", SlotType::updates(), false).unwrap();
    /// assert!(counter.ty.is_updates());
    /// assert_eq!((counter.offset, b.key::<i32>("n").unwrap().offset()), (4, 0));
    /// ```
    pub fn updates() -> SlotType {
        SlotType {
            name: Arc::from("update counter"),
            kind: SlotKind::Updates,
            ..SlotType::of::<u32>()
        }
    }

    /// Whether this is a key's update counter ([`SlotType::updates`]).
    pub fn is_updates(&self) -> bool {
        self.kind == SlotKind::Updates
    }

    /// The type's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes a slot of this type takes in each agent.
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// Whether this is the type of `T`.
    pub fn is<T: BoardValue>(&self) -> bool {
        self.kind == SlotKind::Value && self.id == Some(TypeId::of::<T>())
    }

    /// Whether this is a type known only by name ([`SlotType::named`]).
    pub fn is_named(&self) -> bool {
        self.kind == SlotKind::Named
    }

    /// Whether this is any type ([`SlotType::any`]).
    pub fn is_any(&self) -> bool {
        self.kind == SlotKind::Any
    }

    /// Whether the slot's bytes are a [`Text`]: strings, and the types
    /// known by name or not at all, which hold their value as text.
    pub fn holds_text(&self) -> bool {
        matches!(self.kind, SlotKind::Named | SlotKind::Any)
            || self.kind == SlotKind::Value && self.id == Some(TypeId::of::<Text>())
    }

    /// A slot's bytes as an inspector shows its value.
    pub fn show(&self, bytes: &[u8]) -> String {
        if bytes.len() == self.size() {
            (self.show)(bytes)
        } else {
            "(no value)".to_string()
        }
    }

    /// Write the value `text` stands for into a slot's `bytes`, as
    /// BehaviorTree.CPP's `convertFromString` for the type reads it (a
    /// type known by name, or any type, keeps the text itself).
    ///
    /// ```
    /// use canopy_core::{convert::ConvertError, board::SlotType};
    /// let mut bytes = [0u8; 4];
    /// SlotType::of::<i32>().parse("12abc", &mut bytes).unwrap();
    /// assert_eq!(i32::from_le_bytes(bytes), 12);
    /// assert_eq!(SlotType::of::<i32>().parse("x", &mut bytes), Err(ConvertError::NotANumber));
    /// ```
    pub fn parse(&self, text: &str, bytes: &mut [u8]) -> Result<(), ConvertError> {
        if bytes.len() != self.size() {
            return Err(ConvertError::NoConversion);
        }
        (self.parse)(text, bytes)
    }
}

impl PartialEq for SlotType {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && match self.kind {
                SlotKind::Value => self.id == other.id,
                SlotKind::Named => self.name == other.name,
                SlotKind::Any | SlotKind::Updates => true,
            }
    }
}

impl Eq for SlotType {}

impl std::hash::Hash for SlotType {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h);
        self.size.hash(h);
    }
}

impl fmt::Debug for SlotType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SlotType({})", self.name)
    }
}

impl fmt::Display for SlotType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A typed handle on a blackboard slot of one tree: where its bytes are in
/// an agent's blackboard. Made by the builder ([`Builder::key`](crate::Builder::key))
/// or by a loader for a `{key}` in a file.
pub struct Key<T> {
    offset: u32,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Key<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Key<T> {}

impl<T> PartialEq for Key<T> {
    fn eq(&self, other: &Self) -> bool {
        self.offset == other.offset
    }
}

impl<T> fmt::Debug for Key<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key<{}>@{}", type_name::<T>(), self.offset)
    }
}

impl<T: BoardValue> Key<T> {
    /// The key at `offset` of the blackboard (a loader's or builder's).
    pub(crate) fn at(offset: u32) -> Key<T> {
        Key {
            offset,
            _t: PhantomData,
        }
    }

    /// Its place in the blackboard, in bytes.
    pub fn offset(&self) -> usize {
        self.offset as usize
    }
}

/// A slot as a loader resolved it: its key, where it is and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotRef {
    /// The key's name.
    pub key: Arc<str>,
    /// Its place in the blackboard, in bytes.
    pub offset: u32,
    /// Its type.
    pub ty: SlotType,
}

/// An input port: a value given in the tree, or a blackboard key whose
/// current value is read each time ([`Board::get`]).
///
/// In a tree file: the value itself (`"speed": 2.5`) or a key in braces
/// (`"speed": "{run_speed}"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input<T> {
    /// A constant.
    Value(T),
    /// Read from the blackboard.
    Key(Key<T>),
    /// A string key, converted to `T` each time it is read
    /// ([`BoardValue::parse`]): BehaviorTree.CPP's reading of a string
    /// entry by a port of another type. A loader makes it where a file
    /// asks for it; a text that does not convert fails the node reading
    /// it.
    Converted(Key<Text>),
}

impl<T: BoardValue> From<Key<T>> for Input<T> {
    fn from(key: Key<T>) -> Self {
        Input::Key(key)
    }
}

/// An output port: a blackboard key a node writes ([`Board::set`]), or
/// nothing when the tree leaves it unconnected (writes go nowhere).
///
/// In a tree file: a key in braces (`"reached": "{arrived}"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Output<T>(pub Option<Key<T>>);

impl<T: BoardValue> From<Key<T>> for Output<T> {
    fn from(key: Key<T>) -> Self {
        Output(Some(key))
    }
}

/// The update counter of a key: how many times the key was written since
/// the agent started (BehaviorTree.CPP's `sequence_id` of an entry), read
/// with [`Board::updates`]; and the handle [`Board::unset`] empties the key
/// with. Code asks the builder for one ([`Builder::updates`](crate::Builder::updates)); a node type
/// declares it as a parameter, which in a tree file names the key in
/// braces (`"entry": "{goal}"`), and the loader gives that key a counter
/// ([`SlotType::updates`]). Only such keys are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Updates {
    counter: u32,
}

impl Updates {
    /// The counter at `offset` of the blackboard (a loader's).
    pub(crate) fn at(offset: u32) -> Updates {
        Updates { counter: offset }
    }
}

/// A counted key: its slot, and where its counter is in the blackboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Watch {
    pub(crate) key: Arc<str>,
    /// The slot's place and size, in bytes.
    pub(crate) offset: u32,
    pub(crate) size: u32,
    /// The counter's place: a `u32` ([`COUNT`] bits of writes, and
    /// [`UNSET`]).
    pub(crate) counter: u32,
}

/// The bit of a counter that says its key was unset and not written since.
const UNSET: u32 = 1 << 31;

/// The bits of a counter that count writes (wrapping).
const COUNT: u32 = UNSET - 1;

/// One agent's blackboard, as leaves and nodes see it during a tick
/// ([`Ctx::board`](crate::Ctx::board)).
pub struct Board<'a> {
    bytes: &'a mut [u8],
    /// How many [`Input::Converted`] reads failed in this tick.
    faults: Cell<u32>,
    /// The keys whose writes are counted ([`Updates`]): empty in most
    /// trees.
    watches: &'a [Watch],
}

impl<'a> Board<'a> {
    /// A blackboard over these bytes, counting the writes of `watches`.
    pub(crate) fn new(bytes: &'a mut [u8], watches: &'a [Watch]) -> Board<'a> {
        Board {
            bytes,
            faults: Cell::new(0),
            watches,
        }
    }

    /// A blackboard with no slots (for contexts of trees without keys).
    pub fn empty() -> Board<'a> {
        Board::new(&mut [], &[])
    }

    /// The value of an input port: its constant, or its key's value now.
    /// A [converted](Input::Converted) key whose text does not convert
    /// reads as the type's zero value and is counted
    /// ([`conversion_faults`](Board::conversion_faults)), so the node
    /// reading it fails as BehaviorTree.CPP's would throw;
    /// [`try_get`](Board::try_get) tells the node itself.
    #[inline]
    pub fn get<T: BoardValue>(&self, input: &Input<T>) -> T {
        match input {
            Input::Value(v) => *v,
            Input::Key(key) => self.read(*key),
            Input::Converted(key) => self.converted(*key).unwrap_or_else(|_| {
                self.faults.set(self.faults.get().wrapping_add(1));
                T::zeroed()
            }),
        }
    }

    /// The value of an input port, or why its key's text does not
    /// convert to `T` ([`Input::Converted`]).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Input, Text, convert::ConvertError};
    /// let b = Builder::<(), ()>::new();
    /// let goal = b.key::<Text>("goal").unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// let mut board = agent.board_mut(&tree);
    /// board.write(goal, Text::new("3;4"));
    /// assert_eq!(board.try_get(&Input::<[f64; 2]>::Converted(goal)), Ok([3.0, 4.0]));
    /// board.write(goal, Text::new("north"));
    /// assert_eq!(board.try_get(&Input::<[f64; 2]>::Converted(goal)), Err(ConvertError::NotANumber));
    /// ```
    pub fn try_get<T: BoardValue>(&self, input: &Input<T>) -> Result<T, ConvertError> {
        match input {
            Input::Converted(key) => self.converted(*key),
            other => Ok(self.get(other)),
        }
    }

    fn converted<T: BoardValue>(&self, key: Key<Text>) -> Result<T, ConvertError> {
        T::parse(self.read(key).as_str())
    }

    /// How many [converted](Input::Converted) reads have failed so far in
    /// this tick: a loader wraps the nodes it gave converted ports, and a
    /// node during whose update the count grew fails.
    pub fn conversion_faults(&self) -> u32 {
        self.faults.get()
    }

    /// Write an output port (nothing, if the tree left it unconnected).
    #[inline]
    pub fn set<T: BoardValue>(&mut self, output: &Output<T>, value: T) {
        if let Output(Some(key)) = output {
            self.write(*key, value);
        }
    }

    /// The value of a key.
    ///
    /// # Panics
    /// If the key is not of this agent's tree (its slot lies outside this
    /// blackboard).
    #[inline]
    pub fn read<T: BoardValue>(&self, key: Key<T>) -> T {
        let at = key.offset();
        T::read(&self.bytes[at..at + T::SIZE])
    }

    /// Write a key (a write its [update counter](Updates) counts, if it has
    /// one).
    ///
    /// # Panics
    /// If the key is not of this agent's tree.
    #[inline]
    pub fn write<T: BoardValue>(&mut self, key: Key<T>, value: T) {
        // A tree without counters pays this test; one with them writes out
        // of line, so that this path saves no registers for it.
        if !self.watches.is_empty() {
            return self.write_counted(key, value);
        }
        let at = key.offset();
        value.write(&mut self.bytes[at..at + T::SIZE]);
    }

    /// [`write`](Board::write) in a tree with counters.
    #[cold]
    #[inline(never)]
    fn write_counted<T: BoardValue>(&mut self, key: Key<T>, value: T) {
        let at = key.offset();
        self.count(at);
        value.write(&mut self.bytes[at..at + T::SIZE]);
    }

    /// One more write of the slot at `offset`, if it is counted: out of
    /// the way of the writes of trees without counters.
    #[cold]
    fn count(&mut self, offset: usize) {
        let Some(w) = self.watches.iter().find(|w| w.offset as usize == offset) else {
            return;
        };
        let at = w.counter as usize;
        if let Some(bytes) = self.bytes.get_mut(at..at + 4) {
            let n = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            bytes.copy_from_slice(&((n & COUNT).wrapping_add(1) & COUNT).to_le_bytes());
        }
    }

    /// How many times the counted key was written since the agent started
    /// (wrapping at 2³¹), or `None` while it is [unset](Board::unset).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let hp = b.key::<i32>("hp").unwrap();
    /// let updates = b.updates("hp");
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// let mut board = agent.board_mut(&tree);
    /// assert_eq!(board.updates(updates), Some(0));
    /// board.write(hp, 7);
    /// board.write(hp, 7);
    /// assert_eq!(board.updates(updates), Some(2));
    /// board.unset(updates);
    /// assert_eq!((board.updates(updates), board.read(hp)), (None, 0));
    /// board.write(hp, 3);
    /// assert_eq!(board.updates(updates), Some(1));
    /// ```
    pub fn updates(&self, updates: Updates) -> Option<u32> {
        let at = updates.counter as usize;
        let bytes = self.bytes.get(at..at + 4)?;
        let n = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        (n & UNSET == 0).then_some(n)
    }

    /// Empty a counted key, as BehaviorTree.CPP's `unset` removes an
    /// entry: its value becomes its type's zero (0, false, the empty
    /// string) and its counter reads `None` until the next write, which
    /// counts from 1 again, as a new entry's would. (A slot always holds a
    /// value: where BehaviorTree.CPP throws on reading a removed entry, a
    /// read here gets the zero.)
    pub fn unset(&mut self, updates: Updates) {
        let Some(w) = self.watches.iter().find(|w| w.counter == updates.counter) else {
            return;
        };
        let (at, len, counter) = (w.offset as usize, w.size as usize, w.counter as usize);
        if let Some(bytes) = self.bytes.get_mut(at..at + len) {
            bytes.fill(0);
        }
        if let Some(bytes) = self.bytes.get_mut(counter..counter + 4) {
            bytes.copy_from_slice(&UNSET.to_le_bytes());
        }
    }

    /// `len` bytes at `offset`, if the blackboard has them.
    pub(crate) fn raw(&self, offset: usize, len: usize) -> Option<&[u8]> {
        self.bytes.get(offset..offset.checked_add(len)?)
    }

    /// Copy `len` bytes at `from` to `to`, if the blackboard has both: a
    /// write of the slot at `to`.
    pub(crate) fn copy_within(&mut self, from: usize, to: usize, len: usize) -> Option<()> {
        let end = |at: usize| at.checked_add(len).filter(|&e| e <= self.bytes.len());
        end(from)?;
        end(to)?;
        self.bytes.copy_within(from..from + len, to);
        if !self.watches.is_empty() {
            self.count(to);
        }
        Some(())
    }

    /// `len` bytes at `offset`, to be written, if the blackboard has them:
    /// a write of the slot there.
    pub(crate) fn raw_mut(&mut self, offset: usize, len: usize) -> Option<&mut [u8]> {
        let end = offset.checked_add(len).filter(|&e| e <= self.bytes.len())?;
        if !self.watches.is_empty() {
            self.count(offset);
        }
        Some(&mut self.bytes[offset..end])
    }

    /// The raw bytes of slot `slot` (for scripts and tools that hold a
    /// [`SlotRef`]). What is written through them is not counted
    /// ([`Updates`]): a game writes with [`write`](Board::write).
    pub fn slot_bytes(&mut self, slot: &SlotRef) -> &mut [u8] {
        let at = slot.offset as usize;
        &mut self.bytes[at..at + slot.ty.size()]
    }
}

impl fmt::Debug for Board<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({} bytes)", self.bytes.len())
    }
}
