//! A saved crowd, loaded, steps exactly as the crowd that was never saved:
//! the same state hash step for step, in both modes. Damaged, cut or
//! foreign files are errors, never panics.

use canopy_core::Mode;
use canopy_crowd::{Config, Crowd, SavedCrowdError, load_default_tree, registry};
use canopy_data::{Format, TreeSource};

fn crowd(mode: Mode) -> Crowd {
    let config = Config {
        agents: 300,
        seed: 9,
        mode,
        ..Config::default()
    };
    Crowd::new(load_default_tree().unwrap(), &config)
}

#[test]
fn a_loaded_crowd_steps_as_the_saved_one_would_have() {
    for mode in [Mode::Tick, Mode::Event] {
        let mut original = crowd(mode);
        for _ in 0..40 {
            original.step();
        }
        let saved = original.save();
        let mut loaded = Crowd::load(load_default_tree().unwrap(), &saved).unwrap();
        assert_eq!(
            loaded.state_hash(),
            original.state_hash(),
            "{mode:?}: on load"
        );
        assert_eq!(loaded.world.step, 40);
        for step in 41..=120 {
            original.step();
            loaded.step();
            assert_eq!(
                loaded.state_hash(),
                original.state_hash(),
                "{mode:?}: step {step}"
            );
        }
        // Saving the loaded crowd gives the same bytes as saving the original.
        assert_eq!(loaded.save(), original.save(), "{mode:?}");
    }
}

#[test]
fn damaged_files_are_errors() {
    let mut original = crowd(Mode::Event);
    for _ in 0..10 {
        original.step();
    }
    let saved = original.save();
    let load = |bytes: &[u8]| Crowd::load(load_default_tree().unwrap(), bytes);
    assert!(matches!(load(b"nope"), Err(SavedCrowdError::NotACrowd)));
    let mut version = saved.clone();
    version[4] = 9;
    assert_eq!(
        load(&version).err().unwrap().to_string(),
        "a saved crowd of format version 9; this build reads version 2"
    );
    // Every cut is an error.
    for len in (0..saved.len()).step_by(97).chain([saved.len() - 1]) {
        assert!(load(&saved[..len]).is_err(), "cut at {len}");
    }
    let mut longer = saved.clone();
    longer.push(0);
    assert_eq!(
        load(&longer).err().unwrap().to_string(),
        "damaged saved crowd: bytes after the end"
    );
    // A huge agent count is refused before anything is allocated.
    let mut huge = saved.clone();
    huge[6..10].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        load(&huge).err().unwrap().to_string(),
        "damaged saved crowd: the number of agents is 4294967295; \
         the simulation runs with 1 to 2000000"
    );
    // Flipped bytes anywhere: an error or a crowd, never a panic.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut bytes = saved.clone();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = (x % bytes.len() as u64) as usize;
            bytes[at] ^= (x >> 32) as u8 | 1;
        }
        if let Ok(mut crowd) = load(&bytes) {
            crowd.step();
        }
    }
}

#[test]
fn a_crowd_saved_with_another_tree_is_refused() {
    let saved = crowd(Mode::Tick).save();
    let other = registry()
        .loading(TreeSource::text(
            r#"{"tree": {"type": "AlwaysSuccess"}}"#,
            Format::Json,
            "other.json",
        ))
        .load()
        .unwrap();
    let err = Crowd::load(other, &saved).err().unwrap();
    assert!(matches!(err, SavedCrowdError::Agents(_)), "{err}");
    assert!(
        err.to_string().starts_with("the agents' snapshots: "),
        "{err}"
    );
}

#[test]
fn reloading_an_identical_tree_changes_nothing() {
    let mut original = crowd(Mode::Tick);
    let mut reloaded = crowd(Mode::Tick);
    for _ in 0..30 {
        original.step();
        reloaded.step();
    }
    let (kept, aborted) = reloaded.reload(load_default_tree().unwrap());
    assert!(kept > 300, "every agent runs at least its root: {kept}");
    assert_eq!(aborted, 0);
    for _ in 0..30 {
        original.step();
        reloaded.step();
        assert_eq!(reloaded.state_hash(), original.state_hash());
    }
}
