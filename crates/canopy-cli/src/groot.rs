//! `run --groot2 PORT` and `run --btlog FILE`: one agent of the crowd (the
//! one `--watch` names, 0 by default) watched by Groot2 while the crowd
//! runs, or written to a `.btlog` file Groot2 replays (canopy-groot2).
//!
//! The tree Groot2 is shown is the XML file itself for `.xml` files, so
//! that its nodes have BehaviorTree.CPP's UIDs; a JSON or RON file is
//! shown as `export --to btcpp` writes it. With `--groot2` the run is
//! paced in real time, one tick per `--tick-ms`, so that a person can
//! watch it; the server is ZeroMQ's, compiled in with the feature
//! `groot2` (libzmq), and a `canopy` built without it says so.

use std::path::Path;
use std::time::{Duration, Instant};

use canopy_core::Tree;
use canopy_data::Registry;
use canopy_groot2::{BtLog, GrootTree, Monitor};

use crate::args::RunArgs;
use crate::failure::Failure;
use crate::files::shown;

/// What watches the run: the monitor (served, or only logging) and the
/// pace.
pub(crate) struct Watch {
    monitor: Holder,
    /// Time per tick, when paced.
    pace: Option<Duration>,
    next: Option<Instant>,
}

enum Holder {
    Local(Box<Monitor>),
    #[cfg(feature = "groot2")]
    Served(canopy_groot2::Publisher),
}

impl Watch {
    /// The monitor the run's ticks go through.
    pub(crate) fn monitor(&self) -> &Monitor {
        match &self.monitor {
            Holder::Local(m) => m,
            #[cfg(feature = "groot2")]
            Holder::Served(p) => p.monitor(),
        }
    }

    /// Before each tick: wait for its time, when paced.
    pub(crate) fn wait_turn(&mut self) {
        let Some(pace) = self.pace else { return };
        if let Some(next) = self.next {
            let now = Instant::now();
            if next > now {
                std::thread::sleep(next - now);
            }
        }
        // Ticks fall due one pace apart; after a stall the schedule
        // restarts from now rather than catching up.
        let start = Instant::now();
        let earliest = start.checked_sub(pace).unwrap_or(start);
        self.next = Some(self.next.map_or(start, |n| n.max(earliest)) + pace);
    }

    /// After the run: finish the log, saying how many transitions it holds.
    pub(crate) fn finish(self, out: &mut dyn std::io::Write) -> Result<(), Failure> {
        if let Some(log) = self.monitor().set_log(None) {
            let written = log
                .finish()
                .map_err(|e| Failure::Message(format!("the .btlog file was not written: {e}")))?;
            writeln!(out, "btlog: {written} transitions written")?;
        }
        Ok(())
    }
}

/// The tree as Groot2 sees it, for the tree file `file`.
fn groot_tree<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    file: &Path,
    options: &canopy_btcpp::XmlOptions,
) -> Result<GrootTree, Failure> {
    let failed = |e: canopy_groot2::Groot2Error| {
        Failure::Message(format!("{}: cannot be shown to Groot2: {e}", shown(file)))
    };
    if canopy_btcpp::is_xml(file) {
        return GrootTree::from_file(file, options.includes_outside).map_err(failed);
    }
    let xml = canopy_btcpp::export_file(registry, file, options).map_err(|e| {
        Failure::Message(format!(
            "{}: cannot be shown to Groot2, which reads BehaviorTree.CPP XML: {e}",
            shown(file)
        ))
    })?;
    GrootTree::from_xml(&xml).map_err(failed)
}

/// The watch `a` asks for, if any; `agents` is the crowd's size.
pub(crate) fn start<A: 'static, W: 'static>(
    a: &RunArgs,
    registry: &Registry<A, W>,
    tree: &Tree<A, W>,
    agents: u32,
    out: &mut dyn std::io::Write,
) -> Result<Option<Watch>, Failure> {
    if a.groot2.is_none() && a.btlog.is_none() {
        return Ok(None);
    }
    let watched = a.watch.unwrap_or(0);
    if watched >= agents {
        return Err(Failure::Usage(
            "run",
            format!(
                "--watch {watched}: the crowd has agents 0 to {}",
                agents.saturating_sub(1)
            ),
        ));
    }
    let options = canopy_btcpp::XmlOptions {
        tick_ms: a.load.tick_ms,
        includes_outside: a.load.includes_outside,
        ..canopy_btcpp::XmlOptions::default()
    };
    let groot = groot_tree(registry, &a.file, &options)?;
    let monitor = Monitor::new(groot.clone(), tree);
    for problem in monitor.mismatches() {
        writeln!(out, "warning: {problem}")?;
    }
    monitor.watch(watched);
    monitor.set_agents(agents);
    if let Some(path) = &a.btlog {
        let log = BtLog::create(path, &groot, a.load.tick_ms)
            .map_err(|e| Failure::Message(format!("{}: cannot be written: {e}", shown(path))))?;
        monitor.set_log(Some(log));
    }
    let pace = a
        .groot2
        .map(|_| Duration::from_millis(u64::from(a.load.tick_ms)));
    let monitor = match a.groot2 {
        None => Holder::Local(Box::new(monitor)),
        Some(port) => serve(monitor, port, watched, out)?,
    };
    Ok(Some(Watch {
        monitor,
        pace,
        next: None,
    }))
}

#[cfg(feature = "groot2")]
fn serve(
    monitor: Monitor,
    port: u16,
    watched: u32,
    out: &mut dyn std::io::Write,
) -> Result<Holder, Failure> {
    let options = canopy_groot2::Options {
        port,
        ..canopy_groot2::Options::default()
    };
    let publisher = canopy_groot2::Publisher::start(monitor, options).map_err(|e| {
        Failure::Message(format!(
            "cannot serve Groot2 on ports {port} and {}: {e}",
            port.wrapping_add(1)
        ))
    })?;
    writeln!(
        out,
        "groot2: agent {watched} on {}:{} (Groot2: Monitor, connect to this port)",
        publisher.addr(),
        publisher.port()
    )?;
    out.flush()?;
    Ok(Holder::Served(publisher))
}

#[cfg(not(feature = "groot2"))]
fn serve(
    _monitor: Monitor,
    _port: u16,
    _watched: u32,
    _out: &mut dyn std::io::Write,
) -> Result<Holder, Failure> {
    Err(Failure::Usage(
        "run",
        "--groot2: this canopy was built without Groot2's server (the feature `groot2`, \
         which needs libzmq); --btlog writes a file Groot2 replays"
            .to_string(),
    ))
}
