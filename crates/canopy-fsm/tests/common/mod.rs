//! Hooks that write what runs into the agent data, for exact-order tests.

#![allow(dead_code)] // each test file uses part of it

use canopy_fsm::Hooks;

/// The agent data of the tests: a trace of hook calls, and which state's
/// next update should fire which trigger.
#[derive(Debug, Default)]
pub(crate) struct Trace<T> {
    pub log: Vec<String>,
    pub fire: Option<(&'static str, T)>,
}

impl<T> Trace<T> {
    pub(crate) fn new() -> Self {
        Trace {
            log: Vec::new(),
            fire: None,
        }
    }

    /// The trace so far, emptied.
    pub(crate) fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }
}

/// A state whose hooks log `enter NAME`, `update NAME`, `exit NAME`, and
/// whose update fires the trigger the test planted for it.
pub(crate) fn traced<T: Copy + Send + Sync + 'static>(
    name: &'static str,
) -> Hooks<Trace<T>, (), T> {
    Hooks::<Trace<T>, (), T>::new()
        .on_enter(move |cx| cx.agent.log.push(format!("enter {name}")))
        .on_update(move |cx| {
            cx.agent.log.push(format!("update {name}"));
            match cx.agent.fire {
                Some((state, trigger)) if state == name => {
                    cx.agent.fire = None;
                    Some(trigger)
                }
                _ => None,
            }
        })
        .on_exit(move |cx| cx.agent.log.push(format!("exit {name}")))
}
