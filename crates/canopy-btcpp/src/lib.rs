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
//! `<BehaviorTree ID="…">`, the one chosen by [`XmlOptions::main_tree`]
//! (as BehaviorTree.CPP's `createTree("ID")`), else the one named by
//! `main_tree_to_execute`, else the only one, run; `<SubTree ID="…"/>`
//! for another tree, shared as canopy's subtrees are; `<include
//! path="…"/>` relative to the including file, each file read once,
//! cycles refused; a `<TreeNodesModel>` read as BehaviorTree.CPP reads it
//! (its `SubTree` models complete each `<SubTree>`'s remapping, below)
//! and compared with the registry. Nodes are written compact
//! (`<Fallback>`, `<MoveTo speed="2"/>`) or explicit (`<Control
//! ID="Fallback">`, `<Action ID="MoveTo" …/>`); `name` is optional (the
//! type, as BehaviorTree.CPP does). Names follow BehaviorTree.CPP 4.10's
//! rules: a tree's ID is any model name that is not a node type's
//! (`BehaviorTree` and `Action` are IDs), a port may be named `type` or
//! `children` (canopy's parameters `type_` and `children_`, as those are
//! fields of its tree files). Attribute values are read as
//! BehaviorTree.CPP's XML parser (tinyxml2) reads them, which files
//! written for it rely on: a bare `&` is itself (`code="a==42 &&
//! b=='john'"`), as is any `&` that does not start one of the five named
//! references or a numeric one, and a line break in a value stays a line
//! break.
//!
//! **Warnings.** What BehaviorTree.CPP runs, canopy runs; where the file
//! probably says something its author did not mean, the load warns
//! ([`load_file_with_warnings`], [`XmlWarning`]), each warning placed at
//! its element with what to write instead: an explicit element whose tag
//! names another category than its type's (`<Condition ID="X"/>` for an
//! action X: BehaviorTree.CPP does not look at the tag, and builds X as
//! registered); a node model that disagrees with the registry (another
//! category, a port the type lacks, another direction, a type that does
//! not fit — BehaviorTree.CPP reads no model of a registered type, and
//! builds it from its code); a `<SubTree>` remapping a port its tree's
//! model lacks. [`XmlOptions::strict`] makes each an error.
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
//! instance's own, a slot named `@Tree_N__key` that nothing else names;
//! `{@key}` is the main tree's key from anywhere. A key remapped to text
//! (`goal="3;4"`) is that constant in the subtree's ports and scripts. A
//! subtree whose keys all resolve to themselves is shared by its
//! references; otherwise each reference gets a copy of it with its keys.
//! Types are checked across a remapping as for any key, so a mismatch
//! names both elements. A `SubTree` model in the `<TreeNodesModel>`
//! (`<SubTree ID="Go"><input_port name="goal" default="{home}"/></SubTree>`,
//! as Groot2 writes it) completes each `<SubTree ID="Go">` as
//! BehaviorTree.CPP does: a port it declares and the `<SubTree>` leaves out
//! is remapped to its `default` (a key or a value), is an error without
//! one, and is left to `_autoremap` when that is on; a remapped port it
//! does not declare is a warning. What
//! BehaviorTree.CPP decides at run time — a key's type, a port given a
//! value it cannot read — canopy decides when the tree is loaded.
//!
//! **Scripts.** `Script`, `ScriptCondition` and `SetBlackboard` run as
//! canopy's script leaves (`Eval`, `EvalCondition`), their scripts in
//! BehaviorTree.CPP 4.10's language compiled against the blackboard when
//! the tree is loaded; a `SetBlackboard` value is assigned as the value it
//! is, never read as code.
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
//! `EvalAround` whose `precondition` is `if`, compiled on its own and
//! negated after compiling: tested once, on
//! entry, as in BehaviorTree.CPP, and not again after a halt while the
//! child ran until the child finishes (BehaviorTree.CPP's node keeps that
//! decision; canopy keeps it in a bool key of the agent's blackboard,
//! `__precondition_…`); `else="RUNNING"` returns Running and
//! tests again at the next tick until the child may run, `else="SKIPPED"`
//! is read as the parent reads SKIPPED, `else="IDLE"` (which
//! BehaviorTree.CPP throws on) is refused. `Switch2`…`Switch6` run as canopy's
//! `EvalSwitch`, comparing `variable` with each `case_N` as texts (else as
//! numbers) as BehaviorTree.CPP 4.10 does, deciding again every tick and
//! aborting the running child when the case changes; a case is a text or
//! a `{key}`, never code. `LoopInt`, `LoopDouble`, `LoopBool` and `LoopString`
//! run as canopy's `EvalLoop`. A queue written in the file
//! (`queue="1;2;3"`), which BehaviorTree.CPP copies on entry, is a list of
//! item scripts `value := item` started over on entry. A queue on the
//! blackboard (`queue="{q}"`) is a string key holding the items separated
//! by `;`, what a script assigns (`q := '1;2;3'`): as BehaviorTree.CPP
//! 4.10's loop converts such a string into a queue of its own on entry,
//! canopy's copies it on entry and takes the items from its copy, leaving
//! the key as it was (a loop entered again starts over on the string it
//! finds). The queue is as long as a canopy string, 31 bytes (a longer
//! literal is refused at load); an item that does not read as the loop's
//! type fails the loop, where BehaviorTree.CPP throws on entry.
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
//! ([`Updates`](canopy_core::board::Updates)) with the one they saw last;
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
mod category;
mod check;
mod dom;
mod emulated;
mod error;
mod export;
mod model;
mod names;
mod nodes;
mod options;
mod palette;
mod params;
mod ported;
mod scope;
mod scripted;
mod semantics;
mod sources;
mod stand_in;
mod standard;
mod warning;
mod work;

use std::path::Path;

use canopy_core::Tree;
use canopy_data::{Format, LoadError, Registry, TreeSource, XmlLimit};
use serde_json::Value;

pub use build::MAX_PARAMETER_BYTES;
pub use error::ExportError;
pub use model::MAX_LEVELS;
pub use options::XmlOptions;
pub use sources::{MAX_FILES, MAX_INCLUDE_DEPTH, MAX_XML_BYTES};
pub use stand_in::{NodeModel, StandIn, StandInRules};
pub use warning::{MAX_WARNINGS, WarningKind, XmlWarning};
#[doc(hidden)]
pub use work::reader_work;

/// A tree loaded from XML, with what BehaviorTree.CPP accepts in it and
/// canopy warns about.
#[derive(Debug)]
pub struct Loaded<A, W> {
    /// The tree to run.
    pub tree: Tree<A, W>,
    /// The warnings, in the order found, at most [`MAX_WARNINGS`].
    pub warnings: Vec<XmlWarning>,
    /// How many more warnings there were past [`MAX_WARNINGS`].
    pub more_warnings: usize,
}

/// Load the tree of a BehaviorTree.CPP XML file, its includes relative to it.
pub fn load_file<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, LoadError> {
    load_file_with_warnings(registry, path, options).map(|loaded| loaded.tree)
}

/// [`load_file`], with the warnings (every one an error instead when
/// [`XmlOptions::strict`]).
pub fn load_file_with_warnings<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Result<Loaded<A, W>, LoadError> {
    let path = path.as_ref();
    let (text, shown, canonical) = read_xml(path)?;
    let base = path.parent().unwrap_or(Path::new(""));
    load(registry, text, &shown, Some(base), Some(canonical), options)
}

/// An XML file's text, as errors name the file, and its canonical path
/// (where its includes may go).
fn read_xml(path: &Path) -> Result<(String, String, std::path::PathBuf), LoadError> {
    let shown = path.display().to_string();
    let cannot = |e: std::io::Error| {
        let reason = e.to_string();
        crate::error::whole(&shown, canopy_data::Problem::Unreadable { reason })
    };
    // Bounded, and only regular files: a FIFO would block, /dev/zero never end.
    let bytes = canopy_data::read_file(path).map_err(|p| crate::error::whole_typed(&shown, p))?;
    let canonical = std::fs::canonicalize(path).map_err(cannot)?;
    // The bytes are dropped once read: not held beside the text while the
    // tree is built.
    let text = sources::text_of(&bytes, &shown)?;
    Ok((text, shown, canonical))
}

/// Load a tree from XML text; `source` names it in errors. Includes are
/// resolved in `base` (`None`: an include is an error).
pub fn load_str<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: &str,
    source: &str,
    base: Option<&Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, LoadError> {
    load_bytes(registry, text.as_bytes(), source, base, options)
}

/// [`load_str`], with the warnings (every one an error instead when
/// [`XmlOptions::strict`]).
pub fn load_str_with_warnings<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: &str,
    source: &str,
    base: Option<&Path>,
    options: &XmlOptions,
) -> Result<Loaded<A, W>, LoadError> {
    load_bytes_with_warnings(registry, text.as_bytes(), source, base, options)
}

/// Load a tree from XML bytes, which must be UTF-8.
pub fn load_bytes<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    bytes: &[u8],
    source: &str,
    base: Option<&Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, LoadError> {
    load_bytes_with_warnings(registry, bytes, source, base, options).map(|loaded| loaded.tree)
}

/// [`load_bytes`], with the warnings.
pub fn load_bytes_with_warnings<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    bytes: &[u8],
    source: &str,
    base: Option<&Path>,
    options: &XmlOptions,
) -> Result<Loaded<A, W>, LoadError> {
    if bytes.len() as u64 > MAX_XML_BYTES {
        return Err(crate::error::whole(
            source,
            XmlLimit::InputBytes {
                bytes: bytes.len() as u64,
                limit: MAX_XML_BYTES,
            },
        ));
    }
    let text = sources::text_of(bytes, source)?;
    load(registry, text, source, base, None, options)
}

/// The files of a load (the first and its includes) read and checked.
fn read_model<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: String,
    source: &str,
    base: Option<&Path>,
    canonical: Option<std::path::PathBuf>,
    options: &XmlOptions,
) -> Result<model::Model, LoadError> {
    let files = sources::gather(text, source, base, canonical, options.includes_outside)?;
    let model = model::read(files, registry, options)?;
    check::check(&model, options)?;
    Ok(model)
}

fn load<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: String,
    source: &str,
    base: Option<&Path>,
    canonical: Option<std::path::PathBuf>,
    options: &XmlOptions,
) -> Result<Loaded<A, W>, LoadError> {
    let model = read_model(registry, text, source, base, canonical, options)?;
    let (mut warnings, mut more_warnings) = model.warnings.take();
    let scripts = warning::Warnings::new(options.strict);
    let tree = build::build(model, registry, options, &scripts)?;
    let (script_warnings, more) = scripts.take();
    more_warnings += more;
    for warning in script_warnings {
        if warnings.len() < warning::MAX_WARNINGS {
            warnings.push(warning);
        } else {
            more_warnings += 1;
        }
    }
    Ok(Loaded {
        tree,
        warnings,
        more_warnings,
    })
}

/// Load any tree file canopy reads: `.xml` with this crate, `.json` and
/// `.ron` with the registry. Errors are [`LoadError`]s whatever the
/// format, so a caller reports every format alike.
pub fn load_any<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, LoadError> {
    let path = path.as_ref();
    if is_xml(path) {
        return load_file(registry, path, options);
    }
    // A file written from XML may hold BehaviorTree.CPP's nodes that run
    // as this crate's own (`btcpp:Repeat`, see `export_xml_file`).
    let (bytes, format, file) = tree_file(path)?;
    registry
        .loading(TreeSource::bytes(&bytes, format, &file))
        .own_types(&emulated::emulated_types())
        .load()
}

/// Every error of a tree file of any format canopy reads, up to
/// [`MAX_ERRORS`](canopy_data::MAX_ERRORS) for JSON and RON (as
/// [`Loading::errors`](canopy_data::Loading::errors) finds them, with this crate's own node types
/// known, as [`load_any`] knows them); an XML file's first.
pub fn check_any<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    options: &XmlOptions,
) -> Vec<LoadError> {
    let path = path.as_ref();
    if is_xml(path) {
        return load_file(registry, path, options)
            .err()
            .into_iter()
            .collect();
    }
    match tree_file(path) {
        Ok((bytes, format, file)) => registry
            .loading(TreeSource::bytes(&bytes, format, &file))
            .own_types(&emulated::emulated_types())
            .errors(),
        Err(e) => vec![e],
    }
}

/// A JSON or RON tree file written again in `format` (JSON or RON), as
/// [`export_xml_file`] writes them; refused, with the load's error, where
/// it does not load.
pub fn convert_file<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    format: Format,
) -> Result<String, LoadError> {
    let (bytes, from, file) = tree_file(path.as_ref())?;
    registry
        .loading(TreeSource::bytes(&bytes, from, &file))
        .own_types(&emulated::emulated_types())
        .check()?;
    let text = std::str::from_utf8(&bytes).unwrap_or_default();
    let document = canopy_data::parse(text, from, &file)?;
    let document = canopy_data::document::from_json_owned(document);
    Ok(export::tree_file(&document, format))
}

/// A JSON or RON tree file's bytes, format and name, read as the
/// registry reads files (bounded, regular files only).
fn tree_file(path: &Path) -> Result<(Vec<u8>, Format, String), LoadError> {
    let file = path.display().to_string();
    let whole = |problem: canopy_data::Problem| {
        LoadError::new(file.clone(), canopy_data::Location::File, problem)
    };
    let format =
        Format::from_path(path).ok_or_else(|| whole(canopy_data::Problem::UnknownExtension))?;
    let bytes = canopy_data::read_file(path).map_err(whole)?;
    Ok((bytes, format, file))
}

/// A BehaviorTree.CPP XML file (with its includes) as a canopy tree file
/// in `format` (JSON or RON), which [`load_any`] loads into the same tree
/// as the XML: the document the XML is loaded through, written out. Each
/// `<SubTree>` with keys of its own is a copy with its keys renamed (as
/// canopy runs it; JSON and RON subtrees share the one blackboard), the
/// pre- and post-condition scripts an `EvalAround` around their node, the
/// script nodes canopy's `Eval` family, and the standard nodes canopy runs
/// as nodes of this crate's own (`Repeat`, `Parallel`, `IfThenElse`, …)
/// `btcpp:Repeat` and so on, which [`load_any`] (not
/// [`Registry::loading`] with a file) knows and [`export_file`] writes back as the
/// standard nodes. Refused, with the load's error, where the XML does not
/// load.
///
/// ```
/// use canopy_btcpp::{XmlOptions, export_xml_str, load_str};
/// use canopy_data::{Format, Registry};
///
/// let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="Main">
///   <Repeat num_cycles="2"><Sleep msec="100"/></Repeat>
/// </BehaviorTree></root>"#;
/// let registry = Registry::<(), ()>::new();
/// let json = export_xml_str(&registry, xml, "main.xml", None, Format::Json, &XmlOptions::default())
///     .unwrap();
/// assert_eq!(json, r#"{
///   "tree": {"type": "btcpp:Repeat", "name": "Repeat", "num_cycles": 2, "children": [
///     {"type": "Wait", "name": "Sleep", "ticks": 1}
///   ]}
/// }
/// "#);
/// ```
pub fn export_xml_file<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    path: impl AsRef<Path>,
    format: Format,
    options: &XmlOptions,
) -> Result<String, LoadError> {
    let path = path.as_ref();
    let (text, shown, canonical) = read_xml(path)?;
    let base = path.parent().unwrap_or(Path::new(""));
    export_xml(
        registry,
        text,
        &shown,
        Some(base),
        Some(canonical),
        format,
        options,
    )
}

/// [`export_xml_file`] for XML text; `source` names it in errors, includes
/// are resolved in `base`.
pub fn export_xml_str<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: &str,
    source: &str,
    base: Option<&Path>,
    format: Format,
    options: &XmlOptions,
) -> Result<String, LoadError> {
    if text.len() as u64 > MAX_XML_BYTES {
        return Err(crate::error::whole(
            source,
            XmlLimit::InputBytes {
                bytes: text.len() as u64,
                limit: MAX_XML_BYTES,
            },
        ));
    }
    let text = sources::text_of(text.as_bytes(), source)?;
    export_xml(registry, text, source, base, None, format, options)
}

fn export_xml<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    text: String,
    source: &str,
    base: Option<&Path>,
    canonical: Option<std::path::PathBuf>,
    format: Format,
    options: &XmlOptions,
) -> Result<String, LoadError> {
    // Loaded first, for the load's own errors (a tree that does not build).
    load(
        registry,
        text.clone(),
        source,
        base,
        canonical.clone(),
        options,
    )?;
    let model = read_model(registry, text, source, base, canonical, options)?;
    build::tree_file(&model, registry, format)
}

/// The node types of `registry` as a BehaviorTree.CPP node model, as
/// BehaviorTree.CPP's `writeTreeNodesModelXML` writes a factory's: a
/// `<root BTCPP_format="4">` holding one `<TreeNodesModel>` with a model
/// per type — its category, each parameter as an `<input_port>` (a port
/// the node writes as an `<output_port>`) with its type as
/// BehaviorTree.CPP names it, its default and documentation, and the
/// type's description. Groot2 opens it as the palette of the game's
/// nodes, and [`NodeModel`] reads it back to the same palette.
///
/// canopy's built-in types are left out unless `builtins` (as
/// BehaviorTree.CPP leaves its own out by default); those that
/// BehaviorTree.CPP's standard nodes stand for (`Selector` is `Fallback`,
/// `Wait` is `Sleep`, the script nodes) are always left out, as Groot2
/// knows them.
///
/// ```
/// use canopy_btcpp::{NodeModel, StandInRules, write_model};
/// use canopy_core::Status;
/// use canopy_data::{Params, Registry};
///
/// /// Digs for `depth` metres.
/// #[derive(Params)]
/// struct Dig {
///     /// How deep.
///     #[param(default = 2.5)]
///     depth: f64,
/// }
///
/// let mut registry = Registry::<(), ()>::new();
/// registry.action("Dig", |_: Dig| |_: &mut canopy_core::Ctx<(), ()>| Status::Success).unwrap();
/// let xml = write_model(&registry, false);
/// assert!(xml.contains(r#"<Action ID="Dig">"#));
/// assert!(xml.contains(r#"<input_port name="depth" type="double" default="2.5">How deep.</input_port>"#));
///
/// // Read back, stood in and written again: the same palette.
/// let model = NodeModel::read_str(&xml, "dig.xml").unwrap();
/// let mut stand_ins = Registry::<(), ()>::new();
/// model.stand_in(&mut stand_ins, &StandInRules::new()).unwrap();
/// let again = NodeModel::read_str(&write_model(&stand_ins, false), "again.xml").unwrap();
/// assert_eq!(again, model);
/// ```
pub fn write_model<A: 'static, W: 'static>(registry: &Registry<A, W>, builtins: bool) -> String {
    export::write_model(registry, builtins)
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
    // Checked as its JSON text is; places in that text, which the caller
    // never saw, are left out (the node's path says where).
    let text = serde_json::to_string(document).unwrap_or_default();
    registry
        .loading(TreeSource::text(&text, Format::Json, source))
        .own_types(&emulated::emulated_types())
        .check()
        .map_err(|e| {
            let location = match e.location() {
                canopy_data::Location::Node { path, name, .. } => canopy_data::Location::Node {
                    path: path.clone(),
                    name: name.clone(),
                    at: None,
                },
                _ => canopy_data::Location::File,
            };
            LoadError::new(e.file(), location, e.problem().clone())
        })?;
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
    registry
        .loading(TreeSource::text(text, format, source))
        .own_types(&emulated::emulated_types())
        .check()?;
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
    let whole =
        |problem| ExportError::Load(LoadError::new(&shown, canopy_data::Location::File, problem));
    let format =
        Format::from_path(path).ok_or_else(|| whole(canopy_data::Problem::UnknownExtension))?;
    // Bounded, and only regular files, as the registry reads them: a FIFO
    // would block, /dev/zero never end.
    let bytes = canopy_data::read_file(path).map_err(whole)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        whole(canopy_data::Problem::InvalidUtf8 {
            at: e.valid_up_to(),
        })
    })?;
    export_str(registry, text, format, &shown, options)
}

/// The fuzz target's body: any bytes as an XML tree with the built-in
/// types (no includes), ticked in both modes when it loads; any bytes as a
/// JSON tree, exported and read back, which must give the same tree.
///
/// # Panics
/// When a JSON tree's export does not read back as the same tree — the
/// finding the fuzzer is after. Never on malformed input. For the fuzz
/// targets and tests, not a game: hidden from the docs.
#[doc(hidden)]
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
    let source = TreeSource::text(text, Format::Json, "fuzz.json");
    let Ok(tree) = registry.loading(source).load() else {
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
