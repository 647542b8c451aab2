//! What users hold: the [`Agent`](agent::Agent), the
//! [`Builder`](builder::Builder), printed trees, and views into a running
//! agent.

pub(crate) mod agent;
pub(crate) mod builder;
pub(crate) mod display;
pub(crate) mod inspect;
pub(crate) mod lod;
pub(crate) mod reload;
pub(crate) mod snapshot;
