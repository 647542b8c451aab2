//! The crowd's world and rules, as plain Rust shared word for word by
//! every side of the side-by-side bench: canopy-bevy's `bevy_crowd` (the
//! tree's leaves and the hand-written system) and `benches/bevy_versus`
//! (bevy_behave's task systems and its own hand-written system), which
//! includes this file. No Bevy in it: the two sides are on different Bevy
//! versions.
//!
//! The rules: an NPC whose health is below [`HURT_BELOW`] flees from the
//! nearest target until its health is back to [`FLEE_UNTIL`]; otherwise it
//! chases the nearest target while one is within [`SEES`]; otherwise it
//! wanders, turning every [`TURN_EVERY`] frames to a direction hashed from
//! its number and the turn. Targets bite whoever stands within
//! [`BITE_RANGE`]; the others heal.

/// The field's side.
pub(crate) const SIZE: f32 = 200.0;
/// How far an NPC moves a frame.
pub(crate) const SPEED: f32 = 0.5;
/// How many targets.
pub(crate) const TARGETS: u64 = 64;
/// Below this health an NPC starts fleeing...
pub(crate) const HURT_BELOW: f32 = 30.0;
/// ...and flees until its health is back to this: the frame it is, it
/// still flees, then it chooses again. The same as [`HURT_BELOW`], so a
/// fleeing NPC stops once it is no longer hurt (a higher value would make
/// it flee on, healed, as long as its flee lasts).
pub(crate) const FLEE_UNTIL: f32 = 30.0;
/// A target within this distance is seen.
pub(crate) const SEES: f32 = 6.0;
/// A wanderer turns every this many frames.
pub(crate) const TURN_EVERY: u32 = 20;
/// A target bites whoever is closer than this...
pub(crate) const BITE_RANGE: f32 = 1.5;
/// ...for this much health; the others heal by [`HEAL`] a frame.
pub(crate) const BITE: f32 = 10.0;
/// Health an NPC not bitten gets back each frame.
pub(crate) const HEAL: f32 = 0.5;

/// What an NPC did on its last frame: the counts at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Doing {
    /// Walking about.
    #[default]
    Wander,
    /// Going to the nearest target.
    Chase,
    /// Running from the nearest target.
    Flee,
}

/// Where the targets are.
#[derive(Debug)]
pub(crate) struct Targets(pub(crate) Vec<[f32; 2]>);

impl Targets {
    /// The same targets on every side, placed by a hash.
    pub(crate) fn new() -> Targets {
        Targets(
            (0..TARGETS)
                .map(|i| [(mix(i) % 200) as f32, (mix(i + 1000) % 200) as f32])
                .collect(),
        )
    }

    /// The nearest target and its distance.
    pub(crate) fn nearest(&self, from: [f32; 2]) -> ([f32; 2], f32) {
        self.0
            .iter()
            .map(|&t| (t, distance(t, from)))
            .fold(([0.0; 2], f32::INFINITY), |best, c| {
                if c.1 < best.1 { c } else { best }
            })
    }
}

/// NPC `i`'s starting place (health starts at 100).
pub(crate) fn start(i: u64) -> [f32; 2] {
    [(mix(i) % 200) as f32, (mix(i + 7) % 200) as f32]
}

/// Straight-line distance.
pub(crate) fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// The unit vector from `from` to `to`.
pub(crate) fn toward(from: [f32; 2], to: [f32; 2]) -> [f32; 2] {
    let d = distance(from, to).max(1e-6);
    [(to[0] - from[0]) / d, (to[1] - from[1]) / d]
}

/// splitmix64's finaliser: a reproducible pseudo-random number from a key.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A wanderer's direction: NPC `id` at frame `frame`, turning every
/// `turn_every` frames.
pub(crate) fn wander(id: u32, frame: u32, turn_every: u32) -> [f32; 2] {
    let turn = u64::from(frame / turn_every.max(1));
    let angle = (mix((u64::from(id) << 32) | turn) % 6283) as f32 / 1000.0;
    [angle.cos(), angle.sin()]
}

/// One frame's movement along the intent, inside the field.
pub(crate) fn walk(pos: &mut [f32; 2], want: [f32; 2]) {
    for axis in 0..2 {
        pos[axis] = (pos[axis] + want[axis] * SPEED).clamp(0.0, SIZE);
    }
}

/// One frame's health: bitten next to a target, else healing.
pub(crate) fn bite(health: f32, targets: &Targets, pos: [f32; 2]) -> f32 {
    let bitten = targets.nearest(pos).1 < BITE_RANGE;
    if bitten { health - BITE } else { health + HEAL }.clamp(0.0, 100.0)
}

/// The whole rule set for one NPC and one frame, as a hand-written system
/// runs it: the intent and what the NPC is doing, given whether it was
/// fleeing (updated). One scan of the targets.
pub(crate) fn decide(
    pos: [f32; 2],
    health: f32,
    id: u32,
    fleeing: &mut bool,
    targets: &Targets,
    frame: u32,
) -> ([f32; 2], Doing) {
    let (target, d) = targets.nearest(pos);
    if *fleeing || health < HURT_BELOW {
        *fleeing = health < FLEE_UNTIL;
        return (toward(target, pos), Doing::Flee);
    }
    if d <= SEES {
        (toward(pos, target), Doing::Chase)
    } else {
        (wander(id, frame, TURN_EVERY), Doing::Wander)
    }
}
