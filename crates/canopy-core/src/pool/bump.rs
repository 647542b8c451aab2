//! A per-agent `bumpalo` arena: installing is a pointer bump, uninstalling
//! frees nothing, and the whole arena is reset when the root finishes (the
//! moment no task is installed any more).
//!
//! That makes it the cheapest strategy per install, with one catch the bench
//! cannot show: an agent whose root never finishes (a root Parallel, a
//! Repeat of many cycles) keeps bumping and its memory grows until it does.

use std::ptr::NonNull;

use bumpalo::Bump;

use super::{HandleTable, Loc, PoolLayout, Slot, TaskPool, TaskSize, read_handle, write_handle};

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
#[derive(Debug)]
pub struct BumpPool {
    arena: Bump,
    /// Start and length of each live block inside `arena`.
    tasks: HandleTable<(NonNull<u8>, usize)>,
    persist: Box<[u8]>,
    root: Loc,
}

// SAFETY: the raw pointers in `tasks` point only into chunks owned by
// `arena`, which moves with the pool; `Bump` itself is `Send`. Nothing is
// shared with another value, so sending the whole pool to another thread
// sends the memory with it.
unsafe impl Send for BumpPool {}

impl BumpPool {
    fn alloc(&mut self, size: u32) -> Loc {
        let block = self.arena.alloc_slice_fill_copy(size as usize, 0u8);
        let len = block.len();
        self.tasks.insert((NonNull::from(block).cast::<u8>(), len))
    }

    fn block(&mut self, loc: Loc) -> &mut [u8] {
        let (start, len) = *self.tasks.get_mut(loc);
        // SAFETY: `start..start + len` was handed out by `self.arena` in
        // `alloc` and stays valid until `self.arena.reset()`, which `clear`
        // calls only after emptying `tasks`, so an entry never outlives its
        // memory. Each block is handed out once, and the returned borrow is
        // tied to `&mut self`, so no two live `&mut` can overlap.
        unsafe { std::slice::from_raw_parts_mut(start.as_ptr(), len) }
    }
}

impl TaskPool for BumpPool {
    const NAME: &'static str = "bumpalo";

    fn new(layout: &PoolLayout) -> Self {
        BumpPool {
            arena: Bump::new(),
            tasks: HandleTable::default(),
            persist: vec![0; layout.persist as usize].into_boxed_slice(),
            root: 0,
        }
    }

    fn install_root(&mut self, size: &TaskSize) -> Loc {
        self.root = self.alloc(size.block);
        self.root
    }

    fn root(&mut self) -> Loc {
        self.root
    }

    fn uninstall_root(&mut self, root: Loc, _size: &TaskSize) {
        self.tasks.remove(root);
    }

    fn install(&mut self, parent: Loc, slot: &Slot, size: &TaskSize) -> Loc {
        let child = self.alloc(size.block);
        write_handle(self.block(parent), slot, child);
        child
    }

    fn child(&mut self, parent: Loc, slot: &Slot) -> Loc {
        read_handle(self.block(parent), slot)
    }

    fn uninstall(&mut self, _parent: Loc, _slot: &Slot, child: Loc, _size: &TaskSize) {
        self.tasks.remove(child);
    }

    fn mem(&mut self, loc: Loc, len: usize) -> &mut [u8] {
        &mut self.block(loc)[..len]
    }

    fn persist(&mut self, _layout: &PoolLayout) -> &mut [u8] {
        &mut self.persist
    }

    fn clear(&mut self) {
        self.tasks.clear();
        self.arena.reset();
    }

    fn heap_bytes(&self) -> usize {
        self.arena.allocated_bytes() + self.tasks.capacity_bytes() + self.persist.len()
    }
}
