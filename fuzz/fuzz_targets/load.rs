//! Any bytes, as JSON and as RON: the loader must return Ok or Err — never
//! panic, overflow the stack, or run away with time or memory. An error
//! must be one short line with no control character (file text is escaped
//! and cut); a tree it accepts must print and tick.

#![no_main]

use std::sync::LazyLock;

use canopy_core::{Agent, Tree};
use canopy_data::{Format, Registry, TreeSource};
use libfuzzer_sys::fuzz_target;

static REGISTRY: LazyLock<Registry<(), ()>> = LazyLock::new(Registry::new);

/// The longest error message a file may produce: every piece of file text
/// in it is cut to 80 characters, every list to ten names.
const MAX_MESSAGE_BYTES: usize = 4096;

/// Nodes an agent could visit in one tick: every node, shared subtrees
/// counted at every use.
fn expanded<A, W>(tree: &Tree<A, W>) -> u64 {
    // Post-order over the shared nodes, each sized once.
    let mut size: Vec<Option<u64>> = vec![None; tree.len()];
    let mut stack = vec![(tree.root(), false)];
    while let Some((id, children_done)) = stack.pop() {
        let node = tree.node(id);
        if size[id.index()].is_some() {
            continue;
        }
        if children_done {
            let total = node.children().fold(1u64, |n, child| {
                n.saturating_add(size[child.id().index()].unwrap_or(0))
            });
            size[id.index()] = Some(total);
        } else {
            stack.push((id, true));
            stack.extend(node.children().map(|child| (child.id(), false)));
        }
    }
    size[tree.root().index()].unwrap_or(0)
}

fuzz_target!(|data: &[u8]| {
    for (format, source) in [(Format::Json, "fuzz.json"), (Format::Ron, "fuzz.ron")] {
        match REGISTRY.loading(TreeSource::bytes(data, format, source)).load() {
            Ok(tree) => {
                // The builder bounds the work of a tick and of printing.
                let expanded = expanded(&tree);
                assert!(expanded <= canopy_core::limits::MAX_EXPANDED_NODES);
                // Within the bound, printing and ticking are linear in the
                // expanded size, and near the bound they are slow under the
                // fuzzer's instrumentation: printing a million lines and
                // ticking 2 agents × 4 times took 12 s of CPU, over the 10 s
                // timeout (natively, `canopy print` writes those lines in
                // 0.4 s). That is work the bound allows, not a hang, so a
                // tree near the bound is ticked once and not printed.
                let small = expanded <= 100_000;
                let (agents, ticks) = if small { (2, 4) } else { (1, 1) };
                if small {
                    let _ = tree.display().to_string();
                }
                for id in 0..agents {
                    let mut agent = Agent::with_id(&tree, id);
                    for _ in 0..ticks {
                        agent.tick(&tree, &mut (), &());
                    }
                }
            }
            Err(e) => {
                let message = e.to_string();
                assert!(
                    !message.chars().any(char::is_control),
                    "control character in {message:?}"
                );
                assert!(
                    message.len() <= MAX_MESSAGE_BYTES,
                    "{} bytes: {}…",
                    message.len(),
                    message.chars().take(200).collect::<String>()
                );
            }
        }
    }
});
