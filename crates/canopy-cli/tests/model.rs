//! `--model`: a BehaviorTree.CPP tree whose node types are declared only in
//! a node model runs on stand-ins — leaves that answer Success (or what a
//! rules file says), controls and decorators that run as canopy's own —
//! with the declared ports, so miswired blackboard keys are caught.

mod common;

use common::{canopy, stderr, stdout, success};

const MODEL: &str = "crates/canopy-cli/tests/fixtures/model/rover_nodes.xml";
const TREE: &str = "crates/canopy-cli/tests/fixtures/model/deliver.xml";
const RULES: &str = "crates/canopy-cli/tests/fixtures/model/rules.json";
const MISWIRED: &str = "crates/canopy-cli/tests/fixtures/model/miswired.xml";

const DEFAULTED: &str = "\
warning: Recovery: a control that runs as canopy's Sequence (a stand-in; choose what it runs as with --stand-ins)
warning: Throttle: a decorator that returns its child's status (a stand-in; choose what it runs as with --stand-ins)
";

#[test]
fn a_tree_of_declared_types_is_checked_and_printed_with_stand_ins() {
    let output = canopy(&["check", "--model", MODEL, TREE]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "ok\n");
    assert_eq!(stderr(&output), DEFAULTED);
    let output = canopy(&["print", "--model", MODEL, TREE]);
    assert_eq!(
        stdout(&output),
        "\
Recovery(retries=3)
├── Sequence
│   ├── Throttle(hz=1)
│   │   └── PlanRoute(goal={goal}, planner=\"grid\", route={route})
│   └── Drive(route={route}, speed=0.8, error_code={drive_error})
└── Sequence
    ├── IsStuck(error_code={drive_error})
    └── Wait(wait_duration=2.5)
"
    );
}

#[test]
fn without_the_model_the_types_are_unknown() {
    let output = canopy(&["check", TREE]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "{TREE}:3:5: <Recovery>: unknown node type \"Recovery\"; the registry and \
             BehaviorTree.CPP's standard nodes have no such type\n\
             hint: this `canopy` knows the built-in node types (`canopy nodes` lists them) and \
             the crowd demo's node types (`--types crowd`); a file using other node types needs \
             a `canopy` built with their registry (`canopy_cli::Cli`); or, to check and dry-run \
             this file without their code, give the node model that declares them: \
             `--model MODEL.xml`\n"
        )
    );
    // A close name is a typo: the error suggests it, and no hint follows.
    let dir = std::env::temp_dir().join(format!("canopy-typo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let typo = dir.join("typo.xml");
    std::fs::write(
        &typo,
        "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"T\"><Sequnce/></BehaviorTree>\n</root>\n",
    )
    .unwrap();
    let typo = typo.to_string_lossy().into_owned();
    assert_eq!(
        stderr(&canopy(&["check", &typo])),
        format!(
            "{typo}:2:24: <Sequnce>: unknown node type \"Sequnce\" (did you mean \"Sequence\"?); \
             the registry and BehaviorTree.CPP's standard nodes have no such type\n"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stand_ins_succeed_at_once_unless_the_rules_say_otherwise() {
    // Every leaf succeeds: the Sequence standing in for Recovery succeeds
    // on every tick.
    let output = canopy(&["run", "--model", MODEL, TREE, "--ticks", "2"]);
    assert_eq!(
        stdout(&output),
        "\
tick 1: 0 running, 1 success, 0 failure
tick 2: 0 running, 1 success, 0 failure
total over 2 ticks × 1 agent: 0 running, 2 success, 0 failure
"
    );
    // Drive runs twice, then fails; Recovery, now a Fallback, turns to the
    // stuck branch, which succeeds on the third tick.
    let output = canopy(&[
        "run",
        "--model",
        MODEL,
        "--stand-ins",
        RULES,
        TREE,
        "--ticks",
        "4",
    ]);
    assert_eq!(
        stdout(&output),
        "\
tick 1: 1 running, 0 success, 0 failure
tick 2: 1 running, 0 success, 0 failure
tick 3: 0 running, 1 success, 0 failure
tick 4: 1 running, 0 success, 0 failure
total over 4 ticks × 1 agent: 3 running, 1 success, 0 failure
"
    );
    // Only the default stand-in that shapes the tree is worth a warning.
    assert_eq!(
        stderr(&output),
        "warning: Throttle: a decorator that returns its child's status (a stand-in; choose \
         what it runs as with --stand-ins)\n"
    );
}

#[test]
fn a_key_read_as_two_declared_types_names_both_elements() {
    let output = canopy(&["check", "--model", MODEL, MISWIRED]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "{MISWIRED}:8:9: <Drive>: port \"route\" wants key \"{{goal}}\" to hold \
             geometry::Route, but it holds geometry::Pose since its first use at \
             {MISWIRED}:6:11: <PlanRoute>\n"
        )
    );
}

#[test]
fn rules_must_name_declared_types_and_fit_them() {
    let dir = std::env::temp_dir().join(format!("canopy-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let typo = rules("typo.json", r#"{"Drvie": "Failure"}"#);
    let output = canopy(&["check", "--model", MODEL, "--stand-ins", &typo, TREE]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "{typo}:1:2: \"Drvie\" is not declared in the node model (did you mean \"Drive\"?)\n"
        )
    );
    let misfit = rules("misfit.json", r#"{"Throttle": "Fallback"}"#);
    let output = canopy(&["check", "--model", MODEL, "--stand-ins", &misfit, TREE]);
    assert_eq!(
        stderr(&output),
        format!(
            "{misfit}:1:2: \"Throttle\" is a decorator, which takes one of PassThrough, \
             Inverter, ForceSuccess, ForceFailure\n"
        )
    );
    let output = canopy(&["check", "--stand-ins", &misfit, TREE]);
    assert_eq!(output.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_models_own_wait_replaces_canopys() {
    // The rover's Wait takes wait_duration; canopy's takes ticks.
    let dir = std::env::temp_dir().join(format!("canopy-wait-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tree = dir.join("pause.xml");
    std::fs::write(
        &tree,
        "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Pause\"><Wait wait_duration=\"2.5\"/></BehaviorTree>\n</root>\n",
    )
    .unwrap();
    let tree = tree.to_string_lossy().into_owned();
    assert_eq!(success(&["check", "--model", MODEL, &tree]), "ok\n");
    assert_eq!(
        stderr(&canopy(&["check", &tree])),
        format!(
            "{tree}:2:28: <Wait>: unknown parameter \"wait_duration\" for Wait; it takes: ticks\n"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_models_own_wait_leaves_sleep_running_as_canopys() {
    // The rover's model declares Wait, as Nav2's does: <Sleep> still runs
    // as canopy's Wait (aside as canopy_Wait), <Wait> as the model's.
    let dir = std::env::temp_dir().join(format!("canopy-sleep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tree = dir.join("nap.xml");
    std::fs::write(
        &tree,
        "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Nap\">\n    <Sequence>\n      \
         <Sleep msec=\"200\"/>\n      <Wait wait_duration=\"2.5\"/>\n    </Sequence>\n  \
         </BehaviorTree>\n</root>\n",
    )
    .unwrap();
    let tree = tree.to_string_lossy().into_owned();
    assert_eq!(success(&["check", "--model", MODEL, &tree]), "ok\n");
    assert_eq!(
        success(&["print", "--model", MODEL, &tree]),
        "Sequence\n├── Sleep  canopy_Wait(ticks=2)\n└── Wait(wait_duration=2.5)\n"
    );
    assert_eq!(
        success(&["run", "--model", MODEL, &tree, "--ticks", "3"]),
        "tick 1: 1 running, 0 success, 0 failure\ntick 2: 1 running, 0 success, 0 failure\n\
         tick 3: 0 running, 1 success, 0 failure\ntotal over 3 ticks × 1 agent: 2 running, 1 \
         success, 0 failure\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn model_writes_the_palette_that_model_reads_back() {
    // The crowd demo's node types, as a node model.
    let palette = success(&["model", "--types", "crowd"]);
    assert!(palette.starts_with(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\">\n  <TreeNodesModel>\n"
    ));
    assert!(
        palette.contains("    <Condition ID=\"Crowded\">\n"),
        "{palette}"
    );
    let dir = std::env::temp_dir().join(format!("canopy-palette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("crowd_nodes.xml");
    std::fs::write(&file, &palette).unwrap();
    let file = file.to_string_lossy().into_owned();
    // Read back as stand-ins, it is the same palette.
    let again = success(&["model", "--model", &file]);
    let read = |text: &str| canopy_btcpp::NodeModel::read_str(text, "m.xml").unwrap();
    assert_eq!(read(&again), read(&palette));
    // A tree of the crowd's node types checks with the stand-ins, without
    // the crowd's code.
    let tree = dir.join("crowd_nodes_tree.json");
    std::fs::write(
        &tree,
        r#"{"tree": {"type": "Selector", "children": [
            {"type": "Crowded", "at_least": 3},
            {"type": "Wander", "speed": 0.5}
        ]}}"#,
    )
    .unwrap();
    let tree = tree.to_string_lossy().into_owned();
    assert_eq!(success(&["check", "--model", &file, &tree]), "ok\n");
    // The demo's own tree also weighs its choices with the crowd's
    // scorers, which a node model does not declare: named, not guessed.
    let output = canopy(&["check", "--model", &file, "examples/trees/crowd.json"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no scorer is registered as \"hunger\""),
        "{}",
        stderr(&output)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
