//! Splitting a script into tokens, each with its byte offset for messages.

use super::ScriptError;

/// One token of a script.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Tok<'s> {
    /// A whole-number literal: decimal digits or `0x` and hex digits
    /// (BehaviorTree.CPP's `int64_t`; one too large for it reads as 0,
    /// as BehaviorTree.CPP reads it).
    Int(f64),
    /// A number literal with a fraction or an exponent (finite).
    Real(f64),
    /// A string literal's contents, without its quotes.
    Str(&'s str),
    /// A key or enum name.
    Name(&'s str),
    /// `true` or `false`.
    Bool(bool),
    /// An operator or punctuation, as written.
    Punct(&'static str),
    /// The end of the script.
    End,
}

/// A token and where it starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'s> {
    pub(crate) tok: Tok<'s>,
    pub(crate) at: usize,
}

/// Operators, longest first so that `:=` is not read as `:` then `=`.
const PUNCT: [&str; 30] = [
    ":=", "+=", "-=", "*=", "/=", "==", "!=", "<=", ">=", "&&", "||", "..", "=", "+", "-", "*",
    "/", "<", ">", "!", "&", "|", "^", "~", "?", ":", "(", ")", ";", ",",
];

/// The tokens of `source`, ending with [`Tok::End`].
pub(crate) fn tokens(source: &str) -> Result<Vec<Token<'_>>, ScriptError> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let at = i;
        let tok = if c.is_ascii_digit() {
            let (tok, end) = number(source, i)?;
            if bytes
                .get(end)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'@')
            {
                let problem = "a number cannot be followed by a letter (leave a space)";
                return Err(ScriptError::new(source, end, problem));
            }
            i = end;
            tok
        } else if c == b'\'' || c == b'"' {
            let close = source[i + 1..]
                .find(c as char)
                .ok_or_else(|| ScriptError::new(source, at, "this string is never closed"))?;
            let text = &source[i + 1..i + 1 + close];
            i += close + 2;
            Tok::Str(text)
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'@' {
            // `@` names the root's key: once, and before a name.
            let named = bytes
                .get(i + 1)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
            if c == b'@' && !named {
                let problem = "`@` is followed by a key name (the root's key)";
                return Err(ScriptError::new(source, at, problem));
            }
            let end = source[i + 1..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .map_or(source.len(), |n| i + 1 + n);
            let word = &source[i..end];
            i = end;
            match word {
                "true" => Tok::Bool(true),
                "false" => Tok::Bool(false),
                _ => Tok::Name(word),
            }
        } else if let Some(p) = PUNCT.iter().find(|p| source[i..].starts_with(*p)) {
            i += p.len();
            Tok::Punct(p)
        } else {
            let ch = source[i..].chars().next().unwrap_or('?');
            let problem = format!(
                "unexpected character {}",
                crate::util::text::quote(&ch.to_string())
            );
            return Err(ScriptError::new(source, at, problem));
        };
        out.push(Token { tok, at });
    }
    out.push(Token {
        tok: Tok::End,
        at: source.len(),
    });
    Ok(out)
}

/// The number starting at byte `start`, and where it ends: decimal digits
/// with an optional fraction and exponent, or `0x` and hex digits.
fn number(source: &str, start: usize) -> Result<(Tok<'_>, usize), ScriptError> {
    let bytes = source.as_bytes();
    let digits = |mut i: usize, hex: bool| {
        while i < bytes.len() && (bytes[i].is_ascii_digit() || hex && bytes[i].is_ascii_hexdigit())
        {
            i += 1;
        }
        i
    };
    let rest = &source[start..];
    if rest.starts_with("0x") || rest.starts_with("0X") {
        let end = digits(start + 2, true);
        if end == start + 2 {
            let problem = "`0x` needs hex digits after it";
            return Err(ScriptError::new(source, start, problem));
        }
        // Too large for an `int64_t`: BehaviorTree.CPP's reading leaves 0.
        let value = i64::from_str_radix(&source[start + 2..end], 16).unwrap_or(0);
        return Ok((Tok::Int(value as f64), end));
    }
    let mut end = digits(start, false);
    let mut real = false;
    // `1..2` is 1 joined with 2: a fraction needs a digit after its dot.
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1, false);
        real = true;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        if bytes.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1 + sign, false);
            real = true;
        }
    }
    let text = &source[start..end];
    if !real {
        return Ok((Tok::Int(text.parse::<i64>().unwrap_or(0) as f64), end));
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok((Tok::Real(v), end)),
        _ => {
            let problem = format!(
                "number {} is not a finite number",
                crate::util::text::quote(text)
            );
            Err(ScriptError::new(source, start, problem))
        }
    }
}
