//! Any bytes as a BehaviorTree.CPP node model, stand-in rules and a tree
//! using them, split at NUL bytes (which none of the three can hold):
//! `MODEL \0 RULES \0 TREE`. The model is read with
//! `canopy::xml::NodeModel::read_str`, the rules with
//! `StandInRules::read_str` (none: the defaults), and the model's types
//! stood in, in a registry of canopy's built-ins, as `canopy check
//! --model --stand-ins` does; the tree (none: the model file itself, which
//! may hold trees too) is then loaded with them and ticked in both modes.
//! Each step must give a value or an error — never a panic, hang or
//! unbounded allocation — and an error must be one short line with no
//! control character.

#![no_main]

use canopy_btcpp::{NodeModel, StandInRules, XmlOptions, load_str};
use canopy_core::{Agent, Mode};
use canopy_data::Registry;
use libfuzzer_sys::fuzz_target;

/// The longest error message: every piece of file text in it is cut to
/// 80 characters, every list to ten names.
const MAX_MESSAGE_BYTES: usize = 4096;

fn check_message(message: &str) {
    assert!(
        !message.chars().any(char::is_control),
        "control character in {message:?}"
    );
    assert!(
        message.len() <= MAX_MESSAGE_BYTES,
        "{} bytes: {}…",
        message.len(),
        message.chars().take(200).collect::<String>()
    );
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let Ok(model_text) = std::str::from_utf8(parts.next().unwrap_or_default()) else {
        return;
    };
    let rules_text = parts.next().and_then(|p| std::str::from_utf8(p).ok());
    let tree_text = parts.next().and_then(|p| std::str::from_utf8(p).ok());
    let model = match NodeModel::read_str(model_text, "model.xml") {
        Ok(model) => model,
        Err(e) => return check_message(&e.to_string()),
    };
    let _ = model.types().count();
    let rules = match rules_text.map(|text| StandInRules::read_str(text, "rules.json")) {
        None => StandInRules::new(),
        Some(Ok(rules)) => rules,
        Some(Err(e)) => return check_message(&e.to_string()),
    };
    let mut registry = Registry::<(), ()>::new();
    let stand_ins = match model.stand_in(&mut registry, &rules) {
        Ok(stand_ins) => stand_ins,
        Err(e) => return check_message(&e.to_string()),
    };
    for stand_in in &stand_ins {
        check_message(&stand_in.to_string());
    }
    let tree_text = tree_text.unwrap_or(model_text);
    match load_str(&registry, tree_text, "tree.xml", None, &XmlOptions::default()) {
        Ok(tree) => {
            for mode in [Mode::Tick, Mode::Event] {
                let mut agent = Agent::new(&tree);
                agent.set_mode(&tree, mode);
                for _ in 0..8 {
                    agent.tick(&tree, &mut (), &());
                }
            }
        }
        Err(e) => check_message(&e.to_string()),
    }
});
