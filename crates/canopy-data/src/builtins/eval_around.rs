//! `EvalAround`: a decorator running scripts before and after its child —
//! BehaviorTree.CPP's pre- and post-condition attributes (`_failureIf`,
//! `_successIf`, `_skipIf`, `_while`, `_onSuccess`, `_onFailure`,
//! `_onHalted`, `_post`), which its XML reader puts around the node that
//! carries them, and its `Precondition` node.
//!
//! Each attribute is a parameter holding a script, compiled with the
//! file's other scripts once the file is walked (see
//! [`eval`](super::eval)). On entry (BehaviorTree.CPP's IDLE) the
//! conditions are tested in BehaviorTree.CPP's order: `failure_if`,
//! `success_if`, `skip_if` (true: Failure, Success, skipped without
//! ticking the child), then `while` (false: skipped), then `running_if`
//! (true: Running without ticking the child, tested again at the next
//! tick: a `Precondition` with `else="RUNNING"`). While the child
//! runs, only `while` is tested, and false aborts the child, runs
//! `on_halted` and skips. A Success or Failure, the child's or a
//! condition's, runs `on_success` or `on_failure` and then `post`; an
//! abort from above runs `on_halted` after the child's own.
//!
//! A `latch` (a bool key of the blackboard, per agent) keeps
//! BehaviorTree.CPP's Precondition's memory: set when the child is
//! started, cleared when it finishes, kept through an abort — so a
//! Precondition halted while its child runs, entered again, runs the child
//! without testing its condition, as BehaviorTree.CPP's does. The node's
//! own task cannot keep it: a task ends with the node's run.
//!
//! canopy has no SKIPPED status, so a skip returns `skipped` (Success or
//! Failure), the status its parent reads as a skip — the XML reader picks
//! it from the parent, as for `RunOnce`. Rejected: lowering each attribute
//! onto an `EvalGuard` and a Sequence of `Eval` leaves: a guard cannot
//! tell entry from resumption (`_skipIf` is tested only on entry), and
//! `_onHalted` needs the abort hook of one node.

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Exit, Node, NodeKind, ParamEnum, Params, Status,
    params::NodeParams, params::ParamError, script::ScriptValue,
};

use crate::error::LoadError;
use crate::registry::NodeType;
use crate::resolve::{Made, Resolve, Resolver};
use crate::scripts::{Cell, ScriptShape, Source};

/// What a skip returns: the status the parent reads as BehaviorTree.CPP's
/// SKIPPED.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
pub(crate) enum Skipped {
    Success,
    Failure,
}

/// What a false `precondition` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
pub(crate) enum Otherwise {
    Failure,
    Success,
    Skip,
    Running,
}

/// Runs scripts before and after its child: BehaviorTree.CPP's pre- and post-conditions.
#[derive(Params)]
pub(crate) struct AroundParams {
    /// script tested on entry: true fails without running the child
    failure_if: Option<String>,
    /// script tested on entry: true succeeds without running the child
    success_if: Option<String>,
    /// script tested on entry: true skips the child
    skip_if: Option<String>,
    /// script tested on entry and every tick while the child runs: false skips (and aborts) it
    #[param(rename = "while")]
    while_: Option<String>,
    /// script tested on entry: true returns Running without the child, to be tested again
    running_if: Option<String>,
    /// script run when the node succeeds
    on_success: Option<String>,
    /// script run when the node fails
    on_failure: Option<String>,
    /// script run when the running child is aborted
    on_halted: Option<String>,
    /// script run when the node succeeds or fails, after on_success/on_failure
    post: Option<String>,
    /// what a skip returns: the status the parent reads as BehaviorTree.CPP's SKIPPED
    #[param(default = Skipped::Success)]
    skipped: Skipped,
    /// script tested on entry (BehaviorTree.CPP's Precondition `if`): false does what
    /// `otherwise` says instead of running the child
    precondition: Option<String>,
    /// what a false `precondition` does: fail, succeed, skip, or return Running and test
    /// again at the next tick
    #[param(default = Otherwise::Failure)]
    otherwise: Otherwise,
    /// a bool key set when the node skips, for the node around it (`skip_from`)
    skips_into: Option<String>,
    /// a bool key the child sets when it skips: then no script runs after it
    skip_from: Option<String>,
    /// a bool key, set while the child runs and kept through an abort: while set,
    /// the node is entered without its conditions (BehaviorTree.CPP's Precondition)
    latch: Option<String>,
}

impl AroundParams {
    /// The script parameters, conditions first, in the order
    /// BehaviorTree.CPP tests them, with their names.
    fn scripts(&self) -> [(&'static str, Option<&String>); 9] {
        [
            ("failure_if", self.failure_if.as_ref()),
            ("success_if", self.success_if.as_ref()),
            ("skip_if", self.skip_if.as_ref()),
            ("while", self.while_.as_ref()),
            ("running_if", self.running_if.as_ref()),
            ("on_success", self.on_success.as_ref()),
            ("on_failure", self.on_failure.as_ref()),
            ("on_halted", self.on_halted.as_ref()),
            ("post", self.post.as_ref()),
        ]
    }
}

/// The node type.
pub(crate) fn node_type<A: 'static, W: 'static>() -> NodeType<A, W> {
    NodeType::resolved(
        super::EvalKind::Around.name(),
        AroundParams::description(),
        Arity::Decorator,
        AroundParams::declare(),
        EvalAround,
    )
}

/// `EvalAround` as the loader builds it: a cell for each script parameter
/// given, compiled with the file's other scripts (conditions as
/// conditions).
struct EvalAround;

impl<A: 'static, W: 'static> Resolve<A, W> for EvalAround {
    fn resolve<'b>(
        &self,
        params: &Params<'_>,
        at: &mut Resolver<'_, '_, '_, 'b, A, W>,
    ) -> Result<Made<'b, A, W>, LoadError> {
        let p = AroundParams::from_params(params).map_err(|e| at.invalid(e))?;
        let mut cells: [Option<Cell>; 9] = Default::default();
        let mut sources = Vec::new();
        for (i, (param, code)) in p.scripts().into_iter().enumerate() {
            let Some(code) = code else {
                continue;
            };
            let shape = match i < CONDITIONS {
                true => ScriptShape::Condition,
                false => ScriptShape::Leaf,
            };
            let source = Source::Code(code.clone());
            cells[i] = Some(at.script(param, source, shape));
            sources.push((param.to_string(), code.clone()));
        }
        // A Precondition's `if`: compiled on its own and negated, in the
        // place of the condition its `otherwise` names.
        if let Some(code) = &p.precondition {
            let i = match p.otherwise {
                Otherwise::Success => SUCCESS_IF,
                Otherwise::Skip => SKIP_IF,
                Otherwise::Running => RUNNING_IF,
                Otherwise::Failure => FAILURE_IF,
            };
            if cells[i].is_some() {
                return Err(at.invalid(ParamError::invalid(format!(
                    "precondition and {} both give the condition tested for {:?}; give one",
                    p.scripts()[i].0,
                    p.otherwise.word()
                ))));
            }
            let source = Source::Negated(code.clone());
            cells[i] = Some(at.script("precondition", source, ScriptShape::Condition));
            sources.push(("precondition".to_string(), code.clone()));
            sources.push(("otherwise".to_string(), p.otherwise.word().to_string()));
        }
        let skipped = match p.skipped {
            Skipped::Failure => {
                sources.push(("skipped".to_string(), "failure".to_string()));
                Status::Failure
            }
            Skipped::Success => Status::Success,
        };
        let latch = flag(at, "latch", p.latch.as_deref(), &mut sources)?;
        let flags = SkipFlags {
            into: flag(at, "skips_into", p.skips_into.as_deref(), &mut sources)?,
            from: flag(at, "skip_from", p.skip_from.as_deref(), &mut sources)?,
        };
        Ok(node(cells, sources, skipped, latch, flags).into())
    }
}

/// The bool key a node keeps in parameter `param` (a latch, a skip
/// flag), if given: the scripts that make and set it (`k := false`) and
/// read it (`k`). The key must be a plain name, as it becomes script
/// text.
pub(crate) fn flag<A: 'static, W: 'static>(
    at: &mut Resolver<'_, '_, '_, '_, A, W>,
    param: &str,
    key: Option<&str>,
    sources: &mut Vec<(String, String)>,
) -> Result<Option<Latch>, LoadError> {
    let Some(key) = key else {
        return Ok(None);
    };
    let plain = key.strip_prefix('@').unwrap_or(key);
    let name_like = plain.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && plain.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !name_like {
        return Err(at.invalid(ParamError::WrongKind {
            param: param.to_string(),
            expected: "a key: letters, digits and _, not starting with a digit",
            got: canopy_core::text::quote(key),
        }));
    }
    sources.push((param.to_string(), key.to_string()));
    // The key is made (`:=`) before it is read.
    let write = at.script(
        param,
        Source::Code(format!("{key} := false")),
        ScriptShape::Assign(canopy_core::script::ScriptType::Bool),
    );
    let read = at.script(param, Source::Code(key.to_string()), ScriptShape::Condition);
    Ok(Some(Latch { write, read }))
}

/// The scripts of a bool key a node keeps (a latch, a skip flag): one
/// that makes the key (`k := false`), whose target
/// [`Script::assign`](canopy_core::script::Script::assign) writes, and one that
/// reads it (`k`).
pub(crate) struct Latch {
    pub(crate) write: Cell,
    pub(crate) read: Cell,
}

impl Latch {
    /// Whether the key is set.
    pub(crate) fn get<A, W>(&self, cx: &Ctx<A, W>) -> bool {
        let read = self.read.get();
        read.is_some_and(|script| script.test(&cx.board).unwrap_or(false))
    }

    /// Set or clear the key.
    pub(crate) fn set<A, W>(&self, cx: &mut Ctx<A, W>, on: bool) {
        if let Some(write) = self.write.get() {
            // A bool key the loader made: the write cannot fault.
            let _ = write.assign(&mut cx.board, ScriptValue::Bool(on));
        }
    }
}

/// The skip flags of a node: the one it sets when it skips, and the one
/// its child sets.
#[derive(Default)]
pub(crate) struct SkipFlags {
    pub(crate) into: Option<Latch>,
    pub(crate) from: Option<Latch>,
}

impl SkipFlags {
    /// The node skips: mark it for the node around it.
    pub(crate) fn skipping<A, W>(&self, cx: &mut Ctx<A, W>) {
        if let Some(flag) = &self.into {
            flag.set(cx, true);
        }
    }

    /// Whether the child just skipped (clearing the mark).
    fn child_skipped<A, W>(&self, cx: &mut Ctx<A, W>) -> bool {
        let Some(flag) = &self.from else {
            return false;
        };
        let skipped = flag.get(cx);
        if skipped {
            flag.set(cx, false);
        }
        skipped
    }
}

/// The node: one cell per script parameter given (in [`AroundParams::scripts`] order).
pub(crate) fn node<A: 'static, W: 'static>(
    cells: [Option<Cell>; 9],
    sources: Vec<(String, String)>,
    skipped: Status,
    latch: Option<Latch>,
    flags: SkipFlags,
) -> NodeKind<A, W> {
    NodeKind::Custom(CustomNode::new(Around {
        cells,
        sources,
        skipped,
        latch,
        flags,
    }))
}

struct Around {
    cells: [Option<Cell>; 9],
    /// The scripts given, as the node shows them.
    sources: Vec<(String, String)>,
    skipped: Status,
    latch: Option<Latch>,
    flags: SkipFlags,
}

/// Indices into [`AroundParams::scripts`]: the conditions, then the
/// scripts run after the child.
const CONDITIONS: usize = 5;
const FAILURE_IF: usize = 0;
const SUCCESS_IF: usize = 1;
const SKIP_IF: usize = 2;
const WHILE: usize = 3;
const RUNNING_IF: usize = 4;
const ON_SUCCESS: usize = 5;
const ON_FAILURE: usize = 6;
const ON_HALTED: usize = 7;
const POST: usize = 8;

/// What the conditions decided: a status without the child, or a skip.
enum Pre {
    Status(Status),
    Skip,
}

impl Around {
    /// Whether the script at `index` is given.
    fn has(&self, index: usize) -> bool {
        self.cells[index].is_some()
    }

    /// Run the script at `index`, if given: its value is true. A script
    /// that faults counts as false (BehaviorTree.CPP throws).
    fn run<A, W>(&self, index: usize, cx: &mut Ctx<A, W>) -> bool {
        let Some(script) = self.cells[index].as_ref().and_then(|c| c.get()) else {
            return false;
        };
        script.run(&mut cx.board).is_ok_and(|v| v.is_true())
    }

    /// The entry tests, in BehaviorTree.CPP's order.
    fn on_entry<A, W>(&self, cx: &mut Ctx<A, W>) -> Option<Pre> {
        if self.run(FAILURE_IF, cx) {
            return Some(Pre::Status(Status::Failure));
        }
        if self.run(SUCCESS_IF, cx) {
            return Some(Pre::Status(Status::Success));
        }
        if self.run(SKIP_IF, cx) {
            return Some(Pre::Skip);
        }
        if self.has(WHILE) && !self.run(WHILE, cx) {
            return Some(Pre::Skip);
        }
        self.run(RUNNING_IF, cx)
            .then_some(Pre::Status(Status::Running))
    }

    /// Whether the latch is set (never, without one).
    fn latched<A, W>(&self, cx: &Ctx<A, W>) -> bool {
        self.latch.as_ref().is_some_and(|l| l.get(cx))
    }

    /// Set or clear the latch, if there is one.
    fn set_latch<A, W>(&self, cx: &mut Ctx<A, W>, on: bool) {
        if let Some(latch) = &self.latch {
            latch.set(cx, on);
        }
    }

    /// Skip: the status the parent reads as a skip, marked for the node
    /// around this one.
    fn skip<A, W>(&self, cx: &mut Ctx<A, W>) -> Status {
        self.flags.skipping(cx);
        self.skipped
    }

    /// The scripts run after a Success or Failure.
    fn after<A, W>(&self, status: Status, cx: &mut Ctx<A, W>) -> Status {
        match status {
            Status::Success => drop(self.run(ON_SUCCESS, cx)),
            Status::Failure => drop(self.run(ON_FAILURE, cx)),
            Status::Running => return status,
        }
        self.run(POST, cx);
        status
    }
}

impl<A: 'static, W: 'static> Node<A, W> for Around {
    type Task = ();

    fn type_name(&self) -> &str {
        super::EvalKind::Around.name()
    }

    fn arity(&self) -> Arity {
        Arity::Decorator
    }

    fn params(&self) -> Vec<(String, String)> {
        self.sources.clone()
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) {}

    fn update(&self, _task: &mut (), cx: &mut Ctx<A, W>, children: &mut Children<A, W>) -> Status {
        if !children.is_running(0) {
            if !self.latched(cx) {
                match self.on_entry(cx) {
                    Some(Pre::Status(status)) => return self.after(status, cx),
                    Some(Pre::Skip) => return self.skip(cx),
                    None => {}
                }
            }
            self.set_latch(cx, true);
        } else if self.has(WHILE) && !self.run(WHILE, cx) {
            children.abort(0, cx);
            self.run(ON_HALTED, cx);
            return self.skip(cx);
        }
        let status = children.update(0, cx);
        if status != Status::Running {
            self.set_latch(cx, false);
        }
        if self.flags.child_skipped(cx) {
            // The child's own SKIPPED: nothing runs after it.
            return status;
        }
        self.after(status, cx)
    }

    fn terminate(&self, _task: &mut (), cx: &mut Ctx<A, W>, exit: Exit) {
        if exit.is_aborted() {
            self.run(ON_HALTED, cx);
        }
    }
}
