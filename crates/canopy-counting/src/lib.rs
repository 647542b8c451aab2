//! A counting global allocator: how many allocations a program made, how
//! many heap bytes are live, and the most that were live at once.
//!
//! canopy's claims about memory ("zero allocations per tick", "bytes per
//! agent", "loading peaks at a small multiple of the file size") are
//! measured with this one allocator, by the `canopy bench` command, the
//! `versus` and `memory_profile` examples and the loaders' memory tests, so
//! that every figure is counted the same way. It needs no profiler and no
//! feature flag: install it in a binary or a test, read [`stats`].
//!
//! ```
//! use canopy_counting::Counting;
//!
//! #[global_allocator]
//! static ALLOCATOR: Counting = Counting;
//!
//! let before = canopy_counting::stats();
//! let data = vec![0u8; 4096];
//! let after = canopy_counting::stats();
//! assert!(after.allocations > before.allocations);
//! assert!(after.live_bytes >= before.live_bytes + 4096);
//! drop(data);
//! ```
//!
//! Counting costs four relaxed atomic operations per allocation. The
//! figures are requested sizes (`Layout::size`), not what the system
//! allocator rounds them up to. The counters are global: they see every
//! thread's allocations, so a measurement is exact only while nothing else
//! allocates (one test per test binary, or a quiet moment in a program).
//! Without the allocator installed every figure stays 0.

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Allocations so far: calls to `alloc`, `alloc_zeroed` and `realloc`.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
/// Heap bytes live now.
static LIVE: AtomicU64 = AtomicU64::new(0);
/// The most heap bytes live at once since the start or [`reset_peak`].
static PEAK: AtomicU64 = AtomicU64::new(0);
/// Heap bytes allocated so far, freed or not.
static ALLOCATED: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting. Install it with `#[global_allocator]`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counting;

/// The counters at one moment; see [`stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapStats {
    /// Allocations so far (`alloc`, `alloc_zeroed` and `realloc` calls).
    pub allocations: u64,
    /// Heap bytes live now.
    pub live_bytes: u64,
    /// The most heap bytes live at once since the program started or
    /// [`reset_peak`] was last called.
    pub peak_bytes: u64,
    /// Heap bytes allocated so far, freed since or not (a `realloc` counts
    /// its new size): the work a piece of code did in memory, which a
    /// loop that copies what it already has makes grow faster than its
    /// input.
    pub allocated_bytes: u64,
}

/// The counters now.
pub fn stats() -> HeapStats {
    HeapStats {
        allocations: ALLOCATIONS.load(Relaxed),
        live_bytes: LIVE.load(Relaxed),
        peak_bytes: PEAK.load(Relaxed),
        allocated_bytes: ALLOCATED.load(Relaxed),
    }
}

/// Start a new peak from the bytes live now, to measure the peak of one
/// piece of work: `reset_peak(); work(); stats().peak_bytes - before`.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

fn grew(bytes: usize) {
    ALLOCATED.fetch_add(bytes as u64, Relaxed);
    let live = LIVE.fetch_add(bytes as u64, Relaxed) + bytes as u64;
    PEAK.fetch_max(live, Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes as u64, Relaxed);
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the counters only observe sizes and
// never touch the memory.
//
// The workspace denies `unsafe` everywhere; this impl is the one exception:
// a global allocator is an `unsafe` trait whose methods call the system's
// `unsafe` ones, and counting every allocation needs one.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: our caller guarantees `layout` has a non-zero size, as
        // `System.alloc` requires.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`: `layout` has a non-zero size.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: `ptr` was returned by this allocator, hence by `System`,
        // for this `layout`, as our caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: our caller guarantees `ptr` came from this allocator (so
        // from `System`) with `layout`, and that `new_size` is non-zero and
        // valid for `layout`'s alignment.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            // While moving, the old and the new block are both live.
            grew(new_size);
            shrank(layout.size());
        }
        new
    }
}
