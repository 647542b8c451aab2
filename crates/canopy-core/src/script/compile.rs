//! Checking a syntax tree's types against the blackboard's slots and
//! emitting the program's operations.
//!
//! BehaviorTree.CPP's scripts are typed when they run; canopy knows every
//! slot's type when the tree loads, so it decides here, once, what
//! BehaviorTree.CPP decides at every run: `+` on two strings joins them,
//! a string compared with a number is read as one, a string assigned to a
//! number key is converted, a number joined to a string is printed as
//! `std::to_string` prints it (whole numbers as digits, others with six
//! decimals — so the compiler tracks which numbers are whole, as
//! BehaviorTree.CPP's `int64_t` and `double` differ). What BehaviorTree.CPP
//! would throw on when it runs (`-'a'`, `'a' + 1`) compiles to an
//! operation that fails the script when reached, with a warning at load
//! ([`Script::warnings`](super::Script::warnings)): a file it runs, canopy
//! runs. Refused at load: unknown keys, keys of a game's own type used in
//! an expression (they can only be copied whole or assigned text), and the
//! few forms no typed stack can hold (a `? :` giving a number or a string).

use std::sync::Arc;

use super::parse::{Assign, Binary, Expr, ExprKind, Unary};
use super::program::{Arith, Cmp, Op, Pair, Place, Store};
use super::{
    Keys, MAX_SCRIPT_OPS, MAX_SCRIPT_STACK, MAX_SCRIPT_TEXTS, Refusal, ScriptError, ScriptValue,
    TextOrKey, Ty,
};
use crate::util::board::{SlotRef, SlotType, TEXT_BYTES, Text};
use crate::util::text::{did_you_mean, quote, suggest};

/// The slot type a script gives a key it makes: BehaviorTree.CPP 4.10's
/// (`int64_t` for a whole-number literal, `double` for other numbers and
/// for `true`, `false` and every comparison, whose values it holds as
/// the doubles 1 and 0, `std::string`).
pub(crate) fn slot_type(ty: Ty) -> SlotType {
    match ty {
        Ty::Int => SlotType::of::<i64>(),
        Ty::Double | Ty::Bool => SlotType::of::<f64>(),
        Ty::Text => SlotType::of::<Text>(),
    }
}

/// How a slot of type `ty` holds a script value.
fn store_of(ty: &SlotType) -> Store {
    if ty.holds_text() {
        Store::Text
    } else if ty.is::<f64>() {
        Store::F64
    } else if ty.is::<f32>() {
        Store::F32
    } else if ty.is::<i8>() {
        Store::I8
    } else if ty.is::<i16>() {
        Store::I16
    } else if ty.is::<i32>() {
        Store::I32
    } else if ty.is::<i64>() {
        Store::I64
    } else if ty.is::<u8>() {
        Store::U8
    } else if ty.is::<u16>() {
        Store::U16
    } else if ty.is::<u32>() {
        Store::U32
    } else if ty.is::<u64>() {
        Store::U64
    } else if ty.is::<bool>() {
        Store::Bool
    } else {
        Store::Raw
    }
}

fn is_number(ty: Ty) -> bool {
    ty != Ty::Text
}

/// Emits one script's operations.
pub(crate) struct Compiler<'s, 'k, K: ?Sized> {
    pub(crate) source: &'s str,
    pub(crate) keys: &'k mut K,
    pub(crate) ops: Vec<Op>,
    /// Keys the program uses, by the index its places hold.
    pub(crate) names: Vec<Arc<str>>,
    /// String constants, by the index their operations hold.
    pub(crate) texts: Vec<Text>,
    /// Slot types the program converts text into or copies.
    pub(crate) types: Vec<SlotType>,
    /// Where BehaviorTree.CPP would throw when the script runs.
    pub(crate) warnings: Vec<ScriptError>,
    /// Values on the number and the string stack now.
    depth: (usize, usize),
    /// The index a jump lands on last: operations before it cannot be
    /// merged with the next one.
    fence: usize,
}

impl<'s, 'k, K: Keys + ?Sized> Compiler<'s, 'k, K> {
    pub(crate) fn new(source: &'s str, keys: &'k mut K) -> Self {
        Compiler {
            source,
            keys,
            ops: Vec::new(),
            names: Vec::new(),
            texts: Vec::new(),
            types: Vec::new(),
            warnings: Vec::new(),
            depth: (0, 0),
            fence: 0,
        }
    }

    fn error(&self, at: usize, problem: impl Into<String>) -> ScriptError {
        ScriptError::new(self.source, at, problem)
    }

    /// Add `op`, the source's byte `at` being where it comes from.
    fn emit(&mut self, op: Op, at: usize) -> Result<(), ScriptError> {
        if self.ops.len() >= MAX_SCRIPT_OPS {
            let problem = format!("the script compiles to more than {MAX_SCRIPT_OPS} operations");
            return Err(self.error(at, problem));
        }
        self.merge_or_push(op);
        let (nums, texts) = op.effect();
        self.depth.0 = self.depth.0.saturating_add_signed(nums);
        self.depth.1 = self.depth.1.saturating_add_signed(texts);
        if self.depth.0 > MAX_SCRIPT_STACK {
            let problem =
                format!("the expression needs more than {MAX_SCRIPT_STACK} values at once");
            return Err(self.error(at, problem));
        }
        if self.depth.1 > MAX_SCRIPT_TEXTS {
            let problem =
                format!("the expression needs more than {MAX_SCRIPT_TEXTS} strings at once");
            return Err(self.error(at, problem));
        }
        Ok(())
    }

    /// Add `op`, merged with the last operation when one does both (a
    /// constant and the arithmetic on it; an assignment's value read back
    /// and dropped, which is neither) and no jump lands between them.
    fn merge_or_push(&mut self, op: Op) {
        let n = self.ops.len();
        let merged = match (self.ops.last(), op) {
            _ if self.fence == n => None,
            (Some(&Op::Num(k)), _) => Arith::of(op).map(|arith| Some(Op::Immediate(arith, k))),
            // An assignment's value read back and dropped: neither.
            (Some(&Op::Load(_)), Op::PopNum | Op::PopText) => Some(None),
            _ => None,
        };
        match merged {
            Some(Some(merged)) => self.ops[n - 1] = merged,
            Some(None) => drop(self.ops.pop()),
            None => self.ops.push(op),
        }
    }

    /// The depth of both stacks with a value of `ty` more (or less).
    fn add(&mut self, ty: Ty, n: isize) {
        match ty {
            Ty::Text => self.depth.1 = self.depth.1.saturating_add_signed(n),
            _ => self.depth.0 = self.depth.0.saturating_add_signed(n),
        }
    }

    /// A jump lands at the next operation.
    fn land(&mut self) {
        self.fence = self.ops.len();
    }

    /// Point the jump at `index` to the next operation.
    fn patch(&mut self, index: usize) {
        let to = self.ops.len() as u32;
        self.ops[index] = match self.ops[index] {
            Op::JumpUnless(_) => Op::JumpUnless(to),
            _ => Op::Jump(to),
        };
        self.land();
    }

    /// A warning: this point fails when the script runs, as
    /// BehaviorTree.CPP throws there.
    fn warn(&mut self, at: usize, problem: impl std::fmt::Display) {
        let problem = format!(
            "{problem}: BehaviorTree.CPP throws here when the script runs, and canopy fails the node"
        );
        self.warnings.push(self.error(at, problem));
    }

    /// Fail here when the script runs, as BehaviorTree.CPP throws here:
    /// the operands (`dropped`) are left, a value of `ty` stands in for
    /// the result the compiler goes on with, and the load is warned.
    fn refuse(
        &mut self,
        why: Refusal,
        at: usize,
        dropped: &[Ty],
        ty: Ty,
    ) -> Result<Ty, ScriptError> {
        self.warn(at, why);
        self.emit(Op::Fail(why, at as u32), at)?;
        for &d in dropped {
            self.add(d, -1);
        }
        self.add(ty, 1);
        Ok(ty)
    }

    /// The whole script; the type of its value (its last statement's).
    pub(crate) fn script(&mut self, statements: &[Expr]) -> Result<Ty, ScriptError> {
        let mut ty = Ty::Bool;
        for (i, s) in statements.iter().enumerate() {
            if i > 0 {
                self.pop(ty, 0)?;
            }
            ty = self.expr(s)?;
        }
        Ok(ty)
    }

    fn pop(&mut self, ty: Ty, at: usize) -> Result<(), ScriptError> {
        let op = if ty == Ty::Text {
            Op::PopText
        } else {
            Op::PopNum
        };
        self.emit(op, at)
    }

    /// A key's place, with a message naming it and where it came from.
    fn place(&mut self, slot: &SlotRef) -> Place {
        let key = match self.names.iter().position(|n| *n == slot.key) {
            Some(i) => i,
            None => {
                self.names.push(slot.key.clone());
                self.names.len() - 1
            }
        };
        Place {
            offset: slot.offset,
            store: store_of(&slot.ty),
            key: u16::try_from(key).unwrap_or(u16::MAX),
        }
    }

    /// The index of a slot type in the program's table.
    fn type_index(&mut self, ty: &SlotType) -> u16 {
        let i = match self.types.iter().position(|t| t == ty) {
            Some(i) => i,
            None => {
                self.types.push(ty.clone());
                self.types.len() - 1
            }
        };
        u16::try_from(i).unwrap_or(u16::MAX)
    }

    fn origin(&self, key: &str) -> String {
        self.keys.origin(key).map_or_else(String::new, |place| {
            format!(" since its first use at {place}")
        })
    }

    /// The slot of a key read, which must exist.
    fn existing(&mut self, key: &str, at: usize, why: &str) -> Result<SlotRef, ScriptError> {
        self.keys.find(key).ok_or_else(|| {
            let known = self.keys.known();
            let hint = did_you_mean(suggest(key, known.iter().map(String::as_str)));
            let problem = format!("unknown key {}{hint}{why}", quote(key));
            self.error(at, problem)
        })
    }

    /// The message for a key of a type scripts only copy.
    fn opaque(&self, slot: &SlotRef, at: usize) -> ScriptError {
        let problem = format!(
            "key {} holds {}, which scripts can only copy to another key or assign a string to{}",
            quote(&slot.key),
            slot.ty,
            self.origin(&slot.key)
        );
        self.error(at, problem)
    }

    /// Load a key's value.
    fn load(&mut self, name: &str, at: usize) -> Result<Ty, ScriptError> {
        if let Some(v) = self.keys.constant(name) {
            // BehaviorTree.CPP looks enum words up before keys.
            return self.push(ScriptValue::Number(v), Ty::Double, at);
        }
        let slot = self.existing(name, at, "")?;
        let place = self.place(&slot);
        if place.store == Store::Raw {
            return Err(self.opaque(&slot, at));
        }
        self.emit(Op::Load(place), at)?;
        Ok(place.store.ty())
    }

    fn expr(&mut self, e: &Expr) -> Result<Ty, ScriptError> {
        let at = e.at;
        match &e.kind {
            ExprKind::Int(n) => self.push(ScriptValue::Number(*n), Ty::Int, at),
            ExprKind::Real(n) => self.push(ScriptValue::Number(*n), Ty::Double, at),
            ExprKind::Bool(b) => self.push(ScriptValue::Bool(*b), Ty::Bool, at),
            ExprKind::Str(s) => self.string(s, at),
            ExprKind::Name(name) => self.load(name, at),
            ExprKind::Unary(op, inner) => self.unary(*op, inner, at),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, at),
            ExprKind::Chain(first, rest) => self.chain(first, rest),
            ExprKind::Choose(c, then, otherwise) => self.choose(c, then, otherwise, at),
            ExprKind::Assign(how, target, value) => self.assign(*how, target, value, at),
        }
    }

    /// A `Switch`'s test: the variable and the case as texts, compared
    /// as BehaviorTree.CPP's `Switch` compares them.
    pub(crate) fn switch_case(
        &mut self,
        variable: TextOrKey<'_>,
        case: TextOrKey<'_>,
    ) -> Result<(), ScriptError> {
        for operand in [variable, case] {
            let ty = match operand {
                // A key nothing else uses is BehaviorTree.CPP's entry its
                // port made, never written: it holds no text that matches.
                TextOrKey::Key(key) if self.keys.find(key).is_none() => {
                    self.keys
                        .create(key, SlotType::any())
                        .map_err(|problem| self.error(0, problem))?;
                    self.load(key, 0)?
                }
                TextOrKey::Key(key) => self.load(key, 0)?,
                TextOrKey::Text(text) => self.string(text, 0)?,
            };
            if ty != Ty::Text {
                self.print_number(ty, 0)?;
            }
        }
        self.emit(Op::Equivalent, 0)
    }

    fn string(&mut self, s: &str, at: usize) -> Result<Ty, ScriptError> {
        if s.len() > TEXT_BYTES {
            let problem = format!(
                "a string of {} bytes; strings hold at most {TEXT_BYTES}",
                s.len()
            );
            return Err(self.error(at, problem));
        }
        self.push(ScriptValue::Text(Text::new(s)), Ty::Text, at)
    }

    fn push(&mut self, v: ScriptValue, ty: Ty, at: usize) -> Result<Ty, ScriptError> {
        let op = match v {
            ScriptValue::Number(n) => Op::Num(n),
            ScriptValue::Bool(b) => Op::Num(f64::from(u8::from(b))),
            ScriptValue::Text(t) => {
                let i = match self.texts.iter().position(|c| *c == t) {
                    Some(i) => i,
                    None => {
                        self.texts.push(t);
                        self.texts.len() - 1
                    }
                };
                Op::Text(u16::try_from(i).unwrap_or(u16::MAX))
            }
        };
        self.emit(op, at)?;
        Ok(ty)
    }

    /// The number on the stack as text, as `std::to_string` prints it.
    fn print_number(&mut self, ty: Ty, at: usize) -> Result<(), ScriptError> {
        self.emit(Op::NumberToText(ty == Ty::Int), at)
    }

    fn unary(&mut self, op: Unary, inner: &Expr, at: usize) -> Result<Ty, ScriptError> {
        let ty = self.expr(inner)?;
        if ty == Ty::Text {
            return self.refuse(Refusal::StringOperand, at, &[ty], Ty::Double);
        }
        let (emitted, result) = match op {
            Unary::Not => (Op::Not, Ty::Bool),
            Unary::Neg => (Op::Neg, Ty::Double),
            Unary::BitNot => (Op::BitNot(at as u32), Ty::Double),
        };
        self.emit(emitted, at)?;
        Ok(result)
    }

    fn binary(&mut self, op: Binary, a: &Expr, b: &Expr, at: usize) -> Result<Ty, ScriptError> {
        let left = self.expr(a)?;
        // `..` prints a number joined to a string; the left one must be
        // printed before the right operand is pushed.
        if op == Binary::Join && is_number(left) {
            let right = self.expr(b)?;
            if right != Ty::Text {
                return self.refuse(Refusal::NotPermitted, at, &[left, right], Ty::Text);
            }
            // The number waits on its own stack under nothing: printed,
            // it lands above the string, and the two swap places.
            self.print_number(left, at)?;
            self.emit(Op::SwapText, at)?;
            self.emit(Op::Join, at)?;
            return Ok(Ty::Text);
        }
        let right = self.expr(b)?;
        let (emitted, ty) = match (op, left, right) {
            (Binary::Add | Binary::Sub | Binary::Mul | Binary::Div, l, r)
                if is_number(l) && is_number(r) =>
            {
                (arith(op), Ty::Double)
            }
            (Binary::Add | Binary::Join, Ty::Text, Ty::Text) => (Op::Join, Ty::Text),
            (Binary::Join, Ty::Text, r) => {
                self.print_number(r, at)?;
                (Op::Join, Ty::Text)
            }
            (Binary::BitAnd, l, r) if is_number(l) && is_number(r) => {
                (Op::BitAnd(at as u32), Ty::Double)
            }
            (Binary::BitOr, l, r) if is_number(l) && is_number(r) => {
                (Op::BitOr(at as u32), Ty::Double)
            }
            (Binary::BitXor, l, r) if is_number(l) && is_number(r) => {
                (Op::BitXor(at as u32), Ty::Double)
            }
            (Binary::And | Binary::Or, l, r) if is_number(l) && is_number(r) => {
                self.bools(l, r, at)?;
                let op = if op == Binary::And { Op::And } else { Op::Or };
                (op, Ty::Bool)
            }
            _ => {
                let ty = if op == Binary::Add && left == Ty::Text {
                    Ty::Text
                } else {
                    Ty::Double
                };
                return self.refuse(Refusal::NotPermitted, at, &[left, right], ty);
            }
        };
        self.emit(emitted, at)?;
        Ok(ty)
    }

    /// Check the operands of `&&` or `||` (`left` below `right` on the
    /// stack) read as bools: BehaviorTree.CPP refuses a whole number
    /// other than 0 or 1 there (it casts an `int64_t` to `bool` checked).
    fn bools(&mut self, left: Ty, right: Ty, at: usize) -> Result<(), ScriptError> {
        if left == Ty::Int || right == Ty::Int {
            self.emit(
                Op::Bools {
                    left: left == Ty::Int,
                    right: right == Ty::Int,
                    at: at as u32,
                },
                at,
            )?;
        }
        Ok(())
    }

    /// `a op b op c …`: each comparison of neighbours, stopping at the
    /// first false one (the operands after it are not evaluated, as in
    /// BehaviorTree.CPP).
    fn chain(&mut self, first: &Expr, rest: &[(Cmp, usize, Expr)]) -> Result<Ty, ScriptError> {
        let mut left = self.expr(first)?;
        let mut left_expr = first;
        // Jumps out of the chain on a false comparison, each with the
        // kept operand's type, and the depth there.
        let mut out: Vec<(usize, Ty, (usize, usize))> = Vec::new();
        for (i, (cmp, at, operand)) in rest.iter().enumerate() {
            let right = self.expr(operand)?;
            for (side, other) in [(left_expr, right), (operand, left)] {
                if let ExprKind::Str(text) = side.kind
                    && is_number(other)
                    && crate::util::convert::script_text_to_f64(text, |w| self.keys.constant(w))
                        .is_err()
                {
                    let problem =
                        format!("{} is compared with a number but is no number", quote(text));
                    self.warn(*at, problem);
                }
            }
            left_expr = operand;
            let last = i + 1 == rest.len();
            self.relate(*cmp, left, right, !last, *at)?;
            if !last {
                let jump = self.ops.len();
                self.emit(Op::JumpUnless(0), *at)?;
                out.push((jump, right, self.depth));
            }
            left = right;
        }
        if out.is_empty() {
            return Ok(Ty::Bool);
        }
        let end = self.ops.len();
        self.emit(Op::Jump(0), 0)?;
        let done = self.depth;
        let mut to_false = Vec::new();
        for (jump, kept, depth) in out {
            self.patch(jump);
            self.depth = depth;
            self.pop(kept, 0)?;
            to_false.push(self.ops.len());
            self.emit(Op::Jump(0), 0)?;
        }
        for jump in to_false {
            self.patch(jump);
        }
        self.depth = (done.0 - 1, done.1);
        self.emit(Op::Num(0.0), 0)?;
        self.patch(end);
        Ok(Ty::Bool)
    }

    /// One comparison of two values on the stacks.
    fn relate(
        &mut self,
        cmp: Cmp,
        left: Ty,
        right: Ty,
        keep: bool,
        at: usize,
    ) -> Result<(), ScriptError> {
        let pair = match (left, right) {
            (Ty::Text, Ty::Text) => Pair::TT,
            (Ty::Text, _) => Pair::TN,
            (_, Ty::Text) => Pair::NT,
            _ => Pair::NN,
        };
        let op = match (pair, keep) {
            (Pair::NN, false) => Op::Compare(cmp),
            (Pair::TT, false) => Op::CompareText(cmp),
            _ => Op::Relate {
                cmp,
                pair,
                keep,
                at: at as u32,
            },
        };
        self.emit(op, at)
    }

    /// A condition on the stack made a number: a string is true when not
    /// empty (and faults when empty, as BehaviorTree.CPP reads one).
    fn test(&mut self, ty: Ty, at: usize) -> Result<(), ScriptError> {
        if ty == Ty::Text {
            self.emit(Op::TextTest(at as u32), at)?;
        }
        Ok(())
    }

    fn choose(
        &mut self,
        c: &Expr,
        then: &Expr,
        otherwise: &Expr,
        at: usize,
    ) -> Result<Ty, ScriptError> {
        let cond = self.expr(c)?;
        self.test(cond, c.at)?;
        let jump_unless = self.ops.len();
        self.emit(Op::JumpUnless(0), at)?;
        let first = self.expr(then)?;
        let jump = self.ops.len();
        self.emit(Op::Jump(0), at)?;
        self.add(first, -1);
        self.patch(jump_unless);
        let second = self.expr(otherwise)?;
        self.patch(jump);
        match (first, second) {
            (a, b) if a == b => Ok(a),
            (a, b) if is_number(a) && is_number(b) => Ok(Ty::Double),
            _ => {
                let problem = format!(
                    "the two branches of `? :` give a {} and a {}; canopy's scripts keep \
                     each value's type when they load, so both must give numbers or both strings",
                    first.name(),
                    second.name()
                );
                Err(self.error(at, problem))
            }
        }
    }

    /// `target op value`: its value is what the key holds afterwards.
    fn assign(
        &mut self,
        how: Assign,
        target: &Expr,
        value: &Expr,
        at: usize,
    ) -> Result<Ty, ScriptError> {
        let ExprKind::Name(key) = target.kind else {
            let ty = self.expr(value)?;
            return self.refuse(Refusal::NotAKey, at, &[ty], ty);
        };
        // Messages about the key point at the key.
        let at = target.at;
        let slot = match how {
            Assign::Create => self.keys.find(key).filter(|s| !s.ty.is_any()),
            Assign::Set => Some(self.existing(key, at, "; `:=` makes a key, `=` sets one")?),
            Assign::Update(_) => Some(self.existing(key, at, "")?),
        };
        if let (Assign::Update(op), Some(slot)) = (how, &slot) {
            return self.update(op, slot, value, at);
        }
        // A key of a game's own type is only copied whole.
        if let ExprKind::Name(from) = value.kind
            && let Some(source) = self
                .keys
                .find(from)
                .filter(|s| store_of(&s.ty) == Store::Raw)
        {
            return self.copy(key, slot, &source, at);
        }
        let ty = self.expr(value)?;
        let slot = match slot {
            Some(slot) => slot,
            None => self
                .keys
                .create(key, slot_type(ty))
                .map_err(|problem| self.error(at, problem))?,
        };
        if let ExprKind::Str(text) = value.kind {
            self.check_conversion(&slot, text, at);
        }
        self.store(&slot, ty, at)
    }

    /// Warn when a string written in the script is assigned to a key
    /// whose type does not read it: the assignment always fails.
    fn check_conversion(&mut self, slot: &SlotRef, text: &str, at: usize) {
        let store = store_of(&slot.ty);
        let converts = match store {
            Store::Text => true,
            _ if store != Store::Raw && self.keys.made_by_script(&slot.key) => {
                crate::util::convert::script_text_to_f64(text, |w| self.keys.constant(w)).is_ok()
            }
            _ => {
                let mut bytes = vec![0u8; slot.ty.size()];
                slot.ty.parse(text, &mut bytes).is_ok()
            }
        };
        if !converts {
            let problem = format!(
                "{} does not convert to {}, the type of key {}",
                quote(text),
                slot.ty,
                quote(&slot.key)
            );
            self.warn(at, problem);
        }
    }

    /// Store the value of `ty` on the stack into `slot`, converting it as
    /// BehaviorTree.CPP's assignment does; then load it back as the
    /// assignment's value.
    fn store(&mut self, slot: &SlotRef, ty: Ty, at: usize) -> Result<Ty, ScriptError> {
        let place = self.place(slot);
        let a = at as u32;
        match (place.store, ty) {
            (Store::Text, Ty::Text) => self.emit(Op::StorePop(place, a), at)?,
            // A script's string key holds a string, and BehaviorTree.CPP
            // will not copy a number into it.
            (Store::Text, _) if self.keys.made_by_script(&slot.key) => {
                return self.refuse(Refusal::NumberIntoString, at, &[ty], Ty::Text);
            }
            // A string port's key: BehaviorTree.CPP stores the number, and
            // the string ports reading it get its text, which canopy keeps.
            (Store::Text, _) => {
                self.print_number(ty, at)?;
                self.emit(Op::StorePop(place, a), at)?;
            }
            (Store::Raw, Ty::Text) => {
                let index = self.type_index(&slot.ty);
                self.emit(Op::Parse(place, index, a), at)?;
                return self.value_of(slot, at);
            }
            (Store::Raw, _) => {
                let problem = Refusal::NumberIntoType;
                return self.refuse(problem, at, &[ty], Ty::Double);
            }
            (_, Ty::Text) => {
                if self.keys.made_by_script(&slot.key) {
                    // BehaviorTree.CPP's `StringToDouble` for a key a
                    // script made (no converter of its own).
                    self.emit(Op::TextToNumber(a), at)?;
                    self.emit(Op::StorePop(place, a), at)?;
                } else {
                    // The key's type's own conversion, as its port made it.
                    let index = self.type_index(&slot.ty);
                    self.emit(Op::Parse(place, index, a), at)?;
                }
            }
            _ => self.emit(Op::StorePop(place, a), at)?,
        }
        self.value_of(slot, at)
    }

    /// The value of a key just assigned, as the assignment's value.
    fn value_of(&mut self, slot: &SlotRef, at: usize) -> Result<Ty, ScriptError> {
        let place = self.place(slot);
        if place.store == Store::Raw {
            // Only a statement of its own can assign such a key: its
            // value is dropped at once, so stand in a number for it.
            self.emit(Op::Num(0.0), at)?;
            return Ok(Ty::Double);
        }
        self.emit(Op::Load(place), at)?;
        Ok(place.store.ty())
    }

    /// `key := from` for a key of a game's own type: its bytes copied.
    fn copy(
        &mut self,
        key: &str,
        slot: Option<SlotRef>,
        source: &SlotRef,
        at: usize,
    ) -> Result<Ty, ScriptError> {
        let dest = match slot {
            Some(slot) => slot,
            None => self
                .keys
                .create(key, source.ty.clone())
                .map_err(|problem| self.error(at, problem))?,
        };
        if dest.ty != source.ty {
            return self.refuse(Refusal::NotPermitted, at, &[], Ty::Double);
        }
        let (from, to) = (self.place(source), self.place(&dest));
        let ty = self.type_index(&source.ty);
        self.emit(Op::Copy(from, to, ty), at)?;
        self.value_of(&dest, at)
    }

    /// `key op= value`.
    fn update(
        &mut self,
        op: Binary,
        slot: &SlotRef,
        value: &Expr,
        at: usize,
    ) -> Result<Ty, ScriptError> {
        let place = self.place(slot);
        if place.store == Store::Raw {
            return Err(self.opaque(slot, at));
        }
        let holds = place.store.ty();
        self.emit(Op::Load(place), at)?;
        let ty = self.expr(value)?;
        let emitted = match (holds, ty) {
            (h, v) if is_number(h) && is_number(v) => arith(op),
            (Ty::Text, Ty::Text) if op == Binary::Add => Op::Join,
            _ => {
                self.refuse(Refusal::UpdateTypes, at, &[holds, ty], holds)?;
                return Ok(holds);
            }
        };
        self.emit(emitted, at)?;
        let result = if holds == Ty::Text {
            Ty::Text
        } else {
            Ty::Double
        };
        self.store(slot, result, at)
    }
}

fn arith(op: Binary) -> Op {
    match op {
        Binary::Add => Op::Add,
        Binary::Sub => Op::Sub,
        Binary::Mul => Op::Mul,
        _ => Op::Div,
    }
}
