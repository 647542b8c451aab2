//! `EvalLoop`: a decorator that runs one script of a list, then its
//! child, once per item — BehaviorTree.CPP's `LoopInt`, `LoopDouble`,
//! `LoopBool` and `LoopString` over a queue written in the file, whose XML
//! reader writes each item as the script `value := item`.
//!
//! As BehaviorTree.CPP's: on entry the queue starts again from its first
//! item; when the child is not running the next item is taken (its script
//! run) and the child ticked; a child Failure fails the loop, anything
//! else returns Running, and a tick that finds the queue empty returns
//! `if_empty` (Success, Failure or Running, which waits for ever) without
//! ticking the child. canopy's blackboard holds plain
//! values, not queues, so the queue is the node's list, not a key's —
//! a queue read from the blackboard (`queue="{q}"`) is refused at import.
//! Rejected: a SequenceWithMemory of assignments and the shared child,
//! which after a failure goes on where it failed instead of starting over.

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Node, NodeKind, Param, ParamKind, Status, Task,
};

use super::eval::Cell;
use crate::registry::{Build, NodeType, ScriptShape};

/// The parameter holding the item scripts.
pub(crate) const ITEMS: &str = "items";

/// The parameter saying what an empty queue returns.
pub(crate) const IF_EMPTY: &str = "if_empty";

/// Most items a loop takes.
pub(crate) const MAX_ITEMS: usize = 1024;

/// The node type.
pub(crate) fn node_type<A, W>() -> NodeType<A, W> {
    let items = Param::list(
        ITEMS,
        "scripts, one per item, each run before the child's run for that item",
        ParamKind::Text,
    )
    .len(0, MAX_ITEMS);
    let if_empty = Param::choice(
        IF_EMPTY,
        "what a tick returns once every item has been taken",
        &["success", "failure", "running"],
    )
    .default("success");
    NodeType::with_build(
        "EvalLoop",
        "Runs an item's script, then the child, item after item; Running until the list is done.",
        Arity::Decorator,
        vec![items, if_empty],
        Build::Script(ScriptShape::Loop),
    )
}

/// The node: its items' cells in order, their sources as shown, and what
/// an empty queue returns.
pub(crate) fn node<A: 'static, W: 'static>(
    cells: Vec<Cell>,
    sources: String,
    if_empty: Status,
) -> NodeKind<A, W> {
    NodeKind::Custom(CustomNode::new(Loop {
        cells,
        sources,
        if_empty,
    }))
}

struct Loop {
    cells: Vec<Cell>,
    sources: String,
    if_empty: Status,
}

/// Items taken since the loop was entered.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Taken {
    items: u32,
}

impl<A: 'static, W: 'static> Node<A, W> for Loop {
    type Task = Taken;

    fn type_name(&self) -> &str {
        "EvalLoop"
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        let mut shown = vec![(ITEMS.to_string(), self.sources.clone())];
        match self.if_empty {
            Status::Success => {}
            Status::Failure => shown.push((IF_EMPTY.to_string(), "failure".to_string())),
            Status::Running => shown.push((IF_EMPTY.to_string(), "running".to_string())),
        }
        shown
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Taken {
        Taken { items: 0 }
    }

    fn update(
        &self,
        task: &mut Taken,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        if !children.is_running(0) {
            let Some(cell) = self.cells.get(task.items as usize) else {
                return self.if_empty;
            };
            task.items += 1;
            if let Some(script) = cell.get() {
                // An assignment the loader type-checked; a fault (a number
                // out of a slot's range) leaves the key as it was.
                let _ = script.run(&mut cx.board);
            }
        }
        match children.update(0, cx) {
            Status::Failure => Status::Failure,
            Status::Success | Status::Running => Status::Running,
        }
    }

    fn task_is_valid(&self, task: &Taken) -> bool {
        task.items as usize <= self.cells.len()
    }
}
