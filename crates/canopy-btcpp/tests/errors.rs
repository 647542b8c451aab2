//! Bad XML gets one clear error — file, line, column, element, problem and
//! what to do instead — and never a panic.

use std::path::PathBuf;

use canopy_btcpp::{XmlOptions, load_bytes, load_file, load_str};
use canopy_data::{Location, Position, Problem, Registry, XmlProblem};

fn error_with(registry: &Registry<(), ()>, xml: &str, options: &XmlOptions) -> String {
    match load_str(registry, xml, "bad.xml", None, options) {
        Ok(tree) => panic!("loaded:\n{}", tree.display()),
        Err(e) => e.to_string(),
    }
}

fn error(xml: &str) -> String {
    error_with(&Registry::new(), xml, &XmlOptions::default())
}

/// `body` as the only tree of a file; it starts at line 2, column 3.
fn tree(body: &str) -> String {
    format!("<root BTCPP_format=\"4\">\n  {body}\n</root>")
}

fn main_tree(body: &str) -> String {
    tree(&format!("<BehaviorTree ID=\"Main\">{body}</BehaviorTree>"))
}

/// Column of the node `body` starts with, inside `main_tree`.
const BODY: usize = 3 + "<BehaviorTree ID=\"Main\">".len();

#[test]
fn malformed_xml() {
    assert_eq!(
        error(
            "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Main\">\n    <Sequence>\n  </BehaviorTree>\n</root>"
        ),
        "bad.xml:4:3: malformed XML: ill-formed document: expected `</Sequence>`, but `</BehaviorTree>` was found"
    );
    assert_eq!(
        error(&main_tree("<Sequence>")),
        "bad.xml:2:37: malformed XML: ill-formed document: expected `</Sequence>`, but `</BehaviorTree>` was found"
    );
    assert_eq!(error("<root>\n  <A>"), "bad.xml:2:3: <A> is never closed");
    assert_eq!(
        error(&main_tree(r#"<Wait ticks="1" ticks="2"/>"#)),
        format!(
            "bad.xml:2:{BODY}: malformed attribute: position 15: duplicated attribute, previous declaration at position 5"
        )
    );
    assert_eq!(error(""), "bad.xml: the file holds no XML element");
    assert_eq!(
        load_bytes(
            &Registry::<(), ()>::new(),
            b"<root>\0</root>",
            "bad.xml",
            None,
            &XmlOptions::default()
        )
        .unwrap_err()
        .to_string(),
        "bad.xml: not a text file (it contains NUL bytes)"
    );
    assert_eq!(
        load_bytes(
            &Registry::<(), ()>::new(),
            b"<root>\xff</root>",
            "bad.xml",
            None,
            &XmlOptions::default()
        )
        .unwrap_err()
        .to_string(),
        "bad.xml: not a text file (invalid UTF-8 at byte 6)"
    );
    // Typed as the JSON and RON loader types it.
    let err = load_bytes(
        &Registry::<(), ()>::new(),
        b"<root>\xff</root>",
        "bad.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.problem(), &Problem::InvalidUtf8 { at: 6 });
}

#[test]
fn document_structure() {
    assert_eq!(
        error("<tree/>"),
        "bad.xml:1:1: <tree>: the top element of a BehaviorTree.CPP file is <root BTCPP_format=\"4\">"
    );
    assert_eq!(
        error("<root BTCPP_format=\"3\"><BehaviorTree><AlwaysSuccess/></BehaviorTree></root>"),
        "bad.xml:1:1: <root>: BTCPP_format=\"3\" is not supported; canopy reads format 4 (BehaviorTree.CPP 4.x)"
    );
    assert_eq!(
        error(&tree("<Sequence/>")),
        "bad.xml:2:3: <Sequence>: unexpected element at the top level; a file holds <BehaviorTree>, <include> and <TreeNodesModel> elements"
    );
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"A\"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID=\"B\"><AlwaysSuccess/></BehaviorTree>"
        )),
        "bad.xml:1:1: <root>: the files define 2 trees (\"A\", \"B\") and no main_tree_to_execute, so which to run is not said; name it in <root main_tree_to_execute=\"…\">, or choose it when loading (`--tree ID`, XmlOptions::main_tree)"
    );
    assert_eq!(
        error(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"Mian\"><BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree></root>"
        ),
        "bad.xml:1:1: <root>: the tree to run, \"Mian\", is not defined (did you mean \"Main\"?); the files define \"Main\""
    );
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"A\"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID=\"A\"><AlwaysFailure/></BehaviorTree>"
        )),
        "bad.xml:2:55: <BehaviorTree ID=\"A\">: a tree with ID \"A\" is defined already, in bad.xml line 2"
    );
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"A\"><AlwaysSuccess/><AlwaysSuccess/></BehaviorTree>"
        )),
        "bad.xml:2:3: <BehaviorTree ID=\"A\">: the tree \"A\" must have exactly 1 child element, got 2"
    );
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"a b\"><AlwaysSuccess/></BehaviorTree>"
        )),
        "bad.xml:2:3: <BehaviorTree ID=\"a b\">: the ID \"a b\" contains the character \" \", which BehaviorTree.CPP does not allow in IDs"
    );
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"Wait\"><AlwaysSuccess/></BehaviorTree>"
        )),
        "bad.xml:2:3: <BehaviorTree ID=\"Wait\">: the ID \"Wait\" is the name of a node type; give the tree another ID"
    );
}

#[test]
fn unknown_nodes() {
    assert_eq!(
        error(&main_tree("<Sequense/>")),
        format!(
            "bad.xml:2:{BODY}: <Sequense>: unknown node type \"Sequense\" (did you mean \"Sequence\"?); the registry and BehaviorTree.CPP's standard nodes have no such type"
        )
    );
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"Main\"><Helper/></BehaviorTree><BehaviorTree ID=\"Helper\"><AlwaysSuccess/></BehaviorTree>"
        )),
        "bad.xml:2:27: <Helper>: \"Helper\" is a <BehaviorTree>: refer to it with <SubTree ID=\"Helper\"/>"
    );
    assert_eq!(
        error(&main_tree("<SubTree ID=\"Nowhere\"/>")),
        format!(
            "bad.xml:2:{BODY}: <SubTree ID=\"Nowhere\">: there is no <BehaviorTree> with ID \"Nowhere\"; the files define \"Main\""
        )
    );
    let long = "X".repeat(500);
    assert_eq!(
        error(&main_tree(&format!("<{long}/>"))),
        format!(
            "bad.xml:2:{BODY}: <{x80}… (500 characters)>: unknown node type \"{x80}…\" (500 characters); the registry and BehaviorTree.CPP's standard nodes have no such type",
            x80 = "X".repeat(80)
        )
    );
    assert_eq!(
        error(&main_tree("<Action name=\"x\"/>")),
        format!(
            "bad.xml:2:{BODY}: <Action name=\"x\">: <Action> needs an ID attribute naming the node type"
        )
    );
    assert_eq!(
        error(&main_tree("<Wait ID=\"Wait\" ticks=\"1\"/>")),
        format!(
            "bad.xml:2:{BODY}: <Wait ID=\"Wait\">: an ID attribute is not allowed here; write <Wait> or <Action ID=\"Wait\">"
        )
    );
    let names = "<Sequence name=\"a&#10;b&#1;\"><Nope/></Sequence>";
    assert_eq!(
        error(&main_tree(names)),
        format!(
            "bad.xml:2:{}: <Nope>: unknown node type \"Nope\"; the registry and BehaviorTree.CPP's standard nodes have no such type",
            BODY + 29
        )
    );
}

#[test]
fn wrong_attribute_types() {
    assert_eq!(
        error(&main_tree("<Wait ticks=\"three\"/>")),
        format!(
            "bad.xml:2:{BODY}: <Wait>: parameter \"ticks\" must be an integer, got string \"three\""
        )
    );
    assert_eq!(
        error(&main_tree("<Wait ticks=\"2.5\"/>")),
        format!("bad.xml:2:{BODY}: <Wait>: parameter \"ticks\" must be an integer, got number 2.5")
    );
    assert_eq!(
        error(&main_tree("<Wait ticks=\"99999999999\"/>")),
        format!(
            "bad.xml:2:{BODY}: <Wait>: parameter \"ticks\" must be at most 2147483647, got 99999999999"
        )
    );
    assert_eq!(
        error(&main_tree(
            "<Action ID=\"Random\" success=\"0.5\" failure=\"0.7\"/>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Action ID=\"Random\">: success + failure must be at most 1, got 1.2"
        )
    );
    assert_eq!(
        error(&main_tree("<Wait tick=\"3\"/>")),
        format!(
            "bad.xml:2:{BODY}: <Wait>: unknown parameter \"tick\" for Wait (did you mean \"ticks\"?); it takes: ticks"
        )
    );
    assert_eq!(
        error(&main_tree("<Wait/>")),
        format!("bad.xml:2:{BODY}: <Wait>: missing parameter \"ticks\" (integer ≥ 0, required)")
    );
    assert_eq!(
        error(&main_tree(
            "<Action ID=\"canopy_Script\" statuses=\"Running;Sucess\"/>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Action ID=\"canopy_Script\">: parameter \"statuses\": item 1 is \"Sucess\", not \"Running\", \"Success\" or \"Failure\" (did you mean \"Success\"?)"
        )
    );
    assert_eq!(
        error(&main_tree(
            "<Decorator ID=\"Guard\" condition=\"Chance(p=0.5\"><AlwaysSuccess/></Decorator>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Decorator ID=\"Guard\">: condition: unterminated value: write a condition as Type(key=value, …), e.g. Periodic(name=\"daylight?\", period=24, on=12)"
        )
    );
    assert_eq!(
        error(&main_tree(
            "<Decorator ID=\"Guard\" condition=\"Wait(ticks=1)\"><AlwaysSuccess/></Decorator>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Decorator ID=\"Guard\">: \"Wait\" is not a condition type; a guard's condition is one of: Chance, Periodic"
        )
    );
    assert_eq!(
        error(&main_tree(
            "<Repeat num_cycles=\"x\"><AlwaysSuccess/></Repeat>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Repeat>: port num_cycles must be an integer (-1: no limit), got \"x\""
        )
    );
    assert_eq!(
        error(&main_tree("<Sleep msec=\"-5\"/>")),
        format!(
            "bad.xml:2:{BODY}: <Sleep>: port msec must be a whole number of milliseconds from 0 to 4294967295, got \"-5\""
        )
    );
    assert_eq!(
        error(&main_tree("<Repeat><AlwaysSuccess/></Repeat>")),
        format!("bad.xml:2:{BODY}: <Repeat>: Repeat needs the port num_cycles")
    );
    assert_eq!(
        error(&main_tree(
            "<Sequence timeout=\"1\"><AlwaysSuccess/></Sequence>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Sequence>: unknown port \"timeout\" for Sequence; it takes none"
        )
    );
    assert_eq!(
        error(&main_tree(
            "<Parallel success_count=\"3\"><AlwaysSuccess/><AlwaysSuccess/></Parallel>"
        )),
        format!(
            "bad.xml:2:{BODY}: <Parallel>: success_count=3 needs 3 children, but the Parallel has 2: it could never succeed"
        )
    );
    assert_eq!(
        error(&main_tree("<Inverter/>")),
        format!("bad.xml:2:{BODY}: <Inverter>: Inverter needs exactly 1 child, got 0")
    );
    assert_eq!(
        error(&main_tree(
            "<Inverter><Wait ticks=\"1\"><AlwaysSuccess/></Wait></Inverter>"
        )),
        format!(
            "bad.xml:2:{}: <Wait>: a Wait needs no children, got 1",
            BODY + 10
        )
    );
}

#[test]
fn scripts_and_blackboard_nodes_are_refused_with_what_to_do() {
    let cases = [
        (
            "<Wait ticks=\"{t}\"/>",
            "<Wait>: ticks=\"{t}\" reads the blackboard entry \"t\", but ticks is a parameter of Wait, not a port: it takes integer ≥ 0, fixed when the tree is built",
        ),
        (
            "<Wait ticks=\"{@t}\"/>",
            "<Wait>: ticks=\"{@t}\" reads the blackboard entry \"t\", but ticks is a parameter of Wait, not a port: it takes integer ≥ 0, fixed when the tree is built",
        ),
        (
            "<AlwaysSuccess _skipIf=\"x\"/>",
            "<AlwaysSuccess>: _skipIf and _while make a node return SKIPPED, a status canopy does not have; canopy reads it as a Sequence or a Fallback does (as SUCCESS or FAILURE), but it is not the child of a standard node; put the node directly under a Sequence or a Fallback",
        ),
        (
            "<AlwaysSuccess _onSuccess=\"x = \"/>",
            "<AlwaysSuccess>: _onSuccess: script \"x = \", column 3: expected an expression after `=`",
        ),
        (
            "<Switch2 variable=\"{v}\"><AlwaysSuccess/><AlwaysSuccess/></Switch2>",
            "<Switch2>: Switch2 needs 3 children, got 2",
        ),
        (
            "<LoopInt queue=\"1;2\"><AlwaysSuccess/></LoopInt>",
            "<LoopInt>: LoopInt needs the port value",
        ),
        (
            "<LoopInt queue=\"1;two\" value=\"{x}\"><AlwaysSuccess/></LoopInt>",
            "<LoopInt>: queue: \"two\" is not a whole number",
        ),
        (
            "<LoopString queue=\"{q}\" value=\"{x}\"><AlwaysSuccess/></LoopString>",
            "<LoopString>: queue: script \"q\", column 1: unknown key \"q\"",
        ),
        (
            "<Precondition if=\"x &gt;\"><AlwaysSuccess/></Precondition>",
            "<Precondition>: if: script \"x >\", column 3: expected an expression after `>`",
        ),
        (
            "<Precondition if=\"true\" else=\"IDLE\"><AlwaysSuccess/></Precondition>",
            "<Precondition>: else=\"IDLE\": a node may not return IDLE (BehaviorTree.CPP throws when the condition is false); write SUCCESS, FAILURE, RUNNING or SKIPPED",
        ),
        (
            "<Precondition if=\"true\" else=\"DONE\"><AlwaysSuccess/></Precondition>",
            "<Precondition>: else=\"DONE\" is not a status; write SUCCESS, FAILURE, RUNNING or SKIPPED",
        ),
        (
            "<Precondition if=\"x &gt;\" else=\"RUNNING\"><AlwaysSuccess/></Precondition>",
            "<Precondition>: if: script \"x >\", column 3: expected an expression after `>`",
        ),
        (
            "<LoopInt queue=\"1\" value=\"{x}\" if_empty=\"IDLE\"><AlwaysSuccess/></LoopInt>",
            "<LoopInt>: if_empty=\"IDLE\" is not a status a loop returns; write SUCCESS, FAILURE, RUNNING or SKIPPED",
        ),
        (
            "<SetBlackboard value=\"1\" output_key=\"a b\"/>",
            "<SetBlackboard>: output_key \"a b\" is not a key (letters, digits and _, not starting with a digit)",
        ),
        (
            "<Script code=\"x := \"/>",
            "<Script>: parameter \"code\": script \"x := \", column 3: expected an expression after `:=`",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(
            error(&main_tree(body)),
            format!("bad.xml:2:{BODY}: {expected}"),
            "{body}"
        );
    }
    // A Switch over a key nothing writes loads, as BehaviorTree.CPP's (its
    // port makes the entry): nothing matches, the default child runs.
    let unwritten = "<Switch2 variable=\"{v}\" case_1=\"1\"><AlwaysFailure/><AlwaysFailure/><AlwaysSuccess/></Switch2>";
    let tree = load_str(
        &Registry::<(), ()>::new(),
        &main_tree(unwritten),
        "ok.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap();
    assert_eq!(
        canopy_core::Agent::new(&tree).tick(&tree, &mut (), &()),
        canopy_core::Status::Success
    );
    // A SKIPPED under a parent that cannot read it; the element is the
    // Inverter's child, 10 columns in.
    let under_inverter = [
        (
            "<Precondition if=\"true\" else=\"SKIPPED\"><AlwaysSuccess/></Precondition>",
            "<Precondition>: else=\"SKIPPED\" returns SKIPPED, a status canopy does not have; canopy reads it as a Sequence or a Fallback does, so put the Precondition directly under one",
        ),
        (
            "<LoopInt queue=\"1\" value=\"{x}\" if_empty=\"SKIPPED\"><AlwaysSuccess/></LoopInt>",
            "<LoopInt>: if_empty=\"SKIPPED\" returns SKIPPED, a status canopy does not have; canopy reads it as a Sequence or a Fallback does, so put the LoopInt directly under one",
        ),
    ];
    for (body, expected) in under_inverter {
        assert_eq!(
            error(&main_tree(&format!("<Inverter>{body}</Inverter>"))),
            format!("bad.xml:2:{}: {expected}", BODY + 10),
            "{body}"
        );
    }
    // A queue on the blackboard must be a string key, and the loop's value
    // key must hold the loop's items; the Script before the loop is 33
    // columns long.
    let queue_cases = [
        (
            "<Script code=\"q := 3\"/>",
            "<LoopInt>: queue: script \"q\", column 1: a queue is one key holding a string of items separated by `;`".to_string(),
        ),
        (
            "<Script code=\"q := 'a'; x := 'a'\"/>",
            "<LoopInt>: value: script \"x := 0\", column 1: each item is assigned to a key holding a number, as `x := 0` does".to_string(),
        ),
    ];
    for (script, expected) in queue_cases {
        let body = format!(
            "<Sequence>{script}<LoopInt queue=\"{{q}}\" value=\"{{x}}\"><AlwaysSuccess/></LoopInt></Sequence>"
        );
        let column = BODY + "<Sequence>".len() + script.len();
        assert_eq!(
            error(&main_tree(&body)),
            format!("bad.xml:2:{column}: {expected}"),
            "{body}"
        );
    }
    let remap = |port: &str| {
        error(&format!(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <BehaviorTree ID=\"Main\"><SubTree ID=\"S\" {port}/></BehaviorTree><BehaviorTree ID=\"S\"><AlwaysSuccess/></BehaviorTree>\n</root>"
        ))
    };
    assert_eq!(
        remap("goal=\"{a b}\""),
        "bad.xml:2:27: <SubTree ID=\"S\">: goal=\"{a b}\": a key holds letters, digits and _, not starting with a digit"
    );
    assert_eq!(
        remap("go-al=\"{g}\""),
        "bad.xml:2:27: <SubTree ID=\"S\">: go-al: a SubTree port names a key of the subtree's blackboard, which holds letters, digits and _, not starting with a digit"
    );
}

#[test]
fn absurd_depths() {
    let deep = format!(
        "{}<AlwaysSuccess/>{}",
        "<Inverter>".repeat(70),
        "</Inverter>".repeat(70)
    );
    let too_deep = "nodes are nested more than 63 levels deep in one <BehaviorTree> (fewer when deep nodes have a Guard's condition or a list of statuses), more than canopy's tree loader reads; move a branch into a <BehaviorTree> of its own and refer to it with <SubTree ID=\"…\"/>";
    assert_eq!(
        error(&main_tree(&deep)),
        format!("bad.xml:2:{}: <Inverter>: {too_deep}", BODY + 63 * 10)
    );
    // At the limit: 63 levels load, as in a JSON file; a list of statuses
    // one bracket deeper, in a tree that is also a subtree, does not.
    let at_limit = |leaf: &str| {
        format!(
            "{}{leaf}{}",
            "<Inverter>".repeat(62),
            "</Inverter>".repeat(62)
        )
    };
    let registry = Registry::<(), ()>::new();
    let options = XmlOptions::default();
    assert!(
        load_str(
            &registry,
            &main_tree(&at_limit("<AlwaysSuccess/>")),
            "t.xml",
            None,
            &options
        )
        .is_ok()
    );
    let script = "<canopy_Script statuses=\"Success\"/>";
    assert!(
        load_str(
            &registry,
            &main_tree(&at_limit(script)),
            "t.xml",
            None,
            &options
        )
        .is_ok()
    );
    let head =
        "<BehaviorTree ID=\"Main\"><SubTree ID=\"Deep\"/></BehaviorTree><BehaviorTree ID=\"Deep\">";
    let in_subtree = format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  {head}{}</BehaviorTree>\n</root>",
        at_limit(script)
    );
    assert_eq!(
        error(&in_subtree),
        format!(
            "bad.xml:2:{}: <canopy_Script>: {too_deep}",
            3 + head.len() + 62 * 10
        )
    );
    let very_deep = format!(
        "{}<AlwaysSuccess/>{}",
        "<Inverter>".repeat(5000),
        "</Inverter>".repeat(5000)
    );
    assert_eq!(
        error(&main_tree(&very_deep)),
        format!(
            "bad.xml:2:{}: elements are nested more than 260 deep",
            BODY + 258 * 10
        )
    );
    // 300 trees, each an Inverter over the next: 300 levels in all.
    let mut chain = String::new();
    for i in 0..300 {
        chain.push_str(&format!(
            "<BehaviorTree ID=\"T{i}\"><Inverter><SubTree ID=\"T{}\"/></Inverter></BehaviorTree>\n",
            i + 1
        ));
    }
    chain.push_str("<BehaviorTree ID=\"T300\"><AlwaysSuccess/></BehaviorTree>");
    let err = error(&format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"T0\">\n{chain}\n</root>"
    ));
    assert!(
        err.ends_with("nodes are nested more than 256 levels deep (counting the levels of the trees <SubTree> brings in)"),
        "{err}"
    );
}

#[test]
fn work_per_tick_is_bounded() {
    // Loops in loops: 1000 × 1000 × 1000 cycles a tick would be a hang.
    let nested = "<Repeat num_cycles=\"-1\"><Repeat num_cycles=\"-1\"><Repeat num_cycles=\"-1\"><AlwaysSuccess/></Repeat></Repeat></Repeat>";
    let registry = Registry::<(), ()>::new();
    assert!(
        load_str(
            &registry,
            &main_tree(nested),
            "t.xml",
            None,
            &XmlOptions::default()
        )
        .is_ok()
    );
    let small = XmlOptions {
        max_updates_per_tick: 5,
        ..XmlOptions::default()
    };
    let wide = format!("<Sequence>{}</Sequence>", "<AlwaysSuccess/>".repeat(5));
    assert_eq!(
        error_with(&registry, &main_tree(&wide), &small),
        "bad.xml:2:3: <BehaviorTree ID=\"Main\">: one tick of this tree can update more than 5 nodes (trees brought in by <SubTree> count at every use); split it into smaller trees, or raise XmlOptions::max_updates_per_tick"
    );
}

#[test]
fn a_registry_without_the_builtins_says_so() {
    let err = error_with(
        &Registry::empty(),
        &main_tree("<Fallback><AlwaysSuccess/></Fallback>"),
        &XmlOptions::default(),
    );
    assert_eq!(
        err,
        format!(
            "bad.xml:2:{BODY}: <Fallback>: BehaviorTree.CPP's Fallback runs as canopy's built-in Selector, which this registry does not hold (a registry from Registry::new() does)"
        )
    );
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-btcpp-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn include_cycles_and_missing_includes() {
    let dir = scratch("include-cycle");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("main.xml"),
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <include path=\"sub/a.xml\"/>\n  <BehaviorTree ID=\"Main\"><SubTree ID=\"A\"/></BehaviorTree>\n</root>",
    )
    .unwrap();
    std::fs::write(
        dir.join("sub/a.xml"),
        "<root BTCPP_format=\"4\">\n  <include path=\"../main.xml\"/>\n  <BehaviorTree ID=\"A\"><AlwaysSuccess/></BehaviorTree>\n</root>",
    )
    .unwrap();
    let registry = Registry::<(), ()>::new();
    let main = dir.join("main.xml");
    let err = load_file(&registry, &main, &XmlOptions::default()).unwrap_err();
    let a = dir.join("sub").join("a.xml");
    assert_eq!(err.file(), a.display().to_string());
    assert_eq!(position(&err), (2, 3));
    assert_eq!(
        err.problem().to_string(),
        format!(
            "includes form a cycle: \"{}\" → \"{}\" → \"{}\"",
            main.display(),
            a.display(),
            main.display()
        )
    );

    std::fs::write(
        dir.join("sub/a.xml"),
        "<root BTCPP_format=\"4\">\n  <include path=\"missing.xml\"/>\n</root>",
    )
    .unwrap();
    let err = load_file(&registry, &main, &XmlOptions::default()).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "{}:2:3: <include>: cannot read \"{}\": ",
            a.display(),
            dir.join("sub").join("missing.xml").display()
        )),
        "{err}"
    );
    let err = load_str(
        &registry,
        "<root><include path=\"a.xml\"/></root>",
        "text",
        None,
        &XmlOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "text:1:7: <include>: includes are not available here (the tree was given as text, with no directory to resolve them in)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn only_regular_files_are_read() {
    let dir = scratch("not-regular");
    let registry = Registry::<(), ()>::new();
    // A FIFO would block the reader until a writer came: refused unopened.
    let fifo = dir.join("fifo.xml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let err = load_file(&registry, &fifo, &XmlOptions::default()).unwrap_err();
        assert!(
            matches!(err.problem(), Problem::NotARegularFile { .. }),
            "{err:?}"
        );
        assert_eq!(err.location(), &Location::File);
        assert_eq!(
            err.problem().to_string(),
            "not a regular file (a FIFO); tree files are read from regular files"
        );
        // Exporting reads its JSON or RON file as the registry does.
        let fifo = dir.join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()));
        let err = canopy_btcpp::export_file(&registry, &fifo, &XmlOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: not a regular file (a FIFO); tree files are read from regular files",
                fifo.display()
            )
        );
    }
    // An include of a device that never ends: refused, not read.
    std::fs::write(
        dir.join("main.xml"),
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <include path=\"/dev/zero\"/>\n  <BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n</root>",
    )
    .unwrap();
    let anywhere = XmlOptions {
        includes_outside: true,
        ..XmlOptions::default()
    };
    let err = load_file(&registry, dir.join("main.xml"), &anywhere).unwrap_err();
    assert_eq!(position(&err), (2, 3));
    assert!(
        err.problem().to_string().ends_with(
            "not a regular file (a character device); tree files are read from regular files"
        ),
        "{err}"
    );
}

#[test]
fn canopys_subtree_type_as_a_node_is_refused_with_the_xml_spelling() {
    // As a node it would stand for nothing: the tree it names would be
    // built as placeholders, or dropped.
    for body in [
        "<Sequence><Action ID=\"SubTree\" tree=\"B\"/></Sequence>",
        "<Sequence><canopy_SubTree tree=\"B\"/></Sequence>",
    ] {
        let xml = format!(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <BehaviorTree ID=\"Main\">{body}</BehaviorTree>\n  \
             <BehaviorTree ID=\"B\"><Repeat num_cycles=\"2\"><AlwaysFailure/></Repeat></BehaviorTree>\n</root>"
        );
        let element = if body.contains("Action") {
            "<Action ID=\"SubTree\">"
        } else {
            "<canopy_SubTree>"
        };
        assert_eq!(
            error(&xml),
            format!(
                "bad.xml:2:{}: {element}: a subtree is written <SubTree ID=\"B\"/> in BehaviorTree.CPP XML",
                BODY + "<Sequence>".len()
            )
        );
    }
}

#[test]
fn an_id_spelled_like_the_name_canopy_loads_its_own_nodes_under_is_unknown() {
    // The names the lowered document gives the standard nodes canopy runs
    // as its own kinds are no names a file can use.
    let xml = tree(
        "<BehaviorTree ID=\"Main\"><Decorator ID=\"btcpp:Repeat\" num_cycles=\"2\">\
         <AlwaysSuccess/></Decorator></BehaviorTree>",
    );
    assert_eq!(
        error(&xml),
        format!(
            "bad.xml:2:{BODY}: <Decorator ID=\"btcpp:Repeat\">: unknown node type \"btcpp:Repeat\"; \
             the registry and BehaviorTree.CPP's standard nodes have no such type"
        )
    );
}

#[test]
fn a_utf16_file_is_named_as_such() {
    let registry = Registry::<(), ()>::new();
    let options = XmlOptions::default();
    for bom in [[0xff, 0xfe], [0xfe, 0xff]] {
        let mut bytes = bom.to_vec();
        bytes.extend("<root/>".encode_utf16().flat_map(u16::to_le_bytes));
        let err =
            canopy_btcpp::load_bytes(&registry, &bytes, "wide.xml", None, &options).unwrap_err();
        assert_eq!(
            err.to_string(),
            "wide.xml: not UTF-8 text: the file starts with a UTF-16 byte order mark; save it as UTF-8"
        );
    }
}

#[cfg(unix)]
#[test]
fn includes_stay_inside_the_tree_files_directory() {
    let dir = scratch("confined");
    let registry = Registry::<(), ()>::new();
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("parts")).unwrap();
    std::fs::write(dir.join("secret.xml"), "<root BTCPP_format=\"4\"/>").unwrap();
    let tree = |include: &str| {
        format!(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <include path=\"{include}\"/>\n  \
             <BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree>\n</root>"
        )
    };
    let load = |include: &str, options: &XmlOptions| {
        std::fs::write(project.join("main.xml"), tree(include)).unwrap();
        load_file(&registry, project.join("main.xml"), options).map(drop)
    };
    let leaves = |include: &str| {
        format!(
            "the include \"{include}\" leaves the directory of the tree file; canopy reads \
             includes only inside it (BehaviorTree.CPP follows any path: allow that with \
             XmlOptions::includes_outside, or --includes-outside)"
        )
    };
    let options = XmlOptions::default();
    let secret = dir.join("secret.xml").display().to_string();
    // Out by `..`, by an absolute path, whether or not the file exists: the
    // same message, so it tells nothing about what is outside.
    for include in [
        "../secret.xml",
        "../nothing.xml",
        secret.as_str(),
        "/etc/passwd",
    ] {
        let err = load(include, &options).unwrap_err();
        assert_eq!(
            (position(&err), err.problem().to_string()),
            ((2, 3), leaves(include)),
            "{include}"
        );
    }
    // A symbolic link inside that points out.
    std::os::unix::fs::symlink(dir.join("secret.xml"), project.join("link.xml")).unwrap();
    assert_eq!(
        load("link.xml", &options)
            .unwrap_err()
            .problem()
            .to_string(),
        leaves("link.xml")
    );
    // Inside, even through `..` from a subdirectory, is read.
    std::fs::write(
        project.join("parts/a.xml"),
        "<root BTCPP_format=\"4\">\n  <include path=\"../b.xml\"/>\n</root>",
    )
    .unwrap();
    std::fs::write(project.join("b.xml"), "<root BTCPP_format=\"4\"/>").unwrap();
    assert!(load("parts/a.xml", &options).is_ok());
    // Allowed outside, it reads what BehaviorTree.CPP would.
    let anywhere = XmlOptions {
        includes_outside: true,
        ..XmlOptions::default()
    };
    assert!(load("../secret.xml", &anywhere).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn subtrees_copied_for_their_keys_are_bounded() {
    // Each tree calls the next twice with a remapping: 2^30 copies.
    let mut xml = String::from("<root BTCPP_format=\"4\" main_tree_to_execute=\"T0\">\n");
    for i in 0..30 {
        xml.push_str(&format!(
            "<BehaviorTree ID=\"T{i}\"><Sequence><SubTree ID=\"T{n}\" k=\"{{a}}\"/><SubTree ID=\"T{n}\" k=\"{{b}}\"/></Sequence></BehaviorTree>\n",
            n = i + 1
        ));
    }
    xml.push_str("<BehaviorTree ID=\"T30\"><Script code=\"k := 1\"/></BehaviorTree>\n</root>");
    // Past the bound on a tick's updates (which refuses this first), the
    // copies are bounded too.
    let unbounded_ticks = XmlOptions {
        max_updates_per_tick: u64::MAX,
        ..XmlOptions::default()
    };
    let error = error_with(&Registry::new(), &xml, &unbounded_ticks);
    assert!(
        error.ends_with(
            "the trees make more than 1000000 nodes once each <SubTree> with keys of its own is \
             copied; share keys with _autoremap=\"true\" where the subtrees can"
        ),
        "{error}"
    );
}

#[test]
fn a_tree_too_large_once_built_is_blamed_on_the_element_of_the_first_subtree_too_large() {
    // S_k is a Sequence over two uses of S_(k+1), each on line k + 2, so
    // S_k expands to 2^(41-k) − 1 nodes. The error comes from building the
    // tree, once the model of the file was let go of: it is read again to
    // place the error.
    let mut trees = String::new();
    for k in 0..40 {
        let next = k + 1;
        trees.push_str(&format!(
            "<BehaviorTree ID=\"S{k}\"><Sequence><SubTree ID=\"S{next}\"/><SubTree ID=\"S{next}\"/></Sequence></BehaviorTree>\n"
        ));
    }
    trees.push_str("<BehaviorTree ID=\"S40\"><AlwaysSuccess/></BehaviorTree>");
    let xml = format!("<root BTCPP_format=\"4\" main_tree_to_execute=\"S0\">\n{trees}\n</root>");
    let column = 1 + "<BehaviorTree ID=\"S21\">".len();
    // Past the updates a tick may make, which the checks before building
    // refuse.
    let options = XmlOptions {
        max_updates_per_tick: u64::MAX,
        ..XmlOptions::default()
    };
    assert_eq!(
        error_with(&Registry::new(), &xml, &options),
        format!(
            "bad.xml:23:{column}: <Sequence>: this subtree expands to 1048575 nodes when shared \
             subtrees are counted at every use, more than the limit of 1000000"
        )
    );
}

#[test]
fn a_misplaced_tree_nodes_model_says_where_it_belongs() {
    let model = "<TreeNodesModel><Action ID=\"Go\"/></TreeNodesModel>";
    // Inside a tree, beside its root node or inside a node.
    assert_eq!(
        error(&tree(&format!(
            "<BehaviorTree ID=\"Main\"><AlwaysSuccess/>{model}</BehaviorTree>"
        ))),
        "bad.xml:2:43: <TreeNodesModel>: <TreeNodesModel> belongs directly under <root>, beside \
         the <BehaviorTree> elements, not inside a tree; move it out"
    );
    assert_eq!(
        error(&main_tree(&format!(
            "<Sequence><AlwaysSuccess/>{model}</Sequence>"
        ))),
        format!(
            "bad.xml:2:{}: <TreeNodesModel>: <TreeNodesModel> belongs directly under <root>, \
             beside the <BehaviorTree> elements, not inside a tree; move it out",
            BODY + 26
        )
    );
    // As the top element.
    assert_eq!(
        error(model),
        "bad.xml:1:1: <TreeNodesModel>: the top element of a BehaviorTree.CPP file is <root \
         BTCPP_format=\"4\">; a <TreeNodesModel> goes inside it, beside the <BehaviorTree> elements"
    );
    // Holding a tree, or another model.
    assert_eq!(
        error(&tree(
            "<TreeNodesModel><BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree></TreeNodesModel>"
        )),
        "bad.xml:2:19: <BehaviorTree ID=\"Main\">: <BehaviorTree> belongs directly under <root>, \
         not inside <TreeNodesModel>, which holds only node models (<Action ID=\"…\">, \
         <Condition>, <Control>, <Decorator>, <SubTree>)"
    );
    // A tree inside a tree, written where a <SubTree> belongs.
    assert_eq!(
        error(&main_tree(
            "<Sequence><BehaviorTree ID=\"Inner\"><AlwaysSuccess/></BehaviorTree></Sequence>"
        )),
        format!(
            "bad.xml:2:{}: <BehaviorTree ID=\"Inner\">: <BehaviorTree> belongs directly under \
             <root>, not inside another tree; to run one tree inside another, write <SubTree \
             ID=\"…\"/> here",
            BODY + 10
        )
    );
    // A <SubTree> without its ID lists the trees there are.
    assert_eq!(
        error(&tree(
            "<BehaviorTree ID=\"Main\"><SubTree/></BehaviorTree><BehaviorTree ID=\"Patrol\"><AlwaysSuccess/></BehaviorTree>"
        )),
        format!(
            "bad.xml:2:{BODY}: <SubTree>: <SubTree> needs the ID of the tree it runs: <SubTree \
             ID=\"…\"/>; the files define \"Main\", \"Patrol\""
        )
    );
}

#[test]
fn subtree_model_defaults_are_bounded_by_what_they_add() {
    // One model port with a 100 KB default, used by 200 <SubTree>s: 20 MB
    // of remapping from a 110 KB file.
    let default = "x".repeat(100_000);
    let uses = "<SubTree ID=\"S\"/>".repeat(200);
    let xml = format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n\
         <BehaviorTree ID=\"Main\"><Sequence>{uses}</Sequence></BehaviorTree>\n\
         <BehaviorTree ID=\"S\"><AlwaysSuccess/></BehaviorTree>\n\
         <TreeNodesModel><SubTree ID=\"S\"><input_port name=\"p\" default=\"{default}\"/></SubTree></TreeNodesModel>\n\
         </root>"
    );
    let err = error(&xml);
    assert!(
        err.ends_with(
            "the defaults of the SubTree models add more than 16777216 bytes of remapping to \
             the <SubTree> elements, more than the files may hold; remap the ports on the \
             <SubTree> elements"
        ),
        "{err}"
    );
}

/// Where an XML error is: the line and column of its element or its text.
fn position(err: &canopy_data::LoadError) -> (u32, u32) {
    match err.location() {
        canopy_data::Location::Element { at: Some(at), .. } | canopy_data::Location::Text(at) => {
            (at.line, at.column)
        }
        other => panic!("no position in {other:?}: {err}"),
    }
}

#[test]
fn an_xml_error_is_a_load_error_placed_at_its_element() {
    let registry = Registry::<(), ()>::new();
    let xml = "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Main\">\n    <Sequence>\n      <Frobnicate/>\n    </Sequence>\n  </BehaviorTree>\n</root>";
    let err = load_str(&registry, xml, "frob.xml", None, &XmlOptions::default()).unwrap_err();
    assert_eq!(err.file(), "frob.xml");
    assert_eq!(
        err.location(),
        &Location::Element {
            element: "<Frobnicate>".to_string(),
            at: Some(Position { line: 4, column: 7 }),
        }
    );
    // A type with no close name is typed, so a caller can say where such
    // types come from.
    assert!(
        matches!(err.problem(), Problem::Xml(XmlProblem::UnknownType { type_name, suggestion: None })
            if type_name == "Frobnicate"),
        "{err:?}"
    );
    assert!(
        err.to_string().starts_with("frob.xml:4:7: <Frobnicate>: "),
        "{err}"
    );

    // Malformed XML has a position but no element; an empty file neither.
    let err = load_str(
        &registry,
        "<root>\n  <a>\n</root>",
        "bad.xml",
        None,
        &XmlOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err.location(), Location::Text(Position { line: 3, .. })),
        "{err:?}"
    );
    let err = load_str(&registry, "", "empty.xml", None, &XmlOptions::default()).unwrap_err();
    assert_eq!(err.location(), &Location::File, "{err}");
}
