//! Asynchronous leaves: "running — wake me when this completes".
//!
//! Some work does not fit in a tick: a path search on a worker thread, an
//! animation that ends when the renderer says so, a reply to a message. An
//! async leaf starts it and suspends; whoever finishes the work completes
//! the leaf's [`Ticket`] later, from outside the tick, with
//! [`Agent::complete`](crate::Agent::complete).
//!
//! A ticket is five numbers — `Send`, `Copy`, no reference count — naming an
//! entry in its agent's table of *waits*. Each entry has a generation that
//! changes whenever the entry is released (the leaf finished, or was
//! aborted because a higher-priority branch took over). A ticket whose
//! generation no longer matches is stale, and completing it does nothing:
//! it can never wake the wrong task, even when the entry has been reused by
//! a newer wait. Tickets also carry the node and a number unique to the
//! agent's wait table, so a ticket handed to another agent — even one with
//! the same id, as every agent made with `Agent::new` has — does nothing
//! either. (A clone of an agent keeps its waits: a ticket issued before the
//! clone completes the wait in either copy.)
//!
//! Tick-from-root polls a suspended leaf on every tick (one table read);
//! the event-driven scheduler does not look at it at all until its ticket is
//! completed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::behavior::{At, Runner};
use crate::context::Ctx;
use crate::observer::Observer;
use crate::pool::TaskPool;
use crate::status::Status;
use crate::tree::{NodeDef, NodeId};

/// Leaf code of a [`NodeKind::Async`](crate::NodeKind::Async): called once
/// when the leaf is entered, with the ticket that completes it. Returning
/// `Running` suspends the leaf until the ticket is completed; `Success` or
/// `Failure` ends it at once (the ticket is then stale).
pub type AsyncFn<A, W> = Arc<dyn Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync>;

/// The handle that completes one suspended async leaf of one agent.
///
/// Cheap to copy and `Send`: hand it to a worker thread, put it in a
/// message, store it in a job queue. Deliver it back to its agent with
/// [`Agent::complete`](crate::Agent::complete).
///
/// ```
/// use canopy_core::{Agent, Builder, Status, Ticket};
///
/// struct Npc { ticket: Option<Ticket> }
///
/// let b = Builder::<Npc, ()>::new();
/// let tree = b.build(b.async_action("ask", |cx, ticket| {
///     cx.agent.ticket = Some(ticket); // e.g. sent to a worker with the request
///     Status::Running
/// })).unwrap();
/// let mut npc = Npc { ticket: None };
/// let mut agent = Agent::new(&tree);
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Running); // still waiting
/// let ticket = npc.ticket.unwrap();
/// assert!(agent.complete(ticket, Status::Success));
/// assert!(!agent.complete(ticket, Status::Success)); // once only
/// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket {
    pub(crate) agent: u32,
    pub(crate) node: u32,
    pub(crate) index: u32,
    pub(crate) generation: u32,
    /// The wait table's own number.
    pub(crate) owner: u32,
}

impl Ticket {
    /// The id of the agent whose leaf this ticket completes
    /// ([`Agent::id`](crate::Agent::id)), for routing it back.
    pub fn agent(&self) -> u32 {
        self.agent
    }

    /// The async leaf that is waiting.
    pub fn node(&self) -> NodeId {
        NodeId(self.node)
    }
}

/// One entry of an agent's wait table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Free,
    Pending,
    Done(Status),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    generation: u32,
    /// The async leaf waiting here.
    node: u32,
    wait: Wait,
}

/// Numbers wait tables, so that tickets of different agents never match.
static NEXT_OWNER: AtomicU32 = AtomicU32::new(1);

/// An agent's suspended async leaves. Sized once from the tree (how many
/// async leaves can wait at once), so claiming and releasing entries never
/// allocates.
#[derive(Debug)]
pub(crate) struct Waits {
    owner: u32,
    entries: Vec<Entry>,
}

impl Clone for Waits {
    /// Keeps the capacity: a clone must not allocate when it ticks.
    fn clone(&self) -> Self {
        let mut entries = Vec::with_capacity(self.entries.capacity());
        entries.extend_from_slice(&self.entries);
        Waits {
            owner: self.owner,
            entries,
        }
    }
}

impl Waits {
    pub fn with_capacity(capacity: usize) -> Self {
        Waits {
            owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
            entries: Vec::with_capacity(capacity),
        }
    }

    /// A free entry for `node`, with a generation no outstanding ticket has.
    fn claim(&mut self, node: u32) -> (u32, u32) {
        let index = match self.entries.iter().position(|e| e.wait == Wait::Free) {
            Some(i) => i,
            None => {
                self.entries.push(Entry {
                    generation: 0,
                    node,
                    wait: Wait::Free,
                });
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[index];
        entry.generation = entry.generation.wrapping_add(1);
        entry.node = node;
        entry.wait = Wait::Pending;
        (index as u32, entry.generation)
    }

    fn release(&mut self, index: u32) {
        if let Some(entry) = self.entries.get_mut(index as usize) {
            entry.wait = Wait::Free;
        }
    }

    /// The outcome of wait `index`, or `None` while it is pending.
    pub fn outcome(&self, index: u32) -> Option<Status> {
        match self.entries.get(index as usize).map(|e| e.wait) {
            Some(Wait::Done(status)) => Some(status),
            _ => None,
        }
    }

    /// Complete the wait a ticket names; `false` if the ticket is stale.
    pub fn complete(&mut self, ticket: Ticket, status: Status) -> bool {
        match self.entries.get_mut(ticket.index as usize) {
            Some(entry)
                if ticket.owner == self.owner
                    && entry.generation == ticket.generation
                    && entry.node == ticket.node
                    && entry.wait == Wait::Pending
                    && status != Status::Running =>
            {
                entry.wait = Wait::Done(status);
                true
            }
            _ => false,
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * size_of::<Entry>()
    }
}

impl<A, W, P: TaskPool, O: Observer> Runner<'_, A, W, P, O> {
    /// An async leaf: start and suspend when entered, then report the
    /// outcome once its ticket has been completed.
    pub(crate) fn async_leaf(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        fresh: bool,
        cx: &mut Ctx<A, W>,
        start: &AsyncFn<A, W>,
        node: u32,
    ) -> Status {
        // Agents of trees with async leaves always have a wait table; the
        // `Failure`s below are for a table that is missing all the same.
        if !fresh {
            let index = self.wait_index(def, at);
            return match self.waits.as_deref().map(|w| w.outcome(index)) {
                Some(Some(status)) => {
                    self.release_wait(def, at);
                    status
                }
                Some(None) => Status::Running,
                None => Status::Failure,
            };
        }
        let Some(waits) = self.waits.as_deref_mut() else {
            return Status::Failure;
        };
        let (index, generation) = waits.claim(node);
        let ticket = Ticket {
            agent: cx.id,
            node,
            index,
            generation,
            owner: waits.owner,
        };
        let status = start(cx, ticket);
        self.set_u32(def, at, index);
        if status != Status::Running {
            self.release_wait(def, at);
        }
        status
    }

    /// The async leaf at `at` ends: its ticket goes stale.
    pub(crate) fn release_wait(&mut self, def: &NodeDef<A, W>, at: At) {
        let index = self.wait_index(def, at);
        if let Some(waits) = self.waits.as_deref_mut() {
            waits.release(index);
        }
    }

    /// The wait a suspended async leaf is on.
    pub(crate) fn wait_index(&mut self, def: &NodeDef<A, W>, at: At) -> u32 {
        self.get_u32(def, at)
    }
}
