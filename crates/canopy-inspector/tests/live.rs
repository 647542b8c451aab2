//! The live inspector over real sockets: viewers never hold the
//! simulation, the latest frame always arrives, the page's requests watch
//! and control, and other sites are refused.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use canopy_core::{Agent, Builder};
use canopy_data::TreeSource;
use canopy_inspector::control::Command;
use canopy_inspector::{ClassLabel, EngineView, Frame, Inspector, Options, Shape};
use tungstenite::Message;

fn options() -> Options {
    Options {
        addr: "127.0.0.1:0".parse().unwrap(),
        max_fps: 0.0,
        ..Options::default()
    }
}

fn start() -> Inspector {
    Inspector::start(&common::takeover(), options()).unwrap()
}

/// Wait for something the server does on its own thread. Not a timing
/// test: the condition is what is checked; the limit only keeps a broken
/// build from hanging forever.
fn until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(30), "never: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A minimal HTTP/1.1 request; returns the status code.
fn request(addr: SocketAddr, method: &str, path: &str, body: &str, origin: Option<&str>) -> u16 {
    let mut stream = TcpStream::connect(addr).unwrap();
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{origin}Content-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response[9..12].parse().unwrap()
}

/// `GET path`: the status code and the body.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head[9..12].parse().unwrap(), body.to_string())
}

type Socket = tungstenite::WebSocket<TcpStream>;

fn viewer(inspector: &Inspector) -> Socket {
    let stream = TcpStream::connect(inspector.addr()).unwrap();
    let url = format!("ws://{}/ws", inspector.addr());
    tungstenite::client(url, stream).unwrap().0
}

/// A frame of `agents` agents at `tick`.
fn frame(tick: u32, agents: u32) -> Frame {
    let mut frame = Frame::new();
    frame.begin(tick, [0.0; 2], [1000.0; 2]);
    for i in 0..agents {
        frame.push_at(i, [(i % 1000) as f32, (i / 1000) as f32], (i % 6) as u8);
    }
    frame
}

fn frame_tick(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[8..12].try_into().unwrap())
}

#[test]
fn a_viewer_that_never_reads_neither_stalls_nor_fills_memory() {
    let inspector = start();
    let _stalled = viewer(&inspector); // connected, never read
    until("the viewer is connected", || inspector.stats().clients == 1);
    let big = frame(0, 100_000);
    let size = big.encode().len() as u64;
    assert_eq!(size, 32 + 100_000 * 5);
    for _ in 0..100 {
        inspector.publish(&big);
    }
    // Every publish returned: 50 MB were offered to a socket nobody reads.
    let stats = inspector.stats();
    assert_eq!(stats.frames_published, 100);
    // At most the latest frame and the one stuck in the send are alive.
    assert!(stats.frames_alive <= 2, "{stats:?}");
    // What went out is what the socket buffers took, far from everything.
    assert!(stats.bytes_sent < 50 * size, "{stats:?}");
}

#[test]
fn a_viewer_that_reads_gets_newer_frames_and_the_last_one() {
    let inspector = start();
    let mut socket = viewer(&inspector);
    until("the viewer is connected", || inspector.stats().clients == 1);
    for tick in 1..=200 {
        inspector.publish(&frame(tick, 20_000));
    }
    let mut ticks = Vec::new();
    while ticks.last() != Some(&200) {
        if let Message::Binary(bytes) = socket.read().unwrap() {
            ticks.push(frame_tick(&bytes));
        }
    }
    assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
    assert!(ticks.len() <= 200);
    assert_eq!(inspector.stats().frames_published, 200);
}

/// The next text message of `kind` that `accept` takes.
fn next_json(
    socket: &mut Socket,
    kind: &str,
    accept: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    loop {
        if let Message::Text(text) = socket.read().unwrap() {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            if value["type"] == kind && accept(&value) {
                return value;
            }
        }
    }
}

#[test]
fn the_page_watches_an_agent_and_sees_its_running_path() {
    let tree = common::takeover();
    let inspector = start();
    let mut socket = viewer(&inspector);
    let hello = next_json(&mut socket, "hello", |_| true);
    assert_eq!(hello["mode"], "live");
    assert_eq!(
        hello["shape"],
        serde_json::to_value(Shape::of(&tree)).unwrap()
    );

    assert_eq!(
        request(
            inspector.addr(),
            "POST",
            "/api/watch",
            r#"{"agent":1}"#,
            None
        ),
        204
    );
    assert_eq!(inspector.watched(), Some(1));
    next_json(&mut socket, "status", |s| s["watched"] == 1);

    let mut agents: Vec<Agent> = (0..3).map(|i| Agent::with_id(&tree, i)).collect();
    for tick in 1..=3 {
        let probe = inspector.probe();
        assert_eq!(probe.watched(), Some(1));
        for agent in &mut agents {
            probe.tick(agent, &tree, &mut (), &());
        }
        inspector.publish(&frame(tick, 3));
    }
    let view = next_json(&mut socket, "agent", |v| v["tick"] == 3);
    assert_eq!(view["agent"], 1);
    let running: Vec<u64> = view["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["running"] == true)
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert_eq!(running, [0, 1, 3]);
    // Only agent 1's events: 3 ticks of 12, 9 and 10 events, and 3 tick lines.
    assert_eq!(view["events"].as_array().unwrap().len(), 12 + 9 + 10 + 3);

    // Watching another agent starts its log afresh at the next step.
    inspector.watch(Some(2));
    let probe = inspector.probe();
    for agent in &mut agents {
        probe.tick(agent, &tree, &mut (), &());
    }
    inspector.publish(&frame(4, 3));
    let view = next_json(&mut socket, "agent", |v| v["agent"] == 2);
    assert_eq!(view["tick"], 4);
    assert_eq!(view["events"][0]["tick"], 4);
}

#[test]
fn pause_step_and_resume_from_the_page() {
    let inspector = start();
    let addr = inspector.addr();
    let control = |body: &str| request(addr, "POST", "/api/control", body, None);
    assert!(inspector.switch().try_turn());
    assert_eq!(control(r#"{"action":"pause"}"#), 204);
    assert!(!inspector.switch().try_turn());
    assert_eq!(control(r#"{"action":"step"}"#), 204);
    assert!(inspector.switch().try_turn());
    assert!(!inspector.switch().try_turn());
    assert_eq!(control(r#"{"action":"step","steps":2}"#), 204);
    assert!(inspector.switch().try_turn() && inspector.switch().try_turn());
    assert!(!inspector.switch().try_turn());
    assert_eq!(control(r#"{"action":"resume"}"#), 204);
    assert!(inspector.switch().try_turn());
    assert_eq!(control(r#"{"action":"explode"}"#), 400); // an unknown message: refused, nothing done
}

#[test]
fn a_pause_takes_hold_once_the_page_shows_where_it_stopped() {
    let inspector = start();
    inspector.wait_turn(); // step 1, whose frame is not due: not published
    inspector.control(Command::Pause);
    inspector.wait_turn(); // one more step, so the page shows where it stopped
    assert!(inspector.frame_due());
    inspector.publish(&frame(2, 3));
    assert!(!inspector.switch().try_turn(), "now paused for good");
    assert_eq!(inspector.stats().frames_published, 1);
}

#[test]
fn a_paused_simulation_is_released_when_the_inspector_goes() {
    let inspector = start();
    inspector.publish(&frame(1, 3)); // the page shows the last step
    inspector.control(Command::Pause);
    std::thread::scope(|scope| {
        let sim = scope.spawn(|| inspector.wait_turn()); // paused: waits
        inspector.switch().close();
        sim.join().unwrap();
    });
}

#[test]
fn other_sites_are_refused() {
    let inspector = start();
    let addr = inspector.addr();
    let evil = Some("http://evil.example");
    assert_eq!(
        request(addr, "POST", "/api/watch", r#"{"agent":3}"#, evil),
        403
    );
    assert_eq!(inspector.watched(), None);
    assert_eq!(
        request(addr, "POST", "/api/control", r#"{"action":"pause"}"#, evil),
        403
    );
    assert!(!inspector.switch().is_paused());
    let same = format!("http://{addr}");
    assert_eq!(
        request(addr, "POST", "/api/watch", r#"{"agent":3}"#, Some(&same)),
        204
    );
    assert_eq!(inspector.watched(), Some(3));
    // A WebSocket from another site is refused before the upgrade.
    let stream = TcpStream::connect(addr).unwrap();
    let mut ws_request =
        tungstenite::client::IntoClientRequest::into_client_request(format!("ws://{addr}/ws"))
            .unwrap();
    ws_request
        .headers_mut()
        .insert("Origin", "http://evil.example".parse().unwrap());
    match tungstenite::client(ws_request, stream) {
        Err(tungstenite::handshake::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            assert_eq!(r.status(), 403)
        }
        other => panic!("not refused: {:?}", other.map(|_| ())),
    }
}

#[test]
fn the_builder_api_serves_any_tree() {
    let b = Builder::<u32, ()>::new();
    let tree = b.build(b.wait("nap <b>&amp;</b>", 2)).unwrap();
    let inspector = Inspector::start(&tree, options()).unwrap();
    assert!(inspector.url().starts_with("http://127.0.0.1:"));
    assert_eq!(inspector.shape().node(0).unwrap().name, "nap <b>&amp;</b>");
    let taken = Inspector::start(
        &tree,
        Options {
            addr: inspector.addr(),
            ..options()
        },
    );
    assert_eq!(
        taken.err().map(|e| e.kind()),
        Some(std::io::ErrorKind::AddrInUse)
    );
}

#[test]
fn a_state_machine_crowd_is_shown_through_its_active_paths() {
    use canopy_fsm::{FsmAgent, Hooks, MachineBuilder};
    use canopy_inspector::fsm::{ActiveStates, machine_shape};

    let mut b = MachineBuilder::<(), (), ()>::new();
    b.state("Graze", Hooks::new());
    b.state("Sleep", Hooks::new());
    b.transition("Graze", (), "Sleep");
    b.start("Graze");
    let machine = b.build().unwrap();
    let inspector = Inspector::start_shape(machine_shape(&machine), options()).unwrap();
    let mut socket = viewer(&inspector);
    let mut sheep: Vec<FsmAgent> = (0..5).map(|i| FsmAgent::with_id(&machine, i)).collect();
    for s in &mut sheep {
        s.update(&machine, &mut (), &());
    }
    sheep[3].send(&machine, (), &mut (), &());
    inspector.watch(Some(3));
    let source = ActiveStates::new(&sheep[3], &machine);
    inspector.publish_with(&frame(7, 5), Some(&source));
    let view = next_json(&mut socket, "agent", |v| v["agent"] == 3);
    assert_eq!(view["tick"], 7);
    assert_eq!(view["source"], "engine");
    let running: Vec<u64> = view["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["running"] == true)
        .map(|n| n["id"].as_u64().unwrap())
        .collect();
    assert_eq!(running, [0, 2], "the machine and Sleep");
}

/// A day whose "sleep" runs for ever; `wake` inserts a node before it.
fn day(wake: bool) -> canopy_core::Tree<(), ()> {
    let wake = if wake {
        r#"{"type": "Script", "name": "wake", "statuses": ["Success"]},"#
    } else {
        ""
    };
    let json = format!(
        r#"{{"tree": {{"type": "Sequence", "name": "day", "children": [{wake}
            {{"type": "Script", "name": "sleep", "statuses": ["Running"]}}]}}}}"#
    );
    canopy_data::Registry::<(), ()>::new()
        .loading(TreeSource::text(
            &json,
            canopy_data::Format::Json,
            "day.json",
        ))
        .load()
        .unwrap()
}

/// The next text message of `kind`, as the server wrote it.
fn next_text(socket: &mut Socket, kind: &str) -> String {
    loop {
        if let Message::Text(text) = socket.read().unwrap() {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            if value["type"] == kind {
                return text.to_string();
            }
        }
    }
}

#[test]
fn a_reloaded_tree_reaches_the_viewer_before_the_states_drawn_on_it() {
    let old = day(false);
    let new = day(true);
    let mut inspector = Inspector::start(&old, options()).unwrap();
    let mut socket = viewer(&inspector);
    assert_eq!(
        next_text(&mut socket, "hello"),
        r#"{"classes":[],"legend":[],"mode":"live","shape":{"nodes":[{"children":[1],"name":"day","params":[],"type":"Sequence"},{"children":[],"name":"sleep","params":[["statuses","[Running]"],["clock","install"]],"type":"Script"}]},"title":"canopy inspector","type":"hello","version":0}"#
    );
    inspector.watch(Some(0));
    let mut agent = Agent::with_id(&old, 0);
    inspector.probe().tick(&mut agent, &old, &mut (), &());
    inspector.publish(&frame(1, 1));
    assert_eq!(
        next_text(&mut socket, "agent"),
        r#"{"agent":0,"board":[],"dropped":0,"events":[{"event":"enter","id":0,"status":null,"tick":1},{"event":"enter","id":1,"status":null,"tick":1},{"event":"update","id":1,"status":"Running","tick":1},{"event":"update","id":0,"status":"Running","tick":1},{"event":"tick","id":null,"status":"Running","tick":1}],"lod":null,"nodes":[{"at":1,"event":"update","id":0,"last":"Running","running":true,"state":"running since tick 1, 1 update"},{"at":1,"event":"update","id":1,"last":"Running","running":true,"state":"running since tick 1, 1 update"}],"source":"events","status":"Running","tick":1,"ticked":1,"type":"agent","version":0}"#
    );

    agent.reload(&old, &new, &mut (), &());
    inspector.set_tree(&new);
    assert_eq!(inspector.tree_version(), 1);
    assert_eq!(
        next_text(&mut socket, "hello"),
        r#"{"classes":[],"legend":[],"mode":"live","shape":{"nodes":[{"children":[1,2],"name":"day","params":[],"type":"Sequence"},{"children":[],"name":"wake","params":[["statuses","[Success]"],["clock","install"]],"type":"Script"},{"children":[],"name":"sleep","params":[["statuses","[Running]"],["clock","install"]],"type":"Script"}]},"title":"canopy inspector","type":"hello","version":1}"#
    );
    // Until the next step, the watched agent on the new boxes: nothing known.
    assert_eq!(
        next_text(&mut socket, "agent"),
        r#"{"agent":0,"board":[],"dropped":0,"events":[],"lod":null,"nodes":[],"source":"events","status":null,"tick":1,"ticked":null,"type":"agent","version":1}"#
    );
    // The next step: "sleep" runs on, on its new box (2, not 1).
    let probe = inspector.probe();
    probe.tick(&mut agent, &new, &mut (), &());
    let view = EngineView {
        agent: &agent,
        tree: &new,
    };
    inspector.publish_with(&frame(2, 1), Some(&view));
    assert_eq!(
        next_text(&mut socket, "agent"),
        r#"{"agent":0,"board":[],"dropped":0,"events":[{"event":"update","id":2,"status":"Running","tick":2},{"event":"update","id":0,"status":"Running","tick":2},{"event":"tick","id":null,"status":"Running","tick":2}],"lod":null,"nodes":[{"at":2,"event":"update","id":0,"last":"Running","running":true,"state":"running child 2 of 2"},{"at":2,"event":"update","id":2,"last":"Running","running":true,"state":null}],"source":"engine","status":"Running","tick":2,"ticked":2,"type":"agent","version":1}"#
    );
}

#[test]
fn a_viewer_arriving_after_a_reload_gets_the_new_tree() {
    let mut inspector = Inspector::start(&day(false), options()).unwrap();
    inspector.set_tree(&day(true));
    inspector.set_tree(&day(false));
    let mut socket = viewer(&inspector);
    let hello = next_json(&mut socket, "hello", |_| true);
    assert_eq!(hello["version"], 2);
    assert_eq!(
        hello["shape"],
        serde_json::to_value(Shape::of(&day(false))).unwrap()
    );
    let (status, body) = get(inspector.addr(), "/api/hello");
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap(),
        hello
    );
}

#[test]
fn after_a_reload_states_derived_from_events_start_afresh_on_the_new_ids() {
    let (old, new) = (day(false), day(true));
    let mut inspector = Inspector::start(&old, options()).unwrap();
    let mut socket = viewer(&inspector);
    inspector.watch(Some(0));
    let mut agent = Agent::with_id(&old, 0);
    inspector.probe().tick(&mut agent, &old, &mut (), &());
    inspector.publish(&frame(1, 1));
    agent.reload(&old, &new, &mut (), &());
    inspector.set_tree(&new);
    inspector.probe().tick(&mut agent, &new, &mut (), &());
    inspector.publish(&frame(2, 1));
    let view = next_json(&mut socket, "agent", |v| v["tick"] == 2);
    assert_eq!(view["version"], 1);
    assert_eq!(
        view["nodes"],
        serde_json::json!([
            {"id": 0, "running": true, "last": "Running", "event": "update", "at": 2,
             "state": "running (since before watching began)"},
            {"id": 2, "running": true, "last": "Running", "event": "update", "at": 2,
             "state": "running (since before watching began)"},
        ])
    );
    assert_eq!(
        view["events"].as_array().unwrap().len(),
        3,
        "tick 2's alone"
    );
}

#[test]
fn the_watched_agent_shows_its_level_of_detail_class_and_its_last_tick() {
    let b = Builder::<(), ()>::new();
    let tree = b.build(b.wait("nap", 100)).unwrap();
    let options = Options {
        classes: vec![
            ClassLabel::new("every step", 1.0),
            ClassLabel::new("1 step in 4\u{202e}", 0.5),
        ],
        ..options()
    };
    let inspector = Inspector::start(&tree, options).unwrap();
    let mut socket = viewer(&inspector);
    let hello = next_json(&mut socket, "hello", |_| true);
    assert_eq!(
        hello["classes"],
        serde_json::json!([
            {"name": "every step", "opacity": 1.0},
            {"name": "1 step in 4\\u{202e}", "opacity": 0.5}
        ]),
        "names escaped as a terminal shows them"
    );
    inspector.watch(Some(1));
    // Agent 0 every world tick; agent 1, of the far class, every 4th.
    let mut agents: Vec<Agent> = (0..2).map(|i| Agent::with_id(&tree, i)).collect();
    for tick in 1..=6u32 {
        let probe = inspector.probe();
        probe.tick_elapsed(&mut agents[0], &tree, &mut (), &(), 1);
        if tick % 4 == 0 {
            probe.tick_elapsed(&mut agents[1], &tree, &mut (), &(), 4);
        }
        let mut frame = Frame::new();
        frame.begin(tick, [0.0; 2], [1.0; 2]);
        frame.push(0, 0);
        frame.push(1, 0);
        frame.set_class(1);
        let view = EngineView {
            agent: &agents[1],
            tree: &tree,
        };
        inspector.publish_with(&frame, Some(&view));
    }
    // Its view from world tick 4 on: its last tick is 4.
    let view = next_json(&mut socket, "agent", |v| v["ticked"] == 4);
    assert_eq!(
        (view["agent"].as_u64(), view["tick"].as_u64()),
        (Some(1), Some(4))
    );
    assert_eq!(
        view["lod"],
        serde_json::json!({"class": 1, "name": "1 step in 4\\u{202e}"})
    );
    assert_eq!(view["ticked"], 4, "last ticked at world tick 4");
    // Without classes in the frame, no class; the events still tell the
    // last tick.
    let probe = inspector.probe();
    probe.tick_elapsed(&mut agents[1], &tree, &mut (), &(), 3);
    let mut frame = Frame::new();
    frame.begin(7, [0.0; 2], [1.0; 2]);
    frame.push(0, 0);
    frame.push(1, 0);
    inspector.publish(&frame);
    let view = next_json(&mut socket, "agent", |v| v["tick"] == 7);
    assert_eq!(view["lod"], serde_json::Value::Null);
    assert_eq!(view["ticked"], 7);
}
