//! What every harness shares: reading the scenario files of a `testdata/`
//! folder, the status scripts, and a report that gathers every failure
//! (file and scenario named) before the test fails.

use std::collections::BTreeMap;
use std::fmt::{Debug, Display};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use canopy_core::{Ctx, Status};
use canopy_data::Registry;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// `testdata/<folder>` at the workspace root.
pub(crate) fn testdata(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(folder)
}

/// A scenario with the file it came from.
pub(crate) struct Loaded<T> {
    /// `testdata/…/file.toml`, for messages.
    pub file: String,
    pub scenario: T,
}

/// A scenario file: `[[test]]` blocks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File<T> {
    test: Vec<T>,
}

/// What a scenario needs for the report: its name.
pub(crate) trait Named {
    fn name(&self) -> &str;
}

/// Every scenario of every `.toml` file of `testdata/<folder>`, in file
/// order; a file that cannot be read, or two scenarios of a file with one
/// name, is a failure of `report`.
pub(crate) fn load<T: DeserializeOwned + Named>(
    folder: &str,
    report: &mut Report,
) -> Vec<Loaded<T>> {
    let dir = testdata(folder);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no scenario files in {}", dir.display());
    let mut all = Vec::new();
    for path in paths {
        let file = format!(
            "testdata/{folder}/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| toml::from_str::<File<T>>(&text).map_err(|e| e.to_string()));
        let tests = match parsed {
            Ok(f) => f.test,
            Err(e) => {
                report.fail(&file, "(the file)", e);
                continue;
            }
        };
        let mut names: Vec<&str> = tests.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        for pair in names.windows(2).filter(|w| w[0] == w[1]) {
            report.fail(&file, pair[0], "two scenarios of this file have this name");
        }
        all.extend(tests.into_iter().map(|scenario| Loaded {
            file: file.clone(),
            scenario,
        }));
    }
    all
}

/// Every scenario of `testdata/<folder>`, each checked by `check` (the
/// problems it found; an error if it could not run), then the tally.
pub(crate) fn run_each<T: DeserializeOwned + Named>(
    engine: &'static str,
    folder: &str,
    check: impl Fn(&T) -> Result<Vec<String>, String>,
) {
    let mut report = Report::new(engine);
    for loaded in load::<T>(folder, &mut report) {
        let (file, scenario) = (&loaded.file, &loaded.scenario);
        match guarded(|| check(scenario)) {
            Ok(problems) => report.record(file, scenario.name(), problems),
            Err(e) => report.fail(file, scenario.name(), e),
        }
    }
    report.finish();
}

/// Each script of `table` read by `read`, the leaf named in any error.
pub(crate) fn scripts<T>(
    table: &BTreeMap<String, String>,
    read: impl Fn(&str) -> Result<Vec<T>, String>,
) -> Result<BTreeMap<String, Arc<[T]>>, String> {
    table
        .iter()
        .map(|(k, v)| Ok((k.clone(), read(v).map_err(|e| format!("{k}: {e}"))?.into())))
        .collect()
}

/// Agent data that hears its scripted leaves run.
pub(crate) trait Scripted: 'static {
    /// Leaf or scorer `name` ran and answered `answer`.
    fn ran(&self, name: &str, answer: &dyn Debug);
}

/// A scenario's scripted leaves and scorers, each a node type (or a
/// scorer) named as the leaf, answering by tick.
pub(crate) struct Leaves {
    pub actions: BTreeMap<String, Arc<[Status]>>,
    pub conditions: BTreeMap<String, Arc<[bool]>>,
    pub scorers: BTreeMap<String, Arc<[f32]>>,
}

impl Leaves {
    pub(crate) fn read(
        actions: &BTreeMap<String, String>,
        conditions: &BTreeMap<String, String>,
        scorers: &BTreeMap<String, String>,
    ) -> Result<Leaves, String> {
        Ok(Leaves {
            actions: scripts(actions, statuses)?,
            conditions: scripts(conditions, truths)?,
            scorers: scripts(scorers, numbers)?,
        })
    }

    /// Add them to `r`.
    pub(crate) fn register<A: Scripted>(&self, r: &mut Registry<A, ()>) -> Result<(), String> {
        for (name, script) in &self.actions {
            let (key, script) = (name.clone(), script.clone());
            r.action(name, move |()| {
                let (key, script) = (key.clone(), script.clone());
                move |cx: &mut Ctx<A, ()>| {
                    let status = at(&script, cx.tick);
                    cx.agent.ran(&key, &status);
                    status
                }
            })
            .map_err(|e| format!("action {name:?}: {e}"))?;
        }
        for (name, script) in &self.conditions {
            let (key, script) = (name.clone(), script.clone());
            r.condition(name, move |()| {
                let (key, script) = (key.clone(), script.clone());
                move |cx: &Ctx<A, ()>| {
                    let answer = at(&script, cx.tick);
                    cx.agent.ran(&key, &answer);
                    answer
                }
            })
            .map_err(|e| format!("condition {name:?}: {e}"))?;
        }
        for (name, script) in &self.scorers {
            let (key, script) = (name.clone(), script.clone());
            r.scorer(name, move |cx: &Ctx<A, ()>| {
                let score = at(&script, cx.tick);
                cx.agent.ran(&key, &score);
                score
            })
            .map_err(|e| format!("scorer {name:?}: {e}"))?;
        }
        Ok(())
    }
}

/// A script: `S`, `F` and `R` (or `T` and `F` for a condition, numbers
/// for a scorer) separated by spaces, `X*n` for n of them in a row.
fn script<T: Copy>(
    text: &str,
    word: impl Fn(&str) -> Option<T>,
    what: &str,
) -> Result<Vec<T>, String> {
    let mut out = Vec::new();
    for token in text.split_whitespace() {
        let (item, times) = match token.split_once('*') {
            Some((item, n)) => (item, n.parse::<usize>().map_err(|_| bad(token, what))?),
            None => (token, 1),
        };
        let item = word(item).ok_or_else(|| bad(token, what))?;
        out.extend(std::iter::repeat_n(item, times));
    }
    if out.is_empty() {
        return Err(format!("empty script {text:?}"));
    }
    Ok(out)
}

fn bad(token: &str, what: &str) -> String {
    format!("{token:?} in a script is not {what}, nor X*n for n of them")
}

/// Statuses: `"R R S"`, `"R*10 S"`.
pub(crate) fn statuses(text: &str) -> Result<Vec<Status>, String> {
    script(
        text,
        |w| match w {
            "S" => Some(Status::Success),
            "F" => Some(Status::Failure),
            "R" => Some(Status::Running),
            _ => None,
        },
        "a status (S, F, R)",
    )
}

/// A condition's answers: `"T T F"`.
pub(crate) fn truths(text: &str) -> Result<Vec<bool>, String> {
    script(
        text,
        |w| match w {
            "T" => Some(true),
            "F" => Some(false),
            _ => None,
        },
        "a truth (T, F)",
    )
}

/// A scorer's values: `"0 0.5 1*3"`.
pub(crate) fn numbers(text: &str) -> Result<Vec<f32>, String> {
    script(
        text,
        |w| w.parse::<f32>().ok().filter(|n| n.is_finite()),
        "a finite number",
    )
}

/// A leaf script's entry for tick `tick` (from 1): the last one repeats.
pub(crate) fn at<T: Copy>(script: &[T], tick: u32) -> T {
    script[(tick as usize - 1).min(script.len() - 1)]
}

/// A table keyed by tick number (`events.2 = [...]`) with its keys read as
/// ticks, each within `1..=ticks`.
pub(crate) fn per_tick<T: Clone>(
    table: &BTreeMap<String, T>,
    ticks: usize,
    what: &str,
) -> Result<BTreeMap<usize, T>, String> {
    table
        .iter()
        .map(|(key, value)| match key.parse::<usize>() {
            Ok(t) if (1..=ticks).contains(&t) => Ok((t, value.clone())),
            _ => Err(format!(
                "{what}.{key}: not a tick of this scenario (1 to {ticks})"
            )),
        })
        .collect()
}

/// Statuses as a script, for messages: `R R S`.
pub(crate) fn show(statuses: &[Status]) -> String {
    let letters: Vec<&str> = statuses
        .iter()
        .map(|s| match s {
            Status::Success => "S",
            Status::Failure => "F",
            Status::Running => "R",
        })
        .collect();
    letters.join(" ")
}

/// The result of `f`, or its panic message as an error.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {message}"))
        }
    }
}

/// One harness's tally: scenarios run, skipped (with why) and failed.
pub(crate) struct Report {
    engine: &'static str,
    passed: usize,
    failed: usize,
    skipped: Vec<String>,
    failures: Vec<String>,
}

impl Report {
    pub(crate) fn new(engine: &'static str) -> Self {
        Report {
            engine,
            passed: 0,
            failed: 0,
            skipped: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// The problems found running one scenario; none is a pass.
    pub(crate) fn record(&mut self, file: &str, name: &str, problems: Vec<String>) {
        if problems.is_empty() {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        for problem in problems {
            self.failures.push(format!("{file}: {name}: {problem}"));
        }
    }

    /// A failure that is not one scenario's run: a file that cannot be read.
    pub(crate) fn fail(&mut self, file: &str, name: &str, problem: impl Display) {
        self.record(file, name, vec![problem.to_string()]);
    }

    pub(crate) fn skip(&mut self, file: &str, name: &str, why: impl Display) {
        self.skipped.push(format!("{file}: {name}: {why}"));
    }

    /// Print the tally and fail with every failure, if any.
    pub(crate) fn finish(self) {
        println!(
            "{}: {} scenarios passed, {} failed, {} skipped",
            self.engine,
            self.passed,
            self.failed,
            self.skipped.len()
        );
        for skipped in &self.skipped {
            println!("skipped: {skipped}");
        }
        assert!(
            self.failures.is_empty(),
            "{}: {} failures:\n{}",
            self.engine,
            self.failures.len(),
            self.failures.join("\n")
        );
        assert!(self.passed > 0, "{}: no scenario ran", self.engine);
    }
}
