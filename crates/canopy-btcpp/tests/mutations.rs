//! Random mutations of valid XML trees: every one loads or gives one
//! printable error, and never panics or hangs; what loads runs.

use canopy_btcpp::{XmlOptions, export_str, load_bytes};
use canopy_core::{Agent, Mode};
use canopy_data::{Format, Registry};
use proptest::prelude::*;

/// Valid trees to start from: one of every standard node, and canopy's
/// example tree as exported.
fn seeds() -> Vec<Vec<u8>> {
    let standard = r#"<?xml version="1.0"?>
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <ReactiveSequence name="top">
      <Fallback><AlwaysFailure/><ForceSuccess><AlwaysFailure/></ForceSuccess></Fallback>
      <Parallel success_count="-1" failure_count="1">
        <Sequence><Sleep msec="150"/><SubTree ID="Loops"/></Sequence>
        <ReactiveFallback><Inverter><AlwaysSuccess/></Inverter><Delay delay_msec="120"><AlwaysSuccess/></Delay></ReactiveFallback>
      </Parallel>
      <ParallelAll max_failures="1">
        <IfThenElse><AlwaysSuccess/><Timeout msec="300"><Sleep msec="100"/></Timeout><AlwaysFailure/></IfThenElse>
        <WhileDoElse><AlwaysFailure/><AlwaysSuccess/><ForceFailure><AlwaysSuccess/></ForceFailure></WhileDoElse>
      </ParallelAll>
    </ReactiveSequence>
  </BehaviorTree>
  <BehaviorTree ID="Loops">
    <Repeat num_cycles="3"><RetryUntilSuccessful num_attempts="-1"><KeepRunningUntilFailure><Action ID="Random" success="0.3" failure="0.3"/></KeepRunningUntilFailure></RetryUntilSuccessful></Repeat>
  </BehaviorTree>
  <TreeNodesModel><Action ID="Random"><input_port name="success" type="double"/></Action></TreeNodesModel>
</root>"#;
    let sentry = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/trees/sentry.json"
    ))
    .unwrap();
    let exported = export_str(
        &Registry::<(), ()>::new(),
        &sentry,
        Format::Json,
        "sentry.json",
        &XmlOptions::default(),
    )
    .unwrap();
    vec![standard.as_bytes().to_vec(), exported.into_bytes()]
}

const TOKENS: [&str; 16] = [
    "<",
    ">",
    "/>",
    "\"",
    "&amp;",
    "&#0;",
    "&lol;",
    "{x}",
    "<!DOCTYPE r [<!ENTITY a \"b\">]>",
    "<Repeat num_cycles=\"-1\">",
    "</Sequence>",
    " _skipIf=\"x\"",
    "<SubTree ID=\"Main\"/>",
    "\u{1}",
    "<include path=\"x.xml\"/>",
    " num_cycles=\"99999999999\"",
];

#[derive(Debug, Clone)]
enum Edit {
    Replace(usize, u8),
    Insert(usize, usize),
    Delete(usize, usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Replace(at, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(at, t)| Edit::Insert(at, t)),
        (any::<usize>(), 1usize..40).prop_map(|(at, n)| Edit::Delete(at, n)),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), 1usize..200).prop_map(|(at, n)| Edit::Duplicate(at, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let len = bytes.len().max(1);
    match *edit {
        Edit::Replace(at, b) if !bytes.is_empty() => bytes[at % len] = b,
        Edit::Insert(at, t) => {
            let at = at % (bytes.len() + 1);
            bytes.splice(at..at, TOKENS[t].bytes());
        }
        Edit::Delete(at, n) if !bytes.is_empty() => {
            let at = at % len;
            bytes.drain(at..(at + n).min(bytes.len()));
        }
        Edit::Truncate(at) => bytes.truncate(at % len),
        Edit::Duplicate(at, n) if !bytes.is_empty() => {
            let at = at % len;
            let slice = bytes[at..(at + n).min(bytes.len())].to_vec();
            bytes.splice(at..at, slice);
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, .. ProptestConfig::default() })]

    #[test]
    fn mutated_xml_loads_or_explains(seed in 0usize..2, edits in prop::collection::vec(edit(), 1..6)) {
        let mut bytes = seeds().swap_remove(seed);
        for e in &edits {
            apply(&mut bytes, e);
        }
        let registry = Registry::<(), ()>::new();
        match load_bytes(&registry, &bytes, "m.xml", None, &XmlOptions::default()) {
            Ok(tree) => {
                for mode in [Mode::Tick, Mode::Event] {
                    let mut agent = Agent::new(&tree);
                    agent.set_mode(&tree, mode);
                    for _ in 0..12 {
                        agent.tick(&tree, &mut (), &());
                    }
                }
            }
            Err(e) => {
                let text = e.to_string();
                prop_assert!(!text.chars().any(char::is_control), "{text:?}");
                prop_assert!(text.chars().count() < 2000, "{text:?}");
                prop_assert!(text.starts_with("m.xml"), "{text:?}");
            }
        }
    }
}
