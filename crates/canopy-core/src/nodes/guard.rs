//! Guard and ReactiveGuard: a condition in front of one child. Rules:
//! [`nodes`](super#guard).
//!
//! No task state: a running guard always has its child running. A Guard
//! checks once, when entered, so it passes ticks through in event mode; a
//! ReactiveGuard checks every tick, so its child runs tick-from-root.

use super::Code;
use crate::def::exec::{Exec, Visit, Wake, visit_child};
use crate::def::kind::{Carry, Facts, Kind, Sched, one_child};
use crate::util::context::{Ctx, Predicate};
use crate::util::primitives::Arity;
use crate::util::status::Status;

/// Enters the child only if the condition holds when the guard is
/// entered; then runs it to its end without checking again.
pub struct Guard<A, W>(pub Predicate<A, W>);

/// Re-checks the condition every tick before the child; once it fails,
/// aborts the running child and fails.
pub struct ReactiveGuard<A, W>(pub Predicate<A, W>);

macro_rules! guards {
    ($($kind:ident: $about:literal),*) => {$(
        impl<A, W> Clone for $kind<A, W> {
            fn clone(&self) -> Self {
                $kind(self.0.clone())
            }
        }

        impl<A, W> std::fmt::Debug for $kind<A, W> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($kind)).field(&self.0.label).finish()
            }
        }

        impl<A, W> $kind<A, W> {
            /// What the kind does, in one line.
            pub const ABOUT: &'static str = $about;
        }

        impl<A, W> Code for $kind<A, W> {
            fn type_name(&self) -> &str {
                stringify!($kind)
            }
            fn about(&self) -> &'static str {
                Self::ABOUT
            }
            fn arity(&self) -> Arity {
                Arity::Decorator
            }
            fn shown(&self) -> Vec<(String, String)> {
                match &self.0.label {
                    Some(label) => vec![("condition".to_string(), label.clone())],
                    None => Vec::new(),
                }
            }
        }
    )*};
}

guards!(
    Guard: "Enters the child only if the condition holds when the guard is entered.",
    ReactiveGuard: "Re-checks the condition every tick and aborts the child when it fails."
);

impl<A, W> Kind<A, W> for Guard<A, W> {
    fn facts(&self, _children: usize) -> Facts {
        Facts::DECORATOR
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if fresh && !(self.0.check)(cx) {
            return Status::Failure;
        }
        visit_child(t, visit, 0, 0, fresh, cx)
    }

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        one_child::next_running(from)
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        one_child::carry(old, new, carry)
    }
}

impl<A, W> Kind<A, W> for ReactiveGuard<A, W> {
    fn facts(&self, _children: usize) -> Facts {
        Facts {
            sched: Sched::EveryTick,
            ..Facts::DECORATOR
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let fresh = visit.is_fresh();
        if !(self.0.check)(cx) {
            if !fresh {
                t.abort(0, 0, cx);
            }
            return Status::Failure;
        }
        t.run(0, 0, fresh, cx)
    }

    fn next_running(&self, _state: &[u8], _children: usize, from: usize) -> Option<(usize, usize)> {
        one_child::next_running(from)
    }

    fn wake<E: Exec<A, W>>(&self, _t: &mut E) -> Wake {
        Wake::Always
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        one_child::carry(old, new, carry)
    }
}
