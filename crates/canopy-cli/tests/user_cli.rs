//! A game's own `canopy`: the repository's example (`examples/my_canopy.rs`,
//! compiled into this test as a module) run in-process through
//! `Cli::run_with`, its outputs pinned by golden files.

mod common;

#[path = "../../../examples/my_canopy.rs"]
#[allow(dead_code)] // its `main`
mod my_canopy;

use canopy_cli::{Cli, Types};
use canopy_data::Registry;
use common::{golden, root};

/// The example's tree file, as an absolute path.
fn tree() -> String {
    root()
        .join("examples/trees/my_canopy.json")
        .display()
        .to_string()
}

/// Run `cli` with `args`: exit code, stdout, stderr.
fn run<A: Send + 'static, W: Send + Sync + 'static>(
    cli: Cli<A, W>,
    args: &[&str],
) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut all = vec!["my_canopy"];
    all.extend(args);
    let code = cli.run_with(all, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// Run the example's command; expect success and nothing on stderr.
fn success(args: &[&str]) -> String {
    let (code, out, err) = run(my_canopy::cli(), args);
    assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    out
}

#[test]
fn the_games_canopy_knows_the_games_node_types() {
    let tree = tree();
    assert_eq!(success(&["check", &tree]), "ok\n");
    golden("my_canopy_print.txt", &success(&["print", &tree]));
    let nodes = success(&["nodes"]);
    golden("my_canopy_nodes.txt", &nodes);
    assert!(nodes.ends_with("\n38 node types\n"), "{nodes}");
    golden(
        "my_canopy_trace.jsonl",
        &success(&["run", &tree, "--ticks", "3", "--agents", "4", "--trace"]),
    );
    assert_eq!(
        success(&["run", &tree, "--ticks", "3"]),
        "\
tick 1: 1 running, 0 success, 0 failure
tick 2: 1 running, 0 success, 0 failure
tick 3: 1 running, 0 success, 0 failure
total over 3 ticks × 1 agent: 3 running, 0 success, 0 failure
"
    );
}

#[test]
fn the_games_machine_files_run_the_games_states_and_node_types() {
    let watch = root()
        .join("examples/machines/watch.json")
        .display()
        .to_string();
    assert_eq!(success(&["check", &watch]), "ok\n");
    assert_eq!(
        success(&["print", &watch]),
        "Watch  [start, Post]  Intruder → Chase\n\
         Chase  [tree inline, success: Calm]  Calm → Watch\n    \
         approach  Approach\n"
    );
    // Watchmen at 0, 3 and 6 walk to their post at 8 and chase the
    // intruder at 10 once within 3 steps: the one at 6 at once, the one at
    // 3 on the fourth tick, the one at 0 on the seventh.
    assert_eq!(
        success(&["run", &watch, "--ticks", "8", "--agents", "3"]),
        "\
tick 1: 3 running, 0 success, 0 failure  [Watch: 2, Chase: 1]
tick 2: 3 running, 0 success, 0 failure  [Watch: 2, Chase: 1]
tick 3: 3 running, 0 success, 0 failure  [Watch: 2, Chase: 1]
tick 4: 3 running, 0 success, 0 failure  [Watch: 2, Chase: 1]
tick 5: 3 running, 0 success, 0 failure  [Watch: 1, Chase: 2]
tick 6: 3 running, 0 success, 0 failure  [Watch: 1, Chase: 2]
tick 7: 3 running, 0 success, 0 failure  [Watch: 2, Chase: 1]
tick 8: 3 running, 0 success, 0 failure  [Chase: 3]
total over 8 ticks × 3 agents: 24 running, 0 success, 0 failure
"
    );
}

#[test]
fn the_games_agents_are_saved_and_inspected() {
    let tree = tree();
    let snap = std::env::temp_dir().join(format!("canopy-user-cli-{}.snap", std::process::id()));
    let snap = snap.display().to_string();
    let saved = success(&[
        "run", &tree, "--ticks", "5", "--agents", "4", "--save", &snap,
    ]);
    assert!(saved.contains("saved 4 agents at tick 5 to "), "{saved}");
    let inspected = success(&["snapshot", "inspect", &snap, "--tree", &tree]);
    std::fs::remove_file(&snap).unwrap();
    assert_eq!(
        inspected,
        "\
agent 0 (tick 5): watchman [running child 2 of 2] > patrol the wall [heading to 0, 2 laps left]
agent 1 (tick 5): watchman [running child 2 of 2] > patrol the wall [heading to 4, 1 lap left]
agent 2 (tick 5): watchman [running child 2 of 2] > patrol the wall [heading to 0, 2 laps left]
agent 3 (tick 5): watchman [running child 1 of 2] > alert [running child 2 of 2] > confront [running child 2 of 2] > stare [1 tick left]
"
    );
}

#[test]
fn errors_name_the_games_command() {
    let dir = std::env::temp_dir().join(format!("canopy-user-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let unknown = dir.join("unknown.json");
    std::fs::write(&unknown, r#"{"tree": {"type": "Teleport"}}"#).unwrap();
    let same = dir.join("same.json");
    std::fs::write(
        &same,
        r#"{"tree": {"type": "Patrol", "name": "stuck", "from": 2, "to": 2}}"#,
    )
    .unwrap();
    let (unknown, same) = (unknown.display().to_string(), same.display().to_string());
    let outcomes = [
        run(my_canopy::cli(), &["check", &unknown]),
        run(my_canopy::cli(), &["check", &same]),
    ];
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        outcomes[0],
        (
            1,
            String::new(),
            format!(
                "{unknown}:1:12: tree (name \"Teleport\"): unknown node type \"Teleport\"\n\
                 hint: this `my_canopy` knows the node types of its registry (`my_canopy nodes` \
                 lists them); a file using other node types needs a `canopy` built with their \
                 registry (`canopy_cli::Cli`)\n"
            )
        )
    );
    assert_eq!(
        outcomes[1],
        (
            1,
            String::new(),
            format!("{same}:1:12: tree (name \"stuck\"): `from` and `to` must differ\n")
        )
    );
}

#[test]
fn run_needs_agent_data_and_a_world() {
    let (code, out, err) = run(
        Cli::new(my_canopy::registry()),
        &["run", &tree(), "--ticks", "1"],
    );
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with(
            "error: `my_canopy run` needs each agent's data and the world: this `my_canopy` was \
             built without them (`Cli::agent`, `Cli::world`)\n\nUsage: my_canopy run "
        ),
        "{err}"
    );
    // The commands that only read trees need neither.
    let (code, out, _) = run(Cli::new(my_canopy::registry()), &["check", &tree()]);
    assert_eq!((code, out.as_str()), (0, "ok\n"));
}

#[test]
fn help_and_version_are_the_games() {
    let help = success(&["--help"]);
    assert!(
        help.starts_with("The watchmen's trees: check, print, run and snapshot them\n\nUsage: my_canopy <COMMAND>\n"),
        "{help}"
    );
    // One registry: no `--types` to choose.
    assert!(!success(&["check", "--help"]).contains("--types"));
    let cli = my_canopy::cli().version("2.1.0");
    assert_eq!(
        run(cli, &["--version"]),
        (0, "my_canopy 2.1.0\n".to_string(), String::new())
    );
    let (code, _, err) = run(my_canopy::cli(), &["check"]);
    assert_eq!(code, 2);
    assert!(err.contains("Usage: my_canopy check"), "{err}");
}

#[test]
fn several_registries_are_offered_under_types() {
    let cli = || {
        my_canopy::cli()
            .types_named("wall", "the watchmen's node types")
            .with_types(
                "plain",
                "the built-in node types",
                Types::new(Registry::<(), ()>::new())
                    .agent(|_| ())
                    .world(()),
            )
    };
    let tree = tree();
    let help = run(cli(), &["check", "--help"]).1;
    assert!(
        help.contains("- wall:  the watchmen's node types"),
        "{help}"
    );
    assert!(help.contains("- plain: the built-in node types"), "{help}");
    assert!(help.contains("[default: wall]"), "{help}");
    let (code, _, err) = run(cli(), &["check", &tree, "--types", "plain"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("unknown node type \"IntruderWithin\"\n")
            && err.ends_with(
                "unknown node type \"Patrol\"\n\
             hint: \"IntruderWithin\" is one of the watchmen's node types: add `--types wall`\n"
            ),
        "{err}"
    );
    let (code, out, _) = run(cli(), &["nodes", "--types", "plain"]);
    assert_eq!(code, 0);
    assert!(out.ends_with("\n35 node types\n"), "{out}");
    let (code, _, err) = run(cli(), &["check", &tree, "--types", "other"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value 'other' for '--types <TYPES>'"),
        "{err}"
    );
}
