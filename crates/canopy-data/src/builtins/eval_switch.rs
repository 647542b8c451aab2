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
    Arity, Children, Ctx, CustomNode, Node, NodeKind, Params, Status, Task, params::NodeParams,
    params::ParamError,
};

use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};
use crate::scripts::{Cell, Operand, ScriptShape, Source};

/// A value that is no case and never matches: the NUL character, which no
/// XML attribute holds (the XML reader writes it for a `case_N` left out,
/// as BehaviorTree.CPP skips a case it cannot read).
pub(crate) const NO_CASE: &str = "\u{0}";

/// Most cases a switch takes.
pub(crate) const MAX_CASES: usize = 64;

/// Runs the child of the first true case, else the last; decides again every tick.
#[derive(Params)]
pub(crate) struct SwitchParams {
    /// condition scripts, one per child but the last, which runs when none is true
    #[param(len = 1..=MAX_CASES)]
    cases: Option<Vec<String>>,
    /// instead of cases: a key ({key}) or a text, compared with each of values as
    /// BehaviorTree.CPP's Switch compares (as text, else as numbers)
    variable: Option<String>,
    /// with variable: one text or {key} per child but the last; never code (\u0000: no case)
    #[param(len = 1..=MAX_CASES)]
    values: Option<Vec<String>>,
}

/// The node type.
pub(crate) fn node_type<A: 'static, W: 'static>() -> NodeType<A, W> {
    NodeType::resolved(
        super::EvalKind::Switch.name(),
        SwitchParams::description(),
        Arity::Composite,
        SwitchParams::declare(),
        EvalSwitch,
    )
}

/// `EvalSwitch` as the loader builds it: its `cases` scripts, or its
/// `variable` compared with each of its `values` as BehaviorTree.CPP's
/// `Switch` does.
struct EvalSwitch;

impl<A: 'static, W: 'static> Resolve<A, W> for EvalSwitch {
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let p = SwitchParams::from_params(params).map_err(|e| at.invalid(e))?;
        let Some(variable) = p.variable else {
            let cases = p.cases.unwrap_or_default();
            let (cells, shown) = at.scripts("cases", &cases, ScriptShape::Condition);
            return Ok(node(cells, shown).into());
        };
        let variable = Operand::of(&variable, "variable");
        let Some(values) = p.values else {
            let absent = ParamError::Absent {
                param: "values".to_string(),
            };
            return Err(at.invalid(absent));
        };
        let mut cells = Vec::with_capacity(values.len());
        let mut shown = Vec::with_capacity(values.len());
        for (i, case) in values.iter().enumerate() {
            // A case not given never matches, as BehaviorTree.CPP skips a
            // case it cannot read.
            let source = match case.as_str() {
                NO_CASE => Source::Code("false".to_string()),
                case => Source::Case {
                    variable: variable.clone(),
                    case: Operand::of(case, "values"),
                },
            };
            shown.push(source.shown());
            cells.push(at.script(format!("values[{i}]"), source, ScriptShape::Condition));
        }
        Ok(node(cells, shown.join("; ")).into())
    }
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
        super::EvalKind::Switch.name()
    }

    fn arity(&self) -> Arity {
        Arity::Composite
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("cases".to_string(), self.sources.clone())]
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
