//! The trace format: the writer writes what `canopy run --trace` writes,
//! the recorder writes what the streaming writer writes, and the reader
//! reads both back exactly or names the broken line.

mod common;

use canopy_core::{Agent, EventKind, Status, Tree};
use canopy_inspector::trace::{Record, TraceReader, TraceWriter, What};
use canopy_inspector::{RECORD_BYTES, Recorder, Selection, Shape};
use proptest::prelude::*;

/// Every event of `agents` agents over `ticks` ticks, streamed as
/// `canopy run --trace` does: per tick, agents in id order.
fn streamed(tree: &Tree<(), ()>, agents: u32, ticks: u32) -> String {
    let shape = Shape::of(tree);
    let mut out = Vec::new();
    let mut writer = TraceWriter::new(&shape, &mut out);
    let mut crowd: Vec<Agent> = (0..agents).map(|i| Agent::with_id(tree, i)).collect();
    for _ in 0..ticks {
        for agent in &mut crowd {
            let status = agent.tick_observed(tree, &mut (), &(), &mut writer);
            writer.end_tick(agent.ticks(), agent.id(), status).unwrap();
        }
    }
    String::from_utf8(out).unwrap()
}

/// The same run through a recorder, written at the end.
fn recorded(
    tree: &Tree<(), ()>,
    selection: Selection,
    capacity: usize,
    ticks: u32,
) -> (Recorder, String) {
    let agents = match &selection {
        Selection::All(n) => *n,
        Selection::Agents(ids) => ids.iter().max().map_or(0, |m| m + 1),
    };
    let recorder = Recorder::new(selection, capacity);
    let mut crowd: Vec<Agent> = (0..agents).map(|i| Agent::with_id(tree, i)).collect();
    for _ in 0..ticks {
        for agent in &mut crowd {
            recorder.tick(agent, tree, &mut (), &());
        }
    }
    let mut out = Vec::new();
    recorder.write_trace(&Shape::of(tree), &mut out).unwrap();
    (recorder, String::from_utf8(out).unwrap())
}

#[test]
fn the_writer_writes_the_command_s_trace_lines() {
    let text = streamed(&common::takeover(), 1, 4);
    let lines: Vec<&str> = text.lines().collect();
    let walk = r#""node":"walk \"north\"","type":"Script","id":5"#;
    let expected_tick_3 = [
        r#"{"tick":3,"agent":0,"event":"enter","node":"alert","type":"Sequence","id":1}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"enter","node":"threat?","type":"Script","id":2}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"update","node":"threat?","type":"Script","id":2,"status":"Success"}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"exit","node":"threat?","type":"Script","id":2,"status":"Success"}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"enter","node":"flee","type":"Script","id":3}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"update","node":"flee","type":"Script","id":3,"status":"Running"}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"update","node":"alert","type":"Sequence","id":1,"status":"Running"}"#.to_string(),
        format!(r#"{{"tick":3,"agent":0,"event":"abort",{walk}}}"#),
        r#"{"tick":3,"agent":0,"event":"abort","node":"patrol","type":"Sequence","id":4}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"update","node":"root","type":"ReactiveSelector","id":0,"status":"Running"}"#.to_string(),
        r#"{"tick":3,"agent":0,"event":"tick","status":"Running"}"#.to_string(),
    ];
    // Tick 1 has 13 lines, tick 2 has 10 (as the command's own test says).
    assert_eq!(lines[23..34], expected_tick_3);
    assert_eq!(lines.len(), 13 + 10 + 11 + 7);
    assert_eq!(
        lines[0],
        r#"{"tick":1,"agent":0,"event":"enter","node":"root","type":"ReactiveSelector","id":0}"#
    );
    assert_eq!(
        lines[40],
        r#"{"tick":4,"agent":0,"event":"tick","status":"Success"}"#
    );
}

#[test]
fn a_recorder_of_every_agent_writes_the_streamed_trace() {
    let tree = common::sentry(7);
    let (recorder, text) = recorded(&tree, Selection::All(5), 10_000, 60);
    assert_eq!(text, streamed(&common::sentry(7), 5, 60));
    assert_eq!(recorder.dropped(), 0);
}

#[test]
fn a_recorder_of_chosen_agents_writes_their_lines_only() {
    let tree = common::sentry(3);
    let (_, text) = recorded(&tree, Selection::Agents(vec![4, 1, 4]), 10_000, 30);
    let all = streamed(&common::sentry(3), 5, 30);
    let mine: Vec<&str> = all
        .lines()
        .filter(|l| l.contains(r#""agent":1,"#) || l.contains(r#""agent":4,"#))
        .collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), mine);
}

fn tick_of(line: &str) -> u64 {
    serde_json::from_str::<serde_json::Value>(line).unwrap()["tick"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_full_log_drops_its_oldest_records_and_writes_whole_ticks() {
    let (recorder, text) = recorded(&common::takeover(), Selection::All(1), 25, 8);
    let all = streamed(&common::takeover(), 1, 8);
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 75);
    // The log holds the last 25 records; the oldest tick among them lost
    // its first events, so it is left out.
    let kept = &lines[lines.len() - 25..];
    let partial = tick_of(kept[0]);
    let whole: Vec<&str> = kept
        .iter()
        .copied()
        .filter(|l| tick_of(l) != partial)
        .collect();
    assert_eq!((partial, whole.len()), (5, 24));
    assert_eq!(text.lines().collect::<Vec<_>>(), whole);
    assert_eq!(recorder.dropped(), 75 - 25);
}

#[test]
fn recorder_memory_is_fixed_when_it_is_made() {
    assert_eq!(RECORD_BYTES, 16);
    let tree = common::sentry(1);
    let recorder = Recorder::new(Selection::All(10), 64);
    let before = recorder.memory_bytes();
    assert!(before >= 10 * 64 * RECORD_BYTES, "{before}");
    let mut crowd: Vec<Agent> = (0..10).map(|i| Agent::with_id(&tree, i)).collect();
    for _ in 0..500 {
        for agent in &mut crowd {
            recorder.tick(agent, &tree, &mut (), &());
        }
    }
    assert_eq!(recorder.memory_bytes(), before);
    assert!(recorder.records().len() <= 10 * 64);
    assert!(recorder.dropped() > 0);
}

#[test]
fn unrecorded_agents_tick_as_usual() {
    let tree = common::sentry(5);
    let recorder = Recorder::new(Selection::Agents(vec![2]), 100);
    assert!(recorder.is_recorded(2));
    assert!(!recorder.is_recorded(3));
    let mut plain: Vec<Agent> = (0..4).map(|i| Agent::with_id(&tree, i)).collect();
    let mut through: Vec<Agent> = plain.clone();
    for _ in 0..50 {
        for (a, b) in plain.iter_mut().zip(&mut through) {
            assert_eq!(
                a.tick(&tree, &mut (), &()),
                recorder.tick(b, &tree, &mut (), &())
            );
            assert_eq!(a.active_tasks(&tree), b.active_tasks(&tree));
        }
    }
}

#[test]
fn the_reader_reads_back_what_was_written() {
    let tree = common::takeover();
    let text = streamed(&tree, 2, 4);
    let lines: Vec<_> = TraceReader::new(text.as_bytes(), "t.jsonl")
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(lines.len(), 2 * 41);
    let shape = Shape::of(&tree);
    let mut again = Vec::new();
    for line in &lines {
        canopy_inspector::trace::write_record(&mut again, &shape, &line.record).unwrap();
    }
    assert_eq!(String::from_utf8(again).unwrap(), text);
    let abort = &lines[2 * 23 + 7]; // tick 3's abort of walk, agent 0 (agents alternate per tick)
    assert_eq!(
        abort.record,
        Record {
            tick: 3,
            agent: 0,
            what: What::Node {
                id: 5,
                kind: EventKind::Abort
            }
        }
    );
    assert_eq!(abort.node.as_ref().unwrap().name, "walk \"north\"");
    assert_eq!(abort.line, 2 * 23 + 8);
}

fn first_error(text: &str) -> String {
    TraceReader::new(text.as_bytes(), "t.jsonl")
        .find_map(Result::err)
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn broken_lines_are_named_with_the_problem() {
    let ok = r#"{"tick":1,"agent":0,"event":"tick","status":"Running"}"#;
    let cases = [
        (format!("{ok}\n\n{{\"tick\":1,"), "t.jsonl:3: not a trace line: EOF while parsing a value at line 1 column 10"),
        (
            r#"{"tick":1,"agent":0,"event":"update","node":"a","type":"Wait","id":1}"#.to_string(),
            "t.jsonl:1: an update line needs the field \"status\"",
        ),
        (
            r#"{"tick":1,"agent":0,"event":"exit","node":"a","type":"Wait","id":1,"status":"Running"}"#.to_string(),
            "t.jsonl:1: an exit cannot be Running",
        ),
        (
            r#"{"tick":1,"agent":0,"event":"enter","node":"a","type":"Wait","id":1,"status":"Running"}"#.to_string(),
            "t.jsonl:1: an enter line has no field \"status\"",
        ),
        (
            r#"{"tick":1,"agent":0,"event":"enter","node":"a","type":"Wait"}"#.to_string(),
            "t.jsonl:1: an enter line needs the field \"id\"",
        ),
        (
            r#"{"tick":1,"agent":0,"event":"abort","type":"Wait","id":2}"#.to_string(),
            "t.jsonl:1: an abort line needs the field \"node\"",
        ),
        (
            r#"{"tick":1,"agent":0,"event":"jump\u001b","status":"Running"}"#.to_string(),
            "t.jsonl:1: unknown event \"jump\\u{1b}\", expected enter, update, exit, abort or tick",
        ),
        (
            r#"{"tick":1,"agent":0,"event":"tick","status":"Done"}"#.to_string(),
            "t.jsonl:1: unknown status \"Done\", expected Running, Success or Failure",
        ),
        (
            r#"{"tick":-1,"agent":0,"event":"tick","status":"Running"}"#.to_string(),
            "t.jsonl:1: not a trace line: invalid value: integer `-1`, expected u32 at line 1 column 10",
        ),
        (
            "{\"tick\":\"\u{202e}\u{200b}1\",\"agent\":0}".to_string(),
            // serde quotes the string as Rust does; the message is escaped again,
            // as every message written by other code is.
            r#"t.jsonl:1: not a trace line: invalid type: string "\\u{202e}\\u{200b}1", expected u32 at line 1 column 17"#,
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(first_error(&text), expected, "{text}");
    }
}

#[test]
fn a_line_too_long_is_refused_without_reading_it_all() {
    let long = format!("{{\"tick\":1,\"node\":\"{}\"}}\n", "x".repeat(2 << 20));
    assert_eq!(
        first_error(&long),
        "t.jsonl:1: line longer than 1048576 bytes"
    );
    let mut reader = TraceReader::new(long.as_bytes(), "t.jsonl");
    assert!(reader.next().unwrap().is_err());
    assert!(reader.next().is_none(), "an error ends the trace");
}

#[test]
fn tick_lines_read_as_the_root_status() {
    let text = r#"{"tick":9,"agent":3,"event":"tick","status":"Failure"}"#;
    let line = TraceReader::new(text.as_bytes(), "t")
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(
        line.record,
        Record {
            tick: 9,
            agent: 3,
            what: What::Tick(Status::Failure)
        }
    );
    assert_eq!(line.node, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Two ways to the same trace: streamed while ticking, and recorded
    /// then written; and the reader gives back exactly the records.
    #[test]
    fn streamed_and_recorded_traces_agree(seed in 0u64..1000, agents in 1u32..6, ticks in 1u32..80) {
        let (recorder, text) = recorded(&common::sentry(seed), Selection::All(agents), 100_000, ticks);
        prop_assert_eq!(&text, &streamed(&common::sentry(seed), agents, ticks));
        let read: Vec<Record> = TraceReader::new(text.as_bytes(), "t")
            .map(|l| l.unwrap().record)
            .collect();
        prop_assert_eq!(read, recorder.records());
    }
}
