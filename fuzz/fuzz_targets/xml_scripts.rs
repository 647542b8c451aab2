//! Any bytes as the scripts and values of a BehaviorTree.CPP file's
//! attributes: the first byte picks one of the constructs that take a
//! script or a value — pre- and post-conditions, `Precondition`,
//! `Switch3`, `LoopInt`/`LoopString`, `SetBlackboard`, a `<SubTree>`'s
//! remapping and `_autoremap`, scripts in a subtree — and the rest, split
//! at NUL bytes, fills its attributes, written into the XML as they are
//! but for `"` and `<` (so `&amp;`, `&#10;` and bare `&` reach the
//! attribute reader). The file is loaded and ticked in both modes. Each
//! load must give a tree or an error — never a panic, hang or unbounded
//! allocation — and an error must be one short line with no control
//! character.

#![no_main]

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Mode};
use canopy_data::Registry;
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static REGISTRY: LazyLock<Registry<(), ()>> = LazyLock::new(Registry::new);

const MAX_MESSAGE_BYTES: usize = 4096;

/// The constructs, each with the attributes `{0}`, `{1}`… filled from the
/// input. Keys `a` (a number), `s` (a string) and `q` (a queue) are set
/// before each, so most scripts have something to read.
const SHAPES: [&str; 9] = [
    r#"<Script code="{0}" _successIf="{1}" _failureIf="{2}" _onSuccess="{3}" _post="{4}"/>"#,
    r#"<AlwaysSuccess _skipIf="{0}" _while="{1}" _onFailure="{2}" _onHalted="{3}"/>"#,
    r#"<Precondition if="{0}" else="{1}"><Script code="{2}"/></Precondition>"#,
    r#"<Switch3 variable="{0}" case_1="{1}" case_2="{2}" case_3="{3}"><AlwaysSuccess/><AlwaysFailure/><AlwaysSuccess/><AlwaysFailure/></Switch3>"#,
    r#"<LoopInt queue="{0}" value="{1}" if_empty="{2}"><ScriptCondition code="{3}"/></LoopInt>"#,
    r#"<LoopString queue="{0}" value="{1}"><Script code="{2}"/></LoopString>"#,
    r#"<SetBlackboard value="{0}" output_key="{1}"/>"#,
    r#"<SubTree ID="Sub" x="{0}" y="{1}" _autoremap="{2}"/>"#,
    r#"<SubTree ID="Sub" x="{0}" y="{{a}}"/><SubTree ID="Sub" x="{{s}}" y="{1}" _autoremap="true"/>"#,
];

/// The file around a construct: `Sub` reads and writes its `x` and `y`
/// and the root's `a`.
fn file(body: &str, sub: &str) -> String {
    format!(
        r#"<root BTCPP_format="4" main_tree_to_execute="Main">
<BehaviorTree ID="Main"><Sequence><Script code="a := 1; s := 'x'; q := '1;2;3'"/>{body}</Sequence></BehaviorTree>
<BehaviorTree ID="Sub"><Sequence><Script code="{sub}"/><ScriptCondition code="x != y || @a == 1"/></Sequence></BehaviorTree>
</root>"#
    )
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(rest) = std::str::from_utf8(rest) else {
        return;
    };
    let parts: Vec<String> = rest
        .split('\0')
        .map(|p| p.replace('"', "&quot;").replace('<', "&lt;"))
        .collect();
    let part = |i: usize| parts.get(i).map_or("", String::as_str);
    // Each `{N}` of the shape is part N; `{{`, `}}` are braces.
    let shape = SHAPES[usize::from(pick) % SHAPES.len()];
    let mut body = String::new();
    let mut rest_of_shape = shape;
    while let Some(open) = rest_of_shape.find('{') {
        body.push_str(&rest_of_shape[..open]);
        let after = &rest_of_shape[open + 1..];
        if let Some(tail) = after.strip_prefix('{') {
            let close = tail.find("}}").unwrap_or(tail.len());
            body.push('{');
            body.push_str(&tail[..close]);
            body.push('}');
            rest_of_shape = tail.get(close + 2..).unwrap_or("");
        } else {
            let close = after.find('}').unwrap_or(after.len());
            body.push_str(part(after[..close].parse().unwrap_or(0)));
            rest_of_shape = after.get(close + 1..).unwrap_or("");
        }
    }
    body.push_str(rest_of_shape);
    // The high bit of the first byte: the last part is the subtree's script.
    let sub = if pick & 0x80 != 0 && parts.len() > 1 {
        part(parts.len() - 1).to_string()
    } else {
        "x := 2; y := x".to_string()
    };
    let xml = file(&body, &sub);
    match load_str(&REGISTRY, &xml, "fuzz.xml", None, &XmlOptions::default()) {
        Ok(tree) => {
            for mode in [Mode::Tick, Mode::Event] {
                let mut agent = Agent::new(&tree);
                agent.set_mode(&tree, mode);
                for _ in 0..8 {
                    agent.tick(&tree, &mut (), &());
                }
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(
                !message.chars().any(char::is_control),
                "control character in {message:?}"
            );
            assert!(message.len() <= MAX_MESSAGE_BYTES, "{} bytes", message.len());
        }
    }
});
