//! Building a [`Tree`] in code, and checking it.
//!
//! Node drafts are allocated in a `typed_arena::Arena`, which hands out
//! shared references from `&self`. That is what lets a tree be written as one
//! nested expression — `b.sequence("s", [b.condition(..), b.action(..)])` —
//! where a `&mut self` builder would be rejected by the borrow checker, and
//! it lets one draft be used under several parents (a shared subtree)
//! without copying it. [`Builder::build`] then checks the structure and
//! flattens the drafts into the compact, immutable `Tree`.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use typed_arena::Arena;

use crate::asynchronous::Ticket;
use crate::context::Ctx;
use crate::custom::{CustomNode, MAX_TASK_BYTES, Node};
use crate::node::{NodeKind, Policy, Predicate};
use crate::nodes;
use crate::pool::{PoolLayout, Slot, TaskSize};
use crate::scheduler;
use crate::status::Status;
use crate::tree::{Edge, NodeDef, Tree};

/// A registered type name and the parameters to show with it.
type Label = (Box<str>, Vec<(String, String)>);

/// Deepest tree accepted: ticking recurses once per level.
pub const MAX_DEPTH: usize = 256;

/// Most children one node may have.
pub const MAX_CHILDREN: usize = 32_767;

/// Most memory one agent may need for the tree (task frame plus persistent memory).
pub const MAX_AGENT_BYTES: u64 = 1 << 20;

/// A node under construction. Obtain one from a [`Builder`] method and pass
/// it as a child to another, or to [`Builder::build`] as the root.
pub struct Draft<'b, A, W> {
    index: u32,
    name: Box<str>,
    type_name: Option<Box<str>>,
    params: Option<Vec<(String, String)>>,
    kind: NodeKind<A, W>,
    children: Vec<&'b Draft<'b, A, W>>,
}

impl<A, W> Draft<'_, A, W> {
    /// The node's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl<A, W> fmt::Debug for Draft<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Draft")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("children", &self.children.len())
            .finish()
    }
}

/// Why a tree could not be built: which node, and what is wrong with it.
///
/// ```
/// use canopy_core::Builder;
/// let b = Builder::<(), ()>::new();
/// let bad = b.repeat("again", 0, b.always_success("ok"));
/// let err = b.build(b.sequence("root", [b.always_success("a"), bad])).unwrap_err();
/// assert_eq!(err.path, "tree/children[1]");
/// assert_eq!(err.to_string(),
///     "tree/children[1] (name \"again\"): a Repeat needs a count of at least 1, got 0");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// Where the node is: `tree` for the root, then `/children[i]` per level.
    pub path: String,
    /// The node's name.
    pub name: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (name {:?}): {}", self.path, self.name, self.problem)
    }
}

impl std::error::Error for BuildError {}

/// Builds trees in code. Every method takes `&self` and returns a [`Draft`]
/// that can be passed as a child to the next call.
///
/// ```
/// use canopy_core::{Agent, Builder, Policy, Status};
///
/// #[derive(Default)]
/// struct Guard { alarm: bool, shots: u32 }
///
/// let b = Builder::<Guard, ()>::new();
/// let tree = b.build(b.reactive_selector("guard duty", [
///     b.sequence("respond", [
///         b.condition("alarm?", |cx| cx.agent.alarm),
///         b.repeat("fire thrice", 3, b.action("fire", |cx| { cx.agent.shots += 1; Status::Success })),
///     ]),
///     b.always_running("patrol"),
/// ])).unwrap();
///
/// let mut me = Guard::default();
/// let mut agent = Agent::new(&tree);
/// assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running); // patrolling
/// me.alarm = true;
/// for _ in 0..2 { assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running); }
/// assert_eq!(agent.tick(&tree, &mut me, &()), Status::Success);
/// assert_eq!(me.shots, 3);
/// ```
pub struct Builder<'b, A, W> {
    arena: Arena<Draft<'b, A, W>>,
    next: Cell<u32>,
    _types: PhantomData<fn(&mut A, &W)>,
}

impl<A, W> Default for Builder<'_, A, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'b, A, W> Builder<'b, A, W> {
    /// An empty builder.
    pub fn new() -> Self {
        Builder {
            arena: Arena::new(),
            next: Cell::new(0),
            _types: PhantomData,
        }
    }

    /// A node of any kind with any children; the typed methods below all
    /// come here. Structural mistakes are reported by [`Builder::build`].
    ///
    /// ```
    /// use canopy_core::{Builder, NodeKind};
    /// let b = Builder::<(), ()>::new();
    /// let inv = b.node("not", NodeKind::Inverter, []);
    /// let err = b.build(inv).unwrap_err();
    /// assert_eq!(err.problem, "an Inverter needs exactly one child, got 0");
    /// ```
    pub fn node(
        &'b self,
        name: &str,
        kind: NodeKind<A, W>,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.alloc(name, None, kind, children.into_iter().collect())
    }

    /// [`Builder::node`] under a type name and parameters of its own,
    /// shown in printed trees and traces instead of the kind's: what a
    /// registry does for a registered leaf type such as `IsHungry`, which is
    /// a plain `Condition` underneath.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use canopy_core::{Builder, NodeKind};
    /// let b = Builder::<u32, ()>::new();
    /// let params = vec![("above".to_string(), "3".to_string())];
    /// let hungry = b.typed_node("hungry?", "IsHungry", params,
    ///     NodeKind::Condition(Arc::new(|cx| *cx.agent > 3)), []);
    /// let tree = b.build(hungry).unwrap();
    /// assert_eq!(tree.display().to_string(), "hungry?  IsHungry(above=3)\n");
    /// ```
    pub fn typed_node(
        &'b self,
        name: &str,
        type_name: &str,
        params: Vec<(String, String)>,
        kind: NodeKind<A, W>,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        let label = Some((type_name.into(), params));
        self.alloc(name, label, kind, children.into_iter().collect())
    }

    fn alloc(
        &'b self,
        name: &str,
        label: Option<Label>,
        kind: NodeKind<A, W>,
        children: Vec<&'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        let index = self.next.get();
        self.next.set(index + 1);
        let (type_name, params) = label.unzip();
        self.arena.alloc(Draft {
            index,
            name: name.into(),
            type_name,
            params,
            kind,
            children,
        })
    }

    /// A [Sequence](crate::nodes#sequence).
    pub fn sequence(
        &'b self,
        name: &str,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Sequence, children)
    }

    /// A [Selector](crate::nodes#selector).
    pub fn selector(
        &'b self,
        name: &str,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Selector, children)
    }

    /// A [ReactiveSequence](crate::nodes#reactivesequence).
    pub fn reactive_sequence(
        &'b self,
        name: &str,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::ReactiveSequence, children)
    }

    /// A [ReactiveSelector](crate::nodes#reactiveselector) (priority selector).
    pub fn reactive_selector(
        &'b self,
        name: &str,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::ReactiveSelector, children)
    }

    /// A [Parallel](crate::nodes#parallel) with its success and failure policies.
    pub fn parallel(
        &'b self,
        name: &str,
        success: Policy,
        failure: Policy,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Parallel { success, failure }, children)
    }

    /// An [Inverter](crate::nodes#inverter).
    pub fn inverter(&'b self, name: &str, child: &'b Draft<'b, A, W>) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Inverter, [child])
    }

    /// A [ForceSuccess](crate::nodes#forcesuccess--forcefailure).
    pub fn force_success(&'b self, name: &str, child: &'b Draft<'b, A, W>) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::ForceSuccess, [child])
    }

    /// A [ForceFailure](crate::nodes#forcesuccess--forcefailure).
    pub fn force_failure(&'b self, name: &str, child: &'b Draft<'b, A, W>) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::ForceFailure, [child])
    }

    /// A [Repeat](crate::nodes#repeatn): the child must succeed `times` times.
    pub fn repeat(
        &'b self,
        name: &str,
        times: u32,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Repeat(times), [child])
    }

    /// A [Retry](crate::nodes#retryn): up to `times` attempts.
    pub fn retry(
        &'b self,
        name: &str,
        times: u32,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Retry(times), [child])
    }

    /// A [Guard](crate::nodes#guard): enters `child` only if `condition`
    /// holds when the guard is entered.
    pub fn guard<F>(
        &'b self,
        name: &str,
        condition: F,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W>
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        let check = Predicate {
            label: None,
            check: Arc::new(condition),
        };
        self.node(name, NodeKind::Guard(check), [child])
    }

    /// A [ReactiveGuard](crate::nodes#reactiveguard): re-checks `condition`
    /// every tick and aborts `child` when it no longer holds.
    pub fn reactive_guard<F>(
        &'b self,
        name: &str,
        condition: F,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W>
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        let check = Predicate {
            label: None,
            check: Arc::new(condition),
        };
        self.node(name, NodeKind::ReactiveGuard(check), [child])
    }

    /// A [Timeout](crate::nodes#timeoutn): fails once the child has run `ticks` ticks.
    pub fn timeout(
        &'b self,
        name: &str,
        ticks: u32,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Timeout(ticks), [child])
    }

    /// A [Cooldown](crate::nodes#cooldownn): after the child finishes, fails
    /// for `ticks` ticks without running it.
    pub fn cooldown(
        &'b self,
        name: &str,
        ticks: u32,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Cooldown(ticks), [child])
    }

    /// An [Action](crate::nodes#action) leaf running `f` on every update.
    pub fn action<F>(&'b self, name: &str, f: F) -> &'b Draft<'b, A, W>
    where
        F: Fn(&mut Ctx<A, W>) -> Status + Send + Sync + 'static,
    {
        self.node(name, NodeKind::Action(Arc::new(f)), [])
    }

    /// A [Condition](crate::nodes#condition) leaf: `true` is Success.
    pub fn condition<F>(&'b self, name: &str, f: F) -> &'b Draft<'b, A, W>
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        self.node(name, NodeKind::Condition(Arc::new(f)), [])
    }

    /// A leaf that always succeeds.
    pub fn always_success(&'b self, name: &str) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::AlwaysSuccess, [])
    }

    /// A leaf that always fails.
    pub fn always_failure(&'b self, name: &str) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::AlwaysFailure, [])
    }

    /// A leaf that never finishes.
    pub fn always_running(&'b self, name: &str) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::AlwaysRunning, [])
    }

    /// A [Wait](crate::nodes#waitn) leaf: Running until `ticks` ticks have passed.
    pub fn wait(&'b self, name: &str, ticks: u32) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Wait(ticks), [])
    }

    /// An [Async](crate::nodes#async) leaf: `start` runs once when the leaf
    /// is entered and gets the [`Ticket`] that completes it;
    /// returning `Running` suspends the leaf until then.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<Vec<canopy_core::Ticket>, ()>::new();
    /// let tree = b.build(b.async_action("load", |cx, ticket| {
    ///     cx.agent.push(ticket);
    ///     Status::Running
    /// })).unwrap();
    /// let (mut jobs, mut agent) = (Vec::new(), Agent::new(&tree));
    /// agent.tick(&tree, &mut jobs, &());
    /// agent.complete(jobs[0], Status::Failure);
    /// assert_eq!(agent.tick(&tree, &mut jobs, &()), Status::Failure);
    /// ```
    pub fn async_action<F>(&'b self, name: &str, start: F) -> &'b Draft<'b, A, W>
    where
        F: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
    {
        self.node(name, NodeKind::Async(Arc::new(start)), [])
    }

    /// A user-defined [`Node`] with its children (none for a leaf).
    pub fn custom<N: Node<A, W>>(
        &'b self,
        name: &str,
        node: N,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, NodeKind::Custom(CustomNode::new(node)), children)
    }

    /// Check the tree under `root` and flatten it into a shareable [`Tree`].
    ///
    /// Errors name the first wrong node in depth-first order: a child count
    /// its kind does not accept, a zero count or duration, a task too large,
    /// a tree deeper than [`MAX_DEPTH`] or needing more than
    /// [`MAX_AGENT_BYTES`] per agent.
    pub fn build(&self, root: &Draft<'b, A, W>) -> Result<Tree<A, W>, BuildError> {
        compile(root)
    }
}

/// Where a draft was first reached from — the parent's position in the
/// depth-first order and the child index — for naming it in errors.
type Parent = Option<(usize, usize)>;

struct Reached<'d, 'b, A, W> {
    draft: &'d Draft<'b, A, W>,
    parent: Parent,
}

fn compile<'b, A, W>(root: &Draft<'b, A, W>) -> Result<Tree<A, W>, BuildError> {
    // Depth-first, pre-order, each draft once (a shared subtree is one node).
    let mut order: Vec<Reached<'_, 'b, A, W>> = Vec::new();
    let mut position: HashMap<u32, usize> = HashMap::new();
    let mut stack: Vec<(&Draft<'b, A, W>, Parent)> = vec![(root, None)];
    while let Some((draft, parent)) = stack.pop() {
        if position.contains_key(&draft.index) {
            continue;
        }
        position.insert(draft.index, order.len());
        let me = order.len();
        order.push(Reached { draft, parent });
        for (i, child) in draft.children.iter().enumerate().rev() {
            stack.push((child, Some((me, i))));
        }
    }

    let fail = |at: usize, problem: String| {
        let mut segments = Vec::new();
        let mut cur = at;
        while let Some((parent, i)) = order[cur].parent {
            segments.push(format!("children[{i}]"));
            cur = parent;
        }
        segments.push("tree".to_string());
        segments.reverse();
        BuildError {
            path: segments.join("/"),
            name: order[at].draft.name.to_string(),
            problem,
        }
    };

    for (at, reached) in order.iter().enumerate() {
        if let Some(problem) = check_node(reached.draft) {
            return Err(fail(at, problem));
        }
    }

    // Sizes bottom-up: a draft's children were created before it, so
    // ascending draft index visits every child before its parents.
    let mut bottom_up: Vec<usize> = (0..order.len()).collect();
    bottom_up.sort_by_key(|&at| order[at].draft.index);
    let n = order.len();
    let mut height = vec![0u32; n];
    let mut inline = vec![0u64; n];
    let mut persist = vec![0u64; n];
    // What the event-driven scheduler and the wait table may need at once.
    let mut frames = vec![0u64; n];
    let mut waits = vec![0u64; n];
    for &at in &bottom_up {
        let draft = order[at].draft;
        let kids: Vec<usize> = draft.children.iter().map(|c| position[&c.index]).collect();
        height[at] = 1 + kids.iter().map(|&k| height[k]).max().unwrap_or(0);
        if height[at] as usize > MAX_DEPTH {
            return Err(fail(
                at,
                format!("the tree below this node is more than {MAX_DEPTH} levels deep"),
            ));
        }
        let own = nodes::own_bytes(&draft.kind, kids.len()) as u64;
        let slots = slot_sizes(&draft.kind, &kids, &inline);
        inline[at] = own + slots.iter().sum::<u64>();
        persist[at] = nodes::persist_bytes(&draft.kind) as u64
            + kids.iter().map(|&k| persist[k]).sum::<u64>();
        let sum = |v: &[u64]| kids.iter().fold(0u64, |s, &k| s.saturating_add(v[k]));
        let max = |v: &[u64]| kids.iter().map(|&k| v[k]).max().unwrap_or(0);
        let plan = nodes::slot_plan(&draft.kind);
        frames[at] = 1 + match plan {
            _ if !scheduler::schedules_children(&draft.kind) => 0,
            nodes::SlotPlan::PerChild => sum(&frames),
            _ => max(&frames),
        }
        .min(u32::MAX as u64 - 1);
        waits[at] = match (&draft.kind, plan) {
            (NodeKind::Async(_), _) => 1,
            (_, nodes::SlotPlan::PerChild) => sum(&waits),
            (_, nodes::SlotPlan::Reactive) => max(&waits).saturating_mul(2),
            _ => max(&waits),
        }
        .min(u32::MAX as u64);
        if inline[at] + persist[at] > MAX_AGENT_BYTES {
            return Err(fail(
                at,
                format!(
                    "running this subtree needs {} bytes per agent, more than the limit of {MAX_AGENT_BYTES}",
                    inline[at] + persist[at]
                ),
            ));
        }
    }

    // Flatten in pre-order with the layout of every node.
    let mut defs = Vec::with_capacity(n);
    let mut edges = Vec::new();
    let mut slots = Vec::new();
    let mut max_block = 0;
    for (at, reached) in order.iter().enumerate() {
        let draft = reached.draft;
        let kids: Vec<usize> = draft.children.iter().map(|c| position[&c.index]).collect();
        let own = nodes::own_bytes(&draft.kind, kids.len());
        let sizes = slot_sizes(&draft.kind, &kids, &inline);
        let first_slot = slots.len() as u32;
        let mut offset = own as u64;
        for (k, size) in sizes.iter().enumerate() {
            slots.push(Slot {
                inline: offset as u32,
                handle: own + 4 * k as u32,
            });
            offset += size;
        }
        let block = own + 4 * sizes.len() as u32;
        max_block = max_block.max(block);
        let first_edge = edges.len() as u32;
        let mut persist_at = nodes::persist_bytes(&draft.kind) as u64;
        for &k in &kids {
            edges.push(Edge {
                node: k as u32,
                persist: persist_at as u32,
            });
            persist_at += persist[k];
        }
        defs.push(NodeDef {
            name: draft.name.clone(),
            type_name: draft.type_name.clone(),
            params: draft.params.clone(),
            kind: draft.kind.clone(),
            first_edge,
            child_count: kids.len() as u32,
            first_slot,
            size: TaskSize {
                own,
                inline: inline[at] as u32,
                block,
            },
        });
    }

    static NEXT_TREE: AtomicU32 = AtomicU32::new(1);
    let root_always = scheduler::updated_every_tick(&defs[0].kind);
    let layout = PoolLayout {
        root: defs[0].size,
        persist: persist[0] as u32,
        max_block,
    };
    Ok(Tree {
        nodes: defs,
        edges,
        slots,
        layout,
        depth: height[0],
        frames: frames[0] as u32,
        waits: waits[0] as u32,
        root_always,
        id: NEXT_TREE.fetch_add(1, Ordering::Relaxed),
        _types: PhantomData,
    })
}

/// Inline size of each behavior slot of a node whose children have the
/// given inline sizes.
fn slot_sizes<A, W>(kind: &NodeKind<A, W>, kids: &[usize], inline: &[u64]) -> Vec<u64> {
    let max = |ks: &[usize]| ks.iter().map(|&k| inline[k]).max().unwrap_or(0);
    match nodes::slot_plan(kind) {
        nodes::SlotPlan::None => Vec::new(),
        nodes::SlotPlan::Shared => vec![max(kids)],
        nodes::SlotPlan::Reactive => {
            // The running child lives in either slot; a child being re-checked
            // goes in the other. The last child is never re-checked while
            // another one runs, so the second slot need not fit it.
            let but_last = &kids[..kids.len().saturating_sub(1)];
            vec![max(kids), max(but_last)]
        }
        nodes::SlotPlan::PerChild => kids.iter().map(|&k| inline[k]).collect(),
    }
}

/// The structural problem with one node, if any.
fn check_node<A, W>(draft: &Draft<'_, A, W>) -> Option<String> {
    let kind = &draft.kind;
    let ty = kind.type_name();
    let n = draft.children.len();
    let article = if ty.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "an"
    } else {
        "a"
    };
    let arity = kind.arity();
    if !arity.accepts(n) {
        return Some(format!(
            "{article} {ty} needs {}, got {n}",
            arity.describe()
        ));
    }
    if n > MAX_CHILDREN {
        return Some(format!(
            "{n} children is more than the limit of {MAX_CHILDREN}"
        ));
    }
    match kind {
        NodeKind::Parallel { .. } if n == 0 => {
            Some("a Parallel needs at least one child, got 0".to_string())
        }
        NodeKind::Repeat(0) | NodeKind::Retry(0) => {
            Some(format!("a {ty} needs a count of at least 1, got 0"))
        }
        NodeKind::Timeout(0) | NodeKind::Cooldown(0) => {
            Some(format!("a {ty} needs a duration of at least 1 tick, got 0"))
        }
        NodeKind::Custom(c) if c.task_size() > MAX_TASK_BYTES => Some(format!(
            "the task of a {ty} is {} bytes, more than the limit of {MAX_TASK_BYTES}",
            c.task_size()
        )),
        _ => None,
    }
}
