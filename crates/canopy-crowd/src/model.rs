//! The movement model's parameters, in one place: how big a body is, how
//! fast an agent walks when nothing is in its way, how far ahead avoidance
//! looks, and what time gap an agent keeps to whoever walks ahead of it.
//! The world is in metres and seconds.
//!
//! [`Model::PEDESTRIANS`] is tuned against pedestrian measurements (the
//! scenarios of [`crate::scenarios`]: Weidmann's fundamental diagram, the
//! specific flow through bottlenecks, the RiMEA test cases), and every
//! crowd uses it unless told otherwise: the demo's walkers are drawn from
//! it ([`Walker::scattered`](crate::Walker::scattered)) and
//! [`Motion`](crate::Motion) steers with it. What was tried and what each
//! value does is said at each field; the figures are in the crate's
//! `docs/crowd-demo.md` table ("Movement checked against measurements").

use std::f32::consts::TAU;

/// The movement model: bodies, free speeds, avoidance and following.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// Body radius, metres: each agent draws one uniformly between the
    /// two. It sets the densest packing, and so where the fundamental
    /// diagram reaches zero speed: bodies of radius `r` packed
    /// hexagonally stand `1 / (2√3 r²)` to the square metre.
    pub radius: [f32; 2],
    /// Mean free walking speed, m/s (Weidmann's 1.34).
    pub speed_mean: f32,
    /// Standard deviation of the free walking speeds, m/s (Weidmann's 0.26).
    pub speed_sd: f32,
    /// Free speeds are drawn from the normal distribution and kept within
    /// these bounds, m/s.
    pub speed_range: [f32; 2],
    /// How far ahead avoidance (ORCA) looks for collisions, seconds.
    /// Longer makes agents swerve earlier and hold back more in a crowd;
    /// shorter lets them brush closer before they react.
    pub time_horizon: f32,
    /// How far ahead avoidance looks for walls, seconds: shorter than for
    /// agents, as RVO2 has it, or a doorway's posts hold everyone back
    /// (an agent may close on a wall at most its distance over this time).
    pub wall_horizon: f32,
    /// The time gap, seconds, an agent keeps to the nearest agent ahead of
    /// it in its walking direction: it walks no faster than the gap
    /// between their bodies over this time (the collision-free speed
    /// model of Tordeux, Chraibi and Seyfried, 2016). ORCA alone lets a
    /// column of agents walking the same way keep their free speed at any
    /// density (their velocities relative to each other are zero, so they
    /// never meet); pedestrians slow down as they close up. 0 turns it off.
    pub time_gap: f32,
    /// The least an agent blocked ahead still asks for, as a fraction of
    /// its speed: a crowd leans on, and two agents that each wait for the
    /// other at a door post do not wait for ever.
    pub press: f32,
}

impl Model {
    /// The model tuned against pedestrian measurements (see the module
    /// documentation).
    pub const PEDESTRIANS: Model = Model {
        radius: [0.2, 0.26],
        speed_mean: 1.34,
        speed_sd: 0.26,
        speed_range: [0.6, 2.0],
        time_horizon: 2.0,
        wall_horizon: 0.5,
        time_gap: 1.2,
        press: 0.1,
    };

    /// ORCA as it is published, without the time gap: the same bodies,
    /// speeds and horizon, for comparison.
    pub const ORCA_ONLY: Model = Model {
        time_gap: 0.0,
        ..Model::PEDESTRIANS
    };

    /// A body radius and a free speed from three numbers uniform in
    /// `0.0..1.0`: the radius from the first, the speed from the other two
    /// (Box–Muller), kept within [`Model::speed_range`].
    ///
    /// ```
    /// use canopy_crowd::Model;
    /// // The middle of the radius range; the speed a normal deviate of
    /// // √(2 ln 2) = 1.18 above the mean: 1.34 + 0.26 × 1.18.
    /// let (radius, speed) = Model::PEDESTRIANS.draw([0.5, 0.5, 0.0]);
    /// assert!((radius - 0.23).abs() < 1e-6);
    /// assert!((speed - 1.646).abs() < 1e-3, "{speed}");
    /// ```
    pub fn draw(&self, u: [f32; 3]) -> (f32, f32) {
        let [lo, hi] = self.radius;
        let radius = lo + (hi - lo) * u[0];
        // 1 - u is in (0, 1]: its logarithm is finite.
        let normal = (-2.0 * (1.0 - u[1]).ln()).sqrt() * (TAU * u[2]).cos();
        let [slow, fast] = self.speed_range;
        let speed = (self.speed_mean + self.speed_sd * normal)
            .max(slow)
            .min(fast);
        (radius, speed)
    }
}

impl Default for Model {
    fn default() -> Self {
        Model::PEDESTRIANS
    }
}

/// Weidmann's fundamental diagram (1993): the mean walking speed, m/s, of
/// pedestrians at `density` persons per square metre — 1.34 m/s free,
/// zero at 5.4 p/m² and beyond: `1.34 (1 − exp(−1.913 (1/ρ − 1/5.4)))`.
///
/// ```
/// use canopy_crowd::weidmann_speed;
/// assert!((weidmann_speed(0.01) - 1.34).abs() < 1e-3);
/// assert!((weidmann_speed(2.0) - 0.61).abs() < 0.01);
/// assert_eq!(weidmann_speed(6.0), 0.0);
/// ```
pub fn weidmann_speed(density: f64) -> f64 {
    const FREE: f64 = 1.34;
    const GAMMA: f64 = 1.913;
    const JAM: f64 = 5.4;
    if density <= 0.0 {
        return FREE;
    }
    (FREE * (1.0 - (-GAMMA * (1.0 / density - 1.0 / JAM)).exp())).max(0.0)
}
