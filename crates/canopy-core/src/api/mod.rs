//! What users hold: the [`Agent`](agent::Agent), the
//! [`Builder`](builder::Builder), printed trees, and views into a running
//! agent.

pub mod agent;
pub mod builder;
pub mod display;
pub mod inspect;
pub mod lod;
pub(crate) mod reload;
pub mod snapshot;
