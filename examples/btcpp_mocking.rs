//! BehaviorTree.CPP's node-mocking tutorial on canopy: run a tree whose
//! node code does not exist yet (or should not run in a test) on
//! stand-ins built from a `<TreeNodesModel>`, with rules saying what each
//! stand-in answers.
//!
//! [`NodeModel::stand_in`] registers a stand-in for every declared type the
//! registry lacks: it has the declared ports, so the blackboard wiring is
//! type-checked as for the real node; a leaf plays back statuses (default:
//! Success at once), a control runs as one of canopy's controls and a
//! decorator as one of its decorators. Types the registry has keep their
//! code; remove one from the registry to mock it too. The same works from
//! the shell: `canopy run --model MODEL.xml --stand-ins RULES.json TREE.xml`.
//!
//! BehaviorTree.CPP substitutes nodes by their name or path, with
//! wildcards, and its test nodes can run a script afterwards; canopy's
//! stand-ins go by node type and only answer with statuses.
//!
//! ```text
//! cargo run --example btcpp_mocking
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{NodeModel, StandInRules, XmlOptions, load_str};
use canopy::{Agent, Ctx, Input, Status, Text};

/// The node types of a fetching robot, declared without their code.
const MODEL: &str = r#"
<root BTCPP_format="4">
  <TreeNodesModel>
    <Action ID="FindObject">
      <input_port name="object" type="std::string">What to look for.</input_port>
      <output_port name="pose" type="geometry::Pose">Where it is.</output_port>
    </Action>
    <Action ID="Grasp">
      <input_port name="pose" type="geometry::Pose">Where to grasp.</input_port>
    </Action>
    <Action ID="SaySomething">
      <input_port name="message" type="std::string">The line.</input_port>
    </Action>
    <Control ID="Recovery"/>
  </TreeNodesModel>
</root>
"#;

const FETCH: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Fetch">
    <Recovery>
      <Sequence>
        <FindObject object="cup" pose="{cup_pose}"/>
        <Grasp pose="{cup_pose}"/>
        <SaySomething message="got the cup"/>
      </Sequence>
      <SaySomething message="please help me"/>
    </Recovery>
  </BehaviorTree>
</root>
"#;

/// Says a line: the one node type whose code exists.
#[derive(Params)]
struct SaySomething {
    /// The line.
    message: Input<Text>,
}

/// What the robot said: the agent's data.
type Said = Vec<String>;

fn registry() -> Registry<Said, ()> {
    let mut registry = Registry::new();
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

/// The tree on stand-ins following `rules` (without SaySomething's code if
/// `mock_speech`), ticked until it ends: the statuses and what was said.
fn run(rules: &str, mock_speech: bool) -> (Vec<Status>, Said) {
    let model = NodeModel::read_str(MODEL, "fetch_nodes.xml").expect("a model");
    let rules = StandInRules::read_str(rules, "rules.json").expect("rules");
    let mut registry = registry();
    if mock_speech {
        registry.remove("SaySomething");
    }
    for stand_in in model.stand_in(&mut registry, &rules).expect("stand-ins") {
        println!("  stand-in {stand_in}");
    }
    let tree = load_str(&registry, FETCH, "fetch.xml", None, &XmlOptions::default())
        .expect("the tree loads");
    let (mut agent, mut said) = (Agent::new(&tree), Said::new());
    let mut statuses = Vec::new();
    while statuses.last() != Some(&Status::Success) && statuses.len() < 5 {
        statuses.push(agent.tick(&tree, &mut said, &()));
    }
    println!("  ticks: {statuses:?}, said {said:?}");
    (statuses, said)
}

fn main() {
    use Status::{Running, Success};

    println!("--- the grasp takes two ticks and works");
    let (statuses, said) = run(
        r#"{"Recovery": "Fallback", "Grasp": ["Running", "Success"]}"#,
        false,
    );
    assert_eq!(statuses, [Running, Success]);
    assert_eq!(said, ["got the cup"]);

    println!("--- the grasp fails: the Recovery, standing in as a Fallback, asks for help");
    let (statuses, said) = run(
        r#"{"Recovery": "Fallback", "Grasp": ["Running", "Failure"]}"#,
        false,
    );
    assert_eq!(statuses, [Running, Success]);
    assert_eq!(said, ["please help me"]);

    println!("--- SaySomething mocked too: nothing is said");
    let (statuses, said) = run(r#"{"Recovery": "Fallback"}"#, true);
    assert_eq!(statuses, [Success]);
    assert!(said.is_empty());

    // The stand-ins' ports have the declared types: a pose wired to a
    // string port is refused, naming both elements.
    let model = NodeModel::read_str(MODEL, "fetch_nodes.xml").expect("a model");
    let mut registry = registry();
    let rules = StandInRules::read_str("{}", "rules.json").expect("rules");
    model.stand_in(&mut registry, &rules).expect("stand-ins");
    let miswired = FETCH.replace(r#"message="got the cup""#, r#"message="{cup_pose}""#);
    let refused = load_str(
        &registry,
        &miswired,
        "fetch.xml",
        None,
        &XmlOptions::default(),
    )
    .expect_err("a pose is not a line");
    println!("refused at load: {refused}");
    assert_eq!(
        refused.to_string(),
        "fetch.xml:8:9: <SaySomething>: port \"message\" wants key \"{cup_pose}\" to hold \
         std::string, but it holds geometry::Pose since its first use at fetch.xml:6:9: \
         <FindObject>"
    );
}
