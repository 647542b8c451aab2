//! Typed parameters: what a node type accepts, declared once.
//!
//! A node type — one of the engine's own kinds or one of a game's —
//! declares its parameters as a struct: `#[derive(Params)]` makes its doc
//! comment the type's description and each field a parameter, named as the
//! field, read as the field's type ([`FromParam`]), narrowed by
//! `#[param(default = …, range = …, len = …)]` ([`NodeParams`]). Loaders
//! check a file's values against that declaration ([`Param`],
//! [`ParamKind`]) before any node is made, and hand the node type its
//! struct ([`Params`](struct@Params) → [`NodeParams::from_params`]); printing and export
//! read the values back ([`NodeParams::values`], as [`Literal`]s).
//!
//! The engine's kinds use the same mechanism as user node types, so a
//! kind's parameters are declared in its own file and `canopy nodes`, the
//! loaders and the exporters need no list of them.
//!
//! Why this shape: clap's derive declares a command line once, as a struct
//! whose doc comments are the help and whose attributes give defaults and
//! ranges, and hands the program the typed struct; tree files are the same
//! problem — text from people who do not read the code, checked with
//! messages that say what is accepted. Considered and rejected: bevy-style
//! reflection, which reads fields by name at run time, where every read can
//! fail, late; and serde's `Deserialize`, whose derived errors cannot say
//! what range or words a field accepts, and which would make serde a
//! dependency of the engine.

pub(crate) mod declare;
pub(crate) mod error;
pub(crate) mod literal;
pub(crate) mod typed;
pub(crate) mod value;

pub use declare::{Param, ParamKind};
pub use error::ParamError;
pub use literal::Literal;
pub use typed::{FromParam, IntoDefault, NodeParams, ParamEnum, Statuses, Ticks};
pub use value::{ParamValue, Params};

/// `#[derive(Params)]` and `#[derive(ParamEnum)]`, beside the traits they
/// implement.
pub use canopy_derive::{ParamEnum, Params};
