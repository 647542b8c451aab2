//! `canopy run` without `--trace`: what the crowd as a whole is doing, tick
//! by tick — how many roots are still running, how many succeeded, how many
//! failed.
//!
//! Counts, not per-agent lines, so the output stays readable for any crowd
//! size; the agents are independent, so they tick in parallel (rayon) and
//! the counts are the same whatever the thread count.

use std::io::{self, Write};

use canopy_core::{Agent, Status};
use rayon::prelude::*;

use crate::CliTree;

/// Root statuses over the agents: running, success, failure.
#[derive(Clone, Copy, Default)]
struct Counts([u64; 3]);

impl Counts {
    fn add(mut self, status: Status) -> Self {
        let slot = match status {
            Status::Running => 0,
            Status::Success => 1,
            Status::Failure => 2,
        };
        self.0[slot] += 1;
        self
    }

    fn merge(mut self, other: Counts) -> Self {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
        self
    }
}

/// Tick the crowd `ticks` times, printing one summary line per tick and a
/// total.
pub(crate) fn summary(
    tree: &CliTree,
    mut crowd: Vec<Agent>,
    ticks: u32,
    out: &mut impl Write,
) -> io::Result<()> {
    let agents = crowd.len() as u32;
    let tick_width = ticks.to_string().len();
    let agent_width = agents.to_string().len();
    let mut total = Counts::default();
    for tick in 1..=ticks {
        let counts = crowd
            .par_iter_mut()
            .fold(Counts::default, |counts, agent| {
                counts.add(agent.tick(tree, &mut (), &()))
            })
            .reduce(Counts::default, Counts::merge);
        let [running, success, failure] = counts.0;
        writeln!(
            out,
            "tick {tick:>tick_width$}: {running:>agent_width$} running, \
             {success:>agent_width$} success, {failure:>agent_width$} failure"
        )?;
        total = total.merge(counts);
    }
    let [running, success, failure] = total.0;
    let plural = |n: u32, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "total over {} × {}: {running} running, {success} success, {failure} failure",
        plural(ticks, "tick"),
        plural(agents, "agent"),
    )
}
