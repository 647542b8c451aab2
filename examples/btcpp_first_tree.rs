//! BehaviorTree.CPP's first tutorial ("build your first tree") on canopy:
//! a robot arm picks up a part — a condition checks the battery, then three
//! actions open the gripper, move to the part and close the gripper, in a
//! `<Sequence>` read from BehaviorTree.CPP XML.
//!
//! The leaves are registered by name, as BehaviorTree.CPP's factory
//! registers them; what they do is a closure over the agent's own data (here
//! the arm: its battery and a log of what it did). With a flat battery the
//! condition fails and the Sequence stops before moving anything.
//!
//! ```text
//! cargo run --example btcpp_first_tree
//! ```
//!
//! (A game reaches the XML loader as `canopy::xml`, with the feature `xml`.)

use canopy::data::Registry;
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Status};

/// The tree, in BehaviorTree.CPP's format 4: compact leaves named by type,
/// one with a `name` of its own.
const PICK_UP: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="PickUp">
    <Sequence name="pick_up">
      <BatteryCharged/>
      <OpenGripper/>
      <MoveToPart name="reach"/>
      <CloseGripper/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

/// The arm: one agent's data, the tree's `A`.
#[derive(Debug)]
struct Arm {
    /// Charge left, in percent.
    battery: u8,
    /// What the arm did, in order.
    log: Vec<&'static str>,
}

/// The four node types of the tree, as closures over the arm.
fn registry() -> Registry<Arm, ()> {
    let mut registry = Registry::new();
    registry
        .condition("BatteryCharged", |(): ()| {
            |cx: &Ctx<Arm, ()>| cx.agent.battery > 20
        })
        .expect("a new name");
    let actions = [
        ("OpenGripper", "gripper opened"),
        ("MoveToPart", "arm at the part"),
        ("CloseGripper", "gripper closed"),
    ];
    for (name, done) in actions {
        registry
            .action(name, move |(): ()| {
                move |cx: &mut Ctx<Arm, ()>| {
                    cx.agent.log.push(done);
                    Status::Success
                }
            })
            .expect("a new name");
    }
    registry
}

/// One tick of the tree for an arm with this much battery: its status and
/// what the arm did.
fn pick_up(battery: u8) -> (Status, Vec<&'static str>) {
    let tree = load_str(
        &registry(),
        PICK_UP,
        "pick_up.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the tree loads");
    let mut arm = Arm {
        battery,
        log: Vec::new(),
    };
    let status = Agent::new(&tree).tick(&tree, &mut arm, &());
    (status, arm.log)
}

fn main() {
    let tree = load_str(
        &registry(),
        PICK_UP,
        "pick_up.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the tree loads");
    print!("{}", tree.display());
    assert_eq!(
        tree.display().to_string(),
        "\
pick_up  Sequence
├── BatteryCharged
├── OpenGripper
├── reach  MoveToPart
└── CloseGripper
"
    );

    let (status, log) = pick_up(80);
    println!("battery 80%: {status:?} after {log:?}");
    assert_eq!(status, Status::Success);
    assert_eq!(log, ["gripper opened", "arm at the part", "gripper closed"]);

    let (status, log) = pick_up(10);
    println!("battery 10%: {status:?} after {log:?}");
    assert_eq!(status, Status::Failure);
    assert!(log.is_empty(), "a flat battery moves nothing");
}
