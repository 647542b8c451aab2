//! BehaviorTree.CPP's ports tutorial on canopy: one node writes a line to
//! a blackboard key through an output port, another reads it through an
//! input port, and the same input port also takes a line written in the
//! XML itself.
//!
//! A node type's ports are fields of its parameters struct
//! (`#[derive(Params)]`): `Input<T>` holds either a literal or a `{key}`,
//! `Output<T>` a `{key}`. Every key gets one slot in each agent's blackboard
//! with a type fixed when the tree loads, so a key read as a number here and
//! as text there is refused before anything runs — BehaviorTree.CPP finds
//! such a mistake only when the second node touches the entry.
//!
//! ```text
//! cargo run --example btcpp_ports
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Output, Status, Text};

/// Says a line (the agent keeps what it said).
#[derive(Params)]
struct SaySomething {
    /// The line: text in the XML, or a key holding it.
    message: canopy::Input<Text>,
}

/// Makes up a line and counts its words.
#[derive(Params)]
struct ThinkWhatToSay {
    /// Where the line goes.
    text: Output<Text>,
    /// Where the number of its words goes.
    words: Output<u32>,
}

/// What the robot said, in order: the agent's data.
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
        .action("ThinkWhatToSay", |p: ThinkWhatToSay| {
            move |cx: &mut Ctx<Said, ()>| {
                let line = "forty-two, of course";
                cx.board.set(&p.text, Text::new(line));
                cx.board
                    .set(&p.words, line.split_whitespace().count() as u32);
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

const TALK: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Talk">
    <Sequence>
      <SaySomething message="hello"/>
      <ThinkWhatToSay text="{the_answer}" words="{length}"/>
      <SaySomething message="{the_answer}"/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

/// A key written as a number and read as text.
const MISWIRED: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Talk">
    <Sequence>
      <ThinkWhatToSay text="{the_answer}" words="{length}"/>
      <SaySomething message="{length}"/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

fn main() {
    let options = XmlOptions::default();
    let tree = load_str(&registry(), TALK, "talk.xml", None, &options).expect("the tree loads");
    let slots: Vec<String> = tree
        .slots()
        .iter()
        .map(|s| format!("{}: {}", s.key, s.ty))
        .collect();
    println!("blackboard slots: {slots:?}");
    assert_eq!(slots, ["the_answer: std::string", "length: unsigned int"]);

    let mut agent = Agent::new(&tree);
    let mut said = Said::new();
    let status = agent.tick(&tree, &mut said, &());
    for line in &said {
        println!("robot says: {line}");
    }
    assert_eq!(status, Status::Success);
    assert_eq!(said, ["hello", "forty-two, of course"]);

    let values = agent.board_values(&tree);
    println!("blackboard after the tick: {values:?}");
    assert_eq!(
        values,
        [
            (
                "the_answer".to_string(),
                "\"forty-two, of course\"".to_string()
            ),
            ("length".to_string(), "3".to_string()),
        ]
    );

    let refused = load_str(&registry(), MISWIRED, "miswired.xml", None, &options)
        .expect_err("a key of two types is refused");
    println!("refused at load: {refused}");
    assert_eq!(
        refused.to_string(),
        "miswired.xml:6:7: <SaySomething>: port \"message\" wants key \"{length}\" to hold \
         std::string, but it holds unsigned int since its first use at miswired.xml:5:7: \
         <ThinkWhatToSay>"
    );
}
