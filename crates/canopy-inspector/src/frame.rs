//! One picture of the crowd for the map: each agent's label (what it is
//! doing) and, optionally, its position and its level-of-detail class
//! (how often it is ticked); sent to the page as one binary message.
//!
//! Binary because a crowd is large: 100,000 agents take 500 kB per frame
//! (a 16-bit position on each axis and a label byte), where JSON would take
//! several megabytes and a parse on every frame. All numbers are little
//! endian; arrays start at multiples of their element size, so the page
//! reads them as typed arrays without copying.
//!
//! | offset | content |
//! |---|---|
//! | 0 | `b"CNPY"` |
//! | 4 | version `1` (u8) |
//! | 5 | flags (u8): bit 0 positions, bit 1 explicit ids, bit 2 classes |
//! | 6 | 0 (u16) |
//! | 8 | tick (u32) |
//! | 12 | agent count `n` (u32) |
//! | 16 | bounds: min x, min y, max x, max y (f32 each) |
//! | 32 | explicit ids: `n` × u32, if flagged (else agent `i` has id `i`) |
//! | … | positions: `n` × (x u16, y u16), if flagged; `65535` is "no position" |
//! | … | labels: `n` × u8, an index into the legend |
//! | … | classes: `n` × u8, an index into the classes, if flagged |
//!
//! Classes came after everything else so that a page reading only the
//! first three arrays still reads a frame with them; they are a byte per
//! agent, not part of the label, because a label already means what the
//! agent does and the map shows both (the class as the dot's opacity).

use serde::Serialize;

/// What a label byte means on the map: a name and a colour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Label {
    /// What agents with this label are doing ("eat").
    pub name: String,
    /// A CSS colour, `#rrggbb`.
    pub colour: String,
}

impl Label {
    /// A label.
    pub fn new(name: impl Into<String>, colour: impl Into<String>) -> Label {
        Label {
            name: name.into(),
            colour: colour.into(),
        }
    }
}

/// What a class byte means on the map: a level-of-detail rate class
/// ("1 step in 4") and how opaque its agents are drawn, so that agents
/// ticked less often look paler.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassLabel {
    /// The class's name, e.g. its period.
    pub name: String,
    /// Opacity of its agents' dots, in `[0, 1]` (1: as their label's colour).
    pub opacity: f32,
}

impl ClassLabel {
    /// A class label; the opacity is clamped to `[0, 1]` (not a number: 1).
    pub fn new(name: impl Into<String>, opacity: f32) -> ClassLabel {
        ClassLabel {
            name: name.into(),
            opacity: if opacity.is_nan() {
                1.0
            } else {
                opacity.clamp(0.0, 1.0)
            },
        }
    }
}

/// The first bytes of every frame.
pub const MAGIC: &[u8; 4] = b"CNPY";

/// A quantised coordinate meaning "no position".
pub const NO_POSITION: u16 = u16::MAX;

/// Size of the header before the arrays.
const HEADER: usize = 32;

/// A frame being filled: reuse one across steps, its buffers keep their
/// capacity.
///
/// ```
/// use canopy_inspector::Frame;
///
/// let mut frame = Frame::new();
/// frame.begin(7, [0.0, 0.0], [100.0, 50.0]);
/// frame.push_at(0, [50.0, 25.0], 2);
/// frame.push_at(1, [100.0, 0.0], 0);
/// let bytes = frame.encode();
/// assert_eq!(&bytes[..4], b"CNPY");
/// assert_eq!(bytes.len(), 32 + 2 * 4 + 2);
/// assert_eq!(frame.len(), 2);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Frame {
    tick: u32,
    min: [f32; 2],
    max: [f32; 2],
    ids: Vec<u32>,
    positions: Vec<[u16; 2]>,
    labels: Vec<u8>,
    classes: Vec<u8>,
    has_positions: bool,
    explicit_ids: bool,
    has_classes: bool,
}

impl Frame {
    /// An empty frame.
    pub fn new() -> Frame {
        Frame::default()
    }

    /// Start a frame for `tick`, positions ranging over `min..=max`
    /// (ignored when no agent has a position).
    pub fn begin(&mut self, tick: u32, min: [f32; 2], max: [f32; 2]) {
        self.tick = tick;
        self.min = min;
        self.max = max;
        self.ids.clear();
        self.positions.clear();
        self.labels.clear();
        self.classes.clear();
        self.has_positions = false;
        self.explicit_ids = false;
        self.has_classes = false;
    }

    /// Add an agent without a position (the page lays such crowds out on a
    /// grid, by id).
    #[inline]
    pub fn push(&mut self, id: u32, label: u8) {
        self.push_quantised(id, [NO_POSITION; 2], label);
    }

    /// Add an agent at `position`; a position outside the bounds is drawn
    /// at the edge, a non-finite one is not drawn.
    #[inline]
    pub fn push_at(&mut self, id: u32, position: [f32; 2], label: u8) {
        self.has_positions = true;
        let q = |v: f32, lo: f32, hi: f32| {
            let t = (v - lo) / (hi - lo);
            if t.is_finite() {
                (t.clamp(0.0, 1.0) * f32::from(NO_POSITION - 1)).round() as u16
            } else {
                NO_POSITION
            }
        };
        let x = q(position[0], self.min[0], self.max[0]);
        let y = q(position[1], self.min[1], self.max[1]);
        let both = if x == NO_POSITION || y == NO_POSITION {
            [NO_POSITION; 2]
        } else {
            [x, y]
        };
        self.push_quantised(id, both, label);
    }

    fn push_quantised(&mut self, id: u32, position: [u16; 2], label: u8) {
        if id as usize != self.ids.len() {
            self.explicit_ids = true;
        }
        self.ids.push(id);
        self.positions.push(position);
        self.labels.push(label);
        self.classes.push(0);
    }

    /// Put the agent added last in level-of-detail class `class` (an index
    /// into [`Options::classes`](crate::Options::classes)); agents not
    /// given one are in class 0. Does nothing in an empty frame.
    #[inline]
    pub fn set_class(&mut self, class: u8) {
        if let Some(last) = self.classes.last_mut() {
            *last = class;
            self.has_classes = true;
        }
    }

    /// The class of the agent with id `id`, if the frame has classes and
    /// that agent.
    pub(crate) fn class_of(&self, id: u32) -> Option<u8> {
        if !self.has_classes {
            return None;
        }
        let at = if self.explicit_ids {
            self.ids.iter().position(|&i| i == id)?
        } else {
            id as usize
        };
        self.classes.get(at).copied()
    }

    /// Agents in the frame.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// `true` when no agent was added.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The frame's tick.
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// The bytes sent to the page (format in the module docs).
    pub fn encode(&self) -> Vec<u8> {
        let n = self.ids.len();
        let mut size = HEADER + n;
        if self.has_classes {
            size += n;
        }
        if self.explicit_ids {
            size += 4 * n;
        }
        if self.has_positions {
            size += 4 * n;
        }
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(MAGIC);
        out.push(1);
        out.push(
            u8::from(self.has_positions)
                | (u8::from(self.explicit_ids) << 1)
                | (u8::from(self.has_classes) << 2),
        );
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&self.tick.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for v in [self.min[0], self.min[1], self.max[0], self.max[1]] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if self.explicit_ids {
            for id in &self.ids {
                out.extend_from_slice(&id.to_le_bytes());
            }
        }
        if self.has_positions {
            for [x, y] in &self.positions {
                out.extend_from_slice(&x.to_le_bytes());
                out.extend_from_slice(&y.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.labels);
        if self.has_classes {
            out.extend_from_slice(&self.classes);
        }
        debug_assert_eq!(out.len(), size);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u16_at(bytes: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([bytes[at], bytes[at + 1]])
    }

    #[test]
    fn positions_are_quantised_over_the_bounds() {
        let mut frame = Frame::new();
        frame.begin(3, [0.0, 10.0], [2.0, 20.0]);
        frame.push_at(0, [1.0, 10.0], 4);
        frame.push_at(1, [5.0, f32::NAN], 1);
        let bytes = frame.encode();
        assert_eq!(bytes[5], 0b01);
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 2);
        assert_eq!(
            [u16_at(&bytes, 32), u16_at(&bytes, 34)],
            [32767, 0],
            "the middle and the bottom edge"
        );
        assert_eq!([u16_at(&bytes, 36), u16_at(&bytes, 38)], [NO_POSITION; 2]);
        assert_eq!(&bytes[40..], [4, 1]);
    }

    #[test]
    fn ids_out_of_order_are_sent() {
        let mut frame = Frame::new();
        frame.begin(1, [0.0; 2], [1.0; 2]);
        frame.push(5, 0);
        frame.push(9, 1);
        let bytes = frame.encode();
        assert_eq!(bytes[5], 0b10);
        assert_eq!(bytes.len(), 32 + 8 + 2);
        assert_eq!(u32::from_le_bytes(bytes[36..40].try_into().unwrap()), 9);
    }

    #[test]
    fn classes_follow_the_labels_when_any_agent_has_one() {
        let mut frame = Frame::new();
        frame.begin(2, [0.0; 2], [1.0; 2]);
        frame.push(0, 3);
        frame.push(1, 4);
        frame.set_class(2);
        let bytes = frame.encode();
        assert_eq!(bytes[5], 0b100);
        assert_eq!(&bytes[32..], [3, 4, 0, 2], "labels, then classes");
        assert_eq!([frame.class_of(0), frame.class_of(1)], [Some(0), Some(2)]);
        assert_eq!(frame.class_of(2), None, "no such agent");
        frame.begin(3, [0.0; 2], [1.0; 2]);
        frame.push(0, 3);
        assert_eq!(
            frame.encode().len(),
            32 + 1,
            "no classes, no bytes for them"
        );
        assert_eq!(frame.class_of(0), None);
    }

    #[test]
    fn the_class_of_an_agent_with_an_explicit_id_is_found_by_its_id() {
        let mut frame = Frame::new();
        frame.begin(1, [0.0; 2], [1.0; 2]);
        frame.push(7, 0);
        frame.set_class(1);
        frame.push(9, 0);
        frame.set_class(3);
        let bytes = frame.encode();
        assert_eq!(bytes[5], 0b110);
        assert_eq!(&bytes[32 + 8..], [0, 0, 1, 3]);
        assert_eq!([frame.class_of(9), frame.class_of(7)], [Some(3), Some(1)]);
        assert_eq!(frame.class_of(1), None);
    }

    #[test]
    fn a_class_opacity_is_kept_between_zero_and_one() {
        assert_eq!(ClassLabel::new("far", 1.5).opacity, 1.0);
        assert_eq!(ClassLabel::new("far", -1.0).opacity, 0.0);
        assert_eq!(ClassLabel::new("far", f32::NAN).opacity, 1.0);
        assert_eq!(ClassLabel::new("far", 0.25).opacity, 0.25);
    }
}
