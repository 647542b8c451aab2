//! Nodes → a canopy tree, through the registry's own loader.
//!
//! The registry builds registered types only from tree documents, so the
//! nodes are lowered to one document — the same document a JSON file of
//! the same tree would be, node for node and field for field, so
//! parameters are checked by the same code and numbered (the salt of
//! `Random` and `Chance`) in the same order — in the registry's compact
//! form, borrowing the model's names, never written out as text. (A JSON
//! value tree here, a search tree and a heap string per field, was the
//! largest thing a large XML file became.) This crate's own nodes go in as stand-ins of a registered
//! type with the same number of children; when the tree to run holds any,
//! the loaded tree is copied into a new one with the stand-ins replaced.

use std::collections::{HashMap, HashSet};

use canopy_core::{
    Arity, BuildError, Builder, CustomNode, Draft, NodeId, NodeKind, NodeRef, Tree, TreePath,
};
use canopy_data::Format;
use canopy_data::document::{self as lowered, Key};
use canopy_data::{LoadError, Location, NodePath, PathRoot, PathStep, Problem, Registry};
use serde_json::Value;

use crate::check::Plan;
use crate::error::XmlError;
use crate::model::{Model, Own, Place, What};
use crate::nodes;
use crate::scope::{Resolved, Scope};
use crate::text::{escape_controls, quote};

/// The tree to run.
pub(crate) fn build<A: 'static, W: 'static>(
    model: &Model,
    registry: &Registry<A, W>,
    plan: &Plan,
) -> Result<Tree<A, W>, XmlError> {
    let stand_ins = StandIns::find(registry);
    let (document, remaps) = document(model, registry, &stand_ins)?;
    let main = &model.files[0].path;
    // Positions come from the model, not from sources: errors are placed
    // by `load_error`, a key's first use in a message by `first_use`.
    let places = |path: &NodePath| first_use(model, path);
    let loaded = registry
        .load_document_placed(&document, &[], Format::Json, main, &places)
        .map_err(|e| load_error(model, &remaps, e))?;
    drop(document);
    if !plan.has_own {
        return Ok(loaded);
    }
    let builder = Builder::new();
    // The same keys in the same order: the same slots at the same places,
    // which the copied nodes' ports point at.
    for slot in loaded.slots() {
        builder
            .slot(&slot.key, slot.ty.clone())
            .map_err(|e| model.at_main(e.to_string()))?;
    }
    let mut copy = Copy {
        model,
        builder: &builder,
        done: HashMap::new(),
    };
    let root = copy.node(model.trees[model.main].root, loaded.node(loaded.root()));
    builder.build(root).map_err(|e| build_error(model, e))
}

/// Registered types that stand in for this crate's nodes while the
/// registry loads the document: one per arity, without required parameters.
struct StandIns {
    composite: Option<String>,
    decorator: Option<String>,
}

impl StandIns {
    fn find<A: 'static, W: 'static>(registry: &Registry<A, W>) -> StandIns {
        let pick = |arity: Arity, preferred: &str| {
            let usable = |t: &canopy_data::NodeType<A, W>| {
                t.arity() == arity
                    && !t.is_condition()
                    && t.params().iter().all(|p| p.default.is_some())
            };
            registry
                .get(preferred)
                .filter(|t| usable(t))
                .or_else(|| registry.types().find(|t| usable(t)))
                .map(|t| t.name().to_string())
        };
        StandIns {
            composite: pick(Arity::Composite, "Sequence"),
            decorator: pick(Arity::Decorator, "Inverter"),
        }
    }
}

/// The JSON document of every tree: the one to run as `tree`; under
/// `subtrees` the trees a `<SubTree>` shares (every key its own, see
/// [`crate::scope`]), and those no `<SubTree>` reaches, each in a scope
/// of its own so that the file is checked whole.
fn document<'m, A: 'static, W: 'static>(
    model: &'m Model,
    registry: &'m Registry<A, W>,
    stand_ins: &'m StandIns,
) -> Result<(lowered::Value<'m>, Vec<Remap>), XmlError> {
    let main = &model.trees[model.main];
    let mut doc = Doc {
        model,
        registry,
        stand_ins,
        shared: Vec::new(),
        reached: HashSet::new(),
        instances: 0,
        remaps: Vec::new(),
        written: 0,
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
                subtrees.push((Key::Str(tree.id.as_str()), value));
            }
        }
        let Some(i) = unreached else { break };
        if i != model.main && !doc.reached.contains(&i) && written.insert(i) {
            let tree = &model.trees[i];
            doc.instances += 1;
            let scope = Scope::root().child(&tree.id, doc.instances, &[], false);
            let value = doc.node(tree.root, SUBTREE_DEPTH, &scope)?;
            subtrees.push((Key::Str(tree.id.as_str()), value));
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
    place: crate::model::Place,
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
struct Doc<'m, A, W> {
    model: &'m Model,
    registry: &'m Registry<A, W>,
    stand_ins: &'m StandIns,
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
}

impl<'m, A: 'static, W: 'static> Doc<'m, A, W> {
    /// One node object, at bracket depth `depth`, its keys resolved in
    /// `scope`; its name is left out when it is the type's.
    fn node(
        &mut self,
        node: usize,
        depth: usize,
        scope: &Scope,
    ) -> Result<lowered::Value<'m>, XmlError> {
        let model = self.model;
        let x = &model.nodes[node];
        self.written += 1;
        if self.written > canopy_data::MAX_NODES {
            return Err(model.fail(
                x.place,
                format!(
                    "the trees make more than {} nodes once each <SubTree> with keys of its own \
                     is copied; share keys with _autoremap=\"true\" where the subtrees can",
                    canopy_data::MAX_NODES
                ),
            ));
        }
        let mut fields = Vec::new();
        let mut deepest = depth;
        let type_name: &'m str = match &x.what {
            What::Registered { type_name, params } => {
                let declared = self.registry.get(type_name).map(|t| t.params());
                let typed = |port: &str, text: &str| {
                    let kind = declared.and_then(|d| d.iter().find(|p| p.name == port));
                    kind.and_then(|p| crate::params::to_value(self.registry, &p.kind, text).ok())
                        .unwrap_or_else(|| Value::String(text.to_string()))
                };
                for (name, value) in scope.params(type_name, params, &typed) {
                    deepest = deepest.max(depth + brackets(&value));
                    fields.push((
                        Key::Owned(name.into_boxed_str()),
                        lowered::from_json_owned(value),
                    ));
                }
                type_name
            }
            What::SubTree(id) => {
                if let Some(copy) = self.subtree(node, id, depth, scope)? {
                    return Ok(copy);
                }
                fields.push((Key::Str("tree"), lowered::Value::Str(id)));
                "SubTree"
            }
            What::Own(own) => self.stand_in(node, *own)?,
        };
        let children_at = depth + 2;
        if deepest > MAX_BRACKETS || (!x.children.is_empty() && children_at > MAX_BRACKETS) {
            return Err(model.fail(x.place, crate::model::too_deep()));
        }
        if x.name != type_name {
            fields.push((Key::Str("name"), lowered::Value::Str(&x.name)));
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
    ) -> Result<Option<lowered::Value<'m>>, XmlError> {
        let model = self.model;
        let Some(&tree) = model.ids.get(id) else {
            return Ok(None);
        };
        self.reached.insert(tree);
        let element = &model.files[model.nodes[node].place.file].dom.elements
            [model.nodes[node].place.element];
        let ports: Vec<(String, String)> = element
            .attrs
            .iter()
            .filter(|(k, _)| !k.starts_with('_') && k != "ID" && k != "name")
            .cloned()
            .collect();
        let autoremap = element.attr("_autoremap") == Some("true");
        let child = scope.child(id, self.instances + 1, &ports, autoremap);
        if child.is_identity() || !model.uses_keys(tree) {
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
                    place: model.nodes[node].place,
                });
            }
        }
        self.node(model.trees[tree].root, depth, &child).map(Some)
    }

    /// The registered type standing in for one of this crate's nodes.
    fn stand_in(&self, node: usize, own: Own) -> Result<&'m str, XmlError> {
        let (stand_in, arity) = match own.arity() {
            Arity::Composite => (&self.stand_ins.composite, "control"),
            _ => (&self.stand_ins.decorator, "decorator"),
        };
        stand_in.as_deref().ok_or_else(|| {
            self.model.fail(
                self.model.nodes[node].place,
                format!(
                    "the registry has no {arity} type without required parameters, which \
                     loading this node needs (a registry from Registry::new() has them)"
                ),
            )
        })
    }
}

impl Model {
    /// Whether a tree names any blackboard key (a port's `{key}`, a
    /// script), through its subtrees. The checks ruled out cycles.
    fn uses_keys(&self, tree: usize) -> bool {
        let mut stack = vec![self.trees[tree].root];
        let mut seen = HashSet::new();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            let node = &self.nodes[n];
            match &node.what {
                What::Registered { type_name, params } => {
                    let braces = params
                        .iter()
                        .map(|(_, v)| v)
                        .any(|v| v.as_str().is_some_and(|s| s.contains('{')));
                    if braces || type_name.starts_with("Eval") {
                        return true;
                    }
                }
                What::SubTree(id) => {
                    if let Some(&t) = self.ids.get(id) {
                        stack.push(self.trees[t].root);
                    }
                }
                What::Own(_) => {}
            }
            stack.extend(node.children.iter());
        }
        false
    }
}

impl Own {
    fn arity(self) -> Arity {
        match self {
            Own::Parallel { .. } | Own::ParallelAll { .. } | Own::IfThenElse | Own::WhileDoElse => {
                Arity::Composite
            }
            _ => Arity::Decorator,
        }
    }

    /// The custom node, for `children` children.
    fn node<A: 'static, W: 'static>(self, children: usize) -> CustomNode<A, W> {
        match self {
            Own::Parallel {
                success_count,
                failure_count,
            } => CustomNode::new(nodes::Parallel {
                success_count,
                failure_count,
                success_needed: nodes::threshold(success_count, children),
                failure_needed: nodes::threshold(failure_count, children),
            }),
            Own::ParallelAll { max_failures } => CustomNode::new(nodes::ParallelAll {
                max_failures,
                failures_needed: nodes::threshold(max_failures, children),
            }),
            Own::IfThenElse => CustomNode::new(nodes::IfThenElse),
            Own::WhileDoElse => CustomNode::new(nodes::WhileDoElse),
            Own::KeepRunningUntilFailure => CustomNode::new(nodes::KeepRunningUntilFailure),
            Own::Repeat(count) => CustomNode::new(nodes::Loop {
                type_name: "Repeat",
                param: "num_cycles",
                count,
                until: canopy_core::Status::Success,
            }),
            Own::Retry(count) => CustomNode::new(nodes::Loop {
                type_name: "RetryUntilSuccessful",
                param: "num_attempts",
                count,
                until: canopy_core::Status::Failure,
            }),
            Own::Delay { msec, ticks } => CustomNode::new(nodes::Delay {
                delay_msec: msec,
                ticks,
            }),
            Own::NoTimeout => CustomNode::new(nodes::NoTimeout),
        }
    }
}

/// Copies a loaded tree, node by node, beside the model it came from.
struct Copy<'m, 'b, A, W> {
    model: &'m Model,
    builder: &'b Builder<'b, A, W>,
    /// Nodes copied so far, by the loaded node: a shared tree stays
    /// shared, and each copy of a subtree with keys of its own stays apart.
    done: HashMap<NodeId, &'b Draft<'b, A, W>>,
}

impl<'b, A: 'static, W: 'static> Copy<'_, 'b, A, W> {
    fn node(&mut self, node: usize, loaded: NodeRef<'_, A, W>) -> &'b Draft<'b, A, W> {
        let node = self.model.resolve(node);
        if let Some(done) = self.done.get(&loaded.id()) {
            return done;
        }
        let x = &self.model.nodes[node];
        let children: Vec<_> = x
            .children
            .iter()
            .zip(loaded.children())
            .map(|(&child, loaded)| self.node(child, loaded))
            .collect();
        let draft = match &x.what {
            What::Own(own) => {
                let custom = own.node(children.len());
                self.builder
                    .node(&x.name, NodeKind::Custom(custom), children)
            }
            _ => self.builder.typed_node(
                loaded.name(),
                loaded.type_name(),
                loaded.params(),
                loaded.kind().clone(),
                children,
            ),
        };
        self.done.insert(loaded.id(), draft);
        draft
    }
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

    /// The node at a path of the built tree to run.
    fn locate_built(&self, path: &TreePath) -> Option<usize> {
        let mut node = self.trees[self.main].root;
        for &index in path.steps() {
            node = *self.nodes[self.resolve(node)]
                .children
                .get(index as usize)?;
        }
        Some(node)
    }

    /// An error where no element is to blame: at the tree to run.
    fn at_main(&self, problem: String) -> XmlError {
        self.fail(self.trees[self.main].place, problem)
    }
}

/// The registry's error, at the element it is about.
fn load_error(model: &Model, remaps: &[Remap], e: LoadError) -> XmlError {
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
        .unwrap_or_else(|| escape_controls(&e.problem().to_string()));
    match place {
        Some(place) => model.fail(place, problem),
        None => model.at_main(problem),
    }
}

/// The node at a path of the lowered document as this file shows places:
/// line, column and element.
fn first_use(model: &Model, path: &NodePath) -> Option<String> {
    let node = model.locate(path)?;
    let first = model.fail(model.nodes[model.resolve(node)].place, String::new());
    Some(format!(
        "{}:{}:{}: {}",
        first.file,
        first.line,
        first.column,
        first.element.unwrap_or_default()
    ))
}

/// A key given two types, its first use shown as this file shows places:
/// line, column and element.
fn key_type(model: &Model, remaps: &[Remap], problem: &Problem) -> Option<String> {
    let Problem::KeyType(conflict) = problem else {
        return None;
    };
    let place = first_use(model, &conflict.first_node)?;
    let mut text = conflict.describe(&place);
    // Where the key got its names, when <SubTree>s renamed it.
    let renamed: Vec<String> = remaps
        .iter()
        .filter(|r| r.resolved == conflict.key)
        .map(|r| {
            let at = model.fail(r.place, String::new());
            let element = at.element.unwrap_or_default();
            let local = quote(&r.local);
            format!(
                "{local} at {}:{}:{}: {element}",
                at.file, at.line, at.column
            )
        })
        .collect();
    if !renamed.is_empty() {
        text.push_str(&format!("; remapped from {}", renamed.join(", from ")));
    }
    Some(text)
}

/// A script error in a script canopy wrote for an element (a pre- or
/// post-condition attribute, a Precondition, a Switch's case, a Loop's
/// item), named by the element's attribute rather than canopy's parameter.
fn script_error(model: &Model, place: Place, problem: &Problem) -> Option<String> {
    let Problem::Script {
        param,
        code,
        column,
        problem,
    } = problem
    else {
        return None;
    };
    let element = &model.files[place.file].dom.elements[place.element];
    let id = element.attr("ID").unwrap_or(&element.tag);
    let list_item = |prefix: &str| {
        let index = param.strip_prefix(prefix)?.strip_suffix(']')?;
        index.parse::<usize>().ok()
    };
    let (attr, code, column) = if let Some(i) = list_item("cases[") {
        (format!("case_{}", i + 1), code.as_str(), *column)
    } else if list_item("items[").is_some() {
        ("queue".to_string(), code.as_str(), *column)
    } else if id == "Precondition"
        && (crate::standard::condition_script_attr(param).is_some() || param == "running_if")
    {
        // The condition as written, without the `!(…)` around it; past
        // its end the parser met that `)`, which the file does not have.
        let inner = code.strip_prefix("!(")?.strip_suffix(')')?;
        let column = column.saturating_sub(2).max(1);
        if column > inner.chars().count() {
            let problem = problem.strip_suffix(", found `)`").unwrap_or(problem);
            let text = format!("if: script {}, column {column}: {problem}", quote(inner));
            return Some(escape_controls(&text));
        }
        ("if".to_string(), inner, column)
    } else if id.starts_with("Loop") && matches!(param.as_str(), "queue" | "value") {
        (param.clone(), code.as_str(), *column)
    } else {
        let attr = crate::standard::condition_script_attr(param)?;
        (attr.to_string(), code.as_str(), *column)
    };
    let text = format!("{attr}: script {}, column {column}: {problem}", quote(code));
    Some(escape_controls(&text))
}

fn build_error(model: &Model, e: BuildError) -> XmlError {
    let problem = escape_controls(&e.problem);
    match model.locate_built(&e.path) {
        Some(node) => model.fail(model.nodes[model.resolve(node)].place, problem),
        None => model.at_main(problem),
    }
}
