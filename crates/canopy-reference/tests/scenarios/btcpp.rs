//! `testdata/btcpp/`: BehaviorTree.CPP's own unit-test scenarios as XML,
//! loaded by canopy-btcpp and run in both of canopy's modes.
//!
//! BehaviorTree.CPP's tests use `ConditionTestNode` and `SyncActionTest`
//! (a result the test sets between ticks; here `TestCondition` and
//! `TestAction`, whose result at each tick is the scenario's `results`
//! script, Success by default) and `AsyncActionTest`, a thread that
//! finishes after some milliseconds while the test sleeps between ticks
//! (here `TestAsync`: Running for `ticks` updates after it starts, then its
//! result). The test nodes write what they did to a log: `id:Success`,
//! `id:Running`, `id:halted` when aborted.

use std::collections::{BTreeMap, HashMap};

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Agent, Arity, Children, Ctx, Exit, Mode, Node, Status};
use canopy_data::{Params, Registry, Ticks};
use serde::Deserialize;

use crate::format::{self, Named, at, per_tick, show};

/// One `[[test]]` block of a BehaviorTree.CPP file (see `testdata/README.md`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    name: String,
    doc: String,
    /// A `<root BTCPP_format="4">` document, or the body of its one
    /// `<BehaviorTree>`.
    xml: String,
    /// Milliseconds per tick (`XmlOptions::tick_ms`).
    #[serde(default = "tick_ms")]
    tick_ms: u32,
    /// Each test node's result by tick (by its `id`); Success if absent.
    #[serde(default)]
    results: BTreeMap<String, String>,
    /// The root's status at each tick; as many ticks run.
    statuses: String,
    /// The exact log of the ticks listed.
    #[serde(default)]
    log: BTreeMap<String, Vec<String>>,
    /// Totals over the run, by id: updates, starts, halts, and updates
    /// that returned Success or Failure.
    #[serde(default)]
    ticked: BTreeMap<String, u32>,
    #[serde(default)]
    starts: BTreeMap<String, u32>,
    #[serde(default)]
    halts: BTreeMap<String, u32>,
    #[serde(default)]
    successes: BTreeMap<String, u32>,
    #[serde(default)]
    failures: BTreeMap<String, u32>,
}

fn tick_ms() -> u32 {
    100
}

impl Named for Scenario {
    fn name(&self) -> &str {
        &self.name
    }
}

/// The test nodes' shared state: the results of this tick, what happened.
#[derive(Default)]
struct Lab {
    expect: HashMap<String, Status>,
    log: Vec<String>,
    ticks: HashMap<String, u32>,
    starts: HashMap<String, u32>,
    halts: HashMap<String, u32>,
    successes: HashMap<String, u32>,
    failures: HashMap<String, u32>,
}

impl Lab {
    fn result(&mut self, id: &str) -> Status {
        let status = self.expect.get(id).copied().unwrap_or(Status::Success);
        self.finish(id, status);
        status
    }

    fn finish(&mut self, id: &str, status: Status) {
        self.log.push(format!("{id}:{status}"));
        match status {
            Status::Success => *self.successes.entry(id.to_string()).or_default() += 1,
            Status::Failure => *self.failures.entry(id.to_string()).or_default() += 1,
            Status::Running => {}
        }
    }
}

/// `TestAction`, `TestCondition`: which test node.
#[derive(Params)]
struct TestParams {
    /// Which test node: the key of its result and of its log lines.
    id: String,
}

/// `TestAsync`: which test node, and how long it runs.
#[derive(Params)]
struct AsyncParams {
    /// Which test node.
    id: String,
    /// Updates it returns Running before its result.
    #[param(default = 1)]
    ticks: Ticks,
}

/// `AsyncActionTest`: Running for `ticks` updates after it starts, then
/// the result the test set.
struct AsyncTest {
    id: String,
    ticks: u32,
}

#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
#[bytemuck(crate = "canopy_core::bytemuck")]
struct Updates {
    done: u32,
}

impl Node<Lab, ()> for AsyncTest {
    type Task = Updates;

    fn type_name(&self) -> &str {
        "TestAsync"
    }

    fn create_task(&self, cx: &mut Ctx<Lab, ()>) -> Updates {
        *cx.agent.starts.entry(self.id.clone()).or_default() += 1;
        Updates { done: 0 }
    }

    fn update(
        &self,
        task: &mut Updates,
        cx: &mut Ctx<Lab, ()>,
        _: &mut Children<Lab, ()>,
    ) -> Status {
        *cx.agent.ticks.entry(self.id.clone()).or_default() += 1;
        if task.done < self.ticks {
            task.done += 1;
            cx.agent.finish(&self.id, Status::Running);
            return Status::Running;
        }
        cx.agent.result(&self.id)
    }

    fn terminate(&self, _task: &mut Updates, cx: &mut Ctx<Lab, ()>, exit: Exit) {
        if exit == Exit::Aborted {
            *cx.agent.halts.entry(self.id.clone()).or_default() += 1;
            cx.agent.log.push(format!("{}:halted", self.id));
        }
    }
}

fn registry() -> Registry<Lab, ()> {
    let mut r = Registry::new();
    for name in ["TestAction", "TestCondition"] {
        r.action(name, |p: TestParams| {
            move |cx: &mut Ctx<Lab, ()>| {
                *cx.agent.ticks.entry(p.id.clone()).or_default() += 1;
                *cx.agent.starts.entry(p.id.clone()).or_default() += 1;
                cx.agent.result(&p.id)
            }
        })
        .unwrap();
    }
    r.node("TestAsync", Arity::Leaf, |p: AsyncParams| AsyncTest {
        id: p.id,
        ticks: p.ticks.into(),
    })
    .unwrap();
    r
}

/// Run one scenario in `mode`; what differs from its expectations.
fn run(
    scenario: &Scenario,
    registry: &Registry<Lab, ()>,
    mode: Mode,
) -> Result<Vec<String>, String> {
    if scenario.doc.trim().is_empty() {
        return Err("no doc line".into());
    }
    let expected = format::statuses(&scenario.statuses).map_err(|e| format!("statuses: {e}"))?;
    let results = scenario
        .results
        .iter()
        .map(|(id, s)| {
            Ok((
                id.clone(),
                format::statuses(s).map_err(|e| format!("{id}: {e}"))?,
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let logs = per_tick(&scenario.log, expected.len(), "log")?;
    let xml = if scenario.xml.trim_start().starts_with("<root") {
        scenario.xml.clone()
    } else {
        format!(
            r#"<root BTCPP_format="4"><BehaviorTree ID="Main">{}</BehaviorTree></root>"#,
            scenario.xml
        )
    };
    let options = XmlOptions {
        tick_ms: scenario.tick_ms,
        ..XmlOptions::default()
    };
    let tree = load_str(registry, &xml, "scenario.xml", None, &options)
        .map_err(|e| format!("load: {e}"))?;
    let mut agent = Agent::new(&tree);
    agent.set_mode(&tree, mode);
    let mut lab = Lab::default();
    let (mut statuses, mut log) = (Vec::new(), Vec::new());
    for t in 1..=expected.len() as u32 {
        for (id, script) in &results {
            lab.expect.insert(id.clone(), at(script, t));
        }
        statuses.push(agent.tick(&tree, &mut lab, &()));
        log.push(std::mem::take(&mut lab.log));
    }
    let mut problems = Vec::new();
    if statuses != expected {
        problems.push(format!(
            "statuses: expected `{}`, got `{}`",
            show(&expected),
            show(&statuses)
        ));
    }
    for (t, lines) in logs {
        if log[t - 1] != lines {
            problems.push(format!(
                "log.{t}:\n  expected {lines:?}\n  got      {:?}",
                log[t - 1]
            ));
        }
    }
    let totals = [
        ("ticked", &scenario.ticked, &lab.ticks),
        ("starts", &scenario.starts, &lab.starts),
        ("halts", &scenario.halts, &lab.halts),
        ("successes", &scenario.successes, &lab.successes),
        ("failures", &scenario.failures, &lab.failures),
    ];
    for (what, expected, got) in totals {
        for (id, &n) in expected {
            let got = got.get(id).copied().unwrap_or(0);
            if got != n {
                problems.push(format!("{what}.{id}: expected {n}, got {got}"));
            }
        }
    }
    Ok(problems)
}

/// Run every BehaviorTree.CPP scenario in `mode`.
pub(crate) fn run_all(mode: Mode) {
    let label = match mode {
        Mode::Tick => "canopy-btcpp, tick mode",
        Mode::Event => "canopy-btcpp, event mode",
    };
    let registry = registry();
    format::run_each(label, "btcpp", |scenario| run(scenario, &registry, mode));
}
