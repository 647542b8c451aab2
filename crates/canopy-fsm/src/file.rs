//! Machines from JSON and RON files, through a registry of state types and
//! triggers.
//!
//! A machine file is one object: its `states` (a list), the `initial`
//! state's name, and its `transitions`. A state has a `name`, and may have
//! a `type` (a registered state type; none means a state that does
//! nothing), a child machine (`states` and `initial` of its own), `final`
//! (`"success"` or `"failure"`), or a `tree` to run while it is active —
//! a tree document inline (`{"tree": …, "subtrees": …}`) or the path of a
//! tree file, relative to the machine file and inside its directory (no
//! absolute path, no `..`, no symbolic link out of it, unless
//! [`MachineRegistry::trees_outside`] allows it, as BehaviorTree.CPP XML's
//! includes are confined) — with
//! optional `on_success` and `on_failure` triggers. Names are global, as in
//! [`MachineBuilder`], so transitions sit at the top and may cross levels:
//!
//! ```json
//! {"initial": "Idle",
//!  "states": [{"name": "Idle", "type": "Printing"},
//!             {"name": "Move", "initial": "Walk",
//!              "states": [{"name": "Walk"}, {"name": "Jump", "type": "Jump", "land_after": 2}]}],
//!  "transitions": [{"from": "Idle", "trigger": "Move", "to": "Move"},
//!                  {"from": "Walk", "trigger": "Jump", "to": "Jump"}]}
//! ```
//!
//! Parameters are the further fields of the object that names the type
//! or trigger, declared once as a struct as tree node types' are
//! (`#[derive(Params)]`, [`MachineRegistry::state`],
//! [`MachineRegistry::trigger_from`]): the loader checks them with the
//! same messages as a tree node's (an unknown field with "did you mean",
//! a value out of range, a word not in its set) and hands the factory the
//! struct. A factory over the raw object
//! ([`MachineRegistry::state_type`], [`MachineRegistry::trigger_with`])
//! stays for parameter sets known only at run time, and for a state type
//! that reads the state's own fields (its `name`).
//!
//! Files are read by canopy-data's reader, so they get the same limits as
//! tree files (size, bracket nesting, text checks) and the same errors with
//! line and column; states nest at most [`MAX_DEPTH`] levels and number at
//! most [`MAX_STATES`], and a state has at most
//! [`MAX_TRANSITIONS_PER_STATE`] transitions, checked while the file is
//! walked, before anything is built. A tree file named by several states is read once.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use canopy_core::Tree;
use canopy_core::text::{did_you_mean, quote, suggest};
use canopy_data::document::{Key, Source, Value};
use canopy_data::{
    Format, LoadError, Location, NodeParams, Position, Problem, Registry, TreeSource, read_params,
};

use crate::builder::{MAX_DEPTH, MAX_STATES, MachineBuilder};
use crate::error::FsmError;
use crate::hybrid::TreeState;
use crate::machine::Machine;
use crate::state::{ErasedState, State};

type StateFactory<A, W, T> =
    Box<dyn Fn(&Value) -> Result<Box<dyn ErasedState<A, W, T>>, Refusal> + Send + Sync>;
/// A trigger's factory: the object naming it, and that object's fields
/// that are not the trigger's parameters (`None`: any may be another's).
type TriggerFactory<T> = Box<dyn Fn(&Value, Option<&[&str]>) -> Result<T, Refusal> + Send + Sync>;

/// Why a factory refused an object: its own reason, or its declared
/// parameters' problem.
enum Refusal {
    Reason(String),
    Params(Problem),
}

/// The fields of a state object that are not its type's parameters.
const STATE_FIELDS: [&str; 8] = [
    "name",
    "type",
    "states",
    "initial",
    "final",
    "tree",
    "on_success",
    "on_failure",
];

/// The fields of a transition that are not its trigger's parameters.
const TRANSITION_FIELDS: [&str; 3] = ["from", "trigger", "to"];

/// The most transitions a state of a machine file may have. The builder
/// checks each new transition against the state's earlier ones (triggers
/// are only `Eq`), so without a bound a hostile file of one state and a
/// few hundred thousand transitions would take minutes; real states have a
/// handful.
pub const MAX_TRANSITIONS_PER_STATE: usize = 1024;

/// State types and triggers by name, and the tree registry for states
/// that run a tree: what a machine file may name.
///
/// ```
/// use canopy_data::{Format, Registry};
/// use canopy_core::Ctx;
/// use canopy_fsm::{FsmAgent, Hooks, MachineRegistry};
///
/// let mut registry = MachineRegistry::<Vec<String>, (), char>::new(Registry::new());
/// registry.state_type("Logged", |params| {
///     let name = params.get("name").and_then(|v| v.as_str()).unwrap_or("").to_string();
///     Ok(Hooks::new().on_enter(move |cx: &mut Ctx<Vec<String>, ()>| {
///         cx.agent.push(format!("enter {name}"))
///     }))
/// });
/// registry.trigger("Jump", 'j');
/// let machine = registry.load_str(r#"{"initial": "Idle",
///     "states": [{"name": "Idle", "type": "Logged"}, {"name": "Air", "type": "Logged"}],
///     "transitions": [{"from": "Idle", "trigger": "Jump", "to": "Air"}]}"#,
///     Format::Json, "player.json").unwrap();
/// let (mut log, mut agent) = (Vec::new(), FsmAgent::new(&machine));
/// agent.start(&machine, &mut log, &());
/// assert!(agent.send(&machine, 'j', &mut log, &()));
/// assert_eq!(log, ["enter Idle", "enter Air"]);
/// ```
pub struct MachineRegistry<A, W, T> {
    trees: Registry<A, W>,
    states: BTreeMap<String, StateFactory<A, W, T>>,
    triggers: BTreeMap<String, TriggerFactory<T>>,
    /// Whether a state's tree file may be outside the machine file's
    /// directory.
    trees_outside: bool,
}

impl<A, W, T> fmt::Debug for MachineRegistry<A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MachineRegistry")
            .field("state_types", &self.states.keys().collect::<Vec<_>>())
            .field("triggers", &self.triggers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<A: 'static, W: 'static, T: 'static> MachineRegistry<A, W, T> {
    /// A registry with no state types nor triggers; tree states are loaded
    /// through `trees`.
    pub fn new(trees: Registry<A, W>) -> Self {
        MachineRegistry {
            trees,
            states: BTreeMap::new(),
            triggers: BTreeMap::new(),
            trees_outside: false,
        }
    }

    /// Whether a state's `tree` file may be outside the machine file's
    /// directory: an absolute path, `..` past it, a symbolic link out of
    /// it. A machine file may come from someone who should not make the
    /// game read other files, so by default (`false`) such a state is
    /// refused, whether or not a file is there; the counterpart of
    /// BehaviorTree.CPP XML's `XmlOptions::includes_outside`
    /// (`--includes-outside` on the command line allows both).
    pub fn trees_outside(&mut self, allow: bool) -> &mut Self {
        self.trees_outside = allow;
        self
    }

    /// The tree registry.
    pub fn trees(&self) -> &Registry<A, W> {
        &self.trees
    }

    /// Register a state type whose parameters are the struct `P`
    /// (`#[derive(Params)]`): the loader checks a state's further fields
    /// against it, as a tree node's, and `factory` receives the struct. A
    /// name given again replaces the earlier type.
    ///
    /// ```
    /// use canopy_core::Ctx;
    /// use canopy_data::{Format, Params, Registry};
    /// use canopy_fsm::{Hooks, MachineRegistry};
    ///
    /// /// Stays in the air for a while.
    /// #[derive(Params)]
    /// struct Airborne {
    ///     /// Ticks before landing.
    ///     #[param(range = 1..=100)]
    ///     land_after: u32,
    /// }
    ///
    /// let mut registry = MachineRegistry::<u32, (), char>::new(Registry::new());
    /// registry.state("Airborne", |p: Airborne| {
    ///     Hooks::new().on_update(move |cx: &mut Ctx<u32, ()>| {
    ///         *cx.agent += 1;
    ///         (*cx.agent >= p.land_after).then_some('l')
    ///     })
    /// });
    /// let err = registry.load_str(r#"{"initial": "Air",
    ///     "states": [{"name": "Air", "type": "Airborne", "land_aftr": 2}]}"#,
    ///     Format::Json, "m.json").unwrap_err();
    /// assert_eq!(err.to_string(), "m.json:2:18: machine/states[0] (name \"Air\"): \
    ///     state type \"Airborne\": unknown parameter \"land_aftr\" for Airborne \
    ///     (did you mean \"land_after\"?); it takes: land_after");
    /// ```
    pub fn state<P, S, F>(&mut self, name: &str, factory: F) -> &mut Self
    where
        P: NodeParams,
        S: State<A, W, T>,
        F: Fn(P) -> S + Send + Sync + 'static,
    {
        let (type_name, declared) = (name.to_string(), P::declare());
        let boxed: StateFactory<A, W, T> = Box::new(move |object| {
            let params = read_params(&type_name, &declared, object, &STATE_FIELDS)
                .map_err(Refusal::Params)?;
            let p = P::from_params(&params).map_err(|e| Refusal::Params(Problem::Param(e)))?;
            Ok(Box::new(factory(p)) as Box<dyn ErasedState<A, W, T>>)
        });
        self.states.insert(name.to_string(), boxed);
        self
    }

    /// Register a state type whose factory reads the state's object
    /// itself and says why it refuses one: for parameters known only at
    /// run time, or a state type that reads the state's own fields (its
    /// `name`). A name given again replaces the earlier type. (With a
    /// parameters struct: [`MachineRegistry::state`].)
    pub fn state_type<S, F>(&mut self, name: &str, factory: F) -> &mut Self
    where
        S: State<A, W, T>,
        F: Fn(&Value) -> Result<S, String> + Send + Sync + 'static,
    {
        let boxed: StateFactory<A, W, T> = Box::new(move |params| {
            factory(params)
                .map(|s| Box::new(s) as Box<dyn ErasedState<A, W, T>>)
                .map_err(Refusal::Reason)
        });
        self.states.insert(name.to_string(), boxed);
        self
    }

    /// Register a trigger without parameters.
    pub fn trigger(&mut self, name: &str, trigger: T) -> &mut Self
    where
        T: Clone + Send + Sync,
    {
        self.trigger_with(name, move |_| Ok(trigger.clone()))
    }

    /// Register a trigger whose parameters are the struct `P`
    /// (`#[derive(Params)]`), read from the object that names it (a
    /// transition, or a tree state for `on_success` and `on_failure`) and
    /// checked as a tree node's are.
    ///
    /// ```
    /// use canopy_data::{Format, Params, Registry};
    /// use canopy_fsm::MachineRegistry;
    ///
    /// /// A hit of some strength.
    /// #[derive(Params)]
    /// struct Hit {
    ///     /// How hard.
    ///     #[param(default = 1, range = 1..=9)]
    ///     strength: u8,
    /// }
    ///
    /// let mut registry = MachineRegistry::<(), (), u8>::new(Registry::new());
    /// registry.trigger_from("Hit", |p: Hit| p.strength);
    /// let machine = registry.load_str(r#"{"initial": "Up", "states": [{"name": "Up"}, {"name": "Down"}],
    ///     "transitions": [{"from": "Up", "trigger": "Hit", "strength": 3, "to": "Down"}]}"#,
    ///     Format::Json, "m.json").unwrap();
    /// assert_eq!(registry.trigger_named("Hit"), Some(Ok(1)));
    /// let err = registry.load_str(r#"{"initial": "Up", "states": [{"name": "Up"}, {"name": "Down"}],
    ///     "transitions": [{"from": "Up", "trigger": "Hit", "strength": 10, "to": "Down"}]}"#,
    ///     Format::Json, "m.json").unwrap_err();
    /// assert_eq!(err.to_string(), "m.json:2:23: machine/transitions[0]: trigger \"Hit\": \
    ///     parameter \"strength\" must be at most 9, got 10");
    /// # drop(machine);
    /// ```
    pub fn trigger_from<P, F>(&mut self, name: &str, factory: F) -> &mut Self
    where
        P: NodeParams,
        F: Fn(P) -> T + Send + Sync + 'static,
    {
        let (trigger, declared) = (name.to_string(), P::declare());
        let boxed: TriggerFactory<T> = Box::new(move |object, own| {
            // Where any field may be another's parameter (a tree state
            // names two triggers), none is unknown.
            let fields: Vec<&str>;
            let own = match own {
                Some(own) => own,
                None => {
                    let all = object.as_object().unwrap_or_default().iter();
                    fields = all.map(|(key, _)| key.as_str()).collect();
                    &fields
                }
            };
            let params = read_params(&trigger, &declared, object, own).map_err(Refusal::Params)?;
            P::from_params(&params)
                .map(&factory)
                .map_err(|e| Refusal::Params(Problem::Param(e)))
        });
        self.triggers.insert(name.to_string(), boxed);
        self
    }

    /// Register a trigger made from parameters: `factory` receives the
    /// object that names it (a transition, or a tree state for
    /// `on_success` and `on_failure`) and says why it refuses one. (With a
    /// parameters struct: [`MachineRegistry::trigger_from`].)
    pub fn trigger_with<F>(&mut self, name: &str, factory: F) -> &mut Self
    where
        F: Fn(&Value) -> Result<T, String> + Send + Sync + 'static,
    {
        let boxed: TriggerFactory<T> =
            Box::new(move |object, _| factory(object).map_err(Refusal::Reason));
        self.triggers.insert(name.to_string(), boxed);
        self
    }

    /// The tree registry, to lend it another registry's node types: a
    /// command that holds one tree registry for trees and machines swaps
    /// it in for a load and back out after.
    pub fn trees_mut(&mut self) -> &mut Registry<A, W> {
        &mut self.trees
    }

    /// The trigger registered as `name`, made with no parameters (as a
    /// command line names one); `None` if no trigger has that name, the
    /// factory's reason if it needs parameters.
    pub fn trigger_named(&self, name: &str) -> Option<Result<T, String>> {
        let factory = self.triggers.get(name)?;
        Some(
            factory(&Value::Object(Box::new([])), Some(&[])).map_err(|refusal| match refusal {
                Refusal::Reason(reason) => reason,
                Refusal::Params(problem) => problem.to_string(),
            }),
        )
    }

    /// The registered state type names, in order.
    pub fn state_types(&self) -> impl Iterator<Item = &str> {
        self.states.keys().map(String::as_str)
    }

    /// The registered trigger names, in order.
    pub fn trigger_names(&self) -> impl Iterator<Item = &str> {
        self.triggers.keys().map(String::as_str)
    }
}

impl<A: 'static, W: 'static, T: Copy + Eq + fmt::Debug + 'static> MachineRegistry<A, W, T> {
    /// Load a machine file; the extension (`.json`, `.ron`) picks the
    /// format, and tree files named by states are found beside it.
    pub fn load_file(&self, path: impl AsRef<Path>) -> Result<Machine<A, W, T>, MachineLoadError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let whole =
            |problem| MachineLoadError::read(LoadError::new(&file, Location::File, problem));
        let format = Format::from_path(path).ok_or_else(|| whole(Problem::UnknownExtension))?;
        let bytes = canopy_data::read_file(path).map_err(whole)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        self.load_bytes(&bytes, format, &file, &base)
    }

    /// Load a machine from text; `source` names it in errors, and tree
    /// files named by states are found from the current directory.
    pub fn load_str(
        &self,
        text: &str,
        format: Format,
        source: &str,
    ) -> Result<Machine<A, W, T>, MachineLoadError> {
        self.load_bytes(text.as_bytes(), format, source, Path::new(""))
    }

    /// Load a machine from bytes; tree file paths are relative to `base`.
    pub fn load_bytes(
        &self,
        bytes: &[u8],
        format: Format,
        source: &str,
        base: &Path,
    ) -> Result<Machine<A, W, T>, MachineLoadError> {
        let (text, document) =
            canopy_data::parse_document(bytes, format, source).map_err(MachineLoadError::read)?;
        let mut walk = Walk {
            registry: self,
            source: Source { name: source, text },
            format,
            base,
            root: None,
            tree_files: HashMap::new(),
            names: HashMap::new(),
            count: 0,
        };
        let builder = walk.machine(&document, "machine".to_string(), 0)?;
        walk.transitions(&document, builder)
    }
}

/// One file's walk: what it has seen so far.
struct Walk<'r, 'd, A, W, T> {
    registry: &'r MachineRegistry<A, W, T>,
    source: Source<'d>,
    format: Format,
    base: &'r Path,
    /// The machine file's directory with symbolic links resolved, found
    /// at the first tree file.
    root: Option<PathBuf>,
    tree_files: HashMap<PathBuf, Arc<Tree<A, W>>>,
    /// Each state's name and path, for duplicates and transitions.
    names: HashMap<&'d str, String>,
    count: usize,
}

impl<'d, A: 'static, W: 'static, T: Copy + Eq + fmt::Debug + 'static> Walk<'_, 'd, A, W, T> {
    fn error(
        &self,
        value: &Value,
        path: &str,
        name: Option<&str>,
        problem: MachineProblem,
    ) -> MachineLoadError {
        MachineLoadError(Box::new(Inner {
            file: self.source.name.to_string(),
            at: position(value, &self.source),
            path: path.to_string(),
            name: name.map(str::to_string),
            problem,
        }))
    }

    fn shape(&self, value: &Value, path: &str, what: &str) -> MachineLoadError {
        self.error(value, path, None, MachineProblem::Shape(what.to_string()))
    }

    /// One machine level: its states (and their children), its initial.
    fn machine(
        &mut self,
        object: &'d Value<'d>,
        path: String,
        level: usize,
    ) -> Result<MachineBuilder<A, W, T>, MachineLoadError> {
        if object.as_object().is_none() {
            return Err(self.shape(object, &path, "a machine must be an object"));
        }
        if level >= MAX_DEPTH {
            let name = object.get("name").and_then(Value::as_str);
            let problem = MachineProblem::TooDeep { limit: MAX_DEPTH };
            return Err(self.error(object, &path, name, problem));
        }
        let states = object
            .get("states")
            .and_then(Value::as_list)
            .ok_or_else(|| self.shape(object, &path, "\"states\" must be a list of states"))?;
        let mut builder = MachineBuilder::new();
        for (i, state) in states.iter().enumerate() {
            self.state(state, format!("{path}/states[{i}]"), level, &mut builder)?;
        }
        match object.get("initial").map(Value::as_str) {
            Some(Some(initial)) => {
                builder.start(initial);
            }
            Some(None) => {
                return Err(self.shape(object, &path, "\"initial\" must be a state's name"));
            }
            None => {}
        }
        Ok(builder)
    }

    fn state(
        &mut self,
        state: &'d Value<'d>,
        path: String,
        level: usize,
        builder: &mut MachineBuilder<A, W, T>,
    ) -> Result<(), MachineLoadError> {
        let Some(name) = state.get("name").and_then(Value::as_str) else {
            return Err(self.shape(state, &path, "a state needs a \"name\" (a string)"));
        };
        self.count += 1;
        if self.count > MAX_STATES {
            return Err(self.error(
                state,
                &path,
                Some(name),
                MachineProblem::TooManyStates { limit: MAX_STATES },
            ));
        }
        if let Some(first) = self.names.get(name) {
            let problem = MachineProblem::DuplicateState {
                name: name.to_string(),
                first: first.clone(),
            };
            return Err(self.error(state, &path, Some(name), problem));
        }
        self.names.insert(name, path.clone());
        let draft = if let Some(tree) = state.get("tree") {
            let tree_state = self.tree_state(state, tree, &path, name)?;
            builder.tree_state(name, tree_state)
        } else {
            let hooks = self.hooks(state, &path, name)?;
            builder.boxed_state(name, hooks)
        };
        match state.get("final").map(Value::as_str) {
            None => {}
            Some(Some("success")) => {
                draft.succeeds();
            }
            Some(Some("failure")) => {
                draft.fails();
            }
            Some(_) => {
                let what = "\"final\" must be \"success\" or \"failure\"";
                return Err(self.error(
                    state,
                    &path,
                    Some(name),
                    MachineProblem::Shape(what.into()),
                ));
            }
        }
        if state.get("states").is_some() {
            let child = self.machine(state, path, level + 1)?;
            draft.child_machine(child);
        }
        Ok(())
    }

    /// A state's hooks from its registered type; no type: no hooks.
    fn hooks(
        &self,
        state: &Value,
        path: &str,
        name: &str,
    ) -> Result<Box<dyn ErasedState<A, W, T>>, MachineLoadError> {
        let Some(type_value) = state.get("type") else {
            return Ok(Box::new(crate::state::Hooks::<A, W, T>::new()));
        };
        let Some(type_name) = type_value.as_str() else {
            return Err(self.error(
                state,
                path,
                Some(name),
                MachineProblem::Shape("\"type\" must be a string".into()),
            ));
        };
        let Some(factory) = self.registry.states.get(type_name) else {
            let suggestion = suggest(type_name, self.registry.state_types()).map(str::to_string);
            let problem = MachineProblem::UnknownStateType {
                type_name: type_name.to_string(),
                suggestion,
            };
            return Err(self.error(state, path, Some(name), problem));
        };
        factory(state).map_err(|refusal| {
            let type_name = type_name.to_string();
            let problem = match refusal {
                Refusal::Reason(reason) => MachineProblem::Params { type_name, reason },
                Refusal::Params(problem) => MachineProblem::StateParams {
                    type_name,
                    problem: Box::new(problem),
                },
            };
            self.error(state, path, Some(name), problem)
        })
    }

    /// A trigger named by `field` of `object`.
    fn trigger(
        &self,
        object: &Value,
        field: &str,
        path: &str,
        name: Option<&str>,
    ) -> Result<Option<T>, MachineLoadError> {
        let Some(value) = object.get(field) else {
            return Ok(None);
        };
        let Some(trigger) = value.as_str() else {
            let what = format!("{} must be a trigger's name", quote(field));
            return Err(self.error(object, path, name, MachineProblem::Shape(what)));
        };
        let Some(factory) = self.registry.triggers.get(trigger) else {
            let suggestion = suggest(trigger, self.registry.trigger_names()).map(str::to_string);
            let problem = MachineProblem::UnknownTrigger {
                trigger: trigger.to_string(),
                suggestion,
            };
            return Err(self.error(object, path, name, problem));
        };
        // A transition's own fields are known; a tree state's other fields
        // may be the other trigger's parameters.
        let own = (field == "trigger").then_some(&TRANSITION_FIELDS[..]);
        factory(object, own).map(Some).map_err(|refusal| {
            let trigger = trigger.to_string();
            let problem = match refusal {
                Refusal::Reason(reason) => MachineProblem::TriggerParams { trigger, reason },
                Refusal::Params(problem) => MachineProblem::TriggerParamsRefused {
                    trigger,
                    problem: Box::new(problem),
                },
            };
            self.error(object, path, name, problem)
        })
    }

    fn tree_state(
        &mut self,
        state: &'d Value<'d>,
        tree: &'d Value<'d>,
        path: &str,
        name: &str,
    ) -> Result<TreeState<A, W, T>, MachineLoadError> {
        let outside = self.registry.trees_outside;
        if let Some(file) = tree.as_str()
            && !outside
            && !inside(Path::new(file))
        {
            let what = "a tree file must be named by a relative path that stays beside the machine file (no \"..\"); allow others with MachineRegistry::trees_outside, or --includes-outside";
            return Err(self.error(state, path, Some(name), MachineProblem::Shape(what.into())));
        }
        let loaded = match tree.as_str() {
            Some(file) => {
                let (shown, read) = self.confined(file).map_err(|problem| {
                    self.error(state, path, Some(name), MachineProblem::Shape(problem))
                })?;
                self.tree_file(&shown, read)
            }
            None => {
                let source = TreeSource::Document {
                    document: tree,
                    sources: &[self.source],
                    format: self.format,
                    name: self.source.name,
                };
                self.registry.trees.loading(source).load().map(Arc::new)
            }
        };
        let tree =
            loaded.map_err(|e| self.error(state, path, Some(name), MachineProblem::Tree(e)))?;
        let mut tree_state = TreeState::new(tree);
        if let Some(t) = self.trigger(state, "on_success", path, Some(name))? {
            tree_state = tree_state.on_success(t);
        }
        if let Some(t) = self.trigger(state, "on_failure", path, Some(name))? {
            tree_state = tree_state.on_failure(t);
        }
        Ok(tree_state)
    }

    /// A state's tree file: the path messages show, and the path to read
    /// — with symbolic links resolved, so that what was checked is what
    /// is read. Refused when it resolves outside the machine file's
    /// directory and [`MachineRegistry::trees_outside`] does not allow it.
    /// A file that cannot be resolved is left to the reader to report.
    fn confined(&mut self, file: &str) -> Result<(PathBuf, PathBuf), String> {
        let path = self.base.join(file);
        if self.registry.trees_outside {
            return Ok((path.clone(), path));
        }
        let root = match &self.root {
            Some(root) => root.clone(),
            None => {
                let dir = if self.base.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    self.base
                };
                let root = std::fs::canonicalize(dir)
                    .map_err(|e| format!("cannot resolve the machine file's directory: {e}"))?;
                self.root = Some(root.clone());
                root
            }
        };
        match std::fs::canonicalize(&path) {
            Ok(canonical) if canonical.starts_with(&root) => Ok((path, canonical)),
            Ok(_) => Err(format!(
                "the tree file {} leaves the directory of the machine file through a symbolic \
                 link; canopy reads tree files only inside it (allow others with \
                 MachineRegistry::trees_outside, or --includes-outside)",
                quote(file)
            )),
            Err(_) => Ok((path.clone(), path)),
        }
    }

    /// A tree file, read once however many states name it (by the path
    /// read, so that two spellings of one file are one tree too).
    fn tree_file(&mut self, shown: &Path, read: PathBuf) -> Result<Arc<Tree<A, W>>, LoadError> {
        if let Some(tree) = self.tree_files.get(&read) {
            return Ok(tree.clone());
        }
        let file = shown.display().to_string();
        let whole = |problem| LoadError::new(&file, Location::File, problem);
        let format = Format::from_path(shown).ok_or_else(|| whole(Problem::UnknownExtension))?;
        let bytes = canopy_data::read_file(&read).map_err(whole)?;
        let source = TreeSource::bytes(&bytes, format, &file);
        let tree = Arc::new(self.registry.trees.loading(source).load()?);
        self.tree_files.insert(read, tree.clone());
        Ok(tree)
    }

    /// The top level's transitions, each checked by name before building.
    fn transitions(
        &self,
        document: &'d Value<'d>,
        mut builder: MachineBuilder<A, W, T>,
    ) -> Result<Machine<A, W, T>, MachineLoadError> {
        let list = match document.get("transitions") {
            None => &[][..],
            Some(value) => value
                .as_list()
                .ok_or_else(|| self.shape(document, "machine", "\"transitions\" must be a list"))?,
        };
        let mut per_state: HashMap<&str, usize> = HashMap::new();
        for (i, transition) in list.iter().enumerate() {
            let path = format!("machine/transitions[{i}]");
            let from = self.state_name(transition, "from", &path)?;
            let count = per_state.entry(from).or_default();
            *count += 1;
            if *count > MAX_TRANSITIONS_PER_STATE {
                let problem = MachineProblem::TooManyTransitions {
                    state: from.to_string(),
                    limit: MAX_TRANSITIONS_PER_STATE,
                };
                return Err(self.error(transition, &path, None, problem));
            }
            let to = self.state_name(transition, "to", &path)?;
            let Some(trigger) = self.trigger(transition, "trigger", &path, None)? else {
                return Err(self.shape(transition, &path, "a transition needs a \"trigger\""));
            };
            builder.transition(from, trigger, to);
        }
        builder
            .build()
            .map_err(|e| self.error(document, "machine", None, MachineProblem::Build(e)))
    }

    /// A transition's `from` or `to`, which must name a declared state.
    fn state_name(
        &self,
        transition: &'d Value<'d>,
        field: &str,
        path: &str,
    ) -> Result<&'d str, MachineLoadError> {
        let Some(name) = transition.get(field).and_then(Value::as_str) else {
            let what = format!("a transition needs {} (a state's name)", quote(field));
            return Err(self.shape(transition, path, &what));
        };
        if !self.names.contains_key(name) {
            let suggestion = suggest(name, self.names.keys().copied()).map(str::to_string);
            let problem = MachineProblem::MissingState {
                name: name.to_string(),
                suggestion,
            };
            return Err(self.error(transition, path, None, problem));
        }
        Ok(name)
    }
}

/// Whether a tree file's path stays in the machine file's directory: a
/// machine file from a stranger may not make the game read files elsewhere.
fn inside(path: &Path) -> bool {
    use std::path::Component;
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Where an object starts: its first field's name, when that borrows from
/// the text.
fn position(value: &Value, source: &Source) -> Option<Position> {
    let fields = value.as_object()?;
    fields.iter().find_map(|(key, _)| match key {
        Key::Str(k) => source.position_of(k),
        Key::Owned(_) => None,
    })
}

/// Why a machine file could not be loaded: the file, where in it (line and
/// column, the state's path and name), and what is wrong. `Display` writes
/// it on one line.
///
/// One pointer wide, as canopy-data's `LoadError`, so that results carrying
/// it stay small on the paths that succeed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineLoadError(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    file: String,
    at: Option<Position>,
    path: String,
    name: Option<String>,
    problem: MachineProblem,
}

impl MachineLoadError {
    fn read(e: LoadError) -> Self {
        MachineLoadError(Box::new(Inner {
            file: e.file().to_string(),
            at: None,
            path: String::new(),
            name: None,
            problem: MachineProblem::Read(e),
        }))
    }

    /// The file (or source name).
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// The path of the state or transition, as `machine/states[1]/states[0]`;
    /// empty for errors about the file as a whole.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// What is wrong.
    pub fn problem(&self) -> &MachineProblem {
        &self.0.problem
    }
}

impl fmt::Display for MachineLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let MachineProblem::Read(e) = &self.0.problem {
            return write!(f, "{e}");
        }
        write!(f, "{}", canopy_core::text::escape(&self.0.file))?;
        if let Some(Position { line, column }) = self.0.at {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.0.path)?;
        if let Some(name) = &self.0.name {
            write!(f, " (name {})", quote(name))?;
        }
        write!(f, ": {}", self.0.problem)
    }
}

impl std::error::Error for MachineLoadError {}

/// What is wrong in a machine file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MachineProblem {
    /// The file could not be read or parsed (as for a tree file).
    Read(LoadError),
    /// A value of the wrong shape; says what was expected.
    Shape(String),
    /// A state type no one registered.
    UnknownStateType {
        /// The name in the file.
        type_name: String,
        /// The closest registered name.
        suggestion: Option<String>,
    },
    /// A state type's factory refused the state's parameters.
    Params {
        /// The state type.
        type_name: String,
        /// Why.
        reason: String,
    },
    /// A state's parameters do not fit its type's declaration
    /// ([`MachineRegistry::state`]).
    StateParams {
        /// The state type.
        type_name: String,
        /// What is wrong, as for a tree node's parameters.
        problem: Box<Problem>,
    },
    /// A trigger no one registered.
    UnknownTrigger {
        /// The name in the file.
        trigger: String,
        /// The closest registered name.
        suggestion: Option<String>,
    },
    /// A trigger's factory refused its parameters.
    TriggerParams {
        /// The trigger.
        trigger: String,
        /// Why.
        reason: String,
    },
    /// A trigger's parameters do not fit its declaration
    /// ([`MachineRegistry::trigger_from`]).
    TriggerParamsRefused {
        /// The trigger.
        trigger: String,
        /// What is wrong, as for a tree node's parameters.
        problem: Box<Problem>,
    },
    /// A transition names a state the file does not declare.
    MissingState {
        /// The name in the file.
        name: String,
        /// The closest declared name.
        suggestion: Option<String>,
    },
    /// Two states have the same name.
    DuplicateState {
        /// The name.
        name: String,
        /// The path of its first declaration.
        first: String,
    },
    /// States nested deeper than the limit.
    TooDeep {
        /// [`MAX_DEPTH`].
        limit: usize,
    },
    /// More states than the limit.
    TooManyStates {
        /// [`MAX_STATES`].
        limit: usize,
    },
    /// A state has more transitions than the limit.
    TooManyTransitions {
        /// The state.
        state: String,
        /// [`MAX_TRANSITIONS_PER_STATE`].
        limit: usize,
    },
    /// A state's tree could not be loaded.
    Tree(LoadError),
    /// The machine's definition is wrong as a whole (checked by
    /// [`MachineBuilder::build`]).
    Build(FsmError),
}

impl fmt::Display for MachineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MachineProblem::Read(e) => write!(f, "{e}"),
            MachineProblem::Shape(what) => f.write_str(what),
            MachineProblem::UnknownStateType {
                type_name,
                suggestion,
            } => write!(
                f,
                "unknown state type {}{}",
                quote(type_name),
                did_you_mean(suggestion.as_deref())
            ),
            MachineProblem::Params { type_name, reason } => {
                write!(f, "state type {}: {reason}", quote(type_name))
            }
            MachineProblem::StateParams { type_name, problem } => {
                write!(f, "state type {}: {problem}", quote(type_name))
            }
            MachineProblem::UnknownTrigger {
                trigger,
                suggestion,
            } => write!(
                f,
                "unknown trigger {}{}",
                quote(trigger),
                did_you_mean(suggestion.as_deref())
            ),
            MachineProblem::TriggerParams { trigger, reason } => {
                write!(f, "trigger {}: {reason}", quote(trigger))
            }
            MachineProblem::TriggerParamsRefused { trigger, problem } => {
                write!(f, "trigger {}: {problem}", quote(trigger))
            }
            MachineProblem::MissingState { name, suggestion } => write!(
                f,
                "no state named {}{}",
                quote(name),
                did_you_mean(suggestion.as_deref())
            ),
            MachineProblem::DuplicateState { name, first } => write!(
                f,
                "state {} is declared twice (first at {first})",
                quote(name)
            ),
            MachineProblem::TooDeep { limit } => {
                write!(f, "states nest deeper than {limit} levels")
            }
            MachineProblem::TooManyStates { limit } => {
                write!(f, "more than {limit} states")
            }
            MachineProblem::TooManyTransitions { state, limit } => write!(
                f,
                "state {} has more than {limit} transitions",
                quote(state)
            ),
            MachineProblem::Tree(e) => write!(f, "its tree: {e}"),
            MachineProblem::Build(e) => write!(f, "{e}"),
        }
    }
}
