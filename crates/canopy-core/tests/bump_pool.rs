//! Exercises the one `unsafe` of the engine — `BumpPool`'s raw pointers
//! into its bumpalo arena — hard enough for valgrind to see any misuse:
//! thousands of installs and uninstalls, arena resets when the root
//! finishes, aborts, agents moved to other threads mid-run, and results
//! compared with the safe default pool. CI runs this binary under
//! `valgrind --error-exitcode=1`.

use canopy_core::pool::{BumpPool, InlinePool, TaskPool};
use canopy_core::{Agent, Builder, Ctx, Policy, Status, Tree};

fn tree() -> Tree<u64, ()> {
    let b = Builder::<u64, ()>::new();
    let flip = |k: u32| move |cx: &Ctx<u64, ()>| (cx.tick / 3 + cx.id + k).is_multiple_of(4);
    let work = b.sequence(
        "work",
        [
            b.repeat(
                "laps",
                3,
                b.parallel(
                    "both",
                    Policy::All,
                    Policy::One,
                    [b.wait("a", 1), b.wait("b", 2)],
                ),
            ),
            b.timeout("limit", 3, b.wait("slow", 5)),
        ],
    );
    let root = b.reactive_selector(
        "root",
        [
            b.reactive_sequence(
                "alarm",
                [
                    b.condition("alarm?", flip(0)),
                    b.cooldown("cd", 2, b.wait("hide", 2)),
                ],
            ),
            b.retry("persist", 2, work),
            b.action("tally", |cx| {
                *cx.agent += cx.tick as u64;
                Status::Success
            }),
        ],
    );
    b.build(root).unwrap()
}

fn run<P: TaskPool>(
    tree: &Tree<u64, ()>,
    agents: &mut [Agent<P>],
    data: &mut [u64],
    ticks: u32,
) -> Vec<Status> {
    let mut out = Vec::new();
    for _ in 0..ticks {
        for (a, d) in agents.iter_mut().zip(data.iter_mut()) {
            out.push(a.tick(tree, d, &()));
        }
    }
    out
}

#[test]
fn bump_pool_matches_the_inline_pool_across_threads_and_resets() {
    let tree = tree();
    let n = 64;
    let mut bump: Vec<Agent<BumpPool>> = (0..n).map(|i| Agent::for_tree(&tree, i)).collect();
    let mut inline: Vec<Agent<InlinePool>> = (0..n).map(|i| Agent::for_tree(&tree, i)).collect();
    let (mut bump_data, mut inline_data) = (vec![0u64; n as usize], vec![0u64; n as usize]);

    let mut expected = run(&tree, &mut inline, &mut inline_data, 150);
    let mut got = run(&tree, &mut bump, &mut bump_data, 150);

    // Move the bump-pooled agents to another thread and keep going there.
    let handle = {
        let tree = &tree;
        std::thread::scope(|s| {
            s.spawn(move || {
                let more = run(tree, &mut bump, &mut bump_data, 150);
                (bump, bump_data, more)
            })
            .join()
            .unwrap()
        })
    };
    let (mut bump, mut bump_data, more) = handle;
    got.extend(more);
    expected.extend(run(&tree, &mut inline, &mut inline_data, 150));

    // Reset half of them mid-run: aborts free nothing, the arena resets.
    for (i, (a, d)) in bump.iter_mut().zip(bump_data.iter_mut()).enumerate() {
        if i % 2 == 0 {
            a.reset(&tree, d, &());
        }
    }
    for (i, (a, d)) in inline.iter_mut().zip(inline_data.iter_mut()).enumerate() {
        if i % 2 == 0 {
            a.reset(&tree, d, &());
        }
    }
    got.extend(run(&tree, &mut bump, &mut bump_data, 100));
    expected.extend(run(&tree, &mut inline, &mut inline_data, 100));

    assert_eq!(got, expected);
    assert_eq!(bump_data, inline_data);
    assert!(got.contains(&Status::Success) && got.contains(&Status::Running));
    let active: Vec<usize> = bump.iter().map(|a| a.active_tasks()).collect();
    assert_eq!(
        active,
        inline.iter().map(|a| a.active_tasks()).collect::<Vec<_>>()
    );
}
