//! Agents are `Send` and share one `Tree` and one world by reference:
//! ticking them across threads must give exactly the sequential results.

use canopy_core::{Agent, Status};
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use rayon::prelude::*;

fn run(parallel: bool, threads: usize) -> (Vec<Vec<Status>>, Vec<Critter>, Vec<usize>) {
    let tree = reference_tree();
    let n = 2_000;
    let mut meadow = Meadow::new(128);
    let mut crowd = critters(n, 5, &meadow);
    let mut agents: Vec<Agent> = (0..n as u32).map(|i| Agent::with_id(&tree, i)).collect();
    let mut history = Vec::new();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    for _ in 0..300 {
        let statuses: Vec<Status> = if parallel {
            pool.install(|| {
                agents
                    .par_iter_mut()
                    .zip(crowd.par_iter_mut())
                    .map(|(agent, critter)| agent.tick(&tree, critter, &meadow))
                    .collect()
            })
        } else {
            agents
                .iter_mut()
                .zip(crowd.iter_mut())
                .map(|(a, c)| a.tick(&tree, c, &meadow))
                .collect()
        };
        history.push(statuses);
        meadow.advance();
    }
    let active = agents.iter().map(|a| a.active_tasks(&tree)).collect();
    (history, crowd, active)
}

#[test]
fn threads_give_exactly_the_sequential_results() {
    let sequential = run(false, 1);
    assert_eq!(run(true, 4), sequential);
    assert_eq!(run(true, 2), sequential);
    // Not vacuous: agents are in different states at the end.
    let distinct: std::collections::HashSet<_> = sequential.2.iter().collect();
    assert!(
        distinct.len() > 2,
        "agents ended in too few distinct states: {distinct:?}"
    );
}
