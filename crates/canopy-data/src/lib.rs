//! Data-driven trees: node types registered by name, trees read from JSON
//! or RON files, with typed parameters and errors that say where and why.
//!
//! # The file format
//!
//! ```json
//! {"tree": {"type": "Sequence", "name": "root", "children": [
//!     {"type": "SubTree", "tree": "Flee"},
//!     {"type": "Repeat", "times": 3, "children": [{"type": "Wait", "ticks": 2}]}
//!  ]},
//!  "subtrees": {"Flee": {"type": "AlwaysSuccess"}}}
//! ```
//!
//! A node object has `type` (a registered name), an optional `name` (the
//! type when absent; names need not be unique), `children` (composites: any
//! number; decorators: exactly one; leaves: none) and its parameters as
//! further fields. `subtrees` holds named node objects; `{"type": "SubTree",
//! "tree": "Flee"}` stands for the subtree's root — one shared definition,
//! whatever the number of references and agents. RON files hold the same
//! document in RON syntax: `(tree: (type: "Sequence", children: [...]))`.
//!
//! Errors name the file, the node's path and name, and the problem:
//! `crowd.json: tree/children[2]/children[0] (name "guard"): missing
//! parameter "ticks" (integer ≥ 1, required)`; malformed text is reported
//! with its line and column. They are typed ([`LoadError`] with a
//! [`Location`] and a [`Problem`]; factories return [`ParamError`]), keep
//! the file's text as it was, and show it safely: every name, key and value
//! a message quotes is escaped ([`escape`]: control characters,
//! bidirectional overrides and backslashes as Rust escapes) and cut after
//! [`MAX_QUOTED_CHARS`] characters with its length ([`quote`]).
//!
//! # Your own node types
//!
//! A node type is registered in one call, with its parameters declared
//! once as a struct: `#[derive(Params)]` ([`NodeParams`]) makes its doc
//! comment the type's description and each field a parameter — named as
//! the field, read as the field's type ([`FromParam`]: numbers, `bool`,
//! `String`, [`Ticks`], points `[f32; 2]` and `[f32; 3]`, `Vec`s,
//! `Option`s, enums with `#[derive(ParamEnum)]`), described by its doc
//! comment, narrowed by `#[param(default = …, range = …, len = …)]`. The
//! loader checks every value against that declaration before the factory
//! runs, and the factory receives the struct: it reads fields, never
//! names that could be misspelt. Three shapes cover what users write:
//!
//! | shape | call | factory returns |
//! |---|---|---|
//! | a stateless action leaf | [`Registry::action`] | `Fn(&mut Ctx<A, W>) -> Status` |
//! | a condition (also a Guard's `condition`) | [`Registry::condition`] | `Fn(&Ctx<A, W>) -> bool` |
//! | a node type with per-agent state: a leaf, a decorator or a composite | [`Registry::node`] with its [`Arity`](canopy_core::Arity) | a [`Node`](canopy_core::Node) |
//!
//! ```
//! use canopy_core::{Agent, Arity, Children, Ctx, Node, Status};
//! use canopy_data::{Format, ParamEnum, Params, Registry, Ticks, TreeSource};
//! use canopy_derive::Task; // `canopy::Task` through the facade
//!
//! struct Guard { pos: [f32; 2], alarm: bool }
//! struct World { enemy: [f32; 2] }
//!
//! /// True while the enemy is within `radius`.
//! #[derive(Params)]
//! struct Seen {
//!     /// How far the guard sees.
//!     #[param(default = 8.0, range = 0.0..=100.0)]
//!     radius: f32,
//! }
//!
//! #[derive(Clone, Copy, ParamEnum)]
//! enum Sound { Bell, Horn }
//!
//! /// Raises the alarm.
//! #[derive(Params)]
//! struct Alarm {
//!     /// What to sound.
//!     #[param(default = Sound::Bell)]
//!     sound: Sound,
//! }
//!
//! /// Walks to each point in turn, one per tick; Success after the last.
//! #[derive(Params)]
//! struct RouteParams {
//!     /// Where to walk.
//!     #[param(len = 1..)]
//!     points: Vec<[f32; 2]>,
//!     /// Ticks to rest first.
//!     #[param(default = 0)]
//!     rest: Ticks,
//! }
//!
//! struct Route(RouteParams);
//!
//! /// Per guard, while it walks: the next point.
//! #[derive(Clone, Copy, Task)]
//! #[repr(C)]
//! struct Walking { next: u32 }
//!
//! impl Node<Guard, World> for Route {
//!     type Task = Walking;
//!     fn create_task(&self, _: &mut Ctx<Guard, World>) -> Walking { Walking { next: 0 } }
//!     fn update(&self, w: &mut Walking, cx: &mut Ctx<Guard, World>,
//!               _: &mut Children<Guard, World>) -> Status {
//!         cx.agent.pos = self.0.points[w.next as usize];
//!         w.next += 1;
//!         if w.next as usize == self.0.points.len() { Status::Success } else { Status::Running }
//!     }
//! }
//!
//! let mut registry = Registry::<Guard, World>::new();
//! registry.condition("Seen", |p: Seen| move |cx| {
//!     let (dx, dy) = (cx.world.enemy[0] - cx.agent.pos[0], cx.world.enemy[1] - cx.agent.pos[1]);
//!     dx.hypot(dy) <= p.radius
//! }).unwrap();
//! registry.action("Alarm", |p: Alarm| move |cx| {
//!     cx.agent.alarm = matches!(p.sound, Sound::Bell | Sound::Horn);
//!     Status::Success
//! }).unwrap();
//! registry.node("Route", Arity::Leaf, |p: RouteParams| Route(p)).unwrap();
//!
//! let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Selector", "children": [
//!     {"type": "Sequence", "children": [{"type": "Seen", "radius": 3}, {"type": "Alarm"}]},
//!     {"type": "Route", "points": [[0, 0], [4, 0]]}
//! ]}}"#, Format::Json, "guard.json")).load().unwrap();
//!
//! let mut guard = Guard { pos: [9.0, 9.0], alarm: false };
//! let world = World { enemy: [5.0, 0.0] };
//! let mut agent = Agent::new(&tree);
//! assert_eq!(agent.tick(&tree, &mut guard, &world), Status::Running); // at [0, 0]
//! assert_eq!(agent.tick(&tree, &mut guard, &world), Status::Success); // at [4, 0]
//! assert_eq!(agent.tick(&tree, &mut guard, &world), Status::Success); // sees the enemy
//! assert!(guard.alarm);
//! ```
//!
//! Why this shape. clap's derive declares a command line once, as a
//! struct whose doc comments are the help and whose attributes give
//! defaults and value ranges, and hands the program the typed struct;
//! tree files are the same problem — text from people who do not read the
//! code, checked with messages that say what is accepted — so parameters
//! are declared the same way, and `canopy nodes` prints the declaration as
//! clap prints `--help`. bevy registers systems by passing the function:
//! what it needs is read from its parameter types, not listed beside it;
//! here the factory's argument type (`|p: Seen|`) picks the parameters
//! struct, so a type is one call with nothing to keep in step. bevy's
//! reflection, which reads fields by name at run time, was the road not
//! taken: every read can fail, late, and the failure is the programmer's
//! to handle in every factory. The declaration stays data ([`Param`],
//! [`ParamKind`]) underneath, so types registered by hand
//! ([`NodeType::new`], [`Registry::register_action`], reading [`struct@Params`]
//! by name) keep working beside derived ones, and tools (`canopy nodes`,
//! the BehaviorTree.CPP export) read both alike.
//!
//! # Untrusted files
//!
//! Files come from modders and designers, so loading is bounded whatever
//! they hold: only regular files are opened, at most [`MAX_FILE_BYTES`] + 1
//! bytes are read from any source ([`TreeSource::reader`] for streams),
//! brackets nest at most [`MAX_NESTING`] deep, a file holds at most
//! [`MAX_NODES`] node objects, and nodes nest at most
//! [`canopy_core::limits::MAX_DEPTH`] levels through subtrees. The parsed document
//! is compact (strings borrow from the text; about three times the file's
//! size) and dropped before the tree is built. Subtrees no reference
//! reaches are checked too, together, in work linear in the file. A UTF-8
//! byte-order mark at the start is skipped.
//!
//! ```
//! use canopy_core::{Agent, Status};
//! use canopy_data::{Format, Registry, TreeSource};
//!
//! let registry = Registry::<(), ()>::new();
//! let tree = registry.loading(TreeSource::text(r#"(tree: (type: "Sequence", children: [
//!     (type: "Script", statuses: ["Running", "Success"]),
//!     (type: "Wait", ticks: 1),
//! ]))"#, Format::Ron, "demo.ron")).load().unwrap();
//! let mut agent = Agent::new(&tree);
//! assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
//! assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
//! assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
//! ```

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod builtins;
mod check;
pub mod document;
mod error;
mod format;
mod load;
mod loading;
mod registry;
mod resolve;
mod scripts;
mod walk;

pub use builtins::{EvalKind, SUBTREE_TYPE};
pub use check::read_params;
pub use document::literal_to_json;
pub use error::{
    IncludeProblem, KeyConflict, LoadError, Location, NodePath, PathRoot, PathStep, Position,
    Problem, XmlLimit, XmlProblem,
};
pub use format::{Format, MAX_FILE_BYTES, MAX_NESTING, MAX_NODES};
pub use load::{Lowering, parse, parse_document, read_file, read_file_up_to};
pub use loading::{Loading, TreeSource};
pub use registry::{NodeType, Registry, RegistryError};
pub use walk::MAX_ERRORS;

/// The typed parameters node types declare, defined by the engine (which
/// declares its own kinds' parameters the same way) and re-exported here
/// beside the registry that reads them. `Params` and `ParamEnum` are each
/// a type or trait and its derive.
pub use canopy_core::params::{
    self, FromParam, IntoDefault, Literal, NodeParams, Param, ParamEnum, ParamError, ParamKind,
    ParamValue, Params, Statuses, Ticks,
};

/// Showing text from files safely ([`canopy_core::text`]).
pub use canopy_core::text::{MAX_QUOTED_CHARS, escape, number, quote};

/// The JSON values [`parse`] returns.
pub use serde_json;
