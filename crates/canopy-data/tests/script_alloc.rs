//! Script nodes from a file allocate nothing per tick, counted by the
//! counting allocator: a loop over a queue string on the blackboard, which
//! cuts an item from the string and assigns it every other tick, and the
//! pre-conditions and Precondition `else="RUNNING"` around it.

use canopy_core::{Agent, Status};
use canopy_counting::Counting;
use canopy_data::{Format, Registry, TreeSource};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_loop_over_a_queue_string_and_a_waiting_precondition_allocate_nothing_per_tick() {
    let json = r#"{"tree": {"type": "Sequence", "children": [
        {"type": "Eval", "code": "q := '1;2;3;4;5;6;7;8;9'; n := 0; t := 0"},
        {"type": "ReactiveSequence", "children": [
            {"type": "Eval", "code": "t += 1"},
            {"type": "EvalAround", "running_if": "t < 3", "children": [
                {"type": "EvalLoop", "queue": "q", "value": "n := 0", "item": "whole",
                 "children": [{"type": "Wait", "ticks": 1}]}]}]}]}}"#;
    let tree = Registry::<(), ()>::new()
        .loading(TreeSource::text(json, Format::Json, "queue.json"))
        .load()
        .unwrap();
    let mut agent = Agent::new(&tree);
    // Warm up: the first ticks install what the agent keeps.
    for _ in 0..3 {
        assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running);
    }
    let mut statuses = [Status::Failure; 18];
    let mut allocations = [u64::MAX; 18];
    for (status, count) in statuses.iter_mut().zip(&mut allocations) {
        let before = canopy_counting::stats().allocations;
        *status = agent.tick(&tree, &mut (), &());
        *count = canopy_counting::stats().allocations - before;
    }
    assert_eq!(allocations, [0; 18]);
    // Two ticks per item (the Wait), nine items, then the empty queue.
    assert_eq!(statuses[..17], [Status::Running; 17]);
    assert_eq!(statuses[17], Status::Success);
    // The loop took its items from its own copy: the key keeps its string.
    let board = agent.board_values(&tree);
    assert_eq!(
        board[0],
        ("q".to_string(), "\"1;2;3;4;5;6;7;8;9\"".to_string())
    );
    assert_eq!(board[1], ("n".to_string(), "9".to_string()));
}
