//! `canopy run --trace`: every event of every agent as one JSON object per
//! line, for tools (jq, a test, the inspector's replay) rather than eyes.
//!
//! The format is the inspector's trace format, written by its
//! [`TraceWriter`], so that the command's traces and the inspector's
//! recordings have one implementation and replay alike: JSON lines because
//! a trace is a stream (cut with `head`, filtered line by line, written
//! without holding a run in memory), each line written by serde_json
//! because names may hold any character, fields in one order so traces
//! diff well.
//!
//! For each tick, agents run in id order; each agent's events come as the
//! engine reports them (enter, update, exit, abort — deepest first), then
//! one `tick` line with its root's status.

use std::io::{self, Write};

use canopy_core::Tree;
use canopy_inspector::Shape;
use canopy_inspector::trace::TraceWriter;

use crate::crowd::Crowd;
use crate::game::{self, Game};

/// Tick the crowd `ticks` times, writing every event to `out`.
pub(crate) fn run<A, W>(
    tree: &Tree<A, W>,
    crowd: &mut Crowd<A>,
    world: &mut W,
    game: &mut Game<A, W>,
    ticks: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let shape = Shape::of(tree);
    let mut writer = TraceWriter::new(&shape, out);
    let first = crowd.ticks();
    for tick in 1..=ticks {
        game.update(world, first.wrapping_add(tick));
        for (agent, data) in crowd.agents.iter_mut().zip(&mut crowd.data) {
            let status = agent.tick_observed(tree, data, world, &mut writer);
            game::answer(game.answer.as_ref(), agent, data, world);
            // The first write error of any event of this tick, or the tick line's.
            writer.end_tick(agent.ticks(), agent.id(), status)?;
        }
    }
    Ok(())
}
