//! What BehaviorTree.CPP 4 loads, canopy loads and runs the same — with a
//! warning where the file probably says something its author did not
//! mean: an action written `<Condition>`, a node model that disagrees with
//! the code, a `<SubTree>` remapping a port its tree's model lacks. A
//! strict load refuses each, at its place.
//!
//! Every expected run was recorded from BehaviorTree.CPP through
//! behaviortreepy 0.1.4 (BehaviorTree.CPP 4.8.2; the rules used here are
//! 4.10's too, read in its `xml_parsing.cpp`), and where behaviortreepy
//! can be imported the test runs it again (`peer/statuses.py`);
//! `CANOPY_REQUIRE_BTCPP=1` makes that required, as CI does.

mod peer;

use std::path::PathBuf;
use std::process::Command;

use canopy_btcpp::{WarningKind, XmlOptions, load_str, load_str_with_warnings};
use canopy_core::{Agent, Ctx, Status};
use canopy_data::Registry;

/// The leaves `peer/statuses.py` registers in BehaviorTree.CPP, as canopy
/// types: actions `Act` (Success) and `Fail` (Failure), conditions `Cond`
/// (false) and `Check` (true).
fn registry() -> Registry<(), ()> {
    let mut registry = Registry::new();
    registry
        .register_action("Act", "succeeds", vec![], |_| {
            Ok(|_: &mut Ctx<(), ()>| Status::Success)
        })
        .unwrap();
    registry
        .register_action("Fail", "fails", vec![], |_| {
            Ok(|_: &mut Ctx<(), ()>| Status::Failure)
        })
        .unwrap();
    registry
        .register_condition("Cond", "false", vec![], |_| Ok(|_: &Ctx<(), ()>| false))
        .unwrap();
    registry
        .register_condition("Check", "true", vec![], |_| Ok(|_: &Ctx<(), ()>| true))
        .unwrap();
    registry
}

/// What canopy does with `xml`, as `peer/statuses.py` prints what
/// BehaviorTree.CPP does: the statuses of `ticks` ticks, then the root
/// blackboard (keys of subtrees' own scopes left out); or `load error: …`.
fn canopy(xml: &str, tree: Option<&str>, ticks: usize) -> String {
    let options = XmlOptions {
        main_tree: tree.map(str::to_string),
        ..XmlOptions::default()
    };
    let tree = match load_str(&registry(), xml, "t.xml", None, &options) {
        Ok(tree) => tree,
        Err(e) => return format!("load error: {e}"),
    };
    let mut agent = Agent::new(&tree);
    let statuses: Vec<String> = (0..ticks)
        .map(|_| format!("{:?}", agent.tick(&tree, &mut (), &())))
        .collect();
    let mut board: Vec<String> = agent
        .board_values(&tree)
        .into_iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .map(|(k, v)| {
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .map_or(v.clone(), str::to_string);
            format!("{k}={v}")
        })
        .collect();
    board.sort();
    format!("{} | {}", statuses.join(" "), board.join(" "))
        .trim_end()
        .to_string()
}

/// What BehaviorTree.CPP does with `xml`, if behaviortreepy can be run.
fn btcpp(xml: &str, tree: Option<&str>, ticks: usize) -> Option<String> {
    if !peer::btcpp_available() {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("canopy-warnings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{:x}.xml", fxhash(xml)));
    std::fs::write(&file, xml).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peer/statuses.py");
    let mut command = Command::new("python3");
    command.arg(script).args(["--ticks", &ticks.to_string()]);
    if let Some(tree) = tree {
        command.args(["--tree", tree]);
    }
    let out = command.arg(&file).output().expect("python3 runs");
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap().trim().to_string())
}

fn fxhash(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// canopy runs `xml` as recorded from BehaviorTree.CPP (`expected`), and
/// BehaviorTree.CPP, where it can be run, still does. A load error is
/// compared by its start only: the messages are each program's own.
fn runs_as_btcpp(xml: &str, tree: Option<&str>, ticks: usize, expected: &str) {
    let ours = canopy(xml, tree, ticks);
    if expected == "load error" {
        assert!(ours.starts_with("load error"), "canopy: {ours}");
    } else {
        assert_eq!(ours, expected, "canopy on\n{xml}");
    }
    if let Some(theirs) = btcpp(xml, tree, ticks) {
        if expected == "load error" {
            assert!(
                theirs.starts_with("load error"),
                "BehaviorTree.CPP: {theirs}"
            );
        } else {
            assert_eq!(theirs, expected, "BehaviorTree.CPP on\n{xml}");
        }
    }
}

/// The warnings canopy gives for `xml`, as printed.
fn warnings(xml: &str) -> Vec<String> {
    load_str_with_warnings(&registry(), xml, "t.xml", None, &XmlOptions::default())
        .unwrap()
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The error a strict load gives for `xml`.
fn strict_error(xml: &str) -> String {
    let strict = XmlOptions {
        strict: true,
        ..XmlOptions::default()
    };
    load_str(&registry(), xml, "t.xml", None, &strict)
        .unwrap_err()
        .to_string()
}

fn file(body: &str) -> String {
    format!("<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n{body}\n</root>\n")
}

#[test]
fn an_action_written_as_a_condition_runs_as_the_action_with_a_warning() {
    // `Act` succeeds, `Cond` fails, whatever their tags say.
    let xml = file(
        "<BehaviorTree ID=\"Main\">\n  <Sequence>\n    <Condition ID=\"Act\"/>\n    <Action ID=\"Cond\"/>\n  </Sequence>\n</BehaviorTree>",
    );
    runs_as_btcpp(&xml, None, 2, "Failure Failure |");
    assert_eq!(
        warnings(&xml),
        [
            "t.xml:4:5: <Condition ID=\"Act\">: \"Act\" is an action, not a condition; \
             BehaviorTree.CPP runs it as the action it is, and so does canopy: write <Action \
             ID=\"Act\"/> or <Act/>",
            "t.xml:5:5: <Action ID=\"Cond\">: \"Cond\" is a condition, not an action; \
             BehaviorTree.CPP runs it as the condition it is, and so does canopy: write \
             <Condition ID=\"Cond\"/> or <Cond/>",
        ]
    );
    let fallback = file(
        "<BehaviorTree ID=\"Main\">\n  <Fallback>\n    <Action ID=\"Cond\"/>\n    <Condition ID=\"Act\"/>\n  </Fallback>\n</BehaviorTree>",
    );
    runs_as_btcpp(&fallback, None, 2, "Success Success |");
    assert_eq!(
        strict_error(&xml),
        "t.xml:4:5: <Condition ID=\"Act\">: \"Act\" is an action, not a condition; \
         BehaviorTree.CPP runs it as the action it is, and so does canopy: write <Action \
         ID=\"Act\"/> or <Act/> (a warning: strict loading refuses it)"
    );
}

#[test]
fn any_explicit_tag_runs_its_registered_type() {
    // BehaviorTree.CPP counts children by the registered type, not the tag.
    let control = file(
        "<BehaviorTree ID=\"Main\">\n  <Action ID=\"Sequence\">\n    <Act/>\n    <Fail/>\n  </Action>\n</BehaviorTree>",
    );
    runs_as_btcpp(&control, None, 1, "Failure |");
    assert_eq!(
        warnings(&control),
        [
            "t.xml:3:3: <Action ID=\"Sequence\">: \"Sequence\" is a control, not an action; \
          BehaviorTree.CPP runs it as the control it is, and so does canopy: write <Control \
          ID=\"Sequence\"> or <Sequence>"
        ]
    );
    let decorator = file("<BehaviorTree ID=\"Main\"><Decorator ID=\"Act\"/></BehaviorTree>");
    runs_as_btcpp(&decorator, None, 1, "Success |");
    assert_eq!(warnings(&decorator).len(), 1);
    // Written as what they are, no warning.
    let right = file(
        "<BehaviorTree ID=\"Main\"><Sequence><Action ID=\"Act\"/><Condition ID=\"Check\"/><Script code=\"x := 1\"/></Sequence></BehaviorTree>",
    );
    runs_as_btcpp(&right, None, 1, "Success | x=1");
    assert_eq!(warnings(&right), Vec::<String>::new());
}

#[test]
fn a_node_model_that_disagrees_with_the_code_loads_with_warnings() {
    // BehaviorTree.CPP reads no model of a registered node: another
    // category, a port the node lacks, a type nothing registers.
    let xml = file(
        "<BehaviorTree ID=\"Main\"><Act/></BehaviorTree>\n<TreeNodesModel>\n  <Condition ID=\"Act\">\n    <input_port name=\"goal\" type=\"double\"/>\n  </Condition>\n  <Action ID=\"Unknown\"/>\n  <Action/>\n</TreeNodesModel>",
    );
    runs_as_btcpp(&xml, None, 2, "Success Success |");
    assert_eq!(
        warnings(&xml),
        [
            "t.xml:4:3: <Condition ID=\"Act\">: the model declares \"Act\" as a condition, but \
             the registry's Act is an action; BehaviorTree.CPP builds the registered type \
             whatever the model says, and so does canopy: declare it as <Action ID=\"Act\">",
            "t.xml:5:5: <input_port name=\"goal\">: Act has no parameter \"goal\"; it takes no \
             parameters; remove the port from the model",
            "t.xml:7:3: <Action ID=\"Unknown\">: the model declares \"Unknown\", which is not a \
             registered node type; a tree that uses it does not load: register it, or stand it \
             in from this model (NodeModel::stand_in, `--model`)",
            "t.xml:8:3: <Action>: a node model without an ID declares nothing (BehaviorTree.CPP \
             ignores it, and so does canopy); write <Action ID=\"…\">",
        ]
    );
    assert!(strict_error(&xml).starts_with("t.xml:4:3: <Condition ID=\"Act\">: the model"));
    // BehaviorTree.CPP's own nodes may be listed as Groot2 lists them.
    let own = file(
        "<BehaviorTree ID=\"Main\"><Act/></BehaviorTree><TreeNodesModel><Action ID=\"Script\"/><Decorator ID=\"Repeat\"/><Action ID=\"Act\"/></TreeNodesModel>",
    );
    assert_eq!(warnings(&own), Vec::<String>::new());
}

#[test]
fn a_port_of_a_node_model_is_checked_against_the_code_by_type() {
    let registry = Registry::<(), ()>::new();
    let with = |port: &str| {
        let xml = file(&format!(
            "<BehaviorTree ID=\"Main\"><Wait ticks=\"1\"/></BehaviorTree>\n<TreeNodesModel><Action ID=\"Wait\">{port}</Action></TreeNodesModel>"
        ));
        load_str_with_warnings(&registry, &xml, "t.xml", None, &XmlOptions::default())
            .unwrap()
            .warnings
            .into_iter()
            .map(|w| (w.kind, w.problem))
            .collect::<Vec<_>>()
    };
    // BehaviorTree.CPP's spellings of one type are one type.
    for fits in [
        "int",
        "unsigned",
        "uint32_t",
        "long long",
        "AnyTypeAllowed",
        "BT::Any",
    ] {
        assert_eq!(
            with(&format!("<input_port name=\"ticks\" type=\"{fits}\"/>")),
            [],
            "{fits}"
        );
    }
    for wrong in ["double", "bool", "std::string", "std::vector<int>"] {
        let found = with(&format!("<input_port name=\"ticks\" type=\"{wrong}\"/>"));
        assert_eq!(found.len(), 1, "{wrong}");
        assert_eq!(found[0].0, WarningKind::Model);
        assert!(
            found[0].1.ends_with("; declare type=\"int\""),
            "{}",
            found[0].1
        );
    }
    assert_eq!(
        with("<output_port name=\"ticks\"/><input_port name=\"tick\"/>"),
        [
            (
                WarningKind::Model,
                "<output_port> \"ticks\": Wait's \"ticks\" is a parameter, fixed when the tree \
                 is built; declare it as <input_port>"
                    .to_string()
            ),
            (
                WarningKind::Model,
                "Wait has no parameter \"tick\" (did you mean \"ticks\"?); it takes: ticks; \
                 remove the port from the model"
                    .to_string()
            ),
        ]
    );
}

/// A tree writing `out` from its port `goal`, and a main tree that sets
/// `g` and runs it as `sub`, with the `SubTree` model `model`.
fn with_subtree(sub: &str, model: &str) -> String {
    file(&format!(
        "<BehaviorTree ID=\"Main\"><Sequence><Script code=\"g := 'G'\"/>{sub}</Sequence></BehaviorTree>\n\
         <BehaviorTree ID=\"Sub\"><Script code=\"out := goal .. '!'\"/></BehaviorTree>\n\
         <TreeNodesModel>{model}</TreeNodesModel>"
    ))
}

const MODEL: &str =
    "<SubTree ID=\"Sub\"><input_port name=\"goal\"/><output_port name=\"out\"/></SubTree>";

#[test]
fn subtree_models_complete_and_check_each_remapping() {
    // Every port remapped: as without a model.
    let given = with_subtree("<SubTree ID=\"Sub\" goal=\"{g}\" out=\"{o}\"/>", MODEL);
    runs_as_btcpp(&given, None, 1, "Success | g=G o=G!");
    assert_eq!(warnings(&given), Vec::<String>::new());
    // A port the model declares without a default must be remapped.
    let missing = with_subtree("<SubTree ID=\"Sub\" out=\"{o}\"/>", MODEL);
    runs_as_btcpp(&missing, None, 1, "load error");
    assert_eq!(
        canopy(&missing, None, 1),
        "load error: t.xml:2:60: <SubTree ID=\"Sub\">: the model of the tree \"Sub\" (t.xml:4:17) \
         declares the port \"goal\" without a default, and this <SubTree> does not remap it; \
         write goal=\"{key}\" (or a value) here, or give the port a default in the model"
    );
    // Its default is the remapping otherwise: a value, or a key.
    let literal = with_subtree(
        "<SubTree ID=\"Sub\" out=\"{o}\"/>",
        "<SubTree ID=\"Sub\"><input_port name=\"goal\" default=\"D\"/><output_port name=\"out\"/></SubTree>",
    );
    runs_as_btcpp(&literal, None, 1, "Success | g=G o=D!");
    let key = with_subtree(
        "<SubTree ID=\"Sub\" out=\"{o}\"/>",
        "<SubTree ID=\"Sub\"><input_port name=\"goal\" default=\"{g}\"/><output_port name=\"out\"/></SubTree>",
    );
    runs_as_btcpp(&key, None, 1, "Success | g=G o=G!");
    let output = with_subtree(
        "<SubTree ID=\"Sub\" goal=\"{g}\"/>",
        "<SubTree ID=\"Sub\"><input_port name=\"goal\"/><output_port name=\"out\" default=\"{o2}\"/></SubTree>",
    );
    runs_as_btcpp(&output, None, 1, "Success | g=G o2=G!");
    // A remapped port the model lacks is remapped all the same.
    let extra = with_subtree(
        "<SubTree ID=\"Sub\" goal=\"{g}\" out=\"{o}\" gaol=\"{x}\"/>",
        MODEL,
    );
    runs_as_btcpp(&extra, None, 1, "Success | g=G o=G!");
    assert_eq!(
        warnings(&extra),
        [
            "t.xml:2:60: <SubTree ID=\"Sub\">: the model of the tree \"Sub\" declares no port \
          \"gaol\" (did you mean \"goal\"?); BehaviorTree.CPP remaps it all the same, and so does \
          canopy: declare it in the model (<input_port name=\"gaol\"/>) or remove it"
        ]
    );
    // A model of a tree no file defines describes nothing.
    let nowhere = with_subtree(
        "<SubTree ID=\"Sub\" goal=\"{g}\" out=\"{o}\"/>",
        "<SubTree ID=\"Sbu\"><input_port name=\"x\"/></SubTree>",
    );
    runs_as_btcpp(&nowhere, None, 1, "Success | g=G o=G!");
    assert_eq!(
        warnings(&nowhere),
        [
            "t.xml:4:17: <SubTree ID=\"Sbu\">: no <BehaviorTree> has the ID \"Sbu\" (did you mean \
          \"Sub\"?), so this model describes nothing (BehaviorTree.CPP ignores it, and so does \
          canopy)"
        ]
    );
}

#[test]
fn a_subtree_model_is_read_as_behaviortree_cpp_reads_it() {
    // A port needs a name.
    let unnamed = with_subtree(
        "<SubTree ID=\"Sub\" goal=\"{g}\" out=\"{o}\"/>",
        "<SubTree ID=\"Sub\"><input_port/></SubTree>",
    );
    runs_as_btcpp(&unnamed, None, 1, "load error");
    assert_eq!(
        canopy(&unnamed, None, 1),
        "load error: t.xml:4:35: <input_port>: a port needs a name: name=\"…\""
    );
    // 4.10 refuses a reserved attribute as a port's name (4.8.2, in
    // behaviortreepy, fails later: the port is never remapped).
    let reserved = with_subtree(
        "<SubTree ID=\"Sub\" goal=\"{g}\" out=\"{o}\"/>",
        "<SubTree ID=\"Sub\"><input_port name=\"_autoremap\"/></SubTree>",
    );
    runs_as_btcpp(&reserved, None, 1, "load error");
    assert_eq!(
        canopy(&reserved, None, 1),
        "load error: t.xml:4:35: <input_port name=\"_autoremap\">: the port name \"_autoremap\" \
         is an attribute BehaviorTree.CPP reserves (name, ID, _autoremap), not a port"
    );
    // A model needs the ID of its tree.
    let anonymous = with_subtree(
        "<SubTree ID=\"Sub\" goal=\"{g}\" out=\"{o}\"/>",
        "<SubTree><input_port name=\"goal\"/></SubTree>",
    );
    runs_as_btcpp(&anonymous, None, 1, "load error");
    // With _autoremap, a port left out is the parent's key of its name,
    // and no default applies: here nothing wrote `goal`.
    let autoremap = with_subtree("<SubTree ID=\"Sub\" _autoremap=\"true\"/>", MODEL);
    assert!(
        btcpp(&autoremap, None, 1).is_none_or(|r| r.contains("error")),
        "BehaviorTree.CPP runs it"
    );
}

#[test]
fn a_tree_of_several_is_chosen_by_id() {
    let xml = "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"A\"><Act/></BehaviorTree>\n<BehaviorTree ID=\"B\"><Cond/></BehaviorTree>\n</root>\n";
    runs_as_btcpp(xml, None, 1, "load error");
    assert_eq!(
        canopy(xml, None, 1),
        "load error: t.xml:1:1: <root>: the files define 2 trees (\"A\", \"B\") and no \
         main_tree_to_execute, so which to run is not said; name it in <root \
         main_tree_to_execute=\"…\">, or choose it when loading (`--tree ID`, \
         XmlOptions::main_tree)"
    );
    runs_as_btcpp(xml, Some("B"), 1, "Failure |");
    runs_as_btcpp(xml, Some("A"), 1, "Success |");
    runs_as_btcpp(xml, Some("Zed"), 1, "load error");
    assert_eq!(
        canopy(xml, Some("Zed"), 1),
        "load error: t.xml:1:1: <root>: the tree to run, \"Zed\", is not defined; the files define \
         \"A\", \"B\""
    );
    // The ID chosen wins over main_tree_to_execute, as createTree(ID) does.
    let main = xml.replace(
        "<root BTCPP_format=\"4\">",
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"A\">",
    );
    runs_as_btcpp(&main, Some("B"), 1, "Failure |");
}

#[test]
fn tree_ids_are_what_behaviortree_cpp_allows() {
    // Element names are not node types: `BehaviorTree` and `Action` are
    // tree IDs BehaviorTree.CPP accepts.
    for id in ["BehaviorTree", "Action", "TreeNodesModel"] {
        let xml = format!(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"M\"><BehaviorTree ID=\"M\"><SubTree ID=\"{id}\"/></BehaviorTree><BehaviorTree ID=\"{id}\"><Cond/></BehaviorTree></root>"
        );
        runs_as_btcpp(&xml, None, 1, "Failure |");
    }
    // BehaviorTree.CPP 4.10 refuses a space and `Root` in a tree ID
    // (`validateModelName`, xml_parsing.cpp); 4.8.2, in behaviortreepy,
    // does not check: canopy follows 4.10.
    for id in ["Go Home", "Root", "a.b"] {
        let xml = format!(
            "<root BTCPP_format=\"4\"><BehaviorTree ID=\"{id}\"><Act/></BehaviorTree></root>"
        );
        assert!(canopy(&xml, None, 1).starts_with("load error"), "{id}");
    }
    // A registered node type's name is not.
    for id in ["Sequence", "SubTree", "Act"] {
        let xml = format!(
            "<root BTCPP_format=\"4\"><BehaviorTree ID=\"{id}\"><Act/></BehaviorTree></root>"
        );
        runs_as_btcpp(&xml, None, 1, "load error");
    }
}

#[test]
fn a_script_behaviortree_cpp_throws_on_loads_with_a_warning_at_its_attribute() {
    let xml = file(
        "<BehaviorTree ID=\"Main\"><Sequence>\n<Script code=\"x := 1\"/>\n<AlwaysSuccess _onSuccess=\"y := -'a'\"/>\n<ScriptCondition code=\"x == 'many'\"/>\n</Sequence></BehaviorTree>",
    );
    assert_eq!(
        warnings(&xml),
        [
            "t.xml:4:1: <AlwaysSuccess>: _onSuccess: script \"y := -'a'\", column 6: `-`, `!` and \
             `~` need a number, got a string: BehaviorTree.CPP throws here when the script runs, \
             and canopy fails the node",
            "t.xml:5:1: <ScriptCondition>: parameter \"code\": script \"x == 'many'\", column 3: \
             \"many\" is compared with a number but is no number: BehaviorTree.CPP throws here \
             when the script runs, and canopy fails the node",
        ]
    );
    // The tree runs to the throwing point, which fails its node: the
    // post-condition script fails after AlwaysSuccess, so the Sequence
    // goes on, and the condition fails it.
    let tree = load_str(&registry(), &xml, "t.xml", None, &XmlOptions::default()).unwrap();
    assert_eq!(Agent::new(&tree).tick(&tree, &mut (), &()), Status::Failure);
    assert!(strict_error(&xml).ends_with("(a warning: strict loading refuses it)"));
    assert!(strict_error(&xml).starts_with("t.xml:4:1: <AlwaysSuccess>: _onSuccess: "));
}
