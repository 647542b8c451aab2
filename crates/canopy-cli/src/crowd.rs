//! The crowd `run` and `bench` tick: agents and their data, made new or
//! restored from a snapshot. A crowd's memory is checked against
//! [`MAX_CROWD_BYTES`] before any agent is made or restored, with each
//! agent at its peak ([`Agent::peak_bytes`]: in event mode, the schedule at
//! its largest, not as it is before the first tick), and its lists are
//! allocated with `try_reserve`, so that a crowd too large for the limit or
//! for the machine is an error, never an abort. The peak is read from the
//! tree, so the check costs nothing per tick. Rejected: measuring after the
//! first tick, which would already have taken the memory.

use std::collections::TryReserveError;
use std::fmt;

use canopy_core::{Agent, Mode, Tree};

/// The most memory `run` and `bench` give a crowd's agents, in bytes
/// (16 GiB): more is a typo, not a measurement.
pub(crate) const MAX_CROWD_BYTES: u64 = 16 << 30;

/// Agents and, index for index, their data.
pub(crate) struct Crowd<A> {
    pub(crate) agents: Vec<Agent>,
    pub(crate) data: Vec<A>,
}

impl<A> Crowd<A> {
    /// The tick the crowd has run to: its first agent's (the agents of
    /// `run` all tick together).
    pub(crate) fn ticks(&self) -> u32 {
        self.agents.first().map_or(0, Agent::ticks)
    }
}

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

/// The most one agent of `tree` holds in `mode`: the `Agent` value, its
/// heap at its peak (task memory, waits, and in event mode its schedule)
/// and its data's inline size. The one place that knows what an agent costs.
pub(crate) fn bytes_per_agent<A, W>(tree: &Tree<A, W>, mode: Mode) -> u64 {
    (Agent::peak_bytes(tree, mode) + size_of::<A>()) as u64
}

/// `agents` agents of `tree` in `mode`, if their memory is within
/// [`MAX_CROWD_BYTES`]; else the error. Returns the bytes per agent.
pub(crate) fn check<A, W>(tree: &Tree<A, W>, agents: u32, mode: Mode) -> Result<u64, CrowdError> {
    let bytes_per_agent = bytes_per_agent(tree, mode);
    if u64::from(agents).saturating_mul(bytes_per_agent) > MAX_CROWD_BYTES {
        return Err(CrowdError::TooLarge {
            agents,
            bytes_per_agent,
        });
    }
    Ok(bytes_per_agent)
}

/// Agents with ids `0..agents`, running `tree` in `mode`, with data from
/// `make`, if their memory is within [`MAX_CROWD_BYTES`] and the system
/// grants it.
pub(crate) fn create<A, W>(
    tree: &Tree<A, W>,
    agents: u32,
    mode: Mode,
    make: &dyn Fn(u32) -> A,
) -> Result<Crowd<A>, CrowdError> {
    let bytes_per_agent = check(tree, agents, mode)?;
    let refused = |reason| CrowdError::Refused {
        agents,
        bytes_per_agent,
        reason,
    };
    // The whole crowd's memory, asked for once as one block and given
    // back: under an address-space limit a crowd that cannot fit is this
    // error, not an abort at its thousandth agent's allocation. The block
    // is never touched, so this costs a mapping, not the memory.
    let total = u64::from(agents).saturating_mul(bytes_per_agent);
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(usize::try_from(total).unwrap_or(usize::MAX))
        .map_err(refused)?;
    drop(probe);
    let mut crowd = Vec::new();
    crowd.try_reserve_exact(agents as usize).map_err(refused)?;
    crowd.extend((0..agents).map(|id| {
        let mut agent = Agent::with_id(tree, id);
        agent.set_mode(tree, mode);
        agent
    }));
    let data = data_for(&crowd, make).map_err(refused)?;
    Ok(Crowd {
        agents: crowd,
        data,
    })
}

/// Data from `make` for each of `agents`, by id.
pub(crate) fn data_for<A>(
    agents: &[Agent],
    make: &dyn Fn(u32) -> A,
) -> Result<Vec<A>, TryReserveError> {
    let mut data = Vec::new();
    data.try_reserve_exact(agents.len())?;
    data.extend(agents.iter().map(|agent| make(agent.id())));
    Ok(data)
}
