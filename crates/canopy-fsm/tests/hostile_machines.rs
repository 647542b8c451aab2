//! Machine files written to hurt: a tree file named by many states is
//! read once, the reader's work grows with the file and no faster (each
//! doubling test doubles a file and counts the bytes allocated and at the
//! peak, never time), and a state's tree file stays inside the machine
//! file's directory unless the registry allows otherwise.
//!
//! This binary installs the counting allocator, so every test takes
//! [`serial`] first: the counters see every thread.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use canopy_counting::Counting;
use canopy_data::Registry;
use canopy_fsm::MachineRegistry;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One test at a time: the allocation counters are global.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-fsm-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn registry() -> MachineRegistry<(), (), u8> {
    let mut registry = MachineRegistry::new(Registry::new());
    registry.trigger("Next", 0);
    registry
}

/// A machine of `states` states in a ring of transitions, each running
/// the tree file `tree.json`.
fn ring(states: usize) -> String {
    let list: Vec<String> = (0..states)
        .map(|i| format!(r#"{{"name": "S{i}", "tree": "tree.json"}}"#))
        .collect();
    let arrows: Vec<String> = (0..states)
        .map(|i| {
            let to = (i + 1) % states;
            format!(r#"{{"from": "S{i}", "trigger": "Next", "to": "S{to}"}}"#)
        })
        .collect();
    format!(
        r#"{{"initial": "S0", "states": [{}], "transitions": [{}]}}"#,
        list.join(", "),
        arrows.join(", ")
    )
}

/// A tree file of a Sequence over `leaves` Waits.
fn tree_of(leaves: usize) -> String {
    let list: Vec<String> = (0..leaves)
        .map(|i| format!(r#"{{"type": "Wait", "name": "w{i}", "ticks": 1}}"#))
        .collect();
    format!(
        r#"{{"tree": {{"type": "Sequence", "children": [{}]}}}}"#,
        list.join(", ")
    )
}

/// Heap bytes at the peak of loading `machine` beside `tree`, above what
/// was live before, and heap bytes allocated in all; and the input's size.
fn load_cost(dir: &Path, states: usize, leaves: usize) -> (u64, u64, usize) {
    let (machine, tree) = (ring(states), tree_of(leaves));
    std::fs::write(dir.join("tree.json"), &tree).unwrap();
    std::fs::write(dir.join("m.json"), &machine).unwrap();
    let registry = registry();
    let before = canopy_counting::stats();
    canopy_counting::reset_peak();
    let loaded = registry.load_file(dir.join("m.json")).unwrap();
    let after = canopy_counting::stats();
    assert_eq!(loaded.len(), states);
    drop(loaded);
    (
        after.peak_bytes - before.live_bytes,
        after.allocated_bytes - before.allocated_bytes,
        machine.len() + tree.len(),
    )
}

#[test]
fn a_machine_file_loads_in_work_that_doubles_with_it() {
    let _serial = serial();
    let dir = scratch("doubling");
    let (small_peak, small_allocated, small) = load_cost(&dir, 2000, 2000);
    let (large_peak, large_allocated, large) = load_cost(&dir, 4000, 4000);
    let input = large as f64 / small as f64;
    let peak = large_peak as f64 / small_peak as f64;
    let allocated = large_allocated as f64 / small_allocated as f64;
    println!(
        "{small} → {large} bytes ({input:.2}×): peak {small_peak} → {large_peak} ({peak:.2}×), \
         allocated {small_allocated} → {large_allocated} ({allocated:.2}×)"
    );
    assert!((1.9..2.1).contains(&input), "{input}");
    assert!(peak < 2.3, "the peak grew {peak:.2}× for twice the input");
    assert!(
        allocated < 2.3,
        "the bytes allocated grew {allocated:.2}× for twice the input"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_states_tree_file_stays_in_the_machines_directory_unless_allowed() {
    let _serial = serial();
    let dir = scratch("confined");
    std::fs::create_dir_all(dir.join("m")).unwrap();
    std::fs::write(dir.join("secret.json"), tree_of(1)).unwrap();
    std::os::unix::fs::symlink("../secret.json", dir.join("m/link.json")).unwrap();
    let state = |tree: &str| {
        let machine = dir.join("m/machine.json");
        let text = format!(r#"{{"initial": "S", "states": [{{"name": "S", "tree": "{tree}"}}]}}"#);
        std::fs::write(&machine, text).unwrap();
        machine
    };
    let machine = state("link.json");
    let error = registry().load_file(&machine).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "{}:1:31: machine/states[0] (name \"S\"): the tree file \"link.json\" leaves the \
             directory of the machine file through a symbolic link; canopy reads tree files \
             only inside it (allow others with MachineRegistry::trees_outside, or \
             --includes-outside)",
            machine.display()
        )
    );
    let mut outside = registry();
    outside.trees_outside(true);
    assert_eq!(outside.load_file(&machine).unwrap().len(), 1);
    // `..` too, which is refused by its spelling without the opt-in.
    let machine = state("../secret.json");
    assert!(registry().load_file(&machine).is_err());
    assert_eq!(outside.load_file(&machine).unwrap().len(), 1);
    // A link to nothing is a file that cannot be read.
    std::fs::remove_file(dir.join("secret.json")).unwrap();
    let machine = state("link.json");
    let missing = registry().load_file(&machine).unwrap_err().to_string();
    let link = dir.join("m").join("link.json");
    assert!(
        missing.starts_with(&format!(
            "{}:1:31: machine/states[0] (name \"S\"): its tree: {}: cannot read",
            machine.display(),
            link.display()
        )),
        "{missing}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
