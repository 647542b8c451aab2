//! `Random` and `Chance`: outcomes drawn reproducibly, for prototypes and
//! tests. A draw is a hash of the node's salt (the registry's seed and the
//! node's place in the file), the agent's id and tick, and for `Random`
//! the update count ([`canopy_core::hash`]): the same file, seed and ids
//! give the same run, in any thread and after a snapshot.
//!
//! These leaves run on every update of every agent, so the work that does
//! not depend on the agent is done once, when the node is built: the
//! probabilities become integer thresholds ([`below`]) compared with the
//! draw's 53 bits ([`bits`]), which gives exactly the outcomes of comparing
//! the draw as a number in `0.0..1.0`; and `Random`'s hash of its first
//! update (count 0, the common case) is folded into its salt. That leaves
//! two hashes per `Random` update (the agent and tick, then the draw) and
//! no float arithmetic. Caching the agent-and-tick hash across the nodes
//! of one tick would save one more, but needs a field in every context;
//! rejected for two prototype leaves.

use canopy_core::hash::{agent_tick, below, bits, mix};
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
    pub(crate) fn into_draw(random: Random) -> Draw {
        Draw::new(random.success, random.failure, random.salt)
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

/// `Random` as it runs: its thresholds and salts computed once.
pub(crate) struct Draw {
    success: f64,
    failure: f64,
    /// The salt, for updates after the first.
    salt: u64,
    /// The salt with the hash of update 0 folded in.
    first: u64,
    /// Draws below this succeed.
    succeed_below: u64,
    /// Draws from `succeed_below` to below this fail.
    fail_below: u64,
}

impl Draw {
    fn new(success: f64, failure: f64, salt: u64) -> Draw {
        Draw {
            success,
            failure,
            salt,
            first: salt ^ mix(0),
            succeed_below: below(success),
            // The same sum, rounded the same way, as `unit(key) < s + f`.
            fail_below: below(success + failure),
        }
    }

    /// The outcome of update `count` (from 0 since install) at this
    /// agent and tick.
    #[inline]
    fn roll(&self, id: u32, tick: u32, count: u32) -> Status {
        let salt = if count == 0 {
            self.first
        } else {
            self.salt ^ mix(u64::from(count))
        };
        let draw = bits(salt ^ agent_tick(id, tick));
        if draw < self.succeed_below {
            Status::Success
        } else if draw < self.fail_below {
            Status::Failure
        } else {
            Status::Running
        }
    }
}

impl<A: 'static, W: 'static> Node<A, W> for Draw {
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

    #[inline]
    fn update(&self, task: &mut Updates, cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        let status = self.roll(cx.id, cx.tick, task.count);
        task.count = task.count.wrapping_add(1);
        status
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
    let (salt, true_below) = (c.salt, below(c.p));
    move |cx: &Ctx<A, W>| bits(salt ^ agent_tick(cx.id, cx.tick)) < true_below
}

#[cfg(test)]
mod tests {
    use canopy_core::Status;
    use canopy_core::hash::{agent_tick, mix, unit};

    use super::Draw;

    /// The rule as the semantics state it, in floats.
    fn by_the_rule(
        success: f64,
        failure: f64,
        salt: u64,
        id: u32,
        tick: u32,
        count: u32,
    ) -> Status {
        let roll = unit(salt ^ agent_tick(id, tick) ^ mix(u64::from(count)));
        if roll < success {
            Status::Success
        } else if roll < success + failure {
            Status::Failure
        } else {
            Status::Running
        }
    }

    #[test]
    fn random_rolls_exactly_as_the_float_rule_on_every_count_and_probability() {
        let probabilities = [
            (0.0, 0.0),
            (0.6, 0.2),
            (0.4, 0.3),
            (0.5, 0.1),
            (1.0, 0.0),
            (0.0, 1.0),
            (0.1, 0.7),
        ];
        for (n, &(success, failure)) in probabilities.iter().enumerate() {
            let salt = mix(n as u64);
            let draw = Draw::new(success, failure, salt);
            for id in 0..40 {
                for tick in 1..40 {
                    for count in 0..4 {
                        assert_eq!(
                            draw.roll(id, tick, count),
                            by_the_rule(success, failure, salt, id, tick, count),
                            "success {success}, failure {failure}, agent {id}, tick {tick}, count {count}"
                        );
                    }
                }
            }
        }
    }
}
