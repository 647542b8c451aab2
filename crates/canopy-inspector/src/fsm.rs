//! State machines in the inspector: a machine drawn as a tree of its
//! states, and an [`FsmAgent`]'s active state path shown as its running
//! tasks.
//!
//! A machine has no events to derive anything from, but an `FsmAgent`
//! knows its active path at any time, so it is an engine view
//! ([`RunningSource`]) from the start.
//!
//! ```
//! use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
//! use canopy_inspector::fsm::{ActiveStates, machine_shape};
//! use canopy_inspector::AgentLog;
//!
//! let mut moving = MachineBuilder::<(), (), ()>::new();
//! moving.state("Walk", Hooks::new());
//! moving.start("Walk");
//! let mut b = MachineBuilder::new();
//! b.state("Idle", Hooks::new());
//! b.state("Move", Hooks::new()).child_machine(moving);
//! b.start("Move");
//! let machine = b.build().unwrap();
//! let mut agent = FsmAgent::new(&machine);
//! agent.start(&machine, &mut (), &());
//!
//! let shape = machine_shape(&machine);
//! let names: Vec<&str> = shape.nodes().iter().map(|n| n.name.as_str()).collect();
//! assert_eq!(names, ["machine", "Idle", "Move", "Walk"]);
//! let log = AgentLog::new(shape.len(), 10);
//! let view = log.view(&shape, Some(&ActiveStates::new(&agent, &machine)));
//! assert_eq!(view.running(), [0, 2, 3]); // the machine, Move, Walk
//! ```

use canopy_fsm::{FsmAgent, Machine, StateId};

use crate::shape::{Shape, ShapeNode};
use crate::view::{RunningSource, RunningTask};

/// The node id of state `state` in [`machine_shape`]: its index plus one
/// (node 0 is the machine).
pub fn node_of(state: StateId) -> u32 {
    state.index() as u32 + 1
}

/// The shape of `machine`: node 0 is the machine (type `Machine`), node
/// [`node_of`]`(s)` is state `s` (type `State`, `Final` or `TreeState`),
/// whose children are its child machine's states.
pub fn machine_shape<A, W, T>(machine: &Machine<A, W, T>) -> Shape {
    let mut nodes = vec![placeholder(); machine.len() + 1];
    nodes[0] = ShapeNode {
        name: "machine".to_string(),
        type_name: "Machine".to_string(),
        params: vec![(
            "start".to_string(),
            machine.name(machine.start()).to_string(),
        )],
        children: machine.top_level().map(node_of).collect(),
    };
    let mut stack: Vec<StateId> = machine.top_level().collect();
    while let Some(state) = stack.pop() {
        stack.extend(machine.children(state));
        nodes[node_of(state) as usize] = state_node(machine, state);
    }
    Shape::from_nodes(nodes)
}

fn placeholder() -> ShapeNode {
    ShapeNode {
        name: String::new(),
        type_name: String::new(),
        params: Vec::new(),
        children: Vec::new(),
    }
}

fn state_node<A, W, T>(machine: &Machine<A, W, T>, state: StateId) -> ShapeNode {
    let mut params = Vec::new();
    let type_name = if let Some(outcome) = machine.outcome(state) {
        params.push(("outcome".to_string(), outcome.to_string()));
        "Final"
    } else if machine.runs_tree(state) {
        "TreeState"
    } else {
        "State"
    };
    if let Some(initial) = machine.initial(state) {
        params.push(("start".to_string(), machine.name(initial).to_string()));
    }
    ShapeNode {
        name: machine.name(state).to_string(),
        type_name: type_name.to_string(),
        params,
        children: machine.children(state).map(node_of).collect(),
    }
}

/// An [`FsmAgent`]'s active path as running tasks, outermost first.
pub struct ActiveStates<'a, A, W, T> {
    agent: &'a FsmAgent,
    machine: &'a Machine<A, W, T>,
}

impl<A, W, T> std::fmt::Debug for ActiveStates<'_, A, W, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActiveStates").finish_non_exhaustive()
    }
}

impl<'a, A, W, T> ActiveStates<'a, A, W, T> {
    /// The view of `agent`, which runs `machine`.
    pub fn new(agent: &'a FsmAgent, machine: &'a Machine<A, W, T>) -> Self {
        ActiveStates { agent, machine }
    }
}

impl<A, W, T> RunningSource for ActiveStates<'_, A, W, T> {
    fn running_tasks(&self, out: &mut Vec<RunningTask>) {
        let active = self.agent.active();
        if active.is_empty() {
            return;
        }
        out.push(RunningTask {
            node: 0,
            depth: 0,
            state: Some(match active.len() {
                1 => "1 active level".to_string(),
                n => format!("{n} active levels"),
            }),
        });
        for (level, &state) in active.iter().enumerate() {
            let text = match self.machine.outcome(state) {
                Some(outcome) => Some(format!("final: the machine's outcome is {outcome}")),
                None if self.machine.runs_tree(state) => Some("running its tree".to_string()),
                None => None,
            };
            out.push(RunningTask {
                node: node_of(state),
                depth: level as u32 + 1,
                state: text,
            });
        }
    }
}
