//! With feature `serde`, a snapshot goes into a game's own serde save file
//! and comes back through the same checks as the binary form.

use canopy::{Agent, Builder, Snapshot, Status, snapshot::RestoreError};

fn day() -> canopy::Tree<u32, ()> {
    let b = Builder::<u32, ()>::new();
    b.build(b.sequence(
        "day",
        [
            b.wait("sleep", 3),
            b.action("work", |cx| {
                *cx.agent += 1;
                Status::Success
            }),
        ],
    ))
    .unwrap()
}

#[test]
fn a_snapshot_in_a_json_save_file_restores_the_agent_where_it_was() {
    let tree = day();
    let mut agent = Agent::new(&tree);
    let mut worked = 0;
    agent.tick(&tree, &mut worked, &());
    let json = serde_json::to_string(&agent.snapshot(&tree)).unwrap();
    let snapshot: Snapshot = serde_json::from_str(&json).unwrap();
    let mut again = Agent::restore(&tree, &snapshot).unwrap();
    assert_eq!(again.ticks(), 1);
    let statuses: Vec<Status> = (0..3)
        .map(|_| again.tick(&tree, &mut worked, &()))
        .collect();
    assert_eq!(
        statuses,
        [Status::Running, Status::Running, Status::Success]
    );
    assert_eq!(worked, 1);
}

#[test]
fn a_snapshot_edited_in_its_save_file_is_refused_as_the_binary_form_is() {
    let tree = day();
    let agent = Agent::new(&tree);
    let mut json: serde_json::Value = serde_json::to_value(agent.snapshot(&tree)).unwrap();
    json["memory"] = serde_json::json!([1, 2, 3]);
    let snapshot: Snapshot = serde_json::from_value(json).unwrap();
    let err = Agent::restore(&tree, &snapshot).unwrap_err();
    assert!(matches!(err, RestoreError::Corrupt { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the snapshot is damaged: its memory is not the size this tree lays out"
    );
}
