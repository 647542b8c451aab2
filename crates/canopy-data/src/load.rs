//! Reading tree files: JSON or RON text → checked node objects → a shared
//! [`Tree`].
//!
//! Bad input gets one clear error and nothing else: no panic, no stack
//! overflow (both parsers stop at 128 levels of nesting, and references
//! through subtrees stop at [`MAX_DEPTH`]), no unbounded memory (files over
//! [`MAX_FILE_BYTES`] and trees over [`MAX_NODES`] nodes are refused before
//! they are built).

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use canopy_core::{Builder, Draft, MAX_DEPTH, NodeKind, Predicate, Tree};
use serde_json::{Map, Value};

use crate::param::{Params, describe_value, did_you_mean, short};
use crate::registry::{Build, NodeType, Registry};
use crate::value::Strict;

/// Largest tree file accepted, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Most node objects one file may hold.
pub const MAX_NODES: usize = 1_000_000;

/// A tree file's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.json`
    Json,
    /// `.ron` (Rusty Object Notation: `(type: "Sequence", children: [...])`)
    Ron,
}

impl Format {
    /// The format a file name's extension names, if any.
    ///
    /// ```
    /// use canopy_data::Format;
    /// assert_eq!(Format::from_path("trees/guard.ron"), Some(Format::Ron));
    /// assert_eq!(Format::from_path("notes.txt"), None);
    /// ```
    pub fn from_path(path: impl AsRef<Path>) -> Option<Format> {
        match path
            .as_ref()
            .extension()?
            .to_str()?
            .to_ascii_lowercase()
            .as_str()
        {
            "json" => Some(Format::Json),
            "ron" => Some(Format::Ron),
            _ => None,
        }
    }
}

/// Where in a file an error is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The file as a whole (unreadable, empty, binary, too large).
    File,
    /// A position in the text (malformed JSON or RON), 1-based.
    Text {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// A node: its path from the file's top, and its name.
    Node {
        /// e.g. `tree/children[2]/children[0]` or `subtrees/Flee/children[1]`.
        path: String,
        /// The node's name (its type when it has none).
        name: String,
    },
}

/// Why a tree file could not be loaded.
///
/// ```
/// use canopy_data::{Format, Registry};
/// let err = Registry::<(), ()>::new()
///     .load_str(r#"{"tree": {"type": "Sequence", "children": [{"type": "Wiat", "ticks": 2}]}}"#,
///               Format::Json, "walk.json")
///     .unwrap_err();
/// assert_eq!(err.to_string(),
///     "walk.json: tree/children[0] (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file (or source name) being loaded.
    pub file: String,
    /// Where in it.
    pub location: Location,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Location::File => write!(f, "{}: {}", self.file, self.problem),
            Location::Text { line, column } => {
                write!(f, "{}:{line}:{column}: {}", self.file, self.problem)
            }
            Location::Node { path, name } if name.is_empty() => {
                write!(f, "{}: {path}: {}", self.file, self.problem)
            }
            Location::Node { path, name } => {
                write!(f, "{}: {path} (name {name:?}): {}", self.file, self.problem)
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl<A: 'static, W: 'static> Registry<A, W> {
    /// Load a tree file; the extension (`.json`, `.ron`) picks the format.
    pub fn load_file(&self, path: impl AsRef<Path>) -> Result<Tree<A, W>, LoadError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let whole = |problem: String| LoadError {
            file: file.clone(),
            location: Location::File,
            problem,
        };
        let format = Format::from_path(path).ok_or_else(|| {
            whole("unknown file extension: tree files end in .json or .ron".to_string())
        })?;
        let size = std::fs::metadata(path)
            .map_err(|e| whole(format!("cannot read: {e}")))?
            .len();
        if size > MAX_FILE_BYTES {
            return Err(whole(format!(
                "the file is {size} bytes, more than the limit of {MAX_FILE_BYTES}"
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| whole(format!("cannot read: {e}")))?;
        self.load_bytes(&bytes, format, &file)
    }

    /// Load a tree from text; `source` names it in errors.
    pub fn load_str(
        &self,
        text: &str,
        format: Format,
        source: &str,
    ) -> Result<Tree<A, W>, LoadError> {
        self.load_bytes(text.as_bytes(), format, source)
    }

    /// Load a tree from raw bytes, which must be UTF-8 text.
    pub fn load_bytes(
        &self,
        bytes: &[u8],
        format: Format,
        source: &str,
    ) -> Result<Tree<A, W>, LoadError> {
        let value = parse(bytes, format, source)?;
        let builder = Builder::new();
        let mut loader = Loader {
            registry: self,
            builder: &builder,
            file: source,
            format,
            subtrees: None,
            built: HashMap::new(),
            in_progress: Vec::new(),
            nodes: 0,
        };
        let root = loader.document(&value)?;
        // Each subtree is checked on its own first, so that a structural
        // problem inside one is reported at its place in "subtrees", and an
        // unused one is checked at all.
        let mut names: Vec<&String> = loader.built.keys().collect();
        names.sort();
        for name in names {
            builder
                .build(loader.built[name])
                .map_err(|e| build_error(source, e, &format!("subtrees/{name}")))?;
        }
        builder
            .build(root)
            .map_err(|e| build_error(source, e, "tree"))
    }
}

/// A core build error as a load error; `top` replaces the leading `tree`
/// of its path when the build started from a subtree.
fn build_error(file: &str, e: canopy_core::BuildError, top: &str) -> LoadError {
    let path = match e.path.strip_prefix("tree") {
        Some(rest) => format!("{top}{rest}"),
        None => e.path,
    };
    LoadError {
        file: file.to_string(),
        location: Location::Node { path, name: e.name },
        problem: e.problem,
    }
}

/// Brackets a file may nest: the parsers' own limit, about 60 levels of
/// node objects. Deeper trees are built from subtrees.
pub const MAX_NESTING: usize = 128;

/// Text → a JSON value, whichever the syntax.
fn parse(bytes: &[u8], format: Format, file: &str) -> Result<Value, LoadError> {
    let whole = |problem: String| LoadError {
        file: file.to_string(),
        location: Location::File,
        problem,
    };
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(whole(format!(
            "the file is {} bytes, more than the limit of {MAX_FILE_BYTES}",
            bytes.len()
        )));
    }
    if bytes.contains(&0) {
        return Err(whole("not a text file (it contains NUL bytes)".to_string()));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        whole(format!(
            "not a text file (invalid UTF-8 at byte {})",
            e.valid_up_to()
        ))
    })?;
    if text.trim().is_empty() {
        return Err(whole("the file is empty".to_string()));
    }
    let at = |line: usize, column: usize, problem: String| LoadError {
        file: file.to_string(),
        location: Location::Text {
            line,
            // serde_json reports column 0 just after a newline.
            column: column.max(1),
        },
        problem,
    };
    let too_deep =
        format!("nested more than {MAX_NESTING} brackets deep; build deeper trees from subtrees");
    match format {
        Format::Json => serde_json::from_str::<Strict>(text)
            .map(|s| s.0)
            .map_err(|e| {
                let message = e.to_string();
                let message = message.split(" at line ").next().unwrap_or(&message);
                let problem = if message.starts_with("recursion limit exceeded") {
                    too_deep
                } else if e.is_data() {
                    // Raised while reading values (a field given twice): the
                    // syntax itself is fine.
                    message.to_string()
                } else {
                    format!("malformed JSON: {message}")
                };
                at(e.line(), e.column(), problem)
            }),
        Format::Ron => {
            // RON's parser counts two levels per bracket; its recursion runs
            // on a stack of its own, sized for the limit whatever the caller's.
            let options = ron::Options::default().with_recursion_limit(2 * MAX_NESTING);
            stacker::grow(32 << 20, || options.from_str::<Strict>(text))
                .map(|s| s.0)
                .map_err(|e| {
                    let problem = match e.code {
                        ron::Error::ExceededRecursionLimit => too_deep,
                        ron::Error::Message(message) => message,
                        code => format!("malformed RON: {code}"),
                    };
                    at(e.span.start.line, e.span.start.col, problem)
                })
        }
    }
}

/// Stack kept free before recursing one level deeper, and the size of each
/// extra segment when it is not (for [`stacker::maybe_grow`]).
const RED_ZONE: usize = 128 << 10;
const STACK_SEGMENT: usize = 4 << 20;

/// Walks the node objects of one file, building drafts.
struct Loader<'r, 'b, A, W> {
    registry: &'r Registry<A, W>,
    builder: &'b Builder<'b, A, W>,
    file: &'r str,
    format: Format,
    subtrees: Option<&'r Map<String, Value>>,
    /// Subtrees already built: every reference shares the one draft.
    built: HashMap<String, &'b Draft<'b, A, W>>,
    /// Subtrees being built, outermost first: a reference to one of these is a cycle.
    in_progress: Vec<String>,
    nodes: usize,
}

/// A value as an error shows it, with a hint for RON's bare words, which
/// read as `()`.
fn got(value: &Value, format: Format) -> String {
    match (value, format) {
        (Value::Null, Format::Ron) => {
            "() — in RON, write words as strings in double quotes".to_string()
        }
        _ => describe_value(value),
    }
}

impl<'r, 'b, A: 'static, W: 'static> Loader<'r, 'b, A, W> {
    fn fail(&self, path: &str, name: &str, problem: String) -> LoadError {
        LoadError {
            file: self.file.to_string(),
            location: Location::Node {
                path: path.to_string(),
                name: short(name),
            },
            problem,
        }
    }

    fn document(&mut self, value: &'r Value) -> Result<&'b Draft<'b, A, W>, LoadError> {
        let top = |problem: String| LoadError {
            file: self.file.to_string(),
            location: Location::File,
            problem,
        };
        let Value::Object(top_level) = value else {
            return Err(top(format!(
                "expected an object with a \"tree\" field at the top, got {}",
                got(value, self.format)
            )));
        };
        for key in top_level.keys() {
            if key != "tree" && key != "subtrees" {
                return Err(top(format!(
                    "unknown top-level field \"{}\"{}; a tree file has \"tree\" and optionally \"subtrees\"",
                    short(key),
                    did_you_mean(key, ["tree", "subtrees"].into_iter())
                )));
            }
        }
        match top_level.get("subtrees") {
            None => {}
            Some(Value::Object(subtrees)) => self.subtrees = Some(subtrees),
            Some(other) => {
                return Err(top(format!(
                    "\"subtrees\" must be an object of named node objects, got {}",
                    got(other, self.format)
                )));
            }
        }
        let tree = top_level
            .get("tree")
            .ok_or_else(|| top("missing the \"tree\" field holding the root node".to_string()))?;
        let root = self.node(tree, "tree", 1)?;
        // Check subtrees nothing refers to as well: a file is valid as a whole.
        if let Some(subtrees) = self.subtrees {
            for name in subtrees.keys() {
                self.subtree(name, "tree", "SubTree", 1)?;
            }
        }
        Ok(root)
    }

    /// A node object's `type` and its `name` (the type when absent).
    fn type_and_name(
        &self,
        fields: &'r Map<String, Value>,
        path: &str,
    ) -> Result<(&'r str, &'r str), LoadError> {
        let type_name = match fields.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(other) => {
                let problem = format!("\"type\" must be a string, got {}", got(other, self.format));
                return Err(self.fail(path, "", problem));
            }
            None => return Err(self.fail(path, "", "missing \"type\"".to_string())),
        };
        let name = match fields.get("name") {
            None => type_name,
            Some(Value::String(n)) => n.as_str(),
            Some(other) => {
                let problem = format!("\"name\" must be a string, got {}", got(other, self.format));
                return Err(self.fail(path, type_name, problem));
            }
        };
        Ok((type_name, name))
    }

    /// The draft for the node object `value` at `path`, `depth` levels
    /// below the root (subtree references add no level).
    fn node(
        &mut self,
        value: &'r Value,
        path: &str,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            self.node_here(value, path, depth)
        })
    }

    fn node_here(
        &mut self,
        value: &'r Value,
        path: &str,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        let Value::Object(fields) = value else {
            return Err(self.fail(
                path,
                "",
                format!(
                    "expected a node object like {{\"type\": \"Sequence\"}}, got {}",
                    got(value, self.format)
                ),
            ));
        };
        let (type_name, name) = self.type_and_name(fields, path)?;
        if depth > MAX_DEPTH {
            return Err(self.fail(
                path,
                name,
                format!("nodes are nested more than {MAX_DEPTH} levels deep (through subtrees)"),
            ));
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.fail(
                path,
                name,
                format!("the file holds more than {MAX_NODES} nodes"),
            ));
        }
        let index = self.nodes as u64 - 1;
        let Some(node_type) = self.registry.get(type_name) else {
            return Err(self.fail(
                path,
                name,
                format!(
                    "unknown node type \"{}\"{}",
                    short(type_name),
                    did_you_mean(type_name, self.registry.names())
                ),
            ));
        };

        let children: &[Value] = match fields.get("children") {
            None => &[],
            Some(Value::Array(children)) => children,
            Some(other) => {
                let problem = format!(
                    "\"children\" must be a list, got {}",
                    got(other, self.format)
                );
                return Err(self.fail(path, name, problem));
            }
        };
        let arity = node_type.arity();
        if !arity.accepts(children.len()) {
            let article = if type_name.starts_with(['A', 'E', 'I', 'O', 'U']) {
                "an"
            } else {
                "a"
            };
            return Err(self.fail(
                path,
                name,
                format!(
                    "{article} {type_name} needs {}, got {}",
                    arity.describe(),
                    children.len()
                ),
            ));
        }
        let params = self.params(node_type, fields, path, name, index)?;

        let kind = match &node_type.build {
            Build::SubTree => {
                let target = params.text("tree").map_err(|p| self.fail(path, name, p))?;
                return self.subtree(target, path, name, depth);
            }
            Build::Kind(factory) => factory(&params).map_err(|p| self.fail(path, name, p))?,
            Build::Condition(factory) => {
                NodeKind::Condition(factory(&params).map_err(|p| self.fail(path, name, p))?)
            }
            Build::Guard { reactive } => {
                let condition =
                    self.condition(&fields["condition"], &format!("{path}/condition"))?;
                if *reactive {
                    NodeKind::ReactiveGuard(condition)
                } else {
                    NodeKind::Guard(condition)
                }
            }
        };
        let mut drafts = Vec::with_capacity(children.len());
        for (i, child) in children.iter().enumerate() {
            drafts.push(self.node(child, &format!("{path}/children[{i}]"), depth + 1)?);
        }
        // Guards show their condition through the kind; every other type
        // shows the parameters it was given.
        let shown = match node_type.build {
            Build::Guard { .. } => kind.params(),
            _ => params.shown(node_type.params()),
        };
        Ok(self
            .builder
            .typed_node(name, type_name, shown, kind, drafts))
    }

    /// Check a node's parameter fields against its type's declaration.
    fn params(
        &self,
        node_type: &'r NodeType<A, W>,
        fields: &Map<String, Value>,
        path: &str,
        name: &str,
        index: u64,
    ) -> Result<Params<'r>, LoadError> {
        let declared = node_type.params();
        for key in fields.keys() {
            if matches!(key.as_str(), "type" | "name" | "children")
                || declared.iter().any(|p| &p.name == key)
            {
                continue;
            }
            let takes = if declared.is_empty() {
                "it takes no parameters".to_string()
            } else {
                let names: Vec<&str> = declared.iter().map(|p| p.name.as_str()).collect();
                format!("it takes: {}", names.join(", "))
            };
            return Err(self.fail(
                path,
                name,
                format!(
                    "unknown parameter \"{}\" for {}{}; {takes}",
                    short(key),
                    node_type.name(),
                    did_you_mean(key, declared.iter().map(|p| p.name.as_str()))
                ),
            ));
        }
        let mut values = std::collections::BTreeMap::new();
        for param in declared {
            let value = match (fields.get(&param.name), &param.default) {
                (Some(v), _) => param.check(v).map_err(|p| self.fail(path, name, p))?,
                (None, Some(default)) => default.clone(),
                (None, None) => {
                    return Err(self.fail(
                        path,
                        name,
                        format!(
                            "missing parameter \"{}\" ({})",
                            param.name,
                            param.describe()
                        ),
                    ));
                }
            };
            values.insert(param.name.clone(), value);
        }
        Ok(Params {
            type_name: node_type.name(),
            values,
            seed: self.registry.seed(),
            index,
        })
    }

    /// A guard's condition: a node object of a registered condition type.
    fn condition(&mut self, value: &'r Value, path: &str) -> Result<Predicate<A, W>, LoadError> {
        let conditions = || {
            let names: Vec<&str> = self
                .registry
                .types()
                .filter(|t| t.is_condition())
                .map(|t| t.name())
                .collect();
            if names.is_empty() {
                "(none registered)".to_string()
            } else {
                names.join(", ")
            }
        };
        let Value::Object(fields) = value else {
            let problem = format!(
                "a condition must be a node object of a condition type ({}), got {}",
                conditions(),
                got(value, self.format)
            );
            return Err(self.fail(path, "", problem));
        };
        self.nodes += 1;
        let index = self.nodes as u64 - 1;
        let (type_name, name) = self.type_and_name(fields, path)?;
        let node_type = match self.registry.get(type_name) {
            Some(t) if t.is_condition() => t,
            _ => {
                let problem = format!(
                    "\"{}\" is not a condition type; a guard's condition is one of: {}",
                    short(type_name),
                    conditions()
                );
                return Err(self.fail(path, name, problem));
            }
        };
        if fields.contains_key("children") {
            return Err(self.fail(path, name, "a condition takes no children".to_string()));
        }
        let params = self.params(node_type, fields, path, name, index)?;
        let Build::Condition(factory) = &node_type.build else {
            unreachable!("is_condition() checked the build");
        };
        let check = factory(&params).map_err(|p| self.fail(path, name, p))?;
        Ok(Predicate {
            label: Some(name.to_string()),
            check,
        })
    }

    fn subtree(
        &mut self,
        target: &str,
        path: &str,
        name: &str,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        if let Some(draft) = self.built.get(target) {
            return Ok(draft);
        }
        if let Some(start) = self.in_progress.iter().position(|n| n == target) {
            let mut chain: Vec<&str> = self.in_progress[start..]
                .iter()
                .map(String::as_str)
                .collect();
            chain.push(target);
            let problem = if chain.len() == 2 {
                format!("subtree \"{}\" refers to itself", short(target))
            } else {
                format!(
                    "subtrees refer to each other in a cycle: {}",
                    chain.join(" → ")
                )
            };
            return Err(self.fail(path, name, problem));
        }
        if self.in_progress.len() >= MAX_DEPTH {
            return Err(self.fail(
                path,
                name,
                format!("subtree references are chained more than {MAX_DEPTH} levels deep"),
            ));
        }
        let Some(definition) = self.subtrees.and_then(|s| s.get(target)) else {
            let known: Vec<&str> = self
                .subtrees
                .into_iter()
                .flat_map(|s| s.keys())
                .map(String::as_str)
                .collect();
            let defined = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            return Err(self.fail(
                path,
                name,
                format!(
                    "no subtree named \"{}\"{}; the file defines: {defined}",
                    short(target),
                    did_you_mean(target, known.iter().copied()),
                ),
            ));
        };
        self.in_progress.push(target.to_string());
        let draft = self.node(definition, &format!("subtrees/{target}"), depth)?;
        self.in_progress.pop();
        self.built.insert(target.to_string(), draft);
        Ok(draft)
    }
}
