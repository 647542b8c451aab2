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
//!
//! The resolver reaches the walk through the [`Walk`] trait, which the
//! walk's loader implements, and a node object's place in the file
//! ([`NodeInFile`]) is defined here: the registry holds resolved types and
//! the walk holds the registry, so this module, which both import, names
//! neither. Rejected: the resolver holding the loader itself, which made
//! the registry, this module and the walk import each other in a circle.

use std::collections::BTreeMap;

use canopy_core::nodes::ScoreFn;
use canopy_core::{Draft, NodeKind, Params, context::Predicate, params::ParamError};

use crate::document::{Field, Value, field};
use crate::error::{LoadError, NodePath, PathRoot, PathStep};
use crate::scripts::{self, Cell, ScriptShape};

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

/// What a resolved type may ask of the walk, through its [`Resolver`]:
/// the walk ([`Loader`](crate::walk)) implements it, so that this module,
/// which the registry's types and the node types import, imports neither
/// the registry nor the walk.
pub(crate) trait Walk<'r, 'd, 'b, A, W> {
    /// The registry's scorers.
    fn scorers(&self) -> &'r BTreeMap<String, ScoreFn<A, W>>;

    /// A problem with the parameters of the node `at`, named `name`.
    fn param_error(&self, at: &NodeInFile, name: &str, e: ParamError) -> LoadError;

    /// A cell for the script in parameter `param` of the node `at` (named
    /// `name`), filled when the file's scripts are compiled together once
    /// the walk is over.
    fn defer_script(
        &mut self,
        param: String,
        source: scripts::Source,
        shape: ScriptShape,
        at: &NodeInFile<'_, 'd>,
        name: &str,
    ) -> Cell;

    /// The shared draft of the subtree `target`, which the node `at`
    /// (named `name`, `depth` levels down) refers to.
    fn reference(
        &mut self,
        target: &'d str,
        at: &NodeInFile<'_, 'd>,
        name: &str,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError>;

    /// A guard's condition: a node object of a registered condition type.
    fn condition(
        &mut self,
        value: &'d Value<'d>,
        path: &NodeInFile<'_, 'd>,
    ) -> Result<Predicate<A, W>, LoadError>;
}

/// What a loader-resolved type may ask of the walk, about the node object
/// it builds.
pub(crate) struct Resolver<'x, 'r, 'd, 'b, A, W> {
    pub(crate) loader: &'x mut dyn Walk<'r, 'd, 'b, A, W>,
    pub(crate) node: &'x NodeInFile<'x, 'd>,
    pub(crate) fields: &'d [Field<'d>],
    pub(crate) name: &'x str,
    pub(crate) depth: usize,
}

impl<'r, 'd, 'b, A: 'static, W: 'static> Resolver<'_, 'r, 'd, 'b, A, W> {
    /// The scorers of the registry the file is loaded with.
    pub(crate) fn scorers(&self) -> &'r BTreeMap<String, ScoreFn<A, W>> {
        self.loader.scorers()
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

/// Where a node object is in the file, as a chain of steps that is only
/// written out when an error needs it, and the node object itself (for
/// its position in the text).
#[derive(Clone, Copy)]
pub(crate) struct NodeInFile<'p, 'd> {
    step: Step<'p, 'd>,
    pub(crate) node: &'d Value<'d>,
}

#[derive(Clone, Copy)]
enum Step<'p, 'd> {
    /// The `tree` field.
    Tree,
    /// An entry of `subtrees`.
    Subtree(&'p str),
    /// A child of the node at the inner spot.
    Child(&'p NodeInFile<'p, 'd>, usize),
    /// A guard's condition.
    Condition(&'p NodeInFile<'p, 'd>),
}

impl<'p, 'd> NodeInFile<'p, 'd> {
    pub(crate) fn tree(node: &'d Value<'d>) -> Self {
        NodeInFile {
            step: Step::Tree,
            node,
        }
    }

    pub(crate) fn subtree(name: &'p str, node: &'d Value<'d>) -> Self {
        NodeInFile {
            step: Step::Subtree(name),
            node,
        }
    }

    pub(crate) fn child(&'p self, index: usize, node: &'d Value<'d>) -> Self {
        NodeInFile {
            step: Step::Child(self, index),
            node,
        }
    }

    pub(crate) fn condition(&'p self, node: &'d Value<'d>) -> Self {
        NodeInFile {
            step: Step::Condition(self),
            node,
        }
    }

    /// The path, written out.
    pub(crate) fn path(&self) -> NodePath {
        let mut steps = Vec::new();
        let mut spot = self;
        loop {
            match &spot.step {
                Step::Tree => {
                    steps.reverse();
                    return NodePath {
                        root: PathRoot::Tree,
                        steps,
                    };
                }
                Step::Subtree(name) => {
                    steps.reverse();
                    return NodePath {
                        root: PathRoot::Subtree(name.to_string()),
                        steps,
                    };
                }
                Step::Child(parent, i) => {
                    steps.push(PathStep::Child(*i as u32));
                    spot = parent;
                }
                Step::Condition(parent) => {
                    steps.push(PathStep::Condition);
                    spot = parent;
                }
            }
        }
    }
}
