//! The final frame as an SVG picture: agents coloured by activity with
//! short trails, food, rest areas, threats, and a legend with the counts.
//! With level of detail on, the bands round the focus are drawn, agents
//! ticked less often are paler, and the legend counts each rate class.

use std::fmt::Write;

use crate::lod::class_label;
use crate::sim::Crowd;
use crate::walker::Activity;
use crate::world::World;
use glam::Vec2;

/// Render the crowd's current state; `title` heads the legend.
pub fn render_svg(crowd: &Crowd, title: &str) -> String {
    let world = &crowd.world;
    let px = 1000.0 / world.size;
    let (map, legend_w) = (1000.0, 240.0);
    let mut svg = String::with_capacity(crowd.walkers.len() * 220 + 4096);
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{map}" viewBox="0 0 {w} {map}" font-family="Helvetica, Arial, sans-serif">"#,
        w = map + legend_w
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{map}" height="{map}" fill="#f7f5ef"/>"##
    );

    for r in world.rest.centres() {
        let _ = writeln!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#1e88e5" fill-opacity="0.12" stroke="#1e88e5" stroke-width="1.5"/>"##,
            r.x * px,
            r.y * px,
            World::REST_RADIUS * px
        );
    }
    for f in world.food.centres() {
        let s = World::FOOD_RADIUS * 1.6 * px;
        let _ = writeln!(
            svg,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="{:.1}" fill="#2e7d32" fill-opacity="0.18" stroke="#2e7d32" stroke-width="1.5"/>"##,
            f.x * px - s / 2.0,
            f.y * px - s / 2.0,
            s,
            s,
            s / 4.0
        );
    }
    for t in &world.threats {
        let _ = writeln!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#e53935" fill-opacity="0.10" stroke="#b71c1c" stroke-dasharray="6 4"/><circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#b71c1c"/>"##,
            t.pos.x * px,
            t.pos.y * px,
            t.radius * px,
            t.pos.x * px,
            t.pos.y * px,
            1.2 * px
        );
    }

    // Trails under the agents, one path per activity colour.
    for activity in Activity::ALL {
        let mut d = String::new();
        for (i, w) in crowd.walkers.iter().enumerate() {
            if w.activity != activity {
                continue;
            }
            let mut first = true;
            for p in crowd.trail(i).chain(std::iter::once(w.pos)) {
                let _ = write!(
                    d,
                    "{}{:.1} {:.1}",
                    if first { "M" } else { "L" },
                    p.x * px,
                    p.y * px
                );
                first = false;
            }
        }
        if !d.is_empty() {
            let _ = writeln!(
                svg,
                r#"<path d="{d}" fill="none" stroke="{}" stroke-opacity="0.3" stroke-width="0.8"/>"#,
                activity.colour()
            );
        }
    }
    let lod = crowd.lod();
    for (i, w) in crowd.walkers.iter().enumerate() {
        let opacity = lod.map_or(1.0, |l| CLASS_OPACITY[l.class_of(i).min(3)]);
        let _ = writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{:.2}" fill="{}" fill-opacity="{opacity}"/>"#,
            w.pos.x * px,
            w.pos.y * px,
            (w.radius * px).max(1.2),
            w.activity.colour()
        );
    }
    bands(&mut svg, crowd, px);

    // Legend.
    let x = map + 16.0;
    let _ = writeln!(
        svg,
        r##"<rect x="{map}" width="{legend_w}" height="{map}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{x}" y="36" font-size="18" font-weight="bold">{}</text>"#,
        canopy_core::text::xml(title)
    );
    let _ = writeln!(
        svg,
        r#"<text x="{x}" y="60" font-size="13">{} agents, step {}</text>"#,
        crowd.walkers.len(),
        world.step
    );
    let mut y = 96.0;
    for (activity, count) in crowd.activity_counts() {
        let _ = writeln!(
            svg,
            r#"<circle cx="{}" cy="{}" r="7" fill="{}"/><text x="{}" y="{}" font-size="14">{} — {count}</text>"#,
            x + 7.0,
            y - 5.0,
            activity.colour(),
            x + 22.0,
            y,
            activity.word()
        );
        y += 26.0;
    }
    y += 14.0;
    let items = [
        (
            r##"<rect x="{x0}" y="{y0}" width="12" height="12" rx="3" fill="#2e7d32" fill-opacity="0.25" stroke="#2e7d32"/>"##,
            "food",
        ),
        (
            r##"<circle cx="{cx}" cy="{cy}" r="7" fill="#1e88e5" fill-opacity="0.2" stroke="#1e88e5"/>"##,
            "rest area",
        ),
        (
            r##"<circle cx="{cx}" cy="{cy}" r="7" fill="#e53935" fill-opacity="0.15" stroke="#b71c1c" stroke-dasharray="3 2"/>"##,
            "threat",
        ),
    ];
    for (shape, label) in items {
        let shape = shape
            .replace("{x0}", &format!("{}", x + 1.0))
            .replace("{y0}", &format!("{}", y - 11.0))
            .replace("{cx}", &format!("{}", x + 7.0))
            .replace("{cy}", &format!("{}", y - 5.0));
        let _ = writeln!(
            svg,
            r#"{shape}<text x="{}" y="{y}" font-size="14">{label}</text>"#,
            x + 22.0
        );
        y += 26.0;
    }
    let _ = writeln!(
        svg,
        r##"<text x="{x}" y="{}" font-size="11" fill="#666">trails: last positions</text>"##,
        y + 4.0
    );
    class_legend(&mut svg, crowd, x, y + 40.0);
    svg.push_str("</svg>\n");
    svg
}

/// How opaque an agent of each rate class is drawn: nearest first.
const CLASS_OPACITY: [f32; 4] = [1.0, 0.7, 0.45, 0.25];

/// How opaque an agent of level-of-detail class `class` (nearest first)
/// is drawn, in the picture and in the inspector: slower, paler.
pub fn class_opacity(class: usize) -> f32 {
    CLASS_OPACITY[class.min(CLASS_OPACITY.len() - 1)]
}

/// The level of detail's bands, dashed circles round its focus.
fn bands(svg: &mut String, crowd: &Crowd, px: f32) {
    let (Some(lod), Some(focus)) = (crowd.lod(), crowd.lod_focus()) else {
        return;
    };
    let _ = writeln!(
        svg,
        r##"<circle cx="{:.1}" cy="{:.1}" r="5" fill="#6a1b9a"/>"##,
        focus.x * px,
        focus.y * px
    );
    for class in lod.classes().iter().filter(|c| c.below.is_finite()) {
        let _ = writeln!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="none" stroke="#6a1b9a" stroke-opacity="0.6" stroke-dasharray="8 5"/>"##,
            focus.x * px,
            focus.y * px,
            class.below * px
        );
    }
}

/// The legend's rate classes: each one's period and how many agents it
/// holds, drawn as paler dots for slower classes.
fn class_legend(svg: &mut String, crowd: &Crowd, x: f32, mut y: f32) {
    let Some(lod) = crowd.lod() else {
        return;
    };
    let _ = writeln!(
        svg,
        r#"<text x="{x}" y="{y}" font-size="14" font-weight="bold">level of detail</text>"#
    );
    y += 24.0;
    for (k, (class, count)) in lod.classes().iter().zip(lod.counts()).enumerate() {
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{}" r="7" fill="#6a1b9a" fill-opacity="{}"/><text x="{}" y="{y}" font-size="14">{} — {count}</text>"##,
            x + 7.0,
            y - 5.0,
            CLASS_OPACITY[k.min(3)],
            x + 22.0,
            class_label(class.period)
        );
        y += 24.0;
    }
}

/// A scenario's scene as an SVG picture, `px` pixels to the metre: the
/// walls, and each agent's body coloured by its speed against its free
/// speed (blue: walking freely, red: standing), with `caption` under it.
/// The picture holds the walls and the agents, with a metre round them.
pub fn render_scene_svg(scene: &crate::scenarios::Scene, px: f32, caption: &str) -> String {
    use crate::world::Wall;
    let mut lo = Vec2::splat(f32::INFINITY);
    let mut hi = Vec2::splat(f32::NEG_INFINITY);
    let mut extend = |p: Vec2, r: f32| {
        lo = lo.min(p - r);
        hi = hi.max(p + r);
    };
    for wall in &scene.world.walls {
        match *wall {
            Wall::Segment(a, b) => {
                extend(a, 0.0);
                extend(b, 0.0);
            }
            Wall::Circle { centre, radius } => extend(centre, radius),
        }
    }
    for w in &scene.walkers {
        extend(w.pos, w.radius);
    }
    if !lo.is_finite() || !hi.is_finite() {
        (lo, hi) = (Vec2::ZERO, Vec2::splat(scene.world.size));
    }
    let (lo, hi) = (lo - 1.0, hi + 1.0);
    let (width, height) = ((hi.x - lo.x) * px, (hi.y - lo.y) * px);
    // y grows up in the scene, down in the picture.
    let at = |p: Vec2| ((p.x - lo.x) * px, (hi.y - p.y) * px);
    let mut svg = String::with_capacity(scene.walkers.len() * 120 + 2048);
    let full = height + 40.0;
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{full:.0}" viewBox="0 0 {width:.0} {full:.0}" font-family="Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{width:.0}" height="{full:.0}" fill="#f7f5ef"/>"##
    );
    for wall in &scene.world.walls {
        match *wall {
            Wall::Segment(a, b) => {
                let ((x1, y1), (x2, y2)) = (at(a), at(b));
                let _ = writeln!(
                    svg,
                    r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="#37474f" stroke-width="4" stroke-linecap="round"/>"##
                );
            }
            Wall::Circle { centre, radius } => {
                let (cx, cy) = at(centre);
                let _ = writeln!(
                    svg,
                    r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="none" stroke="#37474f" stroke-width="4"/>"##,
                    radius * px
                );
            }
        }
    }
    for w in &scene.walkers {
        let pace = (w.vel.length() / w.max_speed.max(1e-3)).clamp(0.0, 1.0);
        let mix = |slow: f32, free: f32| (slow * (1.0 - pace) + free * pace) as u8;
        let (red, blue) = (mix(229.0, 30.0), mix(53.0, 229.0));
        let (cx, cy) = at(w.pos);
        let _ = writeln!(
            svg,
            r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="#{red:02x}5a{blue:02x}" fill-opacity="0.85" stroke="#263238" stroke-width="0.5"/>"##,
            w.radius * px
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="10" y="{:.0}" font-size="14">{}</text>"#,
        height + 26.0,
        canopy_core::text::xml(caption)
    );
    svg.push_str("</svg>\n");
    svg
}
