//! An XML file's errors are typed as JSON's and RON's are: a game matches
//! on `Problem` (its shared variants, or `Problem::Xml` for what only XML
//! has) and reads the fields, and the message is the one people see.

use canopy_btcpp::{XmlOptions, load_str};
use canopy_data::{IncludeProblem, LoadError, Problem, Registry, XmlLimit, XmlProblem};

fn load_error(xml: &str, options: &XmlOptions) -> LoadError {
    match load_str(&Registry::<(), ()>::new(), xml, "bad.xml", None, options) {
        Ok(tree) => panic!("loaded:\n{}", tree.display()),
        Err(e) => e,
    }
}

/// The error of a file whose one tree, `Main`, is `body`.
fn error(body: &str) -> LoadError {
    let xml = format!(
        "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n{body}\n</BehaviorTree>\n</root>"
    );
    load_error(&xml, &XmlOptions::default())
}

/// The XML problem of `e`, which must be one.
fn xml(e: &LoadError) -> &XmlProblem {
    match e.problem() {
        Problem::Xml(problem) => problem,
        other => panic!("not an XML problem: {other:?} ({e})"),
    }
}

/// The message after the place (`bad.xml:3:1: <Tag>: `).
fn words(e: &LoadError) -> String {
    let text = e.to_string();
    text.strip_prefix(&format!("{}: ", e.place()))
        .unwrap_or_else(|| panic!("{text} starts with its place"))
        .to_string()
}

#[test]
fn an_unknown_node_type_names_the_type_and_a_close_one() {
    let e = error("<Fallbak><AlwaysSuccess/></Fallbak>");
    assert_eq!(
        xml(&e),
        &XmlProblem::UnknownType {
            type_name: "Fallbak".into(),
            suggestion: Some("Fallback".into()),
        }
    );
    assert_eq!(
        words(&e),
        "unknown node type \"Fallbak\" (did you mean \"Fallback\"?); the registry and \
         BehaviorTree.CPP's standard nodes have no such type"
    );
    assert_eq!(e.place(), "bad.xml:3:1: <Fallbak>");
}

#[test]
fn an_unknown_port_of_a_standard_node_names_the_ports_it_takes() {
    let e = error("<Repeat num_cycle=\"3\"><AlwaysSuccess/></Repeat>");
    assert_eq!(
        xml(&e),
        &XmlProblem::UnknownPort {
            port: "num_cycle".into(),
            node: "Repeat".into(),
            suggestion: Some("num_cycles".into()),
            takes: vec!["num_cycles".into()],
        }
    );
    assert_eq!(
        words(&e),
        "unknown port \"num_cycle\" for Repeat (did you mean \"num_cycles\"?); it takes: num_cycles"
    );
}

#[test]
fn missing_ports_are_named_all_together() {
    let e = error("<SetBlackboard value=\"1\"/>");
    assert_eq!(
        xml(&e),
        &XmlProblem::MissingPorts {
            node: "SetBlackboard".into(),
            ports: vec!["value".into(), "output_key".into()],
        }
    );
    assert_eq!(
        words(&e),
        "SetBlackboard needs the ports value and output_key"
    );
}

#[test]
fn a_port_value_that_does_not_read_says_what_the_port_reads() {
    let e = error("<Repeat num_cycles=\"many\"><AlwaysSuccess/></Repeat>");
    assert_eq!(
        xml(&e),
        &XmlProblem::BadPortValue {
            port: "num_cycles".into(),
            value: "many".into(),
            expects: "an integer (-1: no limit)".into(),
        }
    );
    assert_eq!(
        words(&e),
        "port num_cycles must be an integer (-1: no limit), got \"many\""
    );
}

#[test]
fn a_subtree_of_an_undefined_tree_lists_the_trees_defined() {
    let xml_text = "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n\
        <BehaviorTree ID=\"Main\"><SubTree ID=\"Flea\"/></BehaviorTree>\n\
        <BehaviorTree ID=\"Flee\"><AlwaysSuccess/></BehaviorTree>\n</root>";
    let e = load_error(xml_text, &XmlOptions::default());
    assert_eq!(
        xml(&e),
        &XmlProblem::NoSuchTree {
            id: "Flea".into(),
            suggestion: Some("Flee".into()),
            defined: vec!["Main".into(), "Flee".into()],
            count: 2,
        }
    );
    assert_eq!(
        words(&e),
        "there is no <BehaviorTree> with ID \"Flea\" (did you mean \"Flee\"?); the files define \
         \"Main\", \"Flee\""
    );
}

#[test]
fn malformed_xml_is_in_the_parser_s_words() {
    let e = load_error(
        "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n<Sequence>\n</BehaviorTree>\n</root>",
        &XmlOptions::default(),
    );
    let XmlProblem::Malformed { problem } = xml(&e) else {
        panic!("{e:?}");
    };
    assert_eq!(
        problem,
        "malformed XML: ill-formed document: expected `</Sequence>`, but `</BehaviorTree>` was found"
    );
    assert_eq!(words(&e), *problem);
}

#[test]
fn an_include_in_a_tree_given_as_text_has_no_directory_to_resolve() {
    let e = load_error(
        "<root BTCPP_format=\"4\">\n<include path=\"other.xml\"/>\n\
         <BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n</root>",
        &XmlOptions::default(),
    );
    assert_eq!(xml(&e), &XmlProblem::Include(IncludeProblem::NoDirectory));
    assert_eq!(
        words(&e),
        "includes are not available here (the tree was given as text, with no directory to \
         resolve them in)"
    );
}

#[test]
fn a_tree_over_the_work_a_tick_may_do_names_the_limit() {
    let options = XmlOptions {
        max_updates_per_tick: 2,
        ..XmlOptions::default()
    };
    let xml_text = "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n\
        <Sequence><AlwaysSuccess/><AlwaysSuccess/><AlwaysSuccess/></Sequence>\n\
        </BehaviorTree>\n</root>";
    let e = load_error(xml_text, &options);
    assert_eq!(
        xml(&e),
        &XmlProblem::Limit(XmlLimit::UpdatesPerTick { limit: 2 })
    );
    assert_eq!(
        words(&e),
        "one tick of this tree can update more than 2 nodes (trees brought in by <SubTree> count \
         at every use); split it into smaller trees, or raise XmlOptions::max_updates_per_tick"
    );
}

#[test]
fn a_script_attribute_that_does_not_compile_is_named_by_the_attribute() {
    let e = error("<AlwaysSuccess _successIf=\"x +\"/>");
    let XmlProblem::Script {
        attribute,
        code,
        column,
        problem,
    } = xml(&e)
    else {
        panic!("{e:?}");
    };
    assert_eq!((attribute.as_str(), code.as_str()), ("_successIf", "x +"));
    assert_eq!(
        words(&e),
        format!("_successIf: script \"x +\", column {column}: {problem}")
    );
}

#[test]
fn an_unknown_parameter_of_a_registered_type_is_the_problem_json_has() {
    let e = error("<Chance q=\"0.5\"/>");
    let Problem::UnknownParam {
        param,
        type_name,
        suggestion,
        ..
    } = e.problem()
    else {
        panic!("{e:?}");
    };
    assert_eq!(
        (param.as_str(), type_name.as_str(), suggestion.as_deref()),
        ("q", "Chance", Some("p"))
    );
    assert!(
        words(&e).starts_with("unknown parameter \"q\" for Chance (did you mean \"p\"?); "),
        "{e}"
    );
}
