//! Tokens to a syntax tree, by BehaviorTree.CPP 4.10's precedence rules
//! (a Pratt parser, as its own), nested at most
//! [`MAX_SCRIPT_NESTING`](super::MAX_SCRIPT_NESTING) deep so that a hostile
//! script cannot overflow the stack.
//!
//! Binding, loosest first: assignment (`:=`, `=`, `+=`…, its value a
//! whole expression), `? :`, `||`, `&&`, comparisons (which chain:
//! `1 < c < 5`), `|` and `^`, `&`, `+` `-` `..`, `*` `/`, then the prefix
//! operators. So `c & 1 == 1` is `(c & 1) == 1` and `a | b ^ c` is
//! `(a | b) ^ c`, as BehaviorTree.CPP reads them — not C's order, which
//! an earlier version of this parser followed. Statements need no `;`
//! between them (BehaviorTree.CPP reads `a := 1 b := 2` as two).

use super::lex::{Tok, Token};
use super::program::Cmp;
use super::{MAX_SCRIPT_HEIGHT, MAX_SCRIPT_NESTING, ScriptError};

/// An operator of one operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Unary {
    Neg,
    Not,
    BitNot,
}

/// An operator of two operands (comparisons are [`ExprKind::Chain`]s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Join,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
}

/// How an assignment assigns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Assign {
    /// `:=`: the key, made if nothing made it.
    Create,
    /// `=`: a key something made.
    Set,
    /// `+=`, `-=`, `*=`, `/=`.
    Update(Binary),
}

/// An expression and the byte where its operator (or itself) is.
#[derive(Debug)]
pub(crate) struct Expr<'s> {
    pub(crate) at: usize,
    /// Operators down its deepest branch (0 for a literal or a key):
    /// compiling and dropping it recurse this deep.
    pub(crate) height: usize,
    pub(crate) kind: ExprKind<'s>,
}

#[derive(Debug)]
pub(crate) enum ExprKind<'s> {
    /// A whole-number literal (BehaviorTree.CPP's `int64_t`).
    Int(f64),
    /// A literal with a fraction or an exponent (its `double`).
    Real(f64),
    Str(&'s str),
    Bool(bool),
    Name(&'s str),
    Unary(Unary, Box<Expr<'s>>),
    Binary(Binary, Box<Expr<'s>>, Box<Expr<'s>>),
    /// `a < b <= c …`: the first operand, then each comparison, where
    /// it is written, and its right operand.
    Chain(Box<Expr<'s>>, Vec<(Cmp, usize, Expr<'s>)>),
    Choose(Box<Expr<'s>>, Box<Expr<'s>>, Box<Expr<'s>>),
    /// `target op value`: an expression whose value is what was stored.
    Assign(Assign, Box<Expr<'s>>, Box<Expr<'s>>),
}

impl<'s> Expr<'s> {
    pub(crate) fn new(at: usize, kind: ExprKind<'s>) -> Expr<'s> {
        let below = match &kind {
            ExprKind::Unary(_, e) => e.height,
            ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => a.height.max(b.height),
            ExprKind::Choose(a, b, c) => a.height.max(b.height).max(c.height),
            ExprKind::Chain(first, rest) => rest
                .iter()
                .map(|(_, _, e)| e.height)
                .max()
                .unwrap_or(0)
                .max(first.height),
            _ => {
                return Expr {
                    at,
                    height: 0,
                    kind,
                };
            }
        };
        Expr {
            at,
            height: below + 1,
            kind,
        }
    }
}

/// The statements of a script, from its tokens: expressions, one after
/// another, with or without `;` between them.
pub(crate) fn statements<'s>(
    source: &'s str,
    tokens: &[Token<'s>],
) -> Result<Vec<Expr<'s>>, ScriptError> {
    let mut p = Parser {
        source,
        tokens,
        next: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    loop {
        while p.eat(";") {}
        if p.peek().tok == Tok::End {
            break;
        }
        out.push(p.expr(0, None)?);
    }
    if out.is_empty() {
        return Err(ScriptError::new(source, 0, "the script is empty"));
    }
    Ok(out)
}

/// A token as messages name it.
fn shown(tok: Tok) -> String {
    match tok {
        Tok::Int(n) | Tok::Real(n) => format!("the number {}", crate::util::text::number(n)),
        Tok::Str(s) => format!("the string {}", crate::util::text::quote(s)),
        Tok::Name(n) => format!("`{}`", crate::util::text::shorten(n)),
        Tok::Bool(b) => format!("`{b}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::End => "the end".to_string(),
    }
}

/// What an infix operator does.
#[derive(Clone, Copy)]
enum Infix {
    Assign(Assign),
    Choose,
    Compare(Cmp),
    Binary(Binary),
}

/// An infix operator's binding power (BehaviorTree.CPP 4.10's) and what
/// it does.
fn infix(tok: Tok) -> Option<(u8, Infix)> {
    let Tok::Punct(p) = tok else { return None };
    Some(match p {
        ":=" => (ASSIGN, Infix::Assign(Assign::Create)),
        "=" => (ASSIGN, Infix::Assign(Assign::Set)),
        "+=" => (ASSIGN, Infix::Assign(Assign::Update(Binary::Add))),
        "-=" => (ASSIGN, Infix::Assign(Assign::Update(Binary::Sub))),
        "*=" => (ASSIGN, Infix::Assign(Assign::Update(Binary::Mul))),
        "/=" => (ASSIGN, Infix::Assign(Assign::Update(Binary::Div))),
        "?" => (CHOOSE, Infix::Choose),
        "||" => (6, Infix::Binary(Binary::Or)),
        "&&" => (8, Infix::Binary(Binary::And)),
        "==" => (COMPARE, Infix::Compare(Cmp::Eq)),
        "!=" => (COMPARE, Infix::Compare(Cmp::Ne)),
        "<" => (COMPARE, Infix::Compare(Cmp::Lt)),
        "<=" => (COMPARE, Infix::Compare(Cmp::Le)),
        ">" => (COMPARE, Infix::Compare(Cmp::Gt)),
        ">=" => (COMPARE, Infix::Compare(Cmp::Ge)),
        "|" => (12, Infix::Binary(Binary::BitOr)),
        "^" => (12, Infix::Binary(Binary::BitXor)),
        "&" => (14, Infix::Binary(Binary::BitAnd)),
        "+" => (16, Infix::Binary(Binary::Add)),
        "-" => (16, Infix::Binary(Binary::Sub)),
        ".." => (16, Infix::Binary(Binary::Join)),
        "*" => (18, Infix::Binary(Binary::Mul)),
        "/" => (18, Infix::Binary(Binary::Div)),
        _ => return None,
    })
}

const ASSIGN: u8 = 2;
const CHOOSE: u8 = 4;
const COMPARE: u8 = 10;
/// The power of a prefix operator's operand: tighter than any infix.
const PREFIX: u8 = 20;

struct Parser<'t, 's> {
    source: &'s str,
    tokens: &'t [Token<'s>],
    next: usize,
    depth: usize,
}

impl<'s> Parser<'_, 's> {
    fn peek(&self) -> Token<'s> {
        // The list ends with End, which is never consumed.
        self.tokens[self.next.min(self.tokens.len() - 1)]
    }

    fn bump(&mut self) -> Token<'s> {
        let t = self.peek();
        if t.tok != Tok::End {
            self.next += 1;
        }
        t
    }

    fn eat(&mut self, punct: &str) -> bool {
        let hit = matches!(self.peek().tok, Tok::Punct(p) if p == punct);
        if hit {
            self.next += 1;
        }
        hit
    }

    fn error(&self, at: usize, problem: impl Into<String>) -> ScriptError {
        ScriptError::new(self.source, at, problem)
    }

    /// An expression of operators binding at least `min`; `after` is the
    /// operator before it, for messages.
    fn expr(&mut self, min: u8, after: Option<&str>) -> Result<Expr<'s>, ScriptError> {
        self.depth += 1;
        if self.depth > MAX_SCRIPT_NESTING {
            let at = self.peek().at;
            let problem = format!("the expression is nested more than {MAX_SCRIPT_NESTING} deep");
            return Err(self.error(at, problem));
        }
        let mut left = self.operand(after)?;
        loop {
            let t = self.peek();
            let Some((power, op)) = infix(t.tok).filter(|(p, _)| *p >= min) else {
                break;
            };
            let Tok::Punct(written) = t.tok else { break };
            match op {
                Infix::Assign(how) => {
                    self.next += 1;
                    let value = self.expr(0, Some(written))?;
                    let kind = ExprKind::Assign(how, Box::new(left), Box::new(value));
                    left = self.grown(t.at, kind)?;
                    // Assignments do not chain to the left
                    // (BehaviorTree.CPP stops after one).
                    break;
                }
                Infix::Choose => {
                    self.next += 1;
                    let then = self.expr(0, Some("?"))?;
                    if !self.eat(":") {
                        let found = self.peek();
                        let problem = format!("expected `:` of `? :`, found {}", shown(found.tok));
                        return Err(self.error(found.at, problem));
                    }
                    let otherwise = self.expr(CHOOSE, Some(":"))?;
                    let kind =
                        ExprKind::Choose(Box::new(left), Box::new(then), Box::new(otherwise));
                    left = self.grown(t.at, kind)?;
                    break;
                }
                Infix::Compare(_) => left = self.chain(left)?,
                Infix::Binary(op) => {
                    self.next += 1;
                    let right = self.expr(power + 1, Some(written))?;
                    let kind = ExprKind::Binary(op, Box::new(left), Box::new(right));
                    left = self.grown(t.at, kind)?;
                }
            }
        }
        self.depth -= 1;
        Ok(left)
    }

    /// Comparisons after `first`, as many as follow one another: each
    /// compares its two neighbours.
    fn chain(&mut self, first: Expr<'s>) -> Result<Expr<'s>, ScriptError> {
        let at = self.peek().at;
        let mut rest = Vec::new();
        while let Some((_, Infix::Compare(cmp))) = infix(self.peek().tok) {
            let t = self.bump();
            let Tok::Punct(written) = t.tok else { break };
            let operand = self.expr(COMPARE + 1, Some(written))?;
            rest.push((cmp, t.at, operand));
        }
        self.grown(at, ExprKind::Chain(Box::new(first), rest))
    }

    /// A literal, a key, a parenthesised expression or a prefix operator
    /// and its operand.
    fn operand(&mut self, after: Option<&str>) -> Result<Expr<'s>, ScriptError> {
        let t = self.bump();
        let kind = match t.tok {
            Tok::Int(n) => ExprKind::Int(n),
            Tok::Real(n) => ExprKind::Real(n),
            Tok::Str(s) => ExprKind::Str(s),
            Tok::Bool(b) => ExprKind::Bool(b),
            Tok::Name(n) => ExprKind::Name(n),
            Tok::Punct("(") => {
                let inner = self.expr(0, Some("("))?;
                if !self.eat(")") {
                    let found = self.peek();
                    let problem = format!("expected `)`, found {}", shown(found.tok));
                    return Err(self.error(found.at, problem));
                }
                return Ok(inner);
            }
            Tok::Punct(p @ ("-" | "!" | "~")) => {
                let op = match p {
                    "-" => Unary::Neg,
                    "!" => Unary::Not,
                    _ => Unary::BitNot,
                };
                let kind = ExprKind::Unary(op, Box::new(self.expr(PREFIX, Some(p))?));
                return self.grown(t.at, kind);
            }
            found => {
                // At the end, the operator left dangling is the place.
                let at = match (after, found) {
                    (Some(_), Tok::End) => self.tokens[self.next.saturating_sub(1)].at,
                    _ => t.at,
                };
                let problem = match (after, found) {
                    (Some(op), Tok::End) => format!("expected an expression after `{op}`"),
                    (Some(op), _) => format!(
                        "expected an expression after `{op}`, found {}",
                        shown(found)
                    ),
                    (None, _) => format!("expected an expression, found {}", shown(found)),
                };
                return Err(self.error(at, problem));
            }
        };
        Ok(Expr::new(t.at, kind))
    }

    /// The expression of `kind`, unless its tree grows taller than
    /// [`MAX_SCRIPT_HEIGHT`]: a chain of operators nests without
    /// parentheses (`1 + 1 + …` is a tree as deep as it is long).
    fn grown(&self, at: usize, kind: ExprKind<'s>) -> Result<Expr<'s>, ScriptError> {
        let e = Expr::new(at, kind);
        if e.height > MAX_SCRIPT_HEIGHT {
            let problem = format!(
                "the expression is more than {MAX_SCRIPT_HEIGHT} operators deep; \
                 split it into statements"
            );
            return Err(self.error(at, problem));
        }
        Ok(e)
    }
}
