//! User text in messages: tree names and trace lines come from files, so
//! anything quoted is cut to a readable length and has its control
//! characters escaped.

/// Most characters of user text an error message quotes.
const MAX_QUOTED: usize = 80;

/// `text` in double quotes, control characters escaped, cut to 80
/// characters with an ellipsis and the full length when longer.
pub(crate) fn quote(text: &str) -> String {
    let length = text.chars().count();
    let mut out = String::from("\"");
    for c in text.chars().take(MAX_QUOTED) {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out.push('"');
    if length > MAX_QUOTED {
        out.push_str(&format!("… ({length} characters)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn short_text_is_quoted_whole_with_controls_escaped() {
        assert_eq!(
            quote("walk \"north\"\n\u{1b}"),
            r#""walk \"north\"\n\u{1b}""#
        );
    }

    #[test]
    fn long_text_is_cut_at_80_characters() {
        let long = "é".repeat(200);
        assert_eq!(
            quote(&long),
            format!("\"{}\"… (200 characters)", "é".repeat(80))
        );
    }
}
