//! BehaviorTree.CPP's subtree-model tutorial on canopy: a `SubTree` model
//! in the `<TreeNodesModel>` declares the subtree's ports; a `<SubTree>`
//! that leaves one out gets the port's default (a value, or a key of the
//! parent), and leaving out one without a default is refused.
//!
//! Here `MySub` is called with two of its four ports: `sub_in_value` takes
//! its default, 42, and `sub_out_result` its default key, `{out_result}`.
//! canopy resolves the remapping when the tree loads, as it resolves every
//! subtree scope, so the main tree reads `out_result` as if it had written
//! `sub_out_result="{out_result}"` itself.
//!
//! ```text
//! cargo run --example btcpp_subtree_model
//! ```

use canopy::data::Registry;
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Status};

/// The tutorial's two files as one: the subtree with its model, then the
/// main tree (`&&` written `&amp;&amp;`, as XML spells it).
const XML: &str = r#"<root BTCPP_format="4" main_tree_to_execute="MainTree">
  <TreeNodesModel>
    <SubTree ID="MySub">
      <input_port name="sub_in_value" default="42"/>
      <input_port name="sub_in_name"/>
      <output_port name="sub_out_result" default="{out_result}"/>
      <output_port name="sub_out_state"/>
    </SubTree>
  </TreeNodesModel>

  <BehaviorTree ID="MySub">
    <Sequence>
      <ScriptCondition code="sub_in_value==42 &amp;&amp; sub_in_name=='john'" />
      <Script code="sub_out_result:=69; sub_out_state:='ACTIVE'" />
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="MainTree">
    <Sequence>
      <Script code="in_name:= 'john' "/>
      <SubTree ID="MySub" sub_in_name="{in_name}" sub_out_state="{out_state}"/>
      <ScriptCondition code=" out_result==69 &amp;&amp; out_state=='ACTIVE' " />
    </Sequence>
  </BehaviorTree>
</root>"#;

fn main() {
    let registry = Registry::<(), ()>::new();
    let tree = load_str(&registry, XML, "t14.xml", None, &XmlOptions::default())
        .expect("the tutorial's tree loads");
    let mut agent = Agent::new(&tree);
    let status = agent.tick(&tree, &mut (), &());
    let board = agent.board_values(&tree);
    println!("MainTree: {status:?}");
    for (key, value) in board.iter().filter(|(k, _)| !k.starts_with("__")) {
        println!("  {key} = {value}");
    }
    assert_eq!(status, Status::Success);
    assert!(board.contains(&("out_result".to_string(), "69".to_string())));

    // Leaving out a port the model gives no default is refused.
    let missing = XML.replace(" sub_in_name=\"{in_name}\"", "");
    let err = load_str(&registry, &missing, "t14.xml", None, &XmlOptions::default())
        .expect_err("sub_in_name must be remapped");
    println!("without sub_in_name: {err}");
    assert!(
        err.to_string()
            .contains("declares the port \"sub_in_name\" without a default")
    );
}
