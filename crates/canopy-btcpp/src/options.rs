//! [`XmlOptions`]: how XML is read and written.
//!
//! A module of its own, below everything that takes the options (the
//! element reader, the builder, the checker, the exporter), re-exported at
//! the crate root, where users name it. Rejected: defining it in `lib.rs`,
//! which had those modules import the crate root that imports them.

/// How XML is read and written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlOptions {
    /// Milliseconds per tick, to turn `msec` ports into ticks and back
    /// (at least 1; 0 is read as 1). Default 100.
    pub tick_ms: u32,
    /// The tree to run, instead of the file's `main_tree_to_execute`.
    pub main_tree: Option<String>,
    /// Most node updates one tick may make, with loops at their most cycles
    /// and subtrees counted at every use; a tree that could exceed it is
    /// refused. Default 1,000,000.
    pub max_updates_per_tick: u64,
    /// Whether `<include path="…">` may reach files outside the directory
    /// of the file loaded (or the `base` given): absolute paths, `..` past
    /// it, symbolic links out of it. BehaviorTree.CPP follows any path;
    /// canopy does not unless this is set, as a tree file may come from
    /// someone who should not make it read other files. Default `false`.
    pub includes_outside: bool,
    /// Whether a warning ([`XmlWarning`](crate::XmlWarning): what
    /// BehaviorTree.CPP runs but is probably a mistake, such as an action
    /// written `<Condition>`) is an error, at its place. Default `false`:
    /// warnings are returned beside the tree
    /// ([`load_file_with_warnings`](crate::load_file_with_warnings)).
    pub strict: bool,
}

impl Default for XmlOptions {
    fn default() -> Self {
        XmlOptions {
            tick_ms: 100,
            main_tree: None,
            max_updates_per_tick: 1_000_000,
            includes_outside: false,
            strict: false,
        }
    }
}
