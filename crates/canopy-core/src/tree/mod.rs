//! The shared, immutable tree: every node definition stored once, plus the
//! layout of the memory its tasks will use in each agent.
//!
//! Nodes live in one flat `Vec` addressed by index, children in another,
//! so the whole definition of a 40-node tree is a few
//! kilobytes that any number of threads read at once. What the engine
//! reads on every visit of a node (its kind, its children, its state's
//! size) is 64 bytes, kept apart from the rest of its definition; each
//! child reference holds a copy of it, so going down to a child reads the
//! child table alone (measured on the reference tree: 966 → 931
//! instructions per agent-tick). Agents never point into the tree; they
//! are handed `&Tree` on every tick. How the memory is laid out, and the
//! invariant every access to an agent's memory relies on, is in
//! [`layout`].

pub(crate) mod layout;

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::def::kind::{Sched, SlotPlan};
use crate::nodes::NodeKind;
use crate::util::board::{BoardValue, Key, SlotRef, SlotType, Watch};
use crate::util::primitives::NodeId;

/// A child reference: which node, where its task memory starts relative to
/// its parent's — in its own behavior slot, and in its alternate one (where
/// a reactive parent re-checks it while another child runs; the same as the
/// first where it has none) — and where its persistent memory starts.
/// Packed as the step from its parent's position to its own
/// ([`TaskLocation`](layout::TaskLocation)); read it through [`node`](Edge::node),
/// [`persist`](Edge::persist) and [`place`](Edge::place).
pub(crate) struct Edge<A, W> {
    pub(crate) step: [layout::Step; 2],
    /// The child's definition, the same as its entry in the node table:
    /// kept here too, so that going down to a child reads one table.
    pub(crate) def: NodeDef<A, W>,
}

/// What the engine reads of a node on every visit: its kind, where its
/// children are, and how its task uses memory. The rest of a node's
/// definition is its [`NodeInfo`], kept apart so that this stays 64 bytes:
/// finding a node is then a shift, and the table a few cache lines.
pub(crate) struct NodeDef<A, W> {
    pub(crate) kind: NodeKind<A, W>,
    /// `edges[first_edge..first_edge + child_count]`
    pub(crate) first_edge: u32,
    pub(crate) child_count: u32,
    /// Bytes of the task's own state.
    pub(crate) own: u32,
    pub(crate) slot_plan: SlotPlan,
    pub(crate) sched: Sched,
}

impl<A, W> Clone for NodeDef<A, W> {
    fn clone(&self) -> Self {
        NodeDef {
            kind: self.kind.clone(),
            first_edge: self.first_edge,
            child_count: self.child_count,
            own: self.own,
            slot_plan: self.slot_plan,
            sched: self.sched,
        }
    }
}

// Measured on the reference tree (callgrind, 10,000 agents): 64 bytes
// rather than 136 saved 18 of 984 instructions per agent-tick.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<NodeDef<(), ()>>() == 64);

/// The blackboard's layout: every key's slot, and the bytes a new agent's
/// blackboard starts with (each slot's initial value, zero by default).
#[derive(Clone, Debug, Default)]
pub(crate) struct BoardLayout {
    slots: Vec<SlotRef>,
    pub(crate) initial: Vec<u8>,
    /// Each key's index in `slots`: a file of many keys looks each up in
    /// constant time, not by a scan (which made loading quadratic).
    index: HashMap<Arc<str>, usize>,
    /// The keys whose writes are counted, each with its counter's place
    /// in `initial` (see [`crate::board::Updates`]).
    watches: Vec<Watch>,
}

impl BoardLayout {
    /// The slot of `key`, if the tree has one.
    pub(crate) fn find(&self, key: &str) -> Option<&SlotRef> {
        self.index.get(key).and_then(|&i| self.slots.get(i))
    }

    /// Every slot, in the order they were made.
    pub(crate) fn slots(&self) -> &[SlotRef] {
        &self.slots
    }

    /// A new slot for `key` (which has none) holding `ty`, its bytes
    /// zero, after every other.
    pub(crate) fn push(&mut self, key: &str, ty: SlotType) -> SlotRef {
        let offset = self.initial.len();
        self.initial.resize(offset + ty.size(), 0);
        let slot = SlotRef {
            key: Arc::from(key),
            offset: offset as u32,
            ty,
        };
        self.index.insert(slot.key.clone(), self.slots.len());
        self.slots.push(slot.clone());
        slot
    }

    /// The keys whose writes are counted.
    pub(crate) fn watches(&self) -> &[Watch] {
        &self.watches
    }

    /// The update counter of `key` (its slot made, of any type, if it has
    /// none), after every other byte when it is new: what a port of type
    /// [`SlotType::updates`] resolves to.
    pub(crate) fn watch(&mut self, key: &str) -> SlotRef {
        let slot = match self.find(key) {
            Some(slot) => slot.clone(),
            None => self.push(key, SlotType::any()),
        };
        let counter = match self.watches.iter().find(|w| *w.key == *key) {
            Some(w) => w.counter,
            None => {
                let counter = self.initial.len() as u32;
                self.initial.resize(counter as usize + 4, 0);
                self.watches.push(Watch {
                    key: slot.key.clone(),
                    offset: slot.offset,
                    size: slot.ty.size() as u32,
                    counter,
                });
                counter
            }
        };
        SlotRef {
            key: slot.key,
            offset: counter,
            ty: SlotType::updates(),
        }
    }

    /// Give `key`'s slot the type `ty` (a key of any type, typed by a
    /// later use): in place when it fits, else in new bytes at the end.
    pub(crate) fn retype(&mut self, key: &str, ty: SlotType) -> Option<SlotRef> {
        let &i = self.index.get(key)?;
        let old = self.slots.get(i)?.clone();
        let offset = if ty.size() <= old.ty.size() {
            let at = old.offset as usize;
            self.initial.get_mut(at..at + old.ty.size())?.fill(0);
            old.offset
        } else {
            let offset = self.initial.len();
            self.initial.resize(offset + ty.size(), 0);
            offset as u32
        };
        let slot = SlotRef {
            key: old.key,
            offset,
            ty,
        };
        if let Some(w) = self.watches.iter_mut().find(|w| w.key == slot.key) {
            (w.offset, w.size) = (slot.offset, slot.ty.size() as u32);
        }
        self.slots[i] = slot.clone();
        Some(slot)
    }
}

/// A node's names: what printing, inspecting and hashing show of it.
/// Nodes that look the same share one: a wide tree of identical leaves
/// stores their names once, in the builder and in the tree, rather than
/// once per node. What a registered type shows besides the name is
/// shared further, by every node of that type and those parameters
/// ([`Shown`]): in a tree of named nodes each label is distinct, and
/// holding the type name and parameters in each made a label 56 bytes
/// and an allocation more, twice over while the tree is built (the
/// builder's copy and the tree's). The name is shared between the two
/// copies as well: most names are a few bytes, for which an allocation of
/// its own costs the allocator 32.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Label {
    pub(crate) name: Arc<str>,
    /// A registered type's name and parameters, shown instead of the
    /// kind's, if the node came from a registry.
    pub(crate) shown: Option<Arc<Shown>>,
}

/// A registered type's name and the parameters a node of it was given.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(crate) struct Shown {
    pub(crate) type_name: Box<str>,
    pub(crate) params: Vec<(String, String)>,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<Label>() == 24);

/// The rest of a node's definition: its label and sizes, for printing,
/// inspecting, hashing and checking the layout. Kept to 16 bytes: it is
/// one of the three per-node tables a tree holds for as long as it lives.
pub(crate) struct NodeInfo {
    /// Index into [`Tree::labels`].
    pub(crate) label: u32,
    /// Own state plus every slot: the node's whole running subtree at its
    /// largest.
    pub(crate) inline: u32,
    /// Bytes of persistent memory of the node and everything below it.
    pub(crate) persist_len: u32,
    /// Levels from this node to its deepest leaf (a leaf is 1).
    pub(crate) height: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<NodeInfo>() == 16);

/// Distinguishes trees, so an agent is never ticked with a tree it was not
/// made for. Numbers are handed out once per process and never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct TreeId(pub(crate) u32);

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
    /// The rest of each node's definition, by the same index.
    pub(crate) info: Vec<NodeInfo>,
    /// The distinct labels the nodes' `info` refers to.
    pub(crate) labels: Vec<Label>,
    pub(crate) edges: Vec<Edge<A, W>>,
    /// Bytes of task memory an agent needs (the root's `inline`).
    pub(crate) task_bytes: u32,
    /// Bytes of persistent memory an agent needs, after the task memory.
    pub(crate) persist_bytes: u32,
    /// Offsets in the persistent memory of the words that are ticks (a
    /// Cooldown's end), which the agent's clock looks after; the other
    /// words are plain values.
    pub(crate) tick_words: Vec<u32>,
    /// The blackboard: every key's slot, after the persistent memory.
    pub(crate) board: BoardLayout,
    /// Most frames the event-driven scheduler can hold for one agent.
    pub(crate) frames: u32,
    /// Most async leaves that can be suspended at once for one agent.
    pub(crate) waits: u32,
    /// Nodes counted at every use of a shared subtree.
    pub(crate) expanded: u64,
    /// A hash of everything that makes two trees the same to an agent.
    pub(crate) fingerprint: u64,
    /// The root is updated on every tick in either mode (a reactive node,
    /// say), so event mode has nothing to skip and runs tick-from-root.
    pub(crate) root_always: bool,
    pub(crate) id: TreeId,
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

    /// Number of nodes with every shared subtree counted at each of its
    /// uses: what printing the tree shows, and a bound on the nodes one
    /// tick can visit. At most [`MAX_EXPANDED_NODES`](crate::limits::MAX_EXPANDED_NODES).
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let shared = b.sequence("twice", [b.always_success("a"), b.always_success("b")]);
    /// let tree = b.build(b.sequence("root", [shared, shared])).unwrap();
    /// assert_eq!((tree.len(), tree.expanded_len()), (4, 7));
    /// ```
    pub fn expanded_len(&self) -> u64 {
        self.expanded
    }

    /// Levels from the root to the deepest leaf (a lone leaf is 1).
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.inverter("not", b.always_success("ok"))).unwrap();
    /// assert_eq!(tree.depth(), 2);
    /// ```
    pub fn depth(&self) -> usize {
        self.info[0].height as usize
    }

    /// The memory each agent holds for this tree's tasks: the largest set
    /// of tasks that can run together, laid out when the tree was built,
    /// plus the memory nodes keep across activations (cooldowns).
    ///
    /// ```
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("s", [b.wait("a", 2), b.wait("b", 2)])).unwrap();
    /// // The sequence's child index (2 bytes) plus one Wait's start tick (4
    /// // bytes): the two Waits never run together, so they share memory.
    /// assert_eq!(tree.task_memory(), 6);
    /// ```
    pub fn task_memory(&self) -> usize {
        self.board_start() + self.board.initial.len()
    }

    /// Where the blackboard starts in an agent's memory: after its tasks'
    /// memory and its persistent memory.
    pub(crate) fn board_start(&self) -> usize {
        self.task_bytes as usize + self.persist_bytes as usize
    }

    /// The blackboard's slots, in the order their keys were first seen:
    /// each key, its type and its place.
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let b = Builder::<(), ()>::new();
    /// let speed = b.key::<f32>("speed").unwrap();
    /// b.set_initial(speed, 1.5);
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// let slots: Vec<_> = tree.slots().iter().map(|s| (s.key.to_string(), s.ty.name().to_string())).collect();
    /// assert_eq!(slots, [("speed".to_string(), "float".to_string())]);
    /// assert_eq!(tree.task_memory(), 4);
    /// ```
    pub fn slots(&self) -> &[SlotRef] {
        self.board.slots()
    }

    /// The key `name` of this tree's blackboard, if it has one holding a
    /// `T`: what a game writes before a tick, or reads after one, for a
    /// tree loaded from a file.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// b.key::<u32>("ammo").unwrap();
    /// let tree = b.build(b.always_success("ok")).unwrap();
    /// let ammo = tree.key::<u32>("ammo").unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.board_mut(&tree).write(ammo, 30);
    /// assert_eq!(agent.board(&tree).read(ammo), 30);
    /// assert!(tree.key::<f32>("ammo").is_none() && tree.key::<u32>("fuel").is_none());
    /// ```
    pub fn key<T: BoardValue>(&self, name: &str) -> Option<Key<T>> {
        self.board
            .find(name)
            .filter(|slot| slot.ty.is::<T>())
            .map(|slot| Key::at(slot.offset))
    }

    /// A 64-bit hash of the tree's structure: every node's name, type,
    /// parameters and children, and the layout of its memory. Two trees
    /// with the same fingerprint are the same to an agent; a snapshot can
    /// only be restored onto a tree with the fingerprint it was taken of.
    /// (Leaf code written as closures cannot be compared: a code-built
    /// tree's actions count by name.) Stable across processes and builds.
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let (b1, b2) = (Builder::<(), ()>::new(), Builder::<(), ()>::new());
    /// let t1 = b1.build(b1.wait("nap", 5)).unwrap();
    /// let t2 = b2.build(b2.wait("nap", 5)).unwrap();
    /// let t3 = b2.build(b2.wait("nap", 6)).unwrap();
    /// assert_eq!(t1.fingerprint(), t2.fingerprint());
    /// assert_ne!(t1.fingerprint(), t3.fingerprint());
    /// ```
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
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

    #[inline]
    pub(crate) fn def(&self, id: u32) -> &NodeDef<A, W> {
        &self.nodes[id as usize]
    }

    pub(crate) fn info(&self, id: u32) -> &NodeInfo {
        &self.info[id as usize]
    }

    /// The children of `def`.
    #[inline]
    pub(crate) fn edges_of(&self, def: &NodeDef<A, W>) -> &[Edge<A, W>] {
        let start = def.first_edge as usize;
        &self.edges[start..start + def.child_count as usize]
    }
}

impl<A, W> fmt::Debug for Tree<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tree")
            .field("nodes", &self.nodes.len())
            .field("depth", &self.depth())
            .field("task_memory", &self.task_memory())
            .finish()
    }
}

/// A borrowed view of one node of a [`Tree`].
pub struct NodeRef<'t, A, W> {
    tree: &'t Tree<A, W>,
    id: NodeId,
}

impl<A, W> fmt::Debug for NodeRef<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeRef")
            .field("id", &self.id)
            .field("label", &self.label())
            .finish()
    }
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

    fn info(&self) -> &'t NodeInfo {
        &self.tree.info[self.id.index()]
    }

    fn label(&self) -> &'t Label {
        &self.tree.labels[self.info().label as usize]
    }

    /// The node's name (not necessarily unique).
    pub fn name(&self) -> &'t str {
        &self.label().name
    }

    /// The node's kind and parameters.
    pub fn kind(&self) -> &'t NodeKind<A, W> {
        &self.def().kind
    }

    /// The type name, as in tree files and traces: the registered type
    /// when the node came from a registry, else the kind's.
    pub fn type_name(&self) -> &'t str {
        match &self.label().shown {
            Some(shown) => &shown.type_name,
            None => self.def().kind.type_name(),
        }
    }

    /// The parameters as `(name, value)` pairs: the registered type's when
    /// the node came from a registry, else the kind's.
    pub fn params(&self) -> Vec<(String, String)> {
        match &self.label().shown {
            Some(shown) => shown.params.clone(),
            None => self.def().kind.params(),
        }
    }

    /// The children, in order.
    pub fn children(&self) -> impl ExactSizeIterator<Item = NodeRef<'t, A, W>> + 't {
        let tree = self.tree;
        tree.edges_of(self.def()).iter().map(move |e| NodeRef {
            tree,
            id: NodeId(e.node()),
        })
    }

    /// Bytes of this node's own task state while it runs.
    pub fn task_bytes(&self) -> usize {
        self.def().own as usize
    }
}
