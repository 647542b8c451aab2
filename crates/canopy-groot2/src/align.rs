//! Which canopy node each of Groot2's nodes is, at each place it runs.
//!
//! canopy's tree is BehaviorTree.CPP's with three differences of shape,
//! all undone here: a `<SubTree>` node is not in canopy's tree (the
//! subtree's root takes its place); a node with pre- or post-conditions
//! (`_skipIf`, `_onSuccess`, …) is wrapped in canopy's `EvalAround`; and a
//! subtree referenced twice may be one shared definition, so one canopy
//! node stands at several places. The alignment walks both trees from the
//! root, child by child, and gives every place an [`Inst`]: the canopy
//! node, the Groot2 UID it shows as, its parent place and its children.
//! Events name canopy nodes only; [`crate::mirror`] picks the place.
//!
//! Where the two shapes disagree (a node type canopy builds with other
//! children than the XML gives it), that part of the tree is left out —
//! its UIDs stay IDLE — and [`Alignment::mismatches`] says where. A tree
//! built in code has no XML: [`crate::GrootTree::of_tree`] describes it
//! node for node, so it always aligns.

use canopy_core::{NodeId, Tree, inspect::NodeRef};

use crate::xml::{GrootTree, NodeClass};

/// Attributes that make canopy wrap a node in `EvalAround`.
const CONDITIONS: [&str; 8] = [
    "_skipIf",
    "_failureIf",
    "_successIf",
    "_while",
    "_onSuccess",
    "_onFailure",
    "_onHalted",
    "_post",
];

/// One place a canopy node runs at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Inst {
    /// The canopy node.
    pub(crate) node: NodeId,
    /// The Groot2 node it shows as; none for the node inside an
    /// `EvalAround` (the wrapper shows as the XML's node).
    pub(crate) uid: Option<u16>,
    /// The place of its canopy parent.
    pub(crate) parent: Option<u32>,
    /// Its canopy children's places, in order (empty where unaligned).
    pub(crate) children: Vec<u32>,
}

/// Every place of a tree, and the places of each canopy node.
#[derive(Clone, Debug, Default)]
pub(crate) struct Alignment {
    pub(crate) insts: Vec<Inst>,
    /// For canopy node `n`: `places[starts[n]..starts[n + 1]]`, in order.
    starts: Vec<u32>,
    places: Vec<u32>,
    mismatches: Vec<String>,
}

impl Alignment {
    /// Align `groot` (the XML's tree) with `tree` (canopy's).
    pub(crate) fn new<A, W>(groot: &GrootTree, tree: &Tree<A, W>) -> Alignment {
        let mut walk = Walk {
            groot,
            insts: Vec::new(),
            mismatches: Vec::new(),
        };
        walk.align(groot.root(), tree.node(tree.root()), None);
        let Walk {
            insts, mismatches, ..
        } = walk;
        let mut counts = vec![0u32; tree.len() + 1];
        for inst in &insts {
            counts[inst.node.index() + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let starts = counts.clone();
        let mut places = vec![0u32; insts.len()];
        let mut next = counts;
        for (i, inst) in insts.iter().enumerate() {
            let at = &mut next[inst.node.index()];
            places[*at as usize] = i as u32;
            *at += 1;
        }
        Alignment {
            insts,
            starts,
            places,
            mismatches,
        }
    }

    /// The places of canopy node `node`, in tree order.
    pub(crate) fn places(&self, node: NodeId) -> &[u32] {
        let i = node.index();
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.places[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Where the XML and canopy's tree disagree, in words.
    pub(crate) fn mismatches(&self) -> &[String] {
        &self.mismatches
    }
}

struct Walk<'g> {
    groot: &'g GrootTree,
    insts: Vec<Inst>,
    mismatches: Vec<String>,
}

impl Walk<'_> {
    fn align<A, W>(&mut self, uid: u16, node: NodeRef<'_, A, W>, parent: Option<u32>) -> u32 {
        let mut element = self.groot.node(uid).expect("a uid of the tree");
        // A <SubTree> is not in canopy's tree: its subtree's root is.
        while element.class == NodeClass::SubTree {
            let Some(&root) = element.children.first() else {
                break;
            };
            element = self.groot.node(root).expect("a uid of the tree");
        }
        let uid = element.uid;
        let me = self.place(node.id(), Some(uid), parent);
        let wrapped = element
            .attrs
            .iter()
            .any(|(k, _)| CONDITIONS.contains(&k.as_str()))
            && node.type_name() == "EvalAround"
            && node.children().len() == 1;
        let (carrier, canopy_node) = if wrapped {
            let inner = node.children().next().expect("one child");
            let inner_place = self.place(inner.id(), None, Some(me));
            self.insts[me as usize].children.push(inner_place);
            (inner_place, inner)
        } else {
            (me, node)
        };
        let children: Vec<u16> = element.children.clone();
        if children.len() != canopy_node.children().len() {
            self.mismatches.push(format!(
                "{} (uid {uid}) has {} children in the XML and {} in canopy's tree ({}); \
                 its children show as IDLE",
                canopy_core::text::quote(&element.name),
                children.len(),
                canopy_node.children().len(),
                canopy_core::text::quote(canopy_node.type_name()),
            ));
            return me;
        }
        for (&child_uid, child) in children.iter().zip(canopy_node.children()) {
            let place = self.align(child_uid, child, Some(carrier));
            self.insts[carrier as usize].children.push(place);
        }
        me
    }

    fn place(&mut self, node: NodeId, uid: Option<u16>, parent: Option<u32>) -> u32 {
        self.insts.push(Inst {
            node,
            uid,
            parent,
            children: Vec::new(),
        });
        (self.insts.len() - 1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_btcpp::{XmlOptions, load_str};
    use canopy_data::Registry;

    /// The place each UID shows, by `uid - 1`.
    fn of_uid(groot: &GrootTree, a: &Alignment) -> Vec<Option<u32>> {
        (1..=groot.nodes().len() as u16)
            .map(|uid| {
                a.insts
                    .iter()
                    .position(|i| i.uid == Some(uid))
                    .map(|p| p as u32)
            })
            .collect()
    }

    fn aligned(xml: &str) -> (GrootTree, Tree<(), ()>, Alignment) {
        let registry = Registry::<(), ()>::new();
        let tree = load_str(&registry, xml, "t.xml", None, &XmlOptions::default()).unwrap();
        let groot = GrootTree::from_xml(xml).unwrap();
        let alignment = Alignment::new(&groot, &tree);
        (groot, tree, alignment)
    }

    #[test]
    fn subtree_nodes_and_condition_wrappers_are_undone() {
        let (groot, tree, a) = aligned(
            r#"<root BTCPP_format="4" main_tree_to_execute="M">
              <BehaviorTree ID="M"><Sequence>
                <SubTree ID="S"/>
                <AlwaysSuccess _skipIf="false"/>
                <SubTree ID="S"/>
              </Sequence></BehaviorTree>
              <BehaviorTree ID="S"><Inverter><AlwaysFailure/></Inverter></BehaviorTree>
            </root>"#,
        );
        assert!(a.mismatches().is_empty(), "{:?}", a.mismatches());
        // Groot2: 1 Sequence, 2 SubTree, 3 Inverter, 4 AlwaysFailure,
        // 5 AlwaysSuccess, 6 SubTree, 7 Inverter, 8 AlwaysFailure.
        assert_eq!(groot.nodes().len(), 8);
        let of = of_uid(&groot, &a);
        let shown: Vec<Option<&str>> = of
            .iter()
            .map(|p| p.map(|p| tree.node(a.insts[p as usize].node).type_name()))
            .collect();
        assert_eq!(
            shown,
            [
                Some("Sequence"),
                None,
                Some("Inverter"),
                Some("AlwaysFailure"),
                Some("EvalAround"),
                None,
                Some("Inverter"),
                Some("AlwaysFailure"),
            ]
        );
        // The shared subtree's Inverter runs at two places.
        let inverter = a.insts[of[2].unwrap() as usize].node;
        assert_eq!(a.places(inverter).len(), 2);
    }

    #[test]
    fn a_shape_canopy_builds_otherwise_is_reported() {
        let groot = GrootTree::from_xml(
            r#"<root><BehaviorTree ID="M"><Sequence><AlwaysSuccess/><AlwaysSuccess/></Sequence></BehaviorTree></root>"#,
        )
        .unwrap();
        let b = canopy_core::Builder::<(), ()>::new();
        let tree = b.build(b.sequence("s", [b.always_success("a")])).unwrap();
        let a = Alignment::new(&groot, &tree);
        assert_eq!(
            a.mismatches(),
            [
                "\"Sequence\" (uid 1) has 2 children in the XML and 1 in canopy's tree (\"Sequence\"); its children show as IDLE"
            ]
        );
        assert_eq!(of_uid(&groot, &a), [Some(0), None, None]);
    }
}
