//! Loading, then printing: random valid tree documents written as JSON and
//! RON text must load, print exactly as computed here from the document
//! (independently of the loader), and tick; and no input at all — random
//! bytes, random text, mangled valid files, nonsense documents — may make
//! the loader panic.

use std::ops::Range;

use canopy_core::{Agent, Status, Tree};
use canopy_data::{Format, LoadError, Location, Registry, TreeSource};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------
// Generated documents
// ---------------------------------------------------------------------------

/// What a generated node writes in its `name` field.
#[derive(Clone, Debug)]
enum Name {
    /// No `name` field: the node is named after its type.
    Absent,
    /// `"name"` equal to the type.
    Type,
    /// Any other text (which may still happen to equal the type).
    Text(String),
}

/// A generated node: what the file says, and what the printed tree must show.
#[derive(Clone, Debug)]
struct GenNode {
    ty: &'static str,
    name: Name,
    /// Parameter fields as written in the file.
    fields: Vec<(&'static str, Value)>,
    /// Parameters as the printed tree must show them, in order.
    shown: Vec<(&'static str, String)>,
    children: Vec<GenNode>,
    /// A subtree reference still to be resolved (slot number).
    slot: Option<usize>,
    /// A resolved reference: the index of the subtree it stands for.
    target: Option<usize>,
    /// Leaves and composites without children write `"children": []`.
    empty_children: bool,
}

fn node(
    ty: &'static str,
    fields: Vec<(&'static str, Value)>,
    shown: Vec<(&'static str, String)>,
    children: Vec<GenNode>,
) -> GenNode {
    GenNode {
        ty,
        name: Name::Absent,
        fields,
        shown,
        children,
        slot: None,
        target: None,
        empty_children: false,
    }
}

#[derive(Clone, Debug)]
struct Doc {
    tree: GenNode,
    /// Names are unique; a subtree refers only to later subtrees (no cycles).
    subtrees: Vec<(String, GenNode)>,
    /// Write `"subtrees": {}` when there are none.
    empty_subtrees: bool,
}

fn name() -> impl Strategy<Value = Name> {
    prop_oneof![
        4 => Just(Name::Absent),
        1 => Just(Name::Type),
        3 => "[a-z]{1,6}( [a-z?]{1,6})?".prop_map(Name::Text),
        1 => "[ \"\\\\'{}()\\[\\],:#é漢🌲\u{200b}]{0,6}".prop_map(Name::Text),
        1 => "\\PC{0,8}".prop_map(Name::Text),
    ]
}

fn with_name(s: impl Strategy<Value = GenNode>) -> impl Strategy<Value = GenNode> {
    (s, name(), any::<bool>()).prop_map(|(mut n, name, empty)| {
        n.name = name;
        n.empty_children = empty;
        n
    })
}

/// A probability as hundredths, written as a float (or, when whole and
/// `as_int`, an integer); shown as the f64 it is.
fn probability(hundredths: u32, as_int: bool) -> (Value, String) {
    let x = f64::from(hundredths) / 100.0;
    let written = if as_int && hundredths.is_multiple_of(100) {
        json!(hundredths / 100)
    } else {
        json!(x)
    };
    (written, x.to_string())
}

fn status_word() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("Running"), Just("Success"), Just("Failure")]
}

/// A condition type, its fields as written, and its parameters as shown
/// (Chance or Periodic; Periodic shows its defaulted offset too).
type ConditionFields = (
    &'static str,
    Vec<(&'static str, Value)>,
    Vec<(&'static str, String)>,
);

fn condition_fields() -> impl Strategy<Value = ConditionFields> {
    prop_oneof![
        (0u32..=100, any::<bool>()).prop_map(|(p, as_int)| {
            let (written, shown) = probability(p, as_int);
            ("Chance", vec![("p", written)], vec![("p", shown)])
        }),
        (1u32..10, 0u32..10, proptest::option::of(0u32..10)).prop_map(|(period, on, offset)| {
            let mut fields = vec![("period", json!(period)), ("on", json!(on))];
            if let Some(offset) = offset {
                fields.push(("offset", json!(offset)));
            }
            let shown = vec![
                ("period", period.to_string()),
                ("on", on.to_string()),
                ("offset", offset.unwrap_or(0).to_string()),
            ];
            ("Periodic", fields, shown)
        }),
    ]
}

fn leaf() -> impl Strategy<Value = GenNode> {
    let wait = prop_oneof![0u32..6, Just(i32::MAX as u32)].prop_map(|t| {
        node(
            "Wait",
            vec![("ticks", json!(t))],
            vec![("ticks", t.to_string())],
            vec![],
        )
    });
    let always = prop_oneof![
        Just("AlwaysSuccess"),
        Just("AlwaysFailure"),
        Just("AlwaysRunning")
    ]
    .prop_map(|ty| node(ty, vec![], vec![], vec![]));
    let script = (
        proptest::collection::vec(status_word(), 1..5),
        proptest::option::of(prop_oneof![Just("install"), Just("tick")]),
    )
        .prop_map(|(statuses, clock)| {
            let mut fields = vec![("statuses", json!(statuses))];
            if let Some(clock) = clock {
                fields.push(("clock", json!(clock)));
            }
            let shown = vec![
                ("statuses", format!("[{}]", statuses.join(", "))),
                ("clock", clock.unwrap_or("install").to_string()),
            ];
            node("Script", fields, shown, vec![])
        });
    let random = (0u32..=100)
        .prop_flat_map(|s| (Just(s), 0..=100 - s, any::<bool>()))
        .prop_map(|(s, f, as_int)| {
            let (s_written, s_shown) = probability(s, as_int);
            let (f_written, f_shown) = probability(f, as_int);
            node(
                "Random",
                vec![("success", s_written), ("failure", f_written)],
                vec![("success", s_shown), ("failure", f_shown)],
                vec![],
            )
        });
    let condition =
        condition_fields().prop_map(|(ty, fields, shown)| node(ty, fields, shown, vec![]));
    let reference = (0usize..8).prop_map(|slot| GenNode {
        slot: Some(slot),
        ..node("SubTree", vec![], vec![], vec![])
    });
    with_name(prop_oneof![
        2 => wait,
        2 => always,
        2 => script,
        1 => random,
        1 => condition,
        2 => reference,
    ])
}

fn decorator(inner: BoxedStrategy<GenNode>) -> impl Strategy<Value = GenNode> {
    let plain = (
        inner.clone(),
        prop_oneof![Just("Inverter"), Just("ForceSuccess"), Just("ForceFailure")],
    )
        .prop_map(|(child, ty)| node(ty, vec![], vec![], vec![child]));
    let counted = (
        inner.clone(),
        prop_oneof![Just("Repeat"), Just("Retry")],
        prop_oneof![1u32..5, Just(i32::MAX as u32)],
    )
        .prop_map(|(child, ty, n)| {
            node(
                ty,
                vec![("times", json!(n))],
                vec![("times", n.to_string())],
                vec![child],
            )
        });
    let timed = (
        inner.clone(),
        prop_oneof![Just("Timeout"), Just("Cooldown")],
        1u32..10,
    )
        .prop_map(|(child, ty, n)| {
            node(
                ty,
                vec![("ticks", json!(n))],
                vec![("ticks", n.to_string())],
                vec![child],
            )
        });
    let guard = (
        inner,
        prop_oneof![Just("Guard"), Just("ReactiveGuard")],
        condition_fields(),
        proptest::option::of(name_text()),
    )
        .prop_map(|(child, ty, (cond_ty, cond_fields, _), cond_name)| {
            let mut condition = Map::new();
            condition.insert("type".into(), json!(cond_ty));
            if let Some(n) = &cond_name {
                condition.insert("name".into(), json!(n));
            }
            for (k, v) in cond_fields {
                condition.insert(k.into(), v);
            }
            let label = cond_name.unwrap_or_else(|| cond_ty.to_string());
            node(
                ty,
                vec![("condition", Value::Object(condition))],
                vec![("condition", label)],
                vec![child],
            )
        });
    with_name(prop_oneof![plain, counted, timed, guard])
}

fn name_text() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z]{1,6}\\??", "\\PC{0,6}"]
}

fn composite(inner: BoxedStrategy<GenNode>) -> impl Strategy<Value = GenNode> {
    let ordered = (
        proptest::collection::vec(inner.clone(), 0..4),
        prop_oneof![
            Just("Sequence"),
            Just("Selector"),
            Just("ReactiveSequence"),
            Just("ReactiveSelector")
        ],
    )
        .prop_map(|(children, ty)| node(ty, vec![], vec![], children));
    let policy = || proptest::option::of(prop_oneof![Just("one"), Just("all")]);
    let parallel = (proptest::collection::vec(inner, 1..4), policy(), policy()).prop_map(
        |(children, success, failure)| {
            let mut fields = Vec::new();
            if let Some(s) = success {
                fields.push(("success", json!(s)));
            }
            if let Some(f) = failure {
                fields.push(("failure", json!(f)));
            }
            let shown = vec![
                ("success", success.unwrap_or("all").to_string()),
                ("failure", failure.unwrap_or("one").to_string()),
            ];
            node("Parallel", fields, shown, children)
        },
    );
    with_name(prop_oneof![3 => ordered, 1 => parallel])
}

fn tree() -> impl Strategy<Value = GenNode> {
    let any_node = leaf()
        .prop_recursive(6, 64, 4, |inner| {
            let inner = inner.boxed();
            prop_oneof![decorator(inner.clone()), composite(inner)]
        })
        .boxed();
    // Mostly a composite at the top, for trees of some size.
    prop_oneof![
        1 => any_node.clone(),
        1 => decorator(any_node.clone()),
        3 => composite(any_node),
    ]
}

/// Turn reference slots into references to subtrees in `allowed`, or into
/// AlwaysSuccess leaves when there are none.
fn resolve(n: &mut GenNode, allowed: &Range<usize>) {
    if let Some(slot) = n.slot.take() {
        if allowed.is_empty() {
            n.ty = "AlwaysSuccess";
        } else {
            n.target = Some(allowed.start + slot % allowed.len());
        }
    }
    for child in &mut n.children {
        resolve(child, allowed);
    }
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        tree(),
        proptest::collection::vec(("[A-Za-z]{1,5}|\\PC{0,4}", tree()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(mut tree, subtrees, empty_subtrees)| {
            let k = subtrees.len();
            let mut subtrees: Vec<(String, GenNode)> = subtrees
                .into_iter()
                .enumerate()
                .map(|(i, (name, mut root))| {
                    resolve(&mut root, &(i + 1..k));
                    // Unique names, some of them not RON identifiers.
                    (format!("{name}{i}"), root)
                })
                .collect();
            resolve(&mut tree, &(0..k));
            // Keep the order of definition unrelated to the order of reference.
            subtrees.reverse();
            let k1 = k.saturating_sub(1);
            let flip = |t: &mut Option<usize>| *t = t.map(|t| k1 - t);
            fn flip_all(n: &mut GenNode, flip: &dyn Fn(&mut Option<usize>)) {
                flip(&mut n.target);
                for c in &mut n.children {
                    flip_all(c, flip);
                }
            }
            flip_all(&mut tree, &flip);
            for (_, root) in &mut subtrees {
                flip_all(root, &flip);
            }
            Doc {
                tree,
                subtrees,
                empty_subtrees,
            }
        })
}

// ---------------------------------------------------------------------------
// Writing documents
// ---------------------------------------------------------------------------

fn node_value(n: &GenNode, doc: &Doc) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(n.ty));
    match &n.name {
        Name::Absent => {}
        Name::Type => {
            m.insert("name".into(), json!(n.ty));
        }
        Name::Text(t) => {
            m.insert("name".into(), json!(t));
        }
    }
    for (k, v) in &n.fields {
        m.insert(k.to_string(), v.clone());
    }
    if let Some(t) = n.target {
        m.insert("tree".into(), json!(doc.subtrees[t].0));
    }
    if !n.children.is_empty() || n.empty_children {
        let children = n.children.iter().map(|c| node_value(c, doc)).collect();
        m.insert("children".into(), Value::Array(children));
    }
    Value::Object(m)
}

fn doc_value(doc: &Doc) -> Value {
    let mut top = Map::new();
    top.insert("tree".into(), node_value(&doc.tree, doc));
    if !doc.subtrees.is_empty() || doc.empty_subtrees {
        let subtrees = doc
            .subtrees
            .iter()
            .map(|(name, root)| (name.clone(), node_value(root, doc)))
            .collect();
        top.insert("subtrees".into(), Value::Object(subtrees));
    }
    Value::Object(top)
}

/// How to write RON.
#[derive(Clone, Copy, Debug)]
enum RonStyle {
    /// `(type: "Wait", ticks: 2)` where every key is an identifier, with
    /// optional newlines and trailing commas.
    Structs { newlines: bool, trailing: bool },
    /// `ron::ser::to_string` of the JSON value: maps with string keys.
    Maps,
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn write_ron(v: &Value, newlines: bool, trailing: bool, out: &mut String) {
    let sep = if newlines { ",\n" } else { ", " };
    match v {
        Value::Null => out.push_str("()"),
        Value::Bool(b) => out.push_str(&b.to_string()),
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&format!("{:?}", n.as_f64().unwrap())),
        },
        Value::String(s) => out.push_str(&ron::ser::to_string(s).unwrap()),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                write_ron(item, newlines, trailing, out);
            }
            if trailing && !items.is_empty() {
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let structs = !map.is_empty() && map.keys().all(|k| is_identifier(k));
            out.push(if structs { '(' } else { '{' });
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                if structs {
                    out.push_str(k);
                } else {
                    out.push_str(&ron::ser::to_string(k).unwrap());
                }
                out.push_str(": ");
                write_ron(item, newlines, trailing, out);
            }
            if trailing && !map.is_empty() {
                out.push(',');
            }
            out.push(if structs { ')' } else { '}' });
        }
    }
}

fn ron_text(doc: &Doc, style: RonStyle) -> String {
    let value = doc_value(doc);
    match style {
        RonStyle::Structs { newlines, trailing } => {
            let mut out = String::new();
            write_ron(&value, newlines, trailing, &mut out);
            out
        }
        RonStyle::Maps => ron::ser::to_string(&value).unwrap(),
    }
}

fn ron_style() -> impl Strategy<Value = RonStyle> {
    prop_oneof![
        3 => (any::<bool>(), any::<bool>())
            .prop_map(|(newlines, trailing)| RonStyle::Structs { newlines, trailing }),
        1 => Just(RonStyle::Maps),
    ]
}

// ---------------------------------------------------------------------------
// The expected printout, computed from the document
// ---------------------------------------------------------------------------

/// A reference stands for its subtree's root (through chains of references).
fn resolved<'d>(mut n: &'d GenNode, doc: &'d Doc) -> &'d GenNode {
    while let Some(t) = n.target {
        n = &doc.subtrees[t].1;
    }
    n
}

/// `name  Type(k=v, …)`, or `Type(k=v, …)` when the name is the type.
fn describe(n: &GenNode) -> String {
    let mut kind = n.ty.to_string();
    if !n.shown.is_empty() {
        let params: Vec<String> = n.shown.iter().map(|(k, v)| format!("{k}={v}")).collect();
        kind = format!("{kind}({})", params.join(", "));
    }
    let name = match &n.name {
        Name::Absent | Name::Type => n.ty,
        Name::Text(t) => t,
    };
    if name == n.ty {
        kind
    } else {
        // Names are shown escaped (a generated name may hold any character).
        format!("{}  {kind}", canopy_core::text::escape(name))
    }
}

fn expected_display(doc: &Doc) -> String {
    fn children(n: &GenNode, doc: &Doc, prefix: &str, out: &mut String) {
        let count = n.children.len();
        for (i, child) in n.children.iter().enumerate() {
            let child = resolved(child, doc);
            let last = i + 1 == count;
            let (branch, indent) = if last {
                ("└── ", "    ")
            } else {
                ("├── ", "│   ")
            };
            out.push_str(&format!("{prefix}{branch}{}\n", describe(child)));
            children(child, doc, &format!("{prefix}{indent}"), out);
        }
    }
    let root = resolved(&doc.tree, doc);
    let mut out = format!("{}\n", describe(root));
    children(root, doc, "", &mut out);
    out
}

/// Distinct node definitions: every referenced subtree counts once.
fn expected_len(doc: &Doc) -> usize {
    fn walk(n: &GenNode, doc: &Doc, seen: &mut Vec<bool>) -> usize {
        if let Some(t) = n.target {
            if seen[t] {
                return 0;
            }
            seen[t] = true;
            return walk(&doc.subtrees[t].1, doc, seen);
        }
        1 + n.children.iter().map(|c| walk(c, doc, seen)).sum::<usize>()
    }
    walk(&doc.tree, doc, &mut vec![false; doc.subtrees.len()])
}

// ---------------------------------------------------------------------------
// Running trees
// ---------------------------------------------------------------------------

/// Statuses of a few agents over a few ticks each.
fn run(tree: &Tree<(), ()>) -> Vec<Status> {
    let mut statuses = Vec::new();
    for id in 0..3 {
        let mut agent = Agent::with_id(tree, id);
        for _ in 0..6 {
            statuses.push(agent.tick(tree, &mut (), &()));
        }
    }
    statuses
}

/// Run a property test on a thread with a large stack: in debug builds,
/// generating values from the deeply nested recursive strategies above
/// takes more than the 2 MiB a test thread has (proptest itself recurses
/// through the strategy tree).
fn check<S, F>(cases: u32, strategy: impl FnOnce() -> S + Send + 'static, test: F)
where
    S: Strategy,
    S::Value: std::fmt::Debug,
    F: Fn(S::Value) -> Result<(), TestCaseError> + Send + 'static,
{
    let thread = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            // PROPTEST_CASES overrides the number of cases, as for proptest!.
            let cases = std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|c| c.parse().ok())
                .unwrap_or(cases);
            let config = Config {
                cases,
                failure_persistence: None,
                ..Config::default()
            };
            let mut runner = TestRunner::new(config);
            if let Err(e) = runner.run(&strategy(), test) {
                panic!("{e}");
            }
        })
        .unwrap();
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn valid_documents_load_print_and_tick() {
    let strategy = || {
        (
            doc(),
            any::<bool>(),
            proptest::option::weighted(0.6, ron_style()),
        )
    };
    check(256, strategy, |(doc, pretty, also_ron)| {
        let registry = Registry::<(), ()>::new();
        let value = doc_value(&doc);
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let tree = registry
            .loading(TreeSource::text(&text, Format::Json, "gen.json"))
            .load()
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let expected = expected_display(&doc);
        prop_assert_eq!(
            tree.display().to_string(),
            expected.clone(),
            "file:\n{}",
            text
        );
        prop_assert_eq!(tree.len(), expected_len(&doc));
        let statuses = run(&tree);

        if let Some(style) = also_ron {
            let text = ron_text(&doc, style);
            let from_ron = registry
                .loading(TreeSource::text(&text, Format::Ron, "gen.ron"))
                .load()
                .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(from_ron.display().to_string(), expected, "file:\n{}", text);
            prop_assert_eq!(from_ron.len(), tree.len());
            // Same file, same seed: the same outcomes, Random leaves included.
            prop_assert_eq!(run(&from_ron), statuses);
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------
// No input panics
// ---------------------------------------------------------------------------

/// Load `bytes` in both formats; an error must say which file it is about
/// and, for syntax errors, give a 1-based position.
fn never_panics(bytes: &[u8]) -> Result<(), TestCaseError> {
    let registry = Registry::<(), ()>::new();
    for (format, file) in [(Format::Json, "x.json"), (Format::Ron, "x.ron")] {
        match registry
            .loading(TreeSource::bytes(bytes, format, file))
            .load()
        {
            Ok(tree) => {
                let _ = tree.display().to_string();
                let _ = run(&tree);
            }
            Err(e) => check_error(&e, file)?,
        }
    }
    Ok(())
}

fn check_error(e: &LoadError, file: &str) -> Result<(), TestCaseError> {
    let text = e.to_string();
    prop_assert!(text.starts_with(file), "{}", text);
    prop_assert!(!e.problem().to_string().is_empty(), "{}", text);
    if let Location::Text(at) | Location::Node { at: Some(at), .. } = *e.location() {
        prop_assert!(at.line >= 1 && at.column >= 1, "{}", text);
    }
    Ok(())
}

/// Pieces of tree files and troublemakers, for mangling text.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ":",
    "\"",
    "\\",
    "0",
    "-1",
    "1e999",
    "2147483648",
    "0.5",
    "null",
    "true",
    "()",
    "\"SubTree\"",
    "\"tree\"",
    "\"subtrees\"",
    "\"children\"",
    "\"type\"",
    "\"name\"",
    "\"Parallel\"",
    "\"Inverter\"",
    "\"Guard\"",
    "\"condition\"",
    "\"Chance\"",
    "\"Script\"",
    "\"statuses\"",
    "b\"x\"",
    "Some(",
    "inf",
    "NaN",
    "'c'",
    "/*",
    "//",
    "r#\"",
    "#",
    "\u{0}",
    "é",
    "🌲",
    "\n",
    "type:",
    "tree:",
    "children: [",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete(Index, usize),
    Insert(Index, Vec<u8>),
    Replace(Index, usize, Vec<u8>),
    Duplicate(Index, usize),
    FlipBit(Index, u8),
}

fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => proptest::sample::select(TOKENS).prop_map(|t| t.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 1..4),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), 1usize..16).prop_map(|(at, n)| Mutation::Delete(at, n)),
        (any::<Index>(), token()).prop_map(|(at, t)| Mutation::Insert(at, t)),
        (any::<Index>(), 1usize..8, token()).prop_map(|(at, n, t)| Mutation::Replace(at, n, t)),
        (any::<Index>(), 1usize..64).prop_map(|(at, n)| Mutation::Duplicate(at, n)),
        (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit(at, bit)),
    ]
}

fn mutate(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    match m {
        Mutation::Delete(at, n) => {
            let at = at.index(len + 1);
            bytes.drain(at..(at + n).min(len));
        }
        Mutation::Insert(at, t) => {
            let at = at.index(len + 1);
            bytes.splice(at..at, t.iter().copied());
        }
        Mutation::Replace(at, n, t) => {
            let at = at.index(len + 1);
            bytes.splice(at..(at + n).min(len), t.iter().copied());
        }
        Mutation::Duplicate(at, n) => {
            let at = at.index(len + 1);
            let piece = bytes[at..(at + n).min(len)].to_vec();
            bytes.splice(at..at, piece);
        }
        Mutation::FlipBit(at, bit) => {
            if len > 0 {
                bytes[at.index(len)] ^= 1 << bit;
            }
        }
    }
}

/// Documents that look like tree files but hold anything: known and unknown
/// types, wrong parameter values, references to subtrees that are missing
/// or form cycles.
fn nonsense_value() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-3i64..40).prop_map(Value::from),
        any::<f64>()
            .prop_map(|x| serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)),
        proptest::sample::select(
            &[
                "Running", "Success", "Failure", "Sucess", "one", "all", "tick", "install", "A",
                "B", "C", "", "Sequence", "Chance",
            ][..]
        )
        .prop_map(|s| json!(s)),
        "\\PC{0,5}".prop_map(Value::String),
    ];
    let types = proptest::sample::select(
        &[
            "Sequence",
            "Selector",
            "ReactiveSequence",
            "ReactiveSelector",
            "Parallel",
            "Inverter",
            "ForceSuccess",
            "ForceFailure",
            "Repeat",
            "Retry",
            "Guard",
            "ReactiveGuard",
            "Timeout",
            "Cooldown",
            "Wait",
            "AlwaysSuccess",
            "AlwaysFailure",
            "AlwaysRunning",
            "Script",
            "Random",
            "Chance",
            "Periodic",
            "SubTree",
            "SubTree",
            "Nope",
        ][..],
    );
    let keys = proptest::sample::select(
        &[
            "ticks",
            "times",
            "success",
            "failure",
            "statuses",
            "clock",
            "p",
            "period",
            "on",
            "offset",
            "tree",
            "name",
            "condition",
            "bogus",
        ][..],
    );
    let leaf = (
        types.clone(),
        proptest::collection::vec((keys.clone(), scalar.clone()), 0..4),
    )
        .prop_map(|(ty, fields)| {
            let mut m: Map<String, Value> = fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            m.insert("type".into(), json!(ty));
            Value::Object(m)
        });
    let node = leaf.prop_recursive(4, 24, 3, move |inner| {
        (
            types.clone(),
            proptest::collection::vec((keys.clone(), scalar.clone()), 0..3),
            proptest::collection::vec(inner.clone(), 0..3),
            proptest::option::of(inner),
        )
            .prop_map(|(ty, fields, children, condition)| {
                let mut m: Map<String, Value> = fields
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                m.insert("type".into(), json!(ty));
                m.insert("children".into(), Value::Array(children));
                if let Some(c) = condition {
                    m.insert("condition".into(), c);
                }
                Value::Object(m)
            })
    });
    (
        node.clone(),
        proptest::collection::vec((proptest::sample::select(&["A", "B", "C"][..]), node), 0..4),
    )
        .prop_map(|(tree, subtrees)| {
            let subtrees: Map<String, Value> = subtrees
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            json!({"tree": tree, "subtrees": subtrees})
        })
}

#[test]
fn random_bytes_never_panic() {
    check(
        512,
        || proptest::collection::vec(any::<u8>(), 0..256),
        |bytes| never_panics(&bytes),
    );
}

#[test]
fn random_text_never_panics() {
    let strategy = || prop_oneof![any::<String>(), "[{}\\[\\]():,\" a-zA-Z0-9._#\\-]{0,64}",];
    check(512, strategy, |text| never_panics(text.as_bytes()));
}

#[test]
fn mangled_valid_files_never_panic() {
    let strategy = || {
        (
            doc(),
            proptest::option::of(ron_style()),
            proptest::collection::vec(mutation(), 1..5),
        )
    };
    check(512, strategy, |(doc, as_ron, mutations)| {
        let mut bytes = match as_ron {
            Some(style) => ron_text(&doc, style),
            None => serde_json::to_string(&doc_value(&doc)).unwrap(),
        }
        .into_bytes();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        never_panics(&bytes)
    });
}

#[test]
fn nonsense_documents_never_panic() {
    check(
        512,
        || (nonsense_value(), any::<bool>()),
        |(value, as_ron)| {
            let text = if as_ron {
                ron::ser::to_string(&value).unwrap()
            } else {
                value.to_string()
            };
            never_panics(text.as_bytes())
        },
    );
}

// ---------------------------------------------------------------------------
// Printing: fixed cases and known gaps
// ---------------------------------------------------------------------------

#[test]
fn shared_subtree_prints_under_each_reference_and_counts_once() {
    let text = r#"{"tree": {"type": "Sequence", "name": "root \"quoted\"", "children": [
            {"type": "SubTree", "name": "ignored", "tree": "Walk"},
            {"type": "Guard", "condition": {"type": "Periodic", "period": 4, "on": 2},
             "children": [{"type": "SubTree", "tree": "Walk"}]}
        ]},
        "subtrees": {"Walk": {"type": "Retry", "name": "walk 🌲", "times": 3, "children": [
            {"type": "Random", "name": "step", "success": 0.3, "failure": 0}
        ]}}}"#;
    let tree = Registry::<(), ()>::new()
        .loading(TreeSource::text(text, Format::Json, "walk.json"))
        .load()
        .unwrap();
    assert_eq!(
        tree.display().to_string(),
        "root \"quoted\"  Sequence\n\
         ├── walk 🌲  Retry(times=3)\n\
         │   └── step  Random(success=0.3, failure=0)\n\
         └── Guard(condition=Periodic)\n    \
             └── walk 🌲  Retry(times=3)\n        \
                 └── step  Random(success=0.3, failure=0)\n"
    );
    assert_eq!(tree.len(), 4);
}

#[test]
fn condition_leaves_print_their_parameters() {
    let text = r#"(tree: (type: "Sequence", children: [
        (type: "Chance", p: 0.25),
        (type: "Periodic", name: "day?", period: 24, on: 12),
    ]))"#;
    let tree = Registry::<(), ()>::new()
        .loading(TreeSource::text(text, Format::Ron, "c.ron"))
        .load()
        .unwrap();
    assert_eq!(
        tree.display().to_string(),
        "Sequence\n\
         ├── Chance(p=0.25)\n\
         └── day?  Periodic(period=24, on=12, offset=0)\n"
    );
}
