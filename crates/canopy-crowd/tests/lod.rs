//! Level of detail in the crowd: agents are ticked and steered by their
//! band round the moving focus, their trees count the steps they missed,
//! the result is the same on any number of threads, and the picture shows
//! the classes.

use canopy_crowd::{Config, Crowd, STEER_IN_A_CROWD, Walker, World, load_default_tree, render_svg};

fn crowd(agents: usize) -> Crowd {
    let mut crowd = Crowd::new(
        load_default_tree().unwrap(),
        &Config {
            agents,
            ..Config::default()
        },
    );
    crowd.set_lod(true).unwrap();
    crowd
}

#[test]
fn near_agents_are_ticked_every_step_and_none_is_left_8_steps() {
    let mut crowd = crowd(2_000);
    let mut ticked = 0;
    for _ in 0..40 {
        crowd.step();
        ticked += crowd.lod().unwrap().due().len();
        let lod = crowd.lod().unwrap();
        for i in 0..2_000 {
            let behind = crowd.world.step - crowd.agent(i).ticks();
            // Ticked every step in the nearest class; never left 8 steps.
            let most = if lod.class_of(i) == 0 { 0 } else { 7 };
            assert!(behind <= most, "agent {i}: {behind} steps behind");
        }
        assert!(
            lod.counts()[0] <= 100,
            "the nearest class holds one agent in 20"
        );
    }
    let lod = crowd.lod().unwrap();
    assert_eq!(lod.counts().iter().sum::<u32>(), 2_000);
    assert!(lod.counts().iter().all(|&n| n > 0), "{:?}", lod.counts());
    assert!(ticked < 40 * 2_000 / 2, "{ticked} ticks in 40 steps");
}

#[test]
fn far_agents_are_steered_only_when_their_trees_tick_or_they_are_in_a_crowd() {
    let mut crowd = crowd(2_000);
    let (mut kept, mut steered, mut crowded) = (0, 0, 0);
    for _ in 0..24 {
        let before: Vec<_> = crowd
            .walkers
            .iter()
            .map(|w| (w.vel, w.neighbours))
            .collect();
        crowd.step();
        let elapsed = crowd.lod().unwrap().elapsed();
        for (i, w) in crowd.walkers.iter().enumerate() {
            let (vel, neighbours) = before[i];
            let in_a_crowd = neighbours >= STEER_IN_A_CROWD;
            if elapsed[i] == 0 && !in_a_crowd {
                assert_eq!(w.vel, vel, "agent {i} is not due: it keeps its velocity");
                kept += 1;
            } else if w.vel != vel {
                steered += 1;
                crowded += usize::from(elapsed[i] == 0);
            }
        }
    }
    // Most agents are far, the near ones do turn, and so do far ones in a
    // crowd.
    assert!(kept > 24 * 2_000 / 2, "{kept} velocities kept");
    assert!(steered > 24 * 50, "{steered} velocities changed");
    assert!(crowded > 0, "no agent in a crowd steered between its ticks");
}

#[test]
fn turning_lod_off_lets_every_agent_perceive_before_it_is_ticked() {
    let mut crowd = crowd(1_200);
    for _ in 0..10 {
        crowd.step();
    }
    // Only the agents due perceived; a loaded crowd perceives everyone.
    crowd.set_lod(false).unwrap();
    let mut loaded = Crowd::load(load_default_tree().unwrap(), &crowd.save()).unwrap();
    for _ in 0..5 {
        crowd.step();
        loaded.step();
    }
    assert_eq!(crowd.state_hash(), loaded.state_hash());
}

#[test]
fn a_crowd_with_lod_ends_the_same_on_one_thread_or_two() {
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut crowd = crowd(1_500);
            for _ in 0..30 {
                crowd.step();
            }
            crowd.state_hash()
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn the_picture_draws_the_bands_and_counts_each_class() {
    let mut crowd = crowd(1_000);
    for _ in 0..8 {
        crowd.step();
    }
    let svg = render_svg(&crowd, "lod");
    let counts = crowd.lod().unwrap().counts().to_vec();
    for (label, n) in ["every step", "1 step in 2", "1 step in 4", "1 step in 8"]
        .iter()
        .zip(&counts)
    {
        assert!(svg.contains(&format!("{label} — {n}<")), "{label} — {n}");
    }
    assert_eq!(
        svg.matches(r#"stroke-dasharray="8 5""#).count(),
        3,
        "three bands"
    );
}

#[test]
fn stepping_with_a_tick_of_ones_own_turns_lod_off() {
    let mut crowd = crowd(300);
    crowd.step();
    crowd.step_with(|agent, tree, walker: &mut Walker, world: &World| {
        agent.tick(tree, walker, world)
    });
    assert!(crowd.lod().is_none());
    assert!(render_svg(&crowd, "off").find("level of detail").is_none());
}

#[test]
fn a_budget_ticks_more_agents_when_it_has_room_and_never_fewer_than_are_due() {
    let behind = |crowd: &Crowd| -> Vec<u32> {
        (0..crowd.walkers.len())
            .map(|i| crowd.world.step - crowd.agent(i).ticks())
            .collect()
    };
    // Room for everyone: every agent every step.
    let mut roomy = crowd(800);
    roomy.set_lod_budget(Some(std::time::Duration::from_secs(1)));
    for _ in 0..12 {
        roomy.step();
        assert_eq!(roomy.lod().unwrap().due().len(), 800);
    }
    assert!(behind(&roomy).iter().all(|&b| b == 0));
    // Room for nobody: the agents at the end of their period all the same.
    let mut tight = crowd(800);
    tight.set_lod_budget(Some(std::time::Duration::from_nanos(1)));
    let mut plain = crowd(800);
    for _ in 0..12 {
        tight.step();
        plain.step();
        assert_eq!(tight.lod().unwrap().due(), plain.lod().unwrap().due());
    }
    assert!(behind(&tight).iter().all(|&b| b <= 7));
}

#[test]
fn stepping_with_elapsed_ticks_keeps_lod_and_runs_as_the_plain_step() {
    let (mut plain, mut observed) = (crowd(600), crowd(600));
    for _ in 0..20 {
        plain.step();
        let ticked = std::sync::atomic::AtomicUsize::new(0);
        observed.step_elapsed_with(|agent, tree, walker: &mut Walker, world: &World, elapsed| {
            ticked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            agent.tick_elapsed(tree, walker, world, elapsed)
        });
        let lod = observed.lod().expect("level of detail stays on");
        assert_eq!(ticked.into_inner(), lod.due().len(), "only the agents due");
    }
    assert_eq!(observed.state_hash(), plain.state_hash());
    assert_eq!(
        (0..600)
            .map(|i| observed.agent(i).ticks())
            .collect::<Vec<_>>(),
        (0..600).map(|i| plain.agent(i).ticks()).collect::<Vec<_>>()
    );
}

#[test]
fn the_class_names_and_opacities_are_the_pictures() {
    assert_eq!(canopy_crowd::class_label(1), "every step");
    assert_eq!(canopy_crowd::class_label(4), "1 step in 4");
    assert_eq!(
        (0..6).map(canopy_crowd::class_opacity).collect::<Vec<_>>(),
        [1.0, 0.7, 0.45, 0.25, 0.25, 0.25]
    );
}
