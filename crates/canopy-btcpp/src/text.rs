//! Quoting user text in error messages: escaped, and cut to a readable
//! length, because a file from a stranger may hold control characters or a
//! megabyte-long name.

/// Most characters of one piece of user text an error message quotes.
pub(crate) const QUOTE_CHARS: usize = 80;

/// `text` with control characters (and, when `quotes`, double quotes and
/// backslashes) escaped, cut after `max` characters; whether it was cut,
/// and its length in characters.
fn escaped(text: &str, max: usize, quotes: bool) -> (String, bool, usize) {
    let total = text.chars().count();
    let mut out = String::with_capacity(text.len().min(max.saturating_mul(4)));
    for c in text.chars().take(max) {
        match c {
            '"' if quotes => out.push_str("\\\""),
            '\\' if quotes => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    (out, total > max, total)
}

/// `text` in double quotes, control characters, quotes and backslashes
/// escaped, cut after [`QUOTE_CHARS`] characters with an ellipsis and the
/// full length.
pub(crate) fn quote(text: &str) -> String {
    match escaped(text, QUOTE_CHARS, true) {
        (s, false, _) => format!("\"{s}\""),
        (s, true, total) => format!("\"{s}…\" ({total} characters)"),
    }
}

/// A name from the file shown bare (a tag), escaped and cut like [`quote`].
pub(crate) fn bare(text: &str) -> String {
    match escaped(text, QUOTE_CHARS, false) {
        (s, false, _) => s,
        (s, true, total) => format!("{s}… ({total} characters)"),
    }
}

/// A message that may quote user text (a parser's), safe to print: control
/// characters escaped, cut after two quotes' worth of characters.
pub(crate) fn sanitize(message: &str) -> String {
    match escaped(message, 2 * QUOTE_CHARS, false) {
        (s, false, _) => s,
        (s, true, total) => format!("{s}… ({total} characters)"),
    }
}

/// Another component's message with its control characters escaped (it
/// may quote the file; its length is that component's business).
pub(crate) fn escape_controls(message: &str) -> String {
    escaped(message, usize::MAX, false).0
}

/// ` (did you mean "X"?)` when one of `candidates` is a near miss of `word`.
pub(crate) fn did_you_mean<'c>(word: &str, candidates: impl Iterator<Item = &'c str>) -> String {
    // Names are short; comparing a long word is slow and never a typo.
    if word.len() > 64 {
        return String::new();
    }
    let lower = word.to_lowercase();
    candidates
        .filter(|c| c.len() <= 64)
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (word.len().min(c.len()) / 4).max(1))
        .min()
        .map(|(_, c)| format!(" (did you mean {}?)", quote(c)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_escape_and_cut() {
        assert_eq!(quote("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u{1}\"");
        let long = "x".repeat(100);
        assert_eq!(
            quote(&long),
            format!("\"{}…\" (100 characters)", "x".repeat(80))
        );
    }

    #[test]
    fn near_misses() {
        let names = ["Sequence", "Fallback", "Repeat"];
        assert_eq!(
            did_you_mean("Sequense", names.iter().copied()),
            " (did you mean \"Sequence\"?)"
        );
        assert_eq!(did_you_mean("Zebra", names.iter().copied()), "");
    }
}
