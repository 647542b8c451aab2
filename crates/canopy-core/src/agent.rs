//! One agent's runtime: its root behavior slot and the pool its tasks live in.
//!
//! An `Agent` holds no reference to the tree, the agent data or the world:
//! they are lent to each [`Agent::tick`]. So an agent is a small owned value
//! — `Send`, storable in a `Vec` next to thousands of others, tickable from
//! any thread — and its whole state is its pool's bytes plus four counters,
//! which keeps snapshots (save games, moving agents between processes)
//! possible without knowing any task's type.

use crate::asynchronous::{Ticket, Waits};
use crate::behavior::Runner;
use crate::context::Ctx;
use crate::observer::Observer;
use crate::pool::{InlinePool, TaskPool};
use crate::scheduler::{Mode, NEVER, Schedule, reached};
use crate::status::Status;
use crate::tree::Tree;

/// The per-agent runtime of a [`Tree`]: which tasks are installed for this
/// agent right now, and their state.
///
/// Ticking many agents in parallel needs nothing but rayon's `par_iter_mut`:
///
/// ```
/// use canopy_core::{Agent, Builder, Status};
/// use rayon::prelude::*;
///
/// struct Ant { food: u32 }
/// struct Nest { ration: u32 }
///
/// let b = Builder::<Ant, Nest>::new();
/// let tree = b.build(b.sequence("forage", [
///     b.wait("walk", 2),
///     b.action("eat", |cx| { cx.agent.food += cx.world.ration; Status::Success }),
/// ])).unwrap();
///
/// let nest = Nest { ration: 3 };
/// let mut ants: Vec<Ant> = (0..1000).map(|_| Ant { food: 0 }).collect();
/// let mut agents: Vec<Agent> = (0..1000).map(|i| Agent::with_id(&tree, i)).collect();
/// for _ in 0..6 {
///     agents.par_iter_mut().zip(ants.par_iter_mut()).for_each(|(agent, ant)| {
///         agent.tick(&tree, ant, &nest);
///     });
/// }
/// assert!(ants.iter().all(|a| a.food == 6));
/// ```
#[derive(Clone, Debug)]
pub struct Agent<P: TaskPool = InlinePool> {
    pool: P,
    tree: u32,
    tick: u32,
    id: u32,
    /// Installed tasks; 0 means the root is not installed.
    active: u32,
    /// Event mode: the agent sleeps until this tick (0: it does not sleep;
    /// [`NEVER`]: until a ticket is completed). Kept here so that ticking a
    /// sleeping agent reads nothing but this struct.
    asleep_until: u32,
    mode: Mode,
    /// Only for agents that need it (event mode, async leaves), so a plain
    /// tick-mode agent stays one pointer larger than its pool and counters.
    extra: Option<Box<Extra>>,
}

/// The parts of an agent's runtime that not every agent needs.
#[derive(Clone, Debug)]
struct Extra {
    waits: Waits,
    schedule: Schedule,
}

impl Extra {
    /// Room for as many waits as the tree's async leaves can need (capped;
    /// past the cap the table grows once, to its peak). The schedule's
    /// memory comes when event mode is first set.
    fn for_tree<A, W>(tree: &Tree<A, W>) -> Box<Extra> {
        Box::new(Extra {
            waits: Waits::with_capacity((tree.waits as usize).min(1024)),
            schedule: Schedule::default(),
        })
    }
}

impl Agent<InlinePool> {
    /// A new agent for `tree`, with id 0, using the default pool.
    /// Allocates the agent's memory once.
    pub fn new<A, W>(tree: &Tree<A, W>) -> Self {
        Self::for_tree(tree, 0)
    }

    /// A new agent with an id, which leaf code sees as [`Ctx::id`] and
    /// observers as [`Event::agent`](crate::Event::agent).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<u32, ()>::new();
    /// let tree = b.build(b.action("who", |cx| { *cx.agent = cx.id; Status::Success })).unwrap();
    /// let mut seen = 0;
    /// Agent::with_id(&tree, 42).tick(&tree, &mut seen, &());
    /// assert_eq!(seen, 42);
    /// ```
    pub fn with_id<A, W>(tree: &Tree<A, W>, id: u32) -> Self {
        Self::for_tree(tree, id)
    }
}

impl<P: TaskPool> Agent<P> {
    /// A new agent with an id, using pool strategy `P`.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, pool::FreeListPool};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// let agent = Agent::<FreeListPool>::for_tree(&tree, 7);
    /// assert_eq!(agent.id(), 7);
    /// ```
    pub fn for_tree<A, W>(tree: &Tree<A, W>, id: u32) -> Self {
        let extra = (tree.waits > 0).then(|| Extra::for_tree(tree));
        Agent {
            pool: P::new(&tree.layout),
            tree: tree.id,
            tick: 0,
            id,
            active: 0,
            asleep_until: 0,
            mode: Mode::Tick,
            extra,
        }
    }

    /// Switch between tick-from-root and event-driven execution; both give
    /// the same results (see [`Mode`]). Allowed at any time, also while
    /// tasks are running: the event schedule is read from the running
    /// tasks. The schedule's memory is allocated here, once.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Mode, Status};
    /// let b = Builder::<u32, ()>::new();
    /// let tree = b.build(b.sequence("s", [
    ///     b.wait("w", 2),
    ///     b.action("count", |cx| { *cx.agent += 1; Status::Running }),
    /// ])).unwrap();
    /// let (mut tick, mut event) = (Agent::new(&tree), Agent::new(&tree));
    /// event.set_mode(&tree, Mode::Event);
    /// let (mut a, mut b) = (0, 0);
    /// for _ in 0..5 {
    ///     assert_eq!(tick.tick(&tree, &mut a, &()), event.tick(&tree, &mut b, &()));
    /// }
    /// assert_eq!((a, b), (3, 3));
    /// ```
    ///
    /// # Panics
    /// If `tree` is not the tree this agent was created for.
    pub fn set_mode<A, W>(&mut self, tree: &Tree<A, W>, mode: Mode) {
        self.check_tree(tree);
        self.mode = mode;
        self.asleep_until = 0;
        if let Some(extra) = self.extra.as_deref_mut() {
            extra.schedule.clear();
        }
        if !self.scheduled(tree) {
            return;
        }
        let extra = self.extra.get_or_insert_with(|| Extra::for_tree(tree));
        if extra.schedule.heap_bytes() == 0 {
            extra.schedule = Schedule::for_tree(tree);
        }
        let mut runner = Runner {
            tree,
            pool: &mut self.pool,
            obs: (),
            active: self.active,
            waits: Some(&mut extra.waits),
        };
        runner.schedule_all(&mut extra.schedule, self.tick);
        self.asleep_until = extra.schedule.asleep_until();
    }

    /// How this agent runs its tree.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Complete the [`Ticket`] of a suspended async leaf of this agent with
    /// `Success` or `Failure`; the leaf reports it on the next tick.
    /// Returns `false`, and changes nothing, if the ticket is stale (its
    /// leaf finished or was aborted meanwhile, or it was completed
    /// already), belongs to another agent (or another tree), or `status` is
    /// `Running`.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status, Ticket};
    /// let b = Builder::<Option<Ticket>, ()>::new();
    /// let tree = b.build(b.timeout("give up", 3, b.async_action("wait for reply", |cx, t| {
    ///     *cx.agent = Some(t);
    ///     Status::Running
    /// }))).unwrap();
    /// let (mut ticket, mut agent) = (None, Agent::new(&tree));
    /// for _ in 0..4 {
    ///     agent.tick(&tree, &mut ticket, &());
    /// }
    /// // The timeout aborted the leaf: its ticket is stale.
    /// assert!(!agent.complete(ticket.unwrap(), Status::Success));
    /// ```
    pub fn complete(&mut self, ticket: Ticket, status: Status) -> bool {
        if ticket.agent != self.id {
            return false;
        }
        let Some(extra) = self.extra.as_deref_mut() else {
            return false;
        };
        if !extra.waits.complete(ticket, status) {
            return false;
        }
        if self.mode == Mode::Event {
            extra.schedule.wake(ticket.index, self.tick);
            self.asleep_until = extra.schedule.asleep_until();
        }
        true
    }

    /// Tick the tree once for this agent: install the root if it is not
    /// installed (first tick, or the root finished last tick), update it,
    /// and return its status.
    ///
    /// # Panics
    /// If `tree` is not the tree this agent was created for.
    pub fn tick<A, W>(&mut self, tree: &Tree<A, W>, agent: &mut A, world: &W) -> Status {
        self.tick_observed(tree, agent, world, ())
    }

    /// [`tick`](Agent::tick), reporting every install, update, finish and
    /// abort to `observer`.
    ///
    /// # Panics
    /// If `tree` is not the tree this agent was created for.
    pub fn tick_observed<A, W, O: Observer>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
    ) -> Status {
        self.check_tree(tree);
        // Tick 0 is reserved for "never", so the clock skips it when it wraps.
        self.tick = self.tick.wrapping_add(1).max(1);
        if self.asleep_until != 0
            && (self.asleep_until == NEVER || !reached(self.tick, self.asleep_until))
        {
            return Status::Running;
        }
        let scheduled = self.scheduled(tree);
        let (status, asleep_until) = self.run(
            tree,
            agent,
            world,
            observer,
            scheduled,
            |runner, schedule, cx| match schedule {
                Some(schedule) => {
                    let status = runner.tick_event(schedule, cx);
                    (status, schedule.asleep_until())
                }
                None => (runner.tick_root(cx), 0),
            },
        );
        self.asleep_until = asleep_until;
        status
    }

    /// Lend the engine this agent's pool and counters for one call.
    #[inline(always)]
    fn run<A, W, O: Observer, R>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
        scheduled: bool,
        f: impl FnOnce(&mut Runner<'_, A, W, P, O>, Option<&mut Schedule>, &mut Ctx<A, W>) -> R,
    ) -> R {
        let mut cx = Ctx {
            agent,
            world,
            tick: self.tick,
            id: self.id,
        };
        let (waits, schedule) = match self.extra.as_deref_mut() {
            // Left untouched unless needed: it is one more cache line.
            Some(extra) if scheduled || tree.waits > 0 => (
                Some(&mut extra.waits),
                scheduled.then_some(&mut extra.schedule),
            ),
            _ => (None, None),
        };
        let mut runner = Runner {
            tree,
            pool: &mut self.pool,
            obs: observer,
            active: self.active,
            waits,
        };
        let result = f(&mut runner, schedule, &mut cx);
        self.active = runner.active;
        result
    }

    /// Abort every running task (deepest first, terminate hooks see
    /// [`Exit::Aborted`](crate::Exit::Aborted)) and return the agent to its
    /// state when new: tick counter at 0, persistent node memory (cooldowns)
    /// cleared. Takes the agent data and world because hooks may use them.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.wait("w", 10)).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.tick(&tree, &mut (), &());
    /// assert_eq!(agent.active_tasks(), 1);
    /// agent.reset(&tree, &mut (), &());
    /// assert_eq!((agent.active_tasks(), agent.ticks()), (0, 0));
    /// ```
    ///
    /// # Panics
    /// If `tree` is not the tree this agent was created for.
    pub fn reset<A, W>(&mut self, tree: &Tree<A, W>, agent: &mut A, world: &W) {
        self.reset_observed(tree, agent, world, ())
    }

    /// [`reset`](Agent::reset), reporting the aborts to `observer`.
    pub fn reset_observed<A, W, O: Observer>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
    ) {
        self.check_tree(tree);
        let scheduled = self.scheduled(tree);
        self.run(
            tree,
            agent,
            world,
            observer,
            scheduled,
            |runner, schedule, cx| {
                runner.abort_root(cx);
                if let Some(schedule) = schedule {
                    schedule.clear();
                }
            },
        );
        self.pool.persist(&tree.layout).fill(0);
        self.tick = 0;
        self.asleep_until = 0;
    }

    /// `true` while the root is installed (it returned `Running` last tick).
    pub fn is_running(&self) -> bool {
        self.active > 0
    }

    /// How many tasks are installed for this agent right now.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("s", [b.always_success("a"), b.wait("w", 5)])).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.tick(&tree, &mut (), &());
    /// assert_eq!(agent.active_tasks(), 2); // the sequence and the wait
    /// ```
    pub fn active_tasks(&self) -> usize {
        self.active as usize
    }

    /// Heap bytes held by this agent's pool, slack included. The `Agent`
    /// value itself is `size_of::<Agent<P>>()` more, wherever it is stored.
    pub fn heap_bytes(&self) -> usize {
        self.pool.heap_bytes()
            + self.extra.as_ref().map_or(0, |e| {
                size_of::<Extra>() + e.waits.heap_bytes() + e.schedule.heap_bytes()
            })
    }

    /// Ticks since the agent was created or reset.
    pub fn ticks(&self) -> u32 {
        self.tick
    }

    /// The agent's id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Whether ticks go through the event schedule. A root updated every
    /// tick leaves nothing to skip: such a tree runs tick-from-root in
    /// either mode.
    fn scheduled<A, W>(&self, tree: &Tree<A, W>) -> bool {
        self.mode == Mode::Event && !tree.root_always
    }

    fn check_tree<A, W>(&self, tree: &Tree<A, W>) {
        assert_eq!(
            self.tree, tree.id,
            "this agent was created for another tree; tick it with that tree"
        );
    }
}
