//! [`Transport`] over MPI (rsmpi): the exchange is two collectives, an
//! all-to-all of byte counts and an all-to-all of the bytes.
//!
//! A rank that fails reports its error and aborts the whole job through
//! `MPI_Abort` (the example does), so that no rank waits for it forever:
//! MPI's default error handler likewise ends the job on a failed call.

use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::transport::{Transport, TransportError};

/// A rank of an MPI communicator.
pub struct MpiTransport {
    world: SimpleCommunicator,
}

impl std::fmt::Debug for MpiTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiTransport")
            .field("rank", &self.world.rank())
            .field("size", &self.world.size())
            .finish()
    }
}

impl MpiTransport {
    /// The ranks of `world` (usually `universe.world()`).
    pub fn new(world: SimpleCommunicator) -> MpiTransport {
        MpiTransport { world }
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
        let mut recv_counts = vec![0i32; n];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
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
