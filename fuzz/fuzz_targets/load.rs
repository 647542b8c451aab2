//! Any bytes, as JSON and as RON: the loader must return Ok or Err — never
//! panic, overflow the stack, or run away with time or memory — and a tree
//! it accepts must print and tick.

#![no_main]

use std::sync::LazyLock;

use canopy_core::Agent;
use canopy_data::{Format, Registry};
use libfuzzer_sys::fuzz_target;

static REGISTRY: LazyLock<Registry<(), ()>> = LazyLock::new(Registry::new);

fuzz_target!(|data: &[u8]| {
    for (format, source) in [(Format::Json, "fuzz.json"), (Format::Ron, "fuzz.ron")] {
        match REGISTRY.load_bytes(data, format, source) {
            Ok(tree) => {
                let _ = tree.display().to_string();
                for id in 0..2 {
                    let mut agent = Agent::with_id(&tree, id);
                    for _ in 0..4 {
                        agent.tick(&tree, &mut (), &());
                    }
                }
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
