//! A Utility from a tree file: JSON and RON give the tree the builder
//! gives, its considerations read from one text per child with scorers
//! looked up in the registry; mistakes name the child, the scorer or the
//! curve.

use canopy_core::nodes::{Choice, Combine, Consideration, Curve, Pick, Scorer, Utility};
use canopy_core::{Agent, Builder, Ctx, Event, Observer, Status, Tree};
use canopy_data::{Format, Params, Registry, RegistryError, TreeSource};

/// The agent: its inputs, and what its leaves did.
#[derive(Clone, Default)]
struct Deer {
    hunger: f32,
    wolf: f32,
    log: Vec<u32>,
}

/// Logs `n` and keeps running.
#[derive(Params)]
struct Act {
    /// The number to log.
    n: u32,
}

fn registry() -> Registry<Deer, ()> {
    let mut r = Registry::<Deer, ()>::new().with_seed(3);
    r.scorer("hunger", |cx: &Ctx<Deer, ()>| cx.agent.hunger)
        .unwrap();
    r.scorer("wolf", |cx: &Ctx<Deer, ()>| cx.agent.wolf)
        .unwrap();
    r.action("Act", |p: Act| {
        move |cx: &mut Ctx<Deer, ()>| {
            cx.agent.log.push(p.n);
            Status::Running
        }
    })
    .unwrap();
    r
}

const JSON: &str = r#"{"tree": {"type": "Utility", "name": "mind",
    "scores": ["hunger, linear(wolf, -0.125, 1)", "logistic(wolf, 4, 4)", "piecewise(hunger, 0, 0.25, 1, 0)"],
    "weights": [1, 1.5, 1], "combine": "min", "pick": "highest", "threshold": 0.125,
    "inertia": 0.0625, "every": 2,
    "children": [{"type": "Act", "n": 0}, {"type": "Act", "n": 1}, {"type": "Act", "n": 2}]}}"#;

const RON: &str = r#"(tree: (type: "Utility", name: "mind",
    scores: ["hunger, linear(wolf, -0.125, 1)", "logistic(wolf, 4, 4)", "piecewise(hunger, 0, 0.25, 1, 0)"],
    weights: [1, 1.5, 1], combine: "min", pick: "highest", threshold: 0.125,
    inertia: 0.0625, every: 2,
    children: [(type: "Act", n: 0), (type: "Act", n: 1), (type: "Act", n: 2)]))"#;

/// The file's tree, built in code.
fn built() -> Tree<Deer, ()> {
    let hunger = Scorer::new("hunger", |cx: &Ctx<Deer, ()>| cx.agent.hunger);
    let wolf = Scorer::new("wolf", |cx: &Ctx<Deer, ()>| cx.agent.wolf);
    let c = |input: &Scorer<Deer, ()>, curve| Consideration {
        input: input.clone(),
        curve,
    };
    let mut utility = Utility::new(vec![
        Choice::new(vec![
            c(&hunger, Curve::IDENTITY),
            c(
                &wolf,
                Curve::Linear {
                    slope: -0.125,
                    shift: 1.0,
                },
            ),
        ]),
        Choice {
            weight: 1.5,
            considerations: vec![c(
                &wolf,
                Curve::Logistic {
                    steepness: 4.0,
                    midpoint: 4.0,
                },
            )],
        },
        Choice::new(vec![c(
            &hunger,
            Curve::Piecewise(vec![(0.0, 0.25), (1.0, 0.0)].into()),
        )]),
    ]);
    utility.combine = Combine::Min;
    utility.pick = Pick::Highest;
    utility.threshold = 0.125;
    utility.inertia = 0.0625;
    utility.every = 2;
    let b = Builder::<Deer, ()>::new();
    let act = |n: u32| {
        b.action("Act", move |cx| {
            cx.agent.log.push(n);
            Status::Running
        })
    };
    b.build(b.node("mind", utility, [act(0), act(1), act(2)]))
        .unwrap()
}

/// Every event and the leaves' log over a run whose inputs wander.
fn run(tree: &Tree<Deer, ()>) -> (Vec<String>, Vec<u32>) {
    struct Log(Vec<String>);
    impl Observer for Log {
        fn event(&mut self, e: Event) {
            self.0
                .push(format!("{} {} {:?}", e.tick, e.node.index(), e.kind));
        }
    }
    let mut log = Log(Vec::new());
    let mut deer = Deer::default();
    let mut agent = Agent::new(tree);
    for tick in 0..40u16 {
        deer.hunger = f32::from(tick % 9) / 8.0;
        deer.wolf = f32::from(tick % 7);
        agent.tick_observed(tree, &mut deer, &(), &mut log);
    }
    (log.0, deer.log)
}

#[test]
fn json_and_ron_load_the_tree_the_builder_builds() {
    let registry = registry();
    let json = registry
        .loading(TreeSource::text(JSON, Format::Json, "deer.json"))
        .load()
        .unwrap();
    let ron = registry
        .loading(TreeSource::text(RON, Format::Ron, "deer.ron"))
        .load()
        .unwrap();
    let expected = run(&built());
    // Every child wins at some point of the run.
    for child in 0..3 {
        assert!(expected.1.contains(&child), "child {child} never ran");
    }
    assert_eq!(run(&json), expected);
    assert_eq!(run(&ron), expected);
    assert_eq!(json.display().to_string(), ron.display().to_string());
}

#[test]
fn the_printed_tree_shows_the_parameters_as_written_and_as_built() {
    let tree = registry()
        .loading(TreeSource::text(JSON, Format::Json, "deer.json"))
        .load()
        .unwrap();
    let first = tree.display().to_string();
    let first = first.lines().next().unwrap();
    assert_eq!(
        first,
        r#"mind  Utility(scores=["hunger, linear(wolf, -0.125, 1)", "logistic(wolf, 4, 4)", "piecewise(hunger, 0, 0.25, 1, 0)"], weights=[1, 1.5, 1], combine=min, pick=highest, threshold=0.125, inertia=0.0625, every=2)"#
    );
    // The builder's tree says the same in the same words.
    let built = built().display().to_string();
    let built = built.lines().next().unwrap().to_string();
    assert_eq!(built, first);
}

/// The error loading a Utility with these fields (and two children).
fn error(fields: &str) -> String {
    let file = format!(
        r#"{{"tree": {{"type": "Utility", {fields}, "children": [{{"type": "Act", "n": 0}}, {{"type": "Act", "n": 1}}]}}}}"#
    );
    registry()
        .loading(TreeSource::text(&file, Format::Json, "bad.json"))
        .load()
        .unwrap_err()
        .to_string()
}

#[test]
fn a_mistake_names_the_child_and_what_is_wrong() {
    let at = "bad.json:1:12: tree (name \"Utility\"): ";
    let cases = [
        (
            r#""scores": ["hunger", "wolff"]"#,
            r#"scores[1]: no scorer is registered as "wolff" (did you mean "wolf"?)"#,
        ),
        (
            r#""scores": ["logistc(hunger, 1, 2)", "wolf"]"#,
            r#"scores[0]: no curve is called "logistc" (did you mean "logistic"?); curves are linear, polynomial, logistic, logit, piecewise"#,
        ),
        (
            r#""scores": ["hunger", "linear(wolf, 1)"]"#,
            r#"scores[1]: "linear" takes an input, a slope and a shift"#,
        ),
        (
            r#""scores": ["hunger", "logit(wolf, 1, x)"]"#,
            r#"scores[1]: "x" is not a number, in "logit(wolf, 1, x)""#,
        ),
        (
            r#""scores": ["hunger", "logit(wolf, 1, 2"]"#,
            r#"scores[1]: "logit(wolf, 1, 2" must end with ")""#,
        ),
        (
            r#""scores": ["hunger", "wolf"], "weights": [1]"#,
            r#""weights" has 1 items for 2 "scores": give one per child, or none"#,
        ),
        (
            r#""scores": ["hunger", "wolf"], "pick": "best""#,
            r#"parameter "pick" must be one of "highest", "weighted", got "best""#,
        ),
    ];
    for (fields, problem) in cases {
        let message = error(fields);
        assert!(message.starts_with(at), "{message}");
        assert!(
            message.ends_with(problem),
            "{message}\nshould end with\n{problem}"
        );
    }
    // A choice per child: the engine's own check.
    let message = error(r#""scores": ["hunger"]"#);
    assert!(
        message.contains("has 1 choices for 2 children"),
        "{message}"
    );
    // A piecewise curve's points must go right.
    let message = error(r#""scores": ["hunger", "piecewise(wolf, 1, 0, 0, 1)"]"#);
    assert!(
        message.contains("child 2: a piecewise curve needs finite points in increasing x"),
        "{message}"
    );
}

#[test]
fn a_hostile_text_is_refused_after_bounded_work() {
    let many = vec!["hunger"; 33].join(", ");
    let message = error(&format!(r#""scores": ["{many}", "wolf"]"#));
    assert!(
        message.ends_with("scores[0]: more than 32 considerations"),
        "{message}"
    );
    // A megabyte of commas is refused after the 33rd part.
    let commas = ",".repeat(1 << 20);
    let message = error(&format!(r#""scores": ["{commas}", "wolf"]"#));
    assert!(
        message.ends_with("scores[0]: more than 32 considerations"),
        "{message}"
    );
    let numbers = vec!["1"; 130].join(", ");
    let message = error(&format!(
        r#""scores": ["piecewise(wolf, {numbers})", "wolf"]"#
    ));
    assert!(message.contains("more than 128 numbers"), "{message}");
    let unbalanced = format!(r#""scores": ["{}", "wolf"]"#, "(".repeat(5000));
    assert!(error(&unbalanced).ends_with("must end with \")\""));
}

#[test]
fn scorers_have_names_of_their_own_registered_once() {
    let mut r = registry();
    assert_eq!(
        r.scorer("wolf", |_: &Ctx<Deer, ()>| 0.0),
        Err(RegistryError::DuplicateScorer("wolf".to_string()))
    );
    let bad = r.scorer("big wolf", |_: &Ctx<Deer, ()>| 0.0).unwrap_err();
    assert_eq!(
        bad.to_string(),
        "scorer name \"big wolf\" must be non-empty letters, digits and underscores"
    );
    // A scorer may share a node type's name.
    assert!(r.scorer("Wait", |_: &Ctx<Deer, ()>| 0.0).is_ok());
}
