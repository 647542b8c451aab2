//! Machines loaded from files: exact errors, the example machines running
//! exactly as their code-built twins, snapshots across the two, and bounds
//! on hostile files.

use std::path::PathBuf;
use std::sync::Arc;

use canopy_core::{Builder, Ctx, Status};
use canopy_data::{Format, MAX_FILE_BYTES, Params, Registry};
use canopy_fsm::{FsmAgent, Hooks, MAX_DEPTH, Machine, MachineBuilder, MachineRegistry, TreeState};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    ToJump,
    Move,
    Jump,
    Land,
    Attack,
    Stop,
    Done,
    Alarm,
    Won,
}

#[derive(Default)]
struct Player {
    log: Vec<String>,
    airborne: u32,
}

type H = Hooks<Player, (), Input>;

fn printing(name: String) -> H {
    let (n1, n2, n3) = (name.clone(), name.clone(), name);
    H::new()
        .on_enter(move |cx: &mut Ctx<Player, ()>| cx.agent.log.push(format!("enter {n1}")))
        .on_update(move |cx| {
            cx.agent.log.push(format!("update {n2}"));
            None
        })
        .on_exit(move |cx| cx.agent.log.push(format!("exit {n3}")))
}

/// In the air, landing after a while.
#[derive(Params)]
struct AirborneParams {
    /// Ticks before landing.
    #[param(range = 1..)]
    land_after: u32,
}

fn airborne(land_after: u32) -> H {
    H::new()
        .on_enter(|cx: &mut Ctx<Player, ()>| {
            cx.agent.airborne = 0;
            cx.agent.log.push("enter Jump".into());
        })
        .on_update(move |cx| {
            cx.agent.airborne += 1;
            cx.agent
                .log
                .push(format!("update Jump (airborne {})", cx.agent.airborne));
            (cx.agent.airborne == land_after).then_some(Input::Land)
        })
        .on_exit(|cx| cx.agent.log.push("exit Jump".into()))
}

fn registry() -> MachineRegistry<Player, (), Input> {
    let mut r = MachineRegistry::new(Registry::new());
    r.state_type("Printing", |state| {
        let name = state
            .get("name")
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        Ok(printing(name.to_string()))
    });
    r.state("Airborne", |p: AirborneParams| airborne(p.land_after));
    use Input::*;
    for (name, t) in [
        ("ToJump", ToJump),
        ("Move", Move),
        ("Jump", Jump),
        ("Land", Land),
        ("Attack", Attack),
        ("Stop", Stop),
        ("Done", Done),
        ("Alarm", Alarm),
        ("Won", Won),
    ] {
        r.trigger(name, t);
    }
    r
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/machines")
        .join(name)
}

fn load_error(text: &str) -> String {
    registry()
        .load_str(text, Format::Json, "m.json")
        .unwrap_err()
        .to_string()
}

// ---- exact errors ----

#[test]
fn an_unknown_state_type_is_named_with_its_place_and_a_suggestion() {
    let text = r#"{"initial": "Idle", "states": [
  {"name": "Idle", "type": "Printing"},
  {"name": "Air", "type": "Airbone", "land_after": 2}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:3:5: machine/states[1] (name \"Air\"): unknown state type \"Airbone\" (did you mean \"Airborne\"?)"
    );
}

#[test]
fn an_unknown_trigger_is_named_with_its_transition() {
    let text = r#"{"initial": "Idle", "states": [{"name": "Idle"}, {"name": "Air"}],
 "transitions": [{"from": "Idle", "trigger": "Jmup", "to": "Air"}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:2:20: machine/transitions[0]: unknown trigger \"Jmup\" (did you mean \"Jump\"?)"
    );
}

#[test]
fn a_transition_to_a_missing_state_is_refused() {
    let text = r#"{"initial": "Idle", "states": [{"name": "Idle"}, {"name": "Walk"}],
 "transitions": [{"from": "Idle", "trigger": "Move", "to": "Wakl"}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:2:20: machine/transitions[0]: no state named \"Wakl\" (did you mean \"Walk\"?)"
    );
}

#[test]
fn a_state_name_declared_twice_even_at_another_level_is_refused() {
    let text = r#"{"initial": "Move", "states": [
  {"name": "Move", "initial": "Walk", "states": [{"name": "Walk"}]},
  {"name": "Walk"}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:3:5: machine/states[1] (name \"Walk\"): state \"Walk\" is declared twice (first at machine/states[0]/states[0])"
    );
}

#[test]
fn a_state_type_refusing_its_parameters_says_why() {
    let text =
        r#"{"initial": "Air", "states": [{"name": "Air", "type": "Airborne", "land_after": 0}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:1:33: machine/states[0] (name \"Air\"): state type \"Airborne\": parameter \"land_after\" must be at least 1, got 0"
    );
}

#[test]
fn a_state_types_declared_parameters_are_checked_as_a_tree_nodes() {
    let state = |fields: &str| {
        format!(
            r#"{{"initial": "Air", "states": [{{"name": "Air", "type": "Airborne"{fields}}}]}}"#
        )
    };
    let at = "m.json:1:33: machine/states[0] (name \"Air\"): state type \"Airborne\": ";
    assert_eq!(
        load_error(&state(r#", "land_aftr": 2"#)),
        format!(
            "{at}unknown parameter \"land_aftr\" for Airborne (did you mean \"land_after\"?); it takes: land_after"
        )
    );
    assert_eq!(
        load_error(&state("")),
        format!("{at}missing parameter \"land_after\" (integer ≥ 1, required)")
    );
    assert_eq!(
        load_error(&state(r#", "land_after": "soon""#)),
        format!("{at}parameter \"land_after\" must be an integer, got string \"soon\"")
    );
}

/// A machine nested `levels` deep: each state holds the next level.
fn nested(levels: usize) -> String {
    let mut text = String::from(r#"{"name": "S0"}"#);
    for level in 1..levels {
        text = format!(
            r#"{{"name": "S{level}", "initial": "S{}", "states": [{text}]}}"#,
            level - 1
        );
    }
    format!(r#"{{"initial": "S{}", "states": [{text}]}}"#, levels - 1)
}

#[test]
fn states_nested_deeper_than_the_limit_are_refused_and_the_limit_itself_loads() {
    let machine = registry()
        .load_str(&nested(MAX_DEPTH), Format::Json, "m.json")
        .unwrap();
    assert_eq!(machine.depth(), MAX_DEPTH);
    let err = load_error(&nested(MAX_DEPTH + 1));
    let path = format!("m.json:1:1411: machine{}", "/states[0]".repeat(MAX_DEPTH));
    assert_eq!(
        err,
        format!("{path} (name \"S1\"): states nest deeper than 32 levels")
    );
}

#[test]
fn brackets_nested_past_the_reader_limit_are_refused_by_the_reader() {
    let text = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_eq!(
        load_error(&text),
        "m.json:1:128: nested more than 128 brackets deep; build deeper trees from subtrees"
    );
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_it_is_parsed() {
    let path = std::env::temp_dir().join(format!("canopy-fsm-big-{}.json", std::process::id()));
    let big = vec![b' '; MAX_FILE_BYTES as usize + 1];
    std::fs::write(&path, big).unwrap();
    let err = registry().load_file(&path).unwrap_err().to_string();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        err,
        format!(
            "{}: the file is 16777217 bytes, more than the limit of 16777216",
            path.display()
        )
    );
}

#[test]
fn a_state_with_more_transitions_than_the_limit_is_refused_at_the_first_past_it() {
    use canopy_fsm::MAX_TRANSITIONS_PER_STATE;
    // Every trigger is registered: only the count is wrong.
    let transition = r#"{"from": "Idle", "trigger": "Move", "to": "Idle"}"#;
    let others =
        vec![r#"{"from": "Idle", "trigger": "Jump", "to": "Idle"}"#; MAX_TRANSITIONS_PER_STATE];
    let mut list = vec![transition];
    list.extend(others);
    let text = format!(
        r#"{{"initial": "Idle", "states": [{{"name": "Idle"}}], "transitions": [{}]}}"#,
        list.join(",")
    );
    let started = std::time::Instant::now();
    assert_eq!(
        load_error(&text),
        format!(
            "m.json:1:{}: machine/transitions[{MAX_TRANSITIONS_PER_STATE}]: state \"Idle\" has \
             more than {MAX_TRANSITIONS_PER_STATE} transitions",
            // 1-based, at the first field's name.
            text.rfind(r#"{"from""#).unwrap() + 3
        )
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn a_machine_with_many_states_loads_in_one_pass() {
    let states: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"name": "S{i}"}}"#))
        .collect();
    let text = format!(r#"{{"initial": "S0", "states": [{}]}}"#, states.join(","));
    let machine = registry().load_str(&text, Format::Json, "m.json").unwrap();
    assert_eq!(machine.len(), 20_000);
}

// ---- the examples, against their code-built twins ----

/// What an agent did over a script of inputs: the hooks' log, then per
/// frame the input's fate, the update's status and the active path.
fn trace(machine: &Machine<Player, (), Input>, script: &[Option<Input>]) -> Vec<String> {
    let (mut player, mut agent) = (Player::default(), FsmAgent::new(machine));
    agent.start(machine, &mut player, &());
    let mut frames = Vec::new();
    for input in script {
        let taken = input.map(|i| agent.send(machine, i, &mut player, &()));
        let status = agent.update(machine, &mut player, &());
        let path: Vec<&str> = agent.active().iter().map(|&s| machine.name(s)).collect();
        frames.push(format!("{taken:?} {status:?} {}", path.join("/")));
    }
    player.log.extend(frames);
    player.log
}

#[test]
fn the_player_fsm_file_runs_as_the_code_built_machine() {
    let mut b = MachineBuilder::new();
    b.state("Idle", printing("Idle".into()));
    b.state("Jump", printing("Jump".into()));
    b.transition("Idle", Input::ToJump, "Jump");
    b.start("Idle");
    let code = b.build().unwrap();
    let data = registry().load_file(example("player_fsm.json")).unwrap();
    let script = [None, Some(Input::ToJump), None, Some(Input::ToJump)];
    let expected = trace(&code, &script);
    assert_eq!(trace(&data, &script), expected);
    assert_eq!(
        expected[..4],
        ["enter Idle", "update Idle", "exit Idle", "enter Jump"]
    );
    assert_eq!(data.display().to_string(), code.display().to_string());
}

fn player_hfsm_in_code() -> Machine<Player, (), Input> {
    let mut moving = MachineBuilder::new();
    moving.state("Walk", printing("Walk".into()));
    moving.state("Jump", airborne(2));
    moving
        .transition("Walk", Input::Jump, "Jump")
        .transition("Jump", Input::Land, "Walk");
    moving.start("Walk");
    let mut b = MachineBuilder::new();
    b.state("Idle", printing("Idle".into()));
    b.state("Move", printing("Move".into()))
        .child_machine(moving);
    b.state("Attack", printing("Attack".into()));
    b.transition("Idle", Input::Move, "Move")
        .transition("Move", Input::Stop, "Idle")
        .transition("Move", Input::Attack, "Attack")
        .transition("Attack", Input::Done, "Idle");
    b.start("Idle");
    b.build().unwrap()
}

const HFSM_SCRIPT: [Option<Input>; 9] = [
    None,
    Some(Input::Move),
    Some(Input::Jump),
    None,
    None,
    Some(Input::Jump),
    Some(Input::Attack),
    Some(Input::Land),
    Some(Input::Done),
];

#[test]
fn the_player_hfsm_file_runs_as_the_code_built_machine() {
    let code = player_hfsm_in_code();
    let data = registry().load_file(example("player_hfsm.ron")).unwrap();
    let expected = trace(&code, &HFSM_SCRIPT);
    assert_eq!(trace(&data, &HFSM_SCRIPT), expected);
    assert!(expected.contains(&"update Jump (airborne 2)".to_string()));
    assert_eq!(expected.last().unwrap(), "Some(true) Running Idle");
    assert_eq!(data.fingerprint(), code.fingerprint());
}

fn guard_in_code() -> Machine<Player, (), Input> {
    let b = Builder::<Player, ()>::new();
    let patrol = b
        .build(b.sequence("patrol", [b.wait("to gate", 2), b.wait("to tower", 3)]))
        .unwrap();
    let b = Builder::<Player, ()>::new();
    let fight = b
        .build(b.sequence("fight", [b.wait("aim", 1), b.wait("fire", 1)]))
        .unwrap();
    let mut m = MachineBuilder::new();
    m.tree_state(
        "Patrol",
        TreeState::new(Arc::new(patrol)).on_success(Input::Done),
    );
    m.tree_state(
        "Fight",
        TreeState::new(Arc::new(fight)).on_success(Input::Won),
    );
    m.state("Rest", printing("Rest".into())).succeeds();
    m.transition("Patrol", Input::Alarm, "Fight")
        .transition("Fight", Input::Won, "Patrol")
        .transition("Patrol", Input::Done, "Rest");
    m.start("Patrol");
    m.build().unwrap()
}

#[test]
fn the_guard_hybrid_file_runs_its_trees_as_the_code_built_machine() {
    let code = guard_in_code();
    let data = registry().load_file(example("guard_hybrid.json")).unwrap();
    let mut script = vec![None; 14];
    script[2] = Some(Input::Alarm);
    let expected = trace(&code, &script);
    assert_eq!(trace(&data, &script), expected);
    assert_eq!(expected.last().unwrap(), "None Success Rest");
    assert!(expected.contains(&"Some(true) Running Fight".to_string()));
}

// ---- snapshots and reload ----

#[test]
fn a_snapshot_of_a_code_built_agent_restores_into_the_loaded_machine() {
    let code = player_hfsm_in_code();
    let data = registry().load_file(example("player_hfsm.ron")).unwrap();
    let (mut player, mut agent) = (Player::default(), FsmAgent::new(&code));
    agent.start(&code, &mut player, &());
    for input in [Input::Move, Input::Jump] {
        agent.send(&code, input, &mut player, &());
    }
    agent.update(&code, &mut player, &());
    let bytes = agent.snapshot(&code).to_bytes();

    let snapshot = canopy_fsm::FsmSnapshot::from_bytes(&bytes).unwrap();
    let mut reloaded = FsmAgent::restore(&data, &snapshot).unwrap();
    assert!(reloaded.is_in(&data, "Jump"));
    // One more update lands: the airborne count lives in the player.
    reloaded.update(&data, &mut player, &());
    assert!(reloaded.is_in(&data, "Walk"));
}

#[test]
fn a_saved_crowd_of_a_loaded_hybrid_restores_and_damaged_bytes_are_errors() {
    use canopy_fsm::{FsmRestoreError, restore_crowd, save_crowd};
    let machine = registry().load_file(example("guard_hybrid.json")).unwrap();
    let mut players: Vec<Player> = (0..3).map(|_| Player::default()).collect();
    let mut agents: Vec<FsmAgent> = (0..3).map(|i| FsmAgent::with_id(&machine, i)).collect();
    for (agent, player) in agents.iter_mut().zip(&mut players) {
        agent.update(&machine, player, &());
    }
    agents[1].send(&machine, Input::Alarm, &mut players[1], &());
    let bytes = save_crowd(&machine, &agents);

    let mut back = restore_crowd(&machine, &bytes, 3).unwrap();
    let where_: Vec<&str> = back.iter().map(|a| machine.name(a.active()[0])).collect();
    assert_eq!(where_, ["Patrol", "Fight", "Patrol"]);
    // The patrol tree carries on where it was: both copies agree from here.
    for _ in 0..8 {
        for ((a, b), p) in agents.iter_mut().zip(&mut back).zip(&mut players) {
            assert_eq!(a.update(&machine, p, &()), b.update(&machine, p, &()));
            assert_eq!(a.active(), b.active());
        }
    }

    assert_eq!(
        restore_crowd(&machine, &bytes, 2).unwrap_err(),
        FsmRestoreError::TooManyAgents { found: 3, limit: 2 }
    );
    assert_eq!(
        restore_crowd(&machine, &bytes[..bytes.len() - 1], 3).unwrap_err(),
        FsmRestoreError::Length
    );
    // A count of four billion agents in ten bytes: refused before any is made.
    let mut huge = bytes[..6].to_vec();
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        restore_crowd(&machine, &huge, u32::MAX).unwrap_err(),
        FsmRestoreError::Length
    );
    assert_eq!(
        restore_crowd(&machine, b"CNFM", 3).unwrap_err(),
        FsmRestoreError::NotASnapshot
    );
}

#[test]
fn a_reloaded_file_restores_an_agent_and_an_edited_file_refuses_it() {
    let first = registry().load_file(example("player_hfsm.ron")).unwrap();
    let (mut player, mut agent) = (Player::default(), FsmAgent::new(&first));
    agent.start(&first, &mut player, &());
    agent.send(&first, Input::Move, &mut player, &());
    let snapshot = agent.snapshot(&first);

    let reloaded = registry().load_file(example("player_hfsm.ron")).unwrap();
    let again = FsmAgent::restore(&reloaded, &snapshot).unwrap();
    let path: Vec<&str> = again.active().iter().map(|&s| reloaded.name(s)).collect();
    assert_eq!(path, ["Move", "Walk"]);

    let text = std::fs::read_to_string(example("player_hfsm.ron")).unwrap();
    let edited = text.replace("(name: \"Attack\", type: \"Printing\"),", "");
    let edited = edited.replace(
        "    (from: \"Move\", trigger: \"Attack\", to: \"Attack\"),\n",
        "",
    );
    let edited = edited.replace(
        "    (from: \"Attack\", trigger: \"Done\", to: \"Idle\"),\n",
        "",
    );
    let changed = registry()
        .load_str(&edited, Format::Ron, "edited.ron")
        .unwrap();
    assert_eq!(changed.len(), 4);
    assert!(FsmAgent::restore(&changed, &snapshot).is_err());
}

#[test]
fn a_final_state_in_a_file_ends_the_machine() {
    let text = r#"{"initial": "Try", "states": [{"name": "Try"}, {"name": "Won", "final": "success"}],
        "transitions": [{"from": "Try", "trigger": "Done", "to": "Won"}]}"#;
    let m = registry().load_str(text, Format::Json, "m.json").unwrap();
    let (mut p, mut agent) = (Player::default(), FsmAgent::new(&m));
    assert_eq!(agent.update(&m, &mut p, &()), Status::Running);
    agent.send(&m, Input::Done, &mut p, &());
    assert_eq!(agent.update(&m, &mut p, &()), Status::Success);
}

#[test]
fn a_wrong_node_in_an_inline_tree_is_reported_inside_its_state() {
    let text = r#"{"initial": "Patrol", "states": [
  {"name": "Patrol", "tree": {"tree": {"type": "Wiat", "ticks": 2}}}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:2:5: machine/states[0] (name \"Patrol\"): its tree: m.json:2:41: tree (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)"
    );
}

#[test]
fn a_missing_tree_file_is_reported_inside_its_state() {
    let text = r#"{"initial": "Patrol", "states": [{"name": "Patrol", "tree": "no/such.json"}]}"#;
    let err = load_error(text);
    assert!(
        err.starts_with("m.json:1:36: machine/states[0] (name \"Patrol\"): its tree: no/such.json: cannot read: "),
        "{err}"
    );
}

#[test]
fn an_unknown_on_success_trigger_is_named_with_its_state() {
    let text = r#"{"initial": "Patrol", "states": [
  {"name": "Patrol", "on_success": "Wno", "tree": {"tree": {"type": "Wait", "ticks": 2}}}]}"#;
    assert_eq!(
        load_error(text),
        "m.json:2:5: machine/states[0] (name \"Patrol\"): unknown trigger \"Wno\" (did you mean \"Won\"?)"
    );
}

#[test]
fn a_whole_machine_error_from_the_builder_names_the_machine() {
    let text = r#"{"initial": "Nowhere", "states": [{"name": "Idle"}]}"#;
    let expected = {
        let mut b = MachineBuilder::<Player, (), Input>::new();
        b.state("Idle", H::new());
        b.start("Nowhere");
        b.build().unwrap_err().to_string()
    };
    assert_eq!(load_error(text), format!("m.json:1:3: machine: {expected}"));
}

#[test]
fn a_machine_with_many_transitions_loads_and_a_duplicate_one_is_refused() {
    let transitions: Vec<String> = (0..canopy_fsm::MAX_TRANSITIONS_PER_STATE)
        .map(|_| r#"{"from": "A", "trigger": "Move", "to": "B"}"#.to_string())
        .collect();
    let text = format!(
        r#"{{"initial": "A", "states": [{{"name": "A"}}, {{"name": "B"}}], "transitions": [{}]}}"#,
        transitions.join(",")
    );
    assert_eq!(
        load_error(&text),
        "m.json:1:3: machine: state \"A\" has two transitions on trigger Move"
    );
}

#[test]
fn a_ron_file_reports_positions_too() {
    let err = registry()
        .load_str(
            "(initial: \"Idle\", states: [\n  (name: \"Idle\", type: \"Printng\")])",
            Format::Ron,
            "m.ron",
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "m.ron:2:4: machine/states[0] (name \"Idle\"): unknown state type \"Printng\" (did you mean \"Printing\"?)"
    );
    assert_eq!(err.path(), "machine/states[0]");
    assert!(matches!(
        err.problem(),
        canopy_fsm::MachineProblem::UnknownStateType { type_name, .. } if type_name == "Printng"
    ));
}

mod damaged_files {
    use super::*;
    use proptest::prelude::*;

    /// The example file's bytes cut at `at` for `len` bytes, with `insert`
    /// put there (the cut may split a character: invalid UTF-8 is refused).
    fn damaged(text: &[u8], at: usize, len: usize, insert: &str) -> Vec<u8> {
        let at = at % (text.len() + 1);
        let end = (at + len).min(text.len());
        [&text[..at], insert.as_bytes(), &text[end..]].concat()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn a_damaged_machine_file_loads_or_is_refused_with_a_message_naming_it(
            ron in any::<bool>(),
            at in 0usize..2000,
            len in 0usize..40,
            insert in "[\\[\\]{}(),:\"a-zA-Z0-9 ]{0,12}",
        ) {
            let (name, format) = if ron {
                ("player_hfsm.ron", Format::Ron)
            } else {
                ("guard_hybrid.json", Format::Json)
            };
            let text = std::fs::read(example(name)).unwrap();
            let bytes = damaged(&text, at, len, &insert);
            let base = example("");
            if let Err(e) = registry().load_bytes(&bytes, format, "d", &base) {
                prop_assert!(e.to_string().starts_with("d"), "{e}");
                prop_assert_eq!(e.file(), "d");
            }
        }
    }
}

#[test]
fn a_tree_file_outside_the_machine_files_directory_is_refused() {
    for file in ["../secret.json", "/etc/passwd", "trees/../../x.json"] {
        let text = format!(r#"{{"initial": "P", "states": [{{"name": "P", "tree": "{file}"}}]}}"#);
        assert_eq!(
            load_error(&text),
            "m.json:1:31: machine/states[0] (name \"P\"): a tree file must be named by a relative path that stays beside the machine file (no \"..\"); allow others with MachineRegistry::trees_outside, or --includes-outside"
        );
    }
}

#[test]
fn a_file_with_more_states_than_the_limit_is_refused_at_the_first_one_over() {
    let states: Vec<String> = (0..=canopy_fsm::MAX_STATES)
        .map(|i| format!(r#"{{"name": "S{i}"}}"#))
        .collect();
    let prefix = r#"{"initial": "S0", "states": ["#;
    let text = format!("{prefix}{}]}}", states.join(","));
    let last = canopy_fsm::MAX_STATES;
    let before: usize = states[..last].iter().map(|s| s.len() + 1).sum();
    let column = prefix.len() + before + 3; // past `{"`, counted from 1
    assert_eq!(
        load_error(&text),
        format!(
            "m.json:1:{column}: machine/states[{last}] (name \"S{last}\"): more than 32768 states"
        )
    );
}
