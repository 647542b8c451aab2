//! The trace format of `canopy run --trace`: one JSON object per line, a
//! writer and a reader for it.
//!
//! ```text
//! {"tick":1,"agent":0,"event":"enter","node":"patrol","type":"Sequence","id":4}
//! {"tick":1,"agent":0,"event":"update","node":"walk","type":"Script","id":5,"status":"Running"}
//! {"tick":1,"agent":0,"event":"tick","status":"Running"}
//! ```
//!
//! A task event has `tick`, `agent`, `event` (`enter`, `update`, `exit`,
//! `abort`), the node's `node` name, `type` and `id` (its index in the
//! tree), and for `update` and `exit` the `status`. After an agent's events
//! of one tick comes one `tick` line with its root's status. Fields keep
//! this order, so traces diff well; every line is written by serde_json,
//! never assembled by hand, because names may hold any character.
//!
//! The reader takes any such stream (a recording, or the command's output)
//! and turns it into [`Record`]s, with an error naming the line and the
//! problem for anything else.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Read, Write};

use canopy_core::{Event, EventKind, Observer, Status};
use serde::{Deserialize, Serialize};

use crate::shape::Shape;
use canopy_core::text::{self, quote};

/// Longest line the reader accepts, in bytes (a node name may be long, a
/// line is never megabytes).
pub const MAX_LINE: usize = 1 << 20;

/// One line of a trace, without the node's name and type (they are the
/// tree's, looked up by id when writing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The agent's tick number (from 1).
    pub tick: u32,
    /// The agent's id.
    pub agent: u32,
    /// What happened.
    pub what: What,
}

/// What a [`Record`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// A task event of node `id`.
    Node {
        /// The node's index in the tree.
        id: u32,
        /// Enter, update, exit or abort.
        kind: EventKind,
    },
    /// The agent's tick ended with its root's status.
    Tick(Status),
}

impl From<Event> for Record {
    fn from(event: Event) -> Record {
        Record {
            tick: event.tick,
            agent: event.agent,
            what: What::Node {
                id: event.node.index() as u32,
                kind: event.kind,
            },
        }
    }
}

/// A task event line, fields in trace order.
#[derive(Serialize)]
struct NodeLine<'a> {
    tick: u32,
    agent: u32,
    event: &'static str,
    node: &'a str,
    #[serde(rename = "type")]
    type_name: &'a str,
    id: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
}

/// The end of one agent's tick.
#[derive(Serialize)]
struct TickLine {
    tick: u32,
    agent: u32,
    event: &'static str,
    status: &'static str,
}

/// Write `record` as one line, naming its node from `shape`.
///
/// A node id outside `shape` is an [`io::ErrorKind::InvalidInput`] error:
/// the record came from another tree.
///
/// ```
/// use canopy_core::{Builder, EventKind, Status};
/// use canopy_inspector::trace::{write_record, Record, What};
/// use canopy_inspector::Shape;
///
/// let b = Builder::<(), ()>::new();
/// let shape = Shape::of(&b.build(b.wait("nap", 3)).unwrap());
/// let mut out = Vec::new();
/// let update = What::Node { id: 0, kind: EventKind::Update(Status::Running) };
/// write_record(&mut out, &shape, &Record { tick: 2, agent: 7, what: update }).unwrap();
/// write_record(&mut out, &shape, &Record { tick: 2, agent: 7, what: What::Tick(Status::Running) }).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "\
/// {\"tick\":2,\"agent\":7,\"event\":\"update\",\"node\":\"nap\",\"type\":\"Wait\",\"id\":0,\"status\":\"Running\"}
/// {\"tick\":2,\"agent\":7,\"event\":\"tick\",\"status\":\"Running\"}
/// ");
/// ```
pub fn write_record(out: &mut impl Write, shape: &Shape, record: &Record) -> io::Result<()> {
    match record.what {
        What::Node { id, kind } => {
            let node = shape.node(id).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("node {id} is not in the tree ({} nodes)", shape.len()),
                )
            })?;
            let status = match kind {
                EventKind::Update(s) | EventKind::Exit(s) => Some(s.as_str()),
                EventKind::Enter | EventKind::Abort => None,
            };
            let line = NodeLine {
                tick: record.tick,
                agent: record.agent,
                event: kind.name(),
                node: &node.name,
                type_name: &node.type_name,
                id,
                status,
            };
            crate::json::to_writer(&mut *out, &line)?;
        }
        What::Tick(status) => {
            let line = TickLine {
                tick: record.tick,
                agent: record.agent,
                event: "tick",
                status: status.as_str(),
            };
            crate::json::to_writer(&mut *out, &line)?;
        }
    }
    out.write_all(b"\n")
}

/// An observer writing every event as a trace line as it happens: what
/// `canopy run --trace` does.
///
/// The engine's observer cannot fail, so the first write error is kept and
/// later events are dropped; [`TraceWriter::end_tick`] returns it.
///
/// ```
/// use canopy_core::{Agent, Builder};
/// use canopy_inspector::{trace::TraceWriter, Shape};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.always_success("ok")).unwrap();
/// let shape = Shape::of(&tree);
/// let mut out = Vec::new();
/// let mut writer = TraceWriter::new(&shape, &mut out);
/// let mut agent = Agent::with_id(&tree, 3);
/// let status = agent.tick_observed(&tree, &mut (), &(), &mut writer);
/// writer.end_tick(agent.ticks(), agent.id(), status).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap().lines().count(), 4); // enter, update, exit, tick
/// ```
pub struct TraceWriter<'s, O> {
    shape: &'s Shape,
    out: O,
    error: Option<io::Error>,
}

impl<O> std::fmt::Debug for TraceWriter<'_, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceWriter")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<'s, O: Write> TraceWriter<'s, O> {
    /// A writer naming nodes from `shape`.
    pub fn new(shape: &'s Shape, out: O) -> Self {
        TraceWriter {
            shape,
            out,
            error: None,
        }
    }

    /// Write the `tick` line ending an agent's tick, or the first error any
    /// event of that tick met.
    pub fn end_tick(&mut self, tick: u32, agent: u32, status: Status) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let record = Record {
            tick,
            agent,
            what: What::Tick(status),
        };
        write_record(&mut self.out, self.shape, &record)
    }

    /// The output, e.g. to flush it.
    pub fn into_inner(self) -> O {
        self.out
    }
}

impl<O: Write> Observer for TraceWriter<'_, O> {
    fn event(&mut self, event: Event) {
        if self.error.is_none()
            && let Err(e) = write_record(&mut self.out, self.shape, &Record::from(event))
        {
            self.error = Some(e);
        }
    }
}

/// A node as a trace line names it, for checking a trace against a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeName {
    /// The `node` field.
    pub name: String,
    /// The `type` field.
    pub type_name: String,
}

/// One line read back: the record, and for task events the node's name and
/// type as the line gave them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    /// The line's 1-based number.
    pub line: usize,
    /// What it says.
    pub record: Record,
    /// `node` and `type`, for task events.
    pub node: Option<NodeName>,
}

/// Why a trace could not be read.
#[derive(Debug)]
pub enum TraceError {
    /// A line is not a trace line.
    Line {
        /// Where the trace came from (a file name).
        source: String,
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// Reading failed.
    Io {
        /// Where the trace came from.
        source: String,
        /// The error.
        error: io::Error,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Line {
                source,
                line,
                problem,
            } => write!(f, "{source}:{line}: {problem}"),
            TraceError::Io { source, error } => write!(f, "{source}: cannot read: {error}"),
        }
    }
}

impl std::error::Error for TraceError {}

/// Reads trace lines one at a time; blank lines are skipped.
///
/// ```
/// use canopy_core::{EventKind, Status};
/// use canopy_inspector::trace::{TraceReader, What};
///
/// let text = "{\"tick\":1,\"agent\":0,\"event\":\"exit\",\"node\":\"a\",\"type\":\"Wait\",\"id\":1,\"status\":\"Success\"}\n";
/// let lines: Vec<_> = TraceReader::new(text.as_bytes(), "t.jsonl").collect::<Result<_, _>>().unwrap();
/// assert_eq!(lines[0].record.what, What::Node { id: 1, kind: EventKind::Exit(Status::Success) });
/// assert_eq!(lines[0].node.as_ref().unwrap().name, "a");
///
/// let bad = TraceReader::new(&b"{\"tick\":1}\n"[..], "t.jsonl").next().unwrap().unwrap_err();
/// assert_eq!(bad.to_string(), "t.jsonl:1: not a trace line: missing field `agent` at line 1 column 10");
/// ```
pub struct TraceReader<R> {
    input: R,
    source: String,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R> std::fmt::Debug for TraceReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader")
            .field("source", &self.source)
            .field("line", &self.line)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<R: BufRead> TraceReader<R> {
    /// A reader of `input`; `source` names it in errors (a file name).
    pub fn new(input: R, source: impl Into<String>) -> Self {
        TraceReader {
            input,
            source: source.into(),
            line: 0,
            buf: Vec::new(),
            done: false,
        }
    }

    fn error(&self, problem: String) -> TraceError {
        TraceError::Line {
            source: self.source.clone(),
            line: self.line,
            problem,
        }
    }

    /// The next non-blank line's bytes, without its end of line.
    fn next_line(&mut self) -> Result<bool, TraceError> {
        loop {
            self.buf.clear();
            let read = (&mut self.input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|error| TraceError::Io {
                    source: self.source.clone(),
                    error,
                })?;
            if read == 0 {
                return Ok(false);
            }
            self.line += 1;
            if self.buf.last() == Some(&b'\n') {
                self.buf.pop();
            } else if self.buf.len() > MAX_LINE {
                return Err(self.error(format!("line longer than {MAX_LINE} bytes")));
            }
            if !self.buf.iter().all(u8::is_ascii_whitespace) {
                return Ok(true);
            }
        }
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceLine, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let line = match self.next_line() {
            Ok(true) => parse(&self.buf).map_err(|problem| self.error(problem)),
            Ok(false) => {
                self.done = true;
                return None;
            }
            Err(e) => Err(e),
        };
        if line.is_err() {
            // One error ends the trace: what follows a broken line is not
            // trustworthy, and a caller looping until `None` must stop.
            self.done = true;
        }
        Some(line.map(|(record, node)| TraceLine {
            line: self.line,
            record,
            node,
        }))
    }
}

/// A line as serde sees it; which fields must be present depends on `event`.
#[derive(Deserialize)]
struct RawLine<'a> {
    tick: u32,
    agent: u32,
    #[serde(borrow)]
    event: Cow<'a, str>,
    #[serde(borrow, default)]
    node: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "type")]
    type_name: Option<Cow<'a, str>>,
    #[serde(default)]
    id: Option<u32>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
}

fn parse(bytes: &[u8]) -> Result<(Record, Option<NodeName>), String> {
    let raw: RawLine<'_> = serde_json::from_slice(bytes)
        .map_err(|e| format!("not a trace line: {}", text::message(&e.to_string())))?;
    let status = raw.status.as_deref().map(status_word).transpose()?;
    let what = match (raw.event.as_ref(), status) {
        ("tick", Some(s)) => What::Tick(s),
        ("enter", None) => node_event(&raw, EventKind::Enter)?,
        ("abort", None) => node_event(&raw, EventKind::Abort)?,
        ("update", Some(s)) => node_event(&raw, EventKind::Update(s))?,
        ("exit", Some(Status::Running)) => return Err("an exit cannot be Running".to_string()),
        ("exit", Some(s)) => node_event(&raw, EventKind::Exit(s))?,
        ("tick", None) => return Err("a tick line needs the field \"status\"".to_string()),
        ("update" | "exit", None) => {
            return Err(format!("an {} line needs the field \"status\"", raw.event));
        }
        ("enter" | "abort", Some(_)) => {
            return Err(format!("an {} line has no field \"status\"", raw.event));
        }
        (other, _) => {
            return Err(format!(
                "unknown event {}, expected enter, update, exit, abort or tick",
                quote(other)
            ));
        }
    };
    let node = match (raw.node, raw.type_name) {
        (Some(name), Some(type_name)) if matches!(what, What::Node { .. }) => Some(NodeName {
            name: name.into_owned(),
            type_name: type_name.into_owned(),
        }),
        _ => None,
    };
    let record = Record {
        tick: raw.tick,
        agent: raw.agent,
        what,
    };
    Ok((record, node))
}

fn node_event(raw: &RawLine<'_>, kind: EventKind) -> Result<What, String> {
    // Every task event's name starts with a vowel: enter, update, exit, abort.
    let missing = |field: &str| format!("an {} line needs the field \"{field}\"", kind.name());
    let id = raw.id.ok_or_else(|| missing("id"))?;
    raw.node.as_ref().ok_or_else(|| missing("node"))?;
    raw.type_name.as_ref().ok_or_else(|| missing("type"))?;
    Ok(What::Node { id, kind })
}

fn status_word(word: &str) -> Result<Status, String> {
    match word {
        "Running" => Ok(Status::Running),
        "Success" => Ok(Status::Success),
        "Failure" => Ok(Status::Failure),
        other => Err(format!(
            "unknown status {}, expected Running, Success or Failure",
            quote(other)
        )),
    }
}
