//! Where a task's memory comes from when its node is installed, and where it
//! goes when the task is uninstalled.
//!
//! Seed 003 warns that a shared-node tree creates and destroys small tasks
//! constantly — even a branch that is merely tried is installed, updated once
//! and uninstalled — so task memory must come from a pool. This module makes
//! the strategy a type parameter of [`Agent`](crate::Agent) so they can be
//! compared on the same engine (`benches/pools.rs`):
//!
//! | strategy | where an installed task lives | per-tick allocations |
//! |---|---|---|
//! | [`InlinePool`] (default) | a fixed slice of the agent's frame, laid out when the tree is built | none, ever |
//! | [`FreeListPool`] | a block of the agent's own arena, recycled through per-size free lists | none once warm |
//! | [`BoxPool`] | its own `Box<[u8]>` on the global allocator | one per install |
//! | [`SharedPool`] | a buffer pulled from one process-wide `object-pool` (a lock) | none once warm |
//! | [`BumpPool`] | the agent's `bumpalo` arena, reclaimed when the root finishes | none once warm, *if* the root keeps finishing |
//!
//! A task's memory is plain bytes: its own state first, then one *behavior
//! slot* per place a child can be installed. Inline pools put the child's
//! whole memory in the slot (children that never run together share it);
//! the others put a 4-byte handle there. Because task state is plain data
//! addressed by offsets, an agent's tasks can be copied, compared and, later,
//! snapshot without knowing their types.

mod boxed;
mod bump;
mod free_list;
mod handles;
mod inline;
mod shared;

pub use boxed::{BoxPool, Boxes};
pub use bump::{BumpBlock, BumpPool, Bumped};
pub use free_list::FreeListPool;
pub use handles::{BlockSource, HandlePool};
pub use inline::InlinePool;
pub use shared::{Pulled, SharedPool};

/// A task's location inside its agent's pool. Its meaning belongs to the
/// pool: a byte offset for [`InlinePool`] and [`FreeListPool`], a table
/// index for the others.
pub type Loc = u32;

/// One behavior slot of a task: a place where a child's task is installed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// Offset of the child's memory from the parent's, for inline pools.
    pub inline: u32,
    /// Offset of the child's 4-byte handle from the parent's memory, for the other pools.
    pub handle: u32,
}

/// How much memory one node's task needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskSize {
    /// The task's own state in bytes.
    pub own: u32,
    /// Own state plus the inline memory of every slot: the node's whole
    /// active subtree at its largest.
    pub inline: u32,
    /// Own state plus a 4-byte handle per slot: one block of a handle-based pool.
    pub block: u32,
}

/// The per-agent memory a tree needs, computed once when the tree is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolLayout {
    /// The root's [`TaskSize`].
    pub root: TaskSize,
    /// Bytes of node memory that outlives activations (e.g. a Cooldown's
    /// "ready again at" tick), one region per node position.
    pub persist: u32,
    /// The largest `block` of any node.
    pub max_block: u32,
}

/// A task-memory strategy. One value per agent.
///
/// The engine calls `install` when a behavior slot installs a node's task,
/// `child` to find an installed task again, `uninstall` when it finishes or
/// is aborted, and `mem` to read and write the task's bytes. It always
/// writes a task's initial state after installing it, so a pool may hand out
/// memory with stale contents.
///
/// ```
/// use canopy_core::{Agent, Builder, Status, pool::{FreeListPool, TaskPool}};
///
/// let b = Builder::<(), ()>::new();
/// let wait = b.wait("nap", 2);
/// let tree = b.build(b.sequence("root", [wait])).unwrap();
/// let mut agent = Agent::<FreeListPool>::for_tree(&tree, 0);
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
/// assert_eq!(FreeListPool::NAME, "free-list");
/// ```
pub trait TaskPool: Send + Sized + 'static {
    /// A short name for benches and reports.
    const NAME: &'static str;

    /// Empty storage for one agent of a tree with this layout.
    fn new(layout: &PoolLayout) -> Self;

    /// Memory for the root task.
    fn install_root(&mut self, size: &TaskSize) -> Loc;

    /// The installed root task.
    fn root(&mut self) -> Loc;

    /// Give the root task's memory back.
    fn uninstall_root(&mut self, root: Loc, size: &TaskSize);

    /// Memory for a child task installed in `slot` of the task at `parent`.
    fn install(&mut self, parent: Loc, slot: &Slot, size: &TaskSize) -> Loc;

    /// The child task installed in `slot` of the task at `parent`.
    fn child(&mut self, parent: Loc, slot: &Slot) -> Loc;

    /// Give a child task's memory back.
    fn uninstall(&mut self, parent: Loc, slot: &Slot, child: Loc, size: &TaskSize);

    /// `len` bytes of the task at `loc`.
    fn mem(&mut self, loc: Loc, len: usize) -> &mut [u8];

    /// [`mem`](TaskPool::mem) without bounds checks, where a pool can
    /// offer that; the engine reads every task's state through this.
    ///
    /// # Safety
    /// `loc` must be a task this pool installed and has not uninstalled
    /// since, and `len` at most the `own` size it was installed with.
    unsafe fn mem_unchecked(&mut self, loc: Loc, len: usize) -> &mut [u8] {
        self.mem(loc, len)
    }

    /// The agent's persistent node memory (see [`PoolLayout::persist`]).
    fn persist(&mut self, layout: &PoolLayout) -> &mut [u8];

    /// Called when no task is installed any more (the root finished or the
    /// agent was reset): arena-style pools reclaim everything here.
    fn clear(&mut self) {}

    /// Heap bytes this pool holds for its agent, slack included.
    fn heap_bytes(&self) -> usize;
}

/// Read the 4-byte child handle kept in a slot of a parent's memory.
fn read_handle(parent_mem: &[u8], slot: &Slot) -> u32 {
    let at = slot.handle as usize;
    u32::from_le_bytes([
        parent_mem[at],
        parent_mem[at + 1],
        parent_mem[at + 2],
        parent_mem[at + 3],
    ])
}

/// Keep a child handle in a slot of a parent's memory.
fn write_handle(parent_mem: &mut [u8], slot: &Slot, handle: u32) {
    let at = slot.handle as usize;
    parent_mem[at..at + 4].copy_from_slice(&handle.to_le_bytes());
}

/// Table of handles for pools whose blocks do not live in one byte arena:
/// a `Vec` of entries plus a free list of indices, so that the table itself
/// stops allocating once it has reached the agent's peak number of tasks.
#[derive(Debug)]
struct HandleTable<T> {
    entries: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for HandleTable<T> {
    fn default() -> Self {
        HandleTable {
            entries: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> HandleTable<T> {
    fn insert(&mut self, value: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.entries[i as usize] = Some(value);
                i
            }
            None => {
                self.entries.push(Some(value));
                (self.entries.len() - 1) as u32
            }
        }
    }

    fn remove(&mut self, i: u32) -> Option<T> {
        let value = self.entries.get_mut(i as usize)?.take();
        if value.is_some() {
            self.free.push(i);
        }
        value
    }

    fn get_mut(&mut self, i: u32) -> &mut T {
        self.entries[i as usize]
            .as_mut()
            .expect("the engine only asks for installed tasks")
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.free.clear();
    }

    fn capacity_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Option<T>>() + self.free.capacity() * 4
    }
}
