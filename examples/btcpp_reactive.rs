//! BehaviorTree.CPP's reactive-sequence tutorial on canopy: a long action
//! (a move that takes several ticks) behind a battery check, once under a
//! `<Sequence>` and once under a `<ReactiveSequence>`.
//!
//! A Sequence checks the battery once and then waits on the move; a
//! ReactiveSequence checks it again on every tick while the move runs, and
//! when the check fails it aborts the move (BehaviorTree.CPP's halt; in
//! canopy the node's `terminate` sees `Exit::Aborted`). The move is a node
//! with per-agent state — the ticks it still needs — in canopy's pooled task
//! memory, where BehaviorTree.CPP uses a stateful action object per tree.
//!
//! ```text
//! cargo run --example btcpp_reactive
//! ```

use std::cell::Cell;

use canopy::data::{Params, Registry};
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Children, Ctx, Exit, Input, Mode, Node, Status, Task, Text};

/// The robot: one agent's data.
#[derive(Debug, Default)]
struct Robot {
    /// Whether the battery is fine (the host changes it between ticks).
    battery_ok: bool,
    /// How often the battery was checked (a condition sees the agent
    /// read-only; a cell lets it count).
    checks: Cell<u32>,
    /// What happened, in order.
    log: Vec<String>,
}

/// Says a line.
#[derive(Params)]
struct SaySomething {
    /// The line.
    message: Input<Text>,
}

/// Drives to a pose; takes three ticks.
#[derive(Params)]
struct MoveBaseParams {
    /// Where to: `x;y;theta`.
    goal: Input<[f64; 3]>,
}

/// The shared node: the goal port.
struct MoveBase {
    goal: Input<[f64; 3]>,
}

/// Each robot's own progress.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Driving {
    ticks_left: u32,
}

impl Node<Robot, ()> for MoveBase {
    type Task = Driving;

    fn create_task(&self, cx: &mut Ctx<Robot, ()>) -> Driving {
        let [x, y, theta] = cx.board.get(&self.goal);
        cx.agent
            .log
            .push(format!("move to ({x}, {y}, {theta}) starts"));
        Driving { ticks_left: 3 }
    }

    fn update(
        &self,
        task: &mut Driving,
        _: &mut Ctx<Robot, ()>,
        _: &mut Children<Robot, ()>,
    ) -> Status {
        task.ticks_left -= 1;
        if task.ticks_left == 0 {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn terminate(&self, task: &mut Driving, cx: &mut Ctx<Robot, ()>, exit: Exit) {
        let line = match exit {
            Exit::Aborted => format!("move aborted, {} ticks short", task.ticks_left),
            _ => format!("move ends: {exit:?}"),
        };
        cx.agent.log.push(line);
    }
}

fn registry() -> Registry<Robot, ()> {
    let mut registry = Registry::new();
    registry
        .condition("BatteryOK", |(): ()| {
            |cx: &Ctx<Robot, ()>| {
                cx.agent.checks.set(cx.agent.checks.get() + 1);
                cx.agent.battery_ok
            }
        })
        .expect("a new name");
    registry
        .action("SaySomething", |p: SaySomething| {
            move |cx: &mut Ctx<Robot, ()>| {
                let line = cx.board.get(&p.message);
                cx.agent.log.push(format!("robot says: {line}"));
                Status::Success
            }
        })
        .expect("a new name");
    registry
        .node("MoveBase", canopy::Arity::Leaf, |p: MoveBaseParams| {
            MoveBase { goal: p.goal }
        })
        .expect("a new name");
    registry
}

/// The mission under `root`: `Sequence` or `ReactiveSequence`.
fn mission(root: &str) -> String {
    format!(
        r#"
<root BTCPP_format="4">
  <BehaviorTree ID="Mission">
    <{root}>
      <BatteryOK/>
      <Sequence>
        <SaySomething message="mission started"/>
        <MoveBase goal="1;2;3"/>
        <SaySomething message="mission completed"/>
      </Sequence>
    </{root}>
  </BehaviorTree>
</root>
"#
    )
}

/// Runs the mission until it ends (at most 10 ticks), the battery failing
/// before tick `battery_fails_at` if given; the statuses and the robot.
fn run(root: &str, battery_fails_at: Option<u32>) -> (Vec<Status>, Robot) {
    run_in(Mode::Tick, root, battery_fails_at)
}

/// `run`, in `mode`.
fn run_in(mode: Mode, root: &str, battery_fails_at: Option<u32>) -> (Vec<Status>, Robot) {
    let tree = load_str(
        &registry(),
        &mission(root),
        "mission.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the tree loads");
    let mut agent = Agent::new(&tree);
    agent.set_mode(&tree, mode);
    let mut robot = Robot {
        battery_ok: true,
        ..Robot::default()
    };
    let mut statuses = Vec::new();
    for tick in 1..=10 {
        if battery_fails_at == Some(tick) {
            robot.battery_ok = false;
            robot.log.push("(the battery fails)".to_string());
        }
        let status = agent.tick(&tree, &mut robot, &());
        robot.log.push(format!("tick {tick}: {status:?}"));
        statuses.push(status);
        if status != Status::Running {
            break;
        }
    }
    (statuses, robot)
}

fn show(title: &str, robot: &Robot) {
    println!("--- {title}: battery checked {} times", robot.checks.get());
    for line in &robot.log {
        println!("  {line}");
    }
}

fn main() {
    use Status::{Failure, Running, Success};

    let plain = run("Sequence", None);
    show("Sequence", &plain.1);
    assert_eq!(plain.0, [Running, Running, Success]);
    assert_eq!(
        plain.1.checks.get(),
        1,
        "a Sequence checks the battery once"
    );

    let reactive = run("ReactiveSequence", None);
    show("ReactiveSequence", &reactive.1);
    assert_eq!(reactive.0, [Running, Running, Success]);
    assert_eq!(
        reactive.1.checks.get(),
        3,
        "a ReactiveSequence checks it every tick"
    );
    assert_eq!(
        reactive.1.log,
        [
            "robot says: mission started",
            "move to (1, 2, 3) starts",
            "tick 1: Running",
            "tick 2: Running",
            "move ends: Success",
            "robot says: mission completed",
            "tick 3: Success",
        ]
    );

    let plain = run("Sequence", Some(2));
    show("Sequence, the battery failing at tick 2", &plain.1);
    assert_eq!(
        plain.0,
        [Running, Running, Success],
        "the move goes on regardless"
    );

    let reactive = run("ReactiveSequence", Some(2));
    show(
        "ReactiveSequence, the battery failing at tick 2",
        &reactive.1,
    );
    assert_eq!(reactive.0, [Running, Failure]);
    assert_eq!(
        reactive.1.log[3..],
        [
            "(the battery fails)",
            "move aborted, 2 ticks short",
            "tick 2: Failure",
        ]
    );

    // canopy's event mode, which updates only the tasks that can change,
    // runs the four missions exactly as tick mode does.
    for (root, fails) in [
        ("Sequence", None),
        ("ReactiveSequence", None),
        ("Sequence", Some(2)),
        ("ReactiveSequence", Some(2)),
    ] {
        let (ticked, by_tick) = run_in(Mode::Tick, root, fails);
        let (evented, by_event) = run_in(Mode::Event, root, fails);
        assert_eq!(evented, ticked);
        assert_eq!(by_event.log, by_tick.log);
        assert_eq!(by_event.checks.get(), by_tick.checks.get());
    }
    println!("--- event mode: the same four runs");
}
