//! BehaviorTree.CPP's multiple-files tutorial on canopy: a main tree in one
//! file uses subtrees defined in two others, pulled in with `<include>`;
//! then one of those subtrees is run on its own by naming it.
//!
//! The files are `examples/trees/btcpp/main.xml`, `greet.xml` and
//! `parts/farewell.xml`. Include paths are relative to the including file;
//! each file is read once and include cycles are refused. BehaviorTree.CPP's
//! tutorial registers the three texts one by one with its factory instead;
//! canopy reads `<include>` (or, from text, resolves includes in a base
//! directory given to `load_str`).
//!
//! ```text
//! cargo run --example btcpp_multiple_files
//! ```

use std::path::Path;

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_file};
use canopy::{Agent, Ctx, Input, Status, Text};

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

/// Loads `main.xml` (running `tree`, or the file's main tree) and ticks it
/// once: what was said.
fn run(tree: Option<&str>) -> Said {
    let main = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/trees/btcpp/main.xml");
    let options = XmlOptions {
        main_tree: tree.map(str::to_string),
        ..XmlOptions::default()
    };
    let tree = load_file(&registry(), main, &options).expect("the trees load");
    let mut said = Said::new();
    assert_eq!(
        Agent::new(&tree).tick(&tree, &mut said, &()),
        Status::Success
    );
    said
}

fn main() {
    println!("--- main.xml, its main tree");
    let said = run(None);
    for line in &said {
        println!("robot says: {line}");
    }
    assert_eq!(
        said,
        [
            "main tree starts",
            "hello from greet.xml",
            "goodbye from parts/farewell.xml",
        ]
    );

    println!("--- main.xml, the tree Greet alone");
    let said = run(Some("Greet"));
    for line in &said {
        println!("robot says: {line}");
    }
    assert_eq!(said, ["hello from greet.xml"]);
}
