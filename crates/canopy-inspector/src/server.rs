//! The web server: the page, a WebSocket streaming the live crowd, and the
//! small HTTP API the page calls (watch, control, replay queries).
//!
//! It runs on a thread of its own with a single-threaded tokio runtime, so
//! it never takes a core from the simulation's thread pool. Everything the
//! simulation hands it goes into `tokio::sync::watch` slots that hold only
//! the latest value: publishing replaces the slot and never waits, and a
//! viewer too slow to take every frame simply gets the newer one next time.
//! No queue grows anywhere.
//!
//! What a client can make it hold is bounded too ([`Limits`], and `net`
//! for how connections are accepted): open connections, viewers, the time
//! a request may take, and the size of anything a viewer sends.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, FailedToBufferBody};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade, close_code};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use tokio::sync::watch;

use crate::control::{Control, Refused};
use crate::net::{self, Limits, MAX_INBOUND_MESSAGE};

const INDEX_HTML: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const APP_CSS: &str = include_str!("../web/app.css");

/// Counters of what the server did, for tests and figures.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub frames_published: AtomicU64,
    pub frames_sent: AtomicU64,
    pub messages_sent: AtomicU64,
    pub bytes_sent: AtomicU64,
    pub frames_alive: AtomicU64,
    pub clients: AtomicU64,
}

/// What the server has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Frames the simulation published.
    pub frames_published: u64,
    /// Frames sent, summed over viewers.
    pub frames_sent: u64,
    /// WebSocket messages of any kind sent, summed over viewers.
    pub messages_sent: u64,
    /// Bytes of WebSocket payload sent, summed over viewers.
    pub bytes_sent: u64,
    /// Encoded frames in memory right now: the latest, plus one being
    /// sent per viewer at most.
    pub frames_alive: u64,
    /// Viewers connected right now.
    pub clients: u64,
}

impl Counters {
    pub(crate) fn snapshot(&self) -> Stats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Stats {
            frames_published: get(&self.frames_published),
            frames_sent: get(&self.frames_sent),
            messages_sent: get(&self.messages_sent),
            bytes_sent: get(&self.bytes_sent),
            frames_alive: get(&self.frames_alive),
            clients: get(&self.clients),
        }
    }
}

/// An encoded frame that counts itself while alive.
struct FrameBuf {
    bytes: Vec<u8>,
    counters: Arc<Counters>,
}

impl AsRef<[u8]> for FrameBuf {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for FrameBuf {
    fn drop(&mut self) {
        self.counters.frames_alive.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What the live server shares with the simulation.
pub(crate) struct Hub {
    /// What a viewer gets first: the tree's shape and its version. Sent
    /// again to every viewer when the tree is replaced.
    pub hello: watch::Sender<Utf8Bytes>,
    pub frames: watch::Sender<Option<Bytes>>,
    pub agent: watch::Sender<Option<Utf8Bytes>>,
    pub status: watch::Sender<Utf8Bytes>,
    pub control: Control,
    /// The watched agent, `NOBODY` for none.
    pub watched: AtomicU32,
    pub tick: AtomicU32,
    pub counters: Arc<Counters>,
    pub shutdown: watch::Receiver<bool>,
    /// Viewers admitted (their WebSocket accepted or being accepted).
    pub viewers: AtomicUsize,
    pub max_viewers: usize,
}

/// `Hub::watched` when no agent is watched.
pub(crate) const NOBODY: u32 = u32::MAX;

impl Hub {
    pub(crate) fn new(hello: String, shutdown: watch::Receiver<bool>, max_viewers: usize) -> Hub {
        Hub {
            hello: watch::Sender::new(hello.into()),
            frames: watch::Sender::new(None),
            agent: watch::Sender::new(None),
            status: watch::Sender::new(Utf8Bytes::from_static("{\"type\":\"status\"}")),
            control: Control::new(),
            watched: AtomicU32::new(NOBODY),
            tick: AtomicU32::new(0),
            counters: Arc::default(),
            shutdown,
            viewers: AtomicUsize::new(0),
            max_viewers,
        }
    }

    pub(crate) fn watched(&self) -> Option<u32> {
        match self.watched.load(Ordering::Acquire) {
            NOBODY => None,
            id => Some(id),
        }
    }

    /// Replace the latest frame; never waits.
    pub(crate) fn publish_frame(&self, bytes: Vec<u8>) {
        self.counters.frames_alive.fetch_add(1, Ordering::Relaxed);
        self.counters
            .frames_published
            .fetch_add(1, Ordering::Relaxed);
        let owner = FrameBuf {
            bytes,
            counters: Arc::clone(&self.counters),
        };
        self.frames.send_replace(Some(Bytes::from_owner(owner)));
    }

    /// Tell viewers the tick, whether paused, and who is watched.
    ///
    /// The simulation and the page's requests both call this; the values
    /// are read under the slot's lock, so the last message written is never
    /// older than the last tick stored (a request racing a step cannot put
    /// back a stale tick).
    pub(crate) fn publish_status(&self) {
        self.status.send_modify(|slot| {
            let status = serde_json::json!({
                "type": "status",
                "tick": self.tick.load(Ordering::Acquire),
                "paused": self.control.is_paused(),
                "watched": self.watched(),
            });
            *slot = status.to_string().into();
        });
    }
}

/// The server thread; stopping it closes every connection.
pub(crate) struct Server {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// The shutdown signal to hand to handlers before starting.
    pub(crate) fn signal() -> (watch::Sender<bool>, watch::Receiver<bool>) {
        watch::channel(false)
    }

    /// Bind `addr` now (so a taken port is an error here) and serve
    /// `router` on a thread of its own, within `limits`, until dropped.
    pub(crate) fn start(
        addr: SocketAddr,
        router: Router,
        stop: watch::Sender<bool>,
        limits: Limits,
    ) -> io::Result<Server> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let mut stopped = stop.subscribe();
        let router = router.layer(middleware::from_fn(same_origin));
        let thread = std::thread::Builder::new()
            .name("canopy-inspector".to_string())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    let serve = net::serve(listener, router, limits);
                    tokio::select! {
                        _ = serve => {}
                        _ = stopped.wait_for(|s| *s) => {}
                    }
                });
                // Dropping the runtime here ends every connection's task.
            })?;
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Wait for the server thread, which ends only if serving fails.
    pub(crate) fn join(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Stop serving and wait for the thread.
    pub(crate) fn stop(&mut self) {
        self.stop.send_replace(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The page, its script and its style sheet.
pub(crate) fn static_routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { page(APP_CSS, "text/css; charset=utf-8") }),
        )
        // Browsers ask for it; an answer keeps their consoles clean.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
}

/// The page loads only its own files and talks only to this server: even
/// a name that slipped into the page as markup could not run a script.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; \
    frame-ancestors 'none'";

fn page(body: &'static str, kind: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CONTENT_SECURITY_POLICY, POLICY),
        ],
        body,
    )
        .into_response()
}

/// A JSON body already serialised.
pub(crate) fn json_text(text: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

/// Refuse requests from other sites and from names other than this
/// machine's: a page elsewhere must not drive the simulation, nor read it
/// through a name that resolves here (DNS rebinding).
async fn same_origin(request: Request, next: Next) -> Response {
    if let Err(problem) = check_origin(request.headers()) {
        return (StatusCode::FORBIDDEN, problem).into_response();
    }
    next.run(request).await
}

fn check_origin(headers: &HeaderMap) -> Result<(), &'static str> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let host = text(header::HOST).ok_or("no Host header")?;
    if !local_host(host) {
        return Err("the inspector answers only to an IP address or localhost");
    }
    match text(header::ORIGIN) {
        None => Ok(()),
        Some(origin) if origin.strip_prefix("http://") == Some(host) => Ok(()),
        Some(_) => Err("requests from other sites are refused"),
    }
}

/// `localhost` or an IP literal, with or without a port.
fn local_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if !name.ends_with(':') && port.bytes().all(|b| b.is_ascii_digit()) => {
            name
        }
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok()
}

/// A small JSON message from a request body that `DefaultBodyLimit` has
/// already cut at `control::MAX_CONTROL_BYTES`; refusals are fixed text,
/// answered as they are.
pub(crate) fn json_body<T>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    parse: impl FnOnce(&[u8]) -> Result<T, Refused>,
) -> Result<T, (StatusCode, String)> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if !json {
        let why = "a control message is JSON (Content-Type: application/json)";
        return Err((StatusCode::UNSUPPORTED_MEDIA_TYPE, why.to_string()));
    }
    let body = match body {
        Ok(body) => body,
        Err(BytesRejection::FailedToBufferBody(FailedToBufferBody::LengthLimitError(_))) => {
            return Err(refusal(Refused::TooLong));
        }
        Err(_) => {
            let why = "the request body could not be read";
            return Err((StatusCode::BAD_REQUEST, why.to_string()));
        }
    };
    parse(&body).map_err(refusal)
}

fn refusal(refused: Refused) -> (StatusCode, String) {
    let status = match refused {
        Refused::TooLong => StatusCode::PAYLOAD_TOO_LARGE,
        Refused::Malformed => StatusCode::BAD_REQUEST,
    };
    (status, refused.to_string())
}

/// A viewer's place, given back when its WebSocket ends (or its upgrade
/// fails and the callback holding it is dropped).
struct ViewerSlot(Arc<Hub>);

impl ViewerSlot {
    fn take(hub: &Arc<Hub>) -> Option<ViewerSlot> {
        hub.viewers
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < hub.max_viewers).then_some(n + 1)
            })
            .ok()
            .map(|_| ViewerSlot(Arc::clone(hub)))
    }
}

impl Drop for ViewerSlot {
    fn drop(&mut self) {
        self.0.viewers.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `GET /ws`: the live stream, to at most `Hub::max_viewers` at once.
pub(crate) async fn websocket(State(hub): State<Arc<Hub>>, upgrade: WebSocketUpgrade) -> Response {
    let Some(slot) = ViewerSlot::take(&hub) else {
        let text = format!(
            "too many viewers: the inspector serves at most {} at once",
            hub.max_viewers
        );
        return (StatusCode::SERVICE_UNAVAILABLE, text).into_response();
    };
    upgrade
        // The page sends nothing; tungstenite's defaults would let each
        // viewer make the server buffer a 64 MiB message (16 MiB frames)
        // and allocate a 128 KiB read buffer up front.
        .max_message_size(MAX_INBOUND_MESSAGE)
        .max_frame_size(MAX_INBOUND_MESSAGE)
        .read_buffer_size(MAX_INBOUND_MESSAGE)
        // Each send is flushed before the next (`stream` waits for it), so
        // a write buffer would gather nothing: write each message as it is
        // framed. tungstenite frames a whole message into its out buffer
        // either way, so a viewer holds at most the one being sent; its
        // cap (`max_write_buffer_size`) stays unlimited because a map frame
        // is 5 bytes per agent, however many agents there are.
        .write_buffer_size(0)
        .on_upgrade(move |socket| async move {
            stream(socket, hub).await;
            drop(slot);
        })
}

/// How long a refused viewer gets to take the close frame and answer it.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// End a viewer's socket with a close frame saying why. When the peer is
/// still in step (`drain`), wait a moment for its answering close so the
/// connection ends cleanly; never longer than `CLOSE_WAIT` in all.
async fn refuse(mut socket: WebSocket, code: u16, reason: &'static str, drain: bool) {
    let close = Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }));
    let _ = tokio::time::timeout(CLOSE_WAIT, async {
        if socket.send(close).await.is_ok() && drain {
            while let Some(Ok(_)) = socket.recv().await {}
        }
    })
    .await;
}

/// The close code and reason for an error reading from a viewer, if it is
/// one to answer (a closed connection is not).
fn close_for(error: axum::Error) -> Option<(u16, &'static str)> {
    // axum wraps tungstenite's error; the same crate version is ours (see
    // Cargo.toml), so the downcast sees it.
    let error = error.into_inner().downcast::<tungstenite::Error>().ok()?;
    match *error {
        tungstenite::Error::Capacity(_) => Some((close_code::SIZE, MESSAGE_TOO_BIG)),
        tungstenite::Error::Protocol(_) => Some((
            close_code::PROTOCOL,
            "not a WebSocket frame the inspector takes",
        )),
        tungstenite::Error::Utf8(_) => Some((close_code::INVALID, "text that is not UTF-8")),
        _ => None,
    }
}

/// The close reason for a message over `MAX_INBOUND_MESSAGE`.
const MESSAGE_TOO_BIG: &str = "a message over 4096 bytes";
const _: () = assert!(
    MAX_INBOUND_MESSAGE == 4096,
    "MESSAGE_TOO_BIG names the limit"
);

/// The close reason for any data message: the page sends none.
const NO_MESSAGES: &str = "the inspector takes no messages";

/// Send each viewer the hello, then whatever is newest in each slot, as
/// fast as it takes it and no faster.
async fn stream(mut socket: WebSocket, hub: Arc<Hub>) {
    hub.counters.clients.fetch_add(1, Ordering::Relaxed);
    let mut hello = hub.hello.subscribe();
    let mut frames = hub.frames.subscribe();
    let mut agent = hub.agent.subscribe();
    let mut status = hub.status.subscribe();
    let mut shutdown = hub.shutdown.clone();
    let mut next = Some(Message::Text(hello.borrow_and_update().clone()));
    frames.mark_changed();
    agent.mark_changed();
    status.mark_changed();
    let ending = loop {
        if let Some(message) = next.take() {
            let (len, frame) = match &message {
                Message::Binary(b) => (b.len(), true),
                Message::Text(t) => (t.len(), false),
                _ => (0, false),
            };
            tokio::select! {
                sent = socket.send(message) => if sent.is_err() { break None },
                _ = shutdown.wait_for(|s| *s) => break None,
            }
            let counters = &hub.counters;
            counters.messages_sent.fetch_add(1, Ordering::Relaxed);
            counters.bytes_sent.fetch_add(len as u64, Ordering::Relaxed);
            if frame {
                counters.frames_sent.fetch_add(1, Ordering::Relaxed);
            }
        }
        // A new tree first, so that the viewer has the boxes before the
        // states drawn on them; then status and the watched agent: small,
        // and what the viewer is looking at; the map is the bulk.
        next = tokio::select! {
            biased;
            _ = shutdown.wait_for(|s| *s) => break None,
            changed = hello.changed() => match changed {
                Ok(()) => Some(Message::Text(hello.borrow_and_update().clone())),
                Err(_) => break None,
            },
            changed = status.changed() => match changed {
                Ok(()) => Some(Message::Text(status.borrow_and_update().clone())),
                Err(_) => break None,
            },
            changed = agent.changed() => match changed {
                Ok(()) => agent.borrow_and_update().clone().map(Message::Text),
                Err(_) => break None,
            },
            changed = frames.changed() => match changed {
                Ok(()) => frames.borrow_and_update().clone().map(Message::Binary),
                Err(_) => break None,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None => break None,
                // tungstenite answers pings itself (keeping one pong at most).
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => None,
                Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                    break Some((close_code::POLICY, NO_MESSAGES, true));
                }
                // The stream is out of step after an error: say why and go,
                // without reading on.
                Some(Err(error)) => break close_for(error).map(|(code, why)| (code, why, false)),
            },
        };
    };
    hub.counters.clients.fetch_sub(1, Ordering::Relaxed);
    if let Some((code, reason, drain)) = ending {
        refuse(socket, code, reason, drain).await;
    }
}

#[cfg(test)]
mod tests {
    use super::local_host;

    #[test]
    fn only_ip_literals_and_localhost_are_local() {
        for host in [
            "127.0.0.1:7878",
            "localhost:80",
            "LOCALHOST",
            "[::1]:7878",
            "10.0.0.2",
        ] {
            assert!(local_host(host), "{host}");
        }
        for host in [
            "evil.example:7878",
            "127.0.0.1.evil.example",
            "localhost.evil:1",
        ] {
            assert!(!local_host(host), "{host}");
        }
    }
}
