//! A small 2D crowd simulation built on canopy, as a user of the library
//! would build one: agents with position, velocity, radius, goal and needs
//! (hunger, fatigue, fear); a world in metres and seconds with food
//! patches and rest areas that serve their visitors at a rate
//! ([`Places`]) and roaming threats; neighbour queries through a spatial
//! grid; a movement model checked against pedestrian measurements
//! ([`Model`], [`scenarios`]): a way chosen round those ahead, a time gap
//! kept to them, ORCA collision avoidance; and one behavior tree, loaded
//! from a file through the registry, shared by every agent. [`Flow`]
//! records whether a run flows (no activity taking over, meals coming).
//!
//! ```
//! use canopy_crowd::{Config, Crowd, load_default_tree};
//!
//! let tree = load_default_tree().unwrap();
//! let mut crowd = Crowd::new(tree, &Config { agents: 200, ..Config::default() });
//! for _ in 0..20 {
//!     crowd.step();
//! }
//! assert_eq!(crowd.world.step, 20);
//! ```
//!
//! # Limits of a saved crowd
//!
//! A saved crowd ([`Crowd::save`], [`Crowd::load`], [`Crowd::load_file`])
//! is a stranger's input: every value in it is checked against the range
//! the simulation runs with, and anything else is a [`SavedCrowdError`]
//! naming the field, its value and its range — never a panic, an abort or
//! a run that crawls.
//!
//! | value | range |
//! |---|---|
//! | agents | 1 to [`MAX_SAVED_AGENTS`], each backed by its record's bytes |
//! | time step | [`MIN_TIME_STEP`] to [`MAX_TIME_STEP`] seconds |
//! | arena side | above 0, at most [`MAX_ARENA_SIZE`] m (a grid of at most 1,667² cells) |
//! | food patches, rest areas, threats | 1 (threats 0) to [`MAX_PLACES`] each, and no more than `max(agents, 16)`: the file's own walker records bound what the crowd scans each tick |
//! | trail samples | 1 to [`MAX_TRAIL`] |
//! | positions, speeds, needs | in or near the arena, at most 1,000 m/s, needs in 0 to 1, a chosen food patch and rest area that exist |
//!
//! A file is read as tree files are: a regular file, opened without
//! blocking, of at most [`MAX_SAVED_CROWD_BYTES`]. The agents' snapshots
//! are restored within [`canopy_core::snapshot::MAX_RESTORED_CROWD_BYTES`], each
//! agent counted at its peak.

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod flow;
mod leaves;
mod lod;
mod model;
mod motion;
mod orca;
mod places;
mod save;
pub mod scenarios;
mod sim;
mod svg;
mod walker;
mod world;

pub use flow::{Busiest, Flow};
pub use leaves::{register, registry};
pub use lod::{class_label, lod_band};
pub use model::{Model, weidmann_speed};
pub use motion::Motion;
pub use places::{Places, Visitors};
pub use save::{
    CrowdFileError, CrowdFileProblem, MAX_ARENA_SIZE, MAX_PLACES, MAX_SAVED_AGENTS,
    MAX_SAVED_CROWD_BYTES, MAX_TIME_STEP, MAX_TRAIL, MIN_TIME_STEP, SAVED_CROWD_VERSION,
    SavedCrowdError,
};
pub use sim::{Config, Crowd, STEER_IN_A_CROWD, StepTimes, state_hash_of};
pub use svg::{class_opacity, render_scene_svg, render_svg};
pub use walker::{Activity, Walker};
pub use world::{Grid, Threat, Wall, World};

use canopy_core::Tree;
use canopy_data::{Format, LoadError, TreeSource};

/// The crowd tree shipped with the repository (`examples/trees/crowd.json`),
/// compiled in so the demo runs from anywhere.
pub const DEFAULT_TREE: &str = include_str!("../trees/crowd.json");

/// Load [`DEFAULT_TREE`] with [`registry`].
pub fn load_default_tree() -> Result<Tree<Walker, World>, LoadError> {
    registry()
        .loading(TreeSource::text(
            DEFAULT_TREE,
            Format::Json,
            "examples/trees/crowd.json",
        ))
        .load()
}
