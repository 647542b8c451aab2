//! Text from strangers, made safe to show: the one place where canopy
//! decides which characters of user text may reach a terminal, a log, a
//! page or a file as they are. Every crate shows user text — node names,
//! parameter values, keys, paths, other parsers' messages — through these
//! functions, in every output: error messages, printed trees, DOT, the
//! inspector's JSON, XML export.
//!
//! Tree files come from modders and designers; a name holding ESC, OSC or
//! BEL bytes would otherwise recolour a terminal, set its title or forge a
//! log line; a bidirectional override (U+202E) or an isolate (U+2066)
//! would reorder what a terminal or a page shows, so that `Wait` and
//! `tiaW` look alike; a zero-width space, a soft hyphen or a tag
//! character hides in a name, so that `"Wait"` and `"Wa\u{200b}it"` are
//! shown the same and "did you mean" suggests the word the user typed. And
//! a 15 MiB value would become a 15 MB error line.
//!
//! Considered and rejected: escaping only `char::is_control` (the C0 and
//! C1 controls), which is what the standard library's `escape_debug` does
//! for most characters — it leaves every one of the invisible characters
//! above untouched; and escaping everything outside ASCII, which makes
//! every name in another script unreadable.

use std::borrow::Cow;
use std::fmt::Write;

/// The most characters of one piece of user text an error message quotes;
/// longer text is cut there and followed by an ellipsis and its length.
pub const MAX_QUOTED_CHARS: usize = 80;

/// The most characters of a message from other code (a parser, a factory)
/// that an error shows.
const MAX_MESSAGE_CHARS: usize = 200;

/// Whether a character could act on a terminal or hide instead of
/// showing, so that canopy writes it as an escape (`\u{200b}`):
///
/// - control characters: C0, DEL and C1 (ESC, BEL, CR, CSI, OSC …);
/// - bidirectional marks, embeddings, overrides and isolates (U+061C,
///   U+200E, U+200F, U+202A–U+202E, U+2066–U+2069);
/// - line and paragraph separators (U+2028, U+2029);
/// - invisible format characters: the soft hyphen, zero-width space,
///   joiners and non-joiner, word joiner and invisible operators, the
///   byte-order mark, interlinear annotations, the Mongolian vowel
///   separator, and the tag characters (U+E0000–U+E007F);
/// - blank fillers that look like nothing (the Hangul fillers, U+3164,
///   U+FFA0, the Braille blank).
///
/// Variation selectors are left alone: they only pick a glyph's style, and
/// emoji need them.
///
/// ```
/// use canopy_core::text::is_unsafe;
/// assert!(is_unsafe('\u{1b}') && is_unsafe('\u{202e}') && is_unsafe('\u{200b}'));
/// assert!(!is_unsafe('é') && !is_unsafe('守') && !is_unsafe('\u{fe0f}'));
/// ```
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{034f}'
                | '\u{061c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{17b4}'
                | '\u{17b5}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff9}'..='\u{fffb}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e007f}'
        )
}

/// Append `text` to `out` escaped; with `quoted`, double quotes too.
fn escape_into(out: &mut String, text: &str, quoted: bool) {
    for c in text.chars() {
        if is_unsafe(c) || c == '\\' || (quoted && c == '"') {
            push_escape(out, c);
        } else {
            out.push(c);
        }
    }
}

/// `c` in Rust's own notation: `\n`, `\t`, `\\`, `\"`, `\u{1b}`.
fn push_escape(out: &mut String, c: char) {
    match c {
        '\\' | '"' | '\n' | '\r' | '\t' | '\0' => {
            let _ = write!(out, "{}", c.escape_debug());
        }
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// User text as it can be shown on a terminal, in a log or on a page:
/// the characters [`is_unsafe`] names, and backslashes, are written as Rust
/// escapes (`\u{1b}`, `\n`, `\\`, `\u{202e}`); everything else, other
/// scripts and emoji included, is left as it is. Text with nothing to
/// escape is not copied.
///
/// ```
/// use canopy_core::text::escape;
/// assert_eq!(escape("guard"), "guard");
/// assert_eq!(escape("\u{1b}[31mred\u{7}"), r"\u{1b}[31mred\u{7}");
/// assert_eq!(escape("two\nlines"), r"two\nlines");
/// assert_eq!(escape("Wa\u{200b}it"), r"Wa\u{200b}it");
/// ```
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) || c == '\\') {
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
/// use canopy_core::text::quote;
/// assert_eq!(quote("Wiat"), "\"Wiat\"");
/// assert_eq!(quote("say \"hi\"\r"), r#""say \"hi\"\r""#);
/// let long = "a".repeat(1000);
/// assert_eq!(quote(&long), format!("\"{}…\" (1000 characters)", "a".repeat(80)));
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

/// User text shown bare (a name in a path, a tag), escaped like
/// [`escape`] and cut like [`quote`], with an ellipsis and the full
/// length.
///
/// ```
/// use canopy_core::text::bare;
/// assert_eq!(bare("MoveTo"), "MoveTo");
/// assert_eq!(bare(&"x".repeat(90)), format!("{}… (90 characters)", "x".repeat(80)));
/// ```
pub fn bare(text: &str) -> String {
    let (shown, cut) = fit(text, MAX_QUOTED_CHARS, false);
    let mut out = escape(shown).into_owned();
    if let Some(chars) = cut {
        let _ = write!(out, "… ({chars} characters)");
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

/// Text that is already escaped by its writer (another part's message):
/// the characters [`is_unsafe`] names escaped all the same, backslashes left
/// as they are, so that escaping twice changes nothing.
///
/// ```
/// use canopy_core::text::{escape, escape_again};
/// let once = escape("a\u{202e}b\\c").into_owned();
/// assert_eq!(escape_again(&once), once);
/// assert_eq!(escape_again("x\u{7}"), r"x\u{7}");
/// ```
pub fn escape_again(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A message written by other code that may quote the file (a parser's, a
/// factory's): escaped like [`escape`], and cut after a few hundred
/// characters with an ellipsis and its length.
///
/// ```
/// use canopy_core::text::message;
/// assert_eq!(message("expected `,` at \u{1b}"), r"expected `,` at \u{1b}");
/// ```
pub fn message(text: &str) -> String {
    let (shown, cut) = fit(text, MAX_MESSAGE_CHARS, false);
    let mut out = escape(shown).into_owned();
    if let Some(chars) = cut {
        let _ = write!(out, "… ({chars} characters)");
    }
    out
}

/// User text cut like [`quote`] cuts it, unquoted and unescaped, for a
/// caller that escapes the whole line it goes in (names inside node paths).
pub fn shorten(text: &str) -> Cow<'_, str> {
    match fit(text, MAX_QUOTED_CHARS, false) {
        (_, None) => Cow::Borrowed(text),
        (shown, Some(chars)) => Cow::Owned(format!("{shown}…({chars} characters)")),
    }
}

/// A number as messages and printed trees show it: at its shortest exact
/// form, in exponent notation when that is long (`1e308`, not 309 digits)
/// or when its digits would claim a precision it lacks (a whole number
/// past 2⁵³ is a float's rounding of what was written, so
/// 18446744073709551616 shows as `1.8446744073709552e19`, not as the
/// wrong integer 18446744073709552000).
///
/// ```
/// use canopy_core::text::number;
/// assert_eq!(number(0.25), "0.25");
/// assert_eq!(number(2.0), "2");
/// assert_eq!(number(9007199254740992.0), "9007199254740992");
/// assert_eq!(number(18446744073709551616.0), "1.8446744073709552e19");
/// assert_eq!(number(1e308), "1e308");
/// assert_eq!(number(-1.5e-300), "-1.5e-300");
/// ```
pub fn number(x: f64) -> String {
    let plain = x.to_string();
    let inexact = x.fract() == 0.0 && x.abs() > 9007199254740992.0;
    if plain.len() <= 24 && !inexact {
        plain
    } else {
        format!("{x:e}")
    }
}

/// A list of user words as messages show them: each [`quote`]d, separated
/// by `separator`; after `max` words, the count of the rest.
///
/// ```
/// use canopy_core::text::quoted_list;
/// assert_eq!(quoted_list(["a", "b", "c"], 3, 2, ", "), r#""a", "b", … (3 in all)"#);
/// ```
pub fn quoted_list<'w>(
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

/// Candidates [`suggest`] compares in full, at most: a file can define a
/// hundred thousand subtrees, and one error must stay cheap.
const MAX_COMPARED: usize = 10_000;

/// The candidate closest to `word`, when one is close enough to be what
/// was meant: one edit for short words, more for longer ones, ignoring
/// case. A word with an invisible character in it is compared without it,
/// so the suggestion shows what it hid.
///
/// ```
/// use canopy_core::text::suggest;
/// let names = ["Sequence", "Fallback", "Repeat"];
/// assert_eq!(suggest("Sequense", names), Some("Sequence"));
/// assert_eq!(suggest("Zebra", names), None);
/// ```
pub fn suggest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    // Names are short; a long word is no typo and comparing it is slow.
    if word.len() > 64 {
        return None;
    }
    let word: String = word.chars().filter(|&c| !is_unsafe(c)).collect();
    let word = word.to_lowercase();
    let chars = word.chars().count();
    let limit = |c: &str| (word.len().min(c.len()) / 4).max(1);
    candidates
        .into_iter()
        // Each edit changes the length by at most one: skip what cannot be close.
        .filter(|c| c.len() <= 64 && c.chars().count().abs_diff(chars) <= limit(c))
        .take(MAX_COMPARED)
        .map(|c| (strsim::damerau_levenshtein(&word, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= limit(c))
        .min()
        .map(|(_, c)| c)
}

/// ` (did you mean "X"?)` for a suggestion, nothing without one.
///
/// ```
/// use canopy_core::text::did_you_mean;
/// assert_eq!(did_you_mean(Some("Wait")), " (did you mean \"Wait\"?)");
/// assert_eq!(did_you_mean(None), "");
/// ```
pub fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean {}?)", quote(s)))
}

/// Text for an XML attribute or element: `&`, `<`, `>`, quotes escaped as
/// entities, and the characters [`is_unsafe`] names (those XML allows) as
/// numeric character references, so a file shows no invisible or
/// reordering character in an editor yet reads back as the same text.
/// Characters XML 1.0 cannot hold at all (most C0 controls) are written
/// as references too; a reader that refuses them says so.
///
/// ```
/// use canopy_core::text::xml;
/// assert_eq!(xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
/// assert_eq!(xml("x\u{202e}y\n"), "x&#x202e;y&#xa;");
/// ```
pub fn xml(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| is_unsafe(c) || matches!(c, '&' | '<' | '>' | '"' | '\''))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if is_unsafe(c) => {
                let _ = write!(out, "&#x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text already made safe to show (by [`escape`], say) as the content of
/// a Graphviz DOT string: its backslashes and double quotes escaped for
/// DOT, so a name can neither end the string nor start a DOT escape.
/// Every DOT writer quotes its labels with it.
///
/// ```
/// use canopy_core::text::{dot, escape};
/// assert_eq!(dot(r#"say "hi""#), r#"say \"hi\""#);
/// assert_eq!(dot(&escape("a\u{202e}b")), r"a\\u{202e}b");
/// ```
pub fn dot(text: &str) -> Cow<'_, str> {
    if !text.contains(['\\', '"']) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if matches!(c, '\\' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One character of every class [`is_unsafe`] names.
    pub(crate) const UNSAFE_SAMPLES: [char; 16] = [
        '\u{0}',
        '\u{1b}',
        '\u{7f}',
        '\u{9b}',
        '\u{202e}',
        '\u{2066}',
        '\u{200e}',
        '\u{2028}',
        '\u{200b}',
        '\u{2060}',
        '\u{ad}',
        '\u{feff}',
        '\u{e0041}',
        '\u{180e}',
        '\u{3164}',
        '\u{fff9}',
    ];

    #[test]
    fn every_unsafe_character_is_escaped_in_every_form() {
        for c in (0u32..0x20)
            .chain(0x7f..0xa0)
            .filter_map(char::from_u32)
            .chain(UNSAFE_SAMPLES)
        {
            let text = format!("a{c}b");
            for shown in [
                escape(&text).into_owned(),
                quote(&text),
                bare(&text),
                escape_again(&text).into_owned(),
                message(&text),
            ] {
                assert!(!shown.chars().any(is_unsafe), "{c:?} → {shown:?}");
                assert!(shown.contains(&format!("{:x}", c as u32)) || shown.contains('\\'));
            }
            assert!(!xml(&text).chars().any(is_unsafe), "{c:?}");
        }
    }

    #[test]
    fn other_scripts_and_emoji_are_left_alone() {
        for text in ["Wächter", "守卫", "стражник", "🛡️ guard", "é", "حارس"] {
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
    }

    #[test]
    fn a_hidden_character_does_not_hide_the_suggestion() {
        let names = ["Wait", "Sequence"];
        assert_eq!(suggest("Wa\u{200b}it", names), Some("Wait"));
        assert_eq!(
            format!(
                "unknown node type {}{}",
                quote("Wa\u{200b}it"),
                did_you_mean(Some("Wait"))
            ),
            r#"unknown node type "Wa\u{200b}it" (did you mean "Wait"?)"#
        );
    }

    #[test]
    fn xml_round_trips_through_references() {
        assert_eq!(xml("plain"), "plain");
        assert_eq!(xml("\u{200b}"), "&#x200b;");
    }
}
