//! The baseline without a pool: every install is a fresh heap allocation on
//! the global allocator, every uninstall frees it — what seed 003's
//! `new SelectorTask(this)` does, and what the other strategies are measured
//! against.

use super::{HandleTable, Loc, PoolLayout, Slot, TaskPool, TaskSize, read_handle, write_handle};

/// One `Box<[u8]>` per installed task.
///
/// Each block is at least 1 byte, so that even a stateless task costs an
/// allocation, as a task object does in the classic design. This strategy
/// allocates on every install by construction; it exists to show what
/// pooling saves.
///
/// ```
/// use canopy_core::{Agent, Builder, Status, pool::BoxPool};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("s", [b.always_success("a"), b.wait("w", 1)])).unwrap();
/// let mut agent = Agent::<BoxPool>::for_tree(&tree, 0);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// ```
#[derive(Debug, Default)]
pub struct BoxPool {
    tasks: HandleTable<Box<[u8]>>,
    persist: Box<[u8]>,
    root: Loc,
}

impl BoxPool {
    fn alloc(&mut self, size: u32) -> Loc {
        self.tasks
            .insert(vec![0; size.max(1) as usize].into_boxed_slice())
    }
}

impl TaskPool for BoxPool {
    const NAME: &'static str = "box";

    fn new(layout: &PoolLayout) -> Self {
        BoxPool {
            persist: vec![0; layout.persist as usize].into_boxed_slice(),
            ..BoxPool::default()
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
        write_handle(self.tasks.get_mut(parent), slot, child);
        child
    }

    fn child(&mut self, parent: Loc, slot: &Slot) -> Loc {
        read_handle(self.tasks.get_mut(parent), slot)
    }

    fn uninstall(&mut self, _parent: Loc, _slot: &Slot, child: Loc, _size: &TaskSize) {
        self.tasks.remove(child);
    }

    fn mem(&mut self, loc: Loc, len: usize) -> &mut [u8] {
        &mut self.tasks.get_mut(loc)[..len]
    }

    fn persist(&mut self, _layout: &PoolLayout) -> &mut [u8] {
        &mut self.persist
    }

    fn heap_bytes(&self) -> usize {
        let blocks: usize = self.tasks.entries.iter().flatten().map(|b| b.len()).sum();
        blocks + self.tasks.capacity_bytes() + self.persist.len()
    }
}
