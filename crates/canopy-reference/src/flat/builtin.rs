//! Tree files made only of canopy's built-in node types, read into a
//! [`Def`] for the flat interpreter: the plain `canopy run` and `bench`
//! case (`examples/trees/random35.json`), measured against the limit.
//!
//! The reader follows canopy-data's loader where it matters for outcomes:
//! each node's salt is the loader's (`Params::salt`, from the seed and the
//! node's place in the file, counted in the loader's order: a node, then a
//! guard's condition, then its children, a subtree when first referred
//! to), so `Random` and `Chance` draw the same numbers. It reads JSON
//! only and knows no `Script`, `Eval…`, `Shuffle` or `RunOnce`: a file
//! with one is refused, naming the type. It checks shapes less than the
//! loader does; load a file with canopy first to get its errors.

use std::collections::HashMap;

use canopy_core::hash::{agent_tick, below, bits};
use canopy_core::{Ctx, Params, Policy, Status};
use canopy_data::serde_json::{Map, Value};

use super::Def;

/// The leaf code of built-in-only files: the two condition types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `Chance`: true when the draw of this agent and tick is below the
    /// threshold of probability `p`.
    Chance {
        /// The node's salt.
        salt: u64,
        /// [`below`]`(p)`.
        true_below: u64,
    },
    /// `Periodic`: true for the first `on` ticks of every `period`, the
    /// cycle moved `offset` ticks earlier.
    Periodic {
        /// Length of the cycle, at least 1.
        period: u32,
        /// Ticks of each cycle it is true.
        on: u32,
        /// Ticks the cycle is moved earlier.
        offset: u32,
    },
}

impl<A, W> super::FlatLeaf<A, W> for Builtin {
    #[inline(always)]
    fn act(&self, cx: &mut Ctx<'_, A, W>) -> Status {
        Status::from_bool(self.check(cx))
    }

    #[inline(always)]
    fn check(&self, cx: &mut Ctx<'_, A, W>) -> bool {
        match *self {
            Builtin::Chance { salt, true_below } => {
                bits(salt ^ agent_tick(cx.id, cx.tick)) < true_below
            }
            Builtin::Periodic { period, on, offset } => {
                cx.tick.wrapping_sub(1).wrapping_add(offset) % period < on
            }
        }
    }
}

/// Read a built-in-only JSON tree file (its text) as canopy-data's
/// registry would with `seed`.
///
/// ```
/// use canopy_reference::flat::{self, FlatTree};
/// let text = r#"{"tree": {"type": "Sequence", "children": [
///     {"type": "Random", "success": 0.5, "failure": 0.2}, {"type": "Wait", "ticks": 2}]}}"#;
/// let tree = FlatTree::build(&flat::read_builtin(text, 0).unwrap()).unwrap();
/// assert_eq!(tree.len(), 3);
/// assert_eq!(
///     flat::read_builtin(r#"{"tree": {"type": "Script", "statuses": ["Success"]}}"#, 0).unwrap_err(),
///     "tree: the flat interpreter has no node type \"Script\""
/// );
/// ```
pub fn read_builtin(text: &str, seed: u64) -> Result<Def<Builtin>, String> {
    let file: Value = canopy_data::serde_json::from_str(text).map_err(|e| e.to_string())?;
    let root = file.get("tree").ok_or("no \"tree\" in the file")?;
    let empty = Map::new();
    let subtrees = file
        .get("subtrees")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut reader = Reader {
        seed,
        nodes: 0,
        subtrees,
        built: HashMap::new(),
    };
    reader.node(root, "tree", 0)
}

/// A tree file of Sequence and Selector alternating `levels` deep (a
/// Sequence at the top), each level padded with an `AlwaysSuccess` (in a
/// Sequence) or an `AlwaysFailure` (in a Selector) before the next level,
/// over `leaf` (a node's JSON): the deep chain of the flat-interpreter
/// comparison, where a level costs what a Sequence or Selector costs.
///
/// ```
/// use canopy_reference::flat::{self, FlatTree};
/// let text = flat::alternating_chain(3, r#"{"type": "AlwaysRunning"}"#);
/// let tree = FlatTree::build(&flat::read_builtin(&text, 0).unwrap()).unwrap();
/// assert_eq!((tree.len(), tree.name(0), tree.name(2)), (7, "seq1", "sel2"));
/// ```
pub fn alternating_chain(levels: usize, leaf: &str) -> String {
    let mut tree = leaf.to_string();
    for level in (1..=levels).rev() {
        let (kind, name, pad, pad_name) = if level % 2 == 1 {
            ("Sequence", "seq", "AlwaysSuccess", "pass")
        } else {
            ("Selector", "sel", "AlwaysFailure", "skip")
        };
        tree = format!(
            r#"{{"type": "{kind}", "name": "{name}{level}", "children": [{{"type": "{pad}", "name": "{pad_name}{level}"}}, {tree}]}}"#
        );
    }
    format!(r#"{{"tree": {tree}}}"#)
}

/// Deepest nesting read, subtrees included.
const DEPTH: usize = 256;

struct Reader<'f> {
    seed: u64,
    /// Nodes counted so far, as the loader counts them.
    nodes: u64,
    subtrees: &'f Map<String, Value>,
    /// Subtrees read, by name: one draft shared by every reference.
    built: HashMap<&'f str, Def<Builtin>>,
}

impl<'f> Reader<'f> {
    fn salt(&mut self) -> u64 {
        self.nodes += 1;
        Params::new("", Vec::new(), self.seed, self.nodes - 1).salt()
    }

    fn node(&mut self, json: &'f Value, path: &str, depth: usize) -> Result<Def<Builtin>, String> {
        if depth > DEPTH {
            return Err(format!("{path}: nested deeper than {DEPTH}"));
        }
        let ty = str_of(json, "type", path)?;
        let name = json.get("name").and_then(Value::as_str).unwrap_or(ty);
        let salt = self.salt();
        if ty == "SubTree" {
            let target = str_of(json, "tree", path)?;
            return self.subtree(target, path, depth);
        }
        let leaf = match ty {
            "Guard" | "ReactiveGuard" => {
                let condition = json
                    .get("condition")
                    .ok_or(format!("{path}: a guard without a condition"))?;
                let salt = self.salt();
                Some(self.condition(condition, salt, path)?)
            }
            _ => None,
        };
        let mut kids = Vec::new();
        let children = json.get("children").and_then(Value::as_array);
        for (k, child) in children.into_iter().flatten().enumerate() {
            kids.push(self.node(child, &format!("{path}/children[{k}]"), depth + 1)?);
        }
        let one = |kids: &mut Vec<Def<Builtin>>| match kids.len() {
            1 => Ok(kids.remove(0)),
            n => Err(format!("{path}: a {ty} takes one child, got {n}")),
        };
        let n = |key: &str| int_of(json, key, path);
        Ok(match ty {
            "Sequence" => Def::sequence(name, kids),
            "Selector" => Def::selector(name, kids),
            "SequenceWithMemory" => Def::sequence_with_memory(name, kids),
            "ReactiveSequence" => Def::reactive_sequence(name, kids),
            "ReactiveSelector" => Def::reactive_selector(name, kids),
            "Parallel" => Def::parallel(
                name,
                policy(json, "success", path)?,
                policy(json, "failure", path)?,
                kids,
            ),
            "Inverter" => Def::inverter(name, one(&mut kids)?),
            "ForceSuccess" => Def::force_success(name, one(&mut kids)?),
            "ForceFailure" => Def::force_failure(name, one(&mut kids)?),
            "Repeat" => Def::repeat(name, n("times")?, one(&mut kids)?),
            "Retry" => Def::retry(name, n("times")?, one(&mut kids)?),
            "Timeout" => Def::timeout(name, n("ticks")?, one(&mut kids)?),
            "Cooldown" => Def::cooldown(name, n("ticks")?, one(&mut kids)?),
            "Guard" | "ReactiveGuard" => {
                let (condition, child) = (leaf.expect("read above"), one(&mut kids)?);
                if ty == "Guard" {
                    Def::guard(name, condition, child)
                } else {
                    Def::reactive_guard(name, condition, child)
                }
            }
            "Wait" => Def::wait(name, n("ticks")?),
            "AlwaysSuccess" => Def::always_success(name),
            "AlwaysFailure" => Def::always_failure(name),
            "AlwaysRunning" => Def::always_running(name),
            "Random" => Def::random(
                name,
                float_of(json, "success", path)?,
                float_of(json, "failure", path)?,
                salt,
            ),
            "Chance" | "Periodic" => Def::condition(name, self.condition(json, salt, path)?),
            other => {
                return Err(format!(
                    "{path}: the flat interpreter has no node type {other:?}"
                ));
            }
        })
    }

    fn condition(&mut self, json: &Value, salt: u64, path: &str) -> Result<Builtin, String> {
        let n = |key: &str| int_of(json, key, path);
        match str_of(json, "type", path)? {
            "Chance" => Ok(Builtin::Chance {
                salt,
                true_below: below(float_of(json, "p", path)?),
            }),
            "Periodic" => Ok(Builtin::Periodic {
                period: n("period")?.max(1),
                on: n("on")?,
                offset: json.get("offset").map_or(Ok(0), |_| n("offset"))?,
            }),
            other => Err(format!(
                "{path}: the flat interpreter has no condition type {other:?}"
            )),
        }
    }

    fn subtree(
        &mut self,
        target: &'f str,
        path: &str,
        depth: usize,
    ) -> Result<Def<Builtin>, String> {
        if let Some(def) = self.built.get(target) {
            return Ok(def.clone());
        }
        let definition = self
            .subtrees
            .get(target)
            .ok_or(format!("{path}: no subtree {target:?}"))?;
        let def = self.node(definition, &format!("subtrees/{target}"), depth + 1)?;
        self.built.insert(target, def.clone());
        Ok(def)
    }
}

fn str_of<'v>(json: &'v Value, key: &str, path: &str) -> Result<&'v str, String> {
    json.get(key)
        .and_then(Value::as_str)
        .ok_or(format!("{path}: no text {key:?}"))
}

fn int_of(json: &Value, key: &str, path: &str) -> Result<u32, String> {
    json.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or(format!("{path}: no tick count {key:?}"))
}

fn float_of(json: &Value, key: &str, path: &str) -> Result<f64, String> {
    json.get(key)
        .and_then(Value::as_f64)
        .ok_or(format!("{path}: no number {key:?}"))
}

fn policy(json: &Value, key: &str, path: &str) -> Result<Policy, String> {
    match json.get(key).and_then(Value::as_str) {
        Some("one") => Ok(Policy::One),
        Some("all") => Ok(Policy::All),
        _ => Err(format!("{path}: {key:?} must be \"one\" or \"all\"")),
    }
}
