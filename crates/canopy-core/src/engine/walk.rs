//! Which tasks of an agent are running, read from their state alone.
//!
//! The engine keeps no list of running tasks: a running task's state says
//! which of its children run (a Sequence's index, a Parallel's codes), so
//! the running tasks can be found by walking down from the root. That walk
//! serves counting ([`Agent::active_tasks`](crate::Agent::active_tasks)),
//! inspecting ([`Agent::running`](crate::Agent::running)), building the
//! event-driven schedule, and checking the memory of a restored agent
//! before anything runs on it — which is why it checks every state before
//! following it.

use crate::nodes;
use crate::tree::Tree;

/// One running task. The walk finds positions itself rather than through
/// `TaskLocation`, so that it can check each task's state before following it: it
/// reads memory that may not have been checked yet (a restored agent's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Running {
    pub(crate) node: u32,
    /// Levels below the root (the root is 0).
    pub(crate) depth: u32,
    /// Which child of its parent (0 for the root).
    pub(crate) child: u32,
    /// Which of its places in its parent it is installed in (0 for the root).
    pub(crate) slot: u32,
    /// Offset of its task memory.
    pub(crate) loc: u32,
    /// Offset of its persistent memory.
    pub(crate) persist: u32,
}

/// A task's state is not one its kind can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Invalid {
    pub(crate) node: u32,
}

/// Call `each` for every running task of the agent whose memory is `mem`,
/// root first, in tree order, given that its root runs. Stops at the first
/// error `each` returns or the first invalid state.
pub(crate) fn running<A, W, E: From<Invalid>>(
    tree: &Tree<A, W>,
    mem: &[u8],
    each: &mut impl FnMut(&Running, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let root = Running {
        node: 0,
        depth: 0,
        child: 0,
        slot: 0,
        loc: 0,
        persist: 0,
    };
    visit(tree, mem, root, each)
}

/// One task and, below it, its running children. Recursion is bounded by
/// the tree's depth (at most [`MAX_DEPTH`](crate::limits::MAX_DEPTH)).
fn visit<A, W, E: From<Invalid>>(
    tree: &Tree<A, W>,
    mem: &[u8],
    task: Running,
    each: &mut impl FnMut(&Running, &[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let def = tree.def(task.node);
    let start = task.loc as usize;
    let state = &mem[start..start + def.own as usize];
    let n = def.child_count as usize;
    if nodes::stateless(&def.kind).is_none() && !nodes::valid(&def.kind, state, n) {
        return Err(Invalid { node: task.node }.into());
    }
    each(&task, state)?;
    let mut from = 0;
    while let Some((child, slot)) = nodes::next_running(&def.kind, state, n, from) {
        let edge = &tree.edges_of(def)[child];
        let below = Running {
            node: edge.node(),
            depth: task.depth + 1,
            child: child as u32,
            slot: slot as u32,
            loc: task.loc + edge.place(slot),
            persist: task.persist + edge.persist(),
        };
        visit(tree, mem, below, each)?;
        from = child + 1;
    }
    Ok(())
}
