//! `EvalSwitch`: a control that runs the child of the first case whose
//! script is true, the last child when none is — BehaviorTree.CPP's
//! `Switch2`…`Switch6`, whose XML reader writes each `case_N` as the
//! script `variable == case`.
//!
//! As BehaviorTree.CPP's, it decides again at every tick: a case that
//! changes while a child runs aborts that child and runs the new case's.
//! Cases are scripts, compiled with the file's other scripts (see
//! [`eval`](super::eval)), rather than values compared as text at run
//! time, so a case of the wrong type is refused when the tree is loaded.
//! Rejected: a ReactiveSelector of guarded branches, which would go on to
//! the next branch when a case's child fails.

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Node, NodeKind, Status, Task,
    params::{Param, ParamKind},
};

use super::eval::Cell;
use crate::registry::{Build, NodeType, ScriptShape};

/// The parameter holding the case scripts.
pub(crate) const CASES: &str = "cases";

/// Instead of `cases`: the key (`{key}`) or text compared with each of
/// [`VALUES`], as BehaviorTree.CPP's `Switch` compares its cases.
pub(crate) const VARIABLE: &str = "variable";

/// The values (texts, or `{key}`s) `variable` is compared with.
pub(crate) const VALUES: &str = "values";

/// A value that is no case and never matches: the NUL character, which no
/// XML attribute holds (the XML reader writes it for a `case_N` left out,
/// as BehaviorTree.CPP skips a case it cannot read).
pub(crate) const NO_CASE: &str = "\u{0}";

/// Most cases a switch takes.
pub(crate) const MAX_CASES: usize = 64;

/// The node type.
pub(crate) fn node_type<A, W>() -> NodeType<A, W> {
    let cases = Param::list(
        CASES,
        "condition scripts, one per child but the last, which runs when none is true",
        ParamKind::Text,
    )
    .len(1, MAX_CASES)
    .optional();
    let variable = Param::text(
        VARIABLE,
        "instead of cases: a key ({key}) or a text, compared with each of values as \
         BehaviorTree.CPP's Switch compares (as text, else as numbers)",
    )
    .optional();
    let values = Param::list(
        VALUES,
        "with variable: one text or {key} per child but the last; never code (\\u0000: no case)",
        ParamKind::Text,
    )
    .len(1, MAX_CASES)
    .optional();
    NodeType::with_build(
        "EvalSwitch",
        "Runs the child of the first true case, else the last; decides again every tick.",
        Arity::Composite,
        vec![cases, variable, values],
        Build::Script(ScriptShape::Switch),
    )
}

/// The node, its cases' cells in order, and their sources as shown.
pub(crate) fn node<A: 'static, W: 'static>(cells: Vec<Cell>, sources: String) -> NodeKind<A, W> {
    NodeKind::Custom(CustomNode::new(Switch { cells, sources }))
}

struct Switch {
    cells: Vec<Cell>,
    sources: String,
}

/// The child left running, plus one (0: none).
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Running {
    child: u32,
}

impl Switch {
    /// The child to run now: the first true case's, else the last child.
    /// A case past the children, or one whose script faults, is false.
    fn pick<A, W>(&self, cx: &mut Ctx<A, W>, children: usize) -> usize {
        let default = children.saturating_sub(1);
        self.cells
            .iter()
            .take(default)
            .position(|cell| {
                cell.get()
                    .is_some_and(|s| s.run(&mut cx.board).is_ok_and(|v| v.is_true()))
            })
            .unwrap_or(default)
    }
}

impl<A: 'static, W: 'static> Node<A, W> for Switch {
    type Task = Running;

    fn type_name(&self) -> &str {
        "EvalSwitch"
    }

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![(CASES.to_string(), self.sources.clone())]
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Running {
        Running { child: 0 }
    }

    fn update(
        &self,
        task: &mut Running,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        if children.is_empty() {
            return Status::Failure;
        }
        let pick = self.pick(cx, children.len());
        let before = task.child as usize;
        if before != 0 && before - 1 != pick && children.is_running(before - 1) {
            children.abort(before - 1, cx);
        }
        let status = children.update(pick, cx);
        task.child = match status {
            Status::Running => pick as u32 + 1,
            _ => 0,
        };
        status
    }

    fn task_is_valid(&self, task: &Running) -> bool {
        task.child as usize <= self.cells.len() + 1
    }
}
