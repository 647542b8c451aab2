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
//!
//! **A queue on the blackboard** (`queue` and `value` instead of `items`):
//! a script fills the key by assigning a string (`q := '1;2;3'`), and
//! BehaviorTree.CPP 4.10's loop, entered, converts that string into a
//! queue of its own and pops that: the key keeps its string, a loop
//! entered again (after it finished, or was halted) starts over on the
//! string it finds then, and a string assigned while the loop runs is seen
//! at its next entry. canopy does the same: `queue` is a script naming a
//! string key (checked at load), whose string the node copies into its
//! task on entry ([`Text`], 31 bytes: sixteen one-digit items), cutting
//! each item from the front of its copy — no allocation. `value` is an
//! assignment (`x := 0`) whose key each item is written to, of the `item`
//! type, read as BehaviorTree.CPP's `convertFromString` reads it. An item
//! that does not read as that type fails the loop without ticking the
//! child, where BehaviorTree.CPP throws on entry. (BehaviorTree.CPP 4.8.2
//! popped the entry itself, so a halted loop went on with what was left;
//! 4.10, which canopy follows, does not.) Rejected: a queue slot type
//! (a new kind of slot for scripts, snapshots and the inspector to learn,
//! where a string already is what BehaviorTree.CPP users write).

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Node, NodeKind, ParamEnum, Params, Status, Task, Text,
    convert, params::NodeParams, params::ParamError, script::ScriptValue,
};

use super::eval_around::{SkipFlags, flag};
use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};
use crate::scripts::{Cell, ScriptShape, Source};

/// Most items a loop takes.
pub(crate) const MAX_ITEMS: usize = 1024;

/// What a tick returns once every item has been taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
pub(crate) enum IfEmpty {
    Success,
    Failure,
    Running,
}

/// Takes an item (its script, or the front of a queue string), then runs the child; Running until none is left.
#[derive(Params)]
pub(crate) struct LoopParams {
    /// scripts, one per item, each run before the child's run for that item
    #[param(len = 0..=MAX_ITEMS)]
    items: Option<Vec<String>>,
    /// instead of items: a script naming a string key, the queue (`1;2;3`), an item cut
    /// from its front at each turn
    queue: Option<String>,
    /// with queue: an assignment (`x := 0`) whose key each item is written to
    value: Option<String>,
    /// with queue: what an item must read as
    #[param(default = Item::Number)]
    item: Item,
    /// what a tick returns once every item has been taken
    #[param(default = IfEmpty::Success)]
    if_empty: IfEmpty,
    /// a bool key set when an empty queue's status is a skip, for the node around it
    skips_into: Option<String>,
}

/// The node type.
pub(crate) fn node_type<A: 'static, W: 'static>() -> NodeType<A, W> {
    NodeType::resolved(
        super::EvalKind::Loop.name(),
        LoopParams::description(),
        Arity::Decorator,
        LoopParams::declare(),
        EvalLoop,
    )
}

/// `EvalLoop` as the loader builds it: over its items' scripts, or over
/// the queue string its `queue` script names, each item assigned by its
/// `value` script.
struct EvalLoop;

impl<A: 'static, W: 'static> Resolve<A, W> for EvalLoop {
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let p = LoopParams::from_params(params).map_err(|e| at.invalid(e))?;
        let if_empty = match p.if_empty {
            IfEmpty::Success => Status::Success,
            IfEmpty::Failure => Status::Failure,
            IfEmpty::Running => Status::Running,
        };
        let Some(queue) = p.queue else {
            let items = p.items.unwrap_or_default();
            let (cells, shown) = at.scripts("items", &items, ScriptShape::Leaf);
            let into = flag(at, "skips_into", p.skips_into.as_deref(), &mut Vec::new())?;
            let flags = SkipFlags { into, from: None };
            return Ok(node(cells, shown, if_empty, flags).into());
        };
        let absent = ParamError::Absent {
            param: "value".to_string(),
        };
        let assign = p.value.ok_or_else(|| at.invalid(absent))?;
        let item = p.item;
        let scripts = QueueScripts {
            queue: at.script("queue", Source::Code(queue.clone()), ScriptShape::Queue),
            value: at.script(
                "value",
                Source::Code(assign.clone()),
                ScriptShape::Assign(item.script_type()),
            ),
            item,
            shown: vec![("queue".to_string(), queue), ("value".to_string(), assign)],
        };
        let into = flag(at, "skips_into", p.skips_into.as_deref(), &mut Vec::new())?;
        let flags = SkipFlags { into, from: None };
        Ok(queue_node(scripts, if_empty, flags).into())
    }
}

/// The node: its items' cells in order, their sources as shown, and what
/// an empty queue returns.
pub(crate) fn node<A: 'static, W: 'static>(
    cells: Vec<Cell>,
    sources: String,
    if_empty: Status,
    flags: SkipFlags,
) -> NodeKind<A, W> {
    NodeKind::Custom(CustomNode::new(Loop {
        cells,
        sources,
        if_empty,
        flags,
    }))
}

struct Loop {
    cells: Vec<Cell>,
    sources: String,
    if_empty: Status,
    /// Set when `if_empty` is a skip.
    flags: SkipFlags,
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
        super::EvalKind::Loop.name()
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        let mut shown = vec![("items".to_string(), self.sources.clone())];
        match self.if_empty {
            Status::Success => {}
            Status::Failure => shown.push(("if_empty".to_string(), "failure".to_string())),
            Status::Running => shown.push(("if_empty".to_string(), "running".to_string())),
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
                self.flags.skipping(cx);
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

/// What the items of a queue string must read as: BehaviorTree.CPP's
/// `LoopInt`, `LoopDouble`, `LoopBool`, `LoopString`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
pub(crate) enum Item {
    Whole,
    Number,
    Bool,
    #[param(rename = "string")]
    Text,
}

impl Item {
    /// The type of a script value that is an item.
    pub(crate) fn script_type(self) -> canopy_core::script::ScriptType {
        match self {
            Item::Whole | Item::Number => canopy_core::script::ScriptType::Number,
            Item::Bool => canopy_core::script::ScriptType::Bool,
            Item::Text => canopy_core::script::ScriptType::Text,
        }
    }

    /// `text` as an item of this type, if it reads as one.
    fn read(self, text: &str) -> Option<ScriptValue> {
        match self {
            // As BehaviorTree.CPP's convertFromString reads each item of a
            // queue: an `int`, a `double`, a `bool`.
            Item::Whole => convert::text_to_int(text, i32::MIN.into(), i32::MAX.into())
                .ok()
                .map(|n| ScriptValue::Number(n as f64)),
            Item::Number => convert::text_to_f64(text)
                .ok()
                .filter(|x| x.is_finite())
                .map(ScriptValue::Number),
            Item::Bool => convert::text_to_bool(text).ok().map(ScriptValue::Bool),
            Item::Text => Some(ScriptValue::Text(Text::new(text))),
        }
    }
}

/// The scripts of a loop over a queue string: the key holding it, the
/// assignment of each item.
pub(crate) struct QueueScripts {
    pub(crate) queue: Cell,
    pub(crate) value: Cell,
    pub(crate) item: Item,
    /// The parameters as shown.
    pub(crate) shown: Vec<(String, String)>,
}

/// The node looping over the queue string its `queue` script names.
pub(crate) fn queue_node<A: 'static, W: 'static>(
    scripts: QueueScripts,
    if_empty: Status,
    flags: SkipFlags,
) -> NodeKind<A, W> {
    NodeKind::Custom(CustomNode::new(QueueLoop {
        scripts,
        if_empty,
        flags,
    }))
}

struct QueueLoop {
    scripts: QueueScripts,
    if_empty: Status,
    /// Set when `if_empty` is a skip.
    flags: SkipFlags,
}

/// What taking an item from the queue gave.
enum Took {
    Item,
    Empty,
    Unreadable,
}

/// The items not taken yet: a copy of the queue string, made when the loop
/// is entered (BehaviorTree.CPP 4.10 converts a string entry into a queue
/// of the loop's own on entry and pops that, leaving the entry as it was).
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Left {
    items: Text,
}

impl QueueLoop {
    /// The queue string, now.
    fn queue<A, W>(&self, cx: &mut Ctx<A, W>) -> Option<Text> {
        match self.scripts.queue.get()?.run(&mut cx.board) {
            Ok(ScriptValue::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// Cut the first item from the items left and assign it.
    fn take<A, W>(&self, left: &mut Left, cx: &mut Ctx<A, W>) -> Took {
        let Some(value) = self.scripts.value.get() else {
            return Took::Unreadable;
        };
        let all = left.items.as_str();
        if all.is_empty() {
            return Took::Empty;
        }
        let (first, rest) = all.split_once(';').unwrap_or((all, ""));
        let Some(item) = self.scripts.item.read(first) else {
            return Took::Unreadable;
        };
        let rest = Text::new(rest);
        if value.assign(&mut cx.board, item).is_err() {
            return Took::Unreadable;
        }
        left.items = rest;
        Took::Item
    }
}

impl<A: 'static, W: 'static> Node<A, W> for QueueLoop {
    type Task = Left;

    fn type_name(&self) -> &str {
        super::EvalKind::Loop.name()
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        let mut shown = self.scripts.shown.clone();
        if self.scripts.item != Item::Number {
            shown.push(("item".to_string(), self.scripts.item.word().to_string()));
        }
        match self.if_empty {
            Status::Success => {}
            Status::Failure => shown.push(("if_empty".to_string(), "failure".to_string())),
            Status::Running => shown.push(("if_empty".to_string(), "running".to_string())),
        }
        shown
    }

    fn create_task(&self, cx: &mut Ctx<A, W>) -> Left {
        Left {
            items: self.queue(cx).unwrap_or_default(),
        }
    }

    fn update(&self, left: &mut Left, cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        if !children.is_running(0) {
            match self.take(left, cx) {
                Took::Item => {}
                Took::Empty => {
                    self.flags.skipping(cx);
                    return self.if_empty;
                }
                Took::Unreadable => return Status::Failure,
            }
        }
        match children.update(0, cx) {
            Status::Failure => Status::Failure,
            Status::Success | Status::Running => Status::Running,
        }
    }
}
