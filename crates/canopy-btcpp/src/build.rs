//! Nodes → a canopy tree, through the registry's own loader.
//!
//! The registry builds registered types only from tree documents, so the
//! nodes are lowered to one document — the same document a JSON file of
//! the same tree would be, node for node and field for field, so
//! parameters are checked by the same code and numbered (the salt of
//! `Random` and `Chance`) in the same order — in the registry's compact
//! form, borrowing the model's names, never written out as text. (A JSON
//! value tree here, a search tree and a heap string per field, was the
//! largest thing a large XML file became.)
//!
//! The model lives only until the document is made, and the document
//! until the registry has drafted the nodes (see [`Lowering`]): the
//! model, the document and the drafts side by side were the peak of a
//! large file's load (14 times the file for 550,000 named nodes). The
//! document borrows its strings from [`Names`] — each node's name, moved
//! out of the model, and each distinct type name, parameter name and ID
//! once — so letting the model go copies no name. The files' texts are
//! kept; an error, rare, reads the model again from them (and lowers it
//! again to say which element an error found while building is about),
//! as does a message naming where a key was first used. Rejected:
//! lowering nodes straight into drafts (the registry checks fields and
//! parameters on a document, as it does a JSON file's).
//!
//! This crate's emulated nodes (BehaviorTree.CPP nodes whose semantics no
//! registered type has; see [`crate::emulated`]) go in as node objects of
//! types of this crate's own, which the registry's loader finds before its own types and builds
//! in the same pass: their fields, children and parameters are checked as
//! any node's, a shared subtree's own nodes are shared with it, and each
//! copy of a subtree with keys of its own has its own. Their names hold a
//! `:`, which no registered type's can, so they never hide one. Rejected:
//! loading with a registered type standing in for each, then copying the
//! loaded tree into a second one with the stand-ins swapped — it builds
//! every such tree twice, needs a registry with types fit to stand in,
//! and the copy must keep shared nodes shared and slots in place by hand.

use std::cell::{OnceCell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use canopy_core::{Tree, script::ScriptError};
use canopy_data::document::{self as lowered, Key};
use canopy_data::{
    EvalKind, Format, KeyConflict, LoadError, Location, Lowering, NodePath, PathRoot, PathStep,
    Problem, Registry, TreeSource, XmlLimit, XmlProblem,
};
use serde_json::Value;

use crate::emulated::{self, emulated_params, emulated_types};
use crate::model::{Model, What};
use crate::options::XmlOptions;
use crate::scope::{Resolved, Scope};
use crate::sources::{self, Kept, Place};
use crate::warning::{WarningKind, Warnings};

/// The tree to run. The model is let go of once the document is made
/// from it (the files' texts kept): it was, with the document, more than
/// the tree being built, and only an error needs the model again, read
/// anew from the texts.
pub(crate) fn build<A: 'static, W: 'static>(
    model: Model,
    registry: &Registry<A, W>,
    options: &XmlOptions,
    warnings: &Warnings,
) -> Result<Tree<A, W>, LoadError> {
    let main = model.files[0].path.clone();
    let mut lowering = Lowered {
        registry,
        options,
        first: RefCell::new(Some(model)),
        names: OnceCell::new(),
        model: OnceCell::new(),
        kept: RefCell::new(Vec::new()),
        remaps: RefCell::new(Vec::new()),
        failed: RefCell::new(None),
        warnings,
    };
    let lowered = TreeSource::Lowered {
        lowering: &mut lowering,
        format: Format::Json,
        name: &main,
    };
    let tree = registry
        .loading(lowered)
        .own_types(&emulated_types())
        .load()
        .map_err(|e| lowering.error(&main, e))?;
    // A script's warning, strict: the load fails at the script.
    match lowering.failed.take() {
        Some(e) => Err(e),
        None => Ok(tree),
    }
}

/// The model as the registry's loader takes it: the document made on
/// demand, positions named from the model.
struct Lowered<'r, A, W> {
    registry: &'r Registry<A, W>,
    options: &'r XmlOptions,
    /// The model as read, until the document is made from it.
    first: RefCell<Option<Model>>,
    /// What every document borrows, taken from the first model.
    names: OnceCell<Names>,
    /// The model read again from the texts, when an error needs it.
    model: OnceCell<Model>,
    /// The files' texts while the model is let go of.
    kept: RefCell<Vec<Kept>>,
    /// The keys the last document made renamed.
    remaps: RefCell<Vec<Remap>>,
    /// Why the document could not be made (or, strict, a script's warning).
    failed: RefCell<Option<LoadError>>,
    /// Where the scripts' warnings go.
    warnings: &'r Warnings,
}

impl<A: 'static, W: 'static> Lowered<'_, A, W> {
    /// The model, read again from the texts kept if it was let go of
    /// (`None` if that fails, which reading it the first time did not).
    fn model(&self) -> Option<&Model> {
        if self.model.get().is_none() {
            let kept = std::mem::take(&mut *self.kept.borrow_mut());
            let files = sources::reread(kept).ok()?;
            let model = crate::model::read(files, self.registry, self.options).ok()?;
            let _ = self.model.set(model);
        }
        self.model.get()
    }

    /// The registry's error as this file's, at the element it is about.
    fn error(&self, main: &str, e: LoadError) -> LoadError {
        if let Some(failed) = self.failed.borrow_mut().take() {
            return failed;
        }
        match self.model() {
            Some(model) => load_error(model, &self.remaps.borrow(), e),
            None => crate::error::whole(main, e.problem().clone()),
        }
    }
}

impl<A: 'static, W: 'static> Lowering for Lowered<'_, A, W> {
    /// The first document is made from the model as read, which is then
    /// let go of (its texts kept); another, asked for to place an error,
    /// from the model read again.
    fn document(&self) -> Option<lowered::Value<'_>> {
        let first = self.first.borrow_mut().take();
        let made = match first {
            Some(mut model) => {
                let names = self.names.get_or_init(|| Names::take(&mut model));
                let made = document(&model, names, self.registry);
                *self.kept.borrow_mut() = model.files;
                made
            }
            None => {
                let model = self.model()?;
                let names = self.names.get_or_init(|| Names::of(model));
                document(model, names, self.registry)
            }
        };
        match made {
            Ok((document, remaps)) => {
                *self.remaps.borrow_mut() = remaps;
                Some(document)
            }
            Err(e) => {
                *self.failed.borrow_mut() = Some(e);
                None
            }
        }
    }

    /// Positions come from the model, not from sources: errors are placed
    /// by `load_error`, a key's first use in a message here (the model
    /// read again for it).
    fn place(&self, path: &NodePath) -> Option<String> {
        first_use(self.model()?, path)
    }

    /// The names go with the document; the model too, if a message read
    /// it again while drafting.
    fn drafted(&mut self) {
        self.names.take();
        if let Some(model) = self.model.take() {
            *self.kept.get_mut() = model.files;
        }
    }

    /// At the script's element, named by its attribute as written.
    fn warn(&self, path: &NodePath, param: &str, code: &str, warning: &ScriptError) {
        // The model read again from the texts (once), as for an error.
        let Some(model) = self.model() else {
            return;
        };
        let Some(place) = model
            .locate(path)
            .map(|n| model.nodes[model.resolve(n)].place)
        else {
            return;
        };
        let problem = Problem::Script {
            param: param.to_string(),
            code: code.to_string(),
            column: warning.column,
            problem: warning.problem.clone(),
        };
        let text = match script_error(model, place, &problem) {
            Some(xml) => xml.to_string(),
            None => problem.to_string(),
        };
        let pushed = self
            .warnings
            .at(&model.files, place, WarningKind::Script, || text);
        if let Err(e) = pushed {
            self.failed.borrow_mut().get_or_insert(e);
        }
    }
}

/// The document of every tree, as [`document`] makes it, written out as
/// a canopy tree file (JSON or RON) for the export.
pub(crate) fn tree_file<A: 'static, W: 'static>(
    model: &Model,
    registry: &Registry<A, W>,
    format: Format,
) -> Result<String, LoadError> {
    let names = Names::of(model);
    let (document, _) = document(model, &names, registry)?;
    Ok(crate::export::tree_file(&document, format))
}

/// The strings a document borrows, so that the model it is made from can
/// be let go of: each node's name, moved out of the model (by the node's
/// index), and every type name, parameter name and tree ID once.
struct Names {
    nodes: Vec<Box<str>>,
    shared: HashSet<Rc<str>>,
}

impl Names {
    /// The model's names, its nodes' moved out of it (the model's are then
    /// empty: messages read elements again from the texts).
    fn take(model: &mut Model) -> Names {
        let nodes = model
            .nodes
            .iter_mut()
            .map(|x| std::mem::take(&mut x.name))
            .collect();
        Names {
            nodes,
            shared: Names::shared_of(model),
        }
    }

    /// The model's names, copied: for a document made again to place an
    /// error, once the first names are gone.
    fn of(model: &Model) -> Names {
        Names {
            nodes: model.nodes.iter().map(|x| x.name.clone()).collect(),
            shared: Names::shared_of(model),
        }
    }

    /// Every type name, parameter name and ID of the model, once.
    fn shared_of(model: &Model) -> HashSet<Rc<str>> {
        let mut shared: HashSet<Rc<str>> = HashSet::new();
        for x in &model.nodes {
            match &x.what {
                What::Registered { type_name, params } => {
                    shared.insert(type_name.clone());
                    shared.extend(params.iter().map(|(name, _)| name.clone()));
                }
                What::SubTree(id) => {
                    shared.insert(id.as_str().into());
                }
                What::Emulated(_) => {}
            }
        }
        shared.extend(model.trees.iter().map(|t| Rc::from(t.id.as_str())));
        shared
    }

    /// The name of node `node`.
    fn node(&self, node: usize) -> &str {
        self.nodes.get(node).map_or("", |name| name)
    }

    /// `text`, a type name, parameter name or ID of the model, as kept
    /// here (every one was when the names were taken).
    fn shared<'n>(&'n self, text: &str) -> &'n str {
        self.shared.get(text).map_or("", |shared| shared)
    }
}

/// The JSON document of every tree: the one to run as `tree`; under
/// `subtrees` the trees a `<SubTree>` shares (every key its own, see
/// [`crate::scope`]), and those no `<SubTree>` reaches, each in a scope
/// of its own so that the file is checked whole.
fn document<'m, A: 'static, W: 'static>(
    model: &Model,
    names: &'m Names,
    registry: &'m Registry<A, W>,
) -> Result<(lowered::Value<'m>, Vec<Remap>), LoadError> {
    let main = &model.trees[model.main];
    let mut doc = Doc {
        model,
        names,
        registry,
        shared: Vec::new(),
        reached: HashSet::new(),
        instances: 0,
        remaps: Vec::new(),
        written: 0,
        text: 0,
        uses_keys: None,
    };
    let root = doc.node(main.root, TREE_DEPTH, &Scope::root())?;
    let mut subtrees = Vec::new();
    // Trees written so far: one definition per ID.
    let mut written = HashSet::new();
    let mut next = 0;
    // The trees a `<SubTree>` shares (and those they share in turn), then
    // each tree nothing reaches, in a scope of its own — whose own
    // `<SubTree>`s may share more (the tree to run among them).
    for unreached in (0..model.trees.len()).map(Some).chain([None]) {
        while next < doc.shared.len() {
            let i = doc.shared[next];
            next += 1;
            if written.insert(i) {
                let tree = &model.trees[i];
                let value = doc.node(tree.root, SUBTREE_DEPTH, &Scope::root())?;
                subtrees.push((Key::Str(names.shared(&tree.id)), value));
            }
        }
        let Some(i) = unreached else { break };
        if i != model.main && !doc.reached.contains(&i) && written.insert(i) {
            let tree = &model.trees[i];
            doc.instances += 1;
            let scope = Scope::root().child(&tree.id, doc.instances, &[], false);
            let value = doc.node(tree.root, SUBTREE_DEPTH, &scope)?;
            subtrees.push((Key::Str(names.shared(&tree.id)), value));
        }
    }
    // By ID, as a JSON object's fields were ordered here.
    subtrees.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let mut top = vec![(Key::Str("tree"), root)];
    if !subtrees.is_empty() {
        top.push((
            Key::Str("subtrees"),
            lowered::Value::Object(subtrees.into()),
        ));
    }
    Ok((lowered::Value::Object(top.into()), doc.remaps))
}

/// A key of a subtree that a `<SubTree>` remapped to another name, for
/// errors about the key it became.
pub(crate) struct Remap {
    /// The key it became.
    resolved: String,
    /// The subtree's own name for it.
    local: String,
    /// The `<SubTree>` element.
    place: Place,
}

/// Most bytes of parameters and scripts the trees of one load may hold
/// once every `<SubTree>` with keys of its own is copied (twice the XML
/// a load reads): a copy repeats its subtree's scripts, so a small file
/// can stand for gigabytes of them.
pub const MAX_PARAMETER_BYTES: u64 = 2 * crate::sources::MAX_XML_BYTES;

/// The bytes of text a parameter's value holds.
fn text_bytes(value: &Value) -> u64 {
    match value {
        Value::String(text) => text.len() as u64,
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        Value::Object(fields) => fields
            .iter()
            .map(|(k, v)| k.len() as u64 + text_bytes(v))
            .sum(),
        _ => 0,
    }
}

/// A boolean as BehaviorTree.CPP's `convertFromString<bool>` reads one.
fn btcpp_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "true" | "TRUE" | "True" => Some(true),
        "0" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// Deepest bracket the registry's JSON parser reads (it refuses the 128th).
const MAX_BRACKETS: usize = canopy_data::MAX_NESTING - 1;

/// Bracket depth of the root node object of `tree` and of a subtree.
const TREE_DEPTH: usize = 2;
const SUBTREE_DEPTH: usize = 3;

/// Brackets a value nests (0 for a number or a string).
fn brackets(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(brackets).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(brackets).max().unwrap_or(0),
        _ => 0,
    }
}

/// The document being written.
struct Doc<'x, 'm, A, W> {
    model: &'x Model,
    names: &'m Names,
    registry: &'m Registry<A, W>,
    /// Trees a `<SubTree>` shares, in the order first met.
    shared: Vec<usize>,
    /// Trees some `<SubTree>` reaches, shared or copied.
    reached: HashSet<usize>,
    /// Scopes of their own made so far, which number their keys.
    instances: usize,
    /// Keys remapped to another name by the `<SubTree>`s copied.
    remaps: Vec<Remap>,
    /// Node objects written so far: copies of subtrees multiply them, so
    /// they are bounded as a file's nodes are.
    written: usize,
    /// Bytes of parameters (scripts among them) written so far: copies
    /// multiply them too, and a node may hold many.
    text: u64,
    /// Whether each tree names a key, once asked.
    uses_keys: Option<Vec<bool>>,
}

impl<'m, A: 'static, W: 'static> Doc<'_, 'm, A, W> {
    /// One node object, at bracket depth `depth`, its keys resolved in
    /// `scope`; its name is left out when it is the type's.
    fn node(
        &mut self,
        node: usize,
        depth: usize,
        scope: &Scope,
    ) -> Result<lowered::Value<'m>, LoadError> {
        let model = self.model;
        let x = &model.nodes[node];
        self.written += 1;
        if self.written > canopy_data::MAX_NODES {
            return Err(model.fail(
                x.place,
                XmlLimit::CopiedNodes {
                    limit: canopy_data::MAX_NODES as u64,
                },
            ));
        }
        let names = self.names;
        let name = names.node(node);
        let mut fields = Vec::with_capacity(field_count(x, name));
        let mut deepest = depth;
        let type_name: &'m str = match &x.what {
            What::Registered { type_name, params } => {
                // This crate's own types, for a key a <SubTree> remapped to
                // a value, which their ports read as the registry's would.
                let own = emulated_params(type_name);
                let declared = self.registry.get(type_name).map(|t| t.params());
                let declared = declared.or(own.as_deref());
                let typed = |port: &str, text: &str| {
                    let kind = declared.and_then(|d| d.iter().find(|p| p.name == port));
                    kind.and_then(|p| crate::params::to_value(self.registry, &p.kind, text).ok())
                        .unwrap_or_else(|| Value::String(text.to_string()))
                };
                for (param, value) in scope.params(type_name, params, &typed) {
                    self.spend(text_bytes(&value), x.place)?;
                    deepest = deepest.max(depth + brackets(&value));
                    let param = names.shared(param);
                    fields.push((Key::Str(param), lowered::from_json_owned(value)));
                }
                names.shared(type_name)
            }
            What::SubTree(id) => {
                if let Some(copy) = self.subtree(node, id, depth, scope)? {
                    return Ok(copy);
                }
                fields.push((Key::Str("tree"), lowered::Value::Str(names.shared(id))));
                canopy_data::SUBTREE_TYPE
            }
            What::Emulated(emulated) => emulated
                .lower(|name, value| fields.push((Key::Str(name), lowered::Value::Int(value)))),
        };
        let children_at = depth + 2;
        if deepest > MAX_BRACKETS || (!x.children.is_empty() && children_at > MAX_BRACKETS) {
            return Err(model.fail(x.place, crate::model::too_deep()));
        }
        if name != type_name {
            fields.push((Key::Str("name"), lowered::Value::Str(name)));
        }
        fields.push((Key::Str("type"), lowered::Value::Str(type_name)));
        if !x.children.is_empty() {
            let mut children = Vec::with_capacity(x.children.len());
            for &c in &x.children {
                children.push(self.node(c, children_at, scope)?);
            }
            fields.push((Key::Str("children"), lowered::Value::List(children.into())));
        }
        // In name order, as a JSON object's fields were ordered here.
        fields.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        Ok(lowered::Value::Object(fields.into()))
    }

    /// A `<SubTree>` whose keys are not all the parent's own: a copy of
    /// the subtree's nodes with its keys resolved. `None` where it is
    /// shared (a `SubTree` node of the document).
    fn subtree(
        &mut self,
        node: usize,
        id: &str,
        depth: usize,
        scope: &Scope,
    ) -> Result<Option<lowered::Value<'m>>, LoadError> {
        let model = self.model;
        let Some(&tree) = model.ids.get(id) else {
            return Ok(None);
        };
        self.reached.insert(tree);
        let place = model.nodes[node].place;
        let element = model.element(place);
        // As written, and the defaults of its tree's model.
        let ports = model.subtree_ports(node);
        let autoremap = match element.attr("_autoremap") {
            None => false,
            Some(text) => btcpp_bool(text).ok_or_else(|| {
                model.fail(
                    place,
                    XmlProblem::NotABoolean {
                        attribute: "_autoremap".to_string(),
                        value: text.to_string(),
                    },
                )
            })?,
        };
        drop(element);
        // A scope is made at each copy of the tree this <SubTree> is in:
        // its remapping is paid for as the parameters written are.
        let remapping = ports.iter().map(|(k, v)| (k.len() + v.len()) as u64);
        self.spend(remapping.sum(), place)?;
        let child = scope.child(id, self.instances + 1, &ports, autoremap);
        if child.is_identity() || !self.uses_keys(tree) {
            if !self.shared.contains(&tree) {
                self.shared.push(tree);
            }
            return Ok(None);
        }
        self.instances += 1;
        for (local, _) in &ports {
            if let Resolved::Key(resolved) = child.resolve(local)
                && resolved != *local
            {
                self.remaps.push(Remap {
                    resolved,
                    local: local.clone(),
                    place,
                });
            }
        }
        drop(ports);
        self.node(model.trees[tree].root, depth, &child).map(Some)
    }

    /// Count `bytes` more of parameters, scripts and remappings written,
    /// refused past [`MAX_PARAMETER_BYTES`] at the element at `place`.
    fn spend(&mut self, bytes: u64, place: Place) -> Result<(), LoadError> {
        self.text += bytes;
        if self.text <= MAX_PARAMETER_BYTES {
            return Ok(());
        }
        Err(self.model.fail(
            place,
            XmlLimit::ParameterBytes {
                limit: MAX_PARAMETER_BYTES,
            },
        ))
    }
}

impl<A, W> Doc<'_, '_, A, W> {
    /// Whether a tree names any blackboard key (a port's `{key}`, a
    /// script), through its subtrees: found for every tree at the first
    /// question, in one pass over the model (asking at each `<SubTree>`
    /// with a walk of its own was the model's size per reference).
    fn uses_keys(&mut self, tree: usize) -> bool {
        let model = self.model;
        self.uses_keys
            .get_or_insert_with(|| model.trees_using_keys())
            .get(tree)
            .copied()
            .unwrap_or(false)
    }
}

impl Model {
    /// For each tree, whether it names a blackboard key, itself or through
    /// the trees its `<SubTree>`s name: each tree's own nodes looked at
    /// once, then the answer carried to every tree that refers to one that
    /// does.
    fn trees_using_keys(&self) -> Vec<bool> {
        let mut uses = vec![false; self.trees.len()];
        // Who refers to each tree.
        let mut referrers: Vec<Vec<usize>> = vec![Vec::new(); self.trees.len()];
        for (t, tree) in self.trees.iter().enumerate() {
            let mut stack = vec![tree.root];
            while let Some(n) = stack.pop() {
                let node = &self.nodes[n];
                match &node.what {
                    What::Registered { type_name, params } => {
                        let braces = params
                            .iter()
                            .map(|(_, v)| v)
                            .any(|v| v.as_str().is_some_and(|s| s.contains('{')));
                        let canopy = crate::standard::CANOPY_PREFIX;
                        let type_name = type_name.strip_prefix(canopy).unwrap_or(type_name);
                        uses[t] |= braces || EvalKind::from_name(type_name).is_some();
                    }
                    What::SubTree(id) => {
                        if let Some(&to) = self.ids.get(id) {
                            referrers[to].push(t);
                        }
                    }
                    What::Emulated(_) => {}
                }
                stack.extend(node.children.iter());
            }
        }
        let mut carry: Vec<usize> = (0..uses.len()).filter(|&t| uses[t]).collect();
        while let Some(t) = carry.pop() {
            for &by in &referrers[t] {
                if !uses[by] {
                    uses[by] = true;
                    carry.push(by);
                }
            }
        }
        uses
    }
}

/// How many fields a node's object has: made with room for exactly
/// these, its boxed slice needs no second allocation (hundreds of
/// thousands of nodes in a large file).
fn field_count(x: &crate::model::XNode, name: &str) -> usize {
    let (type_name, params) = match &x.what {
        What::Registered { type_name, params } => (&**type_name, params.len()),
        What::SubTree(_) => (canopy_data::SUBTREE_TYPE, 1),
        What::Emulated(emulated) => emulated::lowered_size(*emulated),
    };
    let name = usize::from(name != type_name);
    let children = usize::from(!x.children.is_empty());
    params + name + 1 + children
}

impl Model {
    /// The node a `<SubTree>` stands for (through any number of them).
    pub(crate) fn resolve(&self, mut node: usize) -> usize {
        // The checks ruled out cycles, so this ends.
        while let What::SubTree(id) = &self.nodes[node].what {
            match self.tree(id) {
                Some(tree) => node = tree.root,
                None => break,
            }
        }
        node
    }

    /// The node at a path of the lowered document.
    fn locate(&self, path: &NodePath) -> Option<usize> {
        let mut node = match &path.root {
            PathRoot::Tree => self.trees[self.main].root,
            PathRoot::Subtree(name) => self.tree(name)?.root,
        };
        for step in &path.steps {
            let PathStep::Child(index) = step else {
                continue;
            };
            node = *self.nodes[self.resolve(node)]
                .children
                .get(*index as usize)?;
        }
        Some(node)
    }

    /// An error where no element is to blame: at the tree to run.
    fn at_main(&self, problem: impl Into<crate::error::XmlIssue>) -> LoadError {
        self.fail(self.trees[self.main].place, problem)
    }
}

/// The registry's error, at the element it is about.
fn load_error(model: &Model, remaps: &[Remap], e: LoadError) -> LoadError {
    let place = match e.location() {
        // A built tree's path ends at what a <SubTree> stands for; the
        // loader's own errors at a <SubTree> were ruled out by the checks.
        Location::Node { path, .. } => model
            .locate(path)
            .map(|node| model.nodes[model.resolve(node)].place),
        _ => None,
    };
    let problem = key_type(model, remaps, e.problem())
        .or_else(|| place.and_then(|place| script_error(model, place, e.problem())))
        .map_or_else(|| e.problem().clone(), Problem::Xml);
    match place {
        Some(place) => model.fail(place, problem),
        None => model.at_main(problem),
    }
}

/// The node at a path of the lowered document as this file shows places:
/// line, column and element.
fn first_use(model: &Model, path: &NodePath) -> Option<String> {
    let node = model.locate(path)?;
    Some(model.shown(model.nodes[model.resolve(node)].place))
}

/// A key given two types, its first use shown as this file shows places:
/// line, column and element.
fn key_type(model: &Model, remaps: &[Remap], problem: &Problem) -> Option<XmlProblem> {
    let Problem::KeyType(conflict) = problem else {
        return None;
    };
    let first = first_use(model, &conflict.first_node)?;
    // Where the key got its names, when <SubTree>s renamed it.
    let remapped = remaps
        .iter()
        .filter(|r| r.resolved == conflict.key)
        .map(|r| (r.local.to_string(), model.shown(r.place)))
        .collect();
    let conflict = Box::new(KeyConflict {
        first,
        ..(**conflict).clone()
    });
    Some(XmlProblem::KeyType { conflict, remapped })
}

/// A script error in a script canopy wrote for an element (a pre- or
/// post-condition attribute, a Precondition, a Switch's case, a Loop's
/// item), named by the element's attribute rather than canopy's parameter.
fn script_error(model: &Model, place: Place, problem: &Problem) -> Option<XmlProblem> {
    let Problem::Script {
        param,
        code,
        column,
        problem,
    } = problem
    else {
        return None;
    };
    let element = model.element(place);
    let id = element.attr("ID").unwrap_or(element.tag());
    let list_item = |prefix: &str| {
        let index = param.strip_prefix(prefix)?.strip_suffix(']')?;
        index.parse::<usize>().ok()
    };
    let (attribute, code, column) = if let Some(i) = list_item("cases[").or(list_item("values[")) {
        (format!("case_{}", i + 1), code.as_str(), *column)
    } else if list_item("items[").is_some() {
        ("queue".to_string(), code.as_str(), *column)
    } else if id == "Precondition" && param == "precondition" {
        ("if".to_string(), code.as_str(), *column)
    } else if id.starts_with("Loop") && matches!(param.as_str(), "queue" | "value") {
        (param.clone(), code.as_str(), *column)
    } else if id == "SetBlackboard" && param == "value" {
        ("value".to_string(), code.as_str(), *column)
    } else {
        let attr = crate::standard::condition_script_attr(param)?;
        (attr.to_string(), code.as_str(), *column)
    };
    Some(XmlProblem::Script {
        attribute,
        code: code.to_string(),
        column,
        problem: problem.clone(),
    })
}
