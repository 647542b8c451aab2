//! What movement level of detail costs in spacing: the same crowd run with
//! every agent steered every step and with level of detail, and how deep
//! each agent overlaps the one it overlaps most, in body widths, by band
//! round the level of detail's focus — the rate class the agent is in
//! with level of detail, the band it would be in (`lod_band`) without.
//! Sampled every 50 steps over the second half of the run.
//!
//! ```text
//! cargo run --release -p canopy-crowd --example crowd_spacing -- 10000 1000
//! ```
//!
//! Arguments: agents, steps.

use canopy_crowd::{Config, Crowd, Grid, Walker, class_label, load_default_tree, lod_band};

/// Per band: agents sampled, how many overlapped someone, and the sum of
/// their deepest overlaps in body widths.
#[derive(Clone, Copy, Default)]
struct Spacing {
    sampled: u64,
    overlapping: u64,
    depth: f64,
}

impl Spacing {
    fn mean(&self) -> f64 {
        self.depth / self.sampled.max(1) as f64
    }

    fn share(&self) -> f64 {
        100.0 * self.overlapping as f64 / self.sampled.max(1) as f64
    }
}

/// The deepest overlap of each walker with any other, in its body widths
/// (0 when it touches nobody).
fn deepest_overlaps(walkers: &[Walker], size: f32) -> Vec<f32> {
    let widest = walkers.iter().map(|w| w.radius).fold(0.0, f32::max);
    let mut grid = Grid::new(size, (2.0 * widest).max(0.01));
    grid.rebuild(walkers);
    (0..walkers.len())
        .map(|i| {
            let me = &walkers[i];
            let runs = grid.runs_near(me.pos);
            let deepest = runs
                .into_iter()
                .flatten()
                .map(|slot| grid.agent(slot))
                .filter(|&j| j != i)
                .map(|j| me.radius + walkers[j].radius - me.pos.distance(walkers[j].pos))
                .fold(0.0, f32::max);
            deepest / (2.0 * me.radius)
        })
        .collect()
}

/// The crowd's spacing by band over the second half of `steps`.
fn run(agents: usize, steps: usize, lod: bool) -> [Spacing; 4] {
    let config = Config {
        agents,
        ..Config::default()
    };
    let mut crowd = Crowd::new(load_default_tree().expect("the demo tree"), &config);
    crowd.set_lod(lod).expect("an arena with a positive side");
    let mut bands = [Spacing::default(); 4];
    for step in 1..=steps {
        crowd.step();
        if step <= steps / 2 || step % 50 != 0 {
            continue;
        }
        let overlaps = deepest_overlaps(&crowd.walkers, crowd.world.size);
        for (i, depth) in overlaps.into_iter().enumerate() {
            let band = match crowd.lod() {
                Some(l) => l.class_of(i),
                None => lod_band(crowd.world.size, crowd.world.step, crowd.walkers[i].pos),
            };
            let b = &mut bands[band.min(3)];
            b.sampled += 1;
            b.overlapping += u64::from(depth > 0.0);
            b.depth += f64::from(depth);
        }
    }
    bands
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: agents steps"))
        .collect();
    let (agents, steps) = match args[..] {
        [a, s] => (a, s),
        _ => (10_000, 1_000),
    };
    let (every, with) = (run(agents, steps, false), run(agents, steps, true));
    println!(
        "| band (steered with level of detail) | agents sampled, every step / with | overlapping someone, every step / with | mean deepest overlap (body widths), every step / with | with ÷ every step |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (k, (e, w)) in every.iter().zip(&with).enumerate() {
        println!(
            "| {} | {} / {} | {:.1}% / {:.1}% | {:.4} / {:.4} | {:.2}× |",
            class_label(1 << k),
            e.sampled,
            w.sampled,
            e.share(),
            w.share(),
            e.mean(),
            w.mean(),
            w.mean() / e.mean().max(1e-9)
        );
    }
}
