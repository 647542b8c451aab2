//! The reference tree as a file, `examples/trees/reference.json`, loaded
//! through a [`Registry`] whose critter leaves are user [`Node`] types: the
//! way a game ships its trees. It has the code-built tree's shape, names
//! and parameters, so the two produce the same events tick for tick (a
//! test checks it), and a bench row comparing them measures only what a
//! file and user node types cost over code and closures.
//!
//! Each leaf is a type of its own with no task (`Task = ()`), one
//! registration line each, as a user writes them; the two conditions that
//! guard a child (`KnowsFood`, `StillTired`) are registered as conditions,
//! since a guard takes a condition rather than a node.

use canopy_core::{Children, Ctx, Node, Status, Tree};
use canopy_data::{Format, Registry, RegistryError, TreeSource};

use crate::critter::{Critter, Meadow, Outcome, leaves};

/// The reference tree's file text.
pub const REFERENCE_JSON: &str = include_str!("../trees/reference.json");

/// Declares a leaf node type that runs one critter function.
macro_rules! leaf {
    ($(#[$doc:meta])* $name:ident, action $f:path) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;
        impl Node<Critter, Meadow> for $name {
            type Task = ();
            fn create_task(&self, _: &mut Ctx<Critter, Meadow>) {}
            #[inline]
            fn update(&self, _: &mut (), cx: &mut Ctx<Critter, Meadow>, _: &mut Children<Critter, Meadow>) -> Status {
                match $f(cx.agent, cx.world) {
                    Outcome::Running => Status::Running,
                    Outcome::Success => Status::Success,
                    Outcome::Failure => Status::Failure,
                }
            }
        }
    };
    ($(#[$doc:meta])* $name:ident, condition $f:path) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name;
        impl Node<Critter, Meadow> for $name {
            type Task = ();
            fn create_task(&self, _: &mut Ctx<Critter, Meadow>) {}
            #[inline]
            fn update(&self, _: &mut (), cx: &mut Ctx<Critter, Meadow>, _: &mut Children<Critter, Meadow>) -> Status {
                Status::from_bool($f(cx.agent, cx.world))
            }
        }
    };
}

leaf!(/// [`leaves::threat_near`] as a node.
    ThreatNear, condition leaves::threat_near);
leaf!(/// [`leaves::run_away`] as a node.
    RunAway, action leaves::run_away);
leaf!(/// [`leaves::shout`] as a node.
    Shout, action leaves::shout);
leaf!(/// [`leaves::hungry`] as a node.
    Hungry, condition leaves::hungry);
leaf!(/// [`leaves::recall_food`] as a node.
    RecallFood, action leaves::recall_food);
leaf!(/// [`leaves::search_food`] as a node.
    SearchFood, action leaves::search_food);
leaf!(/// [`leaves::walk_to_target`] as a node.
    WalkToTarget, action leaves::walk_to_target);
leaf!(/// [`leaves::take_bite`] as a node.
    TakeBite, action leaves::take_bite);
leaf!(/// [`leaves::tired`] as a node.
    Tired, condition leaves::tired);
leaf!(/// [`leaves::crowded`] as a node.
    Crowded, condition leaves::crowded);
leaf!(/// [`leaves::walk_to_rest`] as a node.
    WalkToRest, action leaves::walk_to_rest);
leaf!(/// [`leaves::recover`] as a node.
    Recover, action leaves::recover);
leaf!(/// [`leaves::friend_near`] as a node.
    FriendNear, condition leaves::friend_near);
leaf!(/// [`leaves::wave`] as a node.
    Wave, action leaves::wave);
leaf!(/// [`leaves::stroll`] as a node.
    Stroll, action leaves::stroll);
leaf!(/// [`leaves::look_around`] as a node.
    LookAround, action leaves::look_around);

/// The built-in node types and the critter's.
///
/// ```
/// let registry = canopy_reference::file::registry().unwrap();
/// assert!(registry.get("WalkToRest").is_some());
/// ```
pub fn registry() -> Result<Registry<Critter, Meadow>, RegistryError> {
    use canopy_core::Arity::Leaf;
    let mut r = Registry::new();
    r.node("ThreatNear", Leaf, |()| ThreatNear)?;
    r.node("RunAway", Leaf, |()| RunAway)?;
    r.node("Shout", Leaf, |()| Shout)?;
    r.node("Hungry", Leaf, |()| Hungry)?;
    r.condition("KnowsFood", |()| {
        |cx: &Ctx<Critter, Meadow>| leaves::knows_food(cx.agent, cx.world)
    })?;
    r.node("RecallFood", Leaf, |()| RecallFood)?;
    r.node("SearchFood", Leaf, |()| SearchFood)?;
    r.node("WalkToTarget", Leaf, |()| WalkToTarget)?;
    r.node("TakeBite", Leaf, |()| TakeBite)?;
    r.node("Tired", Leaf, |()| Tired)?;
    r.node("Crowded", Leaf, |()| Crowded)?;
    r.condition("StillTired", |()| {
        |cx: &Ctx<Critter, Meadow>| leaves::still_tired(cx.agent, cx.world)
    })?;
    r.node("WalkToRest", Leaf, |()| WalkToRest)?;
    r.node("Recover", Leaf, |()| Recover)?;
    r.node("FriendNear", Leaf, |()| FriendNear)?;
    r.node("Wave", Leaf, |()| Wave)?;
    r.node("Stroll", Leaf, |()| Stroll)?;
    r.node("LookAround", Leaf, |()| LookAround)?;
    Ok(r)
}

/// The reference tree loaded from [`REFERENCE_JSON`] with [`registry`]. Like
/// [`crate::reference_tree`], it panics only if the crate's own file or
/// registrations are wrong, which its tests rule out.
///
/// ```
/// let tree = canopy_reference::file::reference_tree();
/// assert_eq!((tree.len(), tree.depth()), (39, 7));
/// ```
pub fn reference_tree() -> Tree<Critter, Meadow> {
    let registry = registry().expect("the critter's node types register");
    registry
        .loading(TreeSource::text(
            REFERENCE_JSON,
            Format::Json,
            "reference.json",
        ))
        .load()
        .expect("examples/trees/reference.json loads")
}
