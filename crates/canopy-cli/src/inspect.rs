//! `canopy snapshot inspect`: what each saved agent was in the middle of,
//! one line per running path, for people.
//!
//! ```text
//! agent 3 (tick 12): sentry > patrol [running child 2 of 3] > walk to post A [2 ticks left]
//! ```
//!
//! The view is the engine's own ([`Agent::running`]): the running tasks in
//! tree order with their depth, each with its state in words. Below a
//! Parallel several tasks run side by side; each path from the root to a
//! task with no running child gets its own line, so every line reads as
//! one chain and can be grepped by agent. Names come from the tree file
//! and states from node code, so both are escaped, and a state is cut
//! after [`MAX_STATE_CHARS`] characters.

use std::io::{self, Write};

use canopy_core::{Agent, Tree, inspect::TaskView};
use canopy_data::escape;

/// The most characters of a task's state a line shows.
const MAX_STATE_CHARS: usize = 80;

/// One or more lines per agent: see the [module docs](self).
pub(crate) fn write<A, W>(
    tree: &Tree<A, W>,
    agents: &[Agent],
    out: &mut dyn Write,
) -> io::Result<()> {
    for agent in agents {
        let label = format!("agent {} (tick {})", agent.id(), agent.ticks());
        let tasks = agent.running(tree);
        if tasks.is_empty() {
            writeln!(out, "{label}: not running")?;
            continue;
        }
        for path in paths(&tasks) {
            let steps: Vec<String> = path.iter().map(|task| step(tree, task)).collect();
            writeln!(out, "{label}: {}", steps.join(" > "))?;
        }
    }
    Ok(())
}

/// Every path from the root to a task with no running child, in tree
/// order. `tasks` is in tree order with depths, as [`Agent::running`] gives
/// them, so a task's ancestors are the last tasks seen at each lesser depth.
fn paths(tasks: &[TaskView]) -> Vec<Vec<&TaskView>> {
    let mut stack: Vec<&TaskView> = Vec::new();
    let mut paths = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        stack.truncate(task.depth);
        stack.push(task);
        let has_child = tasks.get(i + 1).is_some_and(|next| next.depth > task.depth);
        if !has_child {
            paths.push(stack.clone());
        }
    }
    paths
}

/// `name [state]`, or the name alone when the task has nothing to say.
fn step<A, W>(tree: &Tree<A, W>, task: &TaskView) -> String {
    let name = escape(tree.node(task.node).name()).into_owned();
    if task.state.is_empty() {
        return name;
    }
    let state = escape(&task.state);
    let count = state.chars().count();
    if count <= MAX_STATE_CHARS {
        format!("{name} [{state}]")
    } else {
        let head: String = state.chars().take(MAX_STATE_CHARS).collect();
        format!("{name} [{head}… ({count} characters)]")
    }
}
