//! Scripts: BehaviorTree.CPP's small expression language, compiled when
//! the tree is loaded into a program over the blackboard's slots.
//!
//! A script is statements separated by `;`: assignments (`key := value`
//! makes the key if nothing in the tree made it, `key = value` sets a key
//! that exists, `+= -= *= /=` update one) and expressions over number,
//! string (`'text'` or `"text"`) and bool (`true`, `false`) literals and
//! keys, with `+ - * /`, `..` (joins strings), `== != < <= > >=`,
//! `&& || !`, `& | ^ ~` (on whole numbers), the ternary `c ? a : b` and
//! parentheses, in C's order of precedence. Its value is its last
//! statement's (an assignment's value is the value assigned).
//!
//! ```
//! use canopy_core::{Agent, Builder, Status, ScriptValue};
//! let b = Builder::<(), ()>::new();
//! let hp = b.key::<i32>("hp").unwrap();
//! let script = b.script("hp -= 30; alive := hp > 0; alive ? 'fighting' : 'down'").unwrap();
//! let condition = b.script("alive && hp < 50").unwrap();
//! let tree = b.build(b.always_success("s")).unwrap();
//! let mut agent = Agent::new(&tree);
//! agent.board_mut(&tree).write(hp, 40);
//! assert_eq!(script.run(&mut agent.board_mut(&tree)).unwrap(), ScriptValue::Text("fighting".into()));
//! assert_eq!(agent.board(&tree).read(hp), 10);
//! assert_eq!(condition.test(&agent.board(&tree)), Ok(true));
//! assert_eq!(script.run(&mut agent.board_mut(&tree)).unwrap(), ScriptValue::Text("down".into()));
//! assert_eq!((agent.board(&tree).read(hp), condition.test(&agent.board(&tree))), (-20, Ok(false)));
//! ```
//!
//! # Types, decided at load
//!
//! Values are numbers (`f64`), bools and [`Text`]s. A key keeps the type
//! the tree gave it (a port, the builder, an earlier script); a key first
//! made by a script's `:=` takes the type of the value assigned (a number
//! makes a `double` slot). Integer and `f32` slots read as numbers; other
//! slot types (points, a game's own) cannot be used. Every operator's
//! operands are checked when the script is compiled, so these are load
//! errors in canopy where BehaviorTree.CPP finds them only when the script
//! runs: an unknown key; `=` or `+=` to a key nothing makes; assigning a
//! value of another type to a key (BehaviorTree.CPP converts, or throws at
//! run time); comparing, adding or joining values of two types (it tries
//! to convert a string to a number when the script runs); `+` on strings
//! (join them with `..`); a string literal longer than [`TEXT_BYTES`](crate::TEXT_BYTES).
//!
//! Left to run time (the node fails, [`ScriptFault`]): writing a number
//! that is not whole, or out of range, to an integer slot, and a bitwise
//! operator on a number that is not whole. All arithmetic is in `f64`:
//! `7 / 2` is `3.5` even between integer keys (BehaviorTree.CPP divides
//! integers as integers), and a division by zero gives an infinity.
//! `&&`, `||` evaluate both sides; `? :` only the branch taken.
//!
//! # Bounds
//!
//! A script is untrusted input: at most [`MAX_SCRIPT_BYTES`] bytes, nested at
//! most [`MAX_SCRIPT_NESTING`] deep and chaining at most
//! [`MAX_SCRIPT_HEIGHT`] operators (no recursion overflow), compiled to at most
//! [`MAX_SCRIPT_OPS`] operations needing at most [`MAX_SCRIPT_STACK`]
//! numbers and [`MAX_SCRIPT_TEXTS`] strings at once, so running one takes
//! bounded time and two fixed stack arrays: no allocation.
//!
//! Considered and rejected: interpreting the syntax tree each tick (a
//! pointer chase per operator and a type check per value, each tick), and
//! compiling to closures (an allocation per operator, and no place to
//! bound the stack).

mod compile;
mod lex;
mod parse;
mod program;

use std::fmt;
use std::sync::Arc;

use crate::util::board::{Board, SlotRef, SlotType, Text};
use crate::util::context::{Ctx, Predicate};
use program::{Op, Target};

/// Longest script source, in bytes.
pub const MAX_SCRIPT_BYTES: usize = 4096;
/// Deepest nesting of parentheses, operators and `? :` in one script.
pub const MAX_SCRIPT_NESTING: usize = 64;
/// Most operators one expression chains, counted down its deepest
/// branch (`1 + 2 + 3` is two deep, parentheses or not).
pub const MAX_SCRIPT_HEIGHT: usize = 256;
/// Most operations one script compiles to.
pub const MAX_SCRIPT_OPS: usize = 1024;
/// Most numbers and bools one script holds at once while running.
pub const MAX_SCRIPT_STACK: usize = 32;
/// Most strings one script holds at once while running.
pub const MAX_SCRIPT_TEXTS: usize = 8;

/// A script's value: a number, a bool or a string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScriptValue {
    /// A number (every slot of a numeric type reads as one).
    Number(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A string, stored in place.
    Text(Text),
}

impl ScriptValue {
    /// Its type.
    pub fn ty(&self) -> ScriptType {
        match self {
            ScriptValue::Number(_) => ScriptType::Number,
            ScriptValue::Bool(_) => ScriptType::Bool,
            ScriptValue::Text(_) => ScriptType::Text,
        }
    }

    /// Whether it counts as true: `true`, or a number other than zero.
    pub fn is_true(&self) -> bool {
        match *self {
            ScriptValue::Bool(b) => b,
            ScriptValue::Number(n) => n != 0.0,
            ScriptValue::Text(_) => false,
        }
    }
}

impl std::error::Error for ScriptFault {}

impl fmt::Display for ScriptValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        program::show(self, &mut out);
        f.write_str(&out)
    }
}

/// The type of a script value, known at load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptType {
    /// Numbers.
    Number,
    /// Bools.
    Bool,
    /// Strings.
    Text,
}

pub(crate) use ScriptType as Ty;

impl ScriptType {
    /// As messages name it: `number`, `bool`, `string`.
    pub fn name(self) -> &'static str {
        match self {
            ScriptType::Number => "number",
            ScriptType::Bool => "bool",
            ScriptType::Text => "string",
        }
    }

    /// The slot type a script's `:=` gives a new key of this type:
    /// `double`, `bool` or [`Text`].
    pub fn slot_type(self) -> SlotType {
        compile::slot_type(self)
    }
}

/// The blackboard's keys as a script compiles against them: the
/// builder's ([`Builder::script`](crate::Builder::script)), or a loader's,
/// which also says where each key was first used.
pub trait Keys {
    /// The slot of `key`, if the tree has one.
    fn find(&mut self, key: &str) -> Option<SlotRef>;
    /// Make the slot of `key`, of type `ty` (a `:=` to a key nothing
    /// made); the problem, in words, if it cannot be made.
    fn create(&mut self, key: &str, ty: SlotType) -> Result<SlotRef, String>;
    /// Every key there is, for "did you mean" (called only on an error).
    fn known(&self) -> Vec<String>;
    /// Where `key` was first used, for messages (`tree.json:3:7: …`).
    fn origin(&self, _key: &str) -> Option<String> {
        None
    }
    /// The value of a name that is no key: an enum's word, as
    /// BehaviorTree.CPP registers them (`RED` for 0, say).
    fn constant(&self, _name: &str) -> Option<f64> {
        None
    }
}

/// Why a script does not compile: where in it and what is wrong.
///
/// ```
/// use canopy_core::Builder;
/// let b = Builder::<(), ()>::new();
/// let e = b.script("x := 1 +").unwrap_err();
/// assert_eq!((e.offset, e.column), (7, 8));
/// assert_eq!(e.to_string(), "column 8: expected an expression after `+`");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// The byte of the source where the problem is.
    pub offset: usize,
    /// The same place as a column counted in characters from 1.
    pub column: usize,
    /// What is wrong.
    pub problem: String,
}

impl ScriptError {
    pub(crate) fn new(source: &str, offset: usize, problem: impl Into<String>) -> ScriptError {
        let offset = offset.min(source.len());
        let column = source
            .char_indices()
            .take_while(|(i, _)| *i < offset)
            .count()
            + 1;
        ScriptError {
            offset,
            column,
            problem: problem.into(),
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.problem)
    }
}

impl std::error::Error for ScriptError {}

/// Why a script stopped while running: the node running it fails.
/// Made without allocating; [`Script::explain`] words it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScriptFault {
    /// A number that is not whole, for an integer key or a bitwise
    /// operator (`key` is the index of the key in the script, or
    /// `u16::MAX` for an operator).
    NotWhole {
        /// Byte of the source where the assignment or operator is.
        at: u32,
        /// Which of the script's keys.
        key: u16,
        /// The number.
        value: f64,
    },
    /// A whole number outside an integer key's range.
    OutOfRange {
        /// Byte of the source where the assignment is.
        at: u32,
        /// Which of the script's keys.
        key: u16,
        /// The number.
        value: f64,
    },
    /// An assignment in a script run read-only ([`Script::test`]).
    ReadOnly {
        /// Byte of the source where the assignment is.
        at: u32,
    },
    /// The blackboard is not of the tree the script was compiled for.
    OutsideBoard,
    /// The program does not fit its own checks (it was not compiled by
    /// this crate's compiler).
    Broken,
}

/// A compiled script: run it on an agent's blackboard each tick.
#[derive(Clone, Debug)]
pub struct Script {
    source: Arc<str>,
    ops: Box<[Op]>,
    texts: Box<[Text]>,
    names: Box<[Arc<str>]>,
    ty: ScriptType,
    writes: bool,
}

impl Script {
    /// Compile `source` against the blackboard's `keys`: every key read
    /// must exist; a key `:=` assigns and nothing made is made, of the
    /// value's type.
    pub fn compile<K: Keys + ?Sized>(source: &str, keys: &mut K) -> Result<Script, ScriptError> {
        if source.len() > MAX_SCRIPT_BYTES {
            let problem = format!(
                "the script is {} bytes long; scripts hold at most {MAX_SCRIPT_BYTES}",
                source.len()
            );
            return Err(ScriptError::new(source, 0, problem));
        }
        let tokens = lex::tokens(source)?;
        let statements = parse::statements(source, &tokens)?;
        let mut c = compile::Compiler::new(source, keys);
        let ty = c.script(&statements)?;
        let writes = c
            .ops
            .iter()
            .any(|op| matches!(op, Op::Store(..) | Op::StorePop(..)));
        Ok(Script {
            source: Arc::from(source),
            ops: c.ops.into_boxed_slice(),
            texts: c.texts.into_boxed_slice(),
            names: c.names.into_boxed_slice(),
            ty,
            writes,
        })
    }

    /// Compile a script whose value is a condition (ScriptCondition,
    /// `_skipIf`, `_while`): it must give a bool or a number (true when
    /// not zero).
    ///
    /// ```
    /// use canopy_core::{Builder, Script, Text};
    /// let b = Builder::<(), ()>::new();
    /// let e = b.key::<Text>("x").map(|_| Script::compile_condition("x .. 'm'", &mut &b));
    /// assert_eq!(e.unwrap().unwrap_err().to_string(),
    ///     "column 1: a condition must give true or false, this script gives a string");
    /// ```
    pub fn compile_condition<K: Keys + ?Sized>(
        source: &str,
        keys: &mut K,
    ) -> Result<Script, ScriptError> {
        let script = Script::compile(source, keys)?;
        if script.ty == ScriptType::Text {
            let problem = "a condition must give true or false, this script gives a string";
            return Err(ScriptError::new(source, 0, problem));
        }
        Ok(script)
    }

    /// Run the script on `board`, writing what it assigns: its value.
    pub fn run(&self, board: &mut Board) -> Result<ScriptValue, ScriptFault> {
        program::run(&self.code(), Target::Write(board))
    }

    /// Run the script as a condition without writing: whether its value
    /// is true. A script that assigns faults here
    /// ([`writes`](Script::writes) tells beforehand).
    pub fn test(&self, board: &Board) -> Result<bool, ScriptFault> {
        program::run(&self.code(), Target::Read(board)).map(|v| v.is_true())
    }

    fn code(&self) -> program::Code<'_> {
        program::Code {
            ops: &self.ops,
            texts: &self.texts,
            ty: self.ty,
        }
    }

    /// Write `value` into the key the script names last — the key of a
    /// script that is one key (`queue`), or the last key it assigns — as
    /// `:=` writes it, range checks included: for a value made outside any
    /// script, such as the item a loop takes from a queue string. A value
    /// of another type than the key's, or a script naming no key, is
    /// [`ScriptFault::Broken`].
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, ScriptFault, ScriptValue};
    /// let b = Builder::<(), ()>::new();
    /// let count = b.key::<i32>("count").unwrap();
    /// let script = b.script("count").unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// script.assign(&mut agent.board_mut(&tree), ScriptValue::Number(7.0)).unwrap();
    /// assert_eq!(agent.board(&tree).read(count), 7);
    /// let text = ScriptValue::Text(canopy_core::Text::new("7"));
    /// assert_eq!(script.assign(&mut agent.board_mut(&tree), text), Err(ScriptFault::Broken));
    /// ```
    pub fn assign(&self, board: &mut Board, value: ScriptValue) -> Result<(), ScriptFault> {
        program::assign(&self.ops, board, value)
    }

    /// The script as a guard's condition ([`Predicate`]), labelled with
    /// its source: true when [`test`](Script::test) gives true (false
    /// when it faults, a script that assigns included).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Script, Status, nodes::Guard};
    /// let b = Builder::<(), ()>::new();
    /// let armed = b.key::<bool>("armed").unwrap();
    /// let check = Script::compile_condition("armed", &mut &b).unwrap().predicate();
    /// let tree = b.build(b.node("if armed", Guard(check), [b.always_success("fire")])).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Failure);
    /// agent.board_mut(&tree).write(armed, true);
    /// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
    /// ```
    pub fn predicate<A, W>(self) -> Predicate<A, W> {
        let label = Some(self.source.to_string());
        let check = move |cx: &Ctx<A, W>| self.test(&cx.board).unwrap_or(false);
        Predicate {
            label,
            check: Arc::new(check),
        }
    }

    /// The type of its value.
    pub fn value_type(&self) -> ScriptType {
        self.ty
    }

    /// Whether it assigns any key.
    pub fn writes(&self) -> bool {
        self.writes
    }

    /// Its source.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Operations it compiled to.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Always `false`: a script has at least one statement.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// A fault in words, with the column and the key it is about.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let _ = b.key::<u8>("level").unwrap();
    /// let script = b.script("level := 2.5").unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// let fault = script.run(&mut agent.board_mut(&tree)).unwrap_err();
    /// assert_eq!(script.explain(&fault),
    ///     "column 1: cannot store 2.5 in key \"level\": it holds whole numbers");
    /// ```
    pub fn explain(&self, fault: &ScriptFault) -> String {
        let column = |at: u32| ScriptError::new(&self.source, at as usize, "").column;
        let key = |k: u16| {
            self.names
                .get(k as usize)
                .map_or_else(|| "?".to_string(), |n| crate::util::text::quote(n))
        };
        let number = crate::util::text::number;
        match *fault {
            ScriptFault::NotWhole {
                at,
                key: u16::MAX,
                value,
            } => format!(
                "column {}: a bitwise operator needs whole numbers, got {}",
                column(at),
                number(value)
            ),
            ScriptFault::NotWhole { at, key: k, value } => format!(
                "column {}: cannot store {} in key {}: it holds whole numbers",
                column(at),
                number(value),
                key(k)
            ),
            ScriptFault::OutOfRange { at, key: k, value } => format!(
                "column {}: {} is out of the range of key {}",
                column(at),
                number(value),
                key(k)
            ),
            ScriptFault::ReadOnly { at } => {
                format!("column {}: a condition cannot assign keys", column(at))
            }
            ScriptFault::OutsideBoard => {
                "the blackboard is not of the tree the script was compiled for".to_string()
            }
            ScriptFault::Broken => "the program is broken".to_string(),
        }
    }
}

impl fmt::Display for ScriptFault {
    /// The fault without the script's words ([`Script::explain`] has them).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let number = crate::util::text::number;
        match *self {
            ScriptFault::NotWhole { at, value, .. } => {
                write!(f, "byte {at}: {} is not a whole number", number(value))
            }
            ScriptFault::OutOfRange { at, value, .. } => {
                write!(f, "byte {at}: {} is out of the key's range", number(value))
            }
            ScriptFault::ReadOnly { at } => write!(f, "byte {at}: a condition cannot assign keys"),
            ScriptFault::OutsideBoard => {
                f.write_str("the blackboard is not of the tree the script was compiled for")
            }
            ScriptFault::Broken => f.write_str("the program is broken"),
        }
    }
}

#[cfg(test)]
mod tests;
