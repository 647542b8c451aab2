//! Scripts: BehaviorTree.CPP's small expression language, compiled when
//! the tree is loaded into a program over the blackboard's slots.
//!
//! A script is statements, one after another (`;` between them is
//! optional): assignments (`key := value` makes the key if nothing in the
//! tree made it, `key = value` sets a key that exists, `+= -= *= /=`
//! update one; an assignment is an expression whose value is what was
//! stored) and expressions over number, string (`'text'`, or `"text"`)
//! and bool (`true`, `false`) literals and keys, with `+ - * /`, `..`,
//! `== != < <= > >=` (which chain: `1 < c < 5`), `&& || !`, `& | ^ ~`, the
//! ternary `c ? a : b` and parentheses, in BehaviorTree.CPP 4.10's order
//! of precedence (`c & 1 == 1` is `(c & 1) == 1`). Its value is its last
//! statement's.
//!
//! ```
//! use canopy_core::{Agent, Builder, Status, script::ScriptValue};
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
//! # Values and conversions, as BehaviorTree.CPP's
//!
//! Values are numbers, bools and [`Text`]s. Every operator follows
//! BehaviorTree.CPP 4.10: arithmetic is in `f64` (`7 / 2` is `3.5`), `==`
//! between numbers allows a float's epsilon, `+` adds numbers or joins two
//! strings, `..` joins strings and prints a number joined to one as
//! `std::to_string` does (`'v' .. 3` is `v3`, `'v' .. 1.5` is
//! `v1.500000`), a string compared with a number is read as one, bools are
//! numbers (1 and 0) to every operator, and a condition that is a string is
//! true when not empty. A key keeps the type the tree gave it (a port, the
//! builder, an earlier script); a key first made by a script's `:=` takes
//! the type of the value (a whole number makes an `int64_t` key, other
//! numbers a `double`). Assigning converts as BehaviorTree.CPP does: a
//! string into a key of another type through the type's conversion
//! ([`BoardValue::parse`](crate::board::BoardValue::parse): `goal := '1;2'` for a
//! point), a number into a string key as its text.
//!
//! Decided when the tree loads, where BehaviorTree.CPP finds them when
//! the script runs: an unknown key; `=` or `+=` to a key nothing makes;
//! a key of a game's own type used other than copied or assigned a string;
//! a `? :` giving a number on one branch and a string on the other; a
//! string literal longer than [`TEXT_BYTES`](crate::board::TEXT_BYTES). What
//! BehaviorTree.CPP throws on only when it runs (`-'a'`, `'a' + 1`, a
//! string that is not a number compared with one) fails the node running
//! the script there ([`ScriptFault`]), and [`Script::warnings`] says so
//! when it loads. So do a fraction or an out-of-range number written to an
//! integer key and a bitwise operator on a fraction.
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
//! A script of numbers only without jumps (no strings, `? :` or comparison
//! chains), the common case of a counter or a threshold, is also built
//! into a tree of nodes each typed by its slot and operation, its
//! constants folded, and runs as that instead (`straight`): the same
//! values, writes and faults, without the stack machine's checked pushes
//! and pops or a dispatch on the operation and the slot type at each
//! step. The tree is made when the script loads; running it allocates
//! nothing. A script run for its writes alone
//! ([`Script::run_for_effect`], as an `Eval` leaf runs it) leaves out
//! what only makes its value.
//!
//! Considered and rejected: interpreting the syntax tree each tick (a
//! pointer chase per operator and a type check per value, each tick), and
//! compiling every script to closures (a closure per operator and no
//! place to bound the stack: the stack machine keeps the scripts with
//! strings and jumps, and its bounds).

mod compile;
mod lex;
mod parse;
mod program;
mod straight;

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

/// A value's type as the compiler tracks it: numbers split into whole
/// ones (BehaviorTree.CPP's `int64_t`, printed as digits) and others (its
/// `double`, printed with six decimals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Int,
    Double,
    Bool,
    Text,
}

impl Ty {
    pub(crate) fn name(self) -> &'static str {
        self.public().name()
    }

    pub(crate) fn public(self) -> ScriptType {
        match self {
            Ty::Int | Ty::Double => ScriptType::Number,
            Ty::Bool => ScriptType::Bool,
            Ty::Text => ScriptType::Text,
        }
    }
}

/// What BehaviorTree.CPP throws on when a script runs: the script stops
/// there and the node running it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// An operator on operands it has no meaning for (`'a' + 1`,
    /// `1 .. 2`, `'a' * 2`): BehaviorTree.CPP's "Operation not permitted".
    NotPermitted,
    /// `-`, `!` or `~` on a string.
    StringOperand,
    /// An assignment to something that is not a key (`(a + b) := 1`).
    NotAKey,
    /// A number assigned to a key of a game's own type (which converts
    /// only from text).
    NumberIntoType,
    /// `+=` and friends on a key and a value they do not combine (only
    /// `+=` on two strings, and all four on numbers).
    UpdateTypes,
    /// A condition whose value is a string.
    TextCondition,
    /// `&&` or `||` on a whole number other than 0 or 1, which
    /// BehaviorTree.CPP does not read as a bool.
    NotABool,
    /// A number assigned to a string key a script made.
    NumberIntoString,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refusal::NotPermitted => "this operator has no meaning for these operands",
            Refusal::StringOperand => "`-`, `!` and `~` need a number, got a string",
            Refusal::NotAKey => "only a key can be assigned",
            Refusal::NumberIntoType => {
                "a key of this type takes a string (which its type converts), not a number"
            }
            Refusal::UpdateTypes => {
                "`+=` joins two strings, and `+=`, `-=`, `*=`, `/=` update numbers; not these"
            }
            Refusal::TextCondition => "a condition must give true or false, this gives a string",
            Refusal::NumberIntoString => {
                "a key a script made a string holds strings; a number cannot be assigned to it"
            }
            Refusal::NotABool => {
                "`&&` and `||` read a whole number as a bool only when it is 0 or 1"
            }
        })
    }
}

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
    /// `double`, `bool` or [`Text`] (a whole number makes `int64_t`).
    pub fn slot_type(self) -> SlotType {
        compile::slot_type(match self {
            ScriptType::Number => Ty::Double,
            ScriptType::Bool => Ty::Bool,
            ScriptType::Text => Ty::Text,
        })
    }
}

/// A value written in a file for a node that compares texts (a
/// `Switch`'s `variable` and cases): a text, or a key (`{key}`) read as
/// text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextOrKey<'a> {
    /// The text itself.
    Text(&'a str),
    /// The key's value, as text.
    Key(&'a str),
}

impl fmt::Display for TextOrKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextOrKey::Text(t) => f.write_str(&crate::util::text::quote(t)),
            TextOrKey::Key(k) => write!(f, "{{{k}}}"),
        }
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
    /// BehaviorTree.CPP registers them (`RED` for 0, say). Looked up
    /// before keys, as BehaviorTree.CPP does.
    fn constant(&self, _name: &str) -> Option<f64> {
        None
    }
    /// Whether a script's `:=` made `key` (rather than a port or code):
    /// BehaviorTree.CPP converts a string assigned to such a number key
    /// with its scripts' own rules (`true` is 1), not the key type's.
    fn made_by_script(&self, _key: &str) -> bool {
        false
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
#[non_exhaustive]
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
    /// A string assigned to a key whose type does not read it.
    Convert {
        /// Byte of the source where the assignment is.
        at: u32,
        /// Which of the script's keys.
        key: u16,
        /// Why the text does not convert.
        error: crate::convert::ConvertError,
    },
    /// A string read as a number (compared with one, or a condition)
    /// that is none.
    NotANumber {
        /// Byte of the source where the operator is.
        at: u32,
    },
    /// An operation BehaviorTree.CPP throws on.
    Refused {
        /// Byte of the source where the operation is.
        at: u32,
        /// What it is.
        why: Refusal,
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
    /// Slot types the program converts text into or copies.
    types: Box<[SlotType]>,
    /// Where BehaviorTree.CPP would throw when the script runs.
    warnings: Box<[ScriptError]>,
    ty: Ty,
    writes: bool,
    /// The program as straight-line code, when it is numbers only without
    /// jumps ([`straight`]): what runs then.
    straight: Option<straight::Straight>,
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
        Ok(Script::finish(source, c, ty))
    }

    fn finish<K: Keys + ?Sized>(source: &str, c: compile::Compiler<'_, '_, K>, ty: Ty) -> Script {
        let writes = c
            .ops
            .iter()
            .any(|op| matches!(op, Op::StorePop(..) | Op::Parse(..) | Op::Copy(..)));
        Script {
            source: Arc::from(source),
            ops: c.ops.into_boxed_slice(),
            texts: c.texts.into_boxed_slice(),
            names: c.names.into_boxed_slice(),
            types: c.types.into_boxed_slice(),
            warnings: c.warnings.into_boxed_slice(),
            ty,
            writes,
            straight: None,
        }
        .lowered()
    }

    /// With its straight-line form made anew from its operations.
    fn lowered(mut self) -> Script {
        self.straight = match self.ty {
            Ty::Text => None,
            _ => straight::Straight::lower(&self.ops),
        };
        self
    }

    /// Its value, of its type, from the number a straight-line program
    /// leaves.
    fn value(&self, number: f64) -> ScriptValue {
        match self.ty {
            Ty::Bool => ScriptValue::Bool(number != 0.0),
            _ => ScriptValue::Number(number),
        }
    }

    /// Compile a script whose value is a condition (ScriptCondition,
    /// `_skipIf`, `_while`): a bool, or a number (true when not zero). One
    /// giving a string fails when it runs, as BehaviorTree.CPP throws
    /// reading it as a bool, and warns at load.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Text, script::{Script, ScriptFault}};
    /// let b = Builder::<(), ()>::new();
    /// b.key::<Text>("x").unwrap();
    /// let odd = Script::compile_condition("x .. 'm'", &mut &b).unwrap();
    /// assert_eq!(odd.warnings()[0].to_string(),
    ///     "column 1: a condition must give true or false, this gives a string: \
    ///      BehaviorTree.CPP throws here when the script runs, and canopy fails the node");
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// assert!(matches!(odd.test(&agent.board(&tree)), Err(ScriptFault::Refused { .. })));
    /// ```
    pub fn compile_condition<K: Keys + ?Sized>(
        source: &str,
        keys: &mut K,
    ) -> Result<Script, ScriptError> {
        let mut script = Script::compile(source, keys)?;
        if script.ty == Ty::Text {
            // BehaviorTree.CPP throws when it reads such a condition.
            let why = Refusal::TextCondition;
            let mut ops = script.ops.into_vec();
            ops.extend([Op::PopText, Op::Num(0.0), Op::Fail(why, 0)]);
            script.ops = ops.into_boxed_slice();
            let mut warnings = script.warnings.into_vec();
            let problem = format!(
                "{why}: BehaviorTree.CPP throws here when the script runs, and canopy fails the node"
            );
            warnings.push(ScriptError::new(source, 0, problem));
            script.warnings = warnings.into_boxed_slice();
            script.ty = Ty::Bool;
            script = script.lowered();
        }
        Ok(script)
    }

    /// The condition that is true when this one is false (`!` applied to
    /// its value, after it ran): a `Precondition`'s `if` compiled on its
    /// own and negated, never pasted into `!(…)`.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, script::Script};
    /// let b = Builder::<(), ()>::new();
    /// let ready = Script::compile_condition("a := 1; a == 1", &mut &b).unwrap().negated();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// assert_eq!(ready.run(&mut agent.board_mut(&tree)).map(|v| v.is_true()), Ok(false));
    /// assert_eq!(ready.source(), "a := 1; a == 1");
    /// ```
    pub fn negated(mut self) -> Script {
        let mut ops = self.ops.into_vec();
        if self.ty == Ty::Text {
            ops.extend([Op::PopText, Op::Num(0.0)]);
        }
        ops.push(Op::Not);
        self.ops = ops.into_boxed_slice();
        self.ty = Ty::Bool;
        self.lowered()
    }

    /// The assignment `key := value` of a value written in a file — a
    /// `SetBlackboard`'s `value`, a literal a `<SubTree>` passes — made
    /// without reading `value` as code: it is the string it is, converted
    /// into the key's type as BehaviorTree.CPP's assignment converts it
    /// (a new key holds the string).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Text, script::Script};
    /// let b = Builder::<(), ()>::new();
    /// let hp = b.key::<i32>("hp").unwrap();
    /// let set = Script::assign_text("hp", "42", &mut &b).unwrap();
    /// let odd = Script::assign_text("note", "a' ; hp = 999 ; '", &mut &b).unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// set.run(&mut agent.board_mut(&tree)).unwrap();
    /// odd.run(&mut agent.board_mut(&tree)).unwrap();
    /// assert_eq!(agent.board(&tree).read(hp), 42);
    /// let note = tree.key::<Text>("note").unwrap();
    /// assert_eq!(agent.board(&tree).read(note).as_str(), "a' ; hp = 999 ; '");
    /// ```
    pub fn assign_text<K: Keys + ?Sized>(
        key: &str,
        value: &str,
        keys: &mut K,
    ) -> Result<Script, ScriptError> {
        use parse::{Assign, Expr, ExprKind};
        let source = format!("{key} := {}", crate::util::text::quote(value));
        let target = Expr::new(0, ExprKind::Name(key));
        let value = Expr::new(0, ExprKind::Str(value));
        let statement = Expr::new(
            0,
            ExprKind::Assign(Assign::Create, Box::new(target), Box::new(value)),
        );
        Script::from_statements(&source, &[statement], keys)
    }

    /// The assignment `key := from` of one key to another (a
    /// `SetBlackboard` whose `value` is `{from}`): converted as a script's
    /// assignment converts; a key of a game's own type is copied whole.
    pub fn assign_key<K: Keys + ?Sized>(
        key: &str,
        from: &str,
        keys: &mut K,
    ) -> Result<Script, ScriptError> {
        use parse::{Assign, Expr, ExprKind};
        let source = format!("{key} := {from}");
        let target = Expr::new(0, ExprKind::Name(key));
        let value = Expr::new(key.len() + 4, ExprKind::Name(from));
        let statement = Expr::new(
            0,
            ExprKind::Assign(Assign::Create, Box::new(target), Box::new(value)),
        );
        Script::from_statements(&source, &[statement], keys)
    }

    /// The test of BehaviorTree.CPP's `Switch`: whether key `variable`,
    /// read as text (a number printed as `std::to_string` prints it), is
    /// the same as `case` — equal texts, or equal whole numbers, or
    /// numbers within a float's epsilon (`CheckStringEquality`, 4.10). A
    /// case is a text, never code; `case` names a key instead when
    /// `case_is_key`.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, script::{Script, TextOrKey}};
    /// let b = Builder::<(), ()>::new();
    /// let mode = b.key::<f64>("mode").unwrap();
    /// let one = Script::switch_case(TextOrKey::Key("mode"), TextOrKey::Text("1"), &mut &b).unwrap();
    /// let code = Script::switch_case(TextOrKey::Key("mode"), TextOrKey::Text("{c || true}"), &mut &b).unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.board_mut(&tree).write(mode, 1.0);
    /// // 1.0 prints as "1.000000", which reads as the number 1.
    /// assert_eq!(one.test(&agent.board(&tree)), Ok(true));
    /// assert_eq!(code.test(&agent.board(&tree)), Ok(false));
    /// ```
    pub fn switch_case<K: Keys + ?Sized>(
        variable: TextOrKey<'_>,
        case: TextOrKey<'_>,
        keys: &mut K,
    ) -> Result<Script, ScriptError> {
        let source = format!("{variable} == {case}");
        let mut c = compile::Compiler::new(&source, keys);
        c.switch_case(variable, case)?;
        Ok(Script::finish(&source, c, Ty::Bool))
    }

    fn from_statements<K: Keys + ?Sized>(
        source: &str,
        statements: &[parse::Expr],
        keys: &mut K,
    ) -> Result<Script, ScriptError> {
        let mut c = compile::Compiler::new(source, keys);
        let ty = c.script(statements)?;
        Ok(Script::finish(source, c, ty))
    }

    /// Where this script would make BehaviorTree.CPP throw when it runs:
    /// canopy compiled an operation that fails the node there. A loader
    /// reports them as warnings.
    pub fn warnings(&self) -> &[ScriptError] {
        &self.warnings
    }

    /// Run the script on `board`, writing what it assigns: its value.
    #[inline]
    pub fn run(&self, board: &mut Board) -> Result<ScriptValue, ScriptFault> {
        if let Some(straight) = &self.straight {
            return straight.run(Target::Write(board)).map(|n| self.value(n));
        }
        program::run(&self.code(), Target::Write(board))
    }

    /// Run the script on `board`, writing what it assigns, as a
    /// condition: whether its value is true (as
    /// [`ScriptValue::is_true`] of [`run`](Script::run)'s value, without
    /// making the value).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let step = b.key::<u64>("step").unwrap();
    /// let script = b.script("hp := step * 2 + 1; hp > 10 && step != 3").unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.board_mut(&tree).write(step, 7);
    /// assert_eq!(script.run_condition(&mut agent.board_mut(&tree)), Ok(true));
    /// ```
    #[inline]
    pub fn run_condition(&self, board: &mut Board) -> Result<bool, ScriptFault> {
        if let Some(straight) = &self.straight {
            return straight.run(Target::Write(board)).map(|n| n != 0.0);
        }
        program::run(&self.code(), Target::Write(board)).map(|v| v.is_true())
    }

    /// Run the script on `board` for what it writes, when its value is
    /// not wanted (an `Eval` leaf, BehaviorTree.CPP's `Script`): the same
    /// writes and the same fault as [`run`](Script::run), but what only
    /// makes the value may be left out (`hp > 10` after `hp := …`).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, script::ScriptFault};
    /// let b = Builder::<(), ()>::new();
    /// let level = b.key::<u8>("level").unwrap();
    /// let script = b.script("hp := level * 2 + 1; hp > 10 && level != 3").unwrap();
    /// let odd = b.script("level := 2.5; level > 1").unwrap();
    /// let tree = b.build(b.always_success("s")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.board_mut(&tree).write(level, 4);
    /// assert_eq!(script.run_for_effect(&mut agent.board_mut(&tree)), Ok(()));
    /// assert_eq!(agent.board(&tree).read(tree.key::<f64>("hp").unwrap()), 9.0);
    /// let fault = odd.run_for_effect(&mut agent.board_mut(&tree)).unwrap_err();
    /// assert!(matches!(fault, ScriptFault::NotWhole { .. }));
    /// ```
    #[inline]
    pub fn run_for_effect(&self, board: &mut Board) -> Result<(), ScriptFault> {
        if let Some(straight) = &self.straight {
            return straight.run_for_effect(board);
        }
        program::run(&self.code(), Target::Write(board)).map(|_| ())
    }

    /// Run the script as a condition without writing: whether its value
    /// is true. A script that assigns faults here
    /// ([`writes`](Script::writes) tells beforehand).
    pub fn test(&self, board: &Board) -> Result<bool, ScriptFault> {
        if let Some(straight) = &self.straight {
            return straight.run(Target::Read(board)).map(|n| n != 0.0);
        }
        program::run(&self.code(), Target::Read(board)).map(|v| v.is_true())
    }

    fn code(&self) -> program::Code<'_> {
        program::Code {
            ops: &self.ops,
            texts: &self.texts,
            types: &self.types,
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
    /// use canopy_core::{Agent, Builder, script::{ScriptFault, ScriptValue}};
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
    /// use canopy_core::{Agent, Builder, Status, nodes::Guard, script::Script};
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
        self.ty.public()
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
            ScriptFault::Convert { at, key: k, error } => format!(
                "column {}: the string does not convert to the type of key {}: {error}",
                column(at),
                key(k)
            ),
            ScriptFault::NotANumber { at } => {
                format!(
                    "column {}: a string that is no number was read as one",
                    column(at)
                )
            }
            ScriptFault::Refused { at, why } => format!("column {}: {why}", column(at)),
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
            ScriptFault::Convert { at, error, .. } => {
                write!(f, "byte {at}: the string does not convert: {error}")
            }
            ScriptFault::NotANumber { at } => {
                write!(f, "byte {at}: a string that is no number was read as one")
            }
            ScriptFault::Refused { at, why } => write!(f, "byte {at}: {why}"),
            ScriptFault::OutsideBoard => {
                f.write_str("the blackboard is not of the tree the script was compiled for")
            }
            ScriptFault::Broken => f.write_str("the program is broken"),
        }
    }
}

#[cfg(test)]
mod tests;
