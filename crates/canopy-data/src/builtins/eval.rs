//! `Eval` and `EvalCondition`: leaves running a script over the
//! blackboard (BehaviorTree.CPP's `Script` and `ScriptCondition`; the name
//! `Script` is the status playback leaf's).
//!
//! A script can read keys that ports of nodes later in the file make, so
//! the loader compiles scripts after it has walked the whole file
//! ([`Loader::document`](crate::walk)): the leaf is made during the walk
//! around a cell that compiling fills. A load that fails leaves no tree,
//! so a tree's every script leaf holds its program.

use std::sync::{Arc, OnceLock};

use canopy_core::{
    Arity, Ctx, Keys, NodeKind, Param, Script, ScriptError, SlotRef, SlotType, Status, nodes,
};

use crate::registry::{Build, NodeType};

/// The parameter holding the script.
pub(crate) const CODE: &str = "code";

/// `Eval`, or `EvalCondition` when `condition`.
pub(crate) fn node_type<A, W>(condition: bool) -> NodeType<A, W> {
    let (name, about) = if condition {
        (
            "EvalCondition",
            "Tests a script over the blackboard: Success when its value is true, else Failure.",
        )
    } else {
        (
            "Eval",
            "Runs a script over the blackboard: Success, or Failure when it faults.",
        )
    };
    let code = Param::text(
        CODE,
        "BehaviorTree.CPP script: `hp -= 10; alive := hp > 0`; keys are checked at load",
    );
    NodeType::with_build(
        name,
        about,
        Arity::Leaf,
        vec![code],
        Build::Script { condition },
    )
}

/// The program a script leaf runs, filled once the file is walked.
pub(crate) type Cell = Arc<OnceLock<Script>>;

/// The leaf running the script in `cell`.
pub(crate) fn leaf<A: 'static, W: 'static>(cell: Cell, condition: bool) -> NodeKind<A, W> {
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

/// Compile `code` for a leaf (a condition's must give a bool or number).
pub(crate) fn compile(
    code: &str,
    condition: bool,
    keys: &mut impl Keys,
) -> Result<Script, ScriptError> {
    if condition {
        Script::compile_condition(code, keys)
    } else {
        Script::compile(code, keys)
    }
}

/// The builder's keys as a loader's scripts see them: each key's first
/// use is remembered (a script's `:=` is the first use of a key it
/// makes), so that a type error names where a key came from.
pub(crate) struct LoadKeys<'x, K> {
    /// The builder's keys.
    pub(crate) slots: K,
    /// Where each key was first used, as messages write a place.
    pub(crate) first: &'x std::cell::RefCell<std::collections::HashMap<String, String>>,
    /// The script's node, as messages write a place.
    pub(crate) here: String,
}

impl<K: Keys> Keys for LoadKeys<'_, K> {
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
        self.first.borrow().get(key).cloned()
    }
}
