//! What is wrong in a BehaviorTree.CPP XML file ([`Problem::Xml`]), as
//! typed values.
//!
//! The XML reader lives in another crate, but its problems are part of
//! [`Problem`] so that a game matches on one error type whatever the
//! format. Where a problem is the same as in a JSON or RON file (an
//! unknown parameter of a registered type, a script that does not
//! compile), the reader gives the shared variant; these are the problems
//! only XML has, or has in its own terms (ports, attributes, `<SubTree>`,
//! `<include>`). A message string per problem was the rejected way: a
//! caller could only match on words.
//!
//! Fields hold the file's text as it was; `Display` quotes or escapes each
//! piece, as the rest of [`Problem`] does.
//!
//! [`Problem`]: super::Problem
//! [`Problem::Xml`]: super::Problem::Xml

use std::fmt;

use canopy_core::text::{did_you_mean, escape_again, quote};

/// A problem only an XML file has ([`Problem::Xml`](super::Problem::Xml)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum XmlProblem {
    /// The text is not well-formed XML, or not XML canopy reads (a
    /// document type declaration, an encoding other than UTF-8): the XML
    /// reader's words, which quote the file's text already.
    Malformed {
        /// What is wrong.
        problem: String,
    },
    /// A node type neither the registry nor BehaviorTree.CPP's standard
    /// nodes have.
    UnknownType {
        /// The type's name in the file.
        type_name: String,
        /// A close name, if any.
        suggestion: Option<String>,
    },
    /// A BehaviorTree.CPP node canopy does not run, and why.
    UnsupportedNode {
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// Why, and what to write instead.
        problem: String,
    },
    /// A `BTCPP_format` other than 4.
    UnsupportedFormat {
        /// The format in the file.
        format: String,
    },
    /// An element where it does not belong (`<BehaviorTree>`,
    /// `<TreeNodesModel>`, `<include>` inside a tree; `<root>` as a node).
    Misplaced {
        /// The element's tag.
        tag: String,
    },
    /// A tree or node type ID BehaviorTree.CPP does not allow (empty,
    /// reserved, or with a character IDs cannot hold).
    BadId {
        /// The ID.
        id: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A tree ID that is the name of a node type.
    IdIsNodeType {
        /// The ID.
        id: String,
    },
    /// Two trees with one ID.
    DuplicateTree {
        /// The ID.
        id: String,
        /// The file of the first.
        first_file: String,
        /// The line of the first.
        first_line: usize,
    },
    /// An element names a `<BehaviorTree>` as if it were a node type.
    TreeAsType {
        /// The tree's ID.
        id: String,
    },
    /// A port a standard node does not have.
    UnknownPort {
        /// The port (attribute) in the file.
        port: String,
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// A close port name, if any.
        suggestion: Option<String>,
        /// The ports the node takes.
        takes: Vec<String>,
    },
    /// Ports a standard node needs are absent.
    MissingPorts {
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// The ports.
        ports: Vec<String>,
    },
    /// A port that must name a blackboard key (`{key}`) holds something
    /// else.
    PortNotAKey {
        /// The port.
        port: String,
        /// Its value in the file.
        value: String,
    },
    /// A standard node has a number of children it does not take.
    ChildCount {
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// Fewest children it takes.
        min: usize,
        /// Most children it takes, if there is a bound.
        max: Option<usize>,
        /// Children given.
        got: usize,
    },
    /// A standard node's port holds a value it does not read.
    BadPortValue {
        /// The port.
        port: String,
        /// The value in the file.
        value: String,
        /// What the port reads.
        expects: String,
    },
    /// A parallel node's threshold port needs more children than the node
    /// has, so the node could never finish that way.
    UnreachableThreshold {
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// The port.
        port: String,
        /// Its value.
        value: i64,
        /// The children it needs.
        needed: usize,
        /// The children the node has.
        children: usize,
        /// What the node could never do (`succeed`, `fail`).
        outcome: String,
    },
    /// A warning, refused as an error because loading is strict
    /// (`XmlOptions::strict`), in the warning's words.
    StrictWarning {
        /// The warning.
        problem: String,
    },
    /// An attribute BehaviorTree.CPP reads as a boolean holds another
    /// word.
    NotABoolean {
        /// The attribute.
        attribute: String,
        /// Its value in the file.
        value: String,
    },
    /// An attribute's value does not convert to its parameter's type.
    BadAttribute {
        /// The attribute.
        attribute: String,
        /// Why, in words quoting the value already.
        problem: String,
    },
    /// A blackboard entry (`{key}`) given for a parameter, which is fixed
    /// when the tree is built.
    EntryForParameter {
        /// The attribute.
        attribute: String,
        /// Its value in the file.
        value: String,
        /// The entry it names.
        entry: String,
        /// The node's type.
        type_name: String,
        /// What the parameter takes.
        takes: String,
    },
    /// A `<SubTree>` names a tree the files do not define.
    NoSuchTree {
        /// The ID referred to.
        id: String,
        /// A close defined ID, if any.
        suggestion: Option<String>,
        /// The first few defined IDs, in order.
        defined: Vec<String>,
        /// How many trees the files define.
        count: usize,
    },
    /// The tree to run (`main_tree_to_execute`, or the one asked for) is
    /// not defined.
    NoSuchMainTree {
        /// Its ID.
        id: String,
        /// A close defined ID, if any.
        suggestion: Option<String>,
        /// The first few defined IDs, in order.
        defined: Vec<String>,
        /// How many trees the files define.
        count: usize,
    },
    /// The files define no `<BehaviorTree>`.
    NoTrees,
    /// A `<SubTree>` without the ID of the tree it runs.
    SubTreeWithoutId {
        /// The first few defined IDs, in order.
        defined: Vec<String>,
        /// How many trees the files define.
        count: usize,
    },
    /// Several trees and nothing saying which to run.
    NoMainTree {
        /// The first few defined IDs, in order.
        defined: Vec<String>,
        /// How many trees the files define.
        count: usize,
    },
    /// Trees bring each other in through `<SubTree>` in a cycle (a tree
    /// itself, when the chain is two long).
    TreeCycle {
        /// The trees, from the first to the one that closes the cycle.
        chain: Vec<String>,
    },
    /// A `<SubTree>` remaps a port whose name is not a key name.
    SubTreePortName {
        /// The port.
        port: String,
    },
    /// A `<SubTree>` remaps a port to `{…}` that is not a key.
    SubTreeKey {
        /// The port.
        port: String,
        /// Its value in the file.
        value: String,
    },
    /// A `<SubTree>` does not remap a port its tree's model declares
    /// without a default.
    UnremappedPort {
        /// The tree.
        tree: String,
        /// Where its model is, as messages write a place, if known.
        model_at: Option<String>,
        /// The port.
        port: String,
    },
    /// A script canopy wrote for an attribute (a pre- or post-condition,
    /// a Precondition's `if`, a Switch's case, a Loop's queue) does not
    /// compile: [`Problem::Script`](super::Problem::Script) named by the
    /// element's attribute rather than canopy's parameter.
    Script {
        /// The attribute holding the script.
        attribute: String,
        /// The script.
        code: String,
        /// Where in the script, in characters from 1.
        column: usize,
        /// What is wrong (keys in it are quoted already).
        problem: String,
    },
    /// A blackboard key used as two types
    /// ([`Problem::KeyType`](super::Problem::KeyType)), its first use
    /// shown as an element's place, with the `<SubTree>` remappings that
    /// gave the key its names.
    KeyType {
        /// The conflict; its `first` is the element's place.
        conflict: Box<super::KeyConflict>,
        /// Each remapping: the key's local name and the `<SubTree>`'s
        /// place.
        remapped: Vec<(String, String)>,
    },
    /// A standard node runs as a canopy node type the registry lacks.
    MissingKind {
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// The canopy type it runs as.
        kind: String,
    },
    /// A standard node runs as one of canopy's built-in kinds, which the
    /// registry does not hold.
    MissingBuiltin {
        /// The node (BehaviorTree.CPP's ID).
        node: String,
        /// The built-in kind.
        kind: String,
    },
    /// An `<include>` that cannot be followed.
    Include(IncludeProblem),
    /// The files exceed a bound canopy keeps untrusted input within.
    Limit(XmlLimit),
}

/// Why an `<include>` cannot be followed ([`XmlProblem::Include`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IncludeProblem {
    /// `ros_pkg`, which names a ROS package canopy cannot look up.
    RosPackage,
    /// No `path` attribute.
    MissingPath,
    /// The tree was given as text: no directory to resolve includes in.
    NoDirectory,
    /// The path leaves the tree file's directory (refused unless allowed).
    LeavesDirectory {
        /// The path in the file.
        path: String,
    },
    /// The tree file's directory cannot be resolved.
    NoBase {
        /// The system's reason.
        reason: String,
    },
    /// The included file cannot be found or read.
    Unreadable {
        /// The path, as resolved.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// The included file is refused as a file (not a regular file, too
    /// large), as the registry's reader refuses tree files.
    Refused(Box<super::Problem>),
    /// Files include each other in a cycle.
    Cycle {
        /// The files, from the first to the one that closes the cycle.
        chain: Vec<String>,
    },
}

/// A bound on untrusted input that an XML file exceeds
/// ([`XmlProblem::Limit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum XmlLimit {
    /// The input given as text or bytes is too large.
    InputBytes {
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// A file of 4 GiB or more (positions are 32-bit).
    FileOver4GiB,
    /// The files a tree includes hold more than `limit` bytes together.
    TreeBytes {
        /// The limit.
        limit: u64,
    },
    /// A tree includes more than `limit` files.
    Files {
        /// The limit.
        limit: u64,
    },
    /// Includes nested more than `limit` deep.
    IncludeDepth {
        /// The limit.
        limit: u64,
    },
    /// Elements nested more than `limit` deep.
    ElementDepth {
        /// The limit.
        limit: u64,
    },
    /// A time in milliseconds is more ticks than canopy counts.
    Ticks {
        /// The time.
        msec: i64,
        /// The ticks it is.
        ticks: i64,
        /// Milliseconds a tick stands for.
        tick_ms: i64,
        /// The most ticks canopy counts.
        limit: u64,
    },
    /// More elements than the reader keeps.
    Elements,
    /// Nodes nested more than `limit` levels in one `<BehaviorTree>`.
    Levels {
        /// The limit.
        limit: u64,
    },
    /// Nodes nested more than `limit` levels counting through `<SubTree>`.
    Depth {
        /// The limit.
        limit: u64,
    },
    /// More than `limit` nodes once each `<SubTree>` with keys of its own
    /// is copied.
    CopiedNodes {
        /// The limit.
        limit: u64,
    },
    /// More than `limit` bytes of parameters and scripts once each
    /// `<SubTree>` with keys of its own is copied.
    ParameterBytes {
        /// The limit.
        limit: u64,
    },
    /// One tick could update more than `limit` nodes
    /// (`XmlOptions::max_updates_per_tick`).
    UpdatesPerTick {
        /// The limit.
        limit: u64,
    },
    /// The defaults of `SubTree` models add more than `limit` bytes of
    /// remapping.
    RemapBytes {
        /// The limit.
        limit: u64,
    },
}

/// Tree IDs a message lists before it says how many more there are.
const LISTED_IDS: usize = 10;

/// `"A", "B"`: the first IDs, then `and N more`.
fn ids(defined: &[String], count: usize) -> String {
    let mut shown: Vec<String> = defined.iter().take(LISTED_IDS).map(|d| quote(d)).collect();
    if count > LISTED_IDS {
        shown.push(format!("and {} more", count - LISTED_IDS));
    }
    shown.join(", ")
}

/// `"A" → "B" → "A"`.
fn chain(links: &[String]) -> String {
    links
        .iter()
        .map(|l| quote(l))
        .collect::<Vec<_>>()
        .join(" → ")
}

impl fmt::Display for XmlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XmlProblem::Malformed { problem } => f.write_str(&escape_again(problem)),
            XmlProblem::UnknownType {
                type_name,
                suggestion,
            } => write!(
                f,
                "unknown node type {}{}; the registry and BehaviorTree.CPP's standard nodes \
                 have no such type",
                quote(type_name),
                did_you_mean(suggestion.as_deref())
            ),
            XmlProblem::UnsupportedNode { problem, .. } => f.write_str(&escape_again(problem)),
            XmlProblem::UnsupportedFormat { format } => write!(
                f,
                "BTCPP_format={} is not supported; canopy reads format 4 (BehaviorTree.CPP 4.x)",
                quote(format)
            ),
            XmlProblem::Misplaced { tag } => f.write_str(match tag.as_str() {
                "TreeNodesModel" => {
                    "<TreeNodesModel> belongs directly under <root>, beside the <BehaviorTree> \
                     elements, not inside a tree; move it out"
                }
                "BehaviorTree" => {
                    "<BehaviorTree> belongs directly under <root>, not inside another tree; to \
                     run one tree inside another, write <SubTree ID=\"…\"/> here"
                }
                "include" => "<include> belongs directly under <root>, not inside a tree",
                "root" => "<root> is the file's top element, not a node",
                _ => "the element belongs directly under <root>",
            }),
            XmlProblem::BadId { id, problem } => {
                write!(f, "the ID {} {}", quote(id), escape_again(problem))
            }
            XmlProblem::IdIsNodeType { id } => write!(
                f,
                "the ID {} is the name of a node type; give the tree another ID",
                quote(id)
            ),
            XmlProblem::DuplicateTree {
                id,
                first_file,
                first_line,
            } => write!(
                f,
                "a tree with ID {} is defined already, in {} line {first_line}",
                quote(id),
                escape_again(first_file)
            ),
            XmlProblem::TreeAsType { id } => write!(
                f,
                "{} is a <BehaviorTree>: refer to it with <SubTree ID={}/>",
                quote(id),
                quote(id)
            ),
            XmlProblem::UnknownPort {
                port,
                node,
                suggestion,
                takes,
            } => {
                write!(
                    f,
                    "unknown port {} for {}{}; ",
                    quote(port),
                    escape_again(node),
                    did_you_mean(suggestion.as_deref())
                )?;
                if takes.is_empty() {
                    f.write_str("it takes none")
                } else {
                    write!(f, "it takes: {}", escape_again(&takes.join(", ")))
                }
            }
            XmlProblem::MissingPorts { node, ports } => {
                let node = escape_again(node);
                match ports.as_slice() {
                    [port] => write!(f, "{node} needs the port {}", escape_again(port)),
                    [first @ .., last] => write!(
                        f,
                        "{node} needs the ports {} and {}",
                        escape_again(&first.join(", ")),
                        escape_again(last)
                    ),
                    [] => write!(f, "{node} needs ports"),
                }
            }
            XmlProblem::PortNotAKey { port, value } => {
                let port = escape_again(port);
                write!(
                    f,
                    "{port}={} must name a blackboard key, like {{{port}}}",
                    quote(value)
                )
            }
            XmlProblem::ChildCount {
                node,
                min,
                max,
                got,
            } => {
                let needs = match (*min, *max) {
                    (0, Some(0)) => "no children".to_string(),
                    (1, Some(1)) => "exactly 1 child".to_string(),
                    (min, Some(max)) if min == max => format!("{min} children"),
                    (min, Some(max)) => format!("{min} or {max} children"),
                    (min, None) => {
                        format!("at least {min} child{}", if min == 1 { "" } else { "ren" })
                    }
                };
                write!(f, "{} needs {needs}, got {got}", escape_again(node))
            }
            XmlProblem::BadPortValue {
                port,
                value,
                expects,
            } => write!(
                f,
                "port {} must be {}, got {}",
                escape_again(port),
                escape_again(expects),
                quote(value)
            ),
            XmlProblem::UnreachableThreshold {
                node,
                port,
                value,
                needed,
                children,
                outcome,
            } => write!(
                f,
                "{}={value} needs {needed} children, but the {} has {children}: it could never {}",
                escape_again(port),
                escape_again(node),
                escape_again(outcome)
            ),
            XmlProblem::StrictWarning { problem } => write!(
                f,
                "{} (a warning: strict loading refuses it)",
                escape_again(problem)
            ),
            XmlProblem::NotABoolean { attribute, value } => write!(
                f,
                "{}={}: BehaviorTree.CPP reads a boolean as true, TRUE, True, 1, false, FALSE, \
                 False or 0",
                escape_again(attribute),
                quote(value)
            ),
            XmlProblem::BadAttribute { attribute, problem } => {
                write!(f, "{}: {}", escape_again(attribute), escape_again(problem))
            }
            XmlProblem::EntryForParameter {
                attribute,
                value,
                entry,
                type_name,
                takes,
            } => {
                let attribute = escape_again(attribute);
                write!(
                    f,
                    "{attribute}={} reads the blackboard entry {}, but {attribute} is a parameter \
                     of {}, not a port: it takes {}, fixed when the tree is built",
                    quote(value),
                    quote(entry),
                    escape_again(type_name),
                    escape_again(takes)
                )
            }
            XmlProblem::Include(..)
            | XmlProblem::KeyType { .. }
            | XmlProblem::Limit(..)
            | XmlProblem::MissingBuiltin { .. }
            | XmlProblem::MissingKind { .. }
            | XmlProblem::NoMainTree { .. }
            | XmlProblem::NoSuchMainTree { .. }
            | XmlProblem::NoSuchTree { .. }
            | XmlProblem::NoTrees
            | XmlProblem::Script { .. }
            | XmlProblem::SubTreeKey { .. }
            | XmlProblem::SubTreePortName { .. }
            | XmlProblem::SubTreeWithoutId { .. }
            | XmlProblem::TreeCycle { .. }
            | XmlProblem::UnremappedPort { .. } => self.fmt_trees(f),
        }
    }
}

impl XmlProblem {
    fn fmt_trees(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XmlProblem::NoSuchTree {
                id,
                suggestion,
                defined,
                count,
            } => write!(
                f,
                "there is no <BehaviorTree> with ID {}{}; the files define {}",
                quote(id),
                did_you_mean(suggestion.as_deref()),
                ids(defined, *count)
            ),
            XmlProblem::NoSuchMainTree {
                id,
                suggestion,
                defined,
                count,
            } => write!(
                f,
                "the tree to run, {}, is not defined{}; the files define {}",
                quote(id),
                did_you_mean(suggestion.as_deref()),
                ids(defined, *count)
            ),
            XmlProblem::NoTrees => f.write_str("the file defines no <BehaviorTree>"),
            XmlProblem::SubTreeWithoutId { defined, count } => write!(
                f,
                "<SubTree> needs the ID of the tree it runs: <SubTree ID=\"…\"/>; the files \
                 define {}",
                ids(defined, *count)
            ),
            XmlProblem::NoMainTree { defined, count } => write!(
                f,
                "the files define {count} trees ({}) and no main_tree_to_execute, so which to \
                 run is not said; name it in <root main_tree_to_execute=\"…\">, or choose it \
                 when loading (`--tree ID`, XmlOptions::main_tree)",
                ids(defined, *count)
            ),
            XmlProblem::TreeCycle { chain: links } if links.len() == 2 => {
                write!(f, "the tree {} includes itself", quote(&links[1]))
            }
            XmlProblem::TreeCycle { chain: links } => {
                write!(f, "trees include each other in a cycle: {}", chain(links))
            }
            XmlProblem::SubTreePortName { port } => write!(
                f,
                "{}: a SubTree port names a key of the subtree's blackboard, which holds \
                 letters, digits and _, not starting with a digit",
                escape_again(port)
            ),
            XmlProblem::SubTreeKey { port, value } => write!(
                f,
                "{}={}: a key holds letters, digits and _, not starting with a digit",
                escape_again(port),
                quote(value)
            ),
            XmlProblem::UnremappedPort {
                tree,
                model_at,
                port,
            } => {
                let at = model_at
                    .as_deref()
                    .map_or(String::new(), |at| format!(" ({})", escape_again(at)));
                write!(
                    f,
                    "the model of the tree {}{at} declares the port {} without a default, and \
                     this <SubTree> does not remap it; write {}=\"{{key}}\" (or a value) here, or \
                     give the port a default in the model",
                    quote(tree),
                    quote(port),
                    canopy_core::text::bare(port)
                )
            }
            XmlProblem::MissingKind { node, kind } => write!(
                f,
                "{} runs as canopy's {}, which this registry does not have",
                escape_again(node),
                escape_again(kind)
            ),
            XmlProblem::Script {
                attribute,
                code,
                column,
                problem,
            } => write!(
                f,
                "{}: script {}, column {column}: {}",
                escape_again(attribute),
                quote(code),
                escape_again(problem)
            ),
            XmlProblem::KeyType { conflict, remapped } => {
                f.write_str(&conflict.describe(&conflict.first))?;
                for (i, (local, place)) in remapped.iter().enumerate() {
                    let from = if i == 0 { "; remapped from" } else { ", from" };
                    write!(f, "{from} {} at {}", quote(local), escape_again(place))?;
                }
                Ok(())
            }
            XmlProblem::MissingBuiltin { node, kind } => write!(
                f,
                "BehaviorTree.CPP's {} runs as canopy's built-in {}, which this registry does \
                 not hold (a registry from Registry::new() does)",
                escape_again(node),
                escape_again(kind)
            ),
            XmlProblem::Include(problem) => fmt::Display::fmt(problem, f),
            XmlProblem::Limit(limit) => fmt::Display::fmt(limit, f),
            // `fmt` hands this function only the variants above.
            other => write!(f, "{other:?}"),
        }
    }
}

impl fmt::Display for IncludeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncludeProblem::RosPackage => {
                f.write_str("ros_pkg is not supported: give the path relative to this file")
            }
            IncludeProblem::MissingPath => f.write_str("missing the path attribute"),
            IncludeProblem::NoDirectory => f.write_str(
                "includes are not available here (the tree was given as text, with no \
                 directory to resolve them in)",
            ),
            IncludeProblem::LeavesDirectory { path } => write!(
                f,
                "the include {} leaves the directory of the tree file; canopy reads includes \
                 only inside it (BehaviorTree.CPP follows any path: allow that with \
                 XmlOptions::includes_outside, or --includes-outside)",
                quote(path)
            ),
            IncludeProblem::NoBase { reason } => write!(
                f,
                "cannot resolve the tree file's directory: {}",
                escape_again(reason)
            ),
            IncludeProblem::Unreadable { path, reason } => {
                write!(f, "cannot read {}: {}", quote(path), escape_again(reason))
            }
            IncludeProblem::Refused(problem) => fmt::Display::fmt(problem, f),
            IncludeProblem::Cycle { chain: links } => {
                write!(f, "includes form a cycle: {}", chain(links))
            }
        }
    }
}

impl fmt::Display for XmlLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XmlLimit::InputBytes { bytes, limit } => write!(
                f,
                "the input is {bytes} bytes, more than the limit of {limit}"
            ),
            XmlLimit::FileOver4GiB => f.write_str("the file holds 4 GiB or more"),
            XmlLimit::TreeBytes { limit } => {
                write!(f, "the files of this tree hold more than {limit} bytes")
            }
            XmlLimit::Files { limit } => write!(f, "the tree includes more than {limit} files"),
            XmlLimit::IncludeDepth { limit } => {
                write!(f, "includes are nested more than {limit} deep")
            }
            XmlLimit::ElementDepth { limit } => {
                write!(f, "elements are nested more than {limit} deep")
            }
            XmlLimit::Elements => f.write_str("the files hold too many elements"),
            XmlLimit::Ticks {
                msec,
                ticks,
                tick_ms,
                limit,
            } => write!(
                f,
                "{msec} ms is {ticks} ticks of {tick_ms} ms, more than canopy's limit of {limit} \
                 ticks"
            ),
            XmlLimit::Levels { limit } => write!(
                f,
                "nodes are nested more than {limit} levels deep in one <BehaviorTree> (fewer \
                 when deep nodes have a Guard's condition or a list of statuses), more than \
                 canopy's tree loader reads; move a branch into a <BehaviorTree> of its own and \
                 refer to it with <SubTree ID=\"…\"/>"
            ),
            XmlLimit::Depth { limit } => write!(
                f,
                "nodes are nested more than {limit} levels deep (counting the levels of the \
                 trees <SubTree> brings in)"
            ),
            XmlLimit::CopiedNodes { limit } => write!(
                f,
                "the trees make more than {limit} nodes once each <SubTree> with keys of its own \
                 is copied; share keys with _autoremap=\"true\" where the subtrees can"
            ),
            XmlLimit::ParameterBytes { limit } => write!(
                f,
                "the trees hold more than {limit} bytes of parameters and scripts once each \
                 <SubTree> with keys of its own is copied; share keys with _autoremap=\"true\" \
                 where the subtrees can"
            ),
            XmlLimit::UpdatesPerTick { limit } => write!(
                f,
                "one tick of this tree can update more than {limit} nodes (trees brought in by \
                 <SubTree> count at every use); split it into smaller trees, or raise \
                 XmlOptions::max_updates_per_tick"
            ),
            XmlLimit::RemapBytes { limit } => write!(
                f,
                "the defaults of the SubTree models add more than {limit} bytes of remapping to \
                 the <SubTree> elements, more than the files may hold; remap the ports on the \
                 <SubTree> elements"
            ),
        }
    }
}
