//! A Shuffle from a tree file: its `like` read as a word, each node's
//! draws set apart by its salt (the registry's seed and the node's place).

use canopy_core::{Agent, Ctx, Status};
use canopy_data::{Format, Params, Registry, TreeSource};

/// Logs which leaf ran.
#[derive(Params)]
struct Log {
    /// The number to log.
    n: u32,
}

#[test]
fn two_shuffles_of_one_file_draw_apart_and_a_seed_moves_both() {
    let file = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "Shuffle", "children": [
            {"type": "Log", "n": 0}, {"type": "Log", "n": 1}, {"type": "Log", "n": 2}, {"type": "Log", "n": 3}]},
        {"type": "Shuffle", "children": [
            {"type": "Log", "n": 0}, {"type": "Log", "n": 1}, {"type": "Log", "n": 2}, {"type": "Log", "n": 3}]}
    ]}}"#;
    let orders = |seed| {
        let mut registry = Registry::<Vec<u32>, ()>::new().with_seed(seed);
        registry
            .action("Log", |p: Log| {
                move |cx: &mut Ctx<Vec<u32>, ()>| {
                    cx.agent.push(p.n);
                    Status::Failure
                }
            })
            .unwrap();
        let tree = registry
            .loading(TreeSource::text(file, Format::Json, "two.json"))
            .load()
            .unwrap();
        // The first Shuffle fails (a selector of failures): the Sequence stops.
        (0..20)
            .map(|id| {
                let mut log = Vec::new();
                Agent::with_id(&tree, id).tick(&tree, &mut log, &());
                log
            })
            .collect::<Vec<_>>()
    };
    let (a, again, other) = (orders(1), orders(1), orders(2));
    assert_eq!(a, again);
    assert_ne!(a, other);
    assert!(a.iter().all(|log| log.len() == 4));
}

#[test]
fn like_is_a_word_with_a_did_you_mean() {
    let registry = Registry::<(), ()>::new();
    let err = registry
        .loading(TreeSource::text(
            r#"{"tree": {"type": "Shuffle", "like": "sequense"}}"#,
            Format::Json,
            "s.json",
        ))
        .load()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"s.json:1:12: tree (name "Shuffle"): parameter "like" must be one of "sequence", "selector", got "sequense" (did you mean "sequence"?)"#
    );
}
