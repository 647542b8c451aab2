//! BehaviorTree.CPP's global-blackboard tutorial on canopy: the host
//! writes a number before each tick, nodes in the main tree and in a
//! subtree read it as `{@value}`, one writes its square, and the host reads
//! that back after the tick.
//!
//! In BehaviorTree.CPP `@` reaches the top-level blackboard from any
//! subtree without remapping. canopy resolves every key when the tree is
//! loaded, so `{@value}` in a subtree is the main tree's `value` slot,
//! while a key the subtree does not remap would be a slot of its own. The host
//! reads and writes slots through typed keys
//! looked up once ([`Tree::key`](canopy::Tree::key)), not by string on each
//! access. BehaviorTree.CPP's tutorial squares the value with a `Script`,
//! which canopy does not import; here a registered node does it.
//!
//! ```text
//! cargo run --example btcpp_global_blackboard
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Input, Output, Status};

/// Reports a number.
#[derive(Params)]
struct PrintNumber {
    /// The number.
    val: Input<i32>,
}

/// Squares a number.
#[derive(Params)]
struct Square {
    /// The number.
    val: Input<i32>,
    /// Its square.
    sqr: Output<i32>,
}

/// What was reported, as `name: value` lines: the agent's data.
type Printed = Vec<String>;

fn registry() -> Registry<Printed, ()> {
    let mut registry = Registry::new();
    registry
        .action("PrintNumber", |p: PrintNumber| {
            move |cx: &mut Ctx<Printed, ()>| {
                let val = cx.board.get(&p.val);
                cx.agent.push(format!("val: {val}"));
                Status::Success
            }
        })
        .expect("a new name");
    registry
        .action("Square", |p: Square| {
            move |cx: &mut Ctx<Printed, ()>| {
                let val = cx.board.get(&p.val);
                cx.board.set(&p.sqr, val * val);
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

const TREES: &str = r#"
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <PrintNumber val="{@value}"/>
      <SubTree ID="Squares"/>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="Squares">
    <Sequence>
      <PrintNumber val="{@value}"/>
      <Square val="{@value}" sqr="{@value_sqr}"/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

fn main() {
    let tree = load_str(
        &registry(),
        TREES,
        "global.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the trees load");
    let value = tree.key::<i32>("value").expect("a key of the tree");
    let value_sqr = tree.key::<i32>("value_sqr").expect("a key of the tree");

    let mut agent = Agent::new(&tree);
    for i in 1..=3 {
        agent.board_mut(&tree).write(value, i);
        let mut printed = Printed::new();
        let status = agent.tick(&tree, &mut printed, &());
        let sqr = agent.board_mut(&tree).read(value_sqr);
        for line in &printed {
            println!("{line}");
        }
        println!("host: value {i}, value_sqr {sqr}");
        assert_eq!(status, Status::Success);
        assert_eq!(printed, [format!("val: {i}"), format!("val: {i}")]);
        assert_eq!(sqr, i * i);
    }
}
