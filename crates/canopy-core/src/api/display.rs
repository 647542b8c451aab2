//! Showing a tree to people: an indented view with box-drawing characters
//! (the readable display of py_trees, and a name and description per node) and Graphviz
//! DOT for drawing it.

use std::borrow::Cow;
use std::fmt::{self, Write};

use crate::tree::{NodeRef, Tree};
use crate::util::primitives::Arity;
use crate::util::text;

/// How the text of a tree (names, types, parameter values) is shown.
/// [`Tree::display`] and [`Tree::to_dot`] use [`text::escape`]: a tree's
/// names may come from a file, and control characters, bidirectional
/// overrides or invisible characters in them must not reach a terminal
/// or a page as they are.
pub type Escape = fn(&str) -> Cow<'_, str>;

/// One node as a line of text: `name  Type(k=v, …)`; the type alone when
/// the name is the type.
fn describe<A, W>(node: NodeRef<'_, A, W>, escape: Escape) -> String {
    let kind = type_and_params(node, escape);
    if node.name() == node.type_name() {
        kind
    } else {
        format!("{}  {kind}", escape(node.name()))
    }
}

/// `Type(k=v, …)`.
fn type_and_params<A, W>(node: NodeRef<'_, A, W>, escape: Escape) -> String {
    let params = node.params();
    let mut text = escape(node.type_name()).into_owned();
    if !params.is_empty() {
        text.push('(');
        for (i, (k, v)) in params.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            // Values come shown already (quoted and escaped where they
            // are text): only what escaping left unsafe is escaped again.
            let _ = write!(text, "{}={}", escape(k), text::escape_again(v));
        }
        text.push(')');
    }
    text
}

/// The indented view of a tree; see [`Tree::display`].
pub struct Outline<'t, A, W> {
    tree: &'t Tree<A, W>,
    escape: Escape,
}

impl<A, W> fmt::Debug for Outline<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outline").finish_non_exhaustive()
    }
}

impl<A, W> fmt::Display for Outline<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let root = self.tree.node(self.tree.root());
        writeln!(f, "{}", describe(root, self.escape))?;
        // Depth-first with an explicit stack of (node, prefix, is last).
        let mut stack = Vec::new();
        push_children(&mut stack, root, "");
        while let Some((node, prefix, last)) = stack.pop() {
            let (branch, indent) = if last {
                ("└── ", "    ")
            } else {
                ("├── ", "│   ")
            };
            writeln!(f, "{prefix}{branch}{}", describe(node, self.escape))?;
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

impl<A, W> Tree<A, W> {
    /// The tree as indented text, one node per line: name, type and
    /// parameters, escaped with [`text::escape`]. A subtree shared by
    /// several parents is shown under each.
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
    /// // A name from a file cannot move the terminal's cursor or reorder text.
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.always_success("ok\u{1b}[2J\u{202e}")).unwrap();
    /// assert_eq!(tree.display().to_string(), "ok\\u{1b}[2J\\u{202e}  AlwaysSuccess\n");
    /// ```
    pub fn display(&self) -> Outline<'_, A, W> {
        self.display_escaped(text::escape)
    }

    /// [`display`](Tree::display) with every name, type and parameter value
    /// passed through `escape` instead.
    pub fn display_escaped(&self, escape: Escape) -> Outline<'_, A, W> {
        Outline { tree: self, escape }
    }

    /// The tree as a Graphviz DOT digraph: controls as boxes, decorators as
    /// rounded boxes, leaves as ellipses, edges in child order, labels
    /// escaped with [`text::escape`]. A shared subtree is drawn once, with
    /// an edge from each parent.
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
        self.to_dot_escaped(text::escape)
    }

    /// [`to_dot`](Tree::to_dot) with every name, type and parameter value
    /// passed through `escape` (instead of [`text::escape`]) before DOT's
    /// own quoting.
    pub fn to_dot_escaped(&self, escape: Escape) -> String {
        let mut out = String::from("digraph tree {\n  node [fontname=\"Helvetica\"];\n");
        for node in self.nodes() {
            let shape = match node.kind().arity() {
                Arity::Composite => "shape=box",
                Arity::Decorator => "shape=box, style=rounded",
                Arity::Leaf => "shape=ellipse",
            };
            let name = escape(node.name());
            let mut label = text::dot(&name).into_owned();
            let detail = type_and_params(node, escape);
            if *name != *detail {
                label.push_str("\\n");
                label.push_str(&text::dot(&detail));
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
