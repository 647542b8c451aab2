//! What leaf code sees while it runs, and the types of leaf code.
//!
//! The tree is generic over two plain types chosen by the user: `A`, one
//! agent's own data, and `W`, the shared world. A tick borrows them only for
//! its duration — `&mut A` for the agent being ticked and `&W` for the world —
//! so a [`Tree<A, W>`](crate::Tree) stores no references, is `Send + Sync`,
//! and any number of threads can tick disjoint agents against one world at
//! the same time. No `Rc`, `RefCell`, lock or clone is needed: the borrow
//! checker proves the parallel tick safe (see the crate docs for a rayon
//! example).
//!
//! Considered and rejected: a context *family* trait with a generic
//! associated type for borrowed views (more flexible, but every signature
//! pays in lifetimes and error messages), and bonsai-bt's split where the tree
//! stores action values and a handler closure runs them at tick time (the
//! leaf code then lives outside the tree, so a shared definition cannot carry
//! its behaviour and every caller must re-supply it).

use std::fmt;
use std::sync::Arc;

use crate::util::board::Board;
use crate::util::status::Status;
use crate::util::ticket::Ticket;

/// Leaf code of an [`NodeKind::Action`](crate::NodeKind::Action): may change
/// the agent, reads the world.
pub type ActionFn<A, W> = Arc<dyn Fn(&mut Ctx<A, W>) -> Status + Send + Sync>;

/// Leaf code of a [`NodeKind::Condition`](crate::NodeKind::Condition) or a
/// guard: reads only.
pub type ConditionFn<A, W> = Arc<dyn Fn(&Ctx<A, W>) -> bool + Send + Sync>;

/// Leaf code of a [`NodeKind::Async`](crate::NodeKind::Async): called once
/// when the leaf is entered, with the ticket that completes it. Returning
/// `Running` suspends the leaf until the ticket is completed; `Success` or
/// `Failure` ends it at once (the ticket is then stale).
pub type AsyncFn<A, W> = Arc<dyn Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync>;

/// An async leaf's code for its abort
/// ([`Builder::async_action_with_abort`](crate::Builder::async_action_with_abort)):
/// called when the leaf is aborted while it waits — its parent moved on,
/// a Timeout fired, the agent was [reset](crate::Agent::reset), a
/// [reload](crate::Agent::reload) removed it — with the ticket its start
/// code was given, so that the work done for it can be dropped. Once per
/// abort, in either mode, deepest task first like every terminate hook;
/// never when the leaf finished, and also when the ticket had been
/// completed but the leaf had not taken the result yet (it never will).
/// Not called by a reset of a poisoned agent (which runs no code), nor
/// when an agent is dropped.
pub type AbortFn<A, W> = Arc<dyn Fn(&mut Ctx<A, W>, Ticket) + Send + Sync>;

/// A guard's condition together with a label for printing the tree.
pub struct Predicate<A, W> {
    /// Shown by tree printers as the guard's `condition` parameter.
    pub label: Option<String>,
    /// The check itself.
    pub check: ConditionFn<A, W>,
}

impl<A, W> fmt::Debug for Predicate<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Predicate")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl<A, W> Predicate<A, W> {
    /// A labelled condition.
    ///
    /// ```
    /// use canopy_core::context::Predicate;
    /// let hungry = Predicate::<u32, ()>::new("hungry", |cx| *cx.agent > 5);
    /// assert_eq!(hungry.label.as_deref(), Some("hungry"));
    /// ```
    pub fn new<F>(label: impl Into<String>, check: F) -> Self
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        Predicate {
            label: Some(label.into()),
            check: Arc::new(check),
        }
    }
}

impl<A, W> Clone for Predicate<A, W> {
    fn clone(&self) -> Self {
        Predicate {
            label: self.label.clone(),
            check: Arc::clone(&self.check),
        }
    }
}

/// The borrowed view a leaf works with during one tick of one agent.
///
/// ```
/// use canopy_core::{Builder, Agent, Ctx, Status};
///
/// struct Me { energy: i32 }
/// struct World { regen: i32 }
///
/// let b = Builder::<Me, World>::new();
/// let rest = b.action("rest", |cx: &mut Ctx<Me, World>| {
///     cx.agent.energy += cx.world.regen;
///     if cx.agent.energy >= 10 { Status::Success } else { Status::Running }
/// });
/// let tree = b.build(rest).unwrap();
///
/// let mut me = Me { energy: 0 };
/// let mut agent = Agent::new(&tree);
/// assert_eq!(agent.tick(&tree, &mut me, &World { regen: 4 }), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut me, &World { regen: 4 }), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut me, &World { regen: 4 }), Status::Success);
/// ```
pub struct Ctx<'a, A, W> {
    /// This agent's own data, writable.
    pub agent: &'a mut A,
    /// The shared world, read-only (every agent of a parallel tick sees the same snapshot).
    pub world: &'a W,
    /// The agent's clock, in world ticks: 1 on its first tick when it is
    /// ticked every world tick, and on by `elapsed` on each
    /// [`Agent::tick_elapsed`](crate::Agent::tick_elapsed) when it is
    /// ticked less often. Time-based nodes measure durations on this
    /// clock, never in wall-clock time, so runs replay exactly. After
    /// `u32::MAX` it goes on at 0 (see
    /// [`Agent::set_ticks`](crate::Agent::set_ticks)).
    pub tick: u32,
    /// The agent's id, as given to [`Agent::with_id`](crate::Agent::with_id)
    /// (0 by default): a stable per-agent seed for deterministic randomness
    /// and the agent field of traces.
    pub id: u32,
    /// This agent's blackboard: the values of the tree's keys, read and
    /// written through ports ([`Input`](crate::Input),
    /// [`Output`](crate::Output)).
    pub board: Board<'a>,
}

impl<A, W> fmt::Debug for Ctx<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx")
            .field("tick", &self.tick)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}
