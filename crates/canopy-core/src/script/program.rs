//! A compiled script: a flat list of operations over a small value stack,
//! run per tick without allocating.

use std::fmt::Write as _;

use super::{MAX_SCRIPT_STACK, ScriptFault, ScriptValue};
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

/// One operation. Operands are popped from the stack and results pushed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    Push(ScriptValue),
    Load(Place),
    /// Write the top of the stack (left there); `u32` is the byte offset
    /// of the assignment in the source.
    Store(Place, u32),
    Pop,
    Neg,
    Not,
    /// Number to bool: not zero.
    Truthy,
    BitNot(u32),
    Add,
    Sub,
    Mul,
    Div,
    Join,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd(u32),
    BitOr(u32),
    BitXor(u32),
    /// Pop a bool; jump to the operation at the index if it is false.
    JumpUnless(u32),
    Jump(u32),
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

fn load(target: &Target, at: Place) -> Result<ScriptValue, ScriptFault> {
    let b = target.bytes(at).ok_or(ScriptFault::OutsideBoard)?;
    let n = |v: f64| ScriptValue::Number(v);
    let arr = |b: &[u8]| -> [u8; 8] {
        let mut out = [0; 8];
        out[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        out
    };
    let w = arr(b);
    Ok(match at.store {
        Store::F64 => n(f64::from_le_bytes(w)),
        Store::F32 => n(f32::from_le_bytes([w[0], w[1], w[2], w[3]]) as f64),
        Store::I8 => n(w[0] as i8 as f64),
        Store::U8 => n(w[0] as f64),
        Store::I16 => n(i16::from_le_bytes([w[0], w[1]]) as f64),
        Store::U16 => n(u16::from_le_bytes([w[0], w[1]]) as f64),
        Store::I32 => n(i32::from_le_bytes([w[0], w[1], w[2], w[3]]) as f64),
        Store::U32 => n(u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as f64),
        Store::I64 => n(i64::from_le_bytes(w) as f64),
        Store::U64 => n(u64::from_le_bytes(w) as f64),
        Store::Bool => ScriptValue::Bool(w[0] != 0),
        Store::Text => ScriptValue::Text(crate::util::board::BoardValue::read(b)),
    })
}

fn store(
    target: &mut Target,
    place: Place,
    value: ScriptValue,
    at: u32,
) -> Result<(), ScriptFault> {
    let Target::Write(board) = target else {
        return Err(ScriptFault::ReadOnly { at });
    };
    let bytes = board
        .raw_mut(place.offset as usize, place.store.size())
        .ok_or(ScriptFault::OutsideBoard)?;
    let key = place.key;
    match (place.store, value) {
        (Store::F64, ScriptValue::Number(v)) => bytes.copy_from_slice(&v.to_le_bytes()),
        (Store::F32, ScriptValue::Number(v)) => bytes.copy_from_slice(&(v as f32).to_le_bytes()),
        (Store::Bool, ScriptValue::Bool(v)) => bytes[0] = u8::from(v),
        (Store::Text, ScriptValue::Text(t)) => crate::util::board::BoardValue::write(&t, bytes),
        (s, ScriptValue::Number(v)) => {
            whole(v, s, at, key)?;
            // In range and whole: the casts are exact.
            let le: [u8; 8] = match s {
                Store::I8 | Store::I16 | Store::I32 | Store::I64 => (v as i64).to_le_bytes(),
                _ => (v as u64).to_le_bytes(),
            };
            let n = bytes.len();
            bytes.copy_from_slice(&le[..n]);
        }
        _ => return Err(ScriptFault::Broken),
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

/// Run `ops` against `target`: the value left on the stack.
pub(crate) fn run(ops: &[Op], mut target: Target) -> Result<ScriptValue, ScriptFault> {
    let mut stack = [ScriptValue::Bool(false); MAX_SCRIPT_STACK];
    let mut top = 0usize; // values on the stack
    let mut pc = 0usize;
    macro_rules! pop {
        () => {{
            top = top.checked_sub(1).ok_or(ScriptFault::Broken)?;
            stack[top]
        }};
    }
    macro_rules! push {
        ($v:expr) => {{
            let v = $v;
            *stack.get_mut(top).ok_or(ScriptFault::Broken)? = v;
            top += 1;
        }};
    }
    while let Some(&op) = ops.get(pc) {
        pc += 1;
        match op {
            Op::Push(v) => push!(v),
            Op::Load(place) => push!(load(&target, place)?),
            Op::Store(place, at) => {
                let v = pop!();
                store(&mut target, place, v, at)?;
                push!(v);
            }
            Op::Pop => {
                pop!();
            }
            Op::Jump(to) => pc = to as usize,
            Op::JumpUnless(to) => {
                if let ScriptValue::Bool(false) = pop!() {
                    pc = to as usize;
                }
            }
            Op::Neg | Op::Not | Op::Truthy | Op::BitNot(_) => {
                let v = pop!();
                push!(match (op, v) {
                    (Op::Neg, ScriptValue::Number(n)) => ScriptValue::Number(-n),
                    (Op::Not, ScriptValue::Bool(b)) => ScriptValue::Bool(!b),
                    (Op::Truthy, ScriptValue::Number(n)) => ScriptValue::Bool(n != 0.0),
                    (Op::BitNot(at), ScriptValue::Number(n)) =>
                        ScriptValue::Number(!bits(n, at)? as f64),
                    _ => return Err(ScriptFault::Broken),
                });
            }
            _ => {
                let b = pop!();
                let a = pop!();
                push!(binary(op, a, b)?);
            }
        }
    }
    if top == 0 {
        return Err(ScriptFault::Broken);
    }
    Ok(stack[top - 1])
}

/// The value of a binary operation, on operands the compiler checked.
fn binary(op: Op, a: ScriptValue, b: ScriptValue) -> Result<ScriptValue, ScriptFault> {
    use ScriptValue::{Bool, Number as N, Text as T};
    Ok(match (op, a, b) {
        (Op::Add, N(a), N(b)) => N(a + b),
        (Op::Sub, N(a), N(b)) => N(a - b),
        (Op::Mul, N(a), N(b)) => N(a * b),
        (Op::Div, N(a), N(b)) => N(a / b),
        (Op::Add | Op::Join, T(a), T(b)) => T(join(&a, &b)),
        (Op::BitAnd(at), N(a), N(b)) => N((bits(a, at)? & bits(b, at)?) as f64),
        (Op::BitOr(at), N(a), N(b)) => N((bits(a, at)? | bits(b, at)?) as f64),
        (Op::BitXor(at), N(a), N(b)) => N((bits(a, at)? ^ bits(b, at)?) as f64),
        (Op::And, Bool(a), Bool(b)) => Bool(a && b),
        (Op::Or, Bool(a), Bool(b)) => Bool(a || b),
        (Op::Eq, a, b) => Bool(a == b),
        (Op::Ne, a, b) => Bool(a != b),
        (Op::Lt | Op::Le | Op::Gt | Op::Ge, a, b) => {
            let order = match (a, b) {
                (N(a), N(b)) => a.partial_cmp(&b),
                (T(a), T(b)) => Some(a.as_str().cmp(b.as_str())),
                _ => return Err(ScriptFault::Broken),
            };
            let Some(order) = order else {
                return Ok(Bool(false)); // NaN compares false
            };
            Bool(match op {
                Op::Lt => order.is_lt(),
                Op::Le => order.is_le(),
                Op::Gt => order.is_gt(),
                _ => order.is_ge(),
            })
        }
        _ => return Err(ScriptFault::Broken),
    })
}

/// Write `value` as a script shows it.
pub(crate) fn show(value: &ScriptValue, out: &mut String) {
    let _ = match value {
        ScriptValue::Number(n) => write!(out, "{}", crate::util::text::number(*n)),
        ScriptValue::Bool(b) => write!(out, "{b}"),
        ScriptValue::Text(t) => write!(out, "{}", crate::util::text::quote(t.as_str())),
    };
}
