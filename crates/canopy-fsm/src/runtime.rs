//! The hook order, in one place: starting, updating, sending a trigger,
//! stopping.
//!
//! The engine works on a borrowed `Run` — the active path, the data bytes
//! and the tree runtimes of one agent — rather than on an owned agent, so
//! the same code drives an [`FsmAgent`](crate::FsmAgent) (boxed slices
//! sized for the machine) and a [`MachineLeaf`](crate::MachineLeaf) (fixed
//! arrays inside a behavior-tree task).
//!
//! The contract (the tests in `tests/flat.rs`, `tests/hierarchy.rs` and
//! `tests/hybrids.rs` check each line against exact hook traces, and
//! `tests/differential.rs` against a recursive reference on random machines):
//!
//! - **start**: the top-level start state, then its child machine's start
//!   state, and so on down; enter hooks run outermost first.
//! - **update**: active states update outermost first. When an update
//!   hook returns a trigger, the trigger is sent at once, as below. If a
//!   state takes it, the pass ends there: the active path has changed under
//!   it, and the states just entered have not been updated. If no state
//!   takes it, nothing has changed and the pass goes on inwards, exactly as
//!   if no trigger had been returned. Then the status is computed.
//! - **send**: the active states are asked outermost first; the first one
//!   with a transition on the trigger takes it. None has one: nothing runs
//!   and the send reports `false`.
//! - **transition** at level *k* (where the source's and target's paths part;
//!   for a self-transition, or one to an ancestor or descendant, the
//!   shallower of the two): active states at level *k* and deeper exit,
//!   innermost first; then the target's path from level *k* down to the
//!   target, and the target's start descendants, enter outermost first. A
//!   self-transition thus exits and re-enters the state and restarts its
//!   child machine.
//! - **stop**: every active state exits, innermost first.
//! - **status**: `Success` or `Failure` if an active state is final (the
//!   outermost such state decides), else `Running`. A final state inside a
//!   child machine thus ends the whole machine: it is how a
//!   [`MachineLeaf`](crate::MachineLeaf) learns that its machine is done.
//!
//! Indexing here cannot go out of bounds, by construction: a path holds
//! [`Machine::depth`] states (checked against the leaf's capacity by
//! [`MachineLeaf::new`](crate::MachineLeaf::new)), the data bytes
//! [`Machine::data_bytes`], the tree runtimes one per tree state, and
//! every id, offset and level in the machine was laid out by the builder
//! for exactly these sizes. An agent used with a machine it was not made
//! for is refused before it gets here (see [`FsmAgent`](crate::FsmAgent)).

use canopy_core::{Agent, Ctx, Status};

use crate::machine::{Body, Machine, StateId};

/// One agent's machine state, borrowed for one call.
pub(crate) struct Run<'r> {
    /// `path[..len]` are the active states, top level first; `len == 0`: stopped.
    pub(crate) path: &'r mut [StateId],
    pub(crate) len: &'r mut u16,
    pub(crate) data: &'r mut [u8],
    pub(crate) trees: &'r mut [Agent],
    /// World ticks since the last update, passed on to the trees of tree
    /// states (1 unless the machine is updated less often than the world).
    pub(crate) elapsed: u32,
}

impl<A, W, T: Copy + Eq> Machine<A, W, T> {
    /// Enter the start configuration if stopped.
    pub(crate) fn run_start(&self, run: &mut Run<'_>, cx: &mut Ctx<A, W>) {
        if *run.len == 0 {
            self.enter_path(run, self.start, 0, cx);
        }
    }

    /// One update pass, then the status.
    pub(crate) fn run_update(&self, run: &mut Run<'_>, cx: &mut Ctx<A, W>) -> Status {
        self.run_start(run, cx);
        let mut level = 0;
        while level < *run.len as usize {
            let state = run.path[level];
            let fired = self.update_state(run, state, cx);
            if fired.is_some_and(|trigger| self.run_send(run, trigger, cx)) {
                break;
            }
            level += 1;
        }
        self.run_status(run)
    }

    /// Offer `trigger` to the active states, outermost first.
    pub(crate) fn run_send(&self, run: &mut Run<'_>, trigger: T, cx: &mut Ctx<A, W>) -> bool {
        self.run_start(run, cx);
        for level in 0..*run.len as usize {
            let state = run.path[level];
            let found = self
                .transitions_of(state.0)
                .iter()
                .find(|t| t.trigger == trigger);
            if let Some(t) = found {
                let (to, level) = (t.to, t.level as usize);
                self.exit_below(run, level, cx);
                self.enter_path(run, to, level, cx);
                return true;
            }
        }
        false
    }

    /// Exit every active state, innermost first.
    pub(crate) fn run_stop(&self, run: &mut Run<'_>, cx: &mut Ctx<A, W>) {
        self.exit_below(run, 0, cx);
    }

    /// The outcome of the outermost active final state, else `Running`.
    pub(crate) fn run_status(&self, run: &Run<'_>) -> Status {
        self.status_of(&run.path[..*run.len as usize])
    }

    /// The outcome of the outermost final state on an active path, else `Running`.
    pub(crate) fn status_of(&self, active: &[StateId]) -> Status {
        active
            .iter()
            .find_map(|&s| self.def(s).outcome)
            .unwrap_or(Status::Running)
    }

    /// Exit active states at `level` and deeper, innermost first.
    fn exit_below(&self, run: &mut Run<'_>, level: usize, cx: &mut Ctx<A, W>) {
        while *run.len as usize > level {
            let state = run.path[*run.len as usize - 1];
            self.exit_state(run, state, cx);
            *run.len -= 1;
        }
    }

    /// Make `target` active with the active path kept above `level`: write
    /// the target's ancestors from `level` down, then its start
    /// descendants, and enter them outermost first.
    fn enter_path(&self, run: &mut Run<'_>, target: StateId, level: usize, cx: &mut Ctx<A, W>) {
        let mut state = Some(target);
        while let Some(s) = state {
            let def = self.def(s);
            if (def.level as usize) < level {
                break;
            }
            run.path[def.level as usize] = s;
            state = def.parent;
        }
        let mut len = self.def(target).level as usize + 1;
        let mut state = target;
        while let Some(initial) = self.def(state).initial {
            run.path[len] = initial;
            len += 1;
            state = initial;
        }
        for at in level..len {
            let state = run.path[at];
            self.enter_state(run, state, cx);
            // Grown one state at a time: if a hook panics, the path holds
            // exactly the states that were entered.
            *run.len = at as u16 + 1;
        }
    }

    fn enter_state(&self, run: &mut Run<'_>, state: StateId, cx: &mut Ctx<A, W>) {
        let def = self.def(state);
        match &def.body {
            Body::Hooks(hooks) => hooks.enter(data(run, def.offset, def.size), cx),
            // The tree runtime was reset when the state last exited.
            Body::Tree(_) => {}
        }
    }

    fn update_state(&self, run: &mut Run<'_>, state: StateId, cx: &mut Ctx<A, W>) -> Option<T> {
        let def = self.def(state);
        match &def.body {
            Body::Hooks(hooks) => hooks.update(data(run, def.offset, def.size), cx),
            Body::Tree(t) => {
                let tree = &mut run.trees[t.slot as usize];
                match tree.tick_elapsed(&t.tree, cx.agent, cx.world, run.elapsed) {
                    Status::Running => None,
                    Status::Success => t.on_success,
                    Status::Failure => t.on_failure,
                }
            }
        }
    }

    fn exit_state(&self, run: &mut Run<'_>, state: StateId, cx: &mut Ctx<A, W>) {
        let def = self.def(state);
        match &def.body {
            Body::Hooks(hooks) => hooks.exit(data(run, def.offset, def.size), cx),
            Body::Tree(t) => run.trees[t.slot as usize].reset(&t.tree, cx.agent, cx.world),
        }
    }
}

fn data<'d>(run: &'d mut Run<'_>, offset: u32, size: u32) -> &'d mut [u8] {
    &mut run.data[offset as usize..(offset + size) as usize]
}
