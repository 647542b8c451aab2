//! Any bytes as a saved crowd (`canopy_crowd::Crowd::load`). Loading must
//! give a crowd or an error — never a panic, a hang or an unbounded
//! allocation — and a crowd that loads must step: every value a save may
//! hold is one the simulation runs with, with level of detail and
//! without. Half of the inputs are read as
//! they are; the other half say how to damage a real save (after how many
//! steps it is taken, then which bytes to flip), so the checks behind the
//! header, the walkers and the agents' snapshots are reached too.

#![no_main]

use std::sync::LazyLock;

use canopy_core::Mode;
use canopy_crowd::{Config, Crowd, load_default_tree};
use libfuzzer_sys::fuzz_target;

/// Real saves, made once: stepping a crowd for every input would spend
/// the run on making saves rather than on reading them.
static REAL: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| (0..32).map(real).collect());

/// A real save of a small crowd after `steps % 16` steps, in tick or event
/// mode.
fn real(steps: u8) -> Vec<u8> {
    let config = Config {
        agents: 12,
        seed: u64::from(steps),
        mode: if steps & 1 == 0 { Mode::Tick } else { Mode::Event },
        ..Config::default()
    };
    let mut crowd = Crowd::new(load_default_tree().unwrap(), &config);
    for _ in 0..steps % 16 {
        crowd.step();
    }
    crowd.save()
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&mode, rest)) if mode & 1 == 1 => {
            let mut bytes = REAL[usize::from(mode >> 1) % REAL.len()].clone();
            for edit in rest.chunks_exact(3) {
                let at = u16::from_le_bytes([edit[0], edit[1]]) as usize % bytes.len();
                bytes[at] ^= edit[2];
            }
            load_and_step(&bytes);
        }
        _ => load_and_step(data),
    }
});

fn load_and_step(bytes: &[u8]) {
    if let Ok(mut crowd) = Crowd::load(load_default_tree().unwrap(), bytes) {
        for _ in 0..3 {
            crowd.step();
        }
        // With level of detail (only the agents due perceive and steer),
        // then without it again (everyone perceives before the tick).
        if crowd.set_lod(true).is_ok() {
            for _ in 0..3 {
                crowd.step();
            }
            let _ = crowd.set_lod(false);
            crowd.step();
        }
        let _ = crowd.state_hash();
        let _ = crowd.save();
    }
}
