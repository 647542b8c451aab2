//! What watching costs the crowd: the demo's crowd stepped with inspection
//! off, with one agent watched by the inspector, with one agent watched and
//! a map frame built and published every step, and with every agent
//! recorded. Each variant runs its own copy of the same crowd, all kept in
//! lock-step and timed in interleaved rounds, so they do the same work at
//! the same time; the figures are medians over the rounds. Watching does
//! not change the run: the copies end in the same state (checked).
//!
//! ```text
//! cargo run --release -p canopy-inspector --example overhead -- --agents 10000 --agents 100000
//! ```

use std::time::{Duration, Instant};

use canopy_crowd::{Config, Crowd, load_default_tree};
use canopy_inspector::{Frame, Inspector, Options, Recorder, Selection};
use clap::Parser;

/// Time crowd steps with and without inspection, side by side.
#[derive(Parser, Debug)]
struct Args {
    /// Crowd sizes to measure (repeat the flag).
    #[arg(long, default_values_t = [10_000u32, 100_000])]
    agents: Vec<u32>,
    /// Timed rounds; each variant runs `--steps` steps per round.
    #[arg(long, default_value_t = 11)]
    rounds: u32,
    /// Steps per variant per round.
    #[arg(long, default_value_t = 10)]
    steps: u32,
    /// Steps before timing, so the crowd has spread over its activities.
    #[arg(long, default_value_t = 100)]
    warmup: u32,
    /// Records kept per agent when every agent is recorded.
    #[arg(long, default_value_t = 32)]
    capacity: usize,
}

const VARIANTS: [&str; 4] = [
    "inspection off",
    "one agent watched",
    "one watched + frame every step",
    "all agents recorded",
];

/// One crowd and what observes it.
struct Run {
    crowd: Crowd,
    inspector: Option<Inspector>,
    recorder: Option<Recorder>,
    publish: bool,
    frame: Frame,
}

impl Run {
    fn new(agents: u32, variant: usize, capacity: usize) -> Run {
        let tree = load_default_tree().expect("the crowd tree loads");
        let config = Config {
            agents: agents as usize,
            ..Config::default()
        };
        let inspector = (variant == 1 || variant == 2).then(|| {
            let options = Options {
                addr: "127.0.0.1:0".parse().unwrap(),
                max_fps: 0.0,
                ..Options::default()
            };
            let inspector = Inspector::start(&tree, options).expect("the inspector starts");
            inspector.watch(Some(agents / 2));
            inspector
        });
        let recorder = (variant == 3).then(|| Recorder::new(Selection::All(agents), capacity));
        Run {
            crowd: Crowd::new(tree, &config),
            inspector,
            recorder,
            publish: variant == 2,
            frame: Frame::new(),
        }
    }

    /// One step; returns (whole step, tree phase).
    fn step(&mut self) -> (Duration, Duration) {
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
        if self.publish {
            let inspector = self
                .inspector
                .as_ref()
                .expect("a publishing run has an inspector");
            let size = self.crowd.world.size;
            self.frame.begin(self.crowd.world.step, [0.0; 2], [size; 2]);
            for (i, w) in self.crowd.walkers.iter().enumerate() {
                self.frame
                    .push_at(i as u32, w.pos.to_array(), w.activity as u8);
            }
            inspector.publish(&self.frame);
        }
        (start.elapsed(), times.tree)
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn measure(agents: u32, args: &Args) {
    let mut runs: Vec<Run> = (0..VARIANTS.len())
        .map(|v| Run::new(agents, v, args.capacity))
        .collect();
    for _ in 0..args.warmup {
        for run in &mut runs {
            run.step();
        }
    }
    // [variant] -> per-round mean ms per step, whole and tree phase.
    let mut whole = vec![Vec::new(); runs.len()];
    let mut tree = vec![Vec::new(); runs.len()];
    for round in 0..args.rounds as usize {
        for k in 0..runs.len() {
            let v = (k + round) % runs.len(); // rotate who goes first
            let (mut w, mut t) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..args.steps {
                let (dw, dt) = runs[v].step();
                w += dw;
                t += dt;
            }
            whole[v].push(w.as_secs_f64() * 1e3 / args.steps as f64);
            tree[v].push(t.as_secs_f64() * 1e3 / args.steps as f64);
        }
    }
    let hashes: Vec<u64> = runs.iter().map(|r| r.crowd.state_hash()).collect();
    let same = hashes.iter().all(|&h| h == hashes[0]);
    println!(
        "\n{agents} agents, {} rounds × {} steps per variant after {} warm-up steps, {} threads; same final state in every variant: {same}",
        args.rounds,
        args.steps,
        args.warmup,
        rayon::current_num_threads()
    );
    println!("| variant | ms per step | vs off | tree phase, ms | vs off |");
    println!("|---|---|---|---|---|");
    let (base_w, base_t) = (median(whole[0].clone()), median(tree[0].clone()));
    for (v, name) in VARIANTS.iter().enumerate() {
        let (w, t) = (median(whole[v].clone()), median(tree[v].clone()));
        println!(
            "| {name} | {w:.3} | {:+.1}% | {t:.3} | {:+.1}% |",
            (w / base_w - 1.0) * 100.0,
            (t / base_t - 1.0) * 100.0
        );
    }
    if let Some(recorder) = &runs[3].recorder {
        println!(
            "all agents recorded: {:.1} MB of logs ({} records of 16 bytes per agent), fixed",
            recorder.memory_bytes() as f64 / 1e6,
            args.capacity
        );
    }
    println!(
        "frame: {} bytes per frame at {agents} agents",
        runs[2].frame.encode().len()
    );
}

fn main() {
    let args = Args::parse();
    for &agents in &args.agents {
        measure(agents, &args);
    }
}
