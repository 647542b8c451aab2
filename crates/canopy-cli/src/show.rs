//! `canopy print` and `canopy dot`: a tree for people and for Graphviz,
//! with every name and parameter from the file escaped.
//!
//! The layout is the engine's own (`Tree::display_escaped`,
//! `Tree::to_dot_escaped`), given an escape because the input comes from
//! files the command does not trust: a name holding ESC, OSC, BEL or CR bytes would otherwise recolour
//! the terminal, retitle it or overwrite the line above, and a newline would
//! forge a line of the tree. [`canopy_data::escape`] turns each of them
//! into a visible Rust escape (`\u{1b}`), the same one the loader's errors
//! use.

use std::io::{self, Write};

use canopy_core::Tree;
use canopy_data::escape;

/// The indented view: one node per line under box-drawing branches; a
/// shared subtree is shown under each of its parents.
pub(crate) fn indented<A, W>(tree: &Tree<A, W>, out: &mut dyn Write) -> io::Result<()> {
    write!(out, "{}", tree.display_escaped(escape))
}

/// The tree as a Graphviz DOT digraph: controls as boxes, decorators as
/// rounded boxes, leaves as ellipses; a shared subtree is drawn once.
pub(crate) fn dot<A, W>(tree: &Tree<A, W>, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(tree.to_dot_escaped(escape).as_bytes())
}
