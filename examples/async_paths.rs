//! Async leaves: agents ask worker threads for paths and sleep until the
//! answer comes back.
//!
//! Each traveller's tree picks a goal, then *asks* for a path: the async
//! leaf sends the request, with its [`Ticket`], to a pool of worker threads
//! and suspends. A worker runs a breadth-first search on the shared grid
//! (and, to play a loaded job system, sometimes takes a while), then sends
//! the ticket back with the path. Between frames the main loop delivers the
//! answers with [`Agent::complete`]; the leaf succeeds on the agent's next
//! tick and the traveller walks the path.
//!
//! A search that takes longer than the Timeout around it is abandoned: the
//! timeout aborts the leaf, the agent picks another goal, and when the late
//! answer arrives its ticket is stale, so `complete` returns `false` and the
//! path is dropped — never handed to the newer request.
//!
//! In event mode (the default here) a waiting traveller costs nothing per
//! tick; `--mode tick` polls every waiting leaf instead, with the same
//! results.
//!
//! `cargo run --release --example async_paths -- --agents 500 --ticks 400`
//! (defaults: 200 travellers, 300 frames, 2 workers, event mode)

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use canopy::{Agent, Builder, Completion, Mode, Status, Ticket, Tree};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(about)]
struct Args {
    /// Travellers.
    #[arg(long, default_value_t = 200)]
    agents: u32,
    /// Frames to run (2 ms each).
    #[arg(long, default_value_t = 300)]
    ticks: u32,
    /// Path-search worker threads.
    #[arg(long, default_value_t = 2)]
    workers: u32,
    /// `tick` or `event`.
    #[arg(long, default_value = "event")]
    mode: Mode,
}

type Cell = (i32, i32);

const SIDE: i32 = 32;

/// The map, shared with the workers.
struct Grid {
    walls: Vec<bool>,
}

impl Grid {
    fn open(&self, (x, y): Cell) -> bool {
        (0..SIDE).contains(&x) && (0..SIDE).contains(&y) && !self.walls[(y * SIDE + x) as usize]
    }
}

/// What the tree sees: the map, and where path requests go.
struct World {
    grid: Arc<Grid>,
    requests: Mutex<Sender<Request>>,
}

/// What a worker is asked: a path, for the leaf holding `ticket`.
struct Request {
    ticket: Ticket,
    from: Cell,
    to: Cell,
}

/// What comes back: the ticket and the path, if there is one.
struct Answer {
    ticket: Ticket,
    path: Option<Vec<Cell>>,
}

#[derive(Default)]
struct Traveller {
    pos: Cell,
    goal: Cell,
    path: Vec<Cell>,
    rng: u32,
    arrived: u32,
    asked: u32,
}

impl Traveller {
    fn roll(&mut self) -> u32 {
        // xorshift32: each traveller has its own stream.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 17;
        self.rng ^= self.rng << 5;
        self.rng
    }
}

fn tree() -> Tree<Traveller, World> {
    let b = Builder::<Traveller, World>::new();
    let pick_goal = b.action("pick goal", |cx| {
        let (x, y) = (cx.agent.roll() % SIDE as u32, cx.agent.roll() % SIDE as u32);
        cx.agent.goal = (x as i32, y as i32);
        Status::from_bool(cx.world.grid.open(cx.agent.goal))
    });
    let ask = b.async_action("find path", |cx, ticket| {
        cx.agent.asked += 1;
        let request = Request {
            ticket,
            from: cx.agent.pos,
            to: cx.agent.goal,
        };
        // A lock only to share the sender; the workers are never waited on.
        match cx.world.requests.lock() {
            Ok(requests) if requests.send(request).is_ok() => Status::Running,
            _ => Status::Failure,
        }
    });
    let walk = b.action("walk", |cx| match cx.agent.path.pop() {
        Some(next) => {
            cx.agent.pos = next;
            Status::Running
        }
        None => {
            cx.agent.arrived += 1;
            Status::Success
        }
    });
    let root = b.repeat(
        "travel forever",
        u32::MAX,
        b.sequence(
            "trip",
            [
                pick_goal,
                b.timeout("impatient", 10, ask),
                walk,
                b.wait("look around", 3),
            ],
        ),
    );
    b.build(root).expect("a valid tree")
}

/// Breadth-first search; the path comes back goal first, so walking it is `pop`.
fn search(grid: &Grid, from: Cell, to: Cell) -> Option<Vec<Cell>> {
    let index = |(x, y): Cell| (y * SIDE + x) as usize;
    let mut came_from = vec![None; (SIDE * SIDE) as usize];
    let mut queue = VecDeque::from([from]);
    came_from[index(from)] = Some(from);
    while let Some(cell) = queue.pop_front() {
        if cell == to {
            let mut path = Vec::new();
            let mut at = to;
            while at != from {
                path.push(at);
                at = came_from[index(at)]?;
            }
            return Some(path);
        }
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let next = (cell.0 + dx, cell.1 + dy);
            if grid.open(next) && came_from[index(next)].is_none() {
                came_from[index(next)] = Some(cell);
                queue.push_back(next);
            }
        }
    }
    None
}

fn worker(grid: Arc<Grid>, jobs: Arc<Mutex<Receiver<Request>>>, answers: Sender<Answer>) {
    let mut slow = 0u32;
    loop {
        let job = match jobs.lock() {
            Ok(jobs) => jobs.recv(),
            Err(_) => return,
        };
        let Ok(Request { ticket, from, to }) = job else {
            return; // the simulation is over
        };
        // A busy job system: now and then a worker stalls for 25 ms, longer
        // than the traveller's patience of 10 frames.
        slow += 1;
        if slow.is_multiple_of(250) {
            thread::sleep(Duration::from_millis(25));
        }
        let path = search(&grid, from, to);
        if answers.send(Answer { ticket, path }).is_err() {
            return;
        }
    }
}

fn main() {
    let args = Args::parse();
    let (request_tx, request_rx) = channel();
    let (answer_tx, answers) = channel();
    let mut seed = 0x9e37_79b9u32;
    let walls = (0..SIDE * SIDE)
        .map(|_| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed >> 28 < 3 // about 19% walls
        })
        .collect();
    let grid = Arc::new(Grid { walls });
    let world = World {
        grid: Arc::clone(&grid),
        requests: Mutex::new(request_tx),
    };
    let jobs = Arc::new(Mutex::new(request_rx));
    let workers: Vec<_> = (0..args.workers)
        .map(|_| {
            let (grid, jobs, answers) = (Arc::clone(&grid), Arc::clone(&jobs), answer_tx.clone());
            thread::spawn(move || worker(grid, jobs, answers))
        })
        .collect();
    drop(answer_tx);

    let tree = tree();
    let mut travellers: Vec<Traveller> = (0..args.agents)
        .map(|i| {
            let mut t = Traveller {
                rng: 0x2545_f491 ^ (i + 1).wrapping_mul(0x9e37_79b9),
                ..Traveller::default()
            };
            // Start on an open cell.
            while !grid.open(t.pos) {
                t.pos = (
                    (t.roll() % SIDE as u32) as i32,
                    (t.roll() % SIDE as u32) as i32,
                );
            }
            t
        })
        .collect();
    let mut agents: Vec<Agent> = (0..args.agents)
        .map(|i| {
            let mut agent = Agent::with_id(&tree, i);
            agent.set_mode(&tree, args.mode);
            agent
        })
        .collect();

    let (mut delivered, mut stale, mut no_path) = (0u32, 0u32, 0u32);
    for _ in 0..args.ticks {
        // Deliver what the workers finished since the last frame.
        for Answer { ticket, path } in answers.try_iter() {
            let i = ticket.agent() as usize;
            let status = if path.is_some() {
                Status::Success
            } else {
                Status::Failure
            };
            match agents[i].complete(ticket, status) {
                Completion::Completed => {
                    delivered += 1;
                    no_path += u32::from(path.is_none());
                    travellers[i].path = path.unwrap_or_default();
                }
                // The leaf timed out meanwhile (and its wait may have been
                // reused since): drop the answer.
                Completion::Aborted | Completion::Ended => stale += 1,
                other => unreachable!("a ticket delivered to its own agent: {other:?}"),
            }
        }
        for (agent, traveller) in agents.iter_mut().zip(&mut travellers) {
            agent.tick(&tree, traveller, &world);
        }
        thread::sleep(Duration::from_millis(2)); // the rest of the frame
    }

    let waiting = travellers.iter().filter(|t| t.path.is_empty()).count();
    let asked: u32 = travellers.iter().map(|t| t.asked).sum();
    let arrived: u32 = travellers.iter().map(|t| t.arrived).sum();
    println!(
        "{} travellers, {} frames, {} mode, {} worker threads",
        args.agents, args.ticks, args.mode, args.workers
    );
    println!("paths asked for: {asked}");
    println!("answers delivered: {delivered} ({no_path} with no path)");
    println!("answers too late (stale tickets, dropped): {stale}");
    println!("trips completed: {arrived}");
    println!("without a path at the end: {waiting}");

    // Hang up: the workers finish the searches queued and stop.
    drop(world);
    for w in workers {
        let _ = w.join();
    }
}
