//! Running a crowd on simulated ranks (threads of this process).

#![allow(dead_code, unreachable_pub)]

use std::path::Path;
use std::time::Duration;

use canopy_crowd::{Config, Crowd, load_default_tree};
use canopy_mpi::{Balance, Mesh, MeshRank, Shard, ShardError, StepReport};

/// What a simulated run saw: rank 0's hash after every step, and every
/// rank's reports.
#[derive(Debug)]
pub struct Run {
    pub hashes: Vec<u64>,
    pub reports: Vec<Vec<StepReport>>,
}

impl Run {
    pub fn migrated(&self) -> u64 {
        self.reports.iter().flatten().map(|r| r.migrated).sum()
    }
    pub fn rebalances(&self) -> usize {
        self.reports
            .iter()
            .flatten()
            .filter(|r| r.rebalanced)
            .count()
    }
}

/// The single-process crowd's hash after each of `steps` steps.
pub fn single(config: &Config, steps: usize) -> Vec<u64> {
    let mut crowd = Crowd::new(load_default_tree().unwrap(), config);
    (0..steps)
        .map(|_| {
            crowd.step();
            crowd.state_hash()
        })
        .collect()
}

/// Run `body` on `ranks` simulated ranks; their results in rank order.
pub fn on_ranks<T: Send>(
    ranks: usize,
    body: impl Fn(&mut MeshRank) -> Result<T, ShardError> + Sync,
) -> Vec<Result<T, ShardError>> {
    on_ranks_waiting(ranks, Duration::from_secs(120), body)
}

/// [`on_ranks`], an exchange waiting at most `timeout` for each rank.
pub fn on_ranks_waiting<T: Send>(
    ranks: usize,
    timeout: Duration,
    body: impl Fn(&mut MeshRank) -> Result<T, ShardError> + Sync,
) -> Vec<Result<T, ShardError>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = Mesh::new(ranks, timeout)
            .into_iter()
            .map(|mut t| {
                let body = &body;
                s.spawn(move || body(&mut t))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Step `shard` `steps` times, hashing after each.
pub fn go_on(shard: &mut Shard, t: &mut MeshRank, steps: usize) -> Result<RankRun, ShardError> {
    let (mut hashes, mut reports) = (Vec::new(), Vec::new());
    for _ in 0..steps {
        reports.push(shard.step(t)?);
        hashes.extend(shard.state_hash(t)?);
    }
    Ok((hashes, reports))
}

/// The crowd of `config` on `ranks` simulated ranks for `steps` steps;
/// with `checkpoint`, written there after the last step.
pub fn sharded(
    config: &Config,
    ranks: usize,
    steps: usize,
    balance: Balance,
    checkpoint: Option<&Path>,
) -> Run {
    let results = on_ranks(ranks, |t| {
        let mut shard = Shard::new(load_default_tree().unwrap(), config, balance, t)?;
        let run = go_on(&mut shard, t, steps)?;
        if let Some(dir) = checkpoint {
            shard.checkpoint(dir)?;
        }
        Ok(run)
    });
    collect(results)
}

/// Go on from the checkpoint in `dir` on `ranks` ranks for `steps` steps.
pub fn restarted(dir: &Path, ranks: usize, steps: usize) -> Run {
    collect(on_ranks(ranks, |t| {
        let mut shard = Shard::restart(load_default_tree().unwrap(), dir, Balance::default(), t)?;
        go_on(&mut shard, t, steps)
    }))
}

/// One rank's hashes and reports.
type RankRun = (Vec<u64>, Vec<StepReport>);

fn collect(results: Vec<Result<RankRun, ShardError>>) -> Run {
    let mut run = Run {
        hashes: Vec::new(),
        reports: Vec::new(),
    };
    for (rank, result) in results.into_iter().enumerate() {
        let (hashes, reports) = result.unwrap_or_else(|e| panic!("rank {rank}: {e}"));
        if rank == 0 {
            run.hashes = hashes;
        }
        run.reports.push(reports);
    }
    run
}
