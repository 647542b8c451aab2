//! The interface between a node kind's code and the engine that runs it.
//!
//! A kind's semantics (in [`nodes`](crate::nodes)) are written as functions
//! of an [`Exec`]: a handle on *its own* running task, through which it
//! reads and writes its state and runs or aborts its children. The engine
//! implements `Exec` once, for its task handles, and everything is
//! monomorphised and inlined, so the indirection costs nothing at run time.
//! This is what keeps each kind's whole story in one file while the engine
//! — installing, counting, observing, memory — stays in one place too.

use crate::util::context::Ctx;
use crate::util::status::Status;
use crate::util::ticket::Ticket;

/// How a task is being updated. Tick-from-root only ever installs
/// (`Fresh`) or resumes (`Resume`); the event-driven scheduler also wakes a
/// parent because one of its children finished (`ChildDone`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visit {
    /// The update right after install.
    Fresh,
    /// A later update: the task resumes its running children.
    Resume,
    /// Child `child` of this running task finished with `status` and is
    /// already uninstalled. The task reacts exactly as its update would
    /// have on seeing that status, and updates no other running child:
    /// the scheduler updates those itself, in tree order.
    ChildDone { child: u16, status: Status },
}

impl Visit {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn of(fresh: bool) -> Visit {
        if fresh { Visit::Fresh } else { Visit::Resume }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn is_fresh(self) -> bool {
        self == Visit::Fresh
    }
}

/// When the event-driven scheduler must update a running task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// Only when a child finishes; its running children have frames.
    Pass,
    /// Like `Pass` until this tick, then updated (a Timeout's deadline).
    Deadline(u32),
    /// Every tick, with no frames below it (leaves and the nodes whose
    /// subtree runs tick-from-root).
    Always,
    /// On the next tick, which installs its child (a Repeat or Retry
    /// between cycles).
    Restart,
    /// At this tick (a Wait's end).
    At(u32),
    /// When wait `index` is completed (an async leaf).
    Suspended(u32),
    /// Never (AlwaysRunning).
    Never,
    /// Scheduler only: not a running task any more — its parallel has
    /// taken its result this tick. Removed, all at once, when the tick ends.
    Gone,
}

/// A node kind's handle on its own running task.
pub(crate) trait Exec<A, W> {
    /// The task's own state (the kind's `Facts::own` bytes; zeroed when
    /// the agent was created, otherwise left as the last task there left it).
    fn state(&mut self) -> &mut [u8];

    /// [`state`](Exec::state) for a kind whose state is always `N` bytes
    /// (its `Facts::own`): an array, so that reading and writing its fields
    /// needs no bounds check beyond the one that makes it.
    fn state_array<const N: usize>(&mut self) -> &mut [u8; N];

    /// The node's memory that outlives activations: its `Facts::persist`
    /// bytes, `N`.
    fn persist<const N: usize>(&mut self) -> &mut [u8; N];

    /// How many children the node has.
    fn children(&self) -> usize;

    /// Update child `child`, whose task lives in behavior slot `slot`,
    /// installing it first when `fresh`. A child that finishes is
    /// uninstalled at once.
    fn run(&mut self, child: usize, slot: usize, fresh: bool, cx: &mut Ctx<A, W>) -> Status;

    /// Abort the running child `child` in slot `slot`: its own running
    /// children first (deepest first), then itself.
    fn abort(&mut self, child: usize, slot: usize, cx: &mut Ctx<A, W>);

    /// Claim a wait of the agent's wait table for this (async) node and
    /// the ticket that completes it; `None` if the agent has no table.
    fn claim_wait(&mut self, cx: &Ctx<A, W>) -> Option<(u32, Ticket)>;

    /// The outcome of wait `index`: `Some(None)` while pending, `None` if
    /// the agent has no table.
    fn wait_outcome(&self, index: u32) -> Option<Option<Status>>;

    /// Release wait `index` (its leaf finished, or was `aborted`): its
    /// ticket goes stale.
    fn release_wait(&mut self, index: u32, aborted: bool);

    /// The ticket wait `index` was claimed with (for agent `agent`), while
    /// it is held: pending, or completed and not yet taken.
    fn held_wait(&self, index: u32, agent: u32) -> Option<Ticket>;

    /// Tell the observer that this async leaf was aborted while it held
    /// the wait of `ticket`.
    fn wait_aborted(&mut self, ticket: Ticket);
}

/// The status of child `child` as a parent's update sees it: run it, unless
/// the parent is being told that a child finished. Then the finished child
/// reports its status and the others, still running, report `Running`
/// without being updated.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn visit_child<A, W, E: Exec<A, W>>(
    t: &mut E,
    visit: Visit,
    child: usize,
    slot: usize,
    fresh: bool,
    cx: &mut Ctx<A, W>,
) -> Status {
    if let Visit::ChildDone {
        child: done,
        status,
    } = visit
        && !fresh
    {
        return if done as usize == child {
            status
        } else {
            Status::Running
        };
    }
    t.run(child, slot, fresh, cx)
}

/// Little-endian fields at the start of a task's state. Tasks are
/// byte-addressed so that memory needs no alignment.
pub(crate) mod bytes {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn u16_at(m: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([m[at], m[at + 1]])
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn set_u16_at(m: &mut [u8], at: usize, value: u16) {
        m[at..at + 2].copy_from_slice(&value.to_le_bytes());
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn u32_at(m: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([m[at], m[at + 1], m[at + 2], m[at + 3]])
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn set_u32_at(m: &mut [u8], at: usize, value: u32) {
        m[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
}
