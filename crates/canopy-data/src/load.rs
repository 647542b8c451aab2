//! Reading tree files: bytes → text → a compact document → drafts → a
//! shared [`Tree`].
//!
//! Bad input gets one clear error and nothing else: no panic, no stack
//! overflow (both parsers stop at [`MAX_NESTING`] brackets, and references
//! through subtrees stop at [`MAX_DEPTH`]), no unbounded reading (at most
//! [`MAX_FILE_BYTES`] + 1 bytes are read from anything, and only regular
//! files are opened), and no unbounded memory (trees over
//! [`MAX_NODES`](crate::MAX_NODES) nodes are refused before they are built;
//! the document is dropped before the tree is built from it).

use std::cell::Cell;
use std::fs::{self, File, FileType};
use std::io::{ErrorKind, Read};
use std::path::Path;

use canopy_core::{
    BuildError, Builder, Tree, builder::TreePath, limits::MAX_CHILDREN, script::ScriptError,
};
use serde::de::DeserializeSeed;

use crate::document::{Reader, Refused, Source, Value};
use crate::error::{LoadError, Location, NodePath, PathRoot, PathStep, Position, Problem};
use crate::format::{Format, MAX_FILE_BYTES, MAX_NESTING};
use crate::registry::{NodeType, Registry};
use crate::walk::{Drafts, Loader, Subtrees, node_error};

/// An error about the file as a whole.
fn whole(file: &str, problem: Problem) -> LoadError {
    LoadError::new(file.to_string(), Location::File, problem)
}

impl<A: 'static, W: 'static> Registry<A, W> {
    pub(crate) fn load_file_with(
        &self,
        path: &Path,
        own_types: &[NodeType<A, W>],
    ) -> Result<Tree<A, W>, LoadError> {
        let file = path.display().to_string();
        let format =
            Format::from_path(path).ok_or_else(|| whole(&file, Problem::UnknownExtension))?;
        let bytes = read_file(path).map_err(|problem| whole(&file, problem))?;
        self.load_bytes_with(&bytes, format, &file, own_types)
    }

    pub(crate) fn load_reader_with(
        &self,
        reader: impl Read,
        format: Format,
        source: &str,
        own_types: &[NodeType<A, W>],
    ) -> Result<Tree<A, W>, LoadError> {
        let bytes =
            read_limited(reader, 0, MAX_FILE_BYTES).map_err(|problem| whole(source, problem))?;
        self.load_bytes_with(&bytes, format, source, own_types)
    }

    pub(crate) fn check_reader_with(
        &self,
        reader: impl Read,
        format: Format,
        source: &str,
        own_types: &[NodeType<A, W>],
    ) -> Vec<LoadError> {
        match read_limited(reader, 0, MAX_FILE_BYTES) {
            Ok(bytes) => self.check_bytes_with(&bytes, format, source, own_types),
            Err(problem) => vec![whole(source, problem)],
        }
    }

    /// A tree from raw bytes (UTF-8 text; a leading byte-order mark is
    /// skipped), with `own_types` found before the registry's types.
    pub(crate) fn load_bytes_with(
        &self,
        bytes: &[u8],
        format: Format,
        source: &str,
        own_types: &[NodeType<A, W>],
    ) -> Result<Tree<A, W>, LoadError> {
        let text = decode(bytes).map_err(|problem| whole(source, problem))?;
        let sources = [Source { name: source, text }];
        // The document lives only while drafts are made from it: building
        // the tree is the costly part, and it needs the drafts alone. A
        // build error, rare, reads the text again to say where the node is.
        let document = parse_text(text, format, source)?;
        let builder = Builder::with_capacity(objects(&document));
        let drafts = Loader::new(self, &builder, source, &sources, format)
            .own_types(own_types)
            .document(&document)?;
        drop(document);
        build(&builder, &drafts).map_err(|(start, e)| match parse_text(text, format, source) {
            Ok(document) => self.locate(&document, &sources, start, e, source),
            Err(read_error) => read_error,
        })
    }

    pub(crate) fn check_file_with(
        &self,
        path: &Path,
        own_types: &[NodeType<A, W>],
    ) -> Vec<LoadError> {
        let file = path.display().to_string();
        let Some(format) = Format::from_path(path) else {
            return vec![whole(&file, Problem::UnknownExtension)];
        };
        match read_file(path) {
            Ok(bytes) => self.check_bytes_with(&bytes, format, &file, own_types),
            Err(problem) => vec![whole(&file, problem)],
        }
    }

    /// Every error of raw bytes (UTF-8 text), with `own_types` found
    /// before the registry's types.
    pub(crate) fn check_bytes_with(
        &self,
        bytes: &[u8],
        format: Format,
        source: &str,
        own_types: &[NodeType<A, W>],
    ) -> Vec<LoadError> {
        let text = match decode(bytes) {
            Ok(text) => text,
            Err(problem) => return vec![whole(source, problem)],
        };
        let document = match parse_text(text, format, source) {
            Ok(document) => document,
            Err(e) => return vec![e],
        };
        let sources = [Source { name: source, text }];
        let builder = Builder::with_capacity(objects(&document));
        let mut loader = Loader::new(self, &builder, source, &sources, format)
            .own_types(own_types)
            .collect_errors();
        let walked = loader.document(&document);
        let mut errors = loader.take_errors();
        // As for a load, the document is let go of while the tree is
        // built, and read again to place an error found building it.
        drop(loader);
        drop(document);
        match walked {
            Err(e) => errors.push(e),
            Ok(drafts) if errors.is_empty() => {
                if let Err((start, e)) = build(&builder, &drafts) {
                    errors.push(match parse_text(text, format, source) {
                        Ok(document) => self.locate(&document, &sources, start, e, source),
                        Err(read_error) => read_error,
                    });
                }
            }
            Ok(_) => {}
        }
        errors
    }

    pub(crate) fn load_document_with<'d>(
        &self,
        document: &'d Value<'d>,
        sources: &[Source<'d>],
        format: Format,
        file: &str,
        own_types: &[NodeType<A, W>],
    ) -> Result<Tree<A, W>, LoadError> {
        let builder = Builder::new();
        let drafts = Loader::new(self, &builder, file, sources, format)
            .own_types(own_types)
            .document(document)?;
        build(&builder, &drafts)
            .map_err(|(start, e)| self.locate(document, sources, start, e, file))
    }

    /// A tree from a document a loader lowered from another syntax, which
    /// takes part in the load three ways.
    pub(crate) fn load_lowered(
        &self,
        lowering: &mut dyn Lowering,
        format: Format,
        file: &str,
        own_types: &[NodeType<A, W>],
    ) -> Result<Tree<A, W>, LoadError> {
        let document = lowering.document().ok_or_else(|| unlowered(file))?;
        let builder = Builder::with_capacity(objects(&document));
        let drafts = {
            let places = |path: &NodePath| lowering.place(path);
            let warn = |path: &NodePath, param: &str, code: &str, warning: &ScriptError| {
                lowering.warn(path, param, code, warning);
            };
            Loader::new(self, &builder, file, &[], format)
                .places(&places)
                .warnings(&warn)
                .own_types(own_types)
                .document(&document)?
        };
        drop(document);
        lowering.drafted();
        build(&builder, &drafts).map_err(|(start, e)| match lowering.document() {
            Some(document) => self.locate(&document, &[], start, e, file),
            None => unlowered(file),
        })
    }

    pub(crate) fn load_json_with(
        &self,
        document: &serde_json::Value,
        source: &str,
        own_types: &[NodeType<A, W>],
    ) -> Result<Tree<A, W>, LoadError> {
        let document = crate::document::from_json(document, MAX_NESTING)
            .ok_or_else(|| whole(source, Problem::TooDeeplyNested))?;
        self.load_document_with(&document, &[], Format::Json, source, own_types)
    }

    /// A build error as a load error at the node's place in the file.
    fn locate(
        &self,
        document: &Value,
        sources: &[Source],
        start: Start,
        e: BuildError,
        file: &str,
    ) -> LoadError {
        let subtrees = Subtrees::of(document);
        let root = match &start {
            Start::Tree => document.get("tree").map(|root| (root, NodePath::default())),
            Start::Subtree(name) => subtrees.get(name).map(|root| {
                let path = NodePath {
                    root: PathRoot::Subtree(name.clone()),
                    steps: Vec::new(),
                };
                (root, path)
            }),
        };
        let problem = Problem::Build { problem: e.problem };
        match root.and_then(|(root, path)| subtrees.follow(self, root, path, e.path.steps())) {
            Some((node, path)) => node_error(sources, file, node, path, &e.name, problem),
            // A path this loader cannot follow is reported as the builder gave it.
            None => {
                let path = NodePath {
                    root: PathRoot::Tree,
                    steps: e.path.steps().iter().map(|&i| PathStep::Child(i)).collect(),
                };
                let location = Location::Node {
                    path,
                    name: e.name,
                    at: None,
                };
                LoadError::new(file, location, problem)
            }
        }
    }
}

/// A document lowered from another syntax (BehaviorTree.CPP XML), as
/// [`TreeSource::Lowered`](crate::TreeSource::Lowered) gives it: made on demand from what the
/// lowering owns, so that the lowering can let go of its model of the
/// file while the tree is built.
pub trait Lowering {
    /// The document: asked for once to draft the nodes, and again only
    /// when building them fails, to find the node the error is about (it
    /// must then be the same document). `None` when it cannot be made;
    /// the lowering keeps its own reason, and the load fails.
    fn document(&self) -> Option<Value<'_>>;

    /// The place of the node at a path as the lowered file shows places
    /// (BehaviorTree.CPP XML: line, column and element), for a key's first
    /// use in messages; `None` (the default) where it cannot, and the
    /// message names the path.
    fn place(&self, path: &NodePath) -> Option<String> {
        let _ = path;
        None
    }

    /// The nodes are drafted and the document dropped: let go of what
    /// only making the document needs while the tree is built. Nothing, by
    /// default.
    fn drafted(&mut self) {}

    /// A script of the node at `path`, in its parameter `param`
    /// (`code`, `cases[1]`), compiled with a warning: a point where
    /// BehaviorTree.CPP throws when the script runs, and where canopy fails
    /// the node ([`Script::warnings`](canopy_core::script::Script::warnings)).
    /// Called before [`drafted`](Lowering::drafted); ignored by default.
    fn warn(&self, path: &NodePath, param: &str, code: &str, warning: &ScriptError) {
        let _ = (path, param, code, warning);
    }
}

/// How many objects a document holds below its top: at least as many as
/// the drafts it makes (every node is an object; a Guard's condition is
/// one too), so the builder is made with room for them all.
fn objects(document: &Value) -> usize {
    let mut count: usize = 0;
    let mut stack: Vec<&Value> = vec![document];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(fields) => {
                count += 1;
                stack.extend(fields.iter().map(|(_, v)| v));
            }
            Value::List(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    count.saturating_sub(1)
}

/// The error of a load whose lowering could not make its document.
fn unlowered(file: &str) -> LoadError {
    let problem = "the lowered document could not be made".to_string();
    whole(file, Problem::Reported { problem })
}

/// Where the builder started when it failed: at the tree's root, or at an
/// unused subtree's.
#[derive(Debug)]
enum Start {
    Tree,
    Subtree(String),
}

/// Build the tree, then check the subtrees no reference reaches.
///
/// Unused subtrees are built as children of a stand-in root, in groups of
/// [`MAX_CHILDREN`], so that the work stays linear in the file's size
/// however much they share; the stand-in root's own errors (sizes summed
/// over subtrees no agent runs together) are not the file's.
fn build<'b, A, W>(
    builder: &'b Builder<'b, A, W>,
    drafts: &Drafts<'b, A, W>,
) -> Result<Tree<A, W>, (Start, BuildError)> {
    let tree = builder.build(drafts.root).map_err(|e| (Start::Tree, e))?;
    for group in drafts.unused.chunks(MAX_CHILDREN) {
        let stand_in = builder.sequence("unused subtrees", group.iter().map(|(_, d)| *d));
        let Err(e) = builder.build(stand_in) else {
            continue;
        };
        // No step: the stand-in root's own error.
        let Some((&first, rest)) = e.path.steps().split_first() else {
            continue;
        };
        let Some((name, _)) = group.get(first as usize) else {
            continue;
        };
        let e = BuildError {
            path: TreePath::from(rest.to_vec()),
            ..e
        };
        return Err((Start::Subtree(name.clone()), e));
    }
    Ok(tree)
}

/// What a file is when it is not a regular file.
fn what_it_is(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// A regular file's bytes, if it holds at most [`MAX_FILE_BYTES`]: how every
/// loader reads a file, and how a crate reading tree files of its own
/// format should. Whatever the file system says about its size, never more
/// than the limit plus one byte is read; a directory, FIFO (which would
/// block), device (`/dev/zero` would never end) or socket is refused
/// before it is opened, and again after, in case the name was pointed
/// elsewhere in between.
///
/// ```
/// use canopy_data::{Problem, read_file};
/// assert!(matches!(read_file(std::path::Path::new("/")), Err(Problem::NotARegularFile { .. })));
/// ```
pub fn read_file(path: &Path) -> Result<Vec<u8>, Problem> {
    read_file_up_to(path, MAX_FILE_BYTES)
}

/// The bytes of the regular file at `path`, if it holds at most `max`
/// (more is [`Problem::TooLarge`]); what [`read_file`] does for tree
/// files, for other files from strangers (snapshots, saved crowds) with
/// limits of their own.
///
/// The file is opened first, without blocking, and what was opened is
/// checked: asking about the path and then opening it would let the path
/// be swapped in between (a FIFO, whose opening blocks until a writer
/// comes, or a device that never ends).
///
/// ```
/// use canopy_data::{Problem, read_file_up_to};
/// let path = std::env::temp_dir().join(format!("canopy-read-{}.bin", std::process::id()));
/// std::fs::write(&path, [7u8; 10]).unwrap();
/// assert_eq!(read_file_up_to(&path, 10).unwrap().len(), 10);
/// assert!(matches!(read_file_up_to(&path, 9), Err(Problem::TooLarge { .. })));
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn read_file_up_to(path: &Path, max: u64) -> Result<Vec<u8>, Problem> {
    let unreadable = |e: std::io::Error| Problem::Unreadable {
        reason: e.to_string(),
    };
    let file = open_without_blocking(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(Problem::NotARegularFile {
            what: what_it_is(meta.file_type()),
        });
    }
    if meta.len() > max {
        return Err(Problem::TooLarge {
            bytes: Some(meta.len()),
            limit: max,
        });
    }
    read_limited(file, meta.len(), max)
}

/// Open `path` to read, without blocking on a FIFO or a device.
fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Everything `reader` holds, if that is at most `max` bytes: never
/// more than one byte beyond the limit is read, whatever the source says
/// about its size (`expected` is only a hint for the first allocation), and
/// the buffer never grows past the limit plus one byte.
pub(crate) fn read_limited(
    mut reader: impl Read,
    expected: u64,
    max: u64,
) -> Result<Vec<u8>, Problem> {
    let limit = usize::try_from(max).unwrap_or(usize::MAX).saturating_add(1);
    let out_of_memory = |e: std::collections::TryReserveError| Problem::Unreadable {
        reason: e.to_string(),
    };
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact((expected as usize).saturating_add(1).min(limit))
        .map_err(out_of_memory)?;
    let mut chunk = [0u8; 64 << 10];
    while bytes.len() < limit {
        let room = (limit - bytes.len()).min(chunk.len());
        let n = match reader.read(&mut chunk[..room]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Problem::Unreadable {
                    reason: e.to_string(),
                });
            }
        };
        if bytes.capacity() - bytes.len() < n {
            // Doubling, but never past the limit plus one byte (and not
            // by one byte at the end).
            let doubled = (bytes.capacity() * 2).max(chunk.len());
            let grown = if doubled >= limit - 1 { limit } else { doubled };
            bytes
                .try_reserve_exact(grown.max(bytes.len() + n) - bytes.len())
                .map_err(out_of_memory)?;
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    if bytes.len() as u64 > max {
        return Err(Problem::TooLarge {
            bytes: None,
            limit: max,
        });
    }
    Ok(bytes)
}

/// Bytes → text: not too long, not binary, UTF-8, not blank. A UTF-8
/// byte-order mark (which some Windows editors write) is skipped.
fn decode(bytes: &[u8]) -> Result<&str, Problem> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Problem::TooLarge {
            bytes: Some(bytes.len() as u64),
            limit: MAX_FILE_BYTES,
        });
    }
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(Problem::Utf16);
    }
    if bytes.contains(&0) {
        return Err(Problem::NulBytes);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| Problem::InvalidUtf8 {
        at: e.valid_up_to(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.is_empty() {
        return Err(Problem::Empty);
    }
    if text.trim().is_empty() {
        return Err(Problem::Blank);
    }
    Ok(text)
}

/// A tree file's text as a JSON value, read as strictly as
/// [`Registry::loading`] reads text: a field given twice, a number that is
/// not finite, a RON byte string, brackets nested deeper than
/// [`MAX_NESTING`], text over [`MAX_FILE_BYTES`] are errors with their
/// line and column, not values silently kept or dropped. A UTF-8
/// byte-order mark is skipped. For loaders built on the registry that
/// read a file once and then work on its document
/// ([`TreeSource::json`](crate::TreeSource::json)).
///
/// ```
/// use canopy_data::{Format, parse};
/// let document = parse("(tree: (type: \"Wait\", ticks: 3))", Format::Ron, "w.ron").unwrap();
/// assert_eq!(document["tree"]["ticks"], 3);
/// assert_eq!(parse(r#"{"tree": {"type": "Wait", "type": "Wait"}}"#, Format::Json, "d.json")
///         .unwrap_err().to_string(),
///     "d.json:1:32: field \"type\" is given twice");
/// ```
pub fn parse(text: &str, format: Format, source: &str) -> Result<serde_json::Value, LoadError> {
    let text = decode(text.as_bytes()).map_err(|problem| whole(source, problem))?;
    parse_text(text, format, source).map(|document| crate::document::to_json(&document))
}

/// Bytes → the document that borrows from them, read exactly as tree
/// files are (the same limits, the same errors with line and column). For
/// loaders of other kinds of files built on this crate's reading, such as
/// state machine files: errors about a value can then give its position
/// through [`Source::position_of`].
///
/// ```
/// use canopy_data::{Format, parse_document};
/// let (text, document) = parse_document(b"(ticks: 3)", Format::Ron, "w.ron").unwrap();
/// assert_eq!(document.get("ticks").and_then(|v| v.as_f64()), Some(3.0));
/// assert_eq!(text, "(ticks: 3)");
/// ```
pub fn parse_document<'t>(
    bytes: &'t [u8],
    format: Format,
    source: &str,
) -> Result<(&'t str, Value<'t>), LoadError> {
    let text = decode(bytes).map_err(|problem| whole(source, problem))?;
    parse_text(text, format, source).map(|document| (text, document))
}

/// Text → the document, whichever the syntax.
fn parse_text<'t>(text: &'t str, format: Format, file: &str) -> Result<Value<'t>, LoadError> {
    let refused = Cell::new(None);
    let reader = Reader { refused: &refused };
    let at = |line: usize, column: usize, problem: Problem| {
        LoadError::new(
            file.to_string(),
            Location::Text(Position {
                line: line as u32,
                // serde_json reports column 0 just after a newline.
                column: column.max(1) as u32,
            }),
            problem,
        )
    };
    // A value the reader refused is the problem, whatever the parser says.
    let refusal = |refused: &Cell<Option<Refused>>| {
        refused.take().map(|why| match why {
            Refused::Duplicate(field) => Problem::DuplicateField { field },
            Refused::NotFinite => Problem::NotFinite,
            Refused::Bytes => Problem::ByteString,
        })
    };
    match format {
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            reader
                .deserialize(&mut de)
                .and_then(|value| de.end().map(|()| value))
                .map_err(|e| {
                    let problem = refusal(&refused).unwrap_or_else(|| json_problem(&e));
                    at(e.line(), e.column(), problem)
                })
        }
        Format::Ron => {
            // RON's parser counts two levels per bracket; its recursion runs
            // on a stack of its own, sized for the limit whatever the caller's.
            let options = ron::Options::default().with_recursion_limit(2 * MAX_NESTING);
            stacker::grow(32 << 20, || options.from_str_seed(text, reader)).map_err(|e| {
                let problem = refusal(&refused).unwrap_or_else(|| ron_problem(e.code));
                at(e.span.start.line, e.span.start.col, problem)
            })
        }
    }
}

/// A serde_json error as a problem, without its position (given apart).
fn json_problem(e: &serde_json::Error) -> Problem {
    let message = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    if message.starts_with("recursion limit exceeded") {
        Problem::TooDeeplyNested
    } else {
        Problem::Malformed {
            format: Format::Json,
            message: message.to_string(),
        }
    }
}

/// A RON error as a problem.
fn ron_problem(code: ron::Error) -> Problem {
    match code {
        ron::Error::ExceededRecursionLimit => Problem::TooDeeplyNested,
        code => Problem::Malformed {
            format: Format::Ron,
            message: code.to_string(),
        },
    }
}
