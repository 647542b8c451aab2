//! BehaviorTree.CPP's subtree-remapping tutorial on canopy: a subtree that
//! moves the robot reads its goal from the blackboard and writes how it
//! went, and the main tree reports it.
//!
//! BehaviorTree.CPP gives each subtree a blackboard of its own and links
//! entries across with remapping ports (`target="{move_goal}"`) or shares
//! them all with `_autoremap="true"`. canopy has one blackboard per agent,
//! laid out when the tree is loaded: a remapped key of the subtree is the
//! parent's slot, a key it does not remap is a slot of its own, so the
//! scopes are BehaviorTree.CPP's and nothing is looked up while ticking. A
//! remapping between two types is refused, naming both places. The goal is
//! written by the host before the first tick.
//!
//! ```text
//! cargo run --example btcpp_subtree_ports
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Input, Output, Status, Text};

/// Drives to a pose, if it lies on the map.
#[derive(Params)]
struct MoveBase {
    /// Where to: `x;y;theta`.
    goal: Input<[f64; 3]>,
}

/// Writes a text to a key.
#[derive(Params)]
struct Note {
    /// The text.
    text: Input<Text>,
    /// The key.
    to: Output<Text>,
}

/// Says a line.
#[derive(Params)]
struct SaySomething {
    /// The line.
    message: Input<Text>,
}

/// The map's half-width: goals further out are unreachable.
const MAP: f64 = 10.0;

/// What the robot said: the agent's data.
type Said = Vec<String>;

fn registry() -> Registry<Said, ()> {
    let mut registry = Registry::new();
    registry
        .action("MoveBase", |p: MoveBase| {
            move |cx: &mut Ctx<Said, ()>| {
                let [x, y, _] = cx.board.get(&p.goal);
                if x.abs() <= MAP && y.abs() <= MAP {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
        })
        .expect("a new name");
    registry
        .action("Note", |p: Note| {
            move |cx: &mut Ctx<Said, ()>| {
                let text = cx.board.get(&p.text);
                cx.board.set(&p.to, text);
                Status::Success
            }
        })
        .expect("a new name");
    registry
        .action("SaySomething", |p: SaySomething| {
            move |cx: &mut Ctx<Said, ()>| {
                let line = cx.board.get(&p.message);
                cx.agent.push(line.to_string());
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

/// The two trees; `call` is the `<SubTree>` element's attributes.
fn trees(call: &str) -> String {
    format!(
        r#"
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <SubTree ID="MoveRobot" {call}/>
      <SaySomething message="{{move_result}}"/>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="MoveRobot">
    <Fallback>
      <Sequence>
        <MoveBase goal="{{target}}"/>
        <Note text="goal reached" to="{{result}}"/>
      </Sequence>
      <ForceFailure>
        <Note text="no way there" to="{{result}}"/>
      </ForceFailure>
    </Fallback>
  </BehaviorTree>
</root>
"#
    )
}

fn main() {
    let options = XmlOptions::default();
    let remapped = r#"target="{move_goal}" result="{move_result}""#;
    let tree = load_str(&registry(), &trees(remapped), "move.xml", None, &options)
        .expect("the tree loads");
    let goal = tree
        .key::<[f64; 3]>("move_goal")
        .expect("a key of the tree");
    let result = tree.key::<Text>("move_result").expect("a key of the tree");

    for (target, status, said) in [
        ([1.0, 2.0, 3.0], Status::Success, &["goal reached"][..]),
        ([40.0, 0.0, 0.0], Status::Failure, &[][..]),
    ] {
        let mut agent = Agent::new(&tree);
        agent.board_mut(&tree).write(goal, target);
        let mut robot = Said::new();
        let got = agent.tick(&tree, &mut robot, &());
        let outcome = agent.board_mut(&tree).read(result);
        println!("goal {target:?}: {got:?}, move_result = {outcome:?}, said {robot:?}");
        assert_eq!(got, status);
        assert_eq!(robot, said);
        let expected = if status == Status::Success {
            "goal reached"
        } else {
            "no way there"
        };
        assert_eq!(outcome.as_str(), expected);
    }

    // Without remapping, the subtree's keys are its own: the main tree's
    // move_result is never written.
    let own = load_str(
        &registry(),
        &trees(r#"target="1;2;3""#),
        "move.xml",
        None,
        &options,
    )
    .expect("the tree loads");
    let keys: Vec<&str> = own.slots().iter().map(|s| &*s.key).collect();
    println!("without remapping, the keys are {keys:?}");
    assert_eq!(keys, ["@MoveRobot_1__result", "move_result"]);
    let mut robot = Said::new();
    assert_eq!(
        Agent::new(&own).tick(&own, &mut robot, &()),
        Status::Success
    );
    assert_eq!(robot, [""]);

    // A remapping is type-checked like any key.
    let refused = load_str(
        &registry(),
        &trees(r#"target="{move_goal}" result="{move_goal}""#),
        "move.xml",
        None,
        &options,
    )
    .expect_err("a pose is not a text");
    println!("result=\"{{move_goal}}\" is refused:\n  {refused}");
    assert_eq!(
        refused.to_string(),
        "move.xml:14:9: <Note>: port \"to\" wants key \"{move_goal}\" to hold std::string, but \
         it holds canopy::Point3 since its first use at move.xml:13:9: <MoveBase>; remapped from \
         \"target\" at move.xml:5:7: <SubTree ID=\"MoveRobot\">, from \"result\" at move.xml:5:7: \
         <SubTree ID=\"MoveRobot\">"
    );
}
