//! A registry's node palette as a BehaviorTree.CPP node model
//! (`write_model`, BehaviorTree.CPP's `writeTreeNodesModelXML`): read
//! back by `NodeModel`, it stands in the same palette; read as a tree
//! file's `<TreeNodesModel>`, it agrees with the registry it came from;
//! and BehaviorTree.CPP itself reads a file holding it.

mod peer;

use std::process::Command;

use canopy_btcpp::{NodeModel, StandInRules, XmlOptions, load_str_with_warnings, write_model};
use canopy_core::{Ctx, Input, Output, Status, Text};
use canopy_data::{Params, Registry};

/// Walks towards `goal` along `path`, in one of three gaits.
#[derive(Params)]
struct Walk {
    /// Where to.
    goal: Input<[f32; 2]>,
    /// The way.
    #[param(default = vec![[0.0, 0.0]])]
    path: Vec<[f64; 2]>,
    /// How fast.
    #[param(default = 1.5, range = 0.0..=10.0)]
    speed: f64,
    /// How many steps at most.
    #[param(default = 3)]
    steps: u32,
    /// Whether to run.
    #[param(default = false)]
    hurry: bool,
    /// Said on the way.
    #[param(default = "hello")]
    line: String,
    /// Set once there.
    arrived: Output<bool>,
    /// Where it stopped.
    stopped: Output<Text>,
}

/// Whether the door is open.
#[derive(Params)]
struct IsOpen {
    /// Which door.
    door: Input<Text>,
}

fn registry() -> Registry<(), ()> {
    let mut registry = Registry::new();
    registry
        .action("Walk", |_: Walk| |_: &mut Ctx<(), ()>| Status::Success)
        .unwrap();
    registry
        .condition("IsOpen", |_: IsOpen| |_: &Ctx<(), ()>| true)
        .unwrap();
    registry
}

/// `registry`'s palette, written, read, stood in and written again.
fn round_trip(registry: &Registry<(), ()>, builtins: bool) -> (NodeModel, NodeModel) {
    let written = write_model(registry, builtins);
    let model = NodeModel::read_str(&written, "palette.xml").unwrap();
    let mut stand_ins = Registry::<(), ()>::empty();
    model
        .stand_in(&mut stand_ins, &StandInRules::new())
        .unwrap();
    let again = NodeModel::read_str(&write_model(&stand_ins, false), "again.xml").unwrap();
    (model, again)
}

#[test]
fn a_palette_reads_back_to_the_same_palette() {
    let written = write_model(&registry(), false);
    assert_eq!(
        written,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4">
  <TreeNodesModel>
    <Condition ID="IsOpen">
      <input_port name="door" type="std::string">Which door.</input_port>
      <description>Whether the door is open.</description>
    </Condition>
    <Action ID="Walk">
      <input_port name="goal" type="canopy::Point2f">Where to.</input_port>
      <input_port name="path" type="std::vector&lt;canopy::Point2&gt;" default="json:[[0.0,0.0]]">The way.</input_port>
      <input_port name="speed" type="double" default="1.5">How fast.</input_port>
      <input_port name="steps" type="int" default="3">How many steps at most.</input_port>
      <input_port name="hurry" type="bool" default="false">Whether to run.</input_port>
      <input_port name="line" type="std::string" default="hello">Said on the way.</input_port>
      <output_port name="arrived" type="bool">Set once there.</output_port>
      <output_port name="stopped" type="std::string">Where it stopped.</output_port>
      <description>Walks towards `goal` along `path`, in one of three gaits.</description>
    </Action>
  </TreeNodesModel>
</root>
"#
    );
    let (model, again) = round_trip(&registry(), false);
    assert_eq!(model.types().collect::<Vec<_>>(), ["IsOpen", "Walk"]);
    assert_eq!(again, model);
}

#[test]
fn canopys_own_palette_reads_back_too() {
    let (model, again) = round_trip(&Registry::new(), true);
    assert!(model.types().any(|t| t == "canopy_Repeat"), "{model:?}");
    assert!(model.types().any(|t| t == "Guard"), "{model:?}");
    assert!(!model.types().any(|t| t == "Selector" || t == "Wait"));
    assert_eq!(again, model);
    // Without the built-ins, canopy's own registry has nothing to write.
    assert!(!write_model(&Registry::<(), ()>::new(), false).contains(" ID="));
}

#[test]
fn a_palette_agrees_with_its_registry_as_a_tree_files_model() {
    for (registry, builtins) in [(registry(), false), (Registry::new(), true)] {
        let file = write_model(&registry, builtins).replace(
            "<TreeNodesModel>",
            "<BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n  <TreeNodesModel>",
        );
        let loaded =
            load_str_with_warnings(&registry, &file, "p.xml", None, &XmlOptions::default())
                .unwrap();
        assert_eq!(loaded.warnings, [], "{file}");
    }
}

#[test]
fn behaviortree_cpp_reads_a_file_holding_a_palette() {
    if !peer::btcpp_available() {
        return;
    }
    let file = write_model(&Registry::<(), ()>::new(), true).replace(
        "<TreeNodesModel>",
        "<BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n  <TreeNodesModel>",
    );
    let script = "import sys, behaviortreepy as bt\n\
                  tree = bt.BehaviorTreeFactory().create_tree_from_text(sys.stdin.read())\n\
                  print(tree.tick_exactly_once())";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(file.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "NodeStatus.SUCCESS"
    );
}
