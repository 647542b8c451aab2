//! The one hash behind every reproducible random draw in canopy: a node's
//! salt, a `Random` leaf's roll, a `Chance` condition, a shuffled order, a
//! crowd's scattering.
//!
//! Randomness in a behaviour tree must replay: the same file, seed, agent
//! and tick give the same outcome, in any thread and after a snapshot. So
//! draws are not taken from a generator that carries state between agents;
//! each is a hash of what identifies it (seed, node, agent, tick, count).
//! The hash is splitmix64's output function (`rand_xoshiro`'s
//! `SplitMix64`, one step from the given state): every input bit affects
//! every output bit, in a handful of multiplications.

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// `x` mixed: splitmix64's first output from state `x`.
///
/// ```
/// use canopy_core::hash::mix;
/// assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
/// assert_ne!(mix(1), mix(2));
/// ```
#[inline]
pub fn mix(x: u64) -> u64 {
    SplitMix64::seed_from_u64(x).next_u64()
}

/// A hash as a number in `0.0..1.0`, with 53 random bits.
///
/// ```
/// let u = canopy_core::hash::unit(7);
/// assert!((0.0..1.0).contains(&u));
/// ```
#[inline]
pub fn unit(key: u64) -> f64 {
    (mix(key) >> 11) as f64 / (1u64 << 53) as f64
}

/// The key of a draw by agent `id` at agent tick `tick`.
#[inline]
pub fn agent_tick(id: u32, tick: u32) -> u64 {
    mix((u64::from(id) << 32) | u64::from(tick))
}
