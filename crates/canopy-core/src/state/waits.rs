//! An agent's table of suspended async leaves.
//!
//! A [`Ticket`] names an entry of this table. Each entry has a 61-bit
//! generation that changes whenever the entry is claimed for a new wait. A
//! ticket whose generation no longer matches is stale and completing it
//! does nothing: it can never wake the wrong task, even when the entry has
//! been reused by a newer wait, and 61 bits never wrap in a real run. The
//! table also has a 64-bit number of its own, unique in the process and new
//! for every clone or restored copy of an agent, so a ticket completes only
//! the table that issued it — not another agent's, not a clone's.
//!
//! What it costs: an agent whose tree has async leaves carries this table
//! in its boxed [`Extra`](super::Extra) block (40 bytes) plus 16 bytes per
//! async leaf that can wait at once — 56 bytes for one async leaf, often
//! more than the agent's task memory. The entry packs its generation and
//! its state into one word (a separate state byte would pad it to 24), and
//! the table is a boxed slice, not a `Vec` (every entry exists from the
//! start, unused ones free: no length word). Rejected: 32-bit generations
//! (a busy leaf could see one wrap in a long run, and a wrapped ticket
//! would complete the wrong wait); dropping the node (a ticket names its
//! leaf, and a snapshot is checked against it).

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

/// Bits of an entry's word that hold its state; the generation is above.
const STATE_BITS: u32 = 3;
const STATE_MASK: u64 = (1 << STATE_BITS) - 1;
/// Generations are counted in the word's other 61 bits (and wrap there):
/// at one wait a tick, 60 ticks a second, that is a billion years.
pub(crate) const GENERATION_MASK: u64 = u64::MAX >> STATE_BITS;

/// The state codes, the same as a snapshot's: free (never waited, or
/// restored), pending, completed with Success, with Failure, free after
/// its leaf was aborted, free after its leaf finished.
const FREE: u8 = 0;
const PENDING: u8 = 1;
const SUCCEEDED: u8 = 2;
const FAILED: u8 = 3;
const ABORTED: u8 = 4;
const FINISHED: u8 = 5;

/// One wait: 16 bytes. Its generation and state share one word — with a
/// separate state byte, alignment would make it 24.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// The generation (61 bits), then the state code (3 bits).
    word: u64,
    /// The async leaf waiting here (or that waited last).
    pub(crate) node: u32,
    /// The agent's tick when this wait began (for a restored wait, the
    /// tick it was restored at): how long a request has been out.
    pub(crate) since: u32,
}

impl Entry {
    /// An entry that never waited.
    const UNUSED: Entry = Entry {
        word: FREE as u64,
        node: 0,
        since: 0,
    };

    /// An entry as a snapshot saved it (`state` one of the codes above,
    /// the generation taken modulo 2⁶¹), or `None` for an unknown state.
    pub(crate) fn from_saved(generation: u64, node: u32, state: u8, since: u32) -> Option<Entry> {
        (state <= FINISHED).then_some(Entry {
            word: ((generation & GENERATION_MASK) << STATE_BITS) | u64::from(state),
            node,
            since,
        })
    }

    /// The state code a snapshot saves.
    pub(crate) fn saved_state(&self) -> u8 {
        (self.word & STATE_MASK) as u8
    }

    pub(crate) fn generation(&self) -> u64 {
        self.word >> STATE_BITS
    }

    fn set_state(&mut self, state: u8) {
        self.word = (self.word & !STATE_MASK) | u64::from(state);
    }

    pub(crate) fn wait(&self) -> Wait {
        match self.saved_state() {
            PENDING => Wait::Pending,
            SUCCEEDED => Wait::Done(Status::Success),
            FAILED => Wait::Done(Status::Failure),
            _ => Wait::Free,
        }
    }

    /// How the last wait here ended, once free: what a stale ticket of it
    /// is told. A restored free entry says `Unknown` only if its snapshot
    /// did not know either.
    pub(crate) fn ended(&self) -> Ended {
        match self.saved_state() {
            ABORTED => Ended::Aborted,
            FINISHED => Ended::Finished,
            _ => Ended::Unknown,
        }
    }

    /// Whether this entry never waited (so a snapshot may leave it out).
    pub(crate) fn unused(&self) -> bool {
        self.word == Entry::UNUSED.word
    }
}

/// A table number no other table in this process has had.
fn new_owner() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An agent's suspended async leaves. Sized once from the tree (how many
/// async leaves can wait at once, capped: past the cap it doubles when
/// full), so claiming and releasing entries never allocates. A boxed slice
/// rather than a `Vec`: every entry exists from the start (unused ones are
/// free), which saves the length word.
#[derive(Debug)]
pub(crate) struct Waits {
    owner: u64,
    pub(crate) entries: Box<[Entry]>,
}

impl Clone for Waits {
    /// A new table number, so that tickets of the original do not complete
    /// the clone's waits.
    fn clone(&self) -> Self {
        Waits {
            owner: new_owner(),
            entries: self.entries.clone(),
        }
    }
}

impl Waits {
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Waits {
            owner: new_owner(),
            entries: vec![Entry::UNUSED; capacity].into_boxed_slice(),
        }
    }

    /// A table of these entries (a restored one), with room for at least
    /// `capacity`.
    pub(crate) fn restored(entries: &[Entry], capacity: usize) -> Self {
        let mut all = vec![Entry::UNUSED; entries.len().max(capacity)];
        all[..entries.len()].copy_from_slice(entries);
        Waits {
            owner: new_owner(),
            entries: all.into_boxed_slice(),
        }
    }

    /// The entries a snapshot keeps: all but the unused ones at the end.
    pub(crate) fn used(&self) -> &[Entry] {
        let len = self
            .entries
            .iter()
            .rposition(|e| !e.unused())
            .map_or(0, |i| i + 1);
        &self.entries[..len]
    }

    /// A free entry for `node`, with a generation no outstanding ticket has,
    /// waiting since tick `now`.
    pub(crate) fn claim(&mut self, agent: u32, node: u32, now: u32) -> (u32, Ticket) {
        let index = match self.entries.iter().position(|e| e.wait() == Wait::Free) {
            Some(i) => i,
            None => self.grow(),
        };
        let entry = &mut self.entries[index];
        // 61 bits do not wrap in a real run; a restored table might start
        // anywhere, so this wraps rather than overflows.
        let generation = entry.generation().wrapping_add(1) & GENERATION_MASK;
        entry.word = (generation << STATE_BITS) | u64::from(PENDING);
        entry.node = node;
        entry.since = now;
        (index as u32, self.ticket(agent, index))
    }

    /// Double the table (it was full: more leaves wait at once than its
    /// first capacity allowed), and return the first new entry.
    #[cold]
    fn grow(&mut self) -> usize {
        let len = self.entries.len();
        let doubled = len.saturating_mul(2).max(1);
        let mut all = Vec::with_capacity(doubled);
        all.extend_from_slice(&self.entries);
        all.resize(doubled, Entry::UNUSED);
        self.entries = all.into_boxed_slice();
        len
    }

    fn ticket(&self, agent: u32, index: usize) -> Ticket {
        let entry = &self.entries[index];
        Ticket {
            agent,
            node: entry.node,
            index: index as u32,
            generation: entry.generation(),
            owner: self.owner,
        }
    }

    /// The ticket wait `index` was claimed with, while it is held (pending
    /// or completed but not yet taken by its leaf).
    pub(crate) fn held(&self, agent: u32, index: u32) -> Option<Ticket> {
        let entry = self.entries.get(index as usize)?;
        (entry.wait() != Wait::Free).then(|| self.ticket(agent, index as usize))
    }

    /// Release wait `index`: its leaf finished, or was `aborted`.
    pub(crate) fn release(&mut self, index: u32, aborted: bool) {
        if let Some(entry) = self.entries.get_mut(index as usize) {
            entry.set_state(if aborted { ABORTED } else { FINISHED });
        }
    }

    /// Release every entry (a reset): every outstanding ticket goes stale.
    pub(crate) fn release_all(&mut self) {
        for entry in &mut self.entries {
            if entry.wait() != Wait::Free {
                entry.set_state(ABORTED);
            }
        }
    }

    /// The outcome of wait `index`, or `None` while it is pending.
    pub(crate) fn outcome(&self, index: u32) -> Option<Status> {
        match self.entries.get(index as usize).map(Entry::wait) {
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
        // This table issued it: its index and generation name the wait
        // (its node may have been renumbered by a reload since).
        let Some(entry) = self.entries.get_mut(ticket.index as usize) else {
            return Completion::OtherAgent;
        };
        if entry.generation() != ticket.generation {
            // The entry waited again since: this ticket's wait ended.
            return Completion::Ended;
        }
        match (entry.wait(), entry.ended()) {
            (Wait::Pending, _) => {
                entry.set_state(if status == Status::Success {
                    SUCCEEDED
                } else {
                    FAILED
                });
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
        let same = entry.generation() == old.generation && entry.node == old.node;
        (same && entry.wait() == Wait::Pending).then(|| self.ticket(old.agent, old.index as usize))
    }

    /// Tickets for every pending wait, for an agent with id `agent`.
    pub(crate) fn pending(&self, agent: u32) -> impl Iterator<Item = Ticket> + '_ {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].wait() == Wait::Pending)
            .map(move |i| self.ticket(agent, i))
    }

    /// Entry `index`'s ticket (for an agent with id `agent`) and the tick
    /// its wait began, if it is pending.
    pub(crate) fn pending_at(&self, index: usize, agent: u32) -> Option<(Ticket, u32)> {
        let entry = self.entries.get(index)?;
        (entry.wait() == Wait::Pending).then(|| (self.ticket(agent, index), entry.since))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        size_of_val::<[Entry]>(&self.entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_16_bytes_and_the_table_24() {
        assert_eq!(size_of::<Entry>(), 16);
        assert_eq!(size_of::<Waits>(), 24);
    }

    #[test]
    fn generations_wrap_at_61_bits_and_keep_the_state_apart() {
        let mut waits = Waits::restored(
            &[Entry::from_saved(GENERATION_MASK, 7, ABORTED, 0).unwrap()],
            1,
        );
        let (index, ticket) = waits.claim(0, 7, 5);
        assert_eq!((index, ticket.generation), (0, 0));
        assert_eq!(waits.entries[0].wait(), Wait::Pending);
        assert_eq!(
            waits.complete(ticket, Status::Failure),
            Completion::Completed
        );
        assert_eq!(waits.outcome(0), Some(Status::Failure));
        assert_eq!(waits.entries[0].generation(), 0);
        waits.release(0, true);
        assert_eq!(waits.complete(ticket, Status::Success), Completion::Aborted);
    }

    #[test]
    fn a_full_table_doubles() {
        let mut waits = Waits::with_capacity(1);
        assert_eq!(waits.claim(0, 1, 0).0, 0);
        assert_eq!(waits.claim(0, 2, 0).0, 1);
        assert_eq!(waits.claim(0, 3, 0).0, 2);
        assert_eq!(waits.entries.len(), 4);
        assert_eq!(waits.used().len(), 3);
    }
}
