//! A run is fixed by its seed: the same seed gives the same final state,
//! bit for bit, whether one thread or several tick the crowd.

use canopy_core::Mode;
use canopy_crowd::{Activity, Config, Crowd, load_default_tree};

fn run(seed: u64, threads: usize, agents: usize, steps: u32) -> (u64, Vec<(Activity, usize)>) {
    run_in(Mode::Tick, seed, threads, agents, steps)
}

fn run_in(
    mode: Mode,
    seed: u64,
    threads: usize,
    agents: usize,
    steps: u32,
) -> (u64, Vec<(Activity, usize)>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let tree = load_default_tree().unwrap();
    let mut crowd = Crowd::new(
        tree,
        &Config {
            agents,
            seed,
            mode,
            ..Config::default()
        },
    );
    pool.install(|| {
        for _ in 0..steps {
            crowd.step();
        }
    });
    (crowd.state_hash(), crowd.activity_counts())
}

#[test]
fn same_seed_same_final_state_with_one_thread_or_many() {
    let (agents, steps) = (1_500, 300);
    let one = run(7, 1, agents, steps);
    assert_eq!(
        run(7, 1, agents, steps),
        one,
        "two single-threaded runs differ"
    );
    assert_eq!(run(7, 2, agents, steps), one, "2 threads differ from 1");
    assert_eq!(run(7, 4, agents, steps), one, "4 threads differ from 1");
    assert_eq!(
        run_in(Mode::Event, 7, 2, agents, steps),
        one,
        "event mode differs from tick mode"
    );
    assert_ne!(
        run(8, 2, agents, steps).0,
        one.0,
        "a different seed gave the same state"
    );

    // Not vacuous: by the end the crowd is doing several different things.
    let busy = one
        .1
        .iter()
        .filter(|(a, n)| *a != Activity::Idle && *n > 0)
        .count();
    assert!(busy >= 3, "only {busy} activities in use: {:?}", one.1);
}

#[test]
fn the_crowd_tree_comes_from_the_file_and_is_shared() {
    let tree = load_default_tree().unwrap();
    assert!((30..=40).contains(&tree.len()), "{} nodes", tree.len());
    let types: Vec<&str> = tree.nodes().map(|n| n.type_name()).collect();
    for crowd_type in [
        "NeedAbove",
        "Flee",
        "FindFood",
        "MoveTo",
        "Eat",
        "Rest",
        "Mingle",
        "Wander",
    ] {
        assert!(types.contains(&crowd_type), "{crowd_type} missing");
    }
    // One tree for everyone: the per-agent cost is the task frame, not the tree.
    let crowd = Crowd::new(
        tree,
        &Config {
            agents: 1_000,
            ..Config::default()
        },
    );
    assert!(
        crowd.behavior_bytes_per_agent() < 100.0,
        "{}",
        crowd.behavior_bytes_per_agent()
    );
}

#[test]
fn a_bad_tree_file_is_reported_not_run() {
    let err = canopy_crowd::registry()
        .load_str(
            r#"{"tree": {"type": "MoveTo", "speed": "fast"}}"#,
            canopy_data::Format::Json,
            "bad.json",
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.json:1:12: tree (name \"MoveTo\"): parameter \"speed\" must be a number, got string \"fast\""
    );
}
