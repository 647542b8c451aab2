//! What watching costs the crowd: the demo's crowd stepped with inspection
//! off, with one agent watched by the inspector, and with every agent
//! recorded; and what building and publishing one map frame costs (the
//! inspector asks for at most 10 a second). Each variant runs its own copy
//! of the same crowd, all kept in lock-step and timed in interleaved
//! rounds, so they do the same work at nearly the same time; the ratios
//! are medians of each round's ratio to the unwatched copy, which cancels
//! slow changes in the machine's load. Watching does not change the run:
//! the copies end in the same state (checked). A second unwatched copy
//! measures the noise: its ratio to the first would be 0% on a quiet
//! machine.
//!
//! ```text
//! cargo run --release -p canopy-inspector --example overhead -- --agents 10000 --agents 100000
//! ```

use std::time::{Duration, Instant};

use canopy_crowd::{Config, Crowd, load_default_tree};
use canopy_inspector::{Frame, Inspector, Options, RECORD_BYTES, Recorder, Selection};
use clap::Parser;

/// Time crowd steps with and without inspection, side by side.
#[derive(Parser, Debug)]
struct Args {
    /// Crowd sizes to measure (repeat the flag).
    #[arg(long, default_values_t = [10_000u32, 100_000])]
    agents: Vec<u32>,
    /// Timed rounds; each variant runs `--steps` steps per round.
    #[arg(long, default_value_t = 41)]
    rounds: u32,
    /// Steps per variant per round.
    #[arg(long, default_value_t = 3)]
    steps: u32,
    /// Steps before timing, so the crowd has spread over its activities.
    #[arg(long, default_value_t = 100)]
    warmup: u32,
    /// Records kept per agent when every agent is recorded.
    #[arg(long, default_value_t = 32)]
    capacity: usize,
}

/// The second unwatched copy is the control: how far two identical runs
/// differ on this machine is the noise the other figures stand in.
const VARIANTS: [&str; 5] = [
    "inspection off",
    "one agent watched (inspector)",
    "all agents recorded",
    "one agent recorded (recorder)",
    "inspection off (control copy)",
];

/// One crowd and what observes it.
struct Run {
    crowd: Crowd,
    inspector: Option<Inspector>,
    recorder: Option<Recorder>,
}

impl Run {
    fn new(agents: u32, variant: usize, capacity: usize) -> Run {
        let tree = load_default_tree().expect("the crowd tree loads");
        let config = Config {
            agents: agents as usize,
            ..Config::default()
        };
        let inspector = (variant == 1).then(|| {
            let options = Options {
                addr: "127.0.0.1:0".parse().unwrap(),
                max_fps: 0.0,
                ..Options::default()
            };
            let inspector = Inspector::start(&tree, options).expect("the inspector starts");
            inspector.watch(Some(agents / 2));
            inspector
        });
        let recorder = match variant {
            2 => Some(Recorder::new(Selection::All(agents), capacity)),
            3 => Some(Recorder::new(Selection::Agents(vec![agents / 2]), capacity)),
            _ => None,
        };
        Run {
            crowd: Crowd::new(tree, &config),
            inspector,
            recorder,
        }
    }

    /// One step; returns (whole step, tree phase) in ms.
    fn step(&mut self) -> (f64, f64) {
        let start = Instant::now();
        let times = if let Some(inspector) = &self.inspector {
            let probe = inspector.probe();
            self.crowd
                .step_with(|agent, tree, walker, world| probe.tick(agent, tree, walker, world))
        } else if let Some(recorder) = &self.recorder {
            self.crowd
                .step_with(|agent, tree, walker, world| recorder.tick(agent, tree, walker, world))
        } else {
            self.crowd.step()
        };
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        (ms(start.elapsed()), ms(times.tree))
    }

    /// Build the map frame of the crowd and publish it; returns ms.
    fn publish(&self, frame: &mut Frame) -> f64 {
        let start = Instant::now();
        let size = self.crowd.world.size;
        frame.begin(self.crowd.world.step, [0.0; 2], [size; 2]);
        for (i, w) in self.crowd.walkers.iter().enumerate() {
            frame.push_at(i as u32, w.pos.to_array(), w.activity as u8);
        }
        if let Some(inspector) = &self.inspector {
            inspector.publish(frame);
        }
        start.elapsed().as_secs_f64() * 1e3
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Per variant, per round: the round's step times (whole, tree).
type Samples = Vec<Vec<Vec<(f64, f64)>>>;

fn measure(agents: u32, args: &Args) {
    let mut runs: Vec<Run> = (0..VARIANTS.len())
        .map(|v| Run::new(agents, v, args.capacity))
        .collect();
    for _ in 0..args.warmup {
        for run in &mut runs {
            run.step();
        }
    }
    let mut samples: Samples = vec![Vec::new(); runs.len()];
    let mut frame = Frame::new();
    let mut publish = Vec::new();
    for round in 0..args.rounds as usize {
        for k in 0..runs.len() {
            let v = (k + round) % runs.len(); // rotate who goes first
            let steps = (0..args.steps).map(|_| runs[v].step()).collect();
            samples[v].push(steps);
        }
        publish.push(runs[1].publish(&mut frame));
    }
    let hashes: Vec<u64> = runs.iter().map(|r| r.crowd.state_hash()).collect();
    let same = hashes.iter().all(|&h| h == hashes[0]);
    println!(
        "\n{agents} agents, {} rounds × {} steps per variant, interleaved, after {} warm-up steps; \
         {} threads; same final state in every variant: {same}",
        args.rounds,
        args.steps,
        args.warmup,
        rayon::current_num_threads()
    );
    println!(
        "| variant | ms per step | vs off | tree phase, ms | vs off | tree phase added, ms per step | as share of a step |"
    );
    println!("|---|---|---|---|---|---|---|");
    let part = |v: usize, round: usize, tree: bool| -> f64 {
        let steps: Vec<f64> = samples[v][round]
            .iter()
            .map(|&(w, t)| if tree { t } else { w })
            .collect();
        mean(&steps)
    };
    let step_off = median(samples[0].iter().flatten().map(|&(w, _)| w).collect());
    for (v, name) in VARIANTS.iter().enumerate() {
        let all = |tree: bool| -> f64 {
            let values = samples[v]
                .iter()
                .flatten()
                .map(|&(w, t)| if tree { t } else { w });
            median(values.collect())
        };
        let rounds = 0..samples[v].len();
        let ratio = |tree: bool| -> f64 {
            let ratios = rounds.clone().map(|r| part(v, r, tree) / part(0, r, tree));
            (median(ratios.collect()) - 1.0) * 100.0
        };
        // Watching changes only the tree phase: its paired difference,
        // against a whole unwatched step, is what watching costs a step.
        let added = median(
            rounds
                .clone()
                .map(|r| part(v, r, true) - part(0, r, true))
                .collect(),
        );
        println!(
            "| {name} | {:.3} | {:+.1}% | {:.3} | {:+.1}% | {added:+.3} | {:+.2}% |",
            all(false),
            ratio(false),
            all(true),
            ratio(true),
            added / step_off * 100.0
        );
    }
    if let Some(recorder) = &runs[2].recorder {
        println!(
            "all agents recorded: {:.1} MB of logs ({} records of {RECORD_BYTES} bytes per agent), fixed",
            recorder.memory_bytes() as f64 / 1e6,
            args.capacity
        );
    }
    println!(
        "map frame: {} bytes; building and publishing one: {:.3} ms (median)",
        frame.encode().len(),
        median(publish)
    );
}

fn main() {
    let args = Args::parse();
    for &agents in &args.agents {
        measure(agents, &args);
    }
}
