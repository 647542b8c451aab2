//! The files of one load: the first, and everything it `<include>`s,
//! depth-first, each read once, within bounds; and a [`Place`], an
//! element of one of them, which errors and warnings are placed at.

use std::fs;
use std::path::{Path, PathBuf};

use crate::dom::{self, Dom, Outline};
use canopy_data::{IncludeProblem, LoadError, Problem, XmlLimit};

/// Largest XML input accepted, in bytes, over all files of one load (the
/// JSON/RON loader's limit for one file).
pub const MAX_XML_BYTES: u64 = canopy_data::MAX_FILE_BYTES;

/// Most files one load reads (the first and its includes).
pub const MAX_FILES: usize = 256;

/// Deepest chain of includes followed.
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// Most elements read over all files of one load.
pub(crate) const MAX_ELEMENTS: usize = canopy_data::MAX_NODES;

/// An element of one of the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) file: usize,
    pub(crate) element: usize,
}

/// One parsed file.
pub(crate) struct File {
    /// As errors show it.
    pub(crate) path: String,
    /// Its elements, with its text.
    pub(crate) dom: Dom,
}

impl File {
    pub(crate) fn line_column(&self, element: usize) -> (usize, usize) {
        self.dom.line_column(element)
    }

    /// What is kept once its elements are read into nodes.
    pub(crate) fn into_kept(self) -> Kept {
        Kept {
            path: self.path,
            outline: self.dom.into_outline(),
        }
    }
}

/// A file once its elements are read into nodes: what messages need.
pub(crate) struct Kept {
    /// As errors show it.
    pub(crate) path: String,
    pub(crate) outline: Outline,
}

/// The files as they were before their elements were read into nodes,
/// read again from the texts kept: the same files, the same elements.
pub(crate) fn reread(kept: Vec<Kept>) -> Result<Vec<File>, LoadError> {
    let mut budget = MAX_ELEMENTS;
    kept.into_iter()
        .map(|k| {
            let dom = dom::parse(k.outline.into_text(), &k.path, &mut budget)?;
            Ok(File { path: k.path, dom })
        })
        .collect()
}

/// A file as messages place an element in it: path, line and column, and
/// the element as `<Tag ID="…" name="…">`.
pub(crate) trait Places {
    fn path(&self) -> &str;
    fn line_column(&self, element: usize) -> (usize, usize);
    fn describe(&self, element: usize) -> String;
}

impl Places for File {
    fn path(&self) -> &str {
        &self.path
    }

    fn line_column(&self, element: usize) -> (usize, usize) {
        self.dom.line_column(element)
    }

    fn describe(&self, element: usize) -> String {
        let e = self.dom.element(element);
        dom::describe(e.tag(), |key| e.attr(key))
    }
}

impl Places for Kept {
    fn path(&self) -> &str {
        &self.path
    }

    fn line_column(&self, element: usize) -> (usize, usize) {
        self.outline.line_column(element)
    }

    fn describe(&self, element: usize) -> String {
        let e = self.outline.element(element);
        dom::describe(e.tag(), |key| e.attr(key))
    }
}

/// What is left of the bounds while files are read.
struct Reading {
    files: Vec<File>,
    /// Canonical paths of the files read, to read each once.
    seen: Vec<PathBuf>,
    /// Canonical paths of the files whose includes are being read.
    chain: Vec<(PathBuf, String)>,
    bytes: u64,
    elements: usize,
    /// The directory includes must stay in (the first file's, with symbolic
    /// links resolved), found at the first include.
    confine: Option<PathBuf>,
    /// Whether includes may go anywhere.
    outside: bool,
    /// The first file's directory as given: includes of included files
    /// are spelled relative to directories below it.
    first_base: PathBuf,
}

/// Bytes as the text of an XML file: UTF-8, no NUL, BOM dropped.
pub(crate) fn text_of(bytes: &[u8], file: &str) -> Result<String, LoadError> {
    // The same typed problems, and words, as the registry's JSON and RON.
    let refused = |problem| crate::error::whole_typed(file, problem);
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(refused(Problem::Utf16));
    }
    if bytes.contains(&0) {
        return Err(refused(Problem::NulBytes));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        refused(Problem::InvalidUtf8 {
            at: e.valid_up_to(),
        })
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text).to_string())
}

/// Read every file of a load, starting from the text of the first.
/// `base` is the directory includes are relative to (`None`: includes are
/// refused); `canonical` the first file's own canonical path, if it is one;
/// `outside`: includes may leave `base`.
pub(crate) fn gather(
    first: String,
    path: &str,
    base: Option<&Path>,
    canonical: Option<PathBuf>,
    outside: bool,
) -> Result<Vec<File>, LoadError> {
    let mut reading = Reading {
        files: Vec::new(),
        seen: Vec::new(),
        chain: Vec::new(),
        bytes: 0,
        elements: MAX_ELEMENTS,
        confine: None,
        outside,
        first_base: base.map(Path::to_path_buf).unwrap_or_default(),
    };
    reading.add(first, path.to_string(), base, canonical)?;
    Ok(reading.files)
}

impl Reading {
    fn add(
        &mut self,
        text: String,
        path: String,
        base: Option<&Path>,
        canonical: Option<PathBuf>,
    ) -> Result<(), LoadError> {
        self.bytes += text.len() as u64;
        if self.bytes > MAX_XML_BYTES {
            return Err(crate::error::whole(
                &path,
                XmlLimit::TreeBytes {
                    limit: MAX_XML_BYTES,
                },
            ));
        }
        if self.files.len() == MAX_FILES {
            return Err(crate::error::whole(
                &path,
                XmlLimit::Files {
                    limit: MAX_FILES as u64,
                },
            ));
        }
        let dom = dom::parse(text, &path, &mut self.elements)?;
        let index = self.files.len();
        self.files.push(File {
            path: path.clone(),
            dom,
        });
        let chained = canonical.is_some();
        if let Some(canonical) = canonical {
            self.seen.push(canonical.clone());
            self.chain.push((canonical, path));
        }
        let includes: Vec<usize> = {
            let dom = &self.files[index].dom;
            dom.root()
                .children()
                .iter()
                .copied()
                .filter(|&e| dom.element(e).tag() == "include")
                .collect()
        };
        for element in includes {
            self.include(index, element, base)?;
        }
        if chained {
            self.chain.pop();
        }
        Ok(())
    }

    fn fail(
        &self,
        file: usize,
        element: usize,
        problem: impl Into<crate::error::XmlIssue>,
    ) -> LoadError {
        let (line, column) = self.files[file].line_column(element);
        crate::error::xml_error(
            &self.files[file].path,
            Some((line, column)),
            Some("<include>".to_string()),
            problem,
        )
    }

    fn include(
        &mut self,
        file: usize,
        element: usize,
        base: Option<&Path>,
    ) -> Result<(), LoadError> {
        let e = self.files[file].dom.element(element);
        if e.attr("ros_pkg").is_some() {
            return Err(self.fail(file, element, IncludeProblem::RosPackage));
        }
        let Some(relative) = e.attr("path").map(str::to_string) else {
            return Err(self.fail(file, element, IncludeProblem::MissingPath));
        };
        let Some(base) = base else {
            return Err(self.fail(file, element, IncludeProblem::NoDirectory));
        };
        if self.chain.len() >= MAX_INCLUDE_DEPTH {
            return Err(self.fail(
                file,
                element,
                XmlLimit::IncludeDepth {
                    limit: MAX_INCLUDE_DEPTH as u64,
                },
            ));
        }
        let target = base.join(&relative);
        let shown = target.display().to_string();
        let leaves = || IncludeProblem::LeavesDirectory {
            path: relative.clone(),
        };
        // Refused by its spelling first, so that the answer never depends
        // on what is on disk outside.
        let spelled = match base.strip_prefix(&self.first_base) {
            Ok(below) => below.join(&relative),
            Err(_) => PathBuf::from(&relative),
        };
        if !self.outside && !stays_inside(&spelled) {
            return Err(self.fail(file, element, leaves()));
        }
        if !self.outside && self.confine.is_none() {
            let dir = if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base
            };
            let root = fs::canonicalize(dir).map_err(|e| {
                self.fail(
                    file,
                    element,
                    IncludeProblem::NoBase {
                        reason: e.to_string(),
                    },
                )
            })?;
            self.confine = Some(root);
        }
        let cannot = |e: std::io::Error| IncludeProblem::Unreadable {
            path: shown.clone(),
            reason: e.to_string(),
        };
        let canonical =
            fs::canonicalize(&target).map_err(|e| self.fail(file, element, cannot(e)))?;
        if let Some(root) = &self.confine
            && !canonical.starts_with(root)
        {
            // A symbolic link inside that points out, or `..` from an
            // included file's own directory past the first one's.
            return Err(self.fail(file, element, leaves()));
        }
        if let Some(at) = self.chain.iter().position(|(c, _)| *c == canonical) {
            let mut chain: Vec<String> = self.chain[at..].iter().map(|(_, p)| p.clone()).collect();
            chain.push(self.chain[at].1.clone());
            return Err(self.fail(file, element, IncludeProblem::Cycle { chain }));
        }
        if self.seen.contains(&canonical) {
            return Ok(());
        }
        // Bounded, and only regular files: a FIFO would block, /dev/zero
        // never end.
        let bytes = canopy_data::read_file(&canonical)
            .map_err(|p| self.fail(file, element, IncludeProblem::Refused(Box::new(p))))?;
        if self.bytes + bytes.len() as u64 > MAX_XML_BYTES {
            return Err(self.fail(
                file,
                element,
                XmlLimit::TreeBytes {
                    limit: MAX_XML_BYTES,
                },
            ));
        }
        let text = text_of(&bytes, &shown)?;
        let next_base = target.parent().map(Path::to_path_buf).unwrap_or_default();
        self.add(text, shown, Some(&next_base), Some(canonical))
    }
}

/// Whether an include's path, by its spelling alone, stays below the
/// directory it is relative to: not absolute, no `..` climbing above it.
/// (Symbolic links, and `..` from a subdirectory's include, are checked on
/// the resolved path.)
fn stays_inside(relative: &Path) -> bool {
    use std::path::Component;
    let mut depth: usize = 0;
    for part in relative.components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth == 0 => return false,
            Component::ParentDir => depth -= 1,
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}
