//! Trees the tests share.
#![allow(dead_code, unreachable_pub)]

use canopy_core::Tree;
use canopy_data::{Format, Registry, TreeSource};

/// A ReactiveSelector whose higher-priority branch ("alert") starts to run
/// on tick 3, aborting the running "patrol" branch; the whole tree
/// succeeds on tick 4. Node ids: root 0, alert 1, threat? 2, flee 3,
/// patrol 4, walk "north" 5.
pub const TAKEOVER: &str = include_str!("../fixtures/takeover.json");

/// The repository's sentry tree: random nodes, a shared subtree, a
/// parallel, cooldowns.
pub const SENTRY: &str = include_str!("../../../../examples/trees/sentry.json");

pub fn takeover() -> Tree<(), ()> {
    Registry::<(), ()>::new()
        .loading(TreeSource::text(TAKEOVER, Format::Json, "takeover.json"))
        .load()
        .unwrap()
}

pub fn sentry(seed: u64) -> Tree<(), ()> {
    Registry::<(), ()>::new()
        .with_seed(seed)
        .loading(TreeSource::text(SENTRY, Format::Json, "sentry.json"))
        .load()
        .unwrap()
}
