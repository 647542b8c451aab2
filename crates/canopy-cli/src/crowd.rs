//! The crowd `run` and `bench` tick: its memory is checked against
//! [`MAX_CROWD_BYTES`] before any agent is made, and the list of agents is
//! allocated with `try_reserve`, so that a crowd too large for the limit or
//! for the machine is an error, never an abort.

use std::collections::TryReserveError;
use std::fmt;

use canopy_core::{Agent, Mode};

use crate::CliTree;

/// The most memory `run` and `bench` give a crowd's agents, in bytes
/// (16 GiB): more is a typo, not a measurement.
pub(crate) const MAX_CROWD_BYTES: u64 = 16 << 30;

/// Why a crowd was not made.
#[derive(Debug)]
pub(crate) enum CrowdError {
    /// The crowd would need more than [`MAX_CROWD_BYTES`].
    TooLarge { agents: u32, bytes_per_agent: u64 },
    /// The system refused the memory.
    Refused {
        agents: u32,
        bytes_per_agent: u64,
        reason: TryReserveError,
    },
}

impl fmt::Display for CrowdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CrowdError::TooLarge {
                agents,
                bytes_per_agent,
            } => write!(
                f,
                "{agents} agents need {} bytes ({bytes_per_agent} bytes per agent for this tree), \
                 more than the limit of {MAX_CROWD_BYTES} bytes (16 GiB); use fewer agents",
                u64::from(*agents).saturating_mul(*bytes_per_agent)
            ),
            CrowdError::Refused {
                agents,
                bytes_per_agent,
                reason,
            } => write!(
                f,
                "cannot allocate {agents} agents ({bytes_per_agent} bytes per agent for this tree): {reason}"
            ),
        }
    }
}

/// What one agent of `tree` holds in `mode`: the `Agent` value and its heap
/// (task pool, and in event mode its schedule). The one place that knows
/// what an agent costs.
pub(crate) fn bytes_per_agent(tree: &CliTree, mode: Mode) -> u64 {
    let mut agent = Agent::new(tree);
    agent.set_mode(tree, mode);
    (size_of::<Agent>() + agent.heap_bytes()) as u64
}

/// Agents with ids `0..agents`, running `tree` in `mode`, if their memory
/// is within [`MAX_CROWD_BYTES`] and the system grants it.
pub(crate) fn create(tree: &CliTree, agents: u32, mode: Mode) -> Result<Vec<Agent>, CrowdError> {
    let bytes_per_agent = bytes_per_agent(tree, mode);
    if u64::from(agents).saturating_mul(bytes_per_agent) > MAX_CROWD_BYTES {
        return Err(CrowdError::TooLarge {
            agents,
            bytes_per_agent,
        });
    }
    let mut crowd = Vec::new();
    crowd
        .try_reserve_exact(agents as usize)
        .map_err(|reason| CrowdError::Refused {
            agents,
            bytes_per_agent,
            reason,
        })?;
    crowd.extend((0..agents).map(|id| {
        let mut agent = Agent::with_id(tree, id);
        agent.set_mode(tree, mode);
        agent
    }));
    Ok(crowd)
}
