//! Blackboard type troubles reported against BehaviorTree.CPP, each found
//! at load in canopy: the tree from the issue (adapted to the nodes
//! below) either loads and runs, where BehaviorTree.CPP locked a type at
//! run time and failed, or — given a real mismatch — is refused with both
//! places named.

use canopy_btcpp::{XmlOptions, load_str};
use canopy_core::{Agent, Ctx, Input, Output, Status, Text, Tree};
use canopy_data::{Params, Registry};

/// Succeeds when its condition holds.
#[derive(Params)]
struct Assert {
    /// The condition.
    condition: Input<bool>,
}

/// Aims at a point.
#[derive(Params)]
struct Aim {
    /// Where.
    at: Input<[f32; 2]>,
}

/// Repeats a count.
#[derive(Params)]
struct Count {
    /// How many.
    n: Input<i32>,
}

/// Names a drone.
#[derive(Params)]
struct Takeoff {
    /// Which drone.
    drone_id: Input<Text>,
}

/// Drives to a pose (x, y, heading).
#[derive(Params)]
struct MoveBase {
    /// Where.
    goal: Input<[f64; 3]>,
}

/// Reports a speed.
#[derive(Params)]
struct Speed {
    /// The speed.
    speed: Output<f64>,
}

/// Reports whether it is stuck.
#[derive(Params)]
struct Stuck {
    /// Whether it is.
    stuck: Output<bool>,
}

/// What the nodes saw, in order.
type Seen = Vec<String>;

fn registry() -> Registry<Seen, ()> {
    let mut r = Registry::new();
    r.action("Assert", |p: Assert| {
        move |cx: &mut Ctx<Seen, ()>| match cx.board.get(&p.condition) {
            true => Status::Success,
            false => Status::Failure,
        }
    })
    .unwrap();
    r.action("Aim", |p: Aim| {
        move |cx: &mut Ctx<Seen, ()>| {
            let at = cx.board.get(&p.at);
            cx.agent.push(format!("aim {at:?}"));
            Status::Success
        }
    })
    .unwrap();
    r.action("Count", |p: Count| {
        move |cx: &mut Ctx<Seen, ()>| {
            let n = cx.board.get(&p.n);
            cx.agent.push(format!("count {n}"));
            Status::Success
        }
    })
    .unwrap();
    r.action("Takeoff", |p: Takeoff| {
        move |cx: &mut Ctx<Seen, ()>| {
            let id = cx.board.get(&p.drone_id);
            cx.agent.push(format!("takeoff {id}"));
            Status::Success
        }
    })
    .unwrap();
    r.action("MoveBase", |p: MoveBase| {
        move |cx: &mut Ctx<Seen, ()>| {
            let goal = cx.board.get(&p.goal);
            cx.agent.push(format!("move {goal:?}"));
            Status::Success
        }
    })
    .unwrap();
    r.action("Speed", |p: Speed| {
        move |cx: &mut Ctx<Seen, ()>| {
            cx.board.set(&p.speed, 1.5);
            Status::Success
        }
    })
    .unwrap();
    r.action("Stuck", |p: Stuck| {
        move |cx: &mut Ctx<Seen, ()>| {
            cx.board.set(&p.stuck, false);
            Status::Success
        }
    })
    .unwrap();
    r
}

/// A file of `trees`, running `Main`.
fn file(trees: &str) -> String {
    format!("<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n{trees}\n</root>")
}

fn load(trees: &str) -> Result<Tree<Seen, ()>, String> {
    load_str(
        &registry(),
        &file(trees),
        "issue.xml",
        None,
        &XmlOptions::default(),
    )
    .map_err(|e| e.to_string())
}

/// One tick: the status and what the nodes saw.
fn tick(tree: &Tree<Seen, ()>) -> (Status, Seen) {
    let mut seen = Seen::new();
    let status = Agent::new(tree).tick(tree, &mut seen, &());
    (status, seen)
}

#[test]
fn issue_489_a_list_written_on_a_subtree_reaches_its_typed_port() {
    // BehaviorTree.CPP created the entry as a string, then refused the
    // vector port; canopy types the constant by the port that reads it.
    let sub = r#"<BehaviorTree ID="A"><Sequence><Aim at="{states}"/></Sequence></BehaviorTree>"#;
    let tree = load(&format!(
        r#"<BehaviorTree ID="Main"><SubTree ID="A" states="1;2"/></BehaviorTree>{sub}"#
    ))
    .unwrap();
    assert_eq!(
        tick(&tree),
        (Status::Success, vec!["aim [1.0, 2.0]".into()])
    );
    // A script assigning the string to the key the port typed: the
    // point's conversion reads it, as BehaviorTree.CPP 4.10's converter.
    let scripted = load(&format!(
        r#"<BehaviorTree ID="Main"><Sequence><Script code="states := '3;4'"/><SubTree ID="A" states="{{states}}"/></Sequence></BehaviorTree>{sub}"#
    ))
    .unwrap();
    assert_eq!(
        tick(&scripted),
        (Status::Success, vec!["aim [3.0, 4.0]".into()])
    );
}

#[test]
fn issue_653_set_blackboard_in_a_subtree_feeds_a_bool_port() {
    let trees = |value: &str| {
        format!(
            r#"<BehaviorTree ID="Main"><Sequence><SubTree ID="Init" test="{{test}}"/><Assert condition="{{test}}"/></Sequence></BehaviorTree>
<BehaviorTree ID="Init"><SetBlackboard output_key="test" value="{value}"/></BehaviorTree>"#
        )
    };
    let tree = load(&trees("true")).unwrap();
    assert_eq!(tick(&tree), (Status::Success, vec![]));
    // "yes" is no bool: BehaviorTree.CPP throws when SetBlackboard runs;
    // canopy loads the tree and the SetBlackboard fails there.
    let tree = load(&trees("yes")).unwrap();
    assert_eq!(tick(&tree), (Status::Failure, vec![]));
}

#[test]
fn issue_433_one_key_read_by_two_subtrees_keeps_its_one_type() {
    // BehaviorTree.CPP locked the entry as int, then failed on a second
    // reader it typed `void`; canopy has one type per key, checked at load.
    let trees = |reader: &str| {
        format!(
            r#"<BehaviorTree ID="Main"><Sequence><SetBlackboard output_key="test_port" value="1"/><SubTree ID="One" port_to_use="{{test_port}}"/><SubTree ID="Two" port_to_read="{{test_port}}"/></Sequence></BehaviorTree>
<BehaviorTree ID="One"><Count n="{{port_to_use}}"/></BehaviorTree>
<BehaviorTree ID="Two">{reader}</BehaviorTree>"#
        )
    };
    let tree = load(&trees(r#"<Count n="{port_to_read}"/>"#)).unwrap();
    assert_eq!(
        tick(&tree),
        (Status::Success, vec!["count 1".into(), "count 1".into()])
    );
    assert_eq!(
        load(&trees(r#"<Takeoff drone_id="{port_to_read}"/>"#)).unwrap_err(),
        "issue.xml:4:24: <Takeoff>: port \"drone_id\" wants key \"{test_port}\" to hold \
         std::string, but it holds int since its first use at issue.xml:3:24: <Count>; \
         remapped from \"port_to_use\" at issue.xml:2:84: <SubTree ID=\"One\">, from \
         \"port_to_read\" at issue.xml:2:129: <SubTree ID=\"Two\">"
    );
}

#[test]
fn issue_605_a_remapped_bool_stays_a_bool_in_the_subtree() {
    let trees = |assign: &str| {
        format!(
            r#"<BehaviorTree ID="Sub"><Script code=" my_value:={assign} "/></BehaviorTree>
<BehaviorTree ID="Main"><Sequence><Script code=" my_value:=true "/><SubTree ID="Sub" my_value="{{my_value}}  "/><Assert condition="{{my_value}}"/></Sequence></BehaviorTree>"#
        )
    };
    // The subtree's false reaches the parent's key: the Assert fails.
    let tree = load(&trees("false")).unwrap();
    assert_eq!(tick(&tree), (Status::Failure, vec![]));
    // A string the bool's conversion reads is assigned; one it does not
    // fails the Script when it runs, where BehaviorTree.CPP throws.
    let tree = load(&trees("'true'")).unwrap();
    assert_eq!(tick(&tree), (Status::Success, vec![]));
    let tree = load(&trees("'no'")).unwrap();
    assert_eq!(tick(&tree), (Status::Failure, vec![]));
}

#[test]
fn issue_716_two_output_ports_of_two_types_on_one_key() {
    let refused = load(
        r#"<BehaviorTree ID="Main"><Sequence><Speed speed="{value}"/><Stuck stuck="{value}"/></Sequence></BehaviorTree>"#,
    );
    assert_eq!(
        refused.unwrap_err(),
        "issue.xml:2:59: <Stuck>: port \"stuck\" wants key \"{value}\" to hold bool, but it holds \
         double since its first use at issue.xml:2:35: <Speed>"
    );
}

#[test]
fn issue_889_a_groot_subtree_gets_its_drone_id_written_on_the_call() {
    let trees = |call: &str, port: &str| {
        format!(
            r#"<BehaviorTree ID="Main"><Sequence><SubTree ID="Scan" {call}/></Sequence></BehaviorTree>
<BehaviorTree ID="Scan"><{port}/></BehaviorTree>"#
        )
    };
    let tree = load(&trees(
        r#"drone_id="drone_1""#,
        r#"Takeoff drone_id="{drone_id}""#,
    ))
    .unwrap();
    assert_eq!(
        tick(&tree),
        (Status::Success, vec!["takeoff drone_1".into()])
    );
    assert_eq!(
        load(&trees(r#"drone_id="drone_1""#, r#"Count n="{drone_id}""#)).unwrap_err(),
        "issue.xml:3:25: <Count>: parameter \"n\" must be an integer, got string \"drone_1\""
    );
}

#[test]
fn issue_737_a_host_value_reaches_every_subtree_through_the_root_key() {
    let trees = |reader: &str| {
        format!(
            r#"<BehaviorTree ID="Main"><Sequence><Count n="{{@server}}"/><SubTree ID="Act"/></Sequence></BehaviorTree>
<BehaviorTree ID="Act"><{reader}/></BehaviorTree>"#
        )
    };
    let tree = load(&trees(r#"Count n="{@server}""#)).unwrap();
    let server = tree.key::<i32>("server").unwrap();
    let mut agent = Agent::new(&tree);
    agent.board_mut(&tree).write(server, 7);
    let mut seen = Seen::new();
    assert_eq!(agent.tick(&tree, &mut seen, &()), Status::Success);
    assert_eq!(seen, ["count 7", "count 7"]);
    assert_eq!(
        load(&trees(r#"Takeoff drone_id="{@server}""#)).unwrap_err(),
        "issue.xml:3:24: <Takeoff>: port \"drone_id\" wants key \"{server}\" to hold std::string, \
         but it holds int since its first use at issue.xml:2:35: <Count>"
    );
}

#[test]
fn issue_623_a_string_remapped_on_a_subtree_reaches_a_pose_port() {
    // BehaviorTree.CPP kept "1;2;3" as a string entry and had to convert
    // it when the Pose2D port read it; canopy types the constant by the
    // port that reads it, at load.
    let trees = |pose: &str| {
        format!(
            r#"<BehaviorTree ID="Main"><ReactiveSequence><SubTree ID="Visit2" tl1="{pose}"/></ReactiveSequence></BehaviorTree>
<BehaviorTree ID="Visit2"><Sequence><Action ID="MoveBase" goal="{{tl1}}"/></Sequence></BehaviorTree>"#
        )
    };
    let tree = load(&trees("1;2;3")).unwrap();
    assert_eq!(
        tick(&tree),
        (Status::Success, vec!["move [1.0, 2.0, 3.0]".into()])
    );
    assert_eq!(
        load(&trees("1;2")).unwrap_err(),
        "issue.xml:3:37: <Action ID=\"MoveBase\">: parameter \"goal\" must be a point [x, y, z], \
         got list [1,2]"
    );
}

#[test]
fn issue_1130_a_root_key_written_in_a_subtree_is_the_root_blackboards() {
    // BehaviorTree.CPP kept `@` keys in a root blackboard of their own,
    // which Groot2's dump of the subtree's blackboard left out; canopy has
    // one blackboard per agent, where `{@count}` in a subtree is the root's
    // `count` and shows under that name beside the subtree's own keys.
    let trees = |reader: &str| {
        format!(
            r#"<BehaviorTree ID="Main"><Sequence><Script code="@count := 1"/><SubTree ID="Step"/><Count n="{{count}}"/></Sequence></BehaviorTree>
<BehaviorTree ID="Step"><Sequence><Script code="@count += 1; mine := 5"/>{reader}</Sequence></BehaviorTree>"#
        )
    };
    let tree = load(&trees(r#"<Count n="{@count}"/>"#)).unwrap();
    let mut agent = Agent::new(&tree);
    let mut seen = Seen::new();
    assert_eq!(agent.tick(&tree, &mut seen, &()), Status::Success);
    assert_eq!(seen, ["count 2", "count 2"]);
    assert_eq!(
        agent.board_values(&tree),
        [
            ("count".to_string(), "2".to_string()),
            ("@Step_1__mine".to_string(), "5".to_string()),
        ]
    );
    // The root key keeps one type through `@` in any subtree: a string
    // port made it first, so the int port reads it converted (as
    // BehaviorTree.CPP lets it). The numbers the scripts assign are stored
    // as their text, where BehaviorTree.CPP stores the numbers themselves,
    // so `+=` on the string key fails the subtree's script (a documented
    // difference).
    let tree = load(&trees(r#"<Takeoff drone_id="{@count}"/>"#)).unwrap();
    let mut seen = Seen::new();
    assert_eq!(
        Agent::new(&tree).tick(&tree, &mut seen, &()),
        Status::Failure
    );
    assert!(seen.is_empty());
}
