//! `SubTree`: stands for the root of an entry of the file's `subtrees`,
//! one draft shared by every reference (and every agent).

use canopy_core::{Arity, Params, params::Param};

use crate::document::{Field, Value, field};
use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};

/// The name every registry holds the subtree reference type under, for
/// loaders built on the registry (the BehaviorTree.CPP XML reader) that
/// write or recognise it: named once, so that they follow a rename.
///
/// ```
/// assert!(canopy_data::Registry::<(), ()>::new().get(canopy_data::SUBTREE_TYPE).is_some());
/// ```
pub const SUBTREE_TYPE: &str = "SubTree";

/// The node type.
pub(crate) fn node_type<A: 'static, W: 'static>() -> NodeType<A, W> {
    // A subtree's name is checked against the file's, which no parameter
    // struct knows.
    let tree = Param::subtree("tree", "a key of \"subtrees\"");
    NodeType::resolved(
        SUBTREE_TYPE,
        "Stands for the named entry of the file's \"subtrees\", shared by every reference.",
        Arity::Leaf,
        vec![tree],
        SubTree,
    )
}

struct SubTree;

impl<A: 'static, W: 'static> Resolve<A, W> for SubTree {
    fn resolve<'b>(
        &self,
        _: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let target = <Self as Resolve<A, W>>::reference(self, at.fields).unwrap_or("");
        at.subtree(target).map(Made::Draft)
    }

    fn reference<'d>(&self, fields: &'d [Field<'d>]) -> Option<&'d str> {
        field(fields, "tree").and_then(Value::as_str)
    }
}
