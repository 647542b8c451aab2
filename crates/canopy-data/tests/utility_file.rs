//! A Utility from a tree file: what the scenario files cannot say. The
//! file's forms (JSON, RON, exported XML) printing and running alike, and
//! every mistake's exact message, are data: `testdata/formats/utility.toml`,
//! run by `crates/canopy-reference/tests/scenarios/`. What stays here needs
//! Rust:
//!
//! - the tree a file loads is the tree the builder builds in code, printed
//!   in the same words and running the same;
//! - bounded work on a hostile text (a megabyte of commas), which is made
//!   by code rather than written in a file;
//! - the registry's own rules for scorer names.

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
fn the_file_loads_the_tree_the_builder_builds() {
    let json = registry()
        .loading(TreeSource::text(JSON, Format::Json, "deer.json"))
        .load()
        .unwrap();
    let expected = run(&built());
    // Every child wins at some point of the run.
    for child in 0..3 {
        assert!(expected.1.contains(&child), "child {child} never ran");
    }
    assert_eq!(run(&json), expected);
    // Printed, the builder's tree says the same in the same words.
    assert_eq!(
        built().display().to_string().lines().next(),
        json.display().to_string().lines().next()
    );
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
