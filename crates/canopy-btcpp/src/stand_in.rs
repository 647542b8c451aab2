//! Trees from a node model, without the node code: the node types a
//! `<TreeNodesModel>` declares become stand-ins in a registry, so a
//! Groot2 or Nav2 project's trees can be checked, printed, exported and
//! dry-run before (or without) the code behind their nodes.
//!
//! BehaviorTree.CPP does the same with its substitution rules and Groot2
//! with its models. A stand-in has the declared ports as its parameters —
//! inputs take a value or a `{key}`, outputs a key, and each key's type is
//! the declared port type (BehaviorTree.CPP's names of canopy's blackboard
//! types, `double` or `canopy::Point2f`, are those types; other names are
//! types known by name) — so a tree's wiring is checked when it is loaded:
//! a key read as a `nav_msgs::msg::Path` here and written as a `double`
//! there is an error naming both elements. A declared `default` that is a
//! value of the port's type is the parameter's default. What a stand-in
//! *does* is chosen per type by [`StandInRules`]: a leaf plays back
//! statuses (default: Success at once; a condition, declared
//! `<Condition>` and registered as one, answers Success or Failure), a
//! control runs as one of canopy's controls (default: Sequence) and a
//! decorator as one of its decorators (default: its child's status,
//! unchanged). Defaults are reported, so a dry run never silently stands a
//! `RecoveryNode` in for a `Sequence`.
//!
//! Types the caller registered keep their own code; BehaviorTree.CPP's
//! standard nodes are never stood in for. A declared type named like one
//! of canopy's built-ins (Nav2's `Wait`) is the model's, as the model
//! describes the tree's nodes, and the built-in stays in the registry as
//! `canopy_Wait`: the standard nodes that run as it (`<Sleep>`) go on
//! doing so. Rejected: letting the model's type replace the built-in —
//! every `<Sleep>` of a Nav2 tree became unloadable; and reading ports'
//! types loosely (BehaviorTree.CPP's `AnyTypeAllowed` everywhere) — it
//! would let through exactly the wiring mistakes a model is there to
//! catch.
//!
//! Reading is linear in the model and the rules: declared types and ports
//! are found through hash maps, and a declaration is placed (file, line,
//! column) only when an error is about it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Node, NodeKind, Status, Task, Text,
    board::SlotType,
    nodes,
    params::{Literal, Param, ParamKind},
};
use canopy_data::{NodeType, Registry};
use serde_json::Value;

use crate::category::{is_btcpp_builtin, noun};
use crate::dom::{self, Element};
use crate::names::{bad_port_name, param_name};
use crate::palette::{Direction, canonical};
use crate::sources::{self, File};
use crate::standard::{CANOPY_PREFIX, Category, bad_model_name};
use canopy_core::text::{did_you_mean, quote, suggest};
use canopy_data::LoadError;

/// The node types a `<TreeNodesModel>` declares, with their ports.
///
/// Two models are equal when they declare the same palette: the same
/// types, in the same categories, with the same ports (names, directions,
/// types, defaults), in the same order.
pub struct NodeModel {
    /// The file read, kept for messages: a declaration is placed only
    /// when a message needs it (placing one reads the file up to it).
    file: File,
    types: Vec<Declared>,
    /// Index in `types` of each ID.
    by_id: HashMap<String, usize>,
}

impl std::fmt::Debug for NodeModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeModel")
            .field("source", &self.file.path)
            .field("types", &self.types)
            .finish()
    }
}

impl PartialEq for NodeModel {
    fn eq(&self, other: &Self) -> bool {
        self.types == other.types
    }
}

/// One declared node type.
#[derive(Debug)]
struct Declared {
    id: String,
    category: Category,
    ports: Vec<DeclaredPort>,
    /// Its element in the file.
    element: usize,
}

impl PartialEq for Declared {
    fn eq(&self, other: &Self) -> bool {
        (&self.id, self.category, &self.ports) == (&other.id, other.category, &other.ports)
    }
}

/// One declared port.
#[derive(Debug)]
struct DeclaredPort {
    /// As BehaviorTree.CPP names it (`type`, not canopy's `type_`).
    name: String,
    direction: Direction,
    /// The C++ type as written, if any.
    type_name: Option<String>,
    /// Its `default`, if any.
    default: Option<String>,
}

impl PartialEq for DeclaredPort {
    fn eq(&self, other: &Self) -> bool {
        // `inout_port` and `output_port` are one thing to a stand-in.
        let writes = |p: &DeclaredPort| p.direction.writes();
        let ty = |p: &DeclaredPort| p.type_name.as_deref().and_then(canonical);
        (&self.name, writes(self), ty(self), &self.default)
            == (&other.name, writes(other), ty(other), &other.default)
    }
}

impl NodeModel {
    /// The model in the file at `path` (any BehaviorTree.CPP XML file; its
    /// `<TreeNodesModel>` is read, everything else ignored).
    pub fn read_file(path: impl AsRef<Path>) -> Result<NodeModel, LoadError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes =
            canopy_data::read_file(path).map_err(|p| crate::error::whole_typed(&shown, p))?;
        NodeModel::read_str(&sources::text_of(&bytes, &shown)?, &shown)
    }

    /// The model in XML text; `source` names it in errors.
    ///
    /// ```
    /// use canopy_btcpp::NodeModel;
    /// let model = NodeModel::read_str(r#"<root BTCPP_format="4"><TreeNodesModel>
    ///   <Action ID="ComputePath"><output_port name="path" type="Path"/></Action>
    /// </TreeNodesModel></root>"#, "model.xml").unwrap();
    /// assert_eq!(model.types().collect::<Vec<_>>(), ["ComputePath"]);
    /// ```
    pub fn read_str(text: &str, source: &str) -> Result<NodeModel, LoadError> {
        let mut budget = sources::MAX_ELEMENTS;
        let file = File {
            path: source.to_string(),
            dom: dom::parse(text.to_string(), source, &mut budget)?,
        };
        let mut model = NodeModel {
            types: Vec::new(),
            by_id: HashMap::new(),
            file,
        };
        let root = model.file.dom.root();
        let mut found = Vec::new();
        if root.tag() == "root" {
            for (_, e) in children(&model.file, root).filter(|e| e.1.tag() == "TreeNodesModel") {
                for (at, e) in children(&model.file, e) {
                    if let Some(declared) = model.declared(at, e)? {
                        found.push(declared);
                    }
                }
            }
        }
        for declared in found {
            crate::work::step(1);
            if let Some(&first) = model.by_id.get(&declared.id) {
                let first = &model.types[first];
                let (line, _) = model.file.line_column(first.element);
                let problem = format!(
                    "{} is declared twice; the first is at line {line}",
                    quote(&declared.id)
                );
                return Err(model.fail(declared.element, problem));
            }
            model.by_id.insert(declared.id.clone(), model.types.len());
            model.types.push(declared);
        }
        if model.types.is_empty() {
            return Err(model.nothing_declared());
        }
        Ok(model)
    }

    /// Why a file declares no node types, and where its model belongs
    /// when it has one in the wrong place.
    fn nothing_declared(&self) -> LoadError {
        let dom = &self.file.dom;
        let misplaced = (0..dom.len()).find(|&i| {
            let tag = dom.element(i).tag();
            let at_top = dom.root().children().contains(&i);
            (tag == "TreeNodesModel" && !at_top) || (i == 0 && tag != "root")
        });
        match misplaced {
            Some(0) if dom.root().tag() == "TreeNodesModel" => self.fail(
                0,
                "a node model file is a <root BTCPP_format=\"4\"> holding the <TreeNodesModel>: \
                 wrap it in one"
                    .to_string(),
            ),
            Some(0) => self.fail(
                0,
                "the top element of a BehaviorTree.CPP file is <root BTCPP_format=\"4\">, with \
                 the <TreeNodesModel> directly under it"
                    .to_string(),
            ),
            Some(at) => self.fail(
                at,
                "<TreeNodesModel> belongs directly under <root>, beside the <BehaviorTree> \
                 elements; move it there"
                    .to_string(),
            ),
            None => crate::error::whole(
                &self.file.path,
                "declares no node types (no <TreeNodesModel> with <Action>, <Condition>, \
                 <Control> or <Decorator> models)",
            ),
        }
    }

    /// An error at element `at` of the file.
    fn fail(&self, at: usize, problem: impl Into<crate::error::XmlIssue>) -> LoadError {
        let (line, column) = self.file.line_column(at);
        let e = self.file.dom.element(at);
        crate::error::xml_error(
            &self.file.path,
            Some((line, column)),
            Some(dom::describe(e.tag(), |key| e.attr(key))),
            problem,
        )
    }

    /// A model element as a declared type; `None` for SubTree models and
    /// other elements, which declare nothing to stand in for.
    fn declared(&self, at: usize, e: Element<'_>) -> Result<Option<Declared>, LoadError> {
        let Some(category) = Category::from_tag(e.tag()) else {
            return Ok(None);
        };
        let Some(id) = e.attr("ID") else {
            return Err(self.fail(at, "a node model needs an ID: ID=\"…\"".to_string()));
        };
        if let Some(why) = bad_model_name(id) {
            return Err(self.fail(at, crate::model::bad_id(id, why)));
        }
        let mut ports = Vec::new();
        // By canopy's name: `type` and `type_` are one parameter.
        let mut names = HashSet::new();
        for (port_at, p) in children(&self.file, e) {
            crate::work::step(1);
            let Some(direction) = Direction::of_tag(p.tag()) else {
                continue;
            };
            let Some(name) = p.attr("name") else {
                return Err(self.fail(port_at, "a port needs a name: name=\"…\"".to_string()));
            };
            if let Some(why) = bad_port_name(name) {
                return Err(self.fail(port_at, format!("the port name {} {why}", quote(name))));
            }
            if !names.insert(param_name(name).into_owned()) {
                return Err(self.fail(
                    port_at,
                    format!("{id} declares the port {} twice", quote(name)),
                ));
            }
            ports.push(DeclaredPort {
                name: name.to_string(),
                direction,
                type_name: p.attr("type").map(str::to_string),
                default: p.attr("default").map(str::to_string),
            });
        }
        Ok(Some(Declared {
            id: id.to_string(),
            category,
            ports,
            element: at,
        }))
    }

    /// The declared types' IDs, in file order.
    pub fn types(&self) -> impl Iterator<Item = &str> {
        self.types.iter().map(|t| t.id.as_str())
    }

    /// Register a stand-in for every declared type `registry` does not
    /// have (and that is not one of BehaviorTree.CPP's standard nodes),
    /// run as `rules` say; what each runs as, in file order.
    ///
    /// A declared type named like one of canopy's built-ins (Nav2 declares
    /// `Wait`) is the model's: it takes the name, and canopy's built-in
    /// stays in the registry as `canopy_Wait`, which is what
    /// BehaviorTree.CPP's standard nodes that run as it (`<Sleep>`) go on
    /// running as. A type of the caller's own keeps its code.
    ///
    /// ```
    /// use canopy_btcpp::{NodeModel, StandInRules, XmlOptions, load_str};
    /// use canopy_core::{Agent, Status};
    /// use canopy_data::Registry;
    ///
    /// let model = NodeModel::read_str(r#"<root BTCPP_format="4"><TreeNodesModel>
    ///   <Action ID="ComputePath"><input_port name="goal" type="Pose"/>
    ///     <output_port name="path" type="Path"/></Action>
    ///   <Action ID="FollowPath"><input_port name="path" type="Path"/></Action>
    /// </TreeNodesModel></root>"#, "model.xml").unwrap();
    /// let rules = StandInRules::read_str(r#"{"FollowPath": ["Running", "Success"]}"#, "rules.json")
    ///     .unwrap();
    /// let mut registry = Registry::<(), ()>::new();
    /// let stand_ins = model.stand_in(&mut registry, &rules).unwrap();
    /// assert_eq!(stand_ins[1].to_string(), "FollowPath: an action that returns Running, then Success");
    ///
    /// let tree = load_str(&registry, r#"<root BTCPP_format="4"><BehaviorTree ID="Go"><Sequence>
    ///   <ComputePath goal="{goal}" path="{path}"/><FollowPath path="{path}"/>
    /// </Sequence></BehaviorTree></root>"#, "go.xml", None, &XmlOptions::default()).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// let run: Vec<Status> = (0..2).map(|_| agent.tick(&tree, &mut (), &())).collect();
    /// assert_eq!(run, [Status::Running, Status::Success]);
    /// ```
    pub fn stand_in<A: 'static, W: 'static>(
        &self,
        registry: &mut Registry<A, W>,
        rules: &StandInRules,
    ) -> Result<Vec<StandIn>, LoadError> {
        rules.check(self)?;
        let builtins = Registry::<A, W>::new();
        let mut done = Vec::new();
        for declared in &self.types {
            let id = declared.id.as_str();
            if is_btcpp_builtin(id) {
                continue;
            }
            let genuine = match (registry.get(id), builtins.get(id)) {
                (Some(ours), Some(reference)) => same_type(ours, reference),
                _ => false,
            };
            if genuine {
                // canopy's built-in moves aside (see above).
                let aside = format!("{CANOPY_PREFIX}{id}");
                if let Some(builtin) = registry.remove(id)
                    && registry.get(&aside).is_none()
                {
                    let _ = registry.register(builtin.renamed(&aside));
                }
            } else if registry.get(id).is_some() {
                continue;
            }
            let (runs_as, defaulted) = match rules.rules.get(id) {
                Some(rule) => (rule.clone(), false),
                None => (Rule::default_for(declared.category), true),
            };
            self.register(registry, declared, &runs_as)?;
            done.push(StandIn {
                type_name: id.to_string(),
                category: declared.category,
                runs_as,
                defaulted,
            });
        }
        Ok(done)
    }

    /// Register the stand-in for `declared`, running as `rule`; an error
    /// at its element when the registry refuses it.
    fn register<A: 'static, W: 'static>(
        &self,
        registry: &mut Registry<A, W>,
        declared: &Declared,
        rule: &Rule,
    ) -> Result<(), LoadError> {
        let params: Vec<Param> = declared
            .ports
            .iter()
            .map(|p| port_param(registry, p))
            .collect();
        let about = format!("a stand-in for {}, declared in a node model", declared.id);
        let registered = if declared.category == Category::Condition {
            // A condition, as guards can use one: it plays back its one
            // status (conditions finish at once, see `StandInRules`).
            let answer = match rule {
                Rule::Statuses(s) => s.first() != Some(&Status::Failure),
                Rule::Kind(_) | Rule::Unknown(_) => true,
            };
            registry.register_condition(&declared.id, &about, params, move |_| {
                Ok(move |_: &Ctx<A, W>| answer)
            })
        } else {
            registry.register(stand_in_type(declared, &about, params, rule))
        };
        registered.map_err(|e| {
            let problem = match e {
                canopy_data::RegistryError::BadName(_) => format!(
                    "the ID {} is not a canopy node type name (letters, digits and _); rename \
                     the type",
                    quote(&declared.id)
                ),
                e => e.to_string(),
            };
            self.fail(declared.element, problem)
        })
    }
}

/// Whether two registered types are the same type (a registry's and a
/// reference registry's built-in).
pub(crate) fn same_type<A, W>(ours: &NodeType<A, W>, reference: &NodeType<A, W>) -> bool {
    ours.description() == reference.description()
        && ours.arity() == reference.arity()
        && ours.params() == reference.params()
        && ours.is_condition() == reference.is_condition()
}

/// The child elements of `e`, with their indices.
fn children<'f>(file: &'f File, e: Element<'f>) -> impl Iterator<Item = (usize, Element<'f>)> + 'f {
    e.children().iter().map(|&c| (c, file.dom.element(c)))
}

/// What a stand-in does, from [`StandInRules`] or the default.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    /// A leaf: these statuses, one per update since it was entered; the
    /// last repeats.
    Statuses(Vec<Status>),
    /// A control or decorator: one of BehaviorTree.CPP's, run as canopy's.
    Kind(RunsAs),
    /// A word that names none of them (refused when the rules are checked).
    Unknown(String),
}

/// The controls and decorators a stand-in may run as, by their
/// BehaviorTree.CPP names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunsAs {
    Sequence,
    Fallback,
    SequenceWithMemory,
    ReactiveSequence,
    ReactiveFallback,
    PassThrough,
    Inverter,
    ForceSuccess,
    ForceFailure,
}

impl RunsAs {
    const ALL: [RunsAs; 9] = [
        RunsAs::Sequence,
        RunsAs::Fallback,
        RunsAs::SequenceWithMemory,
        RunsAs::ReactiveSequence,
        RunsAs::ReactiveFallback,
        RunsAs::PassThrough,
        RunsAs::Inverter,
        RunsAs::ForceSuccess,
        RunsAs::ForceFailure,
    ];

    /// Its word in a rules file.
    fn word(self) -> &'static str {
        match self {
            RunsAs::Sequence => "Sequence",
            RunsAs::Fallback => "Fallback",
            RunsAs::SequenceWithMemory => "SequenceWithMemory",
            RunsAs::ReactiveSequence => "ReactiveSequence",
            RunsAs::ReactiveFallback => "ReactiveFallback",
            RunsAs::PassThrough => "PassThrough",
            RunsAs::Inverter => "Inverter",
            RunsAs::ForceSuccess => "ForceSuccess",
            RunsAs::ForceFailure => "ForceFailure",
        }
    }

    fn from_word(word: &str) -> Option<RunsAs> {
        RunsAs::ALL.into_iter().find(|r| r.word() == word)
    }

    fn category(self) -> Category {
        match self {
            RunsAs::Sequence
            | RunsAs::Fallback
            | RunsAs::SequenceWithMemory
            | RunsAs::ReactiveSequence
            | RunsAs::ReactiveFallback => Category::Control,
            RunsAs::PassThrough
            | RunsAs::Inverter
            | RunsAs::ForceSuccess
            | RunsAs::ForceFailure => Category::Decorator,
        }
    }

    /// The words of one category, as an error lists them.
    fn words(category: Category) -> String {
        let words: Vec<&str> = RunsAs::ALL
            .into_iter()
            .filter(|r| r.category() == category)
            .map(RunsAs::word)
            .collect();
        words.join(", ")
    }

    /// canopy's node with its semantics, named by the kind's type.
    fn node<A: 'static, W: 'static>(self) -> NodeKind<A, W> {
        match self {
            RunsAs::Sequence => NodeKind::from(nodes::Sequence),
            RunsAs::Fallback => NodeKind::from(nodes::Selector),
            // As BehaviorTree.CPP runs its own in a tree: with its yield.
            RunsAs::SequenceWithMemory => {
                NodeKind::from(nodes::SequenceWithMemory { pause: Some(true) })
            }
            RunsAs::ReactiveSequence => NodeKind::from(nodes::ReactiveSequence),
            RunsAs::ReactiveFallback => NodeKind::from(nodes::ReactiveSelector),
            // One success of the child is its success: its status, unchanged.
            RunsAs::PassThrough => NodeKind::from(nodes::Repeat { times: 1 }),
            RunsAs::Inverter => NodeKind::from(nodes::Inverter),
            RunsAs::ForceSuccess => NodeKind::from(nodes::ForceSuccess),
            RunsAs::ForceFailure => NodeKind::from(nodes::ForceFailure),
        }
    }
}

impl Rule {
    fn default_for(category: Category) -> Rule {
        match category {
            Category::Action | Category::Condition => Rule::Statuses(vec![Status::Success]),
            Category::Control => Rule::Kind(RunsAs::Sequence),
            Category::Decorator => Rule::Kind(RunsAs::PassThrough),
        }
    }
}

/// What builds a stand-in's node from its rule.
type MakeKind<A, W> = fn(&Rule) -> NodeKind<A, W>;

/// The node type standing in for `declared`.
fn stand_in_type<A: 'static, W: 'static>(
    declared: &Declared,
    about: &str,
    params: Vec<Param>,
    rule: &Rule,
) -> NodeType<A, W> {
    let (arity, kind): (Arity, MakeKind<A, W>) = match declared.category {
        Category::Action | Category::Condition => (Arity::Leaf, leaf),
        Category::Control => (Arity::Composite, control),
        Category::Decorator => (Arity::Decorator, decorator),
    };
    let rule = rule.clone();
    NodeType::new(&declared.id, about, arity, params, move |_| Ok(kind(&rule)))
}

fn leaf<A: 'static, W: 'static>(rule: &Rule) -> NodeKind<A, W> {
    let statuses = match rule {
        Rule::Statuses(s) => s.clone(),
        Rule::Kind(_) | Rule::Unknown(_) => vec![Status::Success],
    };
    NodeKind::Custom(CustomNode::new(PlayBack { statuses }))
}

/// A control's or decorator's node: as its rule says (the rules were
/// checked to suit its category), otherwise as its category's default.
fn control<A: 'static, W: 'static>(rule: &Rule) -> NodeKind<A, W> {
    match rule {
        Rule::Kind(runs_as) => runs_as.node(),
        Rule::Statuses(_) | Rule::Unknown(_) => RunsAs::Sequence.node(),
    }
}

fn decorator<A: 'static, W: 'static>(rule: &Rule) -> NodeKind<A, W> {
    match rule {
        Rule::Kind(runs_as) => runs_as.node(),
        Rule::Statuses(_) | Rule::Unknown(_) => RunsAs::PassThrough.node(),
    }
}

/// A declared port as a parameter: a port whose slot holds the declared
/// type (the matching canopy type for BehaviorTree.CPP's names of
/// canopy's blackboard types, a type known by name otherwise); optional,
/// as BehaviorTree.CPP reads a port only when its node asks, with the
/// declared default when it is a value of the port's type.
fn port_param<A: 'static, W: 'static>(registry: &Registry<A, W>, port: &DeclaredPort) -> Param {
    let declared = port.type_name.as_deref().unwrap_or("AnyTypeAllowed");
    let (ty, value) = slot_type(declared);
    let default = port
        .default
        .as_deref()
        .filter(|_| !port.direction.writes())
        .and_then(|text| default_literal(registry, &value, text))
        .unwrap_or(Literal::Null);
    let kind = ParamKind::Port {
        value: Box::new(value),
        ty,
        output: port.direction.writes(),
    };
    Param {
        name: param_name(&port.name).into_owned(),
        kind,
        default: Some(default),
        doc: format!("declared as {declared}"),
    }
}

/// A port's declared default as a value of `kind`, if it is one.
fn default_literal<A: 'static, W: 'static>(
    registry: &Registry<A, W>,
    kind: &ParamKind,
    text: &str,
) -> Option<Literal> {
    if crate::params::key_of(text).is_some() {
        return None;
    }
    let value = crate::params::to_value(registry, kind, text).ok()?;
    let fits = match (kind, &value) {
        (ParamKind::Int { min, max }, Value::Number(n)) => {
            n.as_i64().is_some_and(|n| (*min..=*max).contains(&n))
        }
        (ParamKind::Float { .. }, Value::Number(_)) => true,
        (ParamKind::Bool, Value::Bool(_)) => true,
        (ParamKind::Text, Value::String(_)) => true,
        (ParamKind::Point { dims, .. }, Value::Array(items)) => {
            items.len() == *dims && items.iter().all(Value::is_number)
        }
        _ => false,
    };
    let float = |v: &Value| v.as_f64().map_or(Literal::Null, Literal::Float);
    fits.then(|| match (kind, &value) {
        (ParamKind::Float { .. }, v) => float(v),
        (ParamKind::Point { .. }, Value::Array(items)) => {
            Literal::List(items.iter().map(float).collect())
        }
        (_, v) => literal(v),
    })
}

/// A JSON value as a literal.
fn literal(value: &Value) -> Literal {
    match value {
        Value::Bool(b) => Literal::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Literal::Int(i),
            (None, Some(u), _) => Literal::UInt(u),
            (_, _, Some(f)) => Literal::Float(f),
            _ => Literal::Null,
        },
        Value::String(s) => Literal::Text(s.clone()),
        Value::Array(items) => Literal::List(items.iter().map(literal).collect()),
        _ => Literal::Null,
    }
}

/// The slot type of a declared C++ type, and what a value in place may be:
/// canopy's blackboard types by their BehaviorTree.CPP names (each
/// spelling of one, see [`canonical`]), other types by name.
fn slot_type(declared: &str) -> (SlotType, ParamKind) {
    let int = |min: i64, max: i64| ParamKind::Int { min, max };
    let float = ParamKind::Float {
        min: f64::MIN,
        max: f64::MAX,
    };
    let point = |dims: usize, max: f64| ParamKind::Point {
        dims,
        min: -max,
        max,
    };
    let Some(name) = canonical(declared) else {
        return (SlotType::named("AnyTypeAllowed"), ParamKind::Text);
    };
    match name.as_str() {
        "double" => (SlotType::of::<f64>(), float),
        "float" => (SlotType::of::<f32>(), float),
        "bool" => (SlotType::of::<bool>(), ParamKind::Bool),
        "int" => (SlotType::of::<i32>(), int(i32::MIN.into(), i32::MAX.into())),
        "unsigned int" => (SlotType::of::<u32>(), int(0, u32::MAX.into())),
        "int64_t" => (SlotType::of::<i64>(), int(i64::MIN, i64::MAX)),
        "uint64_t" => (SlotType::of::<u64>(), int(0, i64::MAX)),
        "int16_t" => (SlotType::of::<i16>(), int(i16::MIN.into(), i16::MAX.into())),
        "uint16_t" => (SlotType::of::<u16>(), int(0, u16::MAX.into())),
        "int8_t" => (SlotType::of::<i8>(), int(i8::MIN.into(), i8::MAX.into())),
        "uint8_t" => (SlotType::of::<u8>(), int(0, u8::MAX.into())),
        "std::string" => (SlotType::of::<Text>(), ParamKind::Text),
        "canopy::Point2f" => (SlotType::of::<[f32; 2]>(), point(2, f32::MAX.into())),
        "canopy::Point3f" => (SlotType::of::<[f32; 3]>(), point(3, f32::MAX.into())),
        "canopy::Point2" => (SlotType::of::<[f64; 2]>(), point(2, f64::MAX)),
        "canopy::Point3" => (SlotType::of::<[f64; 3]>(), point(3, f64::MAX)),
        other => (SlotType::named(other), ParamKind::Text),
    }
}

/// Plays back statuses, one per update since the leaf was entered.
#[derive(Debug)]
struct PlayBack {
    statuses: Vec<Status>,
}

/// Updates since the leaf was entered.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Updates {
    count: u32,
}

impl<A: 'static, W: 'static> Node<A, W> for PlayBack {
    type Task = Updates;

    fn create_task(&self, _cx: &mut Ctx<A, W>) -> Updates {
        Updates { count: 0 }
    }

    fn update(&self, task: &mut Updates, _cx: &mut Ctx<A, W>, _: &mut Children<A, W>) -> Status {
        let k = task.count as usize;
        task.count = task.count.saturating_add(1);
        let last = self.statuses.len().saturating_sub(1);
        self.statuses
            .get(k.min(last))
            .copied()
            .unwrap_or(Status::Success)
    }
}

/// What one stand-in runs as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StandIn {
    /// The declared type.
    pub type_name: String,
    category: Category,
    runs_as: Rule,
    /// Whether no rule chose it (a control standing in as a Sequence is
    /// worth a warning).
    pub defaulted: bool,
}

impl StandIn {
    /// Whether it stands in for a control or a decorator: what it runs as
    /// shapes the tree, where a leaf only answers.
    pub fn is_control_or_decorator(&self) -> bool {
        matches!(self.category, Category::Control | Category::Decorator)
    }
}

impl std::fmt::Display for StandIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.category {
            Category::Action => "an action",
            Category::Condition => "a condition",
            Category::Control => "a control",
            Category::Decorator => "a decorator",
        };
        match &self.runs_as {
            Rule::Statuses(s) => {
                let words: Vec<String> = s.iter().map(|s| format!("{s:?}")).collect();
                write!(
                    f,
                    "{}: {what} that returns {}",
                    self.type_name,
                    words.join(", then ")
                )
            }
            Rule::Kind(RunsAs::PassThrough) => {
                write!(
                    f,
                    "{}: {what} that returns its child's status",
                    self.type_name
                )
            }
            Rule::Kind(k) => write!(
                f,
                "{}: {what} that runs as canopy's {}",
                self.type_name,
                k.word()
            ),
            Rule::Unknown(k) => write!(f, "{}: {what} that runs as {}", self.type_name, quote(k)),
        }
    }
}

/// What each stand-in does, by type: a JSON object whose keys are declared
/// types and whose values are a status or a list of statuses (leaves) or
/// the name of a control (`Sequence`, `Fallback`, `SequenceWithMemory`,
/// `ReactiveSequence`, `ReactiveFallback`) or decorator (`PassThrough`,
/// `Inverter`, `ForceSuccess`, `ForceFailure`).
///
/// ```
/// use canopy_btcpp::StandInRules;
/// let rules = StandInRules::read_str(
///     r#"{"IsStuck": "Failure", "Spin": ["Running", "Success"], "RecoveryNode": "Fallback"}"#,
///     "rules.json",
/// ).unwrap();
/// # let _ = rules;
/// ```
#[derive(Debug, Default)]
pub struct StandInRules {
    rules: BTreeMap<String, Rule>,
    source: String,
    /// The file's text, to place an error about a rule.
    text: Box<str>,
}

impl StandInRules {
    /// No rules: every stand-in does the default.
    pub fn new() -> StandInRules {
        StandInRules::default()
    }

    /// The rules in the JSON file at `path`.
    pub fn read_file(path: impl AsRef<Path>) -> Result<StandInRules, LoadError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes =
            canopy_data::read_file(path).map_err(|p| crate::error::whole_typed(&shown, p))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| crate::error::whole(&shown, "not a UTF-8 text file"))?;
        StandInRules::read_str(text, &shown)
    }

    /// The rules in JSON text; `source` names it in errors.
    pub fn read_str(text: &str, source: &str) -> Result<StandInRules, LoadError> {
        let fail = |problem: String| crate::error::whole(source, problem);
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            let position = format!(" at line {} column {}", e.line(), e.column());
            crate::error::xml_error(
                source,
                Some((e.line(), e.column())),
                None,
                format!(
                    "not JSON: {}",
                    canopy_core::text::message(message.strip_suffix(&position).unwrap_or(&message))
                ),
            )
        })?;
        let serde_json::Value::Object(fields) = value else {
            return Err(fail("must be a JSON object of node types".to_string()));
        };
        let mut rules = StandInRules {
            rules: BTreeMap::new(),
            source: source.to_string(),
            text: text.into(),
        };
        for (id, value) in fields {
            let Some(rule) = rule(&value) else {
                return Err(rules.fail(
                    &id,
                    format!(
                        "{}: must be a status, a list of statuses, or the name of a control or \
                         decorator, got {}",
                        quote(&id),
                        quote(&value.to_string())
                    ),
                ));
            };
            rules.rules.insert(id, rule);
        }
        Ok(rules)
    }

    /// Every rule names a declared type, and suits its category: found by
    /// ID through the model's index, so that a large model with large
    /// rules costs their sizes, not their product.
    fn check(&self, model: &NodeModel) -> Result<(), LoadError> {
        for (id, rule) in &self.rules {
            crate::work::step(1);
            let Some(&index) = model.by_id.get(id) else {
                return Err(self.fail(
                    id,
                    format!(
                        "{} is not declared in the node model{}",
                        quote(id),
                        did_you_mean(suggest(id, model.types()))
                    ),
                ));
            };
            let declared = &model.types[index];
            let fits = match (declared.category, rule) {
                (Category::Action, Rule::Statuses(_)) => true,
                (Category::Condition, Rule::Statuses(s)) => {
                    matches!(s[..], [Status::Success] | [Status::Failure])
                }
                (category, Rule::Kind(k)) => k.category() == category,
                _ => false,
            };
            if !fits {
                let takes = match declared.category {
                    Category::Action => "a status or a list of statuses".to_string(),
                    Category::Condition => "\"Success\" or \"Failure\" (a condition finishes \
                                            each time it is ticked, as in BehaviorTree.CPP)"
                        .to_string(),
                    category => format!("one of {}", RunsAs::words(category)),
                };
                return Err(self.fail(
                    id,
                    format!(
                        "{} is {}, which takes {takes}",
                        quote(id),
                        noun(declared.category)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// An error about the rule for `id`, at its key in the file.
    fn fail(&self, id: &str, problem: impl Into<crate::error::XmlIssue>) -> LoadError {
        let key = serde_json::to_string(id).unwrap_or_default();
        let at = self
            .text
            .match_indices(&key)
            .map(|(i, _)| i)
            .find(|&i| self.text[i + key.len()..].trim_start().starts_with(':'));
        let at = at.map(|i| dom::line_column(&self.text, i));
        crate::error::xml_error(&self.source, at, None, problem)
    }
}

/// A rule's JSON value.
fn rule(value: &serde_json::Value) -> Option<Rule> {
    let status = |v: &serde_json::Value| match v.as_str()? {
        "Success" | "SUCCESS" => Some(Status::Success),
        "Failure" | "FAILURE" => Some(Status::Failure),
        "Running" | "RUNNING" => Some(Status::Running),
        _ => None,
    };
    match value {
        serde_json::Value::Array(items) if !items.is_empty() && items.len() <= 1024 => items
            .iter()
            .map(status)
            .collect::<Option<_>>()
            .map(Rule::Statuses),
        serde_json::Value::String(s) => Some(match status(value) {
            Some(status) => Rule::Statuses(vec![status]),
            None => RunsAs::from_word(s).map_or_else(|| Rule::Unknown(s.clone()), Rule::Kind),
        }),
        _ => None,
    }
}
