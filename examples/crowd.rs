//! The crowd demo: thousands of agents sharing one behavior tree, loaded
//! from `examples/trees/crowd.json`, ticked in parallel; the final frame is
//! written to `crowd.svg`.
//!
//! ```text
//! cargo run --release --example crowd
//! cargo run --release --example crowd -- --agents 100000 --steps 200 --threads 2 --json
//! cargo run --release --example crowd -- --serve    # watch it live in a browser
//! cargo run --release --example crowd -- --steps 300 --save-at 100 --save crowd.save
//! cargo run --release --example crowd -- --load crowd.save --steps 200  # same final state
//! cargo run --release --example crowd -- --tree examples/trees/crowd.json --watch
//! cargo run --release --example crowd -- --agents 100000 --steps 200 --threads 2 --lod
//! cargo run --release --example crowd --features groot2 -- --serve --groot2 1667  # and in Groot2
//! ```
//!
//! `--groot2 PORT` (with the feature `groot2`, which needs libzmq) also
//! serves Groot2's monitor protocol for the agent the inspector watches
//! (0 until one is clicked): Groot2's Monitor mode, or `btview`, attached
//! to PORT shows that agent's tree, statuses and blackboard.
//!
//! `--lod` ticks agents by their distance to a focus point circling the
//! arena — near ones every step, farther ones 1 step in 2, 4 or 8 — and
//! their trees count the steps they missed; an agent is steered (its
//! avoidance) when it is ticked and keeps its velocity between; the picture draws the bands
//! and the classes, and with `--serve` the inspector draws slower agents
//! paler, counts each class and shows the watched agent's class and last
//! tick.
//!
//! `--save`/`--load` show how a game's own agent data and canopy's
//! snapshots go together (see `canopy_crowd`'s `save` module): a loaded
//! crowd ends with the state hash of the run that was never interrupted.
//! `--watch` reloads the `--tree` file whenever it changes on disk, while
//! the crowd runs, and prints what the reload kept and aborted; with
//! `--serve`, open pages redraw the new tree (`Inspector::set_tree`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use canopy::Mode;
use canopy::data::TreeSource;
use canopy_crowd::{
    Activity, Config, Crowd, Flow, class_label, class_opacity, load_default_tree, registry,
    render_svg,
};
use canopy_inspector::{ClassLabel, EngineView, Frame, Inspector, Label, Options};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};

/// Run the canopy crowd simulation and draw its last frame.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Number of agents.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=2_000_000))]
    agents: u32,
    /// Simulation steps (0.1 s each).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    steps: u32,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Seed of the run: same seed, same final state.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Behavior tree file (default: the built-in examples/trees/crowd.json).
    #[arg(long)]
    tree: Option<PathBuf>,
    /// Where to write the SVG picture of the final frame.
    #[arg(long, default_value = "crowd.svg")]
    out: PathBuf,
    /// Also write a plot of the activities' shares over the run (SVG).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Print a JSON object with the figures as the last line.
    #[arg(long)]
    json: bool,
    /// How agents run the tree: `tick` (from the root, every tick) or
    /// `event` (only what can change). The default tree's root is a
    /// priority selector that re-checks every tick, so for it the two
    /// coincide; trees with deep running branches gain from `event`.
    #[arg(long, default_value = "tick")]
    mode: Mode,
    /// Serve the inspector (the crowd live in a browser, one agent's tree,
    /// pause / step / resume) and run until interrupted, one step per 0.1 s.
    #[arg(long)]
    serve: bool,
    /// Where `--serve` listens: this machine only by default; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:7878")]
    addr: SocketAddr,
    /// Save the whole crowd (walkers, world, every agent's snapshot) to FILE
    /// after step `--save-at` (default: the last step).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// The step after which `--save` saves: 1 to `--steps`.
    #[arg(long, value_name = "STEP", requires = "save",
          value_parser = clap::value_parser!(u32).range(1..))]
    save_at: Option<u32>,
    /// Go on from a crowd saved with `--save`: its agents, seed and mode
    /// come from the file, and `--steps` more steps run.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["agents", "seed", "mode"])]
    load: Option<PathBuf>,
    /// Reload `--tree` whenever the file changes, while the crowd runs.
    #[arg(long, requires = "tree")]
    watch: bool,
    /// Level of detail: tick and steer agents by their band round a moving
    /// focus (every step near it, 1 step in 2, 4 or 8 farther out).
    #[arg(long)]
    lod: bool,
    /// With `--lod`: tick as many agents each step as fit in this many µs
    /// of tree time (those at the end of their class's period first, then
    /// the oldest); prints the median tree time against it.
    #[arg(long, value_name = "MICROS", requires = "lod",
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    budget_us: Option<u64>,
    /// With `--serve`: serve Groot2's monitor protocol for the watched agent
    /// on PORT and PORT+1 (needs the feature `groot2`).
    #[arg(long, value_name = "PORT", requires = "serve")]
    groot2: Option<u16>,
}

/// Print an error and stop.
fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

fn main() {
    let args = Args::parse();
    if let Some(at) = args.save_at.filter(|&at| at > args.steps) {
        // A step that never comes would save nothing, and say nothing.
        use clap::CommandFactory;
        Args::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!(
                    "--save-at {at} is after the last step (--steps {}): nothing would be saved",
                    args.steps
                ),
            )
            .exit();
    }
    let tree = match &args.tree {
        Some(path) => registry().loading(TreeSource::file(&path)).load(),
        None => load_default_tree(),
    };
    let tree = tree.unwrap_or_else(|e| fail(e));
    let threads = args
        .threads
        .map(|t| t as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");

    let config = Config {
        agents: args.agents as usize,
        seed: args.seed,
        mode: args.mode,
        ..Config::default()
    };
    let mut crowd = match &args.load {
        // Read as tree files are: a regular file of bounded size, opened
        // without blocking (a FIFO or /dev/zero is an error at once).
        Some(path) => Crowd::load_file(tree, path).unwrap_or_else(|e| fail(e)),
        None => Crowd::new(tree, &config),
    };
    if args.lod {
        crowd.set_lod(true).unwrap_or_else(|e| fail(e));
        crowd.set_lod_budget(args.budget_us.map(Duration::from_micros));
    }
    let watcher = args.tree.as_ref().filter(|_| args.watch).map(|path| {
        Watch::start(path).unwrap_or_else(|e| fail(format!("cannot watch {}: {e}", path.display())))
    });
    if args.serve {
        pool.install(|| serve(&mut crowd, args.addr, watcher.as_ref(), args.groot2));
        return;
    }
    let bar = ProgressBar::new(args.steps as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} step {pos}/{len} [{bar:40}] {per_sec} ETA {eta}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let (mut tree_time, mut move_time) = (Duration::ZERO, Duration::ZERO);
    let mut agent_ticks = 0usize;
    let mut tree_times = Vec::with_capacity(args.steps as usize);
    let mut flow = Flow::new();
    let save_at = args
        .save
        .as_ref()
        .map(|path| (path, args.save_at.unwrap_or(args.steps)));
    pool.install(|| {
        for step in 1..=args.steps {
            if let Some(watcher) = &watcher {
                watcher.reload_if_changed(&mut crowd, |line| bar.suspend(|| println!("{line}")));
            }
            let times = crowd.step();
            flow.record(&crowd);
            agent_ticks += crowd.lod().map_or(crowd.walkers.len(), |l| l.due().len());
            tree_time += times.tree;
            tree_times.push(times.tree);
            move_time += times.movement;
            bar.inc(1);
            if let Some((path, _)) = save_at.filter(|&(_, at)| at == step) {
                std::fs::write(path, crowd.save())
                    .unwrap_or_else(|e| fail(format!("cannot write {}: {e}", path.display())));
                bar.suspend(|| {
                    println!(
                        "saved after step {step} (world step {}): {}",
                        crowd.world.step,
                        path.display()
                    )
                });
            }
        }
    });
    bar.finish_and_clear();

    let title = format!("canopy crowd, seed {}", crowd.config().seed);
    let svg = render_svg(&crowd, &title);
    if let Err(e) = std::fs::write(&args.out, svg) {
        fail(format!("cannot write {}: {e}", args.out.display()));
    }
    if let Some(path) = &args.plot {
        let title = format!(
            "{} agents{}: share of each activity, step by step",
            crowd.walkers.len(),
            if crowd.lod().is_some() {
                ", level of detail"
            } else {
                ""
            }
        );
        if let Err(e) = std::fs::write(path, flow.plot_svg(&title)) {
            fail(format!("cannot write {}: {e}", path.display()));
        }
    }

    let steps = args.steps as f64;
    let agents = crowd.walkers.len() as f64;
    let tree_ms = tree_time.as_secs_f64() * 1e3 / steps;
    let move_ms = move_time.as_secs_f64() * 1e3 / steps;
    let ticks_per_sec = agent_ticks as f64 / tree_time.as_secs_f64();
    let ticks_per_step = agent_ticks as f64 / steps;
    let bytes = crowd.behavior_bytes_per_agent();
    let counts = crowd.activity_counts();

    println!(
        "{} agents × {} steps on {threads} threads, {} mode; tree: {} nodes, shared by all",
        crowd.walkers.len(),
        args.steps,
        crowd.config().mode,
        crowd.tree().len()
    );
    println!(
        "ms per step: {:.2} tree + {:.2} movement = {:.2}",
        tree_ms,
        move_ms,
        tree_ms + move_ms
    );
    println!(
        "tree: {:.1} M agent-ticks/s ({:.0} ns per agent-tick with {threads} threads)",
        ticks_per_sec / 1e6,
        1e9 / ticks_per_sec
    );
    println!(
        "agent ticks per step: {ticks_per_step:.0} of {agents} agents ({:.0}%)",
        100.0 * ticks_per_step / agents
    );
    if let Some(budget) = args.budget_us {
        tree_times.sort_unstable();
        let median = tree_times[tree_times.len() / 2].as_secs_f64() * 1e6;
        println!(
            "budget: {budget} µs of tree time per step; median {median:.0} µs ({:+.1}%)",
            100.0 * (median - budget as f64) / budget as f64
        );
    }
    if let Some(lod) = crowd.lod() {
        let classes: Vec<String> = lod
            .classes()
            .iter()
            .zip(lod.counts())
            .map(|(c, n)| format!("{n} 1-in-{}", c.period))
            .collect();
        println!("level of detail now: {}", classes.join(", "));
    }
    println!("behavior state: {bytes:.1} bytes per agent (Agent value + its task memory)");
    let listed: Vec<String> = counts
        .iter()
        .map(|(a, n)| format!("{} {n}", a.word()))
        .collect();
    println!("running now: {}", listed.join(", "));
    // Whether it flows: the busiest activity once the crowd has spread
    // out, and the meals in each 50 steps.
    const WARM_UP: usize = 200;
    let busiest = flow.busiest_after(WARM_UP);
    let meals = flow.meals_per_window(WARM_UP, 50);
    if let Some(b) = busiest {
        println!(
            "flow after step {WARM_UP}: busiest {} {:.1}% (step {}); meals per 50 steps: fewest {}, {} in all",
            b.activity.word(),
            100.0 * b.share,
            b.step,
            meals.iter().min().copied().unwrap_or(0),
            crowd.meals()
        );
    }
    println!("state hash: {:016x}", crowd.state_hash());
    println!("picture: {}", args.out.display());
    if args.json {
        let counts: Vec<String> = counts
            .iter()
            .map(|(a, n)| format!("\"{}\":{n}", a.word()))
            .collect();
        let (busiest, busiest_share) =
            busiest.map_or(("none", 0.0), |b| (b.activity.word(), b.share));
        println!(
            "{{\"agents\":{},\"steps\":{},\"threads\":{threads},\"mode\":\"{}\",\"lod\":{},\
             \"tree_nodes\":{},\"agent_ticks_per_step\":{ticks_per_step:.0},\"tree_ms_per_step\":{tree_ms:.3},\
             \"movement_ms_per_step\":{move_ms:.3},\"agent_ticks_per_sec\":{ticks_per_sec:.0},\
             \"behavior_bytes_per_agent\":{bytes:.1},\"activities\":{{{}}},\"meals\":{},\"naps\":{},\
             \"busiest_after_warm_up\":{{\"activity\":\"{busiest}\",\"share\":{busiest_share:.4}}},\
             \"fewest_meals_per_50_steps\":{},\"state_hash\":\"{:016x}\"}}",
            crowd.walkers.len(),
            args.steps,
            crowd.config().mode,
            crowd.lod().is_some(),
            crowd.tree().len(),
            counts.join(","),
            crowd.meals(),
            crowd.naps(),
            meals.iter().min().copied().unwrap_or(0),
            crowd.state_hash()
        );
    }
}

/// `--serve`: run the crowd under the inspector, at the pace of its clock.
fn serve(crowd: &mut Crowd, addr: SocketAddr, watcher: Option<&Watch>, groot2: Option<u16>) {
    let mut activities = Activity::ALL;
    activities.sort_by_key(|&a| a as u8); // a frame's label is `activity as u8`
    let options = Options {
        addr,
        title: "canopy crowd".to_string(),
        legend: activities
            .iter()
            .map(|a| Label::new(a.word(), a.colour()))
            .collect(),
        classes: crowd.lod().map_or(Vec::new(), |lod| {
            (lod.classes().iter().enumerate())
                .map(|(k, c)| ClassLabel::new(class_label(c.period), class_opacity(k)))
                .collect()
        }),
        ..Options::default()
    };
    let mut inspector = Inspector::start(crowd.tree(), options).unwrap_or_else(|e| {
        eprintln!("error: cannot serve the inspector on {addr}: {e}");
        std::process::exit(1);
    });
    println!("inspector: {} (Ctrl-C to stop)", inspector.url());
    let groot2 = groot2.map(|port| groot::start(crowd, port));
    let mut frame = Frame::new();
    let pace = Duration::from_secs_f32(crowd.world.dt);
    loop {
        inspector.wait_turn();
        let started = Instant::now();
        if let Some(watcher) = watcher
            && watcher.reload_if_changed(crowd, |line| println!("{line}"))
        {
            inspector.set_tree(crowd.tree());
            groot::set_tree(groot2.as_ref(), crowd);
        }
        let probe = inspector.probe();
        // Groot2 follows the agent the inspector watches.
        let groot2 = groot::follow(groot2.as_ref(), inspector.watched());
        crowd.step_elapsed_with(|agent, tree, walker, world, elapsed| {
            groot::tick(groot2.as_ref(), agent, tree, |agent, also| {
                probe.tick_elapsed_with(agent, tree, walker, world, elapsed, also)
            })
        });
        if inspector.frame_due() {
            let size = crowd.world.size;
            frame.begin(crowd.world.step, [0.0; 2], [size; 2]);
            let lod = crowd.lod();
            for (i, walker) in crowd.walkers.iter().enumerate() {
                frame.push_at(i as u32, walker.pos.to_array(), walker.activity as u8);
                if let Some(lod) = lod {
                    frame.set_class(lod.class_of(i) as u8);
                }
            }
            // The watched agent's running tasks, read from its memory.
            let watched = inspector
                .watched()
                .filter(|&i| (i as usize) < crowd.walkers.len());
            match watched {
                Some(i) => {
                    let view = EngineView {
                        agent: crowd.agent(i as usize),
                        tree: crowd.tree(),
                    };
                    inspector.publish_with(&frame, Some(&view));
                }
                None => inspector.publish(&frame),
            }
        }
        if !inspector.switch().is_paused() {
            std::thread::sleep(pace.saturating_sub(started.elapsed()));
        }
    }
}

/// `--watch`: the tree file's changes, as a channel the step loop polls.
struct Watch {
    path: PathBuf,
    // In a mutex only so that the step loop, inside the thread pool, may
    // hold a reference to it.
    changes: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
    // Kept alive: dropping it stops the watching.
    _watcher: notify::RecommendedWatcher,
}

impl Watch {
    fn start(path: &std::path::Path) -> notify::Result<Watch> {
        use notify::Watcher;
        let (send, changes) = std::sync::mpsc::channel();
        let name = path.file_name().map(|n| n.to_owned());
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                // Editors often save by writing a new file and renaming it over
                // the old one, so the directory is watched and events are
                // filtered by the file's name.
                if let Ok(event) = event
                    && (event.kind.is_modify() || event.kind.is_create())
                    && event.paths.iter().any(|p| p.file_name() == name.as_deref())
                {
                    let _ = send.send(());
                }
            })?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        watcher.watch(dir, notify::RecursiveMode::NonRecursive)?;
        Ok(Watch {
            path: path.to_owned(),
            changes: std::sync::Mutex::new(changes),
            _watcher: watcher,
        })
    }

    /// If the file changed since the last call, load it and move the crowd
    /// onto it; a file that does not load leaves the crowd as it was.
    /// Whether the crowd moved.
    fn reload_if_changed(&self, crowd: &mut Crowd, say: impl Fn(String)) -> bool {
        let changes = self.changes.lock().map_or(0, |c| c.try_iter().count());
        if changes == 0 {
            return false;
        }
        match registry().loading(TreeSource::file(&self.path)).load() {
            Ok(tree) => {
                let (kept, aborted) = crowd.reload(tree);
                say(format!(
                    "reloaded {} at step {}: {kept} running tasks kept, {aborted} aborted",
                    self.path.display(),
                    crowd.world.step
                ));
                true
            }
            Err(e) => {
                say(format!("not reloaded: {e}"));
                false
            }
        }
    }
}

/// `--groot2`: Groot2's monitor protocol for the watched agent.
#[cfg(feature = "groot2")]
mod groot {
    use canopy::groot2::{GrootTree, Monitor, Options, Probe, Publisher};
    use canopy::{Agent, Observer, Status, Tree};
    use canopy_crowd::{Crowd, Walker, World};

    pub(crate) fn start(crowd: &Crowd, port: u16) -> Publisher {
        let groot = GrootTree::of_tree(crowd.tree()).unwrap_or_else(|e| super::fail(e));
        let monitor = Monitor::new(groot, crowd.tree());
        monitor.set_agents(crowd.walkers.len() as u32);
        let options = Options {
            port,
            ..Options::default()
        };
        let publisher = Publisher::start(monitor, options)
            .unwrap_or_else(|e| super::fail(format!("cannot serve Groot2 on {port}: {e}")));
        println!(
            "groot2: {}:{} (Groot2: Monitor, connect to this port)",
            publisher.addr(),
            publisher.port()
        );
        publisher
    }

    pub(crate) fn set_tree(publisher: Option<&Publisher>, crowd: &Crowd) {
        if let Some(p) = publisher {
            let groot = GrootTree::of_tree(crowd.tree()).unwrap_or_else(|e| super::fail(e));
            p.monitor().set_tree(groot, crowd.tree());
        }
    }

    pub(crate) fn follow(publisher: Option<&Publisher>, watched: Option<u32>) -> Option<Probe<'_>> {
        let monitor = publisher?.monitor();
        monitor.watch(watched.unwrap_or(0));
        Some(monitor.probe())
    }

    pub(crate) fn tick(
        probe: Option<&Probe<'_>>,
        agent: &mut Agent,
        tree: &Tree<Walker, World>,
        tick: impl FnOnce(&mut Agent, Option<&mut dyn Observer>) -> Status,
    ) -> Status {
        match probe {
            Some(probe) => probe.tick_with(agent, tree, tick),
            None => tick(agent, None),
        }
    }
}

/// Without the feature `groot2`, `--groot2` says how to get it.
#[cfg(not(feature = "groot2"))]
mod groot {
    use canopy::{Agent, Observer, Status, Tree};
    use canopy_crowd::{Crowd, Walker, World};

    /// Never made: `start` stops the program.
    pub(crate) enum Publisher {}

    pub(crate) fn start(_: &Crowd, _: u16) -> Publisher {
        super::fail(
            "--groot2 needs the feature groot2 (and libzmq): cargo run --example crowd --features groot2",
        )
    }

    pub(crate) fn set_tree(_: Option<&Publisher>, _: &Crowd) {}

    pub(crate) fn follow(_: Option<&Publisher>, _: Option<u32>) -> Option<()> {
        None
    }

    pub(crate) fn tick(
        _: Option<&()>,
        agent: &mut Agent,
        _: &Tree<Walker, World>,
        tick: impl FnOnce(&mut Agent, Option<&mut dyn Observer>) -> Status,
    ) -> Status {
        tick(agent, None)
    }
}
