//! The shape shared by every pool whose tasks are separate blocks: a table
//! of blocks, a 4-byte handle in the parent's slot pointing into it, and a
//! [`BlockSource`] that decides where blocks come from (the global
//! allocator, a shared object pool, a bump arena).

use super::{HandleTable, Loc, PoolLayout, Slot, TaskPool, TaskSize, read_handle, write_handle};

/// Where a [`HandlePool`] gets its blocks and gives them back.
pub trait BlockSource: Send + Sized + 'static {
    /// One task's memory.
    type Block: Send;

    /// A short name for benches and reports.
    const NAME: &'static str;

    /// The source for one agent of a tree with this layout.
    fn new(layout: &PoolLayout) -> Self;

    /// A block of at least `size` bytes.
    fn alloc(&mut self, size: u32) -> Self::Block;

    /// The block's bytes.
    fn bytes(block: &mut Self::Block) -> &mut [u8];

    /// Heap bytes a block holds on its own (0 if the source holds them).
    fn block_bytes(block: &Self::Block) -> usize;

    /// Called when no block is live any more.
    fn reset(&mut self) {}

    /// Heap bytes the source itself holds.
    fn source_bytes(&self) -> usize {
        0
    }
}

/// A pool of separately allocated task blocks found through handles.
#[derive(Debug)]
pub struct HandlePool<S: BlockSource> {
    source: S,
    tasks: HandleTable<S::Block>,
    persist: Box<[u8]>,
    root: Loc,
}

impl<S: BlockSource> HandlePool<S> {
    fn alloc(&mut self, size: u32) -> Loc {
        let block = self.source.alloc(size);
        self.tasks.insert(block)
    }

    fn block(&mut self, loc: Loc) -> &mut [u8] {
        S::bytes(self.tasks.get_mut(loc))
    }
}

impl<S: BlockSource> TaskPool for HandlePool<S> {
    const NAME: &'static str = S::NAME;

    fn new(layout: &PoolLayout) -> Self {
        HandlePool {
            source: S::new(layout),
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
        // Every block goes before the source may reclaim their memory.
        self.tasks.clear();
        self.source.reset();
    }

    fn heap_bytes(&self) -> usize {
        let blocks: usize = self
            .tasks
            .entries
            .iter()
            .flatten()
            .map(S::block_bytes)
            .sum();
        blocks + self.source.source_bytes() + self.tasks.capacity_bytes() + self.persist.len()
    }
}
