//! What a tree file is before it is read: its syntax, and the limits every
//! reader holds it to. At the bottom of the crate, so the registry, the
//! walk and the loader all agree on them without depending on each other.

use std::path::Path;

/// Largest tree file accepted, in bytes (16 MiB).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Most node objects one file may hold.
pub const MAX_NODES: usize = 1_000_000;

/// Brackets a file may nest: the parsers' own limit, about 60 levels of
/// node objects. Deeper trees are built from subtrees.
pub const MAX_NESTING: usize = 128;

/// A tree file's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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
