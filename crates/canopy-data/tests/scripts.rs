//! Script leaves in tree files: `Eval` and `EvalCondition`, compiled when
//! the file is loaded against the keys its ports make, run each tick.

use canopy_core::{Agent, Ctx, Input, Output, Status, Text};
use canopy_data::{Format, Params, Registry, TreeSource};

/// Counts its calls into an output port; reads how many it may make.
#[derive(Params)]
struct Shoot {
    /// Shots left.
    ammo: Input<i32>,
    /// Shots fired so far.
    fired: Output<u32>,
}

/// Says a line.
#[derive(Params)]
struct Say {
    /// What to say.
    line: Input<Text>,
}

type Me = (u32, Vec<String>);

fn registry() -> Registry<Me, ()> {
    let mut registry = Registry::new();
    registry
        .action("Shoot", |p: Shoot| {
            move |cx: &mut Ctx<Me, ()>| {
                if cx.board.get(&p.ammo) <= 0 {
                    return Status::Failure;
                }
                cx.agent.0 += 1;
                cx.board.set(&p.fired, cx.agent.0);
                Status::Success
            }
        })
        .unwrap();
    registry
        .action("Say", |p: Say| {
            move |cx: &mut Ctx<Me, ()>| {
                let line = cx.board.get(&p.line);
                cx.agent.1.push(line.to_string());
                Status::Success
            }
        })
        .unwrap();
    registry
}

fn load(json: &str) -> Result<canopy_core::Tree<Me, ()>, String> {
    registry()
        .loading(TreeSource::text(json, Format::Json, "fight.json"))
        .load()
        .map_err(|e| e.to_string())
}

#[test]
fn scripts_read_and_write_the_keys_ports_use() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "EvalCondition", "code": "ammo > 0 && fired < 3"},
            {"type": "Shoot", "ammo": "{ammo}", "fired": "{fired}"},
            {"type": "Eval", "code": "ammo -= 1; line := 'shot ' .. (ammo == 0 ? 'last' : 'one')"},
            {"type": "Say", "line": "{line}"}
        ]}}"#,
    )
    .unwrap();
    let slots: Vec<(String, String)> = tree
        .slots()
        .iter()
        .map(|s| (s.key.to_string(), s.ty.name().to_string()))
        .collect();
    let slot = |k: &str, t: &str| (k.to_string(), t.to_string());
    assert_eq!(
        slots,
        [
            slot("ammo", "int"),
            slot("fired", "unsigned int"),
            slot("line", "std::string")
        ]
    );
    let mut agent = Agent::new(&tree);
    agent
        .board_mut(&tree)
        .write(tree.key::<i32>("ammo").unwrap(), 2);
    let mut me: Me = (0, Vec::new());
    let statuses: Vec<Status> = (0..4).map(|_| agent.tick(&tree, &mut me, &())).collect();
    assert_eq!(
        statuses,
        [
            Status::Success,
            Status::Success,
            Status::Failure,
            Status::Failure
        ]
    );
    assert_eq!(me.1, ["shot one", "shot last"]);
    assert_eq!(agent.board(&tree).read(tree.key::<i32>("ammo").unwrap()), 0);
    assert_eq!(
        agent.board(&tree).read(tree.key::<u32>("fired").unwrap()),
        2
    );
    assert_eq!(
        tree.display().to_string(),
        "Sequence\n\
         ├── EvalCondition(code=\"ammo > 0 && fired < 3\")\n\
         ├── Shoot(ammo={ammo}, fired={fired})\n\
         ├── Eval(code=\"ammo -= 1; line := 'shot ' .. (ammo == 0 ? 'last' : 'one')\")\n\
         └── Say(line={line})\n"
    );
}

#[test]
fn a_script_that_faults_fails_its_leaf() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "ammo := ammo / 2"},
            {"type": "Shoot", "ammo": "{ammo}", "fired": "{fired}"}
        ]}}"#,
    )
    .unwrap();
    let mut agent = Agent::new(&tree);
    let ammo = tree.key::<i32>("ammo").unwrap();
    agent.board_mut(&tree).write(ammo, 4);
    let mut me: Me = (0, Vec::new());
    assert_eq!(agent.tick(&tree, &mut me, &()), Status::Success);
    assert_eq!(agent.board(&tree).read(ammo), 2);
    agent.board_mut(&tree).write(ammo, 3);
    // 1.5 does not fit an int: the Eval fails, the key keeps its value.
    assert_eq!(agent.tick(&tree, &mut me, &()), Status::Failure);
    assert_eq!(agent.board(&tree).read(ammo), 3);
}

#[test]
fn a_string_a_script_assigns_to_a_number_key_is_converted_when_it_runs() {
    // As BehaviorTree.CPP: the key's type converts the text when the
    // script runs; text that is no number fails the script's node there.
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "ammo := '3 rounds'"},
            {"type": "Shoot", "ammo": "{ammo}", "fired": "{fired}"},
            {"type": "Eval", "code": "ammo := 'lots'"}
        ]}}"#,
    )
    .unwrap();
    let mut agent = Agent::new(&tree);
    let mut me: Me = (0, Vec::new());
    assert_eq!(agent.tick(&tree, &mut me, &()), Status::Failure);
    assert_eq!(me.0, 1, "Shoot read 3 from '3 rounds'");
    assert_eq!(agent.board(&tree).read(tree.key::<i32>("ammo").unwrap()), 3);
}

#[test]
fn a_key_a_script_makes_is_typed_for_the_ports_after_it() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "greeting := 'hi'"},
            {"type": "Say", "line": "{greeting}"}
        ]}}"#,
    )
    .unwrap();
    let mut me: Me = (0, Vec::new());
    assert_eq!(Agent::new(&tree).tick(&tree, &mut me, &()), Status::Success);
    assert_eq!(me.1, ["hi"]);
}

#[test]
fn script_errors_name_the_node_the_column_and_the_problem() {
    let err = |code: &str| {
        load(&format!(
            r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Shoot", "ammo": "{{ammo}}", "fired": "{{fired}}"}},
            {{"type": "EvalCondition", "code": "{code}"}}
        ]}}}}"#
        ))
        .unwrap_err()
    };
    let at = "fight.json:3:15: tree/children[1] (name \"EvalCondition\"): parameter \"code\": ";
    assert_eq!(
        err("amo > 1"),
        format!("{at}script \"amo > 1\", column 1: unknown key \"amo\" (did you mean \"ammo\"?)")
    );
    assert_eq!(
        err("ammo >"),
        format!("{at}script \"ammo >\", column 6: expected an expression after `>`")
    );
}

#[test]
fn a_condition_behaviortree_cpp_would_throw_on_loads_and_fails_when_it_runs() {
    for code in ["ammo == 'x'", "'x'"] {
        let tree = load(&format!(
            r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Shoot", "ammo": "{{ammo}}", "fired": "{{fired}}"}},
            {{"type": "EvalCondition", "code": "{code}"}}
        ]}}}}"#
        ))
        .unwrap();
        let mut agent = Agent::new(&tree);
        agent
            .board_mut(&tree)
            .write(tree.key::<i32>("ammo").unwrap(), 5);
        assert_eq!(
            agent.tick(&tree, &mut (0, Vec::new()), &()),
            Status::Failure,
            "{code}"
        );
    }
}

#[test]
fn every_script_error_of_a_file_is_reported_when_all_are_asked_for() {
    let errors = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Sequence", "children": [
                {"type": "Eval", "code": "a +"},
                {"type": "Eval", "code": "b"}
            ]}}"#,
            Format::Json,
            "two.json",
        ))
        .errors();
    let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "two.json:2:19: tree/children[0] (name \"Eval\"): parameter \"code\": \
             script \"a +\", column 3: expected an expression after `+`",
            "two.json:3:19: tree/children[1] (name \"Eval\"): parameter \"code\": \
             script \"b\", column 1: unknown key \"b\"",
        ]
    );
}

#[test]
fn a_script_guard_checks_when_entered_and_a_reactive_one_every_tick() {
    let tree = load(
        r#"{"tree": {"type": "EvalGuard", "code": "ammo > 0", "children": [
            {"type": "Sequence", "children": [
                {"type": "Shoot", "ammo": "{ammo}", "fired": "{fired}"},
                {"type": "Eval", "code": "ammo -= 1"}
            ]}
        ]}}"#,
    )
    .unwrap();
    let mut agent = Agent::new(&tree);
    agent
        .board_mut(&tree)
        .write(tree.key::<i32>("ammo").unwrap(), 2);
    let mut me: Me = (0, Vec::new());
    let statuses: Vec<Status> = (0..3).map(|_| agent.tick(&tree, &mut me, &())).collect();
    assert_eq!(
        statuses,
        [Status::Success, Status::Success, Status::Failure]
    );
    assert_eq!(me.0, 2);
    assert_eq!(
        tree.display().to_string(),
        "EvalGuard(code=\"ammo > 0\")\n\
         └── Sequence\n    \
             ├── Shoot(ammo={ammo}, fired={fired})\n    \
             └── Eval(code=\"ammo -= 1\")\n"
    );

    let tree = load(
        r#"{"tree": {"type": "EvalReactiveGuard", "code": "ammo", "children": [
            {"type": "Sequence", "children": [
                {"type": "Shoot", "ammo": "{ammo}", "fired": "{fired}"},
                {"type": "AlwaysRunning"}
            ]}
        ]}}"#,
    )
    .unwrap();
    let mut agent = Agent::new(&tree);
    let ammo = tree.key::<i32>("ammo").unwrap();
    agent.board_mut(&tree).write(ammo, 1);
    let mut me: Me = (0, Vec::new());
    assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running);
    assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running);
    agent.board_mut(&tree).write(ammo, 0);
    assert_eq!(agent.tick(&tree, &mut me, &()), Status::Failure);
}

#[test]
fn a_guards_script_may_not_assign() {
    let err = load(
        r#"{"tree": {"type": "EvalGuard", "code": "ok := true", "children": [
            {"type": "AlwaysSuccess"}
        ]}}"#,
    )
    .unwrap_err();
    assert_eq!(
        err,
        "fight.json:1:12: tree (name \"EvalGuard\"): parameter \"code\": script \"ok := true\", \
         column 1: a guard's condition reads keys; it cannot assign them"
    );
}

#[test]
fn a_hostile_script_in_a_file_is_refused_at_load() {
    // What follows the quoted (and cut) script in the message.
    let problem = |code: &str| {
        let e = load(&format!(
            r#"{{"tree": {{"type": "Eval", "code": "{code}"}}}}"#
        ))
        .unwrap_err();
        let at = "fight.json:1:12: tree (name \"Eval\"): parameter \"code\": script ";
        assert!(e.starts_with(at), "{e}");
        e.rsplit_once(", column ")
            .map(|(_, p)| p.to_string())
            .unwrap()
    };
    assert_eq!(
        problem(&"1;".repeat(2100)),
        "1: the script is 4200 bytes long; scripts hold at most 4096"
    );
    assert_eq!(
        problem(&format!("{}1{}", "(".repeat(100), ")".repeat(100))),
        "65: the expression is nested more than 64 deep"
    );
    assert_eq!(
        problem(&format!("0{}", "+1".repeat(1000))),
        "514: the expression is more than 256 operators deep; split it into statements"
    );
    assert_eq!(
        problem(&"1;".repeat(600)),
        "1025: the script compiles to more than 1024 operations"
    );
    assert_eq!(
        problem(&format!("1e{}", "9".repeat(400))),
        format!(
            "1: number \"1e{}…\" (402 characters) is not a finite number",
            "9".repeat(78)
        )
    );
}

/// Ticks `tree` `n` times on a fresh agent: the statuses, and what was said.
fn run(tree: &canopy_core::Tree<Me, ()>, n: usize) -> (Vec<Status>, Vec<String>) {
    let mut agent = Agent::new(tree);
    let mut me: Me = (0, Vec::new());
    let statuses = (0..n).map(|_| agent.tick(tree, &mut me, &())).collect();
    (statuses, me.1)
}

#[test]
fn eval_around_runs_its_scripts_before_and_after_the_child() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "hp := 12; turns := 0; note := ''"},
            {"type": "Repeat", "times": 4, "children": [
                {"type": "EvalAround", "skip_if": "hp < 10", "on_success": "hp -= 2; note = 'hit'",
                 "post": "turns += 1", "children": [{"type": "Say", "line": "{note}"}]}]},
            {"type": "EvalCondition", "code": "turns == 2 && hp == 8"}]}}"#,
    )
    .unwrap();
    // A cycle per tick: two turns (hp 12 and 10 are not below 10), then
    // two skips, read as Success; the child says the note as it was
    // before the turn's on_success.
    use Status::{Running, Success};
    assert_eq!(
        run(&tree, 4),
        (
            vec![Running, Running, Running, Success],
            vec!["".into(), "hit".into()]
        )
    );
}

#[test]
fn eval_arounds_scripts_are_compiled_with_the_files_keys() {
    let error = load(
        r#"{"tree": {"type": "EvalAround", "while": "hp > 0", "on_halted": "hp := 'low'",
            "children": [{"type": "Wait", "ticks": 1}]}}"#,
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(
        error,
        "fight.json:1:12: tree (name \"EvalAround\"): parameter \"while\": script \"hp > 0\", \
         column 1: unknown key \"hp\""
    );
}

#[test]
fn eval_switch_runs_the_first_true_case_and_changes_case_while_running() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "mode := 0"},
            {"type": "ReactiveSequence", "children": [
                {"type": "Eval", "code": "mode += 1"},
                {"type": "EvalSwitch", "cases": ["mode == 1", "mode == 2"], "children": [
                    {"type": "Wait", "ticks": 5},
                    {"type": "Say", "line": "two"},
                    {"type": "Say", "line": "other"}]}]}]}}"#,
    )
    .unwrap();
    // Tick 1 waits in case 1; tick 2 aborts it for case 2.
    assert_eq!(
        run(&tree, 3),
        (
            vec![Status::Running, Status::Success, Status::Running],
            vec!["two".into()]
        )
    );
}

#[test]
fn eval_loop_takes_one_item_per_run_of_its_child() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "word := ''"},
            {"type": "EvalLoop", "items": ["word = 'a'", "word = 'b'"], "children": [
                {"type": "Say", "line": "{word}"}]}]}}"#,
    )
    .unwrap();
    assert_eq!(
        run(&tree, 4),
        (
            vec![
                Status::Running,
                Status::Running,
                Status::Success,
                Status::Running
            ],
            vec!["a".into(), "b".into(), "a".into()]
        )
    );
}

#[test]
fn eval_loop_takes_each_item_of_its_copy_of_a_queue_string_and_fails_on_an_unreadable_one() {
    let tree = load(
        r#"{"tree": {"type": "Sequence", "children": [
            {"type": "Eval", "code": "q := '3;4;x;5'; n := 0; word := ''"},
            {"type": "EvalLoop", "queue": "q", "value": "n := 0", "item": "whole", "children": [
                {"type": "Eval", "code": "word = q"}]},
            {"type": "Say", "line": "never"}]}}"#,
    )
    .unwrap();
    let mut agent = Agent::new(&tree);
    let mut me: Me = (0, Vec::new());
    let statuses: Vec<Status> = (0..3).map(|_| agent.tick(&tree, &mut me, &())).collect();
    assert_eq!(
        statuses,
        [Status::Running, Status::Running, Status::Failure]
    );
    // The loop takes the items from its own copy of the string, leaving
    // the key as it was (as BehaviorTree.CPP 4.10); "x" is not a whole
    // number, so the loop fails there without running the child
    // (BehaviorTree.CPP throws when it converts such a string on entry).
    let values = agent.board_values(&tree);
    assert_eq!(
        values,
        [
            ("q".to_string(), "\"3;4;x;5\"".to_string()),
            ("n".to_string(), "4".to_string()),
            ("word".to_string(), "\"3;4;x;5\"".to_string()),
        ]
    );
}

#[test]
fn eval_loop_over_a_queue_needs_a_string_key_and_a_value_of_its_items() {
    let error = |queue: &str, value: &str, item: &str| {
        load(&format!(
            r#"{{"tree": {{"type": "Sequence", "children": [
            {{"type": "Eval", "code": "q := '1'; n := 0; word := ''"}},
            {{"type": "EvalLoop", "queue": "{queue}", "value": "{value}", "item": "{item}",
              "children": [{{"type": "Wait", "ticks": 1}}]}}]}}}}"#
        ))
        .map(|_| ())
        .unwrap_err()
    };
    assert_eq!(
        error("n", "n := 0", "whole"),
        "fight.json:3:15: tree/children[1] (name \"EvalLoop\"): parameter \"queue\": script \
         \"n\", column 1: a queue is one key holding a string of items separated by `;`"
    );
    assert_eq!(
        error("q", "word := ''", "bool"),
        "fight.json:3:15: tree/children[1] (name \"EvalLoop\"): parameter \"value\": script \
         \"word := ''\", column 1: each item is assigned to a key holding a bool, as `x := \
         false` does"
    );
}
