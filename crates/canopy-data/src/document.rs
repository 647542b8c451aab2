//! The one in-memory description every tree file becomes before the
//! registry builds it: JSON and RON text read by this crate, BehaviorTree.CPP
//! XML lowered by its own crate, a document built by a program. A node is
//! an object whose fields are its `type`, its `name`, its `children` and
//! its parameters; a file is an object with a `tree` and `subtrees`
//! ([`TreeSource::Document`](crate::TreeSource::Document)).
//!
//! **Positions** come free: strings without escapes borrow from the
//! file's text, so where a node's first field or a parameter's name sits
//! in the text is where its string points. An error about a node says its
//! line and column from that, in any syntax whose reader borrows its
//! strings ([`Source`]); nothing is stored per node to know it.
//!
//! **Compact**, because tree files are large and node objects small: a
//! general JSON value spends hundreds of bytes on a one-field object (a
//! search tree per object, a heap string per key), which made a 16 MiB file
//! take 27 times its size before a single node was built. Here an object is
//! one boxed slice of fields and a value 24 bytes.
//!
//! Read **strictly**: a field given twice is an error, where serde_json and
//! RON would keep the last one; numbers must be finite.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt::{self, Write};
use std::hash::{BuildHasher, RandomState};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use canopy_core::text::{number, quote};

use crate::error::Position;

/// One value of a tree's description.
///
/// ```
/// use canopy_data::document::{Key, Value};
/// let text = r#"{"type": "Wait", "ticks": 3}"#;
/// let node = Value::Object(vec![
///     (Key::Str(&text[2..6]), Value::Str(&text[10..14])),
///     (Key::Str(&text[18..23]), Value::Int(3)),
/// ].into());
/// assert_eq!(node.get("type").and_then(Value::as_str), Some("Wait"));
/// ```
#[derive(Debug)]
pub enum Value<'a> {
    /// `null` (RON: `()` or `None`).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number that fits in `i64`.
    Int(i64),
    /// A whole number above `i64::MAX`.
    UInt(u64),
    /// Any other finite number.
    Float(f64),
    /// A string borrowed from a source's text (one without escapes).
    Str(&'a str),
    /// A string that is in no source's text as it is (unescaped, or made).
    Owned(Box<str>),
    /// A list.
    List(Box<[Value<'a>]>),
    /// Fields in order; keys are unique.
    Object(Box<[Field<'a>]>),
}

/// An object's field.
pub type Field<'a> = (Key<'a>, Value<'a>);

/// A field name: borrowed from a source's text unless it held escapes or
/// was made.
#[derive(Debug)]
pub enum Key<'a> {
    /// Borrowed from a source's text.
    Str(&'a str),
    /// In no source's text as it is.
    Owned(Box<str>),
}

impl Key<'_> {
    /// The name.
    pub fn as_str(&self) -> &str {
        match self {
            Key::Str(s) => s,
            Key::Owned(s) => s,
        }
    }
}

/// A text a description was read from, for positions in errors: the name
/// errors give it and the text its borrowed strings point into.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The file (or stream) name.
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

impl<'a> Source<'a> {
    /// Where `part`, a string borrowed from this source's text, starts in
    /// it; `None` for a string from elsewhere. Safe address arithmetic: a
    /// borrowed string's address lies within the text it came from.
    pub fn position_of(&self, part: &str) -> Option<Position> {
        let start = self.text.as_ptr() as usize;
        let at = (part.as_ptr() as usize).checked_sub(start)?;
        (at + part.len() <= self.text.len()).then(|| Position::of(self.text, at))
    }
}

/// Where a value starts among `sources`: the source's index and the
/// position of the first of its strings that borrows from one (an object:
/// its first field's name, or that field's string value). `None` for a
/// value that holds no borrowed string at its top.
pub(crate) fn position(value: &Value, sources: &[Source]) -> Option<(usize, Position)> {
    let first = match value {
        Value::Str(s) => Some(*s),
        Value::Object(fields) => fields.iter().find_map(|(k, v)| match (k, v) {
            (Key::Str(k), _) => Some(*k),
            (_, Value::Str(v)) => Some(*v),
            _ => None,
        }),
        _ => None,
    }?;
    sources
        .iter()
        .enumerate()
        .find_map(|(i, source)| source.position_of(first).map(|p| (i, p)))
}

impl<'a> Value<'a> {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            Value::Owned(s) => Some(s),
            _ => None,
        }
    }

    /// The number as an `f64`, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(n) => Some(n as f64),
            Value::UInt(n) => Some(n as f64),
            Value::Float(x) => Some(x),
            _ => None,
        }
    }

    /// The fields, if this is an object.
    pub fn as_object(&self) -> Option<&[Field<'a>]> {
        match self {
            Value::Object(fields) => Some(fields),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_list(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// The field named `key`, if this is an object that has one.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        field(self.as_object()?, key)
    }
}

/// A JSON value as a document, strings borrowed from it, or `None` when
/// brackets nest `limit` deep or deeper (the parsers' own rule: JSON text
/// may nest 127 brackets, not 128).
pub(crate) fn from_json(json: &serde_json::Value, limit: usize) -> Option<Value<'_>> {
    use serde_json::Value as Json;
    Some(match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            // serde_json numbers are finite.
            _ => Value::Float(n.as_f64()?),
        },
        Json::String(s) => Value::Str(s),
        Json::Array(items) if limit > 1 => Value::List(
            items
                .iter()
                .map(|i| from_json(i, limit - 1))
                .collect::<Option<_>>()?,
        ),
        Json::Object(fields) if limit > 1 => Value::Object(
            fields
                .iter()
                .map(|(k, v)| Some((Key::Str(k), from_json(v, limit - 1)?)))
                .collect::<Option<_>>()?,
        ),
        Json::Array(_) | Json::Object(_) => return None,
    })
}

/// A JSON value as a document that owns its strings, for a loader that
/// lowers another syntax and holds values it made as JSON (parameters
/// resolved for a scope). It checks no nesting: such a loader counts the
/// brackets it writes itself.
///
/// ```
/// use canopy_data::document::{from_json_owned, Value};
/// let node = from_json_owned(serde_json::json!({"type": "Wait", "ticks": 3}));
/// assert_eq!(node.get("type").and_then(Value::as_str), Some("Wait"));
/// assert!(matches!(node.get("ticks"), Some(Value::Int(3))));
/// ```
pub fn from_json_owned(json: serde_json::Value) -> Value<'static> {
    use serde_json::Value as Json;
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Value::Int(i),
            (None, Some(u), _) => Value::UInt(u),
            // serde_json numbers are finite.
            (_, _, x) => Value::Float(x.unwrap_or(0.0)),
        },
        Json::String(s) => Value::Owned(s.into_boxed_str()),
        Json::Array(items) => Value::List(items.into_iter().map(from_json_owned).collect()),
        Json::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (Key::Owned(k.into_boxed_str()), from_json_owned(v)))
                .collect(),
        ),
    }
}

/// A parameter's literal (a default) as a document's value, at most
/// `limit` brackets deep.
pub(crate) fn from_literal(
    literal: &canopy_core::params::Literal,
    limit: usize,
) -> Option<Value<'_>> {
    use canopy_core::params::Literal;
    Some(match literal {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(n) => Value::Int(*n),
        Literal::UInt(n) => Value::UInt(*n),
        Literal::Float(x) => Value::Float(*x),
        Literal::Text(s) => Value::Str(s),
        Literal::List(items) if limit > 1 => Value::List(
            items
                .iter()
                .map(|i| from_literal(i, limit - 1))
                .collect::<Option<_>>()?,
        ),
        Literal::List(_) => return None,
    })
}

/// A parameter's literal as a JSON value, as a tree file writes it.
///
/// ```
/// use canopy_data::{Literal, literal_to_json};
/// assert_eq!(literal_to_json(&Literal::from([1.5f32, 2.0])), serde_json::json!([1.5, 2.0]));
/// ```
pub fn literal_to_json(literal: &canopy_core::params::Literal) -> serde_json::Value {
    use canopy_core::params::Literal;
    use serde_json::Value as Json;
    match literal {
        Literal::Null => Json::Null,
        Literal::Bool(b) => Json::Bool(*b),
        Literal::Int(n) => Json::from(*n),
        Literal::UInt(n) => Json::from(*n),
        Literal::Float(x) => Json::from(*x),
        Literal::Text(s) => Json::String(s.clone()),
        Literal::List(items) => Json::Array(items.iter().map(literal_to_json).collect()),
    }
}

/// A document as a JSON value (the public strict parse returns one).
/// Numbers are finite and keys unique: the strict reader saw to both.
pub(crate) fn to_json(value: &Value) -> serde_json::Value {
    use serde_json::Value as Json;
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(n) => Json::from(*n),
        Value::UInt(n) => Json::from(*n),
        Value::Float(x) => Json::from(*x),
        Value::Str(_) | Value::Owned(_) => Json::String(value.as_str().unwrap_or("").to_string()),
        Value::List(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Object(fields) => Json::Object(
            fields
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), to_json(v)))
                .collect(),
        ),
    }
}

/// The field named `key` of an object's fields.
pub(crate) fn field<'v, 'a>(fields: &'v [Field<'a>], key: &str) -> Option<&'v Value<'a>> {
    fields
        .iter()
        .find(|(k, _)| k.as_str() == key)
        .map(|(_, v)| v)
}

/// How much of a value an error message shows, in characters.
const SHOWN: usize = 40;

/// A value as an error message shows it: its kind, then its first
/// characters (strings quoted and escaped as [`quote`] does), then, when
/// cut, an ellipsis and its size.
///
/// `null`, `boolean true`, `number 2.5`, `string "Wait"`,
/// `list [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,… (20 items)`.
pub(crate) fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".to_string(),
        Value::Str(_) | Value::Owned(_) => {
            return format!("string {}", quote(value.as_str().unwrap_or_default()));
        }
        Value::Bool(_) => "boolean",
        Value::Int(_) | Value::UInt(_) | Value::Float(_) => "number",
        Value::List(_) => "list",
        Value::Object(_) => "object",
    };
    let mut shown = String::new();
    let complete = render(value, &mut shown).is_ok();
    if complete && shown.chars().count() <= SHOWN {
        return format!("{kind} {shown}");
    }
    let cut: String = shown.chars().take(SHOWN).collect();
    let count = |n: usize, what: &str| format!(" ({n} {what}{})", if n == 1 { "" } else { "s" });
    let size = match value {
        Value::List(items) => count(items.len(), "item"),
        Value::Object(fields) => count(fields.len(), "field"),
        _ => String::new(),
    };
    format!("{kind} {cut}…{size}")
}

/// Write `value` as compact JSON-like text into `out`, strings [`quote`]d;
/// stops with an error once `out` holds more than [`SHOWN`] characters, so
/// that a huge value costs no more than a small one.
fn render(value: &Value, out: &mut String) -> fmt::Result {
    if out.chars().count() > SHOWN {
        return Err(fmt::Error);
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => write!(out, "{b}")?,
        Value::Int(n) => write!(out, "{n}")?,
        Value::UInt(n) => write!(out, "{n}")?,
        Value::Float(x) => {
            // `2.0` stays `2.0`: "must be an integer, got number 2" would
            // contradict itself.
            let text = number(*x);
            let whole = !text.contains(['.', 'e']);
            write!(out, "{text}{}", if whole { ".0" } else { "" })?;
        }
        Value::Str(_) | Value::Owned(_) => out.push_str(&quote(value.as_str().unwrap_or(""))),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(item, out)?;
            }
            out.push(']');
        }
        Value::Object(fields) => {
            out.push('{');
            for (i, (key, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write!(out, "{}:", quote(key.as_str()))?;
                render(item, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// A value the strict reading refuses, found while the parser reads on.
#[derive(Debug)]
pub(crate) enum Refused {
    /// A field given twice in one object: its name.
    Duplicate(String),
    /// NaN or an infinity (RON has them; JSON does not).
    NotFinite,
    /// RON's byte strings.
    Bytes,
}

/// The strict reader: a serde seed that builds [`Value`]s and records why
/// it refused one, so the caller can report the reason as a typed error at
/// the parser's position.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'c> {
    pub(crate) refused: &'c Cell<Option<Refused>>,
}

impl Reader<'_> {
    fn refuse<E: de::Error>(self, why: Refused) -> E {
        let message = match &why {
            Refused::Duplicate(key) => format!("field {} is given twice", quote(key)),
            Refused::NotFinite => {
                "numbers must be finite: infinity, NaN and numbers beyond ±1.8e308 are refused"
                    .to_string()
            }
            Refused::Bytes => "byte strings are not tree data".to_string(),
        };
        self.refused.set(Some(why));
        E::custom(message)
    }
}

impl<'de> DeserializeSeed<'de> for Reader<'_> {
    type Value = Value<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Reader<'_> {
    type Value = Value<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value<'de>, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value<'de>, E> {
        Ok(Value::Int(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value<'de>, E> {
        Ok(i64::try_from(n).map_or(Value::UInt(n), Value::Int))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value<'de>, E> {
        if x.is_finite() {
            Ok(Value::Float(x))
        } else {
            Err(self.refuse(Refused::NotFinite))
        }
    }

    fn visit_char<E>(self, c: char) -> Result<Value<'de>, E> {
        Ok(Value::Owned(c.to_string().into()))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Value<'de>, E> {
        Ok(Value::Str(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value<'de>, E> {
        Ok(Value::Owned(s.into()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value<'de>, E> {
        Ok(Value::Owned(s.into()))
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Value<'de>, E> {
        Err(self.refuse(Refused::Bytes))
    }

    fn visit_unit<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value<'de>, D::Error> {
        self.deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value<'de>, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Value<'de>, S::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::List(items.into_boxed_slice()))
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Value<'de>, M::Error> {
        let mut fields: Vec<Field<'de>> = Vec::new();
        let mut names = Names::default();
        while let Some(key) = map.next_key_seed(KeyReader)? {
            if names.seen_before(&key, &fields) {
                return Err(self.refuse(Refused::Duplicate(key.as_str().to_string())));
            }
            let value = map.next_value_seed(self)?;
            fields.push((key, value));
        }
        Ok(Value::Object(fields.into_boxed_slice()))
    }
}

/// Which field names an object has so far. Node objects have a handful of
/// fields, searched directly; a large object (a `subtrees` table, or a
/// hostile file) gets a set of hashes so that it is read in linear time.
#[derive(Default)]
struct Names {
    hashes: Option<(RandomState, HashSet<u64>)>,
}

/// Fields searched one by one before [`Names`] switches to hashing.
const FEW_FIELDS: usize = 16;

impl Names {
    /// Whether `key` is among `fields`; remembers it either way.
    fn seen_before(&mut self, key: &Key, fields: &[Field]) -> bool {
        let key = key.as_str();
        let search = |fields: &[Field]| fields.iter().any(|(k, _)| k.as_str() == key);
        if fields.len() < FEW_FIELDS {
            return search(fields);
        }
        let (state, hashes) = self.hashes.get_or_insert_with(|| {
            let state = RandomState::new();
            let hashes = fields
                .iter()
                .map(|(k, _)| state.hash_one(k.as_str()))
                .collect();
            (state, hashes)
        });
        // A new hash is a new name; a known hash is checked for a collision.
        !hashes.insert(state.hash_one(key)) && search(fields)
    }
}

/// Reads a field name, borrowing it from the text when it has no escapes.
struct KeyReader;

impl<'de> DeserializeSeed<'de> for KeyReader {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<'de>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyReader {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key::Str(s))
    }

    fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(s.into()))
    }

    fn visit_string<E>(self, s: String) -> Result<Key<'de>, E> {
        Ok(Key::Owned(s.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_compact() {
        assert_eq!(size_of::<Value>(), 24);
        assert_eq!(size_of::<Field>(), 48);
    }

    fn json(text: &str) -> Value<'_> {
        let refused = Cell::new(None);
        let mut de = serde_json::Deserializer::from_str(text);
        Reader { refused: &refused }.deserialize(&mut de).unwrap()
    }

    #[test]
    fn strings_without_escapes_borrow_from_the_text() {
        let text = r#"{"type": "Wait", "na\u006de": "a\"b"}"#;
        let value = json(text);
        let fields = value.as_object().unwrap();
        assert!(matches!(fields[0], (Key::Str("type"), Value::Str("Wait"))));
        assert!(matches!(&fields[1].0, Key::Owned(k) if &**k == "name"));
        assert!(matches!(&fields[1].1, Value::Owned(v) if &**v == "a\"b"));
    }

    #[test]
    fn large_objects_still_find_duplicates() {
        let mut text = String::from("{");
        for i in 0..100 {
            write!(text, "\"k{i}\": {i},").unwrap();
        }
        text.push_str("\"k57\": 0}");
        let refused = Cell::new(None);
        let mut de = serde_json::Deserializer::from_str(&text);
        assert!(Reader { refused: &refused }.deserialize(&mut de).is_err());
        assert!(matches!(refused.take(), Some(Refused::Duplicate(k)) if k == "k57"));
    }

    #[test]
    fn descriptions_are_short() {
        let list = json("[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]");
        assert_eq!(
            describe(&list),
            "list [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,… (20 items)"
        );
        assert_eq!(describe(&json("[1,2]")), "list [1,2]");
        assert_eq!(describe(&json(r#"{"a":1}"#)), r#"object {"a":1}"#);
        assert_eq!(describe(&json("2.5")), "number 2.5");
        assert_eq!(describe(&json("2.0")), "number 2.0");
        assert_eq!(describe(&json("2")), "number 2");
        assert_eq!(describe(&json("1e308")), "number 1e308");
        assert_eq!(
            describe(&json(r#""\u001b]0;x\u0007""#)),
            r#"string "\u{1b}]0;x\u{7}""#
        );
    }
}
