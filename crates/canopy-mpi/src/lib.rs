//! A canopy crowd sharded over processes: each rank owns the agents in a
//! strip of the arena, reads copies of its neighbours' border agents (the
//! halo), and sends an agent that crosses into another strip to its new
//! owner with its walker and canopy's snapshot of its running behaviour.
//! With the same seed, the whole crowd's state hash is the single-process
//! run's at every step, on any number of ranks, in tick and event mode.
//!
//! - [`Strips`]: the decomposition, and why strips.
//! - [`Shard`]: one rank's part and the step that keeps it exact.
//! - [`Transport`]: how ranks talk; [`Mesh`] runs ranks as threads of one
//!   process (the tests), `MpiTransport` (feature `mpi`) over MPI.
//! - the wire format ([`Writer`], [`Reader`]): messages read as untrusted
//!   input, errors naming the sending rank and the problem.
//! - checkpoints ([`Shard::checkpoint`], [`Shard::restart`]): each rank
//!   writes its part; a restart on any number of ranks continues with the
//!   uninterrupted run's hashes.
//!
//! ```
//! use std::time::Duration;
//! use canopy_crowd::{Config, Crowd, load_default_tree};
//! use canopy_mpi::{Balance, Mesh, Shard};
//!
//! let config = Config { agents: 300, ..Config::default() };
//! let mut single = Crowd::new(load_default_tree().unwrap(), &config);
//! let hashes: Vec<Option<u64>> = std::thread::scope(|s| {
//!     let ranks: Vec<_> = Mesh::new(2, Duration::from_secs(60))
//!         .into_iter()
//!         .map(|mut t| {
//!             let config = config.clone();
//!             s.spawn(move || {
//!                 let tree = load_default_tree().unwrap();
//!                 let mut shard = Shard::new(tree, &config, Balance::default(), &mut t).unwrap();
//!                 for _ in 0..10 {
//!                     shard.step(&mut t).unwrap();
//!                 }
//!                 shard.state_hash(&mut t).unwrap()
//!             })
//!         })
//!         .collect();
//!     ranks.into_iter().map(|r| r.join().unwrap()).collect()
//! });
//! for _ in 0..10 {
//!     single.step();
//! }
//! assert_eq!(hashes, [Some(single.state_hash()), None]);
//! ```

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod checkpoint;
#[cfg(feature = "mpi")]
mod mpi_transport;
mod shard;
mod strips;
mod transport;
mod wire;

pub use checkpoint::{CHECKPOINT_VERSION, MAX_CHECKPOINT_BYTES};
#[cfg(feature = "mpi")]
pub use mpi_transport::MpiTransport;
pub use shard::{Balance, Shard, ShardError, StepReport};
pub use strips::Strips;
pub use transport::{Mesh, MeshRank, Transport, TransportError};
pub use wire::{
    Expect, HALO_BYTES, HEADER_BYTES, Kind, MAX_SNAPSHOT_BYTES, Problem, Reader, WALKER_BYTES,
    WIRE_VERSION, WireError, Writer,
};
