//! State machines for crowds: flat and hierarchical, in canopy's flyweight
//! style, and hybrids with behavior trees.
//!
//! The classic object-oriented state machine gives every object its own
//! machine of state objects. For a crowd that multiplies the definition by the number of
//! agents, so here the split is the same as canopy's trees:
//!
//! | concept | here | per agent? |
//! |---|---|---|
//! | states, hierarchy, transition tables | [`Machine`], from a [`MachineBuilder`] | no, shared, `Send + Sync` |
//! | what a state does | [`State`] or [`Hooks`] (closures), inside the machine | no, shared |
//! | active state path + the active states' data | [`FsmAgent`] | yes: a few bytes, allocated once |
//!
//! Hooks receive canopy's [`Ctx`](canopy_core::Ctx), lending `&mut A` (the
//! agent's data) and `&W` (the world) for the call, exactly as tree leaves
//! do; so a machine stores no data, and a crowd updates in parallel with
//! rayon (see [`FsmAgent`]). Updating and sending triggers allocate nothing
//! (a dhat test checks it).
//!
//! The order in which hooks run — start, update, send, transitions across
//! levels, self-transitions, stop — is specified in [`runtime`].
//!
//! A game player, as a hierarchical machine:
//!
//! ```
//! use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
//! use canopy_core::Ctx;
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//! enum Input { Move, Jump, Land, Attack, Done }
//!
//! type Log = Vec<String>;
//! fn traced(name: &'static str) -> Hooks<Log, (), Input> {
//!     Hooks::new()
//!         .on_enter(move |cx: &mut Ctx<Log, ()>| cx.agent.push(format!("enter {name}")))
//!         .on_exit(move |cx: &mut Ctx<Log, ()>| cx.agent.push(format!("exit {name}")))
//! }
//!
//! let mut moving = MachineBuilder::new();
//! moving.state("Walk", traced("Walk"));
//! moving.state("Jump", traced("Jump"));
//! moving.transition("Walk", Input::Jump, "Jump").transition("Jump", Input::Land, "Walk");
//! moving.start("Walk");
//!
//! let mut b = MachineBuilder::new();
//! b.state("Idle", traced("Idle"));
//! b.state("Move", traced("Move")).child_machine(moving);
//! b.state("Attack", traced("Attack"));
//! b.transition("Idle", Input::Move, "Move")
//!     .transition("Move", Input::Attack, "Attack")
//!     .transition("Attack", Input::Done, "Idle");
//! b.start("Idle");
//! let machine = b.build().unwrap();
//!
//! let (mut log, mut agent) = (Log::new(), FsmAgent::new(&machine));
//! for input in [Input::Move, Input::Jump, Input::Attack] {
//!     assert!(agent.send(&machine, input, &mut log, &()));
//! }
//! assert!(!agent.send(&machine, Input::Land, &mut log, &())); // Attack ignores it
//! assert_eq!(log, [
//!     "enter Idle",
//!     "exit Idle", "enter Move", "enter Walk",   // Move, into its start state
//!     "exit Walk", "enter Jump",                 // inside Move
//!     "exit Jump", "exit Move", "enter Attack",  // innermost first
//! ]);
//! ```

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

pub mod agent;
pub mod builder;
pub mod display;
pub mod error;
pub mod file;
pub mod hybrid;
pub mod machine;
pub mod runtime;
mod snapshot;
pub mod state;

pub use agent::{FsmAgent, WRONG_MACHINE};
pub use builder::{MAX_DEPTH, MAX_STATE_BYTES, MAX_STATES, MachineBuilder, StateDraft};
pub use error::FsmError;
pub use file::{MAX_TRANSITIONS_PER_STATE, MachineLoadError, MachineProblem, MachineRegistry};
pub use hybrid::{LEAF_MAX_DATA, LEAF_MAX_DEPTH, LeafTask, MachineLeaf, TreeState};
pub use machine::{Machine, StateId};
pub use snapshot::{FSM_SNAPSHOT_VERSION, FsmRestoreError, FsmSnapshot, restore_crowd, save_crowd};
pub use state::{Hooks, State};
