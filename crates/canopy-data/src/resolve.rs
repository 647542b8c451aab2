//! Node types the loader builds itself, because they refer to something
//! only the whole file knows: a script (compiled once every port has made
//! its key), a named condition (a node object of a registered condition
//! type), a subtree (shared by every reference), the registry's scorers.
//!
//! Each such type implements [`Resolve`] in its own file
//! (`builtins/eval.rs`, `builtins/guard.rs`, …) and is registered in one
//! line ([`NodeType::resolved`](crate::NodeType)); the walk knows none of
//! them by name. A type asks the [`Resolver`] it is handed for what it
//! refers to: it never sees the walk's state, and the walk never reads its
//! parameters. Rejected: one `enum` of such types with an arm each in the
//! walk, which made a new type four edits in three files, two of them in
//! the walk, and had the walk read each type's parameters by name.

use canopy_core::{Draft, NodeKind, Params, context::Predicate, params::ParamError};

use crate::document::{Field, Value, field};
use crate::error::LoadError;
use crate::registry::Registry;
use crate::scripts::{self, Cell, ScriptShape};
use crate::walk::{Loader, NodeInFile};

/// What a loader-resolved node type made of one node object.
pub(crate) enum Made<'b, A, W> {
    /// A node kind; the walk goes on to its children.
    Kind(NodeKind<A, W>),
    /// A draft that stands for the node (a subtree reference: the
    /// subtree's shared root).
    Draft(&'b Draft<'b, A, W>),
}

impl<A, W> From<NodeKind<A, W>> for Made<'_, A, W> {
    fn from(kind: NodeKind<A, W>) -> Self {
        Made::Kind(kind)
    }
}

/// A node type the loader builds from its checked parameters and what
/// they refer to.
pub(crate) trait Resolve<A, W>: Send + Sync {
    /// The node for checked `params`, asking `at` for what it refers to.
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError>;

    /// The subtree a node object of this type stands for, if it is a
    /// reference (`SubTree`'s `tree`): errors about a node below a
    /// reference follow it into the subtree.
    fn reference<'d>(&self, fields: &'d [Field<'d>]) -> Option<&'d str> {
        let _ = fields;
        None
    }

    /// Whether a node of this type shows its kind's parameters rather than
    /// those given (a guard shows its condition).
    fn shows_kind(&self) -> bool {
        false
    }
}

/// What a loader-resolved type may ask of the walk, about the node object
/// it builds.
pub(crate) struct Resolver<'x, 'r, 'd, 'b, A, W> {
    pub(crate) loader: &'x mut Loader<'r, 'd, 'b, A, W>,
    pub(crate) node: &'x NodeInFile<'x, 'd>,
    pub(crate) fields: &'d [Field<'d>],
    pub(crate) name: &'x str,
    pub(crate) depth: usize,
}

impl<'r, 'd, 'b, A: 'static, W: 'static> Resolver<'_, 'r, 'd, 'b, A, W> {
    /// The registry the file is loaded with (its scorers, its types).
    pub(crate) fn registry(&self) -> &'r Registry<A, W> {
        self.loader.registry()
    }

    /// A problem with the node's parameters, placed at the node.
    pub(crate) fn invalid(&self, e: ParamError) -> LoadError {
        self.loader.param_error(self.node, self.name, e)
    }

    /// A cell for a script of parameter `param` (`code`, `cases[1]`),
    /// filled when the file's scripts are compiled together once the walk
    /// is over: a script may read a key a node after it makes.
    pub(crate) fn script(
        &mut self,
        param: impl Into<String>,
        source: scripts::Source,
        shape: ScriptShape,
    ) -> Cell {
        self.loader
            .defer_script(param.into(), source, shape, self.node, self.name)
    }

    /// A cell for each script of the list parameter `param`, compiled as
    /// `shape`; and the list as shown (`a; b`).
    pub(crate) fn scripts(
        &mut self,
        param: &str,
        items: &[String],
        shape: ScriptShape,
    ) -> (Vec<Cell>, String) {
        let mut cells = Vec::with_capacity(items.len());
        for (i, code) in items.iter().enumerate() {
            let source = scripts::Source::Code(code.clone());
            cells.push(self.script(format!("{param}[{i}]"), source, shape));
        }
        (cells, items.join("; "))
    }

    /// The condition in the node object's field `name`: a node object of
    /// a registered condition type.
    pub(crate) fn condition(&mut self, name: &str) -> Result<Predicate<A, W>, LoadError> {
        let condition = field(self.fields, name).unwrap_or(&Value::Null);
        let at = self.node.condition(condition);
        self.loader.condition(condition, &at)
    }

    /// The shared draft of the file's subtree `target`, which this node
    /// refers to.
    pub(crate) fn subtree(&mut self, target: &'d str) -> Result<&'b Draft<'b, A, W>, LoadError> {
        self.loader
            .reference(target, self.node, self.name, self.depth)
    }
}
