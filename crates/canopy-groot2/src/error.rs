//! What can go wrong: a tree Groot2's protocol cannot carry, a file that
//! cannot be read, a socket that cannot be bound.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// Why a tree cannot be served or logged.
#[derive(Debug)]
pub enum Groot2Error {
    /// The XML could not be read as BehaviorTree.CPP's, or makes a tree
    /// Groot2's protocol cannot carry.
    Xml(String),
    /// A file or a socket.
    Io(std::io::Error),
}

impl Groot2Error {
    pub(crate) fn xml(problem: String) -> Groot2Error {
        Groot2Error::Xml(problem)
    }
}

impl fmt::Display for Groot2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Groot2Error::Xml(problem) => f.write_str(problem),
            Groot2Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Groot2Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Groot2Error::Io(e) => Some(e),
            Groot2Error::Xml(_) => None,
        }
    }
}

impl From<std::io::Error> for Groot2Error {
    fn from(e: std::io::Error) -> Self {
        Groot2Error::Io(e)
    }
}

/// The text of the regular file `path`, if it holds at most `limit` bytes
/// of UTF-8.
pub(crate) fn read_bounded(path: &Path, limit: usize) -> Result<String, Groot2Error> {
    let shown = || canopy_core::text::quote(&path.display().to_string());
    let file = std::fs::File::open(path)
        .map_err(|e| Groot2Error::xml(format!("{}: cannot be read: {e}", shown())))?;
    let meta = file
        .metadata()
        .map_err(|e| Groot2Error::xml(format!("{}: cannot be read: {e}", shown())))?;
    if !meta.is_file() {
        return Err(Groot2Error::xml(format!("{}: not a regular file", shown())));
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Groot2Error::xml(format!("{}: cannot be read: {e}", shown())))?;
    if bytes.len() > limit {
        return Err(Groot2Error::xml(format!(
            "{}: the tree's files hold more than {limit} bytes",
            shown()
        )));
    }
    String::from_utf8(bytes).map_err(|_| Groot2Error::xml(format!("{}: not UTF-8", shown())))
}
