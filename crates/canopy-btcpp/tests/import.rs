//! Reading XML: registered types with their parameters typed and checked
//! as in JSON, the standard nodes' display, includes, options, and the
//! entry points the command line uses.

use std::path::PathBuf;

use canopy_btcpp::{XmlOptions, export_str, fuzz_one, is_xml, load_any, load_file, load_str};
use canopy_core::{Agent, Arity, Ctx, NodeKind, Status};
use canopy_data::{Format, NodeType, Param, Registry, TreeSource};

fn load(xml: &str) -> canopy_core::Tree<(), ()> {
    load_str(&Registry::new(), xml, "t.xml", None, &XmlOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn main_tree(body: &str) -> String {
    format!("<root BTCPP_format=\"4\"><BehaviorTree ID=\"Main\">{body}</BehaviorTree></root>")
}

#[test]
fn registered_types_read_as_their_json() {
    let registry = Registry::<(), ()>::new().with_seed(11);
    let xml = main_tree(
        r#"<ReactiveFallback name="sentry">
             <Chance name="alarm?" p="0.15"/>
             <Decorator ID="Guard" name="if daylight" condition="Periodic(name=&quot;daylight?&quot;, period=24, on=12)">
               <Action ID="Random" success="0.5" failure="0.1"/>
             </Decorator>
             <Decorator ID="canopy_Repeat" times="3"><canopy_Script statuses="Running; Success" clock="tick"/></Decorator>
             <Control ID="canopy_Parallel" success="one"><Wait ticks="2"/><AlwaysRunning/></Control>
           </ReactiveFallback>"#,
    );
    let json = r#"{"tree": {"type": "ReactiveSelector", "name": "sentry", "children": [
        {"type": "Chance", "name": "alarm?", "p": 0.15},
        {"type": "Guard", "name": "if daylight", "condition": {"type": "Periodic", "name": "daylight?", "period": 24, "on": 12},
         "children": [{"type": "Random", "success": 0.5, "failure": 0.1}]},
        {"type": "Repeat", "times": 3, "children": [{"type": "Script", "statuses": ["Running", "Success"], "clock": "tick"}]},
        {"type": "Parallel", "success": "one", "children": [{"type": "Wait", "ticks": 2}, {"type": "AlwaysRunning"}]}
    ]}}"#;
    let from_xml = load_str(&registry, &xml, "t.xml", None, &XmlOptions::default()).unwrap();
    let from_json = registry
        .loading(TreeSource::text(json, Format::Json, "t.json"))
        .load()
        .unwrap();
    assert_eq!(
        from_xml.display().to_string(),
        from_json.display().to_string()
    );
    assert_eq!(
        from_xml.display().to_string(),
        "\
sentry  ReactiveSelector
├── alarm?  Chance(p=0.15)
├── if daylight  Guard(condition=daylight?)
│   └── Random(success=0.5, failure=0.1)
├── Repeat(times=3)
│   └── Script(statuses=[Running, Success], clock=tick)
└── Parallel(success=one, failure=one)
    ├── Wait(ticks=2)
    └── AlwaysRunning
"
    );
    // Same node numbering, so the same random draws for every agent.
    for id in 0..20 {
        let (mut a, mut b) = (
            Agent::with_id(&from_xml, id),
            Agent::with_id(&from_json, id),
        );
        for _ in 0..30 {
            assert_eq!(
                a.tick(&from_xml, &mut (), &()),
                b.tick(&from_json, &mut (), &())
            );
        }
    }
}

#[test]
fn standard_nodes_print_as_what_they_run() {
    let tree = load(&main_tree(
        r#"<Sequence>
             <Fallback name="choose"><Sleep msec="0"/><Sleep msec="250"/></Fallback>
             <Timeout msec="0"><AlwaysSuccess/></Timeout>
             <Timeout msec="1000"><AlwaysSuccess/></Timeout>
             <Delay delay_msec="0"><AlwaysSuccess/></Delay>
             <Delay delay_msec="150"><AlwaysSuccess/></Delay>
             <Parallel><AlwaysSuccess/></Parallel>
             <ParallelAll max_failures="-1"><AlwaysSuccess/></ParallelAll>
             <IfThenElse><AlwaysSuccess/><AlwaysSuccess/></IfThenElse>
             <WhileDoElse><AlwaysSuccess/><AlwaysSuccess/><AlwaysFailure/></WhileDoElse>
             <RetryUntilSuccessful num_attempts="-1"><AlwaysSuccess/></RetryUntilSuccessful>
             <KeepRunningUntilFailure><AlwaysFailure/></KeepRunningUntilFailure>
             <ReactiveSequence/>
           </Sequence>"#,
    ));
    assert_eq!(
        tree.display().to_string(),
        "\
Sequence
├── choose  Selector
│   ├── Sleep  Wait(ticks=0)
│   └── Sleep  Wait(ticks=3)
├── Timeout(msec=0)
│   └── AlwaysSuccess
├── Timeout(ticks=10)
│   └── AlwaysSuccess
├── Delay(delay_msec=0, ticks=1)
│   └── AlwaysSuccess
├── Delay(delay_msec=150, ticks=2)
│   └── AlwaysSuccess
├── Parallel(success_count=-1, failure_count=1)
│   └── AlwaysSuccess
├── ParallelAll(max_failures=-1)
│   └── AlwaysSuccess
├── IfThenElse
│   ├── AlwaysSuccess
│   └── AlwaysSuccess
├── WhileDoElse
│   ├── AlwaysSuccess
│   ├── AlwaysSuccess
│   └── AlwaysFailure
├── RetryUntilSuccessful(num_attempts=-1)
│   └── AlwaysSuccess
├── KeepRunningUntilFailure
│   └── AlwaysFailure
└── ReactiveSequence
"
    );
}

/// A counter in the agent, bumped by the `Count` action.
fn counting_registry() -> Registry<u32, ()> {
    let mut registry = Registry::new();
    registry
        .register_action("Count", "counts its updates and succeeds", vec![], |_| {
            Ok(|cx: &mut Ctx<u32, ()>| {
                *cx.agent += 1;
                Status::Success
            })
        })
        .unwrap();
    registry
}

#[test]
fn repeat_yields_after_a_child_that_finished_at_once() {
    let registry = counting_registry();
    let tree = load_str(
        &registry,
        &main_tree("<Repeat num_cycles=\"3\"><Count/></Repeat>"),
        "t.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap();
    let (mut agent, mut count) = (Agent::new(&tree), 0);
    let mut seen = Vec::new();
    for _ in 0..4 {
        let status = agent.tick(&tree, &mut count, &());
        seen.push((status, count));
    }
    assert_eq!(
        seen,
        [
            (Status::Running, 1),
            (Status::Running, 2),
            (Status::Success, 3),
            (Status::Running, 4)
        ]
    );
}

#[test]
fn a_tree_whose_tick_could_update_too_many_nodes_is_refused() {
    let registry = counting_registry();
    let nested =
        main_tree("<Repeat num_cycles=\"-1\"><Repeat num_cycles=\"20\"><Count/></Repeat></Repeat>");
    // Two cycles a tick at most: 1 + 2 × (1 + 2 × 1) = 7 updates.
    let options = |max_updates_per_tick| XmlOptions {
        max_updates_per_tick,
        ..XmlOptions::default()
    };
    let tree = load_str(&registry, &nested, "t.xml", None, &options(7)).unwrap();
    let (mut agent, mut count) = (Agent::new(&tree), 0);
    assert_eq!(agent.tick(&tree, &mut count, &()), Status::Running);
    assert_eq!(count, 1);
    let err = load_str(&registry, &nested, "t.xml", None, &options(6)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.xml:1:24: <BehaviorTree ID=\"Main\">: one tick of this tree can update more than 6 nodes \
         (trees brought in by <SubTree> count at every use); split it into smaller trees, \
         or raise XmlOptions::max_updates_per_tick"
    );
}

#[test]
fn explicit_and_compact_forms_and_default_names() {
    let tree = load(&main_tree(
        r#"<Control ID="Sequence">
             <Action ID="canopy_Script" statuses="Success"/>
             <Condition ID="AlwaysSuccess" _autoremap="true" _description="from a tool"/>
             <Decorator ID="Inverter"><AlwaysFailure/></Decorator>
           </Control>"#,
    ));
    assert_eq!(
        tree.display().to_string(),
        "\
Sequence
├── Script(statuses=[Success], clock=install)
├── AlwaysSuccess
└── Inverter
    └── AlwaysFailure
"
    );
}

#[test]
fn main_tree_from_the_options_and_a_tree_without_id() {
    let xml = "<root BTCPP_format=\"4\" main_tree_to_execute=\"A\">\
               <BehaviorTree ID=\"A\"><AlwaysSuccess/></BehaviorTree>\
               <BehaviorTree ID=\"B\"><AlwaysFailure/></BehaviorTree></root>";
    let options = XmlOptions {
        main_tree: Some("B".to_string()),
        ..XmlOptions::default()
    };
    let tree = load_str(&Registry::<(), ()>::new(), xml, "t.xml", None, &options).unwrap();
    assert_eq!(tree.display().to_string(), "AlwaysFailure\n");
    let tree = load("<root><BehaviorTree><Sequence/></BehaviorTree></root>");
    assert_eq!(Agent::new(&tree).tick(&tree, &mut (), &()), Status::Success);
}

#[test]
fn a_main_tree_from_the_options_that_another_tree_uses_loads_alone() {
    // B is the tree to run; A, which nothing runs, is still checked, and
    // its <SubTree ID="B"> needs B's definition as a subtree too.
    let xml = "<root BTCPP_format=\"4\" main_tree_to_execute=\"A\">\
               <BehaviorTree ID=\"A\"><Sequence><SubTree ID=\"B\"/><SubTree ID=\"C\"/></Sequence></BehaviorTree>\
               <BehaviorTree ID=\"B\"><AlwaysFailure/></BehaviorTree>\
               <BehaviorTree ID=\"C\"><AlwaysSuccess/></BehaviorTree></root>";
    for (main, shown) in [("B", "AlwaysFailure\n"), ("C", "AlwaysSuccess\n")] {
        let options = XmlOptions {
            main_tree: Some(main.to_string()),
            ..XmlOptions::default()
        };
        let tree = load_str(&Registry::<(), ()>::new(), xml, "t.xml", None, &options)
            .unwrap_or_else(|e| panic!("{main}: {e}"));
        assert_eq!(tree.display().to_string(), shown);
    }
}

#[test]
fn a_registered_type_named_like_a_standard_node() {
    let mut registry = Registry::<(), ()>::new();
    registry
        .register(NodeType::new(
            "Delay",
            "the game's own delay: a Wait",
            Arity::Leaf,
            vec![Param::ticks("ticks", "how long", 0)],
            |p| {
                Ok(NodeKind::from(canopy_core::nodes::Wait {
                    ticks: p.u32("ticks")?,
                }))
            },
        ))
        .unwrap();
    let xml = main_tree(
        r#"<Sequence><canopy_Delay ticks="2"/><Delay delay_msec="100"><AlwaysSuccess/></Delay></Sequence>"#,
    );
    let tree = load_str(&registry, &xml, "t.xml", None, &XmlOptions::default()).unwrap();
    assert_eq!(
        tree.display().to_string(),
        "\
Sequence
├── Delay(ticks=2)
└── Delay(delay_msec=100, ticks=1)
    └── AlwaysSuccess
"
    );
    let exported = export_str(
        &registry,
        r#"{"tree": {"type": "Delay", "ticks": 4}}"#,
        Format::Json,
        "d.json",
        &XmlOptions::default(),
    )
    .unwrap();
    assert!(
        exported.contains(r#"<Action ID="canopy_Delay" ticks="4"/>"#),
        "{exported}"
    );
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-btcpp-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("lib/more")).unwrap();
    dir
}

#[test]
fn includes_are_relative_to_the_including_file_and_read_once() {
    let dir = scratch("includes");
    std::fs::write(
        dir.join("main.xml"),
        r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <include path="lib/a.xml"/>
  <include path="lib/more/b.xml"/>
  <BehaviorTree ID="Main"><Sequence><SubTree ID="A"/><SubTree ID="B"/></Sequence></BehaviorTree>
</root>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("lib/a.xml"),
        r#"<root BTCPP_format="4"><include path="more/b.xml"/>
  <BehaviorTree ID="A"><Inverter><SubTree ID="B"/></Inverter></BehaviorTree></root>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("lib/more/b.xml"),
        r#"<root BTCPP_format="4"><BehaviorTree ID="B"><AlwaysFailure name="b"/></BehaviorTree></root>"#,
    )
    .unwrap();
    let registry = Registry::<(), ()>::new();
    let main = dir.join("main.xml");
    let tree = load_file(&registry, &main, &XmlOptions::default()).unwrap();
    assert_eq!(
        tree.display().to_string(),
        "\
Sequence
├── Inverter
│   └── b  AlwaysFailure
└── b  AlwaysFailure
"
    );
    assert_eq!(tree.len(), 3, "B is one shared definition");
    assert!(is_xml(&main));
    assert_eq!(
        load_any(&registry, &main, &XmlOptions::default())
            .unwrap()
            .len(),
        3
    );

    std::fs::write(
        dir.join("lib/more/b.xml"),
        "<root>\n  <BehaviorTree ID=\"B\"><Nope/></BehaviorTree></root>",
    )
    .unwrap();
    let err = load_any(&registry, &main, &XmlOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2:24: <Nope>: unknown node type \"Nope\"; the registry and BehaviorTree.CPP's standard nodes have no such type",
            dir.join("lib/more/b.xml").display()
        )
    );

    std::fs::write(dir.join("t.json"), r#"{"tree": {"type": "AlwaysSuccess"}}"#).unwrap();
    assert_eq!(
        load_any(&registry, dir.join("t.json"), &XmlOptions::default())
            .unwrap()
            .len(),
        1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_fuzz_body_takes_anything() {
    let inputs: [&[u8]; 6] = [
        b"",
        b"\xff\xfe<",
        main_tree("<Repeat num_cycles=\"-1\"><Parallel><AlwaysSuccess/></Parallel></Repeat>")
            .leak()
            .as_bytes(),
        br#"{"tree": {"type": "Sequence", "children": [{"type": "Wait", "ticks": 3}]}}"#,
        br#"{"tree": {"type": "Wait"}}"#,
        b"<root><BehaviorTree><include path=\"/etc/passwd\"/></BehaviorTree></root>",
    ];
    for input in inputs {
        fuzz_one(input);
    }
}

#[test]
fn own_nodes_load_with_a_registry_that_has_no_control_or_decorator_types() {
    // Nothing a Repeat or an IfThenElse could be loaded as: they are
    // built as themselves while the registry loads the tree.
    let mut registry = Registry::<u32, ()>::empty();
    registry
        .register_action("Count", "counts its updates and succeeds", vec![], |_| {
            Ok(|cx: &mut Ctx<u32, ()>| {
                *cx.agent += 1;
                Status::Success
            })
        })
        .unwrap();
    let xml = main_tree(
        "<IfThenElse><Count/><Repeat num_cycles=\"2\"><Count/></Repeat><Count/></IfThenElse>",
    );
    let tree = load_str(&registry, &xml, "t.xml", None, &XmlOptions::default()).unwrap();
    assert_eq!(
        tree.display().to_string(),
        "\
IfThenElse
├── Count
├── Repeat(num_cycles=2)
│   └── Count
└── Count
"
    );
    let (mut agent, mut count) = (Agent::new(&tree), 0);
    let statuses: Vec<_> = (0..2)
        .map(|_| (agent.tick(&tree, &mut count, &()), count))
        .collect();
    assert_eq!(statuses, [(Status::Running, 2), (Status::Success, 3)]);
}

#[test]
fn a_subtree_with_own_nodes_used_twice_is_one_shared_node() {
    let registry = counting_registry();
    let xml = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
      <BehaviorTree ID="Main"><Sequence><SubTree ID="Twice"/><SubTree ID="Twice"/></Sequence></BehaviorTree>
      <BehaviorTree ID="Twice"><Repeat num_cycles="2"><Count/></Repeat></BehaviorTree>
    </root>"#;
    let tree = load_str(&registry, xml, "t.xml", None, &XmlOptions::default()).unwrap();
    // The Sequence, and one Repeat over one Count for both uses.
    assert_eq!(tree.len(), 3);
    let uses: Vec<_> = tree.node(tree.root()).children().map(|c| c.id()).collect();
    assert_eq!(uses[0], uses[1]);
    assert_eq!(tree.node(uses[0]).type_name(), "Repeat");
    let (mut agent, mut count) = (Agent::new(&tree), 0);
    // Each use yields after its first cycle; the second use starts in
    // the tick the first finishes.
    let statuses: Vec<_> = (0..3)
        .map(|_| (agent.tick(&tree, &mut count, &()), count))
        .collect();
    assert_eq!(
        statuses,
        [
            (Status::Running, 1),
            (Status::Running, 3),
            (Status::Success, 4)
        ]
    );
}

#[test]
fn each_copy_of_a_subtree_with_keys_of_its_own_has_its_own_own_nodes() {
    let xml = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
      <BehaviorTree ID="Main">
        <Sequence><SubTree ID="Set" n="{a}"/><SubTree ID="Set" n="{b}"/></Sequence>
      </BehaviorTree>
      <BehaviorTree ID="Set"><Repeat num_cycles="2"><Script code="n := 1"/></Repeat></BehaviorTree>
    </root>"#;
    let tree = load(xml);
    // The Sequence, and a Repeat over a script for each copy.
    assert_eq!(tree.len(), 5);
    let uses: Vec<_> = tree.node(tree.root()).children().collect();
    assert_ne!(uses[0].id(), uses[1].id());
    assert_eq!(
        tree.display().to_string(),
        "\
Sequence
├── Repeat(num_cycles=2)
│   └── Script  Eval(code=\"a := 1\")
└── Repeat(num_cycles=2)
    └── Script  Eval(code=\"b := 1\")
"
    );
}
