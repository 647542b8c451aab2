//! Accepting connections with bounds: how many are open at once, how long
//! one may take to send a request, how long a request may take.
//!
//! `axum::serve` has none of these (no header timeout: hyper's needs a timer
//! it is not given; no connection cap), so a client could hold any number
//! of half-sent requests until the process ran out of file descriptors and
//! the page stopped answering. This loop serves the same router with
//! hyper's HTTP/1 connection directly: a header-read timeout (which also
//! closes a connection idle between requests), a whole-request timeout,
//! a small header buffer, and a cap on open connections.
//!
//! At the cap, a new connection takes the place of the one idle longest
//! (waiting for a request, or done with its last response); only when
//! every connection is busy (a request being answered, a live viewer) is
//! the new one closed at once. So connections held open and silent cannot
//! lock the page out: each newcomer pushes the oldest of them out.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tower::ServiceExt;

/// Default [`Limits::max_viewers`].
pub const MAX_VIEWERS: usize = 8;
/// Default [`Limits::max_connections`].
pub const MAX_CONNECTIONS: usize = 64;
/// Default [`Limits::header_timeout`].
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default [`Limits::request_timeout`].
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Most bytes of a message (and of a frame) a viewer may send over the
/// WebSocket. The page sends none; the limit is what the server will read
/// before refusing one, and its read buffer's size.
pub const MAX_INBOUND_MESSAGE: usize = 4096;
/// Most bytes of a request's head (request line and headers); past it the
/// answer is `431 Request Header Fields Too Large`. hyper's smallest
/// allowed buffer is 8 KiB; this leaves room for the cookies other local
/// development servers set on `localhost`, which browsers send here too.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// What the server lets clients hold. The defaults suit one developer with
/// a few tabs open; tests set small values to reach each bound quickly.
///
/// ```
/// use canopy_inspector::{Limits, MAX_VIEWERS};
///
/// let limits = Limits::default();
/// assert_eq!(limits.max_viewers, MAX_VIEWERS);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Live viewers (WebSockets) at once; the next is refused with
    /// `503 Service Unavailable` and the body `too many viewers: the
    /// inspector serves at most N at once`. Each viewer may hold one frame
    /// being sent (5 bytes per agent), so this bounds that memory too.
    /// Default [`MAX_VIEWERS`] (8).
    pub max_viewers: usize,
    /// TCP connections open at once, viewers included. Past it, a new
    /// connection replaces the one idle longest, or is closed at once when
    /// none is idle. Default [`MAX_CONNECTIONS`] (64): a browser opens at
    /// most 6 per server, plus its viewers.
    pub max_connections: usize,
    /// How long a connection may take to send a request's head, counted
    /// from when the server starts waiting for it — so it is also how long
    /// a connection may sit idle between requests. Default
    /// [`HEADER_TIMEOUT`] (10 s).
    pub header_timeout: Duration,
    /// How long a request may take from its head to its response, its body
    /// included; past it the answer is `408 Request Timeout`. Default
    /// [`REQUEST_TIMEOUT`] (10 s).
    pub request_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_viewers: MAX_VIEWERS,
            max_connections: MAX_CONNECTIONS,
            header_timeout: HEADER_TIMEOUT,
            request_timeout: REQUEST_TIMEOUT,
        }
    }
}

/// Serve `router` on `listener` within `limits`, until dropped.
pub(crate) async fn serve(listener: tokio::net::TcpListener, router: Router, limits: Limits) {
    let gate = Arc::new(Gate::new(limits.max_connections));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // The buffer bounds a head still arriving; the header size, one
        // that arrived whole in a read that overshot the buffer's bound.
        .max_buf_size(MAX_HEAD_BYTES)
        .max_header_size(MAX_HEAD_BYTES);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // The client gave up before it was accepted: nothing to wait for.
            Err(e) if per_connection(&e) => continue,
            // Out of file descriptors or memory: the waiting connection
            // stays queued; try again shortly rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(ticket) = gate.admit() else {
            // Every connection is busy: close this one without reading it.
            drop(stream);
            continue;
        };
        let conn = Arc::clone(&ticket.conn);
        let service = Tracked {
            router: router.clone(),
            conn: Arc::clone(&conn),
            request_timeout: limits.request_timeout,
        };
        let io = TokioIo::new(Held {
            stream,
            _ticket: ticket,
        });
        let connection = http.serve_connection(io, service).with_upgrades();
        tokio::spawn(async move {
            // An upgraded connection leaves `connection` with its socket
            // (and ticket); eviction only ever picks idle HTTP connections.
            tokio::select! {
                _ = connection => {}
                _ = conn.evict.notified() => {}
            }
        });
    }
}

fn per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The open connections, at most `max`.
struct Gate {
    max: usize,
    epoch: Instant,
    open: Mutex<Vec<Arc<Conn>>>,
}

/// One open connection as the gate sees it.
struct Conn {
    /// Nanoseconds after `epoch` since which it is idle, or `BUSY`.
    idle_since: AtomicU64,
    /// The gate's.
    epoch: Instant,
    evict: Notify,
}

const BUSY: u64 = u64::MAX;

/// Nanoseconds from `epoch` to now; below `BUSY` for 584 years.
fn since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(BUSY - 1)
}

/// A place among the open connections, given back when dropped (with the
/// socket that holds it).
struct Ticket {
    gate: Arc<Gate>,
    conn: Arc<Conn>,
}

impl Gate {
    fn new(max: usize) -> Gate {
        Gate {
            max,
            epoch: Instant::now(),
            open: Mutex::new(Vec::new()),
        }
    }

    fn open(&self) -> MutexGuard<'_, Vec<Arc<Conn>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a new connection: free, or taken from the connection
    /// idle longest (told to close), or none when every one is busy.
    fn admit(self: &Arc<Self>) -> Option<Ticket> {
        let mut open = self.open();
        if open.len() >= self.max {
            let (_, oldest) = open
                .iter()
                .enumerate()
                .map(|(i, conn)| (conn.idle_since.load(Ordering::Acquire), i))
                .filter(|&(since, _)| since != BUSY)
                .min()?;
            // `notify_one` keeps the wake-up if the task is not waiting yet.
            open.swap_remove(oldest).evict.notify_one();
        }
        let conn = Arc::new(Conn {
            idle_since: AtomicU64::new(since(self.epoch)),
            epoch: self.epoch,
            evict: Notify::new(),
        });
        open.push(Arc::clone(&conn));
        Some(Ticket {
            gate: Arc::clone(self),
            conn,
        })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        // Already gone if it was evicted.
        self.gate.open().retain(|c| !Arc::ptr_eq(c, &self.conn));
    }
}

/// The socket, holding its place among the open connections for as long as
/// it lives — through an upgrade to a WebSocket too.
struct Held {
    stream: TcpStream,
    _ticket: Ticket,
}

impl AsyncRead for Held {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Held {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The router, marking its connection busy while a request is answered and
/// giving each request at most `request_timeout`.
#[derive(Clone)]
struct Tracked {
    router: Router,
    conn: Arc<Conn>,
    request_timeout: Duration,
}

impl hyper::service::Service<Request<Incoming>> for Tracked {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.conn.idle_since.store(BUSY, Ordering::Release);
        let router = self.router.clone();
        let conn = Arc::clone(&self.conn);
        let limit = self.request_timeout;
        Box::pin(async move {
            let response = match tokio::time::timeout(limit, router.oneshot(request)).await {
                Ok(Ok(response)) => response,
                Ok(Err(never)) => match never {},
                Err(_) => {
                    let mut response = (
                        StatusCode::REQUEST_TIMEOUT,
                        format!("the request was not complete within {limit:?}"),
                    )
                        .into_response();
                    // Whatever of the body is still coming is not wanted.
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                    response
                }
            };
            // A connection that became a WebSocket stays busy for good: it
            // is a viewer, counted and capped as one.
            if response.status() != StatusCode::SWITCHING_PROTOCOLS {
                conn.idle_since.store(since(conn.epoch), Ordering::Release);
            }
            Ok(response)
        })
    }
}
