//! Showing a tree to people: an indented view with box-drawing characters
//! (the readable display of py_trees, and a name and description per node) and Graphviz
//! DOT for drawing it.

use std::fmt::{self, Write};

use crate::tree::{NodeRef, Tree};
use crate::util::primitives::Arity;

/// One node as a line of text: `name  Type(k=v, …)`; the type alone when
/// the name is the type.
fn describe<A, W>(node: NodeRef<'_, A, W>) -> String {
    let kind = type_and_params(node);
    if node.name() == node.type_name() {
        kind
    } else {
        format!("{}  {kind}", node.name())
    }
}

/// `Type(k=v, …)`.
fn type_and_params<A, W>(node: NodeRef<'_, A, W>) -> String {
    let params = node.params();
    let mut text = node.type_name().to_string();
    if !params.is_empty() {
        text.push('(');
        for (i, (k, v)) in params.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{k}={v}");
        }
        text.push(')');
    }
    text
}

/// The indented view of a tree; see [`Tree::display`].
pub struct Display<'t, A, W> {
    tree: &'t Tree<A, W>,
}

impl<A, W> fmt::Display for Display<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let root = self.tree.node(self.tree.root());
        writeln!(f, "{}", describe(root))?;
        // Depth-first with an explicit stack of (node, prefix, is last).
        let mut stack = Vec::new();
        push_children(&mut stack, root, "");
        while let Some((node, prefix, last)) = stack.pop() {
            let (branch, indent) = if last {
                ("└── ", "    ")
            } else {
                ("├── ", "│   ")
            };
            writeln!(f, "{prefix}{branch}{}", describe(node))?;
            push_children(&mut stack, node, &format!("{prefix}{indent}"));
        }
        Ok(())
    }
}

type Pending<'t, A, W> = Vec<(NodeRef<'t, A, W>, String, bool)>;

/// Queue `node`'s children so that the first is popped first.
fn push_children<'t, A, W>(stack: &mut Pending<'t, A, W>, node: NodeRef<'t, A, W>, prefix: &str) {
    let n = node.children().len();
    let children: Vec<_> = node.children().collect();
    for (i, child) in children.into_iter().enumerate().rev() {
        stack.push((child, prefix.to_string(), i + 1 == n));
    }
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

impl<A, W> Tree<A, W> {
    /// The tree as indented text, one node per line: name, type and
    /// parameters. A subtree shared by several parents is shown under each.
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("root", [
    ///     b.repeat("thrice", 3, b.always_success("AlwaysSuccess")),
    ///     b.wait("nap", 5),
    /// ])).unwrap();
    /// assert_eq!(tree.display().to_string(), "\
    /// root  Sequence
    /// ├── thrice  Repeat(times=3)
    /// │   └── AlwaysSuccess
    /// └── nap  Wait(ticks=5)
    /// ");
    /// ```
    pub fn display(&self) -> Display<'_, A, W> {
        Display { tree: self }
    }

    /// The tree as a Graphviz DOT digraph: controls as boxes, decorators as
    /// rounded boxes, leaves as ellipses, edges in child order. A shared
    /// subtree is drawn once, with an edge from each parent.
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.inverter("not", b.always_failure("no"))).unwrap();
    /// let dot = tree.to_dot();
    /// assert!(dot.starts_with("digraph tree {"));
    /// assert!(dot.contains("n0 -> n1;"));
    /// ```
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph tree {\n  node [fontname=\"Helvetica\"];\n");
        for node in self.nodes() {
            let shape = match node.kind().arity() {
                Arity::Composite => "shape=box",
                Arity::Decorator => "shape=box, style=rounded",
                Arity::Leaf => "shape=ellipse",
            };
            let mut label = dot_escape(node.name());
            let detail = type_and_params(node);
            if detail != node.name() {
                label.push_str("\\n");
                label.push_str(&dot_escape(&detail));
            }
            let _ = writeln!(
                out,
                "  n{} [label=\"{label}\", {shape}];",
                node.id().index()
            );
        }
        for node in self.nodes() {
            for child in node.children() {
                let _ = writeln!(out, "  n{} -> n{};", node.id().index(), child.id().index());
            }
        }
        out.push_str("}\n");
        out
    }
}
