//! `Script`: plays back statuses from the file, for prototypes and tests.

use canopy_core::{Children, Ctx, Node, ParamEnum, Params, Status, Task, params::Statuses};

/// What advances a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ParamEnum)]
pub(crate) enum Clock {
    /// Each update since the leaf was installed.
    Install,
    /// Each tick of the agent.
    Tick,
}

/// Plays back a list of statuses, one per update (clock "install") or per
/// agent tick (clock "tick").
///
/// With the install clock, the k-th update since the task was installed
/// (k from 0) returns `statuses[min(k, len-1)]`; with the tick clock, the
/// update during the agent's tick T (from 1) returns
/// `statuses[min(T-1, len-1)]`.
#[derive(Params)]
pub(crate) struct Script {
    /// The statuses to play back; the last one repeats.
    statuses: Statuses,
    /// What advances the script.
    #[param(default = Clock::Install)]
    clock: Clock,
}

impl Script {
    /// The node, from its parameters (the registry's factory).
    pub(crate) fn new(script: Script) -> Script {
        script
    }
}

/// Updates since install.
#[derive(Clone, Copy, Task)]
#[repr(C)]
pub(crate) struct Updates {
    pub(crate) count: u32,
}

impl<A: 'static, W: 'static> Node<A, W> for Script {
    type Task = Updates;

    fn type_name(&self) -> &str {
        "Script"
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Updates {
        Updates { count: 0 }
    }

    fn update(&self, task: &mut Updates, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        let k = match self.clock {
            Clock::Tick => cx.tick.saturating_sub(1),
            Clock::Install => {
                let k = task.count;
                task.count = task.count.saturating_add(1);
                k
            }
        };
        let statuses = &self.statuses.0;
        statuses[(k as usize).min(statuses.len() - 1)]
    }
}
