//! Utility: the child whose considerations score best runs; re-scoring
//! switches, aborting the running child, when another wins.
//!
//! The picking is data: `testdata/semantics/utility.toml` (highest, ties,
//! the child's status, a switch aborting the running child, inertia,
//! threshold, `every`, weights, curves, combinations, weighted draws),
//! with scorers scripted by tick, run in both modes and on the naive
//! interpreter by `crates/canopy-reference/tests/scenarios/`, which also
//! checks the scorers are read as often in both modes. What stays here
//! needs Rust: each curve's exact values, scores computed by hand,
//! weighted picks over many agents, the inspector's view, build errors,
//! snapshots, hot reload, and which nodes event mode updates.

use canopy_core::nodes::{Choice, Combine, Consideration, Curve, Pick, Scorer, Utility};
use canopy_core::{Agent, Builder, Ctx, Event, EventKind, Mode, Observer, Snapshot, Status, Tree};

/// The agent: the inputs the scorers read, and what its children did.
#[derive(Clone, Default)]
struct Mind {
    hunger: f32,
    fear: f32,
    log: Vec<&'static str>,
}

fn hunger() -> Scorer<Mind, ()> {
    Scorer::new("hunger", |cx: &Ctx<Mind, ()>| cx.agent.hunger)
}

fn fear() -> Scorer<Mind, ()> {
    Scorer::new("fear", |cx: &Ctx<Mind, ()>| cx.agent.fear)
}

fn consider(input: Scorer<Mind, ()>, curve: Curve) -> Consideration<Mind, ()> {
    Consideration { input, curve }
}

/// Two choices: eat scores hunger, flee scores fear.
fn eat_or_flee() -> Utility<Mind, ()> {
    Utility::new(vec![
        Choice::new(vec![consider(hunger(), Curve::IDENTITY)]),
        Choice::new(vec![consider(fear(), Curve::IDENTITY)]),
    ])
}

/// A Utility over leaves `eat` and `flee`, which log and keep running.
fn tree(utility: Utility<Mind, ()>) -> Tree<Mind, ()> {
    let b = Builder::<Mind, ()>::new();
    let leaf = |name: &'static str| {
        b.action(name, move |cx| {
            cx.agent.log.push(name);
            Status::Running
        })
    };
    b.build(b.node("mind", utility, [leaf("eat"), leaf("flee")]))
        .unwrap()
}

fn mind(hunger: f32, fear: f32) -> Mind {
    Mind {
        hunger,
        fear,
        log: Vec::new(),
    }
}

/// The score of child `child` for an agent with these inputs, read by an
/// action in a tree of its own (scorers see a whole `Ctx`).
fn score(utility: &Utility<Mind, ()>, child: usize, hunger: f32, fear: f32) -> f32 {
    let b = Builder::<Mind, ()>::new();
    let probe = utility.clone();
    let tree = b
        .build(b.action("probe", move |cx| {
            let score = probe.score(child, cx);
            cx.agent.hunger = score;
            Status::Success
        }))
        .unwrap();
    let mut m = mind(hunger, fear);
    Agent::new(&tree).tick(&tree, &mut m, &());
    m.hunger
}

#[test]
fn each_curve_maps_its_input_into_zero_to_one_exactly() {
    let linear = Curve::Linear {
        slope: -0.25,
        shift: 1.0,
    };
    assert_eq!(
        [linear.map(2.0), linear.map(-4.0), linear.map(8.0)],
        [0.5, 1.0, 0.0]
    );
    let square = Curve::Polynomial {
        exponent: 2.0,
        slope: 1.0,
        shift: 0.0,
    };
    assert_eq!([square.map(0.5), square.map(3.0)], [0.25, 1.0]);
    let s = Curve::Logistic {
        steepness: 8.0,
        midpoint: 0.25,
    };
    assert_eq!(s.map(0.25), 0.5);
    assert!(s.map(0.0) < 0.5 && s.map(1.0) > 0.99);
    let logit = Curve::Logit {
        steepness: 8.0,
        midpoint: 0.25,
    };
    assert_eq!(
        [logit.map(0.5), logit.map(0.0), logit.map(1.0)],
        [0.25, 0.0, 1.0]
    );
    let tent = Curve::Piecewise(vec![(0.0, 0.0), (0.5, 1.0), (1.0, 0.0)].into());
    assert_eq!(
        [
            tent.map(0.25),
            tent.map(0.5),
            tent.map(0.875),
            tent.map(-1.0),
            tent.map(2.0)
        ],
        [0.5, 1.0, 0.25, 0.0, 0.0]
    );
    assert_eq!(Curve::IDENTITY.map(f32::NAN), 0.0, "not a number scores 0");
}

#[test]
fn a_score_is_its_considerations_combined_then_weighted() {
    // hunger 0.5 and fear 0.75 for one choice of weight 2.
    let mut utility = Utility::new(vec![
        Choice {
            weight: 2.0,
            considerations: vec![
                consider(hunger(), Curve::IDENTITY),
                consider(fear(), Curve::IDENTITY),
            ],
        },
        Choice::new(vec![]),
    ]);
    // The product raises each score by the compensation for 2
    // considerations: 0.5 → 0.625, 0.75 → 0.84375.
    assert_eq!(score(&utility, 0, 0.5, 0.75), 2.0 * 0.625 * 0.84375);
    utility.combine = Combine::Min;
    assert_eq!(score(&utility, 0, 0.5, 0.75), 1.0);
    utility.combine = Combine::Max;
    assert_eq!(score(&utility, 0, 0.5, 0.75), 1.5);
    // A choice without considerations scores its weight.
    assert_eq!(score(&utility, 1, 0.5, 0.75), 1.0);
    // One zero vetoes a product.
    utility.combine = Combine::Product;
    assert_eq!(score(&utility, 0, 0.0, 1.0), 0.0);
}

/// Events as `node name: event`, for the Utility's children and itself.
struct Trace<'t>(&'t Tree<Mind, ()>, Vec<String>);

impl Observer for Trace<'_> {
    fn event(&mut self, e: Event) {
        let name = self.0.node(e.node).name();
        let kind = match e.kind {
            EventKind::Update(s) | EventKind::Exit(s) => format!("{} {s:?}", e.kind.name()),
            other => other.name().to_string(),
        };
        self.1.push(format!("{}: {name} {kind}", e.tick));
    }
}

#[test]
fn a_weighted_pick_follows_the_scores_and_replays_per_agent() {
    let mut utility = eat_or_flee();
    utility.pick = Pick::Weighted;
    utility.salt = 9;
    utility.every = 0;
    let tree = tree(utility);
    let first = |id: u32| {
        let mut m = mind(0.25, 0.75);
        Agent::with_id(&tree, id).tick(&tree, &mut m, &());
        m.log[0]
    };
    let flee = (0..4000).filter(|&id| first(id) == "flee").count();
    // Three chances in four; 4,000 draws land within 3% of 3,000.
    assert!((2910..=3090).contains(&flee), "flee picked {flee} times");
    assert_eq!(
        (0..50).map(first).collect::<Vec<_>>(),
        (0..50).map(first).collect::<Vec<_>>()
    );
    // A choice scoring 0 is never drawn.
    let mut m = mind(0.0, 0.5);
    Agent::with_id(&tree, 1).tick(&tree, &mut m, &());
    assert_eq!(m.log, ["flee"]);
}

#[test]
fn an_inspector_sees_the_running_child_and_the_last_scores() {
    let mut utility = eat_or_flee();
    utility.inertia = 0.125;
    let tree = tree(utility);
    let mut agent = Agent::new(&tree);
    let mut m = mind(0.5, 0.25);
    agent.tick(&tree, &mut m, &());
    agent.tick(&tree, &mut m, &());
    let root = &agent.running(&tree)[0];
    assert_eq!(root.state, "running child 1 of 2; scores 0.625, 0.25");
}

#[test]
fn tick_and_event_mode_run_the_same() {
    let tree = tree(eat_or_flee());
    let run = |mode| {
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        let mut trace = Trace(&tree, Vec::new());
        let mut m = mind(0.5, 0.0);
        for tick in 0..12u8 {
            m.fear = f32::from(tick % 5) / 4.0;
            agent.tick_observed(&tree, &mut m, &(), &mut trace);
        }
        (trace.1, m.log)
    };
    assert_eq!(run(Mode::Tick), run(Mode::Event));
}

#[test]
fn a_choice_per_child_is_required_and_numbers_are_checked() {
    let b = Builder::<Mind, ()>::new();
    let one = b.node("mind", eat_or_flee(), [b.always_success("eat")]);
    let error = b.build(one).unwrap_err().to_string();
    assert!(
        error.contains("has 2 choices for 1 children: give one per child"),
        "{error}"
    );
    let b = Builder::<Mind, ()>::new();
    let mut utility = eat_or_flee();
    utility.choices = vec![
        Choice::new(vec![consider(
            hunger(),
            Curve::Logistic {
                steepness: 0.0,
                midpoint: 0.5,
            },
        )]),
        Choice::new(vec![]),
    ]
    .into();
    let bad = b.node(
        "mind",
        utility,
        [b.always_success("eat"), b.always_success("flee")],
    );
    let error = b.build(bad).unwrap_err().to_string();
    assert!(
        error.contains("child 1: a logistic or logit curve needs a finite, non-zero steepness"),
        "{error}"
    );
}

#[test]
fn a_restored_agent_goes_on_as_the_uninterrupted_one() {
    let mut utility = eat_or_flee();
    utility.every = 2;
    utility.inertia = 0.125;
    let tree = tree(utility);
    let mut agent = Agent::new(&tree);
    let mut m = mind(0.5, 0.25);
    for _ in 0..3 {
        agent.tick(&tree, &mut m, &());
    }
    let bytes = agent.snapshot(&tree).to_bytes();
    let mut restored = Agent::restore(&tree, &Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    let (mut a, mut b) = (m.clone(), m);
    for tick in 0..12u8 {
        a.fear = f32::from(tick % 5) / 4.0;
        b.fear = a.fear;
        assert_eq!(
            agent.tick(&tree, &mut a, &()),
            restored.tick(&tree, &mut b, &())
        );
    }
    assert_eq!(a.log, b.log);
    assert!(a.log.contains(&"flee"), "it switched after the restore");
}

#[test]
fn a_hot_reload_keeps_the_running_child_where_it_went() {
    let old = tree(eat_or_flee());
    // The same children in the other order, with their choices.
    let b = Builder::<Mind, ()>::new();
    let leaf = |name: &'static str| {
        b.action(name, move |cx| {
            cx.agent.log.push(name);
            Status::Running
        })
    };
    let swapped = Utility::new(vec![
        Choice::new(vec![consider(fear(), Curve::IDENTITY)]),
        Choice::new(vec![consider(hunger(), Curve::IDENTITY)]),
    ]);
    let mut every = swapped;
    every.every = 0;
    let new = b
        .build(b.node("mind", every, [leaf("flee"), leaf("eat")]))
        .unwrap();
    let mut agent = Agent::new(&old);
    let mut m = mind(0.75, 0.25);
    agent.tick(&old, &mut m, &());
    agent.reload(&old, &new, &mut m, &());
    // Fear now wins, but the reloaded node never re-scores: eat, kept
    // running, is resumed at its new place.
    m.fear = 1.0;
    agent.tick(&new, &mut m, &());
    assert_eq!(m.log, ["eat", "eat"]);
    let root = &agent.running(&new)[0];
    assert!(
        root.state.starts_with("running child 2 of 2"),
        "{}",
        root.state
    );
}

/// An agent that counts the calls of its scorers.
#[derive(Default)]
struct Counted {
    calls: std::cell::Cell<u32>,
}

/// A Utility scoring every `every` ticks over two long naps; each of its
/// two scorers counts its calls.
fn counted_naps(every: u32) -> Tree<Counted, ()> {
    let counter = |name: &str, score: f32| {
        Choice::new(vec![Consideration {
            input: Scorer::new(name, move |cx: &Ctx<Counted, ()>| {
                cx.agent.calls.set(cx.agent.calls.get() + 1);
                score
            }),
            curve: Curve::IDENTITY,
        }])
    };
    let mut utility = Utility::new(vec![counter("rest", 0.75), counter("roam", 0.25)]);
    utility.every = every;
    let b = Builder::<Counted, ()>::new();
    b.build(b.node(
        "mind",
        utility,
        [b.wait("rest", 1000), b.wait("roam", 1000)],
    ))
    .unwrap()
}

/// Scorer calls over 30 world ticks, the agent ticked every `step` world
/// ticks.
fn scorer_calls(tree: &Tree<Counted, ()>, mode: Mode, step: u32) -> u32 {
    let mut agent = Agent::new(tree);
    agent.set_mode(tree, mode);
    let mut counted = Counted::default();
    for _ in 0..30 / step {
        assert_eq!(
            agent.tick_elapsed(tree, &mut counted, &(), step),
            Status::Running
        );
    }
    counted.calls.get()
}

#[test]
fn event_mode_calls_the_scorers_exactly_as_often_as_tick_mode() {
    // Every 4 ticks over 30: scorings at ticks 1, 5, …, 29, two scorers
    // each: 16 calls. Every 0: only when entered.
    for (every, calls) in [(4, 16), (1, 60), (0, 2)] {
        let tree = counted_naps(every);
        assert_eq!(
            scorer_calls(&tree, Mode::Tick, 1),
            calls,
            "tick mode, every {every}"
        );
        assert_eq!(
            scorer_calls(&tree, Mode::Event, 1),
            calls,
            "event mode, every {every}"
        );
    }
    // Ticked every 3rd world tick (level of detail), every 4: scorings at
    // world ticks 3, 9, 15, 21 and 27, the first ticks at or after 4 world
    // ticks since the last one: 10 calls.
    let tree = counted_naps(4);
    assert_eq!(scorer_calls(&tree, Mode::Tick, 3), 10);
    assert_eq!(scorer_calls(&tree, Mode::Event, 3), 10);
}

#[test]
fn in_event_mode_a_utility_between_scorings_is_not_updated() {
    /// Updates of the Utility itself.
    struct Updates<'t>(&'t Tree<Counted, ()>, u32);
    impl Observer for Updates<'_> {
        fn event(&mut self, e: Event) {
            if self.0.node(e.node).name() == "mind" && matches!(e.kind, EventKind::Update(_)) {
                self.1 += 1;
            }
        }
    }
    let tree = counted_naps(4);
    let updates = |mode| {
        let mut agent = Agent::new(&tree);
        agent.set_mode(&tree, mode);
        let mut updates = Updates(&tree, 0);
        for _ in 0..30 {
            agent.tick_observed(&tree, &mut Counted::default(), &(), &mut updates);
        }
        updates.1
    };
    assert_eq!(updates(Mode::Tick), 30);
    // Entered at tick 1, then woken at 5, 9, …, 29.
    assert_eq!(updates(Mode::Event), 8);
}
