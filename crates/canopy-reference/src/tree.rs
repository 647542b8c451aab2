//! The reference tree: 39 nodes, 7 levels, every composite kind and most
//! decorators, with leaves whose outcomes differ per agent and over time.
//! Every bench, profile and comparison in the repository runs this tree.
//!
//! ```text
//! choose                         ReactiveSelector
//! ├── flee                       ReactiveSequence
//! │   ├── threat near?           Condition
//! │   └── escape                 Parallel(success one, failure all)
//! │       ├── run away           Action
//! │       └── alarm done         ForceFailure
//! │           └── alarm          Sequence
//! │               ├── shout cooldown   Cooldown(40)
//! │               │   └── shout        Action
//! │               └── catch breath     Wait(3)
//! ├── eat                        Sequence
//! │   ├── hungry?                Condition
//! │   ├── find food              Selector
//! │   │   ├── remembered         Guard(knows food?)
//! │   │   │   └── recall food    Action
//! │   │   └── search             Retry(3)
//! │   │       └── search food    Action
//! │   ├── walk limit             Timeout(60)
//! │   │   └── walk to food       Action
//! │   └── meal                   Repeat(3)
//! │       └── take bite          Action
//! ├── rest                       Sequence
//! │   ├── tired?                 Condition
//! │   ├── not crowded            Inverter
//! │   │   └── crowded?           Condition
//! │   ├── go rest                ReactiveGuard(still tired?)
//! │   │   └── walk to rest area  Action
//! │   └── sleep                  Sequence
//! │       ├── doze               Wait(20)
//! │       └── recover            Action
//! └── idle                       Selector
//!     ├── chat                   Sequence
//!     │   ├── friend near?       Condition
//!     │   ├── greet              ForceSuccess
//!     │   │   └── wave           Action
//!     │   └── chat a while       Wait(5)
//!     └── wander                 Parallel(success all, failure one)
//!         ├── stroll             Action
//!         └── look around        Action
//! ```

use canopy_core::{Builder, Draft, Policy, Status, Tree};

use crate::critter::{Critter, Leaf, Meadow, Outcome, leaves};

fn status(o: Outcome) -> Status {
    match o {
        Outcome::Running => Status::Running,
        Outcome::Success => Status::Success,
        Outcome::Failure => Status::Failure,
    }
}

/// Build the reference tree.
///
/// ```
/// let tree = canopy_reference::reference_tree();
/// assert_eq!(tree.len(), 39);
/// assert_eq!(tree.depth(), 7);
/// ```
pub fn reference_tree() -> Tree<Critter, Meadow> {
    let b = Builder::<Critter, Meadow>::new();
    b.build(reference_root(&b))
        .expect("the reference tree is well-formed")
}

/// The reference tree as a draft, to build into a larger tree.
///
/// ```
/// use canopy_core::Builder;
/// let b = Builder::new();
/// let tree = b.build(b.repeat("again", 2, canopy_reference::reference_root(&b))).unwrap();
/// assert_eq!(tree.len(), 40);
/// ```
pub fn reference_root<'b>(b: &'b Builder<'b, Critter, Meadow>) -> &'b Draft<'b, Critter, Meadow> {
    let flee = b.reactive_sequence(
        "flee",
        [
            b.condition(Leaf::ThreatNear.name(), |cx| {
                leaves::threat_near(cx.agent, cx.world)
            }),
            b.parallel(
                "escape",
                Policy::One,
                Policy::All,
                [
                    b.action(Leaf::RunAway.name(), |cx| {
                        status(leaves::run_away(cx.agent, cx.world))
                    }),
                    b.force_failure(
                        "alarm done",
                        b.sequence(
                            "alarm",
                            [
                                b.cooldown(
                                    "shout cooldown",
                                    40,
                                    b.action(Leaf::Shout.name(), |cx| {
                                        status(leaves::shout(cx.agent, cx.world))
                                    }),
                                ),
                                b.wait("catch breath", 3),
                            ],
                        ),
                    ),
                ],
            ),
        ],
    );
    let eat = b.sequence(
        "eat",
        [
            b.condition(Leaf::Hungry.name(), |cx| leaves::hungry(cx.agent, cx.world)),
            b.selector(
                "find food",
                [
                    b.guard(
                        "remembered",
                        |cx| leaves::knows_food(cx.agent, cx.world),
                        b.action(Leaf::RecallFood.name(), |cx| {
                            status(leaves::recall_food(cx.agent, cx.world))
                        }),
                    ),
                    b.retry(
                        "search",
                        3,
                        b.action(Leaf::SearchFood.name(), |cx| {
                            status(leaves::search_food(cx.agent, cx.world))
                        }),
                    ),
                ],
            ),
            b.timeout(
                "walk limit",
                60,
                b.action(Leaf::WalkToTarget.name(), |cx| {
                    status(leaves::walk_to_target(cx.agent, cx.world))
                }),
            ),
            b.repeat(
                "meal",
                3,
                b.action(Leaf::TakeBite.name(), |cx| {
                    status(leaves::take_bite(cx.agent, cx.world))
                }),
            ),
        ],
    );
    let rest = b.sequence(
        "rest",
        [
            b.condition(Leaf::Tired.name(), |cx| leaves::tired(cx.agent, cx.world)),
            b.inverter(
                "not crowded",
                b.condition(Leaf::Crowded.name(), |cx| {
                    leaves::crowded(cx.agent, cx.world)
                }),
            ),
            b.reactive_guard(
                "go rest",
                |cx| leaves::still_tired(cx.agent, cx.world),
                b.action(Leaf::WalkToRest.name(), |cx| {
                    status(leaves::walk_to_rest(cx.agent, cx.world))
                }),
            ),
            b.sequence(
                "sleep",
                [
                    b.wait("doze", 20),
                    b.action(Leaf::Recover.name(), |cx| {
                        status(leaves::recover(cx.agent, cx.world))
                    }),
                ],
            ),
        ],
    );
    let idle = b.selector(
        "idle",
        [
            b.sequence(
                "chat",
                [
                    b.condition(Leaf::FriendNear.name(), |cx| {
                        leaves::friend_near(cx.agent, cx.world)
                    }),
                    b.force_success(
                        "greet",
                        b.action(Leaf::Wave.name(), |cx| {
                            status(leaves::wave(cx.agent, cx.world))
                        }),
                    ),
                    b.wait("chat a while", 5),
                ],
            ),
            b.parallel(
                "wander",
                Policy::All,
                Policy::One,
                [
                    b.action(Leaf::Stroll.name(), |cx| {
                        status(leaves::stroll(cx.agent, cx.world))
                    }),
                    b.action(Leaf::LookAround.name(), |cx| {
                        status(leaves::look_around(cx.agent, cx.world))
                    }),
                ],
            ),
        ],
    );
    b.reactive_selector("choose", [flee, eat, rest, idle])
}
