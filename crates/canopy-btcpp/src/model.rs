//! Elements → nodes: the files' `<BehaviorTree>`s read into a [`Model`] —
//! trees and their IDs, nodes and their types, `<SubTree>`s and their
//! remapping, registered types checked against the node models — element
//! by element, so that every mistake is reported at its own line. What
//! BehaviorTree.CPP's standard nodes and scripts mean for canopy is
//! [`crate::semantics`]'s.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use canopy_data::{NodeType, ParamKind, Registry};
use serde_json::Value;

use crate::category::{builtin_category, category, category_warning, is_btcpp_builtin};
use crate::dom::{Element, Reread};
use crate::emulated::Emulated;
use crate::options::XmlOptions;
use crate::params::{ParamIndex, key_of, to_value};
use crate::sources::{File, Kept, Place, Places};
use crate::standard::{CANOPY_PREFIX, Category, Standard, bad_model_name, is_scripting, refused};
use crate::warning::{WarningKind, Warnings};
use canopy_core::text::{did_you_mean, quote, suggest};
use canopy_data::{LoadError, XmlLimit, XmlProblem};

/// Most levels of nodes inside one `<BehaviorTree>`, as in a JSON tree
/// file: the registry reads every tree through its JSON loader, whose
/// parser nests brackets at most 127 deep (two per level, and one more for
/// a Guard's condition or a list of statuses). Deeper trees are split with
/// `<SubTree>`.
pub const MAX_LEVELS: usize = 63;

/// Why a tree is too deep for the registry's loader, and what to do.
pub(crate) fn too_deep() -> XmlLimit {
    XmlLimit::Levels {
        limit: MAX_LEVELS as u64,
    }
}

/// An attribute's value that does not convert to its parameter's type.
fn bad_attribute(attribute: &str, problem: impl Into<String>) -> XmlProblem {
    XmlProblem::BadAttribute {
        attribute: attribute.to_string(),
        problem: problem.into(),
    }
}

/// A node's parameters as the JSON loader takes them, each name once: a
/// boxed slice, since a search tree per node was a large part of what a
/// large file became.
/// Their names are shared as type names are.
pub(crate) type Params = Box<[(Rc<str>, Value)]>;

/// What a node element stands for.
pub(crate) enum What {
    /// A registered type (a canopy built-in for the standard nodes it runs
    /// exactly), with parameters as the JSON loader takes them.
    Registered {
        /// Shared by the nodes of a type: a string per node was a large
        /// part of what a large file became.
        type_name: Rc<str>,
        params: Params,
    },
    Emulated(Emulated),
    /// `<SubTree ID="…"/>`: the tree with this ID.
    SubTree(String),
}

pub(crate) struct XNode {
    pub(crate) place: Place,
    /// Boxed: a list's spare room and capacity, per node, for a name never
    /// grown.
    pub(crate) name: Box<str>,
    pub(crate) what: What,
    /// Without a list's spare room: most nodes are leaves, and a large
    /// file has hundreds of thousands.
    pub(crate) children: Box<[usize]>,
}

pub(crate) struct TreeDef {
    pub(crate) id: String,
    pub(crate) place: Place,
    pub(crate) root: usize,
}

/// Every tree of a load, as nodes.
pub(crate) struct Model {
    /// The files, their elements read: errors read an element again.
    pub(crate) files: Vec<Kept>,
    pub(crate) nodes: Vec<XNode>,
    pub(crate) trees: Vec<TreeDef>,
    /// Index in `trees` of the tree to run.
    pub(crate) main: usize,
    /// Index in `trees` of each ID.
    pub(crate) ids: HashMap<String, usize>,
    /// What reading the files found odd, and what checking them finds.
    pub(crate) warnings: Warnings,
    /// The remappings a `SubTree` model adds to a `<SubTree>` (by node):
    /// the defaults of the ports it leaves out.
    pub(crate) subtree_defaults: HashMap<usize, Vec<(String, String)>>,
}

impl Model {
    pub(crate) fn fail_in(
        files: &[impl Places],
        place: Place,
        problem: impl Into<crate::error::XmlIssue>,
    ) -> LoadError {
        let file = &files[place.file];
        let (line, column) = file.line_column(place.element);
        crate::error::xml_error(
            file.path(),
            Some((line, column)),
            Some(file.describe(place.element)),
            problem,
        )
    }

    pub(crate) fn fail(
        &self,
        place: Place,
        problem: impl Into<crate::error::XmlIssue>,
    ) -> LoadError {
        Model::fail_in(&self.files, place, problem)
    }

    /// `place` as messages show it: `file:line:column: <element>`.
    pub(crate) fn shown(&self, place: Place) -> String {
        let file = &self.files[place.file];
        let (line, column) = file.line_column(place.element);
        let element = file.describe(place.element);
        format!("{}:{line}:{column}: {element}", file.path())
    }

    /// The element at `place`, read again from its file.
    pub(crate) fn element(&self, place: Place) -> Reread {
        self.files[place.file].outline.element(place.element)
    }

    pub(crate) fn tree(&self, id: &str) -> Option<&TreeDef> {
        self.ids.get(id).map(|&i| &self.trees[i])
    }

    /// The remapping ports of the `<SubTree>` node `node`, as written,
    /// then those its tree's model gives by default.
    pub(crate) fn subtree_ports(&self, node: usize) -> Vec<(String, String)> {
        let element = self.element(self.nodes[node].place);
        let mut ports: Vec<(String, String)> = element
            .attrs()
            .filter(|(k, _)| !k.starts_with('_') && *k != "ID" && *k != "name")
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if let Some(defaults) = self.subtree_defaults.get(&node) {
            ports.extend(defaults.iter().cloned());
        }
        ports
    }

    /// The IDs of the trees, for messages: `"A", "B"`, at most ten.
    /// The trees' IDs as messages list them: the first ten, and how
    /// many there are.
    pub(crate) fn tree_ids(&self) -> (Vec<String>, usize) {
        tree_ids(self.trees.iter().map(|t| t.id.as_str()))
    }
}

/// Tree IDs for a message: the first ten, and how many there are.
pub(crate) fn tree_ids<'i>(ids: impl ExactSizeIterator<Item = &'i str>) -> (Vec<String>, usize) {
    let total = ids.len();
    (ids.take(10).map(str::to_string).collect(), total)
}

/// A port of a `SubTree` model.
#[derive(Debug)]
pub(crate) struct SubtreePort {
    pub(crate) name: String,
    /// Its `default`: the remapping a `<SubTree>` that leaves it out gets.
    pub(crate) default: Option<String>,
}

/// A `<SubTree ID="…">` model: the ports its tree declares, as
/// BehaviorTree.CPP reads them (a later declaration of a port replaces an
/// earlier one, models of one ID in several places add up).
#[derive(Debug, Default)]
pub(crate) struct SubtreeModel {
    /// The model elements, first first.
    pub(crate) places: Vec<Place>,
    pub(crate) ports: Vec<SubtreePort>,
    index: HashMap<String, usize>,
}

impl SubtreeModel {
    pub(crate) fn declare(&mut self, port: SubtreePort) {
        match self.index.get(&port.name) {
            Some(&i) => self.ports[i] = port,
            None => {
                self.index.insert(port.name.clone(), self.ports.len());
                self.ports.push(port);
            }
        }
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.ports.iter().map(|p| p.name.as_str())
    }
}

/// Reads the files' elements into a [`Model`].
pub(crate) struct Reader<'r, A, W> {
    pub(crate) registry: &'r Registry<A, W>,
    /// canopy's built-in types, to tell them from look-alikes.
    pub(crate) builtins: Registry<A, W>,
    pub(crate) options: &'r XmlOptions,
    pub(crate) files: Vec<File>,
    pub(crate) nodes: Vec<XNode>,
    pub(crate) tree_ids: Vec<String>,
    /// `name`s of the `<SubTree>` elements of the tree being read.
    pub(crate) subtree_names: HashSet<String>,
    /// The type and parameter names of the nodes read so far, each once.
    pub(crate) type_names: RefCell<HashSet<Rc<str>>>,
    pub(crate) warnings: Warnings,
    /// The `SubTree` models of every file, by tree ID.
    pub(crate) subtree_models: HashMap<String, SubtreeModel>,
    /// What each `<SubTree>` node gets from its tree's model.
    pub(crate) subtree_defaults: HashMap<usize, Vec<(String, String)>>,
    /// Bytes of remapping the models' defaults added so far: bounded, as
    /// a model of many ports used by many `<SubTree>`s multiplies them.
    pub(crate) default_bytes: usize,
}

/// Read every `<BehaviorTree>` of `files` into nodes.
pub(crate) fn read<A: 'static, W: 'static>(
    files: Vec<File>,
    registry: &Registry<A, W>,
    options: &XmlOptions,
) -> Result<Model, LoadError> {
    // At most one node per element: reserved once, not grown by doubling.
    let elements = files.iter().map(|f| f.dom.len()).sum();
    let mut reader = Reader {
        registry,
        builtins: Registry::new(),
        options,
        files,
        nodes: Vec::with_capacity(elements),
        tree_ids: Vec::new(),
        subtree_names: HashSet::new(),
        type_names: RefCell::new(HashSet::new()),
        warnings: Warnings::new(options.strict),
        subtree_models: HashMap::new(),
        subtree_defaults: HashMap::new(),
        default_bytes: 0,
    };
    let tree_elements = reader.top_level()?;
    reader.tree_ids = reader.ids(&tree_elements)?;
    let mut trees: Vec<TreeDef> = Vec::new();
    let mut ids = HashMap::new();
    for (place, id) in tree_elements.iter().zip(reader.tree_ids.clone()) {
        if let Some(first) = ids.get(&id).map(|&i: &usize| &trees[i]) {
            let (line, _) = reader.files[first.place.file].line_column(first.place.element);
            let problem = XmlProblem::DuplicateTree {
                id: id.clone(),
                first_file: reader.files[first.place.file].path.clone(),
                first_line: line,
            };
            return Err(Model::fail_in(&reader.files, *place, problem));
        }
        let root = reader.tree(*place, &id)?;
        ids.insert(id.clone(), trees.len());
        trees.push(TreeDef {
            id,
            place: *place,
            root,
        });
    }
    let main = reader.main(&trees)?;
    reader.unused_subtree_models(&ids)?;
    let model = Model {
        // The elements are not needed any more: only the few that
        // messages quote, read again from the text.
        files: reader.files.into_iter().map(File::into_kept).collect(),
        nodes: reader.nodes,
        trees,
        main,
        ids,
        warnings: reader.warnings,
        subtree_defaults: reader.subtree_defaults,
    };
    Ok(model)
}

impl<A: 'static, W: 'static> Reader<'_, A, W> {
    pub(crate) fn fail(
        &self,
        place: Place,
        problem: impl Into<crate::error::XmlIssue>,
    ) -> LoadError {
        Model::fail_in(&self.files, place, problem)
    }

    /// Note a warning about the element at `place`.
    pub(crate) fn warn(
        &self,
        place: Place,
        kind: WarningKind,
        problem: impl FnOnce() -> String,
    ) -> Result<(), LoadError> {
        self.warnings.at(&self.files, place, kind, problem)
    }

    pub(crate) fn element(&self, place: Place) -> Element<'_> {
        self.files[place.file].dom.element(place.element)
    }

    /// `name`, a type's or a parameter's, as the nodes share it.
    pub(crate) fn type_name(&self, name: &str) -> Rc<str> {
        let mut names = self.type_names.borrow_mut();
        if let Some(shared) = names.get(name) {
            return shared.clone();
        }
        let shared: Rc<str> = name.into();
        names.insert(shared.clone());
        shared
    }

    /// Check each file's `<root>` and its children; the `<BehaviorTree>`
    /// elements, in order.
    fn top_level(&mut self) -> Result<Vec<Place>, LoadError> {
        let mut trees = Vec::new();
        let mut subtree_models = HashMap::new();
        for file in 0..self.files.len() {
            let root = Place { file, element: 0 };
            let e = self.element(root);
            if e.tag() != "root" {
                let problem = if e.tag() == "TreeNodesModel" {
                    "the top element of a BehaviorTree.CPP file is <root BTCPP_format=\"4\">; a \
                     <TreeNodesModel> goes inside it, beside the <BehaviorTree> elements"
                } else {
                    "the top element of a BehaviorTree.CPP file is <root BTCPP_format=\"4\">"
                };
                return Err(self.fail(root, problem.to_string()));
            }
            if let Some(format) = e.attr("BTCPP_format")
                && format != "4"
            {
                let format = format.to_string();
                return Err(self.fail(root, XmlProblem::UnsupportedFormat { format }));
            }
            let mut models = 0;
            for &child in e.children() {
                let place = Place {
                    file,
                    element: child,
                };
                match self.element(place).tag() {
                    "BehaviorTree" => trees.push(place),
                    "include" => {}
                    "TreeNodesModel" => {
                        models += 1;
                        if models > 1 {
                            return Err(self.fail(
                                place,
                                "a file holds at most one <TreeNodesModel>; put every node model \
                                 in the first"
                                    .to_string(),
                            ));
                        }
                        self.models(place, &mut subtree_models)?;
                    }
                    tag if Category::from_tag(tag).is_some() || tag == "SubTree" => {
                        self.warn(place, WarningKind::Model, || {
                            format!(
                                "a node model belongs inside <TreeNodesModel> (under <root>); \
                                 BehaviorTree.CPP ignores a <{tag}> here, and so does canopy"
                            )
                        })?;
                    }
                    _ => {
                        return Err(self.fail(
                            place,
                            "unexpected element at the top level; a file holds <BehaviorTree>, \
                             <include> and <TreeNodesModel> elements"
                                .to_string(),
                        ));
                    }
                }
            }
        }
        self.subtree_models = subtree_models;
        Ok(trees)
    }

    /// A warning for each `SubTree` model of a tree the files do not define.
    fn unused_subtree_models(&self, ids: &HashMap<String, usize>) -> Result<(), LoadError> {
        let mut models: Vec<(&String, &SubtreeModel)> = self
            .subtree_models
            .iter()
            .filter(|(id, _)| !ids.contains_key(*id))
            .collect();
        // In file order, as a reader looks for them.
        models.sort_by_key(|(_, m)| m.places.first().map(|p| (p.file, p.element)));
        for (id, model) in models {
            let Some(&place) = model.places.first() else {
                continue;
            };
            self.warn(place, WarningKind::SubTree, || {
                format!(
                    "no <BehaviorTree> has the ID {}{}, so this model describes nothing \
                     (BehaviorTree.CPP ignores it, and so does canopy)",
                    quote(id),
                    did_you_mean(suggest(id, ids.keys().map(String::as_str)))
                )
            })?;
        }
        Ok(())
    }

    /// The ID of every tree, checked.
    fn ids(&self, trees: &[Place]) -> Result<Vec<String>, LoadError> {
        let mut ids = Vec::new();
        for (i, &place) in trees.iter().enumerate() {
            let id = match self.element(place).attr("ID") {
                Some(id) => id.to_string(),
                None if trees.len() == 1 => format!("BehaviorTree_{i}"),
                None => {
                    return Err(self.fail(
                        place,
                        "a <BehaviorTree> needs an ID when there are several".to_string(),
                    ));
                }
            };
            if let Some(why) = bad_model_name(&id) {
                return Err(self.fail(place, bad_id(&id, why)));
            }
            // BehaviorTree.CPP refuses the name of a registered node type
            // (its own or the program's); element names (`BehaviorTree`,
            // `Action`) are not node types.
            if is_btcpp_builtin(&id) || self.lookup(&id).is_some() {
                return Err(self.fail(place, XmlProblem::IdIsNodeType { id }));
            }
            ids.push(id);
        }
        Ok(ids)
    }

    /// The tree to run: the options', the first file's
    /// `main_tree_to_execute`, or the only one.
    fn main(&self, trees: &[TreeDef]) -> Result<usize, LoadError> {
        let root = Place {
            file: 0,
            element: 0,
        };
        let wanted = match (
            &self.options.main_tree,
            self.element(root).attr("main_tree_to_execute"),
        ) {
            (Some(id), _) => id.as_str(),
            (None, Some(id)) => id,
            (None, None) if trees.len() == 1 => return Ok(0),
            (None, None) => {
                let problem = if trees.is_empty() {
                    XmlProblem::NoTrees
                } else {
                    let (defined, count) = tree_ids(trees.iter().map(|t| t.id.as_str()));
                    XmlProblem::NoMainTree { defined, count }
                };
                return Err(self.fail(root, problem));
            }
        };
        trees.iter().position(|t| t.id == wanted).ok_or_else(|| {
            let ids = trees.iter().map(|t| t.id.as_str());
            let (defined, count) = tree_ids(ids.clone());
            self.fail(
                root,
                XmlProblem::NoSuchMainTree {
                    id: wanted.to_string(),
                    suggestion: suggest(wanted, ids).map(str::to_string),
                    defined,
                    count,
                },
            )
        })
    }

    /// Read one `<BehaviorTree>`: its single child.
    fn tree(&mut self, place: Place, id: &str) -> Result<usize, LoadError> {
        let children = self.element(place).children();
        for &child in children {
            let at = Place {
                file: place.file,
                element: child,
            };
            if let Some(problem) = misplaced(self.element(at).tag()) {
                return Err(self.fail(at, problem));
            }
        }
        if children.len() != 1 {
            return Err(self.fail(
                place,
                format!(
                    "the tree {} must have exactly 1 child element, got {}",
                    quote(id),
                    children.len()
                ),
            ));
        }
        let root = Place {
            file: place.file,
            element: children[0],
        };
        self.subtree_names.clear();
        self.node(root, 1, None)
    }

    /// The type ID of a node element, and the category its explicit form
    /// (`<Action ID="…">`) gives it.
    fn type_id(&self, place: Place) -> Result<(String, Option<Category>), LoadError> {
        let e = self.element(place);
        let explicit = Category::from_tag(e.tag());
        if let Some(problem) = misplaced(e.tag()) {
            return Err(self.fail(place, problem));
        }
        match (explicit.is_some() || e.tag() == "SubTree", e.attr("ID")) {
            (true, Some(id)) => Ok((id.to_string(), explicit)),
            (true, None) if e.tag() == "SubTree" => {
                let (defined, count) = tree_ids(self.tree_ids.iter().map(String::as_str));
                Err(self.fail(place, XmlProblem::SubTreeWithoutId { defined, count }))
            }
            (true, None) => Err(self.fail(
                place,
                format!("<{}> needs an ID attribute naming the node type", e.tag()),
            )),
            (false, Some(_)) => Err(self.fail(
                place,
                format!(
                    "an ID attribute is not allowed here; write <{0}> or <Action ID=\"{0}\">",
                    canopy_core::text::bare(e.tag())
                ),
            )),
            (false, None) => Ok((e.tag().to_string(), None)),
        }
    }

    /// The port attributes of a node element; `_` attributes (the pre-
    /// and post-condition scripts, read by `Reader::around`, and tools'
    /// own) skipped. Blackboard entries (`{key}`) are
    /// checked where the port is known.
    fn ports(&self, place: Place) -> Result<Vec<(String, String)>, LoadError> {
        let mut ports = Vec::new();
        for (key, value) in self.element(place).attrs() {
            if key == "ID" || key == "name" {
                continue;
            }
            if key.starts_with('_') {
                continue;
            }
            ports.push((key.to_string(), value.to_string()));
        }
        Ok(ports)
    }

    /// Read a node element and its children; `depth` is its level in the
    /// tree, `parent` the standard node it is a child of, if it is one.
    fn node(
        &mut self,
        place: Place,
        depth: usize,
        parent: Option<Standard>,
    ) -> Result<usize, LoadError> {
        if depth > MAX_LEVELS {
            return Err(self.fail(place, too_deep()));
        }
        let (id, explicit) = self.type_id(place)?;
        if let Some(problem) = refused(&id) {
            let node = id.clone();
            return Err(self.fail(place, XmlProblem::UnsupportedNode { node, problem }));
        }
        let ports = self.ports(place)?;
        // Unnamed, a node is named after its type, as written (BehaviorTree.CPP's
        // rule) but without the prefix that marks a canopy type.
        let default = id.strip_prefix(CANOPY_PREFIX).unwrap_or(&id);
        let name = self.element(place).attr("name").unwrap_or(default).into();
        let child_elements = self.element(place).children().to_vec();
        if let (Some(written), Some(is)) = (explicit, builtin_category(&id))
            && written != is
        {
            self.warn(place, WarningKind::Category, || {
                category_warning(&id, written, is)
            })?;
        }
        let std = Standard::from_id(&id);
        let mut defaults = Vec::new();
        let what = if self.element(place).tag() == "SubTree" {
            self.subtree(place, &id, &ports, child_elements.len(), &mut defaults)?
        } else if let Some(std) = std {
            let n = child_elements.len();
            self.standard(place, std, &ports, n, parent)?
        } else if is_scripting(&id) {
            self.script(place, &id, &ports, child_elements.len())?
        } else if crate::scripted::is_scripted_control(&id) {
            self.scripted_control(place, &id, &ports, child_elements.len(), parent)?
        } else {
            self.registered(place, &id, explicit, &ports)?
        };
        let mut children = Vec::with_capacity(child_elements.len());
        for element in child_elements {
            let child = Place {
                file: place.file,
                element,
            };
            children.push(self.node(child, depth + 1, std)?);
        }
        self.nodes.push(XNode {
            place,
            name,
            what,
            children: children.into_boxed_slice(),
        });
        let node = self.nodes.len() - 1;
        if !defaults.is_empty() {
            self.subtree_defaults.insert(node, defaults);
        }
        self.around(place, node, parent)
    }

    /// A `<SubTree>`: its remapping checked, and completed from its tree's
    /// `SubTree` model as BehaviorTree.CPP does (`defaults`).
    fn subtree(
        &mut self,
        place: Place,
        id: &str,
        ports: &[(String, String)],
        children: usize,
        defaults: &mut Vec<(String, String)>,
    ) -> Result<What, LoadError> {
        // Remapping ports: a key of the subtree each (see `crate::scope`).
        for (port, text) in ports {
            self.remapping(place, port, text)?;
        }
        if children > 0 {
            return Err(self.fail(place, "a <SubTree> has no child elements".to_string()));
        }
        if let Some(why) = bad_model_name(id) {
            return Err(self.fail(place, bad_id(id, why)));
        }
        let name = self.element(place).attr("name").map(str::to_string);
        if let Some(name) = name
            && !self.subtree_names.insert(name.clone())
        {
            return Err(self.fail(
                place,
                format!(
                    "another <SubTree> in this <BehaviorTree> is named {} too; BehaviorTree.CPP \
                     requires distinct names (they make the subtrees' paths); rename one or drop the names",
                    quote(&name)
                ),
            ));
        }
        self.against_model(place, id, ports, defaults)?;
        Ok(What::SubTree(id.to_string()))
    }

    /// One remapping of a `<SubTree>`, `port="text"`, checked.
    fn remapping(&self, place: Place, port: &str, text: &str) -> Result<(), LoadError> {
        if !is_key_name(port) {
            let port = port.to_string();
            return Err(self.fail(place, XmlProblem::SubTreePortName { port }));
        }
        if let Some(key) = text
            .trim()
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
        {
            let key = key.strip_prefix('@').unwrap_or(key);
            if key != "=" && !is_key_name(key) {
                return Err(self.fail(
                    place,
                    XmlProblem::SubTreeKey {
                        port: port.to_string(),
                        value: text.to_string(),
                    },
                ));
            }
        }
        Ok(())
    }

    /// The `<SubTree>` at `place` against its tree's `SubTree` model, as
    /// BehaviorTree.CPP 4 reads it: a port the model declares and the
    /// `<SubTree>` does not remap takes the port's default, or is an error
    /// without one (unless `_autoremap` remaps every key); a remapped port
    /// the model does not declare is a warning.
    fn against_model(
        &mut self,
        place: Place,
        id: &str,
        ports: &[(String, String)],
        defaults: &mut Vec<(String, String)>,
    ) -> Result<(), LoadError> {
        let Some(model) = self.subtree_models.get(id) else {
            return Ok(());
        };
        let remapped: HashSet<&str> = ports.iter().map(|(k, _)| k.as_str()).collect();
        let autoremap = self.element(place).attr("_autoremap") == Some("true");
        for port in &model.ports {
            if autoremap || remapped.contains(port.name.as_str()) {
                continue;
            }
            let Some(default) = &port.default else {
                let model_at = model.places.first().map(|m| {
                    let (line, column) = self.files[m.file].line_column(m.element);
                    format!("{}:{line}:{column}", self.files[m.file].path)
                });
                return Err(self.fail(
                    place,
                    XmlProblem::UnremappedPort {
                        tree: id.to_string(),
                        model_at,
                        port: port.name.clone(),
                    },
                ));
            };
            self.remapping(place, &port.name, default)?;
            self.default_bytes += port.name.len() + default.len();
            if self.default_bytes as u64 > crate::sources::MAX_XML_BYTES {
                return Err(self.fail(
                    place,
                    XmlLimit::RemapBytes {
                        limit: crate::sources::MAX_XML_BYTES,
                    },
                ));
            }
            defaults.push((port.name.clone(), default.clone()));
        }
        for (port, _) in ports {
            if !model.has(port) {
                self.warn(place, WarningKind::SubTree, || {
                    format!(
                        "the model of the tree {} declares no port {}{}; BehaviorTree.CPP remaps \
                         it all the same, and so does canopy: declare it in the model \
                         (<input_port name={}/>) or remove it",
                        quote(id),
                        quote(port),
                        did_you_mean(suggest(port, model.names())),
                        quote(port)
                    )
                })?;
            }
        }
        Ok(())
    }

    /// A registered type by the name written in XML: `canopy_Name` stands
    /// for `Name` (how a type whose name is reserved is written).
    pub(crate) fn lookup(&self, id: &str) -> Option<&NodeType<A, W>> {
        // A built-in a node model's type displaced is held as `canopy_Name`.
        if id.starts_with(CANOPY_PREFIX)
            && let Some(aside) = self.registry.get(id)
        {
            return Some(aside);
        }
        self.registry
            .get(id.strip_prefix(CANOPY_PREFIX).unwrap_or(id))
    }

    fn registered(
        &self,
        place: Place,
        id: &str,
        explicit: Option<Category>,
        ports: &[(String, String)],
    ) -> Result<What, LoadError> {
        let Some(node_type) = self.lookup(id) else {
            return Err(self.fail(place, self.unknown(id)));
        };
        if node_type.name() == canopy_data::SUBTREE_TYPE {
            // canopy's own SubTree type is a reference that only the
            // <SubTree> element makes; as a node it would build nothing.
            let tree = ports
                .iter()
                .find(|(k, _)| k == "tree")
                .map(|(_, v)| v.as_str());
            return Err(self.fail(
                place,
                format!(
                    "a subtree is written <SubTree ID={}/> in BehaviorTree.CPP XML",
                    quote(tree.unwrap_or("…"))
                ),
            ));
        }
        if let Some(written) = explicit {
            let is = category(node_type);
            if written != is {
                self.warn(place, WarningKind::Category, || {
                    category_warning(id, written, is)
                })?;
            }
        }
        let declared = ParamIndex::new(node_type.params());
        let mut params: Vec<(Rc<str>, Value)> = Vec::with_capacity(ports.len());
        for (attr, text) in ports {
            // `type` and `children`, fields of canopy's node objects, are
            // the parameters `type_` and `children_`.
            let key = crate::names::param_name(attr);
            let key = key.as_ref();
            let param = declared.get(key);
            let value = match (param, key_of(text)) {
                // Written as it is: `{@key}` is resolved with the subtree
                // scopes (`crate::scope`).
                (Some(param), Some(_)) if matches!(param.kind, ParamKind::Port { .. }) => {
                    Value::String(text.clone())
                }
                (Some(param), Some(entry)) => {
                    return Err(self.fail(
                        place,
                        XmlProblem::EntryForParameter {
                            attribute: attr.clone(),
                            value: text.clone(),
                            entry: entry.to_string(),
                            type_name: node_type.name().to_string(),
                            takes: param.kind.describe(),
                        },
                    ));
                }
                (Some(param), None) => {
                    if let Some(problem) = bad_point(&param.kind, text) {
                        return Err(self.fail(place, bad_attribute(attr, problem)));
                    }
                    to_value(self.registry, &param.kind, text)
                        .map_err(|p| self.fail(place, bad_attribute(attr, p)))?
                }
                // The registry's check names what the type takes.
                (None, _) => Value::String(text.clone()),
            };
            params.push((self.type_name(key), value));
        }
        // In name order, as the loader has always been given them.
        params.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(twice) = params.windows(2).find(|w| w[0].0 == w[1].0) {
            let name = crate::names::attribute_name(&twice[0].0).into_owned();
            return Err(self.fail(
                place,
                format!(
                    "the attributes {0} and {0}_ are one parameter of {1} ({0}_, as canopy \
                     spells BehaviorTree.CPP's port {0}); write one of them",
                    canopy_core::text::bare(&name),
                    node_type.name()
                ),
            ));
        }
        Ok(What::Registered {
            type_name: self.type_name(node_type.name()),
            params: params.into_boxed_slice(),
        })
    }

    fn unknown(&self, id: &str) -> XmlProblem {
        if self.tree_ids.iter().any(|t| t == id) {
            return XmlProblem::TreeAsType { id: id.to_string() };
        }
        let names = Standard::ALL
            .iter()
            .map(|s| s.id())
            .chain(self.registry.types().map(|t| t.name()));
        XmlProblem::UnknownType {
            type_name: id.to_string(),
            suggestion: suggest(id, names).map(str::to_string),
        }
    }
}

/// Why `text` is not a point of the dimensions `kind` wants, in
/// BehaviorTree.CPP's spelling, with the spelling to write: `50;50`.
fn bad_point(kind: &ParamKind, text: &str) -> Option<String> {
    let dims = match kind {
        ParamKind::Point { dims, .. } => *dims,
        ParamKind::Port { value, .. } => match **value {
            ParamKind::Point { dims, .. } => dims,
            _ => return None,
        },
        _ => return None,
    };
    if text.starts_with(crate::params::JSON_PREFIX) {
        return None;
    }
    let parts: Vec<&str> = text.split(';').collect();
    let shape = ["x", "y", "z"][..dims].join(";");
    if parts.iter().all(|p| p.trim().parse::<f64>().is_ok()) {
        if parts.len() == dims {
            return None;
        }
        return Some(format!(
            "a point has {dims} coordinates, written {shape}; {} has {}",
            quote(text),
            parts.len()
        ));
    }
    let numbers: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .filter(|p| !p.is_empty() && p.parse::<f64>().is_ok())
        .collect();
    let example = if numbers.len() == dims {
        numbers.join(";")
    } else {
        ["3", "-4", "1"][..dims].join(";")
    };
    Some(format!(
        "a point is written {shape} in BehaviorTree.CPP XML, as its vectors are: write \
         {example}, not {}",
        quote(text)
    ))
}

/// Why an element of the file's structure cannot stand where a node
/// does, and where it belongs.
fn misplaced(tag: &str) -> Option<XmlProblem> {
    matches!(tag, "TreeNodesModel" | "BehaviorTree" | "include" | "root").then(|| {
        XmlProblem::Misplaced {
            tag: tag.to_string(),
        }
    })
}

/// An ID BehaviorTree.CPP does not allow, and why ([`bad_model_name`]).
pub(crate) fn bad_id(id: &str, why: String) -> XmlProblem {
    XmlProblem::BadId {
        id: id.to_string(),
        problem: why,
    }
}

/// Whether `key` can name a blackboard key in a script and a port: a
/// letter or `_` first, then letters, digits and `_` (as RON writes a
/// field's name bare, too).
pub(crate) fn is_key_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
