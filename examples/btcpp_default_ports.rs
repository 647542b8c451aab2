//! BehaviorTree.CPP's default-ports tutorial on canopy: the ways a port
//! gets its value when the XML does or does not give one — a default
//! declared with the node type, a literal in the XML (`x;y`, or JSON after
//! `json:`), a named key, and `{=}`, the key named like the port.
//!
//! Defaults are declared on the parameters struct with
//! `#[param(default = …)]` and checked when the type is registered; they
//! show in the node type's documentation and in the XML node model canopy
//! exports. BehaviorTree.CPP also lets a default name a blackboard key
//! (`"{point}"`); a canopy default is a value — a key is written in the tree.
//!
//! ```text
//! cargo run --example btcpp_default_ports
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Input, Status};

/// Checks that every port holds what this example gave it.
#[derive(Params)]
struct PointsWithDefaults {
    /// No default: the XML must give it.
    input: Input<[f32; 2]>,
    /// Defaults to (1, 2).
    #[param(default = Input::Value([1.0, 2.0]))]
    point_a: Input<[f32; 2]>,
    /// Defaults to (5, 6).
    #[param(default = Input::Value([5.0, 6.0]))]
    point_c: Input<[f32; 2]>,
    /// A key in this example's XML.
    point_b: Input<[f32; 2]>,
    /// `{=}` in this example's XML: the key `point_d`.
    point_d: Input<[f32; 2]>,
    /// JSON in this example's XML.
    point_e: Input<[f32; 2]>,
}

/// The ports' values, in declaration order: the agent's data.
type Seen = Vec<[f32; 2]>;

fn registry() -> Registry<Seen, ()> {
    let mut registry = Registry::new();
    registry
        .action("PointsWithDefaults", |p: PointsWithDefaults| {
            move |cx: &mut Ctx<Seen, ()>| {
                let ports = [
                    &p.input, &p.point_a, &p.point_b, &p.point_c, &p.point_d, &p.point_e,
                ];
                cx.agent.extend(ports.map(|port| cx.board.get(port)));
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

const TREE: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Defaults">
    <PointsWithDefaults input="-1;-2" point_b="{point}" point_d="{=}" point_e="json:[9, 10]"/>
  </BehaviorTree>
</root>
"#;

fn main() {
    let registry = registry();
    let params = registry
        .get("PointsWithDefaults")
        .expect("registered")
        .params();
    for param in params {
        println!("{}: {}", param.name, param.describe());
    }
    assert_eq!(
        params[1].describe(),
        "point [x, y], or a blackboard key of canopy::Point2f like \"{key}\", default [1.0,2.0]"
    );

    let tree = load_str(
        &registry,
        TREE,
        "defaults.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("loads");
    let keys: Vec<&str> = tree.slots().iter().map(|s| &*s.key).collect();
    println!("keys: {keys:?}");
    assert_eq!(keys, ["point", "point_d"]);

    let mut agent = Agent::new(&tree);
    let mut board = agent.board_mut(&tree);
    board.write(tree.key("point").expect("a key"), [3.0f32, 4.0]);
    board.write(tree.key("point_d").expect("a key"), [7.0f32, 8.0]);
    let mut seen = Seen::new();
    let status = agent.tick(&tree, &mut seen, &());
    let names = [
        "input", "point_a", "point_b", "point_c", "point_d", "point_e",
    ];
    for (name, value) in names.iter().zip(&seen) {
        println!("{name} = {value:?}");
    }
    assert_eq!(status, Status::Success);
    assert_eq!(
        seen,
        [
            [-1.0, -2.0],
            [1.0, 2.0],
            [3.0, 4.0],
            [5.0, 6.0],
            [7.0, 8.0],
            [9.0, 10.0]
        ]
    );

    // A port without a default must be given.
    let without_input = TREE.replace(r#"input="-1;-2" "#, "");
    let refused = load_str(
        &registry,
        &without_input,
        "defaults.xml",
        None,
        &XmlOptions::default(),
    )
    .expect_err("`input` has no default");
    println!("refused at load: {refused}");
    assert_eq!(
        refused.to_string(),
        "defaults.xml:4:5: <PointsWithDefaults>: missing parameter \"input\" (point [x, y], \
         or a blackboard key of canopy::Point2f like \"{key}\", required)"
    );
}
