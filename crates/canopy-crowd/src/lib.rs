//! A small 2D crowd simulation built on canopy, as a user of the library
//! would build one: agents with position, velocity, radius, goal and needs
//! (hunger, fatigue, fear); a world with food, rest areas and roaming
//! threats; neighbour queries through a spatial grid; ORCA collision
//! avoidance from `dodgy_2d`; and one behavior tree, loaded from a file
//! through the registry, shared by every agent.
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

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod leaves;
mod motion;
mod save;
mod sim;
mod svg;
mod walker;
mod world;

pub use leaves::{register, registry};
pub use save::{
    CrowdFileError, CrowdFileProblem, MAX_ARENA_SIZE, MAX_PLACES, MAX_SAVED_AGENTS,
    MAX_SAVED_CROWD_BYTES, MAX_TIME_STEP, MAX_TRAIL, MIN_TIME_STEP, SAVED_CROWD_VERSION,
    SavedCrowdError,
};
pub use sim::{Config, Crowd, StepTimes};
pub use svg::render_svg;
pub use walker::{Activity, Walker};
pub use world::{Grid, Threat, World};

use canopy_core::Tree;
use canopy_data::{Format, LoadError};

/// The crowd tree shipped with the repository (`examples/trees/crowd.json`),
/// compiled in so the demo runs from anywhere.
pub const DEFAULT_TREE: &str = include_str!("../trees/crowd.json");

/// Load [`DEFAULT_TREE`] with [`registry`].
pub fn load_default_tree() -> Result<Tree<Walker, World>, LoadError> {
    registry().load_str(DEFAULT_TREE, Format::Json, "examples/trees/crowd.json")
}
