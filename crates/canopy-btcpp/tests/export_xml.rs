//! `export` both ways: BehaviorTree.CPP XML written as a canopy tree file
//! (JSON or RON) loads into the same tree — the same printed tree, the
//! same statuses and blackboard tick by tick in both modes — and that
//! file written back as XML loads into it again. So a Groot2 project can
//! move to canopy's formats.

#[path = "differential/generate.rs"]
#[allow(dead_code)] // the differential test reads what this one does not
mod generate;

use std::path::{Path, PathBuf};

use canopy_btcpp::{XmlOptions, export_str, export_xml_str, load_any, load_str};
use canopy_core::{Agent, Mode, Tree};
use canopy_data::{Format, Registry, TreeSource};

/// A directory for one test's files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("canopy-export-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one agent of `tree` does over `ticks` ticks in `mode`: each
/// tick's status and blackboard.
fn run(tree: &Tree<(), ()>, mode: Mode, ticks: usize) -> Vec<String> {
    let mut agent = Agent::new(tree);
    agent.set_mode(tree, mode);
    (0..ticks)
        .map(|_| {
            let status = agent.tick(tree, &mut (), &());
            format!("{status:?} {:?}", agent.board_values(tree))
        })
        .collect()
}

/// `a` and `b` are the same tree: printed alike, running alike.
fn same(a: &Tree<(), ()>, b: &Tree<(), ()>, context: &str) {
    same_keys_as(a, b, context, &|shown| shown.to_string());
}

/// `a` and `b` are the same tree once `keys` renames the keys each shows.
fn same_keys_as(a: &Tree<(), ()>, b: &Tree<(), ()>, context: &str, keys: &dyn Fn(&str) -> String) {
    assert_eq!(
        keys(&a.display().to_string()),
        keys(&b.display().to_string()),
        "{context}"
    );
    for mode in [Mode::Tick, Mode::Event] {
        let renamed =
            |tree| -> Vec<String> { run(tree, mode, 12).iter().map(|t| keys(t)).collect() };
        assert_eq!(renamed(a), renamed(b), "{mode:?}: {context}");
    }
}

/// `xml` through JSON (and RON) and back to XML: the same tree each way.
fn round_trip(registry: &Registry<(), ()>, xml: &str, dir: &Scratch, ron: bool) {
    let options = XmlOptions::default();
    let Ok(from_xml) = load_str(registry, xml, "t.xml", None, &options) else {
        // What the importer refuses, the export refuses too.
        assert!(export_xml_str(registry, xml, "t.xml", None, Format::Json, &options).is_err());
        return;
    };
    let formats: &[(Format, &str)] = if ron {
        &[(Format::Json, "t.json"), (Format::Ron, "t.ron")]
    } else {
        &[(Format::Json, "t.json")]
    };
    for &(format, name) in formats {
        let text = export_xml_str(registry, xml, "t.xml", None, format, &options).unwrap();
        let file = dir.write(name, &text);
        let from_file = load_any(registry, &file, &options)
            .unwrap_or_else(|e| panic!("{e}\n{text}\nfrom\n{xml}"));
        same(&from_xml, &from_file, &format!("{text}\nfrom\n{xml}"));
        // And back: the file as XML loads into the same tree again.
        let back = export_str(registry, &text, format, name, &options).unwrap();
        let unbounded = XmlOptions {
            max_updates_per_tick: u64::MAX,
            ..options.clone()
        };
        let from_back = load_str(registry, &back, "back.xml", None, &unbounded)
            .unwrap_or_else(|e| panic!("{e}\n{back}\nfrom\n{text}"));
        // XML has no spelling for a subtree's own key (`@Sub_1__k` in a
        // tree file): in the one tree the export writes, it is the root's
        // `Sub_1__k`, the same key under another name.
        // And the keys of nodes' own memory are named after their element,
        // which the export numbers anew.
        let root_keys = |shown: &str| untagged(&shown.replace('@', ""));
        same_keys_as(
            &from_xml,
            &from_back,
            &format!("{back}\nfrom\n{text}"),
            &root_keys,
        );
    }
}

/// `shown` with the memory keys of nodes (`"__updated_0_12"`, a
/// subtree's `"@Sub_1____updated_0_3"`) named by their kind alone: the
/// element tag and the subtree's prefix left out.
fn untagged(shown: &str) -> String {
    let mut out = String::with_capacity(shown.len());
    let mut rest = shown;
    while let Some((start, end)) = ["__updated_", "__runonce_", "__skipped_"]
        .iter()
        .filter_map(|p| rest.find(p).map(|i| (i, i + p.len())))
        .min()
    {
        // The key's start: after its opening quote.
        let key = rest[..start].rfind('"').map_or(start, |q| q + 1);
        out.push_str(&rest[..key]);
        out.push_str(&rest[start..end]);
        rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '_');
    }
    out.push_str(rest);
    out
}

#[test]
fn random_trees_survive_xml_to_json_and_back() {
    // The differential test's random trees: every standard node but the
    // timed ones, scripts, pre- and post-conditions, Precondition, Switch,
    // loops, subtrees remapped and autoremapped.
    let registry = Registry::new();
    let dir = Scratch::new("random");
    let mut rng = generate::Rng::new(7);
    for i in 0..150 {
        let tree = generate::tree(&mut rng);
        round_trip(&registry, &tree.xml, &dir, i % 5 == 0);
    }
}

#[test]
fn every_node_canopy_runs_as_its_own_goes_out_and_comes_back() {
    let xml = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="n := 0; q := '1;2'"/>
      <Parallel success_count="1" failure_count="2">
        <Delay delay_msec="150"><AlwaysSuccess/></Delay>
        <Timeout msec="0"><Sleep msec="300"/></Timeout>
      </Parallel>
      <ParallelAll max_failures="2"><AlwaysSuccess/><AlwaysFailure/></ParallelAll>
      <IfThenElse><ScriptCondition code="n == 0"/><Script code="n += 1"/><AlwaysFailure/></IfThenElse>
      <WhileDoElse><ScriptCondition code="n &lt; 3"/><Script code="n += 1"/><AlwaysSuccess/></WhileDoElse>
      <RetryUntilSuccessful num_attempts="3"><Repeat num_cycles="2"><AlwaysSuccess/></Repeat></RetryUntilSuccessful>
      <ForceSuccess><KeepRunningUntilFailure><ScriptCondition code="n &gt; 9"/></KeepRunningUntilFailure></ForceSuccess>
      <Precondition if="n &gt; 0" else="FAILURE"><Script code="n += 1" _onSuccess="n += 10"/></Precondition>
      <Switch2 variable="{n}" case_1="1" case_2="2"><AlwaysFailure/><AlwaysFailure/><AlwaysSuccess/></Switch2>
      <LoopInt queue="{q}" value="{v}"><Script code="n += v"/></LoopInt>
      <SubTree ID="Count" k="{n}"/>
      <RunOnce then_skip="false"><AlwaysSuccess/></RunOnce>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Count">
    <Script code="k += 100"/>
  </BehaviorTree>
</root>"#;
    let registry = Registry::new();
    let dir = Scratch::new("own");
    round_trip(&registry, xml, &dir, true);
    let json = export_xml_str(
        &registry,
        xml,
        "t.xml",
        None,
        Format::Json,
        &XmlOptions::default(),
    )
    .unwrap();
    for own in [
        "btcpp:Parallel",
        "btcpp:ParallelAll",
        "btcpp:Delay",
        "btcpp:Timeout",
        "btcpp:IfThenElse",
        "btcpp:WhileDoElse",
        "btcpp:RetryUntilSuccessful",
        "btcpp:Repeat",
        "btcpp:KeepRunningUntilFailure",
    ] {
        assert!(
            json.contains(&format!("\"type\": \"{own}\"")),
            "{own}:\n{json}"
        );
    }
    // The registry alone does not know them; load_any does.
    let file = dir.write("own.json", &json);
    assert!(registry.loading(TreeSource::file(&file)).load().is_err());
    assert!(load_any(&registry, &file, &XmlOptions::default()).is_ok());
}

#[test]
fn an_xml_file_that_does_not_load_is_not_exported() {
    let err = export_xml_str(
        &Registry::<(), ()>::new(),
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"M\"><Nope/></BehaviorTree></root>",
        "bad.xml",
        None,
        Format::Json,
        &XmlOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.xml:1:45: <Nope>: unknown node type \"Nope\"; the registry and BehaviorTree.CPP's \
         standard nodes have no such type"
    );
}

#[test]
fn the_repositorys_xml_examples_go_out_and_come_back() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let registry = Registry::new();
    let dir = Scratch::new("examples");
    for example in ["examples/trees/guard.xml", "examples/trees/btcpp/main.xml"] {
        let path: &Path = &root.join(example);
        let options = XmlOptions::default();
        let Ok(from_xml) = canopy_btcpp::load_file(&registry, path, &options) else {
            continue; // a game's own types
        };
        let json = canopy_btcpp::export_xml_file(&registry, path, Format::Json, &options).unwrap();
        let file = dir.write("e.json", &json);
        let from_json = load_any(&registry, &file, &options).unwrap();
        same(&from_xml, &from_json, example);
    }
}
