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
//! # Why the answer does not depend on the rank count
//!
//! The crowd's step was already order-independent within a step: every
//! agent reads a snapshot and writes only itself, neighbours are kept by
//! (distance, grid slot) and handed to avoidance in that order, and every
//! random draw comes from the agent's own generator. What a rank could
//! change is the grid slot order; a shard keeps its list in an order that
//! makes its grid list every cell's agents by id, as the whole crowd's
//! grid does (see [`Shard`]). Nothing in `canopy-crowd`'s step changed, nor its
//! state hash.
//!
//! # Running it over MPI
//!
//! The MPI parts need an MPI installation (Debian: `libopenmpi-dev`,
//! `openmpi-bin`, and `libclang-dev` for the bindings), so they are behind
//! the `mpi` feature, off by default:
//!
//! ```text
//! cargo build --release -p canopy-mpi --features mpi --example crowd_mpi
//! mpirun -n 4 target/release/examples/crowd_mpi --agents 1000000 --steps 50
//! mpirun -n 2 target/release/examples/crowd_mpi --agents 3000 --steps 300 --check
//! ```
//!
//! Each step prints the slowest rank's time in each phase (tree, movement,
//! halo exchange, migration: a phase's time includes waiting for the
//! other ranks at its exchange), the bytes all ranks sent, the agents that
//! migrated and the imbalance (the busiest rank's agents over the mean).
//! `--check` runs the crowd in one process beside rank 0 and stops at the
//! first step whose hash differs; `--checkpoint DIR` and `--restart DIR`
//! write and resume checkpoints. `.ci/mpi.sh` runs the checks CI needs.
//!
//! Every exchange waits at most a timeout (`--exchange-timeout-ms`,
//! [`DEFAULT_EXCHANGE_TIMEOUT`] unless told) for each other rank: a rank
//! that dies, hangs or cannot be reached makes each of the others end with
//! [`ShardError::Silent`], which the example prints (`rank 0: no message
//! from rank 1 for step 10 within 2000 ms; ending the run`) before
//! exiting with a failure; `.ci/mpi.sh` checks it with the example's test
//! hook (`--die-at-step K --die-rank R`: rank `R` goes silent at step
//! `K`). A rank that fails with an error of its own prints it and aborts
//! the job (`MPI_Abort`), so the others end at once. Between threads
//! ([`Mesh`]) the same timeout applies, and a rank that leaves makes the
//! others' next exchange fail with [`TransportError::RankGone`].
//!
//! # Limits
//!
//! - Setting up, every rank builds the walkers and behaviour runtimes of
//!   its own strip only, but draws every agent's position (two draws of
//!   its dice, a few nanoseconds) to cut the strips and number the agents
//!   as one process does. A restart reads every part's header and, in
//!   full, only the parts whose strip overlaps the rank's own.
//! - [`Shard::state_hash`] gathers every agent's record to rank 0: a check
//!   for tests and `--check`, not a per-step cost of a production run, and
//!   kept so on purpose: rank 0 alone can order the whole crowd by id as
//!   the single process hashes it. A production run would hash each
//!   rank's part and combine the parts instead (a hash that does not
//!   depend on the order, which is not the single process's hash).
//! - A checkpoint is read within a saved crowd's limits
//!   ([`canopy_crowd::MAX_SAVED_AGENTS`] agents, an arena of at most
//!   [`canopy_crowd::MAX_ARENA_SIZE`] units): larger crowds run, but their
//!   checkpoints are refused on restart until those limits are raised.
//! - A shard keeps no trails and draws no pictures ([`canopy_crowd::Crowd`]
//!   does).
//!
//! # Figures and a model of 10M agents on 16 machines
//!
//! Measured with `crowd_mpi --steps 20` (tick mode, seed 1, rayon at one
//! thread per rank: `mpirun -x RAYON_NUM_THREADS=1 --mca
//! mpi_yield_when_idle 1`), release build, on a 2-core virtual machine
//! that other jobs shared (load average 9 to 10 throughout): the times are
//! wall-clock under that contention, the slowest rank's, means over the 20
//! steps. The hash after step 20 was the same on 1, 2 and 4 ranks.
//!
//! | agents | ranks | tree | movement | halo | migration | sent / step | migrated / step | imbalance |
//! |---|---|---|---|---|---|---|---|---|
//! | 500,000 | 1 | 85 ms | 284 ms | 15 ms | 3 ms | 0 | 0 | 1.000 |
//! | 1,000,000 | 1 | 154 ms | 463 ms | 25 ms | 6 ms | 0 | 0 | 1.000 |
//! | 1,000,000 | 2 | 196 ms | 594 ms | 220 ms | 182 ms | 63 KB | 25.6 | 1.000 |
//! | 1,000,000 | 4 (oversubscribed: correctness only) | 268 ms | 755 ms | 167 ms | 147 ms | 193 KB | 74.1 | 1.002 |
//!
//! Wall-clock on this machine says little about scaling: one rank got a
//! third of a core, and the same run took 0.6 s or 1.1 s a step minutes
//! apart. Processor time says more. Over 40 steps of 1M agents, set-up
//! included (`/usr/bin/time` around each rank, twice): one rank used
//! 18.8 s; each of two ranks used 12.8 to 13.5 s. The work per rank fell
//! by 30 %, not 50 %: about 2 s per rank is system time (MPI's waits,
//! yielding the processor while the other rank works), each rank makes
//! the whole crowd at set-up, and the halo and migration add their part.
//! Weak scaling (500,000 agents per rank) could not be told apart from
//! the machine's contention. One core does a step of the crowd at about
//! 0.45 µs of processor time per agent. A halo record is 24 bytes, a
//! migrant 121 (a 53-byte walker record, a length and canopy's 64-byte
//! snapshot of the crowd tree's agent); one strip boundary of the 1M
//! crowd (817 columns, about 1,225 agents in a column) carries about
//! 60 KB per step both ways, and 25 to 30 agents cross it per step.
//!
//! **A model of 10M agents on 16 machines**, one rank per machine. It
//! assumes the default density (6 units² per agent, spread evenly), the
//! processor time per agent measured above, divided over `c` cores by
//! rayon, and migration and load checks at the rates measured above.
//!
//! - The arena is 7,746 units wide: 2,582 columns of about 3,870 agents.
//!   A rank owns 625,000 agents in a strip 161 columns wide.
//! - Compute: 625,000 × 0.45 µs = 0.28 s per step on one core, about
//!   0.28 / `c` s on `c` cores, times the imbalance (at most the
//!   rebalancing threshold, 1.1 by default).
//! - Traffic per rank and step, sent (and as much received): halo, two
//!   border columns × 3,870 agents × 24 B = 186 KB; migrants, about 2 %
//!   of a border column crossing a boundary per step (both ways, as
//!   measured), about 80 sent per rank, 10 KB; the load check every 10
//!   steps, 2,582 × 8 B to each of 15 ranks, 31 KB per step on average.
//!   About 230 KB per step: at 10 steps per second (the crowd's 0.1 s
//!   step in real time), 2.3 MB/s, 2 % of a gigabit link. The two
//!   exchanges per step (migration, halo; each two MPI collectives) cost
//!   latency well below a millisecond each on such a link.
//! - So the step is compute-bound: about 20 ms on 16 cores a machine
//!   (plus the grid's sequential counting sort), real time with room to
//!   spare. What does not scale is set-up (every rank makes the whole 10M
//!   crowd from the seed, about 20 s and a few GB each) and the hash check
//!   (about 570 MB gathered to rank 0); the load check is an all-to-all
//!   that a reduction would replace beyond a few dozen ranks.
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
mod setup;
mod shard;
mod strips;
mod transport;
mod wire;

pub use checkpoint::{CHECKPOINT_VERSION, MAX_CHECKPOINT_BYTES};
#[cfg(feature = "mpi")]
pub use mpi_transport::MpiTransport;
pub use shard::{Balance, Shard, ShardError, StepReport};
pub use strips::Strips;
pub use transport::{DEFAULT_EXCHANGE_TIMEOUT, Mesh, MeshRank, Transport, TransportError};
pub use wire::{
    Expect, HALO_BYTES, HEADER_BYTES, Kind, MAX_SNAPSHOT_BYTES, Problem, Reader, WALKER_BYTES,
    WIRE_VERSION, WireError, Writer,
};
