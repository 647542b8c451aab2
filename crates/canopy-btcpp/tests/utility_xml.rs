//! A Utility through BehaviorTree.CPP XML: exported as a canopy control
//! whose considerations are a `;`-separated attribute, read back as the
//! same tree running the same way.

use canopy_btcpp::{XmlOptions, export_str, load_str};
use canopy_core::{Agent, Ctx, Event, Observer, Status, Tree};
use canopy_data::{Format, Params, Registry};

/// The agent: its inputs, and what its leaves did.
#[derive(Default)]
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
    let mut r = Registry::<Deer, ()>::new().with_seed(5);
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
    "scores": ["hunger, polynomial(wolf, 2, -0.25, 1)", "logit(wolf, 2, 0.5)"],
    "weights": [1, 0.75], "combine": "max", "pick": "weighted", "inertia": 0.125, "every": 3,
    "children": [{"type": "Act", "n": 0}, {"type": "Act", "n": 1}]}}"#;

/// Every event and the leaves' log, for 20 agents over a run whose inputs
/// wander.
fn run(tree: &Tree<Deer, ()>) -> (Vec<String>, Vec<u32>) {
    struct Log(Vec<String>);
    impl Observer for Log {
        fn event(&mut self, e: Event) {
            let kind = format!("{:?}", e.kind);
            self.0
                .push(format!("{} {} {} {kind}", e.tick, e.agent, e.node.index()));
        }
    }
    let (mut log, mut ran) = (Log(Vec::new()), Vec::new());
    for id in 0..20 {
        let mut deer = Deer::default();
        let mut agent = Agent::with_id(tree, id);
        for tick in 0..30u16 {
            deer.hunger = f32::from((tick + id as u16) % 5) / 4.0;
            deer.wolf = f32::from(tick % 4) / 4.0;
            agent.tick_observed(tree, &mut deer, &(), &mut log);
        }
        ran.extend(deer.log);
    }
    (log.0, ran)
}

#[test]
fn a_utility_goes_out_as_a_canopy_control_and_reads_back_the_same() {
    let registry = registry();
    let options = XmlOptions::default();
    let xml = export_str(&registry, JSON, Format::Json, "deer.json", &options).unwrap();
    assert!(
        xml.contains(
            r#"<Control ID="Utility" name="mind" scores="hunger, polynomial(wolf, 2, -0.25, 1);logit(wolf, 2, 0.5)" weights="1;0.75" combine="max" pick="weighted" inertia="0.125" every="3">"#
        ),
        "{xml}"
    );
    // Declared in the model with its parameters as ports.
    assert!(xml.contains(r#"<Control ID="Utility">"#), "{xml}");
    let direct = registry.load_str(JSON, Format::Json, "deer.json").unwrap();
    let back = load_str(&registry, &xml, "deer.xml", None, &options).unwrap();
    assert_eq!(back.display().to_string(), direct.display().to_string());
    let expected = run(&direct);
    assert!(
        expected.1.contains(&0) && expected.1.contains(&1),
        "both children run"
    );
    assert_eq!(run(&back), expected);
}
