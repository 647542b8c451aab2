//! Shuffle: a Sequence or a Selector over its children in an order drawn
//! afresh, per agent, each time it is entered. Rules:
//! [`nodes`](super#shuffle).
//!
//! Games use it where a fixed order would make every agent of a crowd do
//! the same thing first: which shop to try, which cover to run to, which
//! idle animation to play.
//!
//! Task state: where in the order it is (2 bytes), then the order itself,
//! a child index per child (2 bytes each: at most 32,767 children, as for
//! every composite). The order is a uniform permutation (Fisher–Yates)
//! drawn from the node's salt, the agent's id and the tick it was entered
//! ([`hash`](crate::hash)), so a run replays exactly, in any thread and
//! after a snapshot, and two agents entering together draw apart.

use super::Plain;
use crate::ParamEnum;
use crate::Params;
use crate::def::exec::{Exec, Visit, bytes, visit_child};
use crate::def::kind::{Carry, Facts, Kind};
use crate::util::context::Ctx;
use crate::util::hash::{agent_tick, mix};
use crate::util::primitives::Arity;
use crate::util::status::Status;

/// Runs its children like a Sequence or a Selector, in an order drawn
/// afresh, per agent, each time it is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Params)]
pub struct Shuffle {
    /// Whether it goes on while children succeed (a sequence) or while they
    /// fail (a selector).
    #[param(default = Like::Selector)]
    pub like: Like,
    /// Set apart one Shuffle's draws from another's: a loader gives each
    /// node its own, from its seed and the node's place in the file.
    #[param(salt)]
    pub salt: u64,
}

/// What a [`Shuffle`] goes on with, as a Sequence or a Selector does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ParamEnum)]
pub enum Like {
    /// Goes on while children succeed; succeeds when all have.
    Sequence,
    /// Goes on while children fail; fails when all have.
    Selector,
}

impl Plain for Shuffle {
    const ARITY: Arity = Arity::Composite;
}

impl Shuffle {
    /// The status that moves it on to the next child, and that it returns
    /// when every child returned it.
    fn go_on(&self) -> Status {
        match self.like {
            Like::Sequence => Status::Success,
            Like::Selector => Status::Failure,
        }
    }
}

/// Where in the order the task is.
fn position(state: &[u8]) -> usize {
    bytes::u16_at(state, 0) as usize
}

/// The child at place `at` of the order.
fn child_at(state: &[u8], at: usize) -> usize {
    bytes::u16_at(state, 2 + 2 * at) as usize
}

/// Draw a new order of `n` children into `state`, from `key`.
fn draw(state: &mut [u8], n: usize, key: u64) {
    for i in 0..n {
        bytes::set_u16_at(state, 2 + 2 * i, i as u16);
    }
    for i in (1..n).rev() {
        let j = (mix(key ^ i as u64) % (i as u64 + 1)) as usize;
        let (a, b) = (child_at(state, i), child_at(state, j));
        bytes::set_u16_at(state, 2 + 2 * i, b as u16);
        bytes::set_u16_at(state, 2 + 2 * j, a as u16);
    }
}

impl<A, W> Kind<A, W> for Shuffle {
    fn facts(&self, children: usize) -> Facts {
        Facts {
            own: 2 + 2 * children as u32,
            ..Facts::COMPOSITE
        }
    }

    fn update<E: Exec<A, W>>(&self, t: &mut E, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let n = t.children();
        if n == 0 {
            return self.go_on();
        }
        let mut fresh = visit.is_fresh();
        if fresh {
            draw(t.state(), n, self.salt ^ agent_tick(cx.id, cx.tick));
            bytes::set_u16_at(t.state(), 0, 0);
        }
        let mut at = position(t.state());
        loop {
            let child = child_at(t.state(), at);
            let status = visit_child(t, visit, child, 0, fresh, cx);
            if status != self.go_on() {
                bytes::set_u16_at(t.state(), 0, at as u16);
                return status;
            }
            at += 1;
            if at == n {
                return self.go_on();
            }
            fresh = true;
        }
    }

    fn next_running(&self, state: &[u8], children: usize, from: usize) -> Option<(usize, usize)> {
        let child = child_at(state, position(state));
        (child >= from && child < children).then_some((child, 0))
    }

    fn valid(&self, state: &[u8], children: usize) -> bool {
        // The order must be a permutation: each child once (a restored
        // agent's memory; not checked on the hot path).
        let mut seen = vec![false; children];
        position(state) < children
            && (0..children).all(|at| {
                let child = child_at(state, at);
                child < children && !std::mem::replace(&mut seen[child], true)
            })
    }

    fn carry(&self, old: &[u8], new: &mut [u8], carry: &Carry<'_>) -> bool {
        // The order is of the old children: it carries over only when they
        // are all where they were and the running one goes on.
        let same = carry.new_children == carry.to_new.len()
            && (carry.to_new.iter().enumerate()).all(|(i, to)| *to == Some(i as u32));
        if !same || carry.kept_at(child_at(old, position(old))).is_none() {
            return false;
        }
        new.copy_from_slice(old);
        true
    }

    fn describe(&self, state: &[u8], children: usize, _now: u32) -> String {
        let at = position(state);
        format!(
            "running child {} of {children} ({} in its order)",
            child_at(state, at) + 1,
            at + 1
        )
    }
}
