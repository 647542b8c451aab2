//! A count of the steps the node-model readers take — an element read, a
//! port declared, a name looked up — for the tests that double an input
//! and check that the work doubles with it (time is no measure on a
//! shared machine; a count is). A name looked up through a hash map is one
//! step; a scan, one step per name it compares.

use std::cell::Cell;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Count `n` steps on this thread.
pub(crate) fn step(n: u64) {
    STEPS.with(|s| s.set(s.get().wrapping_add(n)));
}

/// The steps the node-model readers (models in tree files, `--model`
/// files, stand-in rules) have taken on this thread so far. For tests.
pub fn reader_work() -> u64 {
    STEPS.with(Cell::get)
}
