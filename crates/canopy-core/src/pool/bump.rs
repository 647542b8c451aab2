//! A per-agent `bumpalo` arena: installing is a pointer bump, uninstalling
//! frees nothing, and the whole arena is reset when the root finishes (the
//! moment no task is installed any more).
//!
//! That makes it cheap per install, with one catch: an agent whose root
//! never finishes (a root Parallel, a priority selector with an always-running
//! fallback) keeps bumping, and its memory grows until it does.

use std::ptr::NonNull;

use bumpalo::Bump;

use super::PoolLayout;
use super::handles::{BlockSource, HandlePool};

/// Task memory bumped from a per-agent `bumpalo::Bump`, reclaimed when the root finishes.
///
/// ```
/// use canopy_core::{Agent, Builder, Status, pool::BumpPool};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("s", [b.wait("w", 1), b.always_success("ok")])).unwrap();
/// let mut agent = Agent::<BumpPool>::for_tree(&tree, 0);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// ```
pub type BumpPool = HandlePool<Bumped>;

/// A per-agent bump arena as a [`BlockSource`].
#[derive(Debug)]
pub struct Bumped {
    arena: Bump,
}

/// A block inside a [`Bumped`] arena: start and length.
#[derive(Debug)]
pub struct BumpBlock(NonNull<u8>, usize);

// SAFETY: a `BumpBlock` points into a chunk owned by the `Bump` of the same
// `HandlePool`, which moves with it (`Bump` is `Send`); blocks are created
// only by `Bumped::alloc` and never leave their pool, so sending the pool to
// another thread sends the memory with it.
unsafe impl Send for BumpBlock {}

impl BlockSource for Bumped {
    type Block = BumpBlock;
    const NAME: &'static str = "bumpalo";

    fn new(_layout: &PoolLayout) -> Self {
        Bumped { arena: Bump::new() }
    }

    fn alloc(&mut self, size: u32) -> BumpBlock {
        let block = self.arena.alloc_slice_fill_copy(size as usize, 0u8);
        let len = block.len();
        BumpBlock(NonNull::from(block).cast::<u8>(), len)
    }

    fn bytes(block: &mut BumpBlock) -> &mut [u8] {
        // SAFETY: `block.0..block.0 + block.1` was handed out by the arena in
        // `alloc` and stays valid until `Bump::reset`, which `reset` calls
        // only once the pool has dropped every block (`HandlePool::clear`
        // empties its table first). Each block is handed out once, and the
        // returned borrow is tied to `&mut BumpBlock`, so no two live `&mut`
        // overlap.
        unsafe { std::slice::from_raw_parts_mut(block.0.as_ptr(), block.1) }
    }

    fn block_bytes(_block: &BumpBlock) -> usize {
        0
    }

    fn reset(&mut self) {
        self.arena.reset();
    }

    fn source_bytes(&self) -> usize {
        self.arena.allocated_bytes()
    }
}
