//! Looking inside one agent between ticks: which tasks run, and what each
//! is doing, in words. Nothing is recorded while the agent ticks; the view
//! is read from the agent's memory when asked for, so it costs nothing
//! when nobody looks.

use crate::api::agent::Agent;
use crate::nodes;
use crate::tree::Tree;

pub use crate::tree::NodeRef;
use crate::util::primitives::NodeId;

/// One running task of an agent, as [`Agent::running`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskView {
    /// The node whose task this is.
    pub node: NodeId,
    /// Levels below the root (the root is 0).
    pub depth: usize,
    /// Which child of its parent it is (0 for the root).
    pub child: usize,
    /// What the task is doing, in words: a Sequence's running child, a
    /// Wait's remaining ticks, a Repeat's count, what a user node's
    /// [`Node::describe`](crate::Node::describe) says; empty when there is
    /// nothing to say.
    pub state: String,
}

impl Agent {
    /// The tasks running for this agent now, root first, in tree order:
    /// the active path from the root (several paths below a Parallel).
    /// Empty when the root is not running.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("errand", [
    ///     b.always_success("look"),
    ///     b.repeat("thrice", 3, b.wait("nap", 5)),
    /// ])).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// for _ in 0..3 { agent.tick(&tree, &mut (), &()); }
    /// let running: Vec<(&str, String)> = agent.running(&tree).into_iter()
    ///     .map(|t| (tree.node(t.node).name(), t.state)).collect();
    /// assert_eq!(running, [
    ///     ("errand", "running child 2 of 2".to_string()),
    ///     ("thrice", "0 of 3 succeeded; child running".to_string()),
    ///     ("nap", "3 ticks left".to_string()),
    /// ]);
    /// ```
    ///
    /// # Panics
    /// As every method taking a tree: see [`Agent`].
    pub fn running<A, W>(&self, tree: &Tree<A, W>) -> Vec<TaskView> {
        let mut tasks = Vec::new();
        let now = self.ticks();
        self.walk(tree, |task, state| {
            let def = tree.def(task.node);
            tasks.push(TaskView {
                node: NodeId(task.node),
                depth: task.depth as usize,
                child: task.child as usize,
                state: nodes::describe(&def.kind, state, def.child_count as usize, now),
            });
        });
        tasks
    }
}
