//! The pre- and post-condition attributes (`_failureIf`, `_successIf`,
//! `_skipIf`, `_while`, `_onSuccess`, `_onFailure`, `_onHalted`, `_post`)
//! run as BehaviorTree.CPP 4 runs them; the traces below are
//! BehaviorTree.CPP's own for the same files (the differential test
//! checks them against it where it is installed).

#[path = "differential/trace.rs"]
mod trace;

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::Mode;
use canopy_data::Registry;

fn traces(xml: &str, ticks: u32) -> String {
    let registry = Registry::new();
    let tick = trace::trace(&registry, "t.xml", xml, ticks, Mode::Tick);
    let event = trace::trace(&registry, "t.xml", xml, ticks, Mode::Event);
    assert_eq!(tick, event, "event mode gives tick mode's trace");
    tick
}

fn load_error(xml: &str) -> String {
    let registry = Registry::<(), ()>::new();
    load_str(&registry, xml, "t.xml", None, &XmlOptions::default())
        .map(|_| ())
        .expect_err("the tree is refused")
        .to_string()
}

#[test]
fn conditions_are_tested_on_entry_and_while_runs_every_tick() {
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="x := 0; h := 0; s := 0; p := 0"/>
        <canopy_Script name="L0" statuses="Running;Running;Running;Success" _while="x &lt; 2" _onHalted="h += 1" _post="x += 1" _onSuccess="s += 1"/>
        <canopy_Script name="L1" statuses="Success" _skipIf="x == 0" _onSuccess="x += 10"/>
        <canopy_Script name="L2" statuses="Running;Success" _successIf="x == 1" _onSuccess="x = x + 100" _post="p += 5"/>
    </Sequence></BehaviorTree></root>"#;
    assert_eq!(
        traces(xml, 6),
        "== t.xml\n\
         tick 1: RUNNING ticks L0=1 halts bb h=0 p=0 s=0 x=0\n\
         tick 2: RUNNING ticks L0=1 halts bb h=0 p=0 s=0 x=0\n\
         tick 3: RUNNING ticks L0=1 halts bb h=0 p=0 s=0 x=0\n\
         tick 4: RUNNING ticks L0=1 L1=1 L2=1 halts bb h=0 p=0 s=1 x=11\n\
         tick 5: SUCCESS ticks L2=1 halts bb h=0 p=5 s=1 x=111\n\
         tick 6: RUNNING ticks L0=1 halts bb h=0 p=0 s=0 x=0\n"
    );
}

#[test]
fn a_false_while_halts_the_running_node_and_runs_on_halted() {
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="t := 0; halted := 0"/>
        <ReactiveSequence>
            <Script code="t += 1"/>
            <canopy_Script name="W" statuses="Running" _while="t &lt; 4" _onHalted="halted += 1"/>
        </ReactiveSequence>
        <canopy_Script name="AFTER" statuses="Success"/>
    </Sequence></BehaviorTree></root>"#;
    assert_eq!(
        traces(xml, 5),
        "== t.xml\n\
         tick 1: RUNNING ticks W=1 halts bb halted=0 t=1\n\
         tick 2: RUNNING ticks W=1 halts bb halted=0 t=2\n\
         tick 3: RUNNING ticks W=1 halts bb halted=0 t=3\n\
         tick 4: SUCCESS ticks AFTER=1 halts W bb halted=1 t=4\n\
         tick 5: RUNNING ticks W=1 halts bb halted=0 t=1\n"
    );
}

#[test]
fn a_halt_from_above_runs_on_halted_and_a_parallel_decides_after_the_scripts() {
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="g := 2; out := 0"/>
        <Parallel success_count="1" failure_count="1">
            <canopy_Script name="P0" statuses="Running;Running;Success" _onSuccess="out := 1"/>
            <canopy_Script name="P1" statuses="Running" _onHalted="out += 10" _post="out := 99"/>
        </Parallel>
    </Sequence></BehaviorTree></root>"#;
    assert_eq!(
        traces(xml, 3),
        "== t.xml\n\
         tick 1: RUNNING ticks P0=1 P1=1 halts bb g=2 out=0\n\
         tick 2: RUNNING ticks P0=1 P1=1 halts bb g=2 out=0\n\
         tick 3: SUCCESS ticks P0=1 halts P1 bb g=2 out=11\n"
    );
}

#[test]
fn a_skip_is_refused_where_no_parent_reads_it() {
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M">
        <Inverter><AlwaysSuccess _skipIf="true"/></Inverter>
    </BehaviorTree></root>"#;
    assert_eq!(
        load_error(xml),
        "t.xml:2:19: <AlwaysSuccess>: _skipIf and _while make a node return SKIPPED, a status \
         canopy does not have; canopy reads it as a Sequence or a Fallback does (as SUCCESS or \
         FAILURE), but its parent is <Inverter>; put the node directly under a Sequence or a \
         Fallback"
    );
}

#[test]
fn a_post_condition_without_a_skip_is_taken_anywhere() {
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M">
        <Inverter _post="n := 1"><AlwaysSuccess _successIf="false" _onSuccess="m := 2"/></Inverter>
    </BehaviorTree></root>"#;
    assert_eq!(
        traces(xml, 1),
        "== t.xml\ntick 1: FAILURE ticks  halts bb m=2 n=1\n"
    );
}

#[test]
fn a_script_error_names_the_attribute() {
    let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <AlwaysSuccess _failureIf="x +"/>
    </Sequence></BehaviorTree></root>"#;
    assert_eq!(
        load_error(xml),
        "t.xml:2:9: <AlwaysSuccess>: _failureIf: script \"x +\", column 3: expected an \
         expression after `+`"
    );
}
