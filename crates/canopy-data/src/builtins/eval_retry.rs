//! `EvalRetry`: a `Retry` that retries only while a script over the
//! blackboard holds — "try the door again while it is not barred", "grasp
//! again while the object is still seen, at most five times". The script
//! is tested after each failure of the child, not while the child runs: an
//! attempt under way is never cut short (that is `EvalAround`'s `while`),
//! and a failure the script no longer excuses fails the node at once
//! instead of spending the attempts left.
//!
//! As canopy's `Retry`: one attempt per tick at most (a failed attempt is
//! retried at the next tick), a Success succeeds, and after `times`
//! attempts in all the last failure is the node's. Rejected: a `Retry`
//! inside an `EvalGuard`, which tests the script once, on entry, and so
//! retries after the condition has gone; and a Sequence of an
//! `EvalCondition` and the child inside a `Retry`, which counts the
//! condition's failure as an attempt and ends with it, both hiding why.

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Node, NodeKind, Params, Status, Task, params::NodeParams,
};

use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};
use crate::scripts::{Cell, ScriptShape, Source};

/// Re-runs a failing child on the next tick while a script holds, up to `times` attempts.
#[derive(Params)]
struct RetryParams {
    /// Attempts in all.
    #[param(range = 1..)]
    times: u32,
    /// script tested after each failure of the child: false fails the node without another attempt
    #[param(rename = "while")]
    while_: String,
}

/// The node type.
pub(crate) fn node_type<A: 'static, W: 'static>() -> NodeType<A, W> {
    NodeType::resolved(
        super::EvalKind::Retry.name(),
        RetryParams::description(),
        Arity::Decorator,
        RetryParams::declare(),
        EvalRetry,
    )
}

/// `EvalRetry` as the loader builds it: a cell for its `while` script,
/// compiled as a condition with the file's other scripts.
struct EvalRetry;

impl<A: 'static, W: 'static> Resolve<A, W> for EvalRetry {
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let p = RetryParams::from_params(params).map_err(|e| at.invalid(e))?;
        let cell = at.script(
            "while",
            Source::Code(p.while_.clone()),
            ScriptShape::Condition,
        );
        let retry = Retry {
            times: p.times,
            cell,
            code: p.while_,
        };
        Ok(NodeKind::Custom(CustomNode::new(retry)).into())
    }
}

struct Retry {
    times: u32,
    cell: Cell,
    /// The script, as the node shows it.
    code: String,
}

/// Attempts that failed since the node was entered.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Failed {
    attempts: u32,
}

impl Retry {
    /// Whether the script holds; one that faults does not.
    fn holds<A, W>(&self, cx: &mut Ctx<A, W>) -> bool {
        let script = self.cell.get();
        script.is_some_and(|s| s.run(&mut cx.board).is_ok_and(|v| v.is_true()))
    }
}

impl<A: 'static, W: 'static> Node<A, W> for Retry {
    type Task = Failed;

    fn type_name(&self) -> &str {
        super::EvalKind::Retry.name()
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("times".to_string(), self.times.to_string()),
            ("while".to_string(), self.code.clone()),
        ]
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Failed {
        Failed { attempts: 0 }
    }

    fn update(
        &self,
        task: &mut Failed,
        cx: &mut Ctx<A, W>,
        children: &mut Children<A, W>,
    ) -> Status {
        match children.update(0, cx) {
            Status::Failure => {
                task.attempts += 1;
                if task.attempts >= self.times || !self.holds(cx) {
                    return Status::Failure;
                }
                Status::Running
            }
            status => status,
        }
    }

    fn task_is_valid(&self, task: &Failed) -> bool {
        task.attempts < self.times
    }

    fn describe(&self, task: &Failed) -> Option<String> {
        Some(format!(
            "{} of {} attempts failed",
            task.attempts, self.times
        ))
    }
}
