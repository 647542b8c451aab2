//! The crowd scheduler: which agents are ticked on which frames, with what
//! elapsed world ticks; hysteresis, caps, budget mode and its starvation
//! bound; ticking the plan in parallel and in event mode.

use std::time::Duration;

use canopy_core::{
    Agent, Builder, Lod, Mode, Status, Tree,
    lod::{LodError, RateClass},
};
use proptest::prelude::*;
use rayon::prelude::*;

/// Near (below 10) every frame, middle (below 20) every 2nd, far every 4th.
fn three_classes() -> [RateClass; 3] {
    [
        RateClass::new(10.0, 1),
        RateClass::new(20.0, 2),
        RateClass::new(f32::INFINITY, 4),
    ]
}

/// The due agents of the next `frames` frames.
fn plan(lod: &mut Lod, frames: usize) -> Vec<Vec<u32>> {
    (0..frames)
        .map(|_| {
            lod.next_frame();
            lod.due().to_vec()
        })
        .collect()
}

#[test]
fn each_class_is_ticked_every_period_with_its_phases_spread_evenly() {
    let mut lod = Lod::new(&three_classes(), 0.0, 12).unwrap();
    lod.assign(|i| [5.0, 15.0, 50.0][i / 4]);
    assert_eq!(lod.counts(), [4, 4, 4]);
    let frames = plan(&mut lod, 8);
    assert_eq!(
        frames[..4],
        [
            vec![0, 1, 2, 3, 4, 6, 8],
            vec![0, 1, 2, 3, 5, 7, 9],
            vec![0, 1, 2, 3, 4, 6, 10],
            vec![0, 1, 2, 3, 5, 7, 11],
        ]
    );
    assert_eq!(frames[4..], frames[..4], "the plan repeats every 4 frames");
    // Frame 8: each agent due has waited its class's period.
    let elapsed = lod.elapsed();
    assert_eq!((elapsed[0], elapsed[5], elapsed[11]), (1, 2, 4));
    assert_eq!((elapsed[4], elapsed[8]), (0, 0), "not due: 0");
}

#[test]
fn with_phase_runs_the_agents_due_on_a_frame_are_runs_of_neighbours() {
    // 64 agents every 4th frame, in runs of 8: frame f ticks the runs
    // whose number is f mod 4, each of the 4 phases holds 16 agents.
    let mut lod = Lod::new(&three_classes(), 0.0, 64).unwrap();
    lod.set_phase_runs(8);
    lod.assign(|_| 50.0);
    let frames = plan(&mut lod, 8);
    let runs = |phase: u32| -> Vec<u32> { (0..64).filter(|i| i / 8 % 4 == phase).collect() };
    assert_eq!(frames[0], runs(1));
    assert_eq!(frames[1], runs(2));
    assert_eq!(frames[2], runs(3));
    assert_eq!(frames[3], runs(0));
    assert_eq!(frames[4..], frames[..4]);
    // Every agent ticked once in 4 frames, 4 frames after its last.
    assert!(lod.due().iter().all(|&i| lod.elapsed()[i as usize] == 4));
}

#[test]
fn an_agent_ticked_off_its_phase_goes_back_onto_it_within_its_period() {
    // Agent 0 starts in the far class (every 4th frame), comes near (every
    // frame), then goes far again: its next ticks are on its run's phase
    // (0 mod 4), never more than 4 frames apart.
    let mut lod = Lod::new(&three_classes(), 0.0, 2).unwrap();
    lod.set_phase_runs(2);
    let mut ticks = Vec::new();
    for frame in 1..=16u32 {
        let d = if (3..6).contains(&frame) { 5.0 } else { 50.0 };
        lod.assign(|_| d);
        lod.next_frame();
        if lod.due().contains(&0) {
            ticks.push(frame);
        }
    }
    assert_eq!(ticks, [3, 4, 5, 8, 12, 16]);
}

#[test]
fn first_ticks_say_the_world_ticks_since_the_agent_was_created() {
    let mut lod = Lod::new(&three_classes(), 0.0, 4).unwrap();
    lod.assign(|_| 50.0);
    let firsts: Vec<(u32, u32)> = (0..4)
        .map(|_| {
            lod.next_frame();
            let i = lod.due()[0];
            (i, lod.elapsed()[i as usize])
        })
        .collect();
    assert_eq!(firsts, [(0, 1), (1, 2), (2, 3), (3, 4)]);
}

#[test]
fn hysteresis_keeps_an_agent_in_its_class_until_it_is_past_the_edge_by_the_margin() {
    let classes = [RateClass::new(10.0, 1), RateClass::new(f32::INFINITY, 4)];
    let mut lod = Lod::new(&classes, 1.0, 1).unwrap();
    let classes_seen: Vec<usize> = [9.5, 10.5, 10.9, 11.0, 9.5, 9.1, 8.9, 10.5]
        .into_iter()
        .map(|d| {
            lod.assign(|_| d);
            lod.class_of(0)
        })
        .collect();
    assert_eq!(classes_seen, [0, 0, 0, 1, 1, 1, 0, 0]);
}

#[test]
fn a_full_class_sends_its_farthest_agents_to_the_next_one() {
    let classes = [
        RateClass::new(10.0, 1).capped(2),
        RateClass::new(20.0, 2).capped(1),
        RateClass::new(f32::INFINITY, 4),
    ];
    let mut lod = Lod::new(&classes, 0.5, 5).unwrap();
    lod.assign(|i| [3.0, 1.0, 2.0, 4.0, 30.0][i]);
    let of = |lod: &Lod| (0..5).map(|i| lod.class_of(i)).collect::<Vec<_>>();
    assert_eq!(of(&lod), [1, 0, 0, 2, 2]);
    assert_eq!(lod.counts(), [2, 1, 2]);
    // Agent 0 comes nearer than agent 2, but not by the margin: the agents
    // in the class keep their places.
    lod.assign(|i| [1.8, 1.0, 2.0, 4.0, 30.0][i]);
    assert_eq!(of(&lod), [1, 0, 0, 2, 2]);
    // By more than the margin, it takes agent 2's place.
    lod.assign(|i| [1.4, 1.0, 2.0, 4.0, 30.0][i]);
    assert_eq!(of(&lod), [0, 0, 1, 2, 2]);
    assert_eq!(lod.counts(), [2, 1, 2]);
}

#[test]
fn an_agent_changing_class_is_ticked_within_its_new_period() {
    let classes = [RateClass::new(10.0, 2), RateClass::new(f32::INFINITY, 8)];
    let mut lod = Lod::new(&classes, 0.0, 1).unwrap();
    lod.assign(|_| 50.0);
    // Far, first due at frame 1, then at 9.
    assert_eq!(plan(&mut lod, 3), [vec![0], vec![], vec![]]);
    // Near from frame 3 on: its new period is over at frame 3 already,
    // so it is due on the next frame, 4, then every 2nd.
    lod.assign(|_| 5.0);
    assert_eq!(plan(&mut lod, 4), [vec![0], vec![], vec![0], vec![]]);
    // Far again from frame 7 on (last tick at 6): due at its turn in the
    // far class, frame 9, well before 6 + 8 = 14.
    lod.assign(|_| 50.0);
    assert_eq!(plan(&mut lod, 3), [vec![], vec![0], vec![]]);
}

#[test]
fn budget_mode_ticks_the_due_agents_then_the_oldest() {
    let mut lod = Lod::new(&[RateClass::new(f32::INFINITY, 4)], 0.0, 10).unwrap();
    // 5 µs at 1 µs an agent: 5 agents a frame.
    lod.set_budget(Some((Duration::from_micros(5), Duration::from_micros(1))));
    assert_eq!(
        plan(&mut lod, 2),
        [
            // Due: 0, 4, 8. Then the oldest — all are 1 frame old — in order.
            vec![0, 1, 2, 4, 8],
            // Due: 5, 9. Then the oldest: 3, 6, 7 (2 frames old).
            vec![3, 5, 6, 7, 9],
        ]
    );
    // 10 µs for 5 agents: 2 µs each, which moves the cost up by 5%.
    lod.report(Duration::from_micros(10));
    assert_eq!(lod.cost_per_agent(), Some(Duration::from_nanos(1050)));
    lod.next_frame();
    assert_eq!(lod.due().len(), 4, "5 µs at 1.05 µs an agent");
    // A frame at 1 µs an agent brings it back down by at most 5%.
    lod.report(Duration::from_micros(4));
    assert_eq!(lod.cost_per_agent(), Some(Duration::from_nanos(1000)));
}

#[test]
fn budget_mode_never_leaves_an_agent_past_its_class_period() {
    let mut lod = Lod::new(&three_classes(), 0.0, 12).unwrap();
    lod.assign(|i| [5.0, 15.0, 50.0][i / 4]);
    // A budget too small for anyone: only the due agents, each exactly
    // every period.
    lod.set_budget(Some((Duration::ZERO, Duration::from_micros(1))));
    let mut ticks = [0u32; 12];
    for _ in 0..16 {
        lod.next_frame();
        for &i in lod.due() {
            let period = lod.classes()[lod.class_of(i as usize)].period;
            assert_eq!(lod.elapsed()[i as usize], period.min(lod.frame()));
            ticks[i as usize] += 1;
        }
        assert_eq!(lod.due().len(), 7);
    }
    assert_eq!(ticks, [16, 16, 16, 16, 8, 8, 8, 8, 4, 4, 4, 4]);
}

#[test]
fn a_scheduler_prints_as_a_summary() {
    let mut lod = Lod::new(&three_classes(), 0.0, 12).unwrap();
    lod.assign(|i| [5.0, 15.0, 50.0][i / 4]);
    lod.next_frame();
    let printed = format!("{lod:?}");
    assert!(
        printed.starts_with(
            "Lod { agents: 12, classes: [RateClass { below: 10.0, period: 1, cap: None }, "
        ),
        "{printed}"
    );
    assert!(
        printed.ends_with("counts: [4, 4, 4], frame: 1, due: 7, budget: None, .. }"),
        "{printed}"
    );
}

#[test]
fn bad_classes_are_errors_that_say_what_is_wrong() {
    let err = |classes: &[RateClass], h| Lod::new(classes, h, 1).unwrap_err();
    assert_eq!(
        err(&[], 0.0).to_string(),
        "a level of detail needs 1 to 64 rate classes, got 0"
    );
    assert_eq!(
        err(&[RateClass::new(1.0, 0)], 0.0),
        LodError::Period {
            class: 0,
            period: 0
        }
    );
    assert_eq!(
        err(
            &[
                RateClass::new(5.0, 1),
                RateClass::new(5.0, 2),
                RateClass::new(9.0, 4)
            ],
            0.0
        )
        .to_string(),
        "rate class 1's band ends below 5, which is not a number or not farther out than the class before's"
    );
    assert_eq!(
        err(&[RateClass::new(f32::INFINITY, 1).capped(3)], 0.0).to_string(),
        "the last rate class has a cap, but there is no farther class for its overflow"
    );
    assert_eq!(
        err(&[RateClass::new(1.0, 1)], -1.0).to_string(),
        "the hysteresis margin must be a distance ≥ 0, got -1"
    );
}

/// A tree with every kind of timer, counting its leaf calls.
fn timed_tree() -> Tree<u32, ()> {
    let b = Builder::<u32, ()>::new();
    b.build(b.sequence(
        "life",
        [
            b.wait("rest", 5),
            b.timeout(
                "try",
                7,
                b.action("work", |cx| {
                    *cx.agent += 1;
                    if (cx.tick + cx.id).is_multiple_of(5) {
                        Status::Success
                    } else {
                        Status::Running
                    }
                }),
            ),
            b.cooldown(
                "then",
                3,
                b.action("log", |cx| {
                    *cx.agent += 100;
                    Status::Success
                }),
            ),
        ],
    ))
    .unwrap()
}

/// Tick `n` agents in `mode` for `frames` frames by the plan, in order or
/// in parallel; the agents' data and clocks.
fn run_crowd(mode: Mode, parallel: bool, n: usize, frames: usize) -> (Vec<u32>, Vec<u32>) {
    let tree = timed_tree();
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
    for agent in &mut agents {
        agent.set_mode(&tree, mode);
    }
    let mut data = vec![0u32; n];
    let mut lod = Lod::new(&three_classes(), 2.0, n).unwrap();
    for frame in 0..frames {
        let focus = frame as f32;
        lod.assign(|i| (i as f32 * 0.1 - focus).abs());
        lod.next_frame();
        let elapsed = lod.elapsed();
        if parallel {
            agents
                .par_iter_mut()
                .zip(&mut data)
                .zip(elapsed)
                .filter(|(_, e)| **e > 0)
                .for_each(|((agent, d), &e)| {
                    agent.tick_elapsed(&tree, d, &(), e);
                });
        } else {
            for &i in lod.due() {
                let i = i as usize;
                agents[i].tick_elapsed(&tree, &mut data[i], &(), elapsed[i]);
            }
        }
    }
    (data, agents.iter().map(Agent::ticks).collect())
}

#[test]
fn the_plan_ticked_in_parallel_or_in_event_mode_gives_the_same_crowd() {
    let serial = run_crowd(Mode::Tick, false, 600, 60);
    assert!(serial.0.iter().any(|&d| d >= 100), "some cooldown ran");
    assert_eq!(run_crowd(Mode::Tick, true, 600, 60), serial);
    assert_eq!(run_crowd(Mode::Event, true, 600, 60), serial);
    assert_eq!(run_crowd(Mode::Event, false, 600, 60), serial);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn no_agent_waits_longer_than_the_longer_of_its_old_and_new_periods(
        distances in prop::collection::vec(prop::collection::vec(0.0f32..40.0, 6), 1..40),
        budget in prop::option::of(0u64..8),
        run in 0u32..4,
    ) {
        let mut lod = Lod::new(&three_classes(), 1.5, 6).unwrap();
        lod.set_phase_runs(run);
        if let Some(us) = budget {
            lod.set_budget(Some((Duration::from_micros(us), Duration::from_micros(1))));
        }
        // The longest period each agent has had since its last tick.
        let mut longest = [4u32; 6];
        for d in &distances {
            lod.assign(|i| d[i]);
            for (i, l) in longest.iter_mut().enumerate() {
                *l = (*l).max(lod.classes()[lod.class_of(i)].period);
            }
            lod.next_frame();
            for &i in lod.due() {
                let i = i as usize;
                prop_assert!(lod.elapsed()[i] >= 1);
                prop_assert!(lod.elapsed()[i] <= longest[i], "{} > {}", lod.elapsed()[i], longest[i]);
                longest[i] = lod.classes()[lod.class_of(i)].period;
            }
        }
    }
}
