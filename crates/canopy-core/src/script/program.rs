//! A compiled script: a flat list of operations over a small value stack,
//! run per tick without allocating.

use std::fmt::Write as _;

use super::{MAX_SCRIPT_STACK, MAX_SCRIPT_TEXTS, ScriptFault, ScriptValue, Ty};
use crate::util::board::{Board, TEXT_BYTES, Text};

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
    Text,
}

impl Store {
    pub(crate) fn size(self) -> usize {
        match self {
            Store::I8 | Store::U8 | Store::Bool => 1,
            Store::I16 | Store::U16 => 2,
            Store::I32 | Store::U32 | Store::F32 => 4,
            Store::I64 | Store::U64 | Store::F64 => 8,
            Store::Text => size_of::<Text>(),
        }
    }

    /// The whole numbers an integer slot holds, or `None` for the others.
    fn range(self) -> Option<(f64, f64)> {
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

impl Cmp {
    fn holds(self, order: Option<std::cmp::Ordering>) -> bool {
        match (self, order) {
            (Cmp::Ne, None) => true,
            (_, None) => false, // NaN compares false
            (Cmp::Eq, Some(o)) => o.is_eq(),
            (Cmp::Ne, Some(o)) => o.is_ne(),
            (Cmp::Lt, Some(o)) => o.is_lt(),
            (Cmp::Le, Some(o)) => o.is_le(),
            (Cmp::Gt, Some(o)) => o.is_gt(),
            (Cmp::Ge, Some(o)) => o.is_ge(),
        }
    }
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
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => a * b,
            Arith::Div => a / b,
            Arith::Compare(c) => truth(c.holds(a.partial_cmp(&b))),
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
    /// Write the top of its stack (left there); `u32` is the byte offset
    /// of the assignment in the source.
    Store(Place, u32),
    /// [`Op::Store`] then pop: an assignment whose value no one uses.
    StorePop(Place, u32),
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
    /// Two numbers to a bool.
    Compare(Cmp),
    /// Two strings to a bool.
    CompareText(Cmp),
    And,
    Or,
    BitAnd(u32),
    BitOr(u32),
    BitXor(u32),
    /// Pop a bool; jump to the operation at the index if it is false.
    JumpUnless(u32),
    Jump(u32),
}

impl Op {
    /// Values the operation adds to the number and the string stacks
    /// (a jump's branch is accounted for by the compiler).
    pub(crate) fn effect(self) -> (isize, isize) {
        match self {
            Op::Num(_) => (1, 0),
            Op::Text(_) => (0, 1),
            Op::Load(p) if p.store == Store::Text => (0, 1),
            Op::Load(_) => (1, 0),
            Op::StorePop(p, _) if p.store == Store::Text => (0, -1),
            Op::StorePop(..) => (-1, 0),
            Op::Store(..) | Op::Immediate(..) | Op::Neg | Op::Not | Op::BitNot(_) | Op::Jump(_) => {
                (0, 0)
            }
            Op::PopNum | Op::JumpUnless(_) => (-1, 0),
            Op::PopText | Op::Join => (0, -1),
            Op::CompareText(_) => (1, -2),
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
    fn bytes(&self, at: Place) -> Option<&[u8]> {
        let board = match self {
            Target::Write(b) => &**b,
            Target::Read(b) => b,
        };
        board.raw(at.offset as usize, at.store.size())
    }
}

/// The fault of a value that is not a whole number fitting `store`.
fn whole(value: f64, store: Store, at: u32, key: u16) -> Result<(), ScriptFault> {
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
fn load(target: &Target, at: Place) -> Result<f64, ScriptFault> {
    let b = target.bytes(at).ok_or(ScriptFault::OutsideBoard)?;
    let mut w = [0u8; 8];
    let n = b.len().min(8);
    w[..n].copy_from_slice(&b[..n]);
    let [a, b, c, d, ..] = w;
    Ok(match at.store {
        Store::F64 => f64::from_le_bytes(w),
        Store::F32 => f32::from_le_bytes([a, b, c, d]) as f64,
        Store::I8 => a as i8 as f64,
        Store::U8 => a as f64,
        Store::I16 => i16::from_le_bytes([a, b]) as f64,
        Store::U16 => u16::from_le_bytes([a, b]) as f64,
        Store::I32 => i32::from_le_bytes([a, b, c, d]) as f64,
        Store::U32 => u32::from_le_bytes([a, b, c, d]) as f64,
        Store::I64 => i64::from_le_bytes(w) as f64,
        Store::U64 => u64::from_le_bytes(w) as f64,
        Store::Bool => f64::from(u8::from(a != 0)),
        Store::Text => return Err(ScriptFault::Broken),
    })
}

/// The bytes of `place`, writable, if the target may be written.
fn writable<'t>(
    target: &'t mut Target,
    place: Place,
    at: u32,
) -> Result<&'t mut [u8], ScriptFault> {
    let Target::Write(board) = target else {
        return Err(ScriptFault::ReadOnly { at });
    };
    board
        .raw_mut(place.offset as usize, place.store.size())
        .ok_or(ScriptFault::OutsideBoard)
}

/// Write a number (or bool) to its slot.
fn store(target: &mut Target, place: Place, v: f64, at: u32) -> Result<(), ScriptFault> {
    let key = place.key;
    if place.store.range().is_some() {
        whole(v, place.store, at, key)?;
    }
    let bytes = writable(target, place, at)?;
    match place.store {
        Store::F64 => bytes.copy_from_slice(&v.to_le_bytes()),
        Store::F32 => bytes.copy_from_slice(&(v as f32).to_le_bytes()),
        Store::Bool => bytes[0] = u8::from(v != 0.0),
        Store::Text => return Err(ScriptFault::Broken),
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

/// `a .. b` into a text, cut to [`TEXT_BYTES`] as every text is.
fn join(a: &Text, b: &Text) -> Text {
    let mut buf = [0u8; 2 * TEXT_BYTES];
    let (a, b) = (a.as_str().as_bytes(), b.as_str().as_bytes());
    buf[..a.len()].copy_from_slice(a);
    buf[a.len()..a.len() + b.len()].copy_from_slice(b);
    Text::new(std::str::from_utf8(&buf[..a.len() + b.len()]).unwrap_or_default())
}

/// A number as a whole `i64` for a bitwise operator.
fn bits(v: f64, at: u32) -> Result<i64, ScriptFault> {
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

fn truth(b: bool) -> f64 {
    f64::from(u8::from(b))
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
    pub(crate) ty: Ty,
}

/// Run `code` against `target`: the value left on the stack.
pub(crate) fn run(code: &Code, mut target: Target) -> Result<ScriptValue, ScriptFault> {
    let mut nums = Stack::<f64, MAX_SCRIPT_STACK> {
        values: [0.0; MAX_SCRIPT_STACK],
        top: 0,
    };
    let mut texts = Stack::<Text, MAX_SCRIPT_TEXTS> {
        values: [bytemuck::Zeroable::zeroed(); MAX_SCRIPT_TEXTS],
        top: 0,
    };
    let mut pc = 0usize;
    while let Some(&op) = code.ops.get(pc) {
        pc += 1;
        match op {
            Op::Num(v) => nums.push(v)?,
            Op::Text(i) => {
                let t = code.texts.get(i as usize).ok_or(ScriptFault::Broken)?;
                texts.push(*t)?;
            }
            Op::Load(place) if place.store == Store::Text => {
                let b = target.bytes(place).ok_or(ScriptFault::OutsideBoard)?;
                texts.push(crate::util::board::BoardValue::read(b))?;
            }
            Op::Load(place) => nums.push(load(&target, place)?)?,
            Op::Store(place, at) if place.store == Store::Text => {
                let t = texts.peek()?;
                crate::util::board::BoardValue::write(&t, writable(&mut target, place, at)?);
            }
            Op::Store(place, at) => store(&mut target, place, nums.peek()?, at)?,
            Op::StorePop(place, at) if place.store == Store::Text => {
                let t = texts.pop()?;
                crate::util::board::BoardValue::write(&t, writable(&mut target, place, at)?);
            }
            Op::StorePop(place, at) => store(&mut target, place, nums.pop()?, at)?,
            Op::Immediate(arith, k) => {
                let top = nums.top()?;
                *top = arith.apply(*top, k);
            }
            Op::PopNum => drop(nums.pop()?),
            Op::PopText => drop(texts.pop()?),
            Op::Jump(to) => pc = to as usize,
            Op::JumpUnless(to) => {
                if nums.pop()? == 0.0 {
                    pc = to as usize;
                }
            }
            Op::Neg => {
                let v = nums.pop()?;
                nums.push(-v)?;
            }
            Op::Not => {
                let v = nums.pop()?;
                nums.push(truth(v == 0.0))?;
            }
            Op::BitNot(at) => {
                let v = nums.pop()?;
                nums.push(!bits(v, at)? as f64)?;
            }
            Op::Join => {
                let (b, a) = (texts.pop()?, texts.pop()?);
                texts.push(join(&a, &b))?;
            }
            Op::CompareText(cmp) => {
                let (b, a) = (texts.pop()?, texts.pop()?);
                nums.push(truth(cmp.holds(Some(a.as_str().cmp(b.as_str())))))?;
            }
            _ => {
                let (b, a) = (nums.pop()?, nums.pop()?);
                nums.push(binary(op, a, b)?)?;
            }
        }
    }
    Ok(match code.ty {
        Ty::Number => ScriptValue::Number(nums.peek()?),
        Ty::Bool => ScriptValue::Bool(nums.peek()? != 0.0),
        Ty::Text => ScriptValue::Text(texts.peek()?),
    })
}

/// The value of a binary operation on two numbers.
#[inline]
fn binary(op: Op, a: f64, b: f64) -> Result<f64, ScriptFault> {
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
            Op::Load(p) | Op::Store(p, _) | Op::StorePop(p, _) => Some(p),
            _ => None,
        })
        .ok_or(ScriptFault::Broken)?;
    let mut target = Target::Write(board);
    match (value, place.store) {
        (ScriptValue::Text(t), Store::Text) => {
            crate::util::board::BoardValue::write(&t, writable(&mut target, place, 0)?);
            Ok(())
        }
        (ScriptValue::Bool(b), Store::Bool) => store(&mut target, place, truth(b), 0),
        (ScriptValue::Number(n), store_as) if !matches!(store_as, Store::Text | Store::Bool) => {
            store(&mut target, place, n, 0)
        }
        _ => Err(ScriptFault::Broken),
    }
}

/// Write `value` as a script shows it.
pub(crate) fn show(value: &ScriptValue, out: &mut String) {
    let _ = match value {
        ScriptValue::Number(n) => write!(out, "{}", crate::util::text::number(*n)),
        ScriptValue::Bool(b) => write!(out, "{b}"),
        ScriptValue::Text(t) => write!(out, "{}", crate::util::text::quote(t.as_str())),
    };
}
