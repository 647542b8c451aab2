//! Warnings: what BehaviorTree.CPP loads and canopy loads as it does, but
//! what is probably not what the file's author meant — an action written
//! as `<Condition>`, a node model that disagrees with the code.
//!
//! The loader collects them, typed and placed like errors, and returns
//! them beside the tree ([`crate::load_file_with_warnings`]); it never
//! prints them (a library does not write to the terminal), and the plain
//! loading functions drop them. With [`XmlOptions::strict`](crate::XmlOptions::strict)
//! the first one is an error instead, at its place. Rejected: refusing
//! such files outright, as canopy did — BehaviorTree.CPP runs them, and a
//! file that runs there must run here; and a callback the loader calls —
//! a list is simpler to test, to print and to turn into errors.

use std::cell::RefCell;
use std::fmt;

use crate::sources::{Place, Places};
use canopy_data::LoadError;

/// What a warning is about, for callers that treat some kinds apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// An element in the explicit form names a category (`<Condition
    /// ID="…">`) other than its type's. BehaviorTree.CPP does not check the
    /// tag, and neither does canopy: the type runs as registered.
    Category,
    /// A `<TreeNodesModel>` declares a registered type otherwise than the
    /// registry holds it: its category, a port it lacks, a port's direction
    /// or type; or declares a type nothing registers. BehaviorTree.CPP
    /// reads a node model only for subtrees, so it loads the file all the
    /// same, and so does canopy, with the registry's types.
    Model,
    /// A `<SubTree>` remaps a port its tree's model does not declare, or
    /// a model describes a tree the files do not define. BehaviorTree.CPP
    /// remaps it all the same, and so does canopy.
    SubTree,
    /// A script does what BehaviorTree.CPP throws on when it runs (`-'a'`,
    /// a string that is no number compared with a number): canopy fails
    /// the node there, and says so when the tree loads.
    Script,
}

/// Something a file does that BehaviorTree.CPP accepts and canopy runs as
/// it does, with where it is and what to change.
///
/// ```
/// use canopy_btcpp::{WarningKind, XmlOptions, load_str_with_warnings};
/// use canopy_data::{Location, Position, Registry};
///
/// let xml = r#"<root BTCPP_format="4">
///   <BehaviorTree ID="Main">
///     <Condition ID="AlwaysSuccess"/>
///   </BehaviorTree>
/// </root>"#;
/// let registry = Registry::<(), ()>::new();
/// let loaded = load_str_with_warnings(&registry, xml, "main.xml", None, &XmlOptions::default())
///     .unwrap();
/// let warning = &loaded.warnings[0];
/// assert_eq!((warning.kind, warning.line, warning.column), (WarningKind::Category, 3, 5));
/// assert_eq!(warning.to_string(), "main.xml:3:5: <Condition ID=\"AlwaysSuccess\">: \
///     \"AlwaysSuccess\" is an action, not a condition; BehaviorTree.CPP runs it as the action \
///     it is, and so does canopy: write <Action ID=\"AlwaysSuccess\"/> or <AlwaysSuccess/>");
///
/// // Strict, the same file is refused at the same place.
/// let strict = XmlOptions { strict: true, ..XmlOptions::default() };
/// let err = load_str_with_warnings(&registry, xml, "main.xml", None, &strict).unwrap_err();
/// assert!(matches!(err.location(), Location::Element { at: Some(Position { line: 3, column: 5 }), .. }));
/// assert!(err.to_string().ends_with("(a warning: strict loading refuses it)"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlWarning {
    /// What it is about.
    pub kind: WarningKind,
    /// The file it is in (an included file when it is there).
    pub file: String,
    /// 1-based line; 0 when it concerns the file as a whole.
    pub line: usize,
    /// 1-based column, in characters; 0 with line 0.
    pub column: usize,
    /// The element, as `<Tag ID="…" name="…">`, when one is to blame.
    pub element: Option<String>,
    /// What is odd, and what to write instead.
    pub problem: String,
}

impl fmt::Display for XmlWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let element = self.element.as_deref();
        crate::error::placed(
            f,
            &self.file,
            self.line,
            self.column,
            element,
            &self.problem,
        )
    }
}

/// Most warnings one load keeps; the rest are counted
/// ([`Loaded::more_warnings`](crate::Loaded::more_warnings)). Placing one
/// reads its file up to it, so a file of a million mistakes costs a
/// hundred placings, not a million.
pub const MAX_WARNINGS: usize = 100;

/// The warnings of one load, or the first of them as an error when
/// loading is strict.
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    strict: bool,
    found: RefCell<Vec<XmlWarning>>,
    /// Warnings past [`MAX_WARNINGS`], counted only.
    more: std::cell::Cell<usize>,
}

impl Warnings {
    pub(crate) fn new(strict: bool) -> Warnings {
        Warnings {
            strict,
            found: RefCell::new(Vec::new()),
            more: std::cell::Cell::new(0),
        }
    }

    /// Note a warning about the element at `place`, in words made only if
    /// it is kept; strict, an error there.
    pub(crate) fn at(
        &self,
        files: &[impl Places],
        place: Place,
        kind: WarningKind,
        problem: impl FnOnce() -> String,
    ) -> Result<(), LoadError> {
        if !self.strict && self.found.borrow().len() >= MAX_WARNINGS {
            self.more.set(self.more.get().saturating_add(1));
            return Ok(());
        }
        let file = &files[place.file];
        let (line, column) = file.line_column(place.element);
        self.push(XmlWarning {
            kind,
            file: file.path().to_string(),
            line,
            column,
            element: Some(file.describe(place.element)),
            problem: problem(),
        })
    }

    /// Note a warning; strict, the error it becomes.
    pub(crate) fn push(&self, warning: XmlWarning) -> Result<(), LoadError> {
        if self.strict {
            let at = (warning.line > 0).then_some((warning.line, warning.column));
            return Err(crate::error::xml_error(
                &warning.file,
                at,
                warning.element,
                canopy_data::XmlProblem::StrictWarning {
                    problem: warning.problem,
                },
            ));
        }
        let mut found = self.found.borrow_mut();
        if found.len() >= MAX_WARNINGS {
            self.more.set(self.more.get().saturating_add(1));
        } else {
            found.push(warning);
        }
        Ok(())
    }

    /// The warnings kept, and how many more there were.
    pub(crate) fn take(&self) -> (Vec<XmlWarning>, usize) {
        (
            std::mem::take(&mut *self.found.borrow_mut()),
            self.more.take(),
        )
    }
}
