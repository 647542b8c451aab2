//! Saved crowds whose numbers parse but that the simulation cannot run,
//! and files that are not saved crowds at all: each is refused with a
//! message naming the file or the field and the range it must be in,
//! before anything is allocated for it. A crowd that does load steps.

use std::path::Path;

use canopy_core::Mode;
use canopy_crowd::{Config, Crowd, Grid, load_default_tree};

/// Offsets of the configuration's fields in a saved crowd.
const DT: usize = 18;
const SIZE: usize = 22;
const FOOD: usize = 26;
const REST: usize = 30;
const TRAIL: usize = 34;
const MODE: usize = 42;
const STEP: usize = 43;
const THREATS: usize = 47;

/// A crowd of 300 agents after 10 steps, saved.
fn saved() -> Vec<u8> {
    let config = Config {
        agents: 300,
        seed: 4,
        mode: Mode::Event,
        ..Config::default()
    };
    let mut crowd = Crowd::new(load_default_tree().unwrap(), &config);
    for _ in 0..10 {
        crowd.step();
    }
    crowd.save()
}

fn with(at: usize, value: &[u8]) -> Vec<u8> {
    let mut bytes = saved();
    bytes[at..at + value.len()].copy_from_slice(value);
    bytes
}

fn refusal(bytes: &[u8]) -> String {
    Crowd::load(load_default_tree().unwrap(), bytes)
        .expect_err("refused")
        .to_string()
}

#[test]
fn a_time_step_too_short_for_avoidance_is_refused() {
    assert_eq!(
        refusal(&with(DT, &1.0e-20f32.to_le_bytes())),
        "damaged saved crowd: the time step is 1e-20 s; \
         the simulation runs with 0.001 s to 10.0 s"
    );
}

#[test]
fn an_arena_whose_grid_would_not_fit_is_refused() {
    assert_eq!(
        refusal(&with(SIZE, &1.0e6f32.to_le_bytes())),
        "damaged saved crowd: the arena's side is 1000000.0; \
         the simulation runs with more than 0, at most 5000.0"
    );
}

#[test]
fn food_and_rest_counts_the_file_does_not_back_are_refused() {
    assert_eq!(
        refusal(&with(FOOD, &1_000_000u32.to_le_bytes())),
        "damaged saved crowd: the number of food patches is 1000000; \
         the simulation runs with 1 to 300"
    );
    // One more than the agents: the file holds 300 walker records.
    assert_eq!(
        refusal(&with(REST, &301u32.to_le_bytes())),
        "damaged saved crowd: the number of rest areas is 301; \
         the simulation runs with 1 to 300"
    );
    assert_eq!(
        refusal(&with(TRAIL, &65u32.to_le_bytes())),
        "damaged saved crowd: the number of trail samples is 65; \
         the simulation runs with 1 to 64"
    );
    assert_eq!(
        refusal(&with(THREATS, &5_000u32.to_le_bytes())),
        "damaged saved crowd: the number of threats is 5000; \
         the simulation runs with 0 to 300"
    );
}

#[test]
fn an_unknown_mode_is_refused() {
    assert_eq!(
        refusal(&with(MODE, &[7])),
        "damaged saved crowd: the mode is 7; the simulation runs with 0 (tick) or 1 (event)"
    );
}

#[test]
fn a_walker_that_chose_a_place_that_does_not_exist_is_refused() {
    // The walkers start after the threats (3 of 20 bytes); the chosen food
    // patch follows eleven numbers (position, velocity, radius, top speed,
    // goal, hunger, fatigue, fear), the chosen rest area follows it.
    let first_walker = THREATS + 4 + 3 * 20;
    assert_eq!(
        refusal(&with(first_walker + 44, &7u32.to_le_bytes())),
        "damaged saved crowd: walker 0's chosen food patch is 7; \
         the simulation runs with -1 to 5"
    );
    assert_eq!(
        refusal(&with(first_walker + 48, &(-2i32).to_le_bytes())),
        "damaged saved crowd: walker 0's chosen rest area is -2; \
         the simulation runs with -1 to 3"
    );
}

#[test]
fn a_crowd_saved_at_the_last_step_a_counter_holds_steps_on() {
    let mut crowd = Crowd::load(
        load_default_tree().unwrap(),
        &with(STEP, &u32::MAX.to_le_bytes()),
    )
    .unwrap();
    crowd.step();
    assert_eq!(crowd.world.step, 0);
}

#[test]
fn avoidance_stays_finite_with_a_time_step_of_1e_minus_20() {
    // 400 agents on a 12 × 12 arena: everyone overlaps someone, which is
    // where ORCA divides by the time step.
    let config = Config {
        agents: 400,
        dt: 1.0e-20,
        size: Some(12.0),
        ..Config::default()
    };
    let mut crowd = Crowd::new(load_default_tree().unwrap(), &config);
    for _ in 0..5 {
        crowd.step();
    }
    let finite = crowd
        .walkers
        .iter()
        .filter(|w| w.pos.is_finite() && w.vel.is_finite())
        .count();
    assert_eq!(finite, 400);
}

#[test]
fn a_grid_too_large_for_any_machine_is_an_error() {
    assert_eq!(
        Grid::try_new(f32::MAX, 3.0).err().unwrap().to_string(),
        "memory allocation failed because the computed capacity exceeded the collection's maximum"
    );
}

fn load_file(path: &Path) -> String {
    Crowd::load_file(load_default_tree().unwrap(), path)
        .expect_err("refused")
        .to_string()
}

#[cfg(unix)]
#[test]
fn devices_and_fifos_are_refused_at_once() {
    assert_eq!(
        load_file(Path::new("/dev/zero")),
        "/dev/zero: not a regular file (a character device); saved crowds are read from regular files"
    );
    let fifo = std::env::temp_dir().join(format!("canopy-crowd-fifo-{}", std::process::id()));
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Opened without blocking: no writer ever comes, and this returns.
    let message = load_file(&fifo);
    std::fs::remove_file(&fifo).unwrap();
    assert_eq!(
        message,
        format!(
            "{}: not a regular file (a FIFO); saved crowds are read from regular files",
            fifo.display()
        )
    );
}

#[test]
fn a_damaged_file_is_named_in_the_message() {
    let path = std::env::temp_dir().join(format!("canopy-crowd-dt-{}.save", std::process::id()));
    std::fs::write(&path, with(DT, &0.0f32.to_le_bytes())).unwrap();
    let message = load_file(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        message,
        format!(
            "{}: damaged saved crowd: the time step is 0.0 s; the simulation runs with 0.001 s to 10.0 s",
            path.display()
        )
    );
}
