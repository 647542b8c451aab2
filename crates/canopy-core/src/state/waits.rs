//! An agent's table of suspended async leaves.
//!
//! A [`Ticket`] names an entry of this table. Each entry has a 64-bit
//! generation that changes whenever the entry is released (its leaf
//! finished, or was aborted because a higher-priority branch took over). A
//! ticket whose generation no longer matches is stale and completing it
//! does nothing: it can never wake the wrong task, even when the entry has
//! been reused by a newer wait, and 64 bits never wrap in a real run. The
//! table also has a 64-bit number of its own, unique in the process and new
//! for every clone or restored copy of an agent, so a ticket completes only
//! the table that issued it — not another agent's, not a clone's.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::util::status::Status;
use crate::util::ticket::{Completion, Ticket};

/// One entry's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    Free,
    Pending,
    Done(Status),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) generation: u64,
    /// The async leaf waiting here.
    pub(crate) node: u32,
    pub(crate) wait: Wait,
    /// The agent's tick when this wait began (for a restored wait, the
    /// tick it was restored at): how long a request has been out.
    pub(crate) since: u32,
    /// How the last wait here ended, once free: what a stale ticket of it
    /// is told. Not saved in snapshots (a restored table has new tickets).
    pub(crate) ended: Ended,
}

/// How a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Unknown: it never waited, or it was restored.
    Unknown,
    /// Its leaf took the outcome and finished.
    Finished,
    /// Its leaf was aborted (or the agent reset) before that.
    Aborted,
}

/// A table number no other table in this process has had.
fn new_owner() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An agent's suspended async leaves. Sized once from the tree (how many
/// async leaves can wait at once), so claiming and releasing entries never
/// allocates.
#[derive(Debug)]
pub(crate) struct Waits {
    owner: u64,
    pub(crate) entries: Vec<Entry>,
}

impl Clone for Waits {
    /// A new table number, so that tickets of the original do not complete
    /// the clone's waits; and the capacity kept, so that the clone does not
    /// allocate when it ticks.
    fn clone(&self) -> Self {
        let mut entries = Vec::with_capacity(self.entries.capacity());
        entries.extend_from_slice(&self.entries);
        Waits {
            owner: new_owner(),
            entries,
        }
    }
}

impl Waits {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Waits {
            owner: new_owner(),
            entries: Vec::with_capacity(capacity),
        }
    }

    /// A free entry for `node`, with a generation no outstanding ticket has,
    /// waiting since tick `now`.
    pub(crate) fn claim(&mut self, agent: u32, node: u32, now: u32) -> (u32, Ticket) {
        let index = match self.entries.iter().position(|e| e.wait == Wait::Free) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    generation: 0,
                    node,
                    wait: Wait::Free,
                    since: now,
                    ended: Ended::Unknown,
                });
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[index];
        // 64 bits do not wrap in a real run; a restored table might start
        // anywhere, so this wraps rather than overflows.
        entry.generation = entry.generation.wrapping_add(1);
        entry.node = node;
        entry.wait = Wait::Pending;
        entry.since = now;
        entry.ended = Ended::Unknown;
        (index as u32, self.ticket(agent, index))
    }

    fn ticket(&self, agent: u32, index: usize) -> Ticket {
        let entry = &self.entries[index];
        Ticket {
            agent,
            node: entry.node,
            index: index as u32,
            generation: entry.generation,
            owner: self.owner,
        }
    }

    /// Release wait `index`: its leaf finished, or was `aborted`.
    pub(crate) fn release(&mut self, index: u32, aborted: bool) {
        if let Some(entry) = self.entries.get_mut(index as usize) {
            entry.wait = Wait::Free;
            entry.ended = if aborted {
                Ended::Aborted
            } else {
                Ended::Finished
            };
        }
    }

    /// Release every entry (a reset): every outstanding ticket goes stale.
    pub(crate) fn release_all(&mut self) {
        for entry in &mut self.entries {
            if entry.wait != Wait::Free {
                entry.wait = Wait::Free;
                entry.ended = Ended::Aborted;
            }
        }
    }

    /// The outcome of wait `index`, or `None` while it is pending.
    pub(crate) fn outcome(&self, index: u32) -> Option<Status> {
        match self.entries.get(index as usize).map(|e| e.wait) {
            Some(Wait::Done(status)) => Some(status),
            _ => None,
        }
    }

    /// Complete the wait a ticket names with `status` (not `Running`: the
    /// caller checked), or say why not.
    pub(crate) fn complete(&mut self, ticket: Ticket, status: Status) -> Completion {
        if ticket.owner != self.owner {
            return Completion::OtherCopy;
        }
        let Some(entry) = self.entries.get_mut(ticket.index as usize) else {
            return Completion::OtherAgent;
        };
        if entry.node != ticket.node {
            return Completion::OtherAgent;
        }
        if entry.generation != ticket.generation {
            // The entry waited again since: this ticket's wait ended.
            return Completion::Ended;
        }
        match (entry.wait, entry.ended) {
            (Wait::Pending, _) => {
                entry.wait = Wait::Done(status);
                Completion::Completed
            }
            (Wait::Done(_), _) => Completion::AlreadyCompleted,
            (Wait::Free, Ended::Aborted) => Completion::Aborted,
            (Wait::Free, _) => Completion::Ended,
        }
    }

    /// This table's ticket for the wait `old` names, if `old` was issued by
    /// a table this one was copied from and the wait is still pending.
    pub(crate) fn reissue(&self, old: Ticket) -> Option<Ticket> {
        let entry = self.entries.get(old.index as usize)?;
        let same = entry.generation == old.generation && entry.node == old.node;
        (same && entry.wait == Wait::Pending).then(|| self.ticket(old.agent, old.index as usize))
    }

    /// Tickets for every pending wait, for an agent with id `agent`.
    pub(crate) fn pending(&self, agent: u32) -> impl Iterator<Item = Ticket> + '_ {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].wait == Wait::Pending)
            .map(move |i| self.ticket(agent, i))
    }

    /// Entry `index`'s ticket (for an agent with id `agent`) and the tick
    /// its wait began, if it is pending.
    pub(crate) fn pending_at(&self, index: usize, agent: u32) -> Option<(Ticket, u32)> {
        let entry = self.entries.get(index)?;
        (entry.wait == Wait::Pending).then(|| (self.ticket(agent, index), entry.since))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * size_of::<Entry>()
    }
}
