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
//! # Untrusted files
//!
//! Files come from modders and designers, so loading is bounded whatever
//! they hold: only regular files are opened, at most [`MAX_FILE_BYTES`] + 1
//! bytes are read from any source ([`Registry::load_reader`] for streams),
//! brackets nest at most [`MAX_NESTING`] deep, a file holds at most
//! [`MAX_NODES`] node objects, and nodes nest at most
//! [`canopy_core::MAX_DEPTH`] levels through subtrees. The parsed document
//! is compact (strings borrow from the text; about three times the file's
//! size) and dropped before the tree is built. Subtrees no reference
//! reaches are checked too, together, in work linear in the file. A UTF-8
//! byte-order mark at the start is skipped.
//!
//! ```
//! use canopy_core::{Agent, Status};
//! use canopy_data::{Format, Registry};
//!
//! let registry = Registry::<(), ()>::new();
//! let tree = registry.load_str(r#"(tree: (type: "Sequence", children: [
//!     (type: "Script", statuses: ["Running", "Success"]),
//!     (type: "Wait", ticks: 1),
//! ]))"#, Format::Ron, "demo.ron").unwrap();
//! let mut agent = Agent::new(&tree);
//! assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
//! assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
//! assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
//! ```

#![warn(missing_docs, unreachable_pub)]

// The derives name this crate `::canopy_data`, in its own code too.
extern crate self as canopy_data;

mod builtins;
mod check;
mod doc;
mod error;
mod load;
mod param;
mod registry;
mod text;
mod typed;
mod value;
mod walk;

pub use error::{LoadError, Location, ParamError, Problem};
pub use load::{Format, MAX_FILE_BYTES, MAX_NESTING, MAX_NODES, parse};
pub use param::{Param, ParamKind};
pub use registry::{NodeType, Registry, RegistryError};
pub use text::{MAX_QUOTED_CHARS, escape, number, quote};
pub use typed::{FromParam, IntoDefault, NodeParams, ParamEnum, Ticks};
pub use value::{ParamValue, Params};

/// `#[derive(Params)]`: a struct's fields as a node type's parameters
/// ([`NodeParams`]). `#[derive(ParamEnum)]`: an enum's variants as the
/// words of a parameter ([`ParamEnum`]).
pub use canopy_derive::{ParamEnum, Params};

/// The JSON values parameter defaults are written in
/// ([`Param::default`], [`FromParam::to_json`]).
pub use serde_json;
