//! `Random` and `Chance`: outcomes drawn reproducibly, for prototypes and
//! tests. A draw is a hash of the node's salt (the registry's seed and the
//! node's place in the file), the agent's id and tick, and for `Random`
//! the update count ([`canopy_core::hash`]): the same file, seed and ids
//! give the same run, in any thread and after a snapshot.

use canopy_core::hash::{agent_tick, mix, unit};
use canopy_core::text::number;
use canopy_core::{Children, Ctx, Node, Params, Status};

use super::script::Updates;

/// Success with probability `success`, Failure with `failure`, else
/// Running; reproducible per agent.
#[derive(Params)]
#[params(check = Self::check)]
pub(crate) struct Random {
    /// Probability of Success.
    #[param(range = 0.0..=1.0)]
    success: f64,
    /// Probability of Failure.
    #[param(range = 0.0..=1.0)]
    failure: f64,
    #[param(salt)]
    salt: u64,
}

impl Random {
    /// The node, from its parameters (the registry's factory).
    pub(crate) fn new(random: Random) -> Random {
        random
    }

    fn check(&self) -> Result<(), String> {
        if self.success + self.failure > 1.0 {
            return Err(format!(
                "success + failure must be at most 1, got {}",
                number(self.success + self.failure)
            ));
        }
        Ok(())
    }
}

impl<A: 'static, W: 'static> Node<A, W> for Random {
    type Task = Updates;

    fn type_name(&self) -> &str {
        "Random"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("success".to_string(), self.success.to_string()),
            ("failure".to_string(), self.failure.to_string()),
        ]
    }

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Updates {
        Updates { count: 0 }
    }

    fn update(&self, task: &mut Updates, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        let key = self.salt ^ agent_tick(cx.id, cx.tick) ^ mix(u64::from(task.count));
        task.count = task.count.wrapping_add(1);
        let roll = unit(key);
        if roll < self.success {
            Status::Success
        } else if roll < self.success + self.failure {
            Status::Failure
        } else {
            Status::Running
        }
    }
}

/// Condition: true with probability `p`, reproducibly per agent and tick.
#[derive(Params)]
pub(crate) struct Chance {
    /// Probability of true.
    #[param(range = 0.0..=1.0)]
    p: f64,
    #[param(salt)]
    salt: u64,
}

/// The condition, from its parameters (the registry's factory).
pub(crate) fn chance<A, W>(c: Chance) -> impl Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static {
    move |cx: &Ctx<A, W>| unit(c.salt ^ agent_tick(cx.id, cx.tick)) < c.p
}
