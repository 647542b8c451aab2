//! The crowd over MPI ranks:
//!
//! ```text
//! mpirun -n 4 target/release/examples/crowd_mpi --agents 1000000 --steps 50
//! ```
//!
//! Prints, per step, the slowest rank's time in each phase (tree,
//! movement, halo exchange, migration), the bytes all ranks sent, the
//! agents that migrated, and the imbalance (busiest rank over the mean);
//! at the end, the means and medians, with the slowest rank's whole step
//! and the bytes sent per rank (the mean and the most).
//! `--check` also runs the crowd in one process on rank 0 and stops with
//! an error at the first step whose hash differs; `--checkpoint DIR`
//! writes a checkpoint after the last step, `--restart DIR` goes on from
//! one (written by any number of ranks).
//!
//! Every exchange between ranks waits at most `--exchange-timeout-ms`
//! (30 s by default) for each other rank; past it, each waiting rank
//! prints `rank R: no message from rank S for step N within T ms; ending
//! the run` and, half a timeout (at most 5 s) later, exits with a
//! failure, so a rank that dies or hangs ends the run instead of stalling
//! it.
//!
//! Test hook: `--die-at-step K --die-rank R` makes rank `R` go silent at
//! step `K` (it stops taking part, as a hung or unreachable rank would,
//! and exits with a failure after three timeouts), for `.ci/mpi.sh` to
//! check that the other ranks end the run with that message.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use canopy_core::Mode;
use canopy_crowd::{Config, Crowd, load_default_tree};
use canopy_mpi::{
    Balance, DEFAULT_EXCHANGE_TIMEOUT, MpiTransport, Shard, ShardError, StepReport, Transport,
};
use mpi::traits::*;

#[derive(Debug)]
struct Args {
    config: Config,
    steps: u32,
    balance: Balance,
    check: bool,
    hash_every: u32,
    print_every: u32,
    checkpoint: Option<PathBuf>,
    restart: Option<PathBuf>,
    timeout: Duration,
    /// The test hook: at this step, this rank goes silent.
    die: Option<(u32, usize)>,
}

/// How a run ended early.
#[derive(Debug)]
enum Ending {
    /// Another rank went silent: every waiting rank says so and exits.
    Silent(String),
    /// This rank failed: it says why and ends the job.
    Failed(String),
}

impl From<ShardError> for Ending {
    fn from(e: ShardError) -> Ending {
        match e {
            ShardError::Silent { .. } => Ending::Silent(e.to_string()),
            e => Ending::Failed(e.to_string()),
        }
    }
}

impl From<String> for Ending {
    fn from(e: String) -> Ending {
        Ending::Failed(e)
    }
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        config: Config::default(),
        steps: 100,
        balance: Balance::default(),
        check: false,
        hash_every: 0,
        print_every: 1,
        checkpoint: None,
        restart: None,
        timeout: DEFAULT_EXCHANGE_TIMEOUT,
        die: None,
    };
    let (mut die_at, mut die_rank) = (None, None);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let bad = |v: &str| format!("{flag}: cannot read {v:?}");
        match flag.as_str() {
            "--agents" => a.config.agents = value()?.parse().map_err(|_| bad("agents"))?,
            "--seed" => a.config.seed = value()?.parse().map_err(|_| bad("seed"))?,
            "--steps" => a.steps = value()?.parse().map_err(|_| bad("steps"))?,
            "--mode" => {
                a.config.mode = match value()?.as_str() {
                    "tick" => Mode::Tick,
                    "event" => Mode::Event,
                    m => return Err(format!("--mode: {m:?} is neither tick nor event")),
                }
            }
            "--balance-every" => a.balance.every = value()?.parse().map_err(|_| bad("steps"))?,
            "--balance-above" => a.balance.above = value()?.parse().map_err(|_| bad("ratio"))?,
            "--check" => a.check = true,
            "--hash-every" => a.hash_every = value()?.parse().map_err(|_| bad("steps"))?,
            "--print-every" => a.print_every = value()?.parse().map_err(|_| bad("steps"))?,
            "--checkpoint" => a.checkpoint = Some(value()?.into()),
            "--restart" => a.restart = Some(value()?.into()),
            "--exchange-timeout-ms" => {
                let ms: u64 = value()?.parse().map_err(|_| bad("milliseconds"))?;
                a.timeout = Duration::from_millis(ms.max(1));
            }
            "--die-at-step" => die_at = Some(value()?.parse().map_err(|_| bad("step"))?),
            "--die-rank" => die_rank = Some(value()?.parse().map_err(|_| bad("rank"))?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    a.die = match (die_at, die_rank) {
        (Some(step), Some(rank)) => Some((step, rank)),
        (None, None) => None,
        _ => return Err("--die-at-step and --die-rank go together".into()),
    };
    if a.check && a.hash_every == 0 {
        a.hash_every = 1;
    }
    Ok(a)
}

/// One step's figures over all ranks: the slowest rank's phase times,
/// the sums of bytes and migrants, the imbalance, whether the strips
/// were cut again, the slowest rank's whole step and the most bytes one
/// rank sent.
fn summarise(reports: &[Vec<u8>]) -> [f64; FIGURES] {
    let mut out = [0.0f64; FIGURES];
    let mut owned = Vec::new();
    for r in reports {
        let v: Vec<f64> = r
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        for k in 0..4 {
            out[k] = out[k].max(v[k]);
        }
        out[4] += v[4];
        out[5] += v[5];
        owned.push(v[6] as u64);
        out[7] = out[7].max(v[7]);
        out[8] = out[8].max(v[0] + v[1] + v[2] + v[3]);
        out[9] = out[9].max(v[4]);
    }
    out[6] = canopy_mpi::Strips::imbalance(&owned);
    out
}

/// The middle value (the mean of the two middle ones for an even count);
/// 0 for none.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The figures [`summarise`] gives.
const FIGURES: usize = 10;

fn encode(r: &StepReport) -> Vec<u8> {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    [
        ms(r.tree),
        ms(r.movement),
        ms(r.halo),
        ms(r.migration),
        r.bytes_sent as f64,
        r.migrated as f64,
        r.owned as f64,
        f64::from(u8::from(r.rebalanced)),
    ]
    .iter()
    .flat_map(|x| x.to_le_bytes())
    .collect()
}

fn run(a: &Args, t: &mut MpiTransport) -> Result<(), Ending> {
    let tree = load_default_tree().map_err(|e| e.to_string())?;
    let started = std::time::Instant::now();
    let mut shard = match &a.restart {
        Some(dir) => Shard::restart(tree, dir, a.balance, t),
        None => Shard::new(tree, &a.config, a.balance, t),
    }?;
    let me = t.rank();
    let mut single = None;
    if a.check && me == 0 {
        let mut crowd = Crowd::new(
            load_default_tree().map_err(|e| e.to_string())?,
            shard.config(),
        );
        while crowd.world.step != shard.world().step {
            crowd.step();
        }
        single = Some(crowd);
    }
    if me == 0 {
        println!(
            "{} agents on {} ranks, {:?} mode, from step {} (set up in {:.0} ms)",
            shard.config().agents,
            t.size(),
            shard.config().mode,
            shard.world().step,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    let mut totals = [0.0f64; FIGURES];
    let mut per_step = Vec::new();
    for k in 1..=a.steps {
        if a.die == Some((shard.world().step + 1, me)) {
            go_silent(a.timeout);
        }
        let report = shard.step(t)?;
        let all = t
            .gather(encode(&report))
            .map_err(|e| ShardError::from_transport(me, shard.world().step, e))?;
        let hash = if a.hash_every > 0 && k % a.hash_every == 0 {
            shard.state_hash(t)?
        } else {
            None
        };
        let Some(all) = all else { continue };
        let s = summarise(&all);
        per_step.push(s);
        for (t, x) in totals.iter_mut().zip(s) {
            *t += x;
        }
        if let (Some(crowd), Some(hash)) = (single.as_mut(), hash) {
            while crowd.world.step != shard.world().step {
                crowd.step();
            }
            if crowd.state_hash() != hash {
                return Err(Ending::Failed(format!(
                    "rank 0: step {}: the hash over the ranks is {hash:#018x}, one process gives {:#018x}",
                    shard.world().step,
                    crowd.state_hash()
                )));
            }
        }
        if a.print_every > 0 && k % a.print_every == 0 {
            let hash = hash.map_or(String::new(), |h| format!("  hash {h:#018x}"));
            println!(
                "step {:>5}  tree {:7.2} ms  movement {:7.2} ms  halo {:6.2} ms  migration {:6.2} ms  sent {:8.1} KB  migrated {:5}  imbalance {:.3}{hash}",
                shard.world().step,
                s[0],
                s[1],
                s[2],
                s[3],
                s[4] / 1e3,
                s[5],
                s[6]
            );
        }
    }
    if me == 0 {
        let n = f64::from(a.steps.max(1));
        println!(
            "mean per step: tree {:.2} ms, movement {:.2} ms, halo {:.2} ms, migration {:.2} ms, sent {:.1} KB, migrated {:.1}, imbalance {:.3}; strips cut again {} times",
            totals[0] / n,
            totals[1] / n,
            totals[2] / n,
            totals[3] / n,
            totals[4] / n / 1e3,
            totals[5] / n,
            totals[6] / n,
            totals[7]
        );
        let median = |k: usize| median(per_step.iter().map(|s| s[k]).collect());
        let ranks = t.size() as f64;
        println!(
            "median per step: step {:.2} ms, tree {:.2} ms, movement {:.2} ms, halo {:.2} ms, migration {:.2} ms, sent {:.1} KB, per rank {:.1} KB (most {:.1} KB)",
            median(8),
            median(0),
            median(1),
            median(2),
            median(3),
            median(4) / 1e3,
            median(4) / 1e3 / ranks,
            median(9) / 1e3
        );
        if single.is_some() {
            println!("checked: every hashed step equals the single-process run");
        }
    }
    if let Some(dir) = &a.checkpoint {
        std::fs::create_dir_all(dir).map_err(|e| format!("rank {me}: {}: {e}", dir.display()))?;
        shard.checkpoint(dir)?;
        // Every part is written before rank 0 says so (an exchange of
        // nothing: a barrier with a timeout).
        t.sum(&[])
            .map_err(|e| ShardError::from_transport(me, shard.world().step, e))?;
        if me == 0 {
            println!(
                "checkpoint of step {} in {}",
                shard.world().step,
                dir.display()
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let Some(universe) = mpi::initialize() else {
        eprintln!("crowd_mpi: MPI could not be initialised");
        return ExitCode::FAILURE;
    };
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("crowd_mpi: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut t = MpiTransport::new(universe.world(), args.timeout);
    match run(&args, &mut t) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Ending::Silent(e)) => {
            eprintln!("crowd_mpi: {e}");
            // The other waiting ranks reach their own deadline within
            // about a step of this one: give them that long to say so
            // before the launcher, seeing this rank fail, ends them.
            std::thread::sleep(args.timeout.min(Duration::from_secs(10)) / 2);
            // Not through `MPI_Finalize`, which would wait for the silent
            // rank, nor `MPI_Abort`, which could end the other waiting
            // ranks before they say what they waited for: the launcher
            // ends the job once a rank has exited with a failure.
            std::process::exit(1)
        }
        Err(Ending::Failed(e)) => {
            eprintln!("crowd_mpi: {e}");
            // Every other rank is ended too, rather than left waiting.
            t.communicator().abort(1)
        }
    }
}

/// The test hook: take no further part in the run, as a hung or
/// unreachable rank would, until the others have given up on this one
/// (each waits one timeout); then exit with a failure.
fn go_silent(timeout: Duration) -> ! {
    std::thread::sleep(timeout.saturating_mul(3));
    eprintln!("crowd_mpi: went silent as asked (--die-at-step)");
    std::process::exit(1)
}
