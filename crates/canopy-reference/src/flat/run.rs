//! The interpreter: one recursive function per tree level, a `match` per
//! node, state read and written at fixed word offsets.
//!
//! A child is "fresh" when its parent starts it on this update (its state is
//! initialised then); otherwise it resumes from the state it left. Nothing
//! else marks which nodes run: a Sequence's index, a reactive composite's
//! running child, a Parallel's finished bits and a Repeat's installed word
//! say which of their children are running, so an abort walks exactly the
//! running ones.

use canopy_core::nodes::Like;
use canopy_core::{Afterwards, Ctx, EventKind, Policy, Status, hash};

use super::{FlatLeaf, Node, Op, Trace};

/// One agent's tick: the tree, its state words, the leaf context, the trace.
pub(super) struct Run<'r, 'c, L, A, W, T> {
    nodes: &'r [Node<L>],
    st: &'r mut [u32],
    cx: Ctx<'c, A, W>,
    trace: T,
}

impl<'r, 'c, L: FlatLeaf<A, W>, A, W, T: Trace> Run<'r, 'c, L, A, W, T> {
    pub(super) fn new(
        nodes: &'r [Node<L>],
        st: &'r mut [u32],
        cx: Ctx<'c, A, W>,
        trace: T,
    ) -> Self {
        Run {
            nodes,
            st,
            cx,
            trace,
        }
    }

    /// Update node `i`, starting it first when `fresh`. Stateless leaves run
    /// right here, inlined into their parent; every other node costs one
    /// call of [`task`](Self::task).
    #[inline(always)]
    pub(super) fn child(&mut self, i: usize, fresh: bool) -> Status {
        let nodes = self.nodes;
        let status = match &nodes[i].op {
            Op::Action(leaf) => {
                self.entered(i, fresh);
                leaf.act(&mut self.cx)
            }
            Op::Condition(leaf) => {
                self.entered(i, fresh);
                Status::from_bool(leaf.check(&mut self.cx))
            }
            Op::AlwaysSuccess => {
                self.entered(i, fresh);
                Status::Success
            }
            Op::AlwaysFailure => {
                self.entered(i, fresh);
                Status::Failure
            }
            Op::AlwaysRunning => {
                self.entered(i, fresh);
                Status::Running
            }
            _ => return self.task(i, fresh),
        };
        self.updated(i, status);
        status
    }

    #[inline(always)]
    fn entered(&mut self, i: usize, fresh: bool) {
        if fresh {
            self.trace.event(i, EventKind::Enter);
        }
    }

    #[inline(always)]
    fn updated(&mut self, i: usize, status: Status) {
        self.trace.event(i, EventKind::Update(status));
        if status != Status::Running {
            self.trace.event(i, EventKind::Exit(status));
        }
    }

    /// Update a node that has state or children.
    #[inline(never)]
    fn task(&mut self, i: usize, fresh: bool) -> Status {
        let nodes = self.nodes;
        let node = &nodes[i];
        self.entered(i, fresh);
        let first = node.first as usize;
        let status = match node.op {
            Op::Sequence => self.in_order(node, fresh, Status::Success),
            Op::SequenceWithMemory => self.sequence_with_memory(node, fresh),
            Op::RunOnce(then) => self.run_once(node, fresh, then),
            Op::Selector => self.in_order(node, fresh, Status::Failure),
            Op::ReactiveSequence => self.reactive(node, fresh, Status::Success),
            Op::ReactiveSelector => self.reactive(node, fresh, Status::Failure),
            Op::Parallel { success, failure } => self.parallel(node, fresh, success, failure),
            Op::Shuffle { like, salt } => self.shuffle(node, fresh, like, salt),
            Op::Inverter => self.child(first, fresh).invert(),
            Op::ForceSuccess => match self.child(first, fresh) {
                Status::Running => Status::Running,
                _ => Status::Success,
            },
            Op::ForceFailure => match self.child(first, fresh) {
                Status::Running => Status::Running,
                _ => Status::Failure,
            },
            Op::Repeat(times) => self.repeat(node, fresh, times, Status::Success),
            Op::Retry(times) => self.repeat(node, fresh, times, Status::Failure),
            Op::Guard(ref condition) => {
                if fresh && !condition.check(&mut self.cx) {
                    Status::Failure
                } else {
                    self.child(first, fresh)
                }
            }
            Op::ReactiveGuard(ref condition) => {
                if condition.check(&mut self.cx) {
                    self.child(first, fresh)
                } else {
                    if !fresh {
                        self.abort(first);
                    }
                    Status::Failure
                }
            }
            Op::Timeout(ticks) => self.timeout(node, fresh, ticks),
            Op::Cooldown(ticks) => self.cooldown(node, fresh, ticks),
            Op::Wait(ticks) => {
                if self.since_entry(node.at as usize, fresh) >= ticks {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            Op::Random(draw) => {
                let at = node.at as usize;
                let count = if fresh { 0 } else { self.st[at] };
                self.st[at] = count.wrapping_add(1);
                draw.roll(self.cx.id, self.cx.tick, count)
            }
            // Stateless leaves as the root.
            Op::Action(ref leaf) => leaf.act(&mut self.cx),
            Op::Condition(ref leaf) => Status::from_bool(leaf.check(&mut self.cx)),
            Op::AlwaysSuccess => Status::Success,
            Op::AlwaysFailure => Status::Failure,
            Op::AlwaysRunning => Status::Running,
        };
        self.updated(i, status);
        status
    }

    /// Sequence (`go_on` = Success) and Selector (`go_on` = Failure). State:
    /// the running child's index.
    #[inline(always)]
    fn in_order(&mut self, node: &Node<L>, fresh: bool, go_on: Status) -> Status {
        let (first, n, at) = (node.first as usize, node.count as usize, node.at as usize);
        if n == 0 {
            return go_on;
        }
        let (mut k, mut child_fresh) = if fresh {
            (0, true)
        } else {
            (self.st[at] as usize, false)
        };
        loop {
            let status = self.child(first + k, child_fresh);
            if status != go_on {
                if status == Status::Running {
                    self.st[at] = k as u32;
                }
                return status;
            }
            k += 1;
            if k == n {
                return go_on;
            }
            child_fresh = true;
        }
    }

    /// Shuffle. State: the place in the order, then the order (a child
    /// index per word), drawn when it is entered.
    #[inline(always)]
    fn shuffle(&mut self, node: &Node<L>, fresh: bool, like: Like, salt: u64) -> Status {
        let (first, n, at) = (node.first as usize, node.count as usize, node.at as usize);
        let go_on = match like {
            Like::Sequence => Status::Success,
            Like::Selector => Status::Failure,
        };
        if n == 0 {
            return go_on;
        }
        let order = at + 1..at + 1 + n;
        if fresh {
            let key = salt ^ hash::agent_tick(self.cx.id, self.cx.tick);
            for (k, word) in self.st[order.clone()].iter_mut().enumerate() {
                *word = k as u32;
            }
            for i in (1..n).rev() {
                let j = (hash::mix(key ^ i as u64) % (i as u64 + 1)) as usize;
                self.st[order.clone()].swap(i, j);
            }
            self.st[at] = 0;
        }
        let (mut k, mut child_fresh) = (self.st[at] as usize, fresh);
        loop {
            let child = self.st[at + 1 + k] as usize;
            let status = self.child(first + child, child_fresh);
            if status != go_on {
                self.st[at] = k as u32;
                return status;
            }
            k += 1;
            if k == n {
                return go_on;
            }
            child_fresh = true;
        }
    }

    /// SequenceWithMemory. Its lasting word: the child it stopped at, which
    /// while it runs is the running child (past the last: the first).
    #[inline(always)]
    fn sequence_with_memory(&mut self, node: &Node<L>, fresh: bool) -> Status {
        let (first, n, at) = (node.first as usize, node.count as usize, node.at as usize);
        let mut k = self.st[at] as usize;
        if k >= n {
            k = 0;
        }
        let mut child_fresh = fresh;
        while k < n {
            let status = self.child(first + k, child_fresh);
            if status != Status::Success {
                self.st[at] = k as u32;
                return status;
            }
            k += 1;
            child_fresh = true;
        }
        self.st[at] = 0;
        Status::Success
    }

    /// RunOnce. Its lasting word: 0 until the child has run to the end,
    /// then 1 (it succeeded) or 2 (it failed).
    #[inline(always)]
    fn run_once(&mut self, node: &Node<L>, fresh: bool, then: Afterwards) -> Status {
        let at = node.at as usize;
        if fresh {
            let ended = match self.st[at] {
                1 => Status::Success,
                2 => Status::Failure,
                _ => Status::Running,
            };
            if ended != Status::Running {
                return match then {
                    Afterwards::Same => ended,
                    Afterwards::Success => Status::Success,
                    Afterwards::Failure => Status::Failure,
                };
            }
        }
        let status = self.child(node.first as usize, fresh);
        match status {
            Status::Running => {}
            Status::Success => self.st[at] = 1,
            Status::Failure => self.st[at] = 2,
        }
        status
    }

    /// ReactiveSequence and ReactiveSelector. State: running child + 1
    /// (0: none). Children before the running one start fresh every tick.
    #[inline(always)]
    fn reactive(&mut self, node: &Node<L>, fresh: bool, go_on: Status) -> Status {
        let (first, n, at) = (node.first as usize, node.count as usize, node.at as usize);
        let mut running = if fresh {
            None
        } else {
            (self.st[at] as usize).checked_sub(1)
        };
        for k in 0..n {
            let status = self.child(first + k, running != Some(k));
            if status == go_on {
                if running == Some(k) {
                    running = None;
                }
                continue;
            }
            if let Some(r) = running
                && k < r
            {
                self.abort(first + r);
            }
            if status == Status::Running {
                self.st[at] = k as u32 + 1;
            }
            return status;
        }
        go_on
    }

    /// Parallel. State: a "finished" bit per child, then a "succeeded" bit
    /// per child, 32 to a word.
    #[inline(always)]
    fn parallel(
        &mut self,
        node: &Node<L>,
        fresh: bool,
        success: Policy,
        failure: Policy,
    ) -> Status {
        let (first, n, at) = (node.first as usize, node.count as usize, node.at as usize);
        let words = n.div_ceil(32);
        if fresh {
            self.st[at..at + 2 * words].fill(0);
        }
        let (mut succeeded, mut failed) = (0, 0);
        let mut decided = None;
        let mut visited = n;
        for k in 0..n {
            let (word, bit) = (at + k / 32, 1u32 << (k % 32));
            let status = if self.st[word] & bit != 0 {
                if self.st[word + words] & bit != 0 {
                    Status::Success
                } else {
                    Status::Failure
                }
            } else {
                let status = self.child(first + k, fresh);
                if status != Status::Running {
                    self.st[word] |= bit;
                    if status == Status::Success {
                        self.st[word + words] |= bit;
                    }
                }
                status
            };
            let one = match status {
                Status::Running => continue,
                Status::Success => {
                    succeeded += 1;
                    success == Policy::One
                }
                Status::Failure => {
                    failed += 1;
                    failure == Policy::One
                }
            };
            if one {
                decided = Some(status);
                visited = k + 1;
                break;
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
                // Children after the deciding one were never started if the
                // parallel started on this update.
                self.abort_parallel(node, if fresh { visited } else { n });
                status
            }
            None => Status::Running,
        }
    }

    /// Abort the running children among the first `upto` of a Parallel.
    #[inline(never)]
    fn abort_parallel(&mut self, node: &Node<L>, upto: usize) {
        let (first, at) = (node.first as usize, node.at as usize);
        for k in 0..upto {
            if self.st[at + k / 32] & (1 << (k % 32)) == 0 {
                self.abort(first + k);
            }
        }
    }

    /// Repeat (`counts` = Success) and Retry (`counts` = Failure). State:
    /// completed cycles, and whether the child is running.
    #[inline(always)]
    fn repeat(&mut self, node: &Node<L>, fresh: bool, times: u32, counts: Status) -> Status {
        let (first, at) = (node.first as usize, node.at as usize);
        let (cycles, installed) = if fresh {
            (0, false)
        } else {
            (self.st[at], self.st[at + 1] != 0)
        };
        let status = self.child(first, !installed);
        if status == Status::Running {
            self.st[at] = cycles;
            self.st[at + 1] = 1;
            return Status::Running;
        }
        if status != counts {
            return status;
        }
        let cycles = cycles + 1;
        if cycles >= times {
            return status;
        }
        self.st[at] = cycles;
        self.st[at + 1] = 0;
        Status::Running
    }

    #[inline(always)]
    fn timeout(&mut self, node: &Node<L>, fresh: bool, ticks: u32) -> Status {
        let first = node.first as usize;
        if self.since_entry(node.at as usize, fresh) >= ticks {
            // Not on the first update (ticks ≥ 1): the child is running.
            self.abort(first);
            return Status::Failure;
        }
        self.child(first, fresh)
    }

    /// Cooldown. Its word, kept across activations: the tick it may be
    /// entered again (0: any time).
    #[inline(always)]
    fn cooldown(&mut self, node: &Node<L>, fresh: bool, ticks: u32) -> Status {
        let at = node.at as usize;
        if fresh {
            let ready_at = self.st[at];
            if ready_at != 0 && (self.cx.tick.wrapping_sub(ready_at) as i32) < 0 {
                return Status::Failure;
            }
        }
        let status = self.child(node.first as usize, fresh);
        if status != Status::Running {
            self.st[at] = ready_at(self.cx.tick, ticks);
        }
        status
    }

    /// Ticks since a Wait or Timeout was entered; its word is the tick of
    /// entry, written on its first update.
    #[inline(always)]
    fn since_entry(&mut self, at: usize, fresh: bool) -> u32 {
        if fresh {
            self.st[at] = self.cx.tick;
            return 0;
        }
        self.cx.tick.wrapping_sub(self.st[at])
    }

    /// Abort running node `i`: its running children first (deepest first),
    /// then itself.
    #[inline(never)]
    pub(super) fn abort(&mut self, i: usize) {
        let nodes = self.nodes;
        let node = &nodes[i];
        let (first, at) = (node.first as usize, node.at as usize);
        match node.op {
            Op::Sequence | Op::Selector | Op::SequenceWithMemory => {
                self.abort(first + self.st[at] as usize)
            }
            Op::RunOnce(_) => self.abort(first),
            Op::ReactiveSequence | Op::ReactiveSelector => {
                if let Some(r) = (self.st[at] as usize).checked_sub(1) {
                    self.abort(first + r);
                }
            }
            Op::Parallel { .. } => self.abort_parallel(node, node.count as usize),
            Op::Shuffle { .. } => {
                let child = self.st[at + 1 + self.st[at] as usize] as usize;
                self.abort(first + child)
            }
            Op::Repeat(_) | Op::Retry(_) => {
                if self.st[at + 1] != 0 {
                    self.abort(first);
                }
            }
            Op::Inverter
            | Op::ForceSuccess
            | Op::ForceFailure
            | Op::Guard(_)
            | Op::ReactiveGuard(_)
            | Op::Timeout(_) => self.abort(first),
            Op::Cooldown(ticks) => {
                self.abort(first);
                self.st[at] = ready_at(self.cx.tick, ticks);
            }
            Op::Wait(_)
            | Op::Random(_)
            | Op::AlwaysSuccess
            | Op::AlwaysFailure
            | Op::AlwaysRunning
            | Op::Action(_)
            | Op::Condition(_) => {}
        }
        self.trace.event(i, EventKind::Abort);
    }
}

/// The tick a Cooldown whose child ended at `tick` may be entered again.
#[inline(always)]
fn ready_at(tick: u32, ticks: u32) -> u32 {
    tick.wrapping_add(ticks).wrapping_add(1).max(1)
}
