//! A tree's structure without its code: what the page draws and what a
//! trace's node ids are checked against.
//!
//! A [`Tree`] is generic over the agent and world types and holds leaf
//! code; the inspector needs neither. [`Shape`] copies the names, types,
//! parameters and child lists once, so the server, the recorder's writer
//! and a replay work on any tree alike.

use canopy_core::Tree;
use serde::Serialize;

/// One node of a [`Shape`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShapeNode {
    /// The node's name (any text: the page shows it escaped).
    pub name: String,
    /// The type name, as in tree files and traces.
    #[serde(rename = "type")]
    pub type_name: String,
    /// The parameters as `(name, value)` pairs.
    pub params: Vec<(String, String)>,
    /// The children's indices, in order. A shared subtree's root appears in
    /// several parents' lists.
    pub children: Vec<u32>,
}

/// The structure of a tree: node `i` is the tree's node with index `i`, the
/// root is 0.
///
/// ```
/// use canopy_core::Builder;
/// use canopy_inspector::Shape;
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("errand", [b.wait("walk", 3), b.always_success("buy")])).unwrap();
/// let shape = Shape::of(&tree);
/// assert_eq!(shape.len(), 3);
/// assert_eq!(shape.node(0).unwrap().children, [1, 2]);
/// assert_eq!(shape.node(1).unwrap().type_name, "Wait");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shape {
    nodes: Vec<ShapeNode>,
}

impl Shape {
    /// The shape of `tree`.
    pub fn of<A, W>(tree: &Tree<A, W>) -> Shape {
        let nodes = tree
            .nodes()
            .map(|node| ShapeNode {
                name: node.name().to_string(),
                type_name: node.type_name().to_string(),
                params: node.params(),
                children: node.children().map(|c| c.id().index() as u32).collect(),
            })
            .collect();
        Shape { nodes }
    }

    /// A shape from its nodes, for trees that did not come from canopy's
    /// builder (another engine, a test). Children must be indices of `nodes`.
    pub fn from_nodes(nodes: Vec<ShapeNode>) -> Shape {
        Shape { nodes }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// `true` when the shape has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node `id`, if there is one.
    pub fn node(&self, id: u32) -> Option<&ShapeNode> {
        self.nodes.get(id as usize)
    }

    /// Every node, root first.
    pub fn nodes(&self) -> &[ShapeNode] {
        &self.nodes
    }
}
