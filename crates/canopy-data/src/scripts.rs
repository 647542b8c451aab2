//! Scripts as the loader compiles them: what a script is made from
//! ([`Source`]: text, or a value that must stay a value), what it must be
//! for its node ([`ScriptShape`]), the [`Cell`] its node runs it from,
//! [`compile`], and the keys it compiles against ([`LoadKeys`], which
//! remember each key's [`First`] use for messages).
//!
//! The script node types (`builtins/eval*.rs`) ask for cells through the
//! [`Resolver`](crate::resolve::Resolver) while the file is walked, and
//! the walk compiles every cell's script once the whole file is walked
//! (`walk.rs`): all of them stand on this module, and it stands on none
//! of them. Rejected: keeping these beside `Eval` in `builtins/eval.rs`,
//! which had the walk and the resolver import a node type's file that
//! imported them back.

use std::sync::{Arc, OnceLock};

use canopy_core::{
    board::SlotRef, board::SlotType, script::Keys, script::Script, script::ScriptError,
    script::ScriptType,
};

use crate::document::Value;
use crate::error::NodePath;

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

/// The program a script leaf runs, filled once the file is walked.
pub(crate) type Cell = Arc<OnceLock<Script>>;

/// Where a blackboard key was first used: the node, by its path, name and
/// value. Its place as a message writes it is made only when a message
/// needs it — for a lowered file, naming a place reads the lowering
/// loader's model of its file again, which it lets go of while drafting.
#[derive(Clone)]
pub(crate) struct First<'d> {
    pub(crate) path: NodePath,
    pub(crate) node: &'d Value<'d>,
    pub(crate) name: String,
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
