//! Ports in tree files: a parameter that is a value or a `{key}`, checked
//! when the tree is built — one type per key, output ports only keys.

use canopy_core::{Agent, Ctx, Input, Output, Status, Text};
use canopy_data::{Format, Params, Registry, TreeSource};

/// Walks one step towards `goal`; writes whether it arrived to `arrived`.
#[derive(Params)]
struct Walk {
    /// Where to.
    goal: Input<[f32; 2]>,
    /// How far per tick.
    #[param(default = Input::Value(1.0))]
    speed: Input<f32>,
    /// Set once there.
    arrived: Output<bool>,
}

/// Says a line.
#[derive(Params)]
struct Say {
    /// What to say.
    line: Input<Text>,
}

type Me = ([f32; 2], Vec<String>);

fn registry() -> Registry<Me, ()> {
    let mut registry = Registry::new();
    registry
        .action("Walk", |p: Walk| {
            move |cx: &mut Ctx<Me, ()>| {
                let (goal, speed) = (cx.board.get(&p.goal), cx.board.get(&p.speed));
                let pos = &mut cx.agent.0;
                let d = [goal[0] - pos[0], goal[1] - pos[1]];
                let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
                if len <= speed {
                    *pos = goal;
                    cx.board.set(&p.arrived, true);
                    return Status::Success;
                }
                pos[0] += d[0] / len * speed;
                pos[1] += d[1] / len * speed;
                Status::Running
            }
        })
        .unwrap();
    registry
        .action("Say", |p: Say| {
            move |cx: &mut Ctx<Me, ()>| {
                let line = cx.board.get(&p.line);
                cx.agent.1.push(line.to_string());
                Status::Success
            }
        })
        .unwrap();
    registry
}

#[test]
fn a_port_holds_a_value_or_reads_a_key() {
    let tree = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Sequence", "children": [
                {"type": "Walk", "goal": "{target}", "speed": 2, "arrived": "{there}"},
                {"type": "Say", "line": "{greeting}"},
                {"type": "Say", "line": "bye"}
            ]}}"#,
            Format::Json,
            "walk.json",
        ))
        .load()
        .unwrap();
    let slots: Vec<(String, String)> = tree
        .slots()
        .iter()
        .map(|s| (s.key.to_string(), s.ty.name().to_string()))
        .collect();
    assert_eq!(
        slots,
        [
            ("target".to_string(), "canopy::Point2f".to_string()),
            ("there".to_string(), "bool".to_string()),
            ("greeting".to_string(), "std::string".to_string()),
        ]
    );
    assert_eq!(
        tree.display().to_string(),
        "Sequence\n\
         ├── Walk(goal={target}, speed=2, arrived={there})\n\
         ├── Say(line={greeting})\n\
         └── Say(line=\"bye\")\n"
    );
    let mut agent = Agent::new(&tree);
    let mut board = agent.board_mut(&tree);
    board.write(tree.key::<[f32; 2]>("target").unwrap(), [4.0, 0.0]);
    board.write(tree.key::<Text>("greeting").unwrap(), Text::new("hello"));
    let mut me: Me = ([0.0, 0.0], Vec::new());
    let statuses: Vec<Status> = (0..2).map(|_| agent.tick(&tree, &mut me, &())).collect();
    assert_eq!(statuses, [Status::Running, Status::Success]);
    assert_eq!(me.0, [4.0, 0.0]);
    assert_eq!(me.1, ["hello", "bye"]);
    assert_eq!(
        agent.board_values(&tree)[1],
        ("there".to_string(), "true".to_string())
    );
}

#[test]
fn two_types_for_one_key_are_refused_naming_both_places() {
    let err = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Sequence", "children": [
                {"type": "Walk", "goal": [1, 1], "arrived": "{done}"},
                {"type": "Say", "line": "{done}"}
            ]}}"#,
            Format::Json,
            "two.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "two.json:3:19: tree/children[1] (name \"Say\"): port \"line\" wants key \"{done}\" to hold \
         std::string, but it holds bool since its first use at \
         two.json:2:19: tree/children[0] (name \"Walk\")"
    );
}

#[test]
fn an_output_port_takes_only_a_key_and_a_port_of_its_own_name_is_braces_equals() {
    let err = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Walk", "goal": [1, 1], "arrived": true}}"#,
            Format::Json,
            "out.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"out.json:1:12: tree (name "Walk"): output port "arrived" takes a blackboard key like "{key}", got boolean true"#
    );
    let tree = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Walk", "goal": "{=}", "arrived": "{=}"}}"#,
            Format::Json,
            "same.json",
        ))
        .load()
        .unwrap();
    let keys: Vec<&str> = tree.slots().iter().map(|s| &*s.key).collect();
    assert_eq!(keys, ["goal", "arrived"]);
}

#[test]
fn ports_describe_themselves() {
    let registry = registry();
    let walk = registry.get("Walk").unwrap();
    let described: Vec<String> = walk
        .params()
        .iter()
        .map(|p| format!("{}: {}", p.name, p.describe()))
        .collect();
    assert_eq!(
        described,
        [
            "goal: point [x, y], or a blackboard key of canopy::Point2f like \"{key}\", required",
            "speed: number, or a blackboard key of float like \"{key}\", default 1.0",
            "arrived: output port of bool: a blackboard key like \"{key}\", optional",
        ]
    );
}
