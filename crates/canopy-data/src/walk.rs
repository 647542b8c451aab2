//! Walking a document's node objects into drafts: each node checked
//! against its registered type (fields, children, parameters), each subtree
//! walked once at its first reference and shared by every other. Scripts
//! (`Eval` and its kin) are compiled last, in file order, once every port
//! has made its key: a script may read a key a node after it makes, and a
//! key no port and no earlier script makes is an error naming the script.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

use canopy_core::nodes::ScoreFn;
use canopy_core::text::suggest;
use canopy_core::{
    Builder, Draft, Params, board::SlotType, context::Predicate, limits::MAX_DEPTH, nodes,
    params::ParamError, params::ParamKind, params::ParamValue, script::ScriptError,
};

use crate::check::{Place, check, read_fields};
use crate::document::{Field, Source, Value, describe, field, position};
use crate::error::{KeyConflict, LoadError, Location, NodePath, PathRoot, PathStep, Problem};
use crate::format::{Format, MAX_NODES};
use crate::registry::{Build, NodeType, Registry};
use crate::resolve::{Made, NodeInFile, Resolver, Walk};
use crate::scripts::{self, Cell, First, LoadKeys, ScriptShape as Shape};

/// Stack kept free before recursing one level deeper, and the size of each
/// extra segment when it is not (for [`stacker::maybe_grow`]).
const RED_ZONE: usize = 128 << 10;
const STACK_SEGMENT: usize = 4 << 20;

/// Most errors one load reports when asked for all of them
/// ([`Loading::errors`](crate::Loading::errors)).
pub const MAX_ERRORS: usize = 20;

/// Whether the walk can go on past this error: a problem of one node, not
/// a limit of the whole file (nesting, size) or a cycle, whose knock-on
/// errors would only repeat it.
fn recoverable(e: &LoadError) -> bool {
    !matches!(
        e.problem(),
        Problem::TooDeep
            | Problem::TooManyNodes
            | Problem::ChainTooDeep
            | Problem::Cycle { .. }
            | Problem::SelfReference { .. }
    )
}

/// Names an error about a missing subtree lists.
const LISTED: usize = 10;

/// A file's `subtrees`, indexed by name.
#[derive(Default)]
pub(crate) struct Subtrees<'d> {
    index: HashMap<&'d str, &'d Value<'d>>,
    /// The names in sorted order, as errors list them and the unused ones are checked.
    sorted: Vec<&'d str>,
}

impl<'d> Subtrees<'d> {
    fn new(fields: &'d [Field<'d>]) -> Self {
        let index: HashMap<&str, &Value> = fields.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let mut sorted: Vec<&str> = index.keys().copied().collect();
        sorted.sort_unstable();
        Subtrees { index, sorted }
    }

    /// The subtrees of a document, if it has a well-formed `subtrees` field.
    pub(crate) fn of(document: &'d Value<'d>) -> Self {
        document
            .as_object()
            .and_then(|top| field(top, "subtrees"))
            .and_then(Value::as_object)
            .map(Subtrees::new)
            .unwrap_or_default()
    }

    /// The definition named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'d Value<'d>> {
        self.index.get(name).copied()
    }

    /// The node reached from `root` (at `path`) through the children
    /// indices `steps`, as the tree builder counts them, and its path in
    /// the file: a reference stands for its subtree's root, so steps go on
    /// inside the subtree's definition.
    pub(crate) fn follow<A: 'static, W: 'static>(
        &self,
        registry: &Registry<A, W>,
        root: &'d Value<'d>,
        mut path: NodePath,
        steps: &[u32],
    ) -> Option<(&'d Value<'d>, NodePath)> {
        let mut node = root;
        for step in std::iter::once(None).chain(steps.iter().map(Some)) {
            if let Some(&i) = step {
                node = field(node.as_object()?, "children")?
                    .as_list()?
                    .get(i as usize)?;
                path.steps.push(PathStep::Child(i));
            }
            // References chain at most MAX_DEPTH deep: the walk checked it.
            for _ in 0..=MAX_DEPTH {
                let Some(target) = self.reference(registry, node) else {
                    break;
                };
                node = self.get(target)?;
                path = NodePath {
                    root: PathRoot::Subtree(target.to_string()),
                    steps: Vec::new(),
                };
            }
        }
        Some((node, path))
    }

    /// The subtree `node` refers to, if it is a reference.
    fn reference<A: 'static, W: 'static>(
        &self,
        registry: &Registry<A, W>,
        node: &'d Value<'d>,
    ) -> Option<&'d str> {
        let fields = node.as_object()?;
        let node_type = registry.get(field(fields, "type")?.as_str()?)?;
        match &node_type.build {
            Build::Resolved(resolve) => resolve.reference(fields),
            _ => None,
        }
    }
}

/// What a walk produces: the root's draft, and the subtrees no reference
/// reaches (checked on their own).
pub(crate) struct Drafts<'b, A, W> {
    pub(crate) root: &'b Draft<'b, A, W>,
    pub(crate) unused: Vec<(String, &'b Draft<'b, A, W>)>,
}

/// A script leaf made during the walk, compiled once the walk is over.
struct PendingScript<'d> {
    cell: Cell,
    /// The parameter holding the script (with the item's index in a list:
    /// `cases[0]`).
    param: String,
    source: scripts::Source,
    shape: Shape,
    node: &'d Value<'d>,
    path: NodePath,
    name: String,
}

/// Walks the node objects of one file, building drafts.
pub(crate) struct Loader<'r, 'd, 'b, A, W> {
    registry: &'r Registry<A, W>,
    builder: &'b Builder<'b, A, W>,
    file: &'r str,
    /// The texts the document's strings borrow from, for positions.
    sources: &'r [Source<'d>],
    format: Format,
    subtrees: Subtrees<'d>,
    /// Subtrees already built: every reference shares the one draft.
    built: HashMap<&'d str, &'b Draft<'b, A, W>>,
    /// Subtrees being built, outermost first: a reference to one of these is a cycle.
    in_progress: Vec<&'d str>,
    /// Subtrees some reference names.
    referenced: HashSet<&'d str>,
    /// Where each blackboard key was first used.
    keys: RefCell<HashMap<String, First<'d>>>,
    /// When every error is wanted ([`Loader::collect_errors`]): those so far.
    errors: Option<Vec<LoadError>>,
    nodes: usize,
    /// Script leaves walked, in file order, to compile at the end.
    scripts: Vec<PendingScript<'d>>,
    /// How a loader that lowered another syntax names a node's place in
    /// its own file (`None`: as this crate writes places).
    places: Option<&'r PlaceNamer<'r>>,
    /// Where the warnings of the scripts compiled go, if anywhere.
    warnings: Option<&'r ScriptWarner<'r>>,
    /// Node types of that loader's own, found before the registry's.
    own_types: &'r [NodeType<A, W>],
}

/// Takes a script's warning: the node's path, the parameter, the
/// script as shown, the warning.
pub(crate) type ScriptWarner<'a> = dyn Fn(&NodePath, &str, &str, &ScriptError) + 'a;

/// A node's place as messages write it: through the lowering loader's
/// namer where there is one (and it can), else as this crate writes it
/// (`file:line:column: path (name "…")`).
fn place_text(
    places: Option<&PlaceNamer<'_>>,
    sources: &[Source],
    file: &str,
    first: &First,
) -> String {
    places
        .and_then(|places| places(&first.path))
        .unwrap_or_else(|| {
            node_error(
                sources,
                file,
                first.node,
                first.path.clone(),
                &first.name,
                Problem::MissingTree,
            )
            .place()
        })
}

/// Names the place of the node at a path as the file it was lowered from
/// shows places (BehaviorTree.CPP XML: line, column and element), for a
/// key's first use in messages; `None` where it cannot.
pub(crate) type PlaceNamer<'a> = dyn Fn(&NodePath) -> Option<String> + 'a;

impl<'r, 'd, 'b, A: 'static, W: 'static> Loader<'r, 'd, 'b, A, W> {
    pub(crate) fn new(
        registry: &'r Registry<A, W>,
        builder: &'b Builder<'b, A, W>,
        file: &'r str,
        sources: &'r [Source<'d>],
        format: Format,
    ) -> Self {
        Loader {
            registry,
            builder,
            file,
            sources,
            format,
            subtrees: Subtrees::default(),
            built: HashMap::new(),
            in_progress: Vec::new(),
            referenced: HashSet::new(),
            keys: RefCell::new(HashMap::new()),
            errors: None,
            nodes: 0,
            scripts: Vec::new(),
            places: None,
            warnings: None,
            own_types: &[],
        }
    }

    /// Where the warnings of the scripts compiled go.
    pub(crate) fn warnings(mut self, warnings: &'r ScriptWarner<'r>) -> Self {
        self.warnings = Some(warnings);
        self
    }

    /// Places named by the loader that lowered the document.
    pub(crate) fn places(mut self, places: &'r PlaceNamer<'r>) -> Self {
        self.places = Some(places);
        self
    }

    /// Node types of the lowering loader's own, looked up before the
    /// registry's (see [`Loading::own_types`](crate::Loading::own_types)).
    pub(crate) fn own_types(mut self, types: &'r [NodeType<A, W>]) -> Self {
        self.own_types = types;
        self
    }

    /// Go on past a wrong node, up to [`MAX_ERRORS`] errors, each node's
    /// first: the wrong node's subtree is left out, the rest walked on.
    pub(crate) fn collect_errors(mut self) -> Self {
        self.errors = Some(Vec::new());
        self
    }

    /// The errors collected, if any were.
    pub(crate) fn take_errors(&mut self) -> Vec<LoadError> {
        self.errors.take().unwrap_or_default()
    }

    fn fail(&self, spot: &NodeInFile, name: &str, problem: Problem) -> LoadError {
        node_error(
            self.sources,
            self.file,
            spot.node,
            spot.path(),
            name,
            problem,
        )
    }

    fn fail_whole(&self, problem: Problem) -> LoadError {
        LoadError::new(self.file.to_string(), Location::File, problem)
    }

    /// A value as an error shows it, with a hint for RON's bare words,
    /// which read as `()`.
    fn got(&self, value: &Value) -> String {
        match (value, self.format) {
            (Value::Null, Format::Ron) => {
                "() — in RON, write words as strings in double quotes".to_string()
            }
            _ => describe(value),
        }
    }

    /// The drafts of a whole document.
    pub(crate) fn document(&mut self, value: &'d Value<'d>) -> Result<Drafts<'b, A, W>, LoadError> {
        let Some(top) = value.as_object() else {
            let got = self.got(value);
            return Err(self.fail_whole(Problem::NotADocument { got }));
        };
        for (key, _) in top {
            let key = key.as_str();
            if key != "tree" && key != "subtrees" {
                return Err(self.fail_whole(Problem::UnknownTopLevelField {
                    field: key.to_string(),
                    suggestion: suggest(key, ["tree", "subtrees"]),
                }));
            }
        }
        match field(top, "subtrees") {
            None => {}
            Some(Value::Object(subtrees)) => self.subtrees = Subtrees::new(subtrees),
            Some(other) => {
                let got = self.got(other);
                return Err(self.fail_whole(Problem::SubtreesNotAnObject { got }));
            }
        }
        let tree = field(top, "tree").ok_or_else(|| self.fail_whole(Problem::MissingTree))?;
        let root = self.node(tree, &NodeInFile::tree(tree), 1)?;
        // Walk the subtrees nothing refers to as well: a file is valid as a whole.
        let names = self.subtrees.sorted.clone();
        for &name in &names {
            let definition = self.subtrees.get(name).unwrap_or(&Value::Null);
            self.subtree(name, &NodeInFile::subtree(name, definition), name, 1)?;
        }
        self.compile_scripts()?;
        let unused = names
            .into_iter()
            .filter(|name| !self.referenced.contains(name))
            .map(|name| (name.to_string(), self.built[name]))
            .collect();
        Ok(Drafts { root, unused })
    }

    /// A node object's `type` and its `name` (the type when absent).
    fn type_and_name(
        &self,
        fields: &'d [Field<'d>],
        path: &NodeInFile<'_, 'd>,
    ) -> Result<(&'d str, &'d str), LoadError> {
        let wrong = |field: &'static str, got: &Value| Problem::WrongField {
            field,
            expected: "a string",
            got: self.got(got),
        };
        let type_name = match field(fields, "type") {
            Some(value) => value
                .as_str()
                .ok_or_else(|| self.fail(path, "", wrong("type", value)))?,
            None => return Err(self.fail(path, "", Problem::MissingType)),
        };
        let name = match field(fields, "name") {
            None => type_name,
            Some(value) => value
                .as_str()
                .ok_or_else(|| self.fail(path, type_name, wrong("name", value)))?,
        };
        Ok((type_name, name))
    }

    /// The draft for the node object `value` at `path`, `depth` levels
    /// below the root (subtree references add no level).
    fn node(
        &mut self,
        value: &'d Value<'d>,
        path: &NodeInFile<'_, 'd>,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        let draft = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            self.node_here(value, path, depth)
        });
        match (draft, &mut self.errors) {
            (Err(e), Some(errors)) if recoverable(&e) && errors.len() + 1 < MAX_ERRORS => {
                errors.push(e);
                // A stand-in, so that the walk goes on to the next node.
                Ok(self.builder.always_failure("(a node with an error)"))
            }
            (draft, _) => draft,
        }
    }

    fn node_here(
        &mut self,
        value: &'d Value<'d>,
        path: &NodeInFile<'_, 'd>,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        let Some(fields) = value.as_object() else {
            let got = self.got(value);
            return Err(self.fail(path, "", Problem::NotANode { got }));
        };
        let (type_name, name) = self.type_and_name(fields, path)?;
        let (node_type, index, own) = self.count_and_find(type_name, name, path, depth)?;
        let children = self.children_of(fields, node_type, path, name)?;
        let params = self.params(node_type, fields, path, name, index)?;
        let kind = match &node_type.build {
            Build::Kind(factory) => factory(&params),
            Build::Sized(factory) => factory(&params, children.len()),
            Build::Condition(factory) => factory(&params).map(|f| nodes::Condition(f).into()),
            Build::Resolved(resolve) => {
                let mut at = Resolver {
                    loader: self,
                    node: path,
                    fields,
                    name,
                    depth,
                };
                match resolve.resolve(&params, &mut at)? {
                    Made::Kind(kind) => Ok(kind),
                    Made::Draft(draft) => return Ok(draft),
                }
            }
        }
        .map_err(|e| self.fail(path, name, Problem::Param(e)))?;
        // Guards show their condition through the kind; every other type
        // shows the parameters it was given.
        let mut shown = match &node_type.build {
            Build::Resolved(resolve) if resolve.shows_kind() => kind.params(),
            _ => params.shown(),
        };
        // Kept by the draft until the tree is built: without the spare
        // room a list grows by, which was a large part of a large file's
        // drafts (most nodes show one parameter or none).
        shown.shrink_to_fit();
        let mut drafts = Vec::with_capacity(children.len());
        for (i, child) in children.iter().enumerate() {
            drafts.push(self.node(child, &path.child(i, child), depth + 1)?);
        }
        if own {
            // The lowering's own name for the type is no name a file
            // uses: the node shows itself as its kind does.
            return Ok(self.builder.node(name, kind, drafts));
        }
        Ok(self
            .builder
            .typed_node(name, type_name, shown, kind, drafts))
    }

    /// Count the node against the limits and find its type; also returns
    /// the node's position in the file, and whether the type is one of
    /// the lowering loader's own.
    fn count_and_find(
        &mut self,
        type_name: &str,
        name: &str,
        path: &NodeInFile<'_, 'd>,
        depth: usize,
    ) -> Result<(&'r NodeType<A, W>, u64, bool), LoadError> {
        if depth > MAX_DEPTH {
            return Err(self.fail(path, name, Problem::TooDeep));
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.fail(path, name, Problem::TooManyNodes));
        }
        let index = self.nodes as u64 - 1;
        if let Some(own) = self.own_types.iter().find(|t| t.name() == type_name) {
            return Ok((own, index, true));
        }
        let registry = self.registry;
        let node_type = registry.get(type_name).ok_or_else(|| {
            let problem = Problem::UnknownType {
                type_name: type_name.to_string(),
                suggestion: suggest(type_name, registry.names()).map(str::to_string),
            };
            self.fail(path, name, problem)
        })?;
        Ok((node_type, index, false))
    }

    /// A node's children, which must be a list of as many as its type takes.
    fn children_of(
        &self,
        fields: &'d [Field<'d>],
        node_type: &NodeType<A, W>,
        path: &NodeInFile<'_, 'd>,
        name: &str,
    ) -> Result<&'d [Value<'d>], LoadError> {
        let children: &[Value] = match field(fields, "children") {
            None => &[],
            Some(Value::List(children)) => children,
            Some(other) => {
                let problem = Problem::WrongField {
                    field: "children",
                    expected: "a list",
                    got: self.got(other),
                };
                return Err(self.fail(path, name, problem));
            }
        };
        let arity = node_type.arity();
        if !arity.accepts(children.len()) {
            let problem = Problem::WrongChildCount {
                type_name: node_type.name().to_string(),
                arity,
                got: children.len(),
            };
            return Err(self.fail(path, name, problem));
        }
        Ok(children)
    }

    /// Check a node's parameter fields against its type's declaration.
    fn params<'p>(
        &self,
        node_type: &'p NodeType<A, W>,
        fields: &'p [Field<'p>],
        path: &NodeInFile<'_, 'd>,
        name: &str,
        index: u64,
    ) -> Result<Params<'p>, LoadError> {
        let read = read_fields(
            node_type.name(),
            node_type.params(),
            fields,
            &["type", "name", "children"],
            |param, given| match &param.kind {
                ParamKind::Port { value, ty, output } => {
                    self.port(given, &param.name, value, ty, *output, path, name)
                }
                kind => check(kind, given, &Place::Param(&param.name))
                    .map_err(|e| self.fail(path, name, Problem::Param(e))),
            },
            |problem| self.fail(path, name, problem),
        );
        let values = read?;
        Ok(Params::new(
            node_type.name(),
            values,
            self.registry.seed(),
            index,
        ))
    }

    /// A port's value: a key in braces (`"{goal}"`, `"{=}"` for the key of
    /// the port's own name) becomes its slot, made on first use and of the
    /// same type at every use; a value is checked as the port's kind.
    #[allow(clippy::too_many_arguments)]
    fn port<'p>(
        &self,
        given: &'p Value<'p>,
        param: &str,
        value: &ParamKind,
        ty: &SlotType,
        output: bool,
        path: &NodeInFile<'_, 'd>,
        name: &str,
    ) -> Result<ParamValue<'p>, LoadError> {
        let key = given
            .as_str()
            .and_then(|text| text.strip_prefix('{')?.strip_suffix('}'))
            .map(|key| if key == "=" { param } else { key });
        let Some(key) = key else {
            if output {
                let got = self.got(given);
                let problem = Problem::OutputNotAKey {
                    param: param.to_string(),
                    got,
                };
                return Err(self.fail(path, name, problem));
            }
            return check(value, given, &Place::Param(param))
                .map_err(|e| self.fail(path, name, Problem::Param(e)));
        };
        match self.builder.port_slot(key, ty.clone(), output) {
            Ok(slot) => {
                let mut keys = self.keys.borrow_mut();
                if !keys.contains_key(key) {
                    let first = First {
                        path: path.path(),
                        node: path.node,
                        name: name.to_string(),
                    };
                    keys.insert(key.to_string(), first);
                }
                Ok(ParamValue::Slot(slot))
            }
            Err(conflict) => {
                let first = self.keys.borrow().get(key).cloned();
                let (first, first_node) = match first {
                    Some(first) => (self.first_text(&first), first.path),
                    None => Default::default(),
                };
                let problem = Problem::KeyType(Box::new(KeyConflict {
                    port: param.to_string(),
                    key: key.to_string(),
                    wanted: conflict.wanted.to_string(),
                    holds: conflict.holds.to_string(),
                    first,
                    first_node,
                }));
                Err(self.fail(path, name, problem))
            }
        }
    }

    /// Compile the scripts of the leaves walked, in file order, against
    /// every key the file's ports made (and those earlier scripts made).
    fn compile_scripts(&mut self) -> Result<(), LoadError> {
        for script in std::mem::take(&mut self.scripts) {
            let at = |problem| {
                let path = script.path.clone();
                node_error(
                    self.sources,
                    self.file,
                    script.node,
                    path,
                    &script.name,
                    problem,
                )
            };
            let (places, sources, file) = (self.places, self.sources, self.file);
            let place = move |first: &First<'d>| place_text(places, sources, file, first);
            let mut keys = LoadKeys {
                slots: self.builder,
                first: &self.keys,
                here: First {
                    path: script.path.clone(),
                    node: script.node,
                    name: script.name.clone(),
                },
                place: &place,
            };
            match scripts::compile(&script.source, script.shape, &mut keys) {
                Ok(program) => {
                    if let Some(warn) = self.warnings {
                        for warning in program.warnings() {
                            warn(&script.path, &script.param, &script.source.shown(), warning);
                        }
                    }
                    drop(script.cell.set(program));
                }
                Err(e) => {
                    let error = at(Problem::Script {
                        param: script.param.clone(),
                        code: script.source.shown(),
                        column: e.column,
                        problem: e.problem,
                    });
                    match &mut self.errors {
                        Some(errors) if errors.len() + 1 < MAX_ERRORS => errors.push(error),
                        _ => return Err(error),
                    }
                }
            }
        }
        Ok(())
    }

    /// A key's first use, as messages write its place.
    fn first_text(&self, first: &First) -> String {
        place_text(self.places, self.sources, self.file, first)
    }

    /// The registered condition types, for errors.
    fn condition_types(&self) -> Vec<String> {
        self.registry
            .types()
            .filter(|t| t.is_condition())
            .map(|t| t.name().to_string())
            .collect()
    }

    /// The shared draft of the subtree `target`, referred to by the node
    /// at `path` named `name`.
    fn subtree(
        &mut self,
        target: &'d str,
        path: &NodeInFile<'_, 'd>,
        name: &str,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        if let Some(draft) = self.built.get(target) {
            return Ok(draft);
        }
        if let Some(start) = self.in_progress.iter().position(|n| *n == target) {
            let mut chain: Vec<String> = self.in_progress[start..]
                .iter()
                .map(|n| n.to_string())
                .collect();
            chain.push(target.to_string());
            let problem = if chain.len() == 2 {
                Problem::SelfReference {
                    subtree: target.to_string(),
                }
            } else {
                Problem::Cycle { chain }
            };
            return Err(self.fail(path, name, problem));
        }
        if self.in_progress.len() >= MAX_DEPTH {
            return Err(self.fail(path, name, Problem::ChainTooDeep));
        }
        let Some(definition) = self.subtrees.get(target) else {
            return Err(self.fail(path, name, self.no_such_subtree(target)));
        };
        self.in_progress.push(target);
        let draft = self.node(definition, &NodeInFile::subtree(target, definition), depth)?;
        self.in_progress.pop();
        self.built.insert(target, draft);
        Ok(draft)
    }

    fn no_such_subtree(&self, target: &str) -> Problem {
        let known = &self.subtrees.sorted;
        Problem::NoSuchSubtree {
            subtree: target.to_string(),
            suggestion: suggest(target, known.iter().copied()).map(str::to_string),
            defined: known.iter().take(LISTED).map(|n| n.to_string()).collect(),
            count: known.len(),
        }
    }
}

impl<'r, 'd, 'b, A: 'static, W: 'static> Walk<'r, 'd, 'b, A, W> for Loader<'r, 'd, 'b, A, W> {
    /// A cell for the script in parameter `param` of the node `at` (named
    /// `name`), filled when the file's scripts are compiled together once
    /// the walk is over.
    fn defer_script(
        &mut self,
        param: String,
        source: scripts::Source,
        shape: Shape,
        at: &NodeInFile<'_, 'd>,
        name: &str,
    ) -> Cell {
        let cell = Cell::default();
        self.scripts.push(PendingScript {
            cell: cell.clone(),
            param,
            source,
            shape,
            node: at.node,
            path: at.path(),
            name: name.to_string(),
        });
        cell
    }

    /// The registry's scorers.
    fn scorers(&self) -> &'r BTreeMap<String, ScoreFn<A, W>> {
        &self.registry.scorers
    }

    /// A problem with the parameters of the node `at`, named `name`.
    fn param_error(&self, at: &NodeInFile, name: &str, e: ParamError) -> LoadError {
        self.fail(at, name, Problem::Param(e))
    }

    /// The shared draft of the subtree `target`, which the node `at`
    /// (named `name`, `depth` levels down) refers to.
    fn reference(
        &mut self,
        target: &'d str,
        at: &NodeInFile<'_, 'd>,
        name: &str,
        depth: usize,
    ) -> Result<&'b Draft<'b, A, W>, LoadError> {
        self.referenced.insert(target);
        self.subtree(target, at, name, depth)
    }

    /// A guard's condition: a node object of a registered condition type.
    fn condition(
        &mut self,
        value: &'d Value<'d>,
        path: &NodeInFile<'_, 'd>,
    ) -> Result<Predicate<A, W>, LoadError> {
        let Some(fields) = value.as_object() else {
            let problem = Problem::ConditionNotAnObject {
                conditions: self.condition_types(),
                got: self.got(value),
            };
            return Err(self.fail(path, "", problem));
        };
        self.nodes += 1;
        let index = self.nodes as u64 - 1;
        let (type_name, name) = self.type_and_name(fields, path)?;
        let node_type = match self.registry.get(type_name) {
            Some(t) if t.is_condition() => t,
            _ => {
                let problem = Problem::NotAConditionType {
                    type_name: type_name.to_string(),
                    conditions: self.condition_types(),
                };
                return Err(self.fail(path, name, problem));
            }
        };
        if field(fields, "children").is_some() {
            return Err(self.fail(path, name, Problem::ConditionWithChildren));
        }
        let params = self.params(node_type, fields, path, name, index)?;
        let Build::Condition(factory) = &node_type.build else {
            unreachable!("is_condition() checked the build");
        };
        let check = factory(&params).map_err(|e| self.fail(path, name, Problem::Param(e)))?;
        Ok(Predicate {
            label: Some(name.to_string()),
            check,
        })
    }
}

/// An error at a node: in the source its object is in, at its position
/// there, when the document borrows from a source; else in `file`.
pub(crate) fn node_error(
    sources: &[Source],
    file: &str,
    node: &Value,
    path: NodePath,
    name: &str,
    problem: Problem,
) -> LoadError {
    let (file, at) = match position(node, sources) {
        Some((source, at)) => (sources[source].name, Some(at)),
        None => (file, None),
    };
    let location = Location::Node {
        path,
        name: name.to_string(),
        at,
    };
    LoadError::new(file.to_string(), location, problem)
}
