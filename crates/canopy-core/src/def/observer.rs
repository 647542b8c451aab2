//! Watching a tree run: every install, update, finish and abort, as it
//! happens (indented tick logging, as data instead of prints).
//!
//! The engine is generic over the observer, and the unit type `()` is the
//! observer that does nothing: its empty, inlined method makes every event
//! site vanish from [`Agent::tick`](crate::Agent::tick), so an unobserved
//! tick pays nothing and allocates nothing. Pass a real observer to
//! [`Agent::tick_observed`](crate::Agent::tick_observed) to see events.

use crate::util::primitives::NodeId;
use crate::util::status::Status;
use crate::util::ticket::Ticket;

/// What happened to a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The node's task was installed (created); its first update follows.
    Enter,
    /// The task was updated and returned this status. Composites report
    /// after their children.
    Update(Status),
    /// The task finished with this status and was uninstalled.
    Exit(Status),
    /// The task was still running and was aborted (deepest task first).
    Abort,
}

impl EventKind {
    /// The event's name in traces: `enter`, `update`, `exit` or `abort`.
    ///
    /// ```
    /// use canopy_core::{EventKind, Status};
    /// assert_eq!(EventKind::Update(Status::Running).name(), "update");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Enter => "enter",
            EventKind::Update(_) => "update",
            EventKind::Exit(_) => "exit",
            EventKind::Abort => "abort",
        }
    }
}

/// One observed event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The agent's tick number (from 1).
    pub tick: u32,
    /// The agent's id.
    pub agent: u32,
    /// The node whose task this is.
    pub node: NodeId,
    /// What happened.
    pub kind: EventKind,
}

/// Receives events from [`Agent::tick_observed`](crate::Agent::tick_observed).
///
/// ```
/// use canopy_core::{Agent, Builder, Event, EventKind, Observer, Status};
///
/// struct Log(Vec<String>);
/// impl Observer for Log {
///     fn event(&mut self, e: Event) {
///         self.0.push(format!("{}:{:?}", e.node.index(), e.kind));
///     }
/// }
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.inverter("not", b.always_failure("no"))).unwrap();
/// let mut log = Log(Vec::new());
/// let status = Agent::new(&tree).tick_observed(&tree, &mut (), &(), &mut log);
/// assert_eq!(status, Status::Success);
/// assert_eq!(log.0, [
///     "0:Enter", "1:Enter", "1:Update(Failure)", "1:Exit(Failure)",
///     "0:Update(Success)", "0:Exit(Success)",
/// ]);
/// ```
pub trait Observer {
    /// Whether this observer receives events at all; leave the default.
    /// `()` says `false`: it ignores them, so the engine skips reporting
    /// them, and may merge the hooks of a user node's visit into one call,
    /// since no event can be reported between them. An observer saying
    /// `false` is never called. The engine asks often, so the answer must
    /// not change during a tick.
    ///
    /// A method rather than an associated constant so that `dyn Observer`
    /// stays possible; for a concrete type it is inlined to a constant,
    /// which is what lets `Agent::tick` drop the reporting code entirely.
    #[inline(always)]
    fn observes(&self) -> bool {
        true
    }

    /// Called for every event, in the order they happen.
    fn event(&mut self, event: Event);

    /// An async leaf, `node`, was aborted while it held the wait of
    /// `ticket` (it was waiting for the ticket, or had not taken its
    /// result yet): whatever works on that request can stop. Called once
    /// per abort, just before the `Abort` event of the leaf, in either
    /// mode, and whatever [`observes`](Observer::observes) says: an
    /// observer that wants only this says `false` there and costs a tick
    /// nothing but its aborts. The default does nothing.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Event, NodeId, Observer, Status, Ticket};
    ///
    /// /// Collects the tickets of aborted waits, and nothing else.
    /// struct Cancelled(Vec<Ticket>);
    /// impl Observer for Cancelled {
    ///     fn observes(&self) -> bool { false }
    ///     fn event(&mut self, _: Event) {}
    ///     fn wait_aborted(&mut self, _node: NodeId, ticket: Ticket) { self.0.push(ticket); }
    /// }
    ///
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.timeout("give up", 2, b.async_action("ask", |_, _| Status::Running)))
    ///     .unwrap();
    /// let (mut agent, mut cancelled) = (Agent::new(&tree), Cancelled(Vec::new()));
    /// for _ in 0..3 {
    ///     agent.tick_observed(&tree, &mut (), &(), &mut cancelled);
    /// }
    /// assert_eq!(cancelled.0.len(), 1); // the timeout aborted the wait
    /// ```
    #[inline(always)]
    fn wait_aborted(&mut self, node: NodeId, ticket: Ticket) {
        let _ = (node, ticket);
    }
}

/// The observer that ignores everything; what [`Agent::tick`](crate::Agent::tick) uses.
impl Observer for () {
    #[inline(always)]
    fn observes(&self) -> bool {
        false
    }

    #[inline(always)]
    fn event(&mut self, _event: Event) {}
}

impl<O: Observer + ?Sized> Observer for &mut O {
    #[inline(always)]
    fn observes(&self) -> bool {
        (**self).observes()
    }

    #[inline]
    fn event(&mut self, event: Event) {
        (**self).event(event)
    }

    #[inline]
    fn wait_aborted(&mut self, node: NodeId, ticket: Ticket) {
        (**self).wait_aborted(node, ticket)
    }
}
