//! One agent's runtime: the memory its tasks live in, and a few counters.
//!
//! An `Agent` holds no reference to the tree, the agent data or the world:
//! they are lent to each [`Agent::tick`]. So an agent is a small owned value
//! — `Send`, storable in a `Vec` next to thousands of others, tickable from
//! any thread — and its whole state is its memory's bytes plus four
//! numbers, which is what makes snapshots possible without knowing any
//! task's type.

use crate::def::observer::Observer;
use crate::engine::runner::Runner;
use crate::engine::walk::{self, Invalid, Running};
use crate::state::Extra;
use crate::state::schedule::{NEVER, Schedule};
use crate::tree::{Tree, TreeId};
use crate::util::board::Board;
use crate::util::context::Ctx;
use crate::util::primitives::{Mode, next_tick, reached};
use crate::util::status::Status;
use crate::util::ticket::{Completion, Ticket};

/// The message of the panic an agent gives when it is used after a panic
/// unwound out of one of its ticks (or resets), until it is reset.
pub const POISONED: &str = "this agent is poisoned: a node panicked during one of its ticks, \
leaving its tasks half-updated; call `reset` to start it afresh";

/// The message of the panic an agent gives when it is used with a tree it
/// was not created for.
pub const WRONG_TREE: &str =
    "this agent was created for another tree; use it with the tree it was created for";

/// Every 2³⁰ ticks an agent moves the cooldown ends that have passed up to
/// the present, so that no stored tick ages into the range where wrapping
/// comparisons would take it for a future one (2³¹ ticks).
const FORGET_EVERY: u32 = (1 << 30) - 1;

/// The most world ticks one [`Agent::tick_elapsed`] moves an agent's clock
/// on: 2²⁹ (about 100 days at 60 ticks a second). Cooldown ends that have
/// passed are moved up to the present each time the clock crosses a
/// multiple of 2³⁰, so none ages past 2³⁰ + 2²⁹ < 2³¹ ticks, where wrapping
/// comparisons stay exact.
pub const MAX_ELAPSED: u32 = 1 << 29;

/// The clock `elapsed` world ticks after `tick` (see [`MAX_ELAPSED`]).
#[inline(always)]
fn advance(tick: u32, elapsed: u32) -> u32 {
    if elapsed <= 1 {
        return next_tick(tick);
    }
    tick.wrapping_add(elapsed.min(MAX_ELAPSED))
}

/// Which tree an agent belongs to, and two flags, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp(u32);

impl Stamp {
    const ROOT_RUNNING: u32 = 1 << 30;
    const POISONED: u32 = 1 << 31;

    fn new(tree: TreeId, root_running: bool) -> Stamp {
        Stamp(tree.0 | if root_running { Self::ROOT_RUNNING } else { 0 })
    }

    fn tree(self) -> u32 {
        self.0 & !(Self::ROOT_RUNNING | Self::POISONED)
    }

    fn root_running(self) -> bool {
        self.0 & Self::ROOT_RUNNING != 0
    }

    fn poisoned(self) -> bool {
        self.0 & Self::POISONED != 0
    }
}

/// The per-agent runtime of a [`Tree`]: which tasks run for this agent
/// right now, and their state.
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
///
/// # Panics
/// Every method that takes a tree panics with [`WRONG_TREE`] if it is not
/// the tree the agent was created for, and with [`POISONED`] if a panic
/// unwound out of an earlier tick (a node's code panicked): the agent's
/// tasks may be half-updated then, and only [`reset`](Agent::reset) brings
/// it back.
#[derive(Clone, Debug)]
pub struct Agent {
    /// Task memory, then persistent memory, laid out by the tree.
    pub(crate) mem: Box<[u8]>,
    /// Waits and the event schedule, for agents that need them.
    pub(crate) extra: Option<Box<Extra>>,
    pub(crate) tick: u32,
    id: u32,
    stamp: Stamp,
    /// Event mode: the agent sleeps until this tick (0: it does not sleep;
    /// [`NEVER`]: until a ticket is completed). Kept here so that ticking a
    /// sleeping agent reads nothing but this struct.
    asleep_until: u32,
}

impl Agent {
    /// A new agent for `tree`, with id 0. Allocates the agent's memory once.
    pub fn new<A, W>(tree: &Tree<A, W>) -> Self {
        Self::with_id(tree, 0)
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
        let mut mem = vec![0; tree.task_memory()].into_boxed_slice();
        mem[tree.board_start()..].copy_from_slice(&tree.board.initial);
        Agent {
            mem,
            extra: (tree.waits > 0).then(|| Extra::new(tree.waits)),
            tick: 0,
            id,
            stamp: Stamp::new(tree.id, false),
            asleep_until: 0,
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
    pub fn set_mode<A, W>(&mut self, tree: &Tree<A, W>, mode: Mode) {
        self.check(tree);
        if mode == Mode::Event || self.extra.is_some() {
            let extra = self.extra.get_or_insert_with(|| Extra::new(tree.waits));
            extra.mode = mode;
        }
        self.rebuild_schedule(tree);
    }

    /// How this agent runs its tree.
    #[inline]
    pub fn mode(&self) -> Mode {
        self.extra.as_ref().map_or(Mode::Tick, |e| e.mode)
    }

    /// Read the event schedule back from the running tasks, or drop it
    /// when the agent does not use one.
    fn rebuild_schedule<A, W>(&mut self, tree: &Tree<A, W>) {
        self.asleep_until = 0;
        let scheduled = self.scheduled(tree);
        let Some(extra) = self.extra.as_deref_mut() else {
            return;
        };
        if !scheduled {
            extra.schedule = None;
            return;
        }
        let schedule = extra
            .schedule
            .get_or_insert_with(|| Box::new(Schedule::with_capacity(tree.frames)));
        schedule.clear();
        let mut runner = Runner::new(
            tree,
            &mut self.mem[..tree.board_start()],
            Some(&mut extra.waits),
            (),
        );
        runner.schedule_all(schedule, self.stamp.root_running(), self.tick);
        self.asleep_until = schedule.asleep_until();
    }

    /// Complete the [`Ticket`] of a suspended async leaf of this agent with
    /// `Success` or `Failure`; the leaf reports it on the next tick.
    /// Anything but [`Completion::Completed`] changed nothing, and says why:
    /// the leaf was aborted meanwhile, the ticket was completed already,
    /// it belongs to another agent or to another copy of this one (a clone
    /// or a restored agent), or `status` is `Running`.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Completion, Status, Ticket};
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
    /// assert_eq!(agent.complete(ticket.unwrap(), Status::Success), Completion::Aborted);
    /// ```
    pub fn complete(&mut self, ticket: Ticket, status: Status) -> Completion {
        if status == Status::Running {
            return Completion::NotAResult;
        }
        if self.stamp.poisoned() {
            return Completion::Poisoned;
        }
        if ticket.agent != self.id {
            return Completion::OtherAgent;
        }
        let Some(extra) = self.extra.as_deref_mut() else {
            return Completion::OtherAgent;
        };
        let completion = extra.waits.complete(ticket, status);
        if let Some(schedule) = extra.schedule.as_deref_mut()
            && completion.is_completed()
            && extra.mode == Mode::Event
        {
            schedule.wake(ticket.index, self.tick);
            self.asleep_until = schedule.asleep_until();
        }
        completion
    }

    /// Tickets for the async leaves of this agent that are waiting now.
    /// A clone or a restored copy of an agent has a wait table of its own,
    /// so tickets issued before cannot complete its waits: hand these out
    /// instead (re-send the requests they stand for).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Completion, Status, Ticket};
    /// let b = Builder::<Option<Ticket>, ()>::new();
    /// let tree = b.build(b.async_action("ask", |cx, t| { *cx.agent = Some(t); Status::Running })).unwrap();
    /// let (mut sent, mut agent) = (None, Agent::new(&tree));
    /// agent.tick(&tree, &mut sent, &());
    /// let mut copy = agent.clone();
    /// // The original's ticket:
    /// assert_eq!(copy.complete(sent.unwrap(), Status::Success), Completion::OtherCopy);
    /// let fresh: Vec<Ticket> = copy.pending_tickets().collect();
    /// assert!(copy.complete(fresh[0], Status::Success).is_completed());
    /// assert_eq!(copy.tick(&tree, &mut sent, &()), Status::Success);
    /// ```
    pub fn pending_tickets(&self) -> impl Iterator<Item = Ticket> + '_ {
        let id = self.id;
        self.extra.iter().flat_map(move |e| e.waits.pending(id))
    }

    /// Answer this agent's waiting async leaves from one place: `answer`
    /// gets each pending wait's ticket and the ticks it has waited (since
    /// the tick its leaf started it; for a restored agent, since the
    /// restore), and completes the wait with the status it returns, if
    /// any. Returns how many it completed. Nothing is allocated — for a
    /// stand-in service in tests and tools, or a game's "give up after n
    /// ticks" rule.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.async_action("ask", |_, _| Status::Running)).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// let mut answered = Vec::new();
    /// for _ in 0..4 {
    ///     let status = agent.tick(&tree, &mut (), &());
    ///     // The service answers a request that has waited 2 ticks.
    ///     let n = agent.complete_pending(|_, waited| (waited >= 2).then_some(Status::Success));
    ///     answered.push((status, n));
    /// }
    /// assert_eq!(answered, [
    ///     (Status::Running, 0), (Status::Running, 0), (Status::Running, 1), (Status::Success, 0),
    /// ]);
    /// ```
    pub fn complete_pending(
        &mut self,
        mut answer: impl FnMut(Ticket, u32) -> Option<Status>,
    ) -> u32 {
        let entries = self.extra.as_deref().map_or(0, |e| e.waits.entries.len());
        let mut completed = 0;
        // Entry by entry: completing one wait changes no other entry.
        for i in 0..entries {
            let pending = self
                .extra
                .as_deref()
                .and_then(|e| e.waits.pending_at(i, self.id));
            let Some((ticket, since)) = pending else {
                continue;
            };
            if let Some(status) = answer(ticket, self.tick.wrapping_sub(since))
                && self.complete(ticket, status).is_completed()
            {
                completed += 1;
            }
        }
        completed
    }

    /// This agent's ticket for the wait that `old` — a ticket issued by the
    /// agent this one was cloned or restored from — stands for, if that
    /// wait is still pending here. So a ticket kept in a save game, or held
    /// by a worker when its agent was copied, can be traded in.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status, Ticket};
    /// let b = Builder::<Option<Ticket>, ()>::new();
    /// let tree = b.build(b.async_action("ask", |cx, t| { *cx.agent = Some(t); Status::Running })).unwrap();
    /// let (mut sent, mut agent) = (None, Agent::new(&tree));
    /// agent.tick(&tree, &mut sent, &());
    /// let mut copy = agent.clone();
    /// let traded = copy.reissue(sent.unwrap()).unwrap();
    /// assert!(copy.complete(traded, Status::Failure).is_completed());
    /// assert_eq!(copy.tick(&tree, &mut sent, &()), Status::Failure);
    /// assert_eq!(copy.reissue(sent.unwrap()), None); // that wait is over
    /// ```
    pub fn reissue(&self, old: Ticket) -> Option<Ticket> {
        let ticket = self.extra.as_ref()?.waits.reissue(old)?;
        (ticket.agent == self.id).then_some(ticket)
    }

    /// Tick the tree once for this agent: install the root if it is not
    /// running (first tick, or the root finished last tick), update it,
    /// and return its status.
    pub fn tick<A, W>(&mut self, tree: &Tree<A, W>, agent: &mut A, world: &W) -> Status {
        self.tick_elapsed_observed(tree, agent, world, 1, ())
    }

    /// [`tick`](Agent::tick), reporting every install, update, finish and
    /// abort to `observer`.
    #[inline]
    pub fn tick_observed<A, W, O: Observer>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
    ) -> Status {
        self.tick_elapsed_observed(tree, agent, world, 1, observer)
    }

    /// Tick an agent that is ticked less often than the world (level of
    /// detail): `elapsed` world ticks have passed since its last tick (or
    /// since it was created or reset). Its clock — [`Ctx::tick`], and every
    /// duration of a Wait, Timeout, Cooldown or other timed node — moves
    /// on by `elapsed`, so a timer ends on the first tick at or after its
    /// end, whatever the agent's rate: `Wait(8)` ticked every 3rd world
    /// tick succeeds 9 world ticks after it was entered. [`tick`](Agent::tick)
    /// is `tick_elapsed` with 1.
    ///
    /// `elapsed` is taken in `1..=`[`MAX_ELAPSED`]: 0 counts as 1 (two
    /// ticks of one agent are never at the same time) and more than
    /// `MAX_ELAPSED` as `MAX_ELAPSED`, which keeps every stored tick
    /// comparable across the wrap of the clock.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Mode, Status};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.wait("nap", 8)).unwrap();
    /// for mode in [Mode::Tick, Mode::Event] {
    ///     let mut agent = Agent::new(&tree);
    ///     agent.set_mode(&tree, mode);
    ///     // Ticked every 3rd world tick: entered at world tick 3.
    ///     let statuses: Vec<Status> =
    ///         (0..4).map(|_| agent.tick_elapsed(&tree, &mut (), &(), 3)).collect();
    ///     // 9 ≥ 8 world ticks later, at world tick 12, it is over.
    ///     assert_eq!(statuses, [Status::Running, Status::Running, Status::Running, Status::Success]);
    ///     assert_eq!(agent.ticks(), 12);
    /// }
    /// ```
    #[inline]
    pub fn tick_elapsed<A, W>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        elapsed: u32,
    ) -> Status {
        self.tick_elapsed_observed(tree, agent, world, elapsed, ())
    }

    /// [`tick_elapsed`](Agent::tick_elapsed), reporting every install,
    /// update, finish and abort to `observer`.
    #[inline]
    pub fn tick_elapsed_observed<A, W, O: Observer>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        elapsed: u32,
        observer: O,
    ) -> Status {
        self.check(tree);
        let before = self.tick;
        self.tick = advance(before, elapsed);
        // Crossing a multiple of 2³⁰ (every 2³⁰ ticks, also in steps).
        if (self.tick ^ before) & !FORGET_EVERY != 0 {
            self.refresh_cooldowns(tree, false);
        }
        if self.extra.is_some() {
            // A sleeping agent (event mode) costs this comparison and no
            // call.
            if self.asleep_until != 0
                && (self.asleep_until == NEVER || !reached(self.tick, self.asleep_until))
            {
                return Status::Running;
            }
            return self.tick_extra(tree, agent, world, observer);
        }
        // The common case, tick-from-root with no waits: nothing to look
        // up but the root.
        let fresh = !self.stamp.root_running();
        // Cleared when the tick returns: a panic that unwinds out of a
        // node's code leaves the agent marked.
        self.stamp.0 |= Stamp::POISONED;
        let status = self.run(tree, agent, world, observer, |runner, _, cx| {
            runner.tick_root(fresh, cx)
        });
        self.stamp = Stamp::new(tree.id, status == Status::Running);
        status
    }

    /// [`tick_observed`](Agent::tick_observed) for an agent in event mode
    /// or with a wait table, and awake.
    #[inline(never)]
    fn tick_extra<A, W, O: Observer>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
    ) -> Status {
        let Some(extra) = self.extra.as_deref_mut() else {
            return Status::Running;
        };
        let root_running = self.stamp.root_running();
        self.stamp.0 |= Stamp::POISONED;
        let (mem, board) = self.mem.split_at_mut(tree.board_start());
        let mut cx = Ctx {
            agent,
            world,
            tick: self.tick,
            id: self.id,
            board: Board::new(board, tree.board.watches()),
        };
        let mut runner = Runner::new(tree, mem, Some(&mut extra.waits), observer);
        let schedule = extra.schedule.as_deref_mut();
        let (status, asleep_until) = match schedule {
            Some(s) if extra.mode == Mode::Event && !tree.root_always => {
                let status = runner.tick_event(s, root_running, &mut cx);
                (status, s.asleep_until())
            }
            _ => (runner.tick_root(!root_running, &mut cx), 0),
        };
        self.stamp = Stamp::new(tree.id, status == Status::Running);
        self.asleep_until = asleep_until;
        status
    }

    /// Lend the engine this agent's memory, waits and schedule for one call.
    #[inline(always)]
    fn run<A, W, O: Observer, R>(
        &mut self,
        tree: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
        f: impl FnOnce(&mut Runner<'_, A, W, O>, Option<&mut Schedule>, &mut Ctx<A, W>) -> R,
    ) -> R {
        let (mem, board) = self.mem.split_at_mut(tree.board_start());
        let mut cx = Ctx {
            agent,
            world,
            tick: self.tick,
            id: self.id,
            board: Board::new(board, tree.board.watches()),
        };
        // Taking the fields' addresses reads nothing: an agent that does
        // not use them never touches their cache line.
        let (waits, schedule) = match self.extra.as_deref_mut() {
            Some(Extra {
                waits, schedule, ..
            }) => (Some(waits), schedule.as_deref_mut()),
            None => (None, None),
        };
        let mut runner = Runner::new(tree, mem, waits, observer);
        f(&mut runner, schedule, &mut cx)
    }

    /// Abort every running task (deepest first, terminate hooks see
    /// [`Exit::Aborted`](crate::Exit::Aborted)) and return the agent to its
    /// state when new: tick counter at 0, persistent node memory
    /// (cooldowns) cleared, every outstanding ticket stale. Takes the agent
    /// data and world because hooks may use them.
    ///
    /// A poisoned agent (see [`POISONED`]) is reset without running any
    /// hook: its tasks' state cannot be trusted, so it is discarded.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.wait("w", 10)).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.tick(&tree, &mut (), &());
    /// assert_eq!(agent.active_tasks(&tree), 1);
    /// agent.reset(&tree, &mut (), &());
    /// assert_eq!((agent.active_tasks(&tree), agent.ticks()), (0, 0));
    /// ```
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
        if self.stamp.root_running() && !self.stamp.poisoned() {
            self.stamp.0 |= Stamp::POISONED;
            self.run(tree, agent, world, observer, |runner, _, cx| {
                runner.abort_root(cx)
            });
        }
        let (mem, board) = self.mem.split_at_mut(tree.board_start());
        mem.fill(0);
        board.copy_from_slice(&tree.board.initial);
        if let Some(extra) = self.extra.as_deref_mut() {
            extra.waits.release_all();
            if let Some(schedule) = extra.schedule.as_deref_mut() {
                schedule.clear();
            }
        }
        self.tick = 0;
        self.asleep_until = 0;
        self.stamp = Stamp::new(tree.id, false);
    }

    /// This agent's blackboard, to read: the values of the tree's keys
    /// ([`Tree::slots`]) as they are between ticks.
    ///
    /// # Panics
    /// With another tree than the agent's (see [`WRONG_TREE`]).
    pub fn board<'a, A, W>(&'a mut self, tree: &'a Tree<A, W>) -> Board<'a> {
        self.board_mut(tree)
    }

    /// This agent's blackboard, to write between ticks: what a game tells
    /// the tree (a goal, an alarm) before the next tick.
    ///
    /// # Panics
    /// With another tree than the agent's (see [`WRONG_TREE`]).
    pub fn board_mut<'a, A, W>(&'a mut self, tree: &'a Tree<A, W>) -> Board<'a> {
        self.check_tree(tree);
        Board::new(&mut self.mem[tree.board_start()..], tree.board.watches())
    }

    /// The blackboard's values as an inspector shows them: each key with
    /// its value in words.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Text};
    /// let b = Builder::<(), ()>::new();
    /// let mode = b.key::<Text>("mode").unwrap();
    /// b.set_initial(mode, Text::new("patrol"));
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// assert_eq!(agent.board_values(&tree), [("mode".to_string(), "\"patrol\"".to_string())]);
    /// ```
    pub fn board_values<A, W>(&mut self, tree: &Tree<A, W>) -> Vec<(String, String)> {
        self.check_tree(tree);
        let board = &self.mem[tree.board_start()..];
        tree.board
            .slots()
            .iter()
            .map(|slot| {
                let at = slot.offset as usize;
                let value = slot.ty.show(&board[at..at + slot.ty.size()]);
                (slot.key.to_string(), value)
            })
            .collect()
    }

    /// `true` while the root is installed (it returned `Running` last tick).
    pub fn is_running(&self) -> bool {
        self.stamp.root_running()
    }

    /// `true` after a panic unwound out of one of this agent's ticks or
    /// resets, until it is [`reset`](Agent::reset) (see [`POISONED`]).
    pub fn is_poisoned(&self) -> bool {
        self.stamp.poisoned()
    }

    /// How many tasks run for this agent right now, read from their state.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("s", [b.always_success("a"), b.wait("w", 5)])).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.tick(&tree, &mut (), &());
    /// assert_eq!(agent.active_tasks(&tree), 2); // the sequence and the wait
    /// ```
    pub fn active_tasks<A, W>(&self, tree: &Tree<A, W>) -> usize {
        let mut count = 0;
        self.walk(tree, |_, _| count += 1);
        count
    }

    /// Heap bytes held by this agent: its task memory and, if it has them,
    /// its waits and event schedule. The `Agent` value itself is
    /// `size_of::<Agent>()` more, wherever it is stored.
    pub fn heap_bytes(&self) -> usize {
        self.mem.len() + self.extra.as_ref().map_or(0, |e| e.heap_bytes())
    }

    /// The most memory one agent of `tree` can hold in `mode`, in bytes:
    /// the `Agent` value, its task memory, and its table of waits and
    /// event schedule at their largest (as many entries as the tree can
    /// have waiting and running at once, in the lists' growth steps). Read
    /// from the tree, not measured: a crowd's memory can be checked against
    /// a limit before any agent is made or restored, at no cost per tick.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Mode, Policy};
    /// let b = Builder::<(), ()>::new();
    /// let names: Vec<String> = (0..100).map(|i| format!("r{i}")).collect();
    /// let leaves: Vec<_> = names.iter().map(|n| b.always_running(n)).collect();
    /// let tree = b.build(b.parallel("p", Policy::All, Policy::One, leaves)).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.set_mode(&tree, Mode::Event);
    /// agent.tick(&tree, &mut (), &());
    /// assert_eq!(agent.memory().total(), Agent::peak_bytes(&tree, Mode::Event));
    /// assert!(Agent::peak_bytes(&tree, Mode::Tick) < Agent::peak_bytes(&tree, Mode::Event));
    /// ```
    pub fn peak_bytes<A, W>(tree: &Tree<A, W>, mode: Mode) -> usize {
        let extra = tree.waits > 0 || mode == Mode::Event;
        let waits = crate::state::Extra::peak_bytes(
            tree.waits,
            (mode == Mode::Event).then_some(tree.frames),
        );
        size_of::<Agent>() + tree.task_memory() + if extra { waits } else { 0 }
    }

    /// Where this agent's memory goes, part by part: the `Agent` value, its
    /// task memory, its table of waiting async leaves and its event
    /// schedule (the last two only for trees and modes that need them).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Mode, Status};
    /// let b = Builder::<(), ()>::new();
    /// let plain = b.build(b.wait("nap", 3)).unwrap();
    /// let m = Agent::new(&plain).memory();
    /// assert_eq!((m.waits, m.schedule), (0, 0));
    /// assert_eq!(m.total(), size_of::<Agent>() + Agent::new(&plain).heap_bytes());
    ///
    /// let b = Builder::<(), ()>::new();
    /// let asks = b.build(b.async_action("ask", |_, _| Status::Running)).unwrap();
    /// let mut agent = Agent::new(&asks);
    /// assert!(agent.memory().waits > 0);
    /// assert_eq!(agent.memory().schedule, 0); // only in event mode
    /// agent.set_mode(&asks, Mode::Event);
    /// assert!(agent.memory().schedule > 0);
    /// ```
    pub fn memory(&self) -> AgentMemory {
        let (waits, schedule) = self.extra.as_ref().map_or((0, 0), |e| e.heap_parts());
        AgentMemory {
            value: size_of::<Agent>(),
            tasks: self.mem.len(),
            waits,
            schedule,
        }
    }

    /// The tick counter: ticks since the agent was created or reset, as
    /// leaf code sees it in [`Ctx::tick`].
    pub fn ticks(&self) -> u32 {
        self.tick
    }

    /// Set the tick counter, e.g. to test what happens where it wraps
    /// (after `u32::MAX` it goes on at 0). Running Waits and Timeouts
    /// measure from ticks of the clock as it was, so for them this is time
    /// jumping by the difference; cooldowns are all over.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.wait("w", 3)).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.set_ticks(&tree, u32::MAX - 1);
    /// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running); // entered at u32::MAX
    /// assert_eq!(agent.ticks(), u32::MAX);
    /// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running); // tick 0
    /// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running); // tick 1
    /// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success); // tick 2: 3 ticks later
    /// ```
    pub fn set_ticks<A, W>(&mut self, tree: &Tree<A, W>, tick: u32) {
        self.check(tree);
        self.tick = tick;
        self.refresh_cooldowns(tree, true);
        self.rebuild_schedule(tree);
    }

    /// The agent's id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Whether ticks go through the event schedule. A root updated every
    /// tick leaves nothing to skip: such a tree runs tick-from-root in
    /// either mode.
    fn scheduled<A, W>(&self, tree: &Tree<A, W>) -> bool {
        !tree.root_always && self.mode() == Mode::Event
    }

    /// Move the cooldown ends that have passed up to now (see
    /// `FORGET_EVERY`): the persistent words that are ticks, which the
    /// tree lists. With `all`, every end: the clock was set, and ends of
    /// the old clock mean nothing on the new one.
    #[cold]
    fn refresh_cooldowns<A, W>(&mut self, tree: &Tree<A, W>, all: bool) {
        let now = self.tick;
        let persist = &mut self.mem[tree.task_bytes as usize..];
        for &at in &tree.tick_words {
            let word = &mut persist[at as usize..at as usize + 4];
            let tick = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            if all || reached(now, tick) {
                word.copy_from_slice(&now.to_le_bytes());
            }
        }
    }

    /// Call `each` with every running task, root first, in tree order.
    pub(crate) fn walk<A, W>(&self, tree: &Tree<A, W>, mut each: impl FnMut(&Running, &[u8])) {
        self.check(tree);
        if !self.stamp.root_running() {
            return;
        }
        let visited = walk::running::<_, _, Invalid>(tree, &self.mem, &mut |task, state| {
            each(task, state);
            Ok(())
        });
        // The engine only leaves states its kinds can be in; restored
        // memory is checked before an agent is made from it.
        debug_assert!(
            visited.is_ok(),
            "an agent's memory holds an invalid task state"
        );
    }

    /// Panic unless this agent may be used with `tree` (see [`Agent`]).
    pub(crate) fn check_usable<A, W>(&self, tree: &Tree<A, W>) {
        self.check(tree);
    }

    /// Mark the root as running or not (restoring saved memory).
    pub(crate) fn set_root_running<A, W>(&mut self, tree: &Tree<A, W>, running: bool) {
        self.stamp = Stamp::new(tree.id, running);
    }

    /// Panic unless this agent may be used with `tree`.
    #[inline]
    fn check<A, W>(&self, tree: &Tree<A, W>) {
        if self.stamp.0 & !Stamp::ROOT_RUNNING != tree.id.0 {
            self.check_slow(tree);
        }
    }

    #[cold]
    fn check_slow<A, W>(&self, tree: &Tree<A, W>) {
        self.check_tree(tree);
        assert!(!self.stamp.poisoned(), "{POISONED}");
    }

    fn check_tree<A, W>(&self, tree: &Tree<A, W>) {
        assert!(self.stamp.tree() == tree.id.0, "{WRONG_TREE}");
    }
}

/// Where an agent's memory goes, in bytes ([`Agent::memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgentMemory {
    /// The `Agent` value itself, wherever it is stored.
    pub value: usize,
    /// Task memory: running tasks, persistent memory and the blackboard.
    pub tasks: usize,
    /// The table of waiting async leaves (trees with async leaves only).
    pub waits: usize,
    /// The event schedule (event mode only).
    pub schedule: usize,
}

impl AgentMemory {
    /// Every part.
    pub fn total(&self) -> usize {
        self.value + self.tasks + self.waits + self.schedule
    }
}

impl std::ops::Add for AgentMemory {
    type Output = AgentMemory;

    /// Part by part: a crowd's memory from its agents'.
    fn add(self, other: AgentMemory) -> AgentMemory {
        AgentMemory {
            value: self.value + other.value,
            tasks: self.tasks + other.tasks,
            waits: self.waits + other.waits,
            schedule: self.schedule + other.schedule,
        }
    }
}
