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
//! Considered and rejected: a per-agent `HashMap<String, Box<dyn Any>>`
//! (BehaviorTree.CPP's shape: an allocation per write of a new key, a hash
//! per read, types found wrong at run time), and one `enum Value` per
//! slot (every read a match, every slot as large as the largest type).

use std::any::{TypeId, type_name};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

/// A type a blackboard slot can hold: plain bytes of a fixed size, copied
/// in and out of an agent's memory.
///
/// Implemented for the integers, `f32`, `f64`, `bool`, points (`[f32; 2]`,
/// `[f32; 3]`, `[f64; 2]`, `[f64; 3]`) and [`Text`]; for a plain-bytes type
/// of your own, use [`board_value!`](crate::board_value).
pub trait BoardValue: Copy + PartialEq + Send + Sync + 'static {
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
}

/// Implements [`BoardValue`] for plain-bytes types (`bytemuck::Pod`): a
/// game's own `Copy` types as blackboard values.
///
/// ```
/// use canopy_core::{BoardValue, board_value};
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
/// ```
#[macro_export]
macro_rules! board_value {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::BoardValue for $t {
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
        }
    )*};
}

macro_rules! numbers {
    ($($t:ty => $name:literal),*) => {$(
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
        }
    )*};
}

numbers!(
    i8 => "int8_t", i16 => "int16_t", i32 => "int", i64 => "int64_t",
    u8 => "uint8_t", u16 => "uint16_t", u32 => "unsigned int", u64 => "uint64_t",
    f32 => "float", f64 => "double"
);

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
}

/// The type of a blackboard slot, fixed when the tree is built: two ports
/// bound to one key must agree on it.
///
/// ```
/// use canopy_core::{SlotType, Text};
/// assert_eq!(SlotType::of::<f64>().name(), "double");
/// assert_eq!(SlotType::of::<Text>().size(), 32);
/// assert_ne!(SlotType::of::<f32>(), SlotType::of::<f64>());
/// // A type known only by name (a node model's port type): no value.
/// let pose = SlotType::named("geometry_msgs::msg::PoseStamped");
/// assert_eq!((pose.size(), pose.name()), (0, "geometry_msgs::msg::PoseStamped"));
/// ```
#[derive(Clone)]
pub struct SlotType {
    name: Arc<str>,
    size: u32,
    id: Option<TypeId>,
    show: fn(&[u8]) -> String,
}

impl SlotType {
    /// The type of slots holding `T`.
    pub fn of<T: BoardValue>() -> SlotType {
        SlotType {
            name: Arc::from(T::NAME),
            size: T::SIZE as u32,
            id: Some(TypeId::of::<T>()),
            show: |bytes| T::read(bytes).show(),
        }
    }

    /// A type known only by its name, as a node model declares a port's
    /// type for a node whose code is not here: it holds no value, and two
    /// ports connect only if they name the same type.
    pub fn named(name: &str) -> SlotType {
        SlotType {
            name: Arc::from(name),
            size: 0,
            id: None,
            show: |_| "(no value: a type known only by name)".to_string(),
        }
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
        self.id == Some(TypeId::of::<T>())
    }

    /// A slot's bytes as an inspector shows its value.
    pub fn show(&self, bytes: &[u8]) -> String {
        if bytes.len() == self.size() && self.id.is_some() {
            (self.show)(bytes)
        } else {
            (SlotType::named("").show)(bytes)
        }
    }
}

impl PartialEq for SlotType {
    fn eq(&self, other: &Self) -> bool {
        match (self.id, other.id) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.name == other.name,
            _ => false,
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

/// One agent's blackboard, as leaves and nodes see it during a tick
/// ([`Ctx::board`](crate::Ctx::board)).
pub struct Board<'a> {
    bytes: &'a mut [u8],
}

impl<'a> Board<'a> {
    /// A blackboard over these bytes.
    pub(crate) fn new(bytes: &'a mut [u8]) -> Board<'a> {
        Board { bytes }
    }

    /// A blackboard with no slots (for contexts of trees without keys).
    pub fn empty() -> Board<'a> {
        Board { bytes: &mut [] }
    }

    /// The value of an input port: its constant, or its key's value now.
    #[inline]
    pub fn get<T: BoardValue>(&self, input: &Input<T>) -> T {
        match input {
            Input::Value(v) => *v,
            Input::Key(key) => self.read(*key),
        }
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

    /// Write a key.
    ///
    /// # Panics
    /// If the key is not of this agent's tree.
    #[inline]
    pub fn write<T: BoardValue>(&mut self, key: Key<T>, value: T) {
        let at = key.offset();
        value.write(&mut self.bytes[at..at + T::SIZE]);
    }

    /// `len` bytes at `offset`, if the blackboard has them.
    pub(crate) fn raw(&self, offset: usize, len: usize) -> Option<&[u8]> {
        self.bytes.get(offset..offset.checked_add(len)?)
    }

    /// `len` bytes at `offset`, writable, if the blackboard has them.
    pub(crate) fn raw_mut(&mut self, offset: usize, len: usize) -> Option<&mut [u8]> {
        self.bytes.get_mut(offset..offset.checked_add(len)?)
    }

    /// The raw bytes of slot `slot` (for scripts and tools that hold a
    /// [`SlotRef`]).
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
