//! BehaviorTree.CPP's observer tutorial on canopy: count, for every node,
//! how often it was entered and how often it finished with Success or
//! Failure — the statistics a unit test checks transitions with.
//!
//! canopy reports every enter, update, exit and abort to an [`Observer`]
//! passed to [`Agent::tick_observed`]; `Agent::tick` passes none and pays
//! nothing for it. A subtree used twice is held once in a canopy tree, so
//! both uses of `Leaf` below are one node whose counts add up, where
//! BehaviorTree.CPP makes a node per use, each with its own path.
//!
//! ```text
//! cargo run --example btcpp_observer
//! ```

use std::collections::BTreeMap;

use canopy::data::Registry;
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Event, EventKind, NodeId, Observer, Status, Tree};

const TREES: &str = r#"
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="main">
      <Fallback name="either">
        <AlwaysFailure name="fails"/>
        <SubTree ID="Twice"/>
      </Fallback>
      <AlwaysSuccess name="last"/>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="Twice">
    <Sequence name="twice">
      <AlwaysSuccess name="first"/>
      <SubTree ID="Leaf"/>
      <SubTree ID="Leaf"/>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="Leaf">
    <AlwaysSuccess name="leaf"/>
  </BehaviorTree>
</root>
"#;

/// Entered, succeeded, failed: per node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    entered: u32,
    succeeded: u32,
    failed: u32,
}

/// Counts events per node.
#[derive(Debug, Default)]
struct Statistics(BTreeMap<NodeId, Counts>);

impl Observer for Statistics {
    fn event(&mut self, e: Event) {
        let counts = self.0.entry(e.node).or_default();
        match e.kind {
            EventKind::Enter => counts.entered += 1,
            EventKind::Exit(Status::Success) => counts.succeeded += 1,
            EventKind::Exit(Status::Failure) => counts.failed += 1,
            _ => {}
        }
    }
}

/// The counts of the node named `name`.
fn counts_of(tree: &Tree<(), ()>, stats: &Statistics, name: &str) -> Counts {
    let node = tree.nodes().find(|n| n.name() == name).expect("a node");
    stats.0.get(&node.id()).copied().unwrap_or_default()
}

fn main() {
    let registry = Registry::<(), ()>::new();
    let tree = load_str(
        &registry,
        TREES,
        "observed.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the trees load");
    print!("{}", tree.display());

    let mut stats = Statistics::default();
    let status = Agent::new(&tree).tick_observed(&tree, &mut (), &(), &mut stats);
    assert_eq!(status, Status::Success);

    println!("node: entered/succeeded/failed");
    for node in tree.nodes() {
        let c = stats.0.get(&node.id()).copied().unwrap_or_default();
        println!(
            "{}: {}/{}/{}",
            node.name(),
            c.entered,
            c.succeeded,
            c.failed
        );
    }
    let expect = |name, entered, succeeded, failed| {
        let counts = Counts {
            entered,
            succeeded,
            failed,
        };
        assert_eq!(counts_of(&tree, &stats, name), counts, "{name}");
    };
    expect("fails", 1, 0, 1);
    expect("twice", 1, 1, 0);
    expect("leaf", 2, 2, 0); // one node, used twice
    expect("last", 1, 1, 0);
    expect("main", 1, 1, 0);
}
