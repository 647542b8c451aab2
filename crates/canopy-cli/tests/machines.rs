//! State machine files through the command: `check`, `print`, `dot` and
//! `run` on the repository's machines (`examples/machines/`), with the
//! stock `canopy` (stand-in states) and with a game's own (state types and
//! triggers registered through `Cli::machines`); bad and hostile machine
//! files, with their exact errors and exit codes.
//!
//! Outputs read by people and Graphviz are golden files
//! (`UPDATE_GOLDEN=1 cargo test -p canopy-cli --test machines`).

mod common;

use canopy_cli::Cli;
use canopy_core::{Ctx, Status, Ticket};
use canopy_data::{Params, Registry};
use canopy_fsm::Hooks;
use common::{canopy, golden, root, stderr, stdout, success};

const HFSM: &str = "examples/machines/player_hfsm.ron";
const HYBRID: &str = "examples/machines/guard_hybrid.json";
const FSM: &str = "examples/machines/player_fsm.json";
const FIXTURES: &str = "crates/canopy-cli/tests/fixtures/machines";

/// Run the stock `canopy`, expect exit code `code`: stdout, stderr.
fn failing(args: &[&str], code: i32) -> (String, String) {
    let output = canopy(args);
    assert_eq!(output.status.code(), Some(code), "{args:?}");
    (stdout(&output), stderr(&output))
}

#[test]
fn check_lists_the_state_types_and_triggers_a_stock_canopy_stands_in_for() {
    let stand_in =
        "ok (structure only: no state types are registered, so states stand in for theirs)\n";
    assert_eq!(
        success(&["check", HFSM]),
        format!(
            "{stand_in}state types: Airborne, Printing\n\
             triggers: Attack, Done, Jump, Land, Move, Stop\n"
        )
    );
    assert_eq!(
        success(&["check", HYBRID]),
        format!("{stand_in}state types: Printing\ntriggers: Alarm, Done, Won\n")
    );
    assert_eq!(
        success(&["check", FSM]),
        format!("{stand_in}state types: Printing\ntriggers: ToJump\n")
    );
}

#[test]
fn a_tree_file_beside_the_machines_is_still_a_tree() {
    // patrol.json has a top-level "tree": the tree check, not the machine's.
    assert_eq!(success(&["check", "examples/machines/patrol.json"]), "ok\n");
}

#[test]
fn print_outlines_each_example_machine() {
    golden("machine_player_fsm.txt", &success(&["print", FSM]));
    golden("machine_player_hfsm.txt", &success(&["print", HFSM]));
    golden("machine_guard_hybrid.txt", &success(&["print", HYBRID]));
}

#[test]
fn print_shows_the_hierarchy_marks_and_transitions() {
    assert_eq!(
        success(&["print", HFSM]),
        "Idle  [start, Printing]  Move → Move\n\
         Move  [Printing]  Stop → Idle, Attack → Attack\n\
         ├── Walk  [start, Printing]  Jump → Jump\n\
         └── Jump  [Airborne]  Land → Walk\n\
         Attack  [Printing]  Done → Idle\n"
    );
}

#[test]
fn dot_draws_states_as_nodes_and_child_machines_as_clusters() {
    let dot = success(&["dot", HFSM]);
    golden("machine_player_hfsm.dot", &dot);
    assert!(dot.contains("  subgraph cluster_1 {\n    label=\"Move\\nPrinting\";\n"));
    assert!(dot.contains("  s0 -> s1 [label=\"Move\", lhead=cluster_1];\n"));
    assert!(dot.contains("  s1 -> s0 [label=\"Stop\", ltail=cluster_1];\n"));
    golden("machine_guard_hybrid.dot", &success(&["dot", HYBRID]));
}

#[test]
fn run_ticks_the_hybrid_guard_through_its_trees_and_sent_triggers() {
    let out = success(&[
        "run", HYBRID, "--ticks", "12", "--agents", "3", "--send", "3:Alarm",
    ]);
    golden("machine_guard_run.txt", &out);
    // The alarm at tick 3 interrupts the patrol; the fight's two waits of
    // one tick are won on its third update (tick 5); the patrol starts over
    // at tick 6 and is done on its sixth update (tick 11): Rest, a final
    // state that succeeds.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[2], "tick  3: sent Alarm to 3 agents, 3 took it");
    assert_eq!(
        lines[3],
        "tick  3: 3 running, 0 success, 0 failure  [Fight: 3]"
    );
    assert_eq!(
        lines[4],
        "tick  4: 3 running, 0 success, 0 failure  [Fight: 3]"
    );
    assert_eq!(
        lines[5],
        "tick  5: 3 running, 0 success, 0 failure  [Patrol: 3]"
    );
    assert_eq!(
        lines[10],
        "tick 10: 3 running, 0 success, 0 failure  [Patrol: 3]"
    );
    assert_eq!(
        lines[11],
        "tick 11: 0 running, 3 success, 0 failure  [Rest: 3]"
    );
    assert_eq!(
        lines[13],
        "total over 12 ticks × 3 agents: 30 running, 6 success, 0 failure"
    );
}

#[test]
fn run_refuses_what_only_trees_have_and_triggers_the_machine_lacks() {
    let usage = "\n\nUsage: canopy run [OPTIONS] --ticks <TICKS> <FILE>\n\n\
                 For more information, try '--help'.\n";
    let (_, err) = failing(&["run", HYBRID, "--ticks", "2", "--trace"], 2);
    assert_eq!(
        err,
        format!(
            "error: --trace is for tree files; a state machine file runs with --ticks, \
             --agents, --seed, --send, --save and --restore{usage}"
        )
    );
    let (_, err) = failing(&["run", HYBRID, "--ticks", "2", "--send", "1:Alrm"], 2);
    assert_eq!(
        err,
        format!(
            "error: --send: the machine has no trigger \"Alrm\" (did you mean \"Alarm\"?){usage}"
        )
    );
    let (_, err) = failing(
        &[
            "run",
            "examples/trees/sentry.json",
            "--ticks",
            "1",
            "--send",
            "1:Alarm",
        ],
        2,
    );
    assert_eq!(
        err,
        format!("error: --send is for state machine files; a tree file takes no triggers{usage}")
    );
}

#[test]
fn bad_machine_files_name_the_file_the_place_and_the_problem() {
    let cases = [
        (
            "typo.json",
            "typo.json:4:21: machine/transitions[0]: no state named \"Wlak\" \
             (did you mean \"Walk\"?)",
        ),
        (
            "outside.json",
            "outside.json:1:36: machine/states[0] (name \"Patrol\"): a tree file must be \
             named by a relative path that stays beside the machine file (no \"..\"); allow \
             others with MachineRegistry::trees_outside, or --includes-outside",
        ),
        (
            "bad_tree.json",
            "bad_tree.json:4:7: machine/states[0] (name \"Fight\"): its tree: \
             {dir}/bad_tree.json:4:42: tree (name \"aim\"): unknown node type \"Wiat\" \
             (did you mean \"Wait\"?)",
        ),
    ];
    for (file, message) in cases {
        let path = format!("{FIXTURES}/{file}");
        let expected = format!("{FIXTURES}/{}\n", message.replace("{dir}", FIXTURES));
        for command in ["check", "print", "dot"] {
            let (out, err) = failing(&[command, &path], 1);
            assert_eq!(
                (out.as_str(), err.as_str()),
                ("", expected.as_str()),
                "{command}"
            );
        }
        let (_, err) = failing(&["run", &path, "--ticks", "1"], 1);
        assert_eq!(err, expected);
    }
}

#[test]
fn hostile_names_come_out_escaped_in_every_output() {
    let path = format!("{FIXTURES}/hostile.json");
    assert_eq!(
        success(&["check", &path]),
        "ok (structure only: no state types are registered, so states stand in for theirs)\n\
         state types: Evil\\u{7}\"type\n\
         triggers: Go\\u{1b}]0;title\\u{7}\n"
    );
    assert_eq!(
        success(&["print", &path]),
        "Idle\\u{1b}[31m  [start, Evil\\u{7}\"type]  \
         Go\\u{1b}]0;title\\u{7} → Walk\\u{202e}\\nforged line\n\
         Walk\\u{202e}\\nforged line  [final: Failure]\n"
    );
    let dot = success(&["dot", &path]);
    assert!(dot.contains("  s0 [label=\"Idle\\\\u{1b}[31m\\nEvil\\\\u{7}\\\"type\"];\n"));
    assert!(dot.contains("  s1 [label=\"Walk\\\\u{202e}\\\\nforged line\", peripheries=2];\n"));
    assert!(dot.contains("  s0 -> s1 [label=\"Go\\\\u{1b}]0;title\\\\u{7}\"];\n"));
    let run = success(&[
        "run",
        &path,
        "--ticks",
        "2",
        "--send",
        "2:Go\u{1b}]0;title\u{7}",
    ]);
    assert_eq!(
        run,
        "tick 1: 1 running, 0 success, 0 failure  [Idle\\u{1b}[31m: 1]\n\
         tick 2: sent Go\\u{1b}]0;title\\u{7} to 1 agents, 1 took it\n\
         tick 2: 0 running, 0 success, 1 failure  [Walk\\u{202e}\\nforged line: 1]\n\
         total over 2 ticks × 1 agent: 1 running, 0 success, 1 failure\n"
    );
    for output in [&dot, &run] {
        assert!(!output.contains('\u{1b}') && !output.contains('\u{7}'));
    }
}

#[test]
fn states_nested_past_the_limit_are_refused_before_anything_is_built() {
    let dir = std::env::temp_dir().join(format!("canopy-machines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut machine = String::from("{\"name\": \"S0\"}");
    for level in 1..=40 {
        machine = format!(
            "{{\"name\": \"S{level}\", \"initial\": \"S{}\", \"states\": [{machine}]}}",
            level - 1
        );
    }
    let file = dir.join("deep.json");
    std::fs::write(
        &file,
        format!("{{\"initial\": \"S40\", \"states\": [{machine}]}}"),
    )
    .unwrap();
    let output = canopy(&["check", &file.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.ends_with(&format!(
            ": states nest deeper than {} levels\n",
            canopy_fsm::MAX_DEPTH
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-machines-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A machine of `states` states, each running the tree file `tree.json`.
fn states_naming_one_tree(states: usize) -> String {
    let list: Vec<String> = (0..states)
        .map(|i| format!("{{\"name\": \"S{i}\", \"tree\": \"tree.json\"}}"))
        .collect();
    format!("{{\"initial\": \"S0\", \"states\": [{}]}}", list.join(", "))
}

/// A tree file of a Sequence over `leaves` Waits.
fn tree_of(leaves: usize) -> String {
    let list: Vec<String> = (0..leaves)
        .map(|i| format!("{{\"type\": \"Wait\", \"name\": \"w{i}\", \"ticks\": 1}}"))
        .collect();
    format!(
        "{{\"tree\": {{\"type\": \"Sequence\", \"children\": [{}]}}}}",
        list.join(", ")
    )
}

#[test]
fn print_shows_a_tree_named_by_several_states_once_and_refers_to_it() {
    let dir = scratch("shared-tree");
    std::fs::write(dir.join("tree.json"), tree_of(2)).unwrap();
    let machine = dir.join("m.json");
    std::fs::write(&machine, states_naming_one_tree(3)).unwrap();
    assert_eq!(
        success(&["print", &machine.display().to_string()]),
        "S0  [start, tree tree.json]\n\
         \x20   Sequence\n\
         \x20   ├── w0  Wait(ticks=1)\n\
         \x20   └── w1  Wait(ticks=1)\n\
         S1  [tree tree.json]\n\
         \x20   (the tree printed under S0)\n\
         S2  [tree tree.json]\n\
         \x20   (the tree printed under S0)\n"
    );
    // Twice the states naming a tree twice the size: twice the output
    // (printed under each state, it was four times).
    let printed = |states: usize, leaves: usize| {
        std::fs::write(dir.join("tree.json"), tree_of(leaves)).unwrap();
        std::fs::write(&machine, states_naming_one_tree(states)).unwrap();
        let input = states_naming_one_tree(states).len() + tree_of(leaves).len();
        let output = success(&["print", &machine.display().to_string()]).len();
        (input, output)
    };
    let (small_in, small_out) = printed(500, 500);
    let (large_in, large_out) = printed(1000, 1000);
    let input = large_in as f64 / small_in as f64;
    let output = large_out as f64 / small_out as f64;
    assert!((1.9..2.1).contains(&input), "{input}");
    assert!(
        output < 2.1,
        "{small_out} → {large_out} bytes printed ({output:.2}×)"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_states_tree_file_may_leave_the_machines_directory_only_when_allowed() {
    let dir = scratch("confined");
    std::fs::create_dir_all(dir.join("machines")).unwrap();
    std::fs::write(dir.join("secret.json"), tree_of(1)).unwrap();
    // A link inside the directory that points out of it.
    std::os::unix::fs::symlink(dir.join("secret.json"), dir.join("machines/link.json")).unwrap();
    let machine = dir.join("machines/m.json");
    let shown = machine.display().to_string();
    std::fs::write(
        &machine,
        "{\"initial\": \"S\", \"states\": [{\"name\": \"S\", \"tree\": \"link.json\"}]}",
    )
    .unwrap();
    let expected = format!(
        "{shown}:1:31: machine/states[0] (name \"S\"): the tree file \"link.json\" leaves the \
         directory of the machine file through a symbolic link; canopy reads tree files only \
         inside it (allow others with MachineRegistry::trees_outside, or --includes-outside)\n"
    );
    for command in ["check", "print", "dot"] {
        let (out, err) = failing(&[command, &shown], 1);
        assert_eq!(
            (out.as_str(), err.as_str()),
            ("", expected.as_str()),
            "{command}"
        );
    }
    let (_, err) = failing(&["run", &shown, "--ticks", "1"], 1);
    assert_eq!(err, expected);
    // The same opt-in as XML includes lets it, and `..`, through.
    let print = success(&["print", &shown, "--includes-outside"]);
    assert_eq!(
        print,
        "S  [start, tree link.json]\n    Sequence\n    └── w0  Wait(ticks=1)\n"
    );
    std::fs::write(
        &machine,
        "{\"initial\": \"S\", \"states\": [{\"name\": \"S\", \"tree\": \"../secret.json\"}]}",
    )
    .unwrap();
    assert!(success(&["check", &shown, "--includes-outside"]).starts_with("ok"));
    // A link that stays inside is read, without the opt-in.
    std::fs::write(dir.join("machines/real.json"), tree_of(1)).unwrap();
    std::os::unix::fs::symlink("real.json", dir.join("machines/inside.json")).unwrap();
    std::fs::write(
        &machine,
        "{\"initial\": \"S\", \"states\": [{\"name\": \"S\", \"tree\": \"inside.json\"}]}",
    )
    .unwrap();
    assert!(success(&["check", &shown]).starts_with("ok"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// A game's own `canopy`, with its state types and triggers.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    Move,
    Stop,
    Attack,
    Done,
    Jump,
    Land,
    ToJump,
    Alarm,
    Won,
}

/// A player's updates, counted by its states.
#[derive(Default)]
struct Player {
    airborne: u32,
}

type H = Hooks<Player, (), Input>;

/// The game's command: `Printing` does nothing, `Airborne` lands after
/// `land_after` updates; every trigger by its name.
fn game() -> Cli<Player, ()> {
    Cli::new(Registry::new())
        .agent(|_| Player::default())
        .world(())
        .machines(|m| {
            m.state_type("Printing", |_| Ok(H::new()));
            m.state_type("Airborne", |state| {
                let land_after = state
                    .get("land_after")
                    .and_then(|v| v.as_f64())
                    .filter(|&n| n >= 1.0)
                    .ok_or("\"land_after\" must be a whole number ≥ 1")?
                    as u32;
                Ok(H::new()
                    .on_enter(|cx: &mut Ctx<Player, ()>| cx.agent.airborne = 0)
                    .on_update(move |cx| {
                        cx.agent.airborne += 1;
                        (cx.agent.airborne == land_after).then_some(Input::Land)
                    }))
            });
            for (name, input) in [
                ("Move", Input::Move),
                ("Stop", Input::Stop),
                ("Attack", Input::Attack),
                ("Done", Input::Done),
                ("Jump", Input::Jump),
                ("Land", Input::Land),
                ("ToJump", Input::ToJump),
                ("Alarm", Input::Alarm),
                ("Won", Input::Won),
            ] {
                m.trigger(name, input);
            }
        })
}

/// Run the game's command from the workspace root: code, stdout, stderr.
fn run_game(cli: Cli<Player, ()>, args: &[&str]) -> (u8, String, String) {
    let args: Vec<String> = std::iter::once("game".to_string())
        .chain(args.iter().map(|a| {
            if a.starts_with("examples/") {
                root().join(a).display().to_string()
            } else {
                a.to_string()
            }
        }))
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = cli.run_with(args, &mut out, &mut err);
    let text = |v: Vec<u8>| String::from_utf8(v).unwrap();
    (code, text(out), text(err))
}

#[test]
fn a_games_canopy_checks_machines_with_its_state_types() {
    for file in [HFSM, HYBRID, FSM] {
        assert_eq!(
            run_game(game(), &["check", file]),
            (0, "ok\n".into(), "".into())
        );
    }
}

#[test]
fn a_games_canopy_runs_its_own_states() {
    // Move at tick 1 enters Move/Walk; Jump at tick 2 enters Jump, which
    // lands by itself after two updates (ticks 2 and 3).
    let (code, out, err) = run_game(
        game(),
        &[
            "run", HFSM, "--ticks", "5", "--send", "1:Move", "--send", "2:Jump",
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "tick 1: sent Move to 1 agents, 1 took it\n\
         tick 1: 1 running, 0 success, 0 failure  [Move/Walk: 1]\n\
         tick 2: sent Jump to 1 agents, 1 took it\n\
         tick 2: 1 running, 0 success, 0 failure  [Move/Jump: 1]\n\
         tick 3: 1 running, 0 success, 0 failure  [Move/Walk: 1]\n\
         tick 4: 1 running, 0 success, 0 failure  [Move/Walk: 1]\n\
         tick 5: 1 running, 0 success, 0 failure  [Move/Walk: 1]\n\
         total over 5 ticks × 1 agent: 5 running, 0 success, 0 failure\n"
    );
}

#[test]
fn a_games_canopy_names_state_types_and_triggers_it_does_not_know() {
    let dir = std::env::temp_dir().join(format!("canopy-game-machines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("typo_type.ron");
    std::fs::write(
        &file,
        "(initial: \"Idle\", states: [(name: \"Idle\", type: \"Printng\")], \
         transitions: [(from: \"Idle\", trigger: \"Jmp\", to: \"Idle\")])",
    )
    .unwrap();
    let path = file.display().to_string();
    let (code, out, err) = run_game(game(), &["check", &path]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((code, out.as_str()), (1, ""));
    assert_eq!(
        err,
        format!(
            "{path}:1:29: machine/states[0] (name \"Idle\"): unknown state type \"Printng\" \
             (did you mean \"Printing\"?)\n"
        )
    );
    let (code, _, err) = run_game(game(), &["run", HFSM, "--ticks", "1", "--send", "1:Lnd"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: --send: unknown trigger \"Lnd\" (did you mean \"Land\"?)\n"),
        "{err}"
    );
}

#[test]
fn a_games_canopy_prints_its_triggers() {
    let (code, out, _) = run_game(game(), &["print", HYBRID]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "Patrol  [start, tree patrol.json, success: Done]  Alarm → Fight, Done → Rest\n    \
         patrol  Sequence\n    \
         ├── to gate  Wait(ticks=2)\n    \
         └── to tower  Wait(ticks=3)\n\
         Fight  [tree inline, success: Won]  Won → Patrol\n    \
         fight  Sequence\n    \
         ├── aim  Wait(ticks=1)\n    \
         └── fire  Wait(ticks=1)\n\
         Rest  [Printing, final: Success]\n"
    );
}

#[test]
fn a_tree_state_using_another_types_node_types_gets_the_hint_trees_get() {
    let path = format!("{FIXTURES}/afraid.json");
    let (_, err) = failing(&["check", &path], 1);
    assert_eq!(
        err,
        format!(
            "{path}:5:7: machine/states[1] (name \"Afraid\"): its tree: {path}:5:43: tree \
             (name \"afraid?\"): unknown node type \"NeedAbove\"\n\
             hint: \"NeedAbove\" is one of the crowd demo's node types: add `--types crowd`\n"
        )
    );
    assert_eq!(
        success(&["check", &path, "--types", "crowd"]),
        "ok (structure only: no state types are registered, so states stand in for theirs)\n\
         state types: none\ntriggers: Scare\n"
    );
}

#[test]
fn a_saved_machine_crowd_carries_on_as_if_it_had_never_stopped() {
    let dir = std::env::temp_dir().join(format!("canopy-machine-snap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let snap = dir.join("guard.snap").display().to_string();
    let whole = success(&[
        "run", HYBRID, "--ticks", "12", "--agents", "3", "--send", "3:Alarm",
    ]);
    let first = success(&[
        "run", HYBRID, "--ticks", "4", "--agents", "3", "--send", "3:Alarm", "--save", &snap,
    ]);
    assert!(
        first.ends_with(&format!("saved 3 agents at tick 4 to {snap} (382 bytes)\n")),
        "{first}"
    );
    let rest = success(&["run", HYBRID, "--ticks", "8", "--restore", &snap]);
    let tick_lines = |text: &str, from: &str| -> Vec<String> {
        let at = text.find(from).unwrap();
        text[at..]
            .lines()
            .filter(|l| l.starts_with("tick"))
            .map(String::from)
            .collect()
    };
    assert_eq!(tick_lines(&rest, "tick  5"), tick_lines(&whole, "tick  5"));
    assert!(rest.ends_with("total over 8 ticks × 3 agents: 18 running, 6 success, 0 failure\n"));

    let (_, err) = failing(&["run", HFSM, "--ticks", "1", "--restore", &snap], 1);
    assert!(
        err.starts_with(&format!(
            "{snap}: cannot restore onto {HFSM}: the snapshot was taken of another machine, \
             or another version of this one (fingerprint "
        )),
        "{err}"
    );
    let cut = dir.join("cut.snap");
    let bytes = std::fs::read(&snap).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let cut = cut.display().to_string();
    let (_, err) = failing(&["run", HYBRID, "--ticks", "1", "--restore", &cut], 1);
    assert_eq!(
        err,
        format!(
            "{cut}: cannot restore onto {HYBRID}: the machine snapshot is cut short or too long\n"
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn commands_that_read_only_trees_say_a_machine_file_is_one() {
    for (args, name) in [
        (vec!["bench", FSM, "--agents", "1", "--ticks", "1"], "bench"),
        (vec!["export", "--to", "btcpp", FSM], "export"),
    ] {
        let (out, err) = failing(&args, 1);
        assert_eq!(
            (out.as_str(), err),
            (
                "",
                format!(
                    "{FSM}: a state machine file; `{name}` reads tree files (machine files are \
                     read by check, print, dot and run)\n"
                )
            )
        );
    }
}

/// Asks the path service for a path; Success when it has answered.
#[derive(Params)]
struct FindPath {}

/// A game whose tree states may ask its path service (`FindPath`, an
/// async leaf, counting the requests in the agent's data).
fn pathing_game() -> Cli<u32, ()> {
    let mut trees = Registry::new();
    trees
        .async_action("FindPath", |_: FindPath| {
            |cx: &mut Ctx<u32, ()>, _: Ticket| {
                *cx.agent += 1;
                Status::Running
            }
        })
        .unwrap();
    Cli::new(trees).agent(|_| 0).world(()).machines(|m| {
        m.state_type("Printing", |_| Ok(Hooks::new()));
        m.trigger("Found", ());
    })
}

#[test]
fn run_answers_the_async_leaves_of_tree_states_as_the_game_does() {
    let file = format!("{FIXTURES}/pathing.json");
    let run = |cli: Cli<u32, ()>| {
        let path = root().join(&file).display().to_string();
        let args = ["game", "run", &path, "--ticks", "6"].map(String::from);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cli.run_with(args, &mut out, &mut err);
        assert_eq!((code, String::from_utf8(err).unwrap()), (0, String::new()));
        String::from_utf8(out).unwrap()
    };
    // The service answers a request that has waited 2 ticks: asked at
    // tick 1, answered after tick 3; the path is read on tick 4 and 5
    // (a wait of one tick), and the tree's success moves the agent on.
    assert_eq!(
        run(pathing_game().complete_after(2, Status::Success)),
        "tick 1: 1 running, 0 success, 0 failure  [Plan: 1]\n\
         tick 2: 1 running, 0 success, 0 failure  [Plan: 1]\n\
         tick 3: 1 running, 0 success, 0 failure  [Plan: 1]\n\
         tick 4: 1 running, 0 success, 0 failure  [Plan: 1]\n\
         tick 5: 0 running, 1 success, 0 failure  [Go: 1]\n\
         tick 6: 0 running, 1 success, 0 failure  [Go: 1]\n\
         total over 6 ticks × 1 agent: 4 running, 2 success, 0 failure\n"
    );
    // Unanswered, the request is waited for as long as the run lasts.
    let unanswered = run(pathing_game());
    assert!(
        unanswered.ends_with("total over 6 ticks × 1 agent: 6 running, 0 success, 0 failure\n")
    );
    assert_eq!(unanswered.matches("[Plan: 1]").count(), 6);
}
