//! Looking inside one agent: which of its tasks run, what each node last
//! reported, and its recent events.
//!
//! Two sources can say which tasks run. Today it is derived from the
//! agent's events ([`AgentLog`]): an enter or a running update marks a
//! node running, an exit or an abort ends it. An engine that can show an
//! agent's running tasks directly, with each task's state in words (a
//! sequence's current child, a wait's remaining ticks), plugs in through
//! one trait, [`RunningSource`]; its answer then replaces the derived
//! running set and state texts, while the events still give each node's
//! last status and the log.

use std::collections::VecDeque;

use canopy_core::{Event, EventKind, Observer, Status};
use serde::Serialize;

use crate::shape::Shape;
use crate::trace::{Record, What};

/// A bounded log of records: the oldest go when it is full, so memory is
/// fixed when it is created, whatever the run length.
#[derive(Clone, Debug)]
pub struct Ring {
    records: VecDeque<Record>,
    capacity: usize,
    dropped: u64,
}

impl Ring {
    /// An empty log keeping the last `capacity` records (at least 1),
    /// allocated now.
    pub fn new(capacity: usize) -> Ring {
        let capacity = capacity.max(1);
        Ring {
            records: VecDeque::with_capacity(capacity),
            capacity,
            dropped: 0,
        }
    }

    /// Add a record, dropping the oldest if full. Never allocates.
    #[inline]
    pub fn push(&mut self, record: Record) {
        if self.records.len() == self.capacity {
            self.records.pop_front();
            self.dropped += 1;
        }
        self.records.push_back(record);
    }

    /// The records kept, oldest first.
    pub fn records(&self) -> impl ExactSizeIterator<Item = &Record> + DoubleEndedIterator {
        self.records.iter()
    }

    /// How many records it keeps at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many records were dropped to make room.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Forget every record.
    pub fn clear(&mut self) {
        self.records.clear();
        self.dropped = 0;
    }
}

/// What the events said about one node of the watched agent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeState {
    /// Entered, or updated with `Running`, and not exited or aborted since.
    pub running: bool,
    /// The node's last event.
    pub last: Option<EventKind>,
    /// The tick of the last event.
    pub at: u32,
    /// The tick the task was entered, if that was seen.
    pub since: Option<u32>,
    /// Updates since it was entered.
    pub updates: u32,
}

/// One running task as an engine view reports it: the target of the
/// adapter from an engine's own view of an agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunningTask {
    /// The node's index in the tree.
    pub node: u32,
    /// Levels below the root (the root is 0).
    pub depth: u32,
    /// The task's state in words ("child 2 of 4", "3 ticks left"), if any.
    pub state: Option<String>,
}

/// A source of an agent's running tasks, read between ticks.
///
/// The inspector derives the running set from events when no source is
/// given; an engine view implements this to show each task's own state.
///
/// ```
/// use canopy_inspector::{RunningSource, RunningTask};
///
/// /// A source that knows the root is running and how.
/// struct RootOnly;
/// impl RunningSource for RootOnly {
///     fn running_tasks(&self, out: &mut Vec<RunningTask>) {
///         out.push(RunningTask { node: 0, depth: 0, state: Some("child 1 of 2".into()) });
///     }
/// }
/// let mut tasks = Vec::new();
/// RootOnly.running_tasks(&mut tasks);
/// assert_eq!(tasks[0].state.as_deref(), Some("child 1 of 2"));
/// ```
pub trait RunningSource {
    /// Append the running tasks, root first (the active path, depth first).
    fn running_tasks(&self, out: &mut Vec<RunningTask>);

    /// The tick the agent was last ticked at, if the source knows it: an
    /// agent ticked less often than the world (level of detail) shows
    /// how long ago that was. Without it the page shows the last tick its
    /// events saw.
    fn last_tick(&self) -> Option<u32> {
        None
    }
}

/// The engine's own view of one agent ([`Agent::running`](canopy_core::Agent::running)):
/// its running tasks read from its memory, with each built-in kind's state
/// in words, whenever it was first watched.
///
/// ```
/// use canopy_core::{Agent, Builder};
/// use canopy_inspector::{EngineView, RunningSource};
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("s", [b.wait("nap", 5)])).unwrap();
/// let mut agent = Agent::new(&tree);
/// agent.tick(&tree, &mut (), &());
/// let mut tasks = Vec::new();
/// EngineView { agent: &agent, tree: &tree }.running_tasks(&mut tasks);
/// assert_eq!(tasks[1].state.as_deref(), Some("5 ticks left"));
/// ```
pub struct EngineView<'a, A, W> {
    /// The watched agent.
    pub agent: &'a canopy_core::Agent,
    /// Its tree.
    pub tree: &'a canopy_core::Tree<A, W>,
}

impl<A, W> std::fmt::Debug for EngineView<'_, A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineView")
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl<A, W> RunningSource for EngineView<'_, A, W> {
    fn running_tasks(&self, out: &mut Vec<RunningTask>) {
        out.extend(
            self.agent
                .running(self.tree)
                .into_iter()
                .map(|t| RunningTask {
                    node: t.node.index() as u32,
                    depth: t.depth as u32,
                    state: (!t.state.is_empty()).then_some(t.state),
                }),
        );
    }

    /// The agent's clock: the world tick of its last tick, for an agent
    /// made at world tick 0; none before its first tick.
    fn last_tick(&self) -> Option<u32> {
        Some(self.agent.ticks()).filter(|&t| t > 0)
    }
}

/// Everything the inspector keeps about the watched agent: each node's
/// state as the events tell it, the last events, and the last tick.
///
/// It is an [`Observer`]: pass it to `Agent::tick_observed`, then call
/// [`AgentLog::end_tick`].
#[derive(Clone, Debug)]
pub struct AgentLog {
    agent: Option<u32>,
    nodes: Vec<NodeState>,
    events: Ring,
    tick: u32,
    status: Option<Status>,
    /// The tick of the last end of a tick seen.
    ticked: Option<u32>,
}

impl AgentLog {
    /// A log for a tree of `nodes` nodes keeping the last `events` events.
    pub fn new(nodes: usize, events: usize) -> AgentLog {
        AgentLog {
            agent: None,
            nodes: vec![NodeState::default(); nodes],
            events: Ring::new(events),
            tick: 0,
            status: None,
            ticked: None,
        }
    }

    /// Start over for `agent` (or for nobody).
    pub fn reset(&mut self, agent: Option<u32>) {
        self.agent = agent;
        self.nodes.fill(NodeState::default());
        self.events.clear();
        self.tick = 0;
        self.status = None;
        self.ticked = None;
    }

    /// The agent this log follows.
    pub fn agent(&self) -> Option<u32> {
        self.agent
    }

    /// The last tick seen.
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// What the events said about node `id`.
    pub fn node(&self, id: u32) -> Option<&NodeState> {
        self.nodes.get(id as usize)
    }

    /// The events kept, oldest first.
    pub fn events(&self) -> &Ring {
        &self.events
    }

    /// Take one record into account. Records of nodes outside the tree
    /// are kept in the log but change no node.
    pub fn apply(&mut self, record: Record) {
        self.tick = record.tick;
        self.events.push(record);
        match record.what {
            What::Tick(status) => {
                self.status = Some(status);
                self.ticked = Some(record.tick);
            }
            What::Node { id, kind } => {
                if let Some(node) = self.nodes.get_mut(id as usize) {
                    step_node(node, kind, record.tick);
                }
            }
        }
    }

    /// End the agent's tick with its root's status.
    pub fn end_tick(&mut self, tick: u32, agent: u32, status: Status) {
        self.apply(Record {
            tick,
            agent,
            what: What::Tick(status),
        });
    }

    /// The view the page shows; `source`, when given, says which tasks run
    /// and how, instead of the events.
    pub fn view(&self, shape: &Shape, source: Option<&dyn RunningSource>) -> AgentView {
        let mut tasks = Vec::new();
        if let Some(source) = source {
            source.running_tasks(&mut tasks);
        }
        let mut nodes: Vec<NodeView> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.last.is_some() || n.running)
            .map(|(id, n)| NodeView::from_events(id as u32, n, source.is_none()))
            .collect();
        if source.is_some() {
            merge_tasks(&mut nodes, tasks, shape);
        }
        AgentView {
            kind: "agent",
            version: 0,
            agent: self.agent,
            tick: self.tick,
            status: self.status.map(Status::as_str),
            source: if source.is_some() { "engine" } else { "events" },
            ticked: source.and_then(|s| s.last_tick()).or(self.ticked),
            lod: None,
            nodes,
            events: self.events.records().map(EventView::from).collect(),
            dropped: self.events.dropped(),
            board: Vec::new(),
        }
    }
}

/// One event's effect on its node.
fn step_node(node: &mut NodeState, kind: EventKind, tick: u32) {
    node.last = Some(kind);
    node.at = tick;
    match kind {
        EventKind::Enter => {
            node.running = true;
            node.since = Some(tick);
            node.updates = 0;
        }
        EventKind::Update(status) => {
            node.running = status == Status::Running;
            node.updates = node.updates.saturating_add(1);
        }
        EventKind::Exit(_) | EventKind::Abort => node.running = false,
    }
}

/// Put an engine's running tasks into the node list: they alone run, with
/// their state texts.
fn merge_tasks(nodes: &mut Vec<NodeView>, tasks: Vec<RunningTask>, shape: &Shape) {
    for node in nodes.iter_mut() {
        node.running = false;
        node.state = None;
    }
    for task in tasks {
        if task.node as usize >= shape.len() {
            continue;
        }
        match nodes.iter_mut().find(|n| n.id == task.node) {
            Some(node) => {
                node.running = true;
                node.state = task.state;
            }
            None => nodes.push(NodeView {
                id: task.node,
                running: true,
                last: None,
                event: None,
                at: None,
                state: task.state,
            }),
        }
    }
    nodes.sort_by_key(|n| n.id);
}

impl Observer for AgentLog {
    fn event(&mut self, event: Event) {
        self.apply(Record::from(event));
    }
}

/// The watched agent as the page receives it (JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgentView {
    #[serde(rename = "type")]
    kind: &'static str,
    /// The version of the tree whose node ids `nodes` and `events` use:
    /// 0 for the tree an inspector started with, one more for each
    /// [`Inspector::set_tree`](crate::Inspector::set_tree). The page draws
    /// a view only on the boxes of the same version.
    pub version: u32,
    /// The agent, if one is watched.
    pub agent: Option<u32>,
    /// Its last tick.
    pub tick: u32,
    /// Its root's status at that tick.
    pub status: Option<&'static str>,
    /// `"events"` (derived from events) or `"engine"` (a [`RunningSource`]).
    pub source: &'static str,
    /// The tick it was last ticked at, if known
    /// ([`RunningSource::last_tick`], else its last tick's end event).
    pub ticked: Option<u32>,
    /// Its level-of-detail class, when the frame published with the view
    /// gives classes ([`Frame::set_class`](crate::Frame::set_class)).
    pub lod: Option<LodView>,
    /// Every node something is known about, by id.
    pub nodes: Vec<NodeView>,
    /// The last events, oldest first.
    pub events: Vec<EventView>,
    /// Events dropped from the log to bound it.
    pub dropped: u64,
    /// Its blackboard, when the simulation gave it
    /// ([`Inspector::set_board`](crate::Inspector::set_board)): every
    /// slot in the tree's order, marked where its value changed since
    /// the frame before.
    pub board: Vec<SlotView>,
}

/// One blackboard slot of the watched agent: what a simulation gives the
/// inspector ([`board_of`] reads an agent's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardEntry {
    /// The key.
    pub key: String,
    /// Its type's name (`int`, `double`, `std::string`, a game's own).
    #[serde(rename = "type")]
    pub type_name: String,
    /// Its value in words, as canopy shows values.
    pub value: String,
}

/// One slot as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlotView {
    /// The slot.
    #[serde(flatten)]
    pub entry: BoardEntry,
    /// Its value differs from the frame before's (for the same agent and
    /// tree); false in the first frame of an agent.
    pub changed: bool,
}

/// The blackboard of `agent` (running `tree`): each slot's key, type and
/// value, in the tree's order.
///
/// ```
/// use canopy_core::{Agent, Builder};
/// use canopy_inspector::board_of;
/// let b = Builder::<(), ()>::new();
/// let ammo = b.key::<i32>("ammo").unwrap();
/// b.set_initial(ammo, 30);
/// let tree = b.build(b.always_success("ok")).unwrap();
/// let board = board_of(&mut Agent::new(&tree), &tree);
/// assert_eq!((board[0].key.as_str(), board[0].type_name.as_str(), board[0].value.as_str()), ("ammo", "int", "30"));
/// ```
pub fn board_of<A, W>(
    agent: &mut canopy_core::Agent,
    tree: &canopy_core::Tree<A, W>,
) -> Vec<BoardEntry> {
    let values = agent.board_values(tree);
    tree.slots()
        .iter()
        .zip(values)
        .map(|(slot, (key, value))| BoardEntry {
            key,
            type_name: slot.ty.name().to_string(),
            value,
        })
        .collect()
}

/// `board`, each entry marked where it differs from `before` (by key).
pub(crate) fn mark_changes(board: Vec<BoardEntry>, before: &[BoardEntry]) -> Vec<SlotView> {
    board
        .into_iter()
        .map(|entry| {
            let changed = !before.is_empty()
                && before
                    .iter()
                    .find(|b| b.key == entry.key)
                    .is_none_or(|b| b.value != entry.value || b.type_name != entry.type_name);
            SlotView { entry, changed }
        })
        .collect()
}

impl AgentView {
    /// The ids of the running nodes.
    pub fn running(&self) -> Vec<u32> {
        self.nodes
            .iter()
            .filter(|n| n.running)
            .map(|n| n.id)
            .collect()
    }
}

/// The watched agent's level-of-detail class, as an [`AgentView`] gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LodView {
    /// The class: an index into [`Options::classes`](crate::Options::classes).
    pub class: u8,
    /// The class's name, if the options name it.
    pub name: Option<String>,
}

/// One node of an [`AgentView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeView {
    /// The node's index.
    pub id: u32,
    /// Whether its task runs.
    pub running: bool,
    /// The last status it reported (an update or exit), if its last event had one.
    pub last: Option<&'static str>,
    /// Its last event: enter, update, exit or abort.
    pub event: Option<&'static str>,
    /// The tick of that event.
    pub at: Option<u32>,
    /// Its state in words.
    pub state: Option<String>,
}

impl NodeView {
    fn from_events(id: u32, node: &NodeState, describe: bool) -> NodeView {
        let last = match node.last {
            Some(EventKind::Update(s) | EventKind::Exit(s)) => Some(s.as_str()),
            _ => None,
        };
        let state = describe.then(|| derived_state(node)).flatten();
        NodeView {
            id,
            running: node.running,
            last,
            event: node.last.map(EventKind::name),
            at: node.last.map(|_| node.at),
            state,
        }
    }
}

/// What the events alone can say about a task.
fn derived_state(node: &NodeState) -> Option<String> {
    let plural = |n: u32| if n == 1 { "" } else { "s" };
    match (node.running, node.since) {
        (true, Some(since)) => Some(format!(
            "running since tick {since}, {} update{}",
            node.updates,
            plural(node.updates)
        )),
        (true, None) => Some("running (since before watching began)".to_string()),
        (false, _) => match node.last? {
            EventKind::Exit(s) => Some(format!("{s} at tick {}", node.at)),
            EventKind::Abort => Some(format!("aborted at tick {}", node.at)),
            EventKind::Update(s) => Some(format!("{s} at tick {}", node.at)),
            _ => None,
        },
    }
}

/// One event of an [`AgentView`]'s log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventView {
    /// The tick.
    pub tick: u32,
    /// The node, or `None` for the end of a tick.
    pub id: Option<u32>,
    /// enter, update, exit, abort or tick.
    pub event: &'static str,
    /// The status, for update, exit and tick.
    pub status: Option<&'static str>,
}

impl From<&Record> for EventView {
    fn from(record: &Record) -> EventView {
        let (id, event, status) = match record.what {
            What::Tick(s) => (None, "tick", Some(s.as_str())),
            What::Node { id, kind } => {
                let status = match kind {
                    EventKind::Update(s) | EventKind::Exit(s) => Some(s.as_str()),
                    _ => None,
                };
                (Some(id), kind.name(), status)
            }
        };
        EventView {
            tick: record.tick,
            id,
            event,
            status,
        }
    }
}

#[cfg(test)]
mod board_tests {
    use super::*;

    fn entry(key: &str, value: &str) -> BoardEntry {
        BoardEntry {
            key: key.to_string(),
            type_name: "int".to_string(),
            value: value.to_string(),
        }
    }

    #[test]
    fn a_slot_is_marked_when_its_value_differs_from_the_frame_before() {
        let first = mark_changes(vec![entry("n", "1"), entry("m", "5")], &[]);
        assert!(
            first.iter().all(|s| !s.changed),
            "nothing to compare the first frame with"
        );
        let before = [entry("n", "1"), entry("m", "5")];
        let next = mark_changes(
            vec![entry("n", "2"), entry("m", "5"), entry("k", "0")],
            &before,
        );
        let marks: Vec<(&str, bool)> = next
            .iter()
            .map(|s| (s.entry.key.as_str(), s.changed))
            .collect();
        assert_eq!(marks, [("n", true), ("m", false), ("k", true)]);
    }
}
