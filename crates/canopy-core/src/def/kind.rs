//! What a node kind is to the engine: the [`Kind`] interface every kind's
//! file implements, and the [`Facts`] about a kind that the tree's layout
//! and the event-driven scheduler need.
//!
//! A kind is one file under [`nodes`](crate::nodes) plus one line in the
//! table there. Its facts are one required method returning a struct
//! literal, so a forgotten fact is a compile error, not a default; so are
//! its update, where its running child is, and what happens to it on a hot
//! reload — the three behaviours with no answer that suits every kind. The
//! rest has defaults that are right for a kind that does not use the
//! feature (no state to check, no wait to hold, nothing to say to an
//! inspector), and [`one_child`] and [`leaf`] write the common shapes in one
//! line each.

use crate::def::exec::{Exec, Visit, Wake};
use crate::util::context::Ctx;
use crate::util::status::{Exit, Status};

/// How a node's behavior slots — the places its children's tasks are
/// installed — map to its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotPlan {
    /// Leaves.
    None,
    /// One slot shared by all children, which run one at a time.
    Shared,
    /// Two slots: the running child and the one being re-checked. The
    /// last child is never re-checked while another runs, so the second
    /// slot need not fit it.
    Reactive,
    /// One slot per child: they may all run at once.
    PerChild,
}

impl SlotPlan {
    /// How many slots a node with `children` children has.
    pub(crate) fn count(self, children: usize) -> usize {
        match self {
            SlotPlan::None => 0,
            SlotPlan::Shared => usize::from(children > 0),
            SlotPlan::Reactive => 2.min(children),
            SlotPlan::PerChild => children,
        }
    }
}

/// How the event-driven scheduler treats a running task of a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sched {
    /// Passes ticks through: its running children have frames of their
    /// own, and it is updated only when one of them finishes (or at a
    /// moment of its own, see [`Wake`]).
    Passive,
    /// Updated on every tick, with nothing below it scheduled: the subtree
    /// runs tick-from-root (user code, reactive nodes).
    EveryTick,
    /// A leaf that says itself when it must be updated (a Wait's end, an
    /// async leaf's completion, never).
    OnItsOwn,
}

/// What the tree's layout and the scheduler know about a kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts {
    /// Bytes of its task's own state.
    pub(crate) own: u32,
    /// Bytes it keeps per agent across activations (per place in the
    /// tree), as little-endian `u32` words. Zero in a new agent.
    pub(crate) persist: u32,
    /// Whether those words are ticks on the agent's clock, from which the
    /// node is free again (a reached one means "free"). The agent moves
    /// reached ones up to the present every 2³⁰ ticks (see `Agent::tick`),
    /// so none ages into the range where wrapping comparisons would misread
    /// it, and a hot reload sets the ones it cannot carry to "now". Other
    /// words (a child index, a remembered status) are left alone by the
    /// clock and start at zero after a reload; the tree lists where the
    /// tick words are ([`Tree::tick_words`](crate::Tree)).
    pub(crate) persist_ticks: bool,
    /// Where its children's tasks live.
    pub(crate) slots: SlotPlan,
    /// How the event-driven scheduler treats it.
    pub(crate) sched: Sched,
    /// Suspended waits a running task of this kind holds itself.
    pub(crate) waits: u32,
}

impl Facts {
    /// A leaf without state, updated every tick; write what differs with
    /// `Facts { own: 4, ..Facts::LEAF }`.
    pub(crate) const LEAF: Facts = Facts {
        own: 0,
        persist: 0,
        persist_ticks: false,
        slots: SlotPlan::None,
        sched: Sched::EveryTick,
        waits: 0,
    };

    /// A decorator without state whose child runs in its one slot and
    /// which the scheduler passes over while the child runs.
    pub(crate) const DECORATOR: Facts = Facts {
        slots: SlotPlan::Shared,
        sched: Sched::Passive,
        ..Facts::LEAF
    };

    /// A composite without state whose children run one at a time in one
    /// slot, passed over by the scheduler while one runs (the same facts as
    /// a decorator's: the arity is the kind's, not a fact of its memory).
    pub(crate) const COMPOSITE: Facts = Facts::DECORATOR;
}

/// Everything the engine, the layout, the scheduler, the inspector,
/// snapshots and hot reload ask of one kind of node.
///
/// Required: the facts, the update, where the running children are, and
/// what a hot reload does to a running task. The rest defaults to what a
/// kind without that feature needs.
pub(crate) trait Kind<A, W> {
    /// What the layout and the scheduler need to know.
    fn facts(&self, children: usize) -> Facts;

    /// Advance the task: its first update, a later one, or the reaction
    /// to a finished child.
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status;

    /// The first running child at index `from` or later, and its slot,
    /// read from the state of a running task.
    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)>;

    /// Rewrite a running task's state for an edited tree (hot reload):
    /// `old` is its state, `new` (zeroed) its state in the new tree, and
    /// `carry` says where each child went. `false` if the task cannot go
    /// on without a running child that was lost.
    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool;

    /// What is wrong with the node's parameters for this many children,
    /// if anything (the child count itself is checked against
    /// `Facts::arity` separately).
    fn check(&self, children: usize) -> Option<String> {
        let _ = children;
        None
    }

    /// The task was just installed; its first update follows.
    fn enter<E: Exec<A, W>>(&self, t: &mut E, cx: &mut Ctx<A, W>) {
        let _ = (t, cx);
    }

    /// The task ends: it finished, or it was aborted after its running
    /// children were.
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, cx: &mut Ctx<A, W>) {
        let _ = (t, exit, cx);
    }

    /// Whether `state` is a state a running task of this kind can be in
    /// (checked before a restored agent's memory is used).
    fn valid(&self, state: &[u8], children: usize) -> bool {
        let _ = (state, children);
        true
    }

    /// Whether `persist` — this node's persistent words in a restored
    /// agent whose clock reads `now` — is memory this kind can have left
    /// (a cooldown that ends no later than its length after now). Checked
    /// before a restored agent is used, so that damaged or forged bytes
    /// are refused instead of changing what the agent does.
    fn persist_valid(&self, persist: &[u8], children: usize, now: u32) -> bool {
        let _ = (persist, children, now);
        true
    }

    /// When the event-driven scheduler must update the running task.
    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        let _ = t;
        Wake::Pass
    }

    /// The agent's wait that a running task with this state holds, if any.
    fn holds_wait(&self, state: &[u8]) -> Option<u32> {
        let _ = state;
        None
    }

    /// The running task's state in words, for inspectors (`now` is the
    /// agent's current tick).
    fn describe(&self, state: &[u8], children: usize, now: u32) -> String {
        let _ = (state, children, now);
        String::new()
    }
}

/// A kind that is one member of a family sharing one implementation
/// (Sequence and Selector are one loop with another status to go on with):
/// its [`Kind`] is its family's, through [`Member::family`]. Families hold
/// no code, so the trait needs no `A` and `W` (which also keeps its
/// blanket [`Kind`] apart from every other kind's, for coherence).
pub(crate) trait Member {
    /// The family's implementation, configured for this member.
    type Family;

    /// This member as its family sees it.
    fn family(&self) -> Self::Family;
}

impl<A, W, T: Member> Kind<A, W> for T
where
    T::Family: Kind<A, W>,
{
    fn facts(&self, children: usize) -> Facts {
        self.family().facts(children)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        self.family().update(t, visit, cx)
    }

    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)> {
        self.family().next_running(state, children, from)
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        self.family().carry(old, new, carry)
    }

    fn check(&self, children: usize) -> Option<String> {
        self.family().check(children)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enter<E: Exec<A, W>>(&self, t: &mut E, cx: &mut Ctx<A, W>) {
        self.family().enter(t, cx)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end<E: Exec<A, W>>(&self, t: &mut E, exit: Exit, cx: &mut Ctx<A, W>) {
        self.family().end(t, exit, cx)
    }

    fn valid(&self, state: &[u8], children: usize) -> bool {
        self.family().valid(state, children)
    }

    fn persist_valid(&self, persist: &[u8], children: usize, now: u32) -> bool {
        self.family().persist_valid(persist, children, now)
    }

    fn wake<E: Exec<A, W>>(&self, t: &mut E) -> Wake {
        self.family().wake(t)
    }

    fn holds_wait(&self, state: &[u8]) -> Option<u32> {
        self.family().holds_wait(state)
    }

    fn describe(&self, state: &[u8], children: usize, now: u32) -> String {
        self.family().describe(state, children, now)
    }
}

/// Where the children of a running task went in an edited tree.
pub(crate) struct Carry<'m> {
    /// For each old child: its index among the new children, if a child
    /// with its name and type is there.
    pub(crate) to_new: &'m [Option<u32>],
    /// For each old child: it was running and goes on running (its own
    /// state carried over) at its new index.
    pub(crate) kept: &'m [bool],
    /// How many children the node has in the new tree.
    pub(crate) new_children: usize,
}

impl Carry<'_> {
    /// The new index of old child `old` if it was running and goes on.
    pub(crate) fn kept_at(&self, old: usize) -> Option<usize> {
        match (self.kept.get(old), self.to_new.get(old)) {
            (Some(true), Some(Some(new))) => Some(*new as usize),
            _ => None,
        }
    }

    /// Where an in-order parent goes on after its running child `old` was
    /// lost: just after the last of the children before it that are in the
    /// new tree (so a renamed child is entered afresh, a removed one is
    /// passed over).
    pub(crate) fn resume_at(&self, old: usize) -> usize {
        self.to_new[..old.min(self.to_new.len())]
            .iter()
            .flatten()
            .map(|&new| new as usize + 1)
            .max()
            .unwrap_or(0)
    }
}

/// The common shape of a decorator whose child, when the decorator runs,
/// is always running in its one slot (an Inverter, a Guard, a Cooldown).
pub(crate) mod one_child {
    use super::Carry;

    /// [`Kind::next_running`](super::Kind::next_running): the one child.
    pub(crate) fn next_running(from: usize) -> Option<(usize, usize)> {
        (from == 0).then_some((0, 0))
    }

    /// [`Kind::carry`](super::Kind::carry): the state as it was; the
    /// child is its reason to run, so without it the task is lost too.
    pub(crate) fn carry(old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        new.copy_from_slice(old);
        carry.kept_at(0).is_some()
    }
}

/// The common shape of a leaf.
pub(crate) mod leaf {
    /// [`Kind::next_running`](super::Kind::next_running): no children.
    pub(crate) fn next_running() -> Option<(usize, usize)> {
        None
    }

    /// [`Kind::carry`](super::Kind::carry): a leaf's state means the same
    /// in the edited tree.
    pub(crate) fn carry(old: &[u8], new: &mut [u8]) -> bool {
        new.copy_from_slice(old);
        true
    }
}
