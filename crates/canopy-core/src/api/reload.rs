//! Hot reload: moving a running agent onto an edited version of its tree.
//! The rules are on [`Agent::reload`](crate::Agent::reload).

use crate::api::agent::Agent;
use crate::def::kind::Carry;
use crate::def::observer::{Event, EventKind, Observer};
use crate::engine::runner::Runner;
use crate::engine::walk::{self, Invalid, Running};
use crate::nodes;
use crate::state::waits::Waits;
use crate::tree::layout::TaskLocation;
use crate::tree::{NodeDef, Tree};
use crate::util::primitives::NodeId;

/// What a [`reload`](Agent::reload) kept and aborted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reload {
    /// The running tasks that went on with their state: their nodes in
    /// the new tree, root first, in tree order.
    pub kept: Vec<NodeId>,
    /// The running tasks that were aborted: their nodes in the old tree,
    /// in the order they were aborted (deepest first).
    pub aborted: Vec<NodeId>,
}

/// One running task of the old tree, and where it went.
struct Task {
    old: Running,
    /// Its parent's index in the list of running tasks.
    parent: Option<usize>,
    /// Its position in the old tree, for aborting it.
    old_at: TaskLocation,
    /// Its node and position in the new tree, if found there.
    new: Option<(u32, usize, TaskLocation)>,
    /// It goes on with its state.
    kept: bool,
}

/// What a node is found by: its name and type.
fn key<A, W>(tree: &Tree<A, W>, id: u32) -> (&str, &str) {
    let node = tree.node(NodeId(id));
    (node.name(), node.type_name())
}

/// Which new child each old child of a found node matches.
fn match_children<A, W>(
    old: &Tree<A, W>,
    o: &NodeDef<A, W>,
    new: &Tree<A, W>,
    n: &NodeDef<A, W>,
) -> Vec<Option<u32>> {
    let new_edges = new.edges_of(n);
    let mut taken = vec![false; new_edges.len()];
    old.edges_of(o)
        .iter()
        .map(|e| {
            let want = key(old, e.node());
            let j = (0..new_edges.len())
                .find(|&j| !taken[j] && key(new, new_edges[j].node()) == want)?;
            taken[j] = true;
            Some(j as u32)
        })
        .collect()
}

/// Same kind, same memory for its task: its state can be carried over.
fn same_shape<A, W>(old: &Tree<A, W>, o: u32, new: &Tree<A, W>, n: u32) -> bool {
    let (a, b) = (old.def(o), new.def(n));
    old.node(NodeId(o)).type_name() == new.node(NodeId(n)).type_name()
        && (a.own, a.slot_plan, a.sched) == (b.own, b.slot_plan, b.sched)
        && nodes::stateless(&a.kind).is_some() == nodes::stateless(&b.kind).is_some()
}

/// A recording observer: the aborts, passed on to the caller's.
struct Aborts<'a, O> {
    inner: O,
    aborted: &'a mut Vec<NodeId>,
}

impl<O: Observer> Observer for Aborts<'_, O> {
    fn event(&mut self, event: Event) {
        if event.kind == EventKind::Abort {
            self.aborted.push(event.node);
        }
        // An observer saying `false` is never called.
        if self.inner.observes() {
            self.inner.event(event);
        }
    }

    fn wait_aborted(&mut self, node: NodeId, ticket: crate::Ticket) {
        self.inner.wait_aborted(node, ticket);
    }
}

impl Agent {
    /// Move this agent, running `old`, onto `new` (an edited version of
    /// it), keeping what it can (below). Takes the agent data and world
    /// because abort hooks may use them.
    ///
    /// # The matching rule
    ///
    /// A node of the old tree is *found* in the new tree by its path from the
    /// root: the root matches the new root if both have the same name and
    /// type; a child of a found node matches the first child of its
    /// counterpart, not yet matched, with the same name and type (so inserting,
    /// removing or reordering siblings does not lose the others). A running
    /// task **keeps its state** when its node is found, has the same type and
    /// the same task layout (state size, how its children share memory), its
    /// state still makes sense for the new node (a Repeat's count below its new
    /// `times`, say), and its parent keeps its state too. Parameters come from
    /// the new tree: a Wait whose `ticks` changed keeps its start tick and ends
    /// at the new duration.
    ///
    /// Every other running task is **aborted**, deepest first, with its
    /// terminate hooks (`Exit::Aborted`), on the old tree. Its parent, if it
    /// keeps its state, sees it as not running: a Sequence or Selector enters
    /// the child now at that place (just after the last earlier sibling still
    /// there) on its next update, a reactive node re-checks from its first
    /// child, a Parallel enters it afresh, a Repeat or Retry re-enters its child
    /// for the same cycle, a user node sees [`Children::is_running`] false; a
    /// decorator, whose one child is what it runs, is lost with it. Cooldown
    /// ends are kept for cooldowns that are found. An identical tree changes
    /// nothing observable; a removed branch aborts exactly that branch.
    ///
    /// [`Children::is_running`]: crate::Children::is_running
    ///
    /// # Example
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<(), ()>::new();
    /// let old = b.build(b.sequence("day", [b.wait("sleep", 5), b.wait("eat", 2)])).unwrap();
    /// let b = Builder::<(), ()>::new();
    /// let new = b.build(b.sequence("day", [b.always_success("wake"), b.wait("sleep", 3), b.wait("eat", 2)])).unwrap();
    /// let mut agent = Agent::new(&old);
    /// agent.tick(&old, &mut (), &());
    /// let report = agent.reload(&old, &new, &mut (), &());
    /// assert!(report.aborted.is_empty());
    /// assert_eq!(report.kept.len(), 2); // the sequence and "sleep", now its second child
    /// assert_eq!(agent.tick(&new, &mut (), &()), Status::Running);
    /// assert_eq!(agent.tick(&new, &mut (), &()), Status::Running); // slept 2 of 3 ticks
    /// assert_eq!(agent.tick(&new, &mut (), &()), Status::Running); // on to "eat"
    /// ```
    ///
    /// # Panics
    /// As every method taking a tree, for `old` (see [`Agent`]).
    pub fn reload<A, W>(
        &mut self,
        old: &Tree<A, W>,
        new: &Tree<A, W>,
        agent: &mut A,
        world: &W,
    ) -> Reload {
        self.reload_observed(old, new, agent, world, ())
    }

    /// [`reload`](Agent::reload), reporting the aborts to `observer`.
    pub fn reload_observed<A, W, O: Observer>(
        &mut self,
        old: &Tree<A, W>,
        new: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        observer: O,
    ) -> Reload {
        self.check_usable(old);
        let mut tasks = self.running_tasks(old);
        place_in_new_tree(&mut tasks, old, new);
        let mut mem = vec![0; new.task_memory()].into_boxed_slice();
        decide_and_carry(&mut tasks, old, new, &self.mem, &mut mem);
        let mut report = Reload::default();
        self.abort_lost(
            &tasks,
            old,
            agent,
            world,
            Aborts {
                inner: observer,
                aborted: &mut report.aborted,
            },
        );
        carry_persist(old, new, &self.mem, &mut mem, self.tick);
        carry_board(old, new, &self.mem, &mut mem);
        if let Some(extra) = self.extra.as_deref_mut() {
            renumber_waits(&tasks, new, &mem, &mut extra.waits);
        }
        report.kept = tasks
            .iter()
            .filter(|t| t.kept)
            .filter_map(|t| t.new.map(|(n, ..)| NodeId(n)))
            .collect();
        let root_kept = tasks.first().is_some_and(|t| t.kept);
        self.adopt(new, mem, root_kept);
        report
    }

    /// The running tasks, root first, with their parents and positions.
    fn running_tasks<A, W>(&self, tree: &Tree<A, W>) -> Vec<Task> {
        let mut tasks: Vec<Task> = Vec::new();
        let mut path: Vec<usize> = Vec::new();
        if self.is_running() {
            let walked = walk::running::<_, _, Invalid>(tree, &self.mem, &mut |task, _| {
                path.truncate(task.depth as usize);
                let parent = path.last().copied();
                let old_at = match parent {
                    None => TaskLocation::ROOT,
                    Some(p) => {
                        let up = &tasks[p];
                        up.old_at.child(
                            tree,
                            tree.def(up.old.node),
                            task.child as usize,
                            task.slot as usize,
                        )
                    }
                };
                path.push(tasks.len());
                tasks.push(Task {
                    old: *task,
                    parent,
                    old_at,
                    new: None,
                    kept: false,
                });
                Ok(())
            });
            debug_assert!(
                walked.is_ok(),
                "an agent's memory holds an invalid task state"
            );
        }
        tasks
    }

    /// Abort every task that is not kept but whose parent is (or the root),
    /// on the old tree, deepest first within each.
    fn abort_lost<A, W, O: Observer>(
        &mut self,
        tasks: &[Task],
        old: &Tree<A, W>,
        agent: &mut A,
        world: &W,
        obs: O,
    ) {
        let tops: Vec<&Task> = tasks
            .iter()
            .filter(|t| !t.kept && t.parent.is_none_or(|p| tasks[p].kept))
            .collect();
        if tops.is_empty() {
            return;
        }
        let (tick, id) = (self.tick, self.id());
        let (mem, board) = self.mem.split_at_mut(old.board_start());
        let mut cx = crate::Ctx {
            agent,
            world,
            tick,
            id,
            board: crate::Board::new(board, old.board.watches()),
        };
        let waits = self.extra.as_deref_mut().map(|e| &mut e.waits);
        let mut runner = Runner::new(old, mem, waits, obs);
        for top in tops {
            match top.parent {
                None => runner.abort_root(&mut cx),
                Some(p) => {
                    let parent = &tasks[p];
                    let def = old.def(parent.old.node);
                    runner.abort_child(
                        parent.old_at,
                        def,
                        top.old.child as usize,
                        top.old.slot as usize,
                        &mut cx,
                    );
                }
            }
        }
    }

    /// Take `mem`, laid out for `new`, as this agent's memory of `new`.
    fn adopt<A, W>(&mut self, new: &Tree<A, W>, mem: Box<[u8]>, root_running: bool) {
        self.mem = mem;
        self.set_root_running(new, root_running);
        if new.waits > 0 && self.extra.is_none() {
            self.extra = Some(crate::state::Extra::new(new.waits));
        }
        let mode = self.mode();
        self.set_mode(new, mode);
    }
}

/// A kept async leaf goes on waiting on the same wait, now as its node of
/// the new tree: so its tickets name that node, and a snapshot of the
/// agent (which checks that each waiting leaf holds a wait of its own
/// node) restores. Tickets issued before still complete it: a wait is
/// named by its table, index and generation.
fn renumber_waits<A, W>(tasks: &[Task], new: &Tree<A, W>, new_mem: &[u8], waits: &mut Waits) {
    for task in tasks.iter().filter(|t| t.kept) {
        let Some((node, _, at)) = task.new else {
            continue;
        };
        let def = new.def(node);
        let from = at.loc() as usize;
        let state = &new_mem[from..from + def.own as usize];
        if let Some(index) = nodes::waits_on(&def.kind, state)
            && let Some(entry) = waits.entries.get_mut(index as usize)
        {
            entry.node = node;
        }
    }
}

/// Find each running task's node in the new tree, top-down.
fn place_in_new_tree<A, W>(tasks: &mut [Task], old: &Tree<A, W>, new: &Tree<A, W>) {
    for i in 0..tasks.len() {
        let placed = match tasks[i].parent {
            None => (key(old, 0) == key(new, 0)).then_some((0, 0, TaskLocation::ROOT)),
            Some(p) => tasks[p].new.and_then(|(np, _, np_at)| {
                let to_new = match_children(old, old.def(tasks[p].old.node), new, new.def(np));
                let j = to_new[tasks[i].old.child as usize]? as usize;
                let child = new.edges_of(new.def(np))[j].node();
                let at = np_at.child(new, new.def(np), j, tasks[i].old.slot as usize);
                Some((child, j, at))
            }),
        };
        let shaped = placed.filter(|&(n, ..)| same_shape(old, tasks[i].old.node, new, n));
        tasks[i].new = shaped;
    }
}

/// Decide, children first, which tasks can carry their state over, and
/// write it into `new_mem`; then keep only those whose parents are kept.
fn decide_and_carry<A, W>(
    tasks: &mut [Task],
    old: &Tree<A, W>,
    new: &Tree<A, W>,
    old_mem: &[u8],
    new_mem: &mut [u8],
) {
    let mut ok = vec![false; tasks.len()];
    for i in (0..tasks.len()).rev() {
        let Some((n, _, new_at)) = tasks[i].new else {
            continue;
        };
        let (o_def, n_def) = (old.def(tasks[i].old.node), new.def(n));
        let mut kept = vec![false; o_def.child_count as usize];
        for (k, t) in tasks.iter().enumerate().skip(i + 1) {
            if t.parent == Some(i) {
                kept[t.old.child as usize] = ok[k];
            }
        }
        let to_new = match_children(old, o_def, new, n_def);
        let carry = Carry {
            to_new: &to_new,
            kept: &kept,
            new_children: n_def.child_count as usize,
        };
        let from = tasks[i].old.loc as usize;
        let to = new_at.loc() as usize;
        let old_state = &old_mem[from..from + o_def.own as usize];
        let new_state = &mut new_mem[to..to + n_def.own as usize];
        ok[i] = nodes::carry(&n_def.kind, old_state, new_state, &carry)
            && (nodes::stateless(&n_def.kind).is_some()
                || nodes::valid(&n_def.kind, new_state, n_def.child_count as usize));
    }
    for i in 0..tasks.len() {
        tasks[i].kept = ok[i] && tasks[i].parent.is_none_or(|p| tasks[p].kept);
    }
}

/// The blackboard: each key of the new tree that the old one had with the
/// same type keeps its value (and its update counter, where both count
/// it); the others start at their initial values, as in a new agent.
fn carry_board<A, W>(old: &Tree<A, W>, new: &Tree<A, W>, old_mem: &[u8], new_mem: &mut [u8]) {
    let (old_board, new_board) = (
        &old_mem[old.board_start()..],
        &mut new_mem[new.board_start()..],
    );
    new_board.copy_from_slice(&new.board.initial);
    for slot in new.board.slots() {
        let Some(was) = old.board.find(&slot.key).filter(|was| was.ty == slot.ty) else {
            continue;
        };
        let (from, to, size) = (was.offset as usize, slot.offset as usize, slot.ty.size());
        new_board[to..to + size].copy_from_slice(&old_board[from..from + size]);
    }
    // An update counter goes with its key's value, where both trees count it.
    for watch in new.board.watches() {
        let kept = |w: &&crate::util::board::Watch| {
            w.key == watch.key
                && old.board.find(&w.key).map(|s| &s.ty) == new.board.find(&w.key).map(|s| &s.ty)
        };
        let Some(was) = old.board.watches().iter().find(kept) else {
            continue;
        };
        let (from, to) = (was.counter as usize, watch.counter as usize);
        new_board[to..to + 4].copy_from_slice(&old_board[from..from + 4]);
    }
}

/// Persistent memory of every node found in the new tree, kept; of the
/// others, ticks (cooldown ends) "free now" and plain words zero, as in a
/// new agent.
fn carry_persist<A, W>(
    old: &Tree<A, W>,
    new: &Tree<A, W>,
    old_mem: &[u8],
    new_mem: &mut [u8],
    now: u32,
) {
    let (old_base, new_base) = (old.task_bytes as usize, new.task_bytes as usize);
    new_mem[new_base..].fill(0);
    for &at in &new.tick_words {
        let at = new_base + at as usize;
        new_mem[at..at + 4].copy_from_slice(&now.to_le_bytes());
    }
    if key(old, 0) != key(new, 0) {
        return;
    }
    // (old node, its persist offset, new node, its persist offset)
    let mut stack = vec![(0u32, 0usize, 0u32, 0usize)];
    while let Some((o, op, n, np)) = stack.pop() {
        let (o_def, n_def) = (old.def(o), new.def(n));
        let own_old = nodes::facts(&o_def.kind, o_def.child_count as usize).persist as usize;
        let own_new = nodes::facts(&n_def.kind, n_def.child_count as usize).persist as usize;
        if own_old == own_new && own_old > 0 && same_shape(old, o, new, n) {
            let from = old_base + op;
            new_mem[new_base + np..new_base + np + own_new]
                .copy_from_slice(&old_mem[from..from + own_old]);
        }
        let to_new = match_children(old, o_def, new, n_def);
        for (k, to) in to_new.iter().enumerate() {
            let Some(j) = *to else { continue };
            let (oe, ne) = (&old.edges_of(o_def)[k], &new.edges_of(n_def)[j as usize]);
            if old.info(oe.node()).persist_len > 0 && new.info(ne.node()).persist_len > 0 {
                stack.push((
                    oe.node(),
                    op + oe.persist() as usize,
                    ne.node(),
                    np + ne.persist() as usize,
                ));
            }
        }
    }
}
