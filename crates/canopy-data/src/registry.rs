//! The registry: node type names mapped to factories that check their
//! parameters and build the shared node. Registration is an explicit call
//! that can fail (no static initialisers), so a registry's contents are
//! whatever the program put in it, in the order it chose.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use canopy_core::{Arity, ConditionFn, Ctx, NodeKind, Status};

use crate::error::ParamError;
use crate::param::{Param, Params};

/// A factory: checked parameters in, a `T` or the problem out.
pub(crate) type Factory<T> = Box<dyn Fn(&Params) -> Result<T, ParamError> + Send + Sync>;

/// How a node type turns checked parameters into a node.
pub(crate) enum Build<A, W> {
    /// Most node types: parameters to a node kind.
    Kind(Factory<NodeKind<A, W>>),
    /// Condition leaves, which guards can also use as their condition.
    Condition(Factory<ConditionFn<A, W>>),
    /// Guard and ReactiveGuard: the loader resolves their condition.
    Guard { reactive: bool },
    /// SubTree: the loader resolves the referenced subtree.
    SubTree,
}

/// A registered node type: its name, what it does, how many children it
/// takes, its parameters, and its factory.
pub struct NodeType<A, W> {
    name: String,
    description: String,
    arity: Arity,
    params: Vec<Param>,
    pub(crate) build: Build<A, W>,
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
    ///     |_params| Ok(NodeKind::Repeat(2)),
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
            build,
        }
    }

    /// The type name used in files.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One line saying what the node does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// How many children it takes.
    pub fn arity(&self) -> Arity {
        self.arity
    }

    /// Its parameters, in declaration order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Whether it can serve as a guard's condition.
    pub fn is_condition(&self) -> bool {
        matches!(self.build, Build::Condition(_))
    }
}

/// Why a registration was refused.
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
        }
    }
}

impl std::error::Error for RegistryError {}

/// Node types by name, for building trees from files.
///
/// [`Registry::new`] holds every built-in type (`canopy nodes` lists them);
/// add your own leaves and decorators with [`Registry::register_action`],
/// [`Registry::register_condition`] and [`Registry::register`].
///
/// ```
/// use canopy_core::{Agent, Status};
/// use canopy_data::{Format, Param, Registry};
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
/// let tree = registry.load_str(r#"{"tree": {"type": "Selector", "children": [
///     {"type": "Rich"},
///     {"type": "Dig", "amount": 4}
/// ]}}"#, Format::Json, "miner.json").unwrap();
///
/// let mut miner = Miner { gold: 0 };
/// let mut agent = Agent::new(&tree);
/// for _ in 0..3 { agent.tick(&tree, &mut miner, &()); }
/// assert_eq!(miner.gold, 12);
/// ```
pub struct Registry<A, W> {
    types: BTreeMap<String, NodeType<A, W>>,
    seed: u64,
}

impl<A: 'static, W: 'static> Default for Registry<A, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: 'static, W: 'static> Registry<A, W> {
    /// A registry holding every built-in node type, with seed 0.
    pub fn new() -> Self {
        let mut registry = Self::empty();
        crate::builtins::register(&mut registry);
        registry
    }

    /// A registry with no node types at all.
    pub fn empty() -> Self {
        Registry {
            types: BTreeMap::new(),
            seed: 0,
        }
    }

    /// Use `seed` for node types with deterministic randomness (`Random`):
    /// the same file, seed and agent ids give the same outcomes.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The seed given to factories.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Add a node type. Names are unique: registering one twice is an error.
    pub fn register(&mut self, node_type: NodeType<A, W>) -> Result<(), RegistryError> {
        let name = &node_type.name;
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(RegistryError::BadName(name.clone()));
        }
        if self.types.contains_key(name) {
            return Err(RegistryError::Duplicate(name.clone()));
        }
        let mut seen = Vec::new();
        for p in &node_type.params {
            if seen.contains(&&p.name) || ["type", "name", "children"].contains(&p.name.as_str()) {
                return Err(RegistryError::BadParam {
                    node_type: name.clone(),
                    param: p.name.clone(),
                });
            }
            seen.push(&p.name);
        }
        self.types.insert(name.clone(), node_type);
        Ok(())
    }

    /// Add an action leaf type: `factory` receives the checked parameters
    /// and returns the leaf's code, which runs on every update.
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
        let build = move |p: &Params| Ok(NodeKind::Action(Arc::new(factory(p)?)));
        self.register(NodeType::new(name, description, Arity::Leaf, params, build))
    }

    /// Add a condition leaf type. Its code returns `true` for Success; a
    /// condition type can also be a Guard's `condition`.
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

    /// The type registered under `name`.
    pub fn get(&self, name: &str) -> Option<&NodeType<A, W>> {
        self.types.get(name)
    }

    /// Every registered type, by name.
    pub fn types(&self) -> impl Iterator<Item = &NodeType<A, W>> {
        self.types.values()
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.types.keys().map(String::as_str)
    }
}
