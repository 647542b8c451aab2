//! `Periodic`: a condition on the agent's clock, for prototypes and tests.

use canopy_core::{Ctx, Params, params::Ticks};

/// Condition: true for the first `on` of every `period` agent ticks (ticks
/// 1..=on, period+1..=period+on, …), the cycle moved `offset` ticks
/// earlier.
#[derive(Params)]
pub(crate) struct Periodic {
    /// Length of the cycle.
    #[param(range = 1..)]
    period: Ticks,
    /// Ticks of each cycle it is true.
    on: Ticks,
    /// Ticks the cycle is moved earlier: period 30, on 6, offset 20 is true
    /// at ticks 11–16, 41–46, ….
    #[param(default = 0)]
    offset: Ticks,
}

/// The condition, from its parameters (the registry's factory).
pub(crate) fn periodic<A, W>(p: Periodic) -> impl Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static {
    let (period, on, offset) = (p.period.get(), p.on.get(), p.offset.get());
    move |cx: &Ctx<A, W>| holds(cx.tick, period, on, offset)
}

/// Whether a Periodic condition holds at agent tick `tick` (from 1).
fn holds(tick: u32, period: u32, on: u32, offset: u32) -> bool {
    (tick.wrapping_sub(1).wrapping_add(offset)) % period < on
}

#[cfg(test)]
mod tests {
    use super::holds;

    #[test]
    fn periodic_offset_moves_the_cycle_earlier() {
        let on_ticks = |period, on, offset| -> Vec<u32> {
            (1..=70).filter(|&t| holds(t, period, on, offset)).collect()
        };
        assert_eq!(
            on_ticks(30, 6, 0),
            [
                1, 2, 3, 4, 5, 6, 31, 32, 33, 34, 35, 36, 61, 62, 63, 64, 65, 66
            ]
        );
        assert_eq!(
            on_ticks(30, 6, 20),
            [11, 12, 13, 14, 15, 16, 41, 42, 43, 44, 45, 46]
        );
        assert_eq!(
            on_ticks(30, 6, 1),
            [
                1, 2, 3, 4, 5, 30, 31, 32, 33, 34, 35, 60, 61, 62, 63, 64, 65
            ]
        );
    }
}
