//! BehaviorTree.CPP trees that canopy-btcpp refuses at load, as
//! BehaviorTree.CPP's own unit tests do (or for a node canopy cannot run),
//! with the exact message.
//!
//! BehaviorTree.CPP's unit-test scenarios that run a tree are data:
//! `testdata/btcpp/*.toml` at the workspace root, run in both of canopy's
//! modes by `crates/canopy-reference/tests/scenarios/`. Each file's header
//! names the BehaviorTree.CPP tests it covers.
//!
//! Covered here:
//! - gtest_reactive.cpp: Reactive.TwoAsyncNodesInReactiveSequence (refused
//!   at load, as in BehaviorTree.CPP, though for AsyncSequence itself).
//! - gtest_decorator.cpp: RunOnce skipping where no parent reads SKIPPED.
//! - gtest_subtree.cpp: SubTree.SubtreeNameNotRegistered, .RecursiveSubtree,
//!   .RecursiveCycle, .DuplicateSubTreeName_Groot2Issue56,
//!   .DuplicateSubTreeName_ErrorMessage, .NestedDuplicateNames_ShouldFail.
//! - gtest_if_then_else.cpp, gtest_while_do_else.cpp: a wrong number of
//!   children.
//!
//! Blackboard, script, precondition, loop and switch scenarios are data
//! too: `testdata/btcpp/scripts.toml` (SequenceWithMemoryTest.Issue_636,
//! Reactive.Issue587, SubTree.SubtreeIssue592, SubTree.ScriptRemap),
//! `preconditions.toml`, `loop.toml`, `switch.toml`; the subtree issues
//! about types (Issue623_String_to_Pose2d, Issue653_SetBlackboard, …) are
//! `btcpp_issues.rs`.
//!
//! Not covered anywhere, and why:
//! - Reactive.RunningChildren: AsyncSequence, which relies on BehaviorTree.CPP's wake-up
//!   signal; refused at load.
//! - Parallel.Issue593: `_skipIf` on a child of a Parallel, refused at load (no Parallel
//!   reads SKIPPED in canopy). Parallel.PauseWithRetry: it measures the wall-clock time
//!   from a `_while` turning false to the `_onHalted` it causes.
//! - Reactive.PreTickHooks: a C++ pre-tick callback replaces nodes' results.
//! - gtest_subtree.cpp's other tests (SiblingPorts_Issue_72, GoodRemapping, BadRemapping,
//!   SubtreePlus*, StringConversions_Issue530, SubtreeNav2_*, SubtreeModels,
//!   RemappingIssue696, PrivateAutoRemapping, LiteralNumericPortsPreserveType): C++ nodes
//!   with ports of their own types, or entries written from C++.

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Ctx, Status};
use canopy_data::{Params, Registry};

/// `TestAction`: the test node type the refused trees name.
#[derive(Params)]
struct TestParams {
    /// Which test node.
    id: String,
}

fn registry() -> Registry<(), ()> {
    let mut r = Registry::new();
    r.action("TestAction", |_: TestParams| {
        |_: &mut Ctx<(), ()>| Status::Success
    })
    .unwrap();
    r
}

fn document(body: &str) -> String {
    format!(r#"<root BTCPP_format="4"><BehaviorTree ID="Main">{body}</BehaviorTree></root>"#)
}

/// The load error for a document.
fn load_error(xml: &str) -> String {
    match load_str(
        &registry(),
        xml,
        "scenario.xml",
        None,
        &XmlOptions::default(),
    ) {
        Ok(_) => panic!("loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reactive_two_async_sequences_refused() {
    let err = load_error(&document(
        "<ReactiveSequence><AsyncSequence><TestAction id=\"A\"/></AsyncSequence><AsyncSequence><TestAction id=\"D\"/></AsyncSequence></ReactiveSequence>",
    ));
    assert_eq!(
        err,
        "scenario.xml:1:66: <AsyncSequence>: AsyncSequence returns RUNNING after each child to be \
         ticked again at once through BehaviorTree.CPP's wake-up signal, which canopy's ticks do \
         not have; use Sequence"
    );
}

#[test]
fn run_once_skipping_where_no_parent_reads_skipped_is_refused() {
    let err = load_error(&document(
        r#"<Inverter><RunOnce><TestAction id="a"/></RunOnce></Inverter>"#,
    ));
    assert_eq!(
        err,
        "scenario.xml:1:58: <RunOnce>: RunOnce with then_skip=\"true\" (the default) returns \
         SKIPPED once its child has run, a status canopy does not have; canopy reads it as a \
         Sequence or a Fallback does (as SUCCESS or FAILURE), but its parent is <Inverter>; \
         write then_skip=\"false\" to return the child's status again, or put the RunOnce \
         directly under a Sequence or a Fallback"
    );
    let err = load_error(&document(
        r#"<Sequence><RunOnce then_skip="maybe"><TestAction id="a"/></RunOnce></Sequence>"#,
    ));
    assert!(
        err.ends_with("<RunOnce>: port then_skip must be true or false, got \"maybe\""),
        "{err}"
    );
    let err = load_error(&document(
        r#"<SequenceStar><TestAction id="a"/></SequenceStar>"#,
    ));
    assert!(
        err.contains("format 4 calls it SequenceWithMemory"),
        "{err}"
    );
}

#[test]
fn subtree_name_not_registered() {
    let err = load_error(
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="TestAction"><Sequence><TestAction id="world"/></Sequence></BehaviorTree>
  <BehaviorTree ID="MainTree"><Sequence><TestAction id="hello"/><SubTree ID="TestAction"/></Sequence></BehaviorTree>
</root>"#,
    );
    assert_eq!(
        err,
        "scenario.xml:2:3: <BehaviorTree ID=\"TestAction\">: the ID \"TestAction\" is the name of a node type; give the tree another ID"
    );
}

#[test]
fn subtree_recursive() {
    let err = load_error(
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="MainTree"><Sequence name="root"><AlwaysSuccess/><SubTree ID="MainTree"/></Sequence></BehaviorTree>
</root>"#,
    );
    assert_eq!(
        err,
        "scenario.xml:2:69: <SubTree ID=\"MainTree\">: the tree \"MainTree\" includes itself"
    );
    let err = load_error(
        r#"<root BTCPP_format="4" main_tree_to_execute="MainTree">
  <BehaviorTree ID="MainTree"><Sequence name="root"><AlwaysSuccess/><SubTree ID="TreeA"/></Sequence></BehaviorTree>
  <BehaviorTree ID="TreeA"><Sequence name="root"><AlwaysSuccess/><SubTree ID="TreeB"/></Sequence></BehaviorTree>
  <BehaviorTree ID="TreeB"><Sequence name="root"><AlwaysSuccess/><SubTree ID="MainTree"/></Sequence></BehaviorTree>
</root>"#,
    );
    assert_eq!(
        err,
        "scenario.xml:4:66: <SubTree ID=\"MainTree\">: trees include each other in a cycle: \"MainTree\" → \"TreeA\" → \"TreeB\" → \"MainTree\""
    );
}

#[test]
fn subtree_duplicate_names_refused() {
    for control in ["ParallelAll", "Sequence"] {
        let err = load_error(&format!(
            r#"<root BTCPP_format="4" main_tree_to_execute="MainTree">
  <BehaviorTree ID="MainTree"><{control}><SubTree ID="Worker" name="my_worker"/><SubTree ID="Worker" name="my_worker"/></{control}></BehaviorTree>
  <BehaviorTree ID="Worker"><AlwaysSuccess name="do_work"/></BehaviorTree>
</root>"#
        ));
        let column = 72 + control.len();
        assert_eq!(
            err,
            format!(
                "scenario.xml:2:{column}: <SubTree ID=\"Worker\" name=\"my_worker\">: another <SubTree> in this <BehaviorTree> is named \"my_worker\" too; BehaviorTree.CPP requires distinct names (they make the subtrees' paths); rename one or drop the names"
            )
        );
    }
}

#[test]
fn if_then_else_child_counts_refused() {
    for control in ["IfThenElse", "WhileDoElse"] {
        let err = load_error(&document(&format!(
            "<{control}><AlwaysSuccess/></{control}>"
        )));
        assert_eq!(
            err,
            format!("scenario.xml:1:48: <{control}>: {control} needs 2 or 3 children, got 1")
        );
        let err = load_error(&document(&format!(
            "<{control}><AlwaysSuccess/><AlwaysSuccess/><AlwaysSuccess/><AlwaysSuccess/></{control}>"
        )));
        assert_eq!(
            err,
            format!("scenario.xml:1:48: <{control}>: {control} needs 2 or 3 children, got 4")
        );
    }
}
