//! [`Transport`] over MPI (rsmpi): an exchange is an announcement, one
//! small point-to-point message from every rank to every other saying how
//! many bytes follow, then the bytes, point to point, between the ranks
//! that announced some for each other only.
//!
//! The announcement is the step's heartbeat. Its receives are polled
//! (`MPI_Improbe`) against a deadline, so a rank that died, hangs or
//! cannot be reached makes every other rank's exchange fail with
//! [`TransportError::Timeout`] naming it, instead of blocking for ever;
//! the bytes go only once every rank has announced, that is, once every
//! rank is inside the same exchange (a rank that dies in the moment
//! between its announcement and its bytes is left to the launcher, which
//! ends a job whose process died).
//! Its sends are blocking sends of four bytes, which every MPI delivers
//! eagerly (they return without waiting for the receiver).
//!
//! An exchange costs two one-way latencies whatever the number of ranks:
//! the announcements cross at once, then the bytes do (a strip's halo
//! and most of its migrants go to its two neighbours; the visitor counts
//! to every rank). Rejected: an all-to-all collective for the
//! bytes (`MPI_Alltoallv`), which costs n − 1 latencies in sequence when
//! OpenMPI runs it as pairwise rounds (forced so on 4 ranks and a 1 ms
//! link, 11 ms a halo exchange against 2.7 ms in one linear round; the
//! crate docs give the figures, measured with `scripts/netns-mpi.sh`) and
//! sends and receives empty parts between ranks with nothing to say;
//! non-blocking collectives polled with a deadline, which end the wait as
//! well but cannot say which rank is missing; sending the bytes without
//! announcing them first, whose requests rsmpi cannot abandon safely when
//! the receiver never comes (it aborts the process).
//!
//! A rank that dies outright is usually caught by `mpirun` first, which
//! ends the job; the timeout covers the rest (a rank that hangs, a lost
//! machine). A rank that fails with an error of its own reports it and
//! aborts the job through `MPI_Abort` (the example does).

use std::time::{Duration, Instant};

use mpi::Tag;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::transport::{Transport, TransportError};

/// The tag of announcements.
const ANNOUNCE: Tag = 0x6361;
/// The tag of the bytes announced.
const DATA: Tag = 0x6362;

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
        let me = self.rank();
        for (to, &bytes) in send_counts.iter().enumerate().filter(|&(to, _)| to != me) {
            (self.world.process_at_rank(to as i32)).send_with_tag(&(bytes as u32), ANNOUNCE);
        }
        let mut recv_counts = vec![0i32; n];
        recv_counts[me] = send_counts[me];
        self.await_announcements(&mut recv_counts)?;
        // Every rank is inside this exchange now: the bytes go point to
        // point, only between ranks that announced some for each other.
        let mut incoming: Vec<Vec<u8>> = (recv_counts.iter())
            .map(|&c| vec![0u8; c as usize])
            .collect();
        let mut outgoing = outgoing;
        // Entries past the last rank are not sent, as for any transport.
        outgoing.resize_with(n, Vec::new);
        incoming[me] = std::mem::take(&mut outgoing[me]);
        mpi::request::scope(|scope| {
            let receives: Vec<_> = (incoming.iter_mut().enumerate())
                .filter(|(from, bytes)| *from != me && !bytes.is_empty())
                .map(|(from, bytes)| {
                    (self.world.process_at_rank(from as i32)).immediate_receive_into_with_tag(
                        scope,
                        &mut bytes[..],
                        DATA,
                    )
                })
                .collect();
            let sends: Vec<_> = (outgoing.iter().enumerate())
                .filter(|(to, bytes)| *to != me && !bytes.is_empty())
                .map(|(to, bytes)| {
                    (self.world.process_at_rank(to as i32)).immediate_send_with_tag(
                        scope,
                        &bytes[..],
                        DATA,
                    )
                })
                .collect();
            for request in receives {
                request.wait_without_status();
            }
            for request in sends {
                request.wait_without_status();
            }
        });
        Ok(incoming)
    }
}
