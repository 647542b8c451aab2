//! One agent's runtime of a machine: the active path, the active states'
//! data, and a tree runtime per tree-running state.
//!
//! All three are sized from the machine when the agent is created — the
//! path holds one state per level, the data is laid out at build time with
//! siblings sharing a region — and never grow, so updates and triggers
//! allocate nothing. Like canopy's [`Agent`], an `FsmAgent` holds no
//! reference to the machine, the agent data or the world: they are lent to
//! each call, so agents sit in a `Vec` and update from any thread.

use canopy_core::{Agent, Completion, Ctx, Status, Ticket, agent::MAX_ELAPSED};

use crate::machine::{Body, Machine, StateId};
use crate::runtime::Run;

/// The message of the panic an [`FsmAgent`] gives when it is used with a
/// machine it was not created for.
pub const WRONG_MACHINE: &str =
    "this agent was created for another machine; use it with that machine";

/// The per-agent runtime of a [`Machine`].
///
/// A crowd updating in parallel needs nothing but rayon's `par_iter_mut`:
///
/// ```
/// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
/// use rayon::prelude::*;
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// enum Ev { Tired, Rested }
///
/// struct Sheep { energy: i32 }
/// struct Field { grass: i32 }
///
/// type H = Hooks<Sheep, Field, Ev>; // names the types the closures see
/// let mut b = MachineBuilder::new();
/// b.state("Graze", H::new().on_update(|cx| {
///     cx.agent.energy -= 1;
///     (cx.agent.energy <= 0).then_some(Ev::Tired)
/// }));
/// b.state("Sleep", H::new().on_update(|cx| {
///     cx.agent.energy += cx.world.grass;
///     (cx.agent.energy >= 4).then_some(Ev::Rested)
/// }));
/// b.transition("Graze", Ev::Tired, "Sleep").transition("Sleep", Ev::Rested, "Graze");
/// b.start("Graze");
/// let machine = b.build().unwrap();
///
/// let field = Field { grass: 2 };
/// let mut sheep: Vec<Sheep> = (0..1000).map(|i| Sheep { energy: i % 3 + 1 }).collect();
/// let mut agents: Vec<FsmAgent> = (0..1000).map(|i| FsmAgent::with_id(&machine, i)).collect();
/// for _ in 0..10 {
///     agents.par_iter_mut().zip(sheep.par_iter_mut()).for_each(|(agent, s)| {
///         agent.update(&machine, s, &field);
///     });
/// }
/// assert!(agents.iter().any(|a| a.is_in(&machine, "Sleep")));
/// assert!(sheep.iter().all(|s| (0..=5).contains(&s.energy)));
/// ```
#[derive(Clone, Debug)]
pub struct FsmAgent {
    path: Box<[StateId]>,
    data: Box<[u8]>,
    trees: Box<[Agent]>,
    /// Active levels; 0 when stopped.
    len: u16,
    machine: u32,
    tick: u32,
    id: u32,
}

impl FsmAgent {
    /// A stopped agent for `machine`, with id 0. Allocates the agent's
    /// memory once; the first update or send enters the start states.
    pub fn new<A, W, T>(machine: &Machine<A, W, T>) -> Self {
        Self::with_id(machine, 0)
    }

    /// A stopped agent with an id, which hooks see as [`Ctx::id`] (and the
    /// agent's behavior trees too).
    pub fn with_id<A, W, T>(machine: &Machine<A, W, T>, id: u32) -> Self {
        let trees = machine
            .states
            .iter()
            .filter_map(|s| match &s.body {
                Body::Tree(t) => Some(Agent::with_id(&t.tree, id)),
                Body::Hooks(_) => None,
            })
            .collect();
        FsmAgent {
            path: vec![StateId(0); machine.depth()].into(),
            data: vec![0; machine.data_bytes()].into(),
            trees,
            len: 0,
            machine: machine.id,
            tick: 0,
            id,
        }
    }

    /// Update the active states once, outermost first (entering the start
    /// states first if stopped); a trigger an update hook returns is sent
    /// at once, and ends the pass if a state takes it. Returns the
    /// machine's status: `Success`/`Failure` while a final state
    /// is active, else `Running`. The order is in [`runtime`](crate::runtime).
    ///
    /// ```
    /// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
    /// use canopy_core::Status;
    /// let mut b = MachineBuilder::<u32, (), ()>::new();
    /// b.state("Count", Hooks::new().on_update(|cx| { *cx.agent += 1; (*cx.agent == 2).then_some(()) }));
    /// b.state("Done", Hooks::new()).succeeds();
    /// b.transition("Count", (), "Done");
    /// b.start("Count");
    /// let m = b.build().unwrap();
    /// let (mut n, mut agent) = (0, FsmAgent::new(&m));
    /// assert_eq!(agent.update(&m, &mut n, &()), Status::Running);
    /// assert_eq!(agent.update(&m, &mut n, &()), Status::Success);
    /// ```
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn update<A, W, T: Copy + Eq>(
        &mut self,
        machine: &Machine<A, W, T>,
        agent: &mut A,
        world: &W,
    ) -> Status {
        self.update_elapsed(machine, agent, world, 1)
    }

    /// [`update`](FsmAgent::update) for an agent updated less often than
    /// the world (level of detail): `elapsed` world ticks have passed since
    /// its last update. The trees of tree states are ticked with
    /// [`Agent::tick_elapsed`], so their waits and timeouts count world
    /// ticks whatever the machine's rate, and the clock hooks see
    /// ([`Ctx::tick`]) moves on by `elapsed`. `elapsed` is taken in
    /// `1..=`[`MAX_ELAPSED`] as the tree agent takes it.
    ///
    /// A patrol of `Wait(6)` inside a state, the machine updated every 3rd
    /// world tick: the wait starts on the first update (world tick 3) and
    /// is over on the first update at or after world tick 9, the third.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use canopy_core::{Builder, Status};
    /// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder, TreeState};
    ///
    /// let b = Builder::<(), ()>::new();
    /// let patrol = Arc::new(b.build(b.wait("walk", 6)).unwrap());
    /// let mut m = MachineBuilder::new();
    /// m.tree_state("Patrol", TreeState::new(patrol).on_success("done"));
    /// m.state("Rest", Hooks::new()).succeeds();
    /// m.transition("Patrol", "done", "Rest");
    /// m.start("Patrol");
    /// let machine = m.build().unwrap();
    ///
    /// let mut agent = FsmAgent::new(&machine);
    /// let statuses: Vec<Status> =
    ///     (0..3).map(|_| agent.update_elapsed(&machine, &mut (), &(), 3)).collect();
    /// assert_eq!(statuses, [Status::Running, Status::Running, Status::Success]);
    /// assert_eq!(agent.ticks(), 9);
    /// ```
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn update_elapsed<A, W, T: Copy + Eq>(
        &mut self,
        machine: &Machine<A, W, T>,
        agent: &mut A,
        world: &W,
        elapsed: u32,
    ) -> Status {
        self.check(machine);
        let elapsed = elapsed.clamp(1, MAX_ELAPSED);
        // Tick 0 is reserved for "never updated", so the clock skips it when it wraps.
        self.tick = self.tick.wrapping_add(elapsed).max(1);
        self.with_elapsed(agent, world, elapsed, |run, cx| machine.run_update(run, cx))
    }

    /// Send a trigger: the active states are asked outermost first, and the
    /// first with a transition on it takes it. Returns `false`, running no
    /// hook, when none has one. A stopped agent enters its start states first.
    ///
    /// ```
    /// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
    /// let mut b = MachineBuilder::<(), (), &str>::new();
    /// b.state("Idle", Hooks::new());
    /// b.state("Jump", Hooks::new());
    /// b.transition("Idle", "jump", "Jump");
    /// b.start("Idle");
    /// let m = b.build().unwrap();
    /// let mut agent = FsmAgent::new(&m);
    /// assert!(agent.send(&m, "jump", &mut (), &()));
    /// assert!(!agent.send(&m, "jump", &mut (), &())); // Jump has no such transition
    /// assert!(agent.is_in(&m, "Jump"));
    /// ```
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn send<A, W, T: Copy + Eq>(
        &mut self,
        machine: &Machine<A, W, T>,
        trigger: T,
        agent: &mut A,
        world: &W,
    ) -> bool {
        self.check(machine);
        self.with(agent, world, |run, cx| machine.run_send(run, trigger, cx))
    }

    /// Enter the start states now, if stopped (a classic machine's `SetStartState`).
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn start<A, W, T: Copy + Eq>(
        &mut self,
        machine: &Machine<A, W, T>,
        agent: &mut A,
        world: &W,
    ) {
        self.check(machine);
        self.with(agent, world, |run, cx| machine.run_start(run, cx))
    }

    /// Exit every active state, innermost first (behavior trees of
    /// tree-running states are aborted), and stop. The next update or send
    /// starts over from the start states.
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn stop<A, W, T: Copy + Eq>(
        &mut self,
        machine: &Machine<A, W, T>,
        agent: &mut A,
        world: &W,
    ) {
        self.check(machine);
        self.with(agent, world, |run, cx| machine.run_stop(run, cx))
    }

    /// The active states, top level first; empty when stopped.
    ///
    /// ```
    /// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
    /// let mut inner = MachineBuilder::<(), (), ()>::new();
    /// inner.state("Walk", Hooks::new());
    /// inner.start("Walk");
    /// let mut b = MachineBuilder::new();
    /// b.state("Move", Hooks::new()).child_machine(inner);
    /// b.start("Move");
    /// let m = b.build().unwrap();
    /// let mut agent = FsmAgent::new(&m);
    /// assert!(agent.active().is_empty());
    /// agent.start(&m, &mut (), &());
    /// let names: Vec<&str> = agent.active().iter().map(|&s| m.name(s)).collect();
    /// assert_eq!(names, ["Move", "Walk"]);
    /// ```
    pub fn active(&self) -> &[StateId] {
        &self.path[..self.len as usize]
    }

    /// `true` if the state named `name` is active (at any level).
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn is_in<A, W, T>(&self, machine: &Machine<A, W, T>, name: &str) -> bool {
        self.check(machine);
        self.active().iter().any(|&s| machine.name(s) == name)
    }

    /// `true` unless stopped.
    pub fn is_active(&self) -> bool {
        self.len > 0
    }

    /// The machine's status now: `Success`/`Failure` while a final state is
    /// active (the outermost one decides), else `Running`.
    ///
    /// # Panics
    /// If `machine` is not the one this agent was created for.
    pub fn status<A, W, T: Copy + Eq>(&self, machine: &Machine<A, W, T>) -> Status {
        self.check(machine);
        machine.status_of(self.active())
    }

    /// The agent's clock: world ticks since it was created (one per
    /// [`update`](FsmAgent::update), `elapsed` per
    /// [`update_elapsed`](FsmAgent::update_elapsed)).
    pub fn ticks(&self) -> u32 {
        self.tick
    }

    /// The agent's id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Complete the wait of an async leaf in one of this agent's tree
    /// states, with the ticket the leaf handed out, as
    /// [`Agent::complete`] does for a tree: the leaf reports `status` on
    /// its state's next update. Each tree state has a runtime of its own,
    /// and the ticket finds the one that issued it. A ticket none of them
    /// issued is [`Completion::OtherAgent`], or [`Completion::OtherCopy`]
    /// when it is a copy's (a clone, a restored agent: trade it in with
    /// [`pending_tickets`](FsmAgent::pending_tickets)); a wait whose state
    /// was left since is [`Completion::Aborted`].
    ///
    /// A guard's path request, answered by the game's service:
    ///
    /// ```
    /// use std::sync::Arc;
    /// use canopy_core::{Builder, Completion, Status, Ticket};
    /// use canopy_fsm::{FsmAgent, Hooks, MachineBuilder, TreeState};
    ///
    /// let b = Builder::<Option<Ticket>, ()>::new();
    /// let ask = b.async_action("find path", |cx, ticket| {
    ///     *cx.agent = Some(ticket); // sent to the path service
    ///     Status::Running
    /// });
    /// let mut m = MachineBuilder::new();
    /// let plan = TreeState::new(Arc::new(b.build(ask).unwrap())).on_success("found");
    /// m.tree_state("Plan", plan);
    /// m.state("Go", Hooks::new());
    /// m.transition("Plan", "found", "Go");
    /// m.start("Plan");
    /// let machine = m.build().unwrap();
    ///
    /// let (mut asked, mut agent) = (None, FsmAgent::new(&machine));
    /// agent.update(&machine, &mut asked, &());
    /// let ticket = asked.take().unwrap();
    /// assert!(agent.complete(ticket, Status::Success).is_completed());
    /// agent.update(&machine, &mut asked, &());
    /// assert!(agent.is_in(&machine, "Go"));
    /// assert_eq!(agent.complete(ticket, Status::Success), Completion::Ended);
    /// ```
    pub fn complete(&mut self, ticket: Ticket, status: Status) -> Completion {
        if status == Status::Running {
            return Completion::NotAResult;
        }
        // The answer when no runtime claims the ticket: a poisoned runtime
        // may be its owner, then a copy's, then none of this agent's.
        let mut unclaimed = Completion::OtherAgent;
        for tree in &mut self.trees {
            match tree.complete(ticket, status) {
                Completion::OtherAgent => {}
                Completion::OtherCopy if unclaimed == Completion::OtherAgent => {
                    unclaimed = Completion::OtherCopy;
                }
                Completion::OtherCopy => {}
                Completion::Poisoned => unclaimed = Completion::Poisoned,
                claimed => return claimed,
            }
        }
        unclaimed
    }

    /// Tickets for the async leaves waiting now in this agent's tree
    /// states: a clone or a restored agent hands these out instead of the
    /// original's ([`Agent::pending_tickets`]).
    pub fn pending_tickets(&self) -> impl Iterator<Item = Ticket> + '_ {
        self.trees.iter().flat_map(Agent::pending_tickets)
    }

    /// Answer the waiting async leaves of every tree state from one place,
    /// as [`Agent::complete_pending`] does for a tree: `answer` gets each
    /// waiting ticket and the ticks it has waited (updates of its state),
    /// and completes it with the status it returns, if any. Returns how
    /// many it completed; allocates nothing.
    pub fn complete_pending(
        &mut self,
        mut answer: impl FnMut(Ticket, u32) -> Option<Status>,
    ) -> u32 {
        self.trees
            .iter_mut()
            .map(|tree| tree.complete_pending(&mut answer))
            .sum()
    }

    /// Heap bytes this agent holds: its path, its data and its tree
    /// runtimes with their pools. The `FsmAgent` value itself is
    /// `size_of::<FsmAgent>()` more, wherever it is stored.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.path)
            + self.data.len()
            + self
                .trees
                .iter()
                .map(|t| size_of::<Agent>() + t.heap_bytes())
                .sum::<usize>()
    }

    fn with<A, W, R>(
        &mut self,
        agent: &mut A,
        world: &W,
        f: impl FnOnce(&mut Run<'_>, &mut Ctx<A, W>) -> R,
    ) -> R {
        self.with_elapsed(agent, world, 1, f)
    }

    fn with_elapsed<A, W, R>(
        &mut self,
        agent: &mut A,
        world: &W,
        elapsed: u32,
        f: impl FnOnce(&mut Run<'_>, &mut Ctx<A, W>) -> R,
    ) -> R {
        let mut cx = Ctx {
            board: canopy_core::Board::empty(),
            agent,
            world,
            tick: self.tick,
            id: self.id,
        };
        let mut run = Run {
            path: &mut self.path,
            len: &mut self.len,
            data: &mut self.data,
            trees: &mut self.trees,
            elapsed,
        };
        f(&mut run, &mut cx)
    }

    /// The tree runtimes of the agent's tree-running states, in slot order.
    pub(crate) fn tree_runtimes(&self) -> &[Agent] {
        &self.trees
    }

    /// The active states' data bytes.
    pub(crate) fn data_bytes(&self) -> &[u8] {
        &self.data
    }

    /// An agent of `machine` from saved parts (checked by the caller).
    pub(crate) fn from_parts<A, W, T>(
        machine: &Machine<A, W, T>,
        id: u32,
        tick: u32,
        path: &[StateId],
        data: &[u8],
        trees: Vec<Agent>,
    ) -> FsmAgent {
        let mut agent = FsmAgent::with_id(machine, id);
        agent.path[..path.len()].copy_from_slice(path);
        agent.len = path.len() as u16;
        agent.data.copy_from_slice(data);
        agent.trees = trees.into();
        agent.tick = tick;
        agent
    }

    /// Panic unless this agent belongs to `machine`.
    pub(crate) fn check_machine<A, W, T>(&self, machine: &Machine<A, W, T>) {
        self.check(machine);
    }

    /// Refuse a machine this agent was not made for. The path, data and
    /// tree runtimes are sized and laid out for one machine; with another
    /// they would index past their ends or run the wrong states' hooks on
    /// the wrong bytes. That is a caller's bug, not a data condition, so it
    /// panics with a message naming it, as canopy-core's `Agent` does for a
    /// tree it was not made for.
    fn check<A, W, T>(&self, machine: &Machine<A, W, T>) {
        assert!(self.machine == machine.id, "{WRONG_MACHINE}");
    }
}
