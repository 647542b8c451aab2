//! Pause, step and resume: the one place where the page can hold the
//! simulation, and only when asked to.
//!
//! The simulation asks for its turn before each step. While running, that
//! is one atomic load; while paused it sleeps on a condition variable until
//! the page asks for a step or to resume. Nothing else the page does can
//! make the simulation wait.
//!
//! The page's requests arrive as small JSON bodies, read by
//! [`parse_command`] (`POST /api/control`) and [`parse_watch`]
//! (`POST /api/watch`): at most [`MAX_CONTROL_BYTES`] bytes, so reading one
//! is bounded work; anything else is a [`Refused`] with a fixed message.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use serde::Deserialize;

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

/// Most bytes of one control message. The page's largest,
/// `{"action":"step","steps":1}`, is 27; the rest is room for a
/// hand-written request (`curl`, spaces, a larger step).
pub const MAX_CONTROL_BYTES: usize = 1024;

/// Most steps one message may allow; a larger request is cut to it, so a
/// typo cannot let the simulation run on for billions of steps while it
/// looks paused.
pub const MAX_STEPS: u32 = 1000;

/// Why a control message was refused. The messages are fixed text: nothing
/// of the refused bytes is echoed back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Longer than [`MAX_CONTROL_BYTES`].
    TooLong,
    /// Not a message of the kind expected.
    Malformed,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::TooLong => write!(f, "a control message is at most {MAX_CONTROL_BYTES} bytes"),
            Refused::Malformed => f.write_str("not a control message the inspector knows"),
        }
    }
}

impl std::error::Error for Refused {}

// Unknown fields are refused rather than ignored: a message the page did not
// write is a mistake to report, not to half-obey. (Struct variants, even
// empty: serde lets unit variants of a tagged enum take any extra field.)
#[derive(Deserialize)]
#[serde(tag = "action", rename_all = "lowercase", deny_unknown_fields)]
enum ControlMessage {
    Pause {},
    Resume {},
    Step {
        #[serde(default = "one")]
        steps: u32,
    },
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchMessage {
    #[serde(default)]
    agent: Option<u32>,
}

/// Read the body of a `POST /api/control`: `{"action":"pause"}`,
/// `{"action":"resume"}`, or `{"action":"step","steps":N}` (`steps` 1 when
/// left out, cut to [`MAX_STEPS`]).
///
/// ```
/// use canopy_inspector::control::{parse_command, Command, Refused};
///
/// assert_eq!(parse_command(br#"{"action":"pause"}"#), Ok(Command::Pause));
/// assert_eq!(parse_command(br#"{"action":"step","steps":5000}"#), Ok(Command::Step(1000)));
/// assert_eq!(parse_command(br#"{"action":"explode"}"#), Err(Refused::Malformed));
/// ```
///
/// # Errors
/// [`Refused::TooLong`] past [`MAX_CONTROL_BYTES`] (checked before any
/// parsing), [`Refused::Malformed`] for anything but the three messages.
pub fn parse_command(body: &[u8]) -> Result<Command, Refused> {
    Ok(match parse::<ControlMessage>(body)? {
        ControlMessage::Pause {} => Command::Pause,
        ControlMessage::Resume {} => Command::Resume,
        ControlMessage::Step { steps } => Command::Step(steps.min(MAX_STEPS)),
    })
}

/// Read the body of a `POST /api/watch`: `{"agent":N}` to watch agent `N`,
/// `{"agent":null}` or `{}` to watch nobody.
///
/// ```
/// use canopy_inspector::control::{parse_watch, Refused};
///
/// assert_eq!(parse_watch(br#"{"agent":7}"#), Ok(Some(7)));
/// assert_eq!(parse_watch(br#"{"agent":null}"#), Ok(None));
/// assert_eq!(parse_watch(br#"{"agent":-1}"#), Err(Refused::Malformed));
/// ```
///
/// # Errors
/// As [`parse_command`].
pub fn parse_watch(body: &[u8]) -> Result<Option<u32>, Refused> {
    Ok(parse::<WatchMessage>(body)?.agent)
}

fn parse<'de, T: Deserialize<'de>>(body: &'de [u8]) -> Result<T, Refused> {
    if body.len() > MAX_CONTROL_BYTES {
        return Err(Refused::TooLong);
    }
    // A message is an object: serde would also take a struct written as an
    // array (`[7]` for `{"agent":7}`), which the page never sends.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(Refused::Malformed);
    }
    // serde_json's own nesting limit (128) keeps deep input off the stack;
    // the length bound keeps the rest linear in at most a kilobyte.
    serde_json::from_slice(body).map_err(|_| Refused::Malformed)
}

/// The fuzz target's body (`fuzz/fuzz_targets/inspector_control.rs`): any
/// bytes as both control messages.
///
/// # Panics
/// When a parser breaks its contract — a step over [`MAX_STEPS`], a long
/// body that is not refused as [`Refused::TooLong`] — the finding the
/// fuzzer is after. Never on malformed input.
#[doc(hidden)]
pub fn fuzz_one(data: &[u8]) {
    let command = parse_command(data);
    let watch = parse_watch(data);
    if data.len() > MAX_CONTROL_BYTES {
        assert_eq!(command, Err(Refused::TooLong));
        assert_eq!(watch, Err(Refused::TooLong));
    }
    if let Ok(Command::Step(steps)) = command {
        assert!(steps <= MAX_STEPS, "{steps} steps");
    }
    // No body is both kinds: a command has an `action`, a watch has none.
    assert!(command.is_err() || watch.is_err(), "{command:?} {watch:?}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_messages_are_read() {
        assert_eq!(parse_command(br#"{"action":"pause"}"#), Ok(Command::Pause));
        assert_eq!(
            parse_command(br#"{"action":"resume"}"#),
            Ok(Command::Resume)
        );
        assert_eq!(
            parse_command(br#"{"action":"step","steps":1}"#),
            Ok(Command::Step(1))
        );
        assert_eq!(parse_command(br#"{"action":"step"}"#), Ok(Command::Step(1)));
        assert_eq!(
            parse_command(br#" { "steps" : 3 , "action" : "step" } "#),
            Ok(Command::Step(3))
        );
        assert_eq!(
            parse_command(br#"{"action":"step","steps":4294967295}"#),
            Ok(Command::Step(MAX_STEPS))
        );
        assert_eq!(parse_watch(br#"{"agent":0}"#), Ok(Some(0)));
        assert_eq!(
            parse_watch(br#"{"agent":4294967294}"#),
            Ok(Some(4294967294))
        );
        assert_eq!(parse_watch(br#"{"agent":null}"#), Ok(None));
        assert_eq!(parse_watch(b"{}"), Ok(None));
    }

    #[test]
    fn anything_else_is_refused() {
        for body in [
            &b""[..],
            b"null",
            b"{}",
            b"[]",
            br#"{"action":"PAUSE"}"#,
            br#"{"action":"explode"}"#,
            br#"{"action":"pause","extra":1}"#,
            br#"{"action":"step","steps":-1}"#,
            br#"{"action":"step","steps":4294967296}"#,
            br#"{"action":"step","steps":1.5}"#,
            br#"{"action":"step","steps":"1"}"#,
            br#"{"action":"pause"} trailing"#,
            b"\xff\xfe{}",
        ] {
            assert_eq!(parse_command(body), Err(Refused::Malformed), "{body:?}");
        }
        for body in [
            &b""[..],
            b"[]",
            br#"{"agent":-1}"#,
            br#"{"agent":4294967296}"#,
            br#"{"agent":"7"}"#,
            br#"{"agent":7,"also":8}"#,
            b"[7]",
            br#"{"action":"pause"}"#,
        ] {
            assert_eq!(parse_watch(body), Err(Refused::Malformed), "{body:?}");
        }
    }

    #[test]
    fn long_or_deep_messages_are_refused_without_parsing() {
        let mut long = br#"{"action":"pause"}"#.to_vec();
        long.resize(MAX_CONTROL_BYTES, b' ');
        assert_eq!(parse_command(&long), Ok(Command::Pause)); // at the limit
        long.push(b' ');
        assert_eq!(parse_command(&long), Err(Refused::TooLong));
        assert_eq!(parse_watch(&long), Err(Refused::TooLong));
        // Nesting past serde_json's limit inside the length limit.
        let deep = format!("{{\"agent\":{}{}}}", "[".repeat(500), "]".repeat(500));
        assert!(deep.len() <= MAX_CONTROL_BYTES);
        assert_eq!(parse_watch(deep.as_bytes()), Err(Refused::Malformed));
        assert_eq!(
            Refused::TooLong.to_string(),
            "a control message is at most 1024 bytes"
        );
        assert_eq!(
            Refused::Malformed.to_string(),
            "not a control message the inspector knows"
        );
    }

    #[test]
    fn the_fuzz_body_holds_on_the_examples() {
        for body in [
            &br#"{"action":"step","steps":99999}"#[..],
            br#"{"agent":3}"#,
            b"{",
            &[b' '; MAX_CONTROL_BYTES + 1],
        ] {
            fuzz_one(body);
        }
    }
}
