//! Values stay values: text BehaviorTree.CPP reads as a value (a literal
//! passed to a SubTree port, `SetBlackboard`'s `value`, a `Switch` case)
//! never runs as script code however much it looks like some, and a
//! `Precondition`'s `if` is one script of its own, compiled before it is
//! negated — never text pasted into another script. Each expected
//! result was taken from BehaviorTree.CPP (behaviortreepy) on the same
//! file.

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Status};
use canopy_data::Registry;
use proptest::prelude::*;

fn load(xml: &str) -> Result<canopy_core::Tree<(), ()>, String> {
    load_str(&Registry::new(), xml, "v.xml", None, &XmlOptions::default())
        .map_err(|e| e.to_string())
}

/// The main tree `body`, beside a tree `Sub` of `sub`, ticked once.
fn tick_once(body: &str, sub: &str) -> Result<Status, String> {
    let xml = format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n\
         <BehaviorTree ID=\"Main\"><Sequence>{body}</Sequence></BehaviorTree>\n\
         <BehaviorTree ID=\"Sub\">{sub}</BehaviorTree>\n</root>"
    );
    let tree = load(&xml)?;
    let mut agent = Agent::new(&tree);
    Ok(agent.tick(&tree, &mut (), &()))
}

/// `text` as an XML attribute value.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn a_literal_passed_to_a_subtree_port_does_not_run_as_code() {
    // Before: the literal was pasted into the subtree's script, so it
    // closed the string and ran `hp = 999` in the parent (Failure).
    // BehaviorTree.CPP: Success, hp stays 10.
    let status = tick_once(
        "<Script code=\"hp := 10\"/>\
         <SubTree ID=\"Sub\" v=\"a&quot; ; hp = 999 ; &quot;'\" hp=\"{hp}\"/>\
         <ScriptCondition code=\"hp == 10\"/>",
        "<Script code=\"w := v\"/>",
    );
    assert_eq!(status, Ok(Status::Success));
}

#[test]
fn a_switch_case_in_braces_names_a_key_and_is_never_code() {
    // Before: `{c || true}` became the code `c || true`, always true, so
    // case 1 matched. BehaviorTree.CPP reads it as a key nothing wrote:
    // the case is skipped and case 2 (`0`) matches.
    let status = tick_once(
        "<Script code=\"c := 0\"/>\
         <Switch2 variable=\"{c}\" case_1=\"{c || true}\" case_2=\"0\">\
         <AlwaysFailure/><AlwaysSuccess/><AlwaysFailure/></Switch2>",
        "<AlwaysSuccess/>",
    );
    assert_eq!(status, Ok(Status::Success));
}

#[test]
fn a_preconditions_if_is_a_script_of_its_own() {
    // Before: pasted into `!(…)`, a valid script of two statements was
    // refused. BehaviorTree.CPP: Success.
    let two_statements = "<Precondition if=\"a := 1; a == 1\" else=\"FAILURE\">\
                          <AlwaysSuccess/></Precondition>";
    assert_eq!(
        tick_once(two_statements, "<AlwaysSuccess/>"),
        Ok(Status::Success)
    );
    // Before: an unbalanced one closed the `!(` and ran `a = 2`.
    // BehaviorTree.CPP refuses it when the tree is made: "expected ';'".
    let unbalanced = "<Script code=\"a := 1\"/>\
                      <Precondition if=\"true) ; a = 2 ; (true\" else=\"FAILURE\">\
                      <AlwaysSuccess/></Precondition>";
    assert_eq!(
        tick_once(unbalanced, "<AlwaysSuccess/>"),
        Err(
            "v.xml:2:58: <Precondition>: if: script \"true) ; a = 2 ; (true\", column 5: \
             expected an expression, found `)`"
                .to_string()
        )
    );
}

/// Text that looks like script: quotes, operators, separators, braces
/// inside, keys and numbers — but not a `{key}` as a whole, which
/// BehaviorTree.CPP reads as a key, nor `=` alone, which its nodes' ports
/// read as `{=}` (a difference canopy documents), nor space at either end.
fn scriptish() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "'", "\"", ";", " ", ":=", "=", "==", "+", "..", "||", "&&", "&", "!", "(", ")", "{", "}",
        "hp", "a", "999", "1.5", "true", "@", "\\", "<", ">", "?", ":",
    ]);
    prop::collection::vec(piece, 1..12)
        .prop_map(|pieces| pieces.concat())
        .prop_filter("a value, not a {key} or padded", |t| {
            let trimmed = t.trim();
            trimmed == t && !t.is_empty() && t != "=" && !(t.starts_with('{') && t.ends_with('}'))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Script syntax through every value attribute stays that text: the
    /// value `SetBlackboard` writes, passed on through a SubTree port as a
    /// literal, equals the same text as a `Switch` case, and no script
    /// ran on the way (hp is still 10).
    #[test]
    fn script_syntax_in_a_value_attribute_stays_a_value(text in scriptish()) {
        let value = attribute(&text);
        let body = format!(
            "<Script code=\"hp := 10\"/>\
             <SetBlackboard output_key=\"out\" value=\"{value}\"/>\
             <Switch2 variable=\"{{out}}\" case_1=\"{value}\" case_2=\"{value}x\">\
             <AlwaysSuccess/><AlwaysFailure/><AlwaysFailure/></Switch2>\
             <SubTree ID=\"Sub\" v=\"{value}\" hp=\"{{hp}}\"/>\
             <ScriptCondition code=\"hp == 10\"/>"
        );
        let sub = format!(
            "<Sequence><SetBlackboard output_key=\"w\" value=\"{{v}}\"/>\
             <Switch2 variable=\"{{w}}\" case_1=\"{value}\" case_2=\"{value}x\">\
             <AlwaysSuccess/><AlwaysFailure/><AlwaysFailure/></Switch2></Sequence>"
        );
        prop_assert_eq!(tick_once(&body, &sub), Ok(Status::Success), "{}", text);
    }
}
