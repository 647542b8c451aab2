//! BehaviorTree.CPP's scripting tutorial on canopy: `Script` writes keys,
//! `ScriptCondition` tests them, `SetBlackboard` copies one, and registered
//! nodes write and read keys through their ports.
//!
//! A keypad lock, ticked once per code typed: it counts the tries, opens
//! for the right code, and sounds an alarm at the third wrong one. The
//! scripts are compiled when the tree loads, against the blackboard's
//! slots: a misspelt key, or a key a script uses as a number and a port as
//! text, is refused before the first tick — BehaviorTree.CPP finds such
//! mistakes when the script first runs.
//!
//! ```text
//! cargo run --example btcpp_scripting
//! ```

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Input, Output, Status, Text};

/// The keypad: the codes to be typed, and what its screen showed.
#[derive(Default)]
struct Keypad {
    typed: Vec<f64>,
    screen: Vec<String>,
}

/// Reads the next code typed on the keypad.
#[derive(Params)]
struct ReadCode {
    /// Where the code goes.
    code: Output<f64>,
}

/// Shows a line on the keypad's screen.
#[derive(Params)]
struct Show {
    /// The line: text in the XML, or a key holding it.
    line: Input<Text>,
}

fn registry() -> Registry<Keypad, ()> {
    let mut registry = Registry::new();
    registry
        .action("ReadCode", |p: ReadCode| {
            move |cx: &mut Ctx<Keypad, ()>| {
                let tick = cx.agent.screen.len();
                match cx.agent.typed.get(tick) {
                    Some(&code) => {
                        cx.board.set(&p.code, code);
                        Status::Success
                    }
                    None => Status::Failure,
                }
            }
        })
        .expect("a new name");
    registry
        .action("Show", |p: Show| {
            move |cx: &mut Ctx<Keypad, ()>| {
                let line = cx.board.get(&p.line);
                cx.agent.screen.push(line.to_string());
                Status::Success
            }
        })
        .expect("a new name");
    registry
}

const KEYPAD: &str = r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Keypad">
    <Sequence>
      <RunOnce then_skip="false">
        <Script code="secret := 4242; tries := 0"/>
      </RunOnce>
      <ReadCode code="{entered}"/>
      <Script code="tries += 1"/>
      <Fallback>
        <Sequence>
          <ScriptCondition code="entered == secret"/>
          <Script code="status := 'open'; tries := 0"/>
        </Sequence>
        <Sequence>
          <ScriptCondition code="tries &gt;= 3"/>
          <Script code="status := 'alarm'"/>
        </Sequence>
        <Script code="status := 'wrong, try ' .. (tries == 1 ? 'two' : 'one') .. ' more'"/>
      </Fallback>
      <SetBlackboard value="{status}" output_key="shown"/>
      <Show line="{shown}"/>
    </Sequence>
  </BehaviorTree>
</root>"#;

/// The screen after typing `codes`, one per tick.
fn run(codes: &[f64]) -> Vec<String> {
    let tree = load_str(
        &registry(),
        KEYPAD,
        "keypad.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the keypad loads");
    let mut keypad = Keypad {
        typed: codes.to_vec(),
        ..Keypad::default()
    };
    let mut agent = Agent::new(&tree);
    for _ in codes {
        assert_eq!(agent.tick(&tree, &mut keypad, &()), Status::Success);
    }
    keypad.screen
}

fn main() {
    let opened = run(&[1111.0, 4242.0]);
    println!("typed 1111, 4242: {opened:?}");
    assert_eq!(opened, ["wrong, try two more", "open"]);

    let alarm = run(&[1.0, 2.0, 3.0]);
    println!("typed 1, 2, 3: {alarm:?}");
    assert_eq!(
        alarm,
        ["wrong, try two more", "wrong, try one more", "alarm"]
    );

    // A misspelt key is refused when the tree loads, with the column in
    // the script and the key it may have meant.
    let typo = KEYPAD.replace("entered == secret", "entered == secrte");
    let error = load_str(
        &registry(),
        &typo,
        "keypad.xml",
        None,
        &XmlOptions::default(),
    )
    .expect_err("a key nobody makes");
    println!("{error}");
    assert_eq!(
        error.to_string(),
        "keypad.xml:12:11: <ScriptCondition>: parameter \"code\": script \"entered == secrte\", \
         column 12: unknown key \"secrte\" (did you mean \"secret\"?)"
    );
}
