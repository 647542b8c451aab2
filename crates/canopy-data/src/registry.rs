//! The registry: node type names mapped to factories that check their
//! parameters and build the shared node. Registration is an explicit call
//! that can fail (no static initialisers), so a registry's contents are
//! whatever the program put in it, in the order it chose.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use canopy_core::{
    Arity, Ctx, CustomNode, Node, NodeKind, Params, Status, Ticket, context::ConditionFn, nodes,
    params::NodeParams, params::Param, params::ParamError,
};

use canopy_core::nodes::ScoreFn;

use crate::check::{Place, check};
use crate::format::MAX_NESTING;
use crate::resolve::Resolve;

/// A factory: checked parameters in, a `T` or the problem out.
pub(crate) type Factory<T> = Box<dyn Fn(&Params) -> Result<T, ParamError> + Send + Sync>;

/// A factory that is also told how many children the node has.
pub(crate) type SizedFactory<T> =
    Box<dyn Fn(&Params, usize) -> Result<T, ParamError> + Send + Sync>;

/// How a node type turns checked parameters into a node.
pub(crate) enum Build<A, W> {
    /// Most node types: parameters to a node kind.
    Kind(Factory<NodeKind<A, W>>),
    /// Parameters and the number of children to a node kind.
    Sized(SizedFactory<NodeKind<A, W>>),
    /// Condition leaves, which guards can also use as their condition.
    Condition(Factory<ConditionFn<A, W>>),
    /// Types the loader resolves (scripts, guards' conditions, subtrees,
    /// scorers): each in its own file ([`crate::resolve`]).
    Resolved(Box<dyn Resolve<A, W>>),
}

/// Whether any input port of `p` reads a string key as another type
/// ([`Input::Converted`](canopy_core::Input::Converted)): the node must
/// fail when that text does not convert.
fn converts(p: &Params) -> bool {
    p.values().iter().any(|(param, value)| {
        let canopy_core::params::ParamKind::Port { ty, output: false, .. } = &param.kind else {
            return false;
        };
        matches!(value, canopy_core::params::ParamValue::Slot(slot) if slot.ty.holds_text() && !ty.holds_text())
    })
}

/// A node of a game's own type whose ports read string keys as other
/// types: an update during which such a read failed fails.
struct Converting<N>(N);

impl<A, W, N: Node<A, W>> Node<A, W> for Converting<N> {
    type Task = N::Task;

    fn type_name(&self) -> &str {
        self.0.type_name()
    }

    fn arity(&self) -> Arity {
        self.0.arity()
    }

    fn params(&self) -> Vec<(String, String)> {
        self.0.params()
    }

    fn create_task(&self, cx: &mut Ctx<A, W>) -> N::Task {
        self.0.create_task(cx)
    }

    fn update(
        &self,
        task: &mut N::Task,
        cx: &mut Ctx<A, W>,
        children: &mut canopy_core::Children<A, W>,
    ) -> Status {
        let before = cx.board.conversion_faults();
        let status = self.0.update(task, cx, children);
        match cx.board.conversion_faults() == before {
            true => status,
            false => Status::Failure,
        }
    }

    fn terminate(&self, task: &mut N::Task, cx: &mut Ctx<A, W>, exit: canopy_core::Exit) {
        self.0.terminate(task, cx, exit);
    }

    fn task_is_valid(&self, task: &N::Task) -> bool {
        self.0.task_is_valid(task)
    }

    fn describe(&self, task: &N::Task) -> Option<String> {
        self.0.describe(task)
    }
}

/// A registered node type: its name, what it does, how many children it
/// takes, its parameters, and its factory.
pub struct NodeType<A, W> {
    name: String,
    description: String,
    arity: Arity,
    params: Vec<Param>,
    /// Its leaves suspend on a ticket ([`Registry::async_action`]).
    is_async: bool,
    pub(crate) build: Build<A, W>,
}

impl<A, W> fmt::Debug for NodeType<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeType")
            .field("name", &self.name)
            .field("arity", &self.arity)
            .field("params", &self.params)
            .field("is_async", &self.is_async)
            .finish_non_exhaustive()
    }
}

impl<A, W> NodeType<A, W> {
    /// A node type whose factory builds any [`NodeKind`] — a custom node
    /// (`NodeKind::Custom`), a decorator, a leaf.
    ///
    /// ```
    /// use canopy_core::{Arity, NodeKind};
    /// use canopy_data::{NodeType, Param, Registry};
    ///
    /// let mut registry = Registry::<(), ()>::new();
    /// registry.register(NodeType::new(
    ///     "Twice", "runs its child to success two times", Arity::Decorator, vec![],
    ///     |_params| Ok(NodeKind::from(canopy_core::nodes::Repeat { times: 2 })),
    /// )).unwrap();
    /// assert_eq!(registry.get("Twice").unwrap().arity(), Arity::Decorator);
    /// ```
    pub fn new<F>(
        name: &str,
        description: &str,
        arity: Arity,
        params: Vec<Param>,
        factory: F,
    ) -> Self
    where
        F: Fn(&Params) -> Result<NodeKind<A, W>, ParamError> + Send + Sync + 'static,
    {
        Self::with_build(
            name,
            description,
            arity,
            params,
            Build::Kind(Box::new(factory)),
        )
    }

    /// [`NodeType::new`] for a type whose parameters mean something
    /// relative to its number of children (a parallel that needs "all but
    /// one" to succeed): the factory is also told how many the node has.
    ///
    /// ```
    /// use canopy_core::{Arity, NodeKind, nodes::Sequence, params::ParamError};
    /// use canopy_data::{Format, NodeType, Registry, TreeSource};
    ///
    /// let mut registry = Registry::<(), ()>::new();
    /// registry.register(NodeType::sized(
    ///     "Pair", "a sequence of exactly two children", Arity::Composite, vec![],
    ///     |_params, children| match children {
    ///         2 => Ok(NodeKind::from(Sequence)),
    ///         n => Err(ParamError::invalid(format!("takes two children, got {n}"))),
    ///     },
    /// )).unwrap();
    /// let pair = |children: &str| format!(r#"{{"tree": {{"type": "Pair", "children": [{children}]}}}}"#);
    /// let one = r#"{"type": "AlwaysSuccess"}"#;
    /// assert_eq!(registry.loading(TreeSource::text(&pair(&[one, one].join(",")), Format::Json, "two.json")).load()
    ///     .unwrap().len(), 3);
    /// assert_eq!(registry.loading(TreeSource::text(&pair(one), Format::Json, "one.json")).load().unwrap_err().to_string(),
    ///     "one.json:1:12: tree (name \"Pair\"): takes two children, got 1");
    /// ```
    pub fn sized<F>(
        name: &str,
        description: &str,
        arity: Arity,
        params: Vec<Param>,
        factory: F,
    ) -> Self
    where
        F: Fn(&Params, usize) -> Result<NodeKind<A, W>, ParamError> + Send + Sync + 'static,
    {
        Self::with_build(
            name,
            description,
            arity,
            params,
            Build::Sized(Box::new(factory)),
        )
    }

    /// A type the loader resolves ([`crate::resolve`]).
    pub(crate) fn resolved(
        name: &str,
        description: &str,
        arity: Arity,
        params: Vec<Param>,
        resolve: impl Resolve<A, W> + 'static,
    ) -> Self {
        Self::with_build(
            name,
            description,
            arity,
            params,
            Build::Resolved(Box::new(resolve)),
        )
    }

    pub(crate) fn with_build(
        name: &str,
        description: &str,
        arity: Arity,
        params: Vec<Param>,
        build: Build<A, W>,
    ) -> Self {
        NodeType {
            name: name.to_string(),
            description: description.to_string(),
            arity,
            params,
            is_async: false,
            build,
        }
    }

    /// The type name used in files.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// assert_eq!(registry.get("Wait").unwrap().name(), "Wait");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same type under another name: to keep a type within reach when
    /// its name is given to another (a node model's own `Wait`, beside
    /// canopy's).
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let mut registry = Registry::<(), ()>::new();
    /// let wait = registry.remove("Wait").unwrap().renamed("canopy_Wait");
    /// registry.register(wait).unwrap();
    /// assert_eq!(registry.get("canopy_Wait").unwrap().params()[0].name, "ticks");
    /// ```
    pub fn renamed(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// One line saying what the node does: the doc comment of a
    /// [`NodeParams`] struct, or the text given to [`NodeType::new`].
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// assert_eq!(registry.get("Inverter").unwrap().description(), "Swaps Success and Failure.");
    /// ```
    pub fn description(&self) -> &str {
        &self.description
    }

    /// How many children it takes.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// # use canopy_core::Arity;
    /// let registry = Registry::<(), ()>::new();
    /// assert_eq!(registry.get("Sequence").unwrap().arity(), Arity::Composite);
    /// ```
    pub fn arity(&self) -> Arity {
        self.arity
    }

    /// Its parameters, in declaration order.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// let params = registry.get("Parallel").unwrap().params();
    /// assert_eq!(params[0].name, "success");
    /// assert_eq!(params[0].describe(), "one of \"one\", \"all\", default \"all\"");
    /// ```
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Whether its leaves are async: they suspend until a ticket is
    /// completed ([`Registry::async_action`]); `canopy nodes` marks them.
    pub fn is_async(&self) -> bool {
        self.is_async
    }

    /// Whether it can serve as a guard's condition.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// assert!(registry.get("Chance").unwrap().is_condition());
    /// assert!(!registry.get("Wait").unwrap().is_condition());
    /// ```
    pub fn is_condition(&self) -> bool {
        matches!(self.build, Build::Condition(_))
    }
}

/// Check a parameter's default as a file's value would be checked, so
/// that a wrong default is a registration error, not a load error in
/// every file that leaves the parameter out.
fn check_default(node_type: &str, param: &Param) -> Result<(), RegistryError> {
    let refused = |problem: String| RegistryError::BadDefault {
        node_type: node_type.to_string(),
        param: param.name.clone(),
        problem,
    };
    let Some(default) = &param.default else {
        return Ok(());
    };
    if default.is_null() {
        return Ok(());
    }
    let value = crate::document::from_literal(default, MAX_NESTING)
        .ok_or_else(|| refused("nested too deeply".to_string()))?;
    check(&param.kind, &value, &Place::Param(&param.name))
        .map(drop)
        .map_err(|e| refused(e.to_string()))
}

/// Why a registration was refused.
///
/// ```
/// use canopy_data::{Param, Params, Registry, RegistryError};
/// use canopy_core::Status;
///
/// let mut registry = Registry::<(), ()>::new();
/// let e = registry.action("Wait", |_: ()| |_| Status::Success).unwrap_err();
/// assert_eq!(e, RegistryError::Duplicate("Wait".into()));
/// assert_eq!(e.to_string(), "node type \"Wait\" is already registered");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// A type with this name exists already.
    Duplicate(String),
    /// The name is empty or contains characters other than letters, digits and `_`.
    BadName(String),
    /// Two parameters share a name, or a parameter uses a reserved field
    /// name (`type`, `name`, `children`).
    BadParam {
        /// The type being registered.
        node_type: String,
        /// The offending parameter.
        param: String,
    },
    /// A parameter's default is not a value of its kind.
    BadDefault {
        /// The type being registered.
        node_type: String,
        /// The parameter.
        param: String,
        /// Why the default is refused, as a file's value would be.
        problem: String,
    },
    /// A scorer with this name exists already ([`Registry::scorer`]).
    DuplicateScorer(String),
    /// A scorer's name is empty or holds characters other than letters,
    /// digits and `_`.
    BadScorerName(String),
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Duplicate(name) => {
                write!(f, "node type \"{name}\" is already registered")
            }
            RegistryError::BadName(name) => write!(
                f,
                "node type name {name:?} must be non-empty letters, digits and underscores"
            ),
            RegistryError::BadParam { node_type, param } => write!(
                f,
                "node type \"{node_type}\": parameter \"{param}\" is declared twice or uses a reserved name (type, name, children)"
            ),
            RegistryError::BadDefault {
                node_type,
                param,
                problem,
            } => write!(
                f,
                "node type \"{node_type}\": the default of parameter \"{param}\" is refused: {problem}"
            ),
            RegistryError::DuplicateScorer(name) => {
                write!(f, "scorer \"{name}\" is already registered")
            }
            RegistryError::BadScorerName(name) => write!(
                f,
                "scorer name {name:?} must be non-empty letters, digits and underscores"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// Node types by name, for building trees from files.
///
/// [`Registry::new`] holds every built-in type (`canopy nodes` lists them);
/// add your own in one call each, with parameters declared once by
/// `#[derive(Params)]`: [`Registry::action`] and [`Registry::condition`] for
/// leaves from closures, [`Registry::node`] for a [`Node`](canopy_core::Node)
/// type (stateful leaves, decorators, composites). The older forms taking a
/// parameter list by hand ([`Registry::register_action`],
/// [`Registry::register_condition`], [`Registry::register`]) stay for
/// parameter sets known only at run time.
///
/// ```
/// use canopy_core::{Agent, Status};
/// use canopy_data::{Format, Param, Registry, TreeSource};
///
/// struct Miner { gold: u32 }
///
/// let mut registry = Registry::<Miner, ()>::new();
/// registry.register_action("Dig", "digs up some gold", vec![Param::count("amount", "gold per dig")],
///     |p| {
///         let amount = p.u32("amount")?;
///         Ok(move |cx: &mut canopy_core::Ctx<Miner, ()>| { cx.agent.gold += amount; Status::Success })
///     }).unwrap();
/// registry.register_condition("Rich", "has at least 10 gold", vec![],
///     |_| Ok(|cx: &canopy_core::Ctx<Miner, ()>| cx.agent.gold >= 10)).unwrap();
///
/// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Selector", "children": [
///     {"type": "Rich"},
///     {"type": "Dig", "amount": 4}
/// ]}}"#, Format::Json, "miner.json")).load().unwrap();
///
/// let mut miner = Miner { gold: 0 };
/// let mut agent = Agent::new(&tree);
/// for _ in 0..3 { agent.tick(&tree, &mut miner, &()); }
/// assert_eq!(miner.gold, 12);
/// ```
pub struct Registry<A, W> {
    types: BTreeMap<String, NodeType<A, W>>,
    /// The inputs a Utility's considerations name ([`Registry::scorer`]).
    pub(crate) scorers: BTreeMap<String, ScoreFn<A, W>>,
    seed: u64,
}

impl<A, W> fmt::Debug for Registry<A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("types", &self.types.keys().collect::<Vec<_>>())
            .field("scorers", &self.scorers.keys().collect::<Vec<_>>())
            .field("seed", &self.seed)
            .finish()
    }
}

impl<A: 'static, W: 'static> Default for Registry<A, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: 'static, W: 'static> Registry<A, W> {
    /// A registry with no node types at all.
    ///
    /// ```
    /// # use canopy_data::{Format, Registry, TreeSource};
    /// let registry = Registry::<(), ()>::empty();
    /// assert!(registry.loading(TreeSource::text(r#"{"tree": {"type": "Wait", "ticks": 1}}"#, Format::Json, "w")).load()
    ///     .is_err());
    /// ```
    pub fn empty() -> Self {
        Registry {
            types: BTreeMap::new(),
            scorers: BTreeMap::new(),
            seed: 0,
        }
    }

    /// Use `seed` for node types with deterministic randomness (`Random`):
    /// the same file, seed and agent ids give the same outcomes.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// assert_eq!(Registry::<(), ()>::new().with_seed(7).seed(), 7);
    /// ```
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The seed given to factories ([`Params::seed`]).
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// assert_eq!(Registry::<(), ()>::new().seed(), 0);
    /// ```
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Add a node type. Names are unique: registering one twice is an
    /// error; so are a parameter declared twice or named `type`, `name`
    /// or `children`, and a default that is not a value of its parameter's
    /// kind.
    ///
    /// ```
    /// use canopy_core::{Arity, NodeKind};
    /// use canopy_data::{NodeType, Param, Registry, RegistryError};
    ///
    /// let mut registry = Registry::<(), ()>::new();
    /// let twice = |default: i64| NodeType::new("Twice", "repeats its child twice", Arity::Decorator,
    ///     vec![Param::count("times", "repetitions").default(default)],
    ///     |p| Ok(NodeKind::from(canopy_core::nodes::Repeat { times: p.u32("times")? })));
    /// assert_eq!(registry.register(twice(0)).unwrap_err().to_string(),
    ///     "node type \"Twice\": the default of parameter \"times\" is refused: \
    ///      parameter \"times\" must be at least 1, got 0");
    /// registry.register(twice(2)).unwrap();
    /// assert!(matches!(registry.register(twice(2)), Err(RegistryError::Duplicate(_))));
    /// ```
    pub fn register(&mut self, node_type: NodeType<A, W>) -> Result<(), RegistryError> {
        let name = &node_type.name;
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(RegistryError::BadName(name.clone()));
        }
        if self.types.contains_key(name) {
            return Err(RegistryError::Duplicate(name.clone()));
        }
        // Hashed: a node model's stand-in may declare a hundred thousand.
        let mut seen = std::collections::HashSet::with_capacity(node_type.params.len());
        for p in &node_type.params {
            if !seen.insert(p.name.as_str())
                || ["type", "name", "children"].contains(&p.name.as_str())
            {
                return Err(RegistryError::BadParam {
                    node_type: name.clone(),
                    param: p.name.clone(),
                });
            }
            check_default(name, p)?;
        }
        self.types.insert(name.clone(), node_type);
        Ok(())
    }

    /// Take the type registered as `name` out of the registry: to register
    /// another under its name (a node model's own `Wait`, say, in place of
    /// canopy's built-in one).
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let mut registry = Registry::<(), ()>::new();
    /// assert_eq!(registry.remove("Wait").map(|t| t.name().to_string()), Some("Wait".to_string()));
    /// assert!(registry.get("Wait").is_none() && registry.remove("Wait").is_none());
    /// ```
    pub fn remove(&mut self, name: &str) -> Option<NodeType<A, W>> {
        self.types.remove(name)
    }

    /// Add an action leaf type: `factory` receives the checked parameters
    /// and returns the leaf's code, which runs on every update. (With a
    /// parameters struct, [`Registry::action`] reads them for you.)
    ///
    /// ```
    /// use canopy_core::{Agent, Ctx, Status};
    /// use canopy_data::{Format, Param, Registry, TreeSource};
    ///
    /// let mut registry = Registry::<u32, ()>::new();
    /// registry.register_action("Add", "adds `n`", vec![Param::count("n", "how much")], |p| {
    ///     let n = p.u32("n")?;
    ///     Ok(move |cx: &mut Ctx<u32, ()>| { *cx.agent += n; Status::Success })
    /// }).unwrap();
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Add", "n": 5}}"#, Format::Json, "a")).load()
    ///     .unwrap();
    /// let mut total = 0;
    /// Agent::new(&tree).tick(&tree, &mut total, &());
    /// assert_eq!(total, 5);
    /// ```
    pub fn register_action<F, G>(
        &mut self,
        name: &str,
        description: &str,
        params: Vec<Param>,
        factory: F,
    ) -> Result<(), RegistryError>
    where
        F: Fn(&Params) -> Result<G, ParamError> + Send + Sync + 'static,
        G: Fn(&mut Ctx<A, W>) -> Status + Send + Sync + 'static,
    {
        let build = move |p: &Params| Ok(nodes::Action(Arc::new(factory(p)?)).into());
        self.register(NodeType::new(name, description, Arity::Leaf, params, build))
    }

    /// Add a condition leaf type. Its code returns `true` for Success; a
    /// condition type can also be a Guard's `condition`. (With a
    /// parameters struct: [`Registry::condition`].)
    ///
    /// ```
    /// use canopy_core::{Agent, Ctx, Status};
    /// use canopy_data::{Format, Param, Registry, TreeSource};
    ///
    /// let mut registry = Registry::<u32, ()>::new();
    /// registry.register_condition("Over", "true above `n`", vec![Param::int("n", "")], |p| {
    ///     let n = p.int("n")?;
    ///     Ok(move |cx: &Ctx<u32, ()>| i64::from(*cx.agent) > n)
    /// }).unwrap();
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Guard",
    ///     "condition": {"type": "Over", "n": 3}, "children": [{"type": "AlwaysSuccess"}]}}"#,
    ///     Format::Json, "o")).load().unwrap();
    /// assert_eq!(Agent::new(&tree).tick(&tree, &mut 4, &()), Status::Success);
    /// assert_eq!(Agent::new(&tree).tick(&tree, &mut 2, &()), Status::Failure);
    /// ```
    pub fn register_condition<F, G>(
        &mut self,
        name: &str,
        description: &str,
        params: Vec<Param>,
        factory: F,
    ) -> Result<(), RegistryError>
    where
        F: Fn(&Params) -> Result<G, ParamError> + Send + Sync + 'static,
        G: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        let build = move |p: &Params| -> Result<ConditionFn<A, W>, ParamError> {
            Ok(Arc::new(factory(p)?))
        };
        let node_type = NodeType::with_build(
            name,
            description,
            Arity::Leaf,
            params,
            Build::Condition(Box::new(build)),
        );
        self.register(node_type)
    }

    /// Add an action leaf type whose parameters are the struct `P`
    /// ([`NodeParams`], usually `#[derive(Params)]`): `factory` receives
    /// the struct, read from a node's checked values, and returns the
    /// leaf's code, which runs on every update. The struct's doc comment
    /// is the type's description.
    ///
    /// ```
    /// use canopy_core::{Agent, Status};
    /// use canopy_data::{Format, Params, Registry, TreeSource};
    ///
    /// struct Miner { gold: u32 }
    ///
    /// /// Digs up some gold.
    /// #[derive(Params)]
    /// struct Dig {
    ///     /// Gold per dig.
    ///     #[param(default = 1, range = 1..=100)]
    ///     amount: u32,
    /// }
    ///
    /// let mut registry = Registry::<Miner, ()>::new();
    /// registry.action("Dig", |p: Dig| move |cx| {
    ///     cx.agent.gold += p.amount;
    ///     Status::Success
    /// }).unwrap();
    /// assert_eq!(registry.get("Dig").unwrap().description(), "Digs up some gold.");
    ///
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Dig", "amount": 4}}"#,
    ///     Format::Json, "dig.json")).load().unwrap();
    /// let mut miner = Miner { gold: 0 };
    /// Agent::new(&tree).tick(&tree, &mut miner, &());
    /// assert_eq!(miner.gold, 4);
    /// ```
    pub fn action<P, F, G>(&mut self, name: &str, factory: F) -> Result<(), RegistryError>
    where
        P: NodeParams,
        F: Fn(P) -> G + Send + Sync + 'static,
        G: Fn(&mut Ctx<A, W>) -> Status + Send + Sync + 'static,
    {
        let build = move |p: &Params| {
            let leaf = factory(P::from_params(p)?);
            if !converts(p) {
                return Ok(nodes::Action(Arc::new(leaf)).into());
            }
            // A string key read through a typed port that does not
            // convert fails the leaf, as BehaviorTree.CPP's throws.
            let checked = move |cx: &mut Ctx<A, W>| {
                let before = cx.board.conversion_faults();
                let status = leaf(cx);
                match cx.board.conversion_faults() == before {
                    true => status,
                    false => Status::Failure,
                }
            };
            Ok(nodes::Action(Arc::new(checked)).into())
        };
        let (description, params) = (P::description(), P::declare());
        self.register(NodeType::new(name, description, Arity::Leaf, params, build))
    }

    /// Add an async leaf type whose parameters are the struct `P`: when
    /// a leaf of this type is entered, the code `factory` returns runs
    /// once, with the [`Ticket`](canopy_core::Ticket) that completes it; it
    /// may finish at once or return `Running`, which suspends the leaf
    /// until the ticket is completed from outside the tick
    /// ([`Agent::complete`](canopy_core::Agent::complete)) — work handed to
    /// a job system, a path query, a network request. Each agent with such
    /// a tree holds a table of the waits its async leaves can have at once
    /// ([`Tree`](canopy_core::Tree) sizes it), beside its task memory.
    ///
    /// ```
    /// use canopy_core::{Agent, Status, Ticket};
    /// use canopy_data::{Format, Params, Registry, TreeSource};
    ///
    /// #[derive(Default)]
    /// struct Traveller { asked: Vec<([f32; 2], Ticket)> }
    ///
    /// /// Asks the path service for a path to `goal`.
    /// #[derive(Params)]
    /// struct FindPath {
    ///     /// Where to.
    ///     goal: [f32; 2],
    /// }
    ///
    /// let mut registry = Registry::<Traveller, ()>::new();
    /// registry.async_action("FindPath", |p: FindPath| move |cx, ticket| {
    ///     cx.agent.asked.push((p.goal, ticket)); // to the service's queue
    ///     Status::Running
    /// }).unwrap();
    /// assert!(registry.get("FindPath").unwrap().is_async());
    ///
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "FindPath", "goal": [3, 4]}}"#,
    ///     Format::Json, "path.json")).load().unwrap();
    /// let (mut me, mut agent) = (Traveller::default(), Agent::new(&tree));
    /// assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running);
    /// let (goal, ticket) = me.asked.pop().unwrap();
    /// assert_eq!(goal, [3.0, 4.0]);
    /// assert!(agent.complete(ticket, Status::Success).is_completed()); // the service answered
    /// assert_eq!(agent.tick(&tree, &mut me, &()), Status::Success);
    /// ```
    pub fn async_action<P, F, G>(&mut self, name: &str, factory: F) -> Result<(), RegistryError>
    where
        P: NodeParams,
        F: Fn(P) -> G + Send + Sync + 'static,
        G: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
    {
        self.add_async(name, move |p: P| {
            (factory(p), None::<fn(&mut Ctx<A, W>, Ticket)>)
        })
    }

    /// [`async_action`](Registry::async_action) for a leaf that hears its
    /// abort: `factory` returns the start code and the code run whenever
    /// the leaf is aborted while it waits — a higher-priority branch took
    /// over, a timeout fired, the agent was reset, a reload removed it —
    /// with the ticket the start code was given
    /// ([`AbortFn`](canopy_core::context::AbortFn)), so the service can drop the
    /// request. BehaviorTree.CPP's `StatefulActionNode::onHalted`.
    ///
    /// ```
    /// use canopy_core::{Agent, Status, Ticket};
    /// use canopy_data::{Format, Params, Registry, TreeSource};
    ///
    /// #[derive(Default)]
    /// struct Traveller { asked: Vec<Ticket>, cancelled: Vec<Ticket> }
    ///
    /// /// Asks the path service for a path to `goal`.
    /// #[derive(Params)]
    /// struct FindPath {
    ///     /// Where to.
    ///     goal: [f32; 2],
    /// }
    ///
    /// let mut registry = Registry::<Traveller, ()>::new();
    /// registry.async_action_with_abort("FindPath", |_: FindPath| (
    ///     |cx: &mut canopy_core::Ctx<Traveller, ()>, ticket| {
    ///         cx.agent.asked.push(ticket);
    ///         Status::Running
    ///     },
    ///     |cx: &mut canopy_core::Ctx<Traveller, ()>, ticket| cx.agent.cancelled.push(ticket),
    /// )).unwrap();
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Timeout", "ticks": 3, "children": [{"type": "FindPath", "goal": [3, 4]}]}}"#,
    ///     Format::Json, "path.json")).load().unwrap();
    /// let (mut me, mut agent) = (Traveller::default(), Agent::new(&tree));
    /// for _ in 0..4 {
    ///     agent.tick(&tree, &mut me, &());
    /// }
    /// assert_eq!(me.cancelled, me.asked); // the timeout aborted the request
    /// ```
    pub fn async_action_with_abort<P, F, G, H>(
        &mut self,
        name: &str,
        factory: F,
    ) -> Result<(), RegistryError>
    where
        P: NodeParams,
        F: Fn(P) -> (G, H) + Send + Sync + 'static,
        G: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
        H: Fn(&mut Ctx<A, W>, Ticket) + Send + Sync + 'static,
    {
        self.add_async(name, move |p: P| {
            let (start, aborted) = factory(p);
            (start, Some(aborted))
        })
    }

    /// Register an async leaf type from its start code and abort code.
    fn add_async<P, F, G, H>(&mut self, name: &str, factory: F) -> Result<(), RegistryError>
    where
        P: NodeParams,
        F: Fn(P) -> (G, Option<H>) + Send + Sync + 'static,
        G: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
        H: Fn(&mut Ctx<A, W>, Ticket) + Send + Sync + 'static,
    {
        let build = move |p: &Params| {
            let (start, aborted) = factory(P::from_params(p)?);
            let leaf = if !converts(p) {
                nodes::Async::new(start)
            } else {
                nodes::Async::new(move |cx: &mut Ctx<A, W>, ticket: Ticket| {
                    let before = cx.board.conversion_faults();
                    let status = start(cx, ticket);
                    match cx.board.conversion_faults() == before {
                        true => status,
                        false => Status::Failure,
                    }
                })
            };
            Ok(match aborted {
                Some(aborted) => leaf.on_abort(aborted),
                None => leaf,
            }
            .into())
        };
        let (description, params) = (P::description(), P::declare());
        let mut node_type = NodeType::new(name, description, Arity::Leaf, params, build);
        node_type.is_async = true;
        self.register(node_type)
    }

    /// Add a condition leaf type whose parameters are the struct `P`:
    /// `factory` receives the struct and returns the condition's code
    /// (`true` for Success). A condition type can also be a Guard's
    /// `condition`.
    ///
    /// ```
    /// use canopy_core::{Agent, Status};
    /// use canopy_data::{Format, Params, Registry, TreeSource};
    ///
    /// struct Guard { pos: [f32; 2] }
    /// struct World { enemy: [f32; 2] }
    ///
    /// /// True while an enemy is within `radius`.
    /// #[derive(Params)]
    /// struct EnemySeen {
    ///     /// How far the guard sees.
    ///     #[param(default = 8.0, range = 0.0..=100.0)]
    ///     radius: f32,
    /// }
    ///
    /// let mut registry = Registry::<Guard, World>::new();
    /// registry.condition("EnemySeen", |p: EnemySeen| move |cx| {
    ///     let [dx, dy] = [cx.world.enemy[0] - cx.agent.pos[0], cx.world.enemy[1] - cx.agent.pos[1]];
    ///     dx * dx + dy * dy <= p.radius * p.radius
    /// }).unwrap();
    ///
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "EnemySeen", "radius": 5}}"#,
    ///     Format::Json, "seen.json")).load().unwrap();
    /// let world = World { enemy: [3.0, 4.0] };
    /// let (mut near, mut far) = (Guard { pos: [0.0, 0.0] }, Guard { pos: [-1.0, 0.0] });
    /// assert_eq!(Agent::new(&tree).tick(&tree, &mut near, &world), Status::Success);
    /// assert_eq!(Agent::new(&tree).tick(&tree, &mut far, &world), Status::Failure);
    /// ```
    pub fn condition<P, F, G>(&mut self, name: &str, factory: F) -> Result<(), RegistryError>
    where
        P: NodeParams,
        F: Fn(P) -> G + Send + Sync + 'static,
        G: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        let build = move |p: &Params| -> Result<ConditionFn<A, W>, ParamError> {
            let test = factory(P::from_params(p)?);
            if !converts(p) {
                return Ok(Arc::new(test));
            }
            Ok(Arc::new(move |cx: &Ctx<A, W>| {
                let before = cx.board.conversion_faults();
                test(cx) && cx.board.conversion_faults() == before
            }))
        };
        let (description, params) = (P::description(), P::declare());
        let node_type = NodeType::with_build(
            name,
            description,
            Arity::Leaf,
            params,
            Build::Condition(Box::new(build)),
        );
        self.register(node_type)
    }

    /// Add a scorer: an input the considerations of a `Utility` node name,
    /// read from the agent and the world as any number (a consideration's
    /// curve maps it into `[0, 1]`). Scorers have names of their own, apart
    /// from node types.
    ///
    /// ```
    /// use canopy_core::{Agent, Ctx};
    /// use canopy_data::{Format, Registry, TreeSource};
    ///
    /// struct Deer { hunger: f32, wolf_distance: f32 }
    ///
    /// let mut registry = Registry::<Deer, ()>::new();
    /// registry.scorer("hunger", |cx: &Ctx<Deer, ()>| cx.agent.hunger).unwrap();
    /// registry.scorer("wolf_distance", |cx: &Ctx<Deer, ()>| cx.agent.wolf_distance).unwrap();
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Utility",
    ///     "scores": ["hunger", "linear(wolf_distance, -0.1, 1)"],
    ///     "children": [{"type": "AlwaysSuccess", "name": "graze"},
    ///                  {"type": "AlwaysFailure", "name": "flee"}]}}"#,
    ///     Format::Json, "deer.json")).load().unwrap();
    /// let mut deer = Deer { hunger: 0.5, wolf_distance: 2.0 };
    /// // Flee scores 1 − 0.1 · 2 = 0.8 against graze's 0.5.
    /// assert_eq!(Agent::new(&tree).tick(&tree, &mut deer, &()), canopy_core::Status::Failure);
    /// ```
    pub fn scorer<F>(&mut self, name: &str, score: F) -> Result<(), RegistryError>
    where
        F: Fn(&Ctx<A, W>) -> f32 + Send + Sync + 'static,
    {
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(RegistryError::BadScorerName(name.to_string()));
        }
        if self.scorers.contains_key(name) {
            return Err(RegistryError::DuplicateScorer(name.to_string()));
        }
        self.scorers.insert(name.to_string(), Arc::new(score));
        Ok(())
    }

    /// Add a node type with per-agent state — a [`Node`] implementation —
    /// whose parameters are the struct `P`: `factory` receives the struct
    /// and returns the shared node. `arity` says how many children its
    /// nodes take (a leaf, a decorator, a composite); a node whose
    /// [`Node::arity`] says otherwise is refused when loaded.
    ///
    /// ```
    /// use canopy_core::{Agent, Arity, Children, Ctx, Node, Status};
    /// use canopy_data::{Format, Params, Registry, TreeSource};
    /// use canopy_derive::Task; // also `canopy::Task`
    ///
    /// /// Runs its child until it has succeeded `times` times, one run per tick.
    /// #[derive(Params)]
    /// struct TimesParams {
    ///     /// Successes needed.
    ///     #[param(range = 1..)]
    ///     times: u32,
    /// }
    ///
    /// struct Times { times: u32 }
    ///
    /// #[derive(Clone, Copy, Task)]
    /// #[repr(C)]
    /// struct Done { count: u32 }
    ///
    /// impl Node<u32, ()> for Times {
    ///     type Task = Done;
    ///     fn arity(&self) -> Arity { Arity::Decorator }
    ///     fn create_task(&self, _: &mut Ctx<u32, ()>) -> Done { Done { count: 0 } }
    ///     fn update(&self, done: &mut Done, cx: &mut Ctx<u32, ()>,
    ///               children: &mut Children<u32, ()>) -> Status {
    ///         match children.update(0, cx) {
    ///             Status::Success => done.count += 1,
    ///             Status::Failure => return Status::Failure,
    ///             Status::Running => {}
    ///         }
    ///         if done.count == self.times { Status::Success } else { Status::Running }
    ///     }
    /// }
    ///
    /// let mut registry = Registry::<u32, ()>::new();
    /// registry.node("Times", Arity::Decorator, |p: TimesParams| Times { times: p.times }).unwrap();
    /// let tree = registry.loading(TreeSource::text(r#"{"tree": {"type": "Times", "times": 3, "children": [{"type": "AlwaysSuccess"}]}}"#,
    ///     Format::Json, "times.json")).load().unwrap();
    /// let mut agent = Agent::new(&tree);
    /// let statuses: Vec<Status> = (0..3).map(|_| agent.tick(&tree, &mut 0, &())).collect();
    /// assert_eq!(statuses, [Status::Running, Status::Running, Status::Success]);
    /// ```
    pub fn node<P, N, F>(
        &mut self,
        name: &str,
        arity: Arity,
        factory: F,
    ) -> Result<(), RegistryError>
    where
        P: NodeParams,
        N: Node<A, W>,
        F: Fn(P) -> N + Send + Sync + 'static,
    {
        let build = move |p: &Params| {
            let node = factory(P::from_params(p)?);
            if node.arity() != arity {
                return Err(ParamError::invalid(format!(
                    "the node type is registered as taking {}, but its node's `arity()` says {}",
                    arity.describe(),
                    node.arity().describe()
                )));
            }
            if converts(p) {
                return Ok(CustomNode::new(Converting(node)).into());
            }
            Ok(CustomNode::new(node).into())
        };
        let (description, params) = (P::description(), P::declare());
        self.register(NodeType::new(name, description, arity, params, build))
    }

    /// The type registered under `name`.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// assert!(registry.get("Wait").is_some());
    /// assert!(registry.get("Wiat").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&NodeType<A, W>> {
        self.types.get(name)
    }

    /// Every registered type, by name.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// let conditions: Vec<&str> = registry.types().filter(|t| t.is_condition())
    ///     .map(|t| t.name()).collect();
    /// assert_eq!(conditions, ["Chance", "Periodic"]);
    /// ```
    pub fn types(&self) -> impl Iterator<Item = &NodeType<A, W>> {
        self.types.values()
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.types.keys().map(String::as_str)
    }
}
