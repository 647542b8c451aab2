//! The node types this crate runs BehaviorTree.CPP standard nodes with
//! when no canopy built-in has their semantics (Parallel's thresholds,
//! IfThenElse, Repeat's `-1`, Delay, a Timeout of 0, RunOnce's SKIPPED, the
//! entry-update nodes): each declared as a `#[derive(Params)]` struct, as
//! canopy's own kinds are, read from the lowered document by the
//! registry's loader (see [`crate::build`]). Their keys hold a `:`, which
//! no registered type's can, so they never hide one.
//!
//! A standard node whose ports the file gives as values is an
//! [`Emulated`] in the model and is lowered with those values, by name; one
//! whose ports read the blackboard, and the entry-update nodes, are lowered
//! by name through [`crate::ported`], their keys resolved in the subtree's
//! scope as any port's. Rejected: positional lists of parameter names,
//! read back by index (a parameter added in one place and not the other
//! compiled, and was read as the wrong one).

use canopy_core::board::Updates;
use canopy_core::params::{NodeParams, Param, ParamError};
use canopy_core::{Arity, CustomNode, Input, NodeKind, Output, ParamEnum, Params, Status};
use canopy_data::NodeType;

use crate::nodes;

/// A standard node canopy runs as one of this crate's emulated types,
/// with the port values the file gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Emulated {
    Parallel {
        success_count: i32,
        failure_count: i32,
    },
    ParallelAll {
        max_failures: i32,
    },
    IfThenElse,
    WhileDoElse,
    KeepRunningUntilFailure,
    Repeat(i32),
    Retry(i32),
    Delay {
        msec: u32,
        ticks: u32,
    },
    NoTimeout,
}

impl Emulated {
    /// Its type's key in the lowered document, once `field` has been given
    /// each of its parameters by name.
    pub(crate) fn lower(self, mut field: impl FnMut(&'static str, i64)) -> &'static str {
        match self {
            Emulated::Parallel {
                success_count,
                failure_count,
            } => {
                field("success_count", success_count.into());
                field("failure_count", failure_count.into());
                ParallelPorts::KEY
            }
            Emulated::ParallelAll { max_failures } => {
                field("max_failures", max_failures.into());
                ParallelAllPorts::KEY
            }
            Emulated::IfThenElse => IfThenElse::KEY,
            Emulated::WhileDoElse => WhileDoElse::KEY,
            Emulated::KeepRunningUntilFailure => KeepRunningUntilFailure::KEY,
            Emulated::Repeat(count) => {
                field("num_cycles", count.into());
                RepeatPorts::KEY
            }
            Emulated::Retry(count) => {
                field("num_attempts", count.into());
                RetryPorts::KEY
            }
            Emulated::Delay { msec, ticks } => {
                field("delay_msec", msec.into());
                field("ticks", ticks.into());
                DelayPorts::KEY
            }
            // Lowered from the file only for msec="0" (others run as
            // canopy's Timeout): no parameter, no timer.
            Emulated::NoTimeout => TimeoutPorts::KEY,
        }
    }
}

/// One of this crate's emulated node types: its key in the lowered
/// document, how many children it takes, and its node from its declared
/// parameters.
trait Emulation: NodeParams {
    const KEY: &'static str;
    const ARITY: Arity;
    /// The node, given what its printed form shows of its parameters.
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError>;
}

/// The node of an emulated type, before it is given the tree's agent and
/// world types.
enum Made {
    Parallel(nodes::Parallel),
    ParallelAll(nodes::ParallelAll),
    IfThenElse,
    WhileDoElse,
    KeepRunningUntilFailure,
    Loop(nodes::Loop),
    Delay(nodes::Delay),
    Timeout(nodes::Timeout),
    Sleep(nodes::Sleep),
    RunOnce(nodes::RunOnce),
    WasEntryUpdated(nodes::WasEntryUpdated),
    EntryUpdated(nodes::EntryUpdated),
    UnsetBlackboard(nodes::UnsetBlackboard),
}

impl Made {
    fn node<A: 'static, W: 'static>(self) -> CustomNode<A, W> {
        match self {
            Made::Parallel(n) => CustomNode::new(n),
            Made::ParallelAll(n) => CustomNode::new(n),
            Made::IfThenElse => CustomNode::new(nodes::IfThenElse),
            Made::WhileDoElse => CustomNode::new(nodes::WhileDoElse),
            Made::KeepRunningUntilFailure => CustomNode::new(nodes::KeepRunningUntilFailure),
            Made::Loop(n) => CustomNode::new(n),
            Made::Delay(n) => CustomNode::new(n),
            Made::Timeout(n) => CustomNode::new(n),
            Made::Sleep(n) => CustomNode::new(n),
            Made::RunOnce(n) => CustomNode::new(n),
            Made::WasEntryUpdated(n) => CustomNode::new(n),
            Made::EntryUpdated(n) => CustomNode::new(n),
            Made::UnsetBlackboard(n) => CustomNode::new(n),
        }
    }
}

/// Parameters of emulated types the node uses but does not show: how long
/// a tick is, and the keys that hold a node's memory.
const UNSHOWN: [&str; 4] = ["tick_ms", "memory", "seen", "skips_into"];

/// The parameters a node shows: as the file gave them, its memory left out.
fn shown(params: &Params) -> nodes::Shown {
    let mut shown = params.shown();
    shown.retain(|(name, _)| !UNSHOWN.contains(&name.as_str()));
    shown
}

/// A duration in milliseconds, with its `ticks` when the file gave them.
fn msec(msec: Input<u32>, ticks: Option<u32>, tick_ms: Option<u32>) -> nodes::Msec {
    nodes::Msec {
        msec,
        ticks,
        tick_ms: tick_ms.unwrap_or(1),
    }
}

/// A key of the node's own memory, as its parameter holds it.
fn memory_key(memory: Output<u32>, name: &str) -> Result<canopy_core::Key<u32>, ParamError> {
    memory
        .0
        .ok_or_else(|| ParamError::invalid(format!("{name} needs a key")))
}

/// How a parent reads a SKIPPED, as a lowering wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
enum Skipped {
    Success,
    Failure,
}

impl Skipped {
    fn status(self) -> Status {
        match self {
            Skipped::Success => Status::Success,
            Skipped::Failure => Status::Failure,
        }
    }
}

/// What an entry-update decorator does while its entry is not updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
enum Otherwise {
    Skip,
    Wait,
}

/// BehaviorTree.CPP's Parallel.
#[derive(Params)]
struct ParallelPorts {
    /// as the XML gives it: a value, or a key in braces
    success_count: Input<i32>,
    /// as the XML gives it: a value, or a key in braces
    failure_count: Input<i32>,
}

impl Emulation for ParallelPorts {
    const KEY: &'static str = "btcpp:Parallel";
    const ARITY: Arity = Arity::Composite;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::Parallel(nodes::Parallel {
            success_count: self.success_count,
            failure_count: self.failure_count,
            shown,
        }))
    }
}

/// BehaviorTree.CPP's ParallelAll.
#[derive(Params)]
struct ParallelAllPorts {
    /// as the XML gives it: a value, or a key in braces
    max_failures: Input<i32>,
}

impl Emulation for ParallelAllPorts {
    const KEY: &'static str = "btcpp:ParallelAll";
    const ARITY: Arity = Arity::Composite;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::ParallelAll(nodes::ParallelAll {
            max_failures: self.max_failures,
            shown,
        }))
    }
}

/// BehaviorTree.CPP's IfThenElse.
#[derive(Params)]
struct IfThenElse;

impl Emulation for IfThenElse {
    const KEY: &'static str = "btcpp:IfThenElse";
    const ARITY: Arity = Arity::Composite;
    fn made(self, _: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::IfThenElse)
    }
}

/// BehaviorTree.CPP's WhileDoElse.
#[derive(Params)]
struct WhileDoElse;

impl Emulation for WhileDoElse {
    const KEY: &'static str = "btcpp:WhileDoElse";
    const ARITY: Arity = Arity::Composite;
    fn made(self, _: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::WhileDoElse)
    }
}

/// BehaviorTree.CPP's KeepRunningUntilFailure.
#[derive(Params)]
struct KeepRunningUntilFailure;

impl Emulation for KeepRunningUntilFailure {
    const KEY: &'static str = "btcpp:KeepRunningUntilFailure";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, _: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::KeepRunningUntilFailure)
    }
}

/// BehaviorTree.CPP's Repeat.
#[derive(Params)]
struct RepeatPorts {
    /// as the XML gives it: a value, or a key in braces
    num_cycles: Input<i32>,
}

impl Emulation for RepeatPorts {
    const KEY: &'static str = "btcpp:Repeat";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::Loop(nodes::Loop {
            type_name: "Repeat",
            count: self.num_cycles,
            until: Status::Success,
            shown,
        }))
    }
}

/// BehaviorTree.CPP's RetryUntilSuccessful.
#[derive(Params)]
struct RetryPorts {
    /// as the XML gives it: a value, or a key in braces
    num_attempts: Input<i32>,
}

impl Emulation for RetryPorts {
    const KEY: &'static str = "btcpp:RetryUntilSuccessful";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::Loop(nodes::Loop {
            type_name: "RetryUntilSuccessful",
            count: self.num_attempts,
            until: Status::Failure,
            shown,
        }))
    }
}

/// BehaviorTree.CPP's Delay.
#[derive(Params)]
struct DelayPorts {
    /// as the XML gives it: a value, or a key in braces
    delay_msec: Input<u32>,
    /// the delay in ticks, converted at load
    ticks: Option<u32>,
    /// milliseconds per tick
    tick_ms: Option<u32>,
}

impl Emulation for DelayPorts {
    const KEY: &'static str = "btcpp:Delay";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::Delay(nodes::Delay {
            msec: msec(self.delay_msec, self.ticks, self.tick_ms),
            shown,
        }))
    }
}

/// BehaviorTree.CPP's Timeout where canopy's does not run it: msec="0",
/// or a duration read from the blackboard.
#[derive(Params)]
struct TimeoutPorts {
    /// as the XML gives it: a value, or a key in braces
    #[param(default = Input::Value(0))]
    msec: Input<u32>,
    /// milliseconds per tick
    tick_ms: Option<u32>,
}

impl Emulation for TimeoutPorts {
    const KEY: &'static str = "btcpp:Timeout";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        let mut msec = msec(self.msec, None, self.tick_ms);
        if let Input::Value(0) = msec.msec {
            msec.ticks = Some(0);
        }
        Ok(Made::Timeout(nodes::Timeout { msec, shown }))
    }
}

/// BehaviorTree.CPP's Sleep with a duration read from the blackboard.
#[derive(Params)]
struct SleepPorts {
    /// as the XML gives it: a value, or a key in braces
    msec: Input<u32>,
    /// milliseconds per tick
    tick_ms: Option<u32>,
}

impl Emulation for SleepPorts {
    const KEY: &'static str = "btcpp:Sleep";
    const ARITY: Arity = Arity::Leaf;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::Sleep(nodes::Sleep {
            msec: msec(self.msec, None, self.tick_ms),
            shown,
        }))
    }
}

/// BehaviorTree.CPP's RunOnce where canopy's does not run it.
#[derive(Params)]
struct RunOncePorts {
    /// as the XML gives it: a value, or a key in braces
    then_skip: Input<bool>,
    /// how the parent reads SKIPPED
    skipped: Skipped,
    /// the node's memory across activations
    memory: Output<u32>,
    /// a bool key set when the node skips, for the node around it
    skips_into: Output<bool>,
}

impl Emulation for RunOncePorts {
    const KEY: &'static str = "btcpp:RunOnce";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::RunOnce(nodes::RunOnce {
            then_skip: self.then_skip,
            skipped: self.skipped.status(),
            memory: memory_key(self.memory, "memory")?,
            skips_into: self.skips_into.0,
            shown,
        }))
    }
}

/// BehaviorTree.CPP's WasEntryUpdated.
#[derive(Params)]
struct WasEntryUpdatedPorts {
    /// a key in braces: the entry whose writes are counted
    entry: Option<Updates>,
    /// the node's memory across activations
    seen: Output<u32>,
}

impl Emulation for WasEntryUpdatedPorts {
    const KEY: &'static str = "btcpp:WasEntryUpdated";
    const ARITY: Arity = Arity::Leaf;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::WasEntryUpdated(nodes::WasEntryUpdated {
            entry: self.entry,
            seen: memory_key(self.seen, "seen")?,
            shown,
        }))
    }
}

/// BehaviorTree.CPP's SkipUnlessUpdated and WaitValueUpdate.
#[derive(Params)]
struct EntryUpdatedPorts {
    /// a key in braces: the entry whose writes are counted
    entry: Option<Updates>,
    /// the node's memory across activations
    seen: Output<u32>,
    /// the status when not updated
    otherwise: Otherwise,
    /// how the parent reads SKIPPED
    skipped: Option<Skipped>,
}

impl Emulation for EntryUpdatedPorts {
    const KEY: &'static str = "btcpp:EntryUpdated";
    const ARITY: Arity = Arity::Decorator;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        let (type_name, otherwise) = match self.otherwise {
            Otherwise::Wait => ("WaitValueUpdate", Status::Running),
            Otherwise::Skip => (
                "SkipUnlessUpdated",
                self.skipped.map_or(Status::Failure, Skipped::status),
            ),
        };
        Ok(Made::EntryUpdated(nodes::EntryUpdated {
            type_name,
            entry: self.entry,
            seen: memory_key(self.seen, "seen")?,
            otherwise,
            shown: shown
                .into_iter()
                .filter(|(name, _)| name == "entry")
                .collect(),
        }))
    }
}

/// BehaviorTree.CPP's UnsetBlackboard, which only the blackboard
/// lowering writes.
#[derive(Params)]
struct UnsetBlackboardPorts {
    /// a key in braces: the entry whose writes are counted
    key: Option<Updates>,
}

impl Emulation for UnsetBlackboardPorts {
    const KEY: &'static str = "btcpp:UnsetBlackboard";
    const ARITY: Arity = Arity::Leaf;
    fn made(self, shown: nodes::Shown) -> Result<Made, ParamError> {
        Ok(Made::UnsetBlackboard(nodes::UnsetBlackboard {
            key: self.key,
            shown,
        }))
    }
}

/// One emulated type as the registry's loader takes it.
struct EmulatedType {
    key: &'static str,
    arity: Arity,
    params: fn() -> Vec<Param>,
    make: fn(&Params) -> Result<Made, ParamError>,
}

impl EmulatedType {
    const fn of<E: Emulation>() -> EmulatedType {
        EmulatedType {
            key: E::KEY,
            arity: E::ARITY,
            params: E::declare,
            make: make::<E>,
        }
    }
}

/// The node of emulated type `E` from its checked parameters.
fn make<E: Emulation>(params: &Params) -> Result<Made, ParamError> {
    E::from_params(params)?.made(shown(params))
}

/// Every emulated type.
const EMULATED_TYPES: [EmulatedType; 14] = [
    EmulatedType::of::<ParallelPorts>(),
    EmulatedType::of::<ParallelAllPorts>(),
    EmulatedType::of::<IfThenElse>(),
    EmulatedType::of::<WhileDoElse>(),
    EmulatedType::of::<KeepRunningUntilFailure>(),
    EmulatedType::of::<RepeatPorts>(),
    EmulatedType::of::<RetryPorts>(),
    EmulatedType::of::<DelayPorts>(),
    EmulatedType::of::<TimeoutPorts>(),
    EmulatedType::of::<SleepPorts>(),
    EmulatedType::of::<RunOncePorts>(),
    EmulatedType::of::<WasEntryUpdatedPorts>(),
    EmulatedType::of::<EntryUpdatedPorts>(),
    EmulatedType::of::<UnsetBlackboardPorts>(),
];

/// The emulated types whose nodes may run two cycles of their child in a
/// tick (see [`crate::check`]).
pub(crate) const LOOPS: [&str; 2] = [RepeatPorts::KEY, RetryPorts::KEY];

/// The parameters of the emulated type `type_name`, if it is one.
pub(crate) fn emulated_params(type_name: &str) -> Option<Vec<Param>> {
    if !type_name.starts_with("btcpp:") {
        return None;
    }
    let emulated = EMULATED_TYPES.iter().find(|e| e.key == type_name)?;
    Some((emulated.params)())
}

/// The number of parameters an [`Emulated`] is lowered with, and its key.
pub(crate) fn lowered_size(emulated: Emulated) -> (&'static str, usize) {
    let mut count = 0;
    let key = emulated.lower(|_, _| count += 1);
    (key, count)
}

/// The node types the registry's loader builds this crate's emulated nodes
/// with, found before its own (see `TreeSource::Lowered`).
pub(crate) fn emulated_types<A: 'static, W: 'static>() -> Vec<NodeType<A, W>> {
    EMULATED_TYPES
        .iter()
        .map(|emulated: &'static EmulatedType| {
            let about = "a BehaviorTree.CPP standard node canopy runs as it does";
            NodeType::sized(
                emulated.key,
                about,
                emulated.arity,
                (emulated.params)(),
                move |p, _| Ok(NodeKind::Custom((emulated.make)(p)?.node())),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lowered_parameter_is_declared_by_its_type() {
        let all = [
            Emulated::Parallel {
                success_count: 1,
                failure_count: 1,
            },
            Emulated::ParallelAll { max_failures: 1 },
            Emulated::IfThenElse,
            Emulated::WhileDoElse,
            Emulated::KeepRunningUntilFailure,
            Emulated::Repeat(2),
            Emulated::Retry(2),
            Emulated::Delay { msec: 5, ticks: 5 },
            Emulated::NoTimeout,
        ];
        for emulated in all {
            let mut names = Vec::new();
            let key = emulated.lower(|name, _| names.push(name));
            let declared = emulated_params(key).expect("an emulated type");
            for name in names {
                assert!(declared.iter().any(|p| p.name == name), "{key}: {name}");
            }
        }
    }
}
