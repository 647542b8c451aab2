//! `canopy print` and `canopy dot`: a tree for people and for Graphviz,
//! with every name and parameter from the file escaped.
//!
//! The layout is the engine's own (`Tree::display`, `Tree::to_dot`); the
//! command writes it itself because its input comes from files it does not
//! trust: a name holding ESC, OSC, BEL or CR bytes would otherwise recolour
//! the terminal, retitle it or overwrite the line above, and a newline would
//! forge a line of the tree. [`canopy_data::escape`] turns each of them
//! into a visible Rust escape (`\u{1b}`), the same one the loader's errors
//! use.

use std::fmt::Write as _;
use std::io::{self, Write};

use canopy_core::{Arity, NodeRef, Tree};
use canopy_data::escape;

/// `name  Type(k=v, …)`; the type alone when the name is the type.
fn describe<A, W>(node: NodeRef<'_, A, W>) -> String {
    let kind = type_and_params(node);
    if node.name() == node.type_name() {
        kind
    } else {
        format!("{}  {kind}", escape(node.name()))
    }
}

/// `Type(k=v, …)`.
fn type_and_params<A, W>(node: NodeRef<'_, A, W>) -> String {
    let mut text = escape(node.type_name()).into_owned();
    let params = node.params();
    if !params.is_empty() {
        text.push('(');
        for (i, (k, v)) in params.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{}={}", escape(k), escape(v));
        }
        text.push(')');
    }
    text
}

/// The indented view: one node per line under box-drawing branches; a
/// shared subtree is shown under each of its parents.
pub(crate) fn indented<A, W>(tree: &Tree<A, W>, out: &mut dyn Write) -> io::Result<()> {
    let root = tree.node(tree.root());
    writeln!(out, "{}", describe(root))?;
    // Depth-first with an explicit stack of (node, prefix, is last): the
    // depth of a tree has a limit, but not the number of lines.
    let mut stack = Vec::new();
    push_children(&mut stack, root, "");
    while let Some((node, prefix, last)) = stack.pop() {
        let (branch, indent) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        writeln!(out, "{prefix}{branch}{}", describe(node))?;
        push_children(&mut stack, node, &format!("{prefix}{indent}"));
    }
    Ok(())
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

/// Text inside a DOT string: escaped for people first, then for DOT, so a
/// name's `\n` shows as the two characters it was escaped to.
fn dot_text(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The tree as a Graphviz DOT digraph: controls as boxes, decorators as
/// rounded boxes, leaves as ellipses; a shared subtree is drawn once.
pub(crate) fn dot<A, W>(tree: &Tree<A, W>, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "digraph tree {{\n  node [fontname=\"Helvetica\"];")?;
    for node in tree.nodes() {
        let shape = match node.kind().arity() {
            Arity::Composite => "shape=box",
            Arity::Decorator => "shape=box, style=rounded",
            Arity::Leaf => "shape=ellipse",
        };
        let name = escape(node.name());
        let mut label = dot_text(&name);
        let detail = type_and_params(node);
        if *name != *detail {
            label.push_str("\\n");
            label.push_str(&dot_text(&detail));
        }
        writeln!(
            out,
            "  n{} [label=\"{label}\", {shape}];",
            node.id().index()
        )?;
    }
    for node in tree.nodes() {
        for child in node.children() {
            writeln!(out, "  n{} -> n{};", node.id().index(), child.id().index())?;
        }
    }
    writeln!(out, "}}")
}
