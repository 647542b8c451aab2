//! A game's own `canopy` that simulates the game (`examples/game_canopy.rs`,
//! compiled in as a module): the world moves between ticks and a stand-in
//! path service answers the async leaves, so `run` and `bench` see the
//! agents finish their paths instead of waiting for ever.

mod common;

#[path = "../../../examples/game_canopy.rs"]
#[allow(dead_code)] // its `main`
mod game_canopy;

use canopy_cli::Cli;
use canopy_core::Status;
use canopy_data::TreeSource;
use common::root;

/// One test at a time: the example installs the counting allocator for
/// this whole test binary, and `bench` reads the heap it counts, which
/// another test running beside it would move.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn tree() -> String {
    root()
        .join("examples/trees/game.json")
        .display()
        .to_string()
}

/// Run `cli` with `args`: exit code, stdout, stderr.
fn run<A: Send + 'static, W: Send + Sync + 'static>(
    cli: Cli<A, W>,
    args: &[&str],
) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut all = vec!["game_canopy"];
    all.extend(args);
    let code = cli.run_with(all, &mut out, &mut err);
    let text = |v: Vec<u8>| String::from_utf8(v).unwrap();
    (code, text(out), text(err))
}

/// The per-tick lines of `run`: (running, success, failure).
fn counts(out: &str) -> Vec<[u32; 3]> {
    out.lines()
        .filter(|l| l.starts_with("tick"))
        .map(|l| {
            let n: Vec<u32> = l
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            [n[1], n[2], n[3]]
        })
        .collect()
}

#[test]
fn agents_finish_the_paths_the_service_answers() {
    let _serial = serial();
    let (code, out, err) = run(
        game_canopy::cli(),
        &["run", &tree(), "--agents", "100", "--ticks", "40"],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let ticks = counts(&out);
    assert_eq!(ticks.len(), 40);
    // Nobody sees the intruder at first: every guard asks for a path and
    // waits; the service answers, they walk, and the first arrive.
    assert_eq!(ticks[0], [100, 0, 0]);
    let succeeded: u32 = ticks.iter().map(|t| t[1]).sum();
    assert!(succeeded > 0, "{out}");
    assert!(ticks.iter().all(|t| t[2] == 0), "{out}");
}

#[test]
fn without_answers_the_agents_wait_for_ever() {
    let _serial = serial();
    let cli = Cli::new(game_canopy::registry())
        .agent(game_canopy::Guard::new)
        .world(game_canopy::Map {
            intruder: [90.0, 50.0],
        });
    let (code, out, _) = run(cli, &["run", &tree(), "--agents", "10", "--ticks", "40"]);
    assert_eq!(code, 0);
    assert!(counts(&out).iter().all(|t| *t == [10, 0, 0]), "{out}");
}

#[test]
fn the_world_update_sees_every_tick_in_order() {
    let _serial = serial();
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let cli = Cli::new(game_canopy::registry())
        .agent(game_canopy::Guard::new)
        .world(game_canopy::Map {
            intruder: [0.0, 0.0],
        })
        .world_update(move |map, tick| {
            log.lock().unwrap().push(tick);
            map.step(tick);
        })
        .complete_after(3, Status::Failure);
    let (code, out, _) = run(cli, &["run", &tree(), "--agents", "4", "--ticks", "6"]);
    assert_eq!(code, 0);
    assert_eq!(*seen.lock().unwrap(), [1, 2, 3, 4, 5, 6]);
    // Asked on tick 1; after tick 4 the request has waited 3 ticks and is
    // answered with Failure, which the leaf reports on tick 5: the hunt
    // fails, and on tick 6 the guards ask again.
    assert_eq!(
        counts(&out),
        [
            [4, 0, 0],
            [4, 0, 0],
            [4, 0, 0],
            [4, 0, 0],
            [0, 0, 4],
            [4, 0, 0]
        ]
    );
}

#[test]
fn bench_splits_the_bytes_per_agent() {
    let _serial = serial();
    let (code, out, err) = run(
        game_canopy::cli(),
        &[
            "bench",
            &tree(),
            // Enough agents that the test harness freeing another test's
            // output meanwhile (a few KB) cannot hide an agent's data.
            "--agents",
            "5000",
            "--ticks",
            "20",
            // An explicit pool is started before the heap is read; the
            // global one would start its threads (and their buffers)
            // while the crowd is being measured.
            "--threads",
            "1",
            "--json",
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    let json: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    // The example installs the counting allocator, so the bytes are split:
    // the engine's parts exactly as an agent of this tree reports them.
    let registry = game_canopy::registry();
    let tree = registry.loading(TreeSource::file(&tree())).load().unwrap();
    let parts = canopy_core::Agent::new(&tree).memory();
    let memory = &json["memory"];
    assert_eq!(memory["agent"], parts.value as f64, "{out}");
    assert_eq!(memory["tasks"], parts.tasks as f64, "{out}");
    assert_eq!(memory["waits"], parts.waits as f64, "{out}");
    assert_eq!(memory["schedule"], 0.0, "{out}");
    assert!(memory["data"].as_f64().unwrap() >= size_of::<game_canopy::Guard>() as f64);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("agent "))
        .unwrap();
    assert_eq!(
        line,
        format!(
            "        agent {:.1} + tasks {:.1} + waits {:.1} + schedule 0.0 + your agent data {:.1}",
            parts.value as f64,
            parts.tasks as f64,
            parts.waits as f64,
            memory["data"].as_f64().unwrap()
        )
    );
}
