//! The event-driven schedule of one agent: its running tasks as a list of
//! *frames* in tree order, with what is due. The algorithm that keeps it —
//! updating due frames, telling parents about finished children — is the
//! engine's ([`scheduler`](crate::engine::scheduler)); this is its data.

use crate::def::exec::Wake;
use crate::tree::layout::TaskLocation;
use crate::util::primitives::reached;

impl Wake {
    pub(crate) fn is_due(self, now: u32) -> bool {
        match self {
            Wake::Always | Wake::Restart => true,
            Wake::Deadline(t) | Wake::At(t) => reached(now, t),
            Wake::Pass | Wake::Suspended(_) | Wake::Never | Wake::Gone => false,
        }
    }
}

/// One running task as the scheduler sees it: enough to update it without
/// walking down from the root. Its parent is the nearest frame before it
/// one level up, so frames are 24 bytes and need no fixing when frames
/// before them come and go.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// Where the task is (and which node it is).
    pub(crate) at: TaskLocation,
    /// Which child of its parent.
    pub(crate) child: u16,
    pub(crate) depth: u16,
    pub(crate) wake: Wake,
}

/// [`Schedule::asleep_until`]: no tick will wake the agent, only a ticket.
pub(crate) const NEVER: u32 = u32::MAX;

/// How many frames due every tick the schedule lists by index; with more,
/// a tick scans all frames.
pub(crate) const LISTED: usize = 6;

/// The schedule's first capacity, in frames: past it, the list grows to
/// its peak.
pub(crate) const FRAMES_CAP: usize = 4096;

/// An agent's event-driven schedule: its running tasks in tree order.
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    pub(crate) frames: Vec<Frame>,
    /// Indices of the frames due every tick, in tree order: on a tick with
    /// no alarm these are the only frames looked at (the event-driven tree's list of
    /// active behaviors).
    pub(crate) due: [u16; LISTED],
    /// How many of `due` are used; `u8::MAX` when there are more than
    /// [`LISTED`] (or one lies past index `u16::MAX`), and ticks scan.
    pub(crate) due_len: u8,
    /// The earliest tick a `Deadline` or `At` frame falls due.
    pub(crate) alarm: Option<u32>,
}

impl Clone for Schedule {
    /// Keeps the capacity: a clone must not allocate when it ticks.
    fn clone(&self) -> Self {
        let mut frames = Vec::with_capacity(self.frames.capacity());
        frames.extend_from_slice(&self.frames);
        Schedule {
            frames,
            due: self.due,
            due_len: self.due_len,
            alarm: self.alarm,
        }
    }
}

impl Schedule {
    /// Room for `frames` frames (capped; past the cap the list grows once,
    /// to its peak).
    pub(crate) fn with_capacity(frames: u32) -> Self {
        Schedule {
            frames: Vec::with_capacity((frames as usize).min(FRAMES_CAP)),
            due: [0; LISTED],
            due_len: 0,
            alarm: None,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.frames.clear();
        self.due_len = 0;
        self.alarm = None;
    }

    /// A completed ticket wakes its suspended leaf, if it has a frame (an
    /// async leaf below a reactive node has none: it is polled).
    pub(crate) fn wake(&mut self, wait: u32, now: u32) {
        if let Some(frame) = self
            .frames
            .iter_mut()
            .find(|f| f.wake == Wake::Suspended(wait))
        {
            frame.wake = Wake::Always;
            self.refresh(now);
        }
    }

    /// When the agent next needs a tick: 0 if on every tick, [`NEVER`] if
    /// only once a ticket is completed, else the tick of the next alarm.
    /// Agents keep this next to their counters, so a sleeping agent's tick
    /// touches nothing else.
    pub(crate) fn asleep_until(&self) -> u32 {
        match (self.due_len, self.alarm) {
            (0, None) if !self.frames.is_empty() => NEVER,
            (0, Some(t)) if t != NEVER && t != 0 => t,
            _ => 0,
        }
    }

    /// Drop gone frames and recount what is due, after frames changed.
    pub(crate) fn refresh(&mut self, now: u32) {
        self.frames.retain(|f| f.wake != Wake::Gone);
        self.due_len = 0;
        self.alarm = None;
        for (i, frame) in self.frames.iter().enumerate() {
            match frame.wake {
                Wake::Always | Wake::Restart => {
                    let n = self.due_len as usize;
                    match u16::try_from(i) {
                        Ok(i) if n < LISTED => {
                            self.due[n] = i;
                            self.due_len += 1;
                        }
                        // Too many to list (or too far down a huge
                        // schedule): ticks scan instead.
                        _ => self.due_len = u8::MAX,
                    }
                }
                Wake::Deadline(t) | Wake::At(t) => {
                    let sooner = self.alarm.is_none_or(|a| {
                        (t.wrapping_sub(now) as i32) < (a.wrapping_sub(now) as i32)
                    });
                    if sooner {
                        self.alarm = Some(t);
                    }
                }
                _ => {}
            }
        }
    }

    /// The parent frame of frame `i` (not the root).
    #[inline]
    pub(crate) fn parent(&self, i: usize) -> usize {
        let depth = self.frames[i].depth;
        let mut p = i - 1;
        while self.frames[p].depth >= depth {
            p -= 1;
        }
        p
    }

    /// One past the last frame of the subtree of frame `i`.
    pub(crate) fn subtree_end(&self, i: usize) -> usize {
        let depth = self.frames[i].depth;
        self.frames[i + 1..]
            .iter()
            .position(|f| f.depth <= depth)
            .map_or(self.frames.len(), |k| i + 1 + k)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.frames.capacity() * size_of::<Frame>()
    }
}
