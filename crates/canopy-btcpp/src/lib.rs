//! BehaviorTree.CPP XML (format 4) in and out of canopy: trees edited in
//! Groot2 or written for BehaviorTree.CPP run on canopy, with
//! BehaviorTree.CPP's own node semantics; canopy's trees open in Groot2.
//!
//! ```
//! use canopy_btcpp::{XmlOptions, load_str};
//! use canopy_core::{Agent, Status};
//! use canopy_data::Registry;
//!
//! let xml = r#"
//! <root BTCPP_format="4" main_tree_to_execute="Main">
//!   <BehaviorTree ID="Main">
//!     <Sequence>
//!       <Sleep msec="250"/>
//!       <SubTree ID="Twice"/>
//!     </Sequence>
//!   </BehaviorTree>
//!   <BehaviorTree ID="Twice">
//!     <Repeat num_cycles="2"><AlwaysSuccess/></Repeat>
//!   </BehaviorTree>
//! </root>"#;
//! let registry = Registry::<(), ()>::new();
//! let tree = load_str(&registry, xml, "main.xml", None, &XmlOptions::default()).unwrap();
//! assert_eq!(tree.display().to_string(), "\
//! Sequence
//! ├── Sleep  Wait(ticks=3)
//! └── Repeat(num_cycles=2)
//!     └── AlwaysSuccess
//! ");
//! let mut agent = Agent::new(&tree);
//! let statuses: Vec<Status> = (0..5).map(|_| agent.tick(&tree, &mut (), &())).collect();
//! // 250 ms of sleep is 3 ticks of 100 ms; then a cycle per tick, because
//! // BehaviorTree.CPP's Repeat yields after a child that finished at once.
//! use Status::{Running, Success};
//! assert_eq!(statuses, [Running, Running, Running, Running, Success]);
//! ```
//!
//! # Reading XML
//!
//! [`load_file`] reads `<root BTCPP_format="4">` files: any number of
//! `<BehaviorTree ID="…">`, the one named by `main_tree_to_execute` (or
//! the only one) run; `<SubTree ID="…"/>` for another tree, shared as
//! canopy's subtrees are; `<include path="…"/>` relative to the including
//! file, each file read once, cycles refused; a `<TreeNodesModel>` checked
//! against the registry (every declared type registered, in the declared
//! category, with the declared ports as parameters of fitting types).
//! Nodes are written compact (`<Fallback>`, `<MoveTo speed="2"/>`) or
//! explicit (`<Control ID="Fallback">`, `<Action ID="MoveTo" …/>`);
//! `name` is optional (the type, as BehaviorTree.CPP does).
//!
//! Types registered in the `Registry` of `canopy_data` are used by
//! their registered name; their parameters are attributes, converted to the
//! declared kind and checked by the registry exactly as a JSON or RON
//! file's (lists of statuses are written `Running;Success`, a Guard's
//! condition as `Periodic(name="day?", period=24, on=12)`). A registered
//! type whose name is one of BehaviorTree.CPP's (canopy's own `Repeat`,
//! `Parallel`, `Script`) is written with the prefix `canopy_`:
//! `<Decorator ID="canopy_Repeat" times="3">`.
//!
//! **Blackboard ports.** A registered type's ports (parameters declared as
//! [`Input`](canopy_core::Input) or [`Output`](canopy_core::Output)) take
//! `{key}` (or `{@key}`, or `{=}` for the port's own name) as in
//! BehaviorTree.CPP; each key becomes a slot of the agent's blackboard with
//! one type fixed when the tree is built, and a key given two types is an
//! error naming both elements. Points and lists of numbers are written as
//! BehaviorTree.CPP writes vectors (`goal="3;-4"`), lists of points as
//! JSON (`path="json:[[0,0],[10,0]]"`).
//!
//! **Subtree scopes.** canopy has one blackboard per agent, and gives a
//! `<SubTree>` BehaviorTree.CPP's scope by resolving each of its keys when
//! the tree is loaded: a key remapped by the `<SubTree>`
//! (`goal="{target}"`, `goal="{=}"`) is the parent's key; with
//! `_autoremap="true"`, so is every other; otherwise a key is the subtree
//! instance's own, a slot named `__Tree_N__key` that nothing else names;
//! `{@key}` is the main tree's key from anywhere. A key remapped to text
//! (`goal="3;4"`) is that constant in the subtree's ports and scripts. A
//! subtree whose keys all resolve to themselves is shared by its
//! references; otherwise each reference gets a copy of it with its keys.
//! Types are checked across a remapping as for any key, so a mismatch
//! names both elements. A `<TreeNodesModel>`
//! declares output ports as `<output_port>` with the slot's type. What
//! BehaviorTree.CPP decides at run time — a key's type, a port given a
//! value it cannot read — canopy decides when the tree is loaded.
//!
//! **Scripts.** `Script`, `ScriptCondition` and `SetBlackboard` run as
//! canopy's script leaves (`Eval`, `EvalCondition`), their scripts
//! compiled and type-checked against the blackboard when the tree is
//! loaded.
//!
//! **Pre- and post-conditions.** The attributes `_failureIf`,
//! `_successIf`, `_skipIf`, `_while`, `_onSuccess`, `_onFailure`,
//! `_onHalted` and `_post` on any node put it inside canopy's `EvalAround`
//! decorator, whose parameters are the scripts (`_skipIf` → `skip_if`).
//! As in BehaviorTree.CPP, `_failureIf`, `_successIf` and `_skipIf` (in
//! that order) and `_while` are tested when the node is entered (IDLE);
//! while it runs only `_while` is, and false halts it (running
//! `_onHalted`) and skips it. A SUCCESS or FAILURE, the node's own or a
//! condition's, runs `_onSuccess` or `_onFailure`, then `_post`; a halt
//! from above runs `_onHalted` after the node's own halt. A skip is
//! BehaviorTree.CPP's SKIPPED, read as the parent reads it (as for
//! `RunOnce`, below): a node that can skip must be the child of a
//! Sequence or a Fallback (of any kind). Where BehaviorTree.CPP throws at
//! run time — a condition reading a key nothing wrote, a string where a
//! number is compared — canopy refuses the script when the tree is loaded,
//! or reads the slot's initial value (0, false, the empty string).
//!
//! **Precondition, Switch, Loop.** `Precondition(if, else)` runs as an
//! `EvalAround` whose condition for `else` is `!(if)`: tested once, on
//! entry, as in BehaviorTree.CPP, and not again after a halt while the
//! child ran until the child finishes (BehaviorTree.CPP's node keeps that
//! decision; canopy keeps it in a bool key of the agent's blackboard,
//! `__precondition_…`); `else="RUNNING"` returns Running and
//! tests again at the next tick until the child may run, `else="SKIPPED"`
//! is read as the parent reads SKIPPED, `else="IDLE"` (which
//! BehaviorTree.CPP throws on) is refused. `Switch2`…`Switch6` run as canopy's
//! `EvalSwitch` with the case scripts `variable == case_N` (a number
//! compared as a number, other text as a string), deciding again every
//! tick and aborting the running child when the case changes;
//! BehaviorTree.CPP compares texts at run time, canopy typed values, so a
//! case of another type than the variable's key is refused at load instead
//! of never matching. `LoopInt`, `LoopDouble`, `LoopBool` and `LoopString`
//! run as canopy's `EvalLoop`. A queue written in the file
//! (`queue="1;2;3"`), which BehaviorTree.CPP copies on entry, is a list of
//! item scripts `value := item` started over on entry. A queue on the
//! blackboard (`queue="{q}"`) is a string key holding the items separated
//! by `;` — what a script assigns (`q := '1;2;3'`) and BehaviorTree.CPP
//! converts to its shared queue — from whose front each item is cut as it
//! is taken, as BehaviorTree.CPP pops the shared queue: a halted loop goes
//! on with what is left, a loop entered again over a consumed queue
//! returns `if_empty` at once, and a queue assigned again is started on.
//! The queue is as long as a canopy string, 31 bytes (a longer literal is
//! refused at load); an item that does not read as the loop's type fails
//! the loop, where BehaviorTree.CPP throws when the string is assigned.
//! `if_empty` is SUCCESS, FAILURE, RUNNING or SKIPPED (read as the parent
//! reads it).
//!
//! **Standard ports on the blackboard.** A standard node's port may be a
//! key (`<Repeat num_cycles="{n}">`), read when BehaviorTree.CPP's
//! `getInput` reads it: every tick for Repeat, Parallel, ParallelAll,
//! Timeout, Delay and RunOnce, and for RetryUntilSuccessful again after
//! each failed attempt; on entry for Sleep. Milliseconds read from a key
//! become ticks when read, by the rule under **Time**; a string key
//! converts on each read, as in BehaviorTree.CPP. Where BehaviorTree.CPP
//! throws out of the tick (a string that is not a number; a Parallel's
//! thresholds beyond its children) the node fails, aborting its running
//! children; a key nothing wrote reads as 0, as every port's does. Ports
//! written as values keep the lowering of the table below. The module
//! `ported` says how.
//!
//! **Entry updates.** `WasEntryUpdated`, `SkipUnlessUpdated` and
//! `WaitValueUpdate` compare a key's update counter
//! ([`Updates`](canopy_core::Updates)) with the one they saw last;
//! only the keys they, or `UnsetBlackboard`, name are counted, every write
//! counting (ports, scripts, the game's), in the agent's memory. Unset
//! sets a key to its type's zero and marks it unset: the entry-update
//! nodes see it missing as BehaviorTree.CPP's do, and its next write
//! counts from 1, but a read gets the zero where BehaviorTree.CPP, which
//! removes the entry, throws. `UnsetBlackboard key="{k}"` (the entry whose
//! name `k` holds at run time) is refused, saying to name the entry.
//!
//! Refused, each with an error naming the file, line, column and element
//! and saying what to write instead: `AsyncSequence` / `AsyncFallback`
//! (they rely on BehaviorTree.CPP's wake-up signal), a `RunOnce` or
//! `SkipUnlessUpdated` whose SKIPPED no parent can read (below), and
//! `UnsetBlackboard key="{k}"`.
//!
//! # The standard nodes
//!
//! A canopy tick is one `executeTick()` of the root — `tickExactlyOnce()`,
//! a tick that never re-ticks at once (`tickOnce()` re-ticks the tree in
//! the same call when a node asked to be woken, as the yielding nodes below
//! do; canopy's next tick is that re-tick). Where a standard node's
//! semantics are exactly a canopy built-in's, it runs as that built-in and
//! prints as it; where they differ, it runs as a custom node of this crate
//! that follows BehaviorTree.CPP 4's code. In BehaviorTree.CPP a child that
//! finished keeps its status until its parent resets it; in canopy it is
//! uninstalled at once. That changes nothing except where a parent ticks a
//! finished child without resetting it, which among the standard nodes only
//! IfThenElse and WhileDoElse do, to their condition (below).
//!
//! | BehaviorTree.CPP | runs as | semantics |
//! |---|---|---|
//! | `Sequence` | canopy `Sequence` | children in order; a running child is resumed next tick; a failure restarts from the first child next time |
//! | `Fallback` | canopy `Selector` | the mirror of Sequence |
//! | `SequenceWithMemory` | canopy `SequenceWithMemory(pause=true)` | as Sequence, but entered again after a failure or a halt it goes on from the child that failed or was running (kept per agent); a child entered and succeeding in a tick ends the tick with Running, the next child is entered at the next tick |
//! | `ReactiveSequence` | canopy `ReactiveSequence` | every tick from the first child; a child that now runs or fails aborts the one running after it |
//! | `ReactiveFallback` | canopy `ReactiveSelector` | the mirror of ReactiveSequence |
//! | `Parallel(success_count=-1, failure_count=1)` | custom | each tick, every child not yet finished, in order; after each child, `success_count` successes → Success, `failure_count` failures or too few children left to succeed → Failure, running children aborted; −1 means all, −2 all but one… |
//! | `ParallelAll(max_failures=1)` | custom | every child to its end; then Failure if at least `max_failures` failed, else Success |
//! | `IfThenElse` | custom | child 0 until it finishes; then child 1 (Success) or 2 (Failure; with 2 children: Failure) to its end |
//! | `WhileDoElse` | custom | child 0 every tick; Success: abort child 2, tick child 1; Failure: abort child 1, tick child 2 (with 2 children: Failure); condition running: Running, branches untouched |
//! | `Inverter`, `ForceSuccess`, `ForceFailure` | canopy's | as canopy |
//! | `KeepRunningUntilFailure` | custom | child Success: Running, the child restarts next tick; Failure: Failure |
//! | `RetryUntilSuccessful(num_attempts)` | custom | a failing child is re-run, up to `num_attempts` attempts in all (−1: for ever): in the same tick after a child that was running, at the next tick (Running in between) after one entered in this tick |
//! | `Repeat(num_cycles)` | custom | a succeeding child is re-run, `num_cycles` times in all (−1: for ever): in the same tick after a child that was running, at the next tick (Running in between) after one entered in this tick |
//! | `RunOnce(then_skip=true)` | canopy `RunOnce(then)` | the child runs to its end once per agent; afterwards SKIPPED, which canopy has no status for: read as its parent reads it, `then=success` under a Sequence (ReactiveSequence, SequenceWithMemory), `then=failure` under a Fallback (ReactiveFallback), refused elsewhere. Exact, except that a parent all of whose children skipped returns SKIPPED in BehaviorTree.CPP and Success/Failure in canopy |
//! | `RunOnce(then_skip=false)` | canopy `RunOnce(then=same)` | afterwards the child's final status, without running it |
//! | `Timeout(msec)` | canopy `Timeout(ticks)` | the child is aborted and the node fails on the first tick at least `msec` after entry; `msec="0"`: no timeout (custom) |
//! | `Delay(delay_msec)` | custom | Running, the child untouched, until the first tick at least `delay_msec` after entry (and never on the entry tick); then the child's status |
//! | `Sleep(msec)` | canopy `Wait(ticks)` | Success on the first tick at least `msec` after entry; `msec="0"`: at once |
//! | any of these with a port read from a key | custom | as above, the port read when BehaviorTree.CPP reads it (above) |
//! | `WasEntryUpdated(entry)` | custom | Success if the entry was written since the node last looked, else Failure |
//! | `SkipUnlessUpdated(entry)` | custom | a running child is resumed; else the child if the entry was written since the node last looked, else SKIPPED, read as its parent reads it (as for RunOnce) |
//! | `WaitValueUpdate(entry)` | custom | as SkipUnlessUpdated, Running where it would skip |
//! | `UnsetBlackboard(key)` | custom | the key set to its type's zero and marked unset; Success |
//! | `AlwaysSuccess`, `AlwaysFailure` | canopy's | as canopy |
//! | `SubTree ID` | the tree itself, shared | transparent, as in BehaviorTree.CPP |
//!
//! **Time.** Milliseconds become ticks of [`XmlOptions::tick_ms`]
//! (default 100): a duration of `d` ms is `⌈d / tick_ms⌉` ticks, because a
//! timer of `d` ms started at tick `t` has fired at tick `t + k` exactly
//! when `k · tick_ms ≥ d`.
//!
//! **Yields.** In a tree it loaded, BehaviorTree.CPP's Repeat,
//! RetryUntilSuccessful and SequenceWithMemory return RUNNING after a child
//! that went from IDLE to finished within the tick, and ask to be woken;
//! so `<Repeat num_cycles="3"><AlwaysSuccess/></Repeat>` gives Running,
//! Running, Success. (Its unit tests build these nodes outside a tree,
//! where they do not yield.) canopy does the same, so a Repeat or a Retry
//! runs two cycles in a tick at most, and one tick's work is bounded by
//! [`XmlOptions::max_updates_per_tick`].
//!
//! **Checked against BehaviorTree.CPP.** The test `differential_btcpp` runs
//! 1,000 random trees over every standard node above except the timed
//! ones, with `Script`, `ScriptCondition`, the pre- and post-condition
//! attributes, `Precondition` (every `else`), `Switch2`, `LoopInt` (over a
//! queue in the file or on the blackboard) and a remapped or
//! autoremapped `<SubTree>`, on canopy and on BehaviorTree.CPP 4 (through
//! `behaviortreepy`) and compares, tick by tick, the root's status, each
//! leaf's ticks and halts and the root blackboard's values: 993 of 1,000
//! are identical (1,978 and 1,978 of 2,000 with seeds 1 and 2). The test
//! `parity` runs hand-written trees (a Precondition's `else`, a loop's
//! `if_empty`, loops over a queue on the blackboard, standard ports read
//! from keys, the entry-update nodes) whose traces were recorded from
//! BehaviorTree.CPP; two keep canopy's own trace beside it, where canopy
//! keeps an unset key's slot (its zero shows in the blackboard) and where
//! it follows 4.10 over the 4.8.2 that recorded (a halted
//! SkipUnlessUpdated halts its child). They agree except in two cases:
//! - SKIPPED. A RunOnce that skips, and a node whose `_skipIf` or `_while`
//!   skips it, return SKIPPED, which canopy reads as the parent would
//!   (above). BehaviorTree.CPP's Sequence (and the other
//!   controls) returns SKIPPED when every child skipped, and a Fallback
//!   then goes on to its next child where canopy's stops at the Success; a
//!   SKIPPED root is reported as such; a SequenceWithMemory does not yield
//!   after a skipped child; an IfThenElse whose condition skips throws.
//! - A finished condition ticked again. IfThenElse (with two children,
//!   after its condition failed) and WhileDoElse (while a branch runs) tick
//!   their condition again without resetting it. A BehaviorTree.CPP leaf
//!   that can run (a `StatefulActionNode`) then returns its old status
//!   without running its code, and a `LoopInt` finds its queue empty and
//!   returns `if_empty`; a synchronous leaf runs again, as every canopy
//!   node does, and canopy's loop starts its list over.

//!
//! # Writing XML
//!
//! [`export_file`] writes a canopy tree file (JSON or RON) as XML that
//! Groot2 opens and this crate reads back into the same tree (the same
//! printed tree, the same traces): built-ins as the standard node with
//! exactly their semantics (`Selector` as `Fallback`, `Wait` as `Sleep`,
//! `Timeout` with milliseconds), everything else in the explicit form,
//! declared in a generated `<TreeNodesModel>` with its parameters as input
//! ports.
//!
//! # Untrusted input
//!
//! Files are data from strangers: input is bounded in bytes
//! ([`MAX_XML_BYTES`] over all files), files ([`MAX_FILES`]), include depth
//! ([`MAX_INCLUDE_DEPTH`]), element nesting, nodes per tree level
//! ([`MAX_LEVELS`]) and the work one tick may do; document type
//! declarations (and with them entity expansion) are refused; every error
//! quotes at most 80 characters of the input, control characters escaped.
//! Includes stay inside the directory of the file loaded — no absolute
//! paths, no `..` past it, no symbolic links out of it — unless
//! [`XmlOptions::includes_outside`] says otherwise, and an include that
//! leaves it by its spelling is refused before the path is looked at, so
//! the message never tells whether a file exists there.
//! Nothing panics on any input ([`fuzz_one`] is the fuzz target's body).

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod build;
mod check;
mod dom;
mod error;
mod export;
mod model;
mod nodes;
mod params;
mod ported;
mod scope;
mod scripted;
mod sources;
mod stand_in;
mod standard;
mod text;

use std::path::Path;

use canopy_core::Tree;
use canopy_data::{Format, LoadError, Registry};
use serde_json::Value;

pub use error::{ExportError, XmlError};
pub use model::MAX_LEVELS;
pub use sources::{MAX_FILES, MAX_INCLUDE_DEPTH, MAX_XML_BYTES};
pub use stand_in::{NodeModel, StandIn, StandInRules};

/// How XML is read and written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlOptions {
    /// Milliseconds per tick, to turn `msec` ports into ticks and back
    /// (at least 1; 0 is read as 1). Default 100.
    pub tick_ms: u32,
    /// The tree to run, instead of the file's `main_tree_to_execute`.
    pub main_tree: Option<String>,
    /// Most node updates one tick may make, with loops at their most cycles
    /// and subtrees counted at every use; a tree that could exceed it is
    /// refused. Default 1,000,000.
    pub max_updates_per_tick: u64,
    /// Whether `<include path="…">` may reach files outside the directory
    /// of the file loaded (or the `base` given): absolute paths, `..` past
    /// it, symbolic links out of it. BehaviorTree.CPP follows any path;
    /// canopy does not unless this is set, as a tree file may come from
    /// someone who should not make it read other files. Default `false`.
    pub includes_outside: bool,
}

impl Default for XmlOptions {
    fn default() -> Self {
        XmlOptions {
            tick_ms: 100,
            main_tree: None,
            max_updates_per_tick: 1_000_000,
            includes_outside: false,
        }
    }
}

/// Load the tree of a BehaviorTree.CPP XML file, its includes relative to it.
pub fn load_file<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, XmlError> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let cannot = |e: std::io::Error| XmlError::whole(&shown, format!("cannot read: {e}"));
    // Bounded, and only regular files: a FIFO would block, /dev/zero never end.
    let bytes = canopy_data::read_file(path).map_err(|p| XmlError::whole(&shown, p.to_string()))?;
    let canonical = std::fs::canonicalize(path).map_err(cannot)?;
    let base = path.parent().unwrap_or(Path::new(""));
    let text = sources::text_of(&bytes, &shown)?;
    drop(bytes); // not held beside its text while the tree is built
    load(registry, text, &shown, Some(base), Some(canonical), options)
}

/// Load a tree from XML text; `source` names it in errors. Includes are
/// resolved in `base` (`None`: an include is an error).
pub fn load_str<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: &str,
    source: &str,
    base: Option<&Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, XmlError> {
    load_bytes(registry, text.as_bytes(), source, base, options)
}

/// Load a tree from XML bytes, which must be UTF-8.
pub fn load_bytes<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    bytes: &[u8],
    source: &str,
    base: Option<&Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, XmlError> {
    if bytes.len() as u64 > MAX_XML_BYTES {
        return Err(XmlError::whole(
            source,
            format!(
                "the input is {} bytes, more than the limit of {MAX_XML_BYTES}",
                bytes.len()
            ),
        ));
    }
    let text = sources::text_of(bytes, source)?;
    load(registry, text, source, base, None, options)
}

fn load<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: String,
    source: &str,
    base: Option<&Path>,
    canonical: Option<std::path::PathBuf>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, XmlError> {
    let files = sources::gather(text, source, base, canonical, options.includes_outside)?;
    let model = model::read(files, registry, options)?;
    check::check(&model, options)?;
    build::build(model, registry, options)
}

/// Load any tree file canopy reads: `.xml` with this crate, `.json` and
/// `.ron` with the registry. XML errors come as [`LoadError`]s with their
/// line and column, so a caller reports every format alike.
pub fn load_any<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, LoadError> {
    let path = path.as_ref();
    if is_xml(path) {
        Ok(load_file(registry, path, options)?)
    } else {
        registry.load_file(path)
    }
}

/// Whether a path names an XML file (by its extension, in any case).
pub fn is_xml(path: impl AsRef<Path>) -> bool {
    path.as_ref()
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
}

/// A tree document (the value of a JSON or RON tree file) as
/// BehaviorTree.CPP XML; the registry must load the document.
pub fn export_value<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    document: &Value,
    source: &str,
    options: &XmlOptions,
) -> Result<String, ExportError> {
    registry.load_value(document, source)?;
    export::export(registry, document, source, options)
}

/// A JSON or RON tree file's text as BehaviorTree.CPP XML.
pub fn export_str<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: &str,
    format: Format,
    source: &str,
    options: &XmlOptions,
) -> Result<String, ExportError> {
    // Read once, as strictly as the registry reads files (errors with
    // their positions, sizes and nesting bounded), then checked as a tree.
    let document = canopy_data::parse(text, format, source)?;
    registry.load_value(&document, source)?;
    export::export(registry, &document, source, options)
}

/// A JSON or RON tree file as BehaviorTree.CPP XML.
pub fn export_file<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Result<String, ExportError> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let whole = |problem: String| {
        ExportError::Load(LoadError::new(
            shown.clone(),
            canopy_data::Location::File,
            canopy_data::Problem::Reported { problem },
        ))
    };
    let format = Format::from_path(path).ok_or_else(|| {
        whole("unknown file extension: tree files end in .json or .ron".to_string())
    })?;
    let size = std::fs::metadata(path)
        .map_err(|e| whole(format!("cannot read: {e}")))?
        .len();
    if size > canopy_data::MAX_FILE_BYTES {
        return Err(whole(format!(
            "the file is {size} bytes, more than the limit of {}",
            canopy_data::MAX_FILE_BYTES
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| whole(format!("cannot read: {e}")))?;
    export_str(registry, &text, format, &shown, options)
}

/// The fuzz target's body: any bytes as an XML tree with the built-in
/// types (no includes), ticked in both modes when it loads; any bytes as a
/// JSON tree, exported and read back, which must give the same tree.
///
/// # Panics
/// When a JSON tree's export does not read back as the same tree — the
/// finding the fuzzer is after. Never on malformed input.
pub fn fuzz_one(data: &[u8]) {
    use canopy_core::{Agent, Mode};
    use std::sync::OnceLock;
    static REGISTRY: OnceLock<Registry<(), ()>> = OnceLock::new();
    let registry = REGISTRY.get_or_init(Registry::new);
    let options = XmlOptions::default();
    if let Ok(tree) = load_bytes(registry, data, "fuzz.xml", None, &options) {
        for mode in [Mode::Tick, Mode::Event] {
            let mut agent = Agent::new(&tree);
            agent.set_mode(&tree, mode);
            for _ in 0..16 {
                agent.tick(&tree, &mut (), &());
            }
        }
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tree) = registry.load_str(text, Format::Json, "fuzz.json") else {
        return;
    };
    let Ok(xml) = export_str(registry, text, Format::Json, "fuzz.json", &options) else {
        return;
    };
    // The tick budget guards XML from strangers; an export is checked for
    // reading back, whatever its size.
    let unbounded = XmlOptions {
        max_updates_per_tick: u64::MAX,
        ..XmlOptions::default()
    };
    let back = load_str(registry, &xml, "fuzz.xml", None, &unbounded)
        .unwrap_or_else(|e| panic!("an export does not read back: {e}\n{xml}"));
    assert_eq!(
        back.display().to_string(),
        tree.display().to_string(),
        "an export reads back as another tree:\n{xml}"
    );
}
