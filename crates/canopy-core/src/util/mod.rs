//! The vocabulary every other module speaks: small `Copy` types with no
//! engine code in them, so that definitions, the tree, per-agent state and
//! the engine can all depend on them without depending on each other.
//!
//! - [`status`]: what an update reports ([`Status`]) and why a task ended ([`Exit`]);
//! - [`primitives`]: node ids, arities, parallel policies, execution modes,
//!   and tick arithmetic;
//! - [`context`]: what leaf code sees ([`Ctx`]) and the types of leaf code;
//! - [`ticket`]: the handle that completes an asynchronous leaf;
//! - [`text`]: user text made safe to show (escaping, quoting, "did you
//!   mean");
//! - [`params`]: typed parameters, declared once per node type;
//! - [`hash`]: the hash behind every reproducible random draw;
//! - [`convert`]: BehaviorTree.CPP's conversions between text and values;
//! - [`board`]: the blackboard's slots, ports and value types.
//!
//! [`Status`]: status::Status
//! [`Exit`]: status::Exit
//! [`Ctx`]: context::Ctx

pub mod board;
pub mod context;
pub mod convert;
pub mod hash;
pub mod params;
pub(crate) mod primitives;
pub(crate) mod status;
pub mod text;
pub(crate) mod ticket;
