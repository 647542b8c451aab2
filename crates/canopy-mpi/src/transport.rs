//! How ranks talk: one collective, every rank sending a message (maybe
//! empty) to every other, from which the sums and the gathers the crowd
//! needs are made.
//!
//! The crowd's logic is written against [`Transport`] alone, so the same
//! code runs on MPI (feature `mpi`) and on [`Mesh`], ranks as threads of
//! one process, which the tests use to prove that any number of ranks
//! gives the single-process answer without an MPI installation.
//! Rejected: point-to-point sends to the two strip neighbours only, which
//! would save a little on many ranks but make rebalancing (where an agent
//! may move to any rank) a second code path.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long an exchange waits for the other ranks unless told otherwise:
/// far longer than any step of a crowd that fits a machine, far shorter
/// than a job's patience.
pub const DEFAULT_EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// Why an exchange between ranks failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportError {
    /// A rank left the run (it failed or ended) while others waited on it.
    RankGone {
        /// The rank that left.
        rank: usize,
    },
    /// A rank sent nothing within the time allowed: it died, hangs, or
    /// cannot be reached.
    Timeout {
        /// The first rank (by number) that was waited for in vain.
        from: usize,
        /// Milliseconds waited.
        ms: u64,
    },
    /// A rank announced an exchange in a form this program never sends.
    Garbled {
        /// The rank that sent it.
        from: usize,
    },
    /// A message too large for the transport.
    TooLarge {
        /// Its length in bytes.
        bytes: usize,
    },
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::RankGone { rank } => {
                write!(f, "rank {rank} left the run in the middle of a step")
            }
            TransportError::Timeout { from, ms } => {
                write!(f, "no message from rank {from} within {ms} ms")
            }
            TransportError::Garbled { from } => {
                write!(f, "rank {from} announced an exchange in an unknown form")
            }
            TransportError::TooLarge { bytes } => {
                write!(f, "a message of {bytes} bytes is too large to send")
            }
        }
    }
}

impl std::error::Error for TransportError {}

/// A rank's link to the others.
pub trait Transport {
    /// This rank.
    fn rank(&self) -> usize;

    /// Ranks in the run.
    fn size(&self) -> usize;

    /// Every rank sends `outgoing[r]` to rank `r` (its own entry included,
    /// delivered to itself) and receives `incoming[r]` from each rank `r`.
    /// Collective: every rank calls it, in the same order. A rank that
    /// sends nothing within the transport's timeout makes the others' call
    /// fail with [`TransportError::Timeout`] naming it, so that a rank
    /// that dies or hangs ends the run instead of stalling it.
    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError>;

    /// The element-wise sum of `values` over every rank, on every rank.
    fn sum(&mut self, values: &[u64]) -> Result<Vec<u64>, TransportError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let incoming = self.exchange(vec![bytes; self.size()])?;
        let mut total = vec![0u64; values.len()];
        for part in &incoming {
            for (t, chunk) in total.iter_mut().zip(part.chunks_exact(8)) {
                let mut b = [0u8; 8];
                b.copy_from_slice(chunk);
                *t = t.wrapping_add(u64::from_le_bytes(b));
            }
        }
        Ok(total)
    }

    /// Every rank's `bytes`, in rank order, on rank 0; `None` elsewhere.
    fn gather(&mut self, bytes: Vec<u8>) -> Result<Option<Vec<Vec<u8>>>, TransportError> {
        let mut outgoing = vec![Vec::new(); self.size()];
        outgoing[0] = bytes;
        let incoming = self.exchange(outgoing)?;
        Ok((self.rank() == 0).then_some(incoming))
    }
}

/// Ranks as threads of one process: [`Mesh::new`] gives one [`MeshRank`]
/// per rank, to move into its thread.
#[derive(Debug)]
pub struct Mesh;

#[derive(Debug)]
struct Round {
    /// `boxes[to][from]`.
    boxes: Vec<Vec<Vec<u8>>>,
    /// Which ranks have deposited their messages in this round.
    present: Vec<bool>,
    arrived: usize,
    taken: usize,
}

#[derive(Debug)]
struct Shared {
    /// Two rounds alternate, so that a fast rank's next deposit never
    /// lands in a round others are still collecting from.
    /// The two rounds, and which ranks have left.
    rounds: Mutex<([Round; 2], Vec<bool>)>,
    ready: Condvar,
    timeout: Duration,
}

/// One rank of a [`Mesh`].
#[derive(Debug)]
pub struct MeshRank {
    rank: usize,
    size: usize,
    round: usize,
    shared: Arc<Shared>,
}

impl Mesh {
    /// `ranks` linked ranks; an exchange that waits longer than `timeout`
    /// for the others fails with [`TransportError::Timeout`].
    #[allow(clippy::new_ret_no_self)]
    pub fn new(ranks: usize, timeout: Duration) -> Vec<MeshRank> {
        let round = || Round {
            boxes: vec![vec![Vec::new(); ranks]; ranks],
            present: vec![false; ranks],
            arrived: 0,
            taken: 0,
        };
        let shared = Arc::new(Shared {
            rounds: Mutex::new(([round(), round()], vec![false; ranks])),
            ready: Condvar::new(),
            timeout,
        });
        (0..ranks)
            .map(|rank| MeshRank {
                rank,
                size: ranks,
                round: 0,
                shared: Arc::clone(&shared),
            })
            .collect()
    }
}

impl Transport for MeshRank {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError> {
        let parity = self.round % 2;
        self.round += 1;
        let shared = &*self.shared;
        let mut guard = shared.rounds.lock().unwrap_or_else(PoisonError::into_inner);
        for (to, bytes) in outgoing.into_iter().enumerate().take(self.size) {
            guard.0[parity].boxes[to][self.rank] = bytes;
        }
        guard.0[parity].arrived += 1;
        guard.0[parity].present[self.rank] = true;
        shared.ready.notify_all();
        let start = Instant::now();
        while guard.0[parity].arrived < self.size {
            // A rank that left after taking part in this round (it gave
            // up waiting, as this one may) is not the one waited for.
            let present = &guard.0[parity].present;
            if let Some(rank) = (0..self.size).find(|&r| guard.1[r] && !present[r]) {
                return Err(TransportError::RankGone { rank });
            }
            let left = shared.timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                let present = &guard.0[parity].present;
                return Err(TransportError::Timeout {
                    from: present.iter().position(|p| !p).unwrap_or(self.rank),
                    ms: shared.timeout.as_millis() as u64,
                });
            }
            guard = shared
                .ready
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let round = &mut guard.0[parity];
        let incoming = std::mem::take(&mut round.boxes[self.rank]);
        round.boxes[self.rank] = vec![Vec::new(); self.size];
        round.taken += 1;
        if round.taken == self.size {
            round.arrived = 0;
            round.taken = 0;
            round.present.fill(false);
        }
        Ok(incoming)
    }
}

impl Drop for MeshRank {
    /// A rank that leaves tells the others, so that none waits for it.
    fn drop(&mut self) {
        let mut guard = self
            .shared
            .rounds
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        guard.1[self.rank] = true;
        self.shared.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_receives_what_each_sent_it() {
        let ranks = Mesh::new(3, Duration::from_secs(10));
        let got: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = ranks
                .into_iter()
                .map(|mut t| {
                    s.spawn(move || {
                        let me = t.rank() as u8;
                        let mut all = Vec::new();
                        for round in 0..5u8 {
                            let out = (0..3u8).map(|to| vec![me, to, round]).collect();
                            all.push(t.exchange(out).unwrap());
                        }
                        (all, t.sum(&[u64::from(me), 1]).unwrap())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (me, (rounds, sum)) in got.iter().enumerate() {
            for (round, incoming) in rounds.iter().enumerate() {
                let expected: Vec<Vec<u8>> = (0..3u8)
                    .map(|from| vec![from, me as u8, round as u8])
                    .collect();
                assert_eq!(incoming, &expected);
            }
            assert_eq!(sum, &[3, 3]);
        }
    }

    #[test]
    fn a_rank_that_stays_silent_ends_the_others_wait_with_its_number_after_the_timeout() {
        let mut ranks = Mesh::new(3, Duration::from_millis(200));
        let silent = ranks.remove(1);
        let started = Instant::now();
        let results: Vec<_> = std::thread::scope(|s| {
            let waiting: Vec<_> = (ranks.into_iter())
                .map(|mut t| s.spawn(move || t.exchange(vec![Vec::new(); 3])))
                .collect();
            waiting.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let waited = started.elapsed();
        drop(silent);
        let expected = Err(TransportError::Timeout { from: 1, ms: 200 });
        assert_eq!(results, [expected.clone(), expected]);
        assert!(waited >= Duration::from_millis(200), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
    }

    #[test]
    fn a_rank_that_leaves_ends_the_others_wait_with_its_number() {
        let mut ranks = Mesh::new(2, Duration::from_secs(10));
        let mut second = ranks.pop().unwrap();
        drop(ranks);
        assert_eq!(
            second.exchange(vec![Vec::new(), Vec::new()]),
            Err(TransportError::RankGone { rank: 0 })
        );
    }
}
