//! The crowd on 1, 2 and 4 simulated ranks gives the single-process state
//! hash after every step, in tick and event mode, while agents cross
//! strips and the strips are cut again.

mod common;

use canopy_core::Mode;
use canopy_crowd::Config;
use canopy_mpi::Balance;
use common::{sharded, single};

const STEPS: usize = 200;

fn config(mode: Mode) -> Config {
    Config {
        agents: 400,
        seed: 7,
        mode,
        ..Config::default()
    }
}

/// Checked often, cut again at the slightest drift: rebalancing is
/// exercised many times in a short run.
const EAGER: Balance = Balance {
    every: 5,
    above: 1.02,
};

fn same_answer_on_every_rank_count(mode: Mode) {
    let config = config(mode);
    let expected = single(&config, STEPS);
    for ranks in [1, 2, 4] {
        let run = sharded(&config, ranks, STEPS, EAGER, None);
        assert_eq!(run.hashes.len(), STEPS);
        if let Some(step) = (0..STEPS).find(|&s| run.hashes[s] != expected[s]) {
            panic!(
                "{ranks} ranks, {mode:?} mode: the hash differs after step {}",
                step + 1
            );
        }
        if ranks > 1 {
            assert!(run.migrated() > 0, "{ranks} ranks: no agent migrated");
            assert!(run.rebalances() > 0, "{ranks} ranks: never rebalanced");
        }
    }
}

#[test]
fn tick_mode_gives_the_single_process_hash_at_every_step_on_1_2_and_4_ranks() {
    same_answer_on_every_rank_count(Mode::Tick);
}

#[test]
fn event_mode_gives_the_single_process_hash_at_every_step_on_1_2_and_4_ranks() {
    same_answer_on_every_rank_count(Mode::Event);
}

/// Every place's visitors, bound and within reach, food then rest.
fn visitors(world: &canopy_crowd::World) -> Vec<(u32, u32)> {
    (world.food.visitors().iter())
        .chain(world.rest.visitors())
        .map(|v| (v.bound, v.here))
        .collect()
}

#[test]
fn every_rank_counts_each_places_visitors_as_the_single_process_does_at_every_step() {
    use canopy_crowd::{Crowd, load_default_tree};
    use canopy_mpi::Shard;
    const STEPS: usize = 60;
    // Crowded places: few of them for the agents, so that counts run high.
    let config = Config {
        food: Some(2),
        rest: Some(2),
        ..config(Mode::Tick)
    };
    let mut crowd = Crowd::new(load_default_tree().unwrap(), &config);
    let expected: Vec<_> = (0..STEPS)
        .map(|_| {
            crowd.step();
            visitors(&crowd.world)
        })
        .collect();
    assert!(
        expected
            .iter()
            .flatten()
            .any(|&(bound, here)| bound > 20 && here > 5),
        "the places are never busy: the test would not see a count go wrong"
    );
    let results = common::on_ranks(4, |t| {
        let mut shard = Shard::new(load_default_tree().unwrap(), &config, EAGER, t)?;
        (0..STEPS)
            .map(|_| {
                shard.step(t)?;
                Ok(visitors(shard.world()))
            })
            .collect::<Result<Vec<_>, _>>()
    });
    for (rank, result) in results.into_iter().enumerate() {
        let counts = result.unwrap_or_else(|e| panic!("rank {rank}: {e}"));
        if let Some(step) = (0..STEPS).find(|&s| counts[s] != expected[s]) {
            panic!(
                "rank {rank}: after step {} the visitors are {:?}, one process counts {:?}",
                step + 1,
                counts[step],
                expected[step]
            );
        }
    }
}

#[test]
fn a_rank_that_stops_ends_the_others_with_its_number_not_a_hang() {
    use canopy_crowd::load_default_tree;
    use canopy_mpi::{Shard, Transport};
    let config = config(Mode::Tick);
    let results = common::on_ranks(2, |t| {
        let mut shard = Shard::new(load_default_tree().unwrap(), &config, EAGER, t)?;
        let steps = if t.rank() == 1 { 3 } else { 10 };
        for _ in 0..steps {
            shard.step(t)?;
        }
        Ok(shard.world().step)
    });
    assert_eq!(results[1].as_ref().unwrap(), &3);
    assert_eq!(
        results[0].as_ref().unwrap_err().to_string(),
        "rank 0: rank 1 left the run in the middle of a step"
    );
}

#[test]
fn a_rank_that_goes_silent_ends_the_others_within_the_timeout_naming_it_and_the_step() {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    use canopy_crowd::load_default_tree;
    use canopy_mpi::{Shard, Transport};
    let config = config(Mode::Tick);
    let timeout = Duration::from_millis(300);
    let silent_since = OnceLock::new();
    let results = common::on_ranks_waiting(3, timeout, |t| {
        let mut shard = Shard::new(load_default_tree().unwrap(), &config, EAGER, t)?;
        if t.rank() == 1 {
            for _ in 0..3 {
                shard.step(t)?;
            }
            silent_since.set(Instant::now()).unwrap();
            // Still linked to the others, but taking no part: a hung rank.
            std::thread::sleep(timeout * 5);
            return Ok(None);
        }
        let error = (0..10)
            .try_for_each(|_| shard.step(t).map(drop))
            .unwrap_err();
        Ok(Some((
            error.to_string(),
            silent_since.get().unwrap().elapsed(),
        )))
    });
    assert_eq!(results[1].as_ref().unwrap(), &None);
    for rank in [0, 2] {
        let (message, waited) = results[rank].as_ref().unwrap().clone().unwrap();
        assert_eq!(
            message,
            format!("rank {rank}: no message from rank 1 for step 4 within 300 ms; ending the run")
        );
        assert!(waited < timeout * 3, "rank {rank} waited {waited:?}");
    }
}

/// A rank that counts its exchanges.
struct Counting {
    inner: canopy_mpi::MeshRank,
    exchanges: usize,
}

impl canopy_mpi::Transport for Counting {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn exchange(
        &mut self,
        outgoing: Vec<Vec<u8>>,
    ) -> Result<Vec<Vec<u8>>, canopy_mpi::TransportError> {
        self.exchanges += 1;
        self.inner.exchange(outgoing)
    }
}

#[test]
fn a_step_exchanges_twice_and_once_more_when_the_load_is_checked() {
    use canopy_crowd::load_default_tree;
    use canopy_mpi::{Mesh, Shard};
    // Each exchange costs a rank two one-way latencies: the visitor counts
    // travel with the migrants, the halo on its own.
    let balance = Balance {
        every: 4,
        above: 1.1,
    };
    let config = config(Mode::Tick);
    let per_step: Vec<Vec<usize>> = std::thread::scope(|s| {
        let handles: Vec<_> = (Mesh::new(3, std::time::Duration::from_secs(60)).into_iter())
            .map(|inner| {
                let config = &config;
                s.spawn(move || {
                    let mut t = Counting {
                        inner,
                        exchanges: 0,
                    };
                    let mut shard =
                        Shard::new(load_default_tree().unwrap(), config, balance, &mut t).unwrap();
                    (0..8)
                        .map(|_| {
                            let before = t.exchanges;
                            shard.step(&mut t).unwrap();
                            t.exchanges - before
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for counts in per_step {
        assert_eq!(counts, [2, 2, 2, 3, 2, 2, 2, 3]);
    }
}
