//! `check`, `print`, `dot` and `run` on state machine files (canopy-fsm's
//! JSON and RON machines, flat, hierarchical or running trees in states).
//!
//! A file is a machine when its top level is an object with `states` and
//! without `tree` — what a machine file must have and a tree file never
//! has — so the command needs no flag and the extension still only picks
//! the syntax. A file that cannot be read or parsed is left to the tree
//! loader, whose errors say why; BehaviorTree.CPP XML is always a tree.
//! Rejected: a `.fsm.json` extension (renaming files to please a tool) and
//! a `--machine` flag (the file already says what it is).
//!
//! State types and triggers come from the game ([`crate::Cli::machines`]).
//! A command without them — the stock `canopy` — still reads every machine
//! file: each state type the file names stands in as a state that does
//! nothing and each trigger as itself, so the structure (states, initial
//! states, hierarchy, transitions, final states, the trees of tree states)
//! is checked, printed, drawn and run, and `check` lists the state types and
//! triggers a game must register for the file. Rejected: refusing such
//! files, which would leave a machine's author no tool before the game
//! builds its own `canopy`.
//!
//! Every name from the file is escaped with [`canopy_data::escape`] before
//! it is written, as for trees.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Debug;
use std::io::Write;
use std::path::Path;

use canopy_core::Status;
use canopy_core::text::{did_you_mean, quote, suggest};
use canopy_data::document::Value;
use canopy_data::{Format, Registry, escape};
use canopy_fsm::{FsmAgent, Hooks, MAX_DEPTH, MAX_STATES, Machine, MachineRegistry, StateId};
use rayon::prelude::*;

use crate::args::{Command, MAX_AGENTS, RunArgs};
use crate::crowd::MAX_CROWD_BYTES;
use crate::failure::{self, Failure};
use crate::files::{self, shown};
use crate::game::{Answer, Game};

/// A machine file's bytes and syntax, and what its document names.
pub(crate) struct Input {
    bytes: Vec<u8>,
    format: Format,
    outline: Outline,
}

/// `Some` if `file` is a machine file (see the module docs).
pub(crate) fn detect(file: &Path) -> Option<Input> {
    // `None` for XML too: BehaviorTree.CPP files are trees.
    let format = Format::from_path(file)?;
    let bytes = canopy_data::read_file(file).ok()?;
    let (_, document) = canopy_data::parse_document(&bytes, format, "").ok()?;
    if document.as_object().is_none()
        || document.get("states").is_none()
        || document.get("tree").is_some()
    {
        return None;
    }
    let outline = Outline::of(&document);
    Some(Input {
        bytes,
        format,
        outline,
    })
}

/// What a machine document names, read before loading: each state's type
/// and tree, and every state type and trigger. Bounded like the loader:
/// at most [`MAX_STATES`] states over [`MAX_DEPTH`] levels are looked at
/// (the loader reports a file with more).
#[derive(Default)]
struct Outline {
    /// By state name: its type, and where its tree comes from.
    states: HashMap<String, StateInfo>,
    types: BTreeSet<String>,
    /// In first-seen order, so that stand-in trigger ids are stable.
    triggers: Vec<String>,
    /// Each trigger's index in `triggers`.
    trigger_ids: HashMap<String, usize>,
}

#[derive(Default)]
struct StateInfo {
    type_name: Option<String>,
    /// `"patrol.json"` or `"inline"`.
    tree: Option<String>,
    on_success: Option<String>,
    on_failure: Option<String>,
}

impl Outline {
    fn of(document: &Value) -> Outline {
        let mut outline = Outline::default();
        let mut levels = vec![(document, 0usize)];
        let mut seen = 0usize;
        while let Some((machine, level)) = levels.pop() {
            let Some(states) = machine.get("states").and_then(Value::as_list) else {
                continue;
            };
            for state in states {
                seen += 1;
                if seen > MAX_STATES {
                    return outline;
                }
                outline.state(state);
                if level + 1 < MAX_DEPTH {
                    levels.push((state, level + 1));
                }
            }
        }
        // As many as the file holds: the reader's size limit bounds them.
        let transitions = document.get("transitions").and_then(Value::as_list);
        for transition in transitions.unwrap_or(&[]) {
            outline.trigger(transition.get("trigger"));
        }
        outline
    }

    fn state(&mut self, state: &Value) {
        let text = |field: &str| state.get(field).and_then(Value::as_str).map(str::to_string);
        let Some(name) = text("name") else { return };
        let info = StateInfo {
            type_name: text("type"),
            tree: state.get("tree").map(|t| match t.as_str() {
                Some(file) => file.to_string(),
                None => "inline".to_string(),
            }),
            on_success: text("on_success"),
            on_failure: text("on_failure"),
        };
        if info.tree.is_none()
            && let Some(t) = &info.type_name
        {
            self.types.insert(t.clone());
        }
        if info.tree.is_some() {
            self.trigger(state.get("on_success"));
            self.trigger(state.get("on_failure"));
        }
        self.states.entry(name).or_insert(info);
    }

    fn trigger(&mut self, value: Option<&Value>) {
        if let Some(name) = value.and_then(Value::as_str)
            && !self.trigger_ids.contains_key(name)
        {
            self.trigger_ids
                .insert(name.to_string(), self.triggers.len());
            self.triggers.push(name.to_string());
        }
    }
}

/// `print`'s output so far, and the state each tree was printed under.
struct Outlining<'t> {
    text: &'t mut String,
    /// By the tree's address (states naming one file share its tree).
    printed: &'t mut HashMap<usize, StateId>,
}

/// A stand-in trigger: its index in [`Outline::triggers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StandIn(usize);

/// What `run` needs from the game besides the machine: each agent's data,
/// the world and the world's step.
pub(crate) struct Setup<'a, A, W> {
    pub(crate) make: Option<&'a dyn Fn(u32) -> A>,
    pub(crate) world: Option<&'a mut W>,
    pub(crate) game: &'a mut Game<A, W>,
}

/// A game's state types and triggers, whatever its trigger type.
pub(crate) trait MachineTypes<A, W> {
    /// Carry out `command` on the machine file `input`, with `trees` lent
    /// for the trees of tree states.
    fn execute(
        &mut self,
        trees: &mut Registry<A, W>,
        command: &Command,
        input: &Input,
        setup: Setup<'_, A, W>,
        out: &mut dyn Write,
    ) -> Result<(), Failure>;
}

/// The state types and triggers [`crate::Cli::machines`] registered.
pub(crate) struct Registered<A, W, T>(pub(crate) MachineRegistry<A, W, T>);

impl<A, W, T> MachineTypes<A, W> for Registered<A, W, T>
where
    A: Send + 'static,
    W: Sync + 'static,
    T: Copy + Eq + Debug + Send + Sync + 'static,
{
    fn execute(
        &mut self,
        trees: &mut Registry<A, W>,
        command: &Command,
        input: &Input,
        setup: Setup<'_, A, W>,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        std::mem::swap(self.0.trees_mut(), trees);
        self.0.trees_outside(trees_outside(command));
        let job = Job {
            registry: &self.0,
            input,
            trigger_name: &|t: &T| format!("{t:?}"),
            trigger: &|name: &str| registered_trigger(&self.0, name),
            stand_ins: false,
        };
        let done = job.execute(command, setup, out);
        std::mem::swap(self.0.trees_mut(), trees);
        done
    }
}

/// `--send`'s trigger from a game's registry.
fn registered_trigger<A: 'static, W: 'static, T: 'static>(
    registry: &MachineRegistry<A, W, T>,
    name: &str,
) -> Result<T, String> {
    match registry.trigger_named(name) {
        Some(Ok(t)) => Ok(t),
        Some(Err(reason)) => Err(format!("--send: trigger {}: {reason}", quote(name))),
        None => Err(format!(
            "--send: unknown trigger {}{}",
            quote(name),
            did_you_mean(suggest(name, registry.trigger_names()))
        )),
    }
}

/// Carry out `command` on a machine file with stand-ins for its state
/// types and triggers (no [`MachineTypes`] registered).
pub(crate) fn with_stand_ins<A: Send + 'static, W: Sync + 'static>(
    trees: &mut Registry<A, W>,
    command: &Command,
    input: &Input,
    setup: Setup<'_, A, W>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let mut registry = MachineRegistry::new(std::mem::replace(trees, Registry::empty()));
    registry.trees_outside(trees_outside(command));
    for type_name in &input.outline.types {
        registry.state_type(type_name, |_| Ok(Hooks::<A, W, StandIn>::new()));
    }
    for (i, name) in input.outline.triggers.iter().enumerate() {
        registry.trigger(name, StandIn(i));
    }
    let names = &input.outline.triggers;
    let job = Job {
        registry: &registry,
        input,
        trigger_name: &|t: &StandIn| names[t.0].clone(),
        trigger: &|name: &str| match input.outline.trigger_ids.get(name) {
            Some(&i) => Ok(StandIn(i)),
            None => Err(format!(
                "--send: the machine has no trigger {}{}",
                quote(name),
                did_you_mean(suggest(name, names.iter().map(String::as_str)))
            )),
        },
        stand_ins: true,
    };
    let done = job.execute(command, setup, out);
    *trees = std::mem::replace(registry.trees_mut(), Registry::empty());
    done
}

/// Whether the command lets tree files be read outside the machine
/// file's directory: `--includes-outside`, as for XML includes.
fn trees_outside(command: &Command) -> bool {
    command
        .load()
        .is_some_and(|(_, load)| load.includes_outside)
}

/// One command on one machine file, with its registry.
struct Job<'a, A, W, T> {
    registry: &'a MachineRegistry<A, W, T>,
    input: &'a Input,
    /// How a trigger is written (its name in the file, or its `Debug`).
    trigger_name: &'a dyn Fn(&T) -> String,
    /// A trigger `--send` names.
    trigger: &'a dyn Fn(&str) -> Result<T, String>,
    /// Whether states stand in for their types.
    stand_ins: bool,
}

impl<A, W, T> Job<'_, A, W, T>
where
    A: Send + 'static,
    W: Sync + 'static,
    T: Copy + Eq + Debug + Send + Sync + 'static,
{
    fn execute(
        &self,
        command: &Command,
        setup: Setup<'_, A, W>,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        match command {
            Command::Check(a) => {
                self.load(&a.file)?;
                self.checked(out)
            }
            Command::Print(a) => {
                let machine = self.load(&a.file)?;
                Ok(out.write_all(self.outline(&machine).as_bytes())?)
            }
            Command::Dot(a) => {
                let machine = self.load(&a.file)?;
                Ok(out.write_all(self.dot(&machine).as_bytes())?)
            }
            Command::Run(a) => self.run(a, setup, out),
            // `machine_file` (in `types`) sends only these four here.
            Command::Nodes { .. }
            | Command::Bench(_)
            | Command::Export(_)
            | Command::Model(_)
            | Command::View(_)
            | Command::Snapshot(_) => Ok(()),
        }
    }

    fn load(&self, file: &Path) -> Result<Machine<A, W, T>, Failure> {
        let base = file.parent().unwrap_or(Path::new(""));
        let source = file.display().to_string();
        self.registry
            .load_bytes(&self.input.bytes, self.input.format, &source, base)
            .map_err(Failure::Machine)
    }

    /// `run`: the crowd's statuses and active states, tick by tick; saved
    /// after the last with `--save`, carried on from a save with `--restore`.
    fn run(&self, a: &RunArgs, setup: Setup<'_, A, W>, out: &mut dyn Write) -> Result<(), Failure> {
        unsupported(a)?;
        let (Some(make), Some(world)) = (setup.make, setup.world) else {
            return Err(Failure::CannotRun("run"));
        };
        let sends = a
            .send
            .iter()
            .map(|s| Ok((s.tick, (self.trigger)(&s.trigger)?, s.trigger.as_str())))
            .collect::<Result<Vec<_>, String>>()
            .map_err(|e| Failure::Usage("run", e))?;
        let machine = self.load(&a.file)?;
        let mut crowd = match &a.restore {
            Some(path) => Crowd::restore(&machine, path, &a.file, make)?,
            None => Crowd::new(&machine, a.agents, make)?,
        };
        crate::workload("run", "the agents", crowd.agents.len() as u64, a.ticks, "")?;
        let ran = summary(
            &machine, &mut crowd, &sends, world, setup.game, a.ticks, out,
        );
        failure::then_save(a.save.as_deref(), ran, |path| {
            crowd.save(&machine, path, out)
        })
    }

    /// `check`'s answer: `ok`, and with stand-ins what the file needs.
    fn checked(&self, out: &mut dyn Write) -> Result<(), Failure> {
        if !self.stand_ins {
            writeln!(out, "ok")?;
            return Ok(());
        }
        let list = |names: &mut dyn Iterator<Item = &String>| {
            let shown: Vec<String> = names.map(|n| escape(n).into_owned()).collect();
            if shown.is_empty() {
                "none".to_string()
            } else {
                shown.join(", ")
            }
        };
        let mut triggers: Vec<&String> = self.input.outline.triggers.iter().collect();
        triggers.sort();
        writeln!(
            out,
            "ok (structure only: no state types are registered, so states stand in for theirs)"
        )?;
        writeln!(
            out,
            "state types: {}",
            list(&mut self.input.outline.types.iter())
        )?;
        writeln!(out, "triggers: {}", list(&mut triggers.into_iter()))?;
        Ok(())
    }

    /// A state's marks: start, type or tree, its tree's triggers, final.
    fn marks(&self, machine: &Machine<A, W, T>, id: StateId, start: bool) -> Vec<String> {
        let mut marks = Vec::new();
        if start {
            marks.push("start".to_string());
        }
        if let Some(info) = self.input.outline.states.get(machine.name(id)) {
            if let Some(tree) = &info.tree {
                marks.push(format!("tree {}", escape(tree)));
                if let Some(t) = &info.on_success {
                    marks.push(format!("success: {}", escape(t)));
                }
                if let Some(t) = &info.on_failure {
                    marks.push(format!("failure: {}", escape(t)));
                }
            } else if let Some(t) = &info.type_name {
                marks.push(escape(t).into_owned());
            }
        }
        if let Some(outcome) = machine.outcome(id) {
            marks.push(format!("final: {outcome}"));
        }
        marks
    }

    /// `Trigger → Target, …` of a state.
    fn arrows(&self, machine: &Machine<A, W, T>, id: StateId) -> Vec<String> {
        machine
            .transitions(id)
            .map(|(t, to)| {
                let trigger = (self.trigger_name)(t);
                format!("{} → {}", escape(&trigger), escape(machine.name(to)))
            })
            .collect()
    }

    /// `print`: one state per line, children under their parent, a tree
    /// state's tree set in under it — under the first state that runs it:
    /// a tree file named by several states is one tree, printed once and
    /// referred to by the others (printed under each, 3,000 states naming
    /// one 900 KB tree wrote 2.7 GB).
    fn outline(&self, machine: &Machine<A, W, T>) -> String {
        let mut text = String::new();
        let top: Vec<StateId> = machine.top_level().collect();
        let mut printed = HashMap::new();
        let mut out = Outlining {
            text: &mut text,
            printed: &mut printed,
        };
        self.level(machine, &top, machine.start(), "", true, &mut out);
        text
    }

    fn level(
        &self,
        machine: &Machine<A, W, T>,
        states: &[StateId],
        start: StateId,
        prefix: &str,
        top: bool,
        out: &mut Outlining<'_>,
    ) {
        for (i, &id) in states.iter().enumerate() {
            let (branch, indent) = match (top, i + 1 == states.len()) {
                (true, _) => ("", ""),
                (false, true) => ("└── ", "    "),
                (false, false) => ("├── ", "│   "),
            };
            out.text
                .push_str(&format!("{prefix}{branch}{}", escape(machine.name(id))));
            let marks = self.marks(machine, id, id == start);
            if !marks.is_empty() {
                out.text.push_str(&format!("  [{}]", marks.join(", ")));
            }
            let arrows = self.arrows(machine, id);
            if !arrows.is_empty() {
                out.text.push_str(&format!("  {}", arrows.join(", ")));
            }
            out.text.push('\n');
            if let Some(tree) = machine.tree(id) {
                let first = out
                    .printed
                    .entry(std::ptr::from_ref(tree).addr())
                    .or_insert(id);
                if *first == id {
                    // The tree's own view, set in under its state.
                    for line in tree.display_escaped(escape).to_string().lines() {
                        out.text.push_str(&format!("{prefix}{indent}    {line}\n"));
                    }
                } else {
                    let first = escape(machine.name(*first));
                    out.text.push_str(&format!(
                        "{prefix}{indent}    (the tree printed under {first})\n"
                    ));
                }
            }
            let children: Vec<StateId> = machine.children(id).collect();
            if let Some(initial) = machine.initial(id) {
                let prefix = format!("{prefix}{indent}");
                self.level(machine, &children, initial, &prefix, false, out);
            }
        }
    }

    /// `dot`: states as nodes, a state with a child machine as a cluster
    /// whose start point stands for it in edges, transitions as edges.
    fn dot(&self, machine: &Machine<A, W, T>) -> String {
        let mut text = String::from(
            "digraph machine {\n  compound=true;\n  \
             node [fontname=\"Helvetica\", shape=box, style=rounded];\n  \
             edge [fontname=\"Helvetica\"];\n  start [shape=point];\n",
        );
        for id in machine.top_level() {
            self.dot_state(machine, id, "  ", &mut text);
        }
        text.push_str(&format!("  start -> s{};\n", machine.start().index()));
        for id in every_state(machine) {
            for (t, to) in machine.transitions(id) {
                let mut attrs = format!("label=\"{}\"", dot_text(&(self.trigger_name)(t)));
                if machine.initial(id).is_some() {
                    attrs.push_str(&format!(", ltail=cluster_{}", id.index()));
                }
                if machine.initial(to).is_some() && to != id {
                    attrs.push_str(&format!(", lhead=cluster_{}", to.index()));
                }
                let (from, to) = (id.index(), to.index());
                text.push_str(&format!("  s{from} -> s{to} [{attrs}];\n"));
            }
        }
        text.push_str("}\n");
        text
    }

    fn dot_state(&self, machine: &Machine<A, W, T>, id: StateId, pad: &str, text: &mut String) {
        let mut label = dot_text(machine.name(id));
        let marks: Vec<String> = self
            .marks(machine, id, false)
            .into_iter()
            .filter(|m| !m.starts_with("final"))
            .collect();
        if !marks.is_empty() {
            // Marks are escaped already: only DOT's own quoting is left.
            label.push_str(&format!("\\n{}", canopy_core::text::dot(&marks.join(", "))));
        }
        let Some(initial) = machine.initial(id) else {
            let shape = match (machine.runs_tree(id), machine.outcome(id)) {
                (true, _) => ", style=\"\"",
                (false, Some(_)) => ", peripheries=2",
                (false, None) => "",
            };
            text.push_str(&format!(
                "{pad}s{} [label=\"{label}\"{shape}];\n",
                id.index()
            ));
            return;
        };
        let n = id.index();
        text.push_str(&format!(
            "{pad}subgraph cluster_{n} {{\n{pad}  label=\"{label}\";\n\
             {pad}  s{n} [shape=point];\n"
        ));
        for child in machine.children(id) {
            self.dot_state(machine, child, &format!("{pad}  "), text);
        }
        text.push_str(&format!("{pad}  s{n} -> s{};\n", initial.index()));
        text.push_str(&format!("{pad}}}\n"));
    }
}

/// Every state, each before its children: the order `print` shows them in.
fn every_state<A, W, T>(machine: &Machine<A, W, T>) -> Vec<StateId> {
    let mut order = Vec::with_capacity(machine.len());
    let mut stack: Vec<StateId> = machine.top_level().collect();
    stack.reverse();
    while let Some(id) = stack.pop() {
        order.push(id);
        let at = stack.len();
        stack.extend(machine.children(id));
        stack[at..].reverse();
    }
    order
}

/// Text from the file as a DOT string's content: escaped for the terminal,
/// then quoted for DOT.
fn dot_text(text: &str) -> String {
    canopy_core::text::dot(&escape(text)).into_owned()
}

/// `run`'s lines: each tick's sends, statuses and agents per innermost
/// state, then the totals; tick numbers go on from the crowd's.
fn summary<A: Send, W: Sync, T: Copy + Eq + Sync>(
    machine: &Machine<A, W, T>,
    crowd: &mut Crowd<A>,
    sends: &[(u32, T, &str)],
    world: &mut W,
    game: &mut Game<A, W>,
    ticks: u32,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let agents = crowd.agents.len() as u32;
    let first = crowd.agents.first().map_or(0, FsmAgent::ticks);
    let last = first.saturating_add(ticks);
    let tick_width = last.to_string().len();
    let agent_width = agents.to_string().len();
    let mut total = [0u64; 3];
    for tick in first + 1..=last {
        game.update(world, tick);
        for &(_, trigger, name) in sends.iter().filter(|s| s.0 == tick) {
            let taken = crowd.send(machine, trigger, world);
            let name = escape(name);
            writeln!(
                out,
                "tick {tick:>tick_width$}: sent {name} to {agents} agents, {taken} took it"
            )?;
        }
        let (counts, states) = crowd.update(machine, world, game.answer.as_ref());
        let [running, success, failure] = counts;
        write!(
            out,
            "tick {tick:>tick_width$}: {running:>agent_width$} running, \
             {success:>agent_width$} success, {failure:>agent_width$} failure"
        )?;
        writeln!(out, "  [{}]", in_states(machine, &states))?;
        for (t, c) in total.iter_mut().zip(counts) {
            *t += c;
        }
    }
    let [running, success, failure] = total;
    let plural = |n: u32, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "total over {} × {}: {running} running, {success} success, {failure} failure",
        plural(last - first, "tick"),
        plural(agents, "agent"),
    )
}

/// `run`'s options that only trees have, refused for a machine.
fn unsupported(a: &RunArgs) -> Result<(), Failure> {
    let flag = match (a.trace, a.mode.is_some()) {
        (true, _) => "--trace",
        (false, true) => "--mode",
        (false, false) => return Ok(()),
    };
    Err(Failure::Usage(
        "run",
        format!(
            "{flag} is for tree files; a state machine file runs with --ticks, --agents, --seed, \
             --send, --save and --restore"
        ),
    ))
}

/// `Move/Walk: 3, Idle: 1`: how many agents are in each innermost state,
/// with its path from the top.
fn in_states<A, W, T>(machine: &Machine<A, W, T>, states: &[u64]) -> String {
    let mut parts = Vec::new();
    for id in every_state(machine) {
        let count = states[id.index()];
        if count == 0 {
            continue;
        }
        let mut path = vec![escape(machine.name(id))];
        let mut up = machine.parent(id);
        while let Some(parent) = up {
            path.push(escape(machine.name(parent)));
            up = machine.parent(parent);
        }
        path.reverse();
        parts.push(format!("{}: {count}", path.join("/")));
    }
    if parts.is_empty() {
        "stopped".to_string()
    } else {
        parts.join(", ")
    }
}

/// The agents of `run` and, index for index, their data; memory checked
/// against [`MAX_CROWD_BYTES`] and reserved with `try_reserve`.
struct Crowd<A> {
    agents: Vec<FsmAgent>,
    data: Vec<A>,
}

/// Memory one agent of `machine` takes, with its data.
fn bytes_per_agent<A, W, T>(machine: &Machine<A, W, T>) -> u64 {
    let one = FsmAgent::new(machine);
    (size_of::<FsmAgent>() + one.heap_bytes() + size_of::<A>()) as u64
}

impl<A: Send> Crowd<A> {
    fn new<W, T>(
        machine: &Machine<A, W, T>,
        agents: u32,
        make: &dyn Fn(u32) -> A,
    ) -> Result<Self, Failure> {
        let per_agent = bytes_per_agent(machine);
        let bytes = u64::from(agents).saturating_mul(per_agent);
        if bytes > MAX_CROWD_BYTES {
            return Err(Failure::Usage(
                "run",
                format!(
                    "{agents} agents need {bytes} bytes ({per_agent} bytes per agent for this \
                     machine), more than the limit of {MAX_CROWD_BYTES} bytes (16 GiB); use \
                     fewer agents"
                ),
            ));
        }
        let refused = |e| Failure::Message(format!("cannot allocate the agents: {e}"));
        let mut crowd = Crowd {
            agents: Vec::new(),
            data: Vec::new(),
        };
        crowd
            .agents
            .try_reserve_exact(agents as usize)
            .map_err(refused)?;
        crowd
            .data
            .try_reserve_exact(agents as usize)
            .map_err(refused)?;
        for id in 0..agents {
            crowd.agents.push(FsmAgent::with_id(machine, id));
            crowd.data.push(make(id));
        }
        Ok(crowd)
    }

    /// The agents saved in the file `path` (by `--save`) onto `machine`
    /// (read from `file`), as many as [`MAX_CROWD_BYTES`] holds; each
    /// gets fresh data.
    fn restore<W, T>(
        machine: &Machine<A, W, T>,
        path: &Path,
        file: &Path,
        make: &dyn Fn(u32) -> A,
    ) -> Result<Self, Failure> {
        let bytes = files::read_snapshot(path).map_err(Failure::Message)?;
        let fit = MAX_CROWD_BYTES / bytes_per_agent(machine).max(1);
        let max_agents = u32::try_from(fit.min(MAX_AGENTS)).unwrap_or(u32::MAX);
        let agents = canopy_fsm::restore_crowd(machine, &bytes, max_agents).map_err(|e| {
            Failure::Message(format!(
                "{}: cannot restore onto {}: {e}",
                shown(path),
                shown(file)
            ))
        })?;
        let mut data = Vec::new();
        data.try_reserve_exact(agents.len())
            .map_err(|e| Failure::Message(format!("cannot allocate the agents' data: {e}")))?;
        data.extend(agents.iter().map(|agent| make(agent.id())));
        Ok(Crowd { agents, data })
    }

    /// Write every agent to the file `path`, and say so.
    fn save<W, T>(
        &self,
        machine: &Machine<A, W, T>,
        path: &Path,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        let bytes = canopy_fsm::save_crowd(machine, &self.agents);
        std::fs::write(path, &bytes).map_err(|e| {
            Failure::Message(format!("{}: cannot write the snapshot: {e}", shown(path)))
        })?;
        let agents = self.agents.len();
        writeln!(
            out,
            "saved {agents} agent{} at tick {} to {} ({} bytes)",
            if agents == 1 { "" } else { "s" },
            self.agents.first().map_or(0, FsmAgent::ticks),
            shown(path),
            bytes.len()
        )?;
        Ok(())
    }

    /// Send `trigger` to every agent; how many took it.
    fn send<W: Sync, T: Copy + Eq + Sync>(
        &mut self,
        machine: &Machine<A, W, T>,
        trigger: T,
        world: &W,
    ) -> u64 {
        self.agents
            .par_iter_mut()
            .zip(self.data.par_iter_mut())
            .map(|(agent, data)| u64::from(agent.send(machine, trigger, data, world)))
            .sum()
    }

    /// Update every agent once, then answer the async leaves waiting in
    /// its tree states as the game would (`answer`): the statuses
    /// (running, success, failure) and how many agents are in each
    /// innermost state, by index.
    fn update<W: Sync, T: Copy + Eq + Sync>(
        &mut self,
        machine: &Machine<A, W, T>,
        world: &W,
        answer: Option<&Answer<A, W>>,
    ) -> ([u64; 3], Vec<u64>) {
        let states = machine.len();
        let zero = || ([0u64; 3], vec![0u64; states]);
        self.agents
            .par_iter_mut()
            .zip(self.data.par_iter_mut())
            .fold(zero, |(mut counts, mut inside), (agent, data)| {
                let slot = match agent.update(machine, data, world) {
                    Status::Running => 0,
                    Status::Success => 1,
                    Status::Failure => 2,
                };
                if let Some(answer) = answer {
                    agent.complete_pending(|ticket, waited| answer(data, world, ticket, waited));
                }
                counts[slot] += 1;
                if let Some(innermost) = agent.active().last() {
                    inside[innermost.index()] += 1;
                }
                (counts, inside)
            })
            .reduce(zero, |(mut a, mut x), (b, y)| {
                for (a, b) in a.iter_mut().zip(b) {
                    *a += b;
                }
                for (x, y) in x.iter_mut().zip(y) {
                    *x += y;
                }
                (a, x)
            })
    }
}
