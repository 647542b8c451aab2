//! Watching chosen nodes: when a node named in [`Brain::watching`]
//! starts, ends or is aborted for an entity, the plugin sends a
//! [`NodeEvent`] (with [`CanopyPlugin::report_node_events`]).
//!
//! The tick runs in parallel, and Bevy's message writer is one per system,
//! so events are first kept in the brain that saw them — a small list,
//! cleared at each tick, whose capacity is kept so that steady-state ticks
//! still allocate nothing — and a system after the tick sends them. A brain
//! that watches nothing ticks with canopy's empty observer `()`, which the
//! compiler removes: watching costs only the brains that ask for it.
//!
//! Nodes are chosen by name, because names are what a tree file and a
//! designer share; the names are resolved to node ids whenever the brain
//! starts on a tree version (first tick, reload, restore), never per tick.
//!
//! [`Brain::watching`]: crate::Brain::watching
//! [`CanopyPlugin::report_node_events`]: crate::CanopyPlugin::report_node_events

use bevy_ecs::entity::Entity;
use bevy_ecs::message::Message;
use canopy_core::{Event, EventKind, NodeId, Observer, Status, Ticket, Tree};

/// What happened to a watched node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeChange {
    /// Its task was installed: the node started.
    Started,
    /// It finished with this status.
    Ended(Status),
    /// It was stopped before it finished.
    Aborted,
}

/// Sent when a watched node of an entity's tree started, ended or was
/// aborted this tick, in the order it happened.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeEvent {
    /// The entity whose tree it is.
    pub entity: Entity,
    /// The node, in the tree version the brain runs.
    pub node: NodeId,
    /// What happened.
    pub change: NodeChange,
}

/// The nodes a brain watches and what they did since the last report.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    names: Vec<String>,
    nodes: Vec<NodeId>,
    pub(crate) seen: Vec<(NodeId, NodeChange)>,
}

impl Watch {
    pub(crate) fn new(names: Vec<String>) -> Self {
        Watch {
            names,
            nodes: Vec::new(),
            // Room for a few events per tick, so that steady-state ticks
            // need no growth.
            seen: Vec::with_capacity(8),
        }
    }

    /// Find the watched names' nodes in the tree version now run.
    pub(crate) fn resolve<A, W>(&mut self, tree: &Tree<A, W>) {
        self.nodes = tree
            .nodes()
            .filter(|n| self.names.iter().any(|name| name == n.name()))
            .map(|n| n.id())
            .collect();
    }

    /// An observer adding to the events seen (the tick clears them first,
    /// so the list holds at most one reload's and one tick's), and telling
    /// `aborted` of aborted waits.
    pub(crate) fn recorder<O: Observer>(&mut self, aborted: O) -> Recorder<'_, O> {
        Recorder {
            nodes: &self.nodes,
            seen: &mut self.seen,
            aborted,
        }
    }
}

/// Keeps the events of the watched nodes.
pub(crate) struct Recorder<'w, O> {
    nodes: &'w [NodeId],
    seen: &'w mut Vec<(NodeId, NodeChange)>,
    aborted: O,
}

impl<O: Observer> Observer for Recorder<'_, O> {
    fn wait_aborted(&mut self, node: NodeId, ticket: Ticket) {
        self.aborted.wait_aborted(node, ticket);
    }

    fn event(&mut self, event: Event) {
        if !self.nodes.contains(&event.node) {
            return;
        }
        let change = match event.kind {
            EventKind::Enter => NodeChange::Started,
            EventKind::Exit(status) => NodeChange::Ended(status),
            EventKind::Abort => NodeChange::Aborted,
            EventKind::Update(_) => return,
        };
        self.seen.push((event.node, change));
    }
}
