//! A document parsed once and loaded from its value ([`parse`],
//! `TreeSource::json`) gives the tree, and the errors, that loading
//! the text gives.

use canopy_data::{Format, LoadError, Location, Problem, Registry, TreeSource, parse};
use serde_json::{Value, json};

fn registry() -> Registry<(), ()> {
    Registry::new()
}

fn example(name: &str) -> String {
    let path = format!("{}/../../examples/trees/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_example_files_load_the_same_from_their_parsed_documents() {
    for (name, format) in [("sentry.json", Format::Json), ("pet.ron", Format::Ron)] {
        let text = example(name);
        let from_text = registry()
            .loading(TreeSource::text(&text, format, name))
            .load()
            .unwrap();
        let document = parse(&text, format, name).unwrap();
        let from_value = registry()
            .loading(TreeSource::json(&document, name))
            .load()
            .unwrap();
        assert_eq!(
            from_value.display().to_string(),
            from_text.display().to_string(),
            "{name}"
        );
        assert_eq!(from_value.len(), from_text.len());
    }
}

#[test]
fn errors_from_a_value_are_the_errors_from_its_text() {
    let texts = [
        r#"{"tree": {"type": "Sequence", "children": [{"type": "Wiat", "ticks": 2}]}}"#,
        r#"{"tree": {"type": "Wait", "ticks": 2, "tics": 3}}"#,
        r#"{"tree": {"type": "SubTree", "tree": "Missing"}, "subtrees": {"Mising": {"type": "AlwaysSuccess"}}}"#,
        r#"{"tree": {"type": "Parallel", "children": []}}"#,
        r#"{"tree": {"type": "Guard", "condition": {"type": "Wait"}, "children": [{"type": "AlwaysSuccess"}]}}"#,
        r#"{"tree": {"type": "Sequence"}, "subtrees": {"A": {"type": "SubTree", "tree": "A"}}}"#,
        r#"{"tree": 3}"#,
    ];
    for text in texts {
        let from_text = registry()
            .loading(TreeSource::text(text, Format::Json, "e.json"))
            .load()
            .unwrap_err();
        let document: Value = serde_json::from_str(text).unwrap();
        let from_value = registry()
            .loading(TreeSource::json(&document, "e.json"))
            .load()
            .unwrap_err();
        assert_eq!(from_value, unplaced(&from_text), "{text}");
    }
    // The builder's own errors are located in the document too.
    let from_value = registry()
        .loading(TreeSource::json(
            &json!({"tree": {"type": "Parallel", "children": []}}),
            "p",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        from_value.to_string(),
        r#"p: tree (name "Parallel"): a Parallel needs at least one child, got 0"#
    );
}

/// The error without its position in the text: a JSON value has no text,
/// so its errors are the text's errors without it.
fn unplaced(e: &LoadError) -> LoadError {
    let location = match e.location().clone() {
        Location::Node { path, name, .. } => Location::Node {
            path,
            name,
            at: None,
        },
        other => other,
    };
    LoadError::new(e.file(), location, e.problem().clone())
}

/// A document of `depth` nested lists under the tree's root.
fn nested(depth: usize) -> (String, Value) {
    let mut value = json!(1);
    let mut text = "1".to_string();
    for _ in 0..depth {
        value = Value::Array(vec![value]);
        text = format!("[{text}]");
    }
    let text = format!(r#"{{"tree": {{"type": "Wait", "ticks": {text}}}}}"#);
    (text, json!({"tree": {"type": "Wait", "ticks": value}}))
}

#[test]
fn values_nest_as_deep_as_json_text_and_no_deeper() {
    // The top object and the node object take two brackets.
    let (text, value) = nested(125);
    let from_text = registry()
        .loading(TreeSource::text(&text, Format::Json, "n"))
        .load()
        .unwrap_err();
    let from_value = registry()
        .loading(TreeSource::json(&value, "n"))
        .load()
        .unwrap_err();
    assert_eq!(from_value, unplaced(&from_text));
    assert!(matches!(from_value.problem(), Problem::Param(_)));

    let (text, value) = nested(126);
    let from_text = registry()
        .loading(TreeSource::text(&text, Format::Json, "n"))
        .load()
        .unwrap_err();
    assert_eq!(from_text.problem(), &Problem::TooDeeplyNested);
    let from_value = registry()
        .loading(TreeSource::json(&value, "n"))
        .load()
        .unwrap_err();
    assert_eq!(
        from_value,
        LoadError::new("n", Location::File, Problem::TooDeeplyNested)
    );
}

#[test]
fn the_parse_is_strict() {
    let message = |text: &str, format| parse(text, format, "s").unwrap_err().to_string();
    assert_eq!(
        message(
            r#"{"tree": {"type": "Wait", "ticks": 1, "ticks": 2}}"#,
            Format::Json
        ),
        r#"s:1:45: field "ticks" is given twice"#
    );
    assert_eq!(
        message("(tree: (type: \"Wait\", ticks: inf))", Format::Ron),
        "s:1:30: numbers must be finite: infinity, NaN and numbers beyond ±1.8e308 are refused"
    );
    assert_eq!(
        message("  \n", Format::Json),
        "s: the file holds only whitespace"
    );
    assert_eq!(
        message("{\"tree\": [}", Format::Json),
        "s:1:11: malformed JSON: expected value"
    );
    // A byte-order mark is skipped; the document is all there.
    let document = parse(
        "\u{feff}(tree: (type: \"Wait\", ticks: 3))",
        Format::Ron,
        "b",
    )
    .unwrap();
    assert_eq!(document, json!({"tree": {"type": "Wait", "ticks": 3}}));
}

/// A lowered document's node of the lowering's own `made:Rounds` type
/// over one `AlwaysSuccess`, with `fields` besides its type and child.
fn lowered_rounds(fields: &str) -> Value {
    let text = format!(
        r#"{{"tree": {{"type": "made:Rounds", {fields} "children": [{{"type": "AlwaysSuccess"}}]}}}}"#
    );
    serde_json::from_str(&text).unwrap()
}

/// A type of a lowering's own: its child `rounds` times for each child it
/// has (one), which its factory is told.
fn rounds() -> canopy_data::NodeType<(), ()> {
    use canopy_core::{Arity, NodeKind, nodes::Repeat, params::Param};
    canopy_data::NodeType::sized(
        "made:Rounds",
        "its child `rounds` times per child",
        Arity::Decorator,
        vec![Param::count("rounds", "how many")],
        |p, children| {
            let times = p.u32("rounds")? * children as u32;
            Ok(NodeKind::from(Repeat { times }))
        },
    )
}

/// A lowering whose document is a JSON value's.
struct Lowered<'a>(&'a Value);

impl canopy_data::Lowering for Lowered<'_> {
    fn document(&self) -> Option<canopy_data::document::Value<'_>> {
        Some(canopy_data::document::from_json_owned(self.0.clone()))
    }
}

fn load_lowered(document: &Value) -> Result<canopy_core::Tree<(), ()>, LoadError> {
    registry()
        .loading(TreeSource::Lowered {
            lowering: &mut Lowered(document),
            format: Format::Json,
            name: "made",
        })
        .own_types(&[rounds()])
        .load()
}

#[test]
fn a_lowerings_own_type_is_built_in_the_same_pass_and_checked_as_any_type() {
    let tree = load_lowered(&lowered_rounds(r#""rounds": 3,"#)).unwrap();
    // Shown as its kind shows itself, built with the number of children.
    assert_eq!(
        tree.display().to_string(),
        "made:Rounds  Repeat(times=3)\n└── AlwaysSuccess\n"
    );
    let unknown = load_lowered(&lowered_rounds(r#""rounds": 3, "round": 1,"#)).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "made: tree (name \"made:Rounds\"): unknown parameter \"round\" for made:Rounds \
         (did you mean \"rounds\"?); it takes: rounds"
    );
    let missing = load_lowered(&lowered_rounds("")).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "made: tree (name \"made:Rounds\"): missing parameter \"rounds\" (integer ≥ 1, required)"
    );
    // Without the lowering, the name is no type at all.
    let document = lowered_rounds(r#""rounds": 3,"#);
    assert!(matches!(
        registry()
            .loading(TreeSource::json(&document, "made"))
            .load()
            .unwrap_err()
            .problem(),
        Problem::UnknownType { .. }
    ));
}
