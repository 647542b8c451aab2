//! The baseline without a pool: every install is a fresh heap allocation on
//! the global allocator, every uninstall frees it — what seed 003's
//! `new SelectorTask(this)` does, and what the other strategies are measured
//! against.

use super::PoolLayout;
use super::handles::{BlockSource, HandlePool};

/// One `Box<[u8]>` per installed task.
///
/// Each block is at least 1 byte, so that every task with memory costs an
/// allocation, as a task object does in the classic design (leaves without
/// state need no memory in any strategy). This strategy allocates on every
/// install by construction; it exists to show what pooling saves.
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
pub type BoxPool = HandlePool<Boxes>;

/// The global allocator as a [`BlockSource`].
#[derive(Debug, Default)]
pub struct Boxes;

impl BlockSource for Boxes {
    type Block = Box<[u8]>;
    const NAME: &'static str = "box";

    fn new(_layout: &PoolLayout) -> Self {
        Boxes
    }

    fn alloc(&mut self, size: u32) -> Box<[u8]> {
        vec![0; size.max(1) as usize].into_boxed_slice()
    }

    fn bytes(block: &mut Box<[u8]>) -> &mut [u8] {
        block
    }

    fn block_bytes(block: &Box<[u8]>) -> usize {
        block.len()
    }
}
