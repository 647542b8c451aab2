//! One process-wide pool of task buffers shared by every agent, from the
//! `object-pool` crate: the "thread-safe object pool" many engines reach for
//! first. Each pull and each return takes the pool's lock, which is what the
//! `pools` bench shows once two threads tick agents at once.

use std::sync::{Arc, OnceLock};

use object_pool::{Pool, ReusableOwned};

use super::PoolLayout;
use super::handles::{BlockSource, HandlePool};

type Buffers = Pool<Box<[u8]>>;

fn buffers() -> &'static Arc<Buffers> {
    static BUFFERS: OnceLock<Arc<Buffers>> = OnceLock::new();
    BUFFERS.get_or_init(|| Arc::new(Pool::new(0, Box::default)))
}

/// Task buffers pulled from one shared, locked `object_pool::Pool`.
///
/// Every buffer is made as large as the tree's largest task block, so any
/// buffer fits any task: once the crowd's number of live tasks has peaked,
/// every pull finds one and nothing is allocated. Buffers idle in the
/// shared pool are not counted in any agent's
/// [`heap_bytes`](super::TaskPool::heap_bytes).
///
/// ```
/// use canopy_core::{Agent, Builder, Status, pool::SharedPool};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.inverter("not", b.always_failure("no"))).unwrap();
/// let mut agent = Agent::<SharedPool>::for_tree(&tree, 0);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// ```
pub type SharedPool = HandlePool<Pulled>;

/// Buffers from the process-wide object pool as a [`BlockSource`].
#[derive(Debug)]
pub struct Pulled {
    block: usize,
}

impl BlockSource for Pulled {
    type Block = ReusableOwned<Box<[u8]>>;
    const NAME: &'static str = "object-pool";

    fn new(layout: &PoolLayout) -> Self {
        Pulled {
            block: layout.max_block.max(1) as usize,
        }
    }

    fn alloc(&mut self, _size: u32) -> Self::Block {
        let mut buffer = buffers().pull_owned(Box::default);
        if buffer.len() < self.block {
            *buffer = vec![0; self.block].into_boxed_slice();
        }
        buffer
    }

    fn bytes(block: &mut Self::Block) -> &mut [u8] {
        block
    }

    fn block_bytes(block: &Self::Block) -> usize {
        block.len()
    }
}
