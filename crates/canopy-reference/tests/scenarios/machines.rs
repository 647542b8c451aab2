//! `testdata/machines/`: canopy-fsm machine files run by an `FsmAgent`,
//! the triggers the game sends and the states' own triggers written by
//! tick.
//!
//! The harness registers one state type, `Logged`, whose hooks write
//! `enter X`, `update X` and `exit X` (X the state's name) and whose
//! update returns the trigger the scenario's `fires` table gives that
//! state at that tick; every trigger the file names, and every one the
//! scenario sends, by its name; and the scenario's scripted leaves for
//! states that run a tree, which write `X Running` (an action's status) or
//! `X true` (a condition's answer).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use canopy_core::Ctx;
use canopy_data::{Format, Registry};
use canopy_fsm::{FsmAgent, Hooks, Machine, MachineRegistry};
use serde::Deserialize;
use serde_json::Value as Json;

use crate::format::{self, Leaves, Named, Scripted, per_tick, show};

/// One `[[test]]` block of a machine file (see `testdata/README.md`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    name: String,
    doc: String,
    /// A machine file in JSON, or the name of one beside the scenario
    /// files (`player.json`).
    machine: String,
    /// Scripted action leaves for the trees of tree states.
    #[serde(default)]
    actions: BTreeMap<String, String>,
    /// Scripted conditions for the trees of tree states.
    #[serde(default)]
    conditions: BTreeMap<String, String>,
    /// The triggers sent before the update of the ticks listed, in order.
    #[serde(default)]
    send: BTreeMap<String, Vec<String>>,
    /// The trigger a `Logged` state's update returns at the ticks listed:
    /// state → tick → trigger.
    #[serde(default)]
    fires: BTreeMap<String, BTreeMap<String, String>>,
    /// The machine's status after each tick's update; as many ticks run.
    statuses: String,
    /// The active states after the ticks listed, top level first.
    #[serde(default)]
    active: BTreeMap<String, Vec<String>>,
    /// Whether each trigger sent at the ticks listed was taken.
    #[serde(default)]
    taken: BTreeMap<String, Vec<bool>>,
    /// The exact log of the ticks listed: hooks and leaves, sends first.
    #[serde(default)]
    log: BTreeMap<String, Vec<String>>,
    /// The ticks at which a log line occurred.
    #[serde(default)]
    when: BTreeMap<String, Vec<usize>>,
    /// How often each listed leaf ran.
    #[serde(default)]
    calls: BTreeMap<String, u32>,
}

impl Named for Scenario {
    fn name(&self) -> &str {
        &self.name
    }
}

/// A trigger: its index among the scenario's trigger names.
type Trigger = u16;

/// The agent data: the log of hooks and leaves, and the leaves' calls.
/// Conditions see the agent by shared reference, hence the cells.
#[derive(Default)]
struct Trace {
    log: RefCell<Vec<String>>,
    calls: RefCell<BTreeMap<String, u32>>,
}

impl Trace {
    fn note(&self, line: String) {
        self.log.borrow_mut().push(line);
    }

    fn bump(&self, name: &str) {
        *self.calls.borrow_mut().entry(name.to_string()).or_default() += 1;
    }
}

/// Every trigger name the machine file gives (transitions' `trigger`, tree
/// states' `on_success` and `on_failure`).
fn named_triggers(json: &Json, names: &mut BTreeSet<String>) {
    match json {
        Json::Object(object) => {
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("trigger" | "on_success" | "on_failure", Json::String(name)) => {
                        names.insert(name.clone());
                    }
                    _ => named_triggers(value, names),
                }
            }
        }
        Json::Array(items) => items.iter().for_each(|item| named_triggers(item, names)),
        _ => {}
    }
}

impl Scripted for Trace {
    fn ran(&self, name: &str, answer: &dyn std::fmt::Debug) {
        self.bump(name);
        self.note(format!("{name} {answer:?}"));
    }
}

/// A `Logged` state's hooks: its name in each line, and the triggers its
/// update fires by tick.
fn logged(name: String, fires: BTreeMap<u32, Trigger>) -> Hooks<Trace, (), Trigger> {
    let (enter, update, exit) = (name.clone(), name.clone(), name);
    Hooks::new()
        .on_enter(move |cx: &mut Ctx<Trace, ()>| cx.agent.note(format!("enter {enter}")))
        .on_update(move |cx| {
            cx.agent.note(format!("update {update}"));
            fires.get(&cx.tick).copied()
        })
        .on_exit(move |cx| cx.agent.note(format!("exit {exit}")))
}

/// Run one scenario; what differs from its expectations.
fn run(scenario: &Scenario) -> Result<Vec<String>, String> {
    if scenario.doc.trim().is_empty() {
        return Err("no doc line".into());
    }
    let expected = format::statuses(&scenario.statuses).map_err(|e| format!("statuses: {e}"))?;
    let ticks = expected.len();
    let beside = (!scenario.machine.trim_start().starts_with('{'))
        .then(|| format::testdata("machines").join(&scenario.machine));
    let text = match &beside {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("machine: {}: {e}", path.display()))?,
        None => scenario.machine.clone(),
    };
    let json: Json = serde_json::from_str(&text).map_err(|e| format!("machine: {e}"))?;
    let mut names = BTreeSet::new();
    named_triggers(&json, &mut names);
    names.extend(scenario.send.values().flatten().cloned());
    names.extend(scenario.fires.values().flat_map(|f| f.values()).cloned());
    let names: Vec<String> = names.into_iter().collect();
    let trigger = |name: &str| -> Trigger {
        names
            .iter()
            .position(|n| n == name)
            .expect("collected above") as Trigger
    };
    let send = per_tick(&scenario.send, ticks, "send")?;
    let mut fires: BTreeMap<String, BTreeMap<u32, Trigger>> = BTreeMap::new();
    for (state, table) in &scenario.fires {
        let table = per_tick(table, ticks, &format!("fires.{state}"))?;
        fires.insert(
            state.clone(),
            table
                .into_iter()
                .map(|(t, name)| (t as u32, trigger(&name)))
                .collect(),
        );
    }
    let fires = Arc::new(fires);

    let mut leaves = Registry::new();
    Leaves::read(&scenario.actions, &scenario.conditions, &BTreeMap::new())?
        .register(&mut leaves)?;
    let mut registry = MachineRegistry::new(leaves);
    let for_states = fires.clone();
    registry.state_type("Logged", move |state| {
        let name = state.get("name").and_then(|v| v.as_str()).unwrap_or("");
        let fires = for_states.get(name).cloned().unwrap_or_default();
        Ok(logged(name.to_string(), fires))
    });
    for name in &names {
        registry.trigger(name, trigger(name));
    }
    let machine: Machine<Trace, (), Trigger> = match &beside {
        Some(path) => registry.load_file(path),
        None => registry.load_str(&text, Format::Json, "machine.json"),
    }
    .map_err(|e| format!("load: {e}"))?;
    for state in fires.keys() {
        if machine.state(state).is_none() {
            return Err(format!(
                "fires.{state}: no state of the machine has this name"
            ));
        }
    }

    let mut agent = FsmAgent::with_id(&machine, 7);
    let mut trace = Trace::default();
    let (mut statuses, mut logs, mut actives, mut takens) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for t in 1..=ticks {
        let mut taken = Vec::new();
        for name in send.get(&t).into_iter().flatten() {
            taken.push(agent.send(&machine, trigger(name), &mut trace, &()));
        }
        statuses.push(agent.update(&machine, &mut trace, &()));
        logs.push(std::mem::take(&mut *trace.log.borrow_mut()));
        actives.push(
            agent
                .active()
                .iter()
                .map(|&s| machine.name(s).to_string())
                .collect::<Vec<_>>(),
        );
        takens.push(taken);
    }

    let mut problems = Vec::new();
    if statuses != expected {
        problems.push(format!(
            "statuses: expected `{}`, got `{}`",
            show(&expected),
            show(&statuses)
        ));
    }
    for (t, lines) in per_tick(&scenario.log, ticks, "log")? {
        if logs[t - 1] != lines {
            problems.push(format!(
                "log.{t}:\n  expected {lines:?}\n  got      {:?}",
                logs[t - 1]
            ));
        }
    }
    for (t, states) in per_tick(&scenario.active, ticks, "active")? {
        if actives[t - 1] != states {
            problems.push(format!(
                "active.{t}: expected {states:?}, got {:?}",
                actives[t - 1]
            ));
        }
    }
    for (t, taken) in per_tick(&scenario.taken, ticks, "taken")? {
        if takens[t - 1] != taken {
            problems.push(format!(
                "taken.{t}: expected {taken:?}, got {:?}",
                takens[t - 1]
            ));
        }
    }
    for (line, expected) in &scenario.when {
        if let Some(&t) = expected.iter().find(|&&t| t == 0 || t > ticks) {
            return Err(format!("when.{line:?}: tick {t} is not run"));
        }
        let got: Vec<usize> = (1..=ticks)
            .filter(|&t| logs[t - 1].contains(line))
            .collect();
        if &got != expected {
            problems.push(format!(
                "when.{line:?}: expected ticks {expected:?}, got {got:?}"
            ));
        }
    }
    let calls = trace.calls.into_inner();
    for (leaf, &n) in &scenario.calls {
        if !scenario.actions.contains_key(leaf) && !scenario.conditions.contains_key(leaf) {
            return Err(format!(
                "calls.{leaf}: not a scripted leaf of this scenario"
            ));
        }
        let got = calls.get(leaf).copied().unwrap_or(0);
        if got != n {
            problems.push(format!("calls.{leaf}: expected {n}, got {got}"));
        }
    }
    Ok(problems)
}

/// Run every machine scenario.
pub(crate) fn run_all() {
    format::run_each("canopy-fsm", "machines", run);
}
