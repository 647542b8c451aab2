//! The flat limit: canopy's built-in node semantics as a hand-optimised
//! flat-array interpreter, the "physical limit" every speed figure is
//! compared with.
//!
//! It is what a C programmer would write for one fixed set of node kinds:
//!
//! - **One immutable array of nodes.** Each node is a plain enum (its kind
//!   and parameters, leaves inline) plus two integers: where its children
//!   start and how many there are. Nodes are laid out breadth first, so a
//!   node's children are a contiguous index range and child `k` is
//!   `first + k`, with no indirection.
//! - **Per-agent state in one flat word array**, at offsets fixed when the
//!   tree is built. Children that never run at the same time (those of a
//!   Sequence, a Selector, a decorator) share one region; children that may
//!   (those of a Parallel, and of the reactive composites, which re-check
//!   earlier children while a later one runs) get disjoint regions. A
//!   The memory of a Cooldown, a SequenceWithMemory or a RunOnce, which
//!   outlives their activations, has a region of its own. Two header words hold the agent's tick counter and whether its root
//!   is running. A whole crowd is one `Vec<u32>` ([`FlatCrowd`]).
//! - **No dynamic dispatch**: a `match` over the node kind; leaves are a
//!   type `L` implementing [`FlatLeaf`] (for the reference tree, a `match`
//!   over [`Leaf`](crate::Leaf)), monomorphised into the interpreter.
//! - **No allocation** per tick, no per-node "running" flags: as in canopy,
//!   whether a child is running follows from its parent's state.
//!
//! The semantics are exactly canopy's (see `canopy_core::nodes`): the same
//! statuses, the same leaf calls in the same order, the same enter, update,
//! exit and abort events ([`Trace`]), which the crate's tests check on the
//! reference tree and on random trees of every built-in kind.
//!
//! ```
//! use canopy_core::Status;
//! use canopy_reference::{critters, flat, Meadow};
//!
//! let tree = flat::reference();
//! let mut meadow = Meadow::new(128);
//! let mut crowd = critters(100, 1, &meadow);
//! let mut agents = flat::FlatCrowd::new(&tree, 100);
//! for _ in 0..50 {
//!     for (id, (state, critter)) in agents.agents_mut().zip(&mut crowd).enumerate() {
//!         let status = tree.tick(state, id as u32, critter, &meadow);
//!         assert_ne!(status, Status::Failure);
//!     }
//!     meadow.advance();
//! }
//! ```

mod build;
mod builtin;
mod reference;
mod run;

use std::ops::Range;

use canopy_core::nodes::Like;
use canopy_core::{Afterwards, Ctx, EventKind, ParamEnum, Policy, Status, hash};

pub use build::{Def, FlatError, MAX_DEPTH, MAX_NODES};
pub use builtin::{Builtin, alternating_chain, read_builtin};
pub use reference::{reference, reference_def};

/// Leaf code, called by value from the interpreter's `match` (no `dyn`).
///
/// Actions call [`act`](FlatLeaf::act); conditions, guards and reactive
/// guards call [`check`](FlatLeaf::check).
pub trait FlatLeaf<A, W> {
    /// Run an action leaf.
    fn act(&self, cx: &mut Ctx<'_, A, W>) -> Status;
    /// Evaluate a condition.
    fn check(&self, cx: &mut Ctx<'_, A, W>) -> bool;
}

/// Receives the interpreter's events, by flat node index (see
/// [`FlatTree::children`]): the same enter, update, exit and abort events,
/// in the same order, as a canopy `Observer` sees. `()` ignores them and
/// compiles away.
pub trait Trace {
    /// One event of node `node`.
    fn event(&mut self, node: usize, kind: EventKind);
}

impl Trace for () {
    #[inline(always)]
    fn event(&mut self, _node: usize, _kind: EventKind) {}
}

impl<T: Trace + ?Sized> Trace for &mut T {
    #[inline]
    fn event(&mut self, node: usize, kind: EventKind) {
        (**self).event(node, kind)
    }
}

/// A node's kind and parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op<L> {
    Sequence,
    Selector,
    SequenceWithMemory,
    ReactiveSequence,
    ReactiveSelector,
    Parallel { success: Policy, failure: Policy },
    Shuffle { like: Like, salt: u64 },
    Inverter,
    ForceSuccess,
    ForceFailure,
    Repeat(u32),
    Retry(u32),
    Guard(L),
    ReactiveGuard(L),
    Timeout(u32),
    Cooldown(u32),
    RunOnce(Afterwards),
    Wait(u32),
    Random(Draw),
    AlwaysSuccess,
    AlwaysFailure,
    AlwaysRunning,
    Action(L),
    Condition(L),
}

impl<L> Op<L> {
    fn map<M>(self, f: &mut impl FnMut(L) -> M) -> Op<M> {
        match self {
            Op::Sequence => Op::Sequence,
            Op::Selector => Op::Selector,
            Op::SequenceWithMemory => Op::SequenceWithMemory,
            Op::ReactiveSequence => Op::ReactiveSequence,
            Op::ReactiveSelector => Op::ReactiveSelector,
            Op::Parallel { success, failure } => Op::Parallel { success, failure },
            Op::Shuffle { like, salt } => Op::Shuffle { like, salt },
            Op::Inverter => Op::Inverter,
            Op::ForceSuccess => Op::ForceSuccess,
            Op::ForceFailure => Op::ForceFailure,
            Op::Repeat(n) => Op::Repeat(n),
            Op::Retry(n) => Op::Retry(n),
            Op::Guard(l) => Op::Guard(f(l)),
            Op::ReactiveGuard(l) => Op::ReactiveGuard(f(l)),
            Op::Timeout(n) => Op::Timeout(n),
            Op::Cooldown(n) => Op::Cooldown(n),
            Op::RunOnce(then) => Op::RunOnce(then),
            Op::Wait(n) => Op::Wait(n),
            Op::Random(draw) => Op::Random(draw),
            Op::AlwaysSuccess => Op::AlwaysSuccess,
            Op::AlwaysFailure => Op::AlwaysFailure,
            Op::AlwaysRunning => Op::AlwaysRunning,
            Op::Action(l) => Op::Action(f(l)),
            Op::Condition(l) => Op::Condition(f(l)),
        }
    }

    /// The kind's name and parameters in canopy's words, e.g.
    /// `Parallel(success=one, failure=all)`.
    fn describe(&self) -> String {
        let (name, params) = match self {
            Op::Sequence => ("Sequence", String::new()),
            Op::Selector => ("Selector", String::new()),
            Op::SequenceWithMemory => ("SequenceWithMemory", String::new()),
            Op::ReactiveSequence => ("ReactiveSequence", String::new()),
            Op::ReactiveSelector => ("ReactiveSelector", String::new()),
            Op::Parallel { success, failure } => {
                ("Parallel", format!("success={success}, failure={failure}"))
            }
            Op::Shuffle { like, .. } => ("Shuffle", format!("like={}", like.word())),
            Op::Inverter => ("Inverter", String::new()),
            Op::ForceSuccess => ("ForceSuccess", String::new()),
            Op::ForceFailure => ("ForceFailure", String::new()),
            Op::Repeat(n) => ("Repeat", format!("times={n}")),
            Op::Retry(n) => ("Retry", format!("times={n}")),
            Op::Guard(_) => ("Guard", String::new()),
            Op::ReactiveGuard(_) => ("ReactiveGuard", String::new()),
            Op::Timeout(n) => ("Timeout", format!("ticks={n}")),
            Op::Cooldown(n) => ("Cooldown", format!("ticks={n}")),
            Op::RunOnce(then) => ("RunOnce", format!("then={then}")),
            Op::Wait(n) => ("Wait", format!("ticks={n}")),
            Op::Random(_) => ("Random", String::new()),
            Op::AlwaysSuccess => ("AlwaysSuccess", String::new()),
            Op::AlwaysFailure => ("AlwaysFailure", String::new()),
            Op::AlwaysRunning => ("AlwaysRunning", String::new()),
            Op::Action(_) => ("Action", String::new()),
            Op::Condition(_) => ("Condition", String::new()),
        };
        if params.is_empty() {
            name.to_string()
        } else {
            format!("{name}({params})")
        }
    }

    fn leaf(&self) -> Option<&L> {
        match self {
            Op::Guard(l) | Op::ReactiveGuard(l) | Op::Action(l) | Op::Condition(l) => Some(l),
            _ => None,
        }
    }
}

/// A `Random` leaf's draw, as canopy-data's `Random` makes it: Success
/// with probability `success`, Failure with `failure`, else Running, a
/// hash of the node's salt, the agent and tick, and the update count since
/// the leaf was entered ([`canopy_core::hash`]), compared with thresholds
/// computed once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Draw {
    salt: u64,
    /// The salt with the hash of update 0 folded in.
    first: u64,
    succeed_below: u64,
    fail_below: u64,
}

impl Draw {
    pub(crate) fn new(success: f64, failure: f64, salt: u64) -> Draw {
        Draw {
            salt,
            first: salt ^ hash::mix(0),
            succeed_below: hash::below(success),
            fail_below: hash::below(success + failure),
        }
    }

    /// The outcome of update `count` (from 0) at this agent and tick.
    #[inline(always)]
    pub(crate) fn roll(&self, id: u32, tick: u32, count: u32) -> Status {
        let salt = if count == 0 {
            self.first
        } else {
            self.salt ^ hash::mix(u64::from(count))
        };
        let draw = hash::bits(salt ^ hash::agent_tick(id, tick));
        if draw < self.succeed_below {
            Status::Success
        } else if draw < self.fail_below {
            Status::Failure
        } else {
            Status::Running
        }
    }
}

/// One node of the flat array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node<L> {
    pub(crate) op: Op<L>,
    /// Index of the first child; children are `first..first + count`.
    pub(crate) first: u32,
    pub(crate) count: u32,
    /// Word offset of the node's state in an agent's array: its task words,
    /// or for a Cooldown, a SequenceWithMemory or a RunOnce its lasting
    /// word (the one word such a node needs, running or not).
    pub(crate) at: u32,
}

/// Word 0 of an agent's state: its tick counter.
const TICK: usize = 0;
/// Word 1: 1 while the root is running.
const RUNNING: usize = 1;
/// Words before the nodes' state.
const HEADER: usize = 2;

/// A tree for the flat interpreter: one immutable array of nodes, shared by
/// every agent. Build one with [`FlatTree::build`] from a [`Def`].
#[derive(Clone, Debug)]
pub struct FlatTree<L> {
    nodes: Vec<Node<L>>,
    names: Vec<Box<str>>,
    words: usize,
}

impl<L> FlatTree<L> {
    /// Number of nodes (shared subtrees of the description counted at
    /// every use). The root is node 0.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always `false`: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The children of node `node`, as a range of node indices.
    ///
    /// # Panics
    /// If `node` is not below [`len`](Self::len).
    pub fn children(&self, node: usize) -> Range<usize> {
        let n = &self.nodes[node];
        n.first as usize..(n.first + n.count) as usize
    }

    /// The name of node `node`.
    ///
    /// # Panics
    /// If `node` is not below [`len`](Self::len).
    pub fn name(&self, node: usize) -> &str {
        &self.names[node]
    }

    /// The kind and parameters of node `node` in canopy's words, as
    /// `Debug` prints a `canopy_core::NodeKind`: `Repeat(times=3)`.
    ///
    /// # Panics
    /// If `node` is not below [`len`](Self::len).
    pub fn describe(&self, node: usize) -> String {
        self.nodes[node].op.describe()
    }

    /// The leaf of an Action or Condition, the condition of a Guard or
    /// ReactiveGuard; `None` for other kinds.
    ///
    /// # Panics
    /// If `node` is not below [`len`](Self::len).
    pub fn leaf(&self, node: usize) -> Option<&L> {
        self.nodes[node].op.leaf()
    }

    /// Words of state one agent needs (a `u32` each).
    ///
    /// ```
    /// let tree = canopy_reference::flat::reference();
    /// assert_eq!(tree.words_per_agent(), 19);
    /// ```
    pub fn words_per_agent(&self) -> usize {
        self.words
    }

    /// A new agent's state: nothing running, tick 0.
    pub fn new_state(&self) -> Vec<u32> {
        vec![0; self.words]
    }

    /// The same tree with every leaf replaced by `f(leaf)`, e.g. to wrap
    /// leaves in code that records their calls.
    pub fn map_leaves<M>(self, mut f: impl FnMut(L) -> M) -> FlatTree<M> {
        FlatTree {
            nodes: self
                .nodes
                .into_iter()
                .map(|n| Node {
                    op: n.op.map(&mut f),
                    first: n.first,
                    count: n.count,
                    at: n.at,
                })
                .collect(),
            names: self.names,
            words: self.words,
        }
    }

    /// Tick one agent: start the root if it is not running (first tick, or
    /// it finished last tick), update it, and return its status. `id` is
    /// what leaves see as [`Ctx::id`].
    ///
    /// # Panics
    /// If `state` is not [`words_per_agent`](Self::words_per_agent) long.
    #[inline]
    pub fn tick<A, W>(&self, state: &mut [u32], id: u32, agent: &mut A, world: &W) -> Status
    where
        L: FlatLeaf<A, W>,
    {
        self.tick_traced(state, id, agent, world, ())
    }

    /// [`tick`](Self::tick), reporting every event to `trace`.
    ///
    /// # Panics
    /// If `state` is not [`words_per_agent`](Self::words_per_agent) long.
    #[inline]
    pub fn tick_traced<A, W, T: Trace>(
        &self,
        state: &mut [u32],
        id: u32,
        agent: &mut A,
        world: &W,
        trace: T,
    ) -> Status
    where
        L: FlatLeaf<A, W>,
    {
        self.check_state(state);
        // Tick 0 means "never" for a Cooldown, so the clock skips it.
        let tick = state[TICK].wrapping_add(1).max(1);
        state[TICK] = tick;
        let fresh = state[RUNNING] == 0;
        let cx = Ctx {
            board: canopy_core::Board::empty(),
            agent,
            world,
            tick,
            id,
        };
        let mut run = run::Run::new(&self.nodes, state, cx, trace);
        let status = run.child(0, fresh);
        state[RUNNING] = (status == Status::Running) as u32;
        status
    }

    /// Abort whatever is running (deepest first) and return the agent to
    /// its state when new: tick 0, cooldowns forgotten.
    ///
    /// # Panics
    /// If `state` is not [`words_per_agent`](Self::words_per_agent) long.
    pub fn reset<A, W, T: Trace>(
        &self,
        state: &mut [u32],
        id: u32,
        agent: &mut A,
        world: &W,
        trace: T,
    ) where
        L: FlatLeaf<A, W>,
    {
        self.check_state(state);
        if state[RUNNING] != 0 {
            let cx = Ctx {
                board: canopy_core::Board::empty(),
                agent,
                world,
                tick: state[TICK],
                id,
            };
            run::Run::new(&self.nodes, state, cx, trace).abort(0);
        }
        state.fill(0);
    }

    fn check_state(&self, state: &[u32]) {
        assert_eq!(
            state.len(),
            self.words,
            "an agent's state must be the tree's words_per_agent() long"
        );
    }
}

/// The state of a whole crowd in one array: agent `i` owns words
/// `i * stride .. (i + 1) * stride`.
#[derive(Clone, Debug)]
pub struct FlatCrowd {
    stride: usize,
    words: Vec<u32>,
}

impl FlatCrowd {
    /// `n` new agents of `tree`.
    pub fn new<L>(tree: &FlatTree<L>, n: usize) -> FlatCrowd {
        FlatCrowd {
            stride: tree.words_per_agent(),
            words: vec![0; n * tree.words_per_agent()],
        }
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.words.len() / self.stride
    }

    /// Whether there are no agents.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Bytes of state per agent.
    pub fn bytes_per_agent(&self) -> usize {
        self.stride * size_of::<u32>()
    }

    /// Each agent's state, in order.
    pub fn agents_mut(&mut self) -> std::slice::ChunksExactMut<'_, u32> {
        self.words.chunks_exact_mut(self.stride)
    }

    /// The whole array, for splitting across threads
    /// (`par_chunks_exact_mut(stride)`).
    pub fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words
    }

    /// Words per agent.
    pub fn stride(&self) -> usize {
        self.stride
    }
}
