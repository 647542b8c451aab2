//! Node models read for stand-ins (`NodeModel`, `StandInRules`): in work
//! that grows with the input, not its square; with every error at its
//! file, line and column; with BehaviorTree.CPP's names (a port named
//! `type`); and without unmaking the standard nodes — a model's own
//! `Wait`, `Selector` or `Eval` is a node type of its own, and `<Sleep>`,
//! `<Fallback>` and `<Script>` run as before.

use canopy_btcpp::{NodeModel, StandInRules, XmlOptions, load_str, reader_work};
use canopy_core::{Agent, Status};
use canopy_data::Registry;

fn model(types: &str) -> String {
    format!("<root BTCPP_format=\"4\">\n<TreeNodesModel>\n{types}\n</TreeNodesModel>\n</root>\n")
}

fn tree(body: &str) -> String {
    format!("<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">{body}</BehaviorTree>\n</root>\n")
}

/// The registry with the stand-ins of `types`, and what they run as.
fn stand_ins(types: &str, rules: &str) -> Result<Registry<(), ()>, String> {
    let model = NodeModel::read_str(&model(types), "m.xml").map_err(|e| e.to_string())?;
    let rules = StandInRules::read_str(rules, "r.json").map_err(|e| e.to_string())?;
    let mut registry = Registry::new();
    model
        .stand_in(&mut registry, &rules)
        .map_err(|e| e.to_string())?;
    Ok(registry)
}

fn run(registry: &Registry<(), ()>, body: &str, ticks: usize) -> Vec<Status> {
    let tree = load_str(registry, &tree(body), "t.xml", None, &XmlOptions::default()).unwrap();
    let mut agent = Agent::new(&tree);
    (0..ticks)
        .map(|_| agent.tick(&tree, &mut (), &()))
        .collect()
}

/// The reader steps `f` takes.
fn work(f: impl FnOnce()) -> u64 {
    let before = reader_work();
    f();
    reader_work() - before
}

#[test]
fn reading_a_model_with_twice_the_ports_takes_twice_the_work() {
    // One type with n ports (a duplicate-port check by scanning costs n²/2
    // comparisons), then n types with a rule each (rules matched by
    // scanning the model cost n² too).
    let ports = |n: usize| {
        let ports: String = (0..n)
            .map(|i| format!("<input_port name=\"p{i}\" type=\"double\"/>"))
            .collect();
        model(&format!("<Action ID=\"Wide\">{ports}</Action>"))
    };
    let read = |n: usize| {
        let text = ports(n);
        work(|| {
            let model = NodeModel::read_str(&text, "m.xml").unwrap();
            let mut registry = Registry::<(), ()>::new();
            model.stand_in(&mut registry, &StandInRules::new()).unwrap();
            assert_eq!(registry.get("Wide").unwrap().params().len(), n);
        })
    };
    let (small, large) = (read(5_000), read(10_000));
    eprintln!("one type's ports: {small} steps for 5,000, {large} for 10,000");
    assert!(
        small >= 5_000 && large <= small * 5 / 2,
        "{small} steps for 5,000 ports, {large} for 10,000"
    );

    let types_and_rules = |n: usize| {
        let types: String = (0..n).map(|i| format!("<Action ID=\"A{i}\"/>")).collect();
        let rules: Vec<String> = (0..n).map(|i| format!("\"A{i}\": \"Failure\"")).collect();
        (model(&types), format!("{{{}}}", rules.join(",")))
    };
    let stand = |n: usize| {
        let (types, rules) = types_and_rules(n);
        work(|| {
            let model = NodeModel::read_str(&types, "m.xml").unwrap();
            let rules = StandInRules::read_str(&rules, "r.json").unwrap();
            let mut registry = Registry::<(), ()>::new();
            let done = model.stand_in(&mut registry, &rules).unwrap();
            assert_eq!(done.len(), n);
        })
    };
    let (small, large) = (stand(5_000), stand(10_000));
    eprintln!("types and rules: {small} steps for 5,000, {large} for 10,000");
    assert!(
        small >= 5_000 && large <= small * 5 / 2,
        "{small} steps for 5,000 types and rules, {large} for 10,000"
    );
}

#[test]
fn a_tree_files_model_is_checked_in_work_that_grows_with_it() {
    // A registered type with n parameters, and a model declaring each.
    let read = |n: usize| {
        let ports: String = (0..n)
            .map(|i| format!("<input_port name=\"p{i}\" type=\"double\"/>"))
            .collect();
        let declared = model(&format!("<Action ID=\"Wide\">{ports}</Action>"));
        let mut registry = Registry::<(), ()>::new();
        NodeModel::read_str(&declared, "m.xml")
            .unwrap()
            .stand_in(&mut registry, &StandInRules::new())
            .unwrap();
        let file = declared.replace(
            "<TreeNodesModel>",
            "<BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n<TreeNodesModel>",
        );
        work(|| {
            load_str(&registry, &file, "t.xml", None, &XmlOptions::default()).unwrap();
        })
    };
    let (small, large) = (read(5_000), read(10_000));
    eprintln!("a tree file's model: {small} steps for 5,000 ports, {large} for 10,000");
    assert!(
        small >= 5_000 && large <= small * 5 / 2,
        "{small} steps for 5,000 declared ports, {large} for 10,000"
    );
}

#[test]
fn a_models_own_wait_selector_and_eval_leave_the_standard_nodes_as_they_were() {
    // Nav2's model declares Wait; others declare Selector or Eval.
    let registry = stand_ins(
        "<Action ID=\"Wait\"><input_port name=\"wait_duration\" type=\"double\"/></Action>\n\
         <Control ID=\"Selector\"/>\n<Action ID=\"Eval\"><input_port name=\"expr\"/></Action>",
        r#"{"Wait": "Failure"}"#,
    )
    .unwrap();
    // Sleep runs as canopy's Wait: 250 ms is 3 ticks after the first.
    assert_eq!(
        run(&registry, "<Sleep msec=\"250\"/>", 4),
        [
            Status::Running,
            Status::Running,
            Status::Running,
            Status::Success
        ]
    );
    // The model's Wait is the tree's when the tree names it.
    assert_eq!(
        run(&registry, "<Wait wait_duration=\"1.5\"/>", 1),
        [Status::Failure]
    );
    // A Fallback is canopy's Selector, not the model's Selector (a Sequence).
    assert_eq!(
        run(
            &registry,
            "<Fallback><AlwaysFailure/><AlwaysSuccess/></Fallback>",
            1
        ),
        [Status::Success]
    );
    // Scripts run as canopy's Eval, inside a subtree's scope too.
    let scripts = load_str(
        &registry,
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\
           <BehaviorTree ID=\"Main\"><Sequence><Script code=\"x := 2\"/><SubTree ID=\"S\" v=\"{x}\"/>\
             <ScriptCondition code=\"x == 3\"/></Sequence></BehaviorTree>\
           <BehaviorTree ID=\"S\"><Script code=\"v := v + 1\"/></BehaviorTree></root>",
        "s.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap();
    assert_eq!(
        Agent::new(&scripts).tick(&scripts, &mut (), &()),
        Status::Success
    );
    let printed = load_str(
        &registry,
        &tree("<Sequence><Sleep msec=\"100\"/><Wait wait_duration=\"2\"/><Eval expr=\"e\"/></Sequence>"),
        "t.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap()
    .display()
    .to_string();
    assert_eq!(
        printed,
        "Sequence\n├── Sleep  canopy_Wait(ticks=1)\n├── Wait(wait_duration=2)\n└── Eval(expr=\"e\")\n"
    );
}

#[test]
fn a_port_may_be_named_as_behaviortree_cpp_allows() {
    // BehaviorTree.CPP's own ex03_sqlite_log declares a port `type`.
    let registry = stand_ins(
        "<Action ID=\"SetTask\"><input_port name=\"type\" type=\"std::string\"/>\
         <input_port name=\"children\"/></Action>",
        "{}",
    )
    .unwrap();
    let loaded = load_str(
        &registry,
        &tree("<SetTask type=\"fetch\" children=\"2\"/>"),
        "t.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap();
    assert_eq!(
        loaded.display().to_string(),
        "SetTask(type_=\"fetch\", children_=\"2\")\n"
    );
    let both = load_str(
        &registry,
        &tree("<SetTask type=\"a\" type_=\"b\"/>"),
        "t.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        both.to_string(),
        "t.xml:2:25: <SetTask>: the attributes type and type_ are one parameter of SetTask \
         (type_, as canopy spells BehaviorTree.CPP's port type); write one of them"
    );
}

#[test]
fn every_model_error_names_its_place() {
    let error = |types: &str| stand_ins(types, "{}").unwrap_err();
    // The registry's own name rule, which BehaviorTree.CPP's is wider than.
    assert_eq!(
        error("<Action ID=\"Go-Home\"/>"),
        "m.xml:3:1: <Action ID=\"Go-Home\">: the ID \"Go-Home\" is not a canopy node type name \
         (letters, digits and _); rename the type"
    );
    // BehaviorTree.CPP's own rules.
    assert_eq!(
        error("<Action ID=\"Go Home\"/>"),
        "m.xml:3:1: <Action ID=\"Go Home\">: the ID \"Go Home\" contains the character \" \", \
         which BehaviorTree.CPP does not allow in IDs"
    );
    assert_eq!(
        error("<Action ID=\"Go\"><input_port name=\"_onSuccess\"/></Action>"),
        "m.xml:3:17: <input_port name=\"_onSuccess\">: the port name \"_onSuccess\" is an \
         attribute BehaviorTree.CPP reserves (name, ID, _autoremap), not a port"
    );
    assert_eq!(
        error("<Action ID=\"Go\"><input_port name=\"to\"/><output_port name=\"to\"/></Action>"),
        "m.xml:3:40: <output_port name=\"to\">: Go declares the port \"to\" twice"
    );
    assert_eq!(
        error("<Action ID=\"Go\"/>\n<Condition ID=\"Go\"/>"),
        "m.xml:4:1: <Condition ID=\"Go\">: \"Go\" is declared twice; the first is at line 3"
    );
    assert_eq!(
        error("<Action name=\"Go\"/>"),
        "m.xml:3:1: <Action name=\"Go\">: a node model needs an ID: ID=\"…\""
    );
    // A rule is placed at its key.
    let model = NodeModel::read_str(&model("<Condition ID=\"IsOpen\"/>"), "m.xml").unwrap();
    let rules =
        StandInRules::read_str("{\n  \"IsOpen\": [\"Running\", \"Success\"]\n}", "r.json").unwrap();
    assert_eq!(
        model
            .stand_in(&mut Registry::<(), ()>::new(), &rules)
            .unwrap_err()
            .to_string(),
        "r.json:2:3: \"IsOpen\" is a condition, which takes \"Success\" or \"Failure\" (a \
         condition finishes each time it is ticked, as in BehaviorTree.CPP)"
    );
}

#[test]
fn a_misplaced_tree_nodes_model_says_where_it_belongs() {
    let read = |text: &str| NodeModel::read_str(text, "m.xml").unwrap_err().to_string();
    assert_eq!(
        read("<TreeNodesModel><Action ID=\"Go\"/></TreeNodesModel>"),
        "m.xml:1:1: <TreeNodesModel>: a node model file is a <root BTCPP_format=\"4\"> holding \
         the <TreeNodesModel>: wrap it in one"
    );
    assert_eq!(
        read(
            "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"M\">\n<TreeNodesModel><Action ID=\"Go\"/></TreeNodesModel>\n</BehaviorTree>\n</root>"
        ),
        "m.xml:3:1: <TreeNodesModel>: <TreeNodesModel> belongs directly under <root>, beside the \
         <BehaviorTree> elements; move it there"
    );
}

#[test]
fn declared_conditions_are_conditions_with_their_defaults() {
    let registry = stand_ins(
        "<Condition ID=\"IsOpen\"><input_port name=\"door\" default=\"front\"/></Condition>\n\
         <Action ID=\"Go\"><input_port name=\"speed\" type=\"double\" default=\"0.5\"/>\
         <input_port name=\"goal\" type=\"canopy::Point2f\" default=\"1;2\"/>\
         <output_port name=\"done\" type=\"bool\" default=\"{done}\"/></Action>",
        r#"{"IsOpen": "Failure"}"#,
    )
    .unwrap();
    assert!(registry.get("IsOpen").unwrap().is_condition());
    // As a condition in the explicit form, and as a guard's condition.
    let warned = canopy_btcpp::load_str_with_warnings(
        &registry,
        &tree("<Fallback><Condition ID=\"IsOpen\"/><Go/></Fallback>"),
        "t.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap();
    assert_eq!(warned.warnings, []);
    assert_eq!(
        run(
            &registry,
            "<Fallback><Condition ID=\"IsOpen\"/><Go/></Fallback>",
            1
        ),
        [Status::Success]
    );
    assert_eq!(
        run(&registry, "<Guard condition=\"IsOpen\"><Go/></Guard>", 1),
        [Status::Failure]
    );
    let printed = load_str(
        &registry,
        &tree("<Go done=\"{d}\"/>"),
        "t.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap()
    .display()
    .to_string();
    assert_eq!(printed, "Go(speed=0.5, goal=[1, 2], done={d})\n");
}
