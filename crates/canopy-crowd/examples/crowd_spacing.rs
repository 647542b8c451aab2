//! What movement level of detail costs in spacing: the same crowd run with
//! every agent steered every step and with level of detail, and how deep
//! each agent overlaps the one it overlaps most, in body widths, by rate
//! class. Sampled every 50 steps over the second half of the run.
//!
//! ```text
//! cargo run --release -p canopy-crowd --example crowd_spacing -- 10000 1000
//! ```
//!
//! Arguments: agents, steps.

use canopy_crowd::{Config, Crowd, Grid, Walker, class_label, load_default_tree};

/// Per rate class: agents sampled, how many overlapped someone, and the
/// sum of their deepest overlaps in body widths.
#[derive(Clone, Copy, Default)]
struct Spacing {
    sampled: u64,
    overlapping: u64,
    depth: f64,
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

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: agents steps"))
        .collect();
    let (agents, steps) = match args[..] {
        [a, s] => (a, s),
        _ => (10_000, 1_000),
    };
    println!(
        "| steered | class | agents sampled | overlapping someone | mean deepest overlap (body widths) |"
    );
    println!("|---|---|---:|---:|---:|");
    for lod in [false, true] {
        let config = Config {
            agents,
            ..Config::default()
        };
        let mut crowd = Crowd::new(load_default_tree().expect("the demo tree"), &config);
        crowd.set_lod(lod).expect("an arena with a positive side");
        let mut classes = [Spacing::default(); 8];
        for step in 1..=steps {
            crowd.step();
            if step <= steps / 2 || step % 50 != 0 {
                continue;
            }
            let overlaps = deepest_overlaps(&crowd.walkers, crowd.world.size);
            for (i, depth) in overlaps.into_iter().enumerate() {
                let class = crowd.lod().map_or(0, |l| l.class_of(i)).min(7);
                let c = &mut classes[class];
                c.sampled += 1;
                c.overlapping += u64::from(depth > 0.0);
                c.depth += f64::from(depth);
            }
        }
        for (k, c) in classes.iter().enumerate().filter(|(_, c)| c.sampled > 0) {
            let (steered, class) = match crowd.lod() {
                Some(l) => ("with level of detail", class_label(l.classes()[k].period)),
                None => ("every step", "all".to_string()),
            };
            println!(
                "| {steered} | {class} | {} | {:.1}% | {:.3} |",
                c.sampled,
                100.0 * c.overlapping as f64 / c.sampled as f64,
                c.depth / c.sampled as f64
            );
        }
    }
}
