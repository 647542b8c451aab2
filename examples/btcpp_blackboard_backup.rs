//! BehaviorTree.CPP's blackboard-backup tutorial on canopy: save the
//! blackboard before a run, run, put it back and run again; then save it
//! as bytes (for a file) and restore from them.
//!
//! A canopy blackboard lives in the agent's own memory, so backing it up is
//! taking a [`Snapshot`](canopy::Snapshot) of the agent — which also holds
//! what is running and the tick count, so the agent carries on exactly
//! where it was — and [`Agent::restore`] checks the snapshot belongs to this
//! tree. BehaviorTree.CPP's tutorial writes the values with `Script`,
//! which canopy does not import; a registered `Note` node writes them here.
//!
//! ```text
//! cargo run --example btcpp_blackboard_backup
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Input, Output, Snapshot, Status, Text};

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

/// What was said: the agent's data.
type Said = Vec<String>;

fn registry() -> Registry<Said, ()> {
    let mut registry = Registry::new();
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

const TREES: &str = r#"
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <SaySomething message="{reply}"/>
      <Note text="john" to="{name}"/>
      <SaySomething message="{name}"/>
      <SubTree ID="Reply" _autoremap="true"/>
      <SaySomething message="{reply}"/>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="Reply">
    <Sequence>
      <SaySomething message="{name}"/>
      <Note text="done" to="{reply}"/>
    </Sequence>
  </BehaviorTree>
</root>
"#;

fn main() {
    let tree = load_str(
        &registry(),
        TREES,
        "backup.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the trees load");
    let mut agent = Agent::new(&tree);
    let backup = agent.snapshot(&tree);

    let run = |agent: &mut Agent| {
        let mut said = Said::new();
        assert_eq!(agent.tick(&tree, &mut said, &()), Status::Success);
        said
    };
    let first = run(&mut agent);
    println!("first run said {first:?}");
    assert_eq!(first, ["", "john", "john", "done"]);
    println!("blackboard: {:?}", agent.board_values(&tree));
    let after_first_run = agent.board_values(&tree);

    // The run left `reply` set: a second run starts from it.
    let second = run(&mut agent);
    println!("second run said {second:?}");
    assert_eq!(second[0], "done");

    // Back to the state before the first run: the same run again.
    let mut agent = Agent::restore(&tree, &backup).expect("a snapshot of this tree");
    let again = run(&mut agent);
    println!("after restoring the backup: {again:?}");
    assert_eq!(again, first);
    assert_eq!(first[0], "", "no reply yet");

    // As bytes, to keep in a file, and back.
    let bytes = agent.snapshot(&tree).to_bytes();
    let saved = Snapshot::from_bytes(&bytes).expect("bytes of a snapshot");
    let mut restored = Agent::restore(&tree, &saved).expect("a snapshot of this tree");
    println!(
        "{} bytes saved; restored blackboard: {:?}",
        bytes.len(),
        restored.board_values(&tree)
    );
    assert_eq!(restored.board_values(&tree), after_first_run);
}
