//! The ZeroMQ side: a REP socket answering Groot2's requests on its own
//! thread, and the PUB socket beside it that Groot2 subscribes to.
//!
//! As BehaviorTree.CPP's publisher: the request socket on `PORT`, the
//! publisher on `PORT + 1` (Groot2 connects to both; breakpoints are not
//! served, so nothing is ever published on it). Unlike it, both listen on
//! this machine only unless told otherwise ([`Options::addr`]), and a
//! client can make the server hold only so much:
//!
//! - a frame (a part of a request) over [`MAX_FRAME_BYTES`] (64 KiB)
//!   makes libzmq drop the connection before it is read (`ZMQ_MAXMSGSIZE`);
//!   requests are a 6-byte header and a list of names or a hook's JSON;
//! - at most [`MAX_QUEUED_REQUESTS`] requests wait per connection
//!   (`ZMQ_RCVHWM`);
//! - a request of more than two parts is answered with an error, its parts
//!   past the third dropped as they are read;
//! - a reply not taken within a second is dropped (`ZMQ_SNDTIMEO`), and
//!   nothing lingers when the publisher stops (`ZMQ_LINGER` 0).

use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crate::monitor::Monitor;

/// Most bytes of one part of a request.
pub const MAX_FRAME_BYTES: i64 = 64 * 1024;

/// Most requests queued per connection.
pub const MAX_QUEUED_REQUESTS: i32 = 16;

/// Where the publisher listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The address: this machine only by default (`127.0.0.1`); Groot2 on
    /// another machine needs `0.0.0.0`, as BehaviorTree.CPP binds.
    pub addr: IpAddr,
    /// The request port (Groot2's default is 1667); the publisher takes
    /// the next one. 0 picks a free pair.
    pub port: u16,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            addr: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 1667,
        }
    }
}

/// A [`Monitor`] served over ZeroMQ to Groot2 (or any client of its
/// protocol), on a thread of its own until dropped.
///
/// ```no_run
/// use canopy_core::Agent;
/// use canopy_groot2::{GrootTree, Monitor, Options, Publisher};
/// # let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="Main"><AlwaysSuccess/></BehaviorTree></root>"#;
/// # let tree = canopy_btcpp::load_str(&canopy_data::Registry::<(), ()>::new(), xml, "main.xml", None, &Default::default()).unwrap();
/// let monitor = Monitor::new(GrootTree::from_xml(xml).unwrap(), &tree);
/// let publisher = Publisher::start(monitor, Options::default()).unwrap();
/// println!("Groot2: connect to {}", publisher.port());
/// let mut agents: Vec<Agent> = (0..1000).map(|i| Agent::with_id(&tree, i)).collect();
/// loop {
///     let probe = publisher.monitor().probe();
///     for agent in &mut agents {
///         probe.tick(agent, &tree, &mut (), &());
///     }
///     std::thread::sleep(std::time::Duration::from_millis(100));
/// }
/// ```
pub struct Publisher {
    monitor: Arc<Monitor>,
    port: u16,
    addr: IpAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("addr", &self.addr)
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

fn io_error(e: zmq::Error) -> io::Error {
    let kind = match e {
        zmq::Error::EADDRINUSE => io::ErrorKind::AddrInUse,
        zmq::Error::EADDRNOTAVAIL => io::ErrorKind::AddrNotAvailable,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e.message())
}

fn endpoint(addr: IpAddr, port: Option<u16>) -> String {
    let port = port.map_or_else(|| "*".to_string(), |p| p.to_string());
    match addr {
        IpAddr::V4(a) => format!("tcp://{a}:{port}"),
        IpAddr::V6(a) => format!("tcp://[{a}]:{port}"),
    }
}

fn socket(context: &zmq::Context, kind: zmq::SocketType) -> Result<zmq::Socket, zmq::Error> {
    let socket = context.socket(kind)?;
    socket.set_linger(0)?;
    socket.set_maxmsgsize(MAX_FRAME_BYTES)?;
    socket.set_rcvhwm(MAX_QUEUED_REQUESTS)?;
    socket.set_rcvtimeo(100)?;
    socket.set_sndtimeo(1000)?;
    if matches!(kind, zmq::REP) {
        socket.set_ipv6(true)?;
    }
    Ok(socket)
}

/// The port `socket` was bound to.
fn bound_port(socket: &zmq::Socket) -> Option<u16> {
    let end = socket.get_last_endpoint().ok()?.ok()?;
    end.rsplit(':').next()?.parse().ok()
}

impl Publisher {
    /// Serve `monitor` as `options` say.
    ///
    /// # Errors
    /// When a port is taken (or, for port 0, no free pair was found in a
    /// few tries) or ZeroMQ cannot start.
    pub fn start(monitor: Monitor, options: Options) -> io::Result<Publisher> {
        let context = zmq::Context::new();
        let (rep, publisher, port) = Publisher::bind(&context, options).map_err(io_error)?;
        let monitor = Arc::new(monitor);
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let monitor = Arc::clone(&monitor);
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("canopy-groot2".to_string())
                .spawn(move || {
                    serve(&rep, &monitor, &stop);
                    drop(publisher);
                    drop(context);
                })?
        };
        Ok(Publisher {
            monitor,
            port,
            addr: options.addr,
            stop,
            thread: Some(thread),
        })
    }

    fn bind(
        context: &zmq::Context,
        options: Options,
    ) -> Result<(zmq::Socket, zmq::Socket, u16), zmq::Error> {
        let mut last = zmq::Error::EADDRINUSE;
        for _ in 0..if options.port == 0 { 20 } else { 1 } {
            let rep = socket(context, zmq::REP)?;
            let fixed = (options.port != 0).then_some(options.port);
            if let Err(e) = rep.bind(&endpoint(options.addr, fixed)) {
                last = e;
                continue;
            }
            let Some(port) = bound_port(&rep) else {
                continue;
            };
            let Some(next) = port.checked_add(1) else {
                continue;
            };
            let publisher = socket(context, zmq::PUB)?;
            match publisher.bind(&endpoint(options.addr, Some(next))) {
                Ok(()) => return Ok((rep, publisher, port)),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// The request port (the publisher's is the next one).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address listened on.
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// The monitor served: its probe ticks the agents.
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answer requests until `stop`.
fn serve(rep: &zmq::Socket, monitor: &Monitor, stop: &AtomicBool) {
    let mut frames: Vec<Vec<u8>> = Vec::with_capacity(3);
    while !stop.load(Ordering::Acquire) {
        frames.clear();
        match rep.recv_bytes(0) {
            Ok(first) => frames.push(first),
            Err(zmq::Error::EAGAIN | zmq::Error::EINTR) => continue,
            Err(_) => break,
        }
        // The rest of a multipart request: at most three parts kept (a
        // third is enough to refuse it), the others read and dropped.
        let mut whole = true;
        while rep.get_rcvmore().unwrap_or(false) {
            match rep.recv_bytes(0) {
                Ok(part) if frames.len() < 3 => frames.push(part),
                Ok(_) => {}
                Err(_) => {
                    whole = false;
                    break;
                }
            }
        }
        if !whole {
            continue;
        }
        let parts: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let reply = monitor.answer(&parts);
        // A client that went away leaves the reply untaken: dropped after
        // the send timeout, and the socket goes on.
        let _ = rep.send_multipart(reply, 0);
    }
}
