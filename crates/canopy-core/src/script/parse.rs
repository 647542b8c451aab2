//! Tokens to a syntax tree, by precedence climbing, nested at most
//! [`MAX_SCRIPT_NESTING`](super::MAX_SCRIPT_NESTING) deep so that a hostile script
//! cannot overflow the stack.

use super::lex::{Tok, Token};
use super::{MAX_SCRIPT_HEIGHT, MAX_SCRIPT_NESTING, ScriptError};

/// An operator of one operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Unary {
    Neg,
    Not,
    BitNot,
}

/// An operator of two operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Binary {
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
    BitAnd,
    BitOr,
    BitXor,
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

impl<'s> Expr<'s> {
    fn new(at: usize, kind: ExprKind<'s>) -> Expr<'s> {
        let below = match &kind {
            ExprKind::Unary(_, e) => e.height,
            ExprKind::Binary(_, a, b) => a.height.max(b.height),
            ExprKind::Choose(a, b, c) => a.height.max(b.height).max(c.height),
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

#[derive(Debug)]
pub(crate) enum ExprKind<'s> {
    Num(f64),
    Str(&'s str),
    Bool(bool),
    Name(&'s str),
    Unary(Unary, Box<Expr<'s>>),
    Binary(Binary, Box<Expr<'s>>, Box<Expr<'s>>),
    Choose(Box<Expr<'s>>, Box<Expr<'s>>, Box<Expr<'s>>),
}

/// How a statement assigns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Assign {
    /// `:=`: the key, made if nothing made it.
    Create,
    /// `=`: a key something made.
    Set,
    /// `+=`, `-=`, `*=`, `/=`.
    Update(Binary),
}

/// One statement: an assignment or an expression.
#[derive(Debug)]
pub(crate) enum Statement<'s> {
    Assign {
        key: &'s str,
        at: usize,
        how: Assign,
        value: Expr<'s>,
    },
    Expr(Expr<'s>),
}

/// The statements of a script, from its tokens.
pub(crate) fn statements<'s>(
    source: &'s str,
    tokens: &[Token<'s>],
) -> Result<Vec<Statement<'s>>, ScriptError> {
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
        out.push(p.statement()?);
        let t = p.peek();
        if t.tok != Tok::End && !p.eat(";") {
            let problem = format!("expected `;` or the end, found {}", shown(t.tok));
            return Err(ScriptError::new(source, t.at, problem));
        }
    }
    if out.is_empty() {
        return Err(ScriptError::new(source, 0, "the script is empty"));
    }
    Ok(out)
}

/// A token as messages name it.
fn shown(tok: Tok) -> String {
    match tok {
        Tok::Num(n) => format!("the number {}", crate::util::text::number(n)),
        Tok::Str(s) => format!("the string {}", crate::util::text::quote(s)),
        Tok::Name(n) => format!("`{}`", crate::util::text::shorten(n)),
        Tok::Bool(b) => format!("`{b}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::End => "the end".to_string(),
    }
}

/// Binding power of a binary operator (higher binds tighter) and the operator.
fn binary(tok: Tok) -> Option<(u8, Binary)> {
    let Tok::Punct(p) = tok else { return None };
    Some(match p {
        "||" => (2, Binary::Or),
        "&&" => (3, Binary::And),
        "|" => (4, Binary::BitOr),
        "^" => (5, Binary::BitXor),
        "&" => (6, Binary::BitAnd),
        "==" => (7, Binary::Eq),
        "!=" => (7, Binary::Ne),
        "<" => (8, Binary::Lt),
        "<=" => (8, Binary::Le),
        ">" => (8, Binary::Gt),
        ">=" => (8, Binary::Ge),
        "+" => (9, Binary::Add),
        "-" => (9, Binary::Sub),
        ".." => (9, Binary::Join),
        "*" => (10, Binary::Mul),
        "/" => (10, Binary::Div),
        _ => return None,
    })
}

/// The power of `?:`, the loosest operator.
const CHOOSE: u8 = 1;
/// The power of a prefix operator's operand.
const PREFIX: u8 = 11;

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

    fn statement(&mut self) -> Result<Statement<'s>, ScriptError> {
        let key = self.peek();
        let how = match (key.tok, self.tokens.get(self.next + 1).map(|t| t.tok)) {
            (Tok::Name(_), Some(Tok::Punct(op))) => match op {
                ":=" => Some(Assign::Create),
                "=" => Some(Assign::Set),
                "+=" => Some(Assign::Update(Binary::Add)),
                "-=" => Some(Assign::Update(Binary::Sub)),
                "*=" => Some(Assign::Update(Binary::Mul)),
                "/=" => Some(Assign::Update(Binary::Div)),
                _ => None,
            },
            _ => None,
        };
        let (Some(how), Tok::Name(name)) = (how, key.tok) else {
            return Ok(Statement::Expr(self.expr(0, None)?));
        };
        self.next += 1;
        let op = self.bump();
        let Tok::Punct(op) = op.tok else {
            unreachable!("the operator was matched above")
        };
        let value = self.expr(0, Some(op))?;
        Ok(Statement::Assign {
            key: name,
            at: key.at,
            how,
            value,
        })
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
            if t.tok == Tok::Punct("?") && min <= CHOOSE {
                self.next += 1;
                let then = self.expr(0, Some("?"))?;
                if !self.eat(":") {
                    let found = self.peek();
                    let problem = format!("expected `:` of `? :`, found {}", shown(found.tok));
                    return Err(self.error(found.at, problem));
                }
                let otherwise = self.expr(CHOOSE, Some(":"))?;
                let kind = ExprKind::Choose(Box::new(left), Box::new(then), Box::new(otherwise));
                left = self.grown(t.at, kind)?;
                continue;
            }
            let Some((power, op)) = binary(t.tok).filter(|(p, _)| *p >= min.max(CHOOSE + 1)) else {
                break;
            };
            let Tok::Punct(written) = t.tok else { break };
            self.next += 1;
            let right = self.expr(power + 1, Some(written))?;
            let kind = ExprKind::Binary(op, Box::new(left), Box::new(right));
            left = self.grown(t.at, kind)?;
        }
        self.depth -= 1;
        Ok(left)
    }

    /// A literal, a key, a parenthesised expression or a prefix operator
    /// and its operand.
    fn operand(&mut self, after: Option<&str>) -> Result<Expr<'s>, ScriptError> {
        let t = self.bump();
        let kind = match t.tok {
            Tok::Num(n) => ExprKind::Num(n),
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
