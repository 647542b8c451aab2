//! `canopy`: tree files from the shell — check them, look at them, run
//! them, measure what they cost a crowd, export them to BehaviorTree.CPP
//! XML, replay their traces in the browser and look into saved crowds.
//!
//! This binary is [`canopy_cli::Cli`] over canopy's built-in node types,
//! which `run` and `bench` run with `()` as agent data and world (for
//! prototyping tree files with `Script`, `Random`, `Chance` and `Periodic`
//! leaves and comparing their cost), plus the crowd simulation's node types
//! under `--types crowd` (the default feature `crowd`), so that the repository's crowd tree can be
//! checked, drawn and exported from the shell. A game's own node types
//! need a `canopy` built with the game's registry: see `canopy_cli`.

use std::process::ExitCode;

use canopy_cli::Cli;
#[cfg(feature = "crowd")]
use canopy_cli::Types;
use canopy_counting::Counting;
use canopy_data::Registry;

/// Counts allocations and heap bytes, for `bench`'s figures; see
/// [`canopy_counting`]. The other subcommands do not notice it.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() -> ExitCode {
    let cli = Cli::new(Registry::<(), ()>::new())
        .agent(|_| ())
        .world(())
        .types_named("builtin", "the built-in node types");
    #[cfg(feature = "crowd")]
    let cli = cli.with_types(
        "crowd",
        "the crowd demo's node types",
        Types::new(canopy_crowd::registry()),
    );
    cli.run()
}
