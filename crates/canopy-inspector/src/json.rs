//! JSON as the inspector writes it: exact, and safe to show. serde_json
//! escapes only what JSON requires (C0 controls, quotes, backslashes), so
//! a name holding U+202E, C1 controls or zero-width characters would reach
//! a terminal (`canopy run --trace | less`) or a log as it is and reorder
//! or hide what is shown. Here every character `canopy_core::text` calls
//! unsafe is written as a `\uXXXX` escape as well: the JSON still decodes
//! to the same text, and its bytes show nothing a reader cannot see.
//!
//! What the page shows goes further ([`for_page`]): its strings are the
//! text as [`canopy_core::text::escape`] shows it, the same `\u{202e}` a
//! terminal shows, because the page would otherwise decode the JSON and
//! let a browser's bidirectional algorithm reorder a node's label.

use std::io::{self, Write};

use canopy_core::text::is_unsafe;
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};

/// serde_json's compact form, with the unsafe characters escaped.
struct Escaping;

impl Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if !is_unsafe(c) {
                continue;
            }
            writer.write_all(&fragment.as_bytes()[start..at])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = at + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        char_escape: serde_json::ser::CharEscape,
    ) -> io::Result<()> {
        CompactFormatter.write_char_escape(writer, char_escape)
    }
}

/// `value` as one line of escaped JSON, written to `out`.
pub(crate) fn to_writer<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut serializer = Serializer::with_formatter(out, Escaping);
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// `value` as a string of escaped JSON.
pub(crate) fn to_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to memory fails only if `value` cannot be serialized, which
    // the inspector's own types always can.
    let _ = to_writer(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

/// `value` as the page receives it: every string escaped as
/// [`canopy_core::text::escape`] shows it, then written as [`to_string`].
pub(crate) fn for_page<T: Serialize + ?Sized>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(mut tree) => {
            shown(&mut tree);
            to_string(&tree)
        }
        Err(_) => String::new(),
    }
}

/// Escape every string of `value`, keys included, in place.
fn shown(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(escaped) = canopy_core::text::escape(text) {
                *text = escaped;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(shown),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut item) in entries {
                shown(&mut item);
                map.insert(canopy_core::text::escape(&key).into_owned(), item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_characters_are_escaped_and_the_text_decodes_the_same() {
        let name = "guard\u{202e}\u{85}\u{200b}\u{e0041}\u{1b}é";
        let json = to_string(&serde_json::json!({ "name": name }));
        assert_eq!(
            json,
            r#"{"name":"guard\u202e\u0085\u200b\udb40\udc41\u001bé"}"#
        );
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["name"], name);
    }

    #[test]
    fn the_page_gets_the_text_as_a_terminal_shows_it() {
        let json = for_page(&serde_json::json!({ "name": "a\u{202e}b", "n": 3 }));
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["name"], r"a\u{202e}b");
        assert_eq!(back["n"], 3);
    }
}
