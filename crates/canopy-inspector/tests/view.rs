//! Looking inside one agent: the running set and node states derived from
//! its events, and an engine view plugged in instead.

mod common;

use canopy_core::{Agent, EventKind, Status};
use canopy_inspector::{AgentLog, NodeState, RunningSource, RunningTask, Shape};
use serde_json::json;

/// The takeover tree's agent 0 after each of `ticks` ticks, watched from
/// tick `from` on.
fn watched(ticks: u32, from: u32, events: usize) -> AgentLog {
    let tree = common::takeover();
    let mut log = AgentLog::new(tree.len(), events);
    let mut agent = Agent::with_id(&tree, 0);
    for tick in 1..=ticks {
        if tick < from {
            agent.tick(&tree, &mut (), &());
            continue;
        }
        if tick == from {
            log.reset(Some(0));
        }
        let status = agent.tick_observed(&tree, &mut (), &(), &mut log);
        log.end_tick(agent.ticks(), agent.id(), status);
    }
    log
}

fn shape() -> Shape {
    Shape::of(&common::takeover())
}

#[test]
fn the_running_path_follows_the_takeover() {
    let shape = shape();
    // Ticks 1-2: patrol walks; 3: alert takes over (patrol aborted); 4: done.
    let running = |ticks| watched(ticks, 1, 300).view(&shape, None).running();
    assert_eq!(running(1), [0, 4, 5]);
    assert_eq!(running(2), [0, 4, 5]);
    assert_eq!(running(3), [0, 1, 3]);
    assert_eq!(running(4), Vec::<u32>::new());
}

#[test]
fn each_node_keeps_its_last_event() {
    let log = watched(3, 1, 300);
    assert_eq!(
        log.node(5),
        Some(&NodeState {
            running: false,
            last: Some(EventKind::Abort),
            at: 3,
            since: Some(1),
            updates: 2,
        })
    );
    assert_eq!(
        log.node(3),
        Some(&NodeState {
            running: true,
            last: Some(EventKind::Update(Status::Running)),
            at: 3,
            since: Some(3),
            updates: 1,
        })
    );
    assert_eq!(
        log.node(2).unwrap().last,
        Some(EventKind::Exit(Status::Success))
    );
    assert_eq!(log.node(6), None);
}

#[test]
fn the_view_is_the_json_the_page_reads() {
    let view = watched(3, 1, 4).view(&shape(), None);
    let value = serde_json::to_value(&view).unwrap();
    assert_eq!(value["type"], "agent");
    assert_eq!(value["agent"], 0);
    assert_eq!(value["tick"], 3);
    assert_eq!(value["status"], "Running");
    assert_eq!(value["source"], "events");
    assert_eq!(
        value["nodes"][5],
        json!({"id": 5, "running": false, "last": null, "event": "abort", "at": 3,
               "state": "aborted at tick 3"})
    );
    assert_eq!(
        value["nodes"][3],
        json!({"id": 3, "running": true, "last": "Running", "event": "update", "at": 3,
               "state": "running since tick 3, 1 update"})
    );
    // The log keeps the last 4 of 34 records: tick 3's last events.
    assert_eq!(
        value["events"],
        json!([
            {"tick": 3, "id": 5, "event": "abort", "status": null},
            {"tick": 3, "id": 4, "event": "abort", "status": null},
            {"tick": 3, "id": 0, "event": "update", "status": "Running"},
            {"tick": 3, "id": null, "event": "tick", "status": "Running"},
        ])
    );
    assert_eq!(value["dropped"], 34 - 4);
}

#[test]
fn watching_mid_run_knows_what_runs_but_not_since_when() {
    let view = watched(2, 2, 300).view(&shape(), None);
    assert_eq!(view.running(), [0, 4, 5]);
    let walk = view.nodes.iter().find(|n| n.id == 5).unwrap();
    assert_eq!(
        walk.state.as_deref(),
        Some("running (since before watching began)")
    );
    assert_eq!(view.events.first().unwrap().tick, 2);
}

/// A stand-in for the engine's view of an agent.
struct Engine(Vec<RunningTask>);

impl RunningSource for Engine {
    fn running_tasks(&self, out: &mut Vec<RunningTask>) {
        out.extend(self.0.iter().cloned());
    }
}

#[test]
fn an_engine_view_replaces_the_derived_running_set() {
    let log = watched(2, 1, 300);
    let engine = Engine(vec![
        RunningTask {
            node: 0,
            depth: 0,
            state: Some("child 2 of 2".into()),
        },
        RunningTask {
            node: 4,
            depth: 1,
            state: Some("child 1 of 1".into()),
        },
        RunningTask {
            node: 99,
            depth: 2,
            state: None,
        }, // not in the tree: ignored
    ]);
    let view = log.view(&shape(), Some(&engine));
    assert_eq!(view.source, "engine");
    assert_eq!(view.running(), [0, 4]);
    let patrol = view.nodes.iter().find(|n| n.id == 4).unwrap();
    assert_eq!(patrol.state.as_deref(), Some("child 1 of 1"));
    assert_eq!(patrol.last, Some("Running"));
    // Nodes the engine does not list keep their last status, without a
    // derived state text.
    let alert = view.nodes.iter().find(|n| n.id == 1).unwrap();
    assert_eq!(
        (alert.running, alert.last, alert.state.as_deref()),
        (false, Some("Failure"), None)
    );
}

mod machines {
    use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
    use canopy_inspector::fsm::{ActiveStates, machine_shape, node_of};
    use canopy_inspector::{AgentLog, RunningSource};

    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    enum Go {
        Run,
        Stop,
    }

    #[test]
    fn a_machine_is_drawn_as_its_states_and_its_active_path_runs() {
        let mut moving = MachineBuilder::<(), (), Go>::new();
        moving.state("Walk", Hooks::new());
        moving.state("Sprint", Hooks::new());
        moving.transition("Walk", Go::Run, "Sprint");
        moving.start("Walk");
        let mut b = MachineBuilder::new();
        b.state("Idle", Hooks::new());
        b.state("Move", Hooks::new()).child_machine(moving);
        b.state("Done", Hooks::new()).succeeds();
        b.transition("Idle", Go::Run, "Move");
        b.transition("Move", Go::Stop, "Done");
        b.start("Idle");
        let machine = b.build().unwrap();

        let shape = machine_shape(&machine);
        let value = serde_json::to_value(&shape).unwrap();
        assert_eq!(
            value["nodes"][0],
            serde_json::json!({"name": "machine", "type": "Machine",
                               "params": [["start", "Idle"]], "children": [1, 2, 3]})
        );
        let move_state = machine.state("Move").unwrap();
        let node = shape.node(node_of(move_state)).unwrap();
        assert_eq!(
            (node.name.as_str(), node.type_name.as_str()),
            ("Move", "State")
        );
        assert_eq!(node.params, [("start".to_string(), "Walk".to_string())]);
        let done = shape.node(node_of(machine.state("Done").unwrap())).unwrap();
        assert_eq!(done.type_name, "Final");

        let mut agent = FsmAgent::new(&machine);
        let tasks = |agent: &FsmAgent| {
            let mut out = Vec::new();
            ActiveStates::new(agent, &machine).running_tasks(&mut out);
            out.iter()
                .map(|t| (t.node, t.depth, t.state.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(tasks(&agent), [], "stopped: nothing runs");
        agent.start(&machine, &mut (), &());
        agent.send(&machine, Go::Run, &mut (), &());
        agent.send(&machine, Go::Run, &mut (), &());
        let sprint = node_of(machine.state("Sprint").unwrap());
        assert_eq!(
            tasks(&agent),
            [
                (0, 0, Some("2 active levels".to_string())),
                (node_of(move_state), 1, None),
                (sprint, 2, None)
            ]
        );
        agent.send(&machine, Go::Stop, &mut (), &());
        let log = AgentLog::new(shape.len(), 10);
        let view = log.view(&shape, Some(&ActiveStates::new(&agent, &machine)));
        assert_eq!(view.running(), [0, 3]);
        let done = view.nodes.iter().find(|n| n.id == 3).unwrap();
        assert_eq!(
            done.state.as_deref(),
            Some("final: the machine's outcome is Success")
        );
    }
}
