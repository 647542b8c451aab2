//! `testdata/semantics/`: canopy JSON trees with scripted leaves, run by
//! canopy (tick and event mode), the naive interpreter and the flat one.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use canopy_core::nodes::Like;
use canopy_core::{
    Afterwards, Agent, Completion, Ctx, Event, EventKind, Mode, NodeId, Observer, Params, Policy,
    Status, Ticket, Tree,
};
use canopy_data::{Format, Registry, TreeSource};
use canopy_reference::flat::{Def, FlatLeaf, FlatTree, Trace};
use canopy_reference::naive::NaiveAgent;
use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::format::{self, Leaves, Named, Report, Scripted, at, guarded, per_tick, show};

/// One `[[test]]` block of a semantics file (see `testdata/README.md`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Scenario {
    name: String,
    doc: String,
    /// A node object, or a whole document with `tree` and `subtrees`.
    tree: String,
    /// Scripted action leaves: name → statuses by tick.
    #[serde(default)]
    actions: BTreeMap<String, String>,
    /// Scripted conditions: name → `T`/`F` by tick.
    #[serde(default)]
    conditions: BTreeMap<String, String>,
    /// The root's status at each tick; as many ticks run.
    statuses: String,
    /// The exact events of the ticks listed.
    #[serde(default)]
    events: BTreeMap<String, Vec<String>>,
    /// How often each listed leaf ran, or scorer was read.
    #[serde(default)]
    calls: BTreeMap<String, u32>,
    /// The ticks at which an event line occurred.
    #[serde(default)]
    when: BTreeMap<String, Vec<usize>>,
    /// How often an event line occurred.
    #[serde(default)]
    count: BTreeMap<String, usize>,
    /// canopy only: the tree's number of nodes (a shared subtree once).
    nodes: Option<usize>,
    /// The registry's seed: with the node's place in the file, the agent's
    /// id and the tick, what a Shuffle's order and a weighted Utility's
    /// pick are drawn from.
    #[serde(default)]
    seed: u64,
    /// The agent's id.
    #[serde(default = "agent_id")]
    agent: u32,
    /// Scorers a Utility's considerations name: name → value by tick.
    #[serde(default)]
    scorers: BTreeMap<String, String>,
    /// Async leaves: name → the game's answer to the leaf's wait before
    /// each tick (`R`: none yet; `S`, `F`: completes it with that status).
    #[serde(default)]
    asyncs: BTreeMap<String, String>,
    /// The ticks at which each listed async leaf's abort code ran.
    #[serde(default)]
    heard: BTreeMap<String, Vec<usize>>,
}

fn agent_id() -> u32 {
    7
}

impl Named for Scenario {
    fn name(&self) -> &str {
        &self.name
    }
}

/// A scenario read and checked: scripts parsed, the tree a whole document.
pub(crate) struct Case {
    name: String,
    document: String,
    leaves: Leaves,
    statuses: Vec<Status>,
    events: BTreeMap<usize, Vec<String>>,
    calls: BTreeMap<String, u32>,
    when: BTreeMap<String, Vec<usize>>,
    count: BTreeMap<String, usize>,
    nodes: Option<usize>,
    seed: u64,
    agent: u32,
    asyncs: BTreeMap<String, Arc<[Status]>>,
    heard: BTreeMap<String, Vec<usize>>,
}

impl Case {
    /// Whether `name` is one of the scenario's leaves, of any sort.
    fn is_leaf(&self, name: &str) -> bool {
        self.leaves.actions.contains_key(name)
            || self.leaves.conditions.contains_key(name)
            || self.asyncs.contains_key(name)
    }
}

impl Scenario {
    fn prepare(&self) -> Result<Case, String> {
        if self.doc.trim().is_empty() {
            return Err("no doc line".into());
        }
        let statuses = format::statuses(&self.statuses).map_err(|e| format!("statuses: {e}"))?;
        let ticks = statuses.len();
        let scripted = Leaves::read(&self.actions, &self.conditions, &self.scorers)?;
        let asyncs = format::scripts(&self.asyncs, format::statuses)?;
        let mut leaves: Vec<&String> = self
            .actions
            .keys()
            .chain(self.conditions.keys())
            .chain(self.asyncs.keys())
            .collect();
        leaves.sort_unstable();
        if let Some(pair) = leaves.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "{}: two leaves of this scenario have this name",
                pair[0]
            ));
        }
        let node: Json = serde_json::from_str(&self.tree).map_err(|e| format!("tree: {e}"))?;
        // A node object has a type; a document has `tree`.
        let document = if node.get("type").is_some() {
            format!("{{\"tree\": {}}}", self.tree)
        } else {
            self.tree.clone()
        };
        if let Some(leaf) = self
            .calls
            .keys()
            .find(|k| !leaves.contains(k) && !self.scorers.contains_key(*k))
        {
            return Err(format!(
                "calls.{leaf}: not a scripted leaf nor a scorer of this scenario"
            ));
        }
        if let Some(leaf) = self.heard.keys().find(|k| !self.asyncs.contains_key(*k)) {
            return Err(format!("heard.{leaf}: not an async leaf of this scenario"));
        }
        for (what, table) in [("when", &self.when), ("heard", &self.heard)] {
            for (key, ticks_with) in table {
                if let Some(&t) = ticks_with.iter().find(|&&t| t == 0 || t > ticks) {
                    return Err(format!("{what}.{key:?}: tick {t} is not run"));
                }
            }
        }
        Ok(Case {
            name: self.name.clone(),
            document,
            leaves: scripted,
            events: per_tick(&self.events, ticks, "events")?,
            statuses,
            calls: self.calls.clone(),
            when: self.when.clone(),
            count: self.count.clone(),
            nodes: self.nodes,
            seed: self.seed,
            agent: self.agent,
            asyncs,
            heard: self.heard.clone(),
        })
    }
}

/// The agent data: how often each scripted leaf ran, and what the async
/// leaves asked for and heard. Conditions see the agent by shared
/// reference, hence the cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Calls {
    calls: RefCell<BTreeMap<String, u32>>,
    /// `(leaf, ticket)` for every start of an async leaf, in order.
    started: RefCell<Vec<(String, Ticket)>>,
    /// `(leaf, ticket)` for every abort an async leaf heard, in order.
    heard: RefCell<Vec<(String, Ticket)>>,
}

impl Calls {
    fn bump(&self, name: &str) {
        *self.calls.borrow_mut().entry(name.to_string()).or_default() += 1;
    }
}

impl Scripted for Calls {
    fn ran(&self, name: &str, _: &dyn std::fmt::Debug) {
        self.bump(name);
    }
}

/// The scenario's leaves as node types of their own, named as the leaves:
/// `{"type": "b"}` in the tree is leaf `b` with its script.
fn registry(case: &Case) -> Result<Registry<Calls, ()>, String> {
    let mut r = Registry::new().with_seed(case.seed);
    case.leaves.register(&mut r)?;
    for name in case.asyncs.keys() {
        let key = name.clone();
        r.async_action_with_abort(name, move |()| {
            let (start, abort) = (key.clone(), key.clone());
            (
                move |cx: &mut Ctx<Calls, ()>, ticket| {
                    cx.agent.bump(&start);
                    cx.agent.started.borrow_mut().push((start.clone(), ticket));
                    Status::Running
                },
                move |cx: &mut Ctx<Calls, ()>, ticket| {
                    cx.agent.heard.borrow_mut().push((abort.clone(), ticket));
                },
            )
        })
        .map_err(|e| format!("async action {name:?}: {e}"))?;
    }
    Ok(r)
}

/// The scenario's tree as canopy loads it.
fn load(case: &Case) -> Result<Tree<Calls, ()>, String> {
    let file = format!("{}.json", case.name);
    registry(case)?
        .loading(TreeSource::text(&case.document, Format::Json, &file))
        .load()
        .map_err(|e| format!("load: {e}"))
}

/// An event as the scenarios write it.
fn line(name: &str, kind: EventKind) -> String {
    match kind {
        EventKind::Enter => format!("enter {name}"),
        EventKind::Update(s) => format!("update {name} {s:?}"),
        EventKind::Exit(s) => format!("exit {name} {s:?}"),
        EventKind::Abort => format!("abort {name}"),
    }
}

fn running_update(line: &str) -> bool {
    line.starts_with("update ") && line.ends_with(" Running")
}

/// What one engine did, tick by tick.
#[derive(Debug, PartialEq)]
pub(crate) struct Outcome {
    statuses: Vec<Status>,
    /// Each tick's events; `None` for an engine without events.
    events: Option<Vec<Vec<String>>>,
    calls: BTreeMap<String, u32>,
    /// The ticks at which each async leaf heard an abort.
    heard: BTreeMap<String, Vec<usize>>,
}

/// Which events an engine reports.
#[derive(Clone, Copy, PartialEq)]
enum Events {
    /// Every event: canopy's tick mode, the flat interpreter.
    All,
    /// `update … Running` only for the nodes it visits: canopy's event
    /// mode. Those lines are left out of the comparison.
    NoRunningUpdates,
}

/// How `outcome` differs from what `case` expects.
fn check(case: &Case, outcome: &Outcome, events: Events) -> Vec<String> {
    let mut problems = Vec::new();
    if outcome.statuses != case.statuses {
        problems.push(format!(
            "statuses: expected `{}`, got `{}`",
            show(&case.statuses),
            show(&outcome.statuses)
        ));
    }
    for (leaf, &n) in &case.calls {
        let got = outcome.calls.get(leaf).copied().unwrap_or(0);
        if got != n {
            problems.push(format!("calls.{leaf}: expected {n}, got {got}"));
        }
    }
    for (leaf, expected) in &case.heard {
        let got = outcome.heard.get(leaf).cloned().unwrap_or_default();
        if &got != expected {
            problems.push(format!(
                "heard.{leaf}: expected the abort code to run at ticks {expected:?}, got {got:?}"
            ));
        }
    }
    let Some(ticks) = &outcome.events else {
        return problems;
    };
    let kept = |l: &&String| events == Events::All || !running_update(l);
    for (&t, expected) in &case.events {
        let expected: Vec<&String> = expected.iter().filter(kept).collect();
        let got: Vec<&String> = ticks[t - 1].iter().filter(kept).collect();
        if got != expected {
            problems.push(format!(
                "events.{t}:\n  expected {expected:?}\n  got      {got:?}"
            ));
        }
    }
    for (wanted, expected) in case.when.iter().filter(|(l, _)| kept(l)) {
        let got: Vec<usize> = (1..=ticks.len())
            .filter(|&t| ticks[t - 1].contains(wanted))
            .collect();
        if &got != expected {
            problems.push(format!(
                "when.{wanted:?}: expected ticks {expected:?}, got {got:?}"
            ));
        }
    }
    for (wanted, &n) in case.count.iter().filter(|(l, _)| kept(l)) {
        let got = ticks.iter().flatten().filter(|l| *l == wanted).count();
        if got != n {
            problems.push(format!("count.{wanted:?}: expected {n}, got {got}"));
        }
    }
    problems
}

// ---------------------------------------------------------------------------
// canopy

/// Records every event of a tick, and every async leaf's wait aborted.
#[derive(Default)]
struct Recorder {
    events: Vec<Event>,
    aborted: Vec<(NodeId, Ticket)>,
}

impl Observer for Recorder {
    fn event(&mut self, event: Event) {
        self.events.push(event);
    }

    fn wait_aborted(&mut self, node: NodeId, ticket: Ticket) {
        self.aborted.push((node, ticket));
    }
}

/// The game's side of the async leaves: the wait each leaf is in, and
/// what it heard.
#[derive(Default)]
struct Game {
    /// The ticket of each async leaf's wait the game has not answered.
    waiting: BTreeMap<String, Ticket>,
    /// Every ticket an async leaf was started with.
    issued: Vec<(String, Ticket)>,
    /// The ticks at which each async leaf heard an abort.
    heard: BTreeMap<String, Vec<usize>>,
}

impl Game {
    /// Before tick `tick`: answer each wait the scenario answers then.
    fn answer(&mut self, case: &Case, agent: &mut Agent, tick: u32) -> Result<(), String> {
        for (leaf, script) in &case.asyncs {
            let status = at(script, tick);
            if status == Status::Running {
                continue;
            }
            if let Some(ticket) = self.waiting.remove(leaf) {
                let answer = agent.complete(ticket, status);
                if !answer.is_completed() {
                    return Err(format!(
                        "before tick {tick}: completing {leaf}'s wait was refused: {answer:?}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// After tick `tick`: take the starts and the aborts heard, and check
    /// that each abort was heard once, with the ticket of a wait of that
    /// leaf, as the observer heard it, and that an answer to a wait the
    /// game had not answered comes too late: `Completion::Aborted`.
    fn take(
        &mut self,
        agent: &mut Agent,
        tree: &Tree<Calls, ()>,
        data: &Calls,
        aborted: &[(NodeId, Ticket)],
        tick: u32,
    ) -> Result<(), String> {
        let heard = std::mem::take(&mut *data.heard.borrow_mut());
        for (leaf, ticket) in &heard {
            if !self.issued.contains(&(leaf.clone(), *ticket)) {
                return Err(format!(
                    "tick {tick}: {leaf} heard an abort with a ticket it was not started with"
                ));
            }
            if self.waiting.get(leaf) == Some(ticket) {
                self.waiting.remove(leaf);
                let late = agent.complete(*ticket, Status::Success);
                if late != Completion::Aborted {
                    return Err(format!(
                        "tick {tick}: answering {leaf}'s aborted wait after the abort gave {late:?}, not Aborted"
                    ));
                }
            }
            self.heard
                .entry(leaf.clone())
                .or_default()
                .push(tick as usize);
        }
        let observed: Vec<(String, Ticket)> = aborted
            .iter()
            .map(|&(node, ticket)| (tree.node(node).type_name().to_string(), ticket))
            .collect();
        if observed != heard {
            return Err(format!(
                "tick {tick}: the observer heard the aborted waits {observed:?}, the leaves {heard:?}"
            ));
        }
        for (leaf, ticket) in data.started.borrow_mut().drain(..) {
            if self.issued.iter().any(|(_, t)| *t == ticket) {
                return Err(format!(
                    "tick {tick}: {leaf} was given a ticket used before"
                ));
            }
            self.waiting.insert(leaf.clone(), ticket);
            self.issued.push((leaf, ticket));
        }
        Ok(())
    }
}

/// Run a scenario on canopy in `mode`, checking on every tick that the
/// events carry the tick and the agent's id, that `active_tasks` is the
/// enters minus the exits and aborts observed so far, that the agent is
/// running exactly when the root returned Running, and that every abort
/// of an async leaf's wait is heard once, by the leaf and the observer.
fn run_canopy(case: &Case, tree: &Tree<Calls, ()>, mode: Mode) -> Result<Outcome, String> {
    let mut agent = Agent::with_id(tree, case.agent);
    agent.set_mode(tree, mode);
    let mut data = Calls::default();
    let mut game = Game::default();
    let (mut statuses, mut events) = (Vec::new(), Vec::new());
    let mut installed = 0usize;
    for t in 1..=case.statuses.len() as u32 {
        game.answer(case, &mut agent, t)?;
        let mut rec = Recorder::default();
        let status = agent.tick_observed(tree, &mut data, &(), &mut rec);
        let now = agent.ticks();
        if now != t {
            return Err(format!("tick {t}: the agent says tick {now}"));
        }
        game.take(&mut agent, tree, &data, &rec.aborted, now)?;
        let mut lines = Vec::new();
        for e in &rec.events {
            if (e.tick, e.agent) != (now, case.agent) {
                return Err(format!(
                    "tick {now}: an event says tick {} and agent {}",
                    e.tick, e.agent
                ));
            }
            match e.kind {
                EventKind::Enter => installed += 1,
                EventKind::Exit(_) | EventKind::Abort => installed -= 1,
                EventKind::Update(_) => {}
            }
            lines.push(line(tree.node(e.node).name(), e.kind));
        }
        let active = agent.active_tasks(tree);
        if active != installed {
            return Err(format!(
                "tick {now}: {active} active tasks, {installed} installed by the events"
            ));
        }
        if agent.is_running() != (status == Status::Running) {
            return Err(format!("tick {now}: is_running disagrees with {status:?}"));
        }
        statuses.push(status);
        events.push(lines);
    }
    Ok(Outcome {
        statuses,
        events: Some(events),
        calls: data.calls.into_inner(),
        heard: game.heard,
    })
}

fn canopy_problems(case: &Case, tree: &Tree<Calls, ()>) -> Vec<String> {
    match case.nodes {
        Some(n) if tree.len() != n => vec![format!("nodes: expected {n}, got {}", tree.len())],
        _ => Vec::new(),
    }
}

/// canopy in tick mode: the expectations, every event, and the same run
/// twice (runs are deterministic).
fn canopy_tick(case: &Case) -> Result<Vec<String>, String> {
    let tree = load(case)?;
    let first = run_canopy(case, &tree, Mode::Tick)?;
    let mut problems = canopy_problems(case, &tree);
    problems.extend(check(case, &first, Events::All));
    if run_canopy(case, &tree, Mode::Tick)? != first {
        problems.push("a second run differs from the first".into());
    }
    Ok(problems)
}

/// canopy in event mode: the expectations without `update … Running`, and
/// the same statuses, leaf calls and other events as tick mode.
fn canopy_event(case: &Case) -> Result<Vec<String>, String> {
    let tree = load(case)?;
    let event = run_canopy(case, &tree, Mode::Event)?;
    let tick = run_canopy(case, &tree, Mode::Tick)?;
    let mut problems = canopy_problems(case, &tree);
    problems.extend(check(case, &event, Events::NoRunningUpdates));
    if event.statuses != tick.statuses {
        problems.push(format!(
            "statuses differ from tick mode's `{}`: `{}`",
            show(&tick.statuses),
            show(&event.statuses)
        ));
    }
    if event.calls != tick.calls {
        problems.push(format!(
            "leaf calls differ from tick mode's {:?}: {:?}",
            tick.calls, event.calls
        ));
    }
    let quiet = |o: &Outcome| -> Vec<Vec<String>> {
        let ticks = o.events.as_ref().expect("canopy reports events");
        ticks
            .iter()
            .map(|t| t.iter().filter(|l| !running_update(l)).cloned().collect())
            .collect()
    };
    let (e, t) = (quiet(&event), quiet(&tick));
    if let Some(i) = (0..e.len()).find(|&i| e[i] != t[i]) {
        problems.push(format!(
            "tick {}: events differ from tick mode's (without `update … Running`):\n  tick mode  {:?}\n  event mode {:?}",
            i + 1,
            t[i],
            e[i]
        ));
    }
    Ok(problems)
}

// ---------------------------------------------------------------------------
// The naive interpreter: statuses and leaf calls (it has no events).

fn naive(case: &Case) -> Result<Run, String> {
    let tree = load(case)?;
    let mut agent = match NaiveAgent::new(&tree, case.agent) {
        Ok(agent) => agent,
        Err(e) => return Ok(Run::Unsupported(e.to_string())),
    };
    let mut data = Calls::default();
    let statuses = (0..case.statuses.len())
        .map(|_| agent.tick(&mut data, &()))
        .collect();
    let outcome = Outcome {
        statuses,
        events: None,
        calls: data.calls.into_inner(),
        heard: BTreeMap::new(),
    };
    Ok(Run::Checked(check(case, &outcome, Events::All)))
}

// ---------------------------------------------------------------------------
// The flat interpreter: the tree read again from its JSON, as a `Def`.

/// A scripted leaf of the flat interpreter.
#[derive(Clone)]
enum Leaf {
    Act(String, Arc<[Status]>),
    Check(String, Arc<[bool]>),
}

impl FlatLeaf<Calls, ()> for Leaf {
    fn act(&self, cx: &mut Ctx<'_, Calls, ()>) -> Status {
        match self {
            Leaf::Act(name, script) => {
                cx.agent.bump(name);
                at(script, cx.tick)
            }
            Leaf::Check(name, _) => panic!("{name} is a condition, run as an action"),
        }
    }

    fn check(&self, cx: &mut Ctx<'_, Calls, ()>) -> bool {
        match self {
            Leaf::Check(name, script) => {
                cx.agent.bump(name);
                at(script, cx.tick)
            }
            Leaf::Act(name, _) => panic!("{name} is an action, run as a condition"),
        }
    }
}

/// Why a tree has no flat `Def`.
enum NoDef {
    /// A node type the flat interpreter does not have.
    Unsupported(String),
    /// A tree canopy-data should have refused.
    Bad(String),
}

/// Reads the JSON tree as canopy-data documents it.
struct Reader<'c> {
    case: &'c Case,
    subtrees: Map<String, Json>,
    /// Nodes counted so far, as canopy-data's loader counts them for the
    /// salts: a node, then a guard's condition, then its children, and a
    /// subtree where it is first referred to.
    counted: Cell<u64>,
    /// Where each subtree read so far began to be counted: every reference
    /// to it shares those salts, as it shares the loader's nodes.
    subtree_at: RefCell<HashMap<String, u64>>,
}

impl Reader<'_> {
    /// The next node's salt, as the loader's `Params::salt`.
    fn salt(&self) -> u64 {
        let n = self.counted.get();
        self.counted.set(n + 1);
        Params::new("", Vec::new(), self.case.seed, n).salt()
    }

    fn node(&self, json: &Json, depth: usize) -> Result<Def<Leaf>, NoDef> {
        let bad = |m: String| NoDef::Bad(m);
        if depth > 300 {
            return Err(bad("subtrees nest too deep".into()));
        }
        let obj = json
            .as_object()
            .ok_or_else(|| bad(format!("a node is not an object: {json}")))?;
        let ty = obj
            .get("type")
            .and_then(Json::as_str)
            .ok_or_else(|| bad("a node without a type".into()))?;
        let name = obj.get("name").and_then(Json::as_str).unwrap_or(ty);
        if self.case.asyncs.contains_key(ty) {
            return Err(NoDef::Unsupported(
                "the flat interpreter has no async leaves".into(),
            ));
        }
        let salt = self.salt();
        if ["Guard", "ReactiveGuard"].contains(&ty) {
            self.salt();
        }
        let mut kids = Vec::new();
        for kid in obj
            .get("children")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            kids.push(self.node(kid, depth + 1)?);
        }
        let params: &[&str] = match ty {
            "Parallel" => &["success", "failure"],
            "Repeat" | "Retry" => &["times"],
            "Timeout" | "Cooldown" | "Wait" => &["ticks"],
            "RunOnce" => &["then"],
            "Guard" | "ReactiveGuard" => &["condition"],
            "SubTree" => &["tree"],
            "Shuffle" => &["like"],
            "Sequence" | "Selector" | "SequenceWithMemory" | "ReactiveSequence"
            | "ReactiveSelector" | "Inverter" | "ForceSuccess" | "ForceFailure"
            | "AlwaysSuccess" | "AlwaysFailure" | "AlwaysRunning" => &[],
            t if self.case.is_leaf(t) => &[],
            other => {
                return Err(NoDef::Unsupported(format!(
                    "the flat interpreter has no node type {other:?}"
                )));
            }
        };
        if let Some(key) = obj.keys().find(|k| {
            !["type", "name", "children"].contains(&k.as_str()) && !params.contains(&k.as_str())
        }) {
            return Err(bad(format!("{ty} {name:?}: unknown field {key:?}")));
        }
        let word = |key: &str, default: &'static str| -> &str {
            obj.get(key).and_then(Json::as_str).unwrap_or(default)
        };
        let number = |key: &str| -> Result<u32, NoDef> {
            obj.get(key)
                .and_then(Json::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(format!("{ty} {name:?}: no {key}")))
        };
        let policy = |key: &str, default| match word(key, default) {
            "one" => Policy::One,
            _ => Policy::All,
        };
        let one = |kids: Vec<Def<Leaf>>| -> Result<Def<Leaf>, NoDef> {
            <[Def<Leaf>; 1]>::try_from(kids)
                .map(|[kid]| kid)
                .map_err(|k| bad(format!("{ty} {name:?}: {} children", k.len())))
        };
        Ok(match ty {
            "Sequence" => Def::sequence(name, kids),
            "Selector" => Def::selector(name, kids),
            "SequenceWithMemory" => Def::sequence_with_memory(name, kids),
            "ReactiveSequence" => Def::reactive_sequence(name, kids),
            "ReactiveSelector" => Def::reactive_selector(name, kids),
            "Shuffle" => {
                let like = match word("like", "selector") {
                    "sequence" => Like::Sequence,
                    "selector" => Like::Selector,
                    other => return Err(bad(format!("{ty} {name:?}: like {other:?}"))),
                };
                Def::shuffle(name, like, salt, kids)
            }
            "Parallel" => Def::parallel(
                name,
                policy("success", "all"),
                policy("failure", "one"),
                kids,
            ),
            "Inverter" => Def::inverter(name, one(kids)?),
            "ForceSuccess" => Def::force_success(name, one(kids)?),
            "ForceFailure" => Def::force_failure(name, one(kids)?),
            "Repeat" => Def::repeat(name, number("times")?, one(kids)?),
            "Retry" => Def::retry(name, number("times")?, one(kids)?),
            "Timeout" => Def::timeout(name, number("ticks")?, one(kids)?),
            "Cooldown" => Def::cooldown(name, number("ticks")?, one(kids)?),
            "RunOnce" => {
                let then = match word("then", "same") {
                    "success" => Afterwards::Success,
                    "failure" => Afterwards::Failure,
                    _ => Afterwards::Same,
                };
                Def::run_once(name, then, one(kids)?)
            }
            "Guard" | "ReactiveGuard" => {
                let condition = obj.get("condition").unwrap_or(&Json::Null);
                let leaf = match condition.get("type").and_then(Json::as_str) {
                    Some(c) if self.case.leaves.conditions.contains_key(c) => self.leaf(c),
                    Some(other) => {
                        return Err(NoDef::Unsupported(format!(
                            "the flat interpreter has no condition type {other:?}"
                        )));
                    }
                    None => return Err(bad(format!("{ty} {name:?}: no condition"))),
                };
                if ty == "Guard" {
                    Def::guard(name, leaf, one(kids)?)
                } else {
                    Def::reactive_guard(name, leaf, one(kids)?)
                }
            }
            "Wait" => Def::wait(name, number("ticks")?),
            "AlwaysSuccess" => Def::always_success(name),
            "AlwaysFailure" => Def::always_failure(name),
            "AlwaysRunning" => Def::always_running(name),
            "SubTree" => {
                let key = word("tree", "");
                let root = self
                    .subtrees
                    .get(key)
                    .ok_or_else(|| bad(format!("no subtree {key:?}")))?;
                let first = self.subtree_at.borrow().get(key).copied();
                match first {
                    Some(at) => {
                        let after = self.counted.replace(at);
                        let def = self.node(root, depth + 1);
                        self.counted.set(after);
                        def?
                    }
                    None => {
                        self.subtree_at
                            .borrow_mut()
                            .insert(key.to_string(), self.counted.get());
                        self.node(root, depth + 1)?
                    }
                }
            }
            t if self.case.leaves.actions.contains_key(t) => Def::action(name, self.leaf(t)),
            _ => Def::condition(name, self.leaf(ty)),
        })
    }

    fn leaf(&self, name: &str) -> Leaf {
        match self.case.leaves.actions.get(name) {
            Some(script) => Leaf::Act(name.to_string(), script.clone()),
            None => Leaf::Check(name.to_string(), self.case.leaves.conditions[name].clone()),
        }
    }
}

/// Events of a flat tick, by node name.
struct Lines<'t> {
    tree: &'t FlatTree<Leaf>,
    lines: Vec<String>,
}

impl Trace for Lines<'_> {
    fn event(&mut self, node: usize, kind: EventKind) {
        self.lines.push(line(self.tree.name(node), kind));
    }
}

fn flat(case: &Case) -> Result<Run, String> {
    let document: Json = serde_json::from_str(&case.document).map_err(|e| e.to_string())?;
    let reader = Reader {
        case,
        subtrees: document
            .get("subtrees")
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_default(),
        counted: Cell::new(0),
        subtree_at: RefCell::new(HashMap::new()),
    };
    let def = match reader.node(&document["tree"], 1) {
        Ok(def) => def,
        Err(NoDef::Unsupported(why)) => return Ok(Run::Unsupported(why)),
        Err(NoDef::Bad(why)) => return Err(why),
    };
    let tree = FlatTree::build(&def).map_err(|e| format!("flat build: {e}"))?;
    let mut state = tree.new_state();
    let mut data = Calls::default();
    let (mut statuses, mut events) = (Vec::new(), Vec::new());
    for _ in 0..case.statuses.len() {
        let mut trace = Lines {
            tree: &tree,
            lines: Vec::new(),
        };
        statuses.push(tree.tick_traced(&mut state, case.agent, &mut data, &(), &mut trace));
        events.push(trace.lines);
    }
    let outcome = Outcome {
        statuses,
        events: Some(events),
        calls: data.calls.into_inner(),
        heard: BTreeMap::new(),
    };
    Ok(Run::Checked(check(case, &outcome, Events::All)))
}

// ---------------------------------------------------------------------------
// The harnesses.

/// An engine's verdict on one scenario.
enum Run {
    /// The problems found; none is a pass.
    Checked(Vec<String>),
    /// The engine cannot run the tree, and why.
    Unsupported(String),
}

/// The engines that run the semantics scenarios.
#[derive(Clone, Copy)]
pub(crate) enum Engine {
    CanopyTick,
    CanopyEvent,
    Naive,
    Flat,
}

/// Run every semantics scenario on `engine`. A scenario the engine cannot
/// run must be listed in `skips` with the reason, by its name or by its
/// file's (`async.toml`: a file of one node kind), and is then skipped;
/// one it cannot run that is not listed, or one listed that it runs,
/// fails.
pub(crate) fn run_all(engine: Engine, skips: &[(&str, &str)]) {
    let label = match engine {
        Engine::CanopyTick => "canopy, tick mode",
        Engine::CanopyEvent => "canopy, event mode",
        Engine::Naive => "naive interpreter",
        Engine::Flat => "flat interpreter",
    };
    let mut report = Report::new(label);
    let scenarios = format::load::<Scenario>("semantics", &mut report);
    let in_file =
        |file: &str, listed: &str| file.strip_suffix(listed).is_some_and(|f| f.ends_with('/'));
    for (name, _) in skips {
        if !scenarios
            .iter()
            .any(|s| s.scenario.name == *name || in_file(&s.file, name))
        {
            report.fail(
                "(the harness)",
                name,
                "listed as skipped, but no file has it",
            );
        }
    }
    for loaded in &scenarios {
        let (file, scenario) = (&loaded.file, &loaded.scenario);
        let name = scenario.name.as_str();
        let run = guarded(|| {
            let case = scenario.prepare()?;
            match engine {
                Engine::CanopyTick => canopy_tick(&case).map(Run::Checked),
                Engine::CanopyEvent => canopy_event(&case).map(Run::Checked),
                Engine::Naive => naive(&case),
                Engine::Flat => flat(&case),
            }
        });
        let listed = skips
            .iter()
            .find(|(n, _)| *n == name || in_file(file, n))
            .map(|(_, why)| why);
        match (run, listed) {
            (Ok(Run::Unsupported(why)), Some(reason)) => {
                report.skip(file, name, format!("{reason} ({why})"))
            }
            (Ok(Run::Unsupported(why)), None) => report.fail(
                file,
                name,
                format!("cannot run ({why}) and is not in the harness's list of skips"),
            ),
            (Ok(Run::Checked(_)), Some(_)) => report.fail(
                file,
                name,
                "listed as skipped, but runs: take it off the list",
            ),
            (Ok(Run::Checked(problems)), None) => report.record(file, name, problems),
            (Err(e), _) => report.fail(file, name, e),
        }
    }
    report.finish();
}
