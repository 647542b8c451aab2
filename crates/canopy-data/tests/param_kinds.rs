//! Every parameter kind a node type can declare — numbers, ticks, strings,
//! words of an enum, points, lists, optional values — checked at load with
//! the exact message a user sees, read typed by the factory, and printed
//! back unambiguously.

use canopy_core::{Agent, Arity, Children, Ctx, Node, Status};
use canopy_data::{
    Format, NodeParams, NodeType, Param, ParamEnum, ParamError, ParamKind, Params, Problem,
    Registry, RegistryError, Ticks, TreeSource,
};
use canopy_derive::Task;

#[derive(Clone, Copy, Debug, PartialEq, ParamEnum)]
enum Gait {
    Walk,
    Run,
    #[param(rename = "sneak")]
    Crouch,
}

/// Every kind at once.
#[derive(Debug, Params)]
#[allow(dead_code, reason = "the tests read the fields through Debug")]
struct Everything {
    /// A small whole number.
    #[param(default = 3)]
    level: u8,
    /// A fraction.
    #[param(default = 0.5, range = 0.0..=1.0)]
    share: f32,
    /// A switch.
    #[param(default = false)]
    loud: bool,
    /// Something to say.
    #[param(default = "hello")]
    line: String,
    /// How to move.
    #[param(default = Gait::Walk)]
    gait: Gait,
    /// How long to rest.
    #[param(default = 20)]
    rest: Ticks,
    /// Where to stand.
    #[param(default = [0.0, 0.0], range = -100.0..=100.0)]
    home: [f32; 2],
    /// Where to look, in 3D.
    #[param(default = [0.0, 0.0, 1.0])]
    facing: [f64; 3],
    /// Where to walk.
    #[param(default = [[0.0, 0.0]], len = 1..=4)]
    route: Vec<[f32; 2]>,
    /// Words to shout.
    #[param(default = [])]
    shouts: Vec<String>,
    /// Laps before stopping, if any.
    laps: Option<u32>,
    /// Gaits to try in turn, if any.
    gaits: Option<Vec<Gait>>,
}

/// The `Everything` read by the last node loaded, for the tests to look at.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

fn registry(seen: &Seen) -> Registry<(), ()> {
    let mut registry = Registry::new();
    let seen = seen.clone();
    registry
        .action("All", move |p: Everything| {
            seen.lock().unwrap().push(format!("{p:?}"));
            |_: &mut Ctx<(), ()>| Status::Success
        })
        .unwrap();
    registry
}

/// The error of loading one `All` node with these extra fields (JSON).
fn error(fields: &str) -> String {
    let text = format!(r#"{{"tree": {{"type": "All", "name": "all"{fields}}}}}"#);
    match registry(&Seen::default())
        .loading(TreeSource::text(&text, Format::Json, "k.json"))
        .load()
    {
        Ok(_) => panic!("loaded: {text}"),
        Err(e) => e.to_string(),
    }
}

/// The message after the node's place, for brevity.
fn problem(fields: &str) -> String {
    let message = error(fields);
    // The node object is `{"tree": {` in: its first field at column 12.
    let prefix = r#"k.json:1:12: tree (name "all"): "#;
    message
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("unexpected place: {message}"))
        .to_string()
}

/// The `Everything` a node with these extra fields reads, and its printed line.
fn loads(fields: &str, format: Format) -> (String, String) {
    let text = match format {
        Format::Json => format!(r#"{{"tree": {{"type": "All"{fields}}}}}"#),
        _ => format!(r#"(tree: (type: "All"{fields}))"#),
    };
    let seen = Seen::default();
    let tree = registry(&seen)
        .loading(TreeSource::text(&text, format, "k"))
        .load()
        .unwrap_or_else(|e| panic!("{e}"));
    let read = seen.lock().unwrap().pop().unwrap();
    (read, tree.display().to_string())
}

#[test]
fn defaults_are_used_and_printed() {
    let (read, printed) = loads("", Format::Json);
    assert_eq!(
        read,
        "Everything { level: 3, share: 0.5, loud: false, line: \"hello\", gait: Walk, \
         rest: Ticks(20), home: [0.0, 0.0], facing: [0.0, 0.0, 1.0], route: [[0.0, 0.0]], \
         shouts: [], laps: None, gaits: None }"
    );
    assert_eq!(
        printed,
        "All(level=3, share=0.5, loud=false, line=\"hello\", gait=walk, rest=20, home=[0, 0], \
         facing=[0, 0, 1], route=[[0, 0]], shouts=[])\n"
    );
}

#[test]
fn given_values_are_read_and_printed_unambiguously() {
    let fields = r#", "level": 255, "share": 1, "loud": true, "line": "a, \"b\"", "gait": "sneak",
        "rest": 2147483647, "home": [-100, 2.5], "facing": [1, 2, 3],
        "route": [[0, 0], [10, 0], [10, 10.25]], "shouts": ["hey", "a, b"], "laps": 3,
        "gaits": ["run", "walk"]"#;
    let (read, printed) = loads(fields, Format::Json);
    assert_eq!(
        read,
        "Everything { level: 255, share: 1.0, loud: true, line: \"a, \\\"b\\\"\", gait: Crouch, \
         rest: Ticks(2147483647), home: [-100.0, 2.5], facing: [1.0, 2.0, 3.0], \
         route: [[0.0, 0.0], [10.0, 0.0], [10.0, 10.25]], shouts: [\"hey\", \"a, b\"], \
         laps: Some(3), gaits: Some([Run, Walk]) }"
    );
    assert_eq!(
        printed,
        "All(level=255, share=1, loud=true, line=\"a, \\\"b\\\"\", gait=sneak, rest=2147483647, \
         home=[-100, 2.5], facing=[1, 2, 3], route=[[0, 0], [10, 0], [10, 10.25]], \
         shouts=[\"hey\", \"a, b\"], laps=3, gaits=[run, walk])\n"
    );
}

#[test]
fn ron_writes_points_as_tuples_and_options_as_some_and_none() {
    let fields = r#", home: (1, 2), route: [(0, 0), (3, 4)], laps: Some(2), gaits: None"#;
    let (read, _) = loads(fields, Format::Ron);
    assert!(read.contains("home: [1.0, 2.0]"), "{read}");
    assert!(read.contains("route: [[0.0, 0.0], [3.0, 4.0]]"), "{read}");
    assert!(read.contains("laps: Some(2), gaits: None"), "{read}");
    // `null` in JSON is "not given" for an optional parameter.
    let (read, _) = loads(r#", "laps": null"#, Format::Json);
    assert!(read.contains("laps: None"), "{read}");
}

#[test]
fn numbers_of_the_wrong_type_or_out_of_range() {
    assert_eq!(
        problem(r#", "level": "high""#),
        r#"parameter "level" must be an integer, got string "high""#
    );
    assert_eq!(
        problem(r#", "level": 256"#),
        r#"parameter "level" must be at most 255, got 256"#
    );
    assert_eq!(
        problem(r#", "level": 2.5"#),
        r#"parameter "level" must be an integer, got number 2.5"#
    );
    assert_eq!(
        problem(r#", "share": 1.5"#),
        r#"parameter "share" must be in 0..=1, got 1.5"#
    );
    assert_eq!(
        problem(r#", "share": [0.5]"#),
        r#"parameter "share" must be a number, got list [0.5]"#
    );
    assert_eq!(
        problem(r#", "loud": "yes""#),
        r#"parameter "loud" must be true or false, got string "yes""#
    );
    assert_eq!(
        problem(r#", "line": 7"#),
        r#"parameter "line" must be a string, got number 7"#
    );
}

#[test]
fn ticks_are_at_most_two_to_the_31_minus_one() {
    assert_eq!(
        problem(r#", "rest": 2147483648"#),
        r#"parameter "rest" must be at most 2147483647, got 2147483648"#
    );
    assert_eq!(
        problem(r#", "rest": -1"#),
        r#"parameter "rest" must be at least 0, got -1"#
    );
}

#[test]
fn unknown_enum_words_suggest_the_closest() {
    assert_eq!(
        problem(r#", "gait": "rnu""#),
        r#"parameter "gait" must be one of "walk", "run", "sneak", got "rnu" (did you mean "run"?)"#
    );
    assert_eq!(
        problem(r#", "gait": "Crouch""#),
        r#"parameter "gait" must be one of "walk", "run", "sneak", got "Crouch""#
    );
    assert_eq!(
        problem(r#", "gait": 1"#),
        r#"parameter "gait" must be a string, got number 1"#
    );
    assert_eq!(
        problem(r#", "gaits": ["run", "wakl"]"#),
        r#"parameter "gaits[1]" must be one of "walk", "run", "sneak", got "wakl" (did you mean "walk"?)"#
    );
}

#[test]
fn points_of_the_wrong_length_or_with_a_wrong_coordinate() {
    assert_eq!(
        problem(r#", "home": [1, 2, 3]"#),
        r#"parameter "home" must be a point [x, y], got list [1,2,3]"#
    );
    assert_eq!(
        problem(r#", "facing": [1, 2]"#),
        r#"parameter "facing" must be a point [x, y, z], got list [1,2]"#
    );
    assert_eq!(
        problem(r#", "home": {"x": 1, "y": 2}"#),
        r#"parameter "home" must be a point [x, y], got object {"x":1,"y":2}"#
    );
    assert_eq!(
        problem(r#", "home": [1, "north"]"#),
        r#"parameter "home[1]" must be a number, got string "north""#
    );
    assert_eq!(
        problem(r#", "home": [1, 101]"#),
        r#"parameter "home[1]" must be in -100..=100, got 101"#
    );
}

#[test]
fn lists_name_the_wrong_item_by_its_index() {
    assert_eq!(
        problem(r#", "route": [[0, 0], [1, 1], [2]]"#),
        r#"parameter "route[2]" must be a point [x, y], got list [2]"#
    );
    assert_eq!(
        problem(r#", "route": [[0, 0], [1, "x"]]"#),
        r#"parameter "route[1][1]" must be a number, got string "x""#
    );
    assert_eq!(
        problem(r#", "route": [0, 0]"#),
        r#"parameter "route[0]" must be a point [x, y], got number 0"#
    );
    assert_eq!(
        problem(r#", "route": "0,0 10,0""#),
        r#"parameter "route" must be a list, got string "0,0 10,0""#
    );
    assert_eq!(
        problem(r#", "shouts": ["hey", 3]"#),
        r#"parameter "shouts[1]" must be a string, got number 3"#
    );
}

#[test]
fn list_lengths_are_bounded() {
    assert_eq!(
        problem(r#", "route": []"#),
        r#"parameter "route" must be a list of 1 to 4 items, got 0 items"#
    );
    assert_eq!(
        problem(r#", "route": [[0,0],[0,0],[0,0],[0,0],[0,0]]"#),
        r#"parameter "route" must be a list of 1 to 4 items, got 5 items"#
    );
}

#[test]
fn optional_values_are_checked_when_given() {
    assert_eq!(
        problem(r#", "laps": -2"#),
        r#"parameter "laps" must be at least 0, got -2"#
    );
    assert_eq!(
        problem(r#", "gaits": "run""#),
        r#"parameter "gaits" must be a list, got string "run""#
    );
}

/// A type whose parameters have no defaults.
#[derive(Params)]
#[allow(dead_code, reason = "only the declaration is tested")]
struct Needs {
    /// Where to go.
    goal: [f32; 2],
    /// Stops on the way.
    stops: Vec<[f32; 2]>,
}

#[test]
fn missing_required_parameters_say_what_they_hold() {
    let mut registry = Registry::<(), ()>::new();
    registry
        .action("Go", |_: Needs| |_: &mut Ctx<(), ()>| Status::Success)
        .unwrap();
    let load = |text: &str| {
        registry
            .loading(TreeSource::text(text, Format::Json, "g.json"))
            .load()
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        load(r#"{"tree": {"type": "Go", "stops": []}}"#),
        r#"g.json:1:12: tree (name "Go"): missing parameter "goal" (point [x, y], required)"#
    );
    assert_eq!(
        load(r#"{"tree": {"type": "Go", "goal": [1, 2]}}"#),
        r#"g.json:1:12: tree (name "Go"): missing parameter "stops" (list of points [x, y], required)"#
    );
    assert_eq!(
        load(r#"{"tree": {"type": "Go", "goal": [1, 2], "stop": []}}"#),
        r#"g.json:1:12: tree (name "Go"): unknown parameter "stop" for Go (did you mean "stops"?); it takes: goal, stops"#
    );
}

#[test]
fn the_derive_declares_each_parameter_once() {
    let described: Vec<String> = Everything::declare()
        .iter()
        .map(|p| format!("{}: {} — {}", p.name, p.describe(), p.doc))
        .collect();
    assert_eq!(
        described,
        [
            "level: integer in 0..=255, default 3 — A small whole number.",
            "share: number in 0..=1, default 0.5 — A fraction.",
            "loud: true or false, default false — A switch.",
            "line: string, default \"hello\" — Something to say.",
            "gait: one of \"walk\", \"run\", \"sneak\", default \"walk\" — How to move.",
            "rest: integer ≥ 0, default 20 — How long to rest.",
            "home: point [x, y], each in -100..=100, default [0.0,0.0] — Where to stand.",
            "facing: point [x, y, z], default [0.0,0.0,1.0] — Where to look, in 3D.",
            "route: list of 1 to 4 points [x, y], default [[0.0,0.0]] — Where to walk.",
            "shouts: list of strings, default [] — Words to shout.",
            "laps: integer ≥ 0, optional — Laps before stopping, if any.",
            "gaits: list of \"walk\" / \"run\" / \"sneak\", optional — Gaits to try in turn, if any.",
        ]
    );
    assert_eq!(Everything::description(), "Every kind at once.");
    assert_eq!(
        Everything::declare()[0],
        Param::of::<u8>("level", "A small whole number.").default(3)
    );
}

/// Chooses a lane.
#[derive(Params)]
#[params(check = Self::check)]
struct Lanes {
    /// Narrowest lane.
    #[param(default = 1)]
    min: u32,
    /// Widest lane.
    #[param(default = 4)]
    max: u32,
}

impl Lanes {
    fn check(&self) -> Result<(), String> {
        if self.min > self.max {
            return Err(format!(
                "min ({}) must not exceed max ({})",
                self.min, self.max
            ));
        }
        Ok(())
    }
}

#[test]
fn a_check_between_fields_reports_with_the_node() {
    let mut registry = Registry::<(), ()>::new();
    registry
        .action("Lane", |_: Lanes| |_: &mut Ctx<(), ()>| Status::Success)
        .unwrap();
    let e = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Sequence", "children": [{"type": "Lane", "min": 5, "max": 2}]}}"#,
            Format::Json,
            "l.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"l.json:1:46: tree/children[0] (name "Lane"): min (5) must not exceed max (2)"#
    );
    assert_eq!(
        e.problem(),
        &Problem::Param(ParamError::Invalid(
            "min (5) must not exceed max (2)".into()
        ))
    );
}

#[test]
fn a_default_that_is_not_of_its_kind_is_refused_at_registration() {
    let mut registry = Registry::<(), ()>::new();
    let bad = |param: Param| {
        NodeType::new("Bad", "", Arity::Leaf, vec![param], |_| {
            Ok(canopy_core::nodes::AlwaysSuccess.into())
        })
    };
    let e = registry
        .register(bad(Param::of::<Ticks>("rest", "").default(u32::MAX)))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"node type "Bad": the default of parameter "rest" is refused: parameter "rest" must be at most 2147483647, got 4294967295"#
    );
    let e = registry
        .register(bad(Param::of::<[f32; 2]>("at", "").default([1.0, 2.0, 3.0])))
        .unwrap_err();
    assert!(matches!(&e, RegistryError::BadDefault { param, .. } if param == "at"));
    assert_eq!(
        e.to_string(),
        r#"node type "Bad": the default of parameter "at" is refused: parameter "at" must be a point [x, y], got list [1.0,2.0,3.0]"#
    );
    let e = registry
        .register(bad(Param::choice("gait", "", &["walk"]).default("run")))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"node type "Bad": the default of parameter "gait" is refused: parameter "gait" must be one of "walk", got "run""#
    );
    assert!(registry.get("Bad").is_none());
}

#[test]
fn hand_written_declarations_read_typed() {
    let mut registry = Registry::<Vec<[f64; 3]>, ()>::new();
    registry
        .register(NodeType::new(
            "Fly",
            "flies a route",
            Arity::Leaf,
            vec![
                Param::list("route", "where", ParamKind::Point { dims: 3, min: 0.0, max: 50.0 })
                    .len(1, 3),
                Param::point("start", "from", 3).optional(),
            ],
            |p: &Params| {
                let route: Vec<[f64; 3]> = p.get("route")?;
                let start: Option<[f64; 3]> = p.get("start")?;
                // Asked as the wrong type or kind: an error, not a panic.
                assert_eq!(
                    p.get::<Vec<String>>("route").unwrap_err().to_string(),
                    r#"parameter "route" cannot be read as `alloc::vec::Vec<alloc::string::String>`"#
                );
                assert_eq!(
                    p.float("start").unwrap_err().to_string(),
                    r#"parameter "start" is optional and not given: read it as an `Option`"#
                );
                let mut path = start.into_iter().collect::<Vec<_>>();
                path.extend(route);
                Ok(canopy_core::NodeKind::from(canopy_core::nodes::Action(std::sync::Arc::new(
                    move |cx: &mut Ctx<Vec<[f64; 3]>, ()>| {
                        cx.agent.clone_from(&path);
                        Status::Success
                    },
                ))))
            },
        ))
        .unwrap();
    let tree = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Fly", "route": [[1, 2, 3]]}}"#,
            Format::Json,
            "f",
        ))
        .load()
        .unwrap();
    let mut path = Vec::new();
    Agent::new(&tree).tick(&tree, &mut path, &());
    assert_eq!(path, [[1.0, 2.0, 3.0]]);
    assert_eq!(tree.display().to_string(), "Fly(route=[[1, 2, 3]])\n");
    let e = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Fly", "route": [[1, 2, 60]]}}"#,
            Format::Json,
            "f",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"f:1:12: tree (name "Fly"): parameter "route[0][2]" must be in 0..=50, got 60"#
    );
}

/// A node whose `arity()` does not match its registration.
struct Liar;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct NoState;

impl Node<(), ()> for Liar {
    type Task = NoState;
    fn create_task(&self, _: &mut Ctx<(), ()>) -> NoState {
        NoState
    }
    fn update(&self, _: &mut NoState, _: &mut Ctx<(), ()>, _: &mut Children<(), ()>) -> Status {
        Status::Success
    }
}

#[test]
fn a_node_type_whose_node_says_another_arity_is_refused_when_loaded() {
    let mut registry = Registry::<(), ()>::new();
    registry
        .node("Liar", Arity::Decorator, |_: ()| Liar)
        .unwrap();
    let e = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Liar", "children": [{"type": "AlwaysSuccess"}]}}"#,
            Format::Json,
            "liar.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"liar.json:1:12: tree (name "Liar"): the node type is registered as taking exactly one child, but its node's `arity()` says no children"#
    );
}
