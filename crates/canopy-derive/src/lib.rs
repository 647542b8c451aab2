//! Derives for canopy's user-defined nodes, re-exported where they are
//! used: `canopy::Task`, `canopy::data::Params`
//! and `canopy::ParamEnum` (and `canopy_core::…`, `canopy_data::…`).
//!
//! - [`Task`](derive@Task): a custom node's per-agent state, plain bytes.
//! - [`Params`](derive@Params): a struct's fields as a node type's typed
//!   parameters, with docs, defaults and ranges.
//! - [`ParamEnum`](derive@ParamEnum): an enum's variants as the words of
//!   a parameter.
//!
//! The generated code reaches canopy through whichever of `canopy`,
//! `canopy-core` or `canopy-data` the crate depends on (found in its
//! `Cargo.toml`, renamed or not), so no attribute is needed; a crate that
//! reaches canopy another way (through a re-export of its own) says where
//! with `#[task(crate = "…")]` or `#[params(crate = "…")]`.

// Library code reports through return values, never the terminal.
#![cfg_attr(not(test), warn(clippy::print_stdout, clippy::print_stderr))]

mod krate;
mod param_enum;
mod params;
mod task;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// The per-agent state of a custom node ([`Node::Task`]): plain bytes,
/// copied in and out of the agent's pooled memory.
///
/// ```
/// use canopy_core::{Ctx, Children, Node, Status};
/// use canopy_derive::Task; // also `canopy::Task`
///
/// #[derive(Clone, Copy, Task)]
/// #[repr(C)]
/// struct PatrolTask {
///     next: u32,
///     waited: u32,
/// }
///
/// struct Patrol { points: Vec<[f32; 2]> }
///
/// impl Node<[f32; 2], ()> for Patrol {
///     type Task = PatrolTask;
///     fn create_task(&self, _: &mut Ctx<[f32; 2], ()>) -> PatrolTask {
///         PatrolTask { next: 0, waited: 0 }
///     }
///     fn update(&self, task: &mut PatrolTask, cx: &mut Ctx<[f32; 2], ()>,
///               _: &mut Children<[f32; 2], ()>) -> Status {
///         *cx.agent = self.points[task.next as usize % self.points.len()];
///         task.next += 1;
///         Status::Running
///     }
/// }
/// ```
///
/// It implements bytemuck's `Pod` and `Zeroable` (through the `bytemuck`
/// canopy re-exports, so the crate needs no dependency of its own) after
/// checking, at compile time, what makes a type plain bytes; each mistake
/// is an error that says what to do:
///
/// | mistake | the error says |
/// |---|---|
/// | a field that is not plain data: a `String`, a `Vec`, a `bool`, a reference, a pointer, a `char`, an enum | `` `String` cannot be part of a task: tasks are plain bytes (numbers, arrays of them, other `#[derive(Task)]` types); keep `String` in the agent data instead `` |
/// | padding between or after fields (`u8` then `u32`) | reorder the fields from the largest alignment to the smallest, or add the padding as a field (`_pad: [u8; 3]`) |
/// | no `#[repr(C)]` (or `transparent`) | add `#[repr(C)]`: Rust's default layout may reorder fields |
/// | no `Copy` | add `#[derive(Clone, Copy)]` |
/// | generic parameters, an enum, a union | a task is one concrete struct |
///
/// Arrays of plain data are plain data, whatever their length
/// (`[u32; 40]`); so are other `#[derive(Task)]` structs.
///
/// [`Node::Task`]: https://docs.rs/canopy-core/latest/canopy_core/trait.Node.html#associatedtype.Task
#[proc_macro_derive(Task, attributes(task))]
pub fn derive_task(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    task::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A struct's fields as a node type's parameters: implements
/// `canopy_core::params::NodeParams`, whose docs list the attributes.
///
/// The struct's doc comment is the node type's description; each field is
/// a parameter named as the field, read as the field's type (numbers,
/// `bool`, `String`, `Ticks`, points `[f32; 2]`/`[f32; 3]`, `Vec`s,
/// `Option`s, `#[derive(ParamEnum)]` enums), described by its doc comment.
///
/// ```
/// use canopy_core::{Params, params::{NodeParams, Param, Ticks}};
///
/// /// Walks between points, waiting at each.
/// #[derive(Params)]
/// struct PatrolParams {
///     /// The points to walk between, in order.
///     #[param(len = 2..)]
///     points: Vec<[f32; 2]>,
///     /// Ticks to wait at each point.
///     #[param(default = 10)]
///     wait: Ticks,
///     /// Distance walked per tick.
///     #[param(default = 1.0, range = 0.1..=10.0)]
///     speed: f32,
/// }
///
/// assert_eq!(PatrolParams::description(), "Walks between points, waiting at each.");
/// assert_eq!(PatrolParams::declare()[2],
///     Param::float("speed", "Distance walked per tick.").range(0.1, 10.0).default(1.0));
/// ```
#[proc_macro_derive(Params, attributes(param, params))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    params::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// An enum's unit variants as the words of a parameter: implements
/// `canopy_core::ParamEnum` and `canopy_core::params::FromParam`, so a field of
/// the enum's type reads one word, checked with "did you mean" errors.
/// Words are the variants' names in `snake_case`; rename one with
/// `#[param(rename = "…")]`.
///
/// ```
/// use canopy_core::{ParamEnum, params::Param};
///
/// #[derive(Debug, PartialEq, ParamEnum)]
/// enum Gait { Walk, RunAway, #[param(rename = "sneak")] Crouch }
///
/// assert_eq!(Gait::WORDS, ["walk", "run_away", "sneak"]);
/// assert_eq!(Param::of::<Gait>("gait", "how to move").describe(),
///     "one of \"walk\", \"run_away\", \"sneak\", required");
/// ```
#[proc_macro_derive(ParamEnum, attributes(param, params))]
pub fn derive_param_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    param_enum::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
