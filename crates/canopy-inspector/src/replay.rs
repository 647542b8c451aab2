//! Replaying a recording: the page of the live inspector over a trace file,
//! with a timeline to scrub instead of a running simulation.
//!
//! A trace has no positions, so the map lays the agents out on a grid by
//! id and colours each by the branch it is in: which child of the root was
//! running at the end of the chosen tick. Clicking an agent shows its tree
//! at that tick, rebuilt from its events up to it, and its events before it.
//!
//! ```no_run
//! use std::path::Path;
//! use canopy_data::{Registry, TreeSource};
//!
//! let registry = Registry::<(), ()>::new();
//! let tree = registry.loading(TreeSource::file("sentry.json")).load().unwrap();
//! let replay = canopy_inspector::replay::serve(
//!     Path::new("trace.jsonl"), &tree, "127.0.0.1:7879".parse().unwrap()).unwrap();
//! println!("replay: {}", replay.url());
//! replay.wait();
//! ```

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use canopy_core::{EventKind, Status, Tree};
use serde::Deserialize;

use crate::frame::{Frame, Label};
use crate::net::Limits;
use crate::server::{self, Server};
use crate::shape::Shape;
use crate::trace::{Record, TraceError, TraceLine, TraceReader, What};
use crate::view::{AgentLog, AgentView};
use canopy_core::text::quote;

/// Most events a recording may hold (16 bytes each in memory).
pub const MAX_RECORDS: usize = 20_000_000;

/// Events of the chosen agent the page's log shows, up to the chosen tick.
const LOG_EVENTS: usize = 300;

/// Colours of the root's branches on the map, in child order.
const PALETTE: [&str; 10] = [
    "#e53935", "#43a047", "#1e88e5", "#fb8c00", "#8e24aa", "#00acc1", "#c0ca33", "#6d4c41",
    "#d81b60", "#3949ab",
];

/// Why a recording cannot be replayed.
#[derive(Debug)]
pub enum ReplayError {
    /// The trace could not be read or is not a trace.
    Read(TraceError),
    /// A line does not fit the tree, or breaks the order of a trace.
    Line {
        /// The trace's name.
        source: String,
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// The trace holds no events.
    Empty {
        /// The trace's name.
        source: String,
    },
    /// The server could not start.
    Serve(io::Error),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Read(e) => e.fmt(f),
            ReplayError::Line {
                source,
                line,
                problem,
            } => write!(f, "{source}:{line}: {problem}"),
            ReplayError::Empty { source } => write!(f, "{source}: no events"),
            ReplayError::Serve(e) => write!(f, "cannot serve the replay: {e}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// One agent's part of a recording.
struct Track {
    id: u32,
    records: Vec<Record>,
    /// `(tick, label)` whenever the agent's branch changed, by tick.
    branches: Vec<(u32, u8)>,
}

/// A trace checked against its tree, indexed for scrubbing.
///
/// ```
/// use canopy_core::Builder;
/// use canopy_inspector::{replay::Recording, Shape};
///
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("root", [b.wait("nap", 2)])).unwrap();
/// let trace = r#"{"tick":1,"agent":4,"event":"enter","node":"root","type":"Sequence","id":0}
/// {"tick":1,"agent":4,"event":"enter","node":"nap","type":"Wait","id":1}
/// {"tick":1,"agent":4,"event":"update","node":"nap","type":"Wait","id":1,"status":"Running"}
/// {"tick":1,"agent":4,"event":"update","node":"root","type":"Sequence","id":0,"status":"Running"}
/// {"tick":1,"agent":4,"event":"tick","status":"Running"}
/// "#;
/// let recording = Recording::read(trace.as_bytes(), "t.jsonl", Shape::of(&tree)).unwrap();
/// assert_eq!(recording.ticks(), 1..=1);
/// assert_eq!(recording.agent_at(4, 1).unwrap().running(), [0, 1]);
/// ```
pub struct Recording {
    shape: Shape,
    tracks: Vec<Track>,
    first_tick: u32,
    last_tick: u32,
    legend: Vec<Label>,
    source: String,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("source", &self.source)
            .field("tracks", &self.tracks.len())
            .field("first_tick", &self.first_tick)
            .field("last_tick", &self.last_tick)
            .finish_non_exhaustive()
    }
}

impl Recording {
    /// Read the trace file at `path`, recorded from a tree of this shape.
    ///
    /// # Errors
    /// The file cannot be read, a line is not a trace line or does not fit
    /// the tree, or the file holds no event.
    pub fn open(path: &Path, shape: Shape) -> Result<Recording, ReplayError> {
        let source = path.display().to_string();
        let file = File::open(path).map_err(|error| {
            ReplayError::Read(TraceError::Io {
                source: source.clone(),
                error,
            })
        })?;
        Recording::read(BufReader::new(file), &source, shape)
    }

    /// Read a trace from `input`; `source` names it in errors.
    ///
    /// # Errors
    /// As [`Recording::open`].
    pub fn read(input: impl BufRead, source: &str, shape: Shape) -> Result<Recording, ReplayError> {
        let mut tracks: Vec<Track> = Vec::new();
        let mut index: HashMap<u32, usize> = HashMap::new();
        let mut count = 0usize;
        for line in TraceReader::new(input, source) {
            let line = line.map_err(ReplayError::Read)?;
            let fail = |problem| ReplayError::Line {
                source: source.to_string(),
                line: line.line,
                problem,
            };
            check_node(&line, &shape).map_err(fail)?;
            count += 1;
            if count > MAX_RECORDS {
                return Err(fail(format!(
                    "more than {MAX_RECORDS} events; replay a part of the trace"
                )));
            }
            let record = line.record;
            let slot = *index.entry(record.agent).or_insert_with(|| {
                tracks.push(Track {
                    id: record.agent,
                    records: Vec::new(),
                    branches: Vec::new(),
                });
                tracks.len() - 1
            });
            let track = &mut tracks[slot];
            if let Some(last) = track.records.last()
                && last.tick > record.tick
            {
                return Err(fail(format!(
                    "agent {}: tick {} comes after tick {}",
                    record.agent, record.tick, last.tick
                )));
            }
            track.records.push(record);
        }
        if tracks.is_empty() {
            return Err(ReplayError::Empty {
                source: source.to_string(),
            });
        }
        tracks.sort_by_key(|t| t.id);
        let branches = Branches::of(&shape);
        for track in &mut tracks {
            track.branches = branches.timeline(&track.records);
        }
        let ticks = tracks.iter().flat_map(|t| &t.records).map(|r| r.tick);
        let first_tick = ticks.clone().min().unwrap_or(0);
        let last_tick = ticks.max().unwrap_or(0);
        Ok(Recording {
            legend: branches.legend(&shape),
            shape,
            tracks,
            first_tick,
            last_tick,
            source: source.to_string(),
        })
    }

    /// The first and last tick of the recording.
    pub fn ticks(&self) -> std::ops::RangeInclusive<u32> {
        self.first_tick..=self.last_tick
    }

    /// The recorded agents' ids, in order.
    pub fn agents(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.tracks.iter().map(|t| t.id)
    }

    /// The map at the end of `tick`: every agent labelled by its branch
    /// (0: none running; `k`: the root's `k`-th child).
    pub fn frame_at(&self, tick: u32) -> Frame {
        let mut frame = Frame::new();
        frame.begin(tick, [0.0; 2], [1.0; 2]);
        for track in &self.tracks {
            let seen = track.branches.partition_point(|&(t, _)| t <= tick);
            let label = seen.checked_sub(1).map_or(0, |i| track.branches[i].1);
            frame.push(track.id, label);
        }
        frame
    }

    /// `agent` as its events up to the end of `tick` show it, or `None` if
    /// it is not in the recording.
    pub fn agent_at(&self, agent: u32, tick: u32) -> Option<AgentView> {
        let slot = self.tracks.binary_search_by_key(&agent, |t| t.id).ok()?;
        let records = &self.tracks[slot].records;
        let end = records.partition_point(|r| r.tick <= tick);
        let mut log = AgentLog::new(self.shape.len(), LOG_EVENTS);
        log.reset(Some(agent));
        for record in &records[..end] {
            log.apply(*record);
        }
        Some(log.view(&self.shape, None))
    }

    /// What the page needs first: the tree, the legend, the timeline.
    fn hello(&self) -> String {
        crate::json::for_page(&serde_json::json!({
            "type": "hello",
            "mode": "replay",
            "version": 0,
            "title": format!("replay of {}", self.source),
            "legend": self.legend,
            "shape": self.shape,
            "first_tick": self.first_tick,
            "last_tick": self.last_tick,
            "agents": self.tracks.len(),
        }))
    }
}

/// A task event's node must be the tree's node with that id.
fn check_node(line: &TraceLine, shape: &Shape) -> Result<(), String> {
    let (What::Node { id, .. }, Some(named)) = (line.record.what, &line.node) else {
        return Ok(());
    };
    let node = shape
        .node(id)
        .ok_or_else(|| format!("node {id} is not in the tree ({} nodes)", shape.len()))?;
    if node.name != named.name || node.type_name != named.type_name {
        return Err(format!(
            "node {id} is {} ({}) in the trace but {} ({}) in the tree",
            quote(&named.name),
            quote(&named.type_name),
            quote(&node.name),
            quote(&node.type_name)
        ));
    }
    Ok(())
}

/// Which of the root's children an agent is in: the map's colours.
struct Branches {
    /// The nodes followed: the root's children, or the root itself when
    /// it has none.
    nodes: Vec<u32>,
}

impl Branches {
    fn of(shape: &Shape) -> Branches {
        let children = shape
            .node(0)
            .map(|n| n.children.clone())
            .unwrap_or_default();
        let nodes = if children.is_empty() {
            vec![0]
        } else {
            children
        };
        Branches { nodes }
    }

    /// The label of a node followed: its first place, from 1, at most 255.
    fn label(&self, id: u32) -> Option<u8> {
        let at = self.nodes.iter().position(|&n| n == id)?;
        Some((at + 1).min(255) as u8)
    }

    /// `(tick, label)` at each change, from one agent's records.
    fn timeline(&self, records: &[Record]) -> Vec<(u32, u8)> {
        let mut running = vec![false; self.nodes.len()];
        let mut out: Vec<(u32, u8)> = Vec::new();
        let mut note = |tick: u32, running: &[bool]| {
            let label = running
                .iter()
                .position(|&r| r)
                .map_or(0, |at| (at + 1).min(255) as u8);
            if out.last().map(|&(_, l)| l) != Some(label) {
                out.push((tick, label));
            }
        };
        for (i, record) in records.iter().enumerate() {
            if let What::Node { id, kind } = record.what
                && let Some(label) = self.label(id)
            {
                running[label as usize - 1] = match kind {
                    EventKind::Enter => true,
                    EventKind::Update(status) => status == Status::Running,
                    EventKind::Exit(_) | EventKind::Abort => false,
                };
            }
            let tick_ends = records
                .get(i + 1)
                .is_none_or(|next| next.tick != record.tick);
            if tick_ends {
                note(record.tick, &running);
            }
        }
        out
    }

    fn legend(&self, shape: &Shape) -> Vec<Label> {
        let mut legend = vec![Label::new("none running", "#9e9e9e")];
        for (i, &id) in self.nodes.iter().enumerate().take(254) {
            let name = shape.node(id).map_or("?", |n| n.name.as_str());
            legend.push(Label::new(name, PALETTE[i % PALETTE.len()]));
        }
        legend
    }
}

/// A replay being served; dropping it stops the server.
pub struct Replay {
    server: Server,
    url: String,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl Replay {
    /// The page's address.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Serve until the process ends.
    pub fn wait(mut self) {
        self.server.join();
    }
}

/// Serve the trace file `trace`, recorded from `tree`, at `addr`
/// (`127.0.0.1:0` picks a free port; [`Replay::url`] tells which).
///
/// # Errors
/// As [`Recording::open`], or the address cannot be bound.
pub fn serve<A, W>(
    trace: &Path,
    tree: &Tree<A, W>,
    addr: SocketAddr,
) -> Result<Replay, ReplayError> {
    let recording = Recording::open(trace, Shape::of(tree))?;
    serve_recording(recording, addr)
}

/// Serve a recording already read.
///
/// # Errors
/// The address cannot be bound.
pub fn serve_recording(recording: Recording, addr: SocketAddr) -> Result<Replay, ReplayError> {
    let hello = recording.hello();
    let state = Arc::new((recording, hello));
    let router = server::static_routes()
        .route("/api/hello", get(hello_route))
        .route("/api/replay/frame", get(frame_route))
        .route("/api/replay/agent", get(agent_route))
        .with_state(state);
    let (stop, _) = Server::signal();
    let server =
        Server::start(addr, router, stop, Limits::default()).map_err(ReplayError::Serve)?;
    let url = format!("http://{}/", server.addr());
    Ok(Replay { server, url })
}

type Shared = Arc<(Recording, String)>;

async fn hello_route(State(state): State<Shared>) -> Response {
    server::json_text(state.1.clone())
}

#[derive(Deserialize)]
struct At {
    tick: u32,
    agent: Option<u32>,
}

async fn frame_route(State(state): State<Shared>, Query(at): Query<At>) -> Response {
    let bytes = state.0.frame_at(at.tick).encode();
    ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
}

async fn agent_route(State(state): State<Shared>, Query(at): Query<At>) -> Response {
    let view = at.agent.and_then(|agent| state.0.agent_at(agent, at.tick));
    match view.map(|v| crate::json::for_page(&v)) {
        Some(json) => server::json_text(json),
        None => (StatusCode::NOT_FOUND, "no such agent in the recording").into_response(),
    }
}
