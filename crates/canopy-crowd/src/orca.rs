//! ORCA, optimal reciprocal collision avoidance (van den Berg, Guy, Lin and
//! Manocha, 2011), for at most [`MAX_LINES`] neighbours, on the stack.
//!
//! Each neighbour forbids a half-plane of velocities (a *line*: a point
//! and a unit direction, allowed velocities on its left); the agent takes
//! the allowed velocity nearest to its intent within its top speed, found
//! by an incremental 2D linear program. When the half-planes leave nothing,
//! a 3D program finds the velocity that intrudes least into any of them.
//!
//! Why not a library: `dodgy_2d` computes the same thing but collects its
//! half-planes into a fresh `Vec` on every call — at 100,000 agents,
//! 100,000 allocations a step from every thread at once — and picks a
//! *random* direction when two agents coincide exactly, which would make a
//! run depend on more than its seed. Here the lines live in fixed arrays
//! (a neighbour list is at most [`MAX_LINES`] long), and the coinciding
//! case is settled by slot order. The arithmetic follows the same formulas
//! in the same order, so the velocities are `dodgy_2d`'s, bit for bit, in
//! every other case (a test compares the two), in about a fifth less
//! processor time.
//!
//! Why four lanes: in a dense crowd every agent has its full eight
//! neighbours, and working out their half-planes one by one (two square
//! roots and several divisions each, and a branch that is a coin toss)
//! was the larger part of a solve. The neighbours are taken four at a
//! time, one per lane of a [`Vec4`] (SSE on x86-64): each field of the four
//! bodies becomes one vector (a structure of arrays, by a 4×4 transpose),
//! both cases of a half-plane (apart: circle or cone side; overlapping)
//! are worked out in every lane, and each lane picks its own with a mask.
//! A lane does the scalar formulas' operations in the same order, and
//! `+`, `−`, `×`, `÷` and `√` round exactly in every lane (nothing fused,
//! no reciprocal estimates), so the lines are bit for bit the scalar
//! ones; a test compares them with the scalar version kept for it. The
//! lines are then kept as a structure of arrays too, so the lanes are
//! stored as they come. `crowd_phases` (the example of this crate) times
//! the avoidance phase on its own.
//!
//! The linear programs stay scalar: they are bound by their branches
//! (does a line allow the current value? does a line's interval close?),
//! whose outcomes follow the crowd, not a pattern. `on_line` does not
//! depend on the current value, so while those branches are guessed right
//! the processor works on several line solves at once; what takes that
//! away costs more than the branches it saves.
//!
//! Rejected, each measured slower or no faster on the crush of
//! `crowd_phases`: the programs' crossings and the 3D program's
//! equal-intrusion lines in lanes (a solve builds them for few lines);
//! an `on_line` without early exits; one division or root serving both
//! cases of a half-plane (the cases' chains no longer overlap); testing
//! every line against the current value in lanes and visiting only the
//! failing ones (the next line solve waits for the previous one's value
//! instead of starting on a guess); the interval update without a branch;
//! every line's crossings with the speed circle worked out beforehand; one
//! buffer of equal-intrusion lines for all of a 3D program's rebuilds;
//! `solve_3d` inlined; loops capped at [`MAX_LINES`] to drop the bounds
//! checks (they are unrolled); skipping the overlapping case where no lane
//! of a batch overlaps (in a crush nearly half the batches have one, so
//! the branch is a coin toss).

use glam::{BVec4A, Mat4, Vec2, Vec4};

/// Most neighbours one solve takes into account.
pub(crate) const MAX_LINES: usize = 8;

/// Below this, two directions count as parallel.
const EPSILON: f32 = 1.0e-5;

/// An agent's body as avoidance sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Body {
    /// Where it is.
    pub(crate) position: Vec2,
    /// How fast it is going.
    pub(crate) velocity: Vec2,
    /// How wide it is.
    pub(crate) radius: f32,
    /// Its share of the effort when two are about to collide: of two
    /// bodies `a` and `b`, `a` takes `a / (a + b)` of it (ORCA's
    /// reciprocity is 1 and 1; a wall is 0, so whoever meets it takes all).
    pub(crate) responsibility: f32,
}

/// A half-plane of velocities: those on the left of `direction` (a unit
/// vector) through `point`.
#[derive(Clone, Copy, Debug, Default)]
struct Line {
    point: Vec2,
    direction: Vec2,
}

/// Up to [`MAX_LINES`] lines, in order, as a structure of arrays (one
/// array per coordinate), so that four lanes of half-planes are stored
/// into it as they come. Entries from `len` on are not lines and never
/// read.
#[derive(Clone, Copy, Debug)]
struct Lines {
    len: usize,
    px: [f32; MAX_LINES],
    py: [f32; MAX_LINES],
    dx: [f32; MAX_LINES],
    dy: [f32; MAX_LINES],
}

impl Lines {
    fn new() -> Lines {
        Lines {
            len: 0,
            px: [0.0; MAX_LINES],
            py: [0.0; MAX_LINES],
            dx: [0.0; MAX_LINES],
            dy: [0.0; MAX_LINES],
        }
    }

    /// Add `line`; past [`MAX_LINES`] it is left out (the callers never
    /// pass more).
    fn push(&mut self, line: Line) {
        let k = self.len;
        if k < MAX_LINES {
            self.px[k] = line.point.x;
            self.py[k] = line.point.y;
            self.dx[k] = line.direction.x;
            self.dy[k] = line.direction.y;
            self.len += 1;
        }
    }

    /// Line `k` (below `len`).
    fn get(&self, k: usize) -> Line {
        Line {
            point: Vec2::new(self.px[k], self.py[k]),
            direction: Vec2::new(self.dx[k], self.dy[k]),
        }
    }
}

/// What a linear program looks for: the allowed value nearest a point, or
/// the one farthest along a unit direction.
#[derive(Clone, Copy)]
enum Aim {
    Nearest(Vec2),
    Farthest(Vec2),
}

/// The 2D cross product: positive when `b` turns left of `a`.
fn cross(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// The velocity `me` should take to avoid `others` (each with whether its
/// slot comes after `me`'s, which settles who goes which way when two
/// coincide), as close to `preferred` as allowed, at most `max_speed`.
/// `step` is the time until the next decision (positive), `horizon` how
/// far ahead collisions count (positive), `others` at most [`MAX_LINES`]
/// long (the rest are ignored).
pub(crate) fn avoid(
    me: &Body,
    others: impl IntoIterator<Item = (Body, bool)>,
    preferred: Vec2,
    max_speed: f32,
    step: f32,
    horizon: f32,
) -> Vec2 {
    let lines = half_planes(me, &Neighbours::gather(others), step, horizon);
    match solve_2d(&lines, max_speed, Aim::Nearest(preferred)) {
        Ok(v) => v,
        Err((failed, partial)) => solve_3d(&lines, max_speed, failed, partial, 0),
    }
}

/// [`avoid`] beside walls: each of `walls` (at most two points, the
/// nearest of each wall) is a still body of no size that takes no share of
/// the effort, looked at `wall_horizon` seconds ahead, and its line is
/// hard — when the lines leave nothing, only the other agents' are
/// relaxed (as RVO2 does with obstacles). `others` at most
/// [`MAX_LINES`] minus the walls long.
#[allow(clippy::too_many_arguments)]
pub(crate) fn avoid_beside_walls(
    me: &Body,
    walls: &[Vec2],
    others: impl IntoIterator<Item = (Body, bool)>,
    preferred: Vec2,
    max_speed: f32,
    step: f32,
    horizon: f32,
    wall_horizon: f32,
) -> Vec2 {
    let agents = half_planes(me, &Neighbours::gather(others), step, horizon);
    let mut lines = Lines::new();
    for &point in walls {
        let wall = Body {
            position: point,
            ..Body::default()
        };
        lines.push(half_plane(me, &wall, true, step, wall_horizon));
    }
    let hard = lines.len;
    for k in 0..agents.len {
        lines.push(agents.get(k));
    }
    match solve_2d(&lines, max_speed, Aim::Nearest(preferred)) {
        Ok(v) => v,
        Err((failed, partial)) => solve_3d(&lines, max_speed, failed, partial, hard),
    }
}

/// Lanes in one batch of [`half_planes_4`].
const LANES: usize = 4;

// A full neighbour list is exactly two batches.
const _: () = assert!(MAX_LINES == 2 * LANES);

/// Up to [`MAX_LINES`] neighbours, each with whether its slot comes after
/// the agent's. Entries from `len` on are zero and ignored.
#[derive(Clone, Copy, Debug, Default)]
struct Neighbours {
    len: usize,
    bodies: [Body; MAX_LINES],
    after: [bool; MAX_LINES],
}

impl Neighbours {
    /// The first [`MAX_LINES`] of `others`.
    fn gather(others: impl IntoIterator<Item = (Body, bool)>) -> Neighbours {
        let mut n = Neighbours::default();
        for (k, (other, after)) in others.into_iter().take(MAX_LINES).enumerate() {
            n.bodies[k] = other;
            n.after[k] = after;
            n.len = k + 1;
        }
        n
    }

    /// The neighbours `from..from + 4`, one per lane.
    fn batch(&self, from: usize) -> Bodies4 {
        let b = &self.bodies[from..from + LANES];
        let a = &self.after[from..from + LANES];
        // Each body's position and velocity are one row; transposed, one
        // field per lane.
        let row = |b: &Body| Vec4::new(b.position.x, b.position.y, b.velocity.x, b.velocity.y);
        let fields = Mat4::from_cols(row(&b[0]), row(&b[1]), row(&b[2]), row(&b[3])).transpose();
        Bodies4 {
            x: fields.x_axis,
            y: fields.y_axis,
            vx: fields.z_axis,
            vy: fields.w_axis,
            radius: Vec4::new(b[0].radius, b[1].radius, b[2].radius, b[3].radius),
            responsibility: Vec4::new(
                b[0].responsibility,
                b[1].responsibility,
                b[2].responsibility,
                b[3].responsibility,
            ),
            after: BVec4A::new(a[0], a[1], a[2], a[3]),
        }
    }
}

/// Four neighbours, one per lane.
struct Bodies4 {
    x: Vec4,
    y: Vec4,
    vx: Vec4,
    vy: Vec4,
    radius: Vec4,
    responsibility: Vec4,
    after: BVec4A,
}

/// Four half-planes, one per lane: point (`px`, `py`), direction
/// (`dx`, `dy`).
struct Lines4 {
    px: Vec4,
    py: Vec4,
    dx: Vec4,
    dy: Vec4,
}

/// The half-planes of `half_plane` (the scalar formulas, kept as the
/// tests' reference) for every neighbour in `others`, four at a time.
fn half_planes(me: &Body, others: &Neighbours, step: f32, horizon: f32) -> Lines {
    // Both batches are always worked out (lanes past the end hold zeros
    // and are never read), with no branch between them: the processor
    // then overlaps their long chains of divisions and square roots.
    let (first, second) = (
        half_planes_4(me, &others.batch(0), step, horizon),
        half_planes_4(me, &others.batch(LANES), step, horizon),
    );
    let mut lines = Lines::new();
    for (from, batch) in [(0, first), (LANES, second)] {
        let to = from..from + LANES;
        batch.px.write_to_slice(&mut lines.px[to.clone()]);
        batch.py.write_to_slice(&mut lines.py[to.clone()]);
        batch.dx.write_to_slice(&mut lines.dx[to.clone()]);
        batch.dy.write_to_slice(&mut lines.dy[to]);
    }
    lines.len = others.len;
    lines
}

/// Square roots of each lane, correctly rounded like [`f32::sqrt`].
/// Written lane by lane (glam has no such method, and calling the SSE
/// intrinsic takes `unsafe`); the compiler makes it one `sqrtps`.
fn sqrt_4(v: Vec4) -> Vec4 {
    Vec4::new(v.x.sqrt(), v.y.sqrt(), v.z.sqrt(), v.w.sqrt())
}

/// [`f32::signum`] of each lane: ±1 by the sign bit, NaN for NaN.
fn signum_4(v: Vec4) -> Vec4 {
    Vec4::select(v.is_nan_mask(), Vec4::NAN, Vec4::ONE.copysign(v))
}

/// `(x, y) * recip` where `recip` is finite and positive (as glam's
/// `normalize_or` tests it), else `fallback`, lane by lane.
fn scale_or(x: Vec4, y: Vec4, recip: Vec4, fallback: (Vec4, Vec4)) -> (Vec4, Vec4) {
    // What `is_finite_mask` tests, written out: glam does not mark that
    // method inline, and a call per batch costs more than the test.
    let ok = recip.abs().cmplt(Vec4::INFINITY) & recip.cmpgt(Vec4::ZERO);
    (
        Vec4::select(ok, x * recip, fallback.0),
        Vec4::select(ok, y * recip, fallback.1),
    )
}

/// `half_plane` for four neighbours at once, one per lane. Every branch
/// of the scalar version is worked out for every lane and each lane picks
/// its own, so a lane does exactly the scalar operations, in the same
/// order, and rounds exactly the same (`+`, `−`, `×`, `÷` and `√` are
/// correctly rounded in every lane; nothing is fused).
///
/// Always inlined into [`half_planes`]: called, each batch's bodies went
/// to memory and its lines came back through memory.
#[inline(always)]
fn half_planes_4(me: &Body, o: &Bodies4, step: f32, horizon: f32) -> Lines4 {
    let (mvx, mvy) = (Vec4::splat(me.velocity.x), Vec4::splat(me.velocity.y));
    let (ox, oy) = (o.x - me.position.x, o.y - me.position.y);
    let (cx, cy) = (mvx - o.vx, mvy - o.vy);
    let d2 = ox * ox + oy * oy;
    let reach = Vec4::splat(me.radius) + o.radius;
    let reach2 = reach * reach;
    let apart = d2.cmpgt(reach2);

    // Apart: the circle.
    let horizon = Vec4::splat(horizon);
    let (centre_x, centre_y) = (ox / horizon, oy / horizon);
    let (fx, fy) = (cx - centre_x, cy - centre_y);
    let f2 = fx * fx + fy * fy;
    let along = fx * ox + fy * oy;
    let radius = reach / horizon;
    let zero = (Vec4::ZERO, Vec4::ZERO);
    let (circle_nx, circle_ny) = scale_or(fx, fy, Vec4::ONE / sqrt_4(f2), zero);
    let circle_inside = f2.cmplt(radius * radius);
    // Apart: the cone's side.
    let leg = sqrt_4(d2 - reach2);
    let side = signum_4(ox * fy - oy * fx);
    let sdx = (ox * leg * side + -oy * reach) / d2;
    let sdy = (oy * leg * side + ox * reach) / d2;
    let along_side = cx * sdx + cy * sdy;
    let cone_inside = (cx * sdy - cy * sdx).cmpge(Vec4::ZERO);
    let circle = along.cmplt(Vec4::ZERO) & (along * along).cmpgt(reach2 * f2);

    // Overlapping.
    let (near_x, near_y) = (ox / step, oy / step);
    let near_radius = reach / step;
    let (gx, gy) = (cx - near_x, cy - near_y);
    let split = (Vec4::select(o.after, Vec4::NEG_ONE, Vec4::ONE), Vec4::ZERO);
    let (near_nx, near_ny) = scale_or(gx, gy, Vec4::ONE / sqrt_4(gx * gx + gy * gy), split);

    let pick = |circle_v: Vec4, cone_v: Vec4, near_v: Vec4| {
        Vec4::select(apart, Vec4::select(circle, circle_v, cone_v), near_v)
    };
    let nx = pick(circle_nx, -sdy, near_nx);
    let ny = pick(circle_ny, sdx, near_ny);
    let ex = pick(
        circle_nx * radius + centre_x,
        sdx * along_side,
        near_nx * near_radius + near_x,
    );
    let ey = pick(
        circle_ny * radius + centre_y,
        sdy * along_side,
        near_ny * near_radius + near_y,
    );
    let inside = !apart | (circle & circle_inside) | (!circle & cone_inside);
    let mine = Vec4::splat(me.responsibility);
    let share = Vec4::select(inside, mine / (mine + o.responsibility), Vec4::ONE);
    Lines4 {
        px: mvx + (ex - cx) * share,
        py: mvy + (ey - cy) * share,
        dx: ny,
        dy: -nx,
    }
}

/// The half-plane of velocities that keep `me` clear of `other` for
/// `horizon` seconds, `me` taking its share of the effort
/// ([`Body::responsibility`]) when a collision is already under way
/// (ORCA's reciprocity) and all of it otherwise.
///
/// One neighbour at a time, the formulas as written: the solver uses
/// [`half_planes_4`] for agents, and the tests check it against this;
/// walls, a line or two, take this one.
fn half_plane(me: &Body, other: &Body, after: bool, step: f32, horizon: f32) -> Line {
    let offset = other.position - me.position;
    let closing = me.velocity - other.velocity;
    let d2 = offset.length_squared();
    let reach = me.radius + other.radius;
    let reach2 = reach * reach;
    let (normal, edge, inside) = if d2 > reach2 {
        // Apart: the forbidden velocities are a cone truncated by a circle
        // (where they meet within the horizon); project onto the nearer
        // part of its boundary.
        let centre = offset / horizon;
        let from_centre = closing - centre;
        let from_centre2 = from_centre.length_squared();
        let along = from_centre.dot(offset);
        // Both parts are worked out and one is picked, without a branch:
        // which part applies is close to a coin toss from one neighbour to
        // the next, and a mispredicted branch costs more than the other
        // part's arithmetic.
        let radius = reach / horizon;
        let normal = from_centre.normalize_or_zero();
        let circle = (
            normal,
            normal * radius + centre,
            from_centre2 < radius * radius,
        );
        // The cone's side (left or right of the centre line), through the
        // tangent points of the circle.
        let leg = (d2 - reach2).sqrt();
        let side = cross(offset, from_centre).signum();
        let side_dir = (offset * leg * side + offset.perp() * reach) / d2;
        let cone = (
            side_dir.perp(),
            closing.project_onto_normalized(side_dir),
            cross(closing, side_dir) >= 0.0,
        );
        if (along < 0.0) & (along * along > reach2 * from_centre2) {
            circle
        } else {
            cone
        }
    } else {
        // Overlapping: get apart within the step.
        let centre = offset / step;
        let radius = reach / step;
        let from_centre = closing - centre;
        let recip = from_centre.length_recip();
        let normal = if recip.is_finite() && recip > 0.0 {
            from_centre * recip
        } else if after {
            // Same place, same motion: no direction is better than another,
            // so the pair splits along x, the later slot going right.
            Vec2::NEG_X
        } else {
            Vec2::X
        };
        (normal, normal * radius + centre, true)
    };
    let push = edge - closing;
    let share = if inside {
        me.responsibility / (me.responsibility + other.responsibility)
    } else {
        1.0
    };
    Line {
        point: me.velocity + push * share,
        direction: -normal.perp(),
    }
}

/// The value of `aim` among those allowed by every line, within `radius`
/// of the origin; or the first line that leaves nothing, with the value
/// found before it (which all earlier lines allow).
///
/// Always inlined, with [`on_line`]: each caller passes one kind of
/// [`Aim`], so every test of its kind is folded away.
#[inline(always)]
fn solve_2d(lines: &Lines, radius: f32, aim: Aim) -> Result<Vec2, (usize, Vec2)> {
    let mut best = match aim {
        Aim::Farthest(direction) => direction * radius,
        Aim::Nearest(p) if p.length_squared() > radius * radius => p.normalize() * radius,
        Aim::Nearest(p) => p,
    };
    for k in 0..lines.len {
        let line = lines.get(k);
        if cross(line.direction, best - line.point) > 0.0 {
            continue;
        }
        best = on_line(line, lines, k, radius, aim).ok_or((k, best))?;
    }
    Ok(best)
}

/// The value of `aim` on `line`, within `radius`, allowed by the first
/// `count` of `lines`; `None` when there is none.
#[inline(always)]
fn on_line(line: Line, lines: &Lines, count: usize, radius: f32, aim: Aim) -> Option<Vec2> {
    // Where the line crosses the circle: t² + 2bt + c = 0 along direction.
    let b = line.point.dot(line.direction);
    let discriminant = b * b + radius * radius - line.point.dot(line.point);
    if discriminant < 0.0 {
        return None;
    }
    let root = discriminant.sqrt();
    let (mut left, mut right) = (-b - root, -b + root);
    for k in 0..count {
        let other = lines.get(k);
        let denominator = cross(line.direction, other.direction);
        let numerator = cross(other.direction, line.point - other.point);
        if denominator.abs() <= EPSILON {
            // Parallel: either all of `line` is allowed by `other` or none.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            right = right.min(t);
        } else {
            left = left.max(t);
        }
        if left > right {
            return None;
        }
    }
    let t = match aim {
        Aim::Farthest(direction) if direction.dot(line.direction) > 0.0 => right,
        Aim::Farthest(_) => left,
        // `max` then `min`, not `clamp`: no panic on a NaN.
        Aim::Nearest(p) => line.direction.dot(p - line.point).max(left).min(right),
    };
    Some(line.point + t * line.direction)
}

/// When the lines from `failed` on leave nothing: the value within
/// `radius` that intrudes least into the worst of them, starting from
/// `partial` (allowed by every line before `failed`).
fn solve_3d(lines: &Lines, radius: f32, failed: usize, partial: Vec2, hard: usize) -> Vec2 {
    let mut depth = 0.0;
    let mut best = partial;
    for k in failed.max(hard)..lines.len {
        let line = lines.get(k);
        if cross(line.direction, line.point - best) <= depth {
            continue;
        }
        // Push as far out of this line as the lines of equal intrusion
        // allow.
        // Failing here is rounding: the current value is kept.
        if let Ok(v) = solve_2d(
            &equal_lines(line, lines, k, hard),
            radius,
            Aim::Farthest(line.direction.perp()),
        ) {
            best = v;
            depth = cross(line.direction, line.point - best);
        }
    }
    best
}

/// Each of the first `count` of `lines` becomes the line where it and
/// `line` are intruded into equally; one parallel to `line` and facing the
/// same way is left out. The first `hard` lines (walls) are kept as they
/// are: no crowd pushes an agent into a wall. (Worked out four at a time
/// like the half-planes, this measured no faster: a solve builds these for
/// few lines.)
fn equal_lines(line: Line, lines: &Lines, count: usize, hard: usize) -> Lines {
    let mut equal = Lines::new();
    for k in 0..hard.min(count) {
        equal.push(lines.get(k));
    }
    for k in hard.min(count)..count {
        let earlier = lines.get(k);
        let denominator = cross(line.direction, earlier.direction);
        let point = if denominator.abs() <= EPSILON {
            if line.direction.dot(earlier.direction) > 0.0 {
                continue;
            }
            (line.point + earlier.point) * 0.5
        } else {
            let t = cross(earlier.direction, line.point - earlier.point) / denominator;
            line.point + t * line.direction
        };
        equal.push(Line {
            direction: (earlier.direction - line.direction).normalize(),
            point,
        });
    }
    equal
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::borrow::Cow;

    fn body() -> impl Strategy<Value = Body> {
        (
            -4.0f32..4.0,
            -4.0f32..4.0,
            -4.0f32..4.0,
            -4.0f32..4.0,
            0.3f32..0.6,
            prop_oneof![Just(1.0f32), 0.1f32..8.0],
        )
            .prop_map(|(x, y, vx, vy, radius, responsibility)| Body {
                position: Vec2::new(x, y),
                velocity: Vec2::new(vx, vy),
                radius,
                responsibility,
            })
    }

    fn as_dodgy(b: &Body) -> dodgy_2d::Agent {
        dodgy_2d::Agent {
            position: b.position,
            velocity: b.velocity,
            radius: b.radius,
            avoidance_responsibility: b.responsibility,
        }
    }

    proptest! {
        /// The velocities are `dodgy_2d`'s, bit for bit, for crowds of up
        /// to eight neighbours near and overlapping, of any shares of
        /// responsibility and time horizons (the case where two coincide
        /// exactly aside, where it picks at random).
        #[test]
        fn avoidance_matches_dodgy_2d_bit_for_bit(
            me in body(),
            others in prop::collection::vec(body(), 0..=MAX_LINES),
            (px, py) in (-5.0f32..5.0, -5.0f32..5.0),
            max_speed in 0.0f32..5.0,
            horizon in prop_oneof![Just(2.0f32), 0.2f32..6.0],
        ) {
            let preferred = Vec2::new(px, py);
            let ours = avoid(&me, others.iter().map(|&o| (o, true)), preferred, max_speed, 0.1, horizon);
            let theirs_others: Vec<Cow<'_, dodgy_2d::Agent>> =
                others.iter().map(|o| Cow::Owned(as_dodgy(o))).collect();
            let options = dodgy_2d::AvoidanceOptions {
                obstacle_margin: 0.1,
                time_horizon: horizon,
                obstacle_time_horizon: 1.0,
            };
            let theirs = as_dodgy(&me).compute_avoiding_velocity(
                &theirs_others, &[], preferred, max_speed, 0.1, &options,
            );
            prop_assert_eq!(ours.to_array().map(f32::to_bits), theirs.to_array().map(f32::to_bits),
                "ours {:?}, dodgy_2d {:?}", ours, theirs);
        }
    }

    /// A neighbour for comparing half-planes: near or far, overlapping or
    /// apart, and now and then in exactly `me`'s place, motion or size.
    fn neighbour_of(me: Body) -> impl Strategy<Value = (Body, bool)> {
        let scale = prop_oneof![Just(0.0f32), Just(0.01f32), Just(1.0f32), Just(100.0f32)];
        (body(), scale, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            move |(b, scale, same_motion, same_size, after)| {
                let position = me.position + (b.position - me.position) * scale;
                let velocity = if same_motion { me.velocity } else { b.velocity };
                let radius = if same_size { me.radius } else { b.radius };
                let other = Body {
                    position,
                    velocity,
                    radius,
                    responsibility: b.responsibility,
                };
                (other, after)
            },
        )
    }

    fn bits(line: &Line) -> [u32; 4] {
        [
            line.point.x,
            line.point.y,
            line.direction.x,
            line.direction.y,
        ]
        .map(f32::to_bits)
    }

    proptest! {
        /// The half-planes worked out four at a time are the scalar
        /// [`half_plane`]'s, bit for bit, for every neighbour of a list of
        /// any length (lanes past its end are left out).
        #[test]
        fn half_planes_four_at_a_time_match_the_scalar_ones_bit_for_bit(
            (me, others) in body().prop_flat_map(|me| {
                (Just(me), prop::collection::vec(neighbour_of(me), 0..=MAX_LINES))
            }),
            step in prop_oneof![Just(0.1f32), Just(1.0e-3f32), 1.0e-3f32..1.0],
            horizon in prop_oneof![Just(2.0f32), 0.2f32..6.0],
        ) {
            let neighbours = Neighbours::gather(others.iter().copied());
            let lanes = half_planes(&me, &neighbours, step, horizon);
            prop_assert_eq!(lanes.len, others.len());
            for (k, (other, after)) in others.iter().enumerate() {
                let (line, scalar) = (lanes.get(k), half_plane(&me, other, *after, step, horizon));
                prop_assert_eq!(bits(&line), bits(&scalar), "lanes {:?}, scalar {:?}", line, scalar);
            }
        }
    }

    /// Two agents in the same place with the same motion split along x,
    /// in opposite directions, whichever is asked first.
    #[test]
    fn coinciding_agents_split_by_slot_order() {
        let here = Body {
            position: Vec2::new(5.0, 5.0),
            velocity: Vec2::ZERO,
            radius: 0.4,
            responsibility: 1.0,
        };
        let first = avoid(&here, [(here, true)], Vec2::ZERO, 3.0, 0.1, 2.0);
        let second = avoid(&here, [(here, false)], Vec2::ZERO, 3.0, 0.1, 2.0);
        assert_eq!(first, Vec2::new(-3.0, 0.0));
        assert_eq!(second, Vec2::new(3.0, 0.0));
    }

    /// With nobody near, the agent goes where it wants, up to its top speed.
    #[test]
    fn alone_an_agent_takes_its_intent_capped_at_its_top_speed() {
        let me = Body::default();
        assert_eq!(
            avoid(&me, [], Vec2::new(1.0, 2.0), 3.0, 0.1, 2.0),
            Vec2::new(1.0, 2.0)
        );
        assert_eq!(
            avoid(&me, [], Vec2::new(0.0, 6.0), 3.0, 0.1, 2.0),
            Vec2::new(0.0, 3.0)
        );
    }
}
