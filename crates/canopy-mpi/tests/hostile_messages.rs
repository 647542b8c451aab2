//! A damaged or foreign message is an error naming the sender and the
//! problem, never a panic: every truncation and every flipped byte of a
//! real migrant message is tried.

use canopy_crowd::{Config, Crowd, Walker, World, load_default_tree};
use canopy_mpi::{Expect, Kind, Problem, Reader, WireError, Writer};

fn crowd() -> (
    World,
    Vec<Walker>,
    Vec<canopy_core::Agent>,
    canopy_core::Tree<Walker, World>,
) {
    let mut crowd = Crowd::new(
        load_default_tree().unwrap(),
        &Config {
            agents: 50,
            ..Config::default()
        },
    );
    for _ in 0..5 {
        crowd.step();
    }
    crowd.into_parts()
}

fn read_all(
    bytes: &[u8],
    tree: &canopy_core::Tree<Walker, World>,
    expect: Expect<'_>,
) -> Result<usize, WireError> {
    let mut r = Reader::new(bytes, Kind::Migrants, expect)?;
    let mut n = 0;
    while r.left() > 0 {
        r.migrant(tree)?;
        n += 1;
    }
    r.finish()?;
    Ok(n)
}

#[test]
fn every_truncation_and_flipped_byte_of_a_migrant_message_is_an_error_or_a_message_never_a_panic() {
    let (world, walkers, agents, tree) = crowd();
    let mut w = Writer::new(Kind::Migrants, 3, world.step);
    for id in [4u32, 9] {
        let snapshot = agents[id as usize].snapshot(&tree).to_bytes();
        w.migrant(id, &walkers[id as usize], &snapshot);
    }
    let bytes = w.finish();
    let expect = Expect {
        from: 3,
        step: world.step,
        agents: 50,
        world: &world,
    };
    assert_eq!(read_all(&bytes, &tree, expect), Ok(2));
    for len in 0..bytes.len() {
        let error = read_all(&bytes[..len], &tree, expect).unwrap_err();
        assert_eq!(error.from, 3);
    }
    for at in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        let _ = read_all(&damaged, &tree, expect);
    }
}

#[test]
fn a_message_from_another_sender_step_or_crowd_says_so() {
    let (world, walkers, agents, tree) = crowd();
    let expect = Expect {
        from: 1,
        step: world.step,
        agents: 50,
        world: &world,
    };
    let message = |from: usize, step: u32, id: u32, snapshot_of: usize| {
        let mut w = Writer::new(Kind::Migrants, from, step);
        let snapshot = agents[snapshot_of].snapshot(&tree).to_bytes();
        w.migrant(id, &walkers[0], &snapshot);
        w.finish()
    };
    let problem = |bytes: Vec<u8>| read_all(&bytes, &tree, expect).unwrap_err().problem;
    assert_eq!(problem(message(2, world.step, 0, 0)), Problem::Sender(2));
    assert_eq!(
        problem(message(1, world.step + 1, 0, 0)),
        Problem::Step {
            expected: world.step,
            found: world.step + 1
        }
    );
    assert_eq!(problem(message(1, world.step, 50, 0)), Problem::Id(50));
    assert_eq!(
        problem(message(1, world.step, 0, 7)),
        Problem::SnapshotId { id: 0, found: 7 }
    );
    let halo = Writer::new(Kind::Halo, 1, world.step).finish();
    assert_eq!(
        Reader::new(&halo, Kind::Migrants, expect)
            .unwrap_err()
            .to_string(),
        "the message from rank 1: it is of kind 1, kind 2 was expected"
    );
}

#[test]
fn a_message_of_the_previous_format_version_is_refused_by_its_version() {
    let (world, _, _, _) = crowd();
    let expect = Expect {
        from: 1,
        step: world.step,
        agents: 50,
        world: &world,
    };
    let mut old = Writer::new(Kind::Migrants, 1, world.step).finish();
    old[4..6].copy_from_slice(&(canopy_mpi::WIRE_VERSION - 1).to_le_bytes());
    let error = Reader::new(&old, Kind::Migrants, expect).unwrap_err();
    assert_eq!(error.problem, Problem::Version(2));
    assert_eq!(
        error.to_string(),
        "the message from rank 1: it is of format version 2, this program reads 3"
    );
}

#[test]
fn a_walker_out_of_range_is_named_by_agent_and_field() {
    let (world, mut walkers, agents, tree) = crowd();
    walkers[0].hunger = f32::NAN;
    let mut w = Writer::new(Kind::Migrants, 0, world.step);
    w.migrant(0, &walkers[0], &agents[0].snapshot(&tree).to_bytes());
    let expect = Expect {
        from: 0,
        step: world.step,
        agents: 50,
        world: &world,
    };
    assert_eq!(
        read_all(&w.finish(), &tree, expect)
            .unwrap_err()
            .to_string(),
        "the message from rank 0: agent 0: its hunger is out of range"
    );
}

/// A rank whose messages lose their last byte after the set-up exchange.
struct Truncating {
    inner: canopy_mpi::MeshRank,
    exchanges: usize,
}

impl canopy_mpi::Transport for Truncating {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn exchange(
        &mut self,
        mut outgoing: Vec<Vec<u8>>,
    ) -> Result<Vec<Vec<u8>>, canopy_mpi::TransportError> {
        self.exchanges += 1;
        if self.exchanges > 1 {
            for message in &mut outgoing {
                message.pop();
            }
        }
        self.inner.exchange(outgoing)
    }
}

#[test]
fn a_damaged_message_in_a_run_stops_its_receiver_with_both_ranks_named_and_the_sender_stops_too() {
    use canopy_mpi::{Balance, Mesh, Shard, Transport};
    let config = Config {
        agents: 300,
        ..Config::default()
    };
    let mut ranks = Mesh::new(2, std::time::Duration::from_secs(60));
    let second = ranks.pop().unwrap();
    let first = ranks.pop().unwrap();
    let results: Vec<String> = std::thread::scope(|s| {
        let good = s.spawn(|| {
            let mut t = first;
            let mut shard = Shard::new(
                load_default_tree().unwrap(),
                &config,
                Balance::default(),
                &mut t,
            )?;
            for _ in 0..20 {
                shard.step(&mut t)?;
            }
            Ok(())
        });
        let bad = s.spawn(|| {
            let mut t = Truncating {
                inner: second,
                exchanges: 0,
            };
            let mut shard = Shard::new(
                load_default_tree().unwrap(),
                &config,
                Balance::default(),
                &mut t,
            )?;
            assert_eq!(t.rank(), 1);
            for _ in 0..20 {
                shard.step(&mut t)?;
            }
            Ok(())
        });
        [good, bad]
            .into_iter()
            .map(|h| {
                let result: Result<(), canopy_mpi::ShardError> = h.join().unwrap();
                result.unwrap_err().to_string()
            })
            .collect()
    });
    assert_eq!(
        results,
        [
            "rank 0: the message from rank 1: it ends before its records do",
            "rank 1: rank 0 left the run in the middle of a step",
        ]
    );
}
