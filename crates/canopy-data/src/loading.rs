//! The one way into the loader: a [`TreeSource`] (where the tree comes
//! from), given to [`Registry::loading`], with options, then
//! [`load`](Loading::load), [`check`](Loading::check) or
//! [`errors`](Loading::errors).
//!
//! Why one entry. Every load takes the same three decisions — where the
//! text comes from, what the loader may find besides the registry's
//! types, and whether to stop at the first error — and a method for each
//! combination made fourteen entries that differed in one argument
//! (`load_str`, `load_bytes_with`, `check_bytes`, …), each documented
//! apart and each a place where one combination could drift from the
//! others. A builder names each decision once, as `std::fs::OpenOptions`
//! and `std::process::Command` do. Rejected: a `LoadOptions` struct passed
//! to each of the old methods, which keeps the fourteen.

use std::io::Read;
use std::path::Path;

use canopy_core::Tree;

use crate::document::{Source, Value};
use crate::error::LoadError;
use crate::format::Format;
use crate::load::Lowering;
use crate::registry::{NodeType, Registry};

/// Where a tree comes from: a file, text, bytes, a reader, a JSON value,
/// a document already parsed or made, or a document another syntax was
/// lowered to. Every source is checked alike: the same limits, the same
/// errors.
pub enum TreeSource<'a> {
    /// A file; its extension (`.json`, `.ron`) picks the format. Only
    /// regular files are read, at most
    /// [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES) + 1 bytes of them.
    File(&'a Path),
    /// Text; `name` names it in errors.
    Text {
        /// The text.
        text: &'a str,
        /// Its syntax.
        format: Format,
        /// What errors call it.
        name: &'a str,
    },
    /// Raw bytes, which must be UTF-8 text (a leading byte-order mark is
    /// skipped).
    Bytes {
        /// The bytes.
        bytes: &'a [u8],
        /// Their syntax.
        format: Format,
        /// What errors call them.
        name: &'a str,
    },
    /// A reader (a socket, an archive entry, standard input), read to
    /// its end or [`MAX_FILE_BYTES`](crate::MAX_FILE_BYTES) + 1 bytes.
    Reader {
        /// The reader.
        reader: Box<dyn Read + 'a>,
        /// Its syntax.
        format: Format,
        /// What errors call it.
        name: &'a str,
    },
    /// A JSON value (brackets nested at most as deep as in a JSON file).
    Json {
        /// The value.
        value: &'a serde_json::Value,
        /// What errors call it.
        name: &'a str,
    },
    /// A document in memory: one a program made, or parsed with
    /// [`parse_document`](crate::parse_document). Errors about a node
    /// whose strings borrow from one of `sources` name that source, with
    /// the node's line and column.
    ///
    /// ```
    /// use canopy_data::document::{Key, Source, Value};
    /// use canopy_data::{Format, Registry, TreeSource};
    ///
    /// let text = "Wiat";
    /// let node = Value::Object(vec![(Key::Owned("type".into()), Value::Str(text))].into());
    /// let document = Value::Object(vec![(Key::Owned("tree".into()), node)].into());
    /// let sources = [Source { name: "made.txt", text }];
    /// let made = TreeSource::Document { document: &document, sources: &sources, format: Format::Json, name: "made" };
    /// let err = Registry::<(), ()>::new().loading(made).load().unwrap_err();
    /// assert_eq!(err.to_string(),
    ///     "made.txt:1:1: tree (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)");
    /// ```
    Document {
        /// The document.
        document: &'a Value<'a>,
        /// The texts its strings borrow from.
        sources: &'a [Source<'a>],
        /// The syntax it was read from.
        format: Format,
        /// What errors call it.
        name: &'a str,
    },
    /// A document another syntax was lowered to (BehaviorTree.CPP XML):
    /// the loader that lowered it takes part in the load three ways.
    ///
    /// It makes the document on demand ([`Lowering::document`]) and may
    /// let go of what it made it from once the nodes are drafted
    /// ([`Lowering::drafted`]): building the tree is the costly part, and
    /// it needs the drafts alone, so neither the document nor the
    /// lowering's own model of its file is held beside the tree being
    /// built. A build error, rare, asks for the document again to say
    /// which node it is about.
    ///
    /// It shows places its own way: a message naming the place of a
    /// blackboard key's first use (a key used as two types, a script
    /// reading it) names it through [`Lowering::place`], so the message
    /// never needs rewriting.
    ///
    /// It may have node kinds of its own, which no registered type builds
    /// (BehaviorTree.CPP's `Repeat` loops differently from canopy's):
    /// [`own_types`](Loading::own_types) are found before the registry's types, and a node of
    /// one is checked as any node is (its fields, children and parameters)
    /// and built in the same pass, showing itself as its kind does. Give
    /// them names no registry can hold (with a character other than a
    /// letter, a digit or `_`), so that they never hide a registered type.
    ///
    /// ```
    /// use canopy_core::{Arity, NodeKind, nodes::Repeat, params::Param};
    /// use canopy_data::document::{Key, Value};
    /// use canopy_data::{Format, Lowering, NodePath, NodeType, Registry, TreeSource};
    ///
    /// /// A document made by a function, its places named by depth.
    /// struct Made(fn() -> Value<'static>);
    /// impl Lowering for Made {
    ///     fn document(&self) -> Option<Value<'_>> {
    ///         Some((self.0)())
    ///     }
    ///     fn place(&self, path: &NodePath) -> Option<String> {
    ///         Some(format!("node {}", path.steps.len()))
    ///     }
    /// }
    ///
    /// fn field(k: &'static str, v: Value<'static>) -> (Key<'static>, Value<'static>) {
    ///     (Key::Str(k), v)
    /// }
    /// fn node(t: &'static str, port: &'static str, v: &'static str) -> Value<'static> {
    ///     Value::Object(vec![field("type", Value::Str(t)), field(port, Value::Str(v))].into())
    /// }
    /// fn two_scripts() -> Value<'static> {
    ///     let tree = Value::Object(vec![
    ///         field("type", Value::Str("Sequence")),
    ///         field("children", Value::List(vec![
    ///             node("Eval", "code", "count := 1"),
    ///             node("Eval", "code", "cuont += 1"),
    ///         ].into())),
    ///     ].into());
    ///     Value::Object(vec![field("tree", tree)].into())
    /// }
    /// let registry = Registry::<(), ()>::new();
    /// let mut made = Made(two_scripts);
    /// let lowered = TreeSource::Lowered { lowering: &mut made, format: Format::Json, name: "made" };
    /// let err = registry.loading(lowered).load().unwrap_err();
    /// assert_eq!(err.to_string(), "made: tree/children[1] (name \"Eval\"): parameter \"code\": \
    ///     script \"cuont += 1\", column 1: unknown key \"cuont\" (did you mean \"count\"?)");
    ///
    /// // A kind of the lowering's own, under a name no registry holds.
    /// let twice = NodeType::new("made:Twice", "its child two times", Arity::Decorator,
    ///     vec![Param::count("times", "how many")],
    ///     |p| Ok(NodeKind::from(Repeat { times: p.u32("times")? })));
    /// fn twice_over_success() -> Value<'static> {
    ///     let leaf = Value::Object(vec![field("type", Value::Str("AlwaysSuccess"))].into());
    ///     let tree = Value::Object(vec![
    ///         field("type", Value::Str("made:Twice")),
    ///         field("name", Value::Str("twice")),
    ///         field("times", Value::Int(2)),
    ///         field("children", Value::List(vec![leaf].into())),
    ///     ].into());
    ///     Value::Object(vec![field("tree", tree)].into())
    /// }
    /// let own = [twice];
    /// let mut made = Made(twice_over_success);
    /// let lowered = TreeSource::Lowered { lowering: &mut made, format: Format::Json, name: "made" };
    /// let tree = registry.loading(lowered).own_types(&own).load().unwrap();
    /// assert_eq!(tree.display().to_string(), "twice  Repeat(times=2)\n└── AlwaysSuccess\n");
    /// ```
    Lowered {
        /// The lowering.
        lowering: &'a mut dyn Lowering,
        /// The syntax the document is written as.
        format: Format,
        /// What errors call it.
        name: &'a str,
    },
}

impl std::fmt::Debug for TreeSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeSource::File(path) => f.debug_tuple("File").field(path).finish(),
            TreeSource::Text { name, format, .. } => write!(f, "Text({name:?}, {format:?})"),
            TreeSource::Bytes { name, format, .. } => write!(f, "Bytes({name:?}, {format:?})"),
            TreeSource::Reader { name, format, .. } => write!(f, "Reader({name:?}, {format:?})"),
            TreeSource::Json { name, .. } => write!(f, "Json({name:?})"),
            TreeSource::Document { name, format, .. } => {
                write!(f, "Document({name:?}, {format:?})")
            }
            TreeSource::Lowered { name, format, .. } => write!(f, "Lowered({name:?}, {format:?})"),
        }
    }
}

impl<'a> TreeSource<'a> {
    /// A file; its extension picks the format.
    ///
    /// ```
    /// # use canopy_data::{Registry, TreeSource};
    /// let path = std::env::temp_dir().join(format!("canopy-doc-{}.json", std::process::id()));
    /// std::fs::write(&path, r#"{"tree": {"type": "Wait", "ticks": 3}}"#).unwrap();
    /// let tree = Registry::<(), ()>::new().loading(TreeSource::file(&path)).load().unwrap();
    /// assert_eq!(tree.display().to_string(), "Wait(ticks=3)\n");
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn file(path: &'a (impl AsRef<Path> + ?Sized)) -> Self {
        TreeSource::File(path.as_ref())
    }

    /// Text in `format`, called `name` in errors.
    pub fn text(text: &'a str, format: Format, name: &'a str) -> Self {
        TreeSource::Text { text, format, name }
    }

    /// Bytes in `format`, called `name` in errors: UTF-8 text, a leading
    /// byte-order mark skipped.
    ///
    /// ```
    /// # use canopy_data::{Format, Registry, TreeSource};
    /// let registry = Registry::<(), ()>::new();
    /// let bytes = b"\xef\xbb\xbf{\"tree\": {\"type\": \"AlwaysSuccess\"}}";
    /// let tree = registry.loading(TreeSource::bytes(bytes, Format::Json, "bom.json")).load();
    /// assert_eq!(tree.unwrap().len(), 1);
    /// let err = registry.loading(TreeSource::bytes(b"\xff\xfe{", Format::Json, "u16.json")).load();
    /// assert_eq!(err.unwrap_err().to_string(),
    ///     "u16.json: not UTF-8 text: the file starts with a UTF-16 byte order mark; save it as UTF-8");
    /// ```
    pub fn bytes(bytes: &'a [u8], format: Format, name: &'a str) -> Self {
        TreeSource::Bytes {
            bytes,
            format,
            name,
        }
    }

    /// A reader in `format`, called `name` in errors.
    ///
    /// ```
    /// # use canopy_data::{Format, Registry, TreeSource};
    /// let text = br#"{"tree": {"type": "Wait", "ticks": 3}}"#;
    /// let source = TreeSource::reader(&text[..], Format::Json, "stdin");
    /// assert_eq!(Registry::<(), ()>::new().loading(source).load().unwrap().len(), 1);
    /// ```
    pub fn reader(reader: impl Read + 'a, format: Format, name: &'a str) -> Self {
        TreeSource::Reader {
            reader: Box::new(reader),
            format,
            name,
        }
    }

    /// A JSON value, called `name` in errors.
    ///
    /// ```
    /// use canopy_data::{Registry, TreeSource};
    /// use serde_json::json;
    ///
    /// let registry = Registry::<(), ()>::new();
    /// let document = json!({"tree": {"type": "Repeat", "times": 2,
    ///                                "children": [{"type": "AlwaysSuccess"}]}});
    /// assert_eq!(registry.loading(TreeSource::json(&document, "generated")).load().unwrap().len(), 2);
    /// let wrong = json!({"tree": {"type": "Wait", "ticks": -1}});
    /// assert_eq!(registry.loading(TreeSource::json(&wrong, "generated")).load().unwrap_err().to_string(),
    ///     "generated: tree (name \"Wait\"): parameter \"ticks\" must be at least 0, got -1");
    /// ```
    pub fn json(value: &'a serde_json::Value, name: &'a str) -> Self {
        TreeSource::Json { value, name }
    }
}

/// A load being set up: a registry, a source, and options; ended by
/// [`load`](Loading::load), [`check`](Loading::check) or
/// [`errors`](Loading::errors). Made by [`Registry::loading`].
#[must_use = "a loading does nothing until `load`, `check` or `errors` is called"]
pub struct Loading<'r, 'a, A, W> {
    registry: &'r Registry<A, W>,
    source: TreeSource<'a>,
    own_types: &'a [NodeType<A, W>],
}

impl<A, W> std::fmt::Debug for Loading<'_, '_, A, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loading")
            .field("source", &self.source)
            .field("own_types", &self.own_types.len())
            .finish_non_exhaustive()
    }
}

impl<A: 'static, W: 'static> Registry<A, W> {
    /// Load, check or list the errors of a tree from `source`: the one
    /// entry to the loader.
    ///
    /// ```
    /// use canopy_data::{Format, Registry, TreeSource};
    ///
    /// let registry = Registry::<(), ()>::new();
    /// let tree = registry
    ///     .loading(TreeSource::text(r#"{"tree": {"type": "Wait", "ticks": 3}}"#, Format::Json, "w.json"))
    ///     .load()
    ///     .unwrap();
    /// assert_eq!(tree.display().to_string(), "Wait(ticks=3)\n");
    ///
    /// // Every error, as `canopy check` lists them.
    /// let errors = registry.loading(TreeSource::text(r#"{"tree": {"type": "Sequence", "children": [
    ///     {"type": "Wiat", "ticks": 2},
    ///     {"type": "Repeat", "times": 0, "children": [{"type": "AlwaysSuccess"}]}
    /// ]}}"#, Format::Json, "two.json")).errors();
    /// let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    /// assert_eq!(shown, [
    ///     "two.json:2:7: tree/children[0] (name \"Wiat\"): unknown node type \"Wiat\" (did you mean \"Wait\"?)",
    ///     "two.json:3:7: tree/children[1] (name \"Repeat\"): parameter \"times\" must be at least 1, got 0",
    /// ]);
    /// ```
    pub fn loading<'a>(&self, source: TreeSource<'a>) -> Loading<'_, 'a, A, W> {
        Loading {
            registry: self,
            source,
            own_types: &[],
        }
    }
}

impl<'a, A: 'static, W: 'static> Loading<'_, 'a, A, W> {
    /// Node types of the caller's own, found before the registry's: a
    /// file written from another syntax may name them (canopy-btcpp's
    /// BehaviorTree.CPP nodes, `btcpp:Repeat`). Give them names no
    /// registry can hold (with a character other than a letter, a digit
    /// or `_`), so that they never hide a registered type; a node of one
    /// shows itself as its kind does.
    pub fn own_types(mut self, types: &'a [NodeType<A, W>]) -> Self {
        self.own_types = types;
        self
    }

    /// The tree, or the first error.
    pub fn load(self) -> Result<Tree<A, W>, LoadError> {
        let Loading {
            registry,
            source,
            own_types,
        } = self;
        match source {
            TreeSource::File(path) => registry.load_file_with(path, own_types),
            TreeSource::Text { text, format, name } => {
                registry.load_bytes_with(text.as_bytes(), format, name, own_types)
            }
            TreeSource::Bytes {
                bytes,
                format,
                name,
            } => registry.load_bytes_with(bytes, format, name, own_types),
            TreeSource::Reader {
                reader,
                format,
                name,
            } => registry.load_reader_with(reader, format, name, own_types),
            TreeSource::Json { value, name } => registry.load_json_with(value, name, own_types),
            TreeSource::Document {
                document,
                sources,
                format,
                name,
            } => registry.load_document_with(document, sources, format, name, own_types),
            TreeSource::Lowered {
                lowering,
                format,
                name,
            } => registry.load_lowered(lowering, format, name, own_types),
        }
    }

    /// Whether the tree loads: the first error, without keeping the tree.
    pub fn check(self) -> Result<(), LoadError> {
        self.load().map(drop)
    }

    /// Every error, up to [`MAX_ERRORS`](crate::MAX_ERRORS) (each wrong
    /// node's first; a node's subtree is not looked into once the node is
    /// wrong): what `canopy check` lists. Empty when the tree loads. A
    /// JSON value, a document or a lowered document gives its first error
    /// only.
    pub fn errors(self) -> Vec<LoadError> {
        let Loading {
            registry,
            source,
            own_types,
        } = self;
        match source {
            TreeSource::File(path) => registry.check_file_with(path, own_types),
            TreeSource::Text { text, format, name } => {
                registry.check_bytes_with(text.as_bytes(), format, name, own_types)
            }
            TreeSource::Bytes {
                bytes,
                format,
                name,
            } => registry.check_bytes_with(bytes, format, name, own_types),
            TreeSource::Reader {
                reader,
                format,
                name,
            } => registry.check_reader_with(reader, format, name, own_types),
            source => Loading {
                registry,
                source,
                own_types,
            }
            .check()
            .err()
            .into_iter()
            .collect(),
        }
    }
}
