//! Where each task lives in an agent's memory, decided once per tree — the
//! pool of task memory — and the checks that make every access to it safe.
//!
//! A shared-node tree installs and uninstalls small tasks constantly: even a
//! branch that is merely tried is installed, updated once and uninstalled.
//! Rather than allocating them, canopy lays out all of an agent's task
//! memory when the tree is built, the way a compiler lays out the variants
//! of an `enum`. The tree is immutable, so the largest set of tasks that can
//! ever be installed together is known: children of a Sequence or a
//! Selector run one after another and share one region (a *behavior slot*);
//! children of a Parallel run together and get disjoint regions. A task's
//! memory is its own state followed by its slots; a child's task lives in
//! its slot, at a fixed offset from its parent's. Installing a task is then
//! "use the bytes at parent + offset", uninstalling it is nothing at all,
//! and an agent allocates once, when it is created.
//!
//! Rejected alternatives, measured on the same engine (the `pools` bench
//! replays the engine's install/uninstall pattern against each): a free
//! list per task size, one `Box` per task, a process-wide `object-pool`
//! behind a lock, a `bumpalo` arena reset when the root finishes. All cost
//! more per install than an offset, and all but the free list allocate.
//!
//! # The invariant
//!
//! [`validate`] checks, once per tree, that the tables describe memory that
//! nests: every node's own state lies inside its `inline` size, every child
//! fits both places its parent may install it in, every child's persistent
//! memory lies inside its parent's, children are lower than their parents
//! (so the tables hold no cycle), and the root's memory is exactly what an
//! agent allocates.
//!
//! A position in an agent's memory is an [`TaskLocation`], and only two things make
//! one: [`TaskLocation::ROOT`], and [`TaskLocation::child`], from the tables. So by induction
//! over the path from the root, the task at any `TaskLocation` lies inside the
//! agent's task memory, and no access of the engine's can fail its bounds
//! check, whatever state a task is in.
//!
//! # Why there is no `unsafe` here
//!
//! This invariant would let the engine skip the bounds checks of its
//! accesses. Measured on the reference tree (callgrind, instructions per
//! agent-tick, 2,000 agents), skipping them and checking only the one thing
//! soundness then needs — the child index — saved nothing (1,184 against
//! 1,159 instructions with every access checked): the checks are a compare
//! and a predictable branch each, and the engine's time goes elsewhere. So
//! the crate has no `unsafe` code, `#![forbid(unsafe_code)]` says so, and
//! a wrong tree or damaged memory can at worst be a panic, never undefined
//! behaviour.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use super::{BoardLayout, Edge, Label, NodeDef, NodeInfo, Tree, TreeId};
use crate::def::kind::{Sched, SlotPlan};
use crate::nodes;
use crate::nodes::NodeKind;

/// Deepest tree accepted: ticking recurses once per level.
pub const MAX_DEPTH: usize = 256;

/// Most children one node may have.
pub const MAX_CHILDREN: usize = 32_767;

/// Most memory one agent may need for the tree (task memory, persistent
/// memory and blackboard).
pub const MAX_AGENT_BYTES: u64 = 1 << 20;

/// Most nodes a tree may have when every shared subtree is counted at each
/// of its uses: a bound on the nodes one tick can visit and on the lines a
/// printed tree has. A few dozen bytes of shared definitions can describe
/// an exponentially large tree; this refuses them.
pub const MAX_EXPANDED_NODES: u64 = 1_000_000;

/// The most trees one process can build: tree numbers are never reused.
const MAX_TREES: u32 = (1 << 30) - 1;

/// The tree to compile: each distinct node once, in depth-first
/// pre-order. It borrows the drafts' kinds and labels rather than copying
/// them, and keeps every node's children in one flat list (in the order
/// the tree's edge table will have them), so that compiling costs a few
/// bytes per node beside the drafts and the tree being made.
pub(crate) struct Plan<'d, A, W> {
    pub(crate) nodes: Vec<PlanNode<'d, A, W>>,
    /// Every node's children, node after node: indexes into `nodes`.
    pub(crate) children: Vec<u32>,
}

/// One node of a [`Plan`].
pub(crate) struct PlanNode<'d, A, W> {
    pub(crate) label: &'d Label,
    pub(crate) kind: &'d NodeKind<A, W>,
    /// Its children are `children[first..first + count]` of the plan.
    pub(crate) first: u32,
    pub(crate) count: u32,
}

impl<A, W> Plan<'_, A, W> {
    /// The children of node `at`.
    pub(crate) fn kids(&self, at: usize) -> &[u32] {
        let node = &self.nodes[at];
        &self.children[node.first as usize..(node.first + node.count) as usize]
    }
}

/// What is wrong, and at which node of the plan.
#[derive(Debug)]
pub(crate) struct Misfit {
    pub(crate) at: usize,
    pub(crate) problem: String,
}

fn misfit(at: usize, problem: String) -> Misfit {
    Misfit { at, problem }
}

/// Sizes of each node's subtree, computed children first: the tree's own
/// `info` table (with labels still to fill in), and three sizes needed
/// only while measuring, dropped before the rest of the tree is made.
/// Every size is bounded when it is stored (see `measure_node`), so each
/// fits a `u32`.
struct Sizes {
    info: Vec<NodeInfo>,
    frames: Vec<u32>,
    waits: Vec<u32>,
    expanded: Vec<u32>,
}

/// The root's sizes that are not in its `info`.
struct Totals {
    frames: u32,
    waits: u32,
    expanded: u32,
}

/// Check the plan, lay out its memory, and make the tree. Node facts are
/// recomputed where needed rather than kept in a table: they are cheap,
/// and a table of them would cost more than the sizes. Each table is
/// dropped as soon as it has been used, so that the largest moment, the
/// edge table's allocation, holds the tree and little else.
pub(crate) fn compile<A, W>(
    plan: Plan<'_, A, W>,
    board: BoardLayout,
) -> Result<Tree<A, W>, Misfit> {
    for (at, node) in plan.nodes.iter().enumerate() {
        check_node(node).map_err(|problem| misfit(at, problem))?;
    }
    let (info, totals) = measure(&plan)?;
    let id = next_tree_id().ok_or_else(|| {
        misfit(
            0,
            format!("this process has built {MAX_TREES} trees, the most it can tell apart"),
        )
    })?;
    let mut tree = flatten(plan, info, &totals, id);
    let board_end = tree.board_start() as u64 + board.initial.len() as u64;
    if board_end > MAX_AGENT_BYTES {
        return Err(misfit(
            0,
            format!(
                "the tree needs {board_end} bytes per agent with its blackboard, more than the limit of {MAX_AGENT_BYTES}"
            ),
        ));
    }
    tree.board = board;
    tree.fingerprint = fingerprint(&tree);
    validate(&tree).map_err(|problem| {
        misfit(
            0,
            format!("internal error, please report: the layout is inconsistent: {problem}"),
        )
    })?;
    Ok(tree)
}

/// The structural problem with one node, if any.
fn check_node<A, W>(node: &PlanNode<'_, A, W>) -> Result<(), String> {
    let n = node.count as usize;
    let arity = node.kind.arity();
    let ty = node.kind.type_name();
    if !arity.accepts(n) {
        let article = if ty.starts_with(['A', 'E', 'I', 'O', 'U']) {
            "an"
        } else {
            "a"
        };
        return Err(format!(
            "{article} {ty} needs {}, got {n}",
            arity.describe()
        ));
    }
    if n > MAX_CHILDREN {
        return Err(format!(
            "{n} children is more than the limit of {MAX_CHILDREN}"
        ));
    }
    match nodes::check(node.kind, n) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

fn next_tree_id() -> Option<TreeId> {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
        (n <= MAX_TREES).then_some(n + 1)
    })
    .ok()
    .map(TreeId)
}

/// Every node once, each after all of its children (the plan is a DAG:
/// a shared subtree may be reached before its second parent).
fn post_order<A, W>(plan: &Plan<'_, A, W>) -> Vec<u32> {
    let mut order = Vec::with_capacity(plan.nodes.len());
    let mut seen = vec![false; plan.nodes.len()];
    // (node, children already pushed)
    let mut stack = vec![(0u32, false)];
    while let Some((at, expanded)) = stack.pop() {
        if expanded {
            order.push(at);
            continue;
        }
        if std::mem::replace(&mut seen[at as usize], true) {
            continue;
        }
        stack.push((at, true));
        for &child in plan.kids(at as usize).iter().rev() {
            if !seen[child as usize] {
                stack.push((child, false));
            }
        }
    }
    order
}

/// The memory each behavior slot of a node must hold, from the `inline`
/// sizes of its children.
fn slot_sizes(plan: SlotPlan, kids: &[u32], info: &[NodeInfo]) -> Vec<u64> {
    let size = |k: &u32| u64::from(info[*k as usize].inline);
    let max = |ks: &[u32]| ks.iter().map(size).max().unwrap_or(0);
    match plan {
        SlotPlan::None => Vec::new(),
        SlotPlan::Shared => vec![max(kids); plan.count(kids.len())],
        SlotPlan::Reactive => {
            let but_last = &kids[..kids.len().saturating_sub(1)];
            [max(kids), max(but_last)][..plan.count(kids.len())].to_vec()
        }
        SlotPlan::PerChild => kids.iter().map(size).collect(),
    }
}

/// Sizes bottom-up, refusing a subtree that is too deep, too large per
/// agent, or expands to too many nodes.
fn measure<A, W>(plan: &Plan<'_, A, W>) -> Result<(Vec<NodeInfo>, Totals), Misfit> {
    let n = plan.nodes.len();
    let unmeasured = || NodeInfo {
        label: 0,
        inline: 0,
        persist_len: 0,
        height: 0,
    };
    let mut s = Sizes {
        info: (0..n).map(|_| unmeasured()).collect(),
        frames: vec![0; n],
        waits: vec![0; n],
        expanded: vec![0; n],
    };
    for at in post_order(plan) {
        measure_node(plan, at as usize, &mut s)?;
    }
    let totals = Totals {
        frames: s.frames[0],
        waits: s.waits[0],
        expanded: s.expanded[0],
    };
    Ok((s.info, totals))
}

/// One node's sizes, from its children's. Each is stored as a `u32` only
/// once it is known to fit: heights are at most `MAX_DEPTH`, expansions
/// (and so frames, at most one per expanded node) at most
/// `MAX_EXPANDED_NODES`, memory at most `MAX_AGENT_BYTES`; waits saturate,
/// as the tree's count of them always has.
/// The waits a reactive node's children may hold at once: the running
/// child's, and those of one child before it that suspended when
/// re-checked (it then takes over and the running one is aborted).
fn reactive_waits(kids: &[u32], waits: &[u32]) -> u64 {
    let mut before = 0u64;
    let mut most = 0u64;
    for &k in kids {
        let own = u64::from(waits[k as usize]);
        most = most.max(own.saturating_add(before));
        before = before.max(own);
    }
    most
}

fn measure_node<A, W>(plan: &Plan<'_, A, W>, at: usize, s: &mut Sizes) -> Result<(), Misfit> {
    let kids = plan.kids(at);
    let f = nodes::facts(plan.nodes[at].kind, kids.len());
    let sum = |of: &dyn Fn(usize) -> u32| {
        kids.iter()
            .fold(0u64, |a, &k| a.saturating_add(u64::from(of(k as usize))))
    };
    let max = |of: &dyn Fn(usize) -> u32| {
        kids.iter()
            .map(|&k| u64::from(of(k as usize)))
            .max()
            .unwrap_or(0)
    };
    let height = 1 + max(&|k| s.info[k].height);
    if height as usize > MAX_DEPTH {
        let problem = format!("the tree below this node is more than {MAX_DEPTH} levels deep");
        return Err(misfit(at, problem));
    }
    let expanded = sum(&|k| s.expanded[k]).saturating_add(1);
    if expanded > MAX_EXPANDED_NODES {
        let problem = format!(
            "this subtree expands to {expanded} nodes when shared subtrees are counted at every use, more than the limit of {MAX_EXPANDED_NODES}"
        );
        return Err(misfit(at, problem));
    }
    let slots = slot_sizes(f.slots, kids, &s.info);
    let inline = u64::from(f.own) + slots.iter().sum::<u64>();
    let persist = u64::from(f.persist) + sum(&|k| s.info[k].persist_len);
    let bytes = inline + persist;
    if bytes > MAX_AGENT_BYTES {
        let problem = format!(
            "running this subtree needs {bytes} bytes per agent, more than the limit of {MAX_AGENT_BYTES}"
        );
        return Err(misfit(at, problem));
    }
    // What the event-driven scheduler and the wait table may need at once.
    let combine = |of: &dyn Fn(usize) -> u32| match f.slots {
        SlotPlan::PerChild => sum(of),
        _ => max(of),
    };
    let frames = 1 + if f.sched == Sched::Passive {
        combine(&|k| s.frames[k])
    } else {
        0
    };
    let waits = u64::from(f.waits)
        + match f.slots {
            // A child re-checked before the running one may suspend while
            // the running one still holds its waits (until it is aborted).
            SlotPlan::Reactive => reactive_waits(kids, &s.waits),
            _ => combine(&|k| s.waits[k]),
        };
    s.info[at] = NodeInfo {
        label: 0,
        inline: inline as u32,
        persist_len: persist as u32,
        height: height as u32,
    };
    s.expanded[at] = expanded as u32;
    s.frames[at] = frames.min(u64::from(u32::MAX)) as u32;
    s.waits[at] = waits.min(u64::from(u32::MAX)) as u32;
    Ok(())
}

/// The flat tables, in pre-order (the plan's order), with the layout. The
/// plan's nodes are dropped once the node table is made: the edge table
/// needs only their children.
fn flatten<A, W>(
    plan: Plan<'_, A, W>,
    mut info: Vec<NodeInfo>,
    totals: &Totals,
    id: TreeId,
) -> Tree<A, W> {
    let mut nodes = Vec::with_capacity(plan.nodes.len());
    let mut labels = Labels::for_plan(&plan);
    for (node, info) in plan.nodes.iter().zip(&mut info) {
        let f = nodes::facts(node.kind, node.count as usize);
        nodes.push(NodeDef {
            kind: node.kind.clone(),
            first_edge: node.first,
            child_count: node.count,
            own: f.own,
            slot_plan: f.slots,
            sched: f.sched,
        });
        info.label = labels.of(node.label);
    }
    let Plan {
        nodes: planned,
        children,
    } = plan;
    drop(planned);
    let labels = labels.into_list();
    let edges = edges(&children, &nodes, &info);
    let tick_words = tick_words(&nodes, &info, &edges);
    Tree {
        root_always: nodes[0].sched == Sched::EveryTick,
        task_bytes: info[0].inline,
        persist_bytes: info[0].persist_len,
        tick_words,
        nodes,
        info,
        labels,
        edges,
        board: BoardLayout::default(),
        frames: totals.frames,
        waits: totals.waits,
        expanded: u64::from(totals.expanded),
        fingerprint: 0,
        id,
        _types: PhantomData,
    }
}

/// The edge table: every node's children in turn (`children`, the plan's
/// flat list, is in that order), each with its place in its parent's
/// memory and a copy of its definition. Made once every definition is, in
/// one pass, into a table of exactly its final size.
fn edges<A, W>(children: &[u32], defs: &[NodeDef<A, W>], info: &[NodeInfo]) -> Vec<Edge<A, W>> {
    // `measure` bounded every size by MAX_AGENT_BYTES, so they fit a u32.
    let small = |v: u64| v as u32;
    let mut edges = Vec::with_capacity(children.len());
    for def in defs {
        let first = def.first_edge as usize;
        let kids = &children[first..first + def.child_count as usize];
        let mut slots = Vec::new();
        let mut offset = u64::from(def.own);
        for size in slot_sizes(def.slot_plan, kids, info) {
            slots.push(small(offset));
            offset += size;
        }
        let n = kids.len();
        let mut persist = u64::from(nodes::facts(&def.kind, n).persist);
        for (k, &child) in kids.iter().enumerate() {
            let mut places = slots_of(def.slot_plan, k, n).map(|slot| slots[slot]);
            let own = places.next().unwrap_or(0);
            let place = [own, places.next().unwrap_or(own)];
            let copy = defs[child as usize].clone();
            edges.push(Edge::new(child, small(persist), place, copy));
            persist += u64::from(info[child as usize].persist_len);
        }
    }
    edges
}

/// Where the tick words of the persistent memory are (byte offsets from its
/// start), in order: the words the agent's clock looks after (see
/// `Facts::persist_ticks`).
fn tick_words<A, W>(defs: &[NodeDef<A, W>], info: &[NodeInfo], edges: &[Edge<A, W>]) -> Vec<u32> {
    let mut words = Vec::new();
    persist_places(defs, info, edges, |node, at| {
        let def = &defs[node as usize];
        let facts = nodes::facts(&def.kind, def.child_count as usize);
        if facts.persist_ticks {
            words.extend((at..at + facts.persist).step_by(4));
        }
        Ok::<(), ()>(())
    })
    .unwrap_or(());
    words.sort_unstable();
    words
}

/// Every place in the tree with persistent memory of its own: the node and
/// where its words start (a byte offset from the start of the persistent
/// memory). Every place of a shared subtree has its own persistent memory,
/// so this follows the edges; only into subtrees that have some, so the
/// work is bounded by the places' count times the depth. Stops at the
/// first error `f` returns.
pub(crate) fn persist_places<A, W, E>(
    defs: &[NodeDef<A, W>],
    info: &[NodeInfo],
    edges: &[Edge<A, W>],
    mut f: impl FnMut(u32, u32) -> Result<(), E>,
) -> Result<(), E> {
    if info.first().is_none_or(|root| root.persist_len == 0) {
        return Ok(());
    }
    let mut stack = vec![(0u32, 0u32)];
    while let Some((node, at)) = stack.pop() {
        let def = &defs[node as usize];
        if nodes::facts(&def.kind, def.child_count as usize).persist > 0 {
            f(node, at)?;
        }
        let first = def.first_edge as usize;
        for edge in edges[first..first + def.child_count as usize].iter().rev() {
            if info[edge.node() as usize].persist_len > 0 {
                stack.push((edge.node(), at + edge.persist()));
            }
        }
    }
    Ok(())
}

/// The distinct labels of a plan, each once. The builder gives drafts
/// that look the same one shared label, so telling them apart by address
/// keeps one copy per distinct label in the tree.
#[derive(Default)]
struct Labels {
    list: Vec<Label>,
    index: HashMap<*const Label, u32>,
}

impl Labels {
    /// Room for exactly the plan's distinct labels, counted first: grown
    /// by doubling, the table and its index left each old copy behind as
    /// a hole the allocator could not give back, tens of megabytes for a
    /// tree of hundreds of thousands of named nodes.
    fn for_plan<A, W>(plan: &Plan<'_, A, W>) -> Self {
        let mut addresses: Vec<*const Label> =
            plan.nodes.iter().map(|n| n.label as *const Label).collect();
        addresses.sort_unstable();
        addresses.dedup();
        let distinct = addresses.len();
        Labels {
            list: Vec::with_capacity(distinct),
            index: HashMap::with_capacity(distinct),
        }
    }

    /// The index in the tree's table of `label`, copied there if new.
    fn of(&mut self, label: &Label) -> u32 {
        let list = &mut self.list;
        *self.index.entry(label).or_insert_with(|| {
            list.push(label.clone());
            (list.len() - 1) as u32
        })
    }

    /// The table, without spare capacity: it lives as long as the tree.
    fn into_list(self) -> Vec<Label> {
        let mut list = self.list;
        list.shrink_to_fit();
        list
    }
}

/// The hash behind [`Tree::fingerprint`]: every table entry, written out
/// byte by byte (never through `Hash` impls, whose output may change).
fn fingerprint<A, W>(tree: &Tree<A, W>) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    let text = |h: &mut fnv::FnvHasher, s: &str| {
        h.write(&(s.len() as u64).to_le_bytes());
        h.write(s.as_bytes());
    };
    h.write(b"canopy tree v1");
    h.write(&tree.task_bytes.to_le_bytes());
    h.write(&tree.persist_bytes.to_le_bytes());
    for slot in tree.board.slots() {
        text(&mut h, &slot.key);
        text(&mut h, slot.ty.name());
        h.write(&slot.offset.to_le_bytes());
    }
    // Nothing for a tree without counted keys: its fingerprint is as before.
    for watch in tree.board.watches() {
        text(&mut h, &watch.key);
        h.write(&watch.counter.to_le_bytes());
    }
    for node in tree.nodes() {
        text(&mut h, node.name());
        text(&mut h, node.type_name());
        for (k, v) in node.params() {
            text(&mut h, &k);
            text(&mut h, &v);
        }
        let (def, info) = (tree.def(node.id().0), tree.info(node.id().0));
        for n in [
            def.child_count,
            def.own,
            info.inline,
            info.persist_len,
            def.slot_plan as u32,
        ] {
            h.write(&n.to_le_bytes());
        }
        for edge in tree.edges_of(def) {
            for n in [edge.node(), edge.persist(), edge.place(0), edge.place(1)] {
                h.write(&n.to_le_bytes());
            }
        }
    }
    h.finish()
}

/// Check the invariant of this module's docs on a built tree. Every access
/// the engine makes to an agent's memory stays in bounds because this held
/// when the tree was built, and a tree never changes.
pub(crate) fn validate<A, W>(tree: &Tree<A, W>) -> Result<(), String> {
    let root = tree.info.first().ok_or("no root")?;
    if (root.inline, root.persist_len) != (tree.task_bytes, tree.persist_bytes) {
        return Err("the root's memory is not the agent's".into());
    }
    if tree.info.len() != tree.nodes.len() {
        return Err("the node tables differ in length".into());
    }
    for i in 0..tree.nodes.len() {
        validate_node(tree, i).map_err(|problem| format!("node {i}: {problem}"))?;
    }
    Ok(())
}

fn validate_node<A, W>(tree: &Tree<A, W>, i: usize) -> Result<(), String> {
    let (def, info) = (&tree.nodes[i], &tree.info[i]);
    let n = def.child_count as usize;
    let facts = nodes::facts(&def.kind, n);
    if (def.own, def.slot_plan, def.sched) != (facts.own, facts.slots, facts.sched) {
        return Err("its facts changed".into());
    }
    if nodes::stateless(&def.kind).is_some() && (def.own, info.inline, n) != (0, 0, 0) {
        return Err("a stateless leaf with memory or children".into());
    }
    let edges = tree
        .edges
        .get(def.first_edge as usize..def.first_edge as usize + n)
        .ok_or("children outside the edge table")?;
    if def.own > info.inline {
        return Err("own state larger than its memory".into());
    }
    if info.label as usize >= tree.labels.len() {
        return Err("a label outside the label table".into());
    }
    let mut persist_end = facts.persist;
    for (k, edge) in edges.iter().enumerate() {
        let child = tree
            .info
            .get(edge.node() as usize)
            .ok_or("a child outside the tree")?;
        if !same_def(&edge.def, &tree.nodes[edge.node() as usize]) {
            return Err(format!("the edge to child {k} holds another definition"));
        }
        if child.height >= info.height {
            return Err("a child no lower than its parent".into());
        }
        for place in [edge.place(0), edge.place(1)] {
            if place < def.own
                || u64::from(place) + u64::from(child.inline) > u64::from(info.inline)
            {
                return Err(format!("child {k} does not fit its place at {place}"));
            }
        }
        let end = u64::from(edge.persist()) + u64::from(child.persist_len);
        if edge.persist() < persist_end || end > u64::from(info.persist_len) {
            return Err(format!("the persistent memory of child {k} overlaps"));
        }
        persist_end = end as u32;
    }
    Ok(())
}

/// Whether an edge's copy of a definition is the node's (the engine reads
/// the copy when it goes down to a child).
fn same_def<A, W>(a: &NodeDef<A, W>, b: &NodeDef<A, W>) -> bool {
    std::mem::discriminant(&a.kind) == std::mem::discriminant(&b.kind)
        && (a.first_edge, a.child_count, a.own) == (b.first_edge, b.child_count, b.own)
        && (a.slot_plan, a.sched) == (b.slot_plan, b.sched)
}

/// The behavior slots child `k` of `n` may be installed in: its own first,
/// then its alternate one, if any.
fn slots_of(plan: SlotPlan, k: usize, n: usize) -> std::ops::Range<usize> {
    let (first, last) = match plan {
        SlotPlan::None => (0, 0),
        SlotPlan::Shared => (0, 1),
        // The second slot holds every child but the last.
        SlotPlan::Reactive => (0, if k + 1 < n { 2 } else { 1 }),
        SlotPlan::PerChild => (k, k + 1),
    };
    first..last
}

/// Where a running task lives in an agent's memory: the offset of its task
/// memory, the offset of its persistent memory, and which node it is.
/// Only [`TaskLocation::ROOT`] and [`TaskLocation::child`] make one (see the module docs).
///
/// The three numbers are packed into one word, so that a position passes
/// in a register and going down to a child is one addition of its edge's
/// [`Step`]: bits 0–21 are the node, bits 22–42 the persistent memory's
/// offset, bits 43–63 the task memory's. Offsets are at most
/// [`MAX_AGENT_BYTES`] = 2²⁰ and nodes fewer than [`MAX_EXPANDED_NODES`]
/// < 2²², and a child's offsets are its parent's plus its place's, which
/// stay inside the agent's memory (the invariant above): no field ever
/// carries into the next. Measured on the reference tree (callgrind,
/// 10,000 agents), it saved 36 of 1,093 instructions per agent-tick over
/// three `u32`s, which the engine passed by reference.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaskLocation(u64);

/// What an [`Edge`] adds to its parent's [`TaskLocation`] to make its child's: the
/// child's place and persistent offset (relative to the parent's) and its
/// node, in the bits `TaskLocation` keeps them in.
pub(crate) type Step = u64;

const NODE_BITS: u32 = 22;
const OFFSET_BITS: u32 = 21;
const NODE_MASK: u64 = (1 << NODE_BITS) - 1;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;
const PERSIST_SHIFT: u32 = NODE_BITS;
const LOC_SHIFT: u32 = NODE_BITS + OFFSET_BITS;

const _: () = {
    assert!(LOC_SHIFT + OFFSET_BITS == 64);
    assert!(MAX_AGENT_BYTES <= OFFSET_MASK);
    assert!(MAX_EXPANDED_NODES <= NODE_MASK);
};

/// Pack a position (or a step): every field must fit its bits.
const fn pack(loc: u32, persist: u32, node: u32) -> u64 {
    ((loc as u64) << LOC_SHIFT) | ((persist as u64) << PERSIST_SHIFT) | node as u64
}

impl<A, W> Edge<A, W> {
    /// The edge to child node `node`, defined by `def`, whose persistent
    /// memory is at `persist` and whose task memory is at `place` (in the
    /// parent's own slot and in its alternate one), relative to the
    /// parent's. `compile` makes these only for trees `measure` bounded by
    /// `MAX_AGENT_BYTES`.
    fn new(node: u32, persist: u32, place: [u32; 2], def: NodeDef<A, W>) -> Self {
        Edge {
            step: place.map(|place| pack(place, persist, node)),
            def,
        }
    }

    /// The child's node.
    pub(crate) fn node(&self) -> u32 {
        (self.step[0] & NODE_MASK) as u32
    }

    /// Offset of the child's persistent memory from its parent's.
    pub(crate) fn persist(&self) -> u32 {
        ((self.step[0] >> PERSIST_SHIFT) & OFFSET_MASK) as u32
    }

    /// Offset of the child's task memory from its parent's, in its own
    /// behavior slot (`slot` 0) or its alternate one (1).
    pub(crate) fn place(&self, slot: usize) -> u32 {
        (self.step[slot & 1] >> LOC_SHIFT) as u32
    }
}

impl TaskLocation {
    /// The root's task.
    pub(crate) const ROOT: TaskLocation = TaskLocation(pack(0, 0, 0));

    #[inline(always)]
    pub(crate) fn node(self) -> u32 {
        (self.0 & NODE_MASK) as u32
    }

    #[inline(always)]
    pub(crate) fn loc(self) -> u32 {
        (self.0 >> LOC_SHIFT) as u32
    }

    #[inline(always)]
    pub(crate) fn persist(self) -> u32 {
        ((self.0 >> PERSIST_SHIFT) & OFFSET_MASK) as u32
    }

    /// Where child `child` of this task lives when installed in its own
    /// place (`slot` 0) or its alternate one (`slot` 1, the slot a reactive
    /// parent re-checks it in). `self` is a task of `def`, of `tree`.
    ///
    /// # Panics
    /// If the node has no child `child`: a node kind's bug, caught before
    /// it can reach outside the task's memory.
    #[inline(always)]
    pub(crate) fn child<A, W>(
        self,
        tree: &Tree<A, W>,
        def: &NodeDef<A, W>,
        child: usize,
        slot: usize,
    ) -> TaskLocation {
        self.down(tree, def, child, slot).0
    }

    /// [`child`](TaskLocation::child), and the child's definition.
    #[inline(always)]
    pub(crate) fn down<'t, A, W>(
        self,
        tree: &'t Tree<A, W>,
        def: &NodeDef<A, W>,
        child: usize,
        slot: usize,
    ) -> (TaskLocation, &'t NodeDef<A, W>) {
        // The child's index is checked against the node's count, not as an
        // index into a slice of the node's edges: one comparison instead
        // of building a slice (the edge table covers every node's edges,
        // checked by `validate`).
        assert!(
            child < def.child_count as usize,
            "a node kind ran child {child} of a node with {} children",
            def.child_count
        );
        let edge = &tree.edges[def.first_edge as usize + child];
        (
            TaskLocation((self.0 & !NODE_MASK) + edge.step[slot & 1]),
            &edge.def,
        )
    }
}

impl std::fmt::Debug for TaskLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLocation")
            .field("loc", &self.loc())
            .field("persist", &self.persist())
            .field("node", &self.node())
            .finish()
    }
}

/// The definition of the node whose task is at `at` (made for `tree`).
#[inline(always)]
pub(crate) fn def_at<A, W>(tree: &Tree<A, W>, at: TaskLocation) -> &NodeDef<A, W> {
    &tree.nodes[at.node() as usize]
}
