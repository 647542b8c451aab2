//! The tree as Groot2 sees it: BehaviorTree.CPP's XML instantiated the way
//! BehaviorTree.CPP instantiates it, each node numbered with the UID its
//! `Groot2Publisher` gives it, and written back as the publisher's FULLTREE
//! reply.
//!
//! BehaviorTree.CPP numbers nodes from 1 as it creates them: depth first,
//! each `<SubTree>` node before the nodes of the subtree it runs, which
//! are created at once, in a section of their own (`<BehaviorTree ID="…"
//! _fullpath="…">`); the next sibling of the `<SubTree>` comes after them.
//! So the numbers follow from the XML alone, and [`GrootTree`] computes
//! them from the XML canopy read (or exported), not from canopy's tree:
//! canopy shares a subtree between its references and drops the
//! `<SubTree>` nodes, which BehaviorTree.CPP counts. Which canopy node
//! each number stands for is [`crate::align`]'s business.
//!
//! Rejected: reading the numbers from a BehaviorTree.CPP build at run time
//! (the point is to serve Groot2 without one), and numbering canopy's own
//! nodes (the numbers would differ from BehaviorTree.CPP's for any tree
//! with a `<SubTree>` or a pre-condition, and Groot2's saved layouts and
//! a user's notes name nodes by them).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use crate::error::Groot2Error;

/// Most nodes a tree may have once every `<SubTree>` is expanded: Groot2's
/// protocol numbers nodes with 16 bits, from 1.
pub const MAX_GROOT_NODES: usize = u16::MAX as usize;

/// Most bytes of XML read for one tree, includes together (as canopy's XML
/// reader allows).
pub const MAX_SOURCE_BYTES: usize = 64 << 20;

/// Most files one tree may include, transitively.
pub const MAX_INCLUDED_FILES: usize = 256;

/// Deepest nesting of elements, and of subtrees within subtrees, read.
pub const MAX_NESTING: usize = 256;

/// What a node is to BehaviorTree.CPP, as far as its status goes: how its
/// children's statuses are reset while it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeClass {
    /// One of BehaviorTree.CPP's own leaves, or a condition: RUNNING only
    /// if it returns RUNNING.
    Leaf,
    /// An action of the game's own: RUNNING as soon as it is ticked, as
    /// BehaviorTree.CPP's `SimpleActionNode` (what `registerSimpleAction`
    /// makes) is, before its status.
    Action,
    /// A control whose finished children keep their status until it
    /// finishes (Sequence, Fallback, Parallel, …).
    Control,
    /// `SequenceWithMemory`: as [`NodeClass::Control`], but a failure
    /// resets only the failed child and those after it.
    SequenceWithMemory,
    /// `ReactiveSequence`, `ReactiveFallback`: while a child runs, every
    /// other child is reset.
    Reactive,
    /// A decorator: its child is reset as soon as it finishes.
    Decorator,
    /// A `<SubTree>`: a decorator over the subtree's root.
    SubTree,
}

impl NodeClass {
    /// Whether the node has children of its own (is not a leaf).
    pub fn is_parent(self) -> bool {
        !matches!(self, NodeClass::Leaf | NodeClass::Action)
    }
}

/// One node of a [`GrootTree`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrootNode {
    /// Its UID, from 1.
    pub uid: u16,
    /// Its registration ID, the tag BehaviorTree.CPP writes (`Sequence`,
    /// `SubTree`, a custom node's ID).
    pub tag: String,
    /// Its name (the ID when the XML gives none); empty for a `<SubTree>`.
    pub name: String,
    /// The attributes written after `name` and `_uid`: ports, pre- and
    /// post-conditions (for a `<SubTree>`, `ID` and `_fullpath` first).
    pub attrs: Vec<(String, String)>,
    /// How its children's statuses behave.
    pub class: NodeClass,
    /// Its children's UIDs; a `<SubTree>`'s one child is its subtree's root.
    pub children: Vec<u16>,
    /// Its parent's UID (a subtree's root: the `<SubTree>`).
    pub parent: Option<u16>,
}

/// One `<BehaviorTree>` section of the publisher's XML: the main tree, or
/// one instance of a subtree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The tree's ID.
    pub id: String,
    /// Its instance path (`""` for the main tree, `Sub::5`, `Sub::5/Inner::7`),
    /// which also names its blackboard in a BLACKBOARD request (the main
    /// tree's is named by its ID).
    pub fullpath: String,
    /// Its nodes, in the order they were created (its root first).
    pub nodes: Vec<u16>,
    /// The `<SubTree>` node running it (none for the main tree).
    pub subtree: Option<u16>,
    /// For a `<SubTree>` instance: the literal values its `<SubTree>`
    /// passes to its ports (`n="5"`), which BehaviorTree.CPP writes into the
    /// instance's own blackboard.
    pub literals: Vec<(String, String)>,
}

/// A node type declared in the `<TreeNodesModel>` written with the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Model {
    category: &'static str,
    id: String,
    ports: Vec<String>,
}

/// A tree as BehaviorTree.CPP instantiates it for Groot2: its nodes by UID,
/// its sections, and the XML a FULLTREE request is answered with.
///
/// ```
/// use canopy_groot2::GrootTree;
///
/// let xml = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
///   <BehaviorTree ID="Main">
///     <Sequence name="top"><SubTree ID="Sub"/><AlwaysSuccess/></Sequence>
///   </BehaviorTree>
///   <BehaviorTree ID="Sub"><Inverter><AlwaysFailure/></Inverter></BehaviorTree>
/// </root>"#;
/// let tree = GrootTree::from_xml(xml).unwrap();
/// let names: Vec<_> = tree.nodes().iter().map(|n| (n.uid, n.tag.as_str())).collect();
/// // The subtree's nodes come right after its <SubTree>, before the next sibling.
/// assert_eq!(names, [(1, "Sequence"), (2, "SubTree"), (3, "Inverter"), (4, "AlwaysFailure"), (5, "AlwaysSuccess")]);
/// assert_eq!(tree.sections()[1].fullpath, "Sub::2");
/// assert!(tree.xml().contains(r#"<SubTree ID="Sub" _fullpath="Sub::2" _uid="2"/>"#));
/// ```
#[derive(Clone, Debug)]
pub struct GrootTree {
    nodes: Vec<GrootNode>,
    sections: Vec<Section>,
    models: Vec<Model>,
    xml: String,
}

/// An element of the source XML.
#[derive(Clone, Debug, Default)]
struct El {
    tag: String,
    attrs: Vec<(String, String)>,
    children: Vec<El>,
}

impl El {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// BehaviorTree.CPP's own controls whose finished children keep their
/// status while they run.
const CONTROLS: &[&str] = &[
    "Sequence",
    "Fallback",
    "Parallel",
    "ParallelAll",
    "IfThenElse",
    "WhileDoElse",
    "Switch2",
    "Switch3",
    "Switch4",
    "Switch5",
    "Switch6",
    "AsyncSequence",
    "AsyncFallback",
    "TryCatch",
    "ManualSelector",
];

/// BehaviorTree.CPP's own decorators.
const DECORATORS: &[&str] = &[
    "Inverter",
    "ForceSuccess",
    "ForceFailure",
    "Repeat",
    "RetryUntilSuccessful",
    "KeepRunningUntilFailure",
    "Timeout",
    "Delay",
    "RunOnce",
    "Precondition",
    "LoopInt",
    "LoopDouble",
    "LoopString",
    "LoopBool",
    "SkipUnlessUpdated",
    "WaitValueUpdate",
];

/// BehaviorTree.CPP's own leaves (not declared in a written model).
const LEAVES: &[&str] = &[
    "AlwaysSuccess",
    "AlwaysFailure",
    "Script",
    "ScriptCondition",
    "SetBlackboard",
    "UnsetBlackboard",
    "Sleep",
    "WasEntryUpdated",
];

/// Attributes of an element that are not ports.
fn reserved(key: &str) -> bool {
    matches!(key, "ID" | "name" | "_uid" | "_fullpath")
}

/// Whether `id` is one of BehaviorTree.CPP's own node types.
fn builtin(id: &str) -> bool {
    CONTROLS.contains(&id)
        || DECORATORS.contains(&id)
        || LEAVES.contains(&id)
        || matches!(
            id,
            "ReactiveSequence" | "ReactiveFallback" | "SequenceWithMemory" | "SubTree"
        )
}

impl GrootTree {
    /// The tree of a BehaviorTree.CPP XML document (format 4) with no
    /// `<include>`: the tree `main_tree_to_execute` names, or the only one,
    /// or the first.
    ///
    /// # Errors
    /// When the text is not such a document, names a subtree it lacks,
    /// nests too deep or has more than [`MAX_GROOT_NODES`] nodes.
    pub fn from_xml(text: &str) -> Result<GrootTree, Groot2Error> {
        let root = parse(text, "the XML")?;
        let mut docs = Docs::default();
        docs.add(root, None, false)?;
        docs.build()
    }

    /// The tree of a BehaviorTree.CPP XML file, with its `<include>`s
    /// (relative to the including file; outside its directory only with
    /// `includes_outside`, as canopy's loader allows).
    ///
    /// # Errors
    /// As [`GrootTree::from_xml`], and when a file cannot be read.
    pub fn from_file(path: &Path, includes_outside: bool) -> Result<GrootTree, Groot2Error> {
        let mut docs = Docs {
            includes_outside,
            ..Docs::default()
        };
        docs.read(path)?;
        docs.build()
    }

    /// The tree of a canopy tree that has no XML (built in code, or from a
    /// file BehaviorTree.CPP cannot read): every node as its canopy type,
    /// numbered depth first, a shared subtree at each of its uses. It
    /// aligns with `tree` node for node.
    ///
    /// # Errors
    /// When the tree has more than [`MAX_GROOT_NODES`] nodes once shared
    /// subtrees are expanded.
    ///
    /// ```
    /// use canopy_groot2::GrootTree;
    /// let b = canopy_core::Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("day", [b.wait("nap", 3), b.always_success("eat")])).unwrap();
    /// let groot = GrootTree::of_tree(&tree).unwrap();
    /// assert!(groot.xml().contains(r#"<Wait name="nap" _uid="2" ticks="3"/>"#));
    /// ```
    pub fn of_tree<A, W>(tree: &canopy_core::Tree<A, W>) -> Result<GrootTree, Groot2Error> {
        if tree.expanded_len() > MAX_GROOT_NODES as u64 {
            return Err(Groot2Error::xml(format!(
                "the tree has {} nodes once its shared subtrees are expanded; Groot2's \
                 protocol numbers at most {MAX_GROOT_NODES}",
                tree.expanded_len()
            )));
        }
        let mut nodes: Vec<GrootNode> = Vec::new();
        let mut models: Vec<Model> = Vec::new();
        let mut stack = vec![(tree.node(tree.root()), None::<u16>)];
        while let Some((node, parent)) = stack.pop() {
            let uid = (nodes.len() + 1) as u16;
            let tag: String = node
                .type_name()
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let children = node.children().len();
            let class = match (tag.as_str(), children) {
                (_, 0) if tag.contains("Condition") => NodeClass::Leaf,
                (_, 0) => NodeClass::Action,
                ("ReactiveSequence" | "ReactiveSelector" | "ReactiveFallback", _) => {
                    NodeClass::Reactive
                }
                (_, 1) => NodeClass::Decorator,
                _ => NodeClass::Control,
            };
            let attrs: Vec<(String, String)> = node
                .params()
                .into_iter()
                .filter(|(k, _)| !reserved(k) && !k.is_empty())
                .collect();
            if !builtin(&tag) {
                models.push(Model {
                    category: match class {
                        NodeClass::Leaf => "Condition",
                        NodeClass::Action => "Action",
                        NodeClass::Decorator => "Decorator",
                        _ => "Control",
                    },
                    id: tag.clone(),
                    ports: attrs.iter().map(|(k, _)| k.clone()).collect(),
                });
            }
            if let Some(p) = parent {
                nodes[usize::from(p) - 1].children.push(uid);
            }
            nodes.push(GrootNode {
                uid,
                tag,
                name: node.name().to_string(),
                attrs,
                class,
                children: Vec::new(),
                parent,
            });
            let kids: Vec<_> = node.children().collect();
            for child in kids.into_iter().rev() {
                stack.push((child, Some(uid)));
            }
        }
        models.sort_by(|a, b| a.id.cmp(&b.id));
        models.dedup_by(|a, b| a.id == b.id);
        let sections = vec![Section {
            id: "MainTree".to_string(),
            fullpath: String::new(),
            nodes: (1..=nodes.len() as u16).collect(),
            subtree: None,
            literals: Vec::new(),
        }];
        let mut groot = GrootTree {
            nodes,
            sections,
            models,
            xml: String::new(),
        };
        groot.xml = write(&groot);
        Ok(groot)
    }

    /// Every node, by UID (node `i` has UID `i + 1`).
    pub fn nodes(&self) -> &[GrootNode] {
        &self.nodes
    }

    /// The node with UID `uid`.
    pub fn node(&self, uid: u16) -> Option<&GrootNode> {
        self.nodes.get(usize::from(uid).checked_sub(1)?)
    }

    /// The sections: the main tree first, then each subtree instance in
    /// the order its `<SubTree>` was created. Their nodes, in this order,
    /// are the order of a STATUS reply.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The root's UID (1).
    pub fn root(&self) -> u16 {
        1
    }

    /// The XML a FULLTREE request is answered with: every section with
    /// its nodes' `_uid`s, then the `<TreeNodesModel>` of the node types
    /// that are not BehaviorTree.CPP's own.
    pub fn xml(&self) -> &str {
        &self.xml
    }
}

/// The documents read for one tree, and their trees by ID.
#[derive(Default)]
struct Docs {
    includes_outside: bool,
    bytes: usize,
    files: Vec<PathBuf>,
    trees: Vec<El>,
    models: Vec<El>,
    main: Option<String>,
}

impl Docs {
    fn read(&mut self, path: &Path) -> Result<(), Groot2Error> {
        if self.files.len() >= MAX_INCLUDED_FILES {
            return Err(Groot2Error::xml(format!(
                "the tree includes more than {MAX_INCLUDED_FILES} files"
            )));
        }
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if self.files.contains(&canonical) {
            return Ok(()); // each file read once, as canopy's loader does
        }
        let text =
            crate::error::read_bounded(path, MAX_SOURCE_BYTES - self.bytes.min(MAX_SOURCE_BYTES))?;
        self.bytes += text.len();
        let first = self.files.is_empty();
        self.files.push(canonical);
        let root = parse(&text, &path.display().to_string())?;
        self.add(root, Some(path), first)
    }

    fn add(&mut self, root: El, path: Option<&Path>, first: bool) -> Result<(), Groot2Error> {
        if root.tag != "root" {
            return Err(Groot2Error::xml(format!(
                "the top element is <{}>; BehaviorTree.CPP files start with <root>",
                canopy_core::text::escape(&root.tag)
            )));
        }
        if first || path.is_none() {
            self.main = root.attr("main_tree_to_execute").map(str::to_string);
        }
        for child in root.children {
            match child.tag.as_str() {
                "BehaviorTree" => self.trees.push(child),
                "TreeNodesModel" => self.models.push(child),
                "include" => {
                    let Some(from) = path else {
                        return Err(Groot2Error::xml(
                            "an <include> in XML given as text: read the file instead".to_string(),
                        ));
                    };
                    let Some(target) = child.attr("path") else {
                        return Err(Groot2Error::xml("an <include> without a path".to_string()));
                    };
                    let target = Path::new(target);
                    let outside = target.is_absolute()
                        || target
                            .components()
                            .any(|c| matches!(c, std::path::Component::ParentDir));
                    if outside && !self.includes_outside {
                        return Err(Groot2Error::xml(format!(
                            "the <include> of {} leaves the including file's directory",
                            canopy_core::text::quote(&target.display().to_string())
                        )));
                    }
                    let dir = from.parent().unwrap_or(Path::new("."));
                    self.read(&dir.join(target))?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn build(self) -> Result<GrootTree, Groot2Error> {
        let mut by_id: HashMap<&str, &El> = HashMap::new();
        for tree in &self.trees {
            let id = tree.attr("ID").unwrap_or("");
            by_id.entry(id).or_insert(tree);
        }
        let main = match &self.main {
            Some(id) => *by_id.get(id.as_str()).ok_or_else(|| {
                Groot2Error::xml(format!(
                    "main_tree_to_execute names {}, which no <BehaviorTree> has",
                    canopy_core::text::quote(id)
                ))
            })?,
            None => self
                .trees
                .first()
                .ok_or_else(|| Groot2Error::xml("the XML holds no <BehaviorTree>".to_string()))?,
        };
        let mut categories: HashMap<String, &'static str> = HashMap::new();
        for model in &self.models {
            for entry in &model.children {
                let category = match entry.tag.as_str() {
                    "Action" => "Action",
                    "Condition" => "Condition",
                    "Control" => "Control",
                    "Decorator" => "Decorator",
                    _ => continue,
                };
                if let Some(id) = entry.attr("ID") {
                    categories.insert(id.to_string(), category);
                }
            }
        }
        let mut maker = Maker {
            by_id: &by_id,
            categories: &categories,
            nodes: Vec::new(),
            sections: Vec::new(),
            models: Vec::new(),
        };
        let main_id = main.attr("ID").unwrap_or("").to_string();
        maker.section(main, &main_id, String::new(), None, Vec::new(), 0)?;
        let Maker {
            nodes,
            sections,
            mut models,
            ..
        } = maker;
        models.sort_by(|a, b| a.id.cmp(&b.id));
        models.dedup_by(|a, b| a.id == b.id);
        let mut tree = GrootTree {
            nodes,
            sections,
            models,
            xml: String::new(),
        };
        tree.xml = write(&tree);
        Ok(tree)
    }
}

/// Numbers the nodes as BehaviorTree.CPP creates them.
struct Maker<'d> {
    by_id: &'d HashMap<&'d str, &'d El>,
    categories: &'d HashMap<String, &'static str>,
    nodes: Vec<GrootNode>,
    sections: Vec<Section>,
    models: Vec<Model>,
}

impl Maker<'_> {
    /// A section for the tree `tree`; its root's UID.
    fn section(
        &mut self,
        tree: &El,
        id: &str,
        fullpath: String,
        subtree: Option<u16>,
        literals: Vec<(String, String)>,
        depth: usize,
    ) -> Result<u16, Groot2Error> {
        let Some(root) = tree.children.first() else {
            return Err(Groot2Error::xml(format!(
                "the <BehaviorTree ID={}> holds no node",
                canopy_core::text::quote(id)
            )));
        };
        let index = self.sections.len();
        self.sections.push(Section {
            id: id.to_string(),
            fullpath: fullpath.clone(),
            nodes: Vec::new(),
            subtree,
            literals,
        });
        let prefix = if fullpath.is_empty() {
            String::new()
        } else {
            format!("{fullpath}/")
        };
        self.node(root, index, &prefix, subtree, depth)
    }

    /// One node and everything below it; its UID.
    fn node(
        &mut self,
        el: &El,
        section: usize,
        prefix: &str,
        parent: Option<u16>,
        depth: usize,
    ) -> Result<u16, Groot2Error> {
        if depth > MAX_NESTING {
            return Err(Groot2Error::xml(format!(
                "nodes and subtrees are nested more than {MAX_NESTING} deep"
            )));
        }
        if self.nodes.len() >= MAX_GROOT_NODES {
            return Err(Groot2Error::xml(format!(
                "the tree has more than {MAX_GROOT_NODES} nodes once every <SubTree> is expanded; \
                 Groot2's protocol numbers nodes with 16 bits"
            )));
        }
        let uid = (self.nodes.len() + 1) as u16;
        let explicit = matches!(
            el.tag.as_str(),
            "Action" | "Condition" | "Control" | "Decorator"
        );
        let id = if explicit || el.tag == "SubTree" {
            el.attr("ID").unwrap_or("").to_string()
        } else {
            el.tag.clone()
        };
        self.sections[section].nodes.push(uid);
        if el.tag == "SubTree" {
            let name = el.attr("name");
            let mut own_path = format!("{prefix}{}", name.unwrap_or(&id));
            if name.is_none_or(|n| n == id) {
                let _ = write!(own_path, "::{uid}");
            }
            let mut attrs = vec![
                ("ID".to_string(), id.clone()),
                ("_fullpath".to_string(), own_path),
            ];
            attrs.extend(
                el.attrs
                    .iter()
                    .filter(|(k, _)| !reserved(k))
                    .map(|(k, v)| (k.clone(), v.clone())),
            );
            self.nodes.push(GrootNode {
                uid,
                tag: "SubTree".to_string(),
                name: String::new(),
                attrs,
                class: NodeClass::SubTree,
                children: Vec::new(),
                parent,
            });
            let Some(tree) = self.by_id.get(id.as_str()).copied() else {
                return Err(Groot2Error::xml(format!(
                    "a <SubTree> names {}, which no <BehaviorTree> has",
                    canopy_core::text::quote(&id)
                )));
            };
            let instance = self.sections[section].fullpath.clone();
            let mut path = if instance.is_empty() {
                String::new()
            } else {
                format!("{instance}/")
            };
            match name {
                Some(name) => path.push_str(name),
                None => {
                    let _ = write!(path, "{id}::{uid}");
                }
            }
            let literals = el
                .attrs
                .iter()
                .filter(|(k, v)| !reserved(k) && !k.starts_with('_') && !is_key(v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let child = self.section(tree, &id, path, Some(uid), literals, depth + 1)?;
            self.nodes[usize::from(uid) - 1].children.push(child);
            return Ok(uid);
        }
        let class = self.class(el, &id, explicit);
        if !builtin(&id) {
            let category = match (explicit, class) {
                (true, _) => match el.tag.as_str() {
                    "Action" => "Action",
                    "Condition" => "Condition",
                    "Control" => "Control",
                    _ => "Decorator",
                },
                (false, NodeClass::Leaf | NodeClass::Action) => {
                    self.categories.get(&id).copied().unwrap_or("Action")
                }
                (false, NodeClass::Decorator) => "Decorator",
                _ => "Control",
            };
            self.models.push(Model {
                category,
                id: id.clone(),
                ports: el
                    .attrs
                    .iter()
                    .filter(|(k, _)| !reserved(k) && !k.starts_with('_'))
                    .map(|(k, _)| k.clone())
                    .collect(),
            });
        }
        let name = el.attr("name").unwrap_or(&id).to_string();
        let attrs = el
            .attrs
            .iter()
            .filter(|(k, _)| !reserved(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.nodes.push(GrootNode {
            uid,
            tag: id,
            name,
            attrs,
            class,
            children: Vec::new(),
            parent,
        });
        let mut children = Vec::with_capacity(el.children.len());
        for child in &el.children {
            children.push(self.node(child, section, prefix, Some(uid), depth + 1)?);
        }
        self.nodes[usize::from(uid) - 1].children = children;
        Ok(uid)
    }

    fn class(&self, el: &El, id: &str, explicit: bool) -> NodeClass {
        match id {
            "SequenceWithMemory" => return NodeClass::SequenceWithMemory,
            "ReactiveSequence" | "ReactiveFallback" => return NodeClass::Reactive,
            _ if CONTROLS.contains(&id) => return NodeClass::Control,
            _ if DECORATORS.contains(&id) => return NodeClass::Decorator,
            _ => {}
        }
        let category = if explicit {
            Some(el.tag.as_str())
        } else {
            self.categories.get(id).copied()
        };
        match category {
            Some("Control") => NodeClass::Control,
            Some("Decorator") => NodeClass::Decorator,
            Some("Condition") => NodeClass::Leaf,
            _ if LEAVES.contains(&id) => NodeClass::Leaf,
            Some(_) => NodeClass::Action,
            None => match el.children.len() {
                0 => NodeClass::Action,
                1 => NodeClass::Decorator,
                _ => NodeClass::Control,
            },
        }
    }
}

/// Whether a port's value names a blackboard key (`{key}`, `{=}`).
fn is_key(value: &str) -> bool {
    value.starts_with('{') && value.ends_with('}')
}

/// The FULLTREE XML of `tree`.
fn write(tree: &GrootTree) -> String {
    let mut out = String::from("<root BTCPP_format=\"4\">\n");
    for section in &tree.sections {
        let _ = writeln!(
            out,
            "    <BehaviorTree ID=\"{}\" _fullpath=\"{}\">",
            esc(&section.id),
            esc(&section.fullpath)
        );
        if let Some(&root) = section.nodes.first() {
            write_node(tree, root, 2, &mut out);
        }
        out.push_str("    </BehaviorTree>\n");
    }
    if tree.models.is_empty() {
        out.push_str("    <TreeNodesModel/>\n");
    } else {
        out.push_str("    <TreeNodesModel>\n");
        for model in &tree.models {
            if model.ports.is_empty() {
                let _ = writeln!(
                    out,
                    "        <{} ID=\"{}\"/>",
                    model.category,
                    esc(&model.id)
                );
                continue;
            }
            let _ = writeln!(
                out,
                "        <{} ID=\"{}\">",
                model.category,
                esc(&model.id)
            );
            for port in &model.ports {
                let _ = writeln!(out, "            <input_port name=\"{}\"/>", esc(port));
            }
            let _ = writeln!(out, "        </{}>", model.category);
        }
        out.push_str("    </TreeNodesModel>\n");
    }
    out.push_str("</root>\n");
    out
}

fn write_node(tree: &GrootTree, uid: u16, level: usize, out: &mut String) {
    let Some(node) = tree.node(uid) else { return };
    let indent = "    ".repeat(level);
    let _ = write!(out, "{indent}<{}", esc(&node.tag));
    if node.class == NodeClass::SubTree {
        // ID and _fullpath lead a <SubTree>'s attributes.
        for (k, v) in node.attrs.iter().take(2) {
            let _ = write!(out, " {k}=\"{}\"", esc(v));
        }
        let _ = write!(out, " _uid=\"{uid}\"");
        for (k, v) in node.attrs.iter().skip(2) {
            let _ = write!(out, " {}=\"{}\"", esc(k), esc(v));
        }
        out.push_str("/>\n");
        return;
    }
    let _ = write!(out, " name=\"{}\" _uid=\"{uid}\"", esc(&node.name));
    for (k, v) in &node.attrs {
        let _ = write!(out, " {}=\"{}\"", esc(k), esc(v));
    }
    if node.children.is_empty() {
        out.push_str("/>\n");
        return;
    }
    out.push_str(">\n");
    for &child in &node.children {
        write_node(tree, child, level + 1, out);
    }
    let _ = writeln!(out, "{indent}</{}>", esc(&node.tag));
}

fn esc(text: &str) -> std::borrow::Cow<'_, str> {
    canopy_core::text::xml(text)
}

/// The elements of an XML text, bounded in depth; `what` names the text in
/// errors.
fn parse(text: &str, what: &str) -> Result<El, Groot2Error> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut open: Vec<El> = Vec::new();
    let mut top: Option<El> = None;
    let fail = |reader: &Reader<&[u8]>, problem: String| {
        let at = reader.buffer_position() as usize;
        let line = text
            .get(..at.min(text.len()))
            .map_or(1, |t| t.matches('\n').count() + 1);
        Groot2Error::xml(format!("{what}, line {line}: {problem}"))
    };
    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let problem = format!(
                    "malformed XML: {}",
                    canopy_core::text::escape(&e.to_string())
                );
                return Err(fail(&reader, problem));
            }
        };
        let (start, closes) = match &event {
            Event::Start(e) => (Some(e), false),
            Event::Empty(e) => (Some(e), true),
            Event::End(_) => {
                let done = open.pop();
                if let Some(done) = done {
                    match open.last_mut() {
                        Some(parent) => parent.children.push(done),
                        None => top = Some(done),
                    }
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let Some(start) = start else { continue };
        if open.len() >= MAX_NESTING * 2 {
            return Err(fail(
                &reader,
                format!("elements are nested more than {} deep", MAX_NESTING * 2),
            ));
        }
        let el = element(start).map_err(|problem| fail(&reader, problem))?;
        if closes {
            match open.last_mut() {
                Some(parent) => parent.children.push(el),
                None => top = Some(el),
            }
        } else {
            open.push(el);
        }
    }
    if !open.is_empty() {
        return Err(Groot2Error::xml(format!(
            "{what}: an element is never closed"
        )));
    }
    top.ok_or_else(|| Groot2Error::xml(format!("{what} holds no element")))
}

fn element(start: &BytesStart<'_>) -> Result<El, String> {
    let tag = start.name().into_inner().to_string();
    let mut attrs = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(|e| {
            format!(
                "malformed attribute: {}",
                canopy_core::text::escape(&e.to_string())
            )
        })?;
        let key = attr.key.into_inner().to_string();
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| {
                format!(
                    "malformed value of {}: {}",
                    canopy_core::text::quote(&key),
                    canopy_core::text::escape(&e.to_string())
                )
            })?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(El {
        tag,
        attrs,
        children: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree BehaviorTree.CPP 4.8.2's publisher was asked for (its
    /// FULLTREE reply numbered these nodes so).
    const SAMPLE: &str = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
<BehaviorTree ID="Main">
  <Sequence name="top">
    <Script code="count := 3"/>
    <Fallback>
      <AlwaysFailure/>
      <SubTree ID="Sub" n="{count}"/>
    </Fallback>
    <ReactiveSequence>
      <AlwaysSuccess/>
      <Sleep msec="300"/>
    </ReactiveSequence>
    <Inverter><AlwaysFailure _skipIf="count == 4"/></Inverter>
  </Sequence>
</BehaviorTree>
<BehaviorTree ID="Sub">
  <Sequence><Script code="local := n + 1"/><AlwaysSuccess name="done"/></Sequence>
</BehaviorTree>
</root>"#;

    #[test]
    fn uids_follow_behaviortree_cpps_creation_order() {
        let tree = GrootTree::from_xml(SAMPLE).unwrap();
        let order: Vec<(u16, &str, &str)> = tree
            .nodes()
            .iter()
            .map(|n| (n.uid, n.tag.as_str(), n.name.as_str()))
            .collect();
        assert_eq!(
            order,
            [
                (1, "Sequence", "top"),
                (2, "Script", "Script"),
                (3, "Fallback", "Fallback"),
                (4, "AlwaysFailure", "AlwaysFailure"),
                (5, "SubTree", ""),
                (6, "Sequence", "Sequence"),
                (7, "Script", "Script"),
                (8, "AlwaysSuccess", "done"),
                (9, "ReactiveSequence", "ReactiveSequence"),
                (10, "AlwaysSuccess", "AlwaysSuccess"),
                (11, "Sleep", "Sleep"),
                (12, "Inverter", "Inverter"),
                (13, "AlwaysFailure", "AlwaysFailure"),
            ]
        );
        let status_order: Vec<u16> = tree
            .sections()
            .iter()
            .flat_map(|s| s.nodes.iter().copied())
            .collect();
        assert_eq!(status_order, [1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 6, 7, 8]);
        assert_eq!(tree.sections()[1].fullpath, "Sub::5");
        assert_eq!(tree.node(5).unwrap().children, [6]);
        assert_eq!(tree.node(6).unwrap().parent, Some(5));
        assert_eq!(tree.node(9).unwrap().class, NodeClass::Reactive);
        assert_eq!(tree.node(12).unwrap().class, NodeClass::Decorator);
    }

    #[test]
    fn the_fulltree_xml_carries_uids_paths_and_conditions() {
        let xml = GrootTree::from_xml(SAMPLE).unwrap().xml().to_string();
        for piece in [
            "<BehaviorTree ID=\"Main\" _fullpath=\"\">",
            "<Sequence name=\"top\" _uid=\"1\">",
            "<Script name=\"Script\" _uid=\"2\" code=\"count := 3\"/>",
            "<SubTree ID=\"Sub\" _fullpath=\"Sub::5\" _uid=\"5\" n=\"{count}\"/>",
            "<AlwaysFailure name=\"AlwaysFailure\" _uid=\"13\" _skipIf=\"count == 4\"/>",
            "<BehaviorTree ID=\"Sub\" _fullpath=\"Sub::5\">",
            "<AlwaysSuccess name=\"done\" _uid=\"8\"/>",
            "<TreeNodesModel/>",
        ] {
            assert!(xml.contains(piece), "{piece} in\n{xml}");
        }
    }

    #[test]
    fn named_and_nested_subtrees_have_behaviortree_cpps_paths() {
        let xml = r#"<root BTCPP_format="4" main_tree_to_execute="A">
          <BehaviorTree ID="A"><Sequence><SubTree ID="B" name="b1"/><SubTree ID="B"/></Sequence></BehaviorTree>
          <BehaviorTree ID="B"><SubTree ID="C"/></BehaviorTree>
          <BehaviorTree ID="C"><MoveTo goal="3"/></BehaviorTree>
        </root>"#;
        let tree = GrootTree::from_xml(xml).unwrap();
        let paths: Vec<&str> = tree
            .sections()
            .iter()
            .map(|s| s.fullpath.as_str())
            .collect();
        assert_eq!(paths, ["", "b1", "b1/C::3", "B::5", "B::5/C::6"]);
        assert!(
            tree.xml().contains("<Action ID=\"MoveTo\">"),
            "{}",
            tree.xml()
        );
        assert_eq!(tree.sections()[2].literals, []);
    }

    #[test]
    fn literals_passed_to_a_subtree_are_kept_for_its_blackboard() {
        let xml = r#"<root BTCPP_format="4"><BehaviorTree ID="A"><SubTree ID="B" n="5" m="{k}" _autoremap="false"/></BehaviorTree>
          <BehaviorTree ID="B"><AlwaysSuccess/></BehaviorTree></root>"#;
        let tree = GrootTree::from_xml(xml).unwrap();
        assert_eq!(
            tree.sections()[1].literals,
            [("n".to_string(), "5".to_string())]
        );
    }

    #[test]
    fn bad_documents_are_errors() {
        for (xml, problem) in [
            (
                "<root><BehaviorTree ID=\"A\"><SubTree ID=\"Z\"/></BehaviorTree></root>",
                "no <BehaviorTree> has",
            ),
            (
                "<root main_tree_to_execute=\"Q\"><BehaviorTree ID=\"A\"><X/></BehaviorTree></root>",
                "main_tree_to_execute names",
            ),
            (
                "<root><BehaviorTree ID=\"A\"><X></BehaviorTree></root>",
                "malformed XML",
            ),
            ("<tree/>", "start with <root>"),
            (
                "<root><BehaviorTree ID=\"A\"><SubTree ID=\"A\"/></BehaviorTree></root>",
                "nested more than",
            ),
        ] {
            let e = GrootTree::from_xml(xml).unwrap_err().to_string();
            assert!(e.contains(problem), "{e}");
        }
    }
}
