//! The leaves without state: Action, Condition and the constants. Rules:
//! [`nodes`](super#action).
//!
//! They need no task memory, so the engine runs them without touching the
//! agent's memory at all ([`stateless`]): the hot case of conditions
//! re-checked every tick costs a call and an event or two.

use std::sync::Arc;

use super::{Code, NodeKind};
use crate::Params;
use crate::def::exec::{Exec, Visit, Wake};
use crate::def::kind::{Carry, Facts, Kind, Sched, leaf};
use crate::util::context::{ActionFn, ConditionFn, Ctx};
use crate::util::primitives::Arity;
use crate::util::status::Status;

/// Always Success.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct AlwaysSuccess;

/// Always Failure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct AlwaysFailure;

/// Always Running.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct AlwaysRunning;

members!(Leaf, Constant:
    AlwaysSuccess => |_| Constant(Status::Success),
    AlwaysFailure => |_| Constant(Status::Failure),
    AlwaysRunning => |_| Constant(Status::Running),
);

/// Leaf: user code returning a status, called on every update.
pub struct Action<A, W>(pub ActionFn<A, W>);

/// Leaf: user code returning true (Success) or false (Failure), called on
/// every update.
pub struct Condition<A, W>(pub ConditionFn<A, W>);

impl<A, W> Clone for Action<A, W> {
    fn clone(&self) -> Self {
        Action(Arc::clone(&self.0))
    }
}

impl<A, W> Clone for Condition<A, W> {
    fn clone(&self) -> Self {
        Condition(Arc::clone(&self.0))
    }
}

impl<A, W> std::fmt::Debug for Action<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Action(…)")
    }
}

impl<A, W> std::fmt::Debug for Condition<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Condition(…)")
    }
}

impl<A, W> Code for Action<A, W> {
    fn type_name(&self) -> &str {
        "Action"
    }
    fn about(&self) -> &'static str {
        "User code returning a status."
    }
    fn arity(&self) -> Arity {
        Arity::Leaf
    }
    fn shown(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

impl<A, W> Code for Condition<A, W> {
    fn type_name(&self) -> &str {
        "Condition"
    }
    fn about(&self) -> &'static str {
        "User code returning true (Success) or false (Failure)."
    }
    fn arity(&self) -> Arity {
        Arity::Leaf
    }
    fn shown(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// A leaf without state, as the engine runs it.
pub(crate) enum Leaf<'k, A, W> {
    Action(&'k ActionFn<A, W>),
    Condition(&'k ConditionFn<A, W>),
    Constant(Status),
}

/// The kind as a leaf without state, if it is one: the engine runs those
/// without touching the agent's memory.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn stateless<A, W>(kind: &NodeKind<A, W>) -> Option<Leaf<'_, A, W>> {
    match kind {
        NodeKind::Action(Action(f)) => Some(Leaf::Action(f)),
        NodeKind::Condition(Condition(f)) => Some(Leaf::Condition(f)),
        NodeKind::AlwaysSuccess(_) => Some(Leaf::Constant(Status::Success)),
        NodeKind::AlwaysFailure(_) => Some(Leaf::Constant(Status::Failure)),
        NodeKind::AlwaysRunning(_) => Some(Leaf::Constant(Status::Running)),
        _ => None,
    }
}

impl<A, W> Leaf<'_, A, W> {
    /// The leaf's status this update.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn run(&self, cx: &mut Ctx<A, W>) -> Status {
        match self {
            Leaf::Action(f) => f(cx),
            Leaf::Condition(f) => Status::from_bool(f(cx)),
            Leaf::Constant(status) => *status,
        }
    }
}

/// The family of the constants: always this status. AlwaysRunning never
/// needs an update in event mode.
#[derive(Clone, Copy)]
pub(crate) struct Constant(Status);

impl<A, W> Kind<A, W> for Constant {
    fn facts(&self, _children: usize) -> Facts {
        match self.0 {
            Status::Running => Facts {
                sched: Sched::OnItsOwn,
                ..Facts::LEAF
            },
            _ => Facts::LEAF,
        }
    }

    fn update<E: Exec<A, W>>(&self, _t: &mut E, _visit: Visit, _cx: &mut Ctx<A, W>) -> Status {
        self.0
    }

    fn next_running(
        &self,
        _state: &[u8],
        _children: usize,
        _from: usize,
    ) -> Option<(usize, usize)> {
        leaf::next_running()
    }

    fn carry(&self, old: &[u8], new: &mut [u8], _carry: &Carry<'_>) -> bool {
        leaf::carry(old, new)
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        match self.0 {
            Status::Running => Wake::Never,
            _ => Wake::Always,
        }
    }
}

/// Action and Condition: user code, updated every tick.
macro_rules! code_leaf {
    ($($kind:ident => $leaf:ident),*) => {$(
        impl<A, W> Kind<A, W> for $kind<A, W> {
            fn facts(&self, _children: usize) -> Facts {
                Facts::LEAF
            }

            fn update<E: Exec<A, W>>(&self, _t: &mut E, _visit: Visit, cx: &mut Ctx<A, W>) -> Status {
                Leaf::$leaf(&self.0).run(cx)
            }

            fn next_running(&self, _state: &[u8], _children: usize, _from: usize) -> Option<(usize, usize)> {
                leaf::next_running()
            }

            fn carry(&self, old: &[u8], new: &mut [u8], _carry: &Carry<'_>) -> bool {
                leaf::carry(old, new)
            }

            fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
                Wake::Always
            }
        }
    )*};
}

code_leaf!(Action => Action, Condition => Condition);
