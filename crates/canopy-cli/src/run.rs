//! `canopy run` without `--trace`: what the crowd as a whole is doing, tick
//! by tick — how many roots are still running, how many succeeded, how many
//! failed.
//!
//! Counts, not per-agent lines, so the output stays readable for any crowd
//! size; the agents are independent, so they tick in parallel (rayon) and
//! the counts are the same whatever the thread count.
//!
//! A crowd restored from a snapshot carries on counting: its first line is
//! the tick after the one it was saved at, so the lines of a restored run
//! are those of an uninterrupted one.

use std::io::{self, Write};

use canopy_core::{Status, Tree};
use rayon::prelude::*;

use crate::crowd::Crowd;
use crate::game::{self, Game};
use crate::groot::Watch;

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
/// total; with `watch`, the watched agent through its monitor, at its pace.
pub(crate) fn summary<A: Send, W: Sync>(
    tree: &Tree<A, W>,
    crowd: &mut Crowd<A>,
    world: &mut W,
    game: &mut Game<A, W>,
    ticks: u32,
    mut watch: Option<&mut Watch>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let agents = crowd.agents.len() as u32;
    let first = crowd.ticks();
    let last = u64::from(first) + u64::from(ticks);
    let tick_width = last.to_string().len();
    let agent_width = agents.to_string().len();
    let mut total = Counts::default();
    for tick in first as u64 + 1..=last {
        if let Some(watch) = watch.as_deref_mut() {
            watch.wait_turn();
        }
        game.update(world, tick as u32);
        let (world, answers) = (&*world, game.answer.as_ref());
        let probe = watch.as_deref().map(|w| w.monitor().probe());
        let counts = crowd
            .agents
            .par_iter_mut()
            .zip(crowd.data.par_iter_mut())
            .fold(Counts::default, |counts, (agent, data)| {
                let status = match &probe {
                    Some(probe) => probe.tick(agent, tree, data, world),
                    None => agent.tick(tree, data, world),
                };
                game::answer(answers, agent, data, world);
                counts.add(status)
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
