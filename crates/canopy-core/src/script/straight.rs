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
use super::program::{Arith, Op, Pair, Place, Store, Target, binary, bools, load, store, truth};

/// Registers one straight-line program may use; a deeper stack keeps the
/// stack machine.
const REGS: usize = 8;

/// A register's index, always below [`REGS`] (masked where read, so no
/// access can fail its bounds).
type Reg = u8;

/// One step. Registers are named by the stack depth of the value they
/// hold.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Num(Reg, f64),
    Load(Reg, Place),
    /// A slot read, then the operation with a constant applied to it.
    LoadImm(Reg, Place, Arith, f64),
    /// Write the register to the slot; `u32` is where, for the fault.
    Store(Reg, Place, u32),
    Imm(Reg, Arith, f64),
    /// A binary operation of numbers ([`binary`]) on the register below
    /// `Reg` and the register `Reg`, into the lower.
    Bin(Reg, Op),
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

/// Whether a slot holds a number (or a bool) a step can load and store.
fn numeric(place: Place) -> bool {
    !matches!(place.store, Store::Text | Store::Raw)
}

/// Lowers a program, value by value.
struct Lower {
    steps: Vec<Step>,
    stack: Vec<Val>,
}

impl Lower {
    fn push(&mut self, v: Val) -> Option<()> {
        (self.stack.len() < REGS).then(|| self.stack.push(v))
    }

    /// The register of the top value, emitting its constant into it.
    fn top_reg(&mut self) -> Option<Reg> {
        let at = self.stack.len().checked_sub(1)?;
        if let Val::Const(k) = self.stack[at] {
            self.steps.push(Step::Num(at as Reg, k));
            self.stack[at] = Val::Reg;
        }
        Some(at as Reg)
    }

    /// The registers of the two top values, emitting constants into them.
    fn two_regs(&mut self) -> Option<Reg> {
        let below = self.stack.len().checked_sub(2)?;
        if let Val::Const(k) = self.stack[below] {
            self.steps.push(Step::Num(below as Reg, k));
            self.stack[below] = Val::Reg;
        }
        self.top_reg()
    }

    fn op(&mut self, op: Op) -> Option<()> {
        let depth = self.stack.len();
        match op {
            Op::Num(k) => self.push(Val::Const(k))?,
            Op::Load(place) if numeric(place) => {
                self.push(Val::Reg)?;
                self.steps.push(Step::Load(depth as Reg, place));
            }
            Op::StorePop(place, at) if numeric(place) => {
                let reg = self.top_reg()?;
                self.steps.push(Step::Store(reg, place, at));
                self.stack.pop();
            }
            Op::PopNum => drop(self.stack.pop()?),
            Op::Immediate(arith, k) => match *self.stack.last()? {
                Val::Const(a) => *self.stack.last_mut()? = Val::Const(arith.apply(a, k)),
                Val::Reg => {
                    let reg = (depth - 1) as Reg;
                    match self.steps.last_mut() {
                        // A load and the operation on it: one step.
                        Some(Step::Load(r, place)) if *r == reg => {
                            *self.steps.last_mut()? = Step::LoadImm(reg, *place, arith, k);
                        }
                        _ => self.steps.push(Step::Imm(reg, arith, k)),
                    }
                }
            },
            Op::Neg | Op::Not => match *self.stack.last()? {
                Val::Const(a) => {
                    let v = if op == Op::Neg { -a } else { truth(a == 0.0) };
                    *self.stack.last_mut()? = Val::Const(v);
                }
                Val::Reg => {
                    let reg = (depth - 1) as Reg;
                    self.steps.push(if op == Op::Neg {
                        Step::Neg(reg)
                    } else {
                        Step::Not(reg)
                    });
                }
            },
            Op::Bools { left, right, at } => {
                let reg = self.two_regs()?;
                self.steps.push(Step::Bools(reg, left, right, at));
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
                self.steps.push(Step::Bin(reg, op));
                self.stack.pop();
            }
        }
        Some(())
    }
}

impl Straight {
    /// `ops` as straight-line code, if they are numbers only without jumps.
    pub(crate) fn lower(ops: &[Op]) -> Option<Straight> {
        let mut lower = Lower {
            steps: Vec::new(),
            stack: Vec::new(),
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
    pub(crate) fn run(&self, mut target: Target) -> Result<f64, ScriptFault> {
        let mut r = [0.0f64; REGS];
        let i = |reg: Reg| reg as usize % REGS;
        for &step in &self.steps {
            match step {
                Step::Num(d, k) => r[i(d)] = k,
                Step::Load(d, place) => r[i(d)] = load(&target, place)?,
                Step::LoadImm(d, place, arith, k) => {
                    r[i(d)] = arith.apply(load(&target, place)?, k)
                }
                Step::Store(s, place, at) => store(&mut target, place, r[i(s)], at)?,
                Step::Imm(d, arith, k) => r[i(d)] = arith.apply(r[i(d)], k),
                Step::Bin(b, op) => {
                    let a = i(b.wrapping_sub(1));
                    r[a] = binary(op, r[a], r[i(b)])?;
                }
                Step::Neg(d) => r[i(d)] = -r[i(d)],
                Step::Not(d) => r[i(d)] = truth(r[i(d)] == 0.0),
                Step::Bools(b, left, right, at) => {
                    bools(r[i(b.wrapping_sub(1))], r[i(b)], left, right, at)?;
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
            [
                Step::LoadImm(0, place(0), Arith::Mul, 2.0),
                Step::Imm(0, Arith::Add, 3.0)
            ]
        );
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
