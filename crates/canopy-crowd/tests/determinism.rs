//! A run is fixed by its seed: the same seed gives the same final state,
//! bit for bit, whether one thread or several tick the crowd.

use canopy_core::Mode;
use canopy_crowd::{Activity, Config, Crowd, load_default_tree};
use canopy_data::TreeSource;

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
    // README.md and docs/crowd-demo.md call it the 46-node tree.
    assert_eq!(tree.len(), 46, "examples/trees/crowd.json's nodes");
    let types: Vec<&str> = tree.nodes().map(|n| n.type_name()).collect();
    for crowd_type in [
        "NeedAbove",
        "Flee",
        "Utility",
        "ChoosePlace",
        "AtPlace",
        "MoveTo",
        "GiveUp",
        "Served",
        "Leave",
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
        .loading(TreeSource::text(
            r#"{"tree": {"type": "MoveTo", "speed": "fast"}}"#,
            canopy_data::Format::Json,
            "bad.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.json:1:12: tree (name \"MoveTo\"): parameter \"speed\" must be a number, got string \"fast\""
    );
}

/// Step by step, not only at the end: a crowd crowded enough that agents
/// avoid full lists of neighbours every step is in the same state on one
/// thread as on two; and saved halfway on one thread, then loaded and run
/// on two, it goes on exactly as the crowd that was never saved.
#[test]
fn every_step_is_the_same_on_one_thread_and_two_and_after_a_save() {
    let pool = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    let (one, two) = (pool(1), pool(2));
    let config = Config {
        agents: 3_000,
        seed: 11,
        ..Config::default()
    };
    let new = || Crowd::new(load_default_tree().unwrap(), &config);
    let (mut single, mut double) = (new(), new());
    let mut saved = None;
    for step in 1..=60 {
        one.install(|| single.step());
        two.install(|| double.step());
        assert_eq!(single.state_hash(), double.state_hash(), "step {step}");
        let crowded = single.walkers.iter().filter(|w| w.neighbours >= 8).count();
        assert!(crowded > 0, "step {step}: nobody had eight neighbours");
        if step == 30 {
            saved = Some(single.save());
        }
    }
    let mut loaded = Crowd::load(load_default_tree().unwrap(), &saved.unwrap()).unwrap();
    let mut unsaved = new();
    one.install(|| {
        for _ in 0..30 {
            unsaved.step();
        }
    });
    assert_eq!(loaded.state_hash(), unsaved.state_hash(), "on load");
    for step in 31..=60 {
        two.install(|| loaded.step());
        one.install(|| unsaved.step());
        assert_eq!(loaded.state_hash(), unsaved.state_hash(), "step {step}");
    }
    assert_eq!(loaded.state_hash(), single.state_hash());
}
