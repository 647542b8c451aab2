//! The crowd scheduler allocates nothing per frame: assigning classes
//! (hysteresis, caps over their limit), planning frames in budget mode and
//! ticking the due agents with their elapsed world ticks, counted by the
//! counting allocator.
//!
//! Its own test binary without the libtest harness (`harness = false`):
//! the counters are global, and the harness's threads would be counted too.

use std::time::Duration;

use canopy_core::{Agent, Builder, Lod, Mode, Status, lod::RateClass};
use canopy_counting::Counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let b = Builder::<u32, ()>::new();
    let tree = b
        .build(b.sequence(
            "life",
            [
                b.wait("rest", 6),
                b.timeout(
                    "try",
                    9,
                    b.action("work", |cx| {
                        *cx.agent += 1;
                        if cx.tick.is_multiple_of(7) {
                            Status::Success
                        } else {
                            Status::Running
                        }
                    }),
                ),
            ],
        ))
        .unwrap();
    let n = 2000;
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
    for agent in agents.iter_mut().skip(n / 2) {
        agent.set_mode(&tree, Mode::Event);
    }
    let mut data = vec![0u32; n];
    let classes = [
        RateClass::new(20.0, 1).capped(100),
        RateClass::new(60.0, 2).capped(400),
        RateClass::new(120.0, 4),
        RateClass::new(f32::INFINITY, 8),
    ];
    let mut lod = Lod::new(&classes, 3.0, n).unwrap();
    let frame = |lod: &mut Lod, agents: &mut [Agent], data: &mut [u32], f: usize| {
        let focus = (f % 200) as f32;
        lod.assign(|i| ((i % 250) as f32 - focus).abs());
        lod.next_frame();
        for &i in lod.due() {
            let i = i as usize;
            agents[i].tick_elapsed(&tree, &mut data[i], &(), lod.elapsed()[i]);
        }
        lod.report(Duration::from_micros(40));
    };
    // Warm up: every agent's memory, schedule and waits at their size.
    for f in 0..100 {
        frame(&mut lod, &mut agents, &mut data, f);
    }
    lod.set_budget(Some((Duration::from_micros(60), Duration::from_nanos(50))));
    let before = canopy_counting::stats().allocations;
    assert!(before > 0, "the counting allocator is installed");
    let mut ticked = 0;
    for f in 100..600 {
        frame(&mut lod, &mut agents, &mut data, f);
        ticked += lod.due().len();
    }
    let after = canopy_counting::stats().allocations;
    assert!(
        lod.counts()[0] == 100,
        "the nearest class is full: {:?}",
        lod.counts()
    );
    assert!(ticked > 500 * 100, "{ticked} ticks");
    assert_eq!(
        after - before,
        0,
        "allocations over 500 frames of {n} agents"
    );
    println!("lod_alloc: 0 allocations over 500 frames, {ticked} agent ticks");
}
