//! One rank's part of the crowd: [`Shard`].

use std::fmt;
use std::time::{Duration, Instant};

use canopy_core::{Agent, Tree};
use canopy_crowd::{Config, Motion, Walker, World, state_hash_of};
use rayon::prelude::*;

use crate::setup::{self, Entry};
use crate::strips::Strips;
use crate::transport::{Transport, TransportError};
use crate::wire::{Expect, Kind, Problem, Reader, WireError, Writer};

/// When to cut the strips again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Balance {
    /// Steps between checks of the load (0: never).
    pub every: u32,
    /// Cut again when the busiest rank holds more than this many times the
    /// mean load.
    pub above: f64,
}

impl Default for Balance {
    fn default() -> Self {
        Balance {
            every: 10,
            above: 1.1,
        }
    }
}

/// Why a rank could not go on.
#[derive(Debug)]
pub enum ShardError {
    /// The transport failed.
    Transport {
        /// The rank reporting it.
        rank: usize,
        /// What failed.
        error: TransportError,
    },
    /// Another rank sent nothing within the transport's timeout: it died,
    /// hangs, or cannot be reached, and this rank ends the run.
    Silent {
        /// The rank reporting it.
        rank: usize,
        /// The rank it waited for.
        from: usize,
        /// The step whose message did not come.
        step: u32,
        /// Milliseconds waited.
        ms: u64,
    },
    /// A message from another rank could not be read.
    Message {
        /// The rank reporting it.
        rank: usize,
        /// The message's problem.
        error: WireError,
    },
    /// A checkpoint could not be written or read.
    Checkpoint {
        /// The rank reporting it.
        rank: usize,
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// Gathered agents are not the crowd: some missing or doubled.
    Census {
        /// The rank reporting it.
        rank: usize,
        /// The first agent id missing or doubled.
        id: u32,
    },
    /// Memory for the crowd could not be had.
    OutOfMemory {
        /// The rank reporting it.
        rank: usize,
    },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Transport { rank, error } => write!(f, "rank {rank}: {error}"),
            ShardError::Silent {
                rank,
                from,
                step,
                ms,
            } => write!(
                f,
                "rank {rank}: no message from rank {from} for step {step} within {ms} ms; ending the run"
            ),
            ShardError::Message { rank, error } => write!(f, "rank {rank}: {error}"),
            ShardError::Checkpoint {
                rank,
                path,
                problem,
            } => write!(f, "rank {rank}: checkpoint {}: {problem}", path.display()),
            ShardError::Census { rank, id } => write!(
                f,
                "rank {rank}: the ranks' agents are not the crowd: agent {id} is missing or held twice"
            ),
            ShardError::OutOfMemory { rank } => {
                write!(f, "rank {rank}: no memory for the crowd")
            }
        }
    }
}

impl std::error::Error for ShardError {}

impl ShardError {
    /// `error`, met by `rank` in an exchange for `step`: a timeout becomes
    /// [`ShardError::Silent`], naming the step; anything else
    /// [`ShardError::Transport`]. For a program's own exchanges beside the
    /// shard's (the example's gathering of step reports).
    pub fn from_transport(rank: usize, step: u32, error: TransportError) -> ShardError {
        match error {
            TransportError::Timeout { from, ms } => ShardError::Silent {
                rank,
                from,
                step,
                ms,
            },
            error => ShardError::Transport { rank, error },
        }
    }
}

/// What one step cost one rank.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Ticking the owned agents' trees.
    pub tree: Duration,
    /// Movement, the world's advance, the grid and perception.
    pub movement: Duration,
    /// Load check, rebalancing and migration.
    pub migration: Duration,
    /// The halo exchange.
    pub halo: Duration,
    /// Bytes this rank sent to other ranks.
    pub bytes_sent: u64,
    /// Agents this rank sent away.
    pub migrated: u64,
    /// Agents this rank owns after the step.
    pub owned: u64,
    /// Whether the strips were cut again this step.
    pub rebalanced: bool,
}

/// One rank's part of a crowd, and the step that keeps it equal to the
/// whole crowd's.
///
/// A shard holds the agents it owns (walker and canopy runtime), in id
/// order, followed by read-only copies of the agents in the columns beside
/// its strip (their bodies only), each sender's in id order. The order is
/// what makes the part behave like the whole: the neighbour grid lists the
/// agents of a cell in the order of their index in the list, and a cell
/// holds owned agents only (inside the strip) or copies from one sender
/// only (a column beside the strip has one owner), so every cell lists its
/// agents in id order, as the single-process grid does (where index and id
/// are one). Perception keeps the same nearest neighbours, ties broken the
/// same way, and hands avoidance the same neighbours in the same order:
/// every float comes out the same, without changing the crowd's step.
/// Copies at the end cost nothing to drop (a truncation) or to add (an
/// append); only arriving migrants are merged into the owned agents.
///
/// A step: owned agents tick; every walker in the list moves (a halo copy
/// moves too, with no intent, and is thrown away: cheaper than a second
/// list and a second movement code path); the world advances; the copies
/// are dropped; every so often the column loads are summed over the ranks
/// and the strips cut again if the imbalance passed its threshold; agents
/// outside their rank's strip migrate (walker plus canopy snapshot), in
/// messages that start with the sending rank's visitor counts; each
/// rank sends the bodies in its border columns to its neighbours; the
/// grid is rebuilt over owned agents and copies, and every agent senses.
pub struct Shard {
    rank: usize,
    tree: Tree<Walker, World>,
    world: World,
    config: Config,
    total: u32,
    /// Agent ids: the owned agents' ascending, then the halo copies'.
    ids: Vec<u32>,
    /// Walkers, in the order of `ids`.
    walkers: Vec<Walker>,
    /// The owned agents' runtimes, in the order of `ids`.
    agents: Vec<Agent>,
    motion: Motion,
    strips: Strips,
    balance: Balance,
}

impl fmt::Debug for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shard")
            .field("rank", &self.rank)
            .field("step", &self.world.step)
            .field("owned", &self.owned())
            .field("strips", &self.strips)
            .finish_non_exhaustive()
    }
}

impl Shard {
    /// This rank's part of `Crowd::new(tree, config)`: the strips are cut
    /// by the crowd's load, and the rank builds the agents of its strip
    /// only, each as the whole crowd would have it (its id, its walker,
    /// its runtime); then the halos are exchanged. The ranks share the
    /// drawing of positions and the numbering (see the `setup` module).
    /// Collective.
    pub fn new(
        tree: Tree<Walker, World>,
        config: &Config,
        balance: Balance,
        t: &mut impl Transport,
    ) -> Result<Shard, ShardError> {
        let rank = t.rank();
        let config = config.resolved();
        let (world, tree) =
            setup::empty_world(tree, &config).map_err(|_| ShardError::OutOfMemory { rank })?;
        let (strips, owned) =
            setup::rank_part(&config, &world, &tree, t).map_err(|failure| match failure {
                setup::Failure::Transport(e) => ShardError::from_transport(rank, 0, e),
                setup::Failure::Stray(id) => ShardError::Census { rank, id },
            })?;
        Shard::assemble(tree, world, config, strips, balance, owned, t)
    }

    /// A shard of `owned` agents under `strips`; exchanges the halos.
    pub(crate) fn assemble(
        tree: Tree<Walker, World>,
        world: World,
        config: Config,
        strips: Strips,
        balance: Balance,
        owned: Vec<Entry>,
        t: &mut impl Transport,
    ) -> Result<Shard, ShardError> {
        let mut shard = Shard {
            rank: t.rank(),
            tree,
            world,
            total: config.agents as u32,
            config,
            ids: Vec::new(),
            walkers: Vec::new(),
            agents: Vec::new(),
            motion: Motion::default(),
            strips,
            balance,
        };
        shard.merge(owned)?;
        shard.count_visitors(t, &mut 0)?;
        shard.exchange_halo(t)?;
        shard.world.grid.rebuild(&shard.walkers);
        shard.motion.sense(&mut shard.walkers, &shard.world);
        Ok(shard)
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The world as this rank sees it (the same on every rank but for the
    /// grid, which holds this rank's agents and copies).
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The crowd's configuration, its defaults resolved.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The tree every agent runs.
    pub fn tree(&self) -> &Tree<Walker, World> {
        &self.tree
    }

    /// The current strips.
    pub fn strips(&self) -> &Strips {
        &self.strips
    }

    /// Agents this rank owns.
    pub fn owned(&self) -> usize {
        self.agents.len()
    }

    /// Halo copies this rank holds.
    pub fn copies(&self) -> usize {
        self.walkers.len() - self.owned()
    }

    /// The owned agents: id, walker and runtime, in id order.
    pub fn owned_agents(&self) -> impl Iterator<Item = (u32, &Walker, &Agent)> {
        (self.ids.iter().zip(&self.walkers).zip(&self.agents)).map(|((&id, w), a)| (id, w, a))
    }

    /// One step of the whole crowd, this rank's part of it. Collective:
    /// every rank calls it.
    pub fn step(&mut self, t: &mut impl Transport) -> Result<StepReport, ShardError> {
        let start = Instant::now();
        let (tree, world) = (&self.tree, &self.world);
        self.agents
            .par_iter_mut()
            .zip(self.walkers.par_iter_mut())
            .for_each(|(agent, walker)| {
                walker.intent = glam::Vec2::ZERO;
                agent.tick(tree, walker, world);
            });
        let ticked = Instant::now();
        self.motion.move_walkers(&mut self.walkers, &self.world);
        self.world.advance();
        let moved = Instant::now();
        let mut report = StepReport::default();
        self.drop_copies();
        // Counted before migration, summed over the ranks in its exchange:
        // the same agents, one exchange fewer.
        let counts = self.world.visitor_counts(&self.walkers);
        report.rebalanced = self.check_balance(t, &mut report)?;
        self.migrate(t, &mut report, counts)?;
        let migrated = Instant::now();
        report.bytes_sent += self.exchange_halo(t)?;
        let exchanged = Instant::now();
        self.world.grid.rebuild(&self.walkers);
        self.motion.sense(&mut self.walkers, &self.world);
        report.tree = ticked - start;
        report.movement = (moved - ticked) + exchanged.elapsed();
        report.migration = migrated - moved;
        report.halo = exchanged - migrated;
        report.owned = self.owned() as u64;
        Ok(report)
    }

    /// Who is bound for each food patch and rest area, and who is within
    /// its reach, over the whole crowd: each rank counts its own agents
    /// (no copies), the counts are summed over the ranks, and every rank's
    /// world takes the sums — the counts one process would make
    /// (`World::count_visitors`). Adds the bytes sent to `sent`. At
    /// set-up; a step sends its counts ahead of the migrants instead
    /// (`migrate`), one exchange fewer.
    ///
    /// Each rank sends only its counts that are not zero ([`sparse`]): its
    /// agents are bound for and near the places around its strip, a small
    /// share of the world's. Sent whole, the counts were the largest part
    /// of the traffic: 16 bytes a place to every other rank, 156 KB per
    /// rank and step of the 1,000,000-agent crowd on 4 ranks (3,250
    /// places) against 44 KB of halo, and 7.8 MB for 10,000,000 agents on
    /// 16 ranks.
    fn count_visitors(&mut self, t: &mut impl Transport, sent: &mut u64) -> Result<(), ShardError> {
        let owned = self.owned();
        let mut counts = self.world.visitor_counts(&self.walkers[..owned]);
        let mine = sparse(&counts);
        let out: Vec<Vec<u8>> = (0..t.size())
            .map(|to| {
                if to == self.rank {
                    Vec::new()
                } else {
                    mine.clone()
                }
            })
            .collect();
        *sent += (mine.len() * (t.size() - 1)) as u64;
        let incoming = t.exchange(out).map_err(|e| self.transport(e))?;
        for (from, bytes) in incoming.iter().enumerate() {
            if from != self.rank && !add_sparse(&mut counts, bytes) {
                return Err(self.transport(TransportError::Garbled { from }));
            }
        }
        if !self.world.set_visitor_counts(&counts) {
            return Err(self.transport(TransportError::Garbled { from: self.rank }));
        }
        Ok(())
    }

    /// Every `balance.every` steps: sum the columns' loads over the ranks
    /// and cut the strips again if the busiest rank is past the threshold.
    fn check_balance(
        &mut self,
        t: &mut impl Transport,
        report: &mut StepReport,
    ) -> Result<bool, ShardError> {
        let every = self.balance.every;
        if every == 0 || !self.world.step.is_multiple_of(every) {
            return Ok(false);
        }
        let mut load = vec![0u64; self.strips.columns()];
        for w in &self.walkers {
            load[self.world.grid.column(w.pos.x)] += 1;
        }
        report.bytes_sent += (load.len() * 8 * (t.size() - 1)) as u64;
        let load = t.sum(&load).map_err(|e| self.transport(e))?;
        if Strips::imbalance(&self.strips.loads(&load)) <= self.balance.above {
            return Ok(false);
        }
        self.strips = Strips::balanced(&load, t.size());
        Ok(true)
    }

    /// Send every owned agent outside this rank's strip to its owner, with
    /// its behaviour; take in those sent here. Each message to another
    /// rank starts with this rank's visitor counts `counts` ([`sparse`],
    /// after their length in 4 bytes), so that the sums over the ranks,
    /// which every rank's world takes, need no exchange of their own.
    fn migrate(
        &mut self,
        t: &mut impl Transport,
        report: &mut StepReport,
        mut counts: Vec<u64>,
    ) -> Result<(), ShardError> {
        let step = self.world.step;
        let mut out: Vec<Writer> = (0..t.size())
            .map(|_| Writer::new(Kind::Migrants, self.rank, step))
            .collect();
        let (grid, strips) = (&self.world.grid, &self.strips);
        // An owned agent's strip is never empty, so leaving it is the
        // whole test (no search of the strips for the agents that stay).
        let mine = strips.strip(self.rank);
        let leaving: Vec<bool> = (self.walkers.iter())
            .map(|w| !mine.contains(&grid.column(w.pos.x)))
            .collect();
        for k in (0..leaving.len()).filter(|&k| leaving[k]) {
            let (w, agent) = (&self.walkers[k], &self.agents[k]);
            let to = strips.owner(grid.column(w.pos.x));
            out[to].migrant(self.ids[k], w, &agent.snapshot(&self.tree).to_bytes());
            report.migrated += 1;
        }
        if report.migrated > 0 {
            self.retain(|k| !leaving[k]);
        }
        let tally = sparse(&counts);
        let mut prefix = (tally.len() as u32).to_le_bytes().to_vec();
        prefix.extend_from_slice(&tally);
        let incoming = self.send(out, &prefix, t, &mut report.bytes_sent)?;
        let damaged = |from| {
            self.message(WireError {
                from,
                problem: Problem::VisitorCounts,
            })
        };
        let mut parts = Vec::with_capacity(incoming.len());
        for (from, bytes) in incoming.iter().enumerate() {
            if from == self.rank {
                continue;
            }
            let (tally, rest) = split_counts(bytes).ok_or_else(|| damaged(from))?;
            if !add_sparse(&mut counts, tally) {
                return Err(damaged(from));
            }
            parts.push((from, rest));
        }
        if !self.world.set_visitor_counts(&counts) {
            return Err(self.transport(TransportError::Garbled { from: self.rank }));
        }
        let mut arriving = Vec::new();
        for (from, bytes) in parts {
            if bytes.is_empty() {
                continue;
            }
            let mut r = Reader::new(bytes, Kind::Migrants, self.expect(from))
                .map_err(|e| self.message(e))?;
            while r.left() > 0 {
                let (id, w, agent) = r.migrant(&self.tree).map_err(|e| self.message(e))?;
                if self.strips.owner(self.world.grid.column(w.pos.x)) != self.rank {
                    return Err(self.misplaced(from, id));
                }
                arriving.push((id, w, agent));
            }
            r.finish().map_err(|e| self.message(e))?;
        }
        self.merge(arriving)
    }

    /// Send the bodies in this strip's border columns to the ranks beside
    /// it, take in theirs, and hold them as copies. Returns bytes sent.
    fn exchange_halo(&mut self, t: &mut impl Transport) -> Result<u64, ShardError> {
        let step = self.world.step;
        let mut out: Vec<Writer> = (0..t.size())
            .map(|_| Writer::new(Kind::Halo, self.rank, step))
            .collect();
        self.drop_copies();
        let mine = self.strips.strip(self.rank);
        for (&id, w) in self.ids.iter().zip(&self.walkers) {
            // Only the strip's first and last columns border other strips.
            let column = self.world.grid.column(w.pos.x);
            if column != mine.start && column + 1 != mine.end {
                continue;
            }
            for to in self.strips.halo_ranks(column) {
                out[to].halo(id, w);
            }
        }
        let mut sent = 0;
        let incoming = self.send(out, &[], t, &mut sent)?;
        let mut copies = Vec::new();
        for (from, bytes) in incoming.iter().enumerate() {
            if bytes.is_empty() {
                continue;
            }
            let mut r =
                Reader::new(bytes, Kind::Halo, self.expect(from)).map_err(|e| self.message(e))?;
            let mut last = None;
            while r.left() > 0 {
                let (id, w) = r.halo().map_err(|e| self.message(e))?;
                let column = self.world.grid.column(w.pos.x);
                let beside = column + 1 == mine.start || column == mine.end;
                if mine.is_empty() || !beside {
                    return Err(self.misplaced(from, id));
                }
                if last.is_some_and(|last| last >= id) {
                    return Err(self.message(WireError {
                        from,
                        problem: Problem::Unordered(id),
                    }));
                }
                last = Some(id);
                copies.push((id, w));
            }
            r.finish().map_err(|e| self.message(e))?;
        }
        for (id, w) in copies {
            self.ids.push(id);
            self.walkers.push(w);
        }
        Ok(sent)
    }

    /// Send one message per rank (none to itself), each `prefix` then the
    /// writer's message if it holds any records (an empty message when
    /// neither has bytes), adding the bytes to `sent`.
    fn send(
        &self,
        out: Vec<Writer>,
        prefix: &[u8],
        t: &mut impl Transport,
        sent: &mut u64,
    ) -> Result<Vec<Vec<u8>>, ShardError> {
        let out: Vec<Vec<u8>> = (out.into_iter().enumerate())
            .map(|(to, w)| {
                let mut bytes = Vec::new();
                if to != self.rank {
                    bytes.extend_from_slice(prefix);
                    if w.count() > 0 {
                        bytes.extend(w.finish());
                    }
                }
                bytes
            })
            .collect();
        *sent += out.iter().map(|b| b.len() as u64).sum::<u64>();
        t.exchange(out).map_err(|e| self.transport(e))
    }

    /// Throw the halo copies away: they are the list's tail.
    fn drop_copies(&mut self) {
        self.ids.truncate(self.agents.len());
        self.walkers.truncate(self.agents.len());
    }

    /// Keep the owned agents `k` for which `keep(k)` holds, in order.
    /// The copies must have been dropped.
    fn retain(&mut self, keep: impl Fn(usize) -> bool) {
        let mut k = 0;
        self.ids.retain(|_| {
            k += 1;
            keep(k - 1)
        });
        k = 0;
        self.walkers.retain(|_| {
            k += 1;
            keep(k - 1)
        });
        k = 0;
        self.agents.retain(|_| {
            k += 1;
            keep(k - 1)
        });
    }

    /// Merge `entries` into the owned agents, keeping them in id order:
    /// they are already sorted, so only the few new entries are sorted, and
    /// one pass merges the two. An id held twice is an error. The copies
    /// must have been dropped.
    fn merge(&mut self, mut entries: Vec<Entry>) -> Result<(), ShardError> {
        if entries.is_empty() {
            return Ok(());
        }
        entries.sort_unstable_by_key(|e| e.0);
        let n = self.ids.len() + entries.len();
        let old = (
            std::mem::replace(&mut self.ids, Vec::with_capacity(n)),
            std::mem::replace(&mut self.walkers, Vec::with_capacity(n)),
            std::mem::replace(&mut self.agents, Vec::with_capacity(n)),
        );
        let mut old = old.0.into_iter().zip(old.1).zip(old.2).peekable();
        let mut new = entries.into_iter().peekable();
        let mut last = None;
        loop {
            let take_old = match (old.peek(), new.peek()) {
                (Some(((a, _), _)), Some((b, _, _))) => a < b,
                (held, _) => held.is_some(),
            };
            let next = if take_old {
                old.next().map(|((id, w), a)| (id, w, a))
            } else {
                new.next()
            };
            let Some((id, w, a)) = next else { break };
            if last == Some(id) {
                return Err(ShardError::Census {
                    rank: self.rank,
                    id,
                });
            }
            last = Some(id);
            self.ids.push(id);
            self.walkers.push(w);
            self.agents.push(a);
        }
        Ok(())
    }

    /// The whole crowd's [`canopy_crowd::Crowd::state_hash`], on rank 0 (`None` on the
    /// others): every rank sends its owned agents' walkers and active-task
    /// counts, rank 0 orders them by id and hashes them as one crowd.
    /// Collective. Its cost grows with the crowd: a check, not a per-step
    /// cost of a production run.
    pub fn state_hash(&self, t: &mut impl Transport) -> Result<Option<u64>, ShardError> {
        let mut w = Writer::new(Kind::Hash, self.rank, self.world.step);
        for (id, walker, agent) in self.owned_agents() {
            w.hashed(id, walker, agent.active_tasks(&self.tree) as u32);
        }
        let Some(parts) = t.gather(w.finish()).map_err(|e| self.transport(e))? else {
            return Ok(None);
        };
        let mut all = Vec::with_capacity(self.total as usize);
        for (from, bytes) in parts.iter().enumerate() {
            let mut r =
                Reader::new(bytes, Kind::Hash, self.expect(from)).map_err(|e| self.message(e))?;
            while r.left() > 0 {
                all.push(r.hashed().map_err(|e| self.message(e))?);
            }
            r.finish().map_err(|e| self.message(e))?;
        }
        all.sort_unstable_by_key(|e| e.0);
        if let Some(id) = (0..self.total).find(|&id| all.get(id as usize).map(|e| e.0) != Some(id))
        {
            return Err(ShardError::Census {
                rank: self.rank,
                id,
            });
        }
        if all.len() != self.total as usize {
            return Err(ShardError::Census {
                rank: self.rank,
                id: self.total,
            });
        }
        Ok(Some(state_hash_of(
            self.world.step,
            &self.world.threats,
            all.iter().map(|e| &e.1),
            all.iter().map(|e| e.2),
        )))
    }

    pub(crate) fn expect(&self, from: usize) -> Expect<'_> {
        Expect {
            from,
            step: self.world.step,
            agents: self.total,
            world: &self.world,
        }
    }

    fn transport(&self, error: TransportError) -> ShardError {
        ShardError::from_transport(self.rank, self.world.step, error)
    }

    fn message(&self, error: WireError) -> ShardError {
        ShardError::Message {
            rank: self.rank,
            error,
        }
    }

    fn misplaced(&self, from: usize, id: u32) -> ShardError {
        self.message(WireError {
            from,
            problem: Problem::Misplaced(id),
        })
    }
}

/// The counts that are not zero, as records of a 4-byte index and a 4-byte
/// count (a count past `u32::MAX` is sent as `u32::MAX`; the world keeps
/// counts as `u32`), indices ascending.
fn sparse(counts: &[u64]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (k, &c) in counts.iter().enumerate().filter(|&(_, &c)| c != 0) {
        bytes.extend_from_slice(&(k as u32).to_le_bytes());
        bytes.extend_from_slice(&u32::try_from(c).unwrap_or(u32::MAX).to_le_bytes());
    }
    bytes
}

/// Add the records of [`sparse`] in `bytes` to `total`. False, and
/// `total` partly added to, when they are damaged: a length that is not a
/// whole number of records, an index past the counts, or indices not
/// ascending.
fn add_sparse(total: &mut [u64], bytes: &[u8]) -> bool {
    if !bytes.len().is_multiple_of(8) {
        return false;
    }
    let mut next = 0usize;
    for record in bytes.chunks_exact(8) {
        let word = |at: usize| {
            u32::from_le_bytes([record[at], record[at + 1], record[at + 2], record[at + 3]])
        };
        let k = word(0) as usize;
        match total.get_mut(k) {
            Some(t) if k >= next => *t = t.saturating_add(u64::from(word(4))),
            _ => return false,
        }
        next = k + 1;
    }
    true
}

/// The visitor counts that start a migration message (their length in 4
/// bytes, then [`sparse`] records) and the rest; `None` when it is too
/// short for them.
fn split_counts(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (length, rest) = bytes.split_first_chunk::<4>()?;
    let length = u32::from_le_bytes(*length) as usize;
    (length <= rest.len()).then(|| rest.split_at(length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_counts_sent_and_added_give_the_dense_sums() {
        let parts = [vec![0, 3, 0, 0, 7, 0], vec![1, 0, 0, 0, 2, 0], vec![0; 6]];
        let mut total = [0u64; 6];
        for part in &parts {
            assert!(add_sparse(&mut total, &sparse(part)));
        }
        assert_eq!(total, [1, 3, 0, 0, 9, 0]);
        assert_eq!(sparse(&parts[0]).len(), 16, "two records of 8 bytes");
        assert!(sparse(&parts[2]).is_empty());
    }

    #[test]
    fn damaged_sparse_counts_are_refused() {
        let good = sparse(&[0, 3, 0, 7]);
        let mut total = [0u64; 4];
        assert!(!add_sparse(&mut total, &good[..7]), "a cut record");
        assert!(!add_sparse(&mut [0u64; 3], &good), "an index past the end");
        let swapped = [&good[8..], &good[..8]].concat();
        assert!(
            !add_sparse(&mut [0u64; 4], &swapped),
            "indices not ascending"
        );
        let twice = [&good[..8], &good[..8]].concat();
        assert!(!add_sparse(&mut [0u64; 4], &twice), "an index twice");
    }
}
