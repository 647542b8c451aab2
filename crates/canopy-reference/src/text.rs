//! User text in error messages: escaped and cut short.

/// Most characters of user text an error message shows.
const MAX: usize = 80;

/// `text` with control characters escaped, cut at 80 characters (then an
/// ellipsis and the full length).
pub(crate) fn clip(text: &str) -> String {
    let count = text.chars().count();
    let shown: String = text.chars().take(MAX).collect();
    let escaped = shown.escape_debug();
    if count > MAX {
        format!("{escaped}… ({count} characters)")
    } else {
        escaped.to_string()
    }
}

/// [`clip`]ped, in double quotes.
pub(crate) fn quote(text: &str) -> String {
    let count = text.chars().count();
    if count > MAX {
        let shown: String = text.chars().take(MAX).collect();
        format!("\"{}…\" ({count} characters)", shown.escape_debug())
    } else {
        format!("\"{}\"", text.escape_debug())
    }
}
