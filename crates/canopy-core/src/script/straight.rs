//! Scripts of numbers only, without jumps, as straight-line code over a
//! handful of registers: the common case (`hp := step * 2 + 1`,
//! `hp > 10 && ready`) run without the stack machine.
//!
//! The stack machine ([`program::run`](super::program::run)) checks every
//! push and pop, and sets up a stack of numbers and one of strings on every
//! run. For a program without jumps the depth of the stack at each operation
//! is known when the script loads, so each value can be given a register
//! instead: a step reads its operands from fixed registers and writes its
//! result to one, and nothing is checked while it runs but what
//! BehaviorTree.CPP checks (a slot's range, a bool's value). Constants are
//! folded while lowering — `2 * 3 + k` is one step — with the very
//! functions the stack machine applies, so the values are the same bit for
//! bit; a step that can fault or touches the blackboard is never folded
//! away, so faults come at the same place. A program that is not
//! straight-line numbers (strings, `? :`, comparison chains, bitwise
//! operators) keeps the stack machine.
//!
//! Rejected: compiling each operation to a closure (one indirect call per
//! operation, as costly as the dispatch it replaces) and generating
//! machine code (`unsafe`, and a code generator's weight for a few
//! operations).

use super::ScriptFault;
use super::program::{
    Arith, Cmp, Op, Pair, Place, Store, Target, binary, bits, bools, truth, whole,
};
use crate::util::board::Board;

/// Registers one straight-line program may use; a deeper stack keeps the
/// stack machine.
const REGS: usize = 8;

/// A register's index, always below [`REGS`] (masked where read, so no
/// access can fail its bounds).
type Reg = u8;

/// A slot a step writes: where, and for a fault, where in the source and
/// which key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) offset: u32,
    pub(crate) at: u32,
    pub(crate) key: u16,
}

/// One step, of one type and one operation: what it does is decided by
/// its variant alone. Registers are named by the stack depth of the value
/// they hold; a binary step reads the register below `Reg` and `Reg` and
/// writes the lower. A store leaves in its register the value the slot
/// now reads as, so that a read of the key just written is no step.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Num(Reg, f64),
    LoadF64(Reg, u32),
    LoadF32(Reg, u32),
    LoadI8(Reg, u32),
    LoadI16(Reg, u32),
    LoadI32(Reg, u32),
    LoadI64(Reg, u32),
    LoadU8(Reg, u32),
    LoadU16(Reg, u32),
    LoadU32(Reg, u32),
    LoadU64(Reg, u32),
    LoadBool(Reg, u32),
    StoreF64(Reg, Slot),
    StoreF32(Reg, Slot),
    StoreI8(Reg, Slot),
    StoreI16(Reg, Slot),
    StoreI32(Reg, Slot),
    StoreI64(Reg, Slot),
    StoreU8(Reg, Slot),
    StoreU16(Reg, Slot),
    StoreU32(Reg, Slot),
    StoreU64(Reg, Slot),
    StoreBool(Reg, Slot),
    AddK(Reg, f64),
    SubK(Reg, f64),
    MulK(Reg, f64),
    DivK(Reg, f64),
    EqK(Reg, f64),
    NeK(Reg, f64),
    LtK(Reg, f64),
    LeK(Reg, f64),
    GtK(Reg, f64),
    GeK(Reg, f64),
    Add(Reg),
    Sub(Reg),
    Mul(Reg),
    Div(Reg),
    Eq(Reg),
    Ne(Reg),
    Lt(Reg),
    Le(Reg),
    Gt(Reg),
    Ge(Reg),
    And(Reg),
    Or(Reg),
    BitAnd(Reg, u32),
    BitOr(Reg, u32),
    BitXor(Reg, u32),
    Neg(Reg),
    Not(Reg),
    /// Check the operands of `&&` or `||` (the one below `Reg`, and `Reg`).
    Bools(Reg, bool, bool, u32),
}

/// What lowering knows of a value on the stack.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Const(f64),
    /// In its register.
    Reg,
}

/// A straight-line numeric program.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Straight {
    steps: Box<[Step]>,
    /// The script's value: a constant, or the register holding it.
    value: Val,
    /// Its register, when `value` is [`Val::Reg`].
    at: Reg,
}

/// The step loading `place` into `d`, for a slot of a number or a bool.
fn load_step(d: Reg, place: Place) -> Option<Step> {
    let o = place.offset;
    Some(match place.store {
        Store::F64 => Step::LoadF64(d, o),
        Store::F32 => Step::LoadF32(d, o),
        Store::I8 => Step::LoadI8(d, o),
        Store::I16 => Step::LoadI16(d, o),
        Store::I32 => Step::LoadI32(d, o),
        Store::I64 => Step::LoadI64(d, o),
        Store::U8 => Step::LoadU8(d, o),
        Store::U16 => Step::LoadU16(d, o),
        Store::U32 => Step::LoadU32(d, o),
        Store::U64 => Step::LoadU64(d, o),
        Store::Bool => Step::LoadBool(d, o),
        Store::Text | Store::Raw => return None,
    })
}

/// The step storing `s` into `place`, for a slot of a number or a bool.
fn store_step(s: Reg, place: Place, at: u32) -> Option<Step> {
    let slot = Slot {
        offset: place.offset,
        at,
        key: place.key,
    };
    Some(match place.store {
        Store::F64 => Step::StoreF64(s, slot),
        Store::F32 => Step::StoreF32(s, slot),
        Store::I8 => Step::StoreI8(s, slot),
        Store::I16 => Step::StoreI16(s, slot),
        Store::I32 => Step::StoreI32(s, slot),
        Store::I64 => Step::StoreI64(s, slot),
        Store::U8 => Step::StoreU8(s, slot),
        Store::U16 => Step::StoreU16(s, slot),
        Store::U32 => Step::StoreU32(s, slot),
        Store::U64 => Step::StoreU64(s, slot),
        Store::Bool => Step::StoreBool(s, slot),
        Store::Text | Store::Raw => return None,
    })
}

/// The step applying `arith` with the constant `k` to `d`.
fn imm_step(d: Reg, arith: Arith, k: f64) -> Step {
    match arith {
        Arith::Add => Step::AddK(d, k),
        Arith::Sub => Step::SubK(d, k),
        Arith::Mul => Step::MulK(d, k),
        Arith::Div => Step::DivK(d, k),
        Arith::Compare(Cmp::Eq) => Step::EqK(d, k),
        Arith::Compare(Cmp::Ne) => Step::NeK(d, k),
        Arith::Compare(Cmp::Lt) => Step::LtK(d, k),
        Arith::Compare(Cmp::Le) => Step::LeK(d, k),
        Arith::Compare(Cmp::Gt) => Step::GtK(d, k),
        Arith::Compare(Cmp::Ge) => Step::GeK(d, k),
    }
}

/// The step of the binary operation `op` on the register below `b` and
/// `b`.
fn bin_step(b: Reg, op: Op) -> Option<Step> {
    Some(match op {
        Op::Add => Step::Add(b),
        Op::Sub => Step::Sub(b),
        Op::Mul => Step::Mul(b),
        Op::Div => Step::Div(b),
        Op::Compare(Cmp::Eq) => Step::Eq(b),
        Op::Compare(Cmp::Ne) => Step::Ne(b),
        Op::Compare(Cmp::Lt) => Step::Lt(b),
        Op::Compare(Cmp::Le) => Step::Le(b),
        Op::Compare(Cmp::Gt) => Step::Gt(b),
        Op::Compare(Cmp::Ge) => Step::Ge(b),
        Op::And => Step::And(b),
        Op::Or => Step::Or(b),
        Op::BitAnd(at) => Step::BitAnd(b, at),
        Op::BitOr(at) => Step::BitOr(b, at),
        Op::BitXor(at) => Step::BitXor(b, at),
        _ => return None,
    })
}

/// Lowers a program, value by value.
struct Lower {
    steps: Vec<Step>,
    stack: Vec<Val>,
    /// The slot the last step stored, and from which register.
    stored: Option<(Place, Reg)>,
}

impl Lower {
    fn push(&mut self, v: Val) -> Option<()> {
        (self.stack.len() < REGS).then(|| self.stack.push(v))
    }

    fn emit(&mut self, step: Step) {
        self.steps.push(step);
        self.stored = None;
    }

    /// The register of the top value, emitting its constant into it.
    fn top_reg(&mut self) -> Option<Reg> {
        let at = self.stack.len().checked_sub(1)?;
        if let Val::Const(k) = self.stack[at] {
            self.emit(Step::Num(at as Reg, k));
            self.stack[at] = Val::Reg;
        }
        Some(at as Reg)
    }

    /// The registers of the two top values, emitting constants into them.
    fn two_regs(&mut self) -> Option<Reg> {
        let below = self.stack.len().checked_sub(2)?;
        if let Val::Const(k) = self.stack[below] {
            self.emit(Step::Num(below as Reg, k));
            self.stack[below] = Val::Reg;
        }
        self.top_reg()
    }

    fn op(&mut self, op: Op) -> Option<()> {
        let depth = self.stack.len();
        match op {
            Op::Num(k) => self.push(Val::Const(k))?,
            // The key the last step wrote, into the register it was
            // written from: its value is there already.
            Op::Load(place) if self.stored == Some((place, depth as Reg)) => {
                self.push(Val::Reg)?;
                self.stored = None;
            }
            Op::Load(place) => {
                let step = load_step(depth as Reg, place)?;
                self.push(Val::Reg)?;
                self.emit(step);
            }
            Op::StorePop(place, at) => {
                let reg = self.top_reg()?;
                self.emit(store_step(reg, place, at)?);
                self.stored = Some((place, reg));
                self.stack.pop();
            }
            Op::PopNum => drop(self.stack.pop()?),
            Op::Immediate(arith, k) => match *self.stack.last()? {
                Val::Const(a) => *self.stack.last_mut()? = Val::Const(arith.apply(a, k)),
                Val::Reg => self.emit(imm_step((depth - 1) as Reg, arith, k)),
            },
            Op::Neg | Op::Not => match *self.stack.last()? {
                Val::Const(a) => {
                    let v = if op == Op::Neg { -a } else { truth(a == 0.0) };
                    *self.stack.last_mut()? = Val::Const(v);
                }
                Val::Reg => {
                    let reg = (depth - 1) as Reg;
                    self.emit(if op == Op::Neg {
                        Step::Neg(reg)
                    } else {
                        Step::Not(reg)
                    });
                }
            },
            Op::Bools { left, right, at } => {
                let reg = self.two_regs()?;
                self.emit(Step::Bools(reg, left, right, at));
            }
            Op::Relate {
                cmp,
                pair: Pair::NN,
                keep: false,
                ..
            } => self.binary(Op::Compare(cmp))?,
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Compare(_)
            | Op::And
            | Op::Or
            | Op::BitAnd(_)
            | Op::BitOr(_)
            | Op::BitXor(_) => self.binary(op)?,
            _ => return None,
        }
        Some(())
    }

    /// A binary operation on the two top values.
    fn binary(&mut self, op: Op) -> Option<()> {
        let below = self.stack.len().checked_sub(2)?;
        match (self.stack[below], self.stack[below + 1], Arith::of(op)) {
            // Folded only where it cannot fault: a fault stays a step.
            (Val::Const(a), Val::Const(b), _) if binary(op, a, b).is_ok() => {
                let v = binary(op, a, b).ok()?;
                self.stack.pop();
                self.stack[below] = Val::Const(v);
            }
            (Val::Reg, Val::Const(k), Some(arith)) => {
                self.stack.pop();
                return self.op(Op::Immediate(arith, k));
            }
            _ => {
                let reg = self.two_regs()?;
                self.emit(bin_step(reg, op)?);
                self.stack.pop();
            }
        }
        Some(())
    }
}

/// The blackboard as a program reads and writes it: the board itself, or
/// the board read-only (where a store faults).
pub(crate) trait Slots {
    fn fetch<const N: usize>(&self, offset: u32) -> Result<[u8; N], ScriptFault>;
    fn put<const N: usize>(&mut self, offset: u32, at: u32) -> Result<&mut [u8; N], ScriptFault>;
}

impl Slots for Board<'_> {
    #[inline(always)]
    fn fetch<const N: usize>(&self, offset: u32) -> Result<[u8; N], ScriptFault> {
        self.raw(offset as usize, N)
            .and_then(|b| b.first_chunk::<N>())
            .copied()
            .ok_or(ScriptFault::OutsideBoard)
    }

    #[inline(always)]
    fn put<const N: usize>(&mut self, offset: u32, _: u32) -> Result<&mut [u8; N], ScriptFault> {
        self.raw_mut(offset as usize, N)
            .and_then(|b| b.first_chunk_mut::<N>())
            .ok_or(ScriptFault::OutsideBoard)
    }
}

impl Slots for Target<'_, '_> {
    #[inline(always)]
    fn fetch<const N: usize>(&self, offset: u32) -> Result<[u8; N], ScriptFault> {
        match self {
            Target::Write(board) => Slots::fetch(&**board, offset),
            Target::Read(board) => Slots::fetch(*board, offset),
        }
    }

    #[inline(always)]
    fn put<const N: usize>(&mut self, offset: u32, at: u32) -> Result<&mut [u8; N], ScriptFault> {
        match self {
            Target::Write(board) => board.put(offset, at),
            Target::Read(_) => Err(ScriptFault::ReadOnly { at }),
        }
    }
}

/// A board a condition reads.
struct ReadOnly<'x, 'a>(&'x Board<'a>);

impl Slots for ReadOnly<'_, '_> {
    #[inline(always)]
    fn fetch<const N: usize>(&self, offset: u32) -> Result<[u8; N], ScriptFault> {
        Slots::fetch(self.0, offset)
    }

    #[inline(always)]
    fn put<const N: usize>(&mut self, _: u32, at: u32) -> Result<&mut [u8; N], ScriptFault> {
        Err(ScriptFault::ReadOnly { at })
    }
}

/// The fault of storing `v` into an integer slot of `store`, which the
/// fast check refused.
#[cold]
#[inline(never)]
fn not_whole(v: f64, store: Store, slot: Slot) -> ScriptFault {
    whole(v, store, slot.at, slot.key)
        .err()
        .unwrap_or(ScriptFault::Broken)
}

/// Store `v` into the signed integer slot `slot` of `store`, `N` bytes
/// wide: what the slot reads as afterwards. `v` is accepted when it is
/// in range and survives the trip through `i64` — exactly when it is
/// whole, finite and in range, which the stack machine checks with
/// `fract`, a call to the C library on most targets.
#[inline(always)]
pub(crate) fn store_signed<const N: usize>(
    slots: &mut impl Slots,
    v: f64,
    slot: Slot,
    store: Store,
) -> Result<f64, ScriptFault> {
    let (lo, hi) = store.range().unwrap_or((0.0, -1.0));
    let n = v as i64;
    if !(v >= lo && v <= hi && n as f64 == v) {
        return Err(not_whole(v, store, slot));
    }
    let bytes = slots.put::<N>(slot.offset, slot.at)?;
    bytes.copy_from_slice(&n.to_le_bytes()[..N]);
    Ok(n as f64)
}

/// [`store_signed`] for an unsigned integer slot (through `u64`).
#[inline(always)]
pub(crate) fn store_unsigned<const N: usize>(
    slots: &mut impl Slots,
    v: f64,
    slot: Slot,
    store: Store,
) -> Result<f64, ScriptFault> {
    let (lo, hi) = store.range().unwrap_or((0.0, -1.0));
    let n = v as u64;
    if !(v >= lo && v <= hi && n as f64 == v) {
        return Err(not_whole(v, store, slot));
    }
    let bytes = slots.put::<N>(slot.offset, slot.at)?;
    bytes.copy_from_slice(&n.to_le_bytes()[..N]);
    Ok(n as f64)
}

impl Straight {
    /// `ops` as straight-line code, if they are numbers only without jumps.
    pub(crate) fn lower(ops: &[Op]) -> Option<Straight> {
        let mut lower = Lower {
            steps: Vec::new(),
            stack: Vec::new(),
            stored: None,
        };
        for &op in ops {
            lower.op(op)?;
        }
        let at = lower.stack.len().checked_sub(1)?;
        Some(Straight {
            steps: lower.steps.into_boxed_slice(),
            value: lower.stack[at],
            at: at as Reg,
        })
    }

    /// Run it against `target`: the script's value as a number.
    #[inline]
    pub(crate) fn run(&self, target: Target) -> Result<f64, ScriptFault> {
        match target {
            Target::Write(board) => self.exec(board),
            Target::Read(board) => self.exec(&mut ReadOnly(board)),
        }
    }

    fn exec(&self, slots: &mut impl Slots) -> Result<f64, ScriptFault> {
        let mut r = [0.0f64; REGS];
        let i = |reg: Reg| reg as usize % REGS;
        // The register below `b`, and `b`.
        let two = |b: Reg| (i(b.wrapping_sub(1)), i(b));
        for &step in &self.steps {
            match step {
                Step::Num(d, k) => r[i(d)] = k,
                Step::LoadF64(d, o) => r[i(d)] = f64::from_le_bytes(slots.fetch(o)?),
                Step::LoadF32(d, o) => r[i(d)] = f32::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadI8(d, o) => r[i(d)] = i8::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadI16(d, o) => r[i(d)] = i16::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadI32(d, o) => r[i(d)] = i32::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadI64(d, o) => r[i(d)] = i64::from_le_bytes(slots.fetch(o)?) as f64,
                Step::LoadU8(d, o) => r[i(d)] = u8::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadU16(d, o) => r[i(d)] = u16::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadU32(d, o) => r[i(d)] = u32::from_le_bytes(slots.fetch(o)?).into(),
                Step::LoadU64(d, o) => r[i(d)] = u64::from_le_bytes(slots.fetch(o)?) as f64,
                Step::LoadBool(d, o) => r[i(d)] = truth(slots.fetch::<1>(o)?[0] != 0),
                Step::StoreF64(s, slot) => {
                    *slots.put(slot.offset, slot.at)? = r[i(s)].to_le_bytes();
                }
                Step::StoreF32(s, slot) => {
                    let v = r[i(s)] as f32;
                    *slots.put(slot.offset, slot.at)? = v.to_le_bytes();
                    r[i(s)] = v.into();
                }
                Step::StoreBool(s, slot) => {
                    let v = r[i(s)] != 0.0;
                    *slots.put(slot.offset, slot.at)? = [u8::from(v)];
                    r[i(s)] = truth(v);
                }
                Step::StoreI8(s, slot) => {
                    r[i(s)] = store_signed::<1>(slots, r[i(s)], slot, Store::I8)?;
                }
                Step::StoreI16(s, slot) => {
                    r[i(s)] = store_signed::<2>(slots, r[i(s)], slot, Store::I16)?;
                }
                Step::StoreI32(s, slot) => {
                    r[i(s)] = store_signed::<4>(slots, r[i(s)], slot, Store::I32)?;
                }
                Step::StoreI64(s, slot) => {
                    r[i(s)] = store_signed::<8>(slots, r[i(s)], slot, Store::I64)?;
                }
                Step::StoreU8(s, slot) => {
                    r[i(s)] = store_unsigned::<1>(slots, r[i(s)], slot, Store::U8)?;
                }
                Step::StoreU16(s, slot) => {
                    r[i(s)] = store_unsigned::<2>(slots, r[i(s)], slot, Store::U16)?;
                }
                Step::StoreU32(s, slot) => {
                    r[i(s)] = store_unsigned::<4>(slots, r[i(s)], slot, Store::U32)?;
                }
                Step::StoreU64(s, slot) => {
                    r[i(s)] = store_unsigned::<8>(slots, r[i(s)], slot, Store::U64)?;
                }
                Step::AddK(d, k) => r[i(d)] += k,
                Step::SubK(d, k) => r[i(d)] -= k,
                Step::MulK(d, k) => r[i(d)] *= k,
                Step::DivK(d, k) => r[i(d)] /= k,
                Step::EqK(d, k) => r[i(d)] = truth(Cmp::Eq.numbers(r[i(d)], k)),
                Step::NeK(d, k) => r[i(d)] = truth(Cmp::Ne.numbers(r[i(d)], k)),
                Step::LtK(d, k) => r[i(d)] = truth(r[i(d)] < k),
                Step::LeK(d, k) => r[i(d)] = truth(r[i(d)] <= k),
                Step::GtK(d, k) => r[i(d)] = truth(r[i(d)] > k),
                Step::GeK(d, k) => r[i(d)] = truth(r[i(d)] >= k),
                Step::Add(b) => {
                    let (a, b) = two(b);
                    r[a] += r[b];
                }
                Step::Sub(b) => {
                    let (a, b) = two(b);
                    r[a] -= r[b];
                }
                Step::Mul(b) => {
                    let (a, b) = two(b);
                    r[a] *= r[b];
                }
                Step::Div(b) => {
                    let (a, b) = two(b);
                    r[a] /= r[b];
                }
                Step::Eq(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(Cmp::Eq.numbers(r[a], r[b]));
                }
                Step::Ne(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(Cmp::Ne.numbers(r[a], r[b]));
                }
                Step::Lt(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(r[a] < r[b]);
                }
                Step::Le(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(r[a] <= r[b]);
                }
                Step::Gt(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(r[a] > r[b]);
                }
                Step::Ge(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(r[a] >= r[b]);
                }
                Step::And(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(r[a] != 0.0 && r[b] != 0.0);
                }
                Step::Or(b) => {
                    let (a, b) = two(b);
                    r[a] = truth(r[a] != 0.0 || r[b] != 0.0);
                }
                Step::BitAnd(b, at) => {
                    let (a, b) = two(b);
                    r[a] = (bits(r[a], at)? & bits(r[b], at)?) as f64;
                }
                Step::BitOr(b, at) => {
                    let (a, b) = two(b);
                    r[a] = (bits(r[a], at)? | bits(r[b], at)?) as f64;
                }
                Step::BitXor(b, at) => {
                    let (a, b) = two(b);
                    r[a] = (bits(r[a], at)? ^ bits(r[b], at)?) as f64;
                }
                Step::Neg(d) => r[i(d)] = -r[i(d)],
                Step::Not(d) => r[i(d)] = truth(r[i(d)] == 0.0),
                Step::Bools(b, left, right, at) => {
                    let (a, b) = two(b);
                    bools(r[a], r[b], left, right, at)?;
                }
            }
        }
        Ok(match self.value {
            Val::Const(k) => k,
            Val::Reg => r[i(self.at)],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(offset: u32) -> Place {
        Place {
            offset,
            store: Store::I64,
            key: 0,
        }
    }

    #[test]
    fn constants_fold_into_one_value_and_a_load_takes_its_operation() {
        let two = Op::Num(2.0);
        let ops = [two, Op::Immediate(Arith::Mul, 3.0), Op::Num(1.0), Op::Add];
        let s = Straight::lower(&ops).unwrap();
        assert_eq!((s.steps.len(), s.value), (0, Val::Const(7.0)));
        let ops = [
            Op::Load(place(0)),
            Op::Immediate(Arith::Mul, 2.0),
            Op::Num(3.0),
            Op::Add,
        ];
        let s = Straight::lower(&ops).unwrap();
        assert_eq!(
            &*s.steps,
            [Step::LoadI64(0, 0), Step::MulK(0, 2.0), Step::AddK(0, 3.0)]
        );
    }

    #[test]
    fn a_key_read_right_after_it_is_written_is_no_step() {
        // `n := x * 2; n > 10` (the assignment's value read back and
        // dropped was no operation either).
        let (x, n) = (place(0), place(8));
        let ops = [
            Op::Load(x),
            Op::Immediate(Arith::Mul, 2.0),
            Op::StorePop(n, 0),
            Op::Load(n),
            Op::Immediate(Arith::Compare(super::super::program::Cmp::Gt), 10.0),
        ];
        let slot = Slot {
            offset: 8,
            at: 0,
            key: 0,
        };
        let s = Straight::lower(&ops).unwrap();
        assert_eq!(
            &*s.steps,
            [
                Step::LoadI64(0, 0),
                Step::MulK(0, 2.0),
                Step::StoreI64(0, slot),
                Step::GtK(0, 10.0)
            ]
        );
        // Another key, or the same key read after another step, is read.
        let other = [Op::Load(x), Op::StorePop(n, 0), Op::Load(x)];
        let s = Straight::lower(&other).unwrap();
        assert_eq!(s.steps.len(), 3);
        let later = [
            Op::Load(x),
            Op::StorePop(n, 0),
            Op::Num(1.0),
            Op::Load(n),
            Op::Add,
        ];
        let s = Straight::lower(&later).unwrap();
        assert_eq!(s.steps[2], Step::LoadI64(1, 8));
    }

    #[test]
    fn strings_jumps_and_deep_stacks_keep_the_stack_machine() {
        assert_eq!(Straight::lower(&[Op::Text(0)]), None);
        assert_eq!(
            Straight::lower(&[Op::Num(1.0), Op::JumpUnless(2), Op::Num(2.0)]),
            None
        );
        let deep = [Op::Load(place(0)); REGS + 1];
        assert_eq!(Straight::lower(&deep), None);
        assert!(Straight::lower(&deep[..REGS]).is_some());
        // Compared with a tolerance: folded by the same function.
        let eq = [
            Op::Num(0.1 + 0.2),
            Op::Num(0.3),
            Op::Compare(super::super::program::Cmp::Eq),
        ];
        assert_eq!(Straight::lower(&eq).unwrap().value, Val::Const(1.0));
    }
}
