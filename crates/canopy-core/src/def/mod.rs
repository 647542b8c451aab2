//! Definitions: what a node *is*, independent of any tree or agent.
//!
//! - [`kind`]: [`NodeKind`](kind::NodeKind), every kind of node with its
//!   parameters, and [`Facts`](kind::Facts), what the layout and the
//!   scheduler must know about a kind;
//! - [`custom`]: the [`Node`](custom::Node) trait for user node types;
//! - [`observer`]: events and the [`Observer`](observer::Observer) that
//!   receives them;
//! - [`exec`]: the interface through which a kind's code runs its own task
//!   and its children. The engine implements it; the kinds, in
//!   [`nodes`](crate::nodes), are written against it. That is what lets
//!   each kind keep its facts *and* its semantics in one file below the
//!   tree and the engine.

pub(crate) mod custom;
pub(crate) mod exec;
pub(crate) mod kind;
pub(crate) mod observer;
