//! Every parameter type round-trips through BehaviorTree.CPP XML: for
//! every registered type of the built-in registry, the crowd demo's and a
//! type holding one parameter of each kind (points, lists, lists of
//! points, enums, optional values, ticks, ports), random valid values are
//! written as a JSON tree, exported to XML and read back, and the tree
//! read back is the tree the JSON makes.

use canopy_btcpp::{XmlOptions, export_value, load_str};
use std::cell::Cell;

use canopy_core::{Arity, Ctx, Input, Output, ParamEnum, Status, params::Ticks};
use canopy_data::{NodeType, ParamKind, Params, Registry, TreeSource};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

/// How a tool is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
enum Grip {
    /// In one hand.
    OneHand,
    /// In both.
    TwoHands,
}

/// One parameter of every kind a node type can declare.
#[derive(Params)]
struct Everything {
    /// A small integer.
    level: u8,
    /// A signed one.
    floor: i32,
    /// A decimal.
    speed: f32,
    /// A double.
    weight: f64,
    /// A flag.
    loud: bool,
    /// A string.
    line: String,
    /// A point.
    at: [f32; 2],
    /// A point in space.
    aim: [f64; 3],
    /// Numbers.
    scores: Vec<f64>,
    /// A route.
    route: Vec<[f32; 2]>,
    /// Words.
    words: Vec<String>,
    /// An enum.
    grip: Grip,
    /// Enums.
    grips: Vec<Grip>,
    /// An optional count.
    laps: Option<u32>,
    /// An optional string.
    say: Option<String>,
    /// A duration.
    rest: Ticks,
    /// A status.
    outcome: Status,
    /// An input port of a number.
    pace: Input<f64>,
    /// An input port of a point.
    goal: Input<[f32; 2]>,
    /// An output port.
    done: Output<bool>,
}

fn registry() -> Registry<(), ()> {
    let mut registry = Registry::new();
    registry
        .action("Everything", |_: Everything| {
            |_: &mut Ctx<(), ()>| Status::Success
        })
        .unwrap();
    registry
}

/// A valid value of `kind` (`None`: leave the parameter out).
fn value(kind: &ParamKind, key: &str) -> BoxedStrategy<Value> {
    match kind {
        ParamKind::Int { min, max } => {
            let (lo, hi) = ((*min).max(-100_000), (*max).min(100_000));
            (lo..=hi).prop_map(Value::from).boxed()
        }
        ParamKind::Float { min, max } => {
            let (lo, hi) = (min.max(-1000.0) as i64 * 4, max.min(1000.0) as i64 * 4);
            (lo..=hi).prop_map(|q| json!(q as f64 / 4.0)).boxed()
        }
        ParamKind::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        ParamKind::Text => prop::sample::select(vec![
            "hello",
            "two words",
            "é ü ß",
            "<&>\"'",
            "a,b",
            "x;y",
            "0",
            "json:[1]",
        ])
        .prop_map(|s| json!(s))
        .boxed(),
        ParamKind::Choice(words) => prop::sample::select(words.clone())
            .prop_map(Value::String)
            .boxed(),
        ParamKind::Statuses => prop::collection::vec(
            prop::sample::select(vec!["Running", "Success", "Failure"]),
            1..4,
        )
        .prop_map(|s| json!(s))
        .boxed(),
        ParamKind::Point { dims, min, max } => {
            let one = value(
                &ParamKind::Float {
                    min: *min,
                    max: *max,
                },
                key,
            );
            prop::collection::vec(one, *dims)
                .prop_map(Value::Array)
                .boxed()
        }
        ParamKind::List {
            item,
            min_len,
            max_len,
        } => {
            let words = matches!(**item, ParamKind::Text);
            let item = if words {
                // List items are separated by ";": words without one.
                prop::sample::select(vec!["alpha", "two words", "é"])
                    .prop_map(|s| json!(s))
                    .boxed()
            } else {
                value(item, key)
            };
            prop::collection::vec(item, *min_len..=(*max_len).min(min_len + 3))
                .prop_map(Value::Array)
                .boxed()
        }
        ParamKind::Port {
            value: inner,
            output,
            ..
        } => {
            let key = json!(format!("{{{key}}}"));
            if *output {
                Just(key).boxed()
            } else {
                prop_oneof![Just(key), value(inner, "")].boxed()
            }
        }
        ParamKind::Condition | ParamKind::Subtree => Just(Value::Null).boxed(),
    }
}

/// A node object of `node_type` with random parameters (optional ones
/// sometimes left out) and children for its arity.
fn node<A, W>(node_type: &NodeType<A, W>) -> BoxedStrategy<Value> {
    let name = node_type.name().to_string();
    let params: Vec<BoxedStrategy<(String, Option<Value>)>> = node_type
        .params()
        .iter()
        .map(|p| {
            let key = format!("{name}_{}", p.name);
            let given = value(&p.kind, &key);
            let param = p.name.clone();
            if p.default.is_some() {
                prop::option::of(given)
                    .prop_map(move |v| (param.clone(), v))
                    .boxed()
            } else {
                given.prop_map(move |v| (param.clone(), Some(v))).boxed()
            }
        })
        .collect();
    let children = match node_type.arity() {
        Arity::Leaf => 0,
        Arity::Decorator => 1,
        Arity::Composite => 2,
    };
    params
        .prop_map(move |params| {
            let mut fields = Map::new();
            fields.insert("type".to_string(), json!(name));
            for (param, v) in params {
                if let Some(v) = v {
                    fields.insert(param, v);
                }
            }
            if children > 0 {
                let kids = vec![json!({"type": "AlwaysSuccess"}); children];
                fields.insert("children".to_string(), Value::Array(kids));
            }
            Value::Object(fields)
        })
        .boxed()
}

/// Every type of `registry` whose parameters a file can hold without
/// another node (a Guard's condition) or another tree (a SubTree's):
/// random trees of one such node through XML and back. The count of
/// cases that loaded as JSON (others break a rule between parameters).
fn every_type_round_trips<A: 'static, W: 'static>(registry: &Registry<A, W>) -> usize {
    let options = XmlOptions::default();
    let loaded = Cell::new(0);
    for node_type in registry.types() {
        let skip = node_type
            .params()
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Condition | ParamKind::Subtree));
        if skip {
            continue;
        }
        let mut runner = TestRunner::new(Config {
            cases: 48,
            ..Config::default()
        });
        runner
            .run(&node(node_type), |tree| {
                let document = json!({ "tree": tree });
                let Ok(direct) = registry
                    .loading(TreeSource::json(&document, "tree.json"))
                    .load()
                else {
                    return Ok(());
                };
                loaded.set(loaded.get() + 1);
                let xml = export_value(registry, &document, "tree.json", &options)
                    .map_err(|e| TestCaseError::fail(format!("{e}\n{document}")))?;
                let back = load_str(registry, &xml, "tree.xml", None, &options)
                    .map_err(|e| TestCaseError::fail(format!("{e}\n{xml}")))?;
                prop_assert_eq!(
                    back.display().to_string(),
                    direct.display().to_string(),
                    "{}",
                    xml
                );
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", node_type.name()));
    }
    loaded.get()
}

#[test]
fn every_parameter_kind_round_trips_through_xml() {
    let loaded = every_type_round_trips(&registry());
    // Nearly every random tree is valid: the test is not vacuous.
    assert!(loaded > 48 * 20, "{loaded}");
}

#[test]
fn the_crowd_demos_types_round_trip_through_xml() {
    let loaded = every_type_round_trips(&canopy_crowd::registry());
    assert!(loaded > 48 * 10, "{loaded}");
}
