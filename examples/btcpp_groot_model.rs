//! The Groot2 part of BehaviorTree.CPP's Groot tutorial on canopy: write a
//! tree and the model of its node types — their ports, directions, types,
//! defaults and docs — as BehaviorTree.CPP XML that Groot2 opens, and read
//! it back into the same tree.
//!
//! BehaviorTree.CPP writes the model from its factory
//! (`writeTreeNodesModelXML`) and streams live state to Groot2 over a
//! socket. canopy exports a JSON or RON tree file with a generated
//! `<TreeNodesModel>` ([`export_str`]); live state is what canopy's own
//! browser inspector shows (feature `inspector`), not Groot2's protocol.
//!
//! ```text
//! cargo run --example btcpp_groot_model
//! ```

use canopy::data::{Format, Params, Registry, TreeSource};
use canopy::xml::{NodeModel, XmlOptions, export_str, load_str};
use canopy::{Ctx, Input, Output, Status};

/// Moves the robot a step along x; reports where it is.
#[derive(Params)]
struct UpdatePosition {
    /// Metres per step.
    #[param(default = Input::Value(0.2))]
    step: Input<f64>,
    /// Where the robot is now.
    pos: Output<[f64; 2]>,
}

fn registry() -> Registry<[f64; 2], ()> {
    let mut registry = Registry::new();
    registry
        .action("UpdatePosition", |p: UpdatePosition| {
            move |cx: &mut Ctx<[f64; 2], ()>| {
                cx.agent[0] += cx.board.get(&p.step);
                cx.board.set(&p.pos, *cx.agent);
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

/// A canopy tree file (JSON).
const TREE: &str = r#"{"tree": {"type": "Sequence", "children": [
    {"type": "UpdatePosition", "pos": "{position}"},
    {"type": "Wait", "ticks": 2},
    {"type": "UpdatePosition", "step": 0.5, "pos": "{position}"}
]}}"#;

fn main() {
    let registry = registry();
    let options = XmlOptions::default();
    let xml = export_str(&registry, TREE, Format::Json, "moves.json", &options).expect("exports");
    print!("{xml}");
    assert_eq!(
        xml,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="MainTree">
  <BehaviorTree ID="MainTree">
    <Sequence>
      <Action ID="UpdatePosition" pos="{position}"/>
      <Sleep name="Wait" msec="200"/>
      <Action ID="UpdatePosition" step="0.5" pos="{position}"/>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel>
    <Action ID="UpdatePosition">
      <input_port name="step" type="double" default="0.2">Metres per step.</input_port>
      <output_port name="pos" type="canopy::Point2">Where the robot is now.</output_port>
      <description>Moves the robot a step along x; reports where it is.</description>
    </Action>
  </TreeNodesModel>
</root>
"#
    );

    // Groot2's file reads back as the same tree, and its model names the type.
    let back = load_str(&registry, &xml, "moves.xml", None, &options).expect("reads back");
    let original = registry
        .loading(TreeSource::text(TREE, Format::Json, "moves.json"))
        .load()
        .expect("loads");
    assert_eq!(back.display().to_string(), original.display().to_string());
    let model = NodeModel::read_str(&xml, "moves.xml").expect("a model");
    assert_eq!(model.types().collect::<Vec<_>>(), ["UpdatePosition"]);
}
