//! The reference tree for the flat interpreter, node for node the tree of
//! [`reference_tree`](crate::reference_tree), with the critter leaves
//! dispatched by a `match` over [`Leaf`].

use canopy_core::{Ctx, Policy, Status};

use super::{Def, FlatLeaf, FlatTree};
use crate::critter::{Critter, Leaf, Meadow, Outcome, leaves};

impl FlatLeaf<Critter, Meadow> for Leaf {
    #[inline(always)]
    fn act(&self, cx: &mut Ctx<'_, Critter, Meadow>) -> Status {
        match self.run(cx.agent, cx.world) {
            Outcome::Running => Status::Running,
            Outcome::Success => Status::Success,
            Outcome::Failure => Status::Failure,
        }
    }

    /// The conditions are small: inlined into the interpreter, each
    /// check is a few instructions instead of a call through `Leaf::run`.
    #[inline(always)]
    fn check(&self, cx: &mut Ctx<'_, Critter, Meadow>) -> bool {
        let (c, m) = (&*cx.agent, cx.world);
        match self {
            Leaf::ThreatNear => leaves::threat_near(c, m),
            Leaf::Hungry => leaves::hungry(c, m),
            Leaf::KnowsFood => leaves::knows_food(c, m),
            Leaf::Tired => leaves::tired(c, m),
            Leaf::Crowded => leaves::crowded(c, m),
            Leaf::StillTired => leaves::still_tired(c, m),
            Leaf::FriendNear => leaves::friend_near(c, m),
            action => action.run(cx.agent, cx.world) == Outcome::Success,
        }
    }
}

fn action(leaf: Leaf) -> Def<Leaf> {
    Def::action(leaf.name(), leaf)
}

fn condition(leaf: Leaf) -> Def<Leaf> {
    Def::condition(leaf.name(), leaf)
}

/// The reference tree as a flat tree.
///
/// ```
/// let tree = canopy_reference::flat::reference();
/// assert_eq!(tree.len(), canopy_reference::reference_tree().len());
/// assert_eq!(tree.describe(0), "ReactiveSelector");
/// ```
pub fn reference() -> FlatTree<Leaf> {
    FlatTree::build(&reference_def()).expect("the reference tree is well-formed")
}

/// The reference tree's description.
pub fn reference_def() -> Def<Leaf> {
    let flee = Def::reactive_sequence(
        "flee",
        [
            condition(Leaf::ThreatNear),
            Def::parallel(
                "escape",
                Policy::One,
                Policy::All,
                [
                    action(Leaf::RunAway),
                    Def::force_failure(
                        "alarm done",
                        Def::sequence(
                            "alarm",
                            [
                                Def::cooldown("shout cooldown", 40, action(Leaf::Shout)),
                                Def::wait("catch breath", 3),
                            ],
                        ),
                    ),
                ],
            ),
        ],
    );
    let eat = Def::sequence(
        "eat",
        [
            condition(Leaf::Hungry),
            Def::selector(
                "find food",
                [
                    Def::guard("remembered", Leaf::KnowsFood, action(Leaf::RecallFood)),
                    Def::retry("search", 3, action(Leaf::SearchFood)),
                ],
            ),
            Def::timeout("walk limit", 60, action(Leaf::WalkToTarget)),
            Def::repeat("meal", 3, action(Leaf::TakeBite)),
        ],
    );
    let rest = Def::sequence(
        "rest",
        [
            condition(Leaf::Tired),
            Def::inverter("not crowded", condition(Leaf::Crowded)),
            Def::reactive_guard("go rest", Leaf::StillTired, action(Leaf::WalkToRest)),
            Def::sequence("sleep", [Def::wait("doze", 20), action(Leaf::Recover)]),
        ],
    );
    let idle = Def::selector(
        "idle",
        [
            Def::sequence(
                "chat",
                [
                    condition(Leaf::FriendNear),
                    Def::force_success("greet", action(Leaf::Wave)),
                    Def::wait("chat a while", 5),
                ],
            ),
            Def::parallel(
                "wander",
                Policy::All,
                Policy::One,
                [action(Leaf::Stroll), action(Leaf::LookAround)],
            ),
        ],
    );
    Def::reactive_selector("choose", [flee, eat, rest, idle])
}
