//! [`Transport`] over MPI (rsmpi): an exchange is an announcement, one
//! small point-to-point message from every rank to every other saying how
//! many bytes follow, then an all-to-all collective of the bytes.
//!
//! The announcement is the step's heartbeat. Its receives are polled
//! (`MPI_Improbe`) against a deadline, so a rank that died, hangs or
//! cannot be reached makes every other rank's exchange fail with
//! [`TransportError::Timeout`] naming it, instead of blocking in a
//! collective for ever; the collective starts only once every rank has
//! announced, that is, once every rank is inside the same exchange (a
//! rank that dies in the moment between its announcement and the
//! collective is left to the launcher, which ends a job whose process
//! died).
//! Its sends are blocking sends of four bytes, which every MPI delivers
//! eagerly (they return without waiting for the receiver).
//! Rejected: non-blocking collectives polled with a deadline, which end
//! the wait as well but cannot say which rank is missing; non-blocking
//! sends of the data itself, whose requests rsmpi cannot abandon safely
//! when the receiver never comes (it aborts the process).
//!
//! A rank that dies outright is usually caught by `mpirun` first, which
//! ends the job; the timeout covers the rest (a rank that hangs, a lost
//! machine). A rank that fails with an error of its own reports it and
//! aborts the job through `MPI_Abort` (the example does).

use std::time::{Duration, Instant};

use mpi::Tag;
use mpi::datatype::{Partition, PartitionMut};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::transport::{Transport, TransportError};

/// The tag of announcements.
const ANNOUNCE: Tag = 0x6361;

/// A rank of an MPI communicator.
pub struct MpiTransport {
    world: SimpleCommunicator,
    timeout: Duration,
}

impl std::fmt::Debug for MpiTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiTransport")
            .field("rank", &self.world.rank())
            .field("size", &self.world.size())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl MpiTransport {
    /// The ranks of `world` (usually `universe.world()`); an exchange
    /// that waits longer than `timeout` for a rank's announcement fails
    /// with [`TransportError::Timeout`] naming that rank.
    pub fn new(world: SimpleCommunicator, timeout: Duration) -> MpiTransport {
        MpiTransport { world, timeout }
    }

    /// Receive every other rank's announcement into `counts`, polling
    /// until the deadline.
    fn await_announcements(&self, counts: &mut [i32]) -> Result<(), TransportError> {
        let me = self.rank();
        let mut waiting: Vec<usize> = (0..counts.len()).filter(|&r| r != me).collect();
        let start = Instant::now();
        let mut sleeps = 0u32;
        loop {
            let mut garbled = None;
            waiting.retain(|&from| {
                let process = self.world.process_at_rank(from as i32);
                let Some(probed) = process.immediate_matched_probe_with_tag(ANNOUNCE) else {
                    return true;
                };
                let (value, _) = probed.matched_receive_vec::<u32>();
                match value[..] {
                    [bytes] if i32::try_from(bytes).is_ok() => counts[from] = bytes as i32,
                    _ => garbled = Some(from),
                }
                false
            });
            if let Some(from) = garbled {
                return Err(TransportError::Garbled { from });
            }
            if waiting.is_empty() {
                return Ok(());
            }
            if start.elapsed() >= self.timeout {
                return Err(TransportError::Timeout {
                    from: waiting[0],
                    ms: self.timeout.as_millis() as u64,
                });
            }
            // Yield while the wait is short (an exchange usually
            // completes within a few milliseconds, and a yield hands the
            // processor to a rank sharing it); then sleep, ever longer up
            // to a millisecond, so that waiting for a slow rank costs
            // little.
            if start.elapsed() < Duration::from_millis(2) {
                std::thread::yield_now();
            } else {
                sleeps += 1;
                std::thread::sleep(Duration::from_micros(50 << sleeps.min(4)));
            }
        }
    }

    /// The communicator, for the program's own collectives.
    pub fn communicator(&self) -> &SimpleCommunicator {
        &self.world
    }
}

/// A byte count as MPI counts, or the error if it does not fit.
fn count(bytes: usize) -> Result<i32, TransportError> {
    i32::try_from(bytes).map_err(|_| TransportError::TooLarge { bytes })
}

impl Transport for MpiTransport {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&mut self, outgoing: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, TransportError> {
        let n = self.size();
        let send_counts = (0..n)
            .map(|r| count(outgoing.get(r).map_or(0, Vec::len)))
            .collect::<Result<Vec<i32>, _>>()?;
        let total = send_counts.iter().map(|&c| c as usize).sum::<usize>();
        count(total)?;
        let send_displs = displacements(&send_counts);
        let me = self.rank();
        for (to, &bytes) in send_counts.iter().enumerate().filter(|&(to, _)| to != me) {
            (self.world.process_at_rank(to as i32)).send_with_tag(&(bytes as u32), ANNOUNCE);
        }
        let mut recv_counts = vec![0i32; n];
        recv_counts[me] = send_counts[me];
        self.await_announcements(&mut recv_counts)?;
        let recv_total = recv_counts.iter().map(|&c| c as usize).sum::<usize>();
        count(recv_total)?;
        let recv_displs = displacements(&recv_counts);
        // One byte past the parts, so that neither buffer is empty: two
        // empty vectors share one dangling address, and MPI refuses a send
        // buffer that is the receive buffer.
        let mut send: Vec<u8> = outgoing.into_iter().take(n).flatten().collect();
        send.push(0);
        let mut recv = vec![0u8; recv_total + 1];
        {
            let partition = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut into = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&partition, &mut into);
        }
        Ok((0..n)
            .map(|r| {
                let at = recv_displs[r] as usize;
                recv[at..at + recv_counts[r] as usize].to_vec()
            })
            .collect())
    }
}

/// Where each rank's part starts in a buffer of parts of `counts` bytes.
fn displacements(counts: &[i32]) -> Vec<i32> {
    counts
        .iter()
        .scan(0i32, |at, &c| {
            let here = *at;
            *at += c;
            Some(here)
        })
        .collect()
}
