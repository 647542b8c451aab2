//! Node models against the registry: what a `<TreeNodesModel>` in a tree
//! file says about the node types, read as BehaviorTree.CPP 4 reads it,
//! and BehaviorTree.CPP's type names as canopy's.
//!
//! BehaviorTree.CPP reads a node model only for its `<SubTree>` entries
//! (their ports: which a `<SubTree>` must remap, and the defaults of those
//! it leaves out); what it declares about other node types is for Groot2,
//! and BehaviorTree.CPP builds every node from its registered code
//! whatever the model says. So does canopy: a model that disagrees with
//! the registry (another category, a port the type lacks, another
//! direction or type, a type nothing registers) is a warning naming the
//! model's element and what to declare, never a refusal; a strict load
//! refuses it ([`crate::XmlOptions::strict`]). `SubTree` models are read as
//! BehaviorTree.CPP reads them, with its errors.
//!
//! Types are compared by BehaviorTree.CPP's names, each C++ spelling of
//! one type brought to one name (`std::__cxx11::basic_string<…>`,
//! `string` → `std::string`; `int32_t` → `int`; `unsigned` →
//! `unsigned int`; …), which are the names canopy's blackboard types go
//! by. `AnyTypeAllowed` and `BT::Any` (and no type at all) fit anything,
//! as in BehaviorTree.CPP; a name of neither family (a game's
//! `Position2D`) fits a plain parameter read from text, and a port only of
//! that very type.

use std::collections::HashMap;

use canopy_data::{NodeType, ParamKind};

use crate::category::{category, is_btcpp_builtin, noun};
use crate::dom::Element;
use crate::model::{Reader, SubtreeModel, SubtreePort};
use crate::params::ParamIndex;
use crate::sources::Place;
use crate::standard::Category;
use crate::warning::WarningKind;
use canopy_core::text::{did_you_mean, quote, suggest};
use canopy_data::LoadError;

/// The port elements of a model, and whether each is written by the node.
const PORT_TAGS: [(&str, Direction); 3] = [
    ("input_port", Direction::Input),
    ("output_port", Direction::Output),
    ("inout_port", Direction::InOut),
];

/// A declared port's direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    Input,
    Output,
    InOut,
}

impl Direction {
    pub(crate) fn of_tag(tag: &str) -> Option<Direction> {
        PORT_TAGS.iter().find(|(t, _)| *t == tag).map(|(_, d)| *d)
    }

    /// Whether the node writes it.
    pub(crate) fn writes(self) -> bool {
        self != Direction::Input
    }
}

/// One C++ type as BehaviorTree.CPP names it, its spellings brought to one
/// name; `None` for "any type".
pub(crate) fn canonical(declared: &str) -> Option<String> {
    let t = declared.trim();
    let name = match t {
        "" | "AnyTypeAllowed" | "BT::AnyTypeAllowed" | "BT::Any" | "Any" => return None,
        "std::string" | "string" | "std::string_view" | "BT::StringView" => "std::string",
        _ if t.starts_with("std::__cxx11::basic_string") || t.starts_with("std::basic_string") => {
            "std::string"
        }
        "int" | "int32_t" | "int32" | "std::int32_t" | "signed int" => "int",
        "unsigned int" | "unsigned" | "uint32_t" | "uint32" | "std::uint32_t" => "unsigned int",
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "int64"
        | "std::int64_t" => "int64_t",
        "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "uint64"
        | "std::uint64_t"
        | "size_t"
        | "std::size_t" => "uint64_t",
        "short" | "short int" | "int16_t" | "int16" | "std::int16_t" => "int16_t",
        "unsigned short" | "unsigned short int" | "uint16_t" | "uint16" | "std::uint16_t" => {
            "uint16_t"
        }
        "signed char" | "int8_t" | "int8" | "std::int8_t" => "int8_t",
        "unsigned char" | "uint8_t" | "uint8" | "std::uint8_t" => "uint8_t",
        "double" => "double",
        "float" => "float",
        "bool" => "bool",
        _ => {
            if let Some(inner) = t
                .strip_prefix("std::vector<")
                .and_then(|rest| rest.strip_suffix('>'))
            {
                // `std::vector<double, std::allocator<double> >` as a
                // demangler writes it: the first argument is the item.
                let item = first_argument(inner);
                let item = canonical(item).unwrap_or_else(|| item.trim().to_string());
                return Some(format!("std::vector<{item}>"));
            }
            return Some(t.to_string());
        }
    };
    Some(name.to_string())
}

/// The first template argument of a list of them (`a, b<c, d>` → `a`).
fn first_argument(arguments: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in arguments.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return &arguments[..i],
            _ => {}
        }
    }
    arguments
}

/// The family of a canonical name, if it has one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Integer,
    Decimal,
    Boolean,
    Text,
    Vector,
    /// A name of canopy's own blackboard types (`canopy::Point2f`).
    Point,
}

fn family(canonical: &str) -> Option<Family> {
    Some(match canonical {
        "int" | "unsigned int" | "int64_t" | "uint64_t" | "int16_t" | "uint16_t" | "int8_t"
        | "uint8_t" => Family::Integer,
        "double" | "float" => Family::Decimal,
        "bool" => Family::Boolean,
        "std::string" => Family::Text,
        _ if canonical.starts_with("std::vector<") => Family::Vector,
        _ if canonical.starts_with("canopy::Point") => Family::Point,
        _ => return None,
    })
}

/// Whether a port type as a model declares it fits a parameter of
/// `kind`: the port's slot type by name, a value by what it reads from.
pub(crate) fn type_fits(declared: &str, kind: &ParamKind) -> bool {
    let Some(declared) = canonical(declared) else {
        return true;
    };
    let f = family(&declared);
    match kind {
        ParamKind::Port { ty, .. } => canonical(ty.name()).is_none_or(|t| t == declared),
        ParamKind::Int { .. } => f == Some(Family::Integer),
        ParamKind::Float { .. } => matches!(f, Some(Family::Integer | Family::Decimal)),
        ParamKind::Bool => f == Some(Family::Boolean),
        ParamKind::Point { .. } | ParamKind::List { .. } => {
            matches!(f, None | Some(Family::Vector | Family::Point))
        }
        // Text, words, statuses, conditions, subtree names: read from
        // text, as a game's enum type is.
        _ => matches!(f, None | Some(Family::Text)),
    }
}

/// The port type BehaviorTree.CPP would declare for a parameter, as
/// `canopy model` writes it.
pub(crate) fn port_type(kind: &ParamKind) -> String {
    match kind {
        ParamKind::Port { ty, .. } => ty.name().to_string(),
        ParamKind::Int { .. } => "int".to_string(),
        ParamKind::Float { .. } => "double".to_string(),
        ParamKind::Bool => "bool".to_string(),
        // The names canopy's point types have on a blackboard.
        ParamKind::Point { dims, max, .. } => {
            let single = if *max <= f64::from(f32::MAX) { "f" } else { "" };
            format!("canopy::Point{dims}{single}")
        }
        ParamKind::List { item, .. } => format!("std::vector<{}>", port_type(item)),
        _ => "std::string".to_string(),
    }
}

impl<A: 'static, W: 'static> Reader<'_, A, W> {
    /// Read a `<TreeNodesModel>`: `SubTree` models into `subtrees`, the
    /// others checked against the registry (warnings).
    pub(crate) fn models(
        &self,
        place: Place,
        subtrees: &mut HashMap<String, SubtreeModel>,
    ) -> Result<(), LoadError> {
        for &child in self.element(place).children() {
            crate::work::step(1);
            let model = Place {
                file: place.file,
                element: child,
            };
            let e = self.element(model);
            match e.tag() {
                "SubTree" => self.subtree_model(model, e, subtrees)?,
                tag if Category::from_tag(tag).is_some() => self.model(model)?,
                "BehaviorTree" | "TreeNodesModel" | "include" => {
                    return Err(self.fail(
                        model,
                        format!(
                            "<{}> belongs directly under <root>, not inside <TreeNodesModel>, which \
                             holds only node models (<Action ID=\"…\">, <Condition>, <Control>, \
                             <Decorator>, <SubTree>)",
                            e.tag()
                        ),
                    ));
                }
                _ => self.warn(model, WarningKind::Model, || {
                    "a <TreeNodesModel> holds <Action>, <Condition>, <Control>, <Decorator> and \
                     <SubTree> models; BehaviorTree.CPP ignores this element, and so does canopy"
                        .to_string()
                })?,
            }
        }
        Ok(())
    }

    /// A `<SubTree ID="…">` model, read as BehaviorTree.CPP 4.10 reads it:
    /// an ID, and ports with names a port may have.
    fn subtree_model(
        &self,
        place: Place,
        e: Element<'_>,
        subtrees: &mut HashMap<String, SubtreeModel>,
    ) -> Result<(), LoadError> {
        let Some(id) = e.attr("ID") else {
            return Err(self.fail(
                place,
                "a SubTree model needs the ID of the tree it describes: <SubTree ID=\"…\">"
                    .to_string(),
            ));
        };
        let model = subtrees.entry(id.to_string()).or_default();
        model.places.push(place);
        for &child in e.children() {
            let at = Place {
                file: place.file,
                element: child,
            };
            crate::work::step(1);
            let p = self.element(at);
            if Direction::of_tag(p.tag()).is_none() {
                continue;
            }
            let Some(name) = p.attr("name") else {
                return Err(self.fail(at, "a port needs a name: name=\"…\"".to_string()));
            };
            if let Some(why) = crate::names::bad_port_name(name) {
                return Err(self.fail(at, format!("the port name {} {why}", quote(name))));
            }
            model.declare(SubtreePort {
                name: name.to_string(),
                default: p.attr("default").map(str::to_string),
            });
        }
        Ok(())
    }

    /// A model of a node type, checked against the registry.
    fn model(&self, place: Place) -> Result<(), LoadError> {
        let e = self.element(place);
        let Some(declared) = Category::from_tag(e.tag()) else {
            return Ok(());
        };
        let Some(id) = e.attr("ID") else {
            return self.warn(place, WarningKind::Model, || {
                format!(
                    "a node model without an ID declares nothing (BehaviorTree.CPP ignores it, and \
                     so does canopy); write <{} ID=\"…\">",
                    e.tag()
                )
            });
        };
        if is_btcpp_builtin(id) {
            // BehaviorTree.CPP's own models, as Groot2 may list them.
            return Ok(());
        }
        let Some(node_type) = self.lookup(id) else {
            return self.warn(place, WarningKind::Model, || {
                format!(
                    "the model declares {}, which is not a registered node type{}; a tree \
                     that uses it does not load: register it, or stand it in from this model \
                     (NodeModel::stand_in, `--model`)",
                    quote(id),
                    did_you_mean(suggest(id, self.registry.types().map(|t| t.name())))
                )
            });
        };
        let is = category(node_type);
        if is != declared {
            self.warn(place, WarningKind::Model, || {
                format!(
                    "the model declares {} as {}, but the registry's {} is {}; BehaviorTree.CPP \
                     builds the registered type whatever the model says, and so does canopy: \
                     declare it as <{} ID={}>",
                    quote(id),
                    noun(declared),
                    node_type.name(),
                    noun(is),
                    is.tag(),
                    quote(id)
                )
            })?;
        }
        let params = ParamIndex::new(node_type.params());
        for &child in e.children() {
            let port = Place {
                file: place.file,
                element: child,
            };
            crate::work::step(1);
            if let Some(direction) = Direction::of_tag(self.element(port).tag()) {
                self.model_port(port, node_type, &params, direction)?;
            }
        }
        Ok(())
    }

    fn model_port(
        &self,
        place: Place,
        node_type: &NodeType<A, W>,
        params: &ParamIndex<'_>,
        direction: Direction,
    ) -> Result<(), LoadError> {
        let e = self.element(place);
        let tag = e.tag();
        let Some(name) = e.attr("name") else {
            return self.warn(place, WarningKind::Model, || {
                "a port without a name declares nothing; write name=\"…\"".to_string()
            });
        };
        let param_name = crate::names::param_name(name);
        let Some(param) = params.get(&param_name) else {
            return self.warn(place, WarningKind::Model, || {
                let names: Vec<String> = node_type
                    .params()
                    .iter()
                    .map(|p| crate::names::attribute_name(&p.name).into_owned())
                    .collect();
                let takes = if names.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    format!("it takes: {}", names.join(", "))
                };
                format!(
                    "{} has no parameter {}{}; {takes}; remove the port from the model",
                    node_type.name(),
                    quote(name),
                    did_you_mean(suggest(name, names.iter().map(String::as_str)))
                )
            });
        };
        let (written, is) = match &param.kind {
            ParamKind::Port { output: true, .. } => (direction.writes(), "an output port"),
            ParamKind::Port { output: false, .. } => {
                (direction == Direction::Input, "an input port")
            }
            _ => (
                direction == Direction::Input,
                "a parameter, fixed when the tree is built",
            ),
        };
        if !written {
            let should = if is == "an output port" {
                "output_port"
            } else {
                "input_port"
            };
            self.warn(place, WarningKind::Model, || {
                format!(
                    "<{tag}> {}: {}'s {} is {is}; declare it as <{should}>",
                    quote(name),
                    node_type.name(),
                    quote(name)
                )
            })?;
        }
        if let Some(declared) = e.attr("type")
            && !type_fits(declared, &param.kind)
        {
            self.warn(place, WarningKind::Model, || {
                format!(
                    "port {} is declared as {}, but {}'s parameter is {}; declare type={}",
                    quote(name),
                    quote(declared),
                    node_type.name(),
                    param.describe(),
                    quote(&port_type(&param.kind))
                )
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::board::SlotType;

    #[test]
    fn spellings_of_a_type_are_one_name() {
        assert_eq!(
            canonical(
                "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
            )
            .as_deref(),
            Some("std::string")
        );
        assert_eq!(canonical("unsigned").as_deref(), Some("unsigned int"));
        assert_eq!(
            canonical("std::vector<double, std::allocator<double> >").as_deref(),
            Some("std::vector<double>")
        );
        assert_eq!(canonical("AnyTypeAllowed"), None);
        assert_eq!(canonical(" Position2D ").as_deref(), Some("Position2D"));
    }

    #[test]
    fn types_fit_ports_by_name_and_values_by_family() {
        let point = ParamKind::Port {
            value: Box::new(ParamKind::Text),
            ty: SlotType::of::<[f32; 2]>(),
            output: false,
        };
        assert!(!type_fits("double", &point));
        assert!(type_fits("canopy::Point2f", &point));
        assert!(type_fits("BT::Any", &point));
        let int = ParamKind::Int { min: 0, max: 9 };
        assert!(type_fits("int32_t", &int) && !type_fits("double", &int));
        assert!(type_fits("Mode", &ParamKind::Choice(vec!["a".into()])));
        assert!(!type_fits("bool", &ParamKind::Text));
    }
}
