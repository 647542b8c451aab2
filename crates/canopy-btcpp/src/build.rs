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
//! The model and the document live only until the registry has drafted
//! the nodes (see [`Lowering`]): building the tree is the larger part of a
//! load, and it needs the drafts alone. The files' texts are kept; an
//! error found while building, rare, reads the model again from them and
//! lowers it again to say which element it is about. Rejected: letting the
//! model go before drafting (the registry names a key's first use through
//! the model while it drafts, and a document owning its strings would copy
//! every name); lowering nodes straight into drafts (the registry checks
//! fields and parameters on a document, as it does a JSON file's).
//!
//! This crate's own nodes (BehaviorTree.CPP nodes whose semantics no
//! registered type has) go in as node objects of types of this crate's
//! own, which the registry's loader finds before its own types and builds
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

use canopy_core::{
    Arity, CustomNode, Input, NodeKind, Param, ParamError, Params, Status, Tree, Updates,
};
use canopy_data::Format;
use canopy_data::document::{self as lowered, Key};
use canopy_data::{
    LoadError, Location, Lowering, NodePath, NodeType, PathRoot, PathStep, Problem, Registry,
};
use serde_json::Value;

use crate::XmlOptions;
use crate::error::XmlError;
use crate::model::{Model, Own, Place, What};
use crate::nodes;
use crate::scope::{Resolved, Scope};
use crate::sources::{self, Kept};
use crate::text::{escape_controls, quote};

/// The tree to run. The model is let go of once the registry has drafted
/// its nodes (the files' texts kept): it was, with the document, more than
/// the tree being built, and only an error found while building it needs
/// the model again, read anew from the texts.
pub(crate) fn build<A: 'static, W: 'static>(
    model: Model,
    registry: &Registry<A, W>,
    options: &XmlOptions,
) -> Result<Tree<A, W>, XmlError> {
    let main = model.files[0].path.clone();
    let mut lowering = Lowered {
        registry,
        options,
        model: OnceCell::from(model),
        kept: RefCell::new(Vec::new()),
        remaps: RefCell::new(Vec::new()),
        failed: RefCell::new(None),
    };
    registry
        .load_lowered(&mut lowering, Format::Json, &main, &own_types())
        .map_err(|e| lowering.error(&main, e))
}

/// The model as the registry's loader takes it: the document made on
/// demand, positions named from the model.
struct Lowered<'r, A, W> {
    registry: &'r Registry<A, W>,
    options: &'r XmlOptions,
    /// Empty once the nodes are drafted, until an error needs it again.
    model: OnceCell<Model>,
    /// The files' texts while the model is let go of.
    kept: RefCell<Vec<Kept>>,
    /// The keys the last document made renamed.
    remaps: RefCell<Vec<Remap>>,
    /// Why the document could not be made.
    failed: RefCell<Option<XmlError>>,
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
    fn error(&self, main: &str, e: LoadError) -> XmlError {
        if let Some(failed) = self.failed.borrow_mut().take() {
            return failed;
        }
        match self.model() {
            Some(model) => load_error(model, &self.remaps.borrow(), e),
            None => XmlError::whole(main, escape_controls(&e.problem().to_string())),
        }
    }
}

impl<A: 'static, W: 'static> Lowering for Lowered<'_, A, W> {
    fn document(&self) -> Option<lowered::Value<'_>> {
        match document(self.model()?, self.registry) {
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
    /// by `load_error`, a key's first use in a message here.
    fn place(&self, path: &NodePath) -> Option<String> {
        first_use(self.model.get()?, path)
    }

    fn drafted(&mut self) {
        if let Some(model) = self.model.take() {
            *self.kept.get_mut() = model.files;
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
) -> Result<(lowered::Value<'m>, Vec<Remap>), XmlError> {
    let main = &model.trees[model.main];
    let mut doc = Doc {
        model,
        registry,
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
        let mut fields = Vec::with_capacity(field_count(x));
        let mut deepest = depth;
        let type_name: &'m str = match &x.what {
            What::Registered { type_name, params } => {
                // This crate's own types, for a key a <SubTree> remapped to
                // a value, which their ports read as the registry's would.
                let own = own_params(type_name);
                let declared = self.registry.get(type_name).map(|t| t.params());
                let declared = declared.or(own.as_deref());
                let typed = |port: &str, text: &str| {
                    let kind = declared.and_then(|d| d.iter().find(|p| p.name == port));
                    kind.and_then(|p| crate::params::to_value(self.registry, &p.kind, text).ok())
                        .unwrap_or_else(|| Value::String(text.to_string()))
                };
                for (name, value) in scope.params(type_name, params, &typed) {
                    deepest = deepest.max(depth + brackets(&value));
                    fields.push((Key::Str(name), lowered::from_json_owned(value)));
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
            What::Own(own) => {
                let (index, values) = own.lowered();
                let own_type = &OWN_TYPES[index];
                for (&name, value) in own_type.lowered.iter().zip(values) {
                    fields.push((Key::Str(name), lowered::Value::Int(value)));
                }
                own_type.key
            }
        };
        let children_at = depth + 2;
        if deepest > MAX_BRACKETS || (!x.children.is_empty() && children_at > MAX_BRACKETS) {
            return Err(model.fail(x.place, crate::model::too_deep()));
        }
        if *x.name != *type_name {
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
        let element = model.element(model.nodes[node].place);
        let ports: Vec<(String, String)> = element
            .attrs()
            .filter(|(k, _)| !k.starts_with('_') && *k != "ID" && *k != "name")
            .map(|(k, v)| (k.to_string(), v.to_string()))
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

/// How many fields a node's object has: made with room for exactly
/// these, its boxed slice needs no second allocation (hundreds of
/// thousands of nodes in a large file).
fn field_count(x: &crate::model::XNode) -> usize {
    let (type_name, params) = match &x.what {
        What::Registered { type_name, params } => (&**type_name, params.len()),
        What::SubTree(_) => ("SubTree", 1),
        What::Own(own) => {
            let own_type = &OWN_TYPES[own.lowered().0];
            (own_type.key, own_type.lowered.len())
        }
    };
    let name = usize::from(*x.name != *type_name);
    let children = usize::from(!x.children.is_empty());
    params + name + 1 + children
}

/// One kind of this crate's own nodes as the registry's loader takes it:
/// its type's name in the lowered document, how many children it takes,
/// its parameters, and the node their checked values make. A standard
/// node whose ports the file gives as values ([`Own`]) is lowered with
/// the integers of `lowered`, in that order; one whose ports read the
/// blackboard, and the entry-update nodes, by name ([`crate::ported`]),
/// their keys resolved in the subtree's scope as any port's.
struct OwnType {
    key: &'static str,
    arity: Arity,
    params: fn() -> Vec<Param>,
    lowered: &'static [&'static str],
    make: fn(&Params) -> Result<Made, ParamError>,
}

/// The node of an own type, before it is given the tree's agent and world
/// types.
enum Made {
    Parallel(nodes::Parallel),
    ParallelAll(nodes::ParallelAll),
    IfThenElse,
    WhileDoElse,
    KeepRunningUntilFailure,
    Loop(nodes::Loop),
    Delay(nodes::Delay),
    Timeout(nodes::Timeout),
    Sleep(nodes::Sleep),
    RunOnce(nodes::RunOnce),
    WasEntryUpdated(nodes::WasEntryUpdated),
    EntryUpdated(nodes::EntryUpdated),
    UnsetBlackboard(nodes::UnsetBlackboard),
}

impl Made {
    fn node<A: 'static, W: 'static>(self) -> CustomNode<A, W> {
        match self {
            Made::Parallel(n) => CustomNode::new(n),
            Made::ParallelAll(n) => CustomNode::new(n),
            Made::IfThenElse => CustomNode::new(nodes::IfThenElse),
            Made::WhileDoElse => CustomNode::new(nodes::WhileDoElse),
            Made::KeepRunningUntilFailure => CustomNode::new(nodes::KeepRunningUntilFailure),
            Made::Loop(n) => CustomNode::new(n),
            Made::Delay(n) => CustomNode::new(n),
            Made::Timeout(n) => CustomNode::new(n),
            Made::Sleep(n) => CustomNode::new(n),
            Made::RunOnce(n) => CustomNode::new(n),
            Made::WasEntryUpdated(n) => CustomNode::new(n),
            Made::EntryUpdated(n) => CustomNode::new(n),
            Made::UnsetBlackboard(n) => CustomNode::new(n),
        }
    }
}

/// Parameters of own types the node uses but does not show: how long a
/// tick is, and the keys that hold a node's memory.
const UNSHOWN: [&str; 3] = ["tick_ms", "memory", "seen"];

/// The parameters a node shows: as the file gave them, its memory left out.
fn shown(params: &Params) -> nodes::Shown {
    let mut shown = params.shown();
    shown.retain(|(name, _)| !UNSHOWN.contains(&name.as_str()));
    shown
}

/// A port of `T`, read from the file or the blackboard.
fn port<T: canopy_core::FromParam>(name: &str) -> Param {
    Param::of::<T>(name, "as the XML gives it: a value, or a key in braces")
}

/// How long a tick is, for durations read from the blackboard.
fn tick_ms() -> Param {
    Param::int("tick_ms", "milliseconds per tick").optional()
}

/// A key of the node's own memory.
fn memory(name: &str) -> Param {
    Param::of::<canopy_core::Output<u32>>(name, "the node's memory across activations")
}

/// A duration in milliseconds, with its `ticks` when the file gave it.
fn msec(params: &Params, name: &str, ticks: Option<u32>) -> Result<nodes::Msec, ParamError> {
    let tick_ms = params.get::<Option<u32>>("tick_ms")?.unwrap_or(1);
    Ok(nodes::Msec {
        msec: params.get(name)?,
        ticks,
        tick_ms,
    })
}

/// A key of the node's own memory, as its parameter holds it.
fn memory_key(params: &Params, name: &str) -> Result<canopy_core::Key<u32>, ParamError> {
    match params.get::<canopy_core::Output<u32>>(name)? {
        canopy_core::Output(Some(key)) => Ok(key),
        canopy_core::Output(None) => Err(ParamError::invalid(format!("{name} needs a key"))),
    }
}

/// How a parent reads a SKIPPED, as a lowering wrote it.
fn skipped(params: &Params) -> Result<Status, ParamError> {
    match params.text("skipped")? {
        "success" => Ok(Status::Success),
        _ => Ok(Status::Failure),
    }
}

/// Every kind of this crate's own nodes; [`Own::lowered`] names them by
/// index.
const OWN_TYPES: [OwnType; 13] = [
    OwnType {
        key: "btcpp:Parallel",
        arity: Arity::Composite,
        params: || {
            vec![
                port::<Input<i32>>("success_count"),
                port::<Input<i32>>("failure_count"),
            ]
        },
        lowered: &["success_count", "failure_count"],
        make: |p| {
            Ok(Made::Parallel(nodes::Parallel {
                success_count: p.get("success_count")?,
                failure_count: p.get("failure_count")?,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:ParallelAll",
        arity: Arity::Composite,
        params: || vec![port::<Input<i32>>("max_failures")],
        lowered: &["max_failures"],
        make: |p| {
            Ok(Made::ParallelAll(nodes::ParallelAll {
                max_failures: p.get("max_failures")?,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:IfThenElse",
        arity: Arity::Composite,
        params: Vec::new,
        lowered: &[],
        make: |_| Ok(Made::IfThenElse),
    },
    OwnType {
        key: "btcpp:WhileDoElse",
        arity: Arity::Composite,
        params: Vec::new,
        lowered: &[],
        make: |_| Ok(Made::WhileDoElse),
    },
    OwnType {
        key: "btcpp:KeepRunningUntilFailure",
        arity: Arity::Decorator,
        params: Vec::new,
        lowered: &[],
        make: |_| Ok(Made::KeepRunningUntilFailure),
    },
    OwnType {
        key: "btcpp:Repeat",
        arity: Arity::Decorator,
        params: || vec![port::<Input<i32>>("num_cycles")],
        lowered: &["num_cycles"],
        make: |p| {
            Ok(Made::Loop(nodes::Loop {
                type_name: "Repeat",
                count: p.get("num_cycles")?,
                until: Status::Success,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:RetryUntilSuccessful",
        arity: Arity::Decorator,
        params: || vec![port::<Input<i32>>("num_attempts")],
        lowered: &["num_attempts"],
        make: |p| {
            Ok(Made::Loop(nodes::Loop {
                type_name: "RetryUntilSuccessful",
                count: p.get("num_attempts")?,
                until: Status::Failure,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:Delay",
        arity: Arity::Decorator,
        params: || {
            let ticks = Param::int("ticks", "the delay in ticks, converted at load").optional();
            vec![port::<Input<u32>>("delay_msec"), ticks, tick_ms()]
        },
        lowered: &["delay_msec", "ticks"],
        make: |p| {
            Ok(Made::Delay(nodes::Delay {
                msec: msec(p, "delay_msec", p.get("ticks")?)?,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:Timeout",
        arity: Arity::Decorator,
        // Lowered from the file only for msec="0" (others run as canopy's
        // Timeout): no parameter, no timer.
        params: || vec![port::<Input<u32>>("msec").default(0), tick_ms()],
        lowered: &[],
        make: |p| {
            let mut msec = msec(p, "msec", None)?;
            if let Input::Value(0) = msec.msec {
                msec.ticks = Some(0);
            }
            Ok(Made::Timeout(nodes::Timeout {
                msec,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:Sleep",
        arity: Arity::Leaf,
        params: || vec![port::<Input<u32>>("msec"), tick_ms()],
        lowered: &[],
        make: |p| {
            Ok(Made::Sleep(nodes::Sleep {
                msec: msec(p, "msec", None)?,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:RunOnce",
        arity: Arity::Decorator,
        params: || {
            let skipped = Param::choice(
                "skipped",
                "how the parent reads SKIPPED",
                &["success", "failure"],
            );
            vec![port::<Input<bool>>("then_skip"), skipped, memory("memory")]
        },
        lowered: &[],
        make: |p| {
            Ok(Made::RunOnce(nodes::RunOnce {
                then_skip: p.get("then_skip")?,
                skipped: skipped(p)?,
                memory: memory_key(p, "memory")?,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:WasEntryUpdated",
        arity: Arity::Leaf,
        params: || vec![entry("entry"), memory("seen")],
        lowered: &[],
        make: |p| {
            Ok(Made::WasEntryUpdated(nodes::WasEntryUpdated {
                entry: p.get("entry")?,
                seen: memory_key(p, "seen")?,
                shown: shown(p),
            }))
        },
    },
    OwnType {
        key: "btcpp:EntryUpdated",
        arity: Arity::Decorator,
        params: || {
            let otherwise = Param::choice(
                "otherwise",
                "the status when not updated",
                &["skip", "wait"],
            );
            vec![
                entry("entry"),
                memory("seen"),
                otherwise,
                Param::text("skipped", "").optional(),
            ]
        },
        lowered: &[],
        make: |p| {
            let wait = p.text("otherwise")? == "wait";
            Ok(Made::EntryUpdated(nodes::EntryUpdated {
                type_name: if wait {
                    "WaitValueUpdate"
                } else {
                    "SkipUnlessUpdated"
                },
                entry: p.get("entry")?,
                seen: memory_key(p, "seen")?,
                otherwise: if wait { Status::Running } else { skipped(p)? },
                shown: shown(p)
                    .into_iter()
                    .filter(|(name, _)| name == "entry")
                    .collect(),
            }))
        },
    },
];

/// The key whose update counter a node reads, if the file names one.
fn entry(name: &str) -> Param {
    Param::of::<Option<Updates>>(name, "a key in braces: the entry whose writes are counted")
}

/// The own types whose nodes may run two cycles of their child in a tick
/// (see [`crate::check`]).
pub(crate) const LOOPS: [&str; 2] = ["btcpp:Repeat", "btcpp:RetryUntilSuccessful"];

/// The parameters of the own type `type_name`, if it is one.
pub(crate) fn own_params(type_name: &str) -> Option<Vec<Param>> {
    if !type_name.starts_with("btcpp:") {
        return None;
    }
    let own = OWN_TYPES
        .iter()
        .chain([&UNSET])
        .find(|o| o.key == type_name)?;
    Some((own.params)())
}

/// `UnsetBlackboard`, which only the blackboard lowering writes.
const UNSET: OwnType = OwnType {
    key: "btcpp:UnsetBlackboard",
    arity: Arity::Leaf,
    params: || vec![entry("key")],
    lowered: &[],
    make: |p| {
        Ok(Made::UnsetBlackboard(nodes::UnsetBlackboard {
            key: p.get("key")?,
            shown: shown(p),
        }))
    },
};

/// The node types the registry's loader builds this crate's own nodes
/// with, found before its own (see [`Registry::load_lowered`]).
fn own_types<A: 'static, W: 'static>() -> Vec<NodeType<A, W>> {
    OWN_TYPES
        .iter()
        .chain([&UNSET])
        .map(|own: &'static OwnType| {
            let about = "a BehaviorTree.CPP standard node canopy runs as it does";
            NodeType::sized(own.key, about, own.arity, (own.params)(), move |p, _| {
                own_node(own, p)
            })
        })
        .collect()
}

/// The node of one of this crate's own types, from its checked parameters.
fn own_node<A: 'static, W: 'static>(
    own: &OwnType,
    params: &Params,
) -> Result<NodeKind<A, W>, ParamError> {
    Ok(NodeKind::Custom((own.make)(params)?.node()))
}

impl Own {
    /// Its type in [`OWN_TYPES`] (by index) and its parameters' values,
    /// in the order of the type's `lowered` names.
    fn lowered(self) -> (usize, [i64; 2]) {
        match self {
            Own::Parallel {
                success_count,
                failure_count,
            } => (0, [success_count.into(), failure_count.into()]),
            Own::ParallelAll { max_failures } => (1, [max_failures.into(), 0]),
            Own::IfThenElse => (2, [0; 2]),
            Own::WhileDoElse => (3, [0; 2]),
            Own::KeepRunningUntilFailure => (4, [0; 2]),
            Own::Repeat(count) => (5, [count.into(), 0]),
            Own::Retry(count) => (6, [count.into(), 0]),
            Own::Delay { msec, ticks } => (7, [msec.into(), ticks.into()]),
            Own::NoTimeout => (8, [0; 2]),
        }
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
    let element = model.element(place);
    let id = element.attr("ID").unwrap_or(element.tag());
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
