//! Checking a syntax tree's types against the blackboard's slots and
//! emitting the program's operations: every type error is found here, at
//! load, with the column of the operator at fault.

use std::sync::Arc;

use super::parse::{Assign, Binary, Expr, ExprKind, Statement, Unary};
use super::program::{Arith, Cmp, Op, Place, Store};
use super::{
    Keys, MAX_SCRIPT_OPS, MAX_SCRIPT_STACK, MAX_SCRIPT_TEXTS, ScriptError, ScriptValue, Ty,
};
use crate::util::board::{SlotRef, SlotType, TEXT_BYTES, Text};
use crate::util::text::{did_you_mean, quote, suggest};

/// The slot type a script gives a key it makes.
pub(crate) fn slot_type(ty: Ty) -> SlotType {
    match ty {
        Ty::Number => SlotType::of::<f64>(),
        Ty::Bool => SlotType::of::<bool>(),
        Ty::Text => SlotType::of::<Text>(),
    }
}

/// How a slot of type `ty` holds a script value, if it can.
fn store_of(ty: &SlotType) -> Option<Store> {
    Some(if ty.is::<f64>() {
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
    } else if ty.is::<Text>() {
        Store::Text
    } else {
        return None;
    })
}

fn ty_of(store: Store) -> Ty {
    match store {
        Store::Bool => Ty::Bool,
        Store::Text => Ty::Text,
        _ => Ty::Number,
    }
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
    /// constant and the arithmetic on it, an assignment and the pop of
    /// its value) and no jump lands between them.
    fn merge_or_push(&mut self, op: Op) {
        let n = self.ops.len();
        let merged = match (self.ops.last(), op) {
            _ if self.fence == n => None,
            (Some(&Op::Num(k)), _) => Arith::of(op).map(|arith| Op::Immediate(arith, k)),
            (Some(&Op::Store(place, at)), Op::PopNum | Op::PopText) => {
                Some(Op::StorePop(place, at))
            }
            _ => None,
        };
        match merged {
            Some(merged) => self.ops[n - 1] = merged,
            None => self.ops.push(op),
        }
    }

    /// Forget a value of type `ty` the stacks hold at compile time (a
    /// `? :` branch, whose value the other branch's replaces).
    fn forget(&mut self, ty: Ty) {
        match ty {
            Ty::Text => self.depth.1 = self.depth.1.saturating_sub(1),
            _ => self.depth.0 = self.depth.0.saturating_sub(1),
        }
    }

    /// The whole script; the type of its value (its last statement's).
    pub(crate) fn script(&mut self, statements: &[Statement]) -> Result<Ty, ScriptError> {
        let mut ty = Ty::Bool;
        for (i, s) in statements.iter().enumerate() {
            if i > 0 {
                let pop = if ty == Ty::Text {
                    Op::PopText
                } else {
                    Op::PopNum
                };
                self.emit(pop, 0)?;
            }
            ty = match s {
                Statement::Expr(e) => self.expr(e)?,
                Statement::Assign {
                    key,
                    at,
                    how,
                    value,
                } => self.assign(key, *at, *how, value)?,
            };
        }
        Ok(ty)
    }

    /// A key's place, with a message naming it and where it came from.
    fn place(&mut self, slot: &SlotRef, at: usize) -> Result<Place, ScriptError> {
        let store = store_of(&slot.ty).ok_or_else(|| {
            let problem = format!(
                "key {} holds {}, which scripts cannot use (they use numbers, bool and strings){}",
                quote(&slot.key),
                slot.ty,
                self.origin(&slot.key)
            );
            self.error(at, problem)
        })?;
        let key = match self.names.iter().position(|n| *n == slot.key) {
            Some(i) => i,
            None => {
                self.names.push(slot.key.clone());
                self.names.len() - 1
            }
        };
        Ok(Place {
            offset: slot.offset,
            store,
            key: u16::try_from(key).unwrap_or(u16::MAX),
        })
    }

    fn origin(&self, key: &str) -> String {
        self.keys.origin(key).map_or_else(String::new, |place| {
            format!(" since its first use at {place}")
        })
    }

    /// The slot of a key read, which must exist.
    fn existing(&mut self, key: &str, at: usize, why: &str) -> Result<Place, ScriptError> {
        match self.keys.find(key) {
            Some(slot) => self.place(&slot, at),
            None => {
                let known = self.keys.known();
                let hint = did_you_mean(suggest(key, known.iter().map(String::as_str)));
                let problem = format!("unknown key {}{hint}{why}", quote(key));
                Err(self.error(at, problem))
            }
        }
    }

    fn assign(
        &mut self,
        key: &str,
        at: usize,
        how: Assign,
        value: &Expr,
    ) -> Result<Ty, ScriptError> {
        let place = match how {
            Assign::Create => None,
            Assign::Set => Some(self.existing(key, at, "; `:=` makes a key, `=` sets one")?),
            Assign::Update(_) => Some(self.existing(key, at, "")?),
        };
        if let (Some(place), Assign::Update(_)) = (place, how) {
            self.emit(Op::Load(place), at)?;
        }
        let ty = self.expr(value)?;
        let place = match place {
            Some(place) => place,
            None => match self.keys.find(key) {
                Some(slot) => self.place(&slot, at)?,
                None => {
                    let slot = self
                        .keys
                        .create(key, slot_type(ty))
                        .map_err(|problem| self.error(at, problem))?;
                    self.place(&slot, at)?
                }
            },
        };
        let holds = ty_of(place.store);
        if let Assign::Update(op) = how {
            let ok = holds == Ty::Number && ty == Ty::Number
                || op == Binary::Add && holds == Ty::Text && ty == Ty::Text;
            if !ok {
                let problem = format!(
                    "`{}=` cannot update key {} (a {}) with a {}",
                    symbol(op),
                    quote(key),
                    holds.name(),
                    ty.name()
                );
                return Err(self.error(at, problem));
            }
            let op = if holds == Ty::Text {
                Op::Join
            } else {
                arith(op)
            };
            self.emit(op, at)?;
        } else if holds != ty {
            let problem = format!(
                "cannot assign a {} to key {}, which holds {}{}",
                ty.name(),
                quote(key),
                self.keys
                    .find(key)
                    .map_or_else(String::new, |s| s.ty.to_string()),
                self.origin(key)
            );
            return Err(self.error(at, problem));
        }
        self.emit(Op::Store(place, at as u32), at)?;
        Ok(holds)
    }

    fn expr(&mut self, e: &Expr) -> Result<Ty, ScriptError> {
        let at = e.at;
        match &e.kind {
            ExprKind::Num(n) => self.push(ScriptValue::Number(*n), at),
            ExprKind::Bool(b) => self.push(ScriptValue::Bool(*b), at),
            ExprKind::Str(s) => {
                if s.len() > TEXT_BYTES {
                    let problem = format!(
                        "a string of {} bytes; strings hold at most {TEXT_BYTES}",
                        s.len()
                    );
                    return Err(self.error(at, problem));
                }
                self.push(ScriptValue::Text(Text::new(s)), at)
            }
            ExprKind::Name(name) => {
                if self.keys.find(name).is_none()
                    && let Some(v) = self.keys.constant(name)
                {
                    return self.push(ScriptValue::Number(v), at);
                }
                let place = self.existing(name, at, "")?;
                self.emit(Op::Load(place), at)?;
                Ok(ty_of(place.store))
            }
            ExprKind::Unary(op, inner) => self.unary(*op, inner, at),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, at),
            ExprKind::Choose(c, then, otherwise) => self.choose(c, then, otherwise, at),
        }
    }

    fn push(&mut self, v: ScriptValue, at: usize) -> Result<Ty, ScriptError> {
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
        Ok(v.ty())
    }

    /// A condition: a bool, or a number read as "not zero".
    fn test(&mut self, e: &Expr, what: &str) -> Result<(), ScriptError> {
        // A bool is 1 or 0 on the number stack: a number tests as itself.
        match self.expr(e)? {
            Ty::Bool | Ty::Number => Ok(()),
            Ty::Text => Err(self.error(e.at, format!("{what} needs true or false, got a string"))),
        }
    }

    fn unary(&mut self, op: Unary, inner: &Expr, at: usize) -> Result<Ty, ScriptError> {
        if op == Unary::Not {
            self.test(inner, "`!`")?;
            self.emit(Op::Not, at)?;
            return Ok(Ty::Bool);
        }
        let ty = self.expr(inner)?;
        let (written, op) = match op {
            Unary::Neg => ("-", Op::Neg),
            _ => ("~", Op::BitNot(at as u32)),
        };
        if ty != Ty::Number {
            let problem = format!("`{written}` needs a number, got a {}", ty.name());
            return Err(self.error(at, problem));
        }
        self.emit(op, at)?;
        Ok(Ty::Number)
    }

    fn binary(&mut self, op: Binary, a: &Expr, b: &Expr, at: usize) -> Result<Ty, ScriptError> {
        let sym = symbol(op);
        if matches!(op, Binary::And | Binary::Or) {
            self.test(a, &format!("`{sym}`"))?;
            self.test(b, &format!("`{sym}`"))?;
            let op = if op == Binary::And { Op::And } else { Op::Or };
            self.emit(op, at)?;
            return Ok(Ty::Bool);
        }
        let (left, right) = (self.expr(a)?, self.expr(b)?);
        let (emitted, ty) = match (op, left, right) {
            (Binary::Add | Binary::Sub | Binary::Mul | Binary::Div, Ty::Number, Ty::Number) => {
                (arith(op), Ty::Number)
            }
            (Binary::Join, Ty::Text, Ty::Text) => (Op::Join, Ty::Text),
            (Binary::BitAnd, Ty::Number, Ty::Number) => (Op::BitAnd(at as u32), Ty::Number),
            (Binary::BitOr, Ty::Number, Ty::Number) => (Op::BitOr(at as u32), Ty::Number),
            (Binary::BitXor, Ty::Number, Ty::Number) => (Op::BitXor(at as u32), Ty::Number),
            (Binary::Eq | Binary::Ne, Ty::Text, Ty::Text) => (Op::CompareText(cmp(op)), Ty::Bool),
            (Binary::Eq | Binary::Ne, l, r) if l == r => (Op::Compare(cmp(op)), Ty::Bool),
            (Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge, Ty::Text, Ty::Text) => {
                (Op::CompareText(cmp(op)), Ty::Bool)
            }
            (Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge, Ty::Number, Ty::Number) => {
                (Op::Compare(cmp(op)), Ty::Bool)
            }
            _ => return Err(self.error(at, mismatch(op, left, right))),
        };
        self.emit(emitted, at)?;
        Ok(ty)
    }

    fn choose(
        &mut self,
        c: &Expr,
        then: &Expr,
        otherwise: &Expr,
        at: usize,
    ) -> Result<Ty, ScriptError> {
        self.test(c, "`? :`")?;
        let jump_unless = self.ops.len();
        self.emit(Op::JumpUnless(0), at)?;
        let first = self.expr(then)?;
        let jump = self.ops.len();
        self.emit(Op::Jump(0), at)?;
        self.forget(first);
        self.ops[jump_unless] = Op::JumpUnless(self.ops.len() as u32);
        self.fence = self.ops.len();
        let second = self.expr(otherwise)?;
        self.ops[jump] = Op::Jump(self.ops.len() as u32);
        self.fence = self.ops.len();
        if first != second {
            let problem = format!(
                "the two branches of `? :` give a {} and a {}",
                first.name(),
                second.name()
            );
            return Err(self.error(at, problem));
        }
        Ok(first)
    }
}

fn symbol(op: Binary) -> &'static str {
    match op {
        Binary::Add => "+",
        Binary::Sub => "-",
        Binary::Mul => "*",
        Binary::Div => "/",
        Binary::Join => "..",
        Binary::Eq => "==",
        Binary::Ne => "!=",
        Binary::Lt => "<",
        Binary::Le => "<=",
        Binary::Gt => ">",
        Binary::Ge => ">=",
        Binary::And => "&&",
        Binary::Or => "||",
        Binary::BitAnd => "&",
        Binary::BitOr => "|",
        Binary::BitXor => "^",
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

fn cmp(op: Binary) -> Cmp {
    match op {
        Binary::Eq => Cmp::Eq,
        Binary::Ne => Cmp::Ne,
        Binary::Lt => Cmp::Lt,
        Binary::Le => Cmp::Le,
        Binary::Gt => Cmp::Gt,
        _ => Cmp::Ge,
    }
}

/// Why `left op right` has no meaning.
fn mismatch(op: Binary, left: Ty, right: Ty) -> String {
    let sym = symbol(op);
    match op {
        Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge
            if left != right =>
        {
            format!("cannot compare a {} with a {}", left.name(), right.name())
        }
        Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge => {
            format!("`{sym}` orders numbers or strings, not bools")
        }
        Binary::Add if left == Ty::Text || right == Ty::Text => {
            "`+` adds numbers; join strings with `..`".to_string()
        }
        Binary::Join => format!(
            "`..` joins two strings, got a {} and a {}",
            left.name(),
            right.name()
        ),
        _ => format!(
            "`{sym}` needs two numbers, got a {} and a {}",
            left.name(),
            right.name()
        ),
    }
}
