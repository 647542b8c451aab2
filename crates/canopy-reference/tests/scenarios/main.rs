//! The semantics scenarios of `testdata/` (see `testdata/README.md`), run
//! by one harness per engine: every scenario file is loaded and every
//! scenario run, and a harness fails listing every scenario that failed,
//! with its file and name, rather than stopping at the first.
//!
//! - `testdata/semantics/`: canopy JSON trees with scripted leaves, on
//!   canopy in tick mode and in event mode, the naive interpreter and the
//!   flat interpreter.
//! - `testdata/btcpp/`: BehaviorTree.CPP XML through canopy-btcpp, in both
//!   of canopy's modes.
//! - `testdata/machines/`: canopy-fsm machine files, triggers by tick.
//! - `testdata/formats/`: one tree in canopy JSON, RON and BehaviorTree.CPP
//!   XML, loaded by canopy-data and canopy-btcpp, run alike.
//!
//! An engine that cannot run a scenario's tree skips it only if its
//! harness lists the scenario (or its file) below, with the reason; the
//! skips are printed with the tally.

mod btcpp;
mod format;
mod formats;
mod machines;
mod semantics;

use canopy_core::Mode;
use semantics::Engine;

/// canopy in tick mode: the statuses, every event of the listed ticks, the
/// leaf calls, the aborts async leaves heard; also that the events carry
/// the tick and the agent's id, that `active_tasks` follows the events,
/// that each abort of a wait is heard once, by the leaf and the observer,
/// with its wait's ticket, and that a second run is the same.
#[test]
fn canopy_tick_mode() {
    semantics::run_all(Engine::CanopyTick, &[]);
}

/// canopy in event mode: the same, less the `update … Running` events that
/// event mode reports only for the nodes it visits; and the same statuses,
/// leaf calls and other events as tick mode.
#[test]
fn canopy_event_mode() {
    semantics::run_all(Engine::CanopyEvent, &[]);
}

/// The naive interpreter: statuses and leaf calls (it reports no events).
/// It runs every built-in kind but async leaves: a baseline of classic
/// node objects has no wait table for a game to answer.
#[test]
fn naive_interpreter() {
    semantics::run_all(
        Engine::Naive,
        &[("async.toml", "the naive interpreter has no async leaves")],
    );
}

/// The flat interpreter: statuses, leaf calls and every event. It has
/// every built-in kind and the scripted leaves, but not canopy-data's
/// `Script`, `Random`, `Chance` and `Periodic`, which no scenario uses;
/// nor Utility, whose scorers are user code behind a pointer, against
/// its rule of no dynamic dispatch; nor async leaves, which need the
/// agent's wait table.
#[test]
fn flat_interpreter() {
    semantics::run_all(
        Engine::Flat,
        &[
            ("async.toml", "the flat interpreter has no async leaves"),
            ("utility.toml", "the flat interpreter has no Utility"),
        ],
    );
}

#[test]
fn btcpp_tick_mode() {
    btcpp::run_all(Mode::Tick);
}

#[test]
fn btcpp_event_mode() {
    btcpp::run_all(Mode::Event);
}

/// One tree in canopy JSON, RON and BehaviorTree.CPP XML (and the JSON
/// exported as XML): every form prints and runs the same, or fails to
/// load with its exact error.
#[test]
fn formats() {
    formats::run_all();
}

/// canopy-fsm's machines from files, run by an `FsmAgent`: statuses, the
/// active states, which sends were taken, the hooks' log.
#[test]
fn fsm_machines() {
    machines::run_all();
}

#[test]
fn scripts_read_as_documented() {
    use canopy_core::Status::{Failure as F, Running as R, Success as S};
    assert_eq!(format::statuses("R R S").unwrap(), [R, R, S]);
    assert_eq!(format::statuses(" R*3  F ").unwrap(), [R, R, R, F]);
    assert_eq!(format::truths("T*2 F").unwrap(), [true, true, false]);
    assert!(format::statuses("R Q").is_err());
    assert!(format::statuses("R*x").is_err());
    assert!(format::statuses("T").is_err());
    assert!(format::statuses("").is_err());
    assert!(format::truths("S").is_err());
    // The last entry repeats.
    assert_eq!(
        (1..=4).map(|t| format::at(&[R, S], t)).collect::<Vec<_>>(),
        [R, S, S, S]
    );
}
