//! Peers side by side: the reference tree run by canopy, by the naive
//! per-agent baseline and by bonsai-bt 0.14, in one process and one run.
//!
//! ```text
//! cargo run --release --example versus -- --agents 10000 --ticks 200
//! ```
//!
//! All three run the same leaf code ([`Leaf::run`] / `canopy_reference::leaves`)
//! on the same critters (`critters(n, 42, ..)`, a fresh crowd and meadow per
//! engine, `meadow.advance()` once per tick). Each engine is created and
//! warmed up for `ticks / 10` ticks, then the timed ticks are split into 5
//! rounds run interleaved (round r starts with engine r mod 3), so a noisy
//! machine hurts all engines alike; the median round is reported.
//!
//! - `ns_per_agent_tick`: median over the rounds of round time / (agents × ticks).
//! - `bytes_per_agent`: heap live after creating and warming up the agents
//!   minus heap live before creating them (the critters excluded), / agents.
//! - `allocs_per_tick`: allocations during the timed ticks / timed ticks.
//!
//! The last line printed is one JSON object. The counting allocator
//! (`canopy_counting`) adds a few atomic operations to every allocation,
//! which slows allocating engines slightly.
//!
//! # The reference tree in bonsai-bt
//!
//! bonsai's action type is [`Leaf`]; the handler runs `leaf.run(critter,
//! meadow)` and returns `(status, dt)`: an instant leaf passes the tick's
//! time on to its siblings, `Running` consumes it (bonsai's convention). Each
//! tick feeds `dt = 1.0`, so bonsai's seconds are canopy's ticks. bonsai's
//! tree stops ticking once its root finished until `reset_bt()`; canopy
//! restarts the root on the next tick, so `reset_bt()` is called whenever the
//! root finishes. Node by node (canopy → bonsai), and where they differ:
//!
//! | canopy | bonsai | difference |
//! |---|---|---|
//! | Sequence, Selector | `Sequence`, `Select` | none: both resume the running child |
//! | ReactiveSelector (root), ReactiveSequence (flee) | `Select(..).memory(false)`, `Sequence(..).memory(false)` | **restart, not resume**: bonsai rebuilds every child it walks from its definition each tick (cloning the subtree), so the running branch starts over every tick; a `Wait` or `Timeout` under it never gets past its first tick. With `--bonsai-resume` the two nodes map to the resuming `Select`/`Sequence` instead: no higher-priority re-check (flee cannot interrupt a running branch), but waits finish |
//! | Parallel(One, All) (escape) | `WhenAny` | none for this tree (first success wins, all failed fails) |
//! | Parallel(All, One) (wander) | `WhenAll` | none (first failure fails, all succeeded succeeds) |
//! | Inverter, ForceSuccess | `Invert`, `AlwaysSucceed` | none |
//! | ForceFailure (alarm done) | `Invert(AlwaysSucceed(..))` | none |
//! | Guard(knows food?) | `Sequence([knows food?, child])` | none: checked on entry only |
//! | ReactiveGuard(still tired?) | `Sequence([still tired?, child]).memory(false)` | child restarted, not resumed; the same here, as walk-to-rest keeps no state |
//! | Repeat(3) (meal) | `Sequence` of 3 copies | no repeat node: all 3 bites in one tick (canopy: one per tick) |
//! | Retry(3) (search) | `Select` of 3 copies | no retry node: up to 3 attempts in one tick (canopy: one per tick) |
//! | Cooldown(40) (shout) | the child alone | no cooldown node, and no bonsai state outlives an activation: shouts every time the alarm runs |
//! | Timeout(60) | `Timeout(60.0)` | both update the child 60 times; bonsai fails on the 60th update's tick, canopy one tick later without updating it |
//! | Wait(n) | `Wait(n + 1)` | bonsai's wait counts the tick it is entered (dt 1.0 arrives at once), canopy's does not: canopy's Wait(n) entered at tick t succeeds at t + n, and so does bonsai's Wait(n + 1) |
//!
//! Where bonsai allocates: `reset_bt()` rebuilds the state from a clone of
//! the whole definition; a `Sequence`/`Select` moving to its next child
//! clones that child's subtree; a memoryless one clones every child it walks,
//! every tick. Its state also holds clones of the definition, hence its bytes.
//!
//! Hence the checksums printed per engine (bites, naps, shouts, waves, and a
//! hash of every critter): canopy and the naive baseline implement the same
//! semantics and must end in identical critters. bonsai cannot: by default
//! its naps stay at 0 (the doze `Wait` restarts every tick under the reactive
//! root) and it waves every tick a friend is near (the chat restarts); with
//! `--bonsai-resume` its bites, naps and waves come within a few percent of
//! canopy's, and only its shouts (no cooldown) are several times higher.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use bonsai_bt::{
    Action, AlwaysSucceed, BT, Behavior, Event, Invert, RUNNING, Select, Sequence, Status, Timeout,
    UpdateArgs, Wait, WhenAll, WhenAny,
};
use canopy::Agent;
use canopy_reference::naive::NaiveAgent;
use canopy_reference::{Critter, Leaf, Meadow, Outcome, critters, reference_tree};

const SEED: u32 = 42;
const MEADOW: i32 = 128;
const ROUNDS: usize = 5;

/// The counting allocator `canopy bench` and `memory_profile` use too.
#[global_allocator]
static ALLOC: canopy_counting::Counting = canopy_counting::Counting;

/// Allocations so far.
fn allocations() -> u64 {
    canopy_counting::stats().allocations
}

/// Heap bytes live now.
fn live_bytes() -> u64 {
    canopy_counting::stats().live_bytes
}

/// The reference tree in bonsai's terms; see the module docs for the mapping.
fn bonsai_tree(resume: bool) -> Behavior<Leaf> {
    use Leaf::*;
    let a = Action;
    let b = Box::new;
    // bonsai's wait counts its entry tick; canopy's does not.
    let wait = |ticks: u32| Wait(f64::from(ticks + 1));
    let flee = Sequence(vec![
        a(ThreatNear),
        WhenAny(vec![
            a(RunAway),
            // ForceFailure(Sequence[Cooldown(40, shout), Wait(3)])
            Invert(b(AlwaysSucceed(b(Sequence(vec![a(Shout), wait(3)]))))),
        ]),
    ])
    .memory(resume);
    let eat = Sequence(vec![
        a(Hungry),
        Select(vec![
            Sequence(vec![a(KnowsFood), a(RecallFood)]),
            Select(vec![a(SearchFood); 3]),
        ]),
        Timeout(60.0, b(a(WalkToTarget))),
        Sequence(vec![a(TakeBite); 3]),
    ]);
    let rest = Sequence(vec![
        a(Tired),
        Invert(b(a(Crowded))),
        Sequence(vec![a(StillTired), a(WalkToRest)]).memory(false),
        Sequence(vec![wait(20), a(Recover)]),
    ]);
    let idle = Select(vec![
        Sequence(vec![a(FriendNear), AlwaysSucceed(b(a(Wave))), wait(5)]),
        WhenAll(vec![a(Stroll), a(LookAround)]),
    ]);
    Select(vec![flee, eat, rest, idle]).memory(resume)
}

/// One bonsai tick for one critter; restarts the tree when its root finished.
fn bonsai_tick(bt: &mut BT<Leaf, ()>, critter: &mut Critter, meadow: &Meadow) {
    let event: Event = UpdateArgs { dt: 1.0 }.into();
    let done = bt.tick(
        &event,
        &mut |args, _| match args.action.run(critter, meadow) {
            Outcome::Running => RUNNING,
            Outcome::Success => (Status::Success, args.dt),
            Outcome::Failure => (Status::Failure, args.dt),
        },
    );
    if matches!(done, Some((Status::Success | Status::Failure, _))) {
        bt.reset_bt();
    }
}

type TickAll<'t> = Box<dyn FnMut(&mut [Critter], &Meadow) + 't>;

/// One engine's crowd, agents and measurements.
struct Engine<'t> {
    name: &'static str,
    crowd: Vec<Critter>,
    meadow: Meadow,
    tick_all: TickAll<'t>,
    bytes_per_agent: f64,
    round_ns: Vec<f64>,
    allocs: u64,
    timed_ticks: usize,
}

impl<'t> Engine<'t> {
    /// Create `agents` agents with `make`, warm them up, measure their heap.
    fn new<S: 't>(
        name: &'static str,
        agents: usize,
        warmup: usize,
        make: impl Fn(u32) -> S,
        mut step: impl FnMut(&mut S, &mut Critter, &Meadow) + 't,
    ) -> Self {
        let mut meadow = Meadow::new(MEADOW);
        let mut crowd = critters(agents, SEED, &meadow);
        let before = live_bytes();
        let mut states: Vec<S> = (0..agents as u32).map(make).collect();
        let mut tick_all: TickAll<'t> = Box::new(move |crowd: &mut [Critter], meadow: &Meadow| {
            for (state, critter) in states.iter_mut().zip(crowd) {
                step(state, critter, meadow);
            }
        });
        for _ in 0..warmup {
            tick_all(&mut crowd, &meadow);
            meadow.advance();
        }
        let held = live_bytes().wrapping_sub(before) as i64;
        Engine {
            name,
            crowd,
            meadow,
            tick_all,
            bytes_per_agent: held as f64 / agents.max(1) as f64,
            round_ns: Vec::new(),
            allocs: 0,
            timed_ticks: 0,
        }
    }

    /// One timed round of `ticks` ticks of the whole crowd.
    fn round(&mut self, ticks: usize) {
        let allocs = allocations();
        let start = Instant::now();
        for _ in 0..ticks {
            (self.tick_all)(&mut self.crowd, &self.meadow);
            self.meadow.advance();
        }
        let ns = start.elapsed().as_nanos() as f64;
        self.allocs += allocations() - allocs;
        self.timed_ticks += ticks;
        let agent_ticks = (ticks * self.crowd.len()).max(1);
        self.round_ns.push(ns / agent_ticks as f64);
    }

    fn median_ns(&self) -> f64 {
        let mut ns = self.round_ns.clone();
        ns.sort_by(f64::total_cmp);
        ns.get(ns.len() / 2).copied().unwrap_or(f64::NAN)
    }

    fn allocs_per_tick(&self) -> f64 {
        self.allocs as f64 / self.timed_ticks.max(1) as f64
    }

    /// (bites, naps, shouts, waves) over the crowd, and a hash of every critter.
    fn checksum(&self) -> ([u64; 4], u64) {
        let mut totals = [0u64; 4];
        for c in &self.crowd {
            for (t, v) in totals.iter_mut().zip([c.bites, c.naps, c.shouts, c.waves]) {
                *t += u64::from(v);
            }
        }
        let mut h = DefaultHasher::new();
        self.crowd.hash(&mut h);
        (totals, h.finish())
    }

    fn json(&self) -> String {
        format!(
            "{{\"ns_per_agent_tick\":{:.1},\"bytes_per_agent\":{:.1},\"allocs_per_tick\":{:.1}}}",
            self.median_ns(),
            self.bytes_per_agent,
            self.allocs_per_tick()
        )
    }
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        None => default,
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| {
            eprintln!("usage: versus [--agents N] [--ticks T] [--bonsai-resume]  ({name} needs a number)");
            std::process::exit(2);
        }),
    }
}

fn main() {
    let agents = arg("--agents", 10_000);
    let ticks = arg("--ticks", 200).max(1);
    let resume = std::env::args().any(|a| a == "--bonsai-resume");
    let warmup = (ticks / 10).max(1);
    let rounds = ROUNDS.min(ticks);

    let tree = reference_tree();
    let behavior = bonsai_tree(resume);
    let mut engines = [
        Engine::new(
            "canopy",
            agents,
            warmup,
            |i| Agent::with_id(&tree, i),
            |agent, critter, meadow| {
                agent.tick(&tree, critter, meadow);
            },
        ),
        Engine::new(
            "naive",
            agents,
            warmup,
            |i| NaiveAgent::new(&tree, i).expect("the reference tree has no custom nodes"),
            |agent, critter, meadow| {
                agent.tick(critter, meadow);
            },
        ),
        Engine::new(
            "bonsai",
            agents,
            warmup,
            |_| BT::new(behavior.clone(), ()),
            bonsai_tick,
        ),
    ];
    for r in 0..rounds {
        let n = ticks / rounds + usize::from(r < ticks % rounds);
        for k in 0..engines.len() {
            engines[(r + k) % engines.len()].round(n);
        }
    }

    let bonsai_mode = if resume { "resuming" } else { "reactive" };
    println!(
        "reference tree ({} nodes), {agents} agents, {warmup} warm-up + {ticks} timed ticks in {rounds} \
         interleaved rounds; bonsai with {bonsai_mode} Select/Sequence for the reactive nodes",
        tree.len()
    );
    println!(
        "{:<8} {:>14} {:>12} {:>12}   {:>8} {:>8} {:>8} {:>8}  critters hash",
        "engine", "ns/agent-tick", "bytes/agent", "allocs/tick", "bites", "naps", "shouts", "waves"
    );
    for e in &engines {
        let ([bites, naps, shouts, waves], hash) = e.checksum();
        println!(
            "{:<8} {:>14.1} {:>12.1} {:>12.1}   {bites:>8} {naps:>8} {shouts:>8} {waves:>8}  {hash:016x}",
            e.name,
            e.median_ns(),
            e.bytes_per_agent,
            e.allocs_per_tick()
        );
    }
    let [canopy, naive, bonsai] = &engines;
    for e in &engines {
        let rounds: Vec<String> = e.round_ns.iter().map(|ns| format!("{ns:.1}")).collect();
        println!("{} rounds (ns/agent-tick): {}", e.name, rounds.join(" "));
    }
    let same = naive.crowd == canopy.crowd;
    println!("naive ends in the same critters as canopy: {same}");
    println!(
        "bonsai / canopy: time {:.1}x, bytes {:.1}x; naive / canopy: time {:.1}x, bytes {:.1}x",
        bonsai.median_ns() / canopy.median_ns(),
        bonsai.bytes_per_agent / canopy.bytes_per_agent,
        naive.median_ns() / canopy.median_ns(),
        naive.bytes_per_agent / canopy.bytes_per_agent,
    );
    println!(
        "{{\"agents\":{agents},\"ticks\":{ticks},\"canopy\":{},\"naive\":{},\"bonsai\":{}}}",
        canopy.json(),
        naive.json(),
        bonsai.json()
    );
}
