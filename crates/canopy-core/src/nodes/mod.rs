//! Every node kind: its type, and what it does — the semantics, in one
//! place.
//!
//! Each kind — or family of mirror-image kinds — lives in a file of its
//! own holding everything about it: its name and description, how many
//! children it takes, its typed parameters (declared with
//! `#[derive(Params)]`, as a game's own node types are), its facts (how
//! much task memory, how its children share memory, how the event-driven
//! scheduler treats it) and its semantics (update, end, which children
//! run, when it wakes). One line in the table at the bottom of this file
//! connects it to everything else: [`NodeKind`], the engine's dispatch,
//! names, parameters, printing, the builder's [`node`](crate::Builder::node)
//! and the loaders' built-in types ([`builtins`]). The rules below are the
//! contract those files implement. Every
//! task is updated at most once per tick unless a parent re-enters it; a
//! child that finishes is uninstalled at once and starts fresh when entered
//! again. A task that is still running when its parent stops needing it is
//! **aborted**: its running children are aborted first (deepest first), then
//! its terminate hook sees [`Exit::Aborted`]. After the
//! root finishes, the agent's next tick installs it afresh.
//!
//! # Controls
//!
//! ## Sequence
//! Runs children in order, continuing within the same tick after a child
//! succeeds; returns the first `Running` or `Failure`; `Success` when all
//! succeed. *With memory*: a running child is resumed next tick and the
//! children before it are not re-run. No children: `Success`.
//!
//! ## Selector
//! The mirror of Sequence: returns the first `Running` or `Success`;
//! `Failure` when all fail. With memory. No children: `Failure`.
//!
//! ## SequenceWithMemory
//! A Sequence whose place outlives its activation: it remembers, per agent
//! (and per place in the tree), the child it stopped at. When it is
//! entered it goes on from the child that failed last time, or from the one
//! that was running when it was aborted, without re-running the children
//! before it; once every child has succeeded it starts from the first
//! again. BehaviorTree.CPP's `SequenceWithMemory`. No children: `Success`.
//! With `pause = true`, a child that was entered and succeeded within one
//! update ends that update with `Running`: the next child is entered at
//! the next tick (a child that was already running and succeeds does not
//! pause). That is BehaviorTree.CPP's `SequenceWithMemory` in a tree it
//! loaded from XML, which asks to be woken and re-ticked there.
//!
//! ## ReactiveSequence
//! Every tick re-enters, from the first, the children before the running
//! one; the running child itself is resumed, not restarted, when reached. If
//! an earlier child now fails or runs, the child that was running is aborted
//! (after that earlier child's update) and the sequence returns its status.
//! No children: `Success`.
//!
//! ## ReactiveSelector
//! A priority selector: every tick re-tries, from the first (highest
//! priority), the children before the running one; the running child is
//! resumed when reached. If a higher-priority child now succeeds or runs,
//! the lower-priority running child is aborted. No children: `Failure`.
//!
//! ## Parallel
//! `Parallel { success, failure }`: each tick updates, in child order, every
//! child that has not finished in this activation; a finished child keeps
//! counting with its final status and is never re-run. A [`One`] policy is
//! decided the moment a child meets it (later children are not updated that
//! tick). After the loop, all-failed is checked before all-succeeded. If
//! every child has finished and neither policy is met — possible only with
//! `All`/`All` and mixed results — the parallel fails, because success can no
//! longer be reached (the classic version would return `Running` forever).
//! When it finishes, its running children are aborted. No children: a build
//! error.
//!
//! ## Shuffle
//! `Shuffle { like }`: a Sequence (`like = sequence`) or a Selector
//! (`like = selector`, the default) whose children run in an order drawn
//! when it is entered: a uniform permutation from the node's salt, the
//! agent's id and the tick, so each agent — and each activation — tries
//! its children in an order of its own, reproducibly. Within an
//! activation the order holds and a running child is resumed. No children:
//! as the Sequence or Selector it is like.
//!
//! ## Utility
//! [`Utility`]: each child has a [`Choice`] — a weight and considerations,
//! each a scorer's value through a [`Curve`] clamped to `[0, 1]` — and the
//! child's score is the considerations combined ([`Combine`]: product with
//! the IAUS compensation, the default; min; max) times its weight. When
//! entered, and then every `every` ticks while a child runs (`every = 0`:
//! never), it scores every child in child order, the running one with
//! `inertia` added, and picks among the scores above `threshold`: the
//! highest, a tie going to the first child (`pick = highest`), or a draw
//! in proportion to the scores from the node's salt, the agent's id and
//! the tick (`pick = weighted`). None above the threshold: the running
//! child, if any, is aborted and the Utility fails. Another child picked:
//! the running one is aborted, then the winner is entered fresh, in the
//! same tick. The same child picked, or no re-scoring due: it is resumed.
//! The Utility returns the status of the child it ran. No children:
//! `Failure`.
//!
//! # Decorators
//!
//! ## Inverter
//! `Success` ↔ `Failure`; `Running` unchanged.
//!
//! ## ForceSuccess / ForceFailure
//! A finished child's status is replaced by `Success` (resp. `Failure`);
//! `Running` unchanged.
//!
//! ## Repeat(n)
//! Runs the child to completion once per tick at most: each child `Success`
//! counts; `Running` until the n-th success, then `Success`; a child
//! `Failure` is `Failure`. Between cycles the child is uninstalled and
//! re-entered fresh on the next tick. `1 ≤ n ≤ u32::MAX`, counted exactly.
//!
//! ## Retry(n)
//! A child `Failure` re-runs it from scratch on the next tick, up to `n`
//! attempts in all; the n-th failure is `Failure`. A child `Success` is
//! `Success`. `1 ≤ n ≤ u32::MAX`.
//!
//! ## Guard
//! The condition is checked once, when the guard is entered: false is
//! `Failure` without running the child; true runs the child to its end
//! without checking again (the classic decorator).
//!
//! ## ReactiveGuard
//! The condition is checked every tick before the child: once false, the
//! running child is aborted and the guard fails.
//!
//! ## Timeout(n)
//! The child is updated on every tick less than `n` ticks after the
//! timeout was entered (the first `n` ticks, for an agent ticked every
//! tick); on the first tick at or after `n` ticks after entry, if the
//! child is still running, it is aborted and the timeout fails. `1 ≤ n ≤ 2³¹ − 1`.
//!
//! ## Cooldown(n)
//! When the child finishes (or is aborted), the node cools down: for the
//! next `n` ticks entering it fails at once without running the child. The
//! cooldown is kept per agent across activations of the node (and per
//! place in the tree, for a shared subtree). `1 ≤ n ≤ 2³¹ − 1`.
//!
//! ## RunOnce(then)
//! Runs the child to the end once per agent (and per place in the tree).
//! On later activations it does not run the child and returns, by `then`:
//! `same`, the status the child ended with; `success`; or `failure`. An
//! activation aborted while the child runs does not count: the next one
//! runs the child afresh. BehaviorTree.CPP's `RunOnce` with
//! `then_skip="false"` is `same`.
//!
//! # Leaves
//!
//! ## Action
//! User code returning any status, called on every update.
//!
//! ## Condition
//! User code returning `true` (`Success`) or `false` (`Failure`); never
//! `Running`.
//!
//! ## AlwaysSuccess, AlwaysFailure, AlwaysRunning
//! Constant statuses, for prototyping and tests.
//!
//! ## Wait(n)
//! `Running` until `n` ticks have passed since it was entered, then
//! `Success`: entered at tick `t`, it succeeds on the first tick at or
//! after `t + n`. `Wait(0)`
//! succeeds at once. `n ≤ 2³¹ − 1`.
//!
//! ## Async
//! User code called once, when the leaf is entered, with a
//! [`Ticket`](crate::Ticket); it may finish at once or return `Running`,
//! which suspends the leaf until the ticket is completed from outside the
//! tick ([`Agent::complete`](crate::Agent::complete)). The leaf then
//! reports the completed status on its next update. A ticket goes stale
//! when its leaf ends (finishes or is aborted), and completing a stale
//! ticket does nothing. See [`Ticket`](crate::Ticket). A leaf may also
//! carry code run once each time it is aborted while it waits, with its
//! ticket ([`AbortFn`](crate::context::AbortFn)).
//!
//! ## Custom
//! A user [`Node`](crate::Node) with its own task; it may run children
//! through [`Children`](crate::Children).
//!
//! # Scheduling
//! Everything above is stated for tick-from-root, where the root is updated
//! every tick. The event-driven mode ([`Mode::Event`](crate::Mode)) gives
//! the same results while updating only the tasks that can change; see
//! [`Mode`](crate::Mode).
//!
//! # Time
//! Durations are counted in world ticks on the agent's clock
//! ([`Ctx::tick`](crate::Ctx)), never in wall-clock time, so a run replays
//! exactly. An agent ticked every world tick advances its clock by one per
//! tick; an agent ticked less often (level of detail) says how many world
//! ticks passed since its last tick
//! ([`Agent::tick_elapsed`](crate::Agent::tick_elapsed)) and its clock
//! advances by that many. Every timer is a comparison of the clock with a
//! tick stored when it started, so it ends on the agent's first tick at or
//! after its end: `Wait(8)` entered at world tick `t` succeeds on the first
//! tick at or after `t + 8`, whatever the agent's rate, in both modes; a
//! Timeout's child is updated on every tick before `t + n`; a Cooldown
//! refuses on every tick up to `t + n` after its child ended at `t`. The
//! rules below say "ticks" for world ticks on this clock. Tick numbers are
//! `u32`: after `u32::MAX` the counter goes on at 0. They are compared
//! with wrapping arithmetic, exact for differences below 2³¹, so durations
//! are limited to [`MAX_TICKS`](crate::limits::MAX_TICKS) = 2³¹ − 1 (longer ones are
//! a [`BuildError`](crate::BuildError)), and every timer stays exact across
//! the wrap: a running Wait or Timeout measures from its own entry, and the
//! agent moves cooldown ends that have passed up to the present every 2³⁰
//! ticks, long before they could be mistaken for future ticks.
//!
//! # Where this differs from BehaviorTree.CPP
//! Repeat and Retry advance one child cycle per tick (as py_trees does)
//! where BT.CPP loops inside one tick; Sequence and Selector resume their
//! running child, as BT.CPP's `Sequence` and `Fallback` do, and start
//! again from the first child once they finish (SequenceWithMemory is
//! BT.CPP's, which after a failure goes on from the failed child); RunOnce
//! has no SKIPPED status to return after its run, so `then` says what it
//! returns instead; a Parallel never re-runs a
//! child that already finished within one activation; Guard is the classic
//! entry-checked decorator and ReactiveGuard its re-checking variant.
//!
//! [`One`]: crate::Policy::One
//!
//! # Inlining
//! A kind's hooks are `#[inline(always)]` into the task's visit in
//! optimised builds only (`cfg_attr(not(debug_assertions), …)`). At
//! opt-level 0 LLVM gives every inlined body stack slots of its own, so
//! inlining all kinds into one visit made debug frames so large that a tree
//! at the loader's depth limit (256 levels) overflowed an 8 MiB stack;
//! debug builds keep the calls and small frames instead.

/// `Plain` and `Member` for the kinds of one family: each is a kind of
/// `$arity` whose [`Kind`] is its family's, made by `$make` from the kind's
/// value.
macro_rules! members {
    ($arity:ident, $family:ty: $($kind:ident => |$s:pat_param| $make:expr),+ $(,)?) => {$(
        impl super::Plain for $kind {
            const ARITY: crate::util::primitives::Arity = crate::util::primitives::Arity::$arity;
        }

        impl crate::def::kind::Member for $kind {
            type Family = $family;

            #[cfg_attr(not(debug_assertions), inline(always))]
            fn family(&self) -> $family {
                let $s = self;
                $make
            }
        }
    )+};
}

mod asynchronous;
mod cooldown;
mod custom;
mod guard;
mod leaves;
mod once;
mod parallel;
mod reactive;
mod repeat;
mod reshape;
mod sequence;
mod shuffle;
mod timeout;
mod utility;
mod wait;

use std::hash::Hash;

use crate::def::custom::CustomNode;
use crate::def::exec::{Exec, Visit, Wake};
use crate::def::kind::{Carry, Facts, Kind};
use crate::util::context::Ctx;
use crate::util::params::declare::Param;
use crate::util::params::error::ParamError;
use crate::util::params::typed::NodeParams;
use crate::util::params::value::{Params, show};
use crate::util::primitives::Arity;
use crate::util::status::{Exit, Status};

pub use asynchronous::Async;
pub use cooldown::Cooldown;
pub use guard::{Guard, ReactiveGuard};
pub use leaves::{Action, AlwaysFailure, AlwaysRunning, AlwaysSuccess, Condition};
pub use once::RunOnce;
pub use parallel::Parallel;
pub use reactive::{ReactiveSelector, ReactiveSequence};
pub use repeat::{Repeat, Retry};
pub use reshape::{ForceFailure, ForceSuccess, Inverter};
pub use sequence::{Selector, Sequence, SequenceWithMemory};
pub use shuffle::{Like, Shuffle};
pub use timeout::Timeout;
pub use utility::{Choice, Combine, Consideration, Curve, Pick, ScoreFn, Scorer, Utility};
pub use wait::Wait;

pub(crate) use custom::user_leaf;
pub(crate) use leaves::{Leaf, stateless};

/// A kind built from its parameters alone: what a loader can make from a
/// tree file. Its parameters are its fields ([`NodeParams`], derived), its
/// description its doc comment.
pub(crate) trait Plain: NodeParams + Clone + Eq + Hash {
    /// How many children it takes.
    const ARITY: Arity;
}

/// A kind that holds code — a closure, a user node — which no file can
/// give: built in code, or by a loader from a registered type.
pub(crate) trait Code {
    /// The type name shown in traces and printed trees.
    fn type_name(&self) -> &str;
    /// What it does, in one line.
    fn about(&self) -> &'static str;
    /// How many children it takes.
    fn arity(&self) -> Arity;
    /// Its parameters as printed trees show them.
    fn shown(&self) -> Vec<(String, String)>;
}

/// A built-in kind as a loader registers it: a type a tree file can name,
/// made from the node's checked parameters ([`builtins`]).
#[doc(hidden)]
pub struct Builtin<A, W> {
    /// The type name in tree files.
    pub name: &'static str,
    /// What it does, in one line.
    pub about: &'static str,
    /// How many children it takes.
    pub arity: Arity,
    /// Its parameters.
    pub params: fn() -> Vec<Param>,
    /// The kind, from a node's checked parameters.
    pub build: fn(&Params<'_>) -> Result<NodeKind<A, W>, ParamError>,
}

impl<A, W> std::fmt::Debug for Builtin<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builtin")
            .field("name", &self.name)
            .field("arity", &self.arity)
            .finish_non_exhaustive()
    }
}

/// Builds the kinds' table: [`NodeKind`], its dispatch (the private
/// `dispatch!`), names, descriptions, parameters, `Clone`, the builder's
/// conversions, its shortcuts (`builder_shortcuts!`, expanded in the
/// builder's module: the table stays below the API) and [`builtins`]. `$d`
/// is a `$`, for the macros it defines.
macro_rules! kinds {
    (
        $d:tt
        plain { $(
            $(#[$pm:meta])* $pv:ident($pt:ty)
            $(#[$sm:meta])* fn $short:ident[$shape:ident]($($arg:ident: $aty:ty),*) = $make:expr,
        )* }
        code { $( $(#[$cm:meta])* $cv:ident($ct:ty), )* }
    ) => {
        /// Every kind of node, with its parameters: one variant per kind,
        /// holding the kind's own type from [`nodes`](crate::nodes). Build
        /// one from that type (`NodeKind::from(Repeat { times: 3 })`, or
        /// pass the type to [`Builder::node`](crate::Builder::node)).
        ///
        /// The semantics of each kind are documented in [`nodes`](crate::nodes).
        #[non_exhaustive]
        #[doc(hidden)]
        pub enum NodeKind<A, W> {
            $( $(#[$pm])*
            #[doc = concat!("The [`", stringify!($pv), "`] kind.")]
            $pv($pt), )*
            $( $(#[$cm])* $cv($ct), )*
        }

        impl<A, W> Clone for NodeKind<A, W> {
            fn clone(&self) -> Self {
                match self {
                    $( NodeKind::$pv(k) => NodeKind::$pv(k.clone()), )*
                    $( NodeKind::$cv(k) => NodeKind::$cv(k.clone()), )*
                }
            }
        }

        $( impl<A, W> From<$pt> for NodeKind<A, W> {
            fn from(k: $pt) -> Self {
                NodeKind::$pv(k)
            }
        } )*
        $( impl<A, W> From<$ct> for NodeKind<A, W> {
            fn from(k: $ct) -> Self {
                NodeKind::$cv(k)
            }
        } )*

        /// A kind without code, as a value two drafts can be compared by:
        /// the builder shares one kind between drafts that look the same.
        #[derive(PartialEq, Eq, Hash)]
        pub(crate) enum PlainKey {
            $( $pv($pt), )*
        }

        impl<A, W> NodeKind<A, W> {
            /// The type name used in traces, printed trees and tree files.
            ///
            /// ```
            /// use canopy_core::{NodeKind, Policy, nodes::Parallel};
            /// let p = NodeKind::<(), ()>::from(Parallel { success: Policy::One, failure: Policy::All });
            /// assert_eq!(p.type_name(), "Parallel");
            /// ```
            pub fn type_name(&self) -> &str {
                match self {
                    $( NodeKind::$pv(_) => stringify!($pv), )*
                    $( NodeKind::$cv(k) => Code::type_name(k), )*
                }
            }

            /// One line saying what this kind does, as `canopy nodes` shows it.
            ///
            /// ```
            /// use canopy_core::{NodeKind, nodes::Inverter};
            /// assert_eq!(NodeKind::<(), ()>::from(Inverter).about(), "Swaps Success and Failure.");
            /// ```
            pub fn about(&self) -> &'static str {
                match self {
                    $( NodeKind::$pv(_) => <$pt as NodeParams>::description(), )*
                    $( NodeKind::$cv(k) => Code::about(k), )*
                }
            }

            /// How many children this kind takes.
            ///
            /// ```
            /// use canopy_core::{Arity, NodeKind, nodes::Inverter};
            /// assert_eq!(NodeKind::<(), ()>::from(Inverter).arity(), Arity::Decorator);
            /// ```
            pub fn arity(&self) -> Arity {
                match self {
                    $( NodeKind::$pv(_) => <$pt as Plain>::ARITY, )*
                    $( NodeKind::$cv(k) => Code::arity(k), )*
                }
            }

            /// The parameters as `(name, value)` pairs, in the words tree
            /// files use.
            ///
            /// ```
            /// use canopy_core::{NodeKind, nodes::Repeat};
            /// assert_eq!(NodeKind::<(), ()>::from(Repeat { times: 3 }).params(),
            ///     vec![("times".to_string(), "3".to_string())]);
            /// ```
            pub fn params(&self) -> Vec<(String, String)> {
                match self {
                    $( NodeKind::$pv(k) => show(&<$pt as NodeParams>::declare(), &k.values()), )*
                    $( NodeKind::$cv(k) => Code::shown(k), )*
                }
            }

            /// The same kind for trees of another agent and world type, if
            /// it holds no code (a tool copying a tree between types).
            ///
            /// ```
            /// use canopy_core::{NodeKind, nodes::Wait};
            /// let wait = NodeKind::<u32, ()>::from(Wait { ticks: 3 });
            /// let again: NodeKind<String, f32> = wait.for_types().unwrap();
            /// assert_eq!(again.params(), wait.params());
            /// ```
            pub fn for_types<B, V>(&self) -> Option<NodeKind<B, V>> {
                match self {
                    $( NodeKind::$pv(k) => Some(NodeKind::$pv(k.clone())), )*
                    $( NodeKind::$cv(_) => None, )*
                }
            }

            /// The kind as a key the builder shares drafts by, if it holds
            /// no code.
            pub(crate) fn plain_key(&self) -> Option<PlainKey> {
                match self {
                    $( NodeKind::$pv(k) => Some(PlainKey::$pv(k.clone())), )*
                    $( NodeKind::$cv(_) => None, )*
                }
            }
        }

        /// Every built-in kind a loader can make from a tree file: the
        /// kinds that hold no code, in the order `canopy nodes` lists them.
        ///
        /// ```
        /// let names: Vec<&str> = canopy_core::nodes::builtins::<(), ()>().iter().map(|b| b.name).collect();
        /// assert!(names.contains(&"Sequence") && names.contains(&"Wait"));
        /// ```
        #[doc(hidden)]
        pub fn builtins<A, W>() -> Vec<Builtin<A, W>> {
            vec![ $( Builtin {
                name: stringify!($pv),
                about: <$pt as NodeParams>::description(),
                arity: <$pt as Plain>::ARITY,
                params: <$pt as NodeParams>::declare,
                build: |p| Ok(NodeKind::$pv(<$pt as NodeParams>::from_params(p)?)),
            }, )* ]
        }

        // A shortcut's shape is its kind's arity: a mismatch does not compile.
        $( const _: () = assert!(matches!(<$pt as Plain>::ARITY, Arity::$shape)); )*

        /// The builder's method for each kind without code
        /// (`b.repeat("again", 3, child)`), made from this table so that no
        /// kind lacks one; `shortcut!` in the builder's module writes each.
        macro_rules! builder_shortcuts {
            () => {
                $( shortcut! {
                    $(#[$sm])* fn $short[$shape]($($arg: $aty),*) = $make
                } )*
            };
        }
        pub(crate) use builder_shortcuts;

        /// Runs `$body` with `$k` bound to the [`Kind`] of `$kind`.
        macro_rules! dispatch {
            ($d kind:expr, $d k:ident => $d body:expr) => {
                match $d kind {
                    $( NodeKind::$pv($d k) => $d body, )*
                    $( NodeKind::$cv($d k) => $d body, )*
                }
            };
        }
    };
}

// The table: one entry per kind. Controls, then decorators, then leaves,
// as `canopy nodes` lists them; kinds that hold code last. A kind without
// code names its builder method: its arguments (the kind's fields, or
// fewer with the rest defaulted), its shape (the kind's arity: a list of
// children, one child, none) and the kind it makes from them.
kinds! {
    $
    plain {
        Sequence(Sequence)
            /// A [Sequence](crate::nodes#sequence).
            fn sequence[Composite]() = Sequence,
        Selector(Selector)
            /// A [Selector](crate::nodes#selector).
            fn selector[Composite]() = Selector,
        SequenceWithMemory(SequenceWithMemory)
            /// A [SequenceWithMemory](crate::nodes#sequencewithmemory): a Sequence
            /// that, entered again, goes on from the child that failed or was
            /// running when it was aborted.
            fn sequence_with_memory[Composite]() = SequenceWithMemory::default(),
        ReactiveSequence(ReactiveSequence)
            /// A [ReactiveSequence](crate::nodes#reactivesequence).
            fn reactive_sequence[Composite]() = ReactiveSequence,
        ReactiveSelector(ReactiveSelector)
            /// A [ReactiveSelector](crate::nodes#reactiveselector) (priority selector).
            fn reactive_selector[Composite]() = ReactiveSelector,
        Parallel(Parallel)
            /// A [Parallel](crate::nodes#parallel) with its success and failure policies.
            fn parallel[Composite](success: Policy, failure: Policy) = Parallel { success, failure },
        Shuffle(Shuffle)
            /// A [Shuffle](crate::nodes#shuffle): a Sequence or a Selector (`like`)
            /// whose children run in an order drawn per agent each time it is
            /// entered; `salt` sets its draws apart from another Shuffle's.
            fn shuffle[Composite](like: Like, salt: u64) = Shuffle { like, salt },
        Inverter(Inverter)
            /// An [Inverter](crate::nodes#inverter).
            fn inverter[Decorator]() = Inverter,
        ForceSuccess(ForceSuccess)
            /// A [ForceSuccess](crate::nodes#forcesuccess--forcefailure).
            fn force_success[Decorator]() = ForceSuccess,
        ForceFailure(ForceFailure)
            /// A [ForceFailure](crate::nodes#forcesuccess--forcefailure).
            fn force_failure[Decorator]() = ForceFailure,
        Repeat(Repeat)
            /// A [Repeat](crate::nodes#repeatn): the child must succeed `times` times.
            fn repeat[Decorator](times: u32) = Repeat { times },
        Retry(Retry)
            /// A [Retry](crate::nodes#retryn): up to `times` attempts.
            fn retry[Decorator](times: u32) = Retry { times },
        Timeout(Timeout)
            /// A [Timeout](crate::nodes#timeoutn): fails once the child has run `ticks` ticks.
            fn timeout[Decorator](ticks: u32) = Timeout { ticks },
        Cooldown(Cooldown)
            /// A [Cooldown](crate::nodes#cooldownn): after the child finishes, fails
            /// for `ticks` ticks without running it.
            fn cooldown[Decorator](ticks: u32) = Cooldown { ticks },
        RunOnce(RunOnce)
            /// A [RunOnce](crate::nodes#runoncethen): runs `child` to the end once
            /// per agent; afterwards returns what `then` says without running it.
            fn run_once[Decorator](then: Afterwards) = RunOnce { then },
        Wait(Wait)
            /// A [Wait](crate::nodes#waitn) leaf: Running until `ticks` ticks have passed.
            fn wait[Leaf](ticks: u32) = Wait { ticks },
        AlwaysSuccess(AlwaysSuccess)
            /// A leaf that always succeeds.
            fn always_success[Leaf]() = AlwaysSuccess,
        AlwaysFailure(AlwaysFailure)
            /// A leaf that always fails.
            fn always_failure[Leaf]() = AlwaysFailure,
        AlwaysRunning(AlwaysRunning)
            /// A leaf that never finishes.
            fn always_running[Leaf]() = AlwaysRunning,
    }
    code {
        /// The [`Guard`] kind.
        Guard(Guard<A, W>),
        /// The [`ReactiveGuard`] kind.
        ReactiveGuard(ReactiveGuard<A, W>),
        /// The [`Action`] kind.
        Action(Action<A, W>),
        /// The [`Condition`] kind.
        Condition(Condition<A, W>),
        /// The [`Async`] kind.
        Async(Async<A, W>),
        /// The [`Utility`] kind.
        Utility(Utility<A, W>),
        /// A user-defined node type with its own task (see [`Node`](crate::Node)).
        Custom(CustomNode<A, W>),
    }
}

/// Something done with a node's [`Kind`] known statically: the engine's
/// task lifecycle is written once, against any kind, and [`with_kind`]
/// monomorphises it per kind, so a visit dispatches on the kind once.
pub(crate) trait WithKind<A, W> {
    type Out;
    fn with<K: Kind<A, W>>(self, k: &K) -> Self::Out;
}

/// Run `f` with the [`Kind`] of `kind`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn with_kind<A, W, F: WithKind<A, W>>(kind: &NodeKind<A, W>, f: F) -> F::Out {
    dispatch!(kind, k => f.with(k))
}

// The rest of the crate reaches the kinds through these functions.

pub(crate) fn facts<A, W>(kind: &NodeKind<A, W>, children: usize) -> Facts {
    dispatch!(kind, k => Kind::<A, W>::facts(k, children))
}

pub(crate) fn check<A, W>(kind: &NodeKind<A, W>, children: usize) -> Option<String> {
    dispatch!(kind, k => Kind::<A, W>::check(k, children))
}

#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn update<A, W, E: Exec<A, W>>(
    kind: &NodeKind<A, W>,
    t: &mut E,
    visit: Visit,
    cx: &mut Ctx<A, W>,
) -> Status {
    dispatch!(kind, k => k.update(t, visit, cx))
}

#[inline]
pub(crate) fn end<A, W, E: Exec<A, W>>(
    kind: &NodeKind<A, W>,
    t: &mut E,
    exit: Exit,
    cx: &mut Ctx<A, W>,
) {
    dispatch!(kind, k => k.end(t, exit, cx))
}

pub(crate) fn next_running<A, W>(
    kind: &NodeKind<A, W>,
    state: &[u8],
    children: usize,
    from: usize,
) -> Option<(usize, usize)> {
    dispatch!(kind, k => Kind::<A, W>::next_running(k, state, children, from))
}

/// Abort whichever children of a running task are running, in child
/// order, each deepest first.
#[inline(never)]
pub(crate) fn abort_children<A, W, E: Exec<A, W>>(
    kind: &NodeKind<A, W>,
    t: &mut E,
    cx: &mut Ctx<A, W>,
) {
    dispatch!(kind, k => abort_running(k, t, cx))
}

/// [`abort_children`] for a kind's own code, which knows its kind.
fn abort_running<A, W, K: Kind<A, W>, E: Exec<A, W>>(k: &K, t: &mut E, cx: &mut Ctx<A, W>) {
    let n = t.children();
    let mut from = 0;
    while let Some((child, slot)) = k.next_running(t.state(), n, from) {
        t.abort(child, slot, cx);
        from = child + 1;
    }
}

pub(crate) fn valid<A, W>(kind: &NodeKind<A, W>, state: &[u8], children: usize) -> bool {
    dispatch!(kind, k => Kind::<A, W>::valid(k, state, children))
}

pub(crate) fn persist_valid<A, W>(
    kind: &NodeKind<A, W>,
    persist: &[u8],
    children: usize,
    now: u32,
) -> bool {
    dispatch!(kind, k => Kind::<A, W>::persist_valid(k, persist, children, now))
}

pub(crate) fn wake<A, W, E: Exec<A, W>>(kind: &NodeKind<A, W>, t: &mut E) -> Wake {
    dispatch!(kind, k => k.wake(t))
}

pub(crate) fn waits_on<A, W>(kind: &NodeKind<A, W>, state: &[u8]) -> Option<u32> {
    dispatch!(kind, k => Kind::<A, W>::holds_wait(k, state))
}

pub(crate) fn carry<A, W>(
    kind: &NodeKind<A, W>,
    old: &[u8],
    new: &mut [u8],
    c: &Carry<'_>,
) -> bool {
    dispatch!(kind, k => Kind::<A, W>::carry(k, old, new, c))
}

pub(crate) fn describe<A, W>(
    kind: &NodeKind<A, W>,
    state: &[u8],
    children: usize,
    now: u32,
) -> String {
    dispatch!(kind, k => Kind::<A, W>::describe(k, state, children, now))
}

impl<A, W> std::fmt::Debug for NodeKind<A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name())?;
        let params = self.params();
        if !params.is_empty() {
            f.write_str("(")?;
            for (i, (k, v)) in params.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{k}={v}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}
