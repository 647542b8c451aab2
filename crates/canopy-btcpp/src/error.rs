//! Errors: where in which file, which element, what is wrong.
//!
//! A load error is canopy-data's [`LoadError`], as for JSON and RON, so a
//! game matches on one type whatever the format: the element and its
//! position are a [`Location::Element`] (an optional position, not a line
//! 0 meaning "none"). A separate XML error type with a conversion was the
//! rejected way: two types to match on, and a conversion that folded the
//! element into the message.
//!
//! The problem is typed as JSON's and RON's are: a variant [`Problem`]
//! shares with them where the problem is the same (a registered type's
//! unknown or missing parameter, a script that does not compile, a
//! blackboard key of two types), else [`Problem::Xml`] — an unknown node
//! type or port, a missing port, a bad port value, an undefined tree, a
//! `<SubTree>` remapping, an `<include>`, malformed XML, a bound exceeded.
//! A few rarer refusals (the document's shape at the top, SKIPPED where
//! canopy has no status for it, a node-model file's contents) stay
//! [`Problem::Reported`], in words.

use std::fmt;

use canopy_data::{
    IncludeProblem, LoadError, Location, NodePath, Position, Problem, XmlLimit, XmlProblem,
};

use canopy_core::text::quote;

/// An error in an XML file: at `at` (line and column) when known, at
/// `element` (as `<Tag ID="…" name="…">`) when one is to blame. XML
/// errors are [`LoadError`]s, so a game matches on one type whatever the
/// format: the place is a [`Location::Element`] (or [`Location::Text`],
/// [`Location::File`]) and the problem typed (see the module's docs).
///
/// ```
/// use canopy_btcpp::{XmlOptions, load_str};
/// use canopy_data::{Location, Position, Registry};
///
/// let xml = r#"<root BTCPP_format="4">
///   <BehaviorTree ID="Main">
///     <Sequence>
///       <Script code="x := y + 1"/>
///     </Sequence>
///   </BehaviorTree>
/// </root>"#;
/// let err = load_str(&Registry::<(), ()>::new(), xml, "demo.xml", None, &XmlOptions::default())
///     .unwrap_err();
/// assert!(matches!(err.location(), Location::Element { element, at: Some(Position { line: 4, column: 7 }) }
///     if element == "<Script>"));
/// assert!(err.to_string().ends_with("unknown key \"y\""), "{err}");
/// ```
pub(crate) fn xml_error(
    file: &str,
    at: Option<(usize, usize)>,
    element: Option<String>,
    problem: impl Into<XmlIssue>,
) -> LoadError {
    let at = at.map(|(line, column)| Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    });
    let location = match (element, at) {
        (Some(element), at) => Location::Element { element, at },
        (None, Some(at)) => Location::Text(at),
        (None, None) => Location::File,
    };
    LoadError::new(file, location, problem.into().0)
}

/// An error about an XML file as a whole.
pub(crate) fn whole(file: &str, problem: impl Into<XmlIssue>) -> LoadError {
    xml_error(file, None, None, problem)
}

/// A problem as the XML reader gives it: typed ([`XmlProblem`], or a
/// [`Problem`] shared with JSON and RON), or, for the few it has no
/// variant for, in words ([`Problem::Reported`]).
#[derive(Debug)]
pub(crate) struct XmlIssue(Problem);

/// The problem's words, as the error shows them after its place.
impl fmt::Display for XmlIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<XmlProblem> for XmlIssue {
    fn from(problem: XmlProblem) -> XmlIssue {
        XmlIssue(Problem::Xml(problem))
    }
}

impl From<XmlLimit> for XmlIssue {
    fn from(limit: XmlLimit) -> XmlIssue {
        XmlIssue(Problem::Xml(XmlProblem::Limit(limit)))
    }
}

impl From<IncludeProblem> for XmlIssue {
    fn from(problem: IncludeProblem) -> XmlIssue {
        XmlIssue(Problem::Xml(XmlProblem::Include(problem)))
    }
}

impl From<Problem> for XmlIssue {
    fn from(problem: Problem) -> XmlIssue {
        XmlIssue(problem)
    }
}

impl From<String> for XmlIssue {
    fn from(problem: String) -> XmlIssue {
        XmlIssue(Problem::Reported { problem })
    }
}

impl From<&str> for XmlIssue {
    fn from(problem: &str) -> XmlIssue {
        XmlIssue(Problem::Reported {
            problem: problem.to_string(),
        })
    }
}

/// An error about an XML file as a whole that the registry's reader found
/// (unreadable, too large, not a regular file), typed as it gave it.
pub(crate) fn whole_typed(file: &str, problem: Problem) -> LoadError {
    LoadError::new(file, Location::File, problem)
}

/// `file:line:column: <element>: problem`, as warnings are written (no
/// line and column for the file as a whole).
pub(crate) fn placed(
    f: &mut fmt::Formatter<'_>,
    file: &str,
    line: usize,
    column: usize,
    element: Option<&str>,
    problem: &str,
) -> fmt::Result {
    write!(f, "{file}:")?;
    if line > 0 {
        write!(f, "{line}:{column}:")?;
    }
    if let Some(element) = element {
        write!(f, " {element}:")?;
    }
    write!(f, " {problem}")
}

/// Why a tree document could not be written as BehaviorTree.CPP XML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportError {
    /// The document is not a valid tree for the registry.
    Load(LoadError),
    /// The tree is valid, but a node cannot be written as XML that
    /// BehaviorTree.CPP and Groot2 read back the same.
    Node {
        /// The document's name.
        file: String,
        /// The node's path in the document (`tree/children[1]`,
        /// `subtrees/Fight`).
        path: NodePath,
        /// The node's name (its type's when it has none of its own).
        node: String,
        /// What cannot be written, why, and what to do.
        problem: String,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Load(e) => e.fmt(f),
            ExportError::Node {
                file,
                path,
                node,
                problem,
            } if node.is_empty() => write!(f, "{file}: {path}: {problem}"),
            ExportError::Node {
                file,
                path,
                node,
                problem,
            } => write!(f, "{file}: {path} (name {}): {problem}", quote(node)),
        }
    }
}

impl std::error::Error for ExportError {}

impl From<LoadError> for ExportError {
    fn from(e: LoadError) -> Self {
        ExportError::Load(e)
    }
}

/// An export error in the shape of the loader's errors, for callers that
/// report every failure alike.
impl From<ExportError> for LoadError {
    fn from(e: ExportError) -> LoadError {
        match e {
            ExportError::Load(e) => e,
            ExportError::Node {
                file,
                path,
                node,
                problem,
            } => LoadError::new(
                file,
                Location::Node {
                    path,
                    name: node,
                    at: None,
                },
                Problem::Reported { problem },
            ),
        }
    }
}
