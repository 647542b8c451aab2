//! Where task memory could come from, compared on the same engine.
//!
//! canopy lays out every agent's task memory when the tree is built, so
//! installing a task is an offset and uninstalling it is nothing (see
//! `canopy_core`'s tree layout). The classic alternatives get a block of
//! memory per installed task. To compare them on exactly the same work, this
//! bench runs the real engine on trees that install and uninstall tasks all
//! the time, and gives each alternative an observer that does what it would
//! do: on every install it gets a block of the task's size and writes the
//! task's initial state into it, on every update it reads and writes the
//! block, on every end it gives the block back. The `inline` row's observer
//! only does the bookkeeping every row shares, so each other row's extra
//! time is what that strategy would add to canopy.
//!
//! | strategy | where a task's block comes from |
//! |---|---|
//! | inline | nowhere: the engine's own memory (canopy) |
//! | free-list | a per-agent arena, recycled through one free list per size |
//! | box | the global allocator, one `Box<[u8]>` per install |
//! | object-pool | one process-wide `object_pool::Pool` behind a lock |
//! | bumpalo | a per-agent `bumpalo::Bump`, reset when the root finishes |
//!
//! `cargo bench --bench pools -- --noplot`

use std::hint::black_box;
use std::sync::{Arc, OnceLock};

use canopy::{Agent, Builder, Ctx, Event, EventKind, Observer, Policy, Status, Tree};
use canopy_reference::{Critter, Meadow, critters, reference_tree};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;

const AGENTS: usize = 10_000;

/// One way of getting task blocks, for one agent.
trait Strategy: Send + Default {
    const NAME: &'static str;
    type Block: Send;
    fn get(&mut self, size: usize) -> Self::Block;
    fn bytes<'a>(&'a mut self, block: &'a mut Self::Block) -> &'a mut [u8];
    fn give_back(&mut self, block: Self::Block);
    /// No task is installed any more.
    fn root_done(&mut self) {}
}

/// canopy's own layout: no block at all.
#[derive(Default)]
struct Inline;

impl Strategy for Inline {
    const NAME: &'static str = "inline";
    type Block = ();
    fn get(&mut self, _: usize) {}
    fn bytes<'a>(&'a mut self, _: &'a mut ()) -> &'a mut [u8] {
        &mut []
    }
    fn give_back(&mut self, _: ()) {}
}

/// A per-agent arena with one free list per block size (in 4-byte steps).
#[derive(Default)]
struct FreeList {
    arena: Vec<u8>,
    free: Vec<Vec<u32>>,
}

impl Strategy for FreeList {
    const NAME: &'static str = "free-list";
    type Block = (u32, u32);
    fn get(&mut self, size: usize) -> Self::Block {
        let class = size.div_ceil(4);
        if self.free.len() <= class {
            self.free.resize(class + 1, Vec::new());
        }
        let at = match self.free[class].pop() {
            Some(at) => at,
            None => {
                let at = self.arena.len();
                self.arena.resize(at + class * 4, 0);
                at as u32
            }
        };
        (at, size as u32)
    }
    fn bytes<'a>(&'a mut self, block: &'a mut Self::Block) -> &'a mut [u8] {
        &mut self.arena[block.0 as usize..(block.0 + block.1) as usize]
    }
    fn give_back(&mut self, block: Self::Block) {
        self.free[(block.1 as usize).div_ceil(4)].push(block.0);
    }
}

/// One `Box` per install.
#[derive(Default)]
struct Boxed;

impl Strategy for Boxed {
    const NAME: &'static str = "box";
    type Block = Box<[u8]>;
    fn get(&mut self, size: usize) -> Box<[u8]> {
        vec![0; size.max(1)].into_boxed_slice()
    }
    fn bytes<'a>(&'a mut self, block: &'a mut Box<[u8]>) -> &'a mut [u8] {
        block
    }
    fn give_back(&mut self, _: Box<[u8]>) {}
}

/// One locked pool of buffers for the whole process.
#[derive(Default)]
struct Pulled;

fn buffers() -> &'static Arc<object_pool::Pool<Vec<u8>>> {
    static BUFFERS: OnceLock<Arc<object_pool::Pool<Vec<u8>>>> = OnceLock::new();
    BUFFERS.get_or_init(|| Arc::new(object_pool::Pool::new(0, Vec::new)))
}

impl Strategy for Pulled {
    const NAME: &'static str = "object-pool";
    type Block = object_pool::ReusableOwned<Vec<u8>>;
    fn get(&mut self, size: usize) -> Self::Block {
        let mut buffer = buffers().pull_owned(Vec::new);
        buffer.resize(size.max(1), 0);
        buffer
    }
    fn bytes<'a>(&'a mut self, block: &'a mut Self::Block) -> &'a mut [u8] {
        block
    }
    fn give_back(&mut self, _: Self::Block) {}
}

/// A block of a bump arena.
struct Raw(*mut u8, usize);

// SAFETY: the pointer is into the arena of the same agent's `Bumped`,
// which moves between threads together with it.
//
// The workspace denies `unsafe`; this comparison allows it here and in
// `Bumped::bytes`: a bumpalo block borrows its arena, and holding blocks
// across ticks beside the arena, as the other strategies hold theirs,
// takes a raw pointer. It measures bumpalo; nothing shipped uses it.
#[allow(unsafe_code)]
unsafe impl Send for Raw {}

/// A per-agent bump arena, reset whenever the root finishes.
#[derive(Default)]
struct Bumped {
    arena: bumpalo::Bump,
}

impl Strategy for Bumped {
    const NAME: &'static str = "bumpalo";
    type Block = Raw;
    fn get(&mut self, size: usize) -> Raw {
        let block = self.arena.alloc_slice_fill_copy(size.max(1), 0u8);
        Raw(block.as_mut_ptr(), block.len())
    }
    #[allow(unsafe_code)] // See `Raw`.
    fn bytes<'a>(&'a mut self, block: &'a mut Raw) -> &'a mut [u8] {
        // SAFETY: the arena is reset only when the root ends, after every
        // block of this agent was given back, so the block is still live.
        unsafe { std::slice::from_raw_parts_mut(block.0, block.1) }
    }
    fn give_back(&mut self, _: Self::Block) {}
    fn root_done(&mut self) {
        self.arena.reset();
    }
}

/// One agent's shadow of its installed tasks under strategy `S`.
struct Shadow<S: Strategy> {
    strategy: S,
    /// The block of each node's installed task, by node id.
    blocks: Vec<Option<S::Block>>,
    /// Task bytes of each node.
    sizes: Arc<[usize]>,
}

impl<S: Strategy> Observer for &mut Shadow<S> {
    fn event(&mut self, e: Event) {
        let node = e.node.index();
        let size = self.sizes[node];
        match e.kind {
            EventKind::Enter if size > 0 => {
                let mut block = self.strategy.get(size);
                self.strategy.bytes(&mut block).fill(e.tick as u8);
                self.blocks[node] = Some(block);
            }
            EventKind::Update(_) => {
                if let Some(block) = self.blocks[node].as_mut() {
                    for b in self.strategy.bytes(block) {
                        *b = black_box(b.wrapping_add(1));
                    }
                }
            }
            EventKind::Exit(_) | EventKind::Abort => {
                if let Some(block) = self.blocks[node].take() {
                    self.strategy.give_back(block);
                }
                if node == 0 {
                    self.strategy.root_done();
                }
            }
            EventKind::Enter => {}
        }
    }
}

/// A tree that re-enters stateful tasks every tick: a priority selector
/// whose branches flip with the tick, each a sequence of decorated waits,
/// repeats and parallels that finish after a few ticks, so every tick
/// installs and uninstalls several tasks with state. Its root finishes
/// often, so bumpalo gets to reset.
fn churn() -> Tree<u32, ()> {
    let b = Builder::<u32, ()>::new();
    let phase = |k: u32| move |cx: &Ctx<u32, ()>| (cx.tick + cx.id + k) % 5 < 2;
    let branch = |name: &'static str, k: u32| {
        b.sequence(
            name,
            [
                b.condition("now?", phase(k)),
                b.repeat(
                    "twice",
                    2,
                    b.parallel(
                        "both",
                        Policy::All,
                        Policy::One,
                        [b.wait("short", 1), b.timeout("limit", 4, b.wait("long", 2))],
                    ),
                ),
                b.retry(
                    "again",
                    2,
                    b.action("count", |cx| {
                        *cx.agent += 1;
                        Status::from_bool(*cx.agent % 3 != 0)
                    }),
                ),
            ],
        )
    };
    let root = b.reactive_selector(
        "root",
        [
            branch("a", 0),
            branch("b", 2),
            branch("c", 4),
            b.sequence("idle", [b.wait("idle", 1)]),
        ],
    );
    b.build(root).unwrap()
}

fn bench_tree<A: Send + Sync, W: Sync, S: Strategy>(
    c: &mut Criterion,
    group: &str,
    tree: &Tree<A, W>,
    data: &mut [A],
    world: &W,
    threads: bool,
) {
    let sizes: Arc<[usize]> = tree.nodes().map(|n| n.task_bytes()).collect();
    let mut agents: Vec<(Agent, Shadow<S>)> = (0..data.len() as u32)
        .map(|i| {
            let shadow = Shadow {
                strategy: S::default(),
                blocks: (0..tree.len()).map(|_| None).collect(),
                sizes: Arc::clone(&sizes),
            };
            (Agent::with_id(tree, i), shadow)
        })
        .collect();
    let tick = |(agent, shadow): &mut (Agent, Shadow<S>), d: &mut A| {
        black_box(agent.tick_observed(tree, d, world, shadow));
    };
    for _ in 0..50 {
        agents
            .iter_mut()
            .zip(data.iter_mut())
            .for_each(|(a, d)| tick(a, d));
    }
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(data.len() as u64));
    g.sample_size(20);
    g.bench_function(BenchmarkId::new(S::NAME, data.len()), |b| {
        b.iter(|| {
            if threads {
                agents
                    .par_iter_mut()
                    .zip(data.par_iter_mut())
                    .for_each(|(a, d)| tick(a, d));
            } else {
                agents
                    .iter_mut()
                    .zip(data.iter_mut())
                    .for_each(|(a, d)| tick(a, d));
            }
        })
    });
    g.finish();
}

fn pools(c: &mut Criterion) {
    let tree = churn();
    let mut counters = vec![0u32; AGENTS];
    macro_rules! each_strategy {
        ($group:expr, $tree:expr, $data:expr, $world:expr, $threads:expr) => {
            bench_tree::<_, _, Inline>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, FreeList>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, Boxed>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, Pulled>(c, $group, $tree, $data, $world, $threads);
            bench_tree::<_, _, Bumped>(c, $group, $tree, $data, $world, $threads);
        };
    }
    each_strategy!("pools/churn", &tree, &mut counters, &(), false);
    each_strategy!("pools/churn-2-threads", &tree, &mut counters, &(), true);

    let reference = reference_tree();
    let meadow = Meadow::new(128);
    let mut crowd: Vec<Critter> = critters(AGENTS, 42, &meadow);
    each_strategy!("pools/reference", &reference, &mut crowd, &meadow, false);
}

criterion_group!(benches, pools);
criterion_main!(benches);
