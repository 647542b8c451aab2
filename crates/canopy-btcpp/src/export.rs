//! A canopy tree document (JSON or RON) → BehaviorTree.CPP XML for Groot2.
//!
//! canopy's built-ins go out as the standard node with exactly their
//! semantics where there is one (Selector as Fallback, Wait as Sleep, …);
//! every other type as the explicit `<Action|Condition|Control|Decorator
//! ID="…">`, declared with its parameters as input ports in a generated
//! `<TreeNodesModel>`. A type whose name is one of BehaviorTree.CPP's
//! (canopy's `Repeat`, `Parallel`, `Script`: same names, other semantics)
//! goes out as `canopy_Repeat` and so on. Reading the XML back gives the
//! same tree: the same nodes, names, parameters and numbering.

use std::collections::BTreeMap;
use std::fmt::Write;

use canopy_data::{
    EvalKind, Format, NodePath, NodeType, ParamKind, PathRoot, PathStep, Registry, SUBTREE_TYPE,
};
use serde_json::{Map, Value};

use crate::category::category;
use crate::error::ExportError;
use crate::model::is_key_name;
use crate::names::attribute_name;
use crate::options::XmlOptions;
use crate::palette::port_type;
use crate::params::to_text;
use crate::scripted::is_reserved;
use crate::standard::{CANOPY_PREFIX, Category, Standard, bad_model_name, is_port_name};
use canopy_core::text::quote;

/// Why a parameter's value has no XML text that reads back the same, and
/// what to write instead.
fn unwritten(value: &Value) -> String {
    match value {
        Value::Null => "an explicit null is not written; leave the parameter out".to_string(),
        Value::Array(_) => "a list item holds \";\" or begins or ends with a space, and \
             BehaviorTree.CPP separates list items with \";\"; change the item"
            .to_string(),
        _ => "the value has no BehaviorTree.CPP spelling that reads back the same; write it \
              as a number, a string or a list"
            .to_string(),
    }
}

/// The node object at `path` in `document`, if there is one.
fn node_at<'d>(document: &'d Value, path: &NodePath) -> Option<&'d Map<String, Value>> {
    let mut node = match &path.root {
        PathRoot::Tree => document.get("tree")?,
        PathRoot::Subtree(name) => document.get("subtrees")?.get(name)?,
    };
    for step in &path.steps {
        node = match step {
            PathStep::Child(i) => node.get("children")?.get(*i as usize)?,
            PathStep::Condition => node.get("condition")?,
        };
    }
    node.as_object()
}

/// A node's name as errors give it: its own, or its type's.
fn describe(node: &Map<String, Value>) -> String {
    let type_name = node.get("type").and_then(Value::as_str).unwrap_or_default();
    node.get("name")
        .and_then(Value::as_str)
        .unwrap_or(type_name)
        .to_string()
}

/// The document, which `registry` must load, as BehaviorTree.CPP XML.
pub(crate) fn export<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    document: &Value,
    source: &str,
    options: &XmlOptions,
) -> Result<String, ExportError> {
    let mut writer = Writer {
        registry,
        builtins: Registry::new(),
        document,
        source,
        tick_ms: options.tick_ms.max(1) as u64,
        out: String::new(),
        models: BTreeMap::new(),
    };
    let empty = Map::new();
    let top = document.as_object().unwrap_or(&empty);
    let subtrees = top
        .get("subtrees")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for id in subtrees.keys() {
        writer.tree_id(id, &NodePath::subtree(id))?;
    }
    let main = main_id(subtrees, registry);
    writer
        .out
        .push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        writer.out,
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"{}\">",
        escape(&main)
    );
    let trees = std::iter::once((&main, top.get("tree"), NodePath::default())).chain(
        subtrees
            .iter()
            .map(|(id, t)| (id, Some(t), NodePath::subtree(id))),
    );
    for (id, tree, path) in trees {
        let Some(tree) = tree else { continue };
        let _ = writeln!(writer.out, "  <BehaviorTree ID=\"{}\">", escape(id));
        writer.node(tree, &path, 2, false)?;
        writer.out.push_str("  </BehaviorTree>\n");
    }
    writer.models();
    writer.out.push_str("</root>\n");
    Ok(writer.out)
}

/// An ID for the tree to run that no subtree, node type or standard node has.
fn main_id<A: 'static, W: 'static>(
    subtrees: &Map<String, Value>,
    registry: &Registry<A, W>,
) -> String {
    let free =
        |id: &str| !subtrees.contains_key(id) && !is_reserved(id) && registry.get(id).is_none();
    let mut id = "MainTree".to_string();
    let mut n = 1;
    while !free(&id) {
        n += 1;
        id = format!("MainTree_{n}");
    }
    id
}

/// `text` for an attribute value or element text: markup characters, the
/// whitespace XML would normalise, and every character a reader could not
/// see (bidirectional overrides, zero-width characters) written as
/// references, by the one escape every output of canopy uses.
fn escape(text: &str) -> String {
    canopy_core::text::xml(text).into_owned()
}

/// `text` as element content (documentation, read by people only):
/// quotes stay as they are, the rest as [`escape`] writes it.
fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\'' => out.push(c),
            c => out.push_str(&canopy_core::text::xml(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

/// Characters XML 1.0 cannot hold at all, not even as references.
fn unwritable(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}')
    })
}

/// How one node object is written: `<tag ID="id" key="value"…>` (no ID
/// when the tag is the ID).
struct Element {
    tag: String,
    id: String,
    attrs: Vec<(String, String)>,
}

/// A node type declared in the generated `<TreeNodesModel>`.
struct Declared {
    category: Category,
    type_name: String,
}

struct Writer<'r, A, W> {
    registry: &'r Registry<A, W>,
    builtins: Registry<A, W>,
    /// The document written, to name the node an error is about.
    document: &'r Value,
    source: &'r str,
    tick_ms: u64,
    out: String,
    /// Explicit-form IDs used, by ID.
    models: BTreeMap<String, Declared>,
}

impl<A: 'static, W: 'static> Writer<'_, A, W> {
    fn fail(&self, path: &NodePath, problem: String) -> ExportError {
        ExportError::Node {
            file: self.source.to_string(),
            path: path.clone(),
            node: node_at(self.document, path).map_or_else(String::new, describe),
            problem,
        }
    }

    fn tree_id(&self, id: &str, path: &NodePath) -> Result<(), ExportError> {
        let why = bad_model_name(id).or_else(|| {
            (is_reserved(id) || self.registry.get(id).is_some())
                .then(|| "is the name of a node type".to_string())
        });
        match why {
            Some(why) => Err(self.fail(
                path,
                format!("the subtree name {} cannot be a BehaviorTree.CPP tree ID: it {why}; rename the subtree", quote(id)),
            )),
            None => Ok(()),
        }
    }

    /// Whether the registry's `name` is canopy's built-in of that name.
    fn builtin(&self, name: &str) -> bool {
        match (self.registry.get(name), self.builtins.get(name)) {
            (Some(ours), Some(reference)) => {
                ours.description() == reference.description()
                    && ours.arity() == reference.arity()
                    && ours.params() == reference.params()
            }
            _ => false,
        }
    }

    /// The standard node a built-in goes out as, with its milliseconds
    /// when it has a duration, if it goes out as one.
    fn standard(
        &self,
        type_name: &str,
        fields: &Map<String, Value>,
    ) -> Option<(Standard, Option<u64>)> {
        if !self.builtin(type_name) {
            return None;
        }
        let std = Standard::ALL
            .into_iter()
            .find(|s| s.canopy_builtin() == Some(type_name))?;
        if std == Standard::SequenceWithMemory {
            // Exact only with pauses; without, it goes out as canopy's own.
            return (fields.get("pause") == Some(&Value::Bool(true))).then_some((std, None));
        }
        if std == Standard::RunOnce {
            // Exact only as then_skip="false"; the others need their
            // parent to read SKIPPED, and go out as canopy's own type.
            let same = fields.get("then").is_none_or(|t| t == "same");
            return same.then_some((std, None));
        }
        if !matches!(std, Standard::Timeout | Standard::Sleep) {
            return Some((std, None));
        }
        let ticks = fields.get("ticks")?.as_u64()?;
        let msec = ticks
            .checked_mul(self.tick_ms)
            .filter(|&m| m <= u32::MAX as u64)?;
        Some((std, Some(msec)))
    }

    /// One node and its children, in the compact form when `compact`.
    fn node(
        &mut self,
        node: &Value,
        path: &NodePath,
        depth: usize,
        compact: bool,
    ) -> Result<(), ExportError> {
        let empty = Map::new();
        let fields = node.as_object().unwrap_or(&empty);
        let type_name = fields
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let indent = "  ".repeat(depth);
        if type_name == SUBTREE_TYPE && self.builtin(SUBTREE_TYPE) {
            let target = fields
                .get("tree")
                .and_then(Value::as_str)
                .unwrap_or_default();
            // canopy's subtrees share the agent's one blackboard: in XML,
            // a subtree whose keys are all its parent's, when it has any.
            let shares = if uses_keys(self.document, target, &mut Vec::new()) {
                " _autoremap=\"true\""
            } else {
                ""
            };
            let _ = writeln!(
                self.out,
                "{indent}<SubTree ID=\"{}\"{shares}/>",
                escape(target)
            );
            return Ok(());
        }
        if let Some((own, element)) = folded_own(type_name, fields) {
            return self.write(element, own, &path.child(0), depth, compact);
        }
        let element = self.element(type_name, fields, path)?;
        self.write(element, fields, path, depth, compact)
    }

    /// A node as `element`, named as `fields` say, and its children.
    fn write(
        &mut self,
        element: Element,
        fields: &Map<String, Value>,
        path: &NodePath,
        depth: usize,
        compact: bool,
    ) -> Result<(), ExportError> {
        let Element { tag, id, attrs } = element;
        let type_name = fields
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let name = fields
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(type_name);
        let indent = "  ".repeat(depth);
        let tag = if compact { id.clone() } else { tag };
        if let Some(c) = unwritable(name) {
            return Err(self.fail(
                path,
                format!(
                    "the name {} holds the character {}, which XML cannot hold; rename the node",
                    quote(name),
                    quote(&c.to_string())
                ),
            ));
        }
        let _ = write!(self.out, "{indent}<{tag}");
        if tag != id {
            let _ = write!(self.out, " ID=\"{}\"", escape(&id));
        }
        // Unnamed, the importer names a node after its ID, prefix dropped.
        if name != id.strip_prefix(CANOPY_PREFIX).unwrap_or(&id) {
            let _ = write!(self.out, " name=\"{}\"", escape(name));
        }
        for (key, value) in &attrs {
            let _ = write!(self.out, " {key}=\"{}\"", escape(value));
        }
        let children = fields
            .get("children")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        if children.is_empty() {
            self.out.push_str("/>\n");
            return Ok(());
        }
        self.out.push_str(">\n");
        for (i, child) in children.iter().enumerate() {
            // BehaviorTree.CPP 4.10 refuses the explicit form (`<Action
            // ID="…">`) for a child of a ReactiveSequence.
            let compact = id == Standard::ReactiveSequence.id();
            self.node(child, &path.child(i), depth + 1, compact)?;
        }
        let _ = writeln!(self.out, "{indent}</{tag}>");
        Ok(())
    }

    /// The tag, ID and parameter attributes a node object goes out as.
    fn element(
        &mut self,
        type_name: &str,
        fields: &Map<String, Value>,
        path: &NodePath,
    ) -> Result<Element, ExportError> {
        if let Some(element) = own_element(type_name, fields) {
            return Ok(element);
        }
        if let Some(element) = scripted_element(type_name, fields) {
            return Ok(element);
        }
        let node_type = self
            .registry
            .get(type_name)
            .ok_or_else(|| self.fail(path, format!("unknown node type {}", quote(type_name))))?;
        if let Some((std, msec)) = self.standard(type_name, fields) {
            let attrs = match (msec, std.ports().first()) {
                (Some(msec), Some(port)) => vec![(port.name.to_string(), msec.to_string())],
                _ if std == Standard::RunOnce => {
                    vec![("then_skip".to_string(), "false".to_string())]
                }
                _ => Vec::new(),
            };
            return Ok(Element {
                tag: std.id().to_string(),
                id: std.id().to_string(),
                attrs,
            });
        }
        let category = category(node_type);
        let id = if is_reserved(type_name) {
            format!("{CANOPY_PREFIX}{type_name}")
        } else {
            type_name.to_string()
        };
        self.models.insert(
            id.clone(),
            Declared {
                category,
                type_name: type_name.to_string(),
            },
        );
        let mut attrs = Vec::new();
        for param in node_type.params() {
            if let Some(value) = fields.get(&param.name) {
                let text = self.param(path, node_type, &param.name, value)?;
                // `type_` goes out as BehaviorTree.CPP's port `type`.
                attrs.push((attribute_name(&param.name).into_owned(), text));
            }
        }
        Ok(Element {
            tag: category.tag().to_string(),
            id,
            attrs,
        })
    }

    /// A parameter's value as attribute text that reads back the same.
    fn param(
        &self,
        path: &NodePath,
        node_type: &NodeType<A, W>,
        key: &str,
        value: &Value,
    ) -> Result<String, ExportError> {
        if !is_port_name(&attribute_name(key)) {
            return Err(self.fail(
                path,
                format!(
                    "{}'s parameter {} cannot be a BehaviorTree.CPP port name",
                    node_type.name(),
                    quote(key)
                ),
            ));
        }
        let text = to_text(value)
            .ok_or_else(|| self.fail(path, format!("parameter {key}: {}", unwritten(value))))?;
        let port = node_type
            .params()
            .iter()
            .any(|p| p.name == key && matches!(p.kind, ParamKind::Port { .. }));
        if !port && text.len() >= 3 && text.starts_with('{') && text.ends_with('}') {
            return Err(self.fail(
                path,
                format!(
                    "parameter {key}: the value {} would read as a blackboard entry in \
                     BehaviorTree.CPP; change the value, or declare the parameter as a port \
                     (Input<T>) if it is meant to read one",
                    quote(&text)
                ),
            ));
        }
        if let Some(c) = unwritable(&text) {
            return Err(self.fail(
                path,
                format!(
                    "parameter {key}: the value holds the character {}, which XML cannot hold; \
                     remove it",
                    quote(&c.to_string())
                ),
            ));
        }
        Ok(text)
    }

    /// The `<TreeNodesModel>` of the explicit-form types used.
    fn models(&mut self) {
        if self.models.is_empty() {
            return;
        }
        let mut out = String::from("  <TreeNodesModel>\n");
        for (id, model) in &self.models {
            let Some(node_type) = self.registry.get(&model.type_name) else {
                continue;
            };
            declaration(&mut out, id, model.category, node_type);
        }
        out.push_str("  </TreeNodesModel>\n");
        self.out.push_str(&out);
    }
}

/// A node type's model, as BehaviorTree.CPP's `writeTreeNodesModelXML`
/// writes one: `<Action ID="…">`, each parameter an `<input_port>` (a
/// port the node writes an `<output_port>`) with its type as
/// BehaviorTree.CPP names it, its default and its documentation, then the
/// type's description.
fn declaration<A, W>(out: &mut String, id: &str, category: Category, node_type: &NodeType<A, W>) {
    let _ = writeln!(out, "    <{} ID=\"{}\">", category.tag(), escape(id));
    for param in node_type.params() {
        let tag = match param.kind {
            ParamKind::Port { output: true, .. } => "output_port",
            _ => "input_port",
        };
        let _ = write!(
            out,
            "      <{tag} name=\"{}\" type=\"{}\"",
            escape(&attribute_name(&param.name)),
            escape(&port_type(&param.kind))
        );
        if let Some(default) = param
            .default
            .as_ref()
            .and_then(|d| to_text(&canopy_data::literal_to_json(d)))
        {
            let _ = write!(out, " default=\"{}\"", escape(&default));
        }
        let _ = writeln!(out, ">{}</{tag}>", escape_text(&param.doc));
    }
    let _ = writeln!(
        out,
        "      <description>{}</description>",
        escape_text(node_type.description())
    );
    let _ = writeln!(out, "    </{}>", category.tag());
}

/// The node types of `registry` as a BehaviorTree.CPP node model: a
/// `<root BTCPP_format="4">` holding one `<TreeNodesModel>`, the palette
/// Groot2 opens and [`NodeModel`](crate::NodeModel) reads back (see
/// [`crate::write_model`]).
pub(crate) fn write_model<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    builtins: bool,
) -> String {
    let reference = Registry::<A, W>::new();
    // canopy's own types that BehaviorTree.CPP's standard nodes stand for
    // (Selector is Fallback, Wait is Sleep): Groot2 knows those. A
    // SequenceWithMemory without pauses and a RunOnce that skips go out
    // as canopy's own, and are written.
    let standard: Vec<&str> = Standard::ALL
        .iter()
        .filter(|s| !matches!(s, Standard::SequenceWithMemory | Standard::RunOnce))
        .filter_map(|s| s.canopy_builtin())
        .chain([SUBTREE_TYPE])
        .collect();
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\">\n  <TreeNodesModel>\n",
    );
    let mut written = Vec::new();
    for node_type in registry.types() {
        let name = node_type.name();
        let plain = name.strip_prefix(CANOPY_PREFIX).unwrap_or(name);
        let builtin = reference
            .get(plain)
            .is_some_and(|r| crate::stand_in::same_type(node_type, r));
        if builtin && (!builtins || standard.contains(&plain)) {
            continue;
        }
        // As the tree files write it: a name BehaviorTree.CPP has, with
        // canopy's prefix.
        let id = if is_reserved(name) && !name.starts_with(CANOPY_PREFIX) {
            format!("{CANOPY_PREFIX}{name}")
        } else {
            name.to_string()
        };
        written.push((id, node_type));
    }
    // By ID, as BehaviorTree.CPP orders them.
    written.sort_by(|a, b| a.0.cmp(&b.0));
    for (id, node_type) in written {
        declaration(&mut out, &id, category(node_type), node_type);
    }
    out.push_str("  </TreeNodesModel>\n</root>\n");
    out
}

/// Whether the subtree `id` of `document` (or one it refers to) names a
/// blackboard key: a port's `{key}` or a script.
fn uses_keys<'d>(document: &'d Value, id: &'d str, seen: &mut Vec<&'d str>) -> bool {
    if seen.contains(&id) {
        return false;
    }
    seen.push(id);
    let Some(root) = document.get("subtrees").and_then(|s| s.get(id)) else {
        return false;
    };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let Some(fields) = node.as_object() else {
            continue;
        };
        let type_name = fields.get("type").and_then(Value::as_str).unwrap_or("");
        if EvalKind::from_name(type_name).is_some() {
            return true;
        }
        if type_name == SUBTREE_TYPE
            && let Some(target) = fields.get("tree").and_then(Value::as_str)
            && uses_keys(document, target, seen)
        {
            return true;
        }
        for (key, value) in fields {
            match (key.as_str(), value) {
                ("children", Value::Array(children)) => stack.extend(children),
                (_, Value::String(s)) if s.starts_with('{') && s.ends_with('}') => return true,
                _ => {}
            }
        }
    }
    false
}

/// An `EvalAround` of pre- and post-condition scripts around one of this
/// crate's own nodes, as the XML reader makes them from one element
/// (`<RunOnce _post="…">`, `<SkipUnlessUpdated _onSuccess="…">`): the
/// own node's fields and that element, the scripts under their attribute
/// names. Written apart, the own node would stand under a node that is
/// not a standard one, where it cannot say SKIPPED.
fn folded_own<'v>(
    type_name: &str,
    fields: &'v Map<String, Value>,
) -> Option<(&'v Map<String, Value>, Element)> {
    if EvalKind::from_name(type_name) != Some(EvalKind::Around) {
        return None;
    }
    let [child] = fields.get("children")?.as_array()?.as_slice() else {
        return None;
    };
    let child = child.as_object()?;
    let child_type = child.get("type")?.as_str()?;
    child_type.strip_prefix(OWN_PREFIX)?;
    let mut element = match child.get("skips_into").and_then(Value::as_str) {
        // A RunOnce telling the scripts it skipped, through this flag.
        Some(flag) => {
            let from = fields.get("skip_from")?.as_str()?;
            if crate::params::script_key_of(flag) != Some(from) {
                return None;
            }
            let then_skip = match child.get("then_skip")? {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            Element {
                tag: Standard::RunOnce.id().to_string(),
                id: Standard::RunOnce.id().to_string(),
                attrs: vec![("then_skip".to_string(), then_skip)],
            }
        }
        None => own_element(child_type, child)?,
    };
    for (param, value) in fields {
        match crate::standard::condition_script_attr(param) {
            Some(attr) => element
                .attrs
                .push((attr.to_string(), value.as_str()?.to_string())),
            // What the reader writes beside the scripts, and no more.
            None if matches!(
                param.as_str(),
                "type" | "name" | "children" | "skip_from" | "skipped"
            ) => {}
            None => return None,
        }
    }
    Some((child, element))
}

/// The standard node one of this crate's own nodes (`btcpp:Repeat`, as a
/// tree file written from XML names it) goes out as, with its ports.
fn own_element(type_name: &str, fields: &Map<String, Value>) -> Option<Element> {
    let id = match type_name.strip_prefix(OWN_PREFIX)? {
        // One own node for both: what it does while not updated says which.
        "EntryUpdated" if fields.get("otherwise").and_then(Value::as_str) == Some("wait") => {
            "WaitValueUpdate"
        }
        "EntryUpdated" => "SkipUnlessUpdated",
        id => id,
    };
    let std = Standard::from_id(id)?;
    if std == Standard::RunOnce && fields.contains_key("skips_into") {
        // A RunOnce telling its element's post-conditions that it skipped:
        // no standard node says that.
        return None;
    }
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let mut attrs: Vec<(String, String)> = std
        .ports()
        .iter()
        .filter_map(|p| Some((p.name.to_string(), text(fields.get(p.name)?))))
        .collect();
    // The entry-update nodes name their key, which is no typed port.
    for name in ["entry", "key"] {
        if let Some(value) = fields.get(name) {
            attrs.push((name.to_string(), text(value)));
        }
    }
    if std == Standard::Timeout {
        // canopy's own Timeout is only BehaviorTree.CPP's with no limit.
        attrs.push(("msec".to_string(), "0".to_string()));
    }
    Some(Element {
        tag: std.id().to_string(),
        id: std.id().to_string(),
        attrs,
    })
}

/// The standard node a script node made from one goes out as: an `Eval`
/// assigning a value is BehaviorTree.CPP's `SetBlackboard`, an
/// `EvalSwitch` over a variable and 2 to 6 values its `SwitchN`. (Others
/// go out as canopy's own nodes.)
fn scripted_element(type_name: &str, fields: &Map<String, Value>) -> Option<Element> {
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_string);
    match EvalKind::from_name(type_name)? {
        EvalKind::Eval
            if fields.get("code").is_none() && text("assign").is_some_and(|k| is_key(&k)) =>
        {
            let attrs = vec![
                ("output_key".to_string(), text("assign")?),
                ("value".to_string(), text("value")?),
            ];
            Some(Element {
                tag: "SetBlackboard".to_string(),
                id: "SetBlackboard".to_string(),
                attrs,
            })
        }
        EvalKind::Switch => {
            let values = fields.get("values")?.as_array()?;
            let children = fields
                .get("children")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let exact = fields.get("cases").is_none() && children == values.len() + 1;
            if !exact || !(2..=6).contains(&values.len()) {
                return None;
            }
            let mut attrs = vec![("variable".to_string(), text("variable")?)];
            for (i, value) in values.iter().enumerate() {
                let value = value.as_str()?;
                // A case the file left out stays out.
                if value != NO_CASE {
                    attrs.push((format!("case_{}", i + 1), value.to_string()));
                }
            }
            let id = format!("Switch{}", values.len());
            Some(Element {
                tag: id.clone(),
                id,
                attrs,
            })
        }
        _ => None,
    }
}

/// Whether `key` is a key as `SetBlackboard`'s `output_key` names one.
fn is_key(key: &str) -> bool {
    let name = key.strip_prefix('@').unwrap_or(key);
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A `case_N` left out, as the XML reader writes it ([`crate::scripted`]).
const NO_CASE: &str = "\u{0}";

/// How this crate's own node types are named in tree documents.
const OWN_PREFIX: &str = "btcpp:";

/// A lowered document as the text of a canopy tree file: JSON or RON,
/// a node's `type` and `name` first and its `children` last, two spaces
/// an indent.
pub(crate) fn tree_file(document: &Lowered<'_>, format: Format) -> String {
    let syntax = match format {
        Format::Ron => Syntax::Ron,
        // JSON, and any format to come until it has a writer.
        _ => Syntax::Json,
    };
    let mut out = String::new();
    syntax.value(document, 0, &mut out);
    out.push('\n');
    out
}

/// A lowered document's value.
type Lowered<'a> = canopy_data::document::Value<'a>;

/// An object's fields in the order a reader wants them: `tree` before
/// `subtrees`; a node's `type`, then `name`, its parameters, `children`.
/// (The sort is stable: parameters keep their order.)
fn ordered<'v, 'a>(
    fields: &'v [canopy_data::document::Field<'a>],
) -> Vec<&'v canopy_data::document::Field<'a>> {
    let rank = |key: &str| match key {
        "type" => 0,
        "name" => 1,
        "children" | "subtrees" => 3,
        _ => 2,
    };
    let mut fields: Vec<_> = fields.iter().collect();
    fields.sort_by_key(|(k, _)| rank(k.as_str()));
    fields
}

/// Whether a value is written on one line: no object inside.
fn flat(value: &Lowered<'_>) -> bool {
    match value {
        Lowered::Object(fields) => fields.is_empty(),
        Lowered::List(items) => items.iter().all(flat),
        _ => true,
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// One of the two tree-file formats, as far as they are written apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Json,
    Ron,
}

impl Syntax {
    /// A string, quoted and escaped.
    fn string(self, text: &str) -> String {
        match self {
            Syntax::Json => serde_json::to_string(text).unwrap_or_default(),
            Syntax::Ron => ::ron::to_string(text).unwrap_or_default(),
        }
    }

    /// What ends the last item of a list written a line each: RON takes
    /// a trailing comma, JSON none.
    fn last_separator(self) -> &'static str {
        match self {
            Syntax::Json => "\n",
            Syntax::Ron => ",\n",
        }
    }

    fn value(self, value: &Lowered<'_>, depth: usize, out: &mut String) {
        match value {
            Lowered::Null => out.push_str(if self == Syntax::Ron { "()" } else { "null" }),
            Lowered::Bool(b) => out.push_str(&b.to_string()),
            Lowered::Int(n) => out.push_str(&n.to_string()),
            Lowered::UInt(n) => out.push_str(&n.to_string()),
            // With a fraction or an exponent, so that it reads back a float.
            Lowered::Float(x) => out.push_str(&format!("{x:?}")),
            Lowered::Str(_) | Lowered::Owned(_) => {
                out.push_str(&self.string(value.as_str().unwrap_or_default()));
            }
            Lowered::List(items) if flat(value) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i > 0 { ", " } else { "" });
                    self.value(item, depth, out);
                }
                out.push(']');
            }
            Lowered::List(items) => self.lines(items, depth, out),
            Lowered::Object(fields) => self.object(&ordered(fields), depth, out),
        }
    }

    /// A list a line an item, closed at `depth`.
    fn lines(self, items: &[Lowered<'_>], depth: usize, out: &mut String) {
        out.push_str("[\n");
        for (i, item) in items.iter().enumerate() {
            out.push_str(&indent(depth + 1));
            self.value(item, depth + 1, out);
            let last = i + 1 == items.len();
            out.push_str(if last { self.last_separator() } else { ",\n" });
        }
        out.push_str(&indent(depth));
        out.push(']');
    }

    /// An object: on one line when nothing in it is an object; a node with
    /// children as its fields on one line then its children a line each;
    /// else a field a line. RON writes it as a struct when every key is a
    /// name it writes bare (node objects), as a map otherwise (subtrees by
    /// ID).
    fn object(self, fields: &[&canopy_data::document::Field<'_>], depth: usize, out: &mut String) {
        let named = self == Syntax::Ron && fields.iter().all(|(k, _)| is_key_name(k.as_str()));
        let (open, close) = if named { ('(', ')') } else { ('{', '}') };
        let key = |k: &str| if named { k.to_string() } else { self.string(k) };
        let field = |out: &mut String, k: &str, v: &Lowered<'_>, depth: usize| {
            out.push_str(&key(k));
            out.push_str(": ");
            self.value(v, depth, out);
        };
        let children = fields.split_last().filter(|(last, head)| {
            last.0.as_str() == "children" && head.iter().all(|(_, v)| flat(v))
        });
        out.push(open);
        if fields.iter().all(|(_, v)| flat(v)) {
            for (i, (k, v)) in fields.iter().enumerate() {
                out.push_str(if i > 0 { ", " } else { "" });
                field(out, k.as_str(), v, depth);
            }
        } else if let Some(((k, list), head)) = children {
            for (name, v) in head {
                field(out, name.as_str(), v, depth);
                out.push_str(", ");
            }
            out.push_str(&key(k.as_str()));
            out.push_str(": ");
            self.lines(list.as_list().unwrap_or_default(), depth, out);
        } else {
            for (i, (k, v)) in fields.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                out.push_str(&indent(depth + 1));
                field(out, k.as_str(), v, depth + 1);
            }
            out.push_str(self.last_separator());
            out.push_str(&indent(depth));
        }
        out.push(close);
    }
}
