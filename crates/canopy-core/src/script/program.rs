//! A compiled script: a flat list of operations over a small value stack,
//! run per tick without allocating.

use std::io::Write as _;

use super::{MAX_SCRIPT_STACK, MAX_SCRIPT_TEXTS, Refusal, ScriptFault, ScriptValue, Ty};
use crate::util::board::{Board, BoardValue, SlotType, TEXT_BYTES, Text};
use crate::util::convert;

/// How a slot's bytes hold a script value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Store {
    F64,
    F32,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
    /// A [`Text`]: strings, and the types known only by name.
    Text,
    /// A game's own type (or a point): scripts only copy it whole or
    /// convert text into it.
    Raw,
}

impl Store {
    pub(crate) fn size(self) -> usize {
        match self {
            Store::I8 | Store::U8 | Store::Bool => 1,
            Store::I16 | Store::U16 => 2,
            Store::I32 | Store::U32 | Store::F32 => 4,
            Store::I64 | Store::U64 | Store::F64 => 8,
            Store::Text => size_of::<Text>(),
            Store::Raw => 0,
        }
    }

    /// The whole numbers an integer slot holds, or `None` for the others.
    pub(crate) fn range(self) -> Option<(f64, f64)> {
        Some(match self {
            Store::I8 => (i8::MIN as f64, i8::MAX as f64),
            Store::I16 => (i16::MIN as f64, i16::MAX as f64),
            Store::I32 => (i32::MIN as f64, i32::MAX as f64),
            Store::I64 => (i64::MIN as f64, i64::MAX as f64),
            Store::U8 => (0.0, u8::MAX as f64),
            Store::U16 => (0.0, u16::MAX as f64),
            Store::U32 => (0.0, u32::MAX as f64),
            Store::U64 => (0.0, u64::MAX as f64),
            _ => return None,
        })
    }

    /// The script type a load of the slot gives.
    pub(crate) fn ty(self) -> Ty {
        match self {
            Store::F64 | Store::F32 => Ty::Double,
            Store::Bool => Ty::Bool,
            Store::Text | Store::Raw => Ty::Text,
            _ => Ty::Int,
        }
    }
}

/// A slot as the program reads and writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) offset: u32,
    pub(crate) store: Store,
    /// Its key, in the program's table of names (for fault messages).
    pub(crate) key: u16,
}

/// How two values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// BehaviorTree.CPP's tolerance for `==` between numbers (`IsSame<double>`:
/// a float's epsilon).
pub(crate) const SAME: f64 = f32::EPSILON as f64;

impl Cmp {
    /// Two numbers: equal within [`SAME`], as BehaviorTree.CPP compares
    /// every number (it casts both to `double`).
    #[inline]
    pub(crate) fn numbers(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Eq => (a - b).abs() <= SAME,
            Cmp::Ne => (a - b).abs() > SAME || a.is_nan() || b.is_nan(),
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }

    fn texts(self, a: &str, b: &str) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// The operands of a comparison: numbers (N) or strings (T), left first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pair {
    NN,
    TT,
    /// A string and a number: the string read as a number
    /// (BehaviorTree.CPP's `StringToDouble`).
    TN,
    NT,
}

/// An operation on two numbers, the second a constant of the program
/// ([`Op::Immediate`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Compare(Cmp),
}

impl Arith {
    /// The operation `op` is, if it is one of these.
    pub(crate) fn of(op: Op) -> Option<Arith> {
        Some(match op {
            Op::Add => Arith::Add,
            Op::Sub => Arith::Sub,
            Op::Mul => Arith::Mul,
            Op::Div => Arith::Div,
            Op::Compare(c) => Arith::Compare(c),
            _ => return None,
        })
    }

    #[inline]
    pub(crate) fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => a * b,
            Arith::Div => a / b,
            Arith::Compare(c) => truth(c.numbers(a, b)),
        }
    }
}

/// One operation. Numbers and bools (as 1 and 0) live on one stack,
/// strings on another: the compiler knows every value's type, so no value
/// carries a tag and a number costs 8 bytes to move, not a string's 32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    /// Push a number (or a bool as 1 or 0).
    Num(f64),
    /// Push the string constant of this index.
    Text(u16),
    Load(Place),
    /// Pop the top of its stack into the slot; `u32` is the byte offset
    /// of the assignment in the source.
    StorePop(Place, u32),
    /// Pop a string and write the value it stands for into the slot, as
    /// the slot type (the program's type of this index) converts text.
    Parse(Place, u16, u32),
    /// Copy a slot's bytes (`u16`: the program's type of both) to another.
    Copy(Place, Place, u16),
    /// Pop a string, push the number it reads as (BehaviorTree.CPP's
    /// `StringToDouble`); `u32` is where, for the fault.
    TextToNumber(u32),
    /// Pop a number, push it as text: whole (`3`) or not (`3.000000`).
    NumberToText(bool),
    /// Pop a string, push whether the number it starts with is not 0: a
    /// `? :` condition that is a string, which BehaviorTree.CPP 4.10
    /// casts to a number (a text that is none faults).
    TextTest(u32),
    /// Apply the operation to the top number and the constant, in place
    /// (`x * 2` is one operation, not a push and a multiply: each
    /// operation dispatched costs more than the arithmetic).
    Immediate(Arith, f64),
    PopNum,
    PopText,
    Neg,
    Not,
    BitNot(u32),
    Add,
    Sub,
    Mul,
    Div,
    /// Two strings to one.
    Join,
    /// Swap the top two strings.
    SwapText,
    /// Two numbers to a bool.
    Compare(Cmp),
    /// Two strings to a bool.
    CompareText(Cmp),
    /// Two values of `Pair` to a bool; with `keep`, the right operand
    /// stays below the bool, for the next comparison of a chain.
    Relate {
        cmp: Cmp,
        pair: Pair,
        keep: bool,
        at: u32,
    },
    /// BehaviorTree.CPP's `Switch` comparison of two strings: equal as
    /// text, or both whole numbers and equal, or both numbers within its
    /// tolerance.
    Equivalent,
    /// Check that the whole-number operands of `&&` or `||` (the left
    /// one below the top, the right one on top) are 0 or 1.
    Bools {
        left: bool,
        right: bool,
        at: u32,
    },
    And,
    Or,
    BitAnd(u32),
    BitOr(u32),
    BitXor(u32),
    /// Pop a bool; jump to the operation at the index if it is false.
    JumpUnless(u32),
    Jump(u32),
    /// Stop: BehaviorTree.CPP throws here.
    Fail(Refusal, u32),
}

impl Op {
    /// Values the operation adds to the number and the string stacks
    /// (a jump's branch is accounted for by the compiler).
    pub(crate) fn effect(self) -> (isize, isize) {
        let pair = |pair: Pair| match pair {
            Pair::NN => (-2, 0),
            Pair::TT => (0, -2),
            Pair::TN | Pair::NT => (-1, -1),
        };
        match self {
            Op::Num(_) => (1, 0),
            Op::Text(_) => (0, 1),
            Op::Load(p) if p.store == Store::Text => (0, 1),
            Op::Load(_) => (1, 0),
            Op::StorePop(p, _) if p.store == Store::Text => (0, -1),
            Op::StorePop(..) => (-1, 0),
            Op::Parse(..) => (0, -1),
            Op::TextToNumber(_) | Op::TextTest(_) => (1, -1),
            Op::NumberToText(_) => (-1, 1),
            Op::Copy(..)
            | Op::Immediate(..)
            | Op::Neg
            | Op::Not
            | Op::BitNot(_)
            | Op::Jump(_)
            | Op::SwapText
            | Op::Bools { .. }
            | Op::Fail(..) => (0, 0),
            Op::PopNum | Op::JumpUnless(_) => (-1, 0),
            Op::PopText | Op::Join => (0, -1),
            Op::CompareText(_) | Op::Equivalent => (1, -2),
            Op::Relate { pair: p, keep, .. } => {
                let (n, t) = pair(p);
                // The right operand back, then the bool.
                let back = match (keep, p) {
                    (false, _) => (0, 0),
                    (true, Pair::NN | Pair::TN) => (1, 0),
                    (true, Pair::TT | Pair::NT) => (0, 1),
                };
                (n + back.0 + 1, t + back.1)
            }
            _ => (-1, 0),
        }
    }
}

/// What a program may do to the blackboard.
pub(crate) enum Target<'x, 'a> {
    Write(&'x mut Board<'a>),
    Read(&'x Board<'a>),
}

impl Target<'_, '_> {
    fn bytes(&self, at: Place, len: usize) -> Option<&[u8]> {
        let board = match self {
            Target::Write(b) => &**b,
            Target::Read(b) => b,
        };
        board.raw(at.offset as usize, len)
    }
}

/// The fault of a value that is not a whole number fitting `store`.
pub(crate) fn whole(value: f64, store: Store, at: u32, key: u16) -> Result<(), ScriptFault> {
    let (min, max) = store.range().unwrap_or((f64::MIN, f64::MAX));
    if value.fract() != 0.0 || !value.is_finite() {
        Err(ScriptFault::NotWhole { at, key, value })
    } else if value < min || value > max {
        Err(ScriptFault::OutOfRange { at, key, value })
    } else {
        Ok(())
    }
}

/// A number (or bool) slot's value.
pub(crate) fn load(target: &Target, at: Place) -> Result<f64, ScriptFault> {
    let b = target
        .bytes(at, at.store.size())
        .ok_or(ScriptFault::OutsideBoard)?;
    // Each type reads its own width: a copy of a length known only at run
    // time is a call to `memmove` on every read.
    Ok(match at.store {
        Store::F64 => f64::from_le_bytes(le(b)),
        Store::F32 => f32::from_le_bytes(le(b)) as f64,
        Store::I8 => i8::from_le_bytes(le(b)) as f64,
        Store::U8 => u8::from_le_bytes(le(b)) as f64,
        Store::I16 => i16::from_le_bytes(le(b)) as f64,
        Store::U16 => u16::from_le_bytes(le(b)) as f64,
        Store::I32 => i32::from_le_bytes(le(b)) as f64,
        Store::U32 => u32::from_le_bytes(le(b)) as f64,
        Store::I64 => i64::from_le_bytes(le(b)) as f64,
        Store::U64 => u64::from_le_bytes(le(b)) as f64,
        Store::Bool => f64::from(u8::from(le::<1>(b)[0] != 0)),
        Store::Text | Store::Raw => return Err(ScriptFault::Broken),
    })
}

/// The first `N` bytes of `b`, padded with zeros when it is shorter.
#[inline]
fn le<const N: usize>(b: &[u8]) -> [u8; N] {
    if let Some(Ok(w)) = b.get(..N).map(<[u8; N]>::try_from) {
        return w;
    }
    let mut w = [0u8; N];
    for (d, s) in w.iter_mut().zip(b) {
        *d = *s;
    }
    w
}

/// The `len` bytes at `place`, writable, if the target may be written.
fn writable<'t>(
    target: &'t mut Target,
    place: Place,
    len: usize,
    at: u32,
) -> Result<&'t mut [u8], ScriptFault> {
    let Target::Write(board) = target else {
        return Err(ScriptFault::ReadOnly { at });
    };
    board
        .raw_mut(place.offset as usize, len)
        .ok_or(ScriptFault::OutsideBoard)
}

/// Write a number (or bool) to its slot.
pub(crate) fn store(target: &mut Target, place: Place, v: f64, at: u32) -> Result<(), ScriptFault> {
    let key = place.key;
    if place.store.range().is_some() {
        whole(v, place.store, at, key)?;
    }
    let bytes = writable(target, place, place.store.size(), at)?;
    match place.store {
        Store::F64 => bytes.copy_from_slice(&v.to_le_bytes()),
        Store::F32 => bytes.copy_from_slice(&(v as f32).to_le_bytes()),
        Store::Bool => bytes[0] = u8::from(v != 0.0),
        Store::Text | Store::Raw => return Err(ScriptFault::Broken),
        // Whole and in range: the casts are exact.
        Store::I8 | Store::I16 | Store::I32 | Store::I64 => {
            let n = bytes.len();
            bytes.copy_from_slice(&(v as i64).to_le_bytes()[..n]);
        }
        Store::U8 | Store::U16 | Store::U32 | Store::U64 => {
            let n = bytes.len();
            bytes.copy_from_slice(&(v as u64).to_le_bytes()[..n]);
        }
    }
    Ok(())
}

/// Write a string to a text slot.
fn store_text(target: &mut Target, place: Place, t: &Text, at: u32) -> Result<(), ScriptFault> {
    t.write(writable(target, place, Text::SIZE, at)?);
    Ok(())
}

/// `a .. b` into a text, cut to [`TEXT_BYTES`] as every text is.
fn join(a: &Text, b: &Text) -> Text {
    let mut buf = [0u8; 2 * TEXT_BYTES];
    let (a, b) = (a.as_str().as_bytes(), b.as_str().as_bytes());
    buf[..a.len()].copy_from_slice(a);
    buf[a.len()..a.len() + b.len()].copy_from_slice(b);
    Text::new(std::str::from_utf8(&buf[..a.len() + b.len()]).unwrap_or_default())
}

/// A number as text, as C++'s `std::to_string` prints it, without
/// allocating: the digits that fit a [`Text`].
pub(crate) fn number_text(v: f64, whole: bool) -> Text {
    let mut buf = [0u8; 64];
    let mut out = &mut buf[..];
    let _ = if whole && v.fract() == 0.0 && v.abs() < 9.2e18 {
        write!(out, "{}", v as i64)
    } else if v.is_nan() {
        write!(out, "{}", if v.is_sign_negative() { "-nan" } else { "nan" })
    } else if v.is_infinite() {
        write!(out, "{}", if v < 0.0 { "-inf" } else { "inf" })
    } else {
        write!(out, "{v:.6}")
    };
    let len = 64 - out.len();
    Text::new(std::str::from_utf8(&buf[..len]).unwrap_or_default())
}

/// A number as a whole `i64` for a bitwise operator: BehaviorTree.CPP's
/// cast refuses a fraction.
pub(crate) fn bits(v: f64, at: u32) -> Result<i64, ScriptFault> {
    if v.fract() == 0.0 && v >= i64::MIN as f64 && v < i64::MAX as f64 {
        Ok(v as i64)
    } else {
        Err(ScriptFault::NotWhole {
            at,
            key: u16::MAX,
            value: v,
        })
    }
}

pub(crate) fn truth(b: bool) -> f64 {
    f64::from(u8::from(b))
}

/// A string read as a number in an operator.
fn text_number(t: &Text, at: u32) -> Result<f64, ScriptFault> {
    convert::script_text_to_f64(t.as_str(), |_| None).map_err(|_| ScriptFault::NotANumber { at })
}

/// A fixed stack of `N` values.
struct Stack<T, const N: usize> {
    values: [T; N],
    top: usize,
}

impl<T: Copy, const N: usize> Stack<T, N> {
    #[inline]
    fn push(&mut self, v: T) -> Result<(), ScriptFault> {
        *self.values.get_mut(self.top).ok_or(ScriptFault::Broken)? = v;
        self.top += 1;
        Ok(())
    }

    #[inline]
    fn pop(&mut self) -> Result<T, ScriptFault> {
        self.top = self.top.checked_sub(1).ok_or(ScriptFault::Broken)?;
        self.values
            .get(self.top)
            .copied()
            .ok_or(ScriptFault::Broken)
    }

    #[inline]
    fn top(&mut self) -> Result<&mut T, ScriptFault> {
        let top = self.top.checked_sub(1).ok_or(ScriptFault::Broken)?;
        self.values.get_mut(top).ok_or(ScriptFault::Broken)
    }

    #[inline]
    fn peek(&self) -> Result<T, ScriptFault> {
        let top = self.top.checked_sub(1).ok_or(ScriptFault::Broken)?;
        self.values.get(top).copied().ok_or(ScriptFault::Broken)
    }
}

/// The program's constants and operations.
pub(crate) struct Code<'p> {
    pub(crate) ops: &'p [Op],
    pub(crate) texts: &'p [Text],
    pub(crate) types: &'p [SlotType],
    pub(crate) ty: Ty,
}

/// The two stacks a program runs on.
struct Stacks {
    nums: Stack<f64, MAX_SCRIPT_STACK>,
    texts: Stack<Text, MAX_SCRIPT_TEXTS>,
}

impl Stacks {
    /// The two operands of a comparison of `pair`, as numbers or texts.
    fn relate(&mut self, cmp: Cmp, pair: Pair, keep: bool, at: u32) -> Result<(), ScriptFault> {
        let result = match pair {
            Pair::NN => {
                let (b, a) = (self.nums.pop()?, self.nums.pop()?);
                if keep {
                    self.nums.push(b)?;
                }
                cmp.numbers(a, b)
            }
            Pair::TT => {
                let (b, a) = (self.texts.pop()?, self.texts.pop()?);
                if keep {
                    self.texts.push(b)?;
                }
                cmp.texts(a.as_str(), b.as_str())
            }
            Pair::TN => {
                let (b, a) = (self.nums.pop()?, self.texts.pop()?);
                if keep {
                    self.nums.push(b)?;
                }
                cmp.numbers(text_number(&a, at)?, b)
            }
            Pair::NT => {
                let (b, a) = (self.texts.pop()?, self.nums.pop()?);
                if keep {
                    self.texts.push(b)?;
                }
                cmp.numbers(a, text_number(&b, at)?)
            }
        };
        self.nums.push(truth(result))
    }
}

/// Run `code` against `target`: the value left on the stack.
pub(crate) fn run(code: &Code, mut target: Target) -> Result<ScriptValue, ScriptFault> {
    let mut s = Stacks {
        nums: Stack {
            values: [0.0; MAX_SCRIPT_STACK],
            top: 0,
        },
        texts: Stack {
            values: [bytemuck::Zeroable::zeroed(); MAX_SCRIPT_TEXTS],
            top: 0,
        },
    };
    let mut pc = 0usize;
    while let Some(&op) = code.ops.get(pc) {
        pc += 1;
        match op {
            Op::Num(v) => s.nums.push(v)?,
            Op::Text(i) => {
                let t = code.texts.get(i as usize).ok_or(ScriptFault::Broken)?;
                s.texts.push(*t)?;
            }
            Op::Load(place) if place.store == Store::Text => {
                let b = target
                    .bytes(place, Text::SIZE)
                    .ok_or(ScriptFault::OutsideBoard)?;
                s.texts.push(Text::read(b))?;
            }
            Op::Load(place) => s.nums.push(load(&target, place)?)?,
            Op::StorePop(place, at) if place.store == Store::Text => {
                store_text(&mut target, place, &s.texts.pop()?, at)?;
            }
            Op::StorePop(place, at) => store(&mut target, place, s.nums.pop()?, at)?,
            Op::Parse(place, ty, at) => {
                let text = s.texts.pop()?;
                let ty = code.types.get(ty as usize).ok_or(ScriptFault::Broken)?;
                let bytes = writable(&mut target, place, ty.size(), at)?;
                ty.parse(text.as_str(), bytes)
                    .map_err(|error| ScriptFault::Convert {
                        at,
                        key: place.key,
                        error,
                    })?;
            }
            Op::Copy(from, to, ty) => {
                let len = code
                    .types
                    .get(ty as usize)
                    .ok_or(ScriptFault::Broken)?
                    .size();
                let Target::Write(board) = &mut target else {
                    return Err(ScriptFault::ReadOnly { at: 0 });
                };
                board
                    .copy_within(from.offset as usize, to.offset as usize, len)
                    .ok_or(ScriptFault::OutsideBoard)?;
            }
            Op::TextToNumber(at) => {
                let t = s.texts.pop()?;
                s.nums.push(text_number(&t, at)?)?;
            }
            Op::NumberToText(whole) => {
                let v = s.nums.pop()?;
                s.texts.push(number_text(v, whole))?;
            }
            Op::TextTest(at) => {
                let t = s.texts.pop()?;
                let v =
                    convert::text_to_f64(t.as_str()).map_err(|_| ScriptFault::NotANumber { at })?;
                s.nums.push(truth(v != 0.0))?;
            }
            Op::Immediate(arith, k) => {
                let top = s.nums.top()?;
                *top = arith.apply(*top, k);
            }
            Op::PopNum => drop(s.nums.pop()?),
            Op::PopText => drop(s.texts.pop()?),
            Op::Jump(to) => pc = to as usize,
            Op::JumpUnless(to) => {
                if s.nums.pop()? == 0.0 {
                    pc = to as usize;
                }
            }
            Op::Neg => {
                let v = s.nums.pop()?;
                s.nums.push(-v)?;
            }
            Op::Not => {
                let v = s.nums.pop()?;
                s.nums.push(truth(v == 0.0))?;
            }
            Op::BitNot(at) => {
                let v = s.nums.pop()?;
                // BehaviorTree.CPP truncates here (a cast), within range.
                if !(v >= i64::MIN as f64 && v < i64::MAX as f64) {
                    return Err(ScriptFault::OutOfRange {
                        at,
                        key: u16::MAX,
                        value: v,
                    });
                }
                s.nums.push(!(v as i64) as f64)?;
            }
            Op::Join => {
                let (b, a) = (s.texts.pop()?, s.texts.pop()?);
                s.texts.push(join(&a, &b))?;
            }
            Op::SwapText => {
                let (b, a) = (s.texts.pop()?, s.texts.pop()?);
                s.texts.push(b)?;
                s.texts.push(a)?;
            }
            Op::CompareText(cmp) => {
                let (b, a) = (s.texts.pop()?, s.texts.pop()?);
                s.nums.push(truth(cmp.texts(a.as_str(), b.as_str())))?;
            }
            Op::Relate {
                cmp,
                pair,
                keep,
                at,
            } => s.relate(cmp, pair, keep, at)?,
            Op::Equivalent => {
                let (b, a) = (s.texts.pop()?, s.texts.pop()?);
                s.nums.push(truth(equivalent(a.as_str(), b.as_str())))?;
            }
            Op::Fail(why, at) => return Err(ScriptFault::Refused { at, why }),
            Op::Bools { left, right, at } => {
                let b = s.nums.pop()?;
                let a = s.nums.peek()?;
                s.nums.push(b)?;
                bools(a, b, left, right, at)?;
            }
            _ => {
                let (b, a) = (s.nums.pop()?, s.nums.pop()?);
                s.nums.push(binary(op, a, b)?)?;
            }
        }
    }
    Ok(match code.ty {
        Ty::Int | Ty::Double => ScriptValue::Number(s.nums.peek()?),
        Ty::Bool => ScriptValue::Bool(s.nums.peek()? != 0.0),
        Ty::Text => ScriptValue::Text(s.texts.peek()?),
    })
}

/// The check of [`Op::Bools`]: the whole-number operands of `&&` or `||`
/// (`left`, `right`: which are) are 0 or 1.
#[inline]
pub(crate) fn bools(a: f64, b: f64, left: bool, right: bool, at: u32) -> Result<(), ScriptFault> {
    let bool_like = |v: f64| v == 0.0 || v == 1.0;
    if left && !bool_like(a) || right && !bool_like(b) {
        let why = Refusal::NotABool;
        return Err(ScriptFault::Refused { at, why });
    }
    Ok(())
}

/// BehaviorTree.CPP's `Switch` test of two texts (`CheckStringEquality`,
/// 4.10): the same text, or both whole numbers (of an `int`) and equal,
/// or both numbers read whole and equal within its tolerance.
pub(crate) fn equivalent(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if let (Some(x), Some(y)) = (convert::whole_i32(a), convert::whole_i32(b))
        && x == y
    {
        return true;
    }
    matches!((convert::whole_f64(a), convert::whole_f64(b)), (Some(x), Some(y)) if (x - y).abs() <= SAME)
}

/// The value of a binary operation on two numbers.
#[inline]
pub(crate) fn binary(op: Op, a: f64, b: f64) -> Result<f64, ScriptFault> {
    Ok(match op {
        Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Compare(_) => {
            Arith::of(op).map_or(f64::NAN, |arith| arith.apply(a, b))
        }
        Op::And => truth(a != 0.0 && b != 0.0),
        Op::Or => truth(a != 0.0 || b != 0.0),
        Op::BitAnd(at) => (bits(a, at)? & bits(b, at)?) as f64,
        Op::BitOr(at) => (bits(a, at)? | bits(b, at)?) as f64,
        Op::BitXor(at) => (bits(a, at)? ^ bits(b, at)?) as f64,
        _ => return Err(ScriptFault::Broken),
    })
}

/// Write `value` into the key `ops` name last (read or assigned), as `:=`
/// writes it; a value of another type than the key's, or `ops` naming no
/// key, is [`ScriptFault::Broken`].
pub(crate) fn assign(ops: &[Op], board: &mut Board, value: ScriptValue) -> Result<(), ScriptFault> {
    let place = ops
        .iter()
        .rev()
        .find_map(|op| match *op {
            Op::Load(p) | Op::StorePop(p, _) => Some(p),
            _ => None,
        })
        .ok_or(ScriptFault::Broken)?;
    let mut target = Target::Write(board);
    match (value, place.store) {
        (ScriptValue::Text(t), Store::Text) => store_text(&mut target, place, &t, 0),
        (ScriptValue::Bool(b), store_as) if !matches!(store_as, Store::Text | Store::Raw) => {
            store(&mut target, place, truth(b), 0)
        }
        (ScriptValue::Number(n), store_as)
            if !matches!(store_as, Store::Text | Store::Bool | Store::Raw) =>
        {
            store(&mut target, place, n, 0)
        }
        _ => Err(ScriptFault::Broken),
    }
}

/// Write `value` as a script shows it.
pub(crate) fn show(value: &ScriptValue, out: &mut String) {
    use std::fmt::Write as _;
    let _ = match value {
        ScriptValue::Number(n) => write!(out, "{}", crate::util::text::number(*n)),
        ScriptValue::Bool(b) => write!(out, "{b}"),
        ScriptValue::Text(t) => write!(out, "{}", crate::util::text::quote(t.as_str())),
    };
}
