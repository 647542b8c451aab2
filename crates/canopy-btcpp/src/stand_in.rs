//! Trees from a node model, without the node code: the node types a
//! `<TreeNodesModel>` declares become stand-ins in a registry, so a
//! Groot2 or Nav2 project's trees can be checked, printed, exported and
//! dry-run before (or without) the code behind their nodes.
//!
//! BehaviorTree.CPP does the same with its substitution rules and Groot2
//! with its models. A stand-in has the declared ports as its parameters —
//! inputs take a value or a `{key}`, outputs a key, and each key's type is
//! the declared port type — so a tree's wiring is checked when it is loaded:
//! a key read as a `nav_msgs::msg::Path` here and written as a `double`
//! there is an error naming both elements. What a stand-in *does* is
//! chosen per type by [`StandInRules`]: a leaf plays back statuses
//! (default: Success at once), a control runs as one of canopy's controls
//! (default: Sequence) and a decorator as one of its decorators (default:
//! its child's status, unchanged). Defaults are reported, so a dry run
//! never silently stands a `RecoveryNode` in for a `Sequence`.
//!
//! Types the caller registered keep their own code; a declared type named
//! like one of canopy's built-ins (Nav2's `Wait`) replaces it, as the
//! model describes the tree's nodes; BehaviorTree.CPP's standard nodes are
//! never stood in for. Rejected: reading ports' types
//! loosely (BehaviorTree.CPP's `AnyTypeAllowed` everywhere) — it would let
//! through exactly the wiring mistakes a model is there to catch.

use std::collections::BTreeMap;
use std::path::Path;

use canopy_core::{
    Arity, Children, Ctx, CustomNode, Literal, Node, NodeKind, Param, ParamKind, SlotType, Status,
    Task, Text, nodes,
};
use canopy_data::{NodeType, Registry};

use crate::dom::{self, Element};
use crate::error::XmlError;
use crate::sources::{self, File};
use crate::standard::{Category, Std, is_scripting, refused};
use crate::text::{did_you_mean, quote};

/// The node types a `<TreeNodesModel>` declares, with their ports.
#[derive(Debug)]
pub struct NodeModel {
    types: Vec<Declared>,
}

/// One declared node type.
#[derive(Debug)]
struct Declared {
    id: String,
    category: Category,
    ports: Vec<DeclaredPort>,
}

/// One declared port.
#[derive(Debug)]
struct DeclaredPort {
    name: String,
    /// `<output_port>` or `<inout_port>`: the node writes it.
    output: bool,
    /// The C++ type as written, if any.
    type_name: Option<String>,
}

impl NodeModel {
    /// The model in the file at `path` (any BehaviorTree.CPP XML file; its
    /// `<TreeNodesModel>` is read, everything else ignored).
    pub fn read_file(path: impl AsRef<Path>) -> Result<NodeModel, XmlError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes =
            canopy_data::read_file(path).map_err(|p| XmlError::whole(&shown, p.to_string()))?;
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
    pub fn read_str(text: &str, source: &str) -> Result<NodeModel, XmlError> {
        let mut budget = sources::MAX_ELEMENTS;
        let file = File {
            path: source.to_string(),
            dom: dom::parse(text.to_string(), source, &mut budget)?,
        };
        let root = file.dom.root();
        let mut types = Vec::new();
        for model in children(&file, root).filter(|e| e.1.tag() == "TreeNodesModel") {
            for (at, e) in children(&file, model.1) {
                if let Some(declared) = declared(&file, at, e)? {
                    types.push(declared);
                }
            }
        }
        if types.is_empty() {
            return Err(XmlError::whole(
                source,
                "declares no node types (no <TreeNodesModel> with <Action>, <Condition>, \
                 <Control> or <Decorator> models)",
            ));
        }
        Ok(NodeModel { types })
    }

    /// The declared types' IDs, in file order.
    pub fn types(&self) -> impl Iterator<Item = &str> {
        self.types.iter().map(|t| t.id.as_str())
    }

    /// Register a stand-in for every declared type `registry` does not
    /// have (and that is not one of BehaviorTree.CPP's standard nodes),
    /// run as `rules` say; what each runs as, in file order.
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
    ) -> Result<Vec<StandIn>, XmlError> {
        rules.check(self)?;
        let builtins = Registry::<A, W>::new();
        let mut done = Vec::new();
        for declared in &self.types {
            let id = declared.id.as_str();
            if Std::from_id(id).is_some() || refused(id).is_some() || is_scripting(id) {
                continue;
            }
            // The model's type wins over a canopy built-in of the same name
            // (Nav2's `Wait` is not canopy's); a type of the caller's own
            // keeps its code.
            let registered = registry.get(id).map(|t| t.description().to_string());
            let builtin = builtins.get(id).map(|t| t.description().to_string());
            match (registered, builtin) {
                (Some(ours), Some(theirs)) if ours == theirs => drop(registry.remove(id)),
                (Some(_), _) => continue,
                (None, _) => {}
            }
            let (runs_as, defaulted) = match rules.rules.get(id) {
                Some(rule) => (rule.clone(), false),
                None => (Rule::default_for(declared.category), true),
            };
            let node_type = stand_in_type(declared, &runs_as);
            registry
                .register(node_type)
                .map_err(|e| XmlError::whole(&rules.source, e.to_string()))?;
            done.push(StandIn {
                type_name: id.to_string(),
                category: declared.category,
                runs_as,
                defaulted,
            });
        }
        Ok(done)
    }
}

/// The child elements of `e`, with their indices.
fn children<'f>(file: &'f File, e: Element<'f>) -> impl Iterator<Item = (usize, Element<'f>)> + 'f {
    e.children().iter().map(|&c| (c, file.dom.element(c)))
}

/// A model element as a declared type; `None` for SubTree models and
/// other elements, which declare nothing to stand in for.
fn declared(file: &File, at: usize, e: Element<'_>) -> Result<Option<Declared>, XmlError> {
    let fail = |at: usize, problem: String| {
        let (line, column) = file.line_column(at);
        XmlError {
            file: file.path.clone(),
            line,
            column,
            element: Some(format!(
                "<{}>",
                crate::text::bare(file.dom.element(at).tag())
            )),
            problem,
            unknown_type: None,
        }
    };
    let Some(category) = Category::from_tag(e.tag()) else {
        return Ok(None);
    };
    let Some(id) = e.attr("ID") else {
        return Err(fail(at, "a node model needs an ID".to_string()));
    };
    let mut ports = Vec::new();
    for (port_at, p) in children(file, e) {
        let output = match p.tag() {
            "input_port" => false,
            "output_port" | "inout_port" => true,
            _ => continue,
        };
        let Some(name) = p.attr("name") else {
            return Err(fail(port_at, "a port needs a name".to_string()));
        };
        if ports.iter().any(|q: &DeclaredPort| q.name == name) {
            return Err(fail(
                port_at,
                format!("{id} declares the port {} twice", quote(name)),
            ));
        }
        ports.push(DeclaredPort {
            name: name.to_string(),
            output,
            type_name: p.attr("type").map(str::to_string),
        });
    }
    Ok(Some(Declared {
        id: id.to_string(),
        category,
        ports,
    }))
}

/// What a stand-in does, from [`StandInRules`] or the default.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    /// A leaf: these statuses, one per update since it was entered; the
    /// last repeats.
    Statuses(Vec<Status>),
    /// A control or decorator: one of canopy's, by name.
    Kind(String),
}

/// The controls a stand-in may run as, and the decorators.
const CONTROLS: [&str; 5] = [
    "Sequence",
    "Fallback",
    "SequenceWithMemory",
    "ReactiveSequence",
    "ReactiveFallback",
];
const DECORATORS: [&str; 4] = ["PassThrough", "Inverter", "ForceSuccess", "ForceFailure"];

impl Rule {
    fn default_for(category: Category) -> Rule {
        match category {
            Category::Action | Category::Condition => Rule::Statuses(vec![Status::Success]),
            Category::Control => Rule::Kind("Sequence".to_string()),
            Category::Decorator => Rule::Kind("PassThrough".to_string()),
        }
    }
}

/// What builds a stand-in's node from its rule.
type MakeKind<A, W> = fn(&Rule) -> NodeKind<A, W>;

/// The node type standing in for `declared`.
fn stand_in_type<A: 'static, W: 'static>(declared: &Declared, rule: &Rule) -> NodeType<A, W> {
    let params: Vec<Param> = declared.ports.iter().map(port_param).collect();
    let about = format!("a stand-in for {}, declared in a node model", declared.id);
    let (arity, kind): (Arity, MakeKind<A, W>) = match declared.category {
        Category::Action | Category::Condition => (Arity::Leaf, leaf),
        Category::Control => (Arity::Composite, control),
        Category::Decorator => (Arity::Decorator, decorator),
    };
    let rule = rule.clone();
    NodeType::new(&declared.id, &about, arity, params, move |_| {
        Ok(kind(&rule))
    })
}

fn leaf<A: 'static, W: 'static>(rule: &Rule) -> NodeKind<A, W> {
    let statuses = match rule {
        Rule::Statuses(s) => s.clone(),
        Rule::Kind(_) => vec![Status::Success],
    };
    NodeKind::Custom(CustomNode::new(PlayBack { statuses }))
}

fn control<A: 'static, W: 'static>(rule: &Rule) -> NodeKind<A, W> {
    match rule {
        Rule::Kind(k) if k == "Fallback" => NodeKind::from(nodes::Selector),
        Rule::Kind(k) if k == "SequenceWithMemory" => {
            // As BehaviorTree.CPP runs its own in a tree: with its yield.
            NodeKind::from(nodes::SequenceWithMemory { pause: Some(true) })
        }
        Rule::Kind(k) if k == "ReactiveSequence" => NodeKind::from(nodes::ReactiveSequence),
        Rule::Kind(k) if k == "ReactiveFallback" => NodeKind::from(nodes::ReactiveSelector),
        _ => NodeKind::from(nodes::Sequence),
    }
}

fn decorator<A: 'static, W: 'static>(rule: &Rule) -> NodeKind<A, W> {
    match rule {
        Rule::Kind(k) if k == "Inverter" => NodeKind::from(nodes::Inverter),
        Rule::Kind(k) if k == "ForceSuccess" => NodeKind::from(nodes::ForceSuccess),
        Rule::Kind(k) if k == "ForceFailure" => NodeKind::from(nodes::ForceFailure),
        // One success of the child is its success: its status, unchanged.
        _ => NodeKind::from(nodes::Repeat { times: 1 }),
    }
}

/// A declared port as a parameter: a port whose slot holds the declared
/// type (the matching canopy type for the common C++ names, a type known
/// by name otherwise); optional, as BehaviorTree.CPP reads a port only
/// when its node asks.
fn port_param(port: &DeclaredPort) -> Param {
    let declared = port.type_name.as_deref().unwrap_or("AnyTypeAllowed");
    let (ty, value) = slot_type(declared);
    let kind = ParamKind::Port {
        value: Box::new(value),
        ty,
        output: port.output,
    };
    Param {
        name: port.name.clone(),
        kind,
        default: Some(Literal::Null),
        doc: format!("declared as {declared}"),
    }
}

/// The slot type of a declared C++ type, and what a value in place may be.
fn slot_type(declared: &str) -> (SlotType, ParamKind) {
    let int = |min: i64, max: i64| ParamKind::Int { min, max };
    let float = ParamKind::Float {
        min: f64::MIN,
        max: f64::MAX,
    };
    match declared.trim() {
        "double" => (SlotType::of::<f64>(), float),
        "float" => (SlotType::of::<f32>(), float),
        "bool" => (SlotType::of::<bool>(), ParamKind::Bool),
        "int" | "int32" | "int32_t" => {
            (SlotType::of::<i32>(), int(i32::MIN.into(), i32::MAX.into()))
        }
        "unsigned int" | "unsigned" | "uint32" | "uint32_t" => {
            (SlotType::of::<u32>(), int(0, u32::MAX.into()))
        }
        "uint16" | "uint16_t" | "unsigned short" => {
            (SlotType::of::<u16>(), int(0, u16::MAX.into()))
        }
        "int64" | "int64_t" | "long" | "long long" => {
            (SlotType::of::<i64>(), int(i64::MIN, i64::MAX))
        }
        "uint8" | "uint8_t" => (SlotType::of::<u8>(), int(0, u8::MAX.into())),
        "string" | "std::string" => (SlotType::of::<Text>(), ParamKind::Text),
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
            Rule::Kind(k) if k == "PassThrough" => {
                write!(
                    f,
                    "{}: {what} that returns its child's status",
                    self.type_name
                )
            }
            Rule::Kind(k) => write!(f, "{}: {what} that runs as canopy's {k}", self.type_name),
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
}

impl StandInRules {
    /// No rules: every stand-in does the default.
    pub fn new() -> StandInRules {
        StandInRules::default()
    }

    /// The rules in the JSON file at `path`.
    pub fn read_file(path: impl AsRef<Path>) -> Result<StandInRules, XmlError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes =
            canopy_data::read_file(path).map_err(|p| XmlError::whole(&shown, p.to_string()))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| XmlError::whole(&shown, "not a UTF-8 text file"))?;
        StandInRules::read_str(text, &shown)
    }

    /// The rules in JSON text; `source` names it in errors.
    pub fn read_str(text: &str, source: &str) -> Result<StandInRules, XmlError> {
        let fail = |problem: String| XmlError::whole(source, problem);
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| fail(format!("not JSON: {e}")))?;
        let serde_json::Value::Object(fields) = value else {
            return Err(fail("must be a JSON object of node types".to_string()));
        };
        let mut rules = BTreeMap::new();
        for (id, value) in fields {
            let rule = rule(&value).ok_or_else(|| {
                fail(format!(
                    "{}: must be a status, a list of statuses, or the name of a control or \
                     decorator, got {}",
                    quote(&id),
                    quote(&value.to_string())
                ))
            })?;
            rules.insert(id, rule);
        }
        Ok(StandInRules {
            rules,
            source: source.to_string(),
        })
    }

    /// Every rule names a declared type, and suits its category.
    fn check(&self, model: &NodeModel) -> Result<(), XmlError> {
        for (id, rule) in &self.rules {
            let Some(declared) = model.types.iter().find(|t| &t.id == id) else {
                return Err(XmlError::whole(
                    &self.source,
                    format!(
                        "{} is not declared in the node model{}",
                        quote(id),
                        did_you_mean(id, model.types())
                    ),
                ));
            };
            let fits = match (declared.category, rule) {
                (Category::Action | Category::Condition, Rule::Statuses(_)) => true,
                (Category::Control, Rule::Kind(k)) => CONTROLS.contains(&k.as_str()),
                (Category::Decorator, Rule::Kind(k)) => DECORATORS.contains(&k.as_str()),
                _ => false,
            };
            if !fits {
                let takes = match declared.category {
                    Category::Action | Category::Condition => {
                        "a status or a list of statuses".to_string()
                    }
                    Category::Control => format!("one of {}", CONTROLS.join(", ")),
                    Category::Decorator => format!("one of {}", DECORATORS.join(", ")),
                };
                return Err(XmlError::whole(
                    &self.source,
                    format!(
                        "{} is {}, which takes {takes}",
                        quote(id),
                        match declared.category {
                            Category::Action => "an action",
                            Category::Condition => "a condition",
                            Category::Control => "a control",
                            Category::Decorator => "a decorator",
                        }
                    ),
                ));
            }
        }
        Ok(())
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
            None => Rule::Kind(s.clone()),
        }),
        _ => None,
    }
}
