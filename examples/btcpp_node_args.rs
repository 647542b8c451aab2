//! BehaviorTree.CPP's additional-node-arguments tutorial on canopy: give a
//! node type values that are not ports — fixed when the program starts, or
//! an object shared with the rest of the program.
//!
//! BehaviorTree.CPP passes such values to a node's constructor or to an
//! `initialize` method called through a visitor after the tree is built. In
//! canopy a node type is a closure: whatever it captures when it is
//! registered is its extra arguments, handed to every node of the type in
//! every tree it builds (an `Arc` for an object the program keeps using).
//! Nothing is set on the tree after it is built.
//!
//! ```text
//! cargo run --example btcpp_node_args
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use canopy::data::Registry;
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Status};

/// An object the program owns and the node uses (not copied into it).
#[derive(Debug)]
struct Counter {
    uses: AtomicU32,
}

/// What the nodes reported: the agent's data.
type Lines = Vec<String>;

/// A registry whose node types carry `number`, `text` and the shared
/// `counter`.
fn registry(number: i32, text: &'static str, counter: Arc<Counter>) -> Registry<Lines, ()> {
    let mut registry = Registry::new();
    registry
        .action("ActionA", move |(): ()| {
            let counter = Arc::clone(&counter);
            move |cx: &mut Ctx<Lines, ()>| {
                let uses = counter.uses.fetch_add(1, Ordering::Relaxed) + 1;
                cx.agent
                    .push(format!("ActionA: {number} / {text} / use {uses}"));
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

const TREE: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Args">
    <Sequence>
      <ActionA/>
      <ActionA/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

fn main() {
    let counter = Arc::new(Counter {
        uses: AtomicU32::new(0),
    });
    let registry = registry(42, "hello world", Arc::clone(&counter));
    let tree = load_str(&registry, TREE, "args.xml", None, &XmlOptions::default()).expect("loads");
    let mut lines = Lines::new();
    assert_eq!(
        Agent::new(&tree).tick(&tree, &mut lines, &()),
        Status::Success
    );
    for line in &lines {
        println!("{line}");
    }
    assert_eq!(
        lines,
        [
            "ActionA: 42 / hello world / use 1",
            "ActionA: 42 / hello world / use 2"
        ]
    );
    // The program's own object saw both uses.
    assert_eq!(counter.uses.load(Ordering::Relaxed), 2);
}
