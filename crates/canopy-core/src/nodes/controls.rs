//! Controls: Sequence, Selector, their reactive variants, and Parallel.
//! Semantics: [`nodes`](super).

use crate::behavior::{At, Runner, Visit};
use crate::context::Ctx;
use crate::node::Policy;
use crate::observer::Observer;
use crate::pool::TaskPool;
use crate::status::Status;
use crate::tree::NodeDef;

/// Parallel child codes, two bits each.
const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const SUCCEEDED: u8 = 2;
const FAILED: u8 = 3;

fn code_of(status: Status) -> u8 {
    match status {
        Status::Running => RUNNING,
        Status::Success => SUCCEEDED,
        Status::Failure => FAILED,
    }
}

/// Reactive state: running child + 1 in the low 15 bits (0: none), the
/// slot holding it in the top bit.
fn reactive_state(running: usize, slot: usize) -> u16 {
    (running as u16 + 1) | ((slot as u16) << 15)
}

impl<A, W, P: TaskPool, O: Observer> Runner<'_, A, W, P, O> {
    /// Sequence (`go_on` = Success) and Selector (`go_on` = Failure): move to
    /// the next child while children return `go_on`.
    #[inline(always)]
    pub(super) fn in_order(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
        go_on: Status,
    ) -> Status {
        let tree = self.tree;
        let edges = tree.edges_of(def);
        if edges.is_empty() {
            return go_on;
        }
        let slot = tree.slot(def, 0);
        let (mut index, mut child_fresh) = if visit.is_fresh() {
            (0, true)
        } else {
            (self.running_in_order(def, at), false)
        };
        loop {
            let status = self.visit_child(at, slot, edges[index], index, child_fresh, visit, cx);
            if status != go_on {
                if status == Status::Running {
                    self.set_u16(def, at, index as u16);
                }
                return status;
            }
            index += 1;
            if index == edges.len() {
                return go_on;
            }
            child_fresh = true;
        }
    }

    /// The running child of a running Sequence or Selector.
    #[inline(always)]
    pub(crate) fn running_in_order(&mut self, def: &NodeDef<A, W>, at: At) -> usize {
        self.get_u16(def, at) as usize
    }

    #[inline(never)]
    pub(super) fn abort_in_order(&mut self, def: &NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        let tree = self.tree;
        let index = self.running_in_order(def, at);
        self.abort_child(at, tree.slot(def, 0), tree.edges_of(def)[index], cx);
    }

    /// ReactiveSequence (`go_on` = Success) and ReactiveSelector (`go_on` =
    /// Failure): re-enter the children before the running one every tick.
    #[inline(always)]
    pub(super) fn reactive(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        fresh: bool,
        cx: &mut Ctx<A, W>,
        go_on: Status,
    ) -> Status {
        let tree = self.tree;
        let edges = tree.edges_of(def);
        if edges.is_empty() {
            return go_on;
        }
        let state = if fresh { 0 } else { self.get_u16(def, at) };
        let mut running = ((state & 0x7fff) as usize).checked_sub(1);
        let running_slot = (state >> 15) as usize;
        for (k, &edge) in edges.iter().enumerate() {
            // The running child stays where it is; a child re-checked while
            // it runs goes in the other slot; any other child in slot 0,
            // which is free by then.
            let (slot, child_fresh) = match running {
                Some(r) if k == r => (running_slot, false),
                Some(r) if k < r => (1 - running_slot, true),
                _ => (0, true),
            };
            let status = self.run_child(at, tree.slot(def, slot), edge, child_fresh, cx);
            if status == go_on {
                if running == Some(k) {
                    running = None;
                }
                continue;
            }
            if let Some(r) = running
                && k < r
            {
                self.abort_child(at, tree.slot(def, running_slot), edges[r], cx);
            }
            if status == Status::Running {
                self.set_u16(def, at, reactive_state(k, slot));
            }
            return status;
        }
        go_on
    }

    #[inline(never)]
    pub(super) fn abort_reactive(&mut self, def: &NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        let tree = self.tree;
        let state = self.get_u16(def, at);
        if let Some(r) = ((state & 0x7fff) as usize).checked_sub(1) {
            let slot = tree.slot(def, (state >> 15) as usize);
            self.abort_child(at, slot, tree.edges_of(def)[r], cx);
        }
    }

    /// Whether child `child` of a running Parallel is running.
    pub(crate) fn parallel_child_running(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        child: usize,
    ) -> bool {
        self.parallel_code(def, at, child) == RUNNING
    }

    fn parallel_code(&mut self, def: &NodeDef<A, W>, at: At, child: usize) -> u8 {
        let byte = self.state(def, at)[child / 4];
        (byte >> ((child % 4) * 2)) & 0b11
    }

    fn set_parallel_code(&mut self, def: &NodeDef<A, W>, at: At, child: usize, code: u8) {
        let cell = &mut self.state(def, at)[child / 4];
        let shift = (child % 4) * 2;
        *cell = (*cell & !(0b11 << shift)) | (code << shift);
    }

    pub(super) fn parallel(
        &mut self,
        def: &NodeDef<A, W>,
        at: At,
        visit: Visit,
        cx: &mut Ctx<A, W>,
        success: Policy,
        failure: Policy,
    ) -> Status {
        let tree = self.tree;
        let edges = tree.edges_of(def);
        let n = edges.len();
        if visit.is_fresh() {
            self.state(def, at).fill(IDLE);
        }
        if let Visit::ChildDone { child, status } = visit {
            // What the loop below would conclude, without visiting every
            // child for each one that finishes: a child that finished
            // earlier would have decided a `One` policy then, so only this
            // one can; and `All` needs every child finished.
            let child = child as usize;
            self.set_parallel_code(def, at, child, code_of(status));
            let one = match status {
                Status::Success => success == Policy::One,
                _ => failure == Policy::One,
            };
            if one {
                self.abort_parallel(def, at, cx);
                return status;
            }
            let still_running = (child + 1..n)
                .chain(0..child)
                .any(|i| self.parallel_code(def, at, i) == RUNNING);
            if still_running {
                return Status::Running;
            }
        }
        let (mut succeeded, mut failed) = (0, 0);
        let mut decided = None;
        for (i, &edge) in edges.iter().enumerate() {
            let status = match self.parallel_code(def, at, i) {
                SUCCEEDED => Status::Success,
                FAILED => Status::Failure,
                code => {
                    let slot = tree.slot(def, i);
                    let status = self.visit_child(at, slot, edge, i, code == IDLE, visit, cx);
                    self.set_parallel_code(def, at, i, code_of(status));
                    status
                }
            };
            match status {
                Status::Success => {
                    succeeded += 1;
                    if success == Policy::One {
                        decided = Some(Status::Success);
                        break;
                    }
                }
                Status::Failure => {
                    failed += 1;
                    if failure == Policy::One {
                        decided = Some(Status::Failure);
                        break;
                    }
                }
                Status::Running => {}
            }
        }
        let decided = decided.or(if failed == n {
            Some(Status::Failure)
        } else if success == Policy::All && succeeded == n {
            Some(Status::Success)
        } else if succeeded + failed == n {
            Some(Status::Failure)
        } else {
            None
        });
        match decided {
            Some(status) => {
                self.abort_parallel(def, at, cx);
                status
            }
            None => Status::Running,
        }
    }

    #[inline(never)]
    pub(super) fn abort_parallel(&mut self, def: &NodeDef<A, W>, at: At, cx: &mut Ctx<A, W>) {
        let tree = self.tree;
        for (i, &edge) in tree.edges_of(def).iter().enumerate() {
            if self.parallel_code(def, at, i) == RUNNING {
                self.abort_child(at, tree.slot(def, i), edge, cx);
                self.set_parallel_code(def, at, i, IDLE);
            }
        }
    }
}
