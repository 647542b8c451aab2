//! The demo's crowd flows: on a smaller crowd than the demo's, in tick
//! mode, event mode and with level of detail, no activity takes more than
//! 60 % of the agents once the crowd has spread out (after step 200), and
//! meals are finished in every window of 50 steps from then on. (The demo
//! prints the same figures for its own run: `cargo run --release
//! --example crowd -- --steps 10000`.)

use canopy_core::Mode;
use canopy_crowd::{Config, Crowd, Flow, load_default_tree};

const AGENTS: usize = 600;
const STEPS: usize = 1_000;
const WARM_UP: usize = 200;

fn run(mode: Mode, lod: bool) -> Flow {
    let config = Config {
        agents: AGENTS,
        seed: 3,
        mode,
        ..Config::default()
    };
    let mut crowd = Crowd::new(load_default_tree().unwrap(), &config);
    crowd.set_lod(lod).unwrap();
    let mut flow = Flow::new();
    for _ in 0..STEPS {
        crowd.step();
        flow.record(&crowd);
    }
    flow
}

fn flows(mode: Mode, lod: bool) {
    let flow = run(mode, lod);
    let busiest = flow.busiest_after(WARM_UP).unwrap();
    assert!(
        busiest.share <= 0.6,
        "{mode:?}, level of detail {lod}: {:?} took {:.1}% of the agents at step {}",
        busiest.activity,
        100.0 * busiest.share,
        busiest.step
    );
    let meals = flow.meals_per_window(WARM_UP, 50);
    assert_eq!(meals.len(), (STEPS - WARM_UP) / 50);
    assert!(
        meals.iter().all(|&m| m > 0),
        "{mode:?}, level of detail {lod}: a window of 50 steps without a meal: {meals:?}"
    );
    println!(
        "{mode:?}, level of detail {lod}: busiest {:?} {:.1}%, meals per 50 steps {:?}",
        busiest.activity,
        100.0 * busiest.share,
        meals
    );
}

#[test]
fn in_tick_mode_no_activity_takes_over_and_meals_keep_coming() {
    flows(Mode::Tick, false);
}

#[test]
fn in_event_mode_no_activity_takes_over_and_meals_keep_coming() {
    flows(Mode::Event, false);
}

#[test]
fn with_level_of_detail_no_activity_takes_over_and_meals_keep_coming() {
    flows(Mode::Tick, true);
}
