//! `canopy run --trace`: every event of every agent as one JSON object per
//! line, for tools (jq, a test, a visualiser) rather than eyes.
//!
//! JSON lines because a trace is a stream: it can be cut with `head`,
//! filtered line by line, and written without holding a run in memory.
//! Names come from tree files and may hold any character, so each line is
//! written by serde_json, never assembled by hand. Fields keep one order
//! (`tick`, `agent`, `event`, then the node) so traces also diff well.
//!
//! For each tick, agents run in id order; each agent's events come as the
//! engine reports them (enter, update, exit, abort — deepest first), then
//! one `tick` line with its root's status.

use std::io::{self, Write};

use canopy_core::{Agent, Event, EventKind, Observer, Status};
use serde::Serialize;

use crate::CliTree;

/// One task event: `{"tick":1,"agent":0,"event":"update","node":"walk",
/// "type":"Wait","id":3,"status":"Running"}`.
#[derive(Serialize)]
struct NodeLine<'a> {
    tick: u32,
    agent: u32,
    event: &'static str,
    node: &'a str,
    #[serde(rename = "type")]
    type_name: &'a str,
    id: usize,
    /// For `update` and `exit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
}

/// The end of one agent's tick: `{"tick":1,"agent":0,"event":"tick","status":"Running"}`.
#[derive(Serialize)]
struct TickLine {
    tick: u32,
    agent: u32,
    event: &'static str,
    status: &'static str,
}

/// An observer writing each event as a line. The engine's observer cannot
/// fail, so the first write error is kept and later events are dropped;
/// the tick loop checks it after every agent.
struct JsonLines<'t, 'o, O> {
    tree: &'t CliTree,
    out: &'o mut O,
    error: Option<io::Error>,
}

impl<O: Write> JsonLines<'_, '_, O> {
    fn line(&mut self, value: &impl Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut *self.out, value)?;
        self.out.write_all(b"\n")
    }

    /// The error kept so far, if any.
    fn check(&mut self) -> io::Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }
}

impl<O: Write> Observer for JsonLines<'_, '_, O> {
    fn event(&mut self, event: Event) {
        if self.error.is_some() {
            return;
        }
        let node = self.tree.node(event.node);
        let status = match event.kind {
            EventKind::Update(s) | EventKind::Exit(s) => Some(s.as_str()),
            EventKind::Enter | EventKind::Abort => None,
        };
        let line = NodeLine {
            tick: event.tick,
            agent: event.agent,
            event: event.kind.name(),
            node: node.name(),
            type_name: node.type_name(),
            id: event.node.index(),
            status,
        };
        if let Err(e) = self.line(&line) {
            self.error = Some(e);
        }
    }
}

/// Tick the crowd `ticks` times, writing every event to `out`.
pub(crate) fn run(
    tree: &CliTree,
    mut crowd: Vec<Agent>,
    ticks: u32,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut lines = JsonLines {
        tree,
        out,
        error: None,
    };
    for _ in 0..ticks {
        for agent in &mut crowd {
            let status: Status = agent.tick_observed(tree, &mut (), &(), &mut lines);
            lines.check()?;
            lines.line(&TickLine {
                tick: agent.ticks(),
                agent: agent.id(),
                event: "tick",
                status: status.as_str(),
            })?;
        }
    }
    Ok(())
}
