//! JSON/RON → BehaviorTree.CPP XML → canopy gives back the same tree: the
//! same printed tree and the same traces, for every example tree and for
//! random trees over every built-in type.

use std::path::Path;

use canopy_btcpp::{XmlOptions, export_str, export_value, load_str};
use canopy_core::{Agent, Event, EventKind, Mode, Observer, Tree};
use canopy_data::{Format, Registry, TreeSource};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Every event of `agents` agents over `ticks` ticks, as text.
fn trace<A, W>(
    tree: &Tree<A, W>,
    agents: u32,
    ticks: u32,
    mode: Mode,
    data: impl Fn() -> A,
    world: &W,
) -> Vec<String> {
    struct Log<'t, A, W> {
        tree: &'t Tree<A, W>,
        lines: Vec<String>,
    }
    impl<A, W> Observer for Log<'_, A, W> {
        fn event(&mut self, e: Event) {
            let node = self.tree.node(e.node);
            let kind = match e.kind {
                EventKind::Update(s) => format!("update {s:?}"),
                EventKind::Exit(s) => format!("exit {s:?}"),
                other => other.name().to_string(),
            };
            self.lines.push(format!(
                "{} {} {} {} {:?} {}",
                e.tick,
                e.agent,
                e.node.index(),
                node.type_name(),
                node.name(),
                kind
            ));
        }
    }
    let mut log = Log {
        tree,
        lines: Vec::new(),
    };
    for id in 0..agents {
        let mut agent = Agent::with_id(tree, id);
        agent.set_mode(tree, mode);
        let mut me = data();
        for _ in 0..ticks {
            let status = agent.tick_observed(tree, &mut me, world, &mut log);
            log.lines.push(format!("root {status:?}"));
        }
    }
    log.lines
}

fn example(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/trees")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// `text` and its XML export load as the same tree with the same traces.
fn same_both_ways(
    registry: &Registry<(), ()>,
    text: &str,
    format: Format,
    options: &XmlOptions,
) -> String {
    let direct = registry
        .loading(TreeSource::text(text, format, "tree"))
        .load()
        .unwrap();
    let xml = export_str(registry, text, format, "tree", options).unwrap();
    let back = load_str(registry, &xml, "tree.xml", None, options)
        .unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(
        back.display().to_string(),
        direct.display().to_string(),
        "{xml}"
    );
    for mode in [Mode::Tick, Mode::Event] {
        assert_eq!(
            trace(&back, 12, 80, mode, || (), &()),
            trace(&direct, 12, 80, mode, || (), &()),
            "{xml}"
        );
    }
    xml
}

#[test]
fn sentry_exports_as_standard_nodes_where_exact() {
    let registry = Registry::<(), ()>::new().with_seed(7);
    let xml = same_both_ways(
        &registry,
        &example("sentry.json"),
        Format::Json,
        &XmlOptions::default(),
    );
    assert_eq!(
        xml,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="MainTree">
  <BehaviorTree ID="MainTree">
    <ReactiveFallback name="sentry">
      <ReactiveSequence name="respond">
        <Chance name="alarm?" p="0.15"/>
        <SubTree ID="Fight"/>
      </ReactiveSequence>
      <Sequence name="patrol">
        <Sleep name="walk to post A" msec="300"/>
        <Decorator ID="Cooldown" name="rest cooldown" ticks="10">
          <Sleep name="rest" msec="200"/>
        </Decorator>
        <Decorator ID="Guard" name="if daylight" condition="Periodic(name=&quot;daylight?&quot;, on=12, period=24)">
          <Sleep name="walk to post B" msec="300"/>
        </Decorator>
      </Sequence>
    </ReactiveFallback>
  </BehaviorTree>
  <BehaviorTree ID="Fight">
    <Control ID="canopy_Parallel" name="fight" success="one" failure="all">
      <Timeout name="give up" msec="800">
        <Action ID="canopy_Script" name="strike" statuses="Running;Running;Success"/>
      </Timeout>
      <Decorator ID="canopy_Repeat" name="shout thrice" times="3">
        <Action ID="Random" name="shout" success="0.5" failure="0.1"/>
      </Decorator>
    </Control>
  </BehaviorTree>
  <TreeNodesModel>
    <Condition ID="Chance">
      <input_port name="p" type="double">Probability of true.</input_port>
      <description>Condition: true with probability `p`, reproducibly per agent and tick.</description>
    </Condition>
    <Decorator ID="Cooldown">
      <input_port name="ticks" type="int">Ticks to cool down.</input_port>
      <description>After the child ends, fails for the next `ticks` ticks without running it.</description>
    </Decorator>
    <Decorator ID="Guard">
      <input_port name="condition" type="std::string">a condition node object</input_port>
      <description>Enters the child only if the condition holds when the guard is entered.</description>
    </Decorator>
    <Action ID="Random">
      <input_port name="success" type="double">Probability of Success.</input_port>
      <input_port name="failure" type="double">Probability of Failure.</input_port>
      <description>Success with probability `success`, Failure with `failure`, else Running; reproducible per agent.</description>
    </Action>
    <Control ID="canopy_Parallel">
      <input_port name="success" type="std::string" default="all">How many children must succeed.</input_port>
      <input_port name="failure" type="std::string" default="one">How many children must fail.</input_port>
      <description>Updates every unfinished child each tick, in order; decided by the success and failure policies.</description>
    </Control>
    <Decorator ID="canopy_Repeat">
      <input_port name="times" type="int">Successes needed.</input_port>
      <description>Runs the child to success `times` times, one completion per tick; fails if it fails.</description>
    </Decorator>
    <Action ID="canopy_Script">
      <input_port name="statuses" type="std::string">The statuses to play back; the last one repeats.</input_port>
      <input_port name="clock" type="std::string" default="install">What advances the script.</input_port>
      <description>Plays back a list of statuses, one per update (clock "install") or per agent tick (clock "tick").</description>
    </Action>
  </TreeNodesModel>
</root>
"#
    );
}

#[test]
fn pet_ron_round_trips() {
    let registry = Registry::<(), ()>::new().with_seed(3);
    same_both_ways(
        &registry,
        &example("pet.ron"),
        Format::Ron,
        &XmlOptions::default(),
    );
}

#[test]
fn crowd_tree_round_trips_with_the_crowds_types() {
    use canopy_crowd::{Config, Crowd};
    let registry = canopy_crowd::registry();
    let text = example("crowd.json");
    let options = XmlOptions::default();
    let direct = registry
        .loading(TreeSource::text(&text, Format::Json, "crowd.json"))
        .load()
        .unwrap();
    let xml = export_str(&registry, &text, Format::Json, "crowd.json", &options).unwrap();
    let back = load_str(&registry, &xml, "crowd.xml", None, &options).unwrap();
    assert_eq!(back.display().to_string(), direct.display().to_string());
    let config = Config {
        agents: 300,
        ..Config::default()
    };
    let (mut a, mut b) = (Crowd::new(direct, &config), Crowd::new(back, &config));
    for _ in 0..120 {
        a.step();
        b.step();
    }
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn tick_length_scales_milliseconds_both_ways() {
    let registry = Registry::<(), ()>::new();
    let text =
        r#"{"tree": {"type": "Timeout", "ticks": 4, "children": [{"type": "Wait", "ticks": 7}]}}"#;
    let options = XmlOptions {
        tick_ms: 33,
        ..XmlOptions::default()
    };
    let xml = same_both_ways(&registry, text, Format::Json, &options);
    assert!(xml.contains(r#"<Timeout msec="132">"#), "{xml}");
    assert!(xml.contains(r#"<Sleep name="Wait" msec="231"/>"#), "{xml}");
}

#[test]
fn durations_beyond_bt_cpp_milliseconds_go_out_as_canopy_types() {
    let registry = Registry::<(), ()>::new();
    let text = r#"{"tree": {"type": "Timeout", "ticks": 2000000000, "children": [{"type": "Wait", "ticks": 2000000000}]}}"#;
    let xml = same_both_ways(&registry, text, Format::Json, &XmlOptions::default());
    assert!(
        xml.contains(r#"<Decorator ID="canopy_Timeout" ticks="2000000000">"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<Action ID="Wait" ticks="2000000000"/>"#),
        "{xml}"
    );
}

#[test]
fn unexportable_documents_say_why() {
    let registry = Registry::<(), ()>::new();
    let options = XmlOptions::default();
    let cases = [
        (
            json!({"tree": {"type": "Wait", "name": "bell\u{7}", "ticks": 1}}),
            "doc: tree (name \"bell\\u{7}\"): the name \"bell\\u{7}\" holds the character \"\\u{7}\", which XML cannot hold; rename the node",
        ),
        (
            json!({"tree": {"type": "SubTree", "tree": "walk home"}, "subtrees": {"walk home": {"type": "AlwaysSuccess"}}}),
            "doc: subtrees/walk home (name \"AlwaysSuccess\"): the subtree name \"walk home\" cannot be a BehaviorTree.CPP tree ID: it contains the character \" \", which BehaviorTree.CPP does not allow in IDs; rename the subtree",
        ),
        (
            json!({"tree": {"type": "SubTree", "tree": "Wait"}, "subtrees": {"Wait": {"type": "AlwaysSuccess"}}}),
            "doc: subtrees/Wait (name \"AlwaysSuccess\"): the subtree name \"Wait\" cannot be a BehaviorTree.CPP tree ID: it is the name of a node type; rename the subtree",
        ),
        (
            json!({"tree": {"type": "Wiat", "ticks": 1}}),
            "doc: tree (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)",
        ),
    ];
    for (document, expected) in cases {
        let err = export_value(&registry, &document, "doc", &options).unwrap_err();
        assert_eq!(err.to_string(), expected);
        assert_eq!(canopy_data::LoadError::from(err).to_string(), expected);
    }
}

/// A random name, or none (the type's), with the characters XML escapes.
fn name() -> BoxedStrategy<Option<String>> {
    let tricky = vec![
        "é ü",
        "tab\there",
        "line\nbreak",
        "  spaced  ",
        "<&>\"'",
        "canopy_Repeat",
        "Sequence",
        "{x}",
        "\r\n",
    ];
    prop_oneof![
        3 => Just(None),
        2 => "[a-z]{1,6}".prop_map(Some),
        1 => "[ -~]{0,12}".prop_map(Some),
        1 => prop::sample::select(tricky).prop_map(|s| Some(s.to_string())),
    ]
    .boxed()
}

/// A random leaf of every built-in leaf type, or a reference to `Shared`.
fn leaf() -> BoxedStrategy<Value> {
    let statuses = prop::collection::vec(
        prop::sample::select(vec!["Running", "Success", "Failure"]),
        1..4,
    );
    prop_oneof![
        Just(json!({"type": "AlwaysSuccess"})),
        Just(json!({"type": "AlwaysFailure"})),
        Just(json!({"type": "AlwaysRunning"})),
        (0u32..5).prop_map(|t| json!({"type": "Wait", "ticks": t})),
        (statuses, any::<bool>()).prop_map(|(s, tick)| json!({"type": "Script", "statuses": s, "clock": if tick {"tick"} else {"install"}})),
        (0.0f64..0.5, 0.0f64..0.5).prop_map(|(s, f)| json!({"type": "Random", "success": s, "failure": f})),
        condition(),
        Just(json!({"type": "SubTree", "tree": "Shared"})),
    ]
    .boxed()
}

/// A random condition: Chance or Periodic.
fn condition() -> BoxedStrategy<Value> {
    prop_oneof![
        (0.0f64..1.0).prop_map(|p| json!({"type": "Chance", "p": p})),
        (1u32..6, 0u32..4, 0u32..3, "[a-z ?]{0,5}").prop_map(|(period, on, offset, n)| {
            json!({"type": "Periodic", "name": n, "period": period, "on": on, "offset": offset})
        }),
    ]
    .boxed()
}

/// `value` with a random name, unless it is a reference.
fn named(value: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (value, name())
        .prop_map(|(mut v, name)| {
            if let (Some(name), Some(fields)) = (name, v.as_object_mut())
                && fields["type"] != "SubTree"
            {
                fields.insert("name".into(), Value::String(name));
            }
            v
        })
        .boxed()
}

/// A random node of the built-in types, `depth` levels from the bottom.
fn node(depth: u32) -> BoxedStrategy<Value> {
    if depth == 0 {
        return named(leaf());
    }
    let child = node(depth - 1);
    let composite = (
        prop::sample::select(vec![
            "Sequence",
            "Selector",
            "ReactiveSequence",
            "ReactiveSelector",
            "Parallel",
        ]),
        prop::collection::vec(child.clone(), 0..4),
        prop::sample::select(vec!["one", "all"]),
        prop::sample::select(vec!["one", "all"]),
    )
        .prop_map(|(t, mut kids, s, f)| {
            if t != "Parallel" {
                return json!({"type": t, "children": kids});
            }
            if kids.is_empty() {
                kids.push(json!({"type": "AlwaysSuccess"}));
            }
            json!({"type": t, "success": s, "failure": f, "children": kids})
        });
    let decorators = vec![
        "Inverter",
        "ForceSuccess",
        "ForceFailure",
        "Repeat",
        "Retry",
        "Timeout",
        "Cooldown",
        "Guard",
        "ReactiveGuard",
    ];
    let decorator = (
        prop::sample::select(decorators),
        child,
        1u32..5,
        condition(),
    )
        .prop_map(|(t, kid, n, condition)| match t {
            "Repeat" | "Retry" => json!({"type": t, "times": n, "children": [kid]}),
            "Timeout" | "Cooldown" => json!({"type": t, "ticks": n, "children": [kid]}),
            "Guard" | "ReactiveGuard" => {
                json!({"type": t, "condition": condition, "children": [kid]})
            }
            _ => json!({"type": t, "children": [kid]}),
        });
    prop_oneof![2 => named(leaf()), 2 => named(composite.boxed()), 2 => named(decorator.boxed())]
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, .. ProptestConfig::default() })]

    #[test]
    fn random_trees_round_trip(tree in node(4), shared in node(2), seed in 0u64..100, tick_ms in 1u32..500) {
        let document = json!({"tree": tree, "subtrees": {"Shared": shared}});
        let registry = Registry::<(), ()>::new().with_seed(seed);
        let text = document.to_string();
        // A subtree that refers to itself is not a tree: skip such draws.
        prop_assume!(registry.loading(TreeSource::text(&text, Format::Json, "t")).load().is_ok());
        let options = XmlOptions { tick_ms, ..XmlOptions::default() };
        let direct = registry.loading(TreeSource::text(&text, Format::Json, "t")).load().unwrap();
        let xml = export_str(&registry, &text, Format::Json, "t", &options).unwrap();
        let back = load_str(&registry, &xml, "t.xml", None, &options)
            .unwrap_or_else(|e| panic!("{e}\n{xml}"));
        prop_assert_eq!(back.display().to_string(), direct.display().to_string());
        for mode in [Mode::Tick, Mode::Event] {
            prop_assert_eq!(trace(&back, 4, 30, mode, || (), &()), trace(&direct, 4, 30, mode, || (), &()));
        }
    }
}

/// Says lines: a string parameter and a list of strings.
#[derive(canopy_data::Params)]
struct Say {
    /// What to say first.
    line: String,
    /// What to say then.
    #[param(default = Vec::new())]
    then: Vec<String>,
}

#[test]
fn values_without_an_xml_spelling_name_the_node_and_say_what_to_do() {
    let mut registry = Registry::<(), ()>::new();
    registry
        .action("Say", |_: Say| {
            |_: &mut canopy_core::Ctx<(), ()>| canopy_core::Status::Success
        })
        .unwrap();
    let options = XmlOptions::default();
    let cases = [
        (
            json!({"tree": {"type": "Say", "name": "greet", "line": "{x}"}}),
            "doc: tree (name \"greet\"): parameter line: the value \"{x}\" would read as a blackboard entry in BehaviorTree.CPP; change the value, or declare the parameter as a port (Input<T>) if it is meant to read one",
        ),
        (
            json!({"tree": {"type": "Say", "line": "hi", "then": ["a;b"]}}),
            "doc: tree (name \"Say\"): parameter then: a list item holds \";\" or begins or ends with a space, and BehaviorTree.CPP separates list items with \";\"; change the item",
        ),
        (
            json!({"tree": {"type": "Sequence", "children": [{"type": "Say", "line": "a\u{1}"}]}}),
            "doc: tree/children[0] (name \"Say\"): parameter line: the value holds the character \"\\u{1}\", which XML cannot hold; remove it",
        ),
    ];
    for (document, expected) in cases {
        let err = export_value(&registry, &document, "doc", &options).unwrap_err();
        assert_eq!(err.to_string(), expected);
    }
}
