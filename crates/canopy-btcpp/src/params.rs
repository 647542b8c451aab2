//! Parameters between XML attributes (always text) and the JSON values the
//! registry checks, so that an XML tree's parameters are typed and checked
//! exactly as a JSON or RON file's.
//!
//! Text becomes the JSON value a parameter of that kind expects when it
//! reads as one (`"3"` → `3` for an integer); otherwise it stays a string,
//! and the registry's check reports it as such (`must be an integer, got
//! string "three"`). Lists of statuses are written `Running;Success`, as
//! BehaviorTree.CPP writes vectors; a Guard's condition is written as a
//! call: `Periodic(name="daylight?", period=24, on=12)`. A type's
//! parameters are looked up by name through a [`ParamIndex`].

use std::collections::HashMap;

use canopy_data::{ParamKind, Registry};
use serde_json::{Map, Number, Value};

use canopy_core::text::quote;

/// The JSON value for attribute text `text` of a parameter of `kind`.
pub(crate) fn to_value<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    kind: &ParamKind,
    text: &str,
) -> Result<Value, String> {
    let string = || Value::String(text.to_string());
    let structured = matches!(kind, ParamKind::Point { .. } | ParamKind::List { .. });
    if let Some(json) = text.strip_prefix(JSON_PREFIX).filter(|_| structured) {
        // BehaviorTree.CPP's spelling of a structured value.
        return serde_json::from_str(json)
            .map_err(|e| format!("the value after \"json:\" is not JSON: {e}"));
    }
    Ok(match kind {
        // An empty list is written as nothing, whatever its items.
        ParamKind::List { .. } if text.trim().is_empty() => Value::Array(Vec::new()),
        ParamKind::Int { .. } => match text.parse::<i64>() {
            Ok(n) => Value::from(n),
            // Out-of-range and fractional numbers are numbers, so the
            // registry's message says what is wrong with them.
            Err(_) => number(text).unwrap_or_else(string),
        },
        ParamKind::Float { .. } => match text.parse::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => number(text).unwrap_or_else(string),
        },
        ParamKind::Bool => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => string(),
        },
        ParamKind::List { item, .. }
            if matches!(**item, ParamKind::Text | ParamKind::Choice(_)) =>
        {
            Value::Array(
                text.split(';')
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| Value::String(s.trim().to_string()))
                    .collect(),
            )
        }
        ParamKind::Statuses => Value::Array(
            text.split(';')
                .filter(|s| !s.trim().is_empty())
                .map(|s| Value::String(s.trim().to_string()))
                .collect(),
        ),
        ParamKind::Point { .. } => numbers(text).unwrap_or_else(string),
        ParamKind::List { item, .. }
            if matches!(**item, ParamKind::Int { .. } | ParamKind::Float { .. }) =>
        {
            numbers(text).unwrap_or_else(string)
        }
        ParamKind::Condition => condition(registry, text)?,
        // A key in braces is the registry's to resolve; a value given in
        // place reads as the port's value kind.
        ParamKind::Port { .. } if key_of(text).is_some() => string(),
        ParamKind::Port { value, .. } => to_value(registry, value, text)?,
        _ => string(),
    })
}

/// The blackboard key of a port's text, `{key}` (or `{@key}`, the root
/// blackboard's, which is canopy's one blackboard); `{=}` is the port's
/// own name, as the registry reads it.
pub(crate) fn key_of(text: &str) -> Option<&str> {
    let key = text.strip_prefix('{')?.strip_suffix('}')?;
    let key = key.strip_prefix('@').unwrap_or(key);
    (!key.is_empty()).then_some(key)
}

/// The key a port's text names as a script names it: `{key}` is `key`,
/// `{@key}` is `@key` (the root scope's, which a subtree's scripts resolve
/// as such), `{=}` is `=`.
pub(crate) fn script_key_of(text: &str) -> Option<&str> {
    let key = text.strip_prefix('{')?.strip_suffix('}')?;
    (!key.is_empty() && key != "@").then_some(key)
}

/// The prefix of a value written as JSON (`json:[[0,0],[10,0]]`), as
/// BehaviorTree.CPP 4 reads ports of types with a JSON converter.
pub(crate) const JSON_PREFIX: &str = "json:";

/// Numbers separated by `;` (a point `2;3.5`, a list `1;2;3`), as
/// BehaviorTree.CPP writes vectors; `None` unless every part is one.
fn numbers(text: &str) -> Option<Value> {
    if text.trim().is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    let part = |p: &str| match p.trim().parse::<i64>() {
        Ok(n) => Some(Value::from(n)),
        Err(_) => number(p.trim()),
    };
    let parts: Option<Vec<Value>> = text.split(';').map(part).collect();
    parts.map(Value::Array)
}

/// A finite number written in decimal, if `text` is one.
fn number(text: &str) -> Option<Value> {
    let plain = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    if !plain {
        return None;
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}

/// A parameter value as attribute text; `None` for values that cannot be
/// written so that they read back the same.
pub(crate) fn to_text(value: &Value) -> Option<String> {
    Some(match value {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_number) => {
            let numbers: Vec<String> = items.iter().map(|n| n.to_string()).collect();
            numbers.join(";")
        }
        Value::Array(items) if items.iter().any(|i| i.is_array() || i.is_number()) => {
            format!("{JSON_PREFIX}{}", serde_json::to_string(value).ok()?)
        }
        Value::Array(items) => {
            let words: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
            let words = words?;
            if words
                .iter()
                .any(|w| w.contains(';') || w.trim() != *w || w.is_empty())
            {
                return None;
            }
            words.join(";")
        }
        Value::Object(fields) => call(fields)?,
        Value::Null => return None,
    })
}

/// A condition node object as `Type(name="…", key=value, …)`.
fn call(fields: &Map<String, Value>) -> Option<String> {
    let type_name = fields.get("type")?.as_str()?;
    let mut args = Vec::new();
    for (key, value) in fields {
        if key == "type" {
            continue;
        }
        let text = match value {
            Value::Bool(_) | Value::Number(_) => to_text(value)?,
            // Strings and lists go quoted, as JSON strings.
            _ => serde_json::to_string(&Value::String(to_text(value)?)).ok()?,
        };
        args.push(format!("{key}={text}"));
    }
    // `name` first: it is what a reader looks for.
    args.sort_by_key(|a| !a.starts_with("name="));
    Some(if args.is_empty() {
        type_name.to_string()
    } else {
        format!("{type_name}({})", args.join(", "))
    })
}

/// Parse `Type(key=value, …)` into a condition node object, its values
/// typed by the condition type's declared parameters.
fn condition<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: &str,
) -> Result<Value, String> {
    let shape = "write a condition as Type(key=value, …), e.g. Periodic(name=\"daylight?\", period=24, on=12)";
    let text = text.trim();
    let (type_name, rest) = match text.find('(') {
        Some(open) => (text[..open].trim(), Some(&text[open + 1..])),
        None => (text, None),
    };
    if type_name.is_empty() || !type_name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(format!("{} is not a condition: {shape}", quote(text)));
    }
    let mut fields = Map::new();
    fields.insert("type".to_string(), Value::String(type_name.to_string()));
    let Some(mut rest) = rest else {
        return Ok(Value::Object(fields));
    };
    let declared = registry.get(type_name).map(|t| t.params()).unwrap_or(&[]);
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(')') {
            if !after.trim().is_empty() {
                return Err(format!("text after the closing parenthesis: {shape}"));
            }
            return Ok(Value::Object(fields));
        }
        let eq = rest
            .find('=')
            .ok_or_else(|| format!("missing `=` after a parameter name: {shape}"))?;
        let key = rest[..eq].trim().to_string();
        rest = rest[eq + 1..].trim_start();
        let (raw, after) = argument(rest).ok_or_else(|| format!("unterminated value: {shape}"))?;
        rest = after.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest);
        let value = match (key.as_str(), declared.iter().find(|p| p.name == key)) {
            ("name", _) => Value::String(raw),
            (_, Some(param)) if param.kind != ParamKind::Condition => {
                to_value(registry, &param.kind, &raw)?
            }
            _ => Value::String(raw),
        };
        if fields.insert(key.clone(), value).is_some() {
            return Err(format!("parameter {} is given twice", quote(&key)));
        }
    }
}

/// One argument value: a JSON string, or bare text up to `,` or `)`.
/// Returns its text and the rest of the input.
fn argument(input: &str) -> Option<(String, &str)> {
    if input.starts_with('"') {
        let bytes = input.as_bytes();
        let mut i = 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => {
                    let text: String = serde_json::from_str(&input[..=i]).ok()?;
                    return Some((text, &input[i + 1..]));
                }
                _ => i += 1,
            }
        }
        return None;
    }
    let end = input.find([',', ')'])?;
    Some((input[..end].trim().to_string(), &input[end..]))
}

/// A model's parameter lookup: by name through a hash map when the type
/// has many (a model with a hundred thousand ports must not cost their
/// square).
pub(crate) struct ParamIndex<'t> {
    params: &'t [canopy_core::params::Param],
    by_name: Option<HashMap<&'t str, usize>>,
}

impl<'t> ParamIndex<'t> {
    /// Past this many parameters, names are hashed.
    const HASHED_FROM: usize = 16;

    pub(crate) fn new(params: &'t [canopy_core::params::Param]) -> ParamIndex<'t> {
        let by_name = (params.len() > Self::HASHED_FROM).then(|| {
            params
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.as_str(), i))
                .collect()
        });
        ParamIndex { params, by_name }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&'t canopy_core::params::Param> {
        match &self.by_name {
            Some(map) => {
                crate::work::step(1);
                map.get(name).map(|&i| &self.params[i])
            }
            None => {
                let found = self.params.iter().position(|p| p.name == name);
                crate::work::step(found.map_or(self.params.len(), |i| i + 1) as u64);
                found.map(|i| &self.params[i])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_to_typed_values() {
        let r = Registry::<(), ()>::new();
        let int = ParamKind::Int { min: 0, max: 10 };
        assert_eq!(to_value(&r, &int, "3"), Ok(json!(3)));
        assert_eq!(to_value(&r, &int, "2.5"), Ok(json!(2.5)));
        assert_eq!(to_value(&r, &int, "1e30"), Ok(json!(1e30)));
        assert_eq!(to_value(&r, &int, "three"), Ok(json!("three")));
        let float = ParamKind::Float { min: 0.0, max: 1.0 };
        assert_eq!(to_value(&r, &float, "0.15"), Ok(json!(0.15)));
        assert_eq!(to_value(&r, &float, "1"), Ok(json!(1)));
        assert_eq!(to_value(&r, &float, "inf"), Ok(json!("inf")));
        assert_eq!(to_value(&r, &ParamKind::Bool, "true"), Ok(json!(true)));
        assert_eq!(to_value(&r, &ParamKind::Bool, "True"), Ok(json!("True")));
        assert_eq!(
            to_value(&r, &ParamKind::Statuses, "Running; Success"),
            Ok(json!(["Running", "Success"]))
        );
        assert_eq!(to_value(&r, &ParamKind::Text, "{x}"), Ok(json!("{x}")));
    }

    #[test]
    fn conditions_round_trip() {
        let r = Registry::<(), ()>::new();
        let object = json!({"type": "Periodic", "name": "day, \"light\"?", "period": 24, "on": 12});
        let text = to_text(&object).unwrap();
        assert_eq!(
            text,
            r#"Periodic(name="day, \"light\"?", on=12, period=24)"#
        );
        assert_eq!(to_value(&r, &ParamKind::Condition, &text), Ok(object));
        assert_eq!(
            to_value(&r, &ParamKind::Condition, "Chance"),
            Ok(json!({"type": "Chance"}))
        );
        assert_eq!(
            to_value(&r, &ParamKind::Condition, "Chance(p=0.5)"),
            Ok(json!({"type": "Chance", "p": 0.5}))
        );
        assert!(to_value(&r, &ParamKind::Condition, "Chance(p=0.5").is_err());
        assert!(to_value(&r, &ParamKind::Condition, "Chance(p=0.5, p=1)").is_err());
        assert!(to_value(&r, &ParamKind::Condition, "a b").is_err());
        assert!(to_value(&r, &ParamKind::Condition, "Chance(p=0.5) x").is_err());
    }

    #[test]
    fn values_without_a_faithful_text() {
        assert_eq!(
            to_text(&json!(["Running", "Success"])),
            Some("Running;Success".into())
        );
        assert_eq!(to_text(&json!([" Running"])), None);
        assert_eq!(to_text(&Value::Null), None);
    }

    #[test]
    fn points_and_lists_are_written_as_behaviortree_cpp_reads_vectors() {
        let r = Registry::<(), ()>::new();
        let point = ParamKind::Point {
            dims: 2,
            min: f64::MIN,
            max: f64::MAX,
        };
        let numbers = ParamKind::List {
            item: Box::new(ParamKind::Float {
                min: f64::MIN,
                max: f64::MAX,
            }),
            min_len: 0,
            max_len: 10,
        };
        let path = ParamKind::List {
            item: Box::new(point.clone()),
            min_len: 0,
            max_len: 10,
        };
        assert_eq!(to_text(&json!([2, 3.5])), Some("2;3.5".into()));
        assert_eq!(to_value(&r, &point, "2;3.5"), Ok(json!([2, 3.5])));
        assert_eq!(to_value(&r, &point, "2; 3.5"), Ok(json!([2, 3.5])));
        assert_eq!(to_value(&r, &numbers, "1;2;3"), Ok(json!([1, 2, 3])));
        assert_eq!(
            to_text(&json!([[0, 0], [10, 0]])),
            Some("json:[[0,0],[10,0]]".into())
        );
        assert_eq!(
            to_value(&r, &path, "json:[[0,0],[10,0]]"),
            Ok(json!([[0, 0], [10, 0]]))
        );
        // Not numbers: left as text, for the registry to refuse by name.
        assert_eq!(to_value(&r, &point, "0,0"), Ok(json!("0,0")));
        assert_eq!(
            to_value(&r, &path, "json:[[0,0]"),
            Err("the value after \"json:\" is not JSON: EOF while parsing a list at line 1 column 6".into())
        );
        // A string is never read as JSON.
        assert_eq!(
            to_value(&r, &ParamKind::Text, "json:[1]"),
            Ok(json!("json:[1]"))
        );
    }
}
