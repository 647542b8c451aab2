//! Text from files, made safe to show: every name, value and key a tree
//! file supplies goes through [`escape`] before it reaches a terminal or a
//! log, and error messages [`quote`] it at a bounded length.
//!
//! Tree files come from modders and designers; a name holding ESC, OSC or
//! BEL bytes would otherwise recolour a terminal, set its title or forge a
//! log line, and a 15 MiB value would become a 15 MB error line.

use std::borrow::Cow;
use std::fmt::Write;

/// The most characters of one piece of user text an error message quotes;
/// longer text is cut there and followed by an ellipsis and its length.
pub const MAX_QUOTED_CHARS: usize = 80;

/// Whether a character could act on a terminal or hide text instead of
/// showing: control characters (C0, DEL and C1: ESC, BEL, CR, CSI, OSC …),
/// bidirectional overrides and isolates, line and paragraph separators, and
/// the invisible byte-order mark.
fn must_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// Append `text` to `out` escaped; with `quoted`, double quotes too.
fn escape_into(out: &mut String, text: &str, quoted: bool) {
    for c in text.chars() {
        if must_escape(c) || c == '\\' || (quoted && c == '"') {
            // `\n`, `\t`, `\\`, `\"`, `\u{1b}`: Rust's own notation.
            let _ = write!(out, "{}", c.escape_debug());
        } else {
            out.push(c);
        }
    }
}

/// User text as it can be shown on a terminal or written to a log: control
/// characters, bidirectional controls and backslashes are written as Rust
/// escapes (`\u{1b}`, `\n`, `\\`); everything else, other scripts and emoji
/// included, is left as it is. Text with nothing to escape is not copied.
///
/// ```
/// assert_eq!(canopy_data::escape("guard"), "guard");
/// assert_eq!(canopy_data::escape("\u{1b}[31mred\u{7}"), r"\u{1b}[31mred\u{7}");
/// assert_eq!(canopy_data::escape("two\nlines"), r"two\nlines");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| must_escape(c) || c == '\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    escape_into(&mut out, text, false);
    Cow::Owned(out)
}

/// User text as an error message quotes it: in double quotes, escaped like
/// [`escape`] (double quotes included), and cut once the escaped text
/// would pass [`MAX_QUOTED_CHARS`] characters, with an ellipsis and the
/// full length.
///
/// ```
/// assert_eq!(canopy_data::quote("Wiat"), "\"Wiat\"");
/// assert_eq!(canopy_data::quote("say \"hi\"\r"), r#""say \"hi\"\r""#);
/// let long = "a".repeat(1000);
/// assert_eq!(canopy_data::quote(&long),
///     format!("\"{}…\" (1000 characters)", "a".repeat(80)));
/// ```
pub fn quote(text: &str) -> String {
    let (shown, cut) = fit(text, MAX_QUOTED_CHARS, true);
    let mut out = String::with_capacity(shown.len() + 24);
    out.push('"');
    escape_into(&mut out, shown, true);
    if let Some(chars) = cut {
        let _ = write!(out, "…\" ({chars} characters)");
    } else {
        out.push('"');
    }
    out
}

/// The longest start of `text` whose escaped form (quoted or not) fits in
/// `max` characters, and the length of `text` in characters when that is
/// not all of it. Cuts fall between characters, never inside an escape.
fn fit(text: &str, max: usize, quoted: bool) -> (&str, Option<usize>) {
    let mut width = 0;
    let mut buffer = String::new();
    for (at, c) in text.char_indices() {
        buffer.clear();
        escape_into(&mut buffer, c.encode_utf8(&mut [0; 4]), quoted);
        width += buffer.chars().count();
        if width > max {
            return (&text[..at], Some(text.chars().count()));
        }
    }
    (text, None)
}

/// Text that is already escaped by its writer (another loader's message):
/// control characters escaped all the same, backslashes left as they are so
/// that escaping twice changes nothing.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(must_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if must_escape(c) {
            let _ = write!(out, "{}", c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The most characters of a message from other code (a parser, a factory)
/// that an error shows.
const MAX_MESSAGE_CHARS: usize = 200;

/// A message written by other code that may quote the file (a parser's, a
/// factory's): escaped like [`escape`], and cut after a few hundred
/// characters with an ellipsis and its length.
pub(crate) fn message_text(message: &str) -> String {
    let (shown, cut) = fit(message, MAX_MESSAGE_CHARS, false);
    let mut out = escape(shown).into_owned();
    if let Some(chars) = cut {
        let _ = write!(out, "… ({chars} characters)");
    }
    out
}

/// User text cut like [`quote`] cuts it, unquoted and unescaped (callers
/// escape the whole line it goes in): for names inside node paths.
pub(crate) fn shorten(text: &str) -> Cow<'_, str> {
    match fit(text, MAX_QUOTED_CHARS, false) {
        (_, None) => Cow::Borrowed(text),
        (shown, Some(chars)) => Cow::Owned(format!("{shown}…({chars} characters)")),
    }
}

/// A number as messages and printed trees show it: at its shortest exact
/// form, in exponent notation when that is long (`1e308`, not 309 digits).
///
/// ```
/// assert_eq!(canopy_data::number(0.25), "0.25");
/// assert_eq!(canopy_data::number(2.0), "2");
/// assert_eq!(canopy_data::number(1e308), "1e308");
/// assert_eq!(canopy_data::number(-1.5e-300), "-1.5e-300");
/// ```
pub fn number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 24 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// A list of user words as messages show them: each quoted, separated by
/// `separator`; after `max` words, the count of the rest.
pub(crate) fn quoted_list<'w>(
    words: impl IntoIterator<Item = &'w str>,
    total: usize,
    max: usize,
    separator: &str,
) -> String {
    let mut out = String::new();
    for (i, word) in words.into_iter().take(max).enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        out.push_str(&quote(word));
    }
    if total > max {
        let _ = write!(out, "{separator}… ({total} in all)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_is_escaped() {
        for c in (0u32..0x20).chain(0x7f..0xa0).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            let shown = escape(&text);
            assert!(shown.chars().all(|s| !s.is_control()), "{c:?} → {shown:?}");
            assert!(quote(&text).chars().all(|s| !s.is_control()));
        }
    }

    #[test]
    fn bidirectional_controls_are_escaped() {
        assert_eq!(escape("a\u{202e}b\u{2066}"), r"a\u{202e}b\u{2066}");
        assert_eq!(escape("\u{feff}x"), r"\u{feff}x");
    }

    #[test]
    fn other_scripts_and_emoji_are_left_alone() {
        for text in ["Wächter", "守卫", "стражник", "🛡️ guard", "é"] {
            assert!(matches!(escape(text), Cow::Borrowed(_)), "{text}");
            assert_eq!(quote(text), format!("\"{text}\""));
        }
    }

    #[test]
    fn backslashes_keep_escapes_unambiguous() {
        assert_eq!(escape(r"\u{1b}"), r"\\u{1b}");
        assert_eq!(quote(r#"a\"b"#), r#""a\\\"b""#);
    }

    #[test]
    fn quoting_cuts_by_characters_not_bytes() {
        let text = "é".repeat(MAX_QUOTED_CHARS);
        assert_eq!(quote(&text), format!("\"{text}\""));
        let longer = "é".repeat(MAX_QUOTED_CHARS + 1);
        assert_eq!(
            quote(&longer),
            format!("\"{text}…\" ({} characters)", MAX_QUOTED_CHARS + 1)
        );
        assert_eq!(
            shorten(&longer),
            format!("{text}…({} characters)", MAX_QUOTED_CHARS + 1)
        );
    }

    #[test]
    fn quoting_cuts_by_escaped_width_between_escapes() {
        // 80 ESC characters escape to 480: 13 whole escapes fit in 80.
        let text = "\u{1b}".repeat(80);
        assert_eq!(
            quote(&text),
            format!("\"{}…\" (80 characters)", r"\u{1b}".repeat(13))
        );
        assert_eq!(
            shorten(&text),
            format!("{}…(80 characters)", "\u{1b}".repeat(13))
        );
    }

    #[test]
    fn lists_stop_after_max_words() {
        let words = ["a", "b", "c", "d"];
        assert_eq!(quoted_list(words, 4, 4, ", "), r#""a", "b", "c", "d""#);
        assert_eq!(quoted_list(words, 4, 2, ", "), r#""a", "b", … (4 in all)"#);
    }
}
