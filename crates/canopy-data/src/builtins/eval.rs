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

use std::sync::{Arc, OnceLock};

use canopy_core::{
    Arity, Ctx, NodeKind, Params, Status, board::SlotRef, board::SlotType, context::Predicate,
    nodes, params::NodeParams, params::ParamError, script::Keys, script::Script,
    script::ScriptError, script::ScriptType,
};

use super::EvalKind;
use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};
use crate::walk::First;

/// What a script of a node is, as it is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScriptShape {
    /// `Eval`: runs the script.
    Leaf,
    /// `EvalCondition`: tests it.
    Condition,
    /// `EvalGuard`, `EvalReactiveGuard`: a guard testing it, read-only.
    Guard { reactive: bool },
    /// `EvalLoop`'s `queue`: a script that is one key, holding a string.
    Queue,
    /// `EvalLoop`'s `value`: an assignment of a value of this type.
    Assign(canopy_core::script::ScriptType),
}

use ScriptShape as Shape;

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

/// The program a script leaf runs, filled once the file is walked.
pub(crate) type Cell = Arc<OnceLock<Script>>;

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
        match script.run(&mut cx.board) {
            Ok(value) if !condition || value.is_true() => Status::Success,
            _ => Status::Failure,
        }
    };
    NodeKind::from(nodes::Action(Arc::new(run)))
}

/// What a deferred script is made from: script text, or a value written
/// in a file that must stay a value (never pasted into script text,
/// where a quote in it would make code of the rest).
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// Script text.
    Code(String),
    /// A condition, compiled on its own and negated (a `Precondition`'s
    /// `if`, tested for its `else`).
    Negated(String),
    /// `key := 'value'`: the text, converted into the key's type.
    SetText { key: String, value: String },
    /// `key := from`: one key's value into another.
    SetKey { key: String, from: String },
    /// A `Switch` case: the variable and the case compared as texts.
    Case { variable: Operand, case: Operand },
}

/// A text or a key read as text (`{key}`), as a `Switch` reads them.
#[derive(Clone, Debug)]
pub(crate) enum Operand {
    Text(String),
    Key(String),
}

impl Operand {
    /// `{key}` is a key (with `{=}` the port's own name, `param`); anything
    /// else is the text itself.
    pub(crate) fn of(text: &str, param: &str) -> Operand {
        match text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            Some("=") => Operand::Key(param.to_string()),
            Some(key) => Operand::Key(key.to_string()),
            None => Operand::Text(text.to_string()),
        }
    }

    fn get(&self) -> canopy_core::script::TextOrKey<'_> {
        match self {
            Operand::Text(t) => canopy_core::script::TextOrKey::Text(t),
            Operand::Key(k) => canopy_core::script::TextOrKey::Key(k),
        }
    }
}

impl Source {
    /// The source as messages and printed trees show it.
    pub(crate) fn shown(&self) -> String {
        match self {
            Source::Code(code) => code.clone(),
            // Its parameter says it is the condition to hold.
            Source::Negated(code) => code.clone(),
            Source::SetText { key, value } => {
                format!("{key} := {}", canopy_core::text::quote(value))
            }
            Source::SetKey { key, from } => format!("{key} := {from}"),
            Source::Case { variable, case } => format!("{} == {}", variable.get(), case.get()),
        }
    }
}

/// Compile `source` for a node of `shape`: a condition's must give a bool
/// or a number, and a guard's, run where nothing may be written, must
/// not assign.
pub(crate) fn compile(
    source: &Source,
    shape: Shape,
    keys: &mut impl Keys,
) -> Result<Script, ScriptError> {
    let code = match source {
        Source::Code(code) => code,
        Source::Negated(code) => return Ok(Script::compile_condition(code, keys)?.negated()),
        Source::SetText { key, value } => return Script::assign_text(key, value, keys),
        Source::SetKey { key, from } => return Script::assign_key(key, from, keys),
        Source::Case { variable, case } => {
            return Script::switch_case(variable.get(), case.get(), keys);
        }
    };
    let script = match shape {
        Shape::Leaf | Shape::Queue | Shape::Assign(_) => Script::compile(code, keys)?,
        _ => Script::compile_condition(code, keys)?,
    };
    let wrong = |problem: String| ScriptError {
        offset: 0,
        column: 1,
        problem,
    };
    match shape {
        // One key (a single load), holding a string: the loop reads it
        // and writes back what is left.
        Shape::Queue if script.len() != 1 || script.value_type() != ScriptType::Text => {
            return Err(wrong(
                "a queue is one key holding a string of items separated by `;`".to_string(),
            ));
        }
        // A bool is a number to scripts (BehaviorTree.CPP's 1 and 0).
        Shape::Assign(ty)
            if !(script.value_type() == ty
                || ty == ScriptType::Bool && script.value_type() == ScriptType::Number)
                || !script.writes() =>
        {
            return Err(wrong(format!(
                "each item is assigned to a key holding a {}, as `x := {}` does",
                ty.name(),
                match ty {
                    ScriptType::Number => "0",
                    ScriptType::Bool => "false",
                    ScriptType::Text => "''",
                }
            )));
        }
        _ => {}
    }
    if matches!(shape, Shape::Guard { .. }) && script.writes() {
        return Err(ScriptError {
            offset: 0,
            column: 1,
            problem: "a guard's condition reads keys; it cannot assign them".to_string(),
        });
    }
    Ok(script)
}

/// The builder's keys as a loader's scripts see them: each key's first
/// use is remembered (a script's `:=` is the first use of a key it
/// makes), so that a type error names where a key came from.
pub(crate) struct LoadKeys<'x, 'd, K> {
    /// The builder's keys.
    pub(crate) slots: K,
    /// Where each key was first used.
    pub(crate) first: &'x std::cell::RefCell<std::collections::HashMap<String, First<'d>>>,
    /// The script's node.
    pub(crate) here: First<'d>,
    /// A first use's place as messages write it.
    pub(crate) place: &'x dyn Fn(&First<'d>) -> String,
}

impl<K: Keys> Keys for LoadKeys<'_, '_, K> {
    fn find(&mut self, key: &str) -> Option<SlotRef> {
        self.slots.find(key)
    }

    fn create(&mut self, key: &str, ty: SlotType) -> Result<SlotRef, String> {
        let slot = self.slots.create(key, ty)?;
        self.first
            .borrow_mut()
            .entry(key.to_string())
            .or_insert_with(|| self.here.clone());
        Ok(slot)
    }

    fn known(&self) -> Vec<String> {
        self.slots.known()
    }

    fn origin(&self, key: &str) -> Option<String> {
        self.first
            .borrow()
            .get(key)
            .map(|first| (self.place)(first))
    }

    fn constant(&self, name: &str) -> Option<f64> {
        self.slots.constant(name)
    }

    fn made_by_script(&self, key: &str) -> bool {
        self.slots.made_by_script(key)
    }
}
