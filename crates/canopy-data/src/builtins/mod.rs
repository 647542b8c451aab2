//! The node types every [`Registry::new`](crate::Registry::new) holds:
//! every engine kind a file can name ([`canopy_core::nodes::builtins`]),
//! the guards and `SubTree`, which the loader resolves, and leaves for
//! prototypes and tests whose outcomes come from the file — each of those
//! in a file of its own, registered here in one line.

mod eval;
mod eval_around;
mod eval_loop;
mod eval_retry;
mod eval_switch;
mod guard;
mod periodic;
mod random;
mod script;
mod subtree;
mod utility;

pub use subtree::SUBTREE_TYPE;

use canopy_core::{Arity, nodes};

use crate::registry::{NodeType, Registry};

/// The script node types every registry holds, by type rather than by
/// name: loaders built on the registry (the BehaviorTree.CPP XML reader)
/// make and recognise these kinds through it, so that renaming one is a
/// compile error there rather than a failure at run time. Their
/// parameters are declared by derived structs private to this crate; a
/// public handle per kind was preferred to making those public, which
/// would widen the surface by their every field.
///
/// ```
/// use canopy_data::{EvalKind, Registry};
/// assert_eq!(EvalKind::Around.name(), "EvalAround");
/// assert_eq!(EvalKind::from_name("EvalSwitch"), Some(EvalKind::Switch));
/// let registry = Registry::<(), ()>::new();
/// assert!(EvalKind::ALL.iter().all(|k| registry.get(k.name()).is_some()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EvalKind {
    /// `Eval`: runs a script (or writes a value to a key).
    Eval,
    /// `EvalCondition`: tests a script.
    Condition,
    /// `EvalGuard`: a Guard whose condition is a script.
    Guard,
    /// `EvalReactiveGuard`: a ReactiveGuard whose condition is a script.
    ReactiveGuard,
    /// `EvalAround`: scripts before and after its child.
    Around,
    /// `EvalSwitch`: the child of the first true case.
    Switch,
    /// `EvalLoop`: its child once per item.
    Loop,
    /// `EvalRetry`: its child again while a script says so.
    Retry,
}

impl EvalKind {
    /// Every script node type, in the order they are registered.
    pub const ALL: [EvalKind; 8] = [
        EvalKind::Eval,
        EvalKind::Condition,
        EvalKind::Guard,
        EvalKind::ReactiveGuard,
        EvalKind::Around,
        EvalKind::Switch,
        EvalKind::Loop,
        EvalKind::Retry,
    ];

    /// The name the registry holds it under.
    pub const fn name(self) -> &'static str {
        match self {
            EvalKind::Eval => "Eval",
            EvalKind::Condition => "EvalCondition",
            EvalKind::Guard => "EvalGuard",
            EvalKind::ReactiveGuard => "EvalReactiveGuard",
            EvalKind::Around => "EvalAround",
            EvalKind::Switch => "EvalSwitch",
            EvalKind::Loop => "EvalLoop",
            EvalKind::Retry => "EvalRetry",
        }
    }

    /// The kind registered under `name`, if it is a script node type.
    pub fn from_name(name: &str) -> Option<EvalKind> {
        EvalKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Register every built-in type.
pub(crate) fn register<A: 'static, W: 'static>(r: &mut Registry<A, W>) {
    let mut add = |t: NodeType<A, W>| r.register(t).expect("built-in names are unique");
    for kind in nodes::builtins::<A, W>() {
        add(NodeType::new(
            kind.name,
            kind.about,
            kind.arity,
            (kind.params)(),
            kind.build,
        ));
    }
    add(guard::node_type(false));
    add(guard::node_type(true));
    add(subtree::node_type());
    add(utility::node_type());
    for script in eval::node_types() {
        add(script);
    }
    add(eval_around::node_type());
    add(eval_switch::node_type());
    add(eval_loop::node_type());
    add(eval_retry::node_type());
    r.node("Script", Arity::Leaf, script::Script::new)
        .expect("built-in names are unique");
    r.node("Random", Arity::Leaf, random::Random::into_draw)
        .expect("built-in names are unique");
    r.condition("Chance", random::chance)
        .expect("built-in names are unique");
    r.condition("Periodic", periodic::periodic)
        .expect("built-in names are unique");
}

impl<A: 'static, W: 'static> Registry<A, W> {
    /// A registry holding every built-in node type, with seed 0.
    ///
    /// ```
    /// # use canopy_data::Registry;
    /// let registry = Registry::<(), ()>::new();
    /// // The engine's kinds, Guard, ReactiveGuard, SubTree, Eval,
    /// // EvalCondition, EvalGuard, EvalReactiveGuard, EvalAround,
    /// // EvalSwitch, EvalLoop, EvalRetry, Script, Random, Chance, Periodic
    /// // and Utility.
    /// let kinds = canopy_core::nodes::builtins::<(), ()>().len();
    /// assert_eq!(registry.types().count(), kinds + 16);
    /// assert!(registry.get("Sequence").is_some() && registry.get("Chance").is_some());
    /// ```
    pub fn new() -> Self {
        let mut registry = Self::empty();
        register(&mut registry);
        registry
    }
}
