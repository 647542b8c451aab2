//! Pause, step and resume: the one place where the page can hold the
//! simulation, and only when asked to.
//!
//! The simulation asks for its turn before each step. While running, that
//! is one atomic load; while paused it sleeps on a condition variable until
//! the page asks for a step or to resume. Nothing else the page does can
//! make the simulation wait.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// What the page (or code) asks of the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Stop before the next step.
    Pause,
    /// Run freely.
    Resume,
    /// While paused, allow this many more steps.
    Step(u32),
}

#[derive(Debug, Default)]
struct Gate {
    paused: bool,
    steps: u32,
    closed: bool,
}

/// The pause / step / resume switch shared by the simulation and the server.
///
/// ```
/// use canopy_inspector::control::{Command, Control};
///
/// let control = Control::new();
/// assert!(control.try_turn());            // running: every step may go
/// control.apply(Command::Pause);
/// assert!(!control.try_turn());           // paused: none may
/// control.apply(Command::Step(2));
/// assert!(control.try_turn() && control.try_turn() && !control.try_turn());
/// control.apply(Command::Resume);
/// assert!(control.try_turn());
/// ```
#[derive(Debug, Default)]
pub struct Control {
    /// Mirrors `gate.paused` so a running simulation never takes the lock.
    paused: AtomicBool,
    gate: Mutex<Gate>,
    wake: Condvar,
}

impl Control {
    /// A running switch.
    pub fn new() -> Control {
        Control::default()
    }

    fn gate(&self) -> MutexGuard<'_, Gate> {
        self.gate.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Pause, resume or step.
    pub fn apply(&self, command: Command) {
        let mut gate = self.gate();
        match command {
            Command::Pause => {
                gate.paused = true;
                gate.steps = 0;
            }
            Command::Resume => {
                gate.paused = false;
                gate.steps = 0;
            }
            Command::Step(n) => {
                gate.paused = true;
                gate.steps = gate.steps.saturating_add(n);
            }
        }
        self.paused.store(gate.paused, Ordering::Release);
        self.wake.notify_all();
    }

    /// Whether the simulation is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Acquire)
    }

    /// May the simulation do one step now? Never waits; a `true` while
    /// paused uses up one allowed step.
    pub fn try_turn(&self) -> bool {
        if !self.is_paused() {
            return true;
        }
        let mut gate = self.gate();
        take_turn(&mut gate)
    }

    /// Wait until the simulation may do one step: at once while running,
    /// else until a step is allowed, it resumes, or the switch is closed.
    pub fn wait_turn(&self) {
        if !self.is_paused() {
            return;
        }
        let mut gate = self.gate();
        while !take_turn(&mut gate) {
            gate = self.wake.wait(gate).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Release the simulation for good (the server is going away).
    pub fn close(&self) {
        let mut gate = self.gate();
        gate.closed = true;
        gate.paused = false;
        self.paused.store(false, Ordering::Release);
        self.wake.notify_all();
    }
}

fn take_turn(gate: &mut Gate) -> bool {
    if gate.closed || !gate.paused {
        return true;
    }
    if gate.steps > 0 {
        gate.steps -= 1;
        return true;
    }
    false
}
