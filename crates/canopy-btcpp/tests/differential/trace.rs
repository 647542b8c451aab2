//! canopy's side of the differential test: a tree file ticked `ticks`
//! times, printed in the format of `btcpp_run.py`.

use std::collections::BTreeMap;

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Event, EventKind, Mode, NodeId, Observer, Status, Tree};
use canopy_data::Registry;

/// Leaf updates and aborts of one tick, by leaf name.
struct Leaves<'t> {
    tree: &'t Tree<(), ()>,
    ticks: BTreeMap<String, u32>,
    halts: Vec<String>,
}

impl Leaves<'_> {
    fn leaf(&self, node: NodeId) -> Option<&str> {
        let node = self.tree.node(node);
        (node.type_name() == "Script").then(|| node.name())
    }
}

impl Observer for Leaves<'_> {
    fn event(&mut self, event: Event) {
        let Some(name) = self.leaf(event.node).map(str::to_string) else {
            return;
        };
        match event.kind {
            EventKind::Update(_) => *self.ticks.entry(name).or_default() += 1,
            EventKind::Abort => self.halts.push(name),
            EventKind::Enter | EventKind::Exit(_) => {}
        }
    }
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Success => "SUCCESS",
        Status::Failure => "FAILURE",
        Status::Running => "RUNNING",
    }
}

/// The blackboard's keys and values, ` bb KEY=VALUE...` in key order, as
/// `btcpp_run.py` prints them (booleans and numbers as numbers, whole ones
/// without a fraction); nothing without keys.
fn board_text(tree: &Tree<(), ()>, agent: &mut Agent) -> String {
    // Keys of a subtree's own scope (`@Tree_N__key`) are not the root
    // blackboard's, which is all BehaviorTree.CPP shows; keys starting
    // with `__` (a Precondition's latch) are left out on both sides.
    let mut slots: Vec<_> = tree
        .slots()
        .iter()
        .filter(|slot| !slot.key.starts_with("__") && !slot.key.starts_with('@'))
        .cloned()
        .collect();
    if slots.is_empty() {
        return String::new();
    }
    slots.sort_by(|a, b| a.key.cmp(&b.key));
    let mut board = agent.board(tree);
    let entries: Vec<String> = slots
        .iter()
        .map(|slot| {
            let shown = slot.ty.show(board.slot_bytes(slot));
            let value = match shown.as_str() {
                "true" => "1".to_string(),
                "false" => "0".to_string(),
                text => match text.parse::<f64>() {
                    Ok(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", n as i64),
                    Ok(n) => format!("{n}"),
                    Err(_) => text.trim_matches('"').to_string(),
                },
            };
            format!("{}={value}", slot.key)
        })
        .collect();
    format!(" bb {}", entries.join(" "))
}

/// The trace of `xml` run on canopy in `mode`, one line per tick (after
/// `== path`).
pub(crate) fn trace(
    registry: &Registry<(), ()>,
    path: &str,
    xml: &str,
    ticks: u32,
    mode: Mode,
) -> String {
    let mut out = format!("== {path}\n");
    let tree = match load_str(registry, xml, path, None, &XmlOptions::default()) {
        Ok(tree) => tree,
        Err(e) => {
            out.push_str(&format!("load error: {e}\n"));
            return out;
        }
    };
    let mut agent = Agent::new(&tree);
    agent.set_mode(&tree, mode);
    for tick in 1..=ticks {
        let mut leaves = Leaves {
            tree: &tree,
            ticks: BTreeMap::new(),
            halts: Vec::new(),
        };
        let status = agent.tick_observed(&tree, &mut (), &(), &mut leaves);
        leaves.halts.sort();
        let counts: Vec<String> = leaves
            .ticks
            .iter()
            .map(|(name, count)| format!("{name}={count}"))
            .collect();
        let line = format!(
            "tick {tick}: {} ticks {} halts {}",
            status_name(status),
            counts.join(" "),
            leaves.halts.join(" ")
        );
        out.push_str(line.trim_end());
        out.push_str(&board_text(&tree, &mut agent));
        out.push('\n');
    }
    out
}
