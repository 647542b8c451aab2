//! A checkpoint written by some ranks, restarted on another number of
//! ranks, continues with the uninterrupted run's hashes; a damaged part is
//! an error naming the rank, the file and the problem.

mod common;

use std::path::PathBuf;

use canopy_core::Mode;
use canopy_crowd::{Config, load_default_tree};
use canopy_mpi::{Balance, Shard, ShardError};
use common::{on_ranks, restarted, sharded, single};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("canopy-mpi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config(mode: Mode) -> Config {
    Config {
        agents: 300,
        seed: 11,
        mode,
        ..Config::default()
    }
}

fn restart_continues_the_uninterrupted_run(mode: Mode, written_by: usize, read_by: usize) {
    let config = config(mode);
    let expected = single(&config, 120);
    let dir = scratch(&format!("{mode:?}-{written_by}-{read_by}"));
    let first = sharded(&config, written_by, 60, Balance::default(), Some(&dir));
    assert_eq!(first.hashes, expected[..60]);
    let second = restarted(&dir, read_by, 60);
    assert_eq!(second.hashes, expected[60..]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_of_two_ranks_goes_on_on_four_in_tick_mode() {
    restart_continues_the_uninterrupted_run(Mode::Tick, 2, 4);
}

#[test]
fn a_checkpoint_of_four_ranks_goes_on_on_one_in_event_mode() {
    restart_continues_the_uninterrupted_run(Mode::Event, 4, 1);
}

#[test]
fn a_checkpoint_of_one_rank_goes_on_on_two_in_event_mode() {
    restart_continues_the_uninterrupted_run(Mode::Event, 1, 2);
}

fn restart_error(dir: &std::path::Path) -> String {
    let results = on_ranks(2, |t| {
        Shard::restart(load_default_tree().unwrap(), dir, Balance::default(), t).map(|_| ())
    });
    match &results[1] {
        Err(e @ ShardError::Checkpoint { .. }) => e.to_string(),
        other => panic!("expected a checkpoint error, got {other:?}"),
    }
}

#[test]
fn a_damaged_or_missing_part_is_an_error_naming_the_rank_the_file_and_the_problem() {
    let dir = scratch("damaged");
    sharded(&config(Mode::Tick), 2, 5, Balance::default(), Some(&dir));
    let part = dir.join("part-1.cnmk");
    let bytes = std::fs::read(&part).unwrap();

    std::fs::write(&part, &bytes[..bytes.len() - 3]).unwrap();
    assert_eq!(
        restart_error(&dir),
        format!(
            "rank 1: checkpoint {}: it ends before its records do",
            part.display()
        )
    );

    let mut foreign = bytes.clone();
    foreign[0] = b'X';
    std::fs::write(&part, &foreign).unwrap();
    assert_eq!(
        restart_error(&dir),
        format!(
            "rank 1: checkpoint {}: it is not a canopy-mpi checkpoint",
            part.display()
        )
    );

    std::fs::remove_file(&part).unwrap();
    let message = restart_error(&dir);
    assert!(
        message.starts_with(&format!("rank 1: checkpoint {}: ", part.display())),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_rank_reads_only_the_parts_beside_its_strip_so_a_damaged_far_part_stops_only_its_reader() {
    let dir = scratch("far");
    sharded(&config(Mode::Tick), 4, 5, Balance::default(), Some(&dir));
    let part = dir.join("part-3.cnmk");
    let mut bytes = std::fs::read(&part).unwrap();
    let last = bytes.len() - 1;
    bytes.truncate(last);
    std::fs::write(&part, &bytes).unwrap();
    let results = on_ranks(2, |t| {
        Shard::restart(load_default_tree().unwrap(), &dir, Balance::default(), t).map(|_| ())
    });
    assert_eq!(
        results[1].as_ref().unwrap_err().to_string(),
        format!(
            "rank 1: checkpoint {}: it ends before its records do",
            part.display()
        )
    );
    // Rank 0's strip, the arena's left half, is far from part 3's: it
    // never read that part, and learns of the failure from rank 1 leaving.
    assert_eq!(
        results[0].as_ref().unwrap_err().to_string(),
        "rank 0: rank 1 left the run in the middle of a step"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parts_whose_strips_do_not_tile_the_arena_are_an_error_naming_the_part() {
    let dir = scratch("tiles");
    sharded(&config(Mode::Tick), 2, 5, Balance::default(), Some(&dir));
    let part = dir.join("part-1.cnmk");
    let mut bytes = std::fs::read(&part).unwrap();
    // The strip's first and last column, after magic, version, part and parts.
    let column = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let (start, end) = (column(&bytes, 14), column(&bytes, 18));
    bytes[14..18].copy_from_slice(&(start + 1).to_le_bytes());
    std::fs::write(&part, &bytes).unwrap();
    assert_eq!(
        restart_error(&dir),
        format!(
            "rank 1: checkpoint {}: its columns {}..{end} do not follow the previous part's, which end at {start} of {end}",
            part.display(),
            start + 1
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
