//! A per-agent byte arena whose blocks are recycled through free lists, one
//! list per block size: the classic small-object pool seed 003 asks for.

use super::{Loc, PoolLayout, Slot, TaskPool, TaskSize, read_handle, write_handle};

const NONE: u32 = u32::MAX;

/// Task blocks carved from one growing per-agent arena and recycled by size.
///
/// Blocks are rounded up to 4 bytes so a free block can hold the link to the
/// next one. The arena grows until it holds the agent's peak set of tasks;
/// after that every install pops a free list and nothing is allocated.
///
/// ```
/// use canopy_core::{Agent, Builder, Status, pool::FreeListPool};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.repeat("thrice", 3, b.wait("nap", 1))).unwrap();
/// let mut agent = Agent::<FreeListPool>::for_tree(&tree, 0);
/// for _ in 0..5 {
///     assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
/// }
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// ```
#[derive(Clone, Debug)]
pub struct FreeListPool {
    arena: Vec<u8>,
    /// Head of the free list for blocks of `4 * i` bytes.
    free: Box<[u32]>,
    persist: Box<[u8]>,
    root: Loc,
}

fn rounded(size: u32) -> u32 {
    size.div_ceil(4) * 4
}

impl FreeListPool {
    fn alloc(&mut self, size: u32) -> Loc {
        let size = rounded(size);
        if size == 0 {
            return 0;
        }
        let class = (size / 4) as usize;
        let head = self.free[class];
        if head != NONE {
            let at = head as usize;
            self.free[class] = u32::from_le_bytes([
                self.arena[at],
                self.arena[at + 1],
                self.arena[at + 2],
                self.arena[at + 3],
            ]);
            head
        } else {
            let at = self.arena.len();
            self.arena.resize(at + size as usize, 0);
            at as Loc
        }
    }

    fn free(&mut self, loc: Loc, size: u32) {
        let size = rounded(size);
        if size == 0 {
            return;
        }
        let class = (size / 4) as usize;
        let at = loc as usize;
        self.arena[at..at + 4].copy_from_slice(&self.free[class].to_le_bytes());
        self.free[class] = loc;
    }
}

impl TaskPool for FreeListPool {
    const NAME: &'static str = "free-list";

    fn new(layout: &PoolLayout) -> Self {
        FreeListPool {
            arena: Vec::new(),
            free: vec![NONE; rounded(layout.max_block) as usize / 4 + 1].into_boxed_slice(),
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

    fn uninstall_root(&mut self, root: Loc, size: &TaskSize) {
        self.free(root, size.block);
    }

    fn install(&mut self, parent: Loc, slot: &Slot, size: &TaskSize) -> Loc {
        let child = self.alloc(size.block);
        write_handle(&mut self.arena[parent as usize..], slot, child);
        child
    }

    fn child(&mut self, parent: Loc, slot: &Slot) -> Loc {
        read_handle(&self.arena[parent as usize..], slot)
    }

    fn uninstall(&mut self, _parent: Loc, _slot: &Slot, child: Loc, size: &TaskSize) {
        self.free(child, size.block);
    }

    fn mem(&mut self, loc: Loc, len: usize) -> &mut [u8] {
        let at = loc as usize;
        &mut self.arena[at..at + len]
    }

    fn persist(&mut self, _layout: &PoolLayout) -> &mut [u8] {
        &mut self.persist
    }

    fn heap_bytes(&self) -> usize {
        self.arena.capacity() + self.free.len() * 4 + self.persist.len()
    }
}
