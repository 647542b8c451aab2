//! The watched agent's blackboard as a BLACKBOARD reply: MessagePack of a
//! JSON object, one member per tree named in the request, each the
//! tree's entries by key — what BehaviorTree.CPP's publisher sends.
//!
//! canopy has one blackboard per agent; BehaviorTree.CPP one per tree
//! instance. The main tree's blackboard (named by the main tree's ID) has
//! every key but those canopy keeps for itself (starting `__`); a subtree
//! instance's (named by its `_fullpath`) has the keys private to it —
//! canopy's `__ID_N__key` slots, given back their own names — and the
//! literal values its `<SubTree>` passes (`n="5"`), which
//! BehaviorTree.CPP writes into the instance's blackboard. A key remapped
//! to the parent is the parent's entry, in both.
//!
//! Values are written as BehaviorTree.CPP's JSON export writes its own:
//! integers and floating-point numbers as numbers, text as strings, and a
//! `bool` as the integer 0 or 1 (BehaviorTree.CPP stores it as an integer).
//! canopy's points are arrays of numbers; a game's own types, the text
//! canopy's inspector shows; a type known only by name, nil.
//! Keys and values are in key order, as nlohmann's JSON objects are.

use canopy_core::{Text, board::SlotRef};

use crate::xml::GrootTree;

/// Most trees one BLACKBOARD request may name.
pub const MAX_BOARD_NAMES: usize = 64;

/// One entry of a blackboard: its key, and where its value is.
#[derive(Clone, Debug)]
enum Value {
    /// A slot: its index in the layout's slots.
    Slot(usize),
    /// A literal text from the XML.
    Literal(String),
}

/// Which keys each tree's blackboard shows.
#[derive(Clone, Debug, Default)]
pub(crate) struct BoardLayout {
    pub(crate) slots: Vec<SlotRef>,
    /// By tree name, sorted: its entries, sorted by key.
    boards: Vec<(String, Vec<(String, Value)>)>,
}

/// The prefix canopy's XML loader gives a subtree instance's own keys,
/// split into the tree's ID (as a key spells it) and the instance number.
fn private(key: &str) -> Option<(&str, u32, &str)> {
    let rest = key.strip_prefix("__")?;
    let end = rest.find("__")?;
    let (head, key) = (&rest[..end], &rest[end + 2..]);
    let (id, n) = head.rsplit_once('_')?;
    Some((id, n.parse().ok()?, key))
}

/// An ID as canopy spells it inside a key.
fn key_spelling(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl BoardLayout {
    pub(crate) fn new(groot: &GrootTree, slots: &[SlotRef]) -> BoardLayout {
        let slots: Vec<SlotRef> = slots.to_vec();
        let mut boards = Vec::new();
        let main_name = groot.sections().first().map_or("", |s| s.id.as_str());
        let mut main: Vec<(String, Value)> = slots
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.key.starts_with("__"))
            .map(|(i, s)| (s.key.to_string(), Value::Slot(i)))
            .collect();
        main.sort_by(|a, b| a.0.cmp(&b.0));
        boards.push((main_name.to_string(), main));
        // The private keys of each copied instance, numbered by canopy in
        // the order it copied them; matched to the instances of the same
        // ID that own any, in tree order.
        let mut prefixes: Vec<(String, u32)> = slots
            .iter()
            .filter_map(|s| private(&s.key).map(|(id, n, _)| (id.to_string(), n)))
            .collect();
        prefixes.sort_by_key(|p| p.1);
        prefixes.dedup();
        let mut used = vec![false; prefixes.len()];
        for section in groot.sections().iter().skip(1) {
            let spelled = key_spelling(&section.id);
            let mut entries: Vec<(String, Value)> = section
                .literals
                .iter()
                .map(|(k, v)| (k.clone(), Value::Literal(v.clone())))
                .collect();
            if let Some(at) = prefixes
                .iter()
                .enumerate()
                .position(|(i, p)| !used[i] && p.0 == spelled)
            {
                used[at] = true;
                let (id, n) = &prefixes[at];
                for (i, slot) in slots.iter().enumerate() {
                    if let Some((sid, sn, key)) = private(&slot.key)
                        && sid == id
                        && sn == *n
                        && !entries.iter().any(|(k, _)| k == key)
                    {
                        entries.push((key.to_string(), Value::Slot(i)));
                    }
                }
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            boards.push((section.fullpath.clone(), entries));
        }
        boards.sort_by(|a, b| a.0.cmp(&b.0));
        BoardLayout { slots, boards }
    }

    /// The bytes of each slot, one after the other, as [`BoardLayout::encode`]
    /// reads them.
    pub(crate) fn capture(&self, board: &mut canopy_core::Board<'_>, out: &mut Vec<u8>) {
        out.clear();
        for slot in &self.slots {
            out.extend_from_slice(board.slot_bytes(slot));
        }
    }

    /// The names a BLACKBOARD request may give.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.boards.iter().map(|(n, _)| n.as_str())
    }

    /// The entries of the tree `name` as (key, type, value in words), for
    /// people.
    #[cfg(test)]
    pub(crate) fn board(&self, name: &str) -> Option<usize> {
        self.boards
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.len())
    }

    /// The reply to a BLACKBOARD request naming `names` (`;`-separated),
    /// over slot bytes `bytes` (from [`BoardLayout::capture`]). Unknown
    /// names are left out, as BehaviorTree.CPP does.
    pub(crate) fn encode(&self, names: &str, bytes: &[u8]) -> Vec<u8> {
        let mut asked: Vec<&str> = names.split(';').filter(|n| !n.is_empty()).collect();
        asked.sort_unstable();
        asked.dedup();
        let found: Vec<&(String, Vec<(String, Value)>)> = asked
            .iter()
            .take(MAX_BOARD_NAMES)
            .filter_map(|name| self.boards.iter().find(|(n, _)| n == name))
            .collect();
        let mut offsets = Vec::with_capacity(self.slots.len());
        let mut at = 0;
        for slot in &self.slots {
            offsets.push(at);
            at += slot.ty.size();
        }
        let mut out = Vec::new();
        let _ = rmp::encode::write_map_len(&mut out, found.len() as u32);
        for (name, entries) in found {
            let _ = rmp::encode::write_str(&mut out, name);
            if entries.is_empty() {
                // BehaviorTree.CPP exports an empty blackboard as null.
                let _ = rmp::encode::write_nil(&mut out);
                continue;
            }
            let _ = rmp::encode::write_map_len(&mut out, entries.len() as u32);
            for (key, value) in entries {
                let _ = rmp::encode::write_str(&mut out, key);
                match value {
                    Value::Literal(text) => write_literal(&mut out, text),
                    Value::Slot(i) => {
                        let slot = &self.slots[*i];
                        let start = offsets[*i];
                        let bytes = bytes.get(start..start + slot.ty.size());
                        write_slot(&mut out, slot, bytes);
                    }
                }
            }
        }
        out
    }
}

/// A literal from the XML as BehaviorTree.CPP 4.10 stores it: an integer
/// if it is one, else a number if it is one, else the text.
fn write_literal(out: &mut Vec<u8>, text: &str) {
    if !text.contains(['.', 'e', 'E'])
        && let Ok(n) = text.parse::<i64>()
    {
        let _ = rmp::encode::write_sint(out, n);
    } else if let Ok(x) = text.parse::<f64>()
        && x.is_finite()
        && !text.trim().is_empty()
    {
        write_float(out, x);
    } else {
        let _ = rmp::encode::write_str(out, text);
    }
}

/// A number as nlohmann's MessagePack writes it: 32 bits where that loses
/// nothing.
fn write_float(out: &mut Vec<u8>, x: f64) {
    if f64::from(x as f32) == x || x.is_nan() {
        let _ = rmp::encode::write_f32(out, x as f32);
    } else {
        let _ = rmp::encode::write_f64(out, x);
    }
}

fn write_slot(out: &mut Vec<u8>, slot: &SlotRef, bytes: Option<&[u8]>) {
    let Some(b) = bytes.filter(|b| !b.is_empty()) else {
        let _ = rmp::encode::write_nil(out);
        return;
    };
    let ty = &slot.ty;
    macro_rules! int {
        ($($t:ty),*) => {$(
            if ty.is::<$t>() {
                let v = <$t as canopy_core::board::BoardValue>::read(b);
                let _ = rmp::encode::write_sint(out, i64::from(v));
                return;
            }
        )*};
    }
    int!(i8, i16, i32, i64, u8, u16, u32);
    if ty.is::<u64>() {
        let _ = rmp::encode::write_uint(out, <u64 as canopy_core::board::BoardValue>::read(b));
    } else if ty.is::<f64>() {
        write_float(out, <f64 as canopy_core::board::BoardValue>::read(b));
    } else if ty.is::<f32>() {
        write_float(
            out,
            f64::from(<f32 as canopy_core::board::BoardValue>::read(b)),
        );
    } else if ty.is::<bool>() {
        let _ = rmp::encode::write_sint(
            out,
            i64::from(<bool as canopy_core::board::BoardValue>::read(b)),
        );
    } else if ty.is::<Text>() {
        let _ = rmp::encode::write_str(
            out,
            <Text as canopy_core::board::BoardValue>::read(b).as_str(),
        );
    } else if ty.is::<[f32; 2]>() {
        write_floats(
            out,
            &<[f32; 2] as canopy_core::board::BoardValue>::read(b).map(f64::from),
        );
    } else if ty.is::<[f32; 3]>() {
        write_floats(
            out,
            &<[f32; 3] as canopy_core::board::BoardValue>::read(b).map(f64::from),
        );
    } else if ty.is::<[f64; 2]>() {
        write_floats(out, &<[f64; 2] as canopy_core::board::BoardValue>::read(b));
    } else if ty.is::<[f64; 3]>() {
        write_floats(out, &<[f64; 3] as canopy_core::board::BoardValue>::read(b));
    } else {
        let _ = rmp::encode::write_str(out, &ty.show(b));
    }
}

fn write_floats(out: &mut Vec<u8>, xs: &[f64]) {
    let _ = rmp::encode::write_array_len(out, xs.len() as u32);
    for &x in xs {
        write_float(out, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canopy_core::{Agent, Builder};

    #[test]
    fn private_keys_are_split() {
        assert_eq!(private("__Sub_2__goal"), Some(("Sub", 2, "goal")));
        assert_eq!(private("__precondition_3"), None);
        assert_eq!(private("goal"), None);
    }

    #[test]
    fn the_main_board_is_messagepack_in_key_order() {
        let b = Builder::<(), ()>::new();
        let count = b.key::<i32>("count").unwrap();
        let ok = b.key::<bool>("ok").unwrap();
        let msg = b.key::<Text>("msg").unwrap();
        let f = b.key::<f64>("f").unwrap();
        b.key::<bool>("__latch").unwrap();
        b.set_initial(count, 3);
        b.set_initial(ok, true);
        b.set_initial(msg, Text::new("hi"));
        b.set_initial(f, 1.5);
        let tree = b.build(b.always_success("x")).unwrap();
        let groot = GrootTree::from_xml(
            "<root><BehaviorTree ID=\"Main\"><AlwaysSuccess/></BehaviorTree></root>",
        )
        .unwrap();
        let layout = BoardLayout::new(&groot, tree.slots());
        let mut agent = Agent::new(&tree);
        let mut bytes = Vec::new();
        layout.capture(&mut agent.board_mut(&tree), &mut bytes);
        let reply = layout.encode("Main;Nowhere", &bytes);
        // {"Main": {"count": 3, "f": 1.5, "msg": "hi", "ok": 1}}, as
        // BehaviorTree.CPP 4.8.2's publisher wrote it for the same values.
        let mut expected = vec![0x81, 0xa4];
        expected.extend(b"Main");
        expected.extend([0x84, 0xa5]);
        expected.extend(b"count");
        expected.push(0x03);
        expected.push(0xa1);
        expected.extend(b"f");
        expected.extend([0xca, 0x3f, 0xc0, 0, 0]);
        expected.push(0xa3);
        expected.extend(b"msg");
        expected.push(0xa2);
        expected.extend(b"hi");
        expected.push(0xa2);
        expected.extend(b"ok");
        expected.push(0x01);
        assert_eq!(reply, expected);
        assert_eq!(
            layout.encode("", &bytes),
            [0x80],
            "no name, an empty object"
        );
        assert_eq!(layout.board("Main"), Some(4), "the __latch is canopy's own");
    }
}
