//! Blackboard ports in BehaviorTree.CPP XML: `{key}` attributes bind a
//! registered node's ports to the agent's blackboard, output ports are
//! declared as such in the node model, points are written `x;y`, and keys
//! cross a `<SubTree>` only as `_autoremap="true"` shares them.

use canopy_btcpp::{XmlOptions, export_str, load_str, load_str_with_warnings};
use canopy_core::{Agent, Ctx, Input, Output, Status, Text, Tree};
use canopy_data::{Format, Params, Registry};

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

/// Where the agent is, and what it said.
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

fn load(xml: &str) -> Result<Tree<Me, ()>, String> {
    load_str(&registry(), xml, "walk.xml", None, &XmlOptions::default()).map_err(|e| e.to_string())
}

fn main_tree(body: &str) -> String {
    format!(
        "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Main\">{body}</BehaviorTree>\n</root>\n"
    )
}

/// Ticks until the root finishes (at most 20 ticks); the statuses.
fn run(tree: &Tree<Me, ()>, agent: &mut Agent, me: &mut Me) -> Vec<Status> {
    let mut statuses = Vec::new();
    for _ in 0..20 {
        let status = agent.tick(tree, me, &());
        statuses.push(status);
        if status != Status::Running {
            break;
        }
    }
    statuses
}

#[test]
fn ports_read_and_write_the_agents_blackboard() {
    let tree = load(&main_tree(
        "<Sequence>\
           <Walk goal=\"{target}\" speed=\"2\" arrived=\"{there}\"/>\
           <Say line=\"{greeting}\"/>\
           <Say line=\"bye\"/>\
         </Sequence>",
    ))
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
    let mut agent = Agent::new(&tree);
    let mut board = agent.board_mut(&tree);
    board.write(tree.key::<[f32; 2]>("target").unwrap(), [4.0, 0.0]);
    board.write(tree.key::<Text>("greeting").unwrap(), Text::new("hello"));
    let mut me: Me = ([0.0, 0.0], Vec::new());
    assert_eq!(
        run(&tree, &mut agent, &mut me),
        [Status::Running, Status::Success]
    );
    assert_eq!(
        me,
        ([4.0, 0.0], vec!["hello".to_string(), "bye".to_string()])
    );
    assert_eq!(
        agent.board_values(&tree)[1],
        ("there".to_string(), "true".to_string())
    );
}

#[test]
fn a_point_is_written_as_behaviortree_cpp_writes_vectors() {
    let tree = load(&main_tree(
        "<Walk goal=\"3;-4\" speed=\"5\" arrived=\"{done}\"/>",
    ))
    .unwrap();
    let mut me: Me = ([0.0, 0.0], Vec::new());
    assert_eq!(
        run(&tree, &mut Agent::new(&tree), &mut me),
        [Status::Success]
    );
    assert_eq!(me.0, [3.0, -4.0]);
    assert_eq!(
        load(&main_tree("<Walk goal=\"3,4\" arrived=\"{done}\"/>")).unwrap_err(),
        "walk.xml:2:27: <Walk>: goal: a point is written x;y in BehaviorTree.CPP XML, as its \
         vectors are: write 3;4, not \"3,4\""
    );
    assert_eq!(
        load(&main_tree("<Walk goal=\"[50, 50]\" arrived=\"{done}\"/>")).unwrap_err(),
        "walk.xml:2:27: <Walk>: goal: a point is written x;y in BehaviorTree.CPP XML, as its \
         vectors are: write 50;50, not \"[50, 50]\""
    );
}

#[test]
fn a_key_read_as_two_types_is_refused_naming_both_places() {
    let err = load(&main_tree(
        "<Sequence><Walk goal=\"1;1\" arrived=\"{k}\"/><Say line=\"{k}\"/></Sequence>",
    ))
    .unwrap_err();
    assert_eq!(
        err,
        "walk.xml:2:69: <Say>: port \"line\" wants key \"{k}\" to hold std::string, but it holds bool \
         since its first use at walk.xml:2:37: <Walk>"
    );
}

#[test]
fn an_output_port_takes_only_a_key() {
    let err = load(&main_tree("<Walk goal=\"1;1\" arrived=\"true\"/>")).unwrap_err();
    assert!(err.starts_with("walk.xml:2:27: <Walk>: "), "{err}");
    assert!(err.contains("arrived"), "{err}");
}

#[test]
fn a_subtrees_keys_are_its_own_unless_remapped_or_autoremapped() {
    let file = |subtree: &str| {
        format!(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  \
             <BehaviorTree ID=\"Main\"><Sequence>{subtree}\
             <Say line=\"{{greeting}}\"/></Sequence></BehaviorTree>\n  \
             <BehaviorTree ID=\"Go\"><Walk goal=\"{{goal}}\" speed=\"2\" arrived=\"{{done}}\"/>\
             </BehaviorTree>\n</root>\n"
        )
    };
    let keys = |tree: &Tree<Me, ()>| -> Vec<String> {
        tree.slots().iter().map(|s| s.key.to_string()).collect()
    };
    // BehaviorTree.CPP's default: the subtree's keys are its own.
    let tree = load(&file("<SubTree ID=\"Go\" goal=\"2;0\"/>")).unwrap();
    assert_eq!(keys(&tree), ["@Go_1__done", "greeting"]);
    let mut me: Me = ([0.0, 0.0], Vec::new());
    assert_eq!(
        run(&tree, &mut Agent::new(&tree), &mut me),
        [Status::Success]
    );
    assert_eq!(me, ([2.0, 0.0], vec![String::new()]));
    // Remapped, a key is the parent's; autoremapped, every other one too.
    let tree = load(&file(
        "<SubTree ID=\"Go\" goal=\"{target}\" done=\"{arrived}\" _autoremap=\"false\"/>",
    ))
    .unwrap();
    assert_eq!(keys(&tree), ["target", "arrived", "greeting"]);
    let tree = load(&file(
        "<SubTree ID=\"Go\" goal=\"{target}\" _autoremap=\"true\"/>",
    ))
    .unwrap();
    assert_eq!(keys(&tree), ["target", "done", "greeting"]);
    // Two references, two scopes of their own.
    let twice = "<SubTree ID=\"Go\" goal=\"1;0\"/><SubTree ID=\"Go\" goal=\"{=}\"/>";
    assert_eq!(
        keys(&load(&file(twice)).unwrap()),
        ["@Go_1__done", "goal", "@Go_2__done", "greeting"]
    );
    // A remapping is type-checked like any key: both places named.
    assert_eq!(
        load(&file(
            "<SubTree ID=\"Go\" goal=\"2;0\" done=\"{greeting}\"/>"
        ))
        .unwrap_err(),
        "walk.xml:2:84: <Say>: port \"line\" wants key \"{greeting}\" to hold std::string, but \
         it holds bool since its first use at walk.xml:3:25: <Walk>; remapped from \"done\" at \
         walk.xml:2:37: <SubTree ID=\"Go\">"
    );
}

#[test]
fn ports_survive_the_standard_nodes_canopy_runs_as_its_own() {
    // Repeat is one of this crate's own nodes: the tree is copied with it
    // swapped in, and the copy must keep the slots the ports point at.
    let tree = load(&main_tree(
        "<Repeat num_cycles=\"2\"><Sequence>\
           <Walk goal=\"{target}\" speed=\"10\" arrived=\"{there}\"/><Say line=\"{greeting}\"/>\
         </Sequence></Repeat>",
    ))
    .unwrap();
    let mut agent = Agent::new(&tree);
    let mut board = agent.board_mut(&tree);
    board.write(tree.key::<[f32; 2]>("target").unwrap(), [1.0, 1.0]);
    board.write(tree.key::<Text>("greeting").unwrap(), Text::new("hi"));
    let mut me: Me = ([0.0, 0.0], Vec::new());
    // A cycle a tick: BehaviorTree.CPP's Repeat yields after a child that
    // finished within the tick.
    assert_eq!(
        run(&tree, &mut agent, &mut me),
        [Status::Running, Status::Success]
    );
    assert_eq!(me, ([1.0, 1.0], vec!["hi".to_string(), "hi".to_string()]));
}

#[test]
fn the_node_model_declares_ports_with_their_direction_and_type() {
    let json = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "Walk", "goal": "{target}", "speed": 2, "arrived": "{there}"},
        {"type": "Walk", "goal": [1, 2], "arrived": "{there}"}
    ]}}"#;
    let xml = export_str(
        &registry(),
        json,
        Format::Json,
        "walk.json",
        &XmlOptions::default(),
    )
    .unwrap();
    assert!(
        xml.contains("<Action ID=\"Walk\" goal=\"{target}\" speed=\"2\" arrived=\"{there}\"/>"),
        "{xml}"
    );
    assert!(
        xml.contains("<Action ID=\"Walk\" goal=\"1;2\" arrived=\"{there}\"/>"),
        "{xml}"
    );
    assert!(
        xml.contains("<input_port name=\"goal\" type=\"canopy::Point2f\">"),
        "{xml}"
    );
    assert!(
        xml.contains("<output_port name=\"arrived\" type=\"bool\">"),
        "{xml}"
    );
    let back = load(&xml).unwrap();
    let from_json = registry()
        .load_str(json, Format::Json, "walk.json")
        .unwrap();
    assert_eq!(back.display().to_string(), from_json.display().to_string());

    let model = |port: &str| {
        format!(
            "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Main\"><Say line=\"x\"/></BehaviorTree>\n  \
             <TreeNodesModel><Action ID=\"Walk\">{port}</Action></TreeNodesModel>\n</root>\n"
        )
    };
    // A model that disagrees with the code loads, as in BehaviorTree.CPP
    // (which reads no model of a registered node), with a warning.
    let warnings = |xml: &str| -> Vec<String> {
        load_str_with_warnings(&registry(), xml, "walk.xml", None, &XmlOptions::default())
            .unwrap()
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(
        warnings(&model("<output_port name=\"arrived\" type=\"bool\"/>")),
        Vec::<String>::new()
    );
    assert_eq!(
        warnings(&model("<input_port name=\"arrived\"/>")),
        [
            "walk.xml:3:37: <input_port name=\"arrived\">: <input_port> \"arrived\": Walk's \
          \"arrived\" is an output port; declare it as <output_port>"
        ]
    );
    assert_eq!(
        warnings(&model("<output_port name=\"arrived\" type=\"double\"/>")),
        [
            "walk.xml:3:37: <output_port name=\"arrived\">: port \"arrived\" is declared as \
          \"double\", but Walk's parameter is output port of bool: a blackboard key like \
          \"{key}\", optional; declare type=\"bool\""
        ]
    );
    // A blackboard port's type is checked as a parameter's is.
    assert_eq!(
        warnings(&model("<input_port name=\"goal\" type=\"double\"/>")),
        [
            "walk.xml:3:37: <input_port name=\"goal\">: port \"goal\" is declared as \"double\", \
          but Walk's parameter is point [x, y], or a blackboard key of canopy::Point2f like \
          \"{key}\", required; declare type=\"canopy::Point2f\""
        ]
    );
    let strict = XmlOptions {
        strict: true,
        ..XmlOptions::default()
    };
    let err = load_str(
        &registry(),
        &model("<input_port name=\"goal\" type=\"double\"/>"),
        "walk.xml",
        None,
        &strict,
    )
    .unwrap_err();
    assert_eq!((err.line, err.column), (3, 37));
}
