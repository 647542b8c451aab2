//! Scripts of numbers only, without jumps, as a tree of monomorphic
//! nodes: the common case (`hp := step * 2 + 1; hp > 10 && step != 3`)
//! run without the stack machine.
//!
//! Each node is one operation on one slot type, made once when the script
//! loads and reached through one indirect call; its operands are what its
//! children return, in registers. The common leaves are one node each: a
//! slot read and the operation with a constant on it (`step * 2`,
//! `hp > 10`) is a single node generic over the slot's type and the
//! operation, so the read is the width of the slot and the operation is
//! inline. Two common shapes are one node too: a slot times a constant
//! plus (or minus) a constant (`step * 2 + 1`: the same two operations
//! in the same order, `- k` as `+ -k`, which IEEE 754 defines as the
//! same, a NaN constant excepted), that assigned to a number key
//! (`hp := step * 2 + 1`: a script's own keys hold numbers), and an
//! assignment compared with a constant (`hp := …; hp > 10`). Constants
//! are folded while building,
//! with the very functions the stack machine applies, so the values are
//! the same bit for bit; an operation that can fault (`1.5 & 1`) is never
//! folded away. An assignment is a node that writes and gives what the
//! slot then reads as (an integer slot's `-0` reads as `0`), and a read
//! of the key just assigned is that node, not a second read. An integer
//! slot accepts a number that is in its range and survives the trip
//! through `i64` (`u64`): exactly the whole, finite, in-range numbers the
//! stack machine accepts with `fract`, a call to the C library on most
//! targets.
//!
//! The stack machine evaluates its operations in the order they were
//! pushed; a tree evaluated left to right, children first, does the same,
//! so the values, writes and faults are the same. A value dropped while
//! another waits below it (which the compiler does not emit) would change
//! that order, so such a program keeps the stack machine, as do strings,
//! `? :`, comparison chains and a check of `&&` operands no `&&` follows.
//! A tree is as deep as its expression, which the compiler bounds
//! ([`MAX_SCRIPT_HEIGHT`](super::MAX_SCRIPT_HEIGHT)).
//!
//! A node that faults records the fault in the context (the first one
//! only) and returns NaN; the nodes after it run on, on values nothing
//! uses, but an assignment writes nothing once a fault is recorded, so
//! the board and the fault are the stack machine's.
//!
//! A script whose value is dropped (an `Eval` leaf, BehaviorTree.CPP's
//! `Script`) has a second tree: the nodes that write or can fault, in
//! their order, without what only makes the value (`hp > 10 && step != 3`
//! above, and the comparison fused into the assignment). It runs when the
//! board has every slot the program names, so that no read left out
//! could have faulted; on a shorter board (another tree's) the whole
//! tree runs. Its writes and its first fault are the whole tree's.
//!
//! Measured on `node_cost`'s `Eval` row (the script above; instructions
//! per agent-tick under callgrind, the whole tick, on a driver ticking
//! 10,000 agents round-robin: a closure leaf is 101, and the script
//! written by hand as a closure over two ports 163), this is 157, and
//! 217 for the `EvalCondition` row, which tests the same script's value.
//! The steps: the leaf testing the fault alone instead of building a
//! `ScriptValue` and a `Result` of it, 229 -> 220; the two fused shapes,
//! 220 -> 208 (two indirect calls fewer); the tree without the value,
//! 208 -> 166 (the `&&` node, the `!=` leaf and the comparison gone: an
//! assignment of a `step * 2 + 1` node is left); that assignment one
//! node, 166 -> 157. The figures below were
//! counted on the bench binary itself, where the same tick counts 2 more
//! (231 there, 229 on the driver). Rejected on the way:
//! - a register machine of untyped steps (a step's `match` on nested
//!   operation and slot-type enums, generic slot reads): 590, 449 of them
//!   in its loop;
//! - the same with one flat enum of fully typed steps: 379. Its loop,
//!   the decoding of a step's fields and its jump table cost about 13
//!   instructions a step, and its registers live in memory;
//! - these nodes returning `Result<f64, ScriptFault>`, which goes through
//!   memory and is tested at every node: 269, with `Script::run` not
//!   inlined into its caller (248 with plain numbers and it inlined);
//! - their children behind `Arc<dyn Node>` rather than `Box`: 294 against
//!   269 (the offset of the value behind an `Arc` of a `dyn` is computed
//!   at each call); the root behind one, and `!=` a finite constant
//!   testing the difference for NaN apart: 242 against 231;
//! - more fused shapes for the value's tree: an `&&` or `||` whose
//!   operand is a slot compared with a constant would save the operand's
//!   call, 7 of the `&&` node's 23 instructions in the listing, for 154
//!   more node types (two operators, 11 slot types, 7 comparisons), and
//!   an assignment of a `slot * a + b` to a key of any type (not only a
//!   number key) 9 for 110 more. Fusing `&&` with two comparisons saves
//!   no call: its operands stay nodes;
//! - a slot's type as data in the node (a `match` at each read): the jump
//!   table costs about what the call it replaces does;
//! - generating machine code: `unsafe`, and a code generator's weight for
//!   a few operations.

use std::cmp::Ordering;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::ScriptFault;
use super::program::{
    Arith, Cmp, Op, Pair, Place, SAME, Store, Target, binary, bools, truth, whole,
};
use crate::util::board::Board;

/// A slot an assignment writes: where, and for a fault, where in the
/// source and which key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    offset: u32,
    at: u32,
    key: u16,
}

/// The blackboard as a program reads and writes it.
trait Slots {
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

/// The fault of storing `v` into an integer slot of `store`, which the
/// fast check refused.
#[cold]
#[inline(never)]
fn not_whole(v: f64, store: Store, slot: Slot) -> ScriptFault {
    whole(v, store, slot.at, slot.key)
        .err()
        .unwrap_or(ScriptFault::Broken)
}

/// The 64-bit integer a store into an integer slot passes through: `i64`
/// for the signed slots, `u64` for the unsigned ones.
trait Wide: Copy {
    /// `v` cast (saturating, as `as` does).
    fn cast(v: f64) -> Self;
    /// Back to a number.
    fn number(self) -> f64;
    /// Little-endian bytes; a slot keeps the first `N`.
    fn bytes(self) -> [u8; 8];
}

macro_rules! wide {
    ($($t:ty),*) => {$(
        impl Wide for $t {
            #[inline(always)]
            fn cast(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn number(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn bytes(self) -> [u8; 8] {
                self.to_le_bytes()
            }
        }
    )*};
}

wide!(i64, u64);

/// Store `v` into the integer slot `slot` of `store`, `N` bytes wide,
/// through `W`: what the slot reads as afterwards. `v` is accepted when
/// it is in range and survives the trip through `W` — exactly when it is
/// whole, finite and in range, which the stack machine checks with
/// `fract`, a call to the C library on most targets.
#[inline(always)]
fn store_int<const N: usize, W: Wide>(
    slots: &mut impl Slots,
    v: f64,
    slot: Slot,
    store: Store,
) -> Result<f64, ScriptFault> {
    let (lo, hi) = store.range().unwrap_or((0.0, -1.0));
    let n = W::cast(v);
    if !(v >= lo && v <= hi && n.number() == v) {
        return Err(not_whole(v, store, slot));
    }
    let bytes = slots.put::<N>(slot.offset, slot.at)?;
    bytes.copy_from_slice(&n.bytes()[..N]);
    Ok(n.number())
}

/// Where a tree runs: the blackboard, and the first fault.
struct Cx<'x, 'a> {
    target: Target<'x, 'a>,
    fault: Option<ScriptFault>,
}

impl Cx<'_, '_> {
    /// The value of `r`, or NaN with its fault recorded.
    #[inline(always)]
    fn ok(&mut self, r: Result<f64, ScriptFault>) -> f64 {
        match r {
            Ok(v) => v,
            Err(fault) => self.fail(fault),
        }
    }

    /// Record `fault` unless one came before: NaN, a value nothing uses.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, fault: ScriptFault) -> f64 {
        self.fault.get_or_insert(fault);
        f64::NAN
    }
}

/// One operation and its operands.
trait Node: Send + Sync {
    fn eval(&self, cx: &mut Cx) -> f64;
    /// What of it must run when its value is not used, added to `out`:
    /// the nodes that write or can fault, in their order (a read outside
    /// the board aside: the caller checks the board first).
    fn effects(self: Box<Self>, out: &mut Vec<Expr>);
    /// Itself in words (`GtAssign(F64@8, MulAdd(U64@0, 2, 1), 10)`), for
    /// `Debug`.
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// The slot and the two constants of a `slot * a + b` node, which an
    /// assignment to a number key takes in (`None` for the other nodes).
    fn mul_add(&self) -> Option<(Place, f64, f64)> {
        None
    }
}

/// The name of the type `T`, without its path.
fn name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

impl fmt::Debug for dyn Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.show(f)
    }
}

type Expr = Box<dyn Node>;

/// A slot type a node loads and stores, known when the node is made.
trait Kind: Send + Sync + 'static {
    /// The slot type it is.
    const STORE: Store;
    fn load(cx: &mut Cx, offset: u32) -> f64;
    fn store(cx: &mut Cx, v: f64, slot: Slot) -> f64;
}

macro_rules! int_kinds {
    ($($kind:ident: $t:ty, $n:literal, $store:ident, $wide:ty;)*) => {$(
        struct $kind;
        impl Kind for $kind {
            const STORE: Store = Store::$store;
            #[inline(always)]
            fn load(cx: &mut Cx, offset: u32) -> f64 {
                let v = cx.target.fetch::<$n>(offset).map(|b| <$t>::from_le_bytes(b) as f64);
                cx.ok(v)
            }
            #[inline(always)]
            fn store(cx: &mut Cx, v: f64, slot: Slot) -> f64 {
                let r = store_int::<$n, $wide>(&mut cx.target, v, slot, Store::$store);
                cx.ok(r)
            }
        }
    )*};
}

int_kinds! {
    I8: i8, 1, I8, i64;
    I16: i16, 2, I16, i64;
    I32: i32, 4, I32, i64;
    I64: i64, 8, I64, i64;
    U8: u8, 1, U8, u64;
    U16: u16, 2, U16, u64;
    U32: u32, 4, U32, u64;
    U64: u64, 8, U64, u64;
}

struct F64;
impl Kind for F64 {
    const STORE: Store = Store::F64;
    #[inline(always)]
    fn load(cx: &mut Cx, offset: u32) -> f64 {
        let v = cx.target.fetch::<8>(offset).map(f64::from_le_bytes);
        cx.ok(v)
    }
    #[inline(always)]
    fn store(cx: &mut Cx, v: f64, slot: Slot) -> f64 {
        let r = cx.target.put::<8>(slot.offset, slot.at).map(|b| {
            *b = v.to_le_bytes();
            v
        });
        cx.ok(r)
    }
}

struct F32;
impl Kind for F32 {
    const STORE: Store = Store::F32;
    #[inline(always)]
    fn load(cx: &mut Cx, offset: u32) -> f64 {
        let v = cx
            .target
            .fetch::<4>(offset)
            .map(|b| f32::from_le_bytes(b).into());
        cx.ok(v)
    }
    #[inline(always)]
    fn store(cx: &mut Cx, v: f64, slot: Slot) -> f64 {
        let v = v as f32;
        let r = cx.target.put::<4>(slot.offset, slot.at).map(|b| {
            *b = v.to_le_bytes();
            v.into()
        });
        cx.ok(r)
    }
}

struct Bool;
impl Kind for Bool {
    const STORE: Store = Store::Bool;
    #[inline(always)]
    fn load(cx: &mut Cx, offset: u32) -> f64 {
        let v = cx.target.fetch::<1>(offset).map(|b| truth(b[0] != 0));
        cx.ok(v)
    }
    #[inline(always)]
    fn store(cx: &mut Cx, v: f64, slot: Slot) -> f64 {
        let v = v != 0.0;
        let r = cx.target.put::<1>(slot.offset, slot.at).map(|b| {
            *b = [u8::from(v)];
            truth(v)
        });
        cx.ok(r)
    }
}

/// An operation on two numbers that cannot fault.
trait Op2: Send + Sync + 'static {
    fn apply(a: f64, b: f64) -> f64;
}

macro_rules! ops {
    ($($op:ident: |$a:ident, $b:ident| $e:expr;)*) => {$(
        struct $op;
        impl Op2 for $op {
            #[inline(always)]
            fn apply($a: f64, $b: f64) -> f64 {
                $e
            }
        }
    )*};
}

ops! {
    Add: |a, b| a + b;
    Sub: |a, b| a - b;
    Mul: |a, b| a * b;
    Div: |a, b| a / b;
    Eq: |a, b| truth(Cmp::Eq.numbers(a, b));
    Ne: |a, b| truth(Cmp::Ne.numbers(a, b));
    // `!=` with a finite `b`: a NaN or an infinite `a` makes the
    // difference NaN or infinite, which is not within the tolerance.
    NeFinite: |a, b| {
        let within = (a - b).abs().partial_cmp(&SAME);
        truth(!matches!(within, Some(Ordering::Less | Ordering::Equal)))
    };
    Lt: |a, b| truth(a < b);
    Le: |a, b| truth(a <= b);
    Gt: |a, b| truth(a > b);
    Ge: |a, b| truth(a >= b);
    And: |a, b| truth(a != 0.0 && b != 0.0);
    Or: |a, b| truth(a != 0.0 || b != 0.0);
}

/// `PhantomData` of a type parameter that is only a name for code.
type Of<T> = PhantomData<fn() -> T>;

struct Const(f64);
impl Node for Const {
    fn eval(&self, _: &mut Cx) -> f64 {
        self.0
    }
    fn effects(self: Box<Self>, _: &mut Vec<Expr>) {}
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

struct Load<K>(u32, Of<K>);
impl<K: Kind> Node for Load<K> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        K::load(cx, self.0)
    }
    fn effects(self: Box<Self>, _: &mut Vec<Expr>) {}
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", name::<K>(), self.0)
    }
}

/// A slot's value and a constant.
struct LoadK<K, O>(u32, f64, Of<(K, O)>);
impl<K: Kind, O: Op2> Node for LoadK<K, O> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        O::apply(K::load(cx, self.0), self.1)
    }
    fn effects(self: Box<Self>, _: &mut Vec<Expr>) {}
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}@{}, {})", name::<O>(), name::<K>(), self.0, self.1)
    }
}

/// A slot's value times a constant plus a constant (`step * 2 + 1`, and
/// `- 1` as `+ -1`): the two operations in the stack machine's order, so
/// the same two roundings.
struct LoadMulAdd<K>(u32, f64, f64, Of<K>);
impl<K: Kind> Node for LoadMulAdd<K> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        K::load(cx, self.0) * self.1 + self.2
    }
    fn effects(self: Box<Self>, _: &mut Vec<Expr>) {}
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MulAdd({}@{}, {}, {})",
            name::<K>(),
            self.0,
            self.1,
            self.2
        )
    }
    fn mul_add(&self) -> Option<(Place, f64, f64)> {
        let place = Place {
            offset: self.0,
            store: K::STORE,
            key: 0,
        };
        Some((place, self.1, self.2))
    }
}

/// An assignment to a number key (what a script's own keys hold) of a
/// slot's value times a constant plus a constant (`hp := step * 2 + 1`):
/// [`LoadMulAdd`] and [`Assign`] in one node.
struct AssignMulAdd<K>(u32, f64, f64, Slot, Of<K>);
impl<K: Kind> Node for AssignMulAdd<K> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        let v = K::load(cx, self.0) * self.1 + self.2;
        // Nothing is written after a fault.
        if cx.fault.is_some() {
            return f64::NAN;
        }
        F64::store(cx, v, self.3)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        out.push(self);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (k, o) = (name::<K>(), self.0);
        let (a, b, to) = (self.1, self.2, self.3.offset);
        write!(f, "Assign(F64@{to}, MulAdd({k}@{o}, {a}, {b}))")
    }
}

/// A value and a constant.
struct BinK<O>(Expr, f64, Of<O>);
impl<O: Op2> Node for BinK<O> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        O::apply(self.0.eval(cx), self.1)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        self.0.effects(out);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?}, {})", name::<O>(), self.0, self.1)
    }
}

struct Bin<O>(Expr, Expr, Of<O>);
impl<O: Op2> Node for Bin<O> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        let a = self.0.eval(cx);
        O::apply(a, self.1.eval(cx))
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        let Bin(a, b, _) = *self;
        a.effects(out);
        b.effects(out);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?}, {:?})", name::<O>(), self.0, self.1)
    }
}

/// An operation that can fault (the bitwise ones), as the stack machine
/// applies it.
struct Faulting(Expr, Expr, Op);
impl Node for Faulting {
    fn eval(&self, cx: &mut Cx) -> f64 {
        let a = self.0.eval(cx);
        let b = self.1.eval(cx);
        let v = binary(self.2, a, b);
        cx.ok(v)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        out.push(self);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}({:?}, {:?})", self.2, self.0, self.1)
    }
}

/// `&&` or `||` whose whole-number operands must be 0 or 1.
struct Checked {
    a: Expr,
    b: Expr,
    left: bool,
    right: bool,
    at: u32,
    or: bool,
}
impl Node for Checked {
    fn eval(&self, cx: &mut Cx) -> f64 {
        let a = self.a.eval(cx);
        let b = self.b.eval(cx);
        if let Err(fault) = bools(a, b, self.left, self.right, self.at) {
            return cx.fail(fault);
        }
        if self.or {
            Or::apply(a, b)
        } else {
            And::apply(a, b)
        }
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        out.push(self);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.or { "Or" } else { "And" };
        write!(f, "{op}Checked({:?}, {:?})", self.a, self.b)
    }
}

struct Neg(Expr);
impl Node for Neg {
    fn eval(&self, cx: &mut Cx) -> f64 {
        -self.0.eval(cx)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        self.0.effects(out);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Neg({:?})", self.0)
    }
}

struct Not(Expr);
impl Node for Not {
    fn eval(&self, cx: &mut Cx) -> f64 {
        truth(self.0.eval(cx) == 0.0)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        self.0.effects(out);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Not({:?})", self.0)
    }
}

/// An assignment: its value stored; what the slot then reads as.
struct Assign<K>(Expr, Slot, Of<K>);
impl<K: Kind> Node for Assign<K> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        let v = self.0.eval(cx);
        // Nothing is written after a fault.
        if cx.fault.is_some() {
            return f64::NAN;
        }
        K::store(cx, v, self.1)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        out.push(self);
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Assign({}@{}, {:?})", name::<K>(), self.1.offset, self.0)
    }
}

/// An assignment whose value is then compared with a constant
/// (`hp := …; hp > 10`): the comparison made on what the slot reads as,
/// without a node of its own.
struct AssignK<K, O>(Expr, Slot, f64, Of<(K, O)>);
impl<K: Kind, O: Op2> Node for AssignK<K, O> {
    fn eval(&self, cx: &mut Cx) -> f64 {
        let v = self.0.eval(cx);
        // Nothing is written after a fault.
        if cx.fault.is_some() {
            return f64::NAN;
        }
        O::apply(K::store(cx, v, self.1), self.2)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        let AssignK(e, slot, ..) = *self;
        out.push(assign::<K>(e, slot));
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (k, o) = (name::<K>(), self.1.offset);
        write!(
            f,
            "{}Assign({k}@{o}, {:?}, {})",
            name::<O>(),
            self.0,
            self.2
        )
    }
}

/// Statements run in order, as one node: `None` for none.
fn statements(mut all: Vec<Expr>) -> Option<Expr> {
    let last = all.pop()?;
    Some(match all.is_empty() {
        true => last,
        false => Box::new(Seq(all.into_boxed_slice(), last)),
    })
}

/// Statements whose values are dropped, then the script's value.
struct Seq(Box<[Expr]>, Expr);
impl Node for Seq {
    fn eval(&self, cx: &mut Cx) -> f64 {
        for s in &self.0 {
            s.eval(cx);
        }
        self.1.eval(cx)
    }
    fn effects(self: Box<Self>, out: &mut Vec<Expr>) {
        let Seq(done, value) = *self;
        for s in done.into_vec().into_iter().chain([value]) {
            s.effects(out);
        }
    }
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seq(")?;
        for s in &self.0 {
            write!(f, "{s:?}; ")?;
        }
        write!(f, "{:?})", self.1)
    }
}

/// `f::<K>()` for the kind of slot `store` is; `None` for strings and a
/// game's own types.
macro_rules! by_kind {
    ($store:expr, $f:ident($($arg:expr),*)) => {
        match $store {
            Store::F64 => $f::<F64>($($arg),*),
            Store::F32 => $f::<F32>($($arg),*),
            Store::I8 => $f::<I8>($($arg),*),
            Store::I16 => $f::<I16>($($arg),*),
            Store::I32 => $f::<I32>($($arg),*),
            Store::I64 => $f::<I64>($($arg),*),
            Store::U8 => $f::<U8>($($arg),*),
            Store::U16 => $f::<U16>($($arg),*),
            Store::U32 => $f::<U32>($($arg),*),
            Store::U64 => $f::<U64>($($arg),*),
            Store::Bool => $f::<Bool>($($arg),*),
            Store::Text | Store::Raw => return None,
        }
    };
}

/// `e` with the type `O` standing for the operation `arith` is.
macro_rules! by_arith {
    ($arith:expr, $o:ident => $e:expr) => {
        match $arith {
            Arith::Add => {
                type $o = Add;
                $e
            }
            Arith::Sub => {
                type $o = Sub;
                $e
            }
            Arith::Mul => {
                type $o = Mul;
                $e
            }
            Arith::Div => {
                type $o = Div;
                $e
            }
            Arith::Compare(Cmp::Eq) => {
                type $o = Eq;
                $e
            }
            Arith::Compare(Cmp::Ne) => {
                type $o = Ne;
                $e
            }
            Arith::Compare(Cmp::Lt) => {
                type $o = Lt;
                $e
            }
            Arith::Compare(Cmp::Le) => {
                type $o = Le;
                $e
            }
            Arith::Compare(Cmp::Gt) => {
                type $o = Gt;
                $e
            }
            Arith::Compare(Cmp::Ge) => {
                type $o = Ge;
                $e
            }
        }
    };
}

fn load<K: Kind>(offset: u32) -> Expr {
    Box::new(Load::<K>(offset, PhantomData))
}

fn load_k<K: Kind, O: Op2>(offset: u32, k: f64) -> Expr {
    Box::new(LoadK::<K, O>(offset, k, PhantomData))
}

fn load_k_mul<K: Kind>(offset: u32, k: f64) -> Expr {
    load_k::<K, Mul>(offset, k)
}

fn load_arith<K: Kind>(offset: u32, arith: Arith, k: f64) -> Expr {
    if arith == Arith::Compare(Cmp::Ne) && k.is_finite() {
        return load_k::<K, NeFinite>(offset, k);
    }
    by_arith!(arith, O => load_k::<K, O>(offset, k))
}

fn arith_k(e: Expr, arith: Arith, k: f64) -> Expr {
    if arith == Arith::Compare(Cmp::Ne) && k.is_finite() {
        return bin_k::<NeFinite>(e, k);
    }
    by_arith!(arith, O => bin_k::<O>(e, k))
}

fn bin_k<O: Op2>(e: Expr, k: f64) -> Expr {
    Box::new(BinK::<O>(e, k, PhantomData))
}

fn bin<O: Op2>(a: Expr, b: Expr) -> Expr {
    Box::new(Bin::<O>(a, b, PhantomData))
}

fn assign<K: Kind>(e: Expr, slot: Slot) -> Expr {
    if K::STORE == Store::F64
        && let Some((from, a, b)) = e.mul_add()
    {
        let fused = |f: fn(u32, f64, f64, Slot) -> Expr| f(from.offset, a, b, slot);
        return match from.store {
            Store::F64 => fused(assign_mul_add::<F64>),
            Store::F32 => fused(assign_mul_add::<F32>),
            Store::I8 => fused(assign_mul_add::<I8>),
            Store::I16 => fused(assign_mul_add::<I16>),
            Store::I32 => fused(assign_mul_add::<I32>),
            Store::I64 => fused(assign_mul_add::<I64>),
            Store::U8 => fused(assign_mul_add::<U8>),
            Store::U16 => fused(assign_mul_add::<U16>),
            Store::U32 => fused(assign_mul_add::<U32>),
            Store::U64 => fused(assign_mul_add::<U64>),
            Store::Bool => fused(assign_mul_add::<Bool>),
            Store::Text | Store::Raw => Box::new(Assign::<K>(e, slot, PhantomData)),
        };
    }
    Box::new(Assign::<K>(e, slot, PhantomData))
}

fn assign_mul_add<K: Kind>(offset: u32, a: f64, b: f64, slot: Slot) -> Expr {
    Box::new(AssignMulAdd::<K>(offset, a, b, slot, PhantomData))
}

fn load_mul_add<K: Kind>(offset: u32, a: f64, b: f64) -> Expr {
    Box::new(LoadMulAdd::<K>(offset, a, b, PhantomData))
}

fn assign_k<K: Kind, O: Op2>(e: Expr, slot: Slot, k: f64) -> Expr {
    Box::new(AssignK::<K, O>(e, slot, k, PhantomData))
}

/// An assignment compared with the constant `k` (`Err` gives the value
/// back when `arith` is no comparison).
fn assign_cmp<K: Kind>(e: Expr, slot: Slot, arith: Arith, k: f64) -> Result<Expr, Expr> {
    let Arith::Compare(cmp) = arith else {
        return Err(e);
    };
    Ok(match cmp {
        Cmp::Ne if k.is_finite() => assign_k::<K, NeFinite>(e, slot, k),
        Cmp::Eq => assign_k::<K, Eq>(e, slot, k),
        Cmp::Ne => assign_k::<K, Ne>(e, slot, k),
        Cmp::Lt => assign_k::<K, Lt>(e, slot, k),
        Cmp::Le => assign_k::<K, Le>(e, slot, k),
        Cmp::Gt => assign_k::<K, Gt>(e, slot, k),
        Cmp::Ge => assign_k::<K, Ge>(e, slot, k),
    })
}

/// What building knows of a value on the stack: a constant, a slot not
/// read yet (which an operation with a constant may join), a slot times
/// a constant (which a `+` or `-` of a constant may join), an assignment
/// read back (which a comparison with a constant may join), or a node.
enum V {
    Const(f64),
    Load(Place),
    Scaled(Place, f64),
    Assigned(Place, Expr, Slot),
    Node(Expr),
}

/// Builds a tree from the operations, value by value.
#[derive(Default)]
struct Build {
    stack: Vec<V>,
    /// Statements whose values were dropped, in order.
    done: Vec<Expr>,
    /// An assignment (its value and slot) whose value the next operation
    /// reads back (a `Load` of its key), or else a statement of its own.
    assigned: Option<(Place, Expr, Slot)>,
    /// The check of the operands of the `&&` or `||` that comes next.
    bools: Option<(bool, bool, u32)>,
}

impl Build {
    fn node(v: V) -> Option<Expr> {
        Some(match v {
            V::Const(k) => Box::new(Const(k)),
            V::Load(place) => by_kind!(place.store, load(place.offset)),
            V::Scaled(place, k) => by_kind!(place.store, load_k_mul(place.offset, k)),
            V::Assigned(place, e, slot) => by_kind!(place.store, assign(e, slot)),
            V::Node(e) => e,
        })
    }

    fn pop(&mut self) -> Option<Expr> {
        Build::node(self.stack.pop()?)
    }

    /// A value dropped: a statement of its own, when nothing waits below
    /// it (else the order of evaluation would change).
    fn drop_value(&mut self, e: Expr) -> Option<()> {
        self.stack.is_empty().then(|| self.done.push(e))
    }

    fn op(&mut self, op: Op) -> Option<()> {
        if let Some((place, e, slot)) = self.assigned.take() {
            if op == Op::Load(place) {
                self.stack.push(V::Assigned(place, e, slot));
                return Some(());
            }
            let e = Build::node(V::Assigned(place, e, slot))?;
            self.drop_value(e)?;
        }
        if self.bools.is_some() && !matches!(op, Op::And | Op::Or) {
            return None;
        }
        match op {
            Op::Num(k) => self.stack.push(V::Const(k)),
            Op::Load(place) if !matches!(place.store, Store::Text | Store::Raw) => {
                self.stack.push(V::Load(place));
            }
            Op::StorePop(place, at) => {
                let e = self.pop()?;
                let slot = Slot {
                    offset: place.offset,
                    at,
                    key: place.key,
                };
                // A string or a game's own type has no tree.
                if matches!(place.store, Store::Text | Store::Raw) {
                    return None;
                }
                self.assigned = Some((place, e, slot));
            }
            Op::PopNum => {
                let e = self.pop()?;
                self.drop_value(e)?;
            }
            Op::Immediate(arith, k) => {
                let v = match self.stack.pop()? {
                    V::Const(a) => V::Const(arith.apply(a, k)),
                    V::Load(place) if arith == Arith::Mul => V::Scaled(place, k),
                    V::Load(place) => {
                        V::Node(by_kind!(place.store, load_arith(place.offset, arith, k)))
                    }
                    // `x - k` is `x + -k` exactly (a NaN's sign aside).
                    V::Scaled(place, a)
                        if arith == Arith::Add || arith == Arith::Sub && !k.is_nan() =>
                    {
                        let b = if arith == Arith::Sub { -k } else { k };
                        V::Node(by_kind!(place.store, load_mul_add(place.offset, a, b)))
                    }
                    V::Assigned(place, e, slot) => {
                        match by_kind!(place.store, assign_cmp(e, slot, arith, k)) {
                            Ok(node) => V::Node(node),
                            Err(e) => {
                                let e = Build::node(V::Assigned(place, e, slot))?;
                                V::Node(arith_k(e, arith, k))
                            }
                        }
                    }
                    v => V::Node(arith_k(Build::node(v)?, arith, k)),
                };
                self.stack.push(v);
            }
            Op::Neg | Op::Not => {
                let v = match self.stack.pop()? {
                    V::Const(a) if op == Op::Neg => V::Const(-a),
                    V::Const(a) => V::Const(truth(a == 0.0)),
                    v if op == Op::Neg => V::Node(Box::new(Neg(Build::node(v)?))),
                    v => V::Node(Box::new(Not(Build::node(v)?))),
                };
                self.stack.push(v);
            }
            Op::Bools { left, right, at } => self.bools = Some((left, right, at)),
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
        let (b, a) = (self.stack.pop()?, self.stack.pop()?);
        if let Some((left, right, at)) = self.bools.take() {
            let (a, b) = (Build::node(a)?, Build::node(b)?);
            let or = op == Op::Or;
            let node = Checked {
                a,
                b,
                left,
                right,
                at,
                or,
            };
            self.stack.push(V::Node(Box::new(node)));
            return Some(());
        }
        let v = match (a, b, Arith::of(op)) {
            // Folded only where it cannot fault: a fault stays a node.
            (V::Const(a), V::Const(b), _) if binary(op, a, b).is_ok() => {
                V::Const(binary(op, a, b).ok()?)
            }
            (a, V::Const(k), Some(arith)) => {
                self.stack.push(a);
                return self.op(Op::Immediate(arith, k));
            }
            (a, b, _) => {
                let (a, b) = (Build::node(a)?, Build::node(b)?);
                V::Node(match op {
                    Op::And => bin::<And>(a, b),
                    Op::Or => bin::<Or>(a, b),
                    _ => match Arith::of(op) {
                        Some(arith) => by_arith!(arith, O => bin::<O>(a, b)),
                        None => Box::new(Faulting(a, b, op)),
                    },
                })
            }
        };
        self.stack.push(v);
        Some(())
    }
}

/// A straight-line numeric program: a tree of nodes, shared by the
/// script's clones.
#[derive(Clone)]
pub(crate) struct Straight(Arc<Root>);

/// The trees of a program. Behind an `Arc` of its own (not an `Arc<dyn
/// Node>`), so a run finds them at a fixed offset instead of computing
/// where a value of unknown alignment starts.
struct Root {
    /// The whole program, for its value.
    value: Expr,
    /// What must run when the value is not used (an `Eval` leaf): the
    /// writes and what can fault, in order; `None` for nothing.
    effect: Option<Expr>,
    /// The bytes a board needs for every slot the program names: on a
    /// shorter one a read left out of `effect` could have faulted, and
    /// the whole program runs.
    need: usize,
}

impl fmt::Debug for Straight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.value.show(f)
    }
}

/// `ops` as one tree, if they are numbers only without jumps and drop no
/// value while another waits below it.
fn tree(ops: &[Op]) -> Option<Expr> {
    let mut b = Build::default();
    for &op in ops {
        b.op(op)?;
    }
    if let Some((place, e, slot)) = b.assigned.take() {
        let e = Build::node(V::Assigned(place, e, slot))?;
        b.drop_value(e)?;
    }
    if b.bools.is_some() || b.stack.len() != 1 {
        return None;
    }
    let value = b.pop()?;
    Some(match b.done.is_empty() {
        true => value,
        false => Box::new(Seq(b.done.into_boxed_slice(), value)),
    })
}

impl Straight {
    /// `ops` as a tree, if they are numbers only without jumps and drop
    /// no value while another waits below it.
    pub(crate) fn lower(ops: &[Op]) -> Option<Straight> {
        let value = tree(ops)?;
        // Made again rather than cloned: nodes are not `Clone`.
        let mut effects = Vec::new();
        tree(ops)?.effects(&mut effects);
        let effect = statements(effects);
        let need = ops
            .iter()
            .filter_map(|op| match op {
                Op::Load(place) | Op::StorePop(place, _) => Some(place),
                _ => None,
            })
            .map(|place| place.offset as usize + place.store.size())
            .max()
            .unwrap_or(0);
        let root = Root {
            value,
            effect,
            need,
        };
        Some(Straight(Arc::new(root)))
    }

    /// Run it against `target`: the script's value as a number.
    #[inline]
    pub(crate) fn run(&self, target: Target) -> Result<f64, ScriptFault> {
        let mut cx = Cx {
            target,
            fault: None,
        };
        let v = self.0.value.eval(&mut cx);
        match cx.fault {
            None => Ok(v),
            Some(fault) => Err(fault),
        }
    }

    /// Run it on `board` for its writes and its fault alone. What only
    /// makes the value is left out when the board has every slot the
    /// program names (then no read of it could fault): what is left
    /// holds every node that can fault, in order, so the first fault is
    /// the whole tree's.
    #[inline]
    pub(crate) fn run_for_effect(&self, board: &mut Board) -> Result<(), ScriptFault> {
        let root = &*self.0;
        let tree = match board.raw(0, root.need) {
            Some(_) => match &root.effect {
                Some(effect) => effect,
                None => return Ok(()),
            },
            None => &root.value,
        };
        let mut cx = Cx {
            target: Target::Write(board),
            fault: None,
        };
        tree.eval(&mut cx);
        match cx.fault {
            None => Ok(()),
            Some(fault) => Err(fault),
        }
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

    fn shown(ops: &[Op]) -> String {
        format!("{:?}", Straight::lower(ops).unwrap())
    }

    #[test]
    fn constants_fold_and_a_slot_read_takes_its_operation_with_a_constant() {
        let two = Op::Num(2.0);
        let ops = [two, Op::Immediate(Arith::Mul, 3.0), Op::Num(1.0), Op::Add];
        assert_eq!(shown(&ops), "7");
        let ops = [
            Op::Load(place(0)),
            Op::Immediate(Arith::Mul, 2.0),
            Op::Num(3.0),
            Op::Add,
        ];
        // A slot times a constant plus a constant is one node.
        assert_eq!(shown(&ops), "MulAdd(I64@0, 2, 3)");
        let ops = [
            Op::Load(place(0)),
            Op::Immediate(Arith::Mul, 2.0),
            Op::Num(3.0),
            Op::Sub,
        ];
        assert_eq!(shown(&ops), "MulAdd(I64@0, 2, -3)");
        // Not the other order, nor `- NaN`: `x + -NaN` is another NaN.
        let ops = [
            Op::Load(place(0)),
            Op::Immediate(Arith::Add, 3.0),
            Op::Immediate(Arith::Mul, 2.0),
        ];
        assert_eq!(shown(&ops), "Mul(Add(I64@0, 3), 2)");
        let ops = [
            Op::Load(place(0)),
            Op::Immediate(Arith::Mul, 2.0),
            Op::Immediate(Arith::Sub, f64::NAN),
        ];
        assert_eq!(shown(&ops), "Sub(Mul(I64@0, 2), NaN)");
        // A fault stays where it is: `1.5 & 1` is not folded.
        let ops = [Op::Num(1.5), Op::Num(1.0), Op::BitAnd(4)];
        assert_eq!(shown(&ops), "BitAnd(4)(1.5, 1)");
        // Compared with a tolerance: folded by the same function.
        let ops = [Op::Num(0.1 + 0.2), Op::Num(0.3), Op::Compare(Cmp::Eq)];
        assert_eq!(shown(&ops), "1");
    }

    #[test]
    fn a_key_read_right_after_it_is_written_is_the_assignment() {
        // `n := x * 2; n > 10`: the assignment's value read back and
        // dropped was no operation; the next statement's read of `n` is
        // the assignment itself, which gives what `n` then reads as.
        let (x, n) = (place(0), place(8));
        let ops = [
            Op::Load(x),
            Op::Immediate(Arith::Mul, 2.0),
            Op::StorePop(n, 0),
            Op::Load(n),
            Op::Immediate(Arith::Compare(Cmp::Gt), 10.0),
        ];
        // Compared with a constant: one node.
        assert_eq!(shown(&ops), "GtAssign(I64@8, Mul(I64@0, 2), 10)");
        // Any other operation on it is a node of its own.
        let mut add = ops;
        add[4] = Op::Immediate(Arith::Add, 10.0);
        assert_eq!(shown(&add), "Add(Assign(I64@8, Mul(I64@0, 2)), 10)");
        // Another key: the assignment is a statement of its own.
        let other = [Op::Load(x), Op::StorePop(n, 0), Op::Load(x)];
        assert_eq!(shown(&other), "Seq(Assign(I64@8, I64@0); I64@0)");
    }

    /// The tree run when the value is not used.
    fn effect(ops: &[Op]) -> String {
        match &Straight::lower(ops).unwrap().0.effect {
            Some(e) => format!("{e:?}"),
            None => "nothing".to_string(),
        }
    }

    #[test]
    fn what_only_makes_the_value_is_left_out_when_it_is_not_used() {
        // `n := x * 2 + 1; n > 10 && x != 3`: the assignment stays, its
        // comparison and the other one go.
        let (x, n) = (place(0), place(8));
        let ops = [
            Op::Load(x),
            Op::Immediate(Arith::Mul, 2.0),
            Op::Num(1.0),
            Op::Add,
            Op::StorePop(n, 0),
            Op::Load(n),
            Op::Immediate(Arith::Compare(Cmp::Gt), 10.0),
            Op::Load(x),
            Op::Immediate(Arith::Compare(Cmp::Ne), 3.0),
            Op::And,
        ];
        assert_eq!(
            shown(&ops),
            "And(GtAssign(I64@8, MulAdd(I64@0, 2, 1), 10), NeFinite(I64@0, 3))"
        );
        assert_eq!(effect(&ops), "Assign(I64@8, MulAdd(I64@0, 2, 1))");
        // What can fault stays whole, in its order with the writes.
        let ops = [
            Op::Num(1.0),
            Op::StorePop(n, 0),
            Op::Load(x),
            Op::Num(1.0),
            Op::BitAnd(4),
            Op::Load(x),
            Op::StorePop(n, 9),
            Op::Load(n),
            Op::Add,
        ];
        assert_eq!(
            effect(&ops),
            "Seq(Assign(I64@8, 1); BitAnd(4)(I64@0, 1); Assign(I64@8, I64@0))"
        );
        // An assignment to a number key of `x * 2 + 1` is one node.
        let hp = Place {
            offset: 16,
            store: Store::F64,
            key: 1,
        };
        let fused = [
            Op::Load(x),
            Op::Immediate(Arith::Mul, 2.0),
            Op::Num(1.0),
            Op::Add,
            Op::StorePop(hp, 0),
            Op::Load(hp),
            Op::Immediate(Arith::Compare(Cmp::Gt), 10.0),
        ];
        assert_eq!(shown(&fused), "GtAssign(F64@16, MulAdd(I64@0, 2, 1), 10)");
        assert_eq!(effect(&fused), "Assign(F64@16, MulAdd(I64@0, 2, 1))");
        // Reads alone: nothing runs.
        let ops = [Op::Load(x), Op::Load(n), Op::Compare(Cmp::Lt)];
        assert_eq!(effect(&ops), "nothing");
    }

    #[test]
    fn strings_jumps_and_comparison_chains_keep_the_stack_machine() {
        assert!(Straight::lower(&[Op::Text(0)]).is_none());
        let jump = [Op::Num(1.0), Op::JumpUnless(2), Op::Num(2.0)];
        assert!(Straight::lower(&jump).is_none());
        let chain = Op::Relate {
            cmp: Cmp::Lt,
            pair: Pair::NN,
            keep: true,
            at: 0,
        };
        let ops = [Op::Load(place(0)), Op::Load(place(8)), chain];
        assert!(Straight::lower(&ops).is_none());
    }

    #[test]
    fn not_equal_to_a_finite_constant_is_the_stack_machines_not_equal() {
        let values = [
            0.0,
            -0.0,
            1.0,
            1.0 + 1e-9,
            0.3,
            0.1 + 0.2,
            -5.5,
            1e308,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for a in values {
            for b in values.into_iter().filter(|b| b.is_finite()) {
                let (fast, exact) = (NeFinite::apply(a, b), truth(Cmp::Ne.numbers(a, b)));
                assert_eq!(fast, exact, "{a} != {b}");
            }
        }
    }

    #[test]
    fn a_value_dropped_while_another_waits_keeps_the_stack_machine() {
        // `x` waits below `y := 1`, whose value is dropped: evaluated as a
        // tree, `x` would be read after the assignment.
        let (x, y) = (place(0), place(8));
        let ops = [
            Op::Load(x),
            Op::Num(1.0),
            Op::StorePop(y, 0),
            Op::Load(y),
            Op::PopNum,
        ];
        assert!(Straight::lower(&ops).is_none());
        let statements = [
            Op::Num(1.0),
            Op::StorePop(y, 0),
            Op::Load(x),
            Op::Load(y),
            Op::Add,
        ];
        assert!(Straight::lower(&statements).is_some());
        // A check of `&&` operands that no `&&` follows.
        let odd = [
            Op::Load(x),
            Op::Load(y),
            Op::Bools {
                left: true,
                right: true,
                at: 0,
            },
            Op::Add,
        ];
        assert!(Straight::lower(&odd).is_none());
    }
}
