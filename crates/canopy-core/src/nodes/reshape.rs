//! Inverter, ForceSuccess and ForceFailure: one child, its finished status
//! reshaped. Rules: [`nodes`](super#inverter).
//!
//! No task state: a running one always has its child running, in its one
//! behavior slot.

use crate::Params;
use crate::def::exec::{Exec, Visit, visit_child};
use crate::def::kind::{Carry, Facts, Kind, one_child};
use crate::util::context::Ctx;
use crate::util::status::Status;

/// Swaps Success and Failure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct Inverter;

/// A finished child counts as Success.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct ForceSuccess;

/// A finished child counts as Failure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Params)]
pub struct ForceFailure;

members!(Decorator, Reshape:
    Inverter => |_| Reshape(Status::invert),
    ForceSuccess => |_| Reshape(|_| Status::Success),
    ForceFailure => |_| Reshape(|_| Status::Failure),
);

/// The family: what a finished status of the child becomes.
#[derive(Clone, Copy)]
pub(crate) struct Reshape(fn(Status) -> Status);

impl<A, W> Kind<A, W> for Reshape {
    fn facts(&self, _children: usize) -> Facts {
        Facts::DECORATOR
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        match visit_child(t, visit, 0, 0, visit.is_fresh(), cx) {
            Status::Running => Status::Running,
            done => (self.0)(done),
        }
    }

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        one_child::next_running(from)
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        one_child::carry(old, new, carry)
    }
}
