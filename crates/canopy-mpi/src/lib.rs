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
//! write and resume checkpoints. At the end it prints the medians, with
//! the slowest rank's whole step and the bytes a rank sent. `.ci/mpi.sh`
//! runs the checks CI needs; `scripts/netns-mpi.sh` runs the ranks over a
//! simulated network (below).
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
//! - Setting up, every rank draws the positions of a share of the agents
//!   and builds the walkers and behaviour runtimes of its own strip only,
//!   numbered as one process numbers them; the exchanges that share the
//!   numbering include one row histogram per rank, summed on every rank,
//!   which beyond a few dozen ranks would be sent to each rank as its
//!   own sums instead. A restart reads every part's header and, in full,
//!   only the parts whose strip overlaps the rank's own.
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
//! Measured on a 2-core virtual machine that other jobs shared (load
//! average 10 to 12 throughout), release build, tick mode, seed 1, 30
//! steps, rayon at one thread per rank, each rank under `/usr/bin/time`:
//!
//! ```text
//! cargo build --release -p canopy-mpi --features mpi --example crowd_mpi
//! mpirun --allow-run-as-root --oversubscribe -n RANKS -x RAYON_NUM_THREADS=1 \
//!     --mca mpi_yield_when_idle 1 /usr/bin/time -f "user %U s, system %S s, max rss %M KB" \
//!     target/release/examples/crowd_mpi --agents AGENTS --steps 30 --print-every 0
//! ```
//!
//! The phase times are medians over the 30 steps of the slowest rank's
//! wall-clock time in that phase (a phase includes waiting for the other
//! ranks at its exchange); processor time is each rank's, set-up
//! included.
//!
//! | agents | ranks | tree | movement | halo | migration | sent / step | migrated / step | processor time per rank | peak memory per rank |
//! |---|---|---|---|---|---|---|---|---|---|
//! | 500,000 | 1 | 117 ms | 533 ms | 12 ms | 2 ms | 0 | 0 | 6.4 s | 156 MB |
//! | 500,000 | 2 | 92 ms | 399 ms | 85 ms | 89 ms | 43 KB | 11.9 | 4.1 s, 4.0 s | 140 MB, 144 MB |
//! | 1,000,000 | 1 | 199 ms | 809 ms | 9 ms | 9 ms | 0 | 0 | 13.0 s | 299 MB |
//! | 1,000,000 | 2 | 260 ms | 971 ms | 165 ms | 357 ms | 62 KB | 24.7 | 8.3 s, 8.1 s | 266 MB, 241 MB |
//!
//! (The crowd did not yet count visitors at its places when this table
//! was made: its `sent` column has halo and migrants only. The traffic
//! of today's step is measured below, on 4 and 16 ranks.)
//!
//! A second set of the same runs (load average 14 to 15, with
//! `--hash-every 30`) gave processor times within 4 % of these, and the
//! same hash after step 30 on 1 and 2 ranks (`0x4ad874db8fe0c6d9` for
//! 1,000,000 agents, `0x0cb6204ea8e0bd7d` for 500,000, with the crowd's
//! current avoidance and neighbour order).
//!
//! - **Strong scaling** (the same crowd on 1 and 2 ranks): each of two
//!   ranks used 63 % of the one rank's processor time, at 500,000 and at
//!   1,000,000 agents: the halo, migration and the exchanges' waits
//!   (about 1.1 s of system time per rank against 0.25 s alone) take the
//!   rest. Wall-clock did not fall: the two ranks did not get two cores
//!   (a step took as long on 2 ranks as on 1 at 500,000 agents, longer at
//!   1,000,000), and the halo and migration phases above are mostly one
//!   rank waiting for the other, which was off the processor.
//! - **Weak scaling** (500,000 agents per rank: 1 rank with 500,000
//!   against 2 with 1,000,000): processor time per rank grew from 6.4 s to
//!   8.3 s (30 % more for the same agents: the halo, migration and
//!   waits);
//!   wall-clock per step from 0.66 s to 1.75 s, which on this machine
//!   measures the contention more than the program.
//! - **Set-up**, each rank drawing a share of the positions and building
//!   only its strip (`--agents 1000000 --steps 1` on 2 ranks): 1.3 s,
//!   0.8 s of processor time and 214 MB per rank, where making the whole
//!   crowd on every rank took 3.9 s, 1.3 s and 326 MB per rank.
//!
//! One core does a step of the crowd at about 0.43 µs of processor time
//! per agent. A halo record is 24 bytes, a migrant 121 (a 53-byte walker
//! record, a length and canopy's 64-byte snapshot of the crowd tree's
//! agent), a visitor count 8 (the place's index and the count; a rank
//! sends only its counts that are not zero). One strip boundary of the 1M
//! crowd (817 columns, about 1,225 agents in a column) carries 29 KB of
//! halo each way per step, and 25 to 30 agents cross it per step.
//!
//! ## On a simulated network
//!
//! `scripts/netns-mpi.sh` runs each rank in a network namespace of its
//! own on one machine: the namespaces are joined through a hub namespace
//! by veth pairs of 1 Gbit/s (`tbf` on both ends) with a one-way delay
//! between ranks, `mpirun` treats each namespace as a host, and the ranks
//! speak OpenMPI over TCP between the namespaces (`--mca btl tcp,self`,
//! `btl_tcp_if_include` the veth). The script removes everything it made
//! on exit, failed or not. The kernel these figures were taken on has no
//! `tc netem`: the delay comes from a delay line in the hub (packets routed
//! into a tun device, held, written back, by `scripts/delay-line.py` at
//! real-time priority), which gives a fixed delay and no jitter, loss or
//! reordering (netem's other effects, not simulated here). The script
//! measures the TCP round trip between two ranks' namespaces before each
//! run: 0.02 ms without delay, 0.49 to 0.56 ms with 0.2 ms, 2.2 ms with
//! 1 ms.
//!
//! ```text
//! scripts/netns-mpi.sh --agents 1000000 --steps 15 --delays "0 0.2 1"
//! ```
//!
//! 1,000,000 agents on 4 ranks, one thread each, on a 2-core virtual
//! machine that other jobs shared (load average 15); medians over 15
//! steps of the slowest rank; "step" is the slowest rank's whole step,
//! the phases include waiting for the other ranks at their exchanges:
//!
//! | one-way delay | step | tree | movement | halo | migration | sent per rank and step (the most) | migrated / step |
//! |---|---|---|---|---|---|---|---|
//! | none | 1,658 ms | 260 ms | 1,010 ms | 109 ms | 425 ms | 86 KB (110 KB) | 51 |
//! | 0.2 ms | 1,540 ms | 240 ms | 927 ms | 98 ms | 392 ms | 86 KB (110 KB) | 51 |
//! | 1 ms | 1,751 ms | 280 ms | 1,051 ms | 101 ms | 452 ms | 86 KB (110 KB) | 51 |
//!
//! - **The delay is lost in the computing.** The step changed by less
//!   than runs differ from each other on this machine (±7 %); the halo and
//!   migration phases here are mostly ranks waiting for ranks that were
//!   off the processor (4 ranks on 2 cores), and migration includes
//!   counting the rank's visitors and the load. A later pair of runs on a
//!   quieter machine (load average 8, 10 steps, `--delays "0 1"`) gave
//!   968 ms without delay and 1,206 ms at 1 ms, with the same bytes: of
//!   the difference, about 6 ms is latency (below), the rest the machine.
//! - **What a step costs in latency**, measured on a crowd too small to
//!   compute much (`--agents 2000 --steps 100 --delays "0 0.2 1"`, two
//!   runs each, side by side): the step grew from 1.1 ms without delay to
//!   3.3–4.3 ms at 0.2 ms and 7.0–7.1 ms at 1 ms: about 6 one-way
//!   latencies a step. A step has two exchanges (migration, with the
//!   visitor counts ahead of the migrants; halo; the load check every
//!   10th step adds a third), each two latencies (the announcements cross,
//!   then the bytes), and the example gathers every step's report to rank
//!   0 between steps. With the visitor counts in an exchange of their own
//!   the same runs gave 10.9–15.1 ms at 1 ms (1.2–1.5 ms without delay).
//!   At 2 ms steps grow more than in proportion: an exchange that waits
//!   past 2 ms polls in sleeps of up to 0.8 ms. On the 1M crowd the
//!   latency is under 1 % of the step.
//! - **Bytes per rank and step**, the same on every delay: 86 KB on
//!   average, 110 KB the most (a middle strip): 29 KB of halo to each
//!   neighbour, about 14 KB of visitor counts to each other rank (some
//!   1,700 of the 6,500 counts of 3,250 places are not zero on a rank),
//!   and 1.5 KB of migrants. Sent whole, the counts made it 202 KB (217
//!   the most). On 16 ranks (plain `mpirun -n 16`, same crowd, 3 steps)
//!   116 KB on average, 139 KB the most: the halo is the same per strip,
//!   and each rank's counts not zero are fewer (about 500) but go to 15
//!   ranks.
//! - **The transport**: an exchange sends its bytes point to point
//!   between the ranks that announced some for each other, two latencies
//!   whatever the rank count. `MPI_Alltoallv` costs n − 1 latencies in
//!   sequence when OpenMPI runs it pairwise: forced so (`--mpirun "--mca
//!   coll_tuned_use_dynamic_rules 1 --mca coll_tuned_alltoallv_algorithm
//!   2"`) on 4 ranks and a 1 ms link, a halo exchange took 11 ms against
//!   2.7 ms in one linear round. On 4 ranks the point-to-point exchange
//!   and the collective as OpenMPI chose to run it came out the same
//!   within the machine's noise (step 8.3–9.9 ms against 10.6–12.5 ms at
//!   1 ms, 3.6–4.1 against 3.1–3.4 at 0.2 ms, 2,000 agents).
//!
//! **A model of 10M agents on 16 machines**, one rank per machine. It
//! assumes the default density (6 units² per agent, spread evenly), the
//! processor time per agent measured above, divided over `c` cores by
//! rayon, and migration and load checks at the rates measured above.
//!
//! - The arena is 7,746 units wide: 2,582 columns of about 3,870 agents.
//!   A rank owns 625,000 agents in a strip 161 columns wide.
//! - Compute: 625,000 × 0.43 µs = 0.27 s per step on one core, about
//!   0.27 / `c` s on `c` cores, times the imbalance (at most the
//!   rebalancing threshold, 1.1 by default).
//! - Traffic per rank and step, sent (and as much received): halo, two
//!   border columns × 3,870 agents × 24 B = 186 KB; migrants, about 2 %
//!   of a border column crossing a boundary per step (both ways, as
//!   measured), about 80 sent per rank, 10 KB; the load check every 10
//!   steps, 2,582 × 8 B to each of 15 ranks, 31 KB per step on average;
//!   and the visitor counts, the largest part: the world has
//!   32,500 places (20,000 food patches, 12,500 rest areas), 65,000
//!   counts. Sent whole they would be 520 KB to each of 15 ranks, 7.8 MB
//!   per rank and step, 62 ms of a gigabit link: three times the step's
//!   computing, and the step network-bound. Sent only where not zero, a
//!   rank's counts cover the places of its strip and a margin around it
//!   (measured above: 26 % of the counts on 4 strips of the 1M crowd, 7.7 %
//!   on 16; a margin of about 36 units): about 6.7 % of 65,000, 35 KB to
//!   each of 15 ranks, 525 KB. About 750 KB per step in all, 6 ms of a
//!   gigabit link; at 10 steps per second (the crowd's 0.1 s step in real
//!   time), 7.5 MB/s, 6 % of the link. The counts are the largest part
//!   and do not shrink as ranks are added (each rank's share shrinks, the
//!   number of ranks it sends to grows): beyond this size, a count should
//!   go only to the ranks whose agents can read it.
//! - Latency: an exchange costs two one-way latencies, a step two
//!   exchanges (migration with the visitor counts, halo), so at least 4
//!   latencies a step: 0.8 ms on a 0.2 ms link, 4 ms on a 1 ms link, and
//!   about 6 where the steps are gathered as the example does. Against
//!   20 ms of computing that is 4 % and 20 %: the step stays
//!   compute-bound, and overlapping the halo exchange with the interior's
//!   sensing (which would hide two of the four latencies) is not done.
//!   With `MPI_Alltoallv` in pairwise rounds it would have been 2 × 15
//!   latencies, 30 ms a step on a 1 ms link: latency-bound; hence the
//!   point-to-point exchange.
//! - So the step is compute-bound: about 20 ms on 16 cores a machine
//!   (plus the grid's sequential counting sort) and 1 to 4 ms of latency,
//!   real time with room to spare. Set-up is each rank's share: 625,000
//!   agents drawn and built, 2.5 MB of ids sent, and the row histograms of
//!   the 16 strips (330 KB) sent to each of the 15 other ranks to be
//!   summed. The set-up of 10,000,000 agents on 16 ranks oversubscribed on
//!   2 cores took 36 s (its steps were too slow there to measure).
//!   What does not scale is the hash check (about 570 MB gathered to
//!   rank 0); the load check is an all-to-all that a reduction would
//!   replace beyond a few dozen ranks.
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
