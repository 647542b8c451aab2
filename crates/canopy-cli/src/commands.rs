//! Every subcommand carried out with one [`Types`]: the registry's node
//! types, agent data and world.
//!
//! [`Cli`](crate::Cli) may offer several registries with different agent
//! data and worlds (`--types`), so each is used through the object-safe
//! [`AnyTypes`]: the command line is parsed once, then the chosen registry
//! does the work with its own types.

use std::io::Write;
use std::path::Path;

use canopy_btcpp::XmlOptions;
use canopy_core::{Mode, Tree};
use canopy_data::Registry;

use crate::any_types::AnyTypes;
use crate::args::{
    BenchArgs, Command, ExportArgs, ExportFormat, InspectArgs, Load, ModelArgs, RunArgs,
    SnapshotCommand, ViewArgs,
};
use crate::crowd::{self, Crowd};
use crate::failure::{self, Failure};
use crate::files::{self, shown};
use crate::machine;
use crate::types::Types;
use crate::{bench, catalog, inspect, run, show, trace};

impl<A: Send + 'static, W: Send + Sync + 'static> AnyTypes for Types<A, W> {
    fn knows(&self, type_name: &str) -> bool {
        self.registry.get(type_name).is_some()
    }

    fn runs(&self) -> bool {
        self.agent.is_some() && self.world.is_some()
    }

    fn execute(
        &mut self,
        command: &Command,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        let chosen = command.chosen_tree();
        if let Some((file, load)) = command.load()
            && let Some(model) = &load.model
        {
            self.stand_in(file, &xml_options(load, chosen), load, model, err)?;
        }
        if let Some(input) = machine_file(command) {
            return self.machine(command, &input, out);
        }
        if let Command::Run(a) = command
            && !a.send.is_empty()
        {
            let message = "--send is for state machine files; a tree file takes no triggers";
            return Err(Failure::Usage("run", message.to_string()));
        }
        self.tree_command(command, out, err)
            .map_err(|failure| match failure {
                // A tree error on a machine file: say what the file is instead.
                Failure::Load(e) => match command.load() {
                    Some((file, _)) if machine::detect(file).is_some() => {
                        Failure::Message(format!(
                            "{}: a state machine file; `{}` reads tree files (machine files \
                         are read by check, print, dot and run)",
                            shown(file),
                            command.name()
                        ))
                    }
                    _ => Failure::Load(e),
                },
                other => other,
            })
    }
}

impl<A: Send + 'static, W: Send + Sync + 'static> Types<A, W> {
    /// Carry out `command` on a tree file; warnings about an XML file go
    /// to `err`.
    fn tree_command(
        &mut self,
        command: &Command,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        let options = command
            .load()
            .map(|(_, load)| xml_options(load, command.chosen_tree()))
            .unwrap_or_default();
        match command {
            Command::Check(a) => {
                self.check(&a.file, &options, err)?;
                writeln!(out, "ok")?;
            }
            Command::Print(a) => show::indented(&self.load(&a.file, &options, err)?, out)?,
            Command::Dot(a) => show::dot(&self.load(&a.file, &options, err)?, out)?,
            Command::Nodes { .. } => catalog::write(out, &self.registry)?,
            Command::Model(a) => self.model(a, out)?,
            Command::Export(a) => self.export(a, &options, out)?,
            Command::View(a) => self.view(a, &options, out, err)?,
            Command::Snapshot(SnapshotCommand::Inspect(a)) => {
                self.inspect(a, &options, out, err)?
            }
            Command::Run(a) => self.run(a, &options, out, err)?,
            Command::Bench(a) => self.bench(a, &options, out, err)?,
        }
        Ok(())
    }
}

/// The machine file `command` reads, if it is one of the commands that
/// take machine files and its file is a machine.
fn machine_file(command: &Command) -> Option<machine::Input> {
    match command {
        Command::Check(a) | Command::Print(a) | Command::Dot(a) => machine::detect(&a.file),
        Command::Run(a) => machine::detect(&a.file),
        _ => None,
    }
}

/// How XML files are read, from the command line: `tree` is the tree to
/// run of a file of several (`--tree`).
fn xml_options(load: &Load, tree: Option<&str>) -> XmlOptions {
    XmlOptions {
        tick_ms: load.tick_ms,
        includes_outside: load.includes_outside,
        strict: load.strict,
        main_tree: tree.map(str::to_string),
        ..XmlOptions::default()
    }
}

/// Write an XML load's warnings to `err`, one a line.
fn warn(
    warnings: &[canopy_btcpp::XmlWarning],
    more: usize,
    err: &mut dyn Write,
) -> Result<(), Failure> {
    for warning in warnings {
        writeln!(err, "warning: {warning}")?;
    }
    if more > 0 {
        writeln!(
            err,
            "warning: and {more} more warning{} (past the first {})",
            if more == 1 { "" } else { "s" },
            canopy_btcpp::MAX_WARNINGS
        )?;
    }
    Ok(())
}

impl<A: Send + 'static, W: Send + Sync + 'static> Types<A, W> {
    /// `check`, `print`, `dot` or `run` on a state machine file.
    fn machine(
        &mut self,
        command: &Command,
        input: &machine::Input,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        if let Command::Run(a) = command {
            if !self.runs() {
                return Err(Failure::CannotRun("run"));
            }
            if a.groot2.is_some() || a.btlog.is_some() {
                let message = "--groot2 and --btlog show a tree; a state machine file has none";
                return Err(Failure::Usage("run", message.to_string()));
            }
            let registry = std::mem::replace(&mut self.registry, Registry::empty());
            self.registry = registry.with_seed(a.seed);
        }
        let setup = machine::Setup {
            make: self.agent.as_deref(),
            world: self.world.as_mut(),
            game: &mut self.game,
        };
        match &mut self.machines {
            Some(types) => types.execute(&mut self.registry, command, input, setup, out),
            None => machine::with_stand_ins(&mut self.registry, command, input, setup, out),
        }
    }

    /// Load a tree file of any format canopy reads; an XML file's
    /// warnings go to `err`.
    fn load(
        &self,
        file: &Path,
        options: &XmlOptions,
        err: &mut dyn Write,
    ) -> Result<Tree<A, W>, Failure> {
        load_warned(&self.registry, file, options, err)
    }

    /// Check a tree file: every error of a JSON or RON file (up to
    /// [`MAX_ERRORS`](canopy_data::MAX_ERRORS)); an XML file's first, and
    /// its warnings.
    fn check(&self, file: &Path, options: &XmlOptions, err: &mut dyn Write) -> Result<(), Failure> {
        if canopy_btcpp::is_xml(file) {
            return self.load(file, options, err).map(drop);
        }
        let errors = canopy_btcpp::check_any(&self.registry, file, options);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Failure::Loads(errors))
        }
    }

    /// Stand-ins for the node types `model` declares and the registry
    /// lacks; a warning for each control or decorator the tree uses that
    /// stands in as the default.
    fn stand_in(
        &mut self,
        file: &Path,
        options: &XmlOptions,
        load: &Load,
        model: &Path,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        let xml = Failure::Load;
        let rules = match &load.stand_ins {
            Some(path) => canopy_btcpp::StandInRules::read_file(path).map_err(xml)?,
            None => canopy_btcpp::StandInRules::new(),
        };
        let model = canopy_btcpp::NodeModel::read_file(model).map_err(xml)?;
        let stand_ins = model.stand_in(&mut self.registry, &rules).map_err(xml)?;
        // The tree's warnings are the command's to show, when it loads it.
        let tree = canopy_btcpp::load_any(&self.registry, file, options).map_err(Failure::Load)?;
        let mut used = std::collections::HashSet::new();
        let mut stack = vec![tree.node(tree.root())];
        while let Some(node) = stack.pop() {
            used.insert(node.type_name().to_string());
            stack.extend(node.children());
        }
        for stand_in in stand_ins {
            let shapes = stand_in.defaulted && stand_in.is_control_or_decorator();
            if shapes && used.contains(&stand_in.type_name) {
                writeln!(
                    err,
                    "warning: {stand_in} (a stand-in; choose what it runs as with --stand-ins)"
                )?;
            }
        }
        Ok(())
    }

    /// Load a tree file with `seed` for the random nodes.
    fn load_seeded(
        &mut self,
        file: &Path,
        options: &XmlOptions,
        seed: u64,
        err: &mut dyn Write,
    ) -> Result<Tree<A, W>, Failure> {
        let registry = std::mem::replace(&mut self.registry, Registry::empty()).with_seed(seed);
        let tree = load_warned(&registry, file, options, err);
        self.registry = registry;
        tree
    }

    /// Agents saved in the snapshot file `path`, restored onto `tree`
    /// (read from `tree_file`).
    fn restore(
        tree: &Tree<A, W>,
        path: &Path,
        tree_file: &Path,
    ) -> Result<Vec<canopy_core::Agent>, Failure> {
        let bytes = files::read_snapshot(path).map_err(Failure::Message)?;
        // The agents' data is made afterwards, with `try_reserve`; the
        // agents themselves, at their peak, get the crowd limit.
        canopy_core::snapshot::restore_crowd_within(tree, &bytes, crowd::MAX_CROWD_BYTES).map_err(
            |e| {
                Failure::Message(format!(
                    "{}: cannot restore onto {}: {e}",
                    shown(path),
                    shown(tree_file)
                ))
            },
        )
    }

    /// `export`: XML as JSON or RON, JSON or RON as XML or as each other.
    fn export(
        &self,
        a: &ExportArgs,
        options: &XmlOptions,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        let xml = canopy_btcpp::is_xml(&a.file);
        let text = match (a.to, xml) {
            (ExportFormat::Btcpp, true) => {
                return Err(Failure::Usage(
                    "export",
                    format!(
                        "{} is BehaviorTree.CPP XML already; export it --to json or --to ron",
                        shown(&a.file)
                    ),
                ));
            }
            (ExportFormat::Btcpp, false) => {
                canopy_btcpp::export_file(&self.registry, &a.file, options)
                    .map_err(|e| Failure::Load(e.into()))?
            }
            (to, true) => {
                canopy_btcpp::export_xml_file(&self.registry, &a.file, format(to), options)
                    .map_err(Failure::Load)?
            }
            (to, false) => canopy_btcpp::convert_file(&self.registry, &a.file, format(to))
                .map_err(Failure::Load)?,
        };
        out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            writeln!(out)?;
        }
        Ok(())
    }

    /// `model`: the node types as a node model, with a model's stand-ins.
    fn model(&mut self, a: &ModelArgs, out: &mut dyn Write) -> Result<(), Failure> {
        if let Some(path) = &a.model {
            let xml = Failure::Load;
            let model = canopy_btcpp::NodeModel::read_file(path).map_err(xml)?;
            model
                .stand_in(&mut self.registry, &canopy_btcpp::StandInRules::new())
                .map_err(xml)?;
        }
        out.write_all(canopy_btcpp::write_model(&self.registry, a.builtins).as_bytes())?;
        Ok(())
    }

    fn view(
        &self,
        a: &ViewArgs,
        options: &XmlOptions,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        let tree = self.load(&a.tree, options, err)?;
        files::regular(&a.trace, "traces").map_err(Failure::Message)?;
        let replay = canopy_inspector::replay::serve(&a.trace, &tree, a.addr).map_err(|e| {
            Failure::Message(canopy_core::text::escape_again(&e.to_string()).into_owned())
        })?;
        writeln!(out, "replay: {} (Ctrl-C to stop)", replay.url())?;
        out.flush()?;
        replay.wait();
        Ok(())
    }

    fn inspect(
        &self,
        a: &InspectArgs,
        options: &XmlOptions,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        let tree = self.load(&a.tree, options, err)?;
        let mut agents = Self::restore(&tree, &a.snapshot, &a.tree)?;
        if let Some(id) = a.agent {
            let count = agents.len();
            agents.retain(|agent| agent.id() == id);
            if agents.is_empty() {
                return Err(Failure::Message(format!(
                    "{}: no agent {id} among its {count} agents",
                    shown(&a.snapshot)
                )));
            }
        }
        Ok(inspect::write(&tree, &agents, out)?)
    }

    fn run(
        &mut self,
        a: &RunArgs,
        options: &XmlOptions,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        if !self.runs() {
            return Err(Failure::CannotRun("run"));
        }
        let tree = self.load_seeded(&a.file, options, a.seed, err)?;
        let (Some(make), Some(world)) = (&self.agent, &mut self.world) else {
            return Err(Failure::CannotRun("run"));
        };
        let mut crowd = match &a.restore {
            Some(path) => {
                let agents = Self::restore(&tree, path, &a.file)?;
                let count = agents.len() as u64;
                crate::workload("run", "the snapshot's agents", count, a.ticks, "")?;
                if let Some(mode) = a.mode {
                    // Switching mode rebuilds the schedules: checked first.
                    crowd::check(&tree, count as u32, mode.into())
                        .map_err(|e| Failure::Message(format!("{}: {e}", shown(path))))?;
                }
                let data = crowd::data_for(&agents, make.as_ref()).map_err(|e| {
                    Failure::Message(format!("cannot allocate the agents' data: {e}"))
                })?;
                Crowd { agents, data }
            }
            None => {
                let mode = a.mode.map_or(Mode::Tick, Mode::from);
                crowd::create(&tree, a.agents, mode, make.as_ref())
                    .map_err(|e| Failure::Usage("run", e.to_string()))?
            }
        };
        if let Some(mode) = a.mode {
            for agent in &mut crowd.agents {
                agent.set_mode(&tree, mode.into());
            }
        }
        let agents = crowd.agents.len() as u32;
        let mut watch = crate::groot::start(a, &self.registry, &tree, agents, out)?;
        let ran = if a.trace {
            trace::run(&tree, &mut crowd, world, &mut self.game, a.ticks, out)
        } else {
            let watching = watch.as_mut();
            run::summary(
                &tree,
                &mut crowd,
                world,
                &mut self.game,
                a.ticks,
                watching,
                out,
            )
        };
        if let Some(watch) = watch {
            watch.finish(out)?;
        }
        failure::then_save(a.save.as_deref(), ran, |path| {
            save(&tree, &crowd, path, !a.trace, out)
        })
    }

    fn bench(
        &mut self,
        a: &BenchArgs,
        options: &XmlOptions,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<(), Failure> {
        if !self.runs() {
            return Err(Failure::CannotRun("bench"));
        }
        let tree = self.load_seeded(&a.file, options, a.seed, err)?;
        let (Some(make), Some(world)) = (&self.agent, &mut self.world) else {
            return Err(Failure::CannotRun("bench"));
        };
        let config = bench::Config {
            agents: a.agents,
            ticks: a.ticks,
            threads: a.threads,
            mode: a.mode.into(),
        };
        let figures = bench::measure(&tree, &config, make.as_ref(), world, &mut self.game)
            .map_err(|e| match e {
                bench::Error::Crowd(e) => Failure::Usage("bench", e.to_string()),
                bench::Error::Threads(e) => Failure::Message(e),
            })?;
        Ok(bench::report(
            &a.file, &tree, &config, &figures, a.json, out,
        )?)
    }
}

/// The tree-file format of `export --to` (JSON or RON).
fn format(to: ExportFormat) -> canopy_data::Format {
    match to {
        ExportFormat::Ron => canopy_data::Format::Ron,
        ExportFormat::Json | ExportFormat::Btcpp => canopy_data::Format::Json,
    }
}

/// Load a tree file of any format canopy reads with `registry`; an XML
/// file's warnings go to `err`.
fn load_warned<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    file: &Path,
    options: &XmlOptions,
    err: &mut dyn Write,
) -> Result<Tree<A, W>, Failure> {
    if !canopy_btcpp::is_xml(file) {
        return canopy_btcpp::load_any(registry, file, options).map_err(Failure::Load);
    }
    let loaded =
        canopy_btcpp::load_file_with_warnings(registry, file, options).map_err(Failure::Load)?;
    warn(&loaded.warnings, loaded.more_warnings, err)?;
    Ok(loaded.tree)
}

/// Write every agent of `crowd` to the snapshot file `path`; with `tell`,
/// say so on `out`.
fn save<A, W>(
    tree: &Tree<A, W>,
    crowd: &Crowd<A>,
    path: &Path,
    tell: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let bytes = canopy_core::snapshot::save_crowd(tree, &crowd.agents);
    std::fs::write(path, &bytes).map_err(|e| {
        Failure::Message(format!("{}: cannot write the snapshot: {e}", shown(path)))
    })?;
    if tell {
        let agents = crowd.agents.len();
        writeln!(
            out,
            "saved {agents} agent{} at tick {} to {} ({} bytes)",
            if agents == 1 { "" } else { "s" },
            crowd.ticks(),
            shown(path),
            bytes.len()
        )?;
    }
    Ok(())
}
