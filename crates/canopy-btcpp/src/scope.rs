//! BehaviorTree.CPP's blackboard scopes on canopy's one blackboard per
//! agent: each `<SubTree>` reference is a scope, and every key of the
//! subtree is resolved to a key of the agent's blackboard when the tree is
//! loaded — slot aliasing, so nothing is looked up while ticking.
//!
//! A key `k` used in a subtree (a port's `{k}`, a script's `k`) is, by
//! BehaviorTree.CPP's rules:
//! - remapped by the `<SubTree>` (`k="{parent_key}"`): the parent scope's
//!   `parent_key`; `k="{=}"`: the parent's `k`; `k="text"`: the text, as a
//!   constant (BehaviorTree.CPP writes it into the subtree's blackboard
//!   once, when the tree is created);
//! - otherwise, with `_autoremap="true"`, the parent scope's `k`;
//! - otherwise the subtree instance's own: a key of its own in the agent's
//!   blackboard, named after the subtree, the instance and `k`
//!   ([`private_key`]: `@Move_2__k`), which nothing written in a file can
//!   name: a key written `@k` (or `{@k}`) is the root's `k`, so no key a
//!   file names starts with `@` once resolved.
//!
//! `{@k}` is the root scope's `k` from anywhere. A subtree whose every key
//! resolves to the same key is shared between its references, as canopy
//! shares subtrees; otherwise each reference gets its own copy of the
//! subtree's nodes, with its keys renamed. A key given two types across a
//! remapping is then the loader's error naming both places, as for any key.
//!
//! Rejected: scopes kept at run time (a key table per subtree instance,
//! looked up while ticking) — the point of canopy's blackboard is that a
//! port is a slot by the time the tree runs.

use std::collections::HashMap;
use std::rc::Rc;

use canopy_data::EvalKind;
use serde_json::Value;

/// What a key of a subtree's scope stands for in its parent's.
#[derive(Clone, Debug)]
enum Target {
    /// The parent scope's key of this name.
    Key(String),
    /// A constant, written in the `<SubTree>` element.
    Literal(String),
}

/// A scope: the root's, or a subtree instance's. Cloning it is cheap: a
/// scope refers to its parent rather than holding a copy of it, so a chain
/// of `_autoremap` subtrees holds each one's remapping once. (A copy of
/// the parent per level made a chain of 60 subtrees remapping 4,000 keys
/// each — 3.7 MB of XML — take 1.35 GB.)
#[derive(Clone, Debug)]
pub(crate) struct Scope(Rc<Level>);

#[derive(Debug)]
struct Level {
    /// Keys remapped by the `<SubTree>`, and their targets, resolved.
    remapped: HashMap<String, Resolved>,
    /// Unremapped keys: the parent's (autoremap) or the instance's own.
    rest: Rest,
}

#[derive(Debug)]
enum Rest {
    /// The root scope: a key is itself.
    Root,
    /// `_autoremap="true"` under a parent scope.
    Parent(Scope),
    /// The instance's own keys, named with this prefix.
    Own(String),
}

/// A key resolved in the root scope: a key of the agent's blackboard, or
/// a constant.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved {
    Key(String),
    Literal(String),
}

/// The first character of every key private to a subtree instance: one
/// that no key written in a file can start with once resolved — a
/// script's `@k` and a port's `{@k}` are the root's `k` — though canopy's
/// scripts read it, so the renamed scripts of a subtree compile as they
/// are. Rejected: a prefix of letters and `_` (such as `__Tree_1__`),
/// which a main-tree script could spell and so write a subtree's own key.
pub(crate) const PRIVATE: char = '@';

/// The blackboard key standing for `key` of a subtree instance, whose
/// keys are named with `prefix` (see [`Scope::child`]).
pub(crate) fn private_key(prefix: &str, key: &str) -> String {
    format!("{prefix}{key}")
}

/// The prefix of the keys of the `instance`-th subtree instance, a copy
/// of the tree `tree`: `@Tree_2__` — the ID's letters and digits, each
/// run of other characters one `_`, and no `_` before the number — so
/// that the first `__` of a private key ends its prefix and the instance
/// number, unique to the copy, tells every instance's keys apart.
fn private_prefix(tree: &str, instance: usize) -> String {
    let mut name = String::with_capacity(tree.len());
    for c in tree.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_');
    format!("{PRIVATE}{name}_{instance}__")
}

impl Scope {
    /// The root scope.
    pub(crate) fn root() -> Scope {
        Scope(Rc::new(Level {
            remapped: HashMap::new(),
            rest: Rest::Root,
        }))
    }

    /// Whether every key is itself, as in the root scope.
    pub(crate) fn is_identity(&self) -> bool {
        let mut level = &*self.0;
        loop {
            let same = level
                .remapped
                .iter()
                .all(|(key, to)| matches!(to, Resolved::Key(k) if k == key));
            if !same {
                return false;
            }
            match &level.rest {
                Rest::Root => return true,
                Rest::Parent(parent) => level = &parent.0,
                Rest::Own(_) => return false,
            }
        }
    }

    /// The scope of a `<SubTree ID="tree">` under this one, with its
    /// remapping `ports` and `_autoremap`; `instance` numbers the copy.
    pub(crate) fn child(
        &self,
        tree: &str,
        instance: usize,
        ports: &[(String, String)],
        autoremap: bool,
    ) -> Scope {
        let mut remapped = HashMap::with_capacity(ports.len());
        for (port, text) in ports {
            // Spaces around a remapping are BehaviorTree.CPP's to ignore too.
            let text = text.trim();
            let target = match text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                Some("=") => Target::Key(port.clone()),
                Some(key) if !key.is_empty() => Target::Key(key.to_string()),
                _ => Target::Literal(text.to_string()),
            };
            let resolved = match target {
                Target::Key(key) => self.resolve(&key),
                Target::Literal(text) => Resolved::Literal(text),
            };
            remapped.insert(port.clone(), resolved);
        }
        let rest = if autoremap {
            Rest::Parent(self.clone())
        } else {
            Rest::Own(private_prefix(tree, instance))
        };
        Scope(Rc::new(Level { remapped, rest }))
    }

    /// What `key` (as written in this scope, `@` for the root's) stands for.
    pub(crate) fn resolve(&self, key: &str) -> Resolved {
        if let Some(root) = key.strip_prefix('@') {
            return Resolved::Key(root.to_string());
        }
        let mut level = &*self.0;
        loop {
            if let Some(resolved) = level.remapped.get(key) {
                return resolved.clone();
            }
            match &level.rest {
                Rest::Root => return Resolved::Key(key.to_string()),
                Rest::Parent(parent) => level = &parent.0,
                Rest::Own(prefix) => return Resolved::Key(private_key(prefix, key)),
            }
        }
    }

    /// A node's parameters with their keys resolved: ports' `{key}` text,
    /// and the scripts of canopy's script nodes. A port whose key stands
    /// for a constant takes the constant, as `typed` reads it for the port.
    /// Names are borrowed: a copy per node of each was a large part of
    /// what the document of a large file became.
    pub(crate) fn params<'p>(
        &self,
        type_name: &str,
        params: &'p [(Rc<str>, Value)],
        typed: &dyn Fn(&str, &str) -> Value,
    ) -> Vec<(&'p str, Value)> {
        let scripts = is_script_type(type_name);
        params
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    // The key an `Eval` assigns a value to.
                    Value::String(text) if scripts && &**name == "assign" => {
                        match self.resolve(text) {
                            Resolved::Key(key) => Value::String(key),
                            Resolved::Literal(_) => Value::String(text.clone()),
                        }
                    }
                    Value::String(text) if scripts && is_script_param(type_name, name) => {
                        Value::String(self.script(text))
                    }
                    // A Switch's values: texts or `{key}`s, never code.
                    Value::Array(items) if scripts && &**name == "values" => Value::Array(
                        items
                            .iter()
                            .map(|item| match item {
                                Value::String(text) => {
                                    self.port(name, text, &|_, t| Value::String(t.to_string()))
                                }
                                other => other.clone(),
                            })
                            .collect(),
                    ),
                    Value::Array(items) if scripts => Value::Array(
                        items
                            .iter()
                            .map(|item| match item {
                                Value::String(text) => Value::String(self.script(text)),
                                other => other.clone(),
                            })
                            .collect(),
                    ),
                    Value::String(text) => self.port(name, text, typed),
                    other => other.clone(),
                };
                (&**name, value)
            })
            .collect()
    }

    /// A port's text with its key resolved; other text as it is.
    fn port(&self, port: &str, text: &str, typed: &dyn Fn(&str, &str) -> Value) -> Value {
        let unchanged = || Value::String(text.to_string());
        let Some(key) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
            return unchanged();
        };
        let key = if key == "=" { port } else { key };
        if key.is_empty() {
            return unchanged();
        }
        match self.resolve(key) {
            Resolved::Key(key) => Value::String(format!("{{{key}}}")),
            Resolved::Literal(text) => typed(port, &text),
        }
    }

    /// A script with each key it names resolved; a key remapped to a
    /// constant becomes the constant (a number, else a string).
    pub(crate) fn script(&self, code: &str) -> String {
        let bytes = code.as_bytes();
        let mut out = String::with_capacity(code.len());
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let start = i;
            if c == b'\'' || c == b'"' {
                // A string, copied as it is (an unclosed one to the end,
                // for the compiler to report).
                i = code[i + 1..]
                    .find(c as char)
                    .map_or(code.len(), |n| i + n + 2);
            } else if c.is_ascii_digit() {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
            } else if c.is_ascii_alphabetic() || c == b'_' || c == b'@' {
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &code[start..i];
                if word == "@" {
                    // `@` names the root's key once: `@@y` is two names
                    // to BehaviorTree.CPP's parser, and goes to canopy's
                    // as written, which refuses it too.
                    if bytes.get(i) == Some(&b'@') {
                        i += 1;
                        while i < bytes.len()
                            && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                        {
                            i += 1;
                        }
                    }
                } else if word != "true" && word != "false" {
                    match self.resolve(word) {
                        Resolved::Key(key) => out.push_str(&key),
                        Resolved::Literal(text) => out.push_str(&literal(&text)),
                    }
                    continue;
                }
            } else {
                i += code[i..].chars().next().map_or(1, char::len_utf8);
            }
            out.push_str(&code[start..i]);
        }
        out
    }
}

/// A constant a `<SubTree>` passes, as a script value: as
/// BehaviorTree.CPP 4.10 stores it in the subtree's blackboard — a whole
/// number (no `.`, `e` or `E`, read whole) as one, another number read
/// whole as a double, anything else as the string it is. The string is
/// written so that no character of it can end it: pieces without `'`,
/// joined with `"'"` for each `'`, so the text never becomes code.
fn literal(text: &str) -> String {
    let whole = !text.contains(['.', 'e', 'E'])
        && canopy_core::convert::prefix_i64(text).is_ok_and(|(_, n)| n == text.len());
    if whole && let Ok((n, _)) = canopy_core::convert::prefix_i64(text) {
        return if n < 0 {
            format!("(0 - {})", n.unsigned_abs())
        } else {
            n.to_string()
        };
    }
    if let Some(x) = canopy_core::convert::whole_f64(text).filter(|x| x.is_finite()) {
        return if x < 0.0 {
            format!("(0.0 - {:?})", -x)
        } else {
            format!("{x:?}")
        };
    }
    let pieces: Vec<String> = text.split('\'').map(|p| format!("'{p}'")).collect();
    format!("({})", pieces.join(" .. \"'\" .. "))
}

/// canopy's node types whose parameters hold scripts (under their own
/// names, or as `canopy_Eval` where a node model took the name).
fn is_script_type(type_name: &str) -> bool {
    let type_name = type_name
        .strip_prefix(crate::standard::CANOPY_PREFIX)
        .unwrap_or(type_name);
    EvalKind::from_name(type_name).is_some_and(|kind| kind != EvalKind::Retry)
}

/// Whether a string parameter of a script node type is a script: not
/// the words, nor the values a file gives (an `Eval`'s `value`, a
/// `Switch`'s `variable`), which are never code.
fn is_script_param(type_name: &str, name: &str) -> bool {
    let value = match EvalKind::from_name(type_name) {
        Some(EvalKind::Eval) => name == "value",
        Some(EvalKind::Switch) => name == "variable",
        _ => false,
    };
    !value
        && !matches!(
            name,
            "skipped" | "if_empty" | "item" | "name" | "type" | "otherwise" | "assign"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn keys_resolve_by_remapping_then_autoremap_then_privately() {
        let root = Scope::root();
        let shared = root.child("Move", 1, &ports(&[("goal", "{target}")]), true);
        assert_eq!(shared.resolve("goal"), Resolved::Key("target".into()));
        assert_eq!(shared.resolve("speed"), Resolved::Key("speed".into()));
        let own = root.child(
            "Move-it",
            2,
            &ports(&[("goal", "3;4"), ("x", "{=}")]),
            false,
        );
        assert_eq!(own.resolve("goal"), Resolved::Literal("3;4".into()));
        assert_eq!(own.resolve("x"), Resolved::Key("x".into()));
        assert_eq!(
            own.resolve("speed"),
            Resolved::Key("@Move_it_2__speed".into())
        );
        assert_eq!(own.resolve("@speed"), Resolved::Key("speed".into()));
        let inner = own.child("In", 3, &ports(&[("a", "{speed}")]), true);
        assert_eq!(
            inner.resolve("a"),
            Resolved::Key("@Move_it_2__speed".into())
        );
        assert_eq!(inner.resolve("goal"), Resolved::Literal("3;4".into()));
        assert!(root.is_identity() && root.child("S", 1, &[], true).is_identity());
        assert!(!own.is_identity());
        // Remapped each to itself under autoremap, every key is the parent's.
        let same = root.child("S", 1, &ports(&[("a", "{a}"), ("b", "{=}")]), true);
        assert!(same.is_identity());
        assert!(
            !root
                .child("S", 1, &ports(&[("a", "{b}")]), true)
                .is_identity()
        );
    }

    #[test]
    fn private_prefixes_of_different_instances_never_make_the_same_key() {
        // Runs of other characters are one `_`, and none ends the name:
        // the first `__` of a private key ends its prefix.
        assert_eq!(private_prefix("Move-it", 2), "@Move_it_2__");
        assert_eq!(private_prefix("A--1__B_", 3), "@A_1_B_3__");
        assert_eq!(private_prefix("__", 4), "@_4__");
        let one = Scope::root().child("A", 1, &[], false);
        let other = Scope::root().child("A_1__B", 3, &[], false);
        assert_ne!(one.resolve("B_3__x"), other.resolve("x"));
    }

    #[test]
    fn scripts_rename_keys_but_not_strings_numbers_or_booleans() {
        let scope = Scope::root().child(
            "S",
            1,
            &ports(&[("n", "{count}"), ("word", "hi"), ("k", "2")]),
            false,
        );
        assert_eq!(
            scope.script("n += 1e3; m := 'n' .. word; ok := true && k > 1.5"),
            "count += 1e3; @S_1__m := 'n' .. ('hi'); @S_1__ok := true && 2 > 1.5"
        );
    }

    #[test]
    fn a_constant_passed_to_a_subtree_is_a_value_whatever_it_holds() {
        let passed = |text: &str| {
            Scope::root()
                .child("S", 1, &ports(&[("v", text)]), false)
                .script("w := v")
        };
        assert_eq!(passed("-2"), "@S_1__w := (0 - 2)");
        assert_eq!(passed(".5"), "@S_1__w := 0.5");
        assert_eq!(passed("true"), "@S_1__w := ('true')");
        assert_eq!(passed("1;2"), "@S_1__w := ('1;2')");
        // No quote in the text can end the string it becomes.
        assert_eq!(
            passed("a\" ; hp = 999 ; \"'"),
            "@S_1__w := ('a\" ; hp = 999 ; \"' .. \"'\" .. '')"
        );
    }

    #[test]
    fn at_names_the_root_once() {
        let scope = Scope::root().child("S", 1, &[], false);
        assert_eq!(scope.script("@y := y"), "y := @S_1__y");
        // Left as written, for the compiler to refuse as BehaviorTree.CPP's
        // parser does (two names in a row); what follows is still renamed.
        assert_eq!(scope.script("@@y := 1; w := 2"), "@@y := 1; @S_1__w := 2");
        assert_eq!(scope.script("@ := 1"), "@ := 1");
    }
}
