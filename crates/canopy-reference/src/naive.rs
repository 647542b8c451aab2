//! The classic design canopy is measured against: every agent owns a full
//! copy of every node, each node object keeping its own runtime state and
//! dispatched through `Box<dyn>` — the shape of seed 001's tutorial tree and
//! of BehaviorTree.CPP's per-instance trees.
//!
//! It runs the same [`NodeKind`]s with the same semantics as canopy (see
//! `canopy_core::nodes`) and calls the very same leaf closures, copied out
//! of a canopy [`Tree`]; only where the state lives differs. That makes it
//! both the memory/speed baseline and an independent second implementation
//! the differential tests compare canopy against.

use canopy_core::{Ctx, NodeKind, NodeRef, Policy, Status, Tree};

/// One agent's private copy of a whole tree.
///
/// ```
/// use canopy_core::Status;
/// use canopy_reference::{critters, naive::NaiveAgent, reference_tree, Meadow};
///
/// let tree = reference_tree();
/// let meadow = Meadow::new(128);
/// let mut critter = critters(1, 3, &meadow).remove(0);
/// let mut agent = NaiveAgent::new(&tree, 0).unwrap();
/// let status = agent.tick(&mut critter, &meadow);
/// assert_ne!(status, Status::Failure);
/// ```
pub struct NaiveAgent<A, W> {
    root: Box<dyn Classic<A, W>>,
    tick: u32,
    id: u32,
}

impl<A: 'static, W: 'static> NaiveAgent<A, W> {
    /// Copy every node of `tree` for one agent. Custom node types and async
    /// leaves are not supported (they have no classic counterpart).
    pub fn new(tree: &Tree<A, W>, id: u32) -> Result<Self, String> {
        Ok(NaiveAgent {
            root: instantiate(tree.node(tree.root()))?,
            tick: 0,
            id,
        })
    }

    /// Tick the agent's tree once and return the root status.
    pub fn tick(&mut self, agent: &mut A, world: &W) -> Status {
        self.tick = self.tick.wrapping_add(1).max(1);
        let mut cx = Ctx {
            agent,
            world,
            tick: self.tick,
            id: self.id,
        };
        self.root.tick(&mut cx)
    }
}

/// A classic node: its own state, its own children, a virtual tick.
trait Classic<A, W>: Send + Sync {
    /// Enter if idle, update, and go idle again when finished.
    fn tick(&mut self, cx: &mut Ctx<A, W>) -> Status;
    /// Stop a running node, its running children first.
    fn abort(&mut self, cx: &mut Ctx<A, W>);
    fn is_running(&self) -> bool;
}

fn instantiate<A: 'static, W: 'static>(
    node: NodeRef<'_, A, W>,
) -> Result<Box<dyn Classic<A, W>>, String> {
    let mut children = node
        .children()
        .map(instantiate)
        .collect::<Result<Vec<_>, _>>()?;
    let kind = node.kind().clone();
    Ok(match kind {
        NodeKind::Sequence
        | NodeKind::Selector
        | NodeKind::ReactiveSequence
        | NodeKind::ReactiveSelector
        | NodeKind::Parallel { .. } => Box::new(Composite {
            codes: vec![IDLE; children.len()],
            kind,
            children,
            running: false,
            index: 0,
            running_child: None,
        }),
        NodeKind::Custom(c) => {
            return Err(format!(
                "custom node type {} has no classic counterpart",
                c.type_name()
            ));
        }
        NodeKind::Async(_) => {
            return Err("async leaves have no classic counterpart".to_string());
        }
        _ if children.len() == 1 => Box::new(Decorator {
            kind,
            child: children.pop().expect("one child"),
            running: false,
            cycles: 0,
            entered: 0,
            ready_at: 0,
        }),
        _ => Box::new(Leaf {
            kind,
            running: false,
            entered: 0,
        }),
    })
}

const IDLE: u8 = 0;
const RUNNING: u8 = 1;
const SUCCEEDED: u8 = 2;
const FAILED: u8 = 3;

struct Composite<A, W> {
    kind: NodeKind<A, W>,
    children: Vec<Box<dyn Classic<A, W>>>,
    running: bool,
    index: usize,
    running_child: Option<usize>,
    codes: Vec<u8>,
}

impl<A, W> Composite<A, W> {
    fn in_order(&mut self, cx: &mut Ctx<A, W>, fresh: bool, go_on: Status) -> Status {
        if self.children.is_empty() {
            return go_on;
        }
        if fresh {
            self.index = 0;
        }
        loop {
            let status = self.children[self.index].tick(cx);
            if status != go_on {
                return status;
            }
            self.index += 1;
            if self.index == self.children.len() {
                return go_on;
            }
        }
    }

    fn reactive(&mut self, cx: &mut Ctx<A, W>, fresh: bool, go_on: Status) -> Status {
        if fresh {
            self.running_child = None;
        }
        for k in 0..self.children.len() {
            let status = self.children[k].tick(cx);
            if status == go_on {
                if self.running_child == Some(k) {
                    self.running_child = None;
                }
                continue;
            }
            if let Some(r) = self.running_child
                && k < r
            {
                self.children[r].abort(cx);
            }
            self.running_child = (status == Status::Running).then_some(k);
            return status;
        }
        go_on
    }

    fn parallel(
        &mut self,
        cx: &mut Ctx<A, W>,
        fresh: bool,
        success: Policy,
        failure: Policy,
    ) -> Status {
        if fresh {
            self.codes.fill(IDLE);
        }
        let n = self.children.len();
        let (mut succeeded, mut failed) = (0, 0);
        let mut decided = None;
        for i in 0..n {
            let status = match self.codes[i] {
                SUCCEEDED => Status::Success,
                FAILED => Status::Failure,
                _ => {
                    let status = self.children[i].tick(cx);
                    self.codes[i] = match status {
                        Status::Running => RUNNING,
                        Status::Success => SUCCEEDED,
                        Status::Failure => FAILED,
                    };
                    status
                }
            };
            match status {
                Status::Success => {
                    succeeded += 1;
                    if success == Policy::One {
                        decided = Some(Status::Success);
                        break;
                    }
                }
                Status::Failure => {
                    failed += 1;
                    if failure == Policy::One {
                        decided = Some(Status::Failure);
                        break;
                    }
                }
                Status::Running => {}
            }
        }
        if decided.is_none() {
            decided = if failed == n {
                Some(Status::Failure)
            } else if success == Policy::All && succeeded == n {
                Some(Status::Success)
            } else if succeeded + failed == n {
                Some(Status::Failure)
            } else {
                None
            };
        }
        match decided {
            Some(status) => {
                self.abort_children(cx);
                status
            }
            None => Status::Running,
        }
    }

    fn abort_children(&mut self, cx: &mut Ctx<A, W>) {
        for child in &mut self.children {
            if child.is_running() {
                child.abort(cx);
            }
        }
        self.codes.fill(IDLE);
        self.running_child = None;
    }
}

impl<A, W> Classic<A, W> for Composite<A, W> {
    fn tick(&mut self, cx: &mut Ctx<A, W>) -> Status {
        let fresh = !self.running;
        let status = match self.kind {
            NodeKind::Sequence => self.in_order(cx, fresh, Status::Success),
            NodeKind::Selector => self.in_order(cx, fresh, Status::Failure),
            NodeKind::ReactiveSequence => self.reactive(cx, fresh, Status::Success),
            NodeKind::ReactiveSelector => self.reactive(cx, fresh, Status::Failure),
            NodeKind::Parallel { success, failure } => self.parallel(cx, fresh, success, failure),
            _ => unreachable!("only controls are composites"),
        };
        self.running = status == Status::Running;
        status
    }

    fn abort(&mut self, cx: &mut Ctx<A, W>) {
        self.abort_children(cx);
        self.running = false;
    }

    fn is_running(&self) -> bool {
        self.running
    }
}

struct Decorator<A, W> {
    kind: NodeKind<A, W>,
    child: Box<dyn Classic<A, W>>,
    running: bool,
    cycles: u32,
    entered: u32,
    /// Cooldown: the tick it may be entered again (0: any time). Lives as
    /// long as the node, as every field of a classic node does.
    ready_at: u32,
}

impl<A, W> Decorator<A, W> {
    fn repeat(&mut self, cx: &mut Ctx<A, W>, fresh: bool, times: u32, counts: Status) -> Status {
        if fresh {
            self.cycles = 0;
        }
        let status = self.child.tick(cx);
        if status != counts {
            return status;
        }
        self.cycles += 1;
        if self.cycles >= times {
            status
        } else {
            Status::Running
        }
    }

    fn stop_child(&mut self, cx: &mut Ctx<A, W>) {
        if self.child.is_running() {
            self.child.abort(cx);
        }
    }
}

impl<A, W> Classic<A, W> for Decorator<A, W> {
    fn tick(&mut self, cx: &mut Ctx<A, W>) -> Status {
        let fresh = !self.running;
        let status = match &self.kind {
            NodeKind::Inverter => self.child.tick(cx).invert(),
            NodeKind::ForceSuccess => match self.child.tick(cx) {
                Status::Running => Status::Running,
                _ => Status::Success,
            },
            NodeKind::ForceFailure => match self.child.tick(cx) {
                Status::Running => Status::Running,
                _ => Status::Failure,
            },
            &NodeKind::Repeat(n) => self.repeat(cx, fresh, n, Status::Success),
            &NodeKind::Retry(n) => self.repeat(cx, fresh, n, Status::Failure),
            NodeKind::Guard(p) => {
                if fresh && !(p.check)(cx) {
                    Status::Failure
                } else {
                    self.child.tick(cx)
                }
            }
            NodeKind::ReactiveGuard(p) => {
                if (p.check)(cx) {
                    self.child.tick(cx)
                } else {
                    self.stop_child(cx);
                    Status::Failure
                }
            }
            &NodeKind::Timeout(n) => {
                if fresh {
                    self.entered = cx.tick;
                }
                if cx.tick.wrapping_sub(self.entered) >= n {
                    self.stop_child(cx);
                    Status::Failure
                } else {
                    self.child.tick(cx)
                }
            }
            &NodeKind::Cooldown(n) => {
                if fresh && self.ready_at != 0 && (cx.tick.wrapping_sub(self.ready_at) as i32) < 0 {
                    Status::Failure
                } else {
                    let status = self.child.tick(cx);
                    if status != Status::Running {
                        self.ready_at = cx.tick.wrapping_add(n).wrapping_add(1).max(1);
                    }
                    status
                }
            }
            _ => unreachable!("only decorators have one child"),
        };
        self.running = status == Status::Running;
        status
    }

    fn abort(&mut self, cx: &mut Ctx<A, W>) {
        self.stop_child(cx);
        if let NodeKind::Cooldown(n) = self.kind {
            self.ready_at = cx.tick.wrapping_add(n).wrapping_add(1).max(1);
        }
        self.running = false;
    }

    fn is_running(&self) -> bool {
        self.running
    }
}

struct Leaf<A, W> {
    kind: NodeKind<A, W>,
    running: bool,
    entered: u32,
}

impl<A, W> Classic<A, W> for Leaf<A, W> {
    fn tick(&mut self, cx: &mut Ctx<A, W>) -> Status {
        let fresh = !self.running;
        let status = match &self.kind {
            NodeKind::Action(f) => f(cx),
            NodeKind::Condition(f) => Status::from_bool(f(cx)),
            NodeKind::AlwaysSuccess => Status::Success,
            NodeKind::AlwaysFailure => Status::Failure,
            NodeKind::AlwaysRunning => Status::Running,
            &NodeKind::Wait(n) => {
                if fresh {
                    self.entered = cx.tick;
                }
                if cx.tick.wrapping_sub(self.entered) >= n {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            _ => unreachable!("only leaves have no children"),
        };
        self.running = status == Status::Running;
        status
    }

    fn abort(&mut self, _cx: &mut Ctx<A, W>) {
        self.running = false;
    }

    fn is_running(&self) -> bool {
        self.running
    }
}
