//! `testdata/formats/`: one tree written in canopy JSON, RON and
//! BehaviorTree.CPP XML, and the JSON exported as XML and read back; every
//! form is loaded with one registry and must print and run the same, and
//! the run must meet the scenario's expectations. Or, for a tree that must
//! not load, each form's exact error.
//!
//! The registry: the scenario's scripted actions, conditions and scorers
//! (as in `semantics/`), and two node types with ports: `Walk` (`goal`, a
//! point; `speed`, a number, default 1; `arrived`, an output port of bool,
//! set once there) moving the agent one step a tick, and `Say` (`line`, a
//! text) adding the line to what the agent said.

use std::cell::RefCell;
use std::collections::BTreeMap;

use canopy_btcpp::{XmlOptions, export_str, load_str_with_warnings};
use canopy_core::{Agent, Ctx, Event, EventKind, Input, Observer, Output, Status, Text, Tree};
use canopy_data::{Format, Params, Registry, TreeSource};
use serde::Deserialize;

use crate::format::{self, Leaves, Named, Scripted, show};

/// One `[[test]]` block of a formats file (see `testdata/README.md`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    name: String,
    doc: String,
    /// canopy JSON: a node object or a whole document.
    json: Option<String>,
    /// canopy RON: a node or a whole document.
    ron: Option<String>,
    /// BehaviorTree.CPP XML: a `<root>` document, or the body of its one
    /// `<BehaviorTree ID="Main">`, which then starts on line 3, column 1.
    xml: Option<String>,
    /// Also the JSON exported as BehaviorTree.CPP XML and read back.
    #[serde(default)]
    export: bool,
    /// Text the export must contain, each on its own.
    #[serde(default)]
    exported: Vec<String>,
    /// XML read strictly (`XmlOptions::strict`).
    #[serde(default)]
    strict: bool,
    /// The registry's seed.
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    actions: BTreeMap<String, String>,
    #[serde(default)]
    conditions: BTreeMap<String, String>,
    #[serde(default)]
    scorers: BTreeMap<String, String>,
    /// The exact load error of each form (`json`, `ron`, `xml`,
    /// `exported`); a scenario with errors runs nothing.
    #[serde(default)]
    errors: BTreeMap<String, String>,
    /// The exact warnings of loading the XML.
    warnings: Option<Vec<String>>,
    /// Blackboard values written before the first tick, as text.
    #[serde(default)]
    board: BTreeMap<String, String>,
    /// The root's status at each tick; as many ticks run.
    statuses: Option<String>,
    /// The tree's blackboard keys, `key: type`, in order.
    slots: Option<Vec<String>>,
    /// The tree as printed (`Tree::display`).
    display: Option<String>,
    /// Where the agent is after the run.
    position: Option<[f32; 2]>,
    /// What it said, in order.
    said: Option<Vec<String>>,
    /// Blackboard values after the run, as text.
    #[serde(default)]
    board_after: BTreeMap<String, String>,
    /// How often each listed leaf ran, or scorer was read.
    #[serde(default)]
    calls: BTreeMap<String, u32>,
    /// The ticks at which an event line occurred (`enter x`, `abort x`…).
    #[serde(default)]
    when: BTreeMap<String, Vec<usize>>,
    /// How the registry describes a node type's parameters:
    /// `name: description`, in order.
    #[serde(default)]
    described: BTreeMap<String, Vec<String>>,
}

impl Named for Scenario {
    fn name(&self) -> &str {
        &self.name
    }
}

/// Walks one step towards `goal`; writes whether it arrived to `arrived`.
#[derive(Params)]
struct Walk {
    /// Where to.
    goal: Input<[f32; 2]>,
    /// How far per tick.
    #[param(default = Input::Value(1.0))]
    speed: Input<f32>,
    /// Set once there.
    arrived: Output<bool>,
}

/// Says a line.
#[derive(Params)]
struct Say {
    /// What to say.
    line: Input<Text>,
}

/// The agent: where it is, what it said, how often each leaf ran.
#[derive(Default)]
struct Me {
    pos: [f32; 2],
    said: Vec<String>,
    calls: RefCell<BTreeMap<String, u32>>,
}

impl Scripted for Me {
    fn ran(&self, name: &str, _: &dyn std::fmt::Debug) {
        *self.calls.borrow_mut().entry(name.to_string()).or_default() += 1;
    }
}

fn registry(scenario: &Scenario) -> Result<Registry<Me, ()>, String> {
    let mut r = Registry::new().with_seed(scenario.seed);
    r.action("Walk", |p: Walk| {
        move |cx: &mut Ctx<Me, ()>| {
            let (goal, speed) = (cx.board.get(&p.goal), cx.board.get(&p.speed));
            let pos = &mut cx.agent.pos;
            let d = [goal[0] - pos[0], goal[1] - pos[1]];
            let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
            if len <= speed {
                *pos = goal;
                cx.board.set(&p.arrived, true);
                return Status::Success;
            }
            pos[0] += d[0] / len * speed;
            pos[1] += d[1] / len * speed;
            Status::Running
        }
    })
    .map_err(|e| e.to_string())?;
    r.action("Say", |p: Say| {
        move |cx: &mut Ctx<Me, ()>| {
            let line = cx.board.get(&p.line);
            cx.agent.said.push(line.to_string());
            Status::Success
        }
    })
    .map_err(|e| e.to_string())?;
    Leaves::read(&scenario.actions, &scenario.conditions, &scenario.scorers)?.register(&mut r)?;
    Ok(r)
}

/// A canopy document: a node object wrapped as `{"tree": …}`.
fn document(text: &str, format: Format) -> String {
    let node = match format {
        Format::Ron => text.trim_start().starts_with("(type"),
        _ => serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .is_some_and(|v| v.get("type").is_some()),
    };
    match (node, format) {
        (false, _) => text.to_string(),
        (true, Format::Ron) => format!("(tree: {text})"),
        (true, _) => format!("{{\"tree\": {text}}}"),
    }
}

/// A BehaviorTree.CPP document: a body wrapped in `<root>` and
/// `<BehaviorTree ID="Main">`, starting on line 3.
fn xml_document(text: &str) -> String {
    if text.trim_start().starts_with("<root") {
        text.to_string()
    } else {
        format!(
            "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n{text}\n</BehaviorTree>\n</root>\n"
        )
    }
}

/// A form's name (`json`, `ron`, `xml`, `exported`) and its tree, or why
/// it did not load.
type Form = (&'static str, Result<Tree<Me, ()>, String>);

/// Every form of the scenario, loaded (or why not), with the XML's
/// warnings and the export's text.
struct Forms {
    loaded: Vec<Form>,
    warnings: Vec<String>,
    exported: Option<String>,
}

fn load_forms(scenario: &Scenario, registry: &Registry<Me, ()>) -> Result<Forms, String> {
    let options = XmlOptions {
        strict: scenario.strict,
        ..XmlOptions::default()
    };
    let xml = |text: &str, source: &str, warnings: &mut Vec<String>| {
        load_str_with_warnings(registry, text, source, None, &options)
            .map(|loaded| {
                warnings.extend(loaded.warnings.iter().map(ToString::to_string));
                loaded.tree
            })
            .map_err(|e| e.to_string())
    };
    let mut forms = Forms {
        loaded: Vec::new(),
        warnings: Vec::new(),
        exported: None,
    };
    if let Some(json) = &scenario.json {
        let text = document(json, Format::Json);
        let tree = registry
            .loading(TreeSource::text(&text, Format::Json, "tree.json"))
            .load();
        forms.loaded.push(("json", tree.map_err(|e| e.to_string())));
        if scenario.export {
            match export_str(registry, &text, Format::Json, "tree.json", &options) {
                Ok(exported) => {
                    let tree = xml(&exported, "exported.xml", &mut Vec::new());
                    forms.loaded.push(("exported", tree));
                    forms.exported = Some(exported);
                }
                Err(e) => forms.loaded.push(("exported", Err(e.to_string()))),
            }
        }
    } else if scenario.export {
        return Err("export: the JSON form is what is exported, and there is none".into());
    }
    if let Some(ron) = &scenario.ron {
        let tree = registry
            .loading(TreeSource::text(
                &document(ron, Format::Ron),
                Format::Ron,
                "tree.ron",
            ))
            .load();
        forms.loaded.push(("ron", tree.map_err(|e| e.to_string())));
    }
    if let Some(text) = &scenario.xml {
        let tree = xml(&xml_document(text), "tree.xml", &mut forms.warnings);
        forms.loaded.push(("xml", tree));
    }
    if forms.loaded.is_empty() {
        return Err("no form: give json, ron or xml".into());
    }
    Ok(forms)
}

/// Records every event of the run, by node name.
struct Lines<'t> {
    tree: &'t Tree<Me, ()>,
    tick: usize,
    lines: Vec<(usize, String)>,
}

impl Observer for Lines<'_> {
    fn event(&mut self, e: Event) {
        let name = self.tree.node(e.node).name();
        let line = match e.kind {
            EventKind::Enter => format!("enter {name}"),
            EventKind::Update(s) => format!("update {name} {s:?}"),
            EventKind::Exit(s) => format!("exit {name} {s:?}"),
            EventKind::Abort => format!("abort {name}"),
        };
        self.lines.push((self.tick, line));
    }
}

/// What a form printed and did.
#[derive(Debug, PartialEq)]
struct Outcome {
    display: String,
    slots: Vec<String>,
    statuses: Vec<Status>,
    events: Vec<(usize, String)>,
    pos: [f32; 2],
    said: Vec<String>,
    board: Vec<(String, String)>,
    calls: BTreeMap<String, u32>,
}

fn run(tree: &Tree<Me, ()>, scenario: &Scenario, ticks: usize) -> Result<Outcome, String> {
    let mut agent = Agent::with_id(tree, 7);
    {
        let mut board = agent.board_mut(tree);
        for (key, text) in &scenario.board {
            let slot = tree
                .slots()
                .iter()
                .find(|s| &*s.key == key)
                .ok_or_else(|| format!("board.{key}: the tree has no such key"))?;
            slot.ty
                .parse(text, board.slot_bytes(slot))
                .map_err(|e| format!("board.{key}: {text:?}: {e}"))?;
        }
    }
    let mut me = Me::default();
    let mut lines = Lines {
        tree,
        tick: 0,
        lines: Vec::new(),
    };
    let mut statuses = Vec::new();
    for t in 1..=ticks {
        lines.tick = t;
        statuses.push(agent.tick_observed(tree, &mut me, &(), &mut lines));
    }
    Ok(Outcome {
        display: tree.display().to_string(),
        slots: tree
            .slots()
            .iter()
            .map(|s| format!("{}: {}", s.key, s.ty.name()))
            .collect(),
        statuses,
        events: lines.lines,
        pos: me.pos,
        said: me.said,
        board: agent.board_values(tree),
        calls: me.calls.into_inner(),
    })
}

/// Run one scenario: every form loaded, run and compared; what differs
/// from the expectations.
fn check(scenario: &Scenario) -> Result<Vec<String>, String> {
    if scenario.doc.trim().is_empty() {
        return Err("no doc line".into());
    }
    let registry = registry(scenario)?;
    let forms = load_forms(scenario, &registry)?;
    let mut problems = Vec::new();
    for (node_type, expected) in &scenario.described {
        let got: Vec<String> = registry
            .get(node_type)
            .ok_or_else(|| format!("described.{node_type}: no such node type"))?
            .params()
            .iter()
            .map(|p| format!("{}: {}", p.name, p.describe()))
            .collect();
        if &got != expected {
            problems.push(format!(
                "described.{node_type}:\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    for text in &scenario.exported {
        match &forms.exported {
            Some(xml) if xml.contains(text.as_str()) => {}
            Some(xml) => problems.push(format!("exported: no {text:?} in\n{xml}")),
            None => return Err("exported: nothing is exported (export = true)".into()),
        }
    }
    if let Some(expected) = &scenario.warnings
        && &forms.warnings != expected
    {
        problems.push(format!(
            "warnings:\n  expected {expected:?}\n  got      {:?}",
            forms.warnings
        ));
    }
    if !scenario.errors.is_empty() {
        if scenario.statuses.is_some() {
            return Err("a scenario of errors runs nothing: no statuses".into());
        }
        for (form, loaded) in &forms.loaded {
            match (loaded, scenario.errors.get(*form)) {
                (Err(got), Some(expected)) if got == expected => {}
                (Err(got), Some(expected)) => problems.push(format!(
                    "errors.{form}:\n  expected {expected}\n  got      {got}"
                )),
                (Err(got), None) => problems.push(format!("{form}: does not load: {got}")),
                (Ok(_), Some(_)) => problems.push(format!("{form}: loads, but should not")),
                (Ok(_), None) => {}
            }
        }
        if let Some(form) = scenario
            .errors
            .keys()
            .find(|k| !forms.loaded.iter().any(|(f, _)| f == k))
        {
            return Err(format!("errors.{form}: the scenario has no such form"));
        }
        return Ok(problems);
    }
    let expected = format::statuses(
        scenario
            .statuses
            .as_deref()
            .ok_or("no statuses, and no errors")?,
    )
    .map_err(|e| format!("statuses: {e}"))?;
    let mut outcomes = Vec::new();
    for (form, loaded) in &forms.loaded {
        let tree = loaded
            .as_ref()
            .map_err(|e| format!("{form}: does not load: {e}"))?;
        outcomes.push((*form, run(tree, scenario, expected.len())?));
    }
    let (first, outcome) = &outcomes[0];
    for (form, other) in &outcomes[1..] {
        if other != outcome {
            problems.push(format!(
                "{form} differs from {first}:\n  {first}: {outcome:?}\n  {form}: {other:?}"
            ));
        }
    }
    if outcome.statuses != expected {
        problems.push(format!(
            "statuses: expected `{}`, got `{}`",
            show(&expected),
            show(&outcome.statuses)
        ));
    }
    if let Some(slots) = &scenario.slots
        && &outcome.slots != slots
    {
        problems.push(format!(
            "slots: expected {slots:?}, got {:?}",
            outcome.slots
        ));
    }
    if let Some(display) = &scenario.display
        && &outcome.display != display
    {
        problems.push(format!(
            "display: expected\n{display}\ngot\n{}",
            outcome.display
        ));
    }
    if let Some(pos) = scenario.position
        && outcome.pos != pos
    {
        problems.push(format!("position: expected {pos:?}, got {:?}", outcome.pos));
    }
    if let Some(said) = &scenario.said
        && &outcome.said != said
    {
        problems.push(format!("said: expected {said:?}, got {:?}", outcome.said));
    }
    for (key, value) in &scenario.board_after {
        match outcome.board.iter().find(|(k, _)| k == key) {
            Some((_, got)) if got == value => {}
            got => problems.push(format!(
                "board_after.{key}: expected {value:?}, got {:?}",
                got.map(|(_, v)| v)
            )),
        }
    }
    for (leaf, &n) in &scenario.calls {
        let got = outcome.calls.get(leaf).copied().unwrap_or(0);
        if got != n {
            problems.push(format!("calls.{leaf}: expected {n}, got {got}"));
        }
    }
    for (line, ticks) in &scenario.when {
        let mut got: Vec<usize> = outcome
            .events
            .iter()
            .filter(|(_, l)| l == line)
            .map(|&(t, _)| t)
            .collect();
        got.dedup();
        if &got != ticks {
            problems.push(format!(
                "when.{line:?}: expected ticks {ticks:?}, got {got:?}"
            ));
        }
    }
    Ok(problems)
}

/// Run every formats scenario.
pub(crate) fn run_all() {
    format::run_each("formats (canopy-data, canopy-btcpp)", "formats", check);
}
