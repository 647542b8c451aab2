//! Recording chosen agents: their events in bounded logs, written out as a
//! trace.
//!
//! Each recorded agent gets its own [`Ring`], allocated when the recorder
//! is made, so memory is `agents × capacity × 16 bytes` however long the
//! run is, and recording allocates nothing. An agent that is not recorded
//! is ticked plainly: it pays one lookup. The rings sit behind one mutex
//! each, so agents can be ticked in parallel (rayon) through a shared
//! `&Recorder`; two threads never tick the same agent, so the locks are
//! never contended.

use std::io::{self, Write};
use std::sync::{Mutex, MutexGuard, PoisonError};

use canopy_core::{Agent, Status, Tree};

use crate::shape::Shape;
use crate::trace::{Record, What, write_record};
use crate::view::Ring;

/// Which agents a [`Recorder`] records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// These agent ids (duplicates are ignored).
    Agents(Vec<u32>),
    /// Every agent with an id below this count.
    All(u32),
}

/// Records the events of chosen agents into one bounded log each.
///
/// ```
/// use canopy_core::{Agent, Builder, Status};
/// use canopy_inspector::{Recorder, Selection, Shape};
///
/// let b = Builder::<u32, ()>::new();
/// let tree = b.build(b.sequence("work", [
///     b.action("count", |cx| { *cx.agent += 1; Status::Success }),
///     b.wait("rest", 1),
/// ])).unwrap();
/// let mut agents: Vec<Agent> = (0..100).map(|i| Agent::with_id(&tree, i)).collect();
/// let mut counts = vec![0u32; 100];
/// let recorder = Recorder::new(Selection::Agents(vec![42]), 1000);
/// for _ in 0..3 {
///     for (agent, count) in agents.iter_mut().zip(&mut counts) {
///         recorder.tick(agent, &tree, count, &());
///     }
/// }
/// let mut trace = Vec::new();
/// recorder.write_trace(&Shape::of(&tree), &mut trace).unwrap();
/// let trace = String::from_utf8(trace).unwrap();
/// assert!(trace.lines().all(|line| line.contains("\"agent\":42")));
/// assert_eq!(trace.lines().filter(|l| l.contains("\"event\":\"tick\"")).count(), 3);
/// ```
pub struct Recorder {
    /// Sorted ids, or empty when every agent below `all` is recorded.
    ids: Vec<u32>,
    all: u32,
    logs: Vec<Mutex<Ring>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("ids", &self.ids)
            .field("all", &self.all)
            .finish_non_exhaustive()
    }
}

/// Size of one record in memory.
pub const RECORD_BYTES: usize = size_of::<Record>();

impl Recorder {
    /// A recorder keeping the last `capacity` records of each selected agent.
    pub fn new(selection: Selection, capacity: usize) -> Recorder {
        let (ids, all) = match selection {
            Selection::Agents(mut ids) => {
                ids.sort_unstable();
                ids.dedup();
                (ids, 0)
            }
            Selection::All(count) => (Vec::new(), count),
        };
        let count = if ids.is_empty() {
            all as usize
        } else {
            ids.len()
        };
        let logs = (0..count)
            .map(|_| Mutex::new(Ring::new(capacity)))
            .collect();
        Recorder { ids, all, logs }
    }

    /// The log of `agent`, if it is recorded. Every agent of a crowd asks,
    /// so the common answer, "no", is one or two comparisons.
    #[inline]
    fn log(&self, agent: u32) -> Option<&Mutex<Ring>> {
        let index = match (self.ids.first(), self.ids.last()) {
            (None, _) | (_, None) => (agent < self.all).then_some(agent as usize)?,
            (Some(&lo), Some(&hi)) if agent < lo || agent > hi => return None,
            _ => self.ids.binary_search(&agent).ok()?,
        };
        self.logs.get(index)
    }

    /// Whether `agent` is recorded.
    pub fn is_recorded(&self, agent: u32) -> bool {
        self.log(agent).is_some()
    }

    /// Tick `agent` once, recording its events and its root's status if it
    /// is selected; otherwise a plain `Agent::tick`.
    #[inline]
    pub fn tick<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        data: &mut A,
        world: &W,
    ) -> Status {
        match self.log(agent.id()) {
            None => agent.tick(tree, data, world),
            Some(log) => {
                let mut ring = lock(log);
                let mut sink = RingSink(&mut ring);
                let status = agent.tick_observed(tree, data, world, &mut sink);
                ring.push(Record {
                    tick: agent.ticks(),
                    agent: agent.id(),
                    what: What::Tick(status),
                });
                status
            }
        }
    }

    /// Every record kept, in trace order: by tick, then agent id, each
    /// agent's events in the order they happened. When an agent's log
    /// has overflowed, its oldest tick may have lost its first events, so
    /// its records start at the next tick.
    pub fn records(&self) -> Vec<Record> {
        let mut all = Vec::new();
        for log in &self.logs {
            let ring = lock(log);
            let first = ring.records().next().map(|r| r.tick);
            let partial = ring.dropped() > 0;
            all.extend(
                ring.records()
                    .filter(|r| !(partial && Some(r.tick) == first))
                    .copied(),
            );
        }
        // Stable: each agent's own order is kept.
        all.sort_by_key(|r| (r.tick, r.agent));
        all
    }

    /// Write [`Recorder::records`] as a trace, naming nodes from `shape`
    /// (the shape of the tree the agents ran).
    pub fn write_trace(&self, shape: &Shape, out: &mut impl Write) -> io::Result<()> {
        for record in self.records() {
            write_record(out, shape, &record)?;
        }
        Ok(())
    }

    /// Records dropped from full logs, over all agents.
    pub fn dropped(&self) -> u64 {
        self.logs.iter().map(|log| lock(log).dropped()).sum()
    }

    /// Memory the logs hold, in bytes: fixed when the recorder was made.
    pub fn memory_bytes(&self) -> usize {
        let per_log = self
            .logs
            .first()
            .map_or(0, |log| lock(log).capacity() * RECORD_BYTES);
        self.logs.len() * (per_log + size_of::<Mutex<Ring>>()) + self.ids.len() * 4
    }
}

/// A ring poisoned by a panicking observer still holds valid records.
fn lock(log: &Mutex<Ring>) -> MutexGuard<'_, Ring> {
    log.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The observer filling a ring.
struct RingSink<'r>(&'r mut Ring);

impl canopy_core::Observer for RingSink<'_> {
    #[inline]
    fn event(&mut self, event: canopy_core::Event) {
        self.0.push(Record::from(event));
    }
}
