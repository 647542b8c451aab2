//! The shared, immutable tree: every node definition stored once, plus the
//! memory layout its tasks will use, computed when the tree was built.
//!
//! Nodes live in one flat `Vec` addressed by index, children in another, so
//! the whole definition of a 40-node tree is a few kilobytes any number of
//! threads read at once. Agents never point into the tree; they are handed
//! `&Tree` on every tick.

use std::fmt;
use std::marker::PhantomData;

use crate::node::NodeKind;
use crate::pool::{PoolLayout, Slot, TaskSize};

/// Identifies a node definition within its [`Tree`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The node's index in [`Tree::nodes`]; the root is 0.
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// assert_eq!(tree.root().index(), 0);
    /// ```
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A child reference: which node, and where its persistent memory starts
/// relative to the parent's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub node: u32,
    pub persist: u32,
}

/// One node definition with its place in the flat tables.
pub(crate) struct NodeDef<A, W> {
    pub name: Box<str>,
    /// A registered type name overriding the kind's, if any.
    pub type_name: Option<Box<str>>,
    /// The registered type's parameters, shown instead of the kind's.
    pub params: Option<Vec<(String, String)>>,
    pub kind: NodeKind<A, W>,
    /// `edges[first_edge..first_edge + child_count]`
    pub first_edge: u32,
    pub child_count: u32,
    /// `slots[first_slot..]`, as many as the kind has behavior slots.
    pub first_slot: u32,
    pub size: TaskSize,
}

/// A behavior tree definition shared by every agent that runs it.
///
/// `Tree<A, W>` is `Send + Sync` whatever `A` and `W` are: it stores leaf
/// code, never agent data. Build one with [`Builder`](crate::Builder).
///
/// ```
/// use canopy_core::Builder;
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("root", [b.always_success("a"), b.wait("w", 3)])).unwrap();
/// assert_eq!(tree.len(), 3);
/// let root = tree.node(tree.root());
/// assert_eq!(root.name(), "root");
/// let names: Vec<_> = root.children().map(|c| c.name()).collect();
/// assert_eq!(names, ["a", "w"]);
/// fn shared<T: Send + Sync>(_: &T) {}
/// shared(&tree);
/// ```
pub struct Tree<A, W> {
    pub(crate) nodes: Vec<NodeDef<A, W>>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) layout: PoolLayout,
    pub(crate) depth: u32,
    /// Most frames the event-driven scheduler can hold for one agent.
    pub(crate) frames: u32,
    /// Most async leaves that can be suspended at once for one agent.
    pub(crate) waits: u32,
    /// The root is updated on every tick in either mode (a reactive node,
    /// say), so event mode has nothing to skip and runs tick-from-root.
    pub(crate) root_always: bool,
    /// Distinguishes trees so an agent cannot be ticked with the wrong one.
    pub(crate) id: u32,
    pub(crate) _types: PhantomData<fn(&mut A, &W)>,
}

impl<A, W> Tree<A, W> {
    /// The root node.
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// Number of distinct node definitions. A definition reached through
    /// several parents (a shared subtree) counts once.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always `false`: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Levels from the root to the deepest leaf (a lone leaf is 1).
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.inverter("not", b.always_success("ok"))).unwrap();
    /// assert_eq!(tree.depth(), 2);
    /// ```
    pub fn depth(&self) -> usize {
        self.depth as usize
    }

    /// A view of one node.
    ///
    /// # Panics
    /// If `id` does not belong to this tree.
    pub fn node(&self, id: NodeId) -> NodeRef<'_, A, W> {
        assert!(
            id.index() < self.nodes.len(),
            "node {id:?} is not in this tree"
        );
        NodeRef { tree: self, id }
    }

    /// Every node definition, root first.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_, A, W>> {
        (0..self.nodes.len() as u32).map(move |i| NodeRef {
            tree: self,
            id: NodeId(i),
        })
    }

    /// The per-agent memory this tree's tasks need.
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("s", [b.wait("a", 2), b.wait("b", 2)])).unwrap();
    /// // The sequence's child index (2 bytes) plus one Wait's start tick (4
    /// // bytes): the two Waits never run together, so they share memory.
    /// assert_eq!(tree.pool_layout().root.inline, 6);
    /// ```
    pub fn pool_layout(&self) -> PoolLayout {
        self.layout
    }

    // The engine's lookups skip bounds checks: every index they take comes
    // from the tables `Builder::build` wrote together (edge targets, child
    // ranges, slot ranges, the root 0) and nothing changes them afterwards.
    // Debug builds — every test run — still check.

    #[inline]
    pub(crate) fn def(&self, id: u32) -> &NodeDef<A, W> {
        debug_assert!((id as usize) < self.nodes.len());
        // SAFETY: `id` is 0 or an `Edge::node` of this tree, both < nodes.len() (see above).
        unsafe { self.nodes.get_unchecked(id as usize) }
    }

    #[inline]
    pub(crate) fn edges_of(&self, def: &NodeDef<A, W>) -> &[Edge] {
        let start = def.first_edge as usize;
        let end = start + def.child_count as usize;
        debug_assert!(end <= self.edges.len());
        // SAFETY: `def` is a node of this tree, whose children were pushed as
        // `edges[first_edge..first_edge + child_count]` (see above).
        unsafe { self.edges.get_unchecked(start..end) }
    }

    #[inline]
    pub(crate) fn slot(&self, def: &NodeDef<A, W>, index: usize) -> &Slot {
        let at = def.first_slot as usize + index;
        debug_assert!(at < self.slots.len());
        // SAFETY: the engine asks only for slots its node kind has (one,
        // two, or one per child), all pushed at `first_slot..` (see above).
        unsafe { self.slots.get_unchecked(at) }
    }
}

impl<A, W> fmt::Debug for Tree<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tree")
            .field("nodes", &self.nodes.len())
            .field("depth", &self.depth)
            .field("layout", &self.layout)
            .finish()
    }
}

/// A borrowed view of one node of a [`Tree`].
pub struct NodeRef<'t, A, W> {
    tree: &'t Tree<A, W>,
    id: NodeId,
}

impl<A, W> Clone for NodeRef<'_, A, W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, W> Copy for NodeRef<'_, A, W> {}

impl<'t, A, W> NodeRef<'t, A, W> {
    fn def(&self) -> &'t NodeDef<A, W> {
        &self.tree.nodes[self.id.index()]
    }

    /// This node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The node's name (not necessarily unique).
    pub fn name(&self) -> &'t str {
        &self.def().name
    }

    /// The node's kind and parameters.
    pub fn kind(&self) -> &'t NodeKind<A, W> {
        &self.def().kind
    }

    /// The type name, as in tree files and traces: the registered type
    /// when the node came from a registry, else the kind's.
    pub fn type_name(&self) -> &'t str {
        let def = self.def();
        def.type_name
            .as_deref()
            .unwrap_or_else(|| def.kind.type_name())
    }

    /// The parameters as `(name, value)` pairs: the registered type's when
    /// the node came from a registry, else the kind's.
    pub fn params(&self) -> Vec<(String, String)> {
        let def = self.def();
        match &def.params {
            Some(params) => params.clone(),
            None => def.kind.params(),
        }
    }

    /// The children, in order.
    pub fn children(&self) -> impl ExactSizeIterator<Item = NodeRef<'t, A, W>> + 't {
        let tree = self.tree;
        tree.edges_of(self.def()).iter().map(move |e| NodeRef {
            tree,
            id: NodeId(e.node),
        })
    }

    /// How much memory this node's task needs.
    pub fn task_size(&self) -> TaskSize {
        self.def().size
    }
}
