//! Errors: where in which file, which element, what is wrong.

use std::fmt;

use canopy_data::{LoadError, Location, NodePath, Position, Problem};

use canopy_core::text::quote;

/// Why an XML tree could not be loaded.
///
/// ```
/// use canopy_btcpp::{XmlOptions, load_str};
/// use canopy_data::Registry;
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
/// assert_eq!((err.line, err.column), (4, 7));
/// assert_eq!(err.element.as_deref(), Some("<Script>"));
/// assert!(err.problem.ends_with("unknown key \"y\""), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlError {
    /// The file the error is in (an included file when it is there).
    pub file: String,
    /// 1-based line; 0 when the error concerns the file as a whole.
    pub line: usize,
    /// 1-based column, in characters; 0 with line 0.
    pub column: usize,
    /// The element, as `<Tag ID="…" name="…">`, when one is to blame.
    pub element: Option<String>,
    /// What is wrong, and what to do instead when there is something to do.
    pub problem: String,
    /// The node type, when the error is a type neither the registry nor
    /// BehaviorTree.CPP's standard nodes have, and no known type is close
    /// to it (so not a typo): a type of code not given to this loader.
    pub unknown_type: Option<String>,
}

impl XmlError {
    pub(crate) fn whole(file: &str, problem: impl Into<String>) -> XmlError {
        XmlError {
            file: file.to_string(),
            line: 0,
            column: 0,
            element: None,
            problem: problem.into(),
            unknown_type: None,
        }
    }
}

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let element = self.element.as_deref();
        placed(
            f,
            &self.file,
            self.line,
            self.column,
            element,
            &self.problem,
        )
    }
}

/// `file:line:column: <element>: problem`, as errors and warnings are
/// written (no line and column for the file as a whole).
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

impl std::error::Error for XmlError {}

/// An XML error in the shape of the JSON/RON loader's errors, so a caller
/// reading every format can report them alike: the position becomes a
/// [`Location::Text`] and the element leads the problem.
impl From<XmlError> for LoadError {
    fn from(e: XmlError) -> LoadError {
        let location = if e.line == 0 {
            Location::File
        } else {
            Location::Text(Position {
                line: e.line as u32,
                column: e.column as u32,
            })
        };
        let problem = match e.element {
            Some(element) => format!("{element}: {}", e.problem),
            None => e.problem,
        };
        let problem = match e.unknown_type {
            // Typed, so that callers can say where such types come from.
            Some(type_name) => Problem::ReportedUnknownType { problem, type_name },
            None => Problem::Reported { problem },
        };
        LoadError::new(e.file, location, problem)
    }
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
