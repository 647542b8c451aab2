//! Shuffle: a Sequence or Selector over its children in an order drawn per
//! agent, each time it is entered.
//!
//! Most of it is data: `testdata/semantics/shuffle.toml` (orders pinned
//! by seed and agent, a new draw per entry, where the order stops, a
//! running child resumed, no children), run on every engine by
//! `crates/canopy-reference/tests/scenarios/`. What stays here needs Rust:
//! properties over many agents (every order a permutation, many distinct
//! orders, the stop at the odd child out for each), a long run compared
//! across modes, snapshots, and the printed node.

use std::collections::BTreeSet;

use canopy_core::nodes::{Like, Shuffle};
use canopy_core::{Agent, Builder, Event, EventKind, Mode, Observer, Snapshot, Status, Tree};

/// The agent data: which children ran, in order.
type Order = Vec<usize>;

/// A Shuffle like `like` over `n` leaves; leaf `i` returns `status(i,
/// tick, log so far)` and logs `i`.
fn shuffle(like: Like, n: usize, status: fn(usize, u32, &[usize]) -> Status) -> Tree<Order, ()> {
    let b = Builder::<Order, ()>::new();
    let leaves: Vec<_> = (0..n)
        .map(|i| {
            b.action(&format!("c{i}"), move |cx| {
                let status = status(i, cx.tick, cx.agent);
                cx.agent.push(i);
                status
            })
        })
        .collect();
    b.build(b.node("shuffle", Shuffle { like, salt: 7 }, leaves))
        .unwrap()
}

#[test]
fn each_activation_tries_every_child_once_in_an_order_of_its_own() {
    let tree = shuffle(Like::Selector, 5, |_, _, _| Status::Failure);
    let mut orders = BTreeSet::new();
    for id in 0..40 {
        let mut agent = Agent::with_id(&tree, id);
        for _ in 0..3 {
            let mut order = Order::new();
            assert_eq!(agent.tick(&tree, &mut order, &()), Status::Failure);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4], "a permutation");
            orders.insert(order);
        }
    }
    // 120 draws of 120 possible orders: far more than a handful differ.
    assert!(orders.len() > 40, "only {} distinct orders", orders.len());
}

#[test]
fn a_sequence_stops_at_the_first_failure_and_a_selector_at_the_first_success() {
    // Child 2 is the odd one out; the order decides how many run before it.
    let sequence = shuffle(Like::Sequence, 4, |i, _, _| {
        if i == 2 {
            Status::Failure
        } else {
            Status::Success
        }
    });
    let selector = shuffle(Like::Selector, 4, |i, _, _| {
        if i == 2 {
            Status::Success
        } else {
            Status::Failure
        }
    });
    for (tree, expected) in [(&sequence, Status::Failure), (&selector, Status::Success)] {
        for id in 0..20 {
            let mut order = Order::new();
            let status = Agent::with_id(tree, id).tick(tree, &mut order, &());
            assert_eq!(status, expected);
            assert_eq!(order.last(), Some(&2), "stops at the odd one out");
            assert!(!order[..order.len() - 1].contains(&2));
        }
    }
}

/// Events as `(tick, node, kind)`.
#[derive(Default)]
struct Log(Vec<(u32, usize, EventKind)>);

impl Observer for Log {
    fn event(&mut self, e: Event) {
        // Event mode skips Running updates of a Shuffle whose code does
        // not run: compare what both modes report.
        if !(e.node.index() == 0 && e.kind == EventKind::Update(Status::Running)) {
            self.0.push((e.tick, e.node.index(), e.kind));
        }
    }
}

#[test]
fn tick_and_event_mode_report_the_same_run() {
    let tree = shuffle(Like::Sequence, 4, |i, tick, _| {
        match (i + tick as usize) % 3 {
            0 => Status::Running,
            1 => Status::Success,
            _ => Status::Failure,
        }
    });
    let run = |mode| {
        let mut agent = Agent::with_id(&tree, 5);
        agent.set_mode(&tree, mode);
        let (mut order, mut log) = (Order::new(), Log::default());
        let statuses: Vec<Status> = (0..30)
            .map(|_| agent.tick_observed(&tree, &mut order, &(), &mut log))
            .collect();
        (statuses, order, log.0)
    };
    assert_eq!(run(Mode::Tick), run(Mode::Event));
}

#[test]
fn a_restored_agent_goes_on_in_the_order_it_drew() {
    let tree = shuffle(Like::Sequence, 5, |_, tick, _| {
        if tick % 3 == 0 {
            Status::Success
        } else {
            Status::Running
        }
    });
    let mut agent = Agent::with_id(&tree, 2);
    let mut order = Order::new();
    for _ in 0..4 {
        agent.tick(&tree, &mut order, &());
    }
    let bytes = agent.snapshot(&tree).to_bytes();
    let mut restored = Agent::restore(&tree, &Snapshot::from_bytes(&bytes).unwrap()).unwrap();
    let (mut a, mut b) = (order.clone(), order);
    for _ in 0..12 {
        assert_eq!(
            agent.tick(&tree, &mut a, &()),
            restored.tick(&tree, &mut b, &())
        );
    }
    assert_eq!(a, b);
}

#[test]
fn it_prints_its_parameter_but_not_its_salt() {
    let tree = shuffle(Like::Selector, 1, |_, _, _| Status::Success);
    assert_eq!(
        tree.display().to_string(),
        "shuffle  Shuffle(like=selector)\n└── c0  Action\n"
    );
}
