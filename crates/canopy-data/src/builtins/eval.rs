//! `Eval` and `EvalCondition`: leaves running a script over the
//! blackboard (BehaviorTree.CPP's `Script` and `ScriptCondition`; the name
//! `Script` is the status playback leaf's); `EvalGuard` and
//! `EvalReactiveGuard`: a Guard and a ReactiveGuard whose condition is a
//! script. (BehaviorTree.CPP's `Precondition` and pre- and post-condition
//! attributes are [`eval_around`](super::eval_around)'s.)
//!
//! A script can read keys that ports of nodes later in the file make, so
//! the loader compiles scripts after it has walked the whole file
//! ([`Loader::document`](crate::walk)): the leaf is made during the walk
//! around a cell that compiling fills. A load that fails leaves no tree,
//! so a tree's every script leaf holds its program.

use std::sync::Arc;

use canopy_core::{
    Arity, Ctx, NodeKind, Params, Status, context::Predicate, nodes, params::NodeParams,
    params::ParamError,
};

use super::EvalKind;
use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};
use crate::scripts::{Cell, Operand, ScriptShape as Shape, Source};

/// Every script node type.
pub(crate) fn node_types<A: 'static, W: 'static>() -> [NodeType<A, W>; 4] {
    let guard = |reactive| Shape::Guard { reactive };
    [
        node_type(
            EvalKind::Eval,
            "Runs a script over the blackboard: Success, or Failure when it faults.",
            Shape::Leaf,
        ),
        node_type(
            EvalKind::Condition,
            "Tests a script over the blackboard: Success when its value is true, else Failure.",
            Shape::Condition,
        ),
        node_type(
            EvalKind::Guard,
            "A Guard whose condition is a script that reads the blackboard.",
            guard(false),
        ),
        node_type(
            EvalKind::ReactiveGuard,
            "A ReactiveGuard whose condition is a script that reads the blackboard.",
            guard(true),
        ),
    ]
}

/// `Eval`'s parameters: its code, or a value written to a key.
#[derive(Params)]
pub(crate) struct EvalParams {
    /// BehaviorTree.CPP script: `hp -= 10; alive := hp > 0`; keys are checked at load
    pub(crate) code: Option<String>,
    /// instead of code: the key to set to `value` (BehaviorTree.CPP's SetBlackboard)
    pub(crate) assign: Option<String>,
    /// with assign: a text, converted to the key's type, or {key} to copy that key
    pub(crate) value: Option<String>,
}

/// The parameters of `EvalCondition` and the script guards: the code.
#[derive(Params)]
pub(crate) struct CodeParams {
    /// BehaviorTree.CPP script: `hp -= 10; alive := hp > 0`; keys are checked at load
    pub(crate) code: String,
}

fn node_type<A: 'static, W: 'static>(kind: EvalKind, about: &str, shape: Shape) -> NodeType<A, W> {
    let arity = match shape {
        Shape::Guard { .. } => Arity::Decorator,
        _ => Arity::Leaf,
    };
    // `Eval` also writes a value given in the file without making it code
    // (BehaviorTree.CPP's SetBlackboard).
    let params = match shape {
        Shape::Leaf => EvalParams::declare(),
        _ => CodeParams::declare(),
    };
    NodeType::resolved(kind.name(), about, arity, params, Eval { shape })
}

/// `Eval`, `EvalCondition` and the script guards, as the loader builds
/// them: a cell for the script, compiled with the file's other scripts.
struct Eval {
    shape: Shape,
}

impl<A: 'static, W: 'static> Resolve<A, W> for Eval {
    /// The node's `code`; or, for `Eval`, the assignment of `value` to the
    /// key `assign` (a `{key}` value copies that key), which is never read
    /// as code.
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let p = match self.shape {
            Shape::Leaf => EvalParams::from_params(params),
            _ => CodeParams::from_params(params).map(|p| EvalParams {
                code: Some(p.code),
                assign: None,
                value: None,
            }),
        }
        .map_err(|e| at.invalid(e))?;
        let absent = |param: &str| ParamError::Absent {
            param: param.to_string(),
        };
        let (param, source) = match (p.assign, p.code) {
            (Some(key), _) => {
                let given = p.value.ok_or_else(|| at.invalid(absent("value")))?;
                let source = match Operand::of(&given, "value") {
                    Operand::Key(from) => Source::SetKey { key, from },
                    Operand::Text(value) => Source::SetText { key, value },
                };
                ("value", source)
            }
            (None, Some(code)) => ("code", Source::Code(code)),
            (None, None) => return Err(at.invalid(absent("code"))),
        };
        let shown = source.shown();
        let cell = at.script(param, source, self.shape);
        Ok(node(cell, self.shape, &shown).into())
    }
}

/// The node running the script in `cell`.
pub(crate) fn node<A: 'static, W: 'static>(cell: Cell, shape: Shape, code: &str) -> NodeKind<A, W> {
    if let Shape::Guard { reactive } = shape {
        let test = move |cx: &Ctx<A, W>| {
            let script = cell.get();
            script.is_some_and(|s| s.test(&cx.board).unwrap_or(false))
        };
        let check = Predicate {
            label: Some(code.to_string()),
            check: Arc::new(test),
        };
        return match reactive {
            true => NodeKind::from(nodes::ReactiveGuard(check)),
            false => NodeKind::from(nodes::Guard(check)),
        };
    }
    let condition = shape == Shape::Condition;
    let run = move |cx: &mut Ctx<A, W>| {
        let Some(script) = cell.get() else {
            return Status::Failure;
        };
        // A `Script`'s value is dropped: only its writes and faults run.
        let ok = match condition {
            true => script.run_condition(&mut cx.board) == Ok(true),
            false => script.run_for_effect(&mut cx.board).is_ok(),
        };
        match ok {
            true => Status::Success,
            false => Status::Failure,
        }
    };
    NodeKind::from(nodes::Action(Arc::new(run)))
}
