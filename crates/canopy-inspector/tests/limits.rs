//! What a hostile client can make the inspector hold, over real sockets:
//! messages a viewer sends, viewers, open connections, half-sent requests,
//! and control messages. Each bound is set small here so it is reached
//! quickly; the checks are of what happens, never of how fast.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use canopy_inspector::control::Command;
use canopy_inspector::{Inspector, Limits, MAX_HEAD_BYTES, MAX_INBOUND_MESSAGE, Options};
use tungstenite::Message;
use tungstenite::protocol::frame::Frame;
use tungstenite::protocol::frame::coding::{Data, OpCode};

/// Long enough for any machine to do what is asked; only a broken build
/// waits this long.
const PATIENCE: Duration = Duration::from_secs(30);

fn start(limits: Limits) -> Inspector {
    let options = Options {
        addr: "127.0.0.1:0".parse().unwrap(),
        max_fps: 0.0,
        limits,
        ..Options::default()
    };
    Inspector::start(&common::takeover(), options).unwrap()
}

/// Wait for something the server does on its own thread (see live.rs).
fn until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < PATIENCE, "never: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// Read one response: status and body (by `Content-Length`).
fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let status = head[9..12].parse().unwrap();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).unwrap();
    (status, String::from_utf8(body).unwrap())
}

/// Send `request` as it is on a new connection; the response.
fn exchange(addr: SocketAddr, request: &str) -> (u16, String) {
    let mut stream = connect(addr);
    stream.write_all(request.as_bytes()).unwrap();
    read_response(&mut stream)
}

fn get_page(addr: SocketAddr) -> (u16, String) {
    exchange(
        addr,
        &format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    )
}

fn post(addr: SocketAddr, path: &str, kind: &str, body: &str) -> (u16, String) {
    exchange(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {kind}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// Whether the server has closed `stream` (end of stream or reset), without
/// waiting. Only for streams the server sends nothing on.
fn closed(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let closed = match (&*stream).read(&mut [0; 64]) {
        Ok(0) => true,
        Ok(n) => panic!("{n} bytes from a connection that asked nothing"),
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(e) if e.kind() == ErrorKind::ConnectionReset => true,
        Err(e) => panic!("{e}"),
    };
    stream.set_nonblocking(false).unwrap();
    closed
}

/// Read until the server closes: whatever it sent before.
fn read_to_close(stream: &mut TcpStream) -> Vec<u8> {
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    bytes
}

type Socket = tungstenite::WebSocket<TcpStream>;

fn viewer(addr: SocketAddr) -> Result<Socket, tungstenite::Error> {
    let stream = connect(addr);
    tungstenite::client(format!("ws://{addr}/ws"), stream)
        .map(|(socket, _)| socket)
        .map_err(|e| match e {
            tungstenite::HandshakeError::Failure(e) => e,
            tungstenite::HandshakeError::Interrupted(_) => unreachable!("a blocking stream"),
        })
}

/// Skip what the server streams until its close frame: code and reason.
fn close_frame(socket: &mut Socket) -> (u16, String) {
    close_frame_or_reset(socket).expect("a close frame, not a reset")
}

/// As `close_frame`, but `None` when the connection was reset first: the
/// server closes a viewer whose message it stopped reading, and with that
/// message's rest unread its kernel may answer with a reset that can
/// overtake the close frame on a busy machine.
fn close_frame_or_reset(socket: &mut Socket) -> Option<(u16, String)> {
    loop {
        match socket.read() {
            Ok(Message::Close(Some(frame))) => {
                return Some((frame.code.into(), frame.reason.to_string()));
            }
            Ok(Message::Close(None)) => panic!("a close frame without a code"),
            Ok(_) => {}
            Err(tungstenite::Error::Io(e)) if e.kind() == ErrorKind::ConnectionReset => {
                return None;
            }
            Err(e) => panic!("{e}"),
        }
    }
}

/// Send `messages` from a new viewer, until (in at most 10 tries) the
/// server's close frame is read before a reset: its code and reason.
fn closed_for(inspector: &Inspector, messages: impl Fn() -> Vec<Message>) -> (u16, String) {
    for _ in 0..10 {
        let mut socket = viewer(inspector.addr()).unwrap();
        until("the viewer is connected", || inspector.stats().clients >= 1);
        for message in messages() {
            if socket.send(message).is_err() {
                break;
            }
        }
        if let Some(frame) = close_frame_or_reset(&mut socket) {
            assert!(socket.read().is_err(), "the connection ends");
            until("the viewer is gone", || inspector.stats().clients == 0);
            return frame;
        }
        until("the viewer is gone", || inspector.stats().clients == 0);
    }
    panic!("ten resets and no close frame")
}

// ---- what a viewer sends ---------------------------------------------------

#[test]
fn a_message_over_the_limit_closes_the_viewer() {
    let inspector = start(Limits::default());
    let big = || vec![Message::Binary(vec![7u8; MAX_INBOUND_MESSAGE + 1].into())];
    assert_eq!(
        closed_for(&inspector, big),
        (1009, "a message over 4096 bytes".to_string())
    );
}

#[test]
fn a_message_over_the_limit_in_small_frames_closes_the_viewer() {
    let inspector = start(Limits::default());
    // Two frames under the limit, one message over it.
    let frames = || {
        let half = vec![7u8; MAX_INBOUND_MESSAGE / 2 + 1];
        let first = Frame::message(half.clone(), OpCode::Data(Data::Binary), false);
        let last = Frame::message(half, OpCode::Data(Data::Continue), true);
        vec![Message::Frame(first), Message::Frame(last)]
    };
    assert_eq!(
        closed_for(&inspector, frames),
        (1009, "a message over 4096 bytes".to_string())
    );
}

#[test]
fn any_message_from_a_viewer_is_refused_with_a_clean_close() {
    let inspector = start(Limits::default());
    for message in [
        Message::Text(r#"{"action":"pause"}"#.into()),
        Message::Binary(vec![0; MAX_INBOUND_MESSAGE].into()),
    ] {
        let mut socket = viewer(inspector.addr()).unwrap();
        socket.send(message).unwrap();
        assert_eq!(
            close_frame(&mut socket),
            (1008, "the inspector takes no messages".to_string())
        );
        // The client answers the close; the server waits for it and ends
        // the connection: the whole closing handshake.
        assert!(matches!(
            socket.read(),
            Err(tungstenite::Error::ConnectionClosed)
        ));
    }
    assert!(!inspector.switch().is_paused(), "nothing was obeyed");
    until("the viewers are gone", || inspector.stats().clients == 0);
}

#[test]
fn pings_are_answered_and_the_viewer_stays() {
    let inspector = start(Limits::default());
    let mut socket = viewer(inspector.addr()).unwrap();
    socket
        .send(Message::Ping(b"still there?".to_vec().into()))
        .unwrap();
    loop {
        match socket.read().unwrap() {
            Message::Pong(payload) => {
                assert_eq!(&payload[..], b"still there?");
                break;
            }
            Message::Close(_) => panic!("a ping closed the viewer"),
            _ => {}
        }
    }
    assert_eq!(inspector.stats().clients, 1);
}

// ---- viewers ---------------------------------------------------------------

/// A WebSocket handshake by hand, to read the refusal's body.
fn upgrade_by_hand(addr: SocketAddr) -> (u16, String) {
    exchange(
        addr,
        &format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        ),
    )
}

#[test]
fn the_viewer_past_the_cap_is_refused_with_503() {
    let limits = Limits {
        max_viewers: 2,
        ..Limits::default()
    };
    let inspector = start(limits);
    let addr = inspector.addr();
    let first = viewer(addr).unwrap();
    let _second = viewer(addr).unwrap();
    assert_eq!(
        upgrade_by_hand(addr),
        (
            503,
            "too many viewers: the inspector serves at most 2 at once".to_string()
        )
    );
    match viewer(addr) {
        Err(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 503),
        other => panic!("{:?}", other.map(|_| "a third viewer")),
    }
    // The page itself is still served.
    assert_eq!(get_page(addr).0, 200);
    // A viewer that leaves makes room for the next.
    drop(first);
    until("a viewer fits again", || viewer(addr).is_ok());
}

// ---- half-sent requests ----------------------------------------------------

fn short_timeouts() -> Limits {
    Limits {
        header_timeout: Duration::from_millis(300),
        request_timeout: Duration::from_millis(300),
        ..Limits::default()
    }
}

#[test]
fn a_half_sent_request_head_is_closed_after_the_header_timeout() {
    let inspector = start(short_timeouts());
    let addr = inspector.addr();
    let began = Instant::now();
    let mut half = connect(addr);
    half.write_all(format!("GET / HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .unwrap();
    let mut silent = connect(addr);
    // Closed without an answer (the read would fail after PATIENCE).
    assert_eq!(read_to_close(&mut half), b"");
    assert_eq!(read_to_close(&mut silent), b"");
    assert!(began.elapsed() >= Duration::from_millis(300));
}

#[test]
fn a_request_head_over_the_limit_is_refused_431() {
    let inspector = start(Limits::default());
    let addr = inspector.addr();
    let cookie = "c".repeat(MAX_HEAD_BYTES);
    assert_eq!(
        exchange(
            addr,
            &format!("GET / HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookie}\r\n\r\n")
        ),
        (431, String::new())
    );
    // A large head under the limit is still served.
    let cookie = "c".repeat(MAX_HEAD_BYTES / 2);
    let (status, _) = exchange(
        addr,
        &format!("GET / HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(status, 200);
}

#[test]
fn a_connection_idle_after_a_request_is_closed_after_the_header_timeout() {
    let inspector = start(short_timeouts());
    let addr = inspector.addr();
    let mut stream = connect(addr);
    write!(stream, "GET /favicon.ico HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut stream), (204, String::new()));
    // Kept alive for the next request, but not for ever.
    assert_eq!(read_to_close(&mut stream), b"");
}

#[test]
fn a_half_sent_body_is_answered_408_after_the_request_timeout() {
    let inspector = start(short_timeouts());
    let addr = inspector.addr();
    let mut stream = connect(addr);
    let body = r#"{"action":"pause"}"#;
    write!(
        stream,
        "POST /api/control HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{}",
        body.len(),
        &body[..10]
    )
    .unwrap();
    assert_eq!(
        read_response(&mut stream),
        (408, "the request was not complete within 300ms".to_string())
    );
    assert_eq!(read_to_close(&mut stream), b"");
    assert!(!inspector.switch().is_paused());
}

// ---- open connections ------------------------------------------------------

#[test]
fn many_held_connections_do_not_stop_the_page() {
    let limits = Limits {
        max_connections: 16,
        header_timeout: Duration::from_secs(600), // only the cap acts here
        ..Limits::default()
    };
    let inspector = start(limits);
    let addr = inspector.addr();
    let held: Vec<TcpStream> = (0..300)
        .map(|i| {
            let mut stream = connect(addr);
            // Half the connections say nothing, half send half a request.
            if i % 2 == 1 {
                stream.write_all(b"GET / HTTP/1.1\r\n").unwrap();
            }
            stream
        })
        .collect();
    let (status, body) = get_page(addr);
    assert_eq!(status, 200);
    assert!(body.contains("<title>"), "{body}");
    // Each newcomer pushed the connection idle longest out: at most the
    // cap of them is still open.
    until("the held connections are cut to the cap", || {
        held.iter().filter(|s| !closed(s)).count() <= 16
    });
    // The newest are the ones still held.
    assert!(!closed(held.last().unwrap()));
}

#[test]
fn past_the_cap_with_every_connection_busy_a_new_one_is_closed() {
    let limits = Limits {
        max_connections: 2,
        max_viewers: 2,
        ..Limits::default()
    };
    let inspector = start(limits);
    let addr = inspector.addr();
    let first = viewer(addr).unwrap();
    let _second = viewer(addr).unwrap();
    // Viewers are never pushed out: the newcomer is closed unanswered.
    let mut refused = connect(addr);
    assert_eq!(read_to_close(&mut refused), b"");
    drop(first);
    until("the page is served again", || {
        let mut stream = connect(addr);
        // Until the viewer's end reaches the server, this one is refused
        // too: closed, or reset as the request was unread (which may
        // already fail the write).
        let request = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        if stream.write_all(request.as_bytes()).is_err() {
            return false;
        }
        let mut response = Vec::new();
        stream.read_to_end(&mut response).is_ok() && response.starts_with(b"HTTP/1.1 200 OK")
    });
}

// ---- control messages over HTTP --------------------------------------------

#[test]
fn control_messages_are_bounded_and_unknown_ones_refused() {
    let inspector = start(Limits::default());
    let addr = inspector.addr();
    let json = "application/json";
    assert_eq!(
        post(addr, "/api/control", json, r#"{"action":"explode"}"#),
        (400, "not a control message the inspector knows".to_string())
    );
    assert_eq!(
        post(addr, "/api/watch", json, r#"{"agent":"everyone"}"#),
        (400, "not a control message the inspector knows".to_string())
    );
    let long = format!(r#"{{"action":"pause"{}}}"#, " ".repeat(2000));
    assert_eq!(
        post(addr, "/api/control", json, &long),
        (413, "a control message is at most 1024 bytes".to_string())
    );
    assert_eq!(
        post(addr, "/api/control", "text/plain", r#"{"action":"pause"}"#),
        (
            415,
            "a control message is JSON (Content-Type: application/json)".to_string()
        )
    );
    // A body with no length given, sent in chunks past the limit: refused
    // once the limit is passed, not after the whole of it.
    let mut stream = connect(addr);
    write!(
        stream,
        "POST /api/control HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {json}\r\n\
         Transfer-Encoding: chunked\r\n\r\n"
    )
    .unwrap();
    for _ in 0..3 {
        write!(stream, "200\r\n{}\r\n", " ".repeat(0x200)).unwrap();
    }
    assert_eq!(
        read_response(&mut stream),
        (413, "a control message is at most 1024 bytes".to_string())
    );
    assert!(!inspector.switch().is_paused(), "nothing was obeyed");
    assert_eq!(inspector.watched(), None);
    // The page's own messages still work.
    assert_eq!(
        post(addr, "/api/control", json, r#"{"action":"pause"}"#).0,
        204
    );
    assert!(inspector.switch().is_paused());
    inspector.control(Command::Resume);
    assert_eq!(post(addr, "/api/watch", json, r#"{"agent":2}"#).0, 204);
    assert_eq!(inspector.watched(), Some(2));
}
