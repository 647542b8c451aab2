//! The movement model against pedestrian measurements: every scenario of
//! `canopy_crowd::scenarios` in its full size, canopy's figure beside the
//! reference, as the markdown table `docs/crowd-demo.md` quotes; ORCA
//! alone (no time gap) beside it where the difference shows.
//!
//! ```text
//! cargo run --release -p canopy-crowd --example pedestrians
//! cargo run --release -p canopy-crowd --example pedestrians -- \
//!     --fd-plot docs/fundamental-diagram.svg --flow-plot docs/bottleneck-flow.svg \
//!     --picture docs/crowd-bottleneck.svg
//! ```
//!
//! Options: `--fd-plot FILE.svg` (speed against density, with Weidmann's
//! curve), `--flow-plot FILE.svg` (specific flow against width),
//! `--picture FILE.svg` (the 1.2 m bottleneck 20 s in), and the model's
//! parameters to try others than `Model::PEDESTRIANS`: `--time-gap S`,
//! `--press F`, `--horizon S`, `--wall-horizon S`, `--radius-min M`,
//! `--radius-max M`; `--only corridor|ring|bottleneck|corner|room`.

use std::fmt::Write;

use canopy_crowd::scenarios::{Bottleneck, bottleneck, corner, ring, room, walk_corridor};
use canopy_crowd::{Model, render_scene_svg, weidmann_speed};
use glam::Vec2;

const DENSITIES: [f32; 7] = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0];
const WIDTHS: [f32; 5] = [0.8, 1.2, 1.6, 2.0, 2.4];

#[derive(Default)]
struct Outputs {
    fd_plot: Option<String>,
    flow_plot: Option<String>,
    picture: Option<String>,
}

fn main() {
    let mut model = Model::PEDESTRIANS;
    let mut only = String::new();
    let mut out = Outputs::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let [name, value] = pair else {
            panic!("options come in pairs: {pair:?}");
        };
        let number = || value.parse::<f32>().expect("a number");
        match name.as_str() {
            "--time-gap" => model.time_gap = number(),
            "--press" => model.press = number(),
            "--horizon" => model.time_horizon = number(),
            "--wall-horizon" => model.wall_horizon = number(),
            "--radius-min" => model.radius[0] = number(),
            "--radius-max" => model.radius[1] = number(),
            "--only" => only.clone_from(value),
            "--fd-plot" => out.fd_plot = Some(value.clone()),
            "--flow-plot" => out.flow_plot = Some(value.clone()),
            "--picture" => out.picture = Some(value.clone()),
            other => panic!("unknown option {other}"),
        }
    }
    let runs = |name: &str| only.is_empty() || only == name;
    let orca = Model {
        time_gap: 0.0,
        ..model
    };
    println!("{model:?}\n");
    println!("| scenario | reference | canopy | ORCA alone |");
    println!("|---|---|---|---|");
    if runs("corridor") {
        let walk = walk_corridor(&model);
        println!(
            "| RiMEA 1: 40 m of corridor at 1.33 m/s | 26 to 34 s | {:.1} s | {:.1} s |",
            walk.seconds,
            walk_corridor(&orca).seconds
        );
    }
    if runs("ring") {
        let mut points = Vec::new();
        for density in DENSITIES {
            let ours = ring(&model, density, 8.0, 3.0, 30.0, 30.0, 1);
            let alone = ring(&orca, density, 8.0, 3.0, 30.0, 30.0, 1);
            let reference = weidmann_speed(f64::from(ours.density));
            println!(
                "| RiMEA 4, fundamental diagram: {:.1} p/m² ({} agents) | {reference:.2} m/s | {:.2} m/s ({:+.2}) | {:.2} m/s |",
                ours.density,
                ours.agents,
                ours.speed,
                f64::from(ours.speed) - reference,
                alone.speed
            );
            points.push((ours.density, ours.speed, alone.speed));
        }
        if let Some(path) = &out.fd_plot {
            write(path, &fd_plot(&points));
        }
    }
    if runs("bottleneck") {
        let mut points = Vec::new();
        for width in WIDTHS {
            let ours = bottleneck(&model, width, 150, 1);
            let alone = bottleneck(&orca, width, 150, 1);
            println!(
                "| bottleneck {width} m wide, 4 m long, 150 persons | 1.9 p/m/s | {:.2} p/m/s ({:.2} p/s, {} passed) | {:.2} p/m/s |",
                ours.specific_flow,
                ours.flow,
                ours.passages.len(),
                alone.specific_flow
            );
            points.push((width, ours.specific_flow, alone.specific_flow));
        }
        if let Some(path) = &out.flow_plot {
            write(path, &flow_plot(&points));
        }
    }
    if runs("corner") {
        let ours = corner(&model, 1);
        println!(
            "| RiMEA 6: 20 persons round a left corner | all arrive, none through a wall | {} arrive in {:.1} s, {} inside a wall | {} arrive |",
            ours.arrived,
            ours.seconds,
            ours.inside_walls,
            corner(&orca, 1).arrived
        );
    }
    if runs("room") {
        let size = Vec2::new(30.0, 20.0);
        let four = room(&model, size, 1000, true, 1);
        let two = room(&model, size, 1000, false, 1);
        let alone = room(&orca, size, 1000, true, 1).seconds;
        println!(
            "| RiMEA 9: 1,000 persons leave a 30 × 20 m room by 4 doors of 1 m, then 2 | about twice as long with 2 | {:.0} s and {:.0} s: {:.2}× | 4 doors: {:.0} s |",
            four.seconds,
            two.seconds,
            two.seconds / four.seconds,
            alone
        );
    }
    if let Some(path) = &out.picture {
        let mut run = Bottleneck::new(&model, 1.2, 150, 1);
        while run.scene.time() < 20.0 && !run.done() {
            run.step();
        }
        let caption = format!(
            "Bottleneck 1.2 m wide, 4 m long, {:.0} s in: blue walks freely, red stands",
            run.scene.time()
        );
        write(path, &render_scene_svg(&run.scene, 40.0, &caption));
    }
}

fn write(path: &str, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
}

/// A small plot: axes from (0, 0) to `max`, labelled; each series is a
/// set of points or a curve, in a colour.
struct Plot {
    svg: String,
    max: (f32, f32),
}

const W: f32 = 560.0;
const H: f32 = 340.0;
const LEFT: f32 = 56.0;
const TOP: f32 = 36.0;
const PLOT_W: f32 = W - LEFT - 24.0;
const PLOT_H: f32 = H - TOP - 48.0;

impl Plot {
    fn new(title: &str, x_label: &str, y_label: &str, max: (f32, f32), ticks: (f32, f32)) -> Plot {
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r##"<rect width="{W}" height="{H}" fill="#ffffff"/>"##);
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="20" font-size="14" font-weight="bold">{title}</text>"#
        );
        let plot = Plot { svg, max };
        let mut svg = plot.svg;
        for k in 0..=(max.0 / ticks.0).round() as u32 {
            // Tick labels rounded: 0.4 seven times is 2.8000002.
            let x = (k as f32 * ticks.0 * 100.0).round() / 100.0;
            let px = LEFT + PLOT_W * x / max.0;
            let _ = writeln!(
                svg,
                r##"<line x1="{px:.1}" x2="{px:.1}" y1="{TOP}" y2="{:.1}" stroke="#eeeeee"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{x}</text>"##,
                TOP + PLOT_H,
                TOP + PLOT_H + 16.0
            );
        }
        for k in 0..=(max.1 / ticks.1).round() as u32 {
            let y = (k as f32 * ticks.1 * 100.0).round() / 100.0;
            let py = TOP + PLOT_H * (1.0 - y / max.1);
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="#eeeeee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{y}</text>"##,
                LEFT + PLOT_W,
                LEFT - 6.0,
                py + 4.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{x_label}</text><text x="14" y="{:.1}" transform="rotate(-90 14 {:.1})" text-anchor="middle">{y_label}</text>"#,
            LEFT + PLOT_W / 2.0,
            H - 10.0,
            TOP + PLOT_H / 2.0,
            TOP + PLOT_H / 2.0
        );
        Plot { svg, max }
    }

    fn at(&self, x: f32, y: f32) -> (f32, f32) {
        (
            LEFT + PLOT_W * x / self.max.0,
            TOP + PLOT_H * (1.0 - y.min(self.max.1) / self.max.1),
        )
    }

    fn curve(&mut self, points: &[(f32, f32)], colour: &str, dashed: bool) {
        let mut d = String::new();
        for &(x, y) in points {
            let (px, py) = self.at(x, y);
            let _ = write!(
                d,
                "{}{px:.1} {py:.1}",
                if d.is_empty() { "M" } else { " L" }
            );
        }
        let dash = if dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            self.svg,
            r#"<path d="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>"#
        );
    }

    fn dots(&mut self, points: &[(f32, f32)], colour: &str, filled: bool) {
        for &(x, y) in points {
            let (px, py) = self.at(x, y);
            let fill = if filled { colour } else { "#ffffff" };
            let _ = writeln!(
                self.svg,
                r#"<circle cx="{px:.1}" cy="{py:.1}" r="4.5" fill="{fill}" stroke="{colour}" stroke-width="1.5"/>"#
            );
        }
    }

    fn legend(&mut self, row: usize, label: &str, colour: &str, filled: bool) {
        let (x, y) = (LEFT + PLOT_W - 210.0, TOP + 16.0 + 18.0 * row as f32);
        let fill = if filled { colour } else { "#ffffff" };
        let _ = writeln!(
            self.svg,
            r#"<circle cx="{x:.1}" cy="{:.1}" r="4.5" fill="{fill}" stroke="{colour}" stroke-width="1.5"/><text x="{:.1}" y="{y:.1}">{label}</text>"#,
            y - 4.0,
            x + 12.0
        );
    }

    fn finish(mut self) -> String {
        self.svg.push_str("</svg>\n");
        self.svg
    }
}

/// Speed against density: Weidmann's curve, canopy's points, ORCA alone.
fn fd_plot(points: &[(f32, f32, f32)]) -> String {
    let mut plot = Plot::new(
        "Fundamental diagram: ring corridor 3 m wide",
        "density (persons per m²)",
        "speed (m/s)",
        (6.0, 1.5),
        (1.0, 0.25),
    );
    let weidmann: Vec<(f32, f32)> = (1..=120)
        .map(|k| {
            let d = k as f32 * 0.05;
            (d, weidmann_speed(f64::from(d)) as f32)
        })
        .collect();
    plot.curve(&weidmann, "#455a64", false);
    let ours: Vec<(f32, f32)> = points.iter().map(|p| (p.0, p.1)).collect();
    let alone: Vec<(f32, f32)> = points.iter().map(|p| (p.0, p.2)).collect();
    plot.dots(&alone, "#9e9e9e", false);
    plot.dots(&ours, "#1e88e5", true);
    plot.legend(0, "canopy (Model::PEDESTRIANS)", "#1e88e5", true);
    plot.legend(1, "ORCA alone (no time gap)", "#9e9e9e", false);
    let _ = writeln!(
        plot.svg,
        r##"<line x1="{:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#455a64" stroke-width="2"/><text x="{:.1}" y="{:.1}">Weidmann (1993)</text>"##,
        LEFT + PLOT_W - 216.0,
        LEFT + PLOT_W - 204.0,
        TOP + 48.0,
        TOP + 48.0,
        LEFT + PLOT_W - 198.0,
        TOP + 52.0
    );
    plot.finish()
}

/// Specific flow against width: the measured 1.9, canopy, ORCA alone.
fn flow_plot(points: &[(f32, f32, f32)]) -> String {
    let mut plot = Plot::new(
        "Bottleneck 4 m long: specific flow by width",
        "width (m)",
        "specific flow (persons per m per s)",
        (2.8, 3.5),
        (0.4, 0.5),
    );
    plot.curve(&[(0.6, 1.9), (2.6, 1.9)], "#455a64", true);
    let ours: Vec<(f32, f32)> = points.iter().map(|p| (p.0, p.1)).collect();
    let alone: Vec<(f32, f32)> = points.iter().map(|p| (p.0, p.2)).collect();
    plot.dots(&alone, "#9e9e9e", false);
    plot.dots(&ours, "#1e88e5", true);
    plot.legend(0, "canopy (Model::PEDESTRIANS)", "#1e88e5", true);
    plot.legend(1, "ORCA alone (no time gap)", "#9e9e9e", false);
    let (x, y) = plot.at(0.62, 1.9);
    let _ = writeln!(
        plot.svg,
        r##"<text x="{x:.1}" y="{:.1}" fill="#455a64">measured, about 1.9</text>"##,
        y - 6.0
    );
    plot.finish()
}
