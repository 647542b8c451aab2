//! The builder's shortcuts, made from the kinds' table, build exactly what
//! `Builder::node` builds from the kind itself — one for every kind a tree
//! file can name, `shuffle` included.

use canopy_core::nodes::{self, Like};
use canopy_core::{Afterwards, Builder, Policy};

/// The printed tree of `root`, built with `b`.
fn shown<'b>(b: &'b Builder<'b, (), ()>, root: &'b canopy_core::Draft<'b, (), ()>) -> String {
    b.build(root).unwrap().display().to_string()
}

#[test]
fn every_kind_without_code_has_a_shortcut_that_builds_what_node_builds() {
    let (s, n) = (Builder::<(), ()>::new(), Builder::<(), ()>::new());
    let by_shortcut = s.sequence(
        "all",
        [
            s.selector("sel", [s.always_success("ok")]),
            s.sequence_with_memory("mem", [s.always_failure("no")]),
            s.reactive_sequence("rseq", [s.always_running("run")]),
            s.reactive_selector("rsel", [s.always_success("ok")]),
            s.parallel("par", Policy::One, Policy::All, [s.wait("w", 3)]),
            s.shuffle(
                "shuf",
                Like::Sequence,
                7,
                [s.always_success("a"), s.always_failure("b")],
            ),
            s.inverter("inv", s.always_success("ok")),
            s.force_success("fs", s.always_failure("no")),
            s.force_failure("ff", s.always_success("ok")),
            s.repeat("rep", 2, s.always_success("ok")),
            s.retry("ret", 4, s.always_failure("no")),
            s.timeout("to", 5, s.always_running("run")),
            s.cooldown("cd", 6, s.always_success("ok")),
            s.run_once("once", Afterwards::Success, s.always_success("ok")),
        ],
    );
    let by_node = n.node(
        "all",
        nodes::Sequence,
        [
            n.node(
                "sel",
                nodes::Selector,
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
            n.node(
                "mem",
                nodes::SequenceWithMemory::default(),
                [n.node("no", nodes::AlwaysFailure, [])],
            ),
            n.node(
                "rseq",
                nodes::ReactiveSequence,
                [n.node("run", nodes::AlwaysRunning, [])],
            ),
            n.node(
                "rsel",
                nodes::ReactiveSelector,
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
            n.node(
                "par",
                nodes::Parallel {
                    success: Policy::One,
                    failure: Policy::All,
                },
                [n.node("w", nodes::Wait { ticks: 3 }, [])],
            ),
            n.node(
                "shuf",
                nodes::Shuffle {
                    like: Like::Sequence,
                    salt: 7,
                },
                [
                    n.node("a", nodes::AlwaysSuccess, []),
                    n.node("b", nodes::AlwaysFailure, []),
                ],
            ),
            n.node(
                "inv",
                nodes::Inverter,
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
            n.node(
                "fs",
                nodes::ForceSuccess,
                [n.node("no", nodes::AlwaysFailure, [])],
            ),
            n.node(
                "ff",
                nodes::ForceFailure,
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
            n.node(
                "rep",
                nodes::Repeat { times: 2 },
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
            n.node(
                "ret",
                nodes::Retry { times: 4 },
                [n.node("no", nodes::AlwaysFailure, [])],
            ),
            n.node(
                "to",
                nodes::Timeout { ticks: 5 },
                [n.node("run", nodes::AlwaysRunning, [])],
            ),
            n.node(
                "cd",
                nodes::Cooldown { ticks: 6 },
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
            n.node(
                "once",
                nodes::RunOnce {
                    then: Afterwards::Success,
                },
                [n.node("ok", nodes::AlwaysSuccess, [])],
            ),
        ],
    );
    let (made, expected) = (shown(&s, by_shortcut), shown(&n, by_node));
    assert_eq!(made, expected);
    // Every kind a tree file can name appears, by its type name.
    for kind in nodes::builtins::<(), ()>() {
        assert!(
            made.contains(kind.name),
            "{} has no shortcut in this test:\n{made}",
            kind.name
        );
    }
}
