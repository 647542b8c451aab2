//! BehaviorTree.CPP's standard nodes reading their ports from the
//! blackboard, and its entry-update nodes: what the parity traces do not
//! show — durations read at run time against the same durations written in
//! the file, snapshots and hot reload in the middle of a run, the refusals
//! and their messages, and the bound on one tick's work.

use std::path::Path;

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Mode, Status, Tree};
use canopy_data::Registry;

fn load(xml: &str, options: &XmlOptions) -> Result<Tree<(), ()>, String> {
    load_str(&Registry::new(), xml, "t.xml", None, options).map_err(|e| e.to_string())
}

fn main_tree(body: &str) -> String {
    format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n\
         <BehaviorTree ID=\"Main\">{body}</BehaviorTree>\n</root>"
    )
}

/// Each tick's status and the blackboard after it.
fn run(tree: &Tree<(), ()>, agent: &mut Agent, ticks: usize) -> Vec<(Status, String)> {
    (0..ticks)
        .map(|_| {
            let status = agent.tick(tree, &mut (), &());
            (status, format!("{:?}", agent.board_values(tree)))
        })
        .collect()
}

fn fresh(tree: &Tree<(), ()>, mode: Mode) -> Agent {
    let mut agent = Agent::new(tree);
    agent.set_mode(tree, mode);
    agent
}

#[test]
fn a_duration_read_from_a_key_runs_as_the_same_duration_written_in_the_file() {
    // The literal runs as canopy's Wait and Timeout (or this crate's Delay
    // with its ticks from the load); the key as this crate's nodes, which
    // turn the milliseconds into ticks when they read them.
    let shapes = [
        "<Sleep msec=\"MS\"/>",
        "<Timeout msec=\"MS\"><canopy_Script name=\"w\" statuses=\"Running;Running;Running;Running;Success\"/></Timeout>",
        "<Delay delay_msec=\"MS\"><canopy_Script name=\"w\" statuses=\"Running;Success\"/></Delay>",
    ];
    for tick_ms in [1, 40, 100] {
        let options = XmlOptions {
            tick_ms,
            ..XmlOptions::default()
        };
        for ms in [0, 1, 39, 40, 41, 100, 150, 250] {
            for shape in shapes {
                let written = shape.replace("MS", &ms.to_string());
                let read = shape.replace("MS", "{ms}");
                let literal = main_tree(&format!(
                    "<Sequence><Script code=\"ms := {ms}\"/>{written}</Sequence>"
                ));
                let keyed = main_tree(&format!(
                    "<Sequence><Script code=\"ms := {ms}\"/>{read}</Sequence>"
                ));
                let (literal, keyed) = (
                    load(&literal, &options).unwrap(),
                    load(&keyed, &options).unwrap(),
                );
                for mode in [Mode::Tick, Mode::Event] {
                    let expected = run(&literal, &mut fresh(&literal, mode), 8);
                    let got = run(&keyed, &mut fresh(&keyed, mode), 8);
                    assert_eq!(
                        got, expected,
                        "{shape} with {ms} ms, ticks of {tick_ms} ms, {mode:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn keyed_ports_print_as_the_file_wrote_them() {
    let xml = main_tree(
        "<Sequence>\
           <Script code=\"n := 2; t := 250; skip := true\"/>\
           <Repeat num_cycles=\"{n}\"><AlwaysSuccess/></Repeat>\
           <Parallel success_count=\"{n}\"><AlwaysSuccess/><AlwaysSuccess/></Parallel>\
           <Sleep msec=\"{t}\"/>\
           <RunOnce then_skip=\"{skip}\"><AlwaysSuccess/></RunOnce>\
           <WasEntryUpdated entry=\"n\"/>\
           <SkipUnlessUpdated entry=\"{@t}\"><AlwaysSuccess/></SkipUnlessUpdated>\
           <UnsetBlackboard key=\"n\"/>\
         </Sequence>",
    );
    let tree = load(&xml, &XmlOptions::default()).unwrap();
    assert_eq!(
        tree.display().to_string(),
        "Sequence\n\
         ├── Script  Eval(code=\"n := 2; t := 250; skip := true\")\n\
         ├── Repeat(num_cycles={n})\n\
         │   └── AlwaysSuccess\n\
         ├── Parallel(success_count={n}, failure_count=1)\n\
         │   ├── AlwaysSuccess\n\
         │   └── AlwaysSuccess\n\
         ├── Sleep(msec={t})\n\
         ├── RunOnce(then_skip={skip}, skipped=success)\n\
         │   └── AlwaysSuccess\n\
         ├── WasEntryUpdated(entry={n})\n\
         ├── SkipUnlessUpdated(entry={t})\n\
         │   └── AlwaysSuccess\n\
         └── UnsetBlackboard(key={n})\n"
    );
}

/// The parity trees of these nodes, by name.
const PARITY: [&str; 11] = [
    "entry_updates_through_a_subtree_remapping",
    "parallel_all_max_failures_read_from_a_key",
    "parallel_thresholds_read_from_keys",
    "repeat_cycles_read_from_a_key_a_script_wrote",
    "repeat_reads_its_count_on_every_tick",
    "retry_reads_its_attempts_again_after_each_failure",
    "run_once_reads_then_skip_from_a_key",
    "skip_unless_updated_halted_halts_its_child",
    "skip_unless_updated_under_a_sequence_and_a_fallback",
    "unset_blackboard_then_written_again",
    "wait_value_update_waits_for_a_write",
];

fn parity(name: &str) -> Tree<(), ()> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/parity/{name}.xml"));
    let xml = std::fs::read_to_string(&path).unwrap();
    load(&xml, &XmlOptions::default()).unwrap()
}

#[test]
fn a_run_snapshotted_and_restored_at_any_tick_goes_on_as_the_uninterrupted_one() {
    const TICKS: usize = 8;
    for name in PARITY
        .into_iter()
        .chain(["was_entry_updated_sees_each_write"])
    {
        let tree = parity(name);
        for mode in [Mode::Tick, Mode::Event] {
            let whole = run(&tree, &mut fresh(&tree, mode), TICKS);
            for k in 1..TICKS {
                let mut agent = fresh(&tree, mode);
                let mut got = run(&tree, &mut agent, k);
                let snapshot = agent.snapshot(&tree);
                drop(agent);
                let mut restored = Agent::restore(&tree, &snapshot).unwrap();
                got.extend(run(&tree, &mut restored, TICKS - k));
                assert_eq!(got, whole, "{name}, {mode:?}, restored after tick {k}");
            }
        }
    }
}

#[test]
fn a_run_reloaded_into_the_same_file_at_any_tick_goes_on_as_the_uninterrupted_one() {
    const TICKS: usize = 8;
    for name in PARITY
        .into_iter()
        .chain(["was_entry_updated_sees_each_write"])
    {
        let (old, new) = (parity(name), parity(name));
        let whole = run(&old, &mut fresh(&old, Mode::Tick), TICKS);
        for k in 1..TICKS {
            let mut agent = fresh(&old, Mode::Tick);
            let mut got = run(&old, &mut agent, k);
            let report = agent.reload(&old, &new, &mut (), &());
            assert!(report.aborted.is_empty(), "{name}: {report:?}");
            got.extend(run(&new, &mut agent, TICKS - k));
            assert_eq!(got, whole, "{name}, reloaded after tick {k}");
        }
    }
}

#[test]
fn what_canopy_cannot_read_as_behaviortree_cpp_does_is_refused_with_what_to_write() {
    let refused = |body: &str| load(&main_tree(body), &XmlOptions::default()).unwrap_err();
    assert_eq!(
        refused("<UnsetBlackboard key=\"{which}\"/>"),
        "t.xml:2:25: <UnsetBlackboard>: UnsetBlackboard key=\"{which}\" empties the entry whose \
         name the key \"which\" holds when it runs; canopy resolves every key when the tree is \
         loaded, so name the entry itself: key=\"which\""
    );
    assert!(
        refused("<SkipUnlessUpdated entry=\"x\"><AlwaysSuccess/></SkipUnlessUpdated>")
            .ends_with("but it is not the child of a standard node; put it directly under a Sequence or a Fallback, or use WaitValueUpdate")
    );
    assert!(
        refused("<Parallel><RunOnce then_skip=\"{s}\"><AlwaysSuccess/></RunOnce></Parallel>")
            .ends_with("but its parent is <Parallel>; put the RunOnce directly under a Sequence or a Fallback")
    );
    assert_eq!(
        refused("<WasEntryUpdated entry=\"\"/>"),
        "t.xml:2:25: <WasEntryUpdated>: WasEntryUpdated needs the port entry, naming a key"
    );
    assert_eq!(
        refused("<WaitValueUpdate><AlwaysSuccess/></WaitValueUpdate>"),
        "t.xml:2:25: <WaitValueUpdate>: WaitValueUpdate needs the port entry"
    );
    assert_eq!(
        refused("<Repeat num_cycle=\"{n}\"><AlwaysSuccess/></Repeat>"),
        "t.xml:2:25: <Repeat>: unknown port \"num_cycle\" for Repeat (did you mean \"num_cycles\"?); it takes: num_cycles"
    );
}

#[test]
fn loops_counting_from_the_blackboard_are_bounded_as_loops_for_ever() {
    // Each level of a loop may run its child twice in a tick: 30 nested
    // loops whose counts are keys could update 2^30 nodes in one tick.
    let depth = 30;
    let nested = |count: &str| {
        let open = format!("<Repeat num_cycles=\"{count}\">").repeat(depth);
        let close = "</Repeat>".repeat(depth);
        main_tree(&format!(
            "<Sequence><Script code=\"n := 1\"/>{open}<AlwaysSuccess/>{close}</Sequence>"
        ))
    };
    let options = XmlOptions::default();
    assert!(load(&nested("1"), &options).is_ok());
    let refused = load(&nested("{n}"), &options).unwrap_err();
    assert!(
        refused.contains("one tick of this tree can update more than 1000000 nodes"),
        "{refused}"
    );
}
