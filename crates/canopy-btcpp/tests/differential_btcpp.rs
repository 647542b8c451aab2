//! canopy against BehaviorTree.CPP itself: random trees over every
//! imported standard node, scripts, pre- and post-conditions and
//! `<SubTree>` remapping, run on both for the same ticks, must give the
//! same trace — the root's status, each scripted leaf's updates and
//! halts, and the root blackboard's values, tick by tick — except for the
//! differences the crate documents
//! (SKIPPED, and a finished condition ticked again), which are counted
//! apart. canopy's event mode must give its tick mode's trace.
//!
//! BehaviorTree.CPP runs through `behaviortreepy` (PyPI, 0.1.4: BehaviorTree.CPP
//! 4 with Python bindings) and `differential/btcpp_run.py`, one
//! `tick_exactly_once()` per tick. Without it the test is skipped with a
//! reason, unless `CI` or `CANOPY_REQUIRE_BTCPP` is set, where it fails.
//! `CANOPY_BTCPP_TREES` (default 2000) and `CANOPY_BTCPP_SEED` change the
//! trees; `CANOPY_BTCPP_KEEP=DIR` keeps the files and both traces there
//! (with `CANOPY_BTCPP_ALL`, every differing tree, documented or not, in
//! `all-differences.txt`).

#[path = "differential/generate.rs"]
mod generate;
#[path = "differential/trace.rs"]
mod trace;

use std::path::{Path, PathBuf};
use std::process::Command;

use canopy_btcpp::{XmlOptions, export_str};
use canopy_core::Mode;
use canopy_data::{Format, Registry};

/// Ticks each tree is run for.
const TICKS: u32 = 12;

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value} is not a number")),
        Err(_) => default,
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/btcpp_run.py")
}

/// Whether BehaviorTree.CPP can run here; `Err` says why not.
fn btcpp_available() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import behaviortreepy"])
        .output()
        .map_err(|e| format!("python3 cannot be run: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "python3 cannot import behaviortreepy (pip install behaviortreepy==0.1.4): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn required() -> bool {
    ["CI", "CANOPY_REQUIRE_BTCPP"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Each file's trace from BehaviorTree.CPP, in file order: from
/// behaviortreepy, or from the program `CANOPY_BTCPP_RUNNER` names (a
/// runner of another build of BehaviorTree.CPP, such as 4.10, taking the
/// same arguments and printing the same format).
fn btcpp_traces(files: &[PathBuf]) -> Vec<String> {
    let mut command = match std::env::var_os("CANOPY_BTCPP_RUNNER") {
        Some(runner) => Command::new(runner),
        None => {
            let mut python = Command::new("python3");
            python.arg(script());
            python
        }
    };
    let out = command
        .args(["--ticks", &TICKS.to_string()])
        .args(files)
        .output()
        .expect("the runner runs");
    assert!(
        out.status.success(),
        "btcpp_run.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let mut traces: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("== ") {
            traces.push(String::new());
        }
        let trace = traces.last_mut().expect("a header first");
        trace.push_str(line);
        trace.push('\n');
    }
    assert_eq!(traces.len(), files.len(), "one trace per file");
    traces
}

#[test]
fn random_trees_run_as_on_behaviortree_cpp() {
    if let Err(why) = btcpp_available() {
        assert!(!required(), "BehaviorTree.CPP is required here: {why}");
        eprintln!("skipped: {why}");
        return;
    }
    let count = env_number("CANOPY_BTCPP_TREES", 2000);
    let seed = env_number("CANOPY_BTCPP_SEED", 20);
    let keep = std::env::var_os("CANOPY_BTCPP_KEEP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("canopy-differential-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).expect("a directory for the trees");
    let mut rng = generate::Rng::new(seed);
    let trees: Vec<generate::Generated> = (0..count).map(|_| generate::tree(&mut rng)).collect();
    let files: Vec<PathBuf> = (0..trees.len())
        .map(|i| dir.join(format!("tree{i:04}.xml")))
        .collect();
    for (file, tree) in files.iter().zip(&trees) {
        std::fs::write(file, &tree.xml).expect("the tree is written");
    }
    let theirs = btcpp_traces(&files);
    let registry = Registry::new();
    // behaviortreepy is BehaviorTree.CPP 4.8.2; a runner of another build
    // (CANOPY_BTCPP_RUNNER) is taken to be 4.10's, which canopy follows.
    let old_version = std::env::var_os("CANOPY_BTCPP_RUNNER").is_none();
    let (mut identical, mut skipped, mut stale, mut versions) = (0, 0, 0, 0);
    let mut undocumented = Vec::new();
    let mut documented = Vec::new();
    for ((file, tree), theirs) in files.iter().zip(&trees).zip(&theirs) {
        let path = file.display().to_string();
        let ours = trace::trace(&registry, &path, &tree.xml, TICKS, Mode::Tick);
        let events = trace::trace(&registry, &path, &tree.xml, TICKS, Mode::Event);
        assert_eq!(
            events, ours,
            "event mode differs from tick mode:\n{}",
            tree.xml
        );
        if ours != *theirs && keep.is_some() && std::env::var_os("CANOPY_BTCPP_ALL").is_some() {
            // Every difference kept, documented or not, to look into.
            documented.push(format!(
                "{}canopy:\n{ours}BehaviorTree.CPP:\n{theirs}",
                tree.xml
            ));
        }
        if ours == *theirs {
            identical += 1;
        } else if tree.skips {
            skipped += 1;
        } else if tree.stale_condition {
            stale += 1;
        } else if tree.blackboard_queue && old_version {
            versions += 1;
        } else {
            undocumented.push(format!(
                "{}canopy:\n{ours}BehaviorTree.CPP:\n{theirs}",
                tree.xml
            ));
        }
    }
    if let Some(keep) = &keep {
        std::fs::write(keep.join("differences.txt"), undocumented.join("\n")).expect("written");
        std::fs::write(keep.join("all-differences.txt"), documented.join("\n")).expect("written");
    } else {
        std::fs::remove_dir_all(&dir).expect("the trees are removed");
    }
    eprintln!(
        "seed {seed}: {identical} of {count} trees identical; documented differences: \
         {skipped} with a node that can return SKIPPED (RunOnce, _skipIf, _while), {stale} \
         with a stateful condition ticked again, {versions} with a loop over a queue on the \
         blackboard, which 4.8.2 pops and 4.10 copies; {} other",
        undocumented.len()
    );
    // Most trees run exactly as on BehaviorTree.CPP: the documented
    // differences are corners, not the rule. A tree that differs only as
    // 4.8.2 differs from 4.10 runs as 4.10 does, which canopy follows
    // (checked with `CANOPY_BTCPP_RUNNER` on a 4.10 build): it counts as
    // identical here.
    let as_4_10 = identical + versions;
    assert!(
        as_4_10 * 1000 >= count * 995,
        "only {as_4_10} of {count} trees identical (at least 99.5% must be)"
    );
    assert!(
        undocumented.is_empty(),
        "{} of {count} trees differ for no documented reason; the first:\n{}",
        undocumented.len(),
        undocumented.first().map_or("", String::as_str)
    );
}

#[test]
fn an_export_with_a_reactive_sequence_runs_on_behaviortree_cpp() {
    if let Err(why) = btcpp_available() {
        assert!(!required(), "BehaviorTree.CPP is required here: {why}");
        eprintln!("skipped: {why}");
        return;
    }
    let json = r#"{"tree": {"type": "ReactiveSequence", "name": "watch", "children": [
        {"type": "Script", "name": "L0", "statuses": ["Success", "Success", "Failure"], "clock": "tick"},
        {"type": "SequenceWithMemory", "pause": true, "children": [
            {"type": "Script", "name": "L1", "statuses": ["Success"]},
            {"type": "Inverter", "children": [
                {"type": "Script", "name": "L2", "statuses": ["Running", "Failure"]}]}]}]}}"#;
    let registry = Registry::new();
    let xml = export_str(
        &registry,
        json,
        Format::Json,
        "watch.json",
        &XmlOptions::default(),
    )
    .expect("the tree exports");
    assert!(
        xml.contains("<ReactiveSequence name=\"watch\">\n      <canopy_Script name=\"L0\""),
        "{xml}"
    );
    let dir = std::env::temp_dir().join(format!("canopy-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let file = dir.join("watch.xml");
    std::fs::write(&file, &xml).expect("written");
    let theirs = btcpp_traces(std::slice::from_ref(&file));
    std::fs::remove_dir_all(&dir).expect("removed");
    let path = file.display().to_string();
    let ours = trace::trace(&registry, &path, &xml, 4, Mode::Tick);
    let ours_at_12 = trace::trace(&registry, &path, &xml, TICKS, Mode::Event);
    assert_eq!(ours_at_12, theirs[0]);
    assert_eq!(
        ours,
        format!(
            "== {path}\n\
             tick 1: RUNNING ticks L0=1 L1=1 halts\n\
             tick 2: RUNNING ticks L0=1 L2=1 halts\n\
             tick 3: FAILURE ticks L0=1 halts L2\n\
             tick 4: FAILURE ticks L0=1 halts\n"
        )
    );
}

/// Trees whose leaves talk through the blackboard: `Script`,
/// `ScriptCondition` and `SetBlackboard` deciding which scripted leaf runs.
const SCRIPT_TREES: [&str; 4] = [
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="count := 3"/>
        <Script code="count += 2; msg := 'hi'"/>
        <ScriptCondition code="count == 5 &amp;&amp; msg == 'hi'"/>
        <SetBlackboard value="{count}" output_key="copy"/>
        <ScriptCondition code="copy == 5"/>
        <canopy_Script name="L0" statuses="Success"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="n := 0"/>
        <Repeat num_cycles="4"><Sequence>
            <Script code="n += 1"/>
            <Fallback>
                <Sequence><ScriptCondition code="n == 2 || n == 4"/><canopy_Script name="EVEN" statuses="Success"/></Sequence>
                <canopy_Script name="ODD" statuses="Success"/>
            </Fallback>
        </Sequence></Repeat>
        <ScriptCondition code="n == 4"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Fallback>
        <Sequence>
            <SetBlackboard value="hello" output_key="word"/>
            <ScriptCondition code="word == 'bye'"/>
            <canopy_Script name="NO" statuses="Success"/>
        </Sequence>
        <Sequence>
            <ScriptCondition code="word == 'hello' ? true : false"/>
            <canopy_Script name="YES" statuses="Running;Success"/>
        </Sequence>
    </Fallback></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><ReactiveSequence>
        <ScriptCondition code="(1 + 2 * 3) == 7 &amp;&amp; !(2 &gt; 3)"/>
        <canopy_Script name="WORK" statuses="Running;Running;Success"/>
    </ReactiveSequence></BehaviorTree></root>"#,
];

#[test]
fn scripts_run_as_on_behaviortree_cpp() {
    run_as_on_behaviortree_cpp("script", &SCRIPT_TREES);
}

/// Trees with pre- and post-condition attributes: each condition on entry
/// and while running, each script after, SKIPPED under both kinds of
/// parent, and halts from above.
const PRE_POST_TREES: [&str; 8] = [
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="x := 0; h := 0; s := 0; p := 0"/>
        <canopy_Script name="L0" statuses="Running;Running;Running;Success" _while="x &lt; 2" _onHalted="h += 1" _post="x += 1" _onSuccess="s += 1"/>
        <canopy_Script name="L1" statuses="Success" _skipIf="x == 0" _onSuccess="x += 10"/>
        <canopy_Script name="L2" statuses="Running;Success" _successIf="x == 1" _onSuccess="x = x + 100" _post="p += 5"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="n := 0; f := 0"/>
        <Repeat num_cycles="6"><Sequence>
            <Script code="n += 1"/>
            <Fallback>
                <canopy_Script name="A" statuses="Failure" _skipIf="n == 2 || n == 4 || n == 6" _onFailure="f += 1"/>
                <canopy_Script name="B" statuses="Success" _failureIf="n == 3" _onFailure="f += 100"/>
            </Fallback>
        </Sequence></Repeat>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="t := 0; halted := 0"/>
        <ReactiveSequence>
            <Script code="t += 1"/>
            <canopy_Script name="W" statuses="Running" _while="t &lt; 4" _onHalted="halted += 1"/>
        </ReactiveSequence>
        <canopy_Script name="AFTER" statuses="Success"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="k := 0; h := 0"/>
        <ReactiveFallback>
            <ScriptCondition code="k += 1; k &gt;= 3"/>
            <Sequence _onHalted="h += 10" _post="k = k">
                <canopy_Script name="FIRST" statuses="Success"/>
                <canopy_Script name="LONG" statuses="Running" _onHalted="h += 1"/>
            </Sequence>
        </ReactiveFallback>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Fallback>
        <Script code="v := 1" _failureIf="true" _onFailure="v := 7" _post="w := v + 1"/>
        <canopy_Script name="X" statuses="Failure" _successIf="v == 7" _onSuccess="v += 1"/>
    </Fallback></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="a := 0"/>
        <Fallback>
            <canopy_Script name="S0" statuses="Running;Failure" _while="a &lt; 1"/>
            <canopy_Script name="S1" statuses="Success" _post="a += 1"/>
        </Fallback>
        <Inverter _onFailure="a += 100" _onSuccess="a += 1000"><canopy_Script name="S2" statuses="Success"/></Inverter>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="c := 0"/>
        <canopy_Script name="Q" statuses="Running;Running;Running;Success" _failureIf="c &gt; 0" _successIf="c &gt; 0" _onFailure="c -= 1"/>
        <Script code="c += 1"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="g := 2; out := 0"/>
        <Parallel success_count="1" failure_count="1">
            <canopy_Script name="P0" statuses="Running;Running;Success" _onSuccess="out := 1"/>
            <canopy_Script name="P1" statuses="Running" _onHalted="out += 10" _post="out := 99"/>
        </Parallel>
    </Sequence></BehaviorTree></root>"#,
];

#[test]
fn pre_and_post_conditions_run_as_on_behaviortree_cpp() {
    run_as_on_behaviortree_cpp("prepost", &PRE_POST_TREES);
}

/// Trees with `Precondition`, `Switch2`…`Switch6` and the `Loop*` nodes.
const BLACKBOARD_CONTROL_TREES: [&str; 7] = [
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="c := 0"/>
        <ReactiveSequence>
            <Script code="c += 1"/>
            <Precondition if="c &lt; 2" else="SUCCESS"><canopy_Script name="A" statuses="Running;Running;Running;Success"/></Precondition>
        </ReactiveSequence>
        <Precondition if="c == 4"><canopy_Script name="B" statuses="Success"/></Precondition>
        <Precondition if="c == 5"><canopy_Script name="C" statuses="Success"/></Precondition>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Fallback>
        <Precondition if="false" else="SKIPPED"><canopy_Script name="A" statuses="Success"/></Precondition>
        <Sequence>
            <Precondition if="true" else="SKIPPED"><canopy_Script name="B" statuses="Failure;Success"/></Precondition>
            <canopy_Script name="C" statuses="Success"/>
        </Sequence>
    </Fallback></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="v := 0; n := 0"/>
        <ReactiveSequence>
            <Script code="n += 1; v = n &gt; 4 ? 2 : 1"/>
            <Switch3 variable="{v}" case_1="1" case_2="2" case_3="7">
                <canopy_Script name="ONE" statuses="Running"/>
                <canopy_Script name="TWO" statuses="Running;Running;Success"/>
                <canopy_Script name="SEVEN" statuses="Success"/>
                <canopy_Script name="OTHER" statuses="Failure"/>
            </Switch3>
        </ReactiveSequence>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <SetBlackboard value="blue" output_key="colour"/>
        <Switch2 variable="{colour}" case_1="red" case_2="blue">
            <canopy_Script name="RED" statuses="Success"/>
            <canopy_Script name="BLUE" statuses="Running;Success"/>
            <canopy_Script name="NONE" statuses="Success"/>
        </Switch2>
        <Script code="colour = 'green'"/>
        <Switch2 variable="{colour}" case_1="red" case_2="blue">
            <canopy_Script name="RED2" statuses="Success"/>
            <canopy_Script name="BLUE2" statuses="Success"/>
            <canopy_Script name="NONE2" statuses="Failure"/>
        </Switch2>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="sum := 0; x := 0"/>
        <LoopInt queue="1;2;3" value="{x}">
            <Sequence><canopy_Script name="BODY" statuses="Running;Success"/><Script code="sum += x"/></Sequence>
        </LoopInt>
        <canopy_Script name="DONE" statuses="Success"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
        <Script code="d := 0.0; s := ''; b := false; k := 0"/>
        <LoopDouble queue="0.5;1.5" value="{d}"><Script code="k += 1"/></LoopDouble>
        <LoopString queue="a;bc" value="{s}"><ScriptCondition code="s != 'bc'"/></LoopString>
        <canopy_Script name="NEVER" statuses="Success"/>
    </Sequence></BehaviorTree></root>"#,
    r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Fallback>
        <LoopBool queue="true;false" value="{b}" if_empty="FAILURE"><ScriptCondition code="b"/></LoopBool>
        <canopy_Script name="AFTER" statuses="Success"/>
    </Fallback></BehaviorTree></root>"#,
];

#[test]
fn preconditions_switches_and_loops_run_as_on_behaviortree_cpp() {
    run_as_on_behaviortree_cpp("control", &BLACKBOARD_CONTROL_TREES);
}

/// Trees whose `<SubTree>`s remap keys, keep keys of their own, or share
/// every key (`_autoremap`), nested and referenced twice.
const REMAP_TREES: [&str; 5] = [
    r#"<root BTCPP_format="4" main_tree_to_execute="M">
    <BehaviorTree ID="M"><Sequence>
        <Script code="target := 1; x := 100"/>
        <SubTree ID="Inc" n="{target}"/>
        <SubTree ID="Inc" n="{x}"/>
        <ScriptCondition code="target == 2 &amp;&amp; x == 101"/>
        <canopy_Script name="OK" statuses="Success"/>
    </Sequence></BehaviorTree>
    <BehaviorTree ID="Inc"><Sequence>
        <Script code="x := 7; n += 1"/>
        <canopy_Script name="IN" statuses="Running;Success"/>
    </Sequence></BehaviorTree>
    </root>"#,
    r#"<root BTCPP_format="4" main_tree_to_execute="M">
    <BehaviorTree ID="M"><Sequence>
        <Script code="a := 1; b := 2"/>
        <SubTree ID="Both" b="{a}" _autoremap="true"/>
    </Sequence></BehaviorTree>
    <BehaviorTree ID="Both"><Sequence>
        <Script code="a += 10; b += 100; c := a + b"/>
    </Sequence></BehaviorTree>
    </root>"#,
    r#"<root BTCPP_format="4" main_tree_to_execute="M">
    <BehaviorTree ID="M"><Sequence>
        <Script code="out := 0"/>
        <SubTree ID="Outer" result="{out}"/>
    </Sequence></BehaviorTree>
    <BehaviorTree ID="Outer"><Sequence>
        <Script code="mid := 5"/>
        <SubTree ID="Inner" value="{mid}" sink="{result}"/>
    </Sequence></BehaviorTree>
    <BehaviorTree ID="Inner"><Sequence>
        <Script code="sink := value * 2"/>
        <canopy_Script name="DEEP" statuses="Success"/>
    </Sequence></BehaviorTree>
    </root>"#,
    r#"<root BTCPP_format="4" main_tree_to_execute="M">
    <BehaviorTree ID="M"><Sequence>
        <Script code="count := 0; two := 2; ten := 10"/>
        <Repeat num_cycles="3"><SubTree ID="Step" step="{count}" size="{two}" label="small"/></Repeat>
        <SubTree ID="Step" step="{count}" size="{ten}" label="big"/>
    </Sequence></BehaviorTree>
    <BehaviorTree ID="Step"><Sequence>
        <Script code="step += size"/>
        <Fallback>
            <Sequence><ScriptCondition code="label == 'big'"/><canopy_Script name="BIG" statuses="Success"/></Sequence>
            <canopy_Script name="STEP" statuses="Success"/>
        </Fallback>
    </Sequence></BehaviorTree>
    </root>"#,
    r#"<root BTCPP_format="4" main_tree_to_execute="M">
    <BehaviorTree ID="M"><Sequence><Script code="armed := false"/><Fallback>
        <SubTree ID="Guarded" flag="{@armed}"/>
        <Sequence><Script code="armed = true"/><canopy_Script name="ARM" statuses="Running;Failure"/></Sequence>
    </Fallback></Sequence></BehaviorTree>
    <BehaviorTree ID="Guarded"><Sequence>
        <Script code="seen := 1"/>
        <ScriptCondition code="@armed == true"/>
        <canopy_Script name="FIRE" statuses="Success"/>
    </Sequence></BehaviorTree>
    </root>"#,
];

#[test]
fn subtree_remapping_runs_as_on_behaviortree_cpp() {
    run_as_on_behaviortree_cpp("remap", &REMAP_TREES);
}

/// Each tree run on both engines, in both canopy modes, must give one trace.
fn run_as_on_behaviortree_cpp(stem: &str, trees: &[&str]) {
    if let Err(why) = btcpp_available() {
        assert!(!required(), "BehaviorTree.CPP is required here: {why}");
        eprintln!("skipped: {why}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("canopy-{stem}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let files: Vec<PathBuf> = (0..trees.len())
        .map(|i| dir.join(format!("{stem}{i}.xml")))
        .collect();
    for (file, xml) in files.iter().zip(trees) {
        std::fs::write(file, xml).expect("written");
    }
    let theirs = btcpp_traces(&files);
    std::fs::remove_dir_all(&dir).expect("removed");
    let registry = Registry::new();
    for ((file, xml), theirs) in files.iter().zip(trees).zip(&theirs) {
        let path = file.display().to_string();
        for mode in [Mode::Tick, Mode::Event] {
            let ours = trace::trace(&registry, &path, xml, TICKS, mode);
            assert_eq!(&ours, theirs, "{xml}");
        }
    }
}
