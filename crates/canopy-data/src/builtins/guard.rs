//! `Guard` and `ReactiveGuard` in files: the engine's guards, whose
//! condition is a node object of a registered condition type, read from
//! the guard's `condition` field.

use canopy_core::{Arity, NodeKind, Params, nodes, params::Param};

use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};

/// Guard, or ReactiveGuard when `reactive`.
pub(crate) fn node_type<A: 'static, W: 'static>(reactive: bool) -> NodeType<A, W> {
    let (name, about) = match reactive {
        true => ("ReactiveGuard", nodes::ReactiveGuard::<A, W>::ABOUT),
        false => ("Guard", nodes::Guard::<A, W>::ABOUT),
    };
    // A condition is a node object, which no parameter struct reads.
    let condition = Param::condition("condition", "a condition node object");
    NodeType::resolved(
        name,
        about,
        Arity::Decorator,
        vec![condition],
        Guard { reactive },
    )
}

struct Guard {
    reactive: bool,
}

impl<A: 'static, W: 'static> Resolve<A, W> for Guard {
    fn resolve<'b>(
        &self,
        _: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let condition = at.condition("condition")?;
        Ok(match self.reactive {
            true => NodeKind::from(nodes::ReactiveGuard(condition)),
            false => NodeKind::from(nodes::Guard(condition)),
        }
        .into())
    }

    /// A guard shows its condition, through its kind.
    fn shows_kind(&self) -> bool {
        true
    }
}
