//! The live inspector: what a simulation calls to be watched.
//!
//! A simulation loop gains three calls: [`Inspector::wait_turn`] before a
//! step (pause / step / resume from the page), [`Inspector::probe`] to tick
//! its agents (the watched one with an observer, every other one plainly),
//! and [`Inspector::publish`] after the step (the map, the watched agent,
//! the tick). None of them waits for a viewer.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use canopy_core::{Agent, Event, Observer, Status, Tree};

use crate::control::{self, Command, Control};
use crate::frame::{ClassLabel, Frame, Label};
use crate::net::Limits;
use crate::server::{self, Hub, NOBODY, Server, Stats};
use crate::shape::Shape;
use crate::view::{AgentLog, BoardEntry, LodView, RunningSource, mark_changes};

/// How the inspector serves.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where to listen; this machine only by default (`127.0.0.1:7878`).
    /// Port 0 picks a free port ([`Inspector::url`] tells which).
    pub addr: SocketAddr,
    /// The page's title.
    pub title: String,
    /// What each label byte of a [`Frame`] means.
    pub legend: Vec<Label>,
    /// What each class byte of a [`Frame`] means ([`Frame::set_class`]):
    /// level-of-detail classes, nearest first. Empty for a simulation that
    /// ticks every agent every step.
    pub classes: Vec<ClassLabel>,
    /// Most frames per second [`Inspector::frame_due`] lets through; 0 for
    /// every one.
    pub max_fps: f32,
    /// Events of the watched agent kept for the page's log.
    pub log_events: usize,
    /// What clients may hold: viewers, connections, time per request.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 7878)),
            title: "canopy inspector".to_string(),
            legend: Vec::new(),
            classes: Vec::new(),
            max_fps: 10.0,
            log_events: 300,
            limits: Limits::default(),
        }
    }
}

/// A running inspector: a web server on its own thread, and the handles a
/// simulation loop uses. Dropping it stops the server and releases a
/// paused simulation.
///
/// ```no_run
/// use canopy_core::{Agent, Builder, Status};
/// use canopy_inspector::{Frame, Inspector, Label, Options};
///
/// struct Ant { x: f32, carrying: bool }
///
/// let b = Builder::<Ant, ()>::new();
/// let tree = b.build(b.sequence("forage", [
///     b.action("walk", |cx| { cx.agent.x += 1.0; Status::Success }),
///     b.wait("dig", 3),
/// ])).unwrap();
/// let mut ants: Vec<Ant> = (0..1000).map(|i| Ant { x: i as f32, carrying: false }).collect();
/// let mut agents: Vec<Agent> = (0..1000).map(|i| Agent::with_id(&tree, i)).collect();
///
/// let options = Options {
///     legend: vec![Label::new("searching", "#8e24aa"), Label::new("carrying", "#43a047")],
///     ..Options::default()
/// };
/// let inspector = Inspector::start(&tree, options).unwrap();
/// println!("inspector: {}", inspector.url());
/// let mut frame = Frame::new();
/// for step in 1.. {
///     inspector.wait_turn();                      // pause / step / resume
///     let probe = inspector.probe();              // the watched agent, fixed for this step
///     for (agent, ant) in agents.iter_mut().zip(&mut ants) {
///         probe.tick(agent, &tree, ant, &());
///     }
///     if inspector.frame_due() {
///         frame.begin(step, [0.0, 0.0], [2000.0, 1.0]);
///         for (i, ant) in ants.iter().enumerate() {
///             frame.push_at(i as u32, [ant.x % 2000.0, 0.5], ant.carrying as u8);
///         }
///         inspector.publish(&frame);
///     }
/// }
/// ```
pub struct Inspector {
    hub: Arc<Hub>,
    shape: Shape,
    /// Which tree `shape` is: 0 at the start, one more per `set_shape`.
    version: u32,
    /// What the hello says besides the tree, to say it again on a reload.
    title: String,
    legend: Vec<Label>,
    classes: Vec<ClassLabel>,
    log_events: usize,
    log: Mutex<AgentLog>,
    /// When the next frame is due; `None` before the first.
    next_due: Mutex<Option<Instant>>,
    min_interval: Duration,
    /// The last step was published.
    shown: AtomicBool,
    /// A step is under way only to show where a pause stopped.
    flushing: AtomicBool,
    /// The watched agent's blackboard for the next publish, and the one
    /// published last (with its agent and tree version), to mark changes.
    board: Mutex<Boards>,
    server: Server,
    url: String,
}

impl std::fmt::Debug for Inspector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inspector")
            .field("url", &self.url)
            .field("min_interval", &self.min_interval)
            .finish_non_exhaustive()
    }
}

impl Inspector {
    /// Serve the inspector for agents running `tree`.
    ///
    /// # Errors
    /// When the address cannot be bound or the server thread cannot start.
    pub fn start<A, W>(tree: &Tree<A, W>, options: Options) -> io::Result<Inspector> {
        Inspector::start_shape(Shape::of(tree), options)
    }

    /// Serve the inspector for a tree known by its [`Shape`].
    ///
    /// # Errors
    /// As [`Inspector::start`].
    pub fn start_shape(shape: Shape, options: Options) -> io::Result<Inspector> {
        let hello = hello(&options.title, &options.legend, &options.classes, &shape, 0);
        let (stop, stopped) = Server::signal();
        let hub = Arc::new(Hub::new(hello, stopped, options.limits.max_viewers));
        let router = server::static_routes()
            .route("/ws", get(server::websocket))
            .route("/api/hello", get(hello_route))
            .route("/api/watch", post(watch_route))
            .route("/api/control", post(control_route))
            // Bodies past the limit are refused while read, not buffered.
            .route_layer(DefaultBodyLimit::max(control::MAX_CONTROL_BYTES))
            .route("/api/stats", get(stats_route))
            .with_state(Arc::clone(&hub));
        let server = Server::start(options.addr, router, stop, options.limits)?;
        let url = format!("http://{}/", server.addr());
        let min_interval = if options.max_fps > 0.0 {
            // At least one frame an hour, so schedule arithmetic stays in range.
            Duration::try_from_secs_f32(1.0 / options.max_fps)
                .unwrap_or(Duration::MAX)
                .min(Duration::from_secs(3600))
        } else {
            Duration::ZERO
        };
        hub.publish_status();
        Ok(Inspector {
            log: Mutex::new(AgentLog::new(shape.len(), options.log_events)),
            hub,
            shape,
            version: 0,
            title: options.title,
            legend: options.legend,
            classes: options.classes,
            log_events: options.log_events,
            next_due: Mutex::new(None),
            min_interval,
            shown: AtomicBool::new(false),
            flushing: AtomicBool::new(false),
            board: Mutex::new(Boards::default()),
            server,
            url,
        })
    }

    /// The page's address, e.g. `http://127.0.0.1:7878/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }

    /// Wait until the page lets the simulation take one step: at once
    /// unless paused.
    ///
    /// A pause takes hold once the page shows where the simulation
    /// stopped: if the step before it was not published (its frame was not
    /// due), one more step is let through, and being paused makes its
    /// frame due. So the page's tick, map and agent always agree, and a
    /// Step from the page moves them by exactly one.
    pub fn wait_turn(&self) {
        let shown = self.shown.swap(false, Ordering::AcqRel);
        if self.hub.control.is_paused() && !shown && !self.flushing.swap(true, Ordering::AcqRel) {
            return;
        }
        self.flushing.store(false, Ordering::Release);
        self.hub.control.wait_turn();
    }

    /// Pause, step and resume from code (the page's buttons do the same).
    pub fn control(&self, command: Command) {
        self.hub.control.apply(command);
        self.hub.publish_status();
    }

    /// The switch itself, e.g. for [`Control::try_turn`].
    pub fn switch(&self) -> &Control {
        &self.hub.control
    }

    /// The agent the page watches.
    pub fn watched(&self) -> Option<u32> {
        self.hub.watched()
    }

    /// Watch `agent` (or nobody) from code; the page follows.
    pub fn watch(&self, agent: Option<u32>) {
        self.hub
            .watched
            .store(agent.unwrap_or(NOBODY), Ordering::Release);
        self.hub.publish_status();
    }

    /// A probe for one step: it ticks the agent watched when it was made
    /// with an observer, every other agent plainly. Make one per step, so
    /// that a click during the step does not split it between two agents.
    pub fn probe(&self) -> Probe<'_> {
        let watched = self.watched();
        let mut log = lock(&self.log);
        if log.agent() != watched {
            log.reset(watched);
        }
        Probe {
            watched,
            log: &self.log,
        }
    }

    /// Whether a frame is wanted now: `max_fps` allows one, or the
    /// simulation is paused (every manual step is shown). Building a frame
    /// costs a pass over the crowd, so ask first.
    pub fn frame_due(&self) -> bool {
        if self.hub.control.is_paused() {
            return true;
        }
        lock(&self.next_due).is_none_or(|due| Instant::now() >= due)
    }

    /// Frames fall due on a schedule, one per `1 / max_fps`, rather than
    /// that long after the last one: a simulation stepping exactly at the
    /// frame rate, a little late each time, still gets every frame. After
    /// a stall the schedule restarts from now instead of catching up.
    fn schedule_next(&self) {
        let now = Instant::now();
        let mut due = lock(&self.next_due);
        let next = due.map_or(now, |d| d + self.min_interval);
        *due = Some(next.clamp(now, now + self.min_interval));
    }

    /// Publish a frame, the watched agent's view and the tick. Never waits:
    /// each replaces the previous one in a slot viewers read from.
    pub fn publish(&self, frame: &Frame) {
        self.publish_with(frame, None);
    }

    /// [`Inspector::publish`], with the watched agent's running tasks taken
    /// from `source` (an engine's view of the agent) instead of its events.
    pub fn publish_with(&self, frame: &Frame, source: Option<&dyn RunningSource>) {
        self.schedule_next();
        self.shown.store(true, Ordering::Release);
        self.hub.tick.store(frame.tick(), Ordering::Release);
        self.hub.publish_frame(frame.encode());
        let mut view = {
            let mut log = lock(&self.log);
            let watched = self.watched();
            if log.agent() != watched {
                // Watched from code or the page since the last probe, or an
                // engine source without probes (a state machine).
                log.reset(watched);
            }
            log.view(&self.shape, source)
        };
        view.version = self.version;
        if view.events.is_empty() {
            view.tick = frame.tick(); // nothing observed: the frame's tick
        }
        {
            let mut boards = lock(&self.board);
            let next = std::mem::take(&mut boards.next);
            let same = boards.agent == view.agent && boards.version == self.version;
            let before = if same { &boards.last[..] } else { &[] };
            view.board = mark_changes(next.clone(), before);
            boards.last = next;
            boards.agent = view.agent;
            boards.version = self.version;
        }
        view.lod = (view.agent)
            .and_then(|agent| frame.class_of(agent))
            .map(|class| LodView {
                class,
                name: self.classes.get(class as usize).map(|c| c.name.clone()),
            });
        let json = crate::json::for_page(&view);
        self.hub.agent.send_replace(Some(json.into()));
        self.hub.publish_status();
    }

    /// The watched agent's blackboard, for the next publish: give it each
    /// frame (from [`board_of`](crate::board_of)) and the page shows it,
    /// marking the slots whose value changed since the frame before.
    pub fn set_board(&self, board: Vec<BoardEntry>) {
        lock(&self.board).next = board;
    }

    /// What the server has sent so far.
    pub fn stats(&self) -> Stats {
        self.hub.counters.snapshot()
    }

    /// The tree's shape, as the page draws it.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The version of the tree shown: 0 for the one the inspector started
    /// with, one more for each [`Inspector::set_tree`].
    pub fn tree_version(&self) -> u32 {
        self.version
    }

    /// Show `tree` instead of the tree shown so far: call it after moving
    /// the agents onto an edited tree (`Agent::reload`), before the next
    /// [`Inspector::publish`].
    ///
    /// Open pages redraw the new tree: every viewer is sent the hello
    /// again, with the new shape and a version one higher, and every view
    /// of the watched agent carries the version of the tree its node ids
    /// belong to, so a page never draws one version's states on another's
    /// boxes. The watched agent stays watched; what its events said is
    /// forgotten (node ids changed meaning), so until its next publish the
    /// page shows the new tree with no states, and a view derived from
    /// events starts afresh (an [`EngineView`](crate::EngineView) shows the
    /// kept tasks running at once).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// use canopy_inspector::{Inspector, Options};
    ///
    /// let b = Builder::<(), ()>::new();
    /// let old = b.build(b.sequence("day", [b.wait("sleep", 5)])).unwrap();
    /// let b = Builder::<(), ()>::new();
    /// let new = b.build(b.sequence("day", [b.always_success("wake"), b.wait("sleep", 5)])).unwrap();
    /// let options = Options { addr: "127.0.0.1:0".parse().unwrap(), ..Options::default() };
    /// let mut inspector = Inspector::start(&old, options).unwrap();
    /// let mut agent = Agent::new(&old);
    /// agent.tick(&old, &mut (), &());
    /// agent.reload(&old, &new, &mut (), &());
    /// inspector.set_tree(&new);
    /// assert_eq!(inspector.tree_version(), 1);
    /// assert_eq!(inspector.shape().node(1).unwrap().name, "wake");
    /// ```
    pub fn set_tree<A, W>(&mut self, tree: &Tree<A, W>) {
        self.set_shape(Shape::of(tree));
    }

    /// [`Inspector::set_tree`] for a tree known by its [`Shape`].
    pub fn set_shape(&mut self, shape: Shape) {
        self.version = self.version.wrapping_add(1);
        let watched = self.watched();
        let mut log = AgentLog::new(shape.len(), self.log_events);
        log.reset(watched);
        // Until the next publish, the watched agent is shown on the new
        // boxes with nothing known: never the old view on the new tree.
        let mut view = log.view(&shape, None);
        view.version = self.version;
        view.tick = self.hub.tick.load(Ordering::Acquire);
        *lock(&self.log) = log;
        let hello = hello(
            &self.title,
            &self.legend,
            &self.classes,
            &shape,
            self.version,
        );
        self.shape = shape;
        // The hello goes first: a viewer sends a changed hello before a
        // changed agent view, so it has the boxes before the states.
        self.hub.hello.send_replace(hello.into());
        let view = crate::json::for_page(&view);
        self.hub.agent.send_replace(Some(view.into()));
    }
}

/// The watched agent's blackboards: the next to publish, the last one.
#[derive(Debug, Default)]
struct Boards {
    next: Vec<BoardEntry>,
    last: Vec<BoardEntry>,
    agent: Option<u32>,
    version: u32,
}

/// The first message a viewer gets, and the one it gets again when the
/// tree is replaced.
fn hello(
    title: &str,
    legend: &[Label],
    classes: &[ClassLabel],
    shape: &Shape,
    version: u32,
) -> String {
    crate::json::for_page(&serde_json::json!({
        "type": "hello",
        "mode": "live",
        "version": version,
        "title": title,
        "legend": legend,
        "classes": classes,
        "shape": shape,
    }))
}

impl Drop for Inspector {
    fn drop(&mut self) {
        self.hub.control.close();
        self.server.stop();
    }
}

/// Ticks agents for one step, observing the watched one. `Sync`: share it
/// with a parallel loop.
pub struct Probe<'i> {
    watched: Option<u32>,
    log: &'i Mutex<AgentLog>,
}

impl std::fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("watched", &self.watched)
            .finish_non_exhaustive()
    }
}

impl Probe<'_> {
    /// Tick `agent` once: observed if it is the watched agent, else a plain
    /// `Agent::tick`.
    #[inline]
    pub fn tick<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        data: &mut A,
        world: &W,
    ) -> Status {
        if Some(agent.id()) != self.watched {
            return agent.tick(tree, data, world);
        }
        let mut log = lock(self.log);
        let status = agent.tick_observed(tree, data, world, &mut *log);
        log.end_tick(agent.ticks(), agent.id(), status);
        status
    }

    /// [`Probe::tick`] for an agent ticked less often than the world
    /// (level of detail): `elapsed` world ticks since its last tick, as
    /// `Agent::tick_elapsed` takes them.
    #[inline]
    pub fn tick_elapsed<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        data: &mut A,
        world: &W,
        elapsed: u32,
    ) -> Status {
        if Some(agent.id()) != self.watched {
            return agent.tick_elapsed(tree, data, world, elapsed);
        }
        let mut log = lock(self.log);
        let status = agent.tick_elapsed_observed(tree, data, world, elapsed, &mut *log);
        log.end_tick(agent.ticks(), agent.id(), status);
        status
    }

    /// [`Probe::tick_elapsed`] with another observer beside the
    /// inspector's (Groot2's monitor, say): `also` sees every event of this
    /// agent's tick, whether or not the inspector watches it; `None` is
    /// [`Probe::tick_elapsed`].
    pub fn tick_elapsed_with<A, W>(
        &self,
        agent: &mut Agent,
        tree: &Tree<A, W>,
        data: &mut A,
        world: &W,
        elapsed: u32,
        also: Option<&mut dyn Observer>,
    ) -> Status {
        let Some(also) = also else {
            return self.tick_elapsed(agent, tree, data, world, elapsed);
        };
        if Some(agent.id()) != self.watched {
            return agent.tick_elapsed_observed(tree, data, world, elapsed, also);
        }
        let mut log = lock(self.log);
        let both = Both(&mut log, also);
        let status = agent.tick_elapsed_observed(tree, data, world, elapsed, both);
        log.end_tick(agent.ticks(), agent.id(), status);
        status
    }

    /// The agent this probe observes.
    pub fn watched(&self) -> Option<u32> {
        self.watched
    }
}

/// Two observers, each told every event.
struct Both<'a>(&'a mut AgentLog, &'a mut dyn Observer);

impl Observer for Both<'_> {
    fn event(&mut self, event: Event) {
        self.0.event(event);
        // An observer saying `false` is never called.
        if self.1.observes() {
            self.1.event(event);
        }
    }

    fn wait_aborted(&mut self, node: canopy_core::NodeId, ticket: canopy_core::Ticket) {
        self.1.wait_aborted(node, ticket);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn hello_route(State(hub): State<Arc<Hub>>) -> Response {
    server::json_text(hub.hello.borrow().to_string())
}

async fn watch_route(
    State(hub): State<Arc<Hub>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match server::json_body(&headers, body, control::parse_watch) {
        Ok(agent) => {
            hub.watched
                .store(agent.unwrap_or(NOBODY), Ordering::Release);
            hub.publish_status();
            StatusCode::NO_CONTENT.into_response()
        }
        Err(refusal) => refusal.into_response(),
    }
}

async fn control_route(
    State(hub): State<Arc<Hub>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match server::json_body(&headers, body, control::parse_command) {
        Ok(command) => {
            hub.control.apply(command);
            hub.publish_status();
            StatusCode::NO_CONTENT.into_response()
        }
        Err(refusal) => refusal.into_response(),
    }
}

async fn stats_route(State(hub): State<Arc<Hub>>) -> Response {
    Json(hub.counters.snapshot()).into_response()
}
