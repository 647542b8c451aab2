//! BehaviorTree.CPP's node statuses for a canopy agent, from its events.
//!
//! Groot2 draws what BehaviorTree.CPP's nodes hold: RUNNING while a node
//! runs; SUCCESS or FAILURE once it finished, until its parent resets it;
//! IDLE after a reset, drawn as "was SUCCESS" (the status byte `10 +` the
//! one before). canopy keeps none of this — a finished task is gone from
//! the agent's memory — so the [`Mirror`] replays each event of the
//! watched agent on a model of BehaviorTree.CPP's statuses, resetting
//! children when BehaviorTree.CPP's nodes do:
//!
//! - a control (Sequence, Fallback, Parallel, …) resets its children when
//!   it finishes; `SequenceWithMemory` failing keeps the children that
//!   succeeded before the failed one;
//! - a reactive control, while a child runs, resets every other child;
//! - a decorator resets its child as soon as the child finishes, and so
//!   does a `<SubTree>`, whose status is its subtree root's;
//! - a halt (canopy's abort) resets the halted node's children, depth
//!   first, then the node;
//! - the root is reset after the tick that finishes it.
//!
//! Each change is also a transition, as BehaviorTree.CPP's loggers see
//! them (`(uid, status)`, IDLE as 0), in the order BehaviorTree.CPP makes
//! them: a parent's children are reset before the parent takes its final
//! status; a halted node's children before the node. Groot2's recording
//! and the `.btlog` writer take them from here.
//!
//! An event names a canopy node; where a shared subtree puts one node at
//! several places, the place is the first one consistent with what runs:
//! an entered node's parent runs and it does not, an updated one runs.
//! Two instances of one shared subtree running side by side under a
//! Parallel can be told apart wrongly; the statuses of the tree's other
//! nodes are unaffected.
//!
//! Rejected: a status kept in the agent for every node (memory per agent
//! proportional to the tree, paid by a hundred thousand agents so that one
//! can be watched), and statuses read from the agent's running tasks alone
//! (the running path shows RUNNING, but nothing says which nodes finished
//! since the parent started, which Groot2 draws).

use canopy_core::{Event, EventKind, Observer, Status, inspect::TaskView};

use crate::align::Alignment;
use crate::xml::{GrootTree, NodeClass};

/// BehaviorTree.CPP's `NodeStatus` values.
pub(crate) const IDLE: u8 = 0;
pub(crate) const RUNNING: u8 = 1;
pub(crate) const SUCCESS: u8 = 2;
pub(crate) const FAILURE: u8 = 3;

/// One status change, as BehaviorTree.CPP's loggers get it: the node's UID
/// and its new status (0 IDLE, 1 RUNNING, 2 SUCCESS, 3 FAILURE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The node's UID.
    pub uid: u16,
    /// Its new status.
    pub status: u8,
}

/// The status byte of `status`.
fn byte(status: Status) -> u8 {
    match status {
        Status::Running => RUNNING,
        Status::Success => SUCCESS,
        Status::Failure => FAILURE,
    }
}

/// Each place's rank among its parent's children.
fn ranks(align: &Alignment) -> Vec<u32> {
    let mut rank = vec![0; align.insts.len()];
    for inst in &align.insts {
        for (r, &child) in inst.children.iter().enumerate() {
            rank[child as usize] = r as u32;
        }
    }
    rank
}

/// The model of one agent's node statuses: an [`Observer`] of its ticks.
#[derive(Clone, Debug)]
pub(crate) struct Mirror {
    /// By `uid - 1`: class, parent and children, copied from the tree.
    class: Vec<NodeClass>,
    parent: Vec<Option<u16>>,
    children: Vec<Vec<u16>>,
    /// The STATUS order of the UIDs.
    order: Vec<u16>,
    align: Alignment,
    /// By `uid - 1`: the status, and the byte a STATUS reply shows.
    status: Vec<u8>,
    shown: Vec<u8>,
    /// By place: whether canopy's task there is installed.
    active: Vec<bool>,
    /// By place: the status its last update finished with (0: none since
    /// it was entered), so that the exit after it changes nothing.
    finished: Vec<u8>,
    /// By place: its rank among its parent's children, and the rank of
    /// the child it entered last since it was entered (-1: none).
    rank: Vec<u32>,
    cursor: Vec<i64>,
    /// Places aborted since the last other event, deepest first.
    aborts: Vec<u32>,
    /// The changes since [`Mirror::take_transitions`] last took them.
    transitions: Vec<Transition>,
}

impl Mirror {
    pub(crate) fn new(groot: &GrootTree, align: Alignment) -> Mirror {
        let n = groot.nodes().len();
        Mirror {
            class: groot.nodes().iter().map(|g| g.class).collect(),
            parent: groot.nodes().iter().map(|g| g.parent).collect(),
            children: groot.nodes().iter().map(|g| g.children.clone()).collect(),
            order: groot
                .sections()
                .iter()
                .flat_map(|s| s.nodes.iter().copied())
                .collect(),
            active: vec![false; align.insts.len()],
            finished: vec![IDLE; align.insts.len()],
            rank: ranks(&align),
            cursor: vec![-1; align.insts.len()],
            align,
            status: vec![IDLE; n],
            shown: vec![IDLE; n],
            aborts: Vec::new(),
            transitions: Vec::new(),
        }
    }

    /// Where the tree's XML and canopy's tree disagree.
    pub(crate) fn mismatches(&self) -> &[String] {
        self.align.mismatches()
    }

    /// Forget everything and start from an agent's running tasks (as
    /// [`Agent::running`](canopy_core::Agent::running) gives them): those
    /// run, every other node is IDLE (never run). No transition is made.
    pub(crate) fn start(&mut self, running: &[TaskView]) {
        self.status.fill(IDLE);
        self.shown.fill(IDLE);
        self.active.fill(false);
        self.finished.fill(IDLE);
        self.cursor.fill(-1);
        self.aborts.clear();
        self.transitions.clear();
        let mut path: Vec<u32> = Vec::new();
        for task in running {
            path.truncate(task.depth);
            let place = match path.last() {
                None if task.depth == 0 => Some(0),
                None => None,
                Some(&parent) => self.align.insts[parent as usize]
                    .children
                    .get(task.child)
                    .copied(),
            };
            let Some(place) = place.filter(|&p| {
                self.align
                    .insts
                    .get(p as usize)
                    .is_some_and(|i| i.node == task.node)
            }) else {
                // Not aligned: nothing below it is shown either.
                path.push(u32::MAX);
                continue;
            };
            path.push(place);
            self.active[place as usize] = true;
            if let Some(uid) = self.align.insts[place as usize].uid {
                let mut u = uid;
                loop {
                    self.status[usize::from(u) - 1] = RUNNING;
                    self.shown[usize::from(u) - 1] = RUNNING;
                    match self.subtree_above(u) {
                        Some(s) => u = s,
                        None => break,
                    }
                }
            }
        }
    }

    /// The tick ended: pending halts are carried out, and a finished root
    /// is reset, as BehaviorTree.CPP's `tickRoot` does.
    pub(crate) fn end_tick(&mut self) {
        self.flush_aborts();
        let root = 1;
        if matches!(self.status.first(), Some(&SUCCESS | &FAILURE)) {
            self.set(root, IDLE);
        }
    }

    /// The status bytes as a STATUS reply carries them: `(uid u16 LE,
    /// status u8)` for every node, section by section.
    pub(crate) fn write_status(&self, out: &mut Vec<u8>) {
        out.clear();
        for &uid in &self.order {
            out.extend_from_slice(&uid.to_le_bytes());
            out.push(self.shown[usize::from(uid) - 1]);
        }
    }

    /// The transitions made since the last call.
    pub(crate) fn take_transitions(&mut self, out: &mut Vec<Transition>) {
        out.append(&mut self.transitions);
    }

    /// The `<SubTree>` whose subtree `uid` is the root of.
    fn subtree_above(&self, uid: u16) -> Option<u16> {
        let parent = self.parent[usize::from(uid) - 1]?;
        (self.class[usize::from(parent) - 1] == NodeClass::SubTree).then_some(parent)
    }

    fn get(&self, uid: u16) -> u8 {
        self.status[usize::from(uid) - 1]
    }

    fn set(&mut self, uid: u16, status: u8) {
        let i = usize::from(uid) - 1;
        let before = self.status[i];
        if before == status {
            return;
        }
        self.status[i] = status;
        self.shown[i] = if status == IDLE { 10 + before } else { status };
        self.transitions.push(Transition { uid, status });
    }

    /// BehaviorTree.CPP's halt of `uid`: its children reset (a running one
    /// halted first), then itself.
    fn halt(&mut self, uid: u16) {
        self.reset_children(uid);
        self.set(uid, IDLE);
    }

    /// `resetChildren`: every child halted if it runs, then reset.
    fn reset_children(&mut self, uid: u16) {
        for k in 0..self.children[usize::from(uid) - 1].len() {
            let child = self.children[usize::from(uid) - 1][k];
            if self.get(child) == RUNNING {
                self.halt(child);
            } else {
                self.set(child, IDLE);
            }
        }
    }

    /// Reset the children that finished (a decorator's finished child, a
    /// reactive control's children other than the running one).
    fn reset_finished_children(&mut self, uid: u16) {
        for k in 0..self.children[usize::from(uid) - 1].len() {
            let child = self.children[usize::from(uid) - 1][k];
            if !matches!(self.get(child), IDLE | RUNNING) {
                self.set(child, IDLE);
            }
        }
    }

    fn enter(&mut self, uid: u16) {
        let mut chain = Vec::new();
        let mut u = uid;
        while let Some(s) = self.subtree_above(u) {
            chain.push(s);
            u = s;
        }
        for &s in chain.iter().rev() {
            if self.get(s) != RUNNING {
                self.set(s, RUNNING);
            }
        }
        if self.class[usize::from(uid) - 1] != NodeClass::Leaf {
            self.set(uid, RUNNING);
        }
    }

    fn update(&mut self, uid: u16, status: Status) {
        let class = self.class[usize::from(uid) - 1];
        if status == Status::Running {
            self.set(uid, RUNNING);
            if matches!(class, NodeClass::Decorator | NodeClass::Reactive) {
                self.reset_finished_children(uid);
            }
            return;
        }
        let st = byte(status);
        if class == NodeClass::SequenceWithMemory && status == Status::Failure {
            for k in 0..self.children[usize::from(uid) - 1].len() {
                let child = self.children[usize::from(uid) - 1][k];
                match self.get(child) {
                    SUCCESS => {}
                    RUNNING => self.halt(child),
                    _ => self.set(child, IDLE),
                }
            }
        } else {
            self.reset_children(uid);
        }
        self.set(uid, st);
        let mut u = uid;
        while let Some(s) = self.subtree_above(u) {
            self.set(u, IDLE);
            self.set(s, st);
            u = s;
        }
    }

    /// Carry out the halts seen since the last other event: each topmost
    /// halted node (through the `<SubTree>`s above it) in tree order.
    fn flush_aborts(&mut self) {
        if self.aborts.is_empty() {
            return;
        }
        let mut uids: Vec<u16> = self
            .aborts
            .drain(..)
            .filter_map(|p| self.align.insts[p as usize].uid)
            .collect();
        uids.sort_unstable();
        uids.dedup();
        let mut tops = Vec::new();
        for &uid in &uids {
            let mut above = self.parent[usize::from(uid) - 1];
            let mut covered = false;
            while let Some(p) = above {
                if uids.binary_search(&p).is_ok() {
                    covered = true;
                    break;
                }
                above = self.parent[usize::from(p) - 1];
            }
            if !covered {
                let mut top = uid;
                while let Some(s) = self.subtree_above(top) {
                    if self.get(s) != RUNNING {
                        break;
                    }
                    top = s;
                }
                tops.push(top);
            }
        }
        for top in tops {
            self.halt(top);
        }
    }

    /// The place of an event on `node`: one consistent with what runs —
    /// for an update, a place that runs; for an entry, one that does not
    /// under a parent that does, the next after the sibling its parent
    /// entered last if there is one (a sequence's next child), else the
    /// first (a reactive parent starting over).
    fn pick(&self, node: canopy_core::NodeId, entering: bool) -> Option<u32> {
        let places = self.align.places(node);
        if places.len() <= 1 {
            return places.first().copied();
        }
        let runs = |p: u32| self.active[p as usize];
        if !entering {
            return places
                .iter()
                .copied()
                .find(|&p| runs(p))
                .or_else(|| places.first().copied());
        }
        places
            .iter()
            .copied()
            .filter(|&p| !runs(p) && self.align.insts[p as usize].parent.is_none_or(&runs))
            .min_by_key(|&p| {
                let rank = i64::from(self.rank[p as usize]);
                let after = self.align.insts[p as usize]
                    .parent
                    .is_none_or(|parent| rank > self.cursor[parent as usize]);
                (!after, rank, p)
            })
            .or_else(|| places.first().copied())
    }
}

impl Observer for Mirror {
    fn event(&mut self, event: Event) {
        if event.kind == EventKind::Abort {
            if let Some(place) = self.pick(event.node, false) {
                self.active[place as usize] = false;
                self.aborts.push(place);
            }
            return;
        }
        let entering = event.kind == EventKind::Enter;
        if entering {
            // Halts seen before an entry came before it.
            self.flush_aborts();
        }
        let Some(place) = self.pick(event.node, entering) else {
            return;
        };
        let uid = self.align.insts[place as usize].uid;
        match event.kind {
            EventKind::Enter => {
                self.active[place as usize] = true;
                self.finished[place as usize] = IDLE;
                self.cursor[place as usize] = -1;
                if let Some(parent) = self.align.insts[place as usize].parent {
                    self.cursor[parent as usize] = i64::from(self.rank[place as usize]);
                }
                if let Some(uid) = uid {
                    self.enter(uid);
                }
            }
            EventKind::Update(status) => {
                if status != Status::Running {
                    self.finished[place as usize] = byte(status);
                }
                if let Some(uid) = uid {
                    self.update(uid, status);
                }
            }
            EventKind::Exit(status) => {
                self.active[place as usize] = false;
                // The exit after the update that finished it changes nothing.
                let seen = std::mem::replace(&mut self.finished[place as usize], IDLE);
                if seen != byte(status)
                    && let Some(uid) = uid
                {
                    self.update(uid, status);
                }
            }
            EventKind::Abort => {}
        }
        // Halts seen before an update are the updated node's doing (a
        // finished parent resetting its children, a reactive one halting
        // a branch): made in its order by the update itself where they
        // are its children's; the others now.
        self.flush_aborts();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_btcpp::{XmlOptions, load_str};
    use canopy_core::Agent;
    use canopy_data::Registry;

    /// Per tick: `(uid, byte)` in STATUS order.
    type Shown = Vec<Vec<(u16, u8)>>;

    /// Statuses and transitions after each tick.
    fn run(xml: &str, ticks: usize) -> (Shown, Vec<Vec<Transition>>) {
        let registry = Registry::<(), ()>::new();
        let tree = load_str(&registry, xml, "t.xml", None, &XmlOptions::default()).unwrap();
        let groot = GrootTree::from_xml(xml).unwrap();
        let mut mirror = Mirror::new(&groot, Alignment::new(&groot, &tree));
        assert!(mirror.mismatches().is_empty(), "{:?}", mirror.mismatches());
        let mut agent = Agent::new(&tree);
        let mut statuses = Vec::new();
        let mut transitions = Vec::new();
        for _ in 0..ticks {
            agent.tick_observed(&tree, &mut (), &(), &mut mirror);
            mirror.end_tick();
            let mut buf = Vec::new();
            mirror.write_status(&mut buf);
            statuses.push(
                buf.chunks(3)
                    .map(|c| (u16::from_le_bytes([c[0], c[1]]), c[2]))
                    .collect(),
            );
            let mut t = Vec::new();
            mirror.take_transitions(&mut t);
            transitions.push(t);
        }
        (statuses, transitions)
    }

    /// The same tree BehaviorTree.CPP 4.8.2's publisher showed after its
    /// first tick (Sleep still running):
    /// `1:1 2:2 3:2 4:13 5:12 9:1 10:12 11:1 12:0 13:0 6:12 7:12 8:12`.
    #[test]
    fn a_tick_shows_what_behaviortree_cpps_publisher_showed() {
        let xml = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
        <BehaviorTree ID="Main">
          <Sequence name="top">
            <Script code="count := 3"/>
            <Fallback><AlwaysFailure/><SubTree ID="Sub" _autoremap="true"/></Fallback>
            <ReactiveSequence><AlwaysSuccess/><Sleep msec="300"/></ReactiveSequence>
            <Inverter><AlwaysFailure/></Inverter>
          </Sequence>
        </BehaviorTree>
        <BehaviorTree ID="Sub">
          <Sequence><Script code="local := count + 1"/><AlwaysSuccess name="done"/></Sequence>
        </BehaviorTree>
        </root>"#;
        let (statuses, transitions) = run(xml, 2);
        let expected = [
            (1, 1),
            (2, 2),
            (3, 2),
            (4, 13),
            (5, 12),
            (9, 1),
            (10, 12),
            (11, 1),
            (12, 0),
            (13, 0),
            (6, 12),
            (7, 12),
            (8, 12),
        ];
        assert_eq!(statuses[0], expected);
        assert_eq!(statuses[1], expected, "the next tick changes nothing shown");
        let first: Vec<(u16, u8)> = transitions[0].iter().map(|t| (t.uid, t.status)).collect();
        assert_eq!(
            first,
            [
                (1, 1),
                (2, 2),
                (3, 1),
                (4, 3),
                (5, 1),
                (6, 1),
                (7, 2),
                (8, 2),
                (7, 0),
                (8, 0),
                (6, 2),
                (6, 0),
                (5, 2),
                (4, 0),
                (5, 0),
                (3, 2),
                (9, 1),
                (10, 2),
                (11, 1),
                (10, 0),
            ]
        );
        let second: Vec<(u16, u8)> = transitions[1].iter().map(|t| (t.uid, t.status)).collect();
        assert_eq!(
            second,
            [(10, 2), (10, 0)],
            "the reactive sequence re-ticks its first child"
        );
    }

    #[test]
    fn a_finished_root_is_reset_and_its_children_show_what_they_were() {
        let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M">
          <Fallback><AlwaysFailure/><Inverter><AlwaysFailure/></Inverter></Fallback>
        </BehaviorTree></root>"#;
        let (statuses, _) = run(xml, 1);
        assert_eq!(statuses[0], [(1, 12), (2, 13), (3, 12), (4, 13)]);
    }

    #[test]
    fn a_halted_branch_is_reset_children_first() {
        // The Sleep runs for 3 ticks; the Timeout halts it after 1.
        let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="M">
          <Fallback>
            <Timeout msec="100"><Sequence><AlwaysSuccess/><Sleep msec="300"/></Sequence></Timeout>
            <AlwaysSuccess name="plan_b"/>
          </Fallback>
        </BehaviorTree></root>"#;
        let (statuses, transitions) = run(xml, 3);
        assert_eq!(
            statuses[0],
            [(1, 1), (2, 1), (3, 1), (4, 2), (5, 1), (6, 0)]
        );
        let halted: Vec<(u16, u8)> = transitions[1].iter().map(|t| (t.uid, t.status)).collect();
        assert!(
            halted.starts_with(&[(4, 0), (5, 0), (3, 0)]),
            "children of the halted sequence first: {halted:?}"
        );
    }
}
