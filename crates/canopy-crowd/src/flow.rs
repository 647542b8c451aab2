//! Whether a crowd flows: what share of the agents does each activity at
//! every step, and how many meals are finished in each window of steps.
//! A crowd that jams has one activity take over (thousands waiting round
//! a food patch, "eating") and its meals stop; one that flows keeps every
//! share bounded and meals coming. [`Flow`] records a run and answers
//! both; [`Flow::plot_svg`] draws the shares over time.

use std::fmt::Write;

use crate::sim::Crowd;
use crate::walker::Activity;

/// A run's activity counts and meals, step by step.
#[derive(Clone, Debug, Default)]
pub struct Flow {
    agents: usize,
    /// Agents doing each activity (indexed by `Activity as usize`) after
    /// each recorded step.
    counts: Vec<[u32; 6]>,
    /// Meals finished by then, in all.
    meals: Vec<u64>,
}

/// The busiest activity of a stretch of steps, at its busiest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Busiest {
    /// The activity.
    pub activity: Activity,
    /// Its share of the agents, 0 to 1.
    pub share: f64,
    /// The step (1 = after the first) it had that share at.
    pub step: usize,
}

impl Flow {
    /// An empty record.
    pub fn new() -> Flow {
        Flow::default()
    }

    /// Record the crowd as it is now (after a step).
    pub fn record(&mut self, crowd: &Crowd) {
        let mut counts = [0u32; 6];
        for w in &crowd.walkers {
            counts[w.activity as usize] += 1;
        }
        self.agents = crowd.walkers.len();
        self.counts.push(counts);
        self.meals.push(crowd.meals());
    }

    /// Steps recorded.
    pub fn steps(&self) -> usize {
        self.counts.len()
    }

    /// Agents doing `activity` after step `step` (1-based), if recorded.
    pub fn count(&self, step: usize, activity: Activity) -> Option<u32> {
        let at = step.checked_sub(1)?;
        self.counts.get(at).map(|c| c[activity as usize])
    }

    /// The largest share any activity had after any step past `after`.
    pub fn busiest_after(&self, after: usize) -> Option<Busiest> {
        let agents = self.agents.max(1) as f64;
        let mut best: Option<Busiest> = None;
        for (k, counts) in self.counts.iter().enumerate().skip(after) {
            for activity in Activity::ALL {
                let share = f64::from(counts[activity as usize]) / agents;
                if best.is_none_or(|b| share > b.share) {
                    best = Some(Busiest {
                        activity,
                        share,
                        step: k + 1,
                    });
                }
            }
        }
        best
    }

    /// Meals finished in each whole window of `window` steps past `after`
    /// (steps `after + 1 ..= after + window`, and so on).
    pub fn meals_per_window(&self, after: usize, window: usize) -> Vec<u64> {
        let window = window.max(1);
        let total = |step: usize| if step == 0 { 0 } else { self.meals[step - 1] };
        (after..)
            .step_by(window)
            .take_while(|&start| start + window <= self.meals.len())
            .map(|start| total(start + window) - total(start))
            .collect()
    }

    /// The shares over time as a small SVG plot: one line per activity,
    /// in its colour, steps along, share of the agents up; a dashed line
    /// at 60 %, and `title` above.
    pub fn plot_svg(&self, title: &str) -> String {
        let (w, h, left, top, bottom) = (720.0, 300.0, 48.0, 34.0, 36.0);
        let right = 130.0;
        let (plot_w, plot_h) = (w - left - right, h - top - bottom);
        let steps = self.counts.len().max(1) as f64;
        let agents = self.agents.max(1) as f64;
        let x = |step: f64| left + plot_w * step / steps;
        let y = |share: f64| top + plot_h * (1.0 - share);
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r##"<rect width="{w}" height="{h}" fill="#ffffff"/>"##);
        let _ = writeln!(
            svg,
            r#"<text x="{left}" y="20" font-size="14" font-weight="bold">{}</text>"#,
            canopy_core::text::xml(title)
        );
        for tick in [0.0, 0.2, 0.4, 0.6, 0.8, 1.0] {
            let _ = writeln!(
                svg,
                r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{:.0}%</text>"##,
                left + plot_w,
                y(tick),
                y(tick),
                left - 6.0,
                y(tick) + 4.0,
                tick * 100.0
            );
        }
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#b71c1c" stroke-dasharray="6 4"/>"##,
            left + plot_w,
            y(0.6),
            y(0.6)
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">step (0 to {})</text>"#,
            left + plot_w / 2.0,
            h - 8.0,
            self.counts.len()
        );
        // At most about 600 points a line: every step of a short run, one
        // in so many of a long one.
        let stride = self.counts.len().div_ceil(600).max(1);
        for (n, activity) in Activity::ALL.iter().enumerate() {
            if self.counts.iter().all(|c| c[*activity as usize] == 0) {
                continue;
            }
            let mut d = String::new();
            for (k, counts) in self.counts.iter().enumerate().step_by(stride) {
                let share = f64::from(counts[*activity as usize]) / agents;
                let _ = write!(
                    d,
                    "{}{:.1} {:.1}",
                    if d.is_empty() { "M" } else { " L" },
                    x((k + 1) as f64),
                    y(share)
                );
            }
            let _ = writeln!(
                svg,
                r#"<path d="{d}" fill="none" stroke="{}" stroke-width="1.5"/>"#,
                activity.colour()
            );
            let ly = top + 16.0 * n as f64;
            let _ = writeln!(
                svg,
                r#"<rect x="{:.1}" y="{:.1}" width="14" height="3" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                left + plot_w + 14.0,
                ly - 4.0,
                activity.colour(),
                left + plot_w + 34.0,
                ly,
                activity.word()
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}
