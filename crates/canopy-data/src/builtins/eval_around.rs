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
    Arity, Children, Ctx, CustomNode, Exit, Node, NodeKind, Status, params::Param,
    script::ScriptValue,
};

use super::eval::Cell;
use crate::registry::{Build, NodeType, ScriptShape};

/// The condition parameters, in the order BehaviorTree.CPP tests them.
pub(crate) const CONDITIONS: [&str; 5] =
    ["failure_if", "success_if", "skip_if", "while", "running_if"];

/// The parameters of scripts run after the child.
pub(crate) const AFTER: [&str; 4] = ["on_success", "on_failure", "on_halted", "post"];

/// Every script parameter, conditions first.
pub(crate) const SCRIPTS: [&str; 9] = [
    CONDITIONS[0],
    CONDITIONS[1],
    CONDITIONS[2],
    CONDITIONS[3],
    CONDITIONS[4],
    AFTER[0],
    AFTER[1],
    AFTER[2],
    AFTER[3],
];

/// The parameter saying what a skip returns.
pub(crate) const SKIPPED: &str = "skipped";

/// The parameter naming the bool key that keeps a Precondition's decision.
pub(crate) const LATCH: &str = "latch";

/// A bool key this node sets when it skips (returns `skipped`): the
/// node around it, which runs the post-condition scripts of the same
/// element, then runs none (BehaviorTree.CPP runs no `_onSuccess` or
/// `_post` after a node's own SKIPPED).
pub(crate) const SKIPS_INTO: &str = "skips_into";

/// A bool key the child sets when it skips ([`SKIPS_INTO`]): this node
/// then returns the child's status without its after-scripts.
pub(crate) const SKIP_FROM: &str = "skip_from";

/// A condition the child runs under: compiled on its own, and the node
/// returns [`OTHERWISE`] when it is false (BehaviorTree.CPP's
/// `Precondition if`, which is never pasted into `!(…)`).
pub(crate) const PRECONDITION: &str = "precondition";

/// What the node does when [`PRECONDITION`] is false.
pub(crate) const OTHERWISE: &str = "otherwise";

/// The condition a `precondition` stands in for, by its `otherwise`.
pub(crate) fn otherwise_index(otherwise: &str) -> usize {
    match otherwise {
        "success" => SUCCESS_IF,
        "skip" => SKIP_IF,
        "running" => RUNNING_IF,
        _ => FAILURE_IF,
    }
}

/// The node type.
pub(crate) fn node_type<A, W>() -> NodeType<A, W> {
    let docs = [
        "script tested on entry: true fails without running the child",
        "script tested on entry: true succeeds without running the child",
        "script tested on entry: true skips the child",
        "script tested on entry and every tick while the child runs: false skips (and aborts) it",
        "script tested on entry: true returns Running without the child, to be tested again",
        "script run when the node succeeds",
        "script run when the node fails",
        "script run when the running child is aborted",
        "script run when the node succeeds or fails, after on_success/on_failure",
    ];
    let mut params: Vec<Param> = SCRIPTS
        .iter()
        .zip(docs)
        .map(|(name, doc)| Param::text(name, doc).optional())
        .collect();
    params.push(
        Param::choice(
            SKIPPED,
            "what a skip returns: the status the parent reads as BehaviorTree.CPP's SKIPPED",
            &["success", "failure"],
        )
        .default("success"),
    );
    params.push(
        Param::text(
            PRECONDITION,
            "script tested on entry (BehaviorTree.CPP's Precondition `if`): false does what \
             `otherwise` says instead of running the child",
        )
        .optional(),
    );
    params.push(
        Param::choice(
            OTHERWISE,
            "what a false `precondition` does: fail, succeed, skip, or return Running and test \
             again at the next tick",
            &["failure", "success", "skip", "running"],
        )
        .default("failure"),
    );
    params.push(
        Param::text(
            SKIPS_INTO,
            "a bool key set when the node skips, for the node around it (`skip_from`)",
        )
        .optional(),
    );
    params.push(
        Param::text(
            SKIP_FROM,
            "a bool key the child sets when it skips: then no script runs after it",
        )
        .optional(),
    );
    params.push(
        Param::text(
            LATCH,
            "a bool key, set while the child runs and kept through an abort: while set, \
             the node is entered without its conditions (BehaviorTree.CPP's Precondition)",
        )
        .optional(),
    );
    NodeType::with_build(
        "EvalAround",
        "Runs scripts before and after its child: BehaviorTree.CPP's pre- and post-conditions.",
        Arity::Decorator,
        params,
        Build::Script(ScriptShape::Around),
    )
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

/// The node: one cell per script parameter given (in [`SCRIPTS`] order).
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

/// Indices into [`SCRIPTS`].
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
        "EvalAround"
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
