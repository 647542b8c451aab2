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

/// The 53 bits of a hash that [`unit()`] divides by 2⁵³: `unit(key) < p`
/// exactly when `bits(key) < below(p)`, so a node can compare integers
/// against a threshold computed once instead of converting every draw.
///
/// ```
/// use canopy_core::hash::{bits, below, unit};
/// for key in 0..1000 {
///     assert_eq!(unit(key) < 0.3, bits(key) < below(0.3));
/// }
/// ```
#[inline]
pub fn bits(key: u64) -> u64 {
    mix(key) >> 11
}

/// The threshold for probability `p`: the number of 53-bit draws `m` with
/// `m / 2⁵³ < p`, that is ⌈p·2⁵³⌉ (0 for `p ≤ 0` or NaN, 2⁵³ for `p ≥ 1`).
/// Multiplying by a power of two is exact in `f64`, so the comparison with
/// [`bits`] gives the same outcome as comparing [`unit()`] with `p`.
///
/// ```
/// use canopy_core::hash::below;
/// assert_eq!(below(0.0), 0);
/// assert_eq!(below(0.5), 1 << 52);
/// assert_eq!(below(1.0), 1 << 53);
/// assert_eq!(below(f64::NAN), 0);
/// ```
#[inline]
pub fn below(p: f64) -> u64 {
    const SCALE: f64 = (1u64 << 53) as f64;
    // `as` saturates: NaN and negatives give 0.
    ((p * SCALE).ceil() as u64).min(1 << 53)
}
