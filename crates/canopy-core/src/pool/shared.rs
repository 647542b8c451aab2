//! One process-wide pool of task buffers shared by every agent, from the
//! `object-pool` crate: the "thread-safe object pool" many engines reach for
//! first. Each pull and each return takes the pool's lock, which is what the
//! `pools` bench shows once two threads tick agents at once.

use std::sync::{Arc, OnceLock};

use object_pool::{Pool, ReusableOwned};

use super::{HandleTable, Loc, PoolLayout, Slot, TaskPool, TaskSize, read_handle, write_handle};

type Buffers = Pool<Box<[u8]>>;

fn buffers() -> &'static Arc<Buffers> {
    static BUFFERS: OnceLock<Arc<Buffers>> = OnceLock::new();
    BUFFERS.get_or_init(|| Arc::new(Pool::new(0, Box::default)))
}

/// Task buffers pulled from one shared, locked `object_pool::Pool`.
///
/// Every buffer is made as large as the tree's largest task block, so any
/// buffer fits any task: after warm-up every pull finds one and nothing is
/// allocated. Buffers idle in the shared pool are not counted in any agent's
/// [`heap_bytes`](TaskPool::heap_bytes).
///
/// ```
/// use canopy_core::{Agent, Builder, Status, pool::SharedPool};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.inverter("not", b.always_failure("no"))).unwrap();
/// let mut agent = Agent::<SharedPool>::for_tree(&tree, 0);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// ```
pub struct SharedPool {
    tasks: HandleTable<ReusableOwned<Box<[u8]>>>,
    persist: Box<[u8]>,
    root: Loc,
    block: usize,
}

impl std::fmt::Debug for SharedPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedPool")
            .field("tasks", &self.tasks.entries.iter().flatten().count())
            .finish()
    }
}

impl SharedPool {
    fn alloc(&mut self) -> Loc {
        let mut buffer = buffers().pull_owned(Box::default);
        if buffer.len() < self.block {
            *buffer = vec![0; self.block].into_boxed_slice();
        }
        self.tasks.insert(buffer)
    }
}

impl TaskPool for SharedPool {
    const NAME: &'static str = "object-pool";

    fn new(layout: &PoolLayout) -> Self {
        SharedPool {
            tasks: HandleTable::default(),
            persist: vec![0; layout.persist as usize].into_boxed_slice(),
            root: 0,
            block: layout.max_block.max(1) as usize,
        }
    }

    fn install_root(&mut self, _size: &TaskSize) -> Loc {
        self.root = self.alloc();
        self.root
    }

    fn root(&mut self) -> Loc {
        self.root
    }

    fn uninstall_root(&mut self, root: Loc, _size: &TaskSize) {
        self.tasks.remove(root);
    }

    fn install(&mut self, parent: Loc, slot: &Slot, _size: &TaskSize) -> Loc {
        let child = self.alloc();
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
