//! Why a tree file could not be loaded, as typed values: where
//! ([`Location`]) and what ([`Problem`], [`ParamError`]).
//!
//! The errors keep the file's text as it was (a program can match on an
//! unknown type's name); their `Display` is what people see, and it passes
//! every piece of that text through [`quote`] or [`escape`], so a message
//! is never longer than a few hundred bytes and never holds a control
//! character, whatever the file holds.

use std::fmt;

mod xml;

pub use xml::{IncludeProblem, XmlLimit, XmlProblem};

use canopy_core::{Arity, limits::MAX_DEPTH, params::ParamError};

use crate::format::{Format, MAX_NESTING, MAX_NODES};
use canopy_core::text::{self, did_you_mean, escape, escape_again, quote, quoted_list};

/// Why a tree file could not be loaded: the file, where in it, and what is
/// wrong. `Display` writes it on one line, as `canopy check` prints it.
///
/// ```
/// use canopy_data::{Format, Location, Problem, Registry, TreeSource};
/// let err = Registry::<(), ()>::new()
///     .loading(TreeSource::text(r#"{"tree": {"type": "Sequence", "children": [{"type": "Wiat", "ticks": 2}]}}"#,
///               Format::Json, "walk.json")).load()
///     .unwrap_err();
/// assert_eq!(err.to_string(),
///     "walk.json:1:46: tree/children[0] (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)");
/// assert!(matches!(err.problem(), Problem::UnknownType { type_name, .. } if type_name == "Wiat"));
/// assert!(matches!(err.location(), Location::Node { path, .. } if path == "tree/children[0]"));
/// ```
///
/// One pointer wide, so that results carrying it stay small on the paths
/// that succeed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError(Box<Inner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    file: String,
    location: Location,
    problem: Problem,
}

impl LoadError {
    /// An error in `file` at `location`.
    pub fn new(file: impl Into<String>, location: Location, problem: Problem) -> LoadError {
        LoadError(Box::new(Inner {
            file: file.into(),
            location,
            problem,
        }))
    }

    /// The file (or source name) being loaded.
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// Where in it.
    pub fn location(&self) -> &Location {
        &self.0.location
    }

    /// What is wrong.
    pub fn problem(&self) -> &Problem {
        &self.0.problem
    }
}

impl LoadError {
    /// Where the error is, as its message starts: `file`, `file:3:7` or
    /// `file:3:7: tree/children[0] (name "look")`.
    ///
    /// ```
    /// use canopy_data::{Format, Registry, TreeSource};
    /// let err = Registry::<(), ()>::new()
    ///     .loading(TreeSource::text(r#"{"tree": {"type": "Wait"}}"#, Format::Json, "w.json")).load().unwrap_err();
    /// assert_eq!(err.place(), "w.json:1:12: tree (name \"Wait\")");
    /// ```
    pub fn place(&self) -> String {
        let file = escape(&self.0.file);
        match &self.0.location {
            Location::File => file.into_owned(),
            Location::Text(Position { line, column }) => format!("{file}:{line}:{column}"),
            Location::Node { path, name, at } => {
                let at = match at {
                    Some(Position { line, column }) => format!("{file}:{line}:{column}"),
                    None => file.into_owned(),
                };
                let path = escape(&path.to_string()).into_owned();
                if name.is_empty() {
                    format!("{at}: {path}")
                } else {
                    format!("{at}: {path} (name {})", quote(name))
                }
            }
            Location::Element { element, at } => match at {
                Some(Position { line, column }) => {
                    format!("{file}:{line}:{column}: {}", escape_again(element))
                }
                None => format!("{file}: {}", escape_again(element)),
            },
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place(), self.0.problem)
    }
}

impl std::error::Error for LoadError {}

/// Where in a file an error is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// The file as a whole (unreadable, empty, binary, too large, the
    /// wrong shape at the top).
    File,
    /// A position in the text (malformed JSON or RON).
    Text(Position),
    /// A node: its path from the file's top, its name, and where its node
    /// object starts in the text (when the loader read it from text).
    Node {
        /// Where the node is among the file's trees.
        path: NodePath,
        /// The node's name (its type when it has none; empty when the node
        /// has no readable type either).
        name: String,
        /// Where its node object is in the file's text, if known.
        at: Option<Position>,
    },
    /// An element of an XML file (BehaviorTree.CPP's format), as messages
    /// show it (`<Tag ID="…" name="…">`, its text quoted already), and
    /// where it starts when the file's text is known.
    Element {
        /// The element.
        element: String,
        /// Where it starts.
        at: Option<Position>,
    },
}

/// A position in a file's text, 1-based; the column counts characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Line.
    pub line: u32,
    /// Column, in characters.
    pub column: u32,
}

impl Position {
    /// The position of byte `offset` of `text` (clamped to its length, and
    /// back to a character boundary).
    ///
    /// ```
    /// use canopy_data::Position;
    /// assert_eq!(Position::of("ab\ncdé\nx", 8), Position { line: 3, column: 1 });
    /// assert_eq!(Position::of("ab\ncdé\nx", 3), Position { line: 2, column: 1 });
    /// ```
    pub fn of(text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |at| at + 1);
        Position {
            line: before.matches('\n').count() as u32 + 1,
            column: before[line_start..].chars().count() as u32 + 1,
        }
    }
}

/// Where a node object is among a file's trees: the tree it is in (the
/// file's `tree`, or an entry of its `subtrees`) and the steps from that
/// tree's root. Written `tree/children[2]/children[0]`,
/// `subtrees/Flee/children[1]`, `tree/children[0]/condition` (a very long
/// subtree name is cut, as [`quote`] cuts it).
///
/// ```
/// use canopy_data::{NodePath, PathRoot, PathStep};
/// let path = NodePath { root: PathRoot::Subtree("Flee".into()),
///                       steps: vec![PathStep::Child(1), PathStep::Condition] };
/// assert_eq!(path.to_string(), "subtrees/Flee/children[1]/condition");
/// assert_eq!(path, "subtrees/Flee/children[1]/condition");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodePath {
    /// The tree the path starts at.
    pub root: PathRoot,
    /// The steps from its root.
    pub steps: Vec<PathStep>,
}

/// Where a [`NodePath`] starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PathRoot {
    /// The file's `tree`.
    #[default]
    Tree,
    /// The entry of `subtrees` with this name.
    Subtree(String),
}

/// One step of a [`NodePath`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathStep {
    /// The child at this index.
    Child(u32),
    /// A guard's condition.
    Condition,
}

impl NodePath {
    /// The path of a subtree's root, `subtrees/NAME`.
    pub fn subtree(name: &str) -> NodePath {
        NodePath {
            root: PathRoot::Subtree(name.to_string()),
            steps: Vec::new(),
        }
    }

    /// The path of child `index` of the node at this path.
    ///
    /// ```
    /// use canopy_data::NodePath;
    /// assert_eq!(NodePath::default().child(2).child(0), "tree/children[2]/children[0]");
    /// ```
    pub fn child(&self, index: usize) -> NodePath {
        let mut path = self.clone();
        path.steps.push(PathStep::Child(index as u32));
        path
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.root {
            PathRoot::Tree => f.write_str("tree")?,
            PathRoot::Subtree(name) => write!(f, "subtrees/{}", text::shorten(name))?,
        }
        for step in &self.steps {
            match step {
                PathStep::Child(i) => write!(f, "/children[{i}]")?,
                PathStep::Condition => f.write_str("/condition")?,
            }
        }
        Ok(())
    }
}

impl PartialEq<str> for NodePath {
    fn eq(&self, other: &str) -> bool {
        self.to_string().as_str() == other
    }
}

impl PartialEq<&str> for NodePath {
    fn eq(&self, other: &&str) -> bool {
        self.to_string().as_str() == *other
    }
}

/// What is wrong with a tree file. Fields hold the file's text as it was;
/// `got` fields hold a value as messages show it (kind and first
/// characters, already escaped and cut).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The file name ends in neither `.json` nor `.ron`.
    UnknownExtension,
    /// The file could not be opened or read.
    Unreadable {
        /// The system's reason.
        reason: String,
    },
    /// A directory, FIFO, device or socket: reading one could block forever
    /// or never end.
    NotARegularFile {
        /// What it is instead: `"a directory"`, `"a FIFO"`, …
        what: &'static str,
    },
    /// More than its limit ([`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES) for tree files).
    TooLarge {
        /// The size, when the file said it; a file that grew while it was
        /// read is known only to be larger than the limit.
        bytes: Option<u64>,
        /// The limit.
        limit: u64,
    },
    /// NUL bytes: a binary file.
    NulBytes,
    /// Not valid UTF-8.
    InvalidUtf8 {
        /// Offset of the first invalid byte.
        at: usize,
    },
    /// A UTF-16 file (it starts with a UTF-16 byte-order mark).
    Utf16,
    /// Nothing but white space.
    Empty,
    /// Only whitespace.
    Blank,
    /// The text is not well-formed JSON or RON.
    Malformed {
        /// Which syntax.
        format: Format,
        /// The parser's message.
        message: String,
    },
    /// Brackets nested more than [`MAX_NESTING`] deep.
    TooDeeplyNested,
    /// An object gives a field twice.
    DuplicateField {
        /// The field's name.
        field: String,
    },
    /// NaN or an infinity (RON).
    NotFinite,
    /// A RON byte string.
    ByteString,
    /// The top is not an object.
    NotADocument {
        /// The value found.
        got: String,
    },
    /// A top-level field other than `tree` and `subtrees`.
    UnknownTopLevelField {
        /// The field's name.
        field: String,
        /// A close known field, if any.
        suggestion: Option<&'static str>,
    },
    /// `subtrees` is not an object.
    SubtreesNotAnObject {
        /// The value found.
        got: String,
    },
    /// No `tree` field.
    MissingTree,
    /// A node is not an object.
    NotANode {
        /// The value found.
        got: String,
    },
    /// A reserved field (`type`, `name`, `children`) has the wrong kind of value.
    WrongField {
        /// The field.
        field: &'static str,
        /// What it must be: `"a string"`, `"a list"`.
        expected: &'static str,
        /// The value found.
        got: String,
    },
    /// A node object without `type`.
    MissingType,
    /// Nodes nested more than [`MAX_DEPTH`] levels deep, counting through subtrees.
    TooDeep,
    /// More than [`MAX_NODES`] node objects.
    TooManyNodes,
    /// No node type of this name is registered.
    UnknownType {
        /// The name in the file.
        type_name: String,
        /// A close registered name, if any.
        suggestion: Option<String>,
    },
    /// A node has a number of children its type does not take.
    WrongChildCount {
        /// The node's type.
        type_name: String,
        /// What the type takes.
        arity: Arity,
        /// Children given.
        got: usize,
    },
    /// A field that is not a parameter of the node's type.
    UnknownParam {
        /// The field's name.
        param: String,
        /// The node's type.
        type_name: String,
        /// A close parameter name, if any.
        suggestion: Option<String>,
        /// The type's parameters.
        takes: Vec<String>,
    },
    /// A required parameter is absent.
    MissingParam {
        /// The parameter.
        param: String,
        /// What it holds ([`Param::describe`](crate::Param::describe)).
        expects: String,
    },
    /// A parameter's value is refused, or the type's factory refused the node.
    Param(ParamError),
    /// A guard's condition is not an object.
    ConditionNotAnObject {
        /// The registered condition types.
        conditions: Vec<String>,
        /// The value found.
        got: String,
    },
    /// A guard's condition names a type that is not a condition.
    NotAConditionType {
        /// The name in the file.
        type_name: String,
        /// The registered condition types.
        conditions: Vec<String>,
    },
    /// A guard's condition has children.
    ConditionWithChildren,
    /// A subtree refers to itself.
    SelfReference {
        /// The subtree.
        subtree: String,
    },
    /// Subtrees refer to each other in a cycle.
    Cycle {
        /// The subtrees, from the first to the one that closes the cycle.
        chain: Vec<String>,
    },
    /// Subtree references chained more than [`MAX_DEPTH`] deep.
    ChainTooDeep,
    /// A reference to a subtree the file does not define.
    NoSuchSubtree {
        /// The name referred to.
        subtree: String,
        /// A close defined name, if any.
        suggestion: Option<String>,
        /// The first few defined names, in order.
        defined: Vec<String>,
        /// How many subtrees the file defines.
        count: usize,
    },
    /// A blackboard key used as two types: here, and at its first use.
    KeyType(Box<KeyConflict>),
    /// A script parameter that does not compile: a syntax or type
    /// error, an unknown key, a key of another type, a bound exceeded.
    Script {
        /// The parameter holding the script.
        param: String,
        /// The script.
        code: String,
        /// Where in the script, in characters from 1.
        column: usize,
        /// What is wrong (keys in it are quoted already).
        problem: String,
    },
    /// An output port given a value instead of a blackboard key.
    OutputNotAKey {
        /// The port.
        param: String,
        /// The value found, as messages show it.
        got: String,
    },
    /// The tree builder refused the tree ([`canopy_core::BuildError`]).
    Build {
        /// The builder's problem.
        problem: String,
    },
    /// A problem found by another loader built on the registry (the
    /// BehaviorTree.CPP XML reader, say), in its words, which quote the
    /// file escaped already (control characters are escaped again here).
    Reported {
        /// What is wrong.
        problem: String,
    },
    /// A problem only a BehaviorTree.CPP XML file has, or has in its own
    /// terms (ports, attributes, `<SubTree>`, `<include>`).
    Xml(XmlProblem),
}

/// Words of a list a message shows before it says how many there are.
const LISTED: usize = 10;

/// A blackboard key used as two types ([`Problem::KeyType`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyConflict {
    /// The port here.
    pub port: String,
    /// The key.
    pub key: String,
    /// The type a port here wants.
    pub wanted: String,
    /// The type its first use gave it.
    pub holds: String,
    /// Where it was first used, as messages write a place
    /// (`crowd.json:3:7: tree/children[0] (name "look")`).
    pub first: String,
    /// The node that first used it, for loaders that show places in their
    /// own terms (an XML element's line and column).
    pub first_node: NodePath,
}

impl KeyConflict {
    /// The problem in words, with its first use shown as `first` (a
    /// loader that shows places its own way passes its own text).
    pub fn describe(&self, first: &str) -> String {
        format!(
            "port {} wants key {} to hold {}, but it holds {} since its first use at {}",
            quote(&self.port),
            quote(&format!("{{{}}}", self.key)),
            escape(&self.wanted),
            escape(&self.holds),
            escape_again(first)
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::UnknownExtension => {
                f.write_str("unknown file extension: tree files end in .json or .ron")
            }
            Problem::Unreadable { reason } => write!(f, "cannot read: {}", escape(reason)),
            Problem::NotARegularFile { what } => write!(
                f,
                "not a regular file ({what}); tree files are read from regular files"
            ),
            Problem::TooLarge {
                bytes: Some(bytes),
                limit,
            } => write!(
                f,
                "the file is {bytes} bytes, more than the limit of {limit}"
            ),
            Problem::TooLarge { bytes: None, limit } => {
                write!(f, "the file is more than the limit of {limit} bytes")
            }
            Problem::NulBytes => f.write_str("not a text file (it contains NUL bytes)"),
            Problem::InvalidUtf8 { at } => {
                write!(f, "not a text file (invalid UTF-8 at byte {at})")
            }
            Problem::Utf16 => f.write_str(
                "not UTF-8 text: the file starts with a UTF-16 byte order mark; save it as UTF-8",
            ),
            Problem::Empty => f.write_str("the file is empty"),
            Problem::Blank => f.write_str("the file holds only whitespace"),
            _ => self.fmt_syntax(f),
        }
    }
}

impl Problem {
    fn fmt_syntax(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Malformed { format, message } => {
                let syntax = match format {
                    Format::Json => "JSON",
                    Format::Ron => "RON",
                };
                // Parser messages can quote the text (RON names what it
                // did not expect): cut and escape them like any user text.
                write!(f, "malformed {syntax}: {}", text::message(message))
            }
            Problem::TooDeeplyNested => write!(
                f,
                "nested more than {MAX_NESTING} brackets deep; build deeper trees from subtrees"
            ),
            Problem::DuplicateField { field } => {
                write!(f, "field {} is given twice", quote(field))
            }
            Problem::NotFinite => f.write_str(
                "numbers must be finite: infinity, NaN and numbers beyond ±1.8e308 are refused",
            ),
            Problem::ByteString => f.write_str("byte strings are not tree data"),
            _ => self.fmt_document(f),
        }
    }

    fn fmt_document(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::NotADocument { got } => write!(
                f,
                "expected an object with a \"tree\" field at the top, got {got}"
            ),
            Problem::UnknownTopLevelField { field, suggestion } => write!(
                f,
                "unknown top-level field {}{}; a tree file has \"tree\" and optionally \"subtrees\"",
                quote(field),
                did_you_mean(*suggestion)
            ),
            Problem::SubtreesNotAnObject { got } => write!(
                f,
                "\"subtrees\" must be an object of named node objects, got {got}"
            ),
            Problem::MissingTree => f.write_str("missing the \"tree\" field holding the root node"),
            Problem::NotANode { got } => write!(
                f,
                "expected a node object like {{\"type\": \"Sequence\"}}, got {got}"
            ),
            Problem::WrongField {
                field,
                expected,
                got,
            } => write!(f, "\"{field}\" must be {expected}, got {got}"),
            Problem::MissingType => f.write_str("missing \"type\""),
            Problem::TooDeep => write!(
                f,
                "nodes are nested more than {MAX_DEPTH} levels deep (through subtrees)"
            ),
            Problem::TooManyNodes => write!(f, "the file holds more than {MAX_NODES} nodes"),
            _ => self.fmt_node(f),
        }
    }

    fn fmt_node(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::UnknownType {
                type_name,
                suggestion,
            } => write!(
                f,
                "unknown node type {}{}",
                quote(type_name),
                did_you_mean(suggestion.as_deref())
            ),
            Problem::WrongChildCount {
                type_name,
                arity,
                got,
            } => {
                let article = if type_name.starts_with(['A', 'E', 'I', 'O', 'U']) {
                    "an"
                } else {
                    "a"
                };
                let type_name = escape(type_name);
                write!(
                    f,
                    "{article} {type_name} needs {}, got {got}",
                    arity.describe()
                )
            }
            Problem::UnknownParam {
                param,
                type_name,
                suggestion,
                takes,
            } => {
                write!(
                    f,
                    "unknown parameter {} for {}{}; ",
                    quote(param),
                    escape(type_name),
                    did_you_mean(suggestion.as_deref())
                )?;
                if takes.is_empty() {
                    f.write_str("it takes no parameters")
                } else {
                    write!(f, "it takes: {}", escape(&takes.join(", ")))
                }
            }
            Problem::MissingParam { param, expects } => {
                write!(f, "missing parameter {} ({expects})", quote(param))
            }
            Problem::Param(e) => write!(f, "{e}"),
            _ => self.fmt_reference(f),
        }
    }

    fn fmt_reference(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::ConditionNotAnObject { conditions, got } => write!(
                f,
                "a condition must be a node object of a condition type ({}), got {got}",
                condition_list(conditions)
            ),
            Problem::NotAConditionType {
                type_name,
                conditions,
            } => write!(
                f,
                "{} is not a condition type; a guard's condition is one of: {}",
                quote(type_name),
                condition_list(conditions)
            ),
            Problem::ConditionWithChildren => f.write_str("a condition takes no children"),
            Problem::SelfReference { subtree } => {
                write!(f, "subtree {} refers to itself", quote(subtree))
            }
            Problem::Cycle { chain } => write!(
                f,
                "subtrees refer to each other in a cycle: {}",
                cycle(chain)
            ),
            Problem::ChainTooDeep => write!(
                f,
                "subtree references are chained more than {MAX_DEPTH} levels deep"
            ),
            Problem::NoSuchSubtree {
                subtree,
                suggestion,
                defined,
                count,
            } => {
                write!(
                    f,
                    "no subtree named {}{}; ",
                    quote(subtree),
                    did_you_mean(suggestion.as_deref())
                )?;
                match count {
                    0 => f.write_str("the file defines no subtrees"),
                    _ => write!(
                        f,
                        "the file defines: {}",
                        quoted_list(defined.iter().map(String::as_str), *count, LISTED, ", ")
                    ),
                }
            }
            Problem::KeyType(conflict) => f.write_str(&conflict.describe(&conflict.first)),
            Problem::Script {
                param,
                code,
                column,
                problem,
            } => write!(
                f,
                "parameter {}: script {}, column {column}: {}",
                quote(param),
                quote(code),
                escape_again(problem)
            ),
            Problem::OutputNotAKey { param, got } => write!(
                f,
                "output port {} takes a blackboard key like \"{{key}}\", got {got}",
                quote(param)
            ),
            Problem::Build { problem } => f.write_str(&escape(problem)),
            Problem::Xml(problem) => fmt::Display::fmt(problem, f),
            Problem::Reported { problem } => f.write_str(&escape_again(problem)),
            _ => unreachable!("every problem is written by one of the fmt functions"),
        }
    }
}

/// The condition types, or `(none registered)`.
fn condition_list(conditions: &[String]) -> String {
    if conditions.is_empty() {
        "(none registered)".to_string()
    } else {
        escape(&conditions.join(", ")).into_owned()
    }
}

/// `"A" → "B" → "A"`; a long cycle shows its first and last links.
fn cycle(chain: &[String]) -> String {
    let quoted = |names: &[String]| {
        names
            .iter()
            .map(|n| quote(n))
            .collect::<Vec<_>>()
            .join(" → ")
    };
    if chain.len() <= LISTED {
        return quoted(chain);
    }
    let half = LISTED / 2;
    format!(
        "{} → … ({} subtrees in all) → {}",
        quoted(&chain[..half]),
        chain.len() - 1,
        quoted(&chain[chain.len() - half..])
    )
}
