//! What serving one agent to Groot2 costs the crowd: the demo's crowd
//! stepped plainly, and with one agent ticked through the Groot2 monitor
//! while a client asks for its statuses and blackboard 50 times a second
//! (Groot2 polls less often). Each variant runs its own copy of the same
//! crowd, in lock-step and timed in interleaved rounds; the figures are
//! medians of each round's ratio to the plain copy, and a second plain
//! copy measures the noise. Serving does not change the run: the copies
//! end in the same state (checked).
//!
//! ```text
//! cargo run --release -p canopy-groot2 --features zmq --example overhead -- --agents 100000
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use canopy_crowd::{Config, Crowd, load_default_tree};
use canopy_groot2::{GrootTree, Monitor, Options, Publisher, request};
use clap::Parser;

/// Time crowd steps with and without Groot2 serving one agent.
#[derive(Parser, Debug)]
struct Args {
    /// Crowd sizes to measure (repeat the flag).
    #[arg(long, default_values_t = [100_000u32])]
    agents: Vec<u32>,
    /// Timed rounds; each variant runs `--steps` steps per round.
    #[arg(long, default_value_t = 41)]
    rounds: u32,
    /// Steps per variant per round.
    #[arg(long, default_value_t = 3)]
    steps: u32,
    /// Steps before timing.
    #[arg(long, default_value_t = 100)]
    warmup: u32,
}

const VARIANTS: [&str; 3] = [
    "plain",
    "one agent served to Groot2 (polled at 50 Hz)",
    "plain (control copy)",
];

struct Run {
    crowd: Crowd,
    publisher: Option<Publisher>,
}

impl Run {
    fn new(agents: u32, variant: usize) -> Run {
        let tree = load_default_tree().expect("the crowd tree loads");
        let config = Config {
            agents: agents as usize,
            ..Config::default()
        };
        let publisher = (variant == 1).then(|| {
            let monitor = Monitor::new(GrootTree::of_tree(&tree).unwrap(), &tree);
            monitor.watch(agents / 2);
            let options = Options {
                port: 0,
                ..Options::default()
            };
            Publisher::start(monitor, options).expect("the publisher starts")
        });
        Run {
            crowd: Crowd::new(tree, &config),
            publisher,
        }
    }

    /// One step; returns (whole step, tree phase) in ms.
    fn step(&mut self) -> (f64, f64) {
        let start = Instant::now();
        let times = match &self.publisher {
            Some(publisher) => {
                let probe = publisher.monitor().probe();
                self.crowd
                    .step_with(|agent, tree, walker, world| probe.tick(agent, tree, walker, world))
            }
            None => self.crowd.step(),
        };
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        (ms(start.elapsed()), ms(times.tree))
    }
}

/// A client asking as Groot2 does, until `stop`.
fn poll(port: u16, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let context = zmq::Context::new();
        let socket = context.socket(zmq::REQ).unwrap();
        socket.set_rcvtimeo(2000).unwrap();
        socket.connect(&format!("tcp://127.0.0.1:{port}")).unwrap();
        let mut answered = 0;
        while !stop.load(Ordering::Acquire) {
            for (kind, extra) in [
                (request::STATUS, None),
                (request::BLACKBOARD, Some("MainTree")),
            ] {
                let head = [2, kind, 1, 0, 0, 0];
                match extra {
                    Some(names) => socket
                        .send_multipart([&head[..], names.as_bytes()], 0)
                        .unwrap(),
                    None => socket.send(&head[..], 0).unwrap(),
                }
                if socket.recv_multipart(0).is_ok() {
                    answered += 1;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        answered
    })
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

fn measure(agents: u32, args: &Args) {
    let mut runs: Vec<Run> = (0..VARIANTS.len()).map(|v| Run::new(agents, v)).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let port = runs[1].publisher.as_ref().unwrap().port();
    let client = poll(port, Arc::clone(&stop));
    for _ in 0..args.warmup {
        for run in &mut runs {
            run.step();
        }
    }
    let mut samples: Vec<Vec<Vec<(f64, f64)>>> = vec![Vec::new(); runs.len()];
    for round in 0..args.rounds as usize {
        for k in 0..runs.len() {
            let v = (k + round) % runs.len();
            let steps = (0..args.steps).map(|_| runs[v].step()).collect();
            samples[v].push(steps);
        }
    }
    stop.store(true, Ordering::Release);
    let answered = client.join().unwrap();
    let hashes: Vec<u64> = runs.iter().map(|r| r.crowd.state_hash()).collect();
    let same = hashes.iter().all(|&h| h == hashes[0]);
    println!(
        "\n{agents} agents, {} rounds × {} steps per variant, interleaved, after {} warm-up \
         steps; {} threads; {answered} requests answered; same final state in every variant: {same}",
        args.rounds,
        args.steps,
        args.warmup,
        rayon::current_num_threads()
    );
    println!("| variant | ms per step | vs plain | tree phase, ms | vs plain |");
    println!("|---|---|---|---|---|");
    let part = |v: usize, round: usize, tree: bool| -> f64 {
        let steps: Vec<f64> = samples[v][round]
            .iter()
            .map(|&(w, t)| if tree { t } else { w })
            .collect();
        mean(&steps)
    };
    for (v, name) in VARIANTS.iter().enumerate() {
        let all = |tree: bool| -> f64 {
            let values = samples[v]
                .iter()
                .flatten()
                .map(|&(w, t)| if tree { t } else { w });
            median(values.collect())
        };
        let ratio = |tree: bool| -> f64 {
            let ratios = (0..samples[v].len()).map(|r| part(v, r, tree) / part(0, r, tree));
            (median(ratios.collect()) - 1.0) * 100.0
        };
        println!(
            "| {name} | {:.3} | {:+.2}% | {:.3} | {:+.2}% |",
            all(false),
            ratio(false),
            all(true),
            ratio(true)
        );
    }
}

fn main() {
    let args = Args::parse();
    for &agents in &args.agents {
        measure(agents, &args);
    }
}
