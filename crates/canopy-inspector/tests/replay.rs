//! Replaying a recording: the trace checked against the tree, the map and
//! the agent at any tick, and the server answering the page.

mod common;

use canopy_core::Agent;
use canopy_inspector::replay::{self, Recording, ReplayError};
use canopy_inspector::trace::TraceWriter;
use canopy_inspector::{Recorder, Selection, Shape};

/// The takeover tree run by `agents` agents for `ticks` ticks, as a trace.
fn takeover_trace(agents: u32, ticks: u32) -> String {
    let tree = common::takeover();
    let recorder = Recorder::new(Selection::All(agents), 10_000);
    let mut crowd: Vec<Agent> = (0..agents).map(|i| Agent::with_id(&tree, i)).collect();
    for _ in 0..ticks {
        for agent in &mut crowd {
            recorder.tick(agent, &tree, &mut (), &());
        }
    }
    let mut out = Vec::new();
    recorder.write_trace(&Shape::of(&tree), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn recording(text: &str) -> Result<Recording, ReplayError> {
    Recording::read(text.as_bytes(), "t.jsonl", Shape::of(&common::takeover()))
}

#[test]
fn scrubbing_moves_the_running_path() {
    let recording = recording(&takeover_trace(2, 6)).unwrap();
    assert_eq!(recording.ticks(), 1..=6);
    assert_eq!(recording.agents().collect::<Vec<_>>(), [0, 1]);
    let running = |tick| recording.agent_at(1, tick).unwrap().running();
    assert_eq!(running(2), [0, 4, 5]);
    assert_eq!(running(3), [0, 1, 3]);
    assert_eq!(running(4), Vec::<u32>::new());
    // Tick 5 restarts the tree; threat? stays on Success, so alert runs at once.
    assert_eq!(running(5), [0, 1, 3]);
    assert!(recording.agent_at(2, 3).is_none());
    let view = recording.agent_at(0, 3).unwrap();
    assert_eq!(view.events.last().unwrap().tick, 3);
    assert_eq!(view.events.len(), 13 + 10 + 11);
}

#[test]
fn the_map_colours_agents_by_branch() {
    let recording = recording(&takeover_trace(3, 4)).unwrap();
    // Label 1 is the root's first child (alert), 2 its second (patrol).
    let labels = |tick| {
        let bytes = recording.frame_at(tick).encode();
        assert_eq!(&bytes[..4], b"CNPY");
        assert_eq!(bytes[5], 0, "no positions, ids 0..n");
        bytes[32..].to_vec()
    };
    assert_eq!(labels(0), [0, 0, 0]);
    assert_eq!(labels(2), [2, 2, 2]);
    assert_eq!(labels(3), [1, 1, 1]);
    assert_eq!(labels(4), [0, 0, 0]);
}

fn error(text: &str) -> String {
    recording(text)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn a_trace_from_another_tree_is_refused_with_the_line() {
    let line = r#"{"tick":1,"agent":0,"event":"enter","node":"walk","type":"Wait","id":4}"#;
    assert_eq!(
        error(line),
        r#"t.jsonl:1: node 4 is "walk" ("Wait") in the trace but "patrol" ("Sequence") in the tree"#
    );
    let line = r#"{"tick":1,"agent":0,"event":"enter","node":"x","type":"Wait","id":6}"#;
    assert_eq!(
        error(line),
        "t.jsonl:1: node 6 is not in the tree (6 nodes)"
    );
    let long = format!(
        r#"{{"tick":1,"agent":0,"event":"enter","node":"{}","type":"Sequence","id":4}}"#,
        "p".repeat(100)
    );
    assert_eq!(
        error(&long),
        format!(
            r#"t.jsonl:1: node 4 is "{}…" (100 characters) ("Sequence") in the trace but "patrol" ("Sequence") in the tree"#,
            "p".repeat(80)
        )
    );
}

#[test]
fn ticks_must_not_go_back_for_an_agent() {
    let text = [
        r#"{"tick":2,"agent":0,"event":"tick","status":"Running"}"#,
        r#"{"tick":1,"agent":1,"event":"tick","status":"Running"}"#,
        r#"{"tick":1,"agent":0,"event":"tick","status":"Running"}"#,
    ]
    .join("\n");
    assert_eq!(
        error(&text),
        "t.jsonl:3: agent 0: tick 1 comes after tick 2"
    );
}

#[test]
fn an_empty_trace_and_a_broken_one_are_errors() {
    assert_eq!(error("\n\n"), "t.jsonl: no events");
    assert_eq!(
        error("{\"tick\":1,\"agent\":0,\"event\":\"tick\"}"),
        "t.jsonl:1: a tick line needs the field \"status\""
    );
    let missing = Recording::open(
        std::path::Path::new("no/such/trace.jsonl"),
        Shape::of(&common::takeover()),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        missing.starts_with("no/such/trace.jsonl: cannot read: "),
        "{missing}"
    );
}

/// A minimal HTTP/1.1 GET; returns status and body.
fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Vec<u8>) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let status = head[9..12].parse().unwrap();
    (status, response[split + 4..].to_vec())
}

#[test]
fn the_server_answers_the_page() {
    let dir = std::env::temp_dir().join(format!("canopy-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("takeover.jsonl");
    let mut file = std::fs::File::create(&trace).unwrap();
    let tree = common::takeover();
    let shape = Shape::of(&tree);
    let mut writer = TraceWriter::new(&shape, &mut file);
    let mut agent = Agent::with_id(&tree, 0);
    for _ in 0..4 {
        let status = agent.tick_observed(&tree, &mut (), &(), &mut writer);
        writer.end_tick(agent.ticks(), agent.id(), status).unwrap();
    }
    drop(file);

    let server = replay::serve(&trace, &tree, "127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = server.addr();
    assert_eq!(server.url(), format!("http://{addr}/"));

    let (status, hello) = get(addr, "/api/hello");
    assert_eq!(status, 200);
    let hello: serde_json::Value = serde_json::from_slice(&hello).unwrap();
    assert_eq!(hello["mode"], "replay");
    assert_eq!(
        (hello["first_tick"].as_u64(), hello["last_tick"].as_u64()),
        (Some(1), Some(4))
    );
    let legend: Vec<&str> = hello["legend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(legend, ["none running", "alert", "patrol"]);
    assert_eq!(hello["shape"]["nodes"][5]["name"], "walk \"north\"");

    let recording = Recording::open(&trace, shape).unwrap();
    let (status, frame) = get(addr, "/api/replay/frame?tick=3");
    assert_eq!((status, frame), (200, recording.frame_at(3).encode()));
    let (status, view) = get(addr, "/api/replay/agent?agent=0&tick=3");
    assert_eq!(status, 200);
    let view: serde_json::Value = serde_json::from_slice(&view).unwrap();
    let running: Vec<u64> = view["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["running"] == true)
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert_eq!(running, [0, 1, 3]);
    assert_eq!(get(addr, "/api/replay/agent?agent=7&tick=3").0, 404);
    assert_eq!(get(addr, "/api/replay/frame?tick=x").0, 400);

    let (status, page) = get(addr, "/");
    assert_eq!(status, 200);
    assert!(
        String::from_utf8(page)
            .unwrap()
            .contains("<script src=\"/app.js\">")
    );
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
