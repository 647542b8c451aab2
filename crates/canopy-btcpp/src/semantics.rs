//! What BehaviorTree.CPP's own elements mean for canopy: a standard
//! node's ports parsed as BehaviorTree.CPP parses them, its children
//! counted, Parallel's thresholds checked, milliseconds turned into ticks,
//! and the canopy built-in or emulated type that runs it; the script
//! leaves and controls, and the pre- and post-condition attributes. The
//! reading of elements — files, trees, IDs, nodes, subtrees, registered
//! types — is [`crate::model`]'s; this module is its BehaviorTree.CPP
//! semantics, so that neither job hides in the other.

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::emulated::Emulated;
use crate::model::{Reader, What, XNode, is_key_name};
use crate::params::key_of;
use crate::scripted::{missing_ports, unknown_port};
use crate::sources::Place;
use crate::stand_in::same_type;
use crate::standard::{CANOPY_PREFIX, PortType, Standard, condition_script_param};
use canopy_core::text::{quote, suggest};
use canopy_data::{EvalKind, LoadError, XmlLimit, XmlProblem};

impl<A: 'static, W: 'static> Reader<'_, A, W> {
    /// The node `node` inside an `EvalAround` running its pre- and
    /// post-condition scripts, if its element has any; else `node`.
    pub(crate) fn around(
        &mut self,
        place: Place,
        node: usize,
        parent: Option<Standard>,
    ) -> Result<usize, LoadError> {
        let mut params = Map::new();
        for (attr, value) in self.element(place).attrs() {
            if let Some(param) = condition_script_param(attr) {
                params.insert(param.to_string(), Value::String(value.to_string()));
            }
        }
        if params.is_empty() {
            return Ok(node);
        }
        let skips = params.contains_key("skip_if") || params.contains_key("while");
        let skipped = match parent {
            Some(Standard::Fallback | Standard::ReactiveFallback) => "failure",
            Some(
                Standard::Sequence | Standard::SequenceWithMemory | Standard::ReactiveSequence,
            ) => "success",
            _ if !skips => "success",
            parent => {
                let here = match parent {
                    Some(std) => format!("its parent is <{}>", std.id()),
                    None => "it is not the child of a standard node".to_string(),
                };
                return Err(self.fail(
                    place,
                    format!(
                        "_skipIf and _while make a node return SKIPPED, a status canopy does not \
                         have; canopy reads it as a Sequence or a Fallback does (as SUCCESS or \
                         FAILURE), but {here}; put the node directly under a Sequence or a \
                         Fallback"
                    ),
                ));
            }
        };
        params.insert("skipped".to_string(), Value::from(skipped));
        // A node that returns SKIPPED of its own says so: then the
        // post-condition scripts do not run, as in BehaviorTree.CPP.
        if let What::Registered { params: inner, .. } = &self.nodes[node].what
            && let Some((_, flag)) = inner
                .iter()
                .find(|(k, _)| &**k == crate::scripted::SKIPS_INTO)
        {
            // The key as a script names it: a port's `{key}` is `key`.
            let flag = match flag.as_str().and_then(crate::params::script_key_of) {
                Some(key) => Value::from(key),
                None => flag.clone(),
            };
            params.insert(crate::scripted::SKIP_FROM.to_string(), flag);
        }
        let Some(type_name) = self.canopy_type(EvalKind::Around.name()) else {
            return Err(self.fail(
                place,
                format!(
                    "pre- and post-condition scripts run as canopy's {}, which this \
                     registry does not have",
                    EvalKind::Around.name()
                ),
            ));
        };
        self.nodes.push(XNode {
            place,
            name: EvalKind::Around.name().into(),
            what: What::Registered {
                type_name,
                params: params
                    .into_iter()
                    .map(|(k, v)| (self.type_name(&k), v))
                    .collect(),
            },
            children: Box::new([node]),
        });
        Ok(self.nodes.len() - 1)
    }

    /// BehaviorTree.CPP's `Script`, `ScriptCondition` and `SetBlackboard`:
    /// canopy's script leaves, `Eval` and `EvalCondition`, which compile the
    /// script when the tree is built (`SetBlackboard` as the assignment it
    /// is).
    pub(crate) fn script(
        &self,
        place: Place,
        id: &str,
        ports: &[(String, String)],
        children: usize,
    ) -> Result<What, LoadError> {
        if children > 0 {
            return Err(self.fail(place, format!("a {id} has no children")));
        }
        let port = |name: &str| {
            ports
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let unknown = |takes: &[&str]| {
            ports
                .iter()
                .find(|(k, _)| !takes.contains(&k.as_str()))
                .map(|(k, _)| unknown_port(id, k, takes, None))
        };
        let (kind, code) = match id {
            "SetBlackboard" => {
                if let Some(problem) = unknown(&["value", "output_key"]) {
                    return Err(self.fail(place, problem));
                }
                let (Some(value), Some(key)) = (port("value"), port("output_key")) else {
                    let needs = missing_ports("SetBlackboard", &["value", "output_key"]);
                    return Err(self.fail(place, needs));
                };
                // The value is a value, never script text: `Eval` assigns it.
                let key = set_key(key).map_err(|p| self.fail(place, p))?;
                let params = Box::new([
                    (self.type_name("assign"), Value::String(key.to_string())),
                    (self.type_name("value"), Value::String(value.to_string())),
                ]);
                if self.registry.get(EvalKind::Eval.name()).is_none() {
                    return Err(self.fail(place, missing_kind(id, EvalKind::Eval)));
                }
                return Ok(What::Registered {
                    type_name: self.type_name(EvalKind::Eval.name()),
                    params,
                });
            }
            _ => {
                if let Some(problem) = unknown(&["code"]) {
                    return Err(self.fail(place, problem));
                }
                let Some(code) = port("code") else {
                    return Err(self.fail(place, missing_ports(id, &["code"])));
                };
                let kind = if id == "Script" {
                    EvalKind::Eval
                } else {
                    EvalKind::Condition
                };
                (kind, code.to_string())
            }
        };
        let Some(registered) = self.canopy_type(kind.name()) else {
            return Err(self.fail(place, missing_kind(id, kind)));
        };
        let params = Box::new([(self.type_name("code"), Value::String(code))]);
        Ok(What::Registered {
            type_name: registered,
            params,
        })
    }

    /// `Precondition`, `Switch2`…`Switch6` and the `Loop*` nodes, as
    /// canopy's script nodes ([`crate::scripted`]).
    pub(crate) fn scripted_control(
        &self,
        place: Place,
        id: &str,
        ports: &[(String, String)],
        children: usize,
        parent: Option<Standard>,
    ) -> Result<What, LoadError> {
        let tag = format!("{}_{}", place.file, place.element);
        let (kind, params) = crate::scripted::lower(id, ports, children, parent, &tag)
            .map_err(|problem| self.fail(place, problem))?;
        let Some(registered) = self.canopy_type(kind.name()) else {
            return Err(self.fail(place, missing_kind(id, kind)));
        };
        Ok(What::Registered {
            type_name: registered,
            params: params
                .into_iter()
                .map(|(k, v)| (self.type_name(&k), v))
                .collect(),
        })
    }

    /// A standard node: ports, child count, and what canopy runs for it.
    pub(crate) fn standard(
        &self,
        place: Place,
        std: Standard,
        ports: &[(String, String)],
        children: usize,
        parent: Option<Standard>,
    ) -> Result<What, LoadError> {
        let id = std.id();
        let (min, max) = std.children();
        if children < min || children > max {
            let problem = XmlProblem::ChildCount {
                node: id.to_string(),
                min,
                max: (max != usize::MAX).then_some(max),
                got: children,
            };
            return Err(self.fail(place, problem));
        }
        // Ports that read or name the blackboard: one of this crate's own
        // types, by name (crate::ported).
        let tag = format!("{}_{}", place.file, place.element);
        if let Some(lowered) = crate::ported::entry_update(std, ports, parent, &tag) {
            return self.ported(place, lowered);
        }
        let values = self.port_values(place, std, ports)?;
        let tick_ms = self.options.tick_ms;
        let post = self
            .element(place)
            .attrs()
            .any(|(attr, _)| condition_script_param(attr).is_some());
        let timing = (tick_ms, post);
        if let Some(lowered) = crate::ported::keyed(std, ports, &values, parent, &tag, timing) {
            return self.ported(place, lowered);
        }
        let get = |name: &str| {
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(0, |(_, v)| *v)
        };
        if std == Standard::RunOnce {
            return self.run_once(place, get("then_skip") != 0, parent);
        }
        self.meaning(place, std, children, &get)
    }

    /// A node [`crate::ported`] lowered, or why it could not.
    fn ported(
        &self,
        place: Place,
        lowered: Result<crate::ported::Lowered, crate::error::XmlIssue>,
    ) -> Result<What, LoadError> {
        let (type_name, params) = lowered.map_err(|problem| self.fail(place, problem))?;
        Ok(What::Registered {
            type_name: self.type_name(type_name),
            params: params
                .into_iter()
                .map(|(k, v)| (self.type_name(k), v))
                .collect(),
        })
    }

    /// RunOnce: canopy's RunOnce, whose `then` stands for `then_skip`.
    /// BehaviorTree.CPP's SKIPPED, which canopy has no status for, is read
    /// as the parent reads it: a Sequence goes on as after a SUCCESS, a
    /// Fallback as after a FAILURE.
    fn run_once(
        &self,
        place: Place,
        then_skip: bool,
        parent: Option<Standard>,
    ) -> Result<What, LoadError> {
        let then = match (then_skip, parent) {
            (false, _) => "same",
            (
                true,
                Some(
                    Standard::Sequence | Standard::SequenceWithMemory | Standard::ReactiveSequence,
                ),
            ) => "success",
            (true, Some(Standard::Fallback | Standard::ReactiveFallback)) => "failure",
            (true, parent) => {
                let here = match parent {
                    Some(std) => format!("its parent is <{}>", std.id()),
                    None => "it is not the child of a standard node".to_string(),
                };
                return Err(self.fail(
                    place,
                    format!(
                        "RunOnce with then_skip=\"true\" (the default) returns SKIPPED once its \
                         child has run, a status canopy does not have; canopy reads it as a \
                         Sequence or a Fallback does (as SUCCESS or FAILURE), but {here}; write \
                         then_skip=\"false\" to return the child's status again, or put the \
                         RunOnce directly under a Sequence or a Fallback"
                    ),
                ));
            }
        };
        let params = Box::new([(self.type_name("then"), Value::from(then))]);
        Ok(What::Registered {
            type_name: self.builtin(place, Standard::RunOnce)?,
            params,
        })
    }

    /// The standard node's port values, checked against its port list.
    fn port_values(
        &self,
        place: Place,
        std: Standard,
        ports: &[(String, String)],
    ) -> Result<Vec<(&'static str, i64)>, LoadError> {
        let declared = std.ports();
        for (key, _) in ports {
            if !declared.iter().any(|p| p.name == key) {
                let names: Vec<&str> = declared.iter().map(|p| p.name).collect();
                let close = suggest(key, names.iter().copied());
                return Err(self.fail(place, unknown_port(std.id(), key, &names, close)));
            }
        }
        let mut values = Vec::new();
        for port in declared {
            let text = ports.iter().find(|(k, _)| k == port.name).map(|(_, v)| v);
            let value = match (text, port.default) {
                // Read when the node runs (crate::ported).
                (Some(text), _) if key_of(text.trim()).is_some() => port.default.unwrap_or(0),
                (Some(text), _) => parse_port(port.kind, text).map_err(|what| {
                    self.fail(
                        place,
                        XmlProblem::BadPortValue {
                            port: port.name.to_string(),
                            value: text.to_string(),
                            expects: what.to_string(),
                        },
                    )
                })?,
                (None, Some(default)) => default,
                (None, None) => {
                    return Err(self.fail(place, missing_ports(std.id(), &[port.name])));
                }
            };
            values.push((port.name, value));
        }
        Ok(values)
    }

    fn meaning(
        &self,
        place: Place,
        std: Standard,
        n: usize,
        get: &dyn Fn(&str) -> i64,
    ) -> Result<What, LoadError> {
        let own = match std {
            Standard::Timeout if get("msec") == 0 => Emulated::NoTimeout,
            Standard::Timeout | Standard::Sleep => {
                let msec = get("msec");
                let ticks = self.ticks(place, msec)?;
                let params = Box::new([(self.type_name("ticks"), Value::from(ticks))]);
                return Ok(What::Registered {
                    type_name: self.builtin(place, std)?,
                    params,
                });
            }
            Standard::Parallel => {
                let (success_count, failure_count) =
                    (get("success_count") as i32, get("failure_count") as i32);
                for (port, value, outcome) in [
                    ("success_count", success_count, "succeed"),
                    ("failure_count", failure_count, "fail"),
                ] {
                    let needed = crate::nodes::threshold(value, n);
                    if n < needed {
                        let problem = unreachable("Parallel", port, value, needed, n, outcome);
                        return Err(self.fail(place, problem));
                    }
                }
                Emulated::Parallel {
                    success_count,
                    failure_count,
                }
            }
            Standard::ParallelAll => {
                let max_failures = get("max_failures") as i32;
                let needed = crate::nodes::threshold(max_failures, n);
                if n < needed {
                    let problem = unreachable(
                        "ParallelAll",
                        "max_failures",
                        max_failures,
                        needed,
                        n,
                        "fail",
                    );
                    return Err(self.fail(place, problem));
                }
                Emulated::ParallelAll { max_failures }
            }
            Standard::IfThenElse => Emulated::IfThenElse,
            Standard::WhileDoElse => Emulated::WhileDoElse,
            Standard::KeepRunningUntilFailure => Emulated::KeepRunningUntilFailure,
            Standard::Repeat => Emulated::Repeat(get("num_cycles") as i32),
            Standard::RetryUntilSuccessful => Emulated::Retry(get("num_attempts") as i32),
            Standard::Delay => {
                let msec = get("delay_msec");
                Emulated::Delay {
                    msec: msec as u32,
                    ticks: self.ticks(place, msec)?.max(1),
                }
            }
            _ => {
                let mut params = Vec::new();
                if std == Standard::SequenceWithMemory {
                    // It returns RUNNING after each child entered and
                    // finished in a tick, to be woken at the next.
                    params.push((self.type_name("pause"), Value::Bool(true)));
                }
                return Ok(What::Registered {
                    type_name: self.builtin(place, std)?,
                    params: params.into_boxed_slice(),
                });
            }
        };
        Ok(What::Emulated(own))
    }

    /// `msec` milliseconds in ticks: the first tick at or after that time.
    fn ticks(&self, place: Place, msec: i64) -> Result<u32, LoadError> {
        let tick_ms = self.options.tick_ms.max(1) as i64;
        let ticks = (msec + tick_ms - 1) / tick_ms;
        if ticks > i32::MAX as i64 {
            let limit = XmlLimit::Ticks {
                msec,
                ticks,
                tick_ms,
                limit: i32::MAX as u64,
            };
            return Err(self.fail(place, limit));
        }
        Ok(ticks as u32)
    }

    /// The canopy built-in that runs `std`, if the registry holds it.
    fn builtin(&self, place: Place, std: Standard) -> Result<Rc<str>, LoadError> {
        let name = std.canopy_builtin().unwrap_or(std.id());
        self.canopy_type(name).ok_or_else(|| {
            self.fail(
                place,
                XmlProblem::MissingBuiltin {
                    node: std.id().to_string(),
                    kind: name.to_string(),
                },
            )
        })
    }

    /// The name the registry holds canopy's built-in `name` under: its
    /// own, or `canopy_name` when a node model's type took its name (Nav2
    /// declares `Wait`; see `NodeModel::stand_in`).
    fn canopy_type(&self, name: &str) -> Option<Rc<str>> {
        let reference = self.builtins.get(name)?;
        let aside = format!("{CANOPY_PREFIX}{name}");
        [name, aside.as_str()].into_iter().find_map(|held| {
            let ours = self.registry.get(held)?;
            same_type(ours, reference).then(|| self.type_name(held))
        })
    }
}

/// A standard port's text as a number: `int` or `unsigned` milliseconds.
fn parse_port(kind: PortType, text: &str) -> Result<i64, &'static str> {
    match kind {
        PortType::Int => text
            .parse::<i32>()
            .map(i64::from)
            .map_err(|_| "an integer (-1: no limit)"),
        PortType::Msec => text
            .parse::<u32>()
            .map(i64::from)
            .map_err(|_| "a whole number of milliseconds from 0 to 4294967295"),
        PortType::Bool => match text {
            "true" | "1" => Ok(1),
            "false" | "0" => Ok(0),
            _ => Err("true or false"),
        },
    }
}

/// `SetBlackboard`'s `output_key`: a key name (`{key}` read as `key`, as
/// canopy has always read it), which a script could also name.
fn set_key(key: &str) -> Result<&str, String> {
    let key = crate::params::script_key_of(key).unwrap_or(key);
    let name = key.strip_prefix('@').unwrap_or(key);
    if !is_key_name(name) {
        return Err(format!(
            "output_key {} is not a key (letters, digits and _, not starting with a digit)",
            quote(key)
        ));
    }
    Ok(key)
}

/// `node` runs as canopy's `kind`, which the registry lacks.
fn missing_kind(node: &str, kind: EvalKind) -> XmlProblem {
    XmlProblem::MissingKind {
        node: node.to_string(),
        kind: kind.name().to_string(),
    }
}

/// A parallel node's threshold `port=value` that needs `needed` of its
/// `children`: it could never `outcome`.
fn unreachable(
    node: &str,
    port: &str,
    value: i32,
    needed: usize,
    children: usize,
    outcome: &str,
) -> XmlProblem {
    XmlProblem::UnreachableThreshold {
        node: node.to_string(),
        port: port.to_string(),
        value: value.into(),
        needed,
        children,
        outcome: outcome.to_string(),
    }
}
