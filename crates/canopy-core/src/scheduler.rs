//! The event-driven scheduler (seed 002): update only what can change.
//!
//! Tick-from-root walks from the root to every running leaf on every tick,
//! although most nodes on the way — a Sequence waiting for its running
//! child, an Inverter, a Parallel — would only pass the tick down and the
//! status up. The event-driven mode keeps, per agent, the running part of
//! the task tree as a list of *frames* in tree order, and on each tick
//! updates only the frames that need it:
//!
//! | running task | updated by the scheduler |
//! |---|---|
//! | Sequence, Selector, Parallel, Inverter, Force*, Guard, Cooldown, Repeat/Retry with its child running | never on its own: only when a child finishes (seed 002's `OnChildComplete`) |
//! | Timeout | at its deadline; before that it only reacts to its child |
//! | Wait | at the tick it ends |
//! | async leaf | after its [`Ticket`](crate::Ticket) is completed |
//! | AlwaysRunning | never |
//! | Action, custom node, Repeat/Retry between cycles | every tick |
//! | ReactiveSequence, ReactiveSelector, ReactiveGuard | every tick, and their subtree runs tick-from-root below them: they must re-check their conditions anyway |
//!
//! When an updated task finishes, its parent is told
//! (a `ChildDone` visit) and reacts with the same code its ordinary update
//! runs — a Sequence starts its next child, a Parallel counts the result —
//! so node semantics stay in one place, [`nodes`](crate::nodes). The frames
//! below a parent that reacted are then read back from the task state.
//!
//! The results are those of tick-from-root: the same root status each
//! tick, the same leaf calls in the same order, the same installs, exits
//! and aborts (checked by a differential property test over random trees).
//! What differs is only what is not observable from leaf code: a node that
//! is not updated reports no `Update` event, and neither does a node that
//! reacts to a finished child and goes on running (a Parallel may react to
//! several children in one tick; tick mode reports it once). So event mode
//! reports a subset of tick mode's `Update(Running)` events and the same
//! events otherwise.
//!
//! One cost grows differently. A frame finds its parent by walking back
//! over its elder siblings' frames, and when a running task moves on to a
//! child whose subtree has a different number of frames, the frames after
//! it move in the list. Both are short for the parallels of game trees (a
//! handful of children); for a Parallel with thousands of running children
//! that finish in the same tick they add up to more than tick mode's walk
//! (`cargo bench --bench scheduling -- wide`: 16,000 such children, 161 ms
//! against 0.95 ms for an agent's first 6 ticks).
//!
//! Frames live in one `Vec` per agent with room, from the tree's shape, for
//! the most frames it can need, so scheduling allocates nothing.

use crate::behavior::{At, Runner, Visit, is_stateless};
use crate::context::Ctx;
use crate::node::NodeKind;
use crate::observer::Observer;
use crate::pool::{Loc, TaskPool};
use crate::status::Status;
use crate::tree::Tree;

/// How an [`Agent`](crate::Agent) runs its tree. Both give identical
/// results; they differ in cost.
///
/// ```
/// use canopy_core::{Agent, Builder, Mode, Status};
/// let b = Builder::<(), ()>::new();
/// let tree = b.build(b.sequence("s", [b.wait("w", 100), b.always_success("ok")])).unwrap();
/// let mut agent = Agent::new(&tree);
/// agent.set_mode(&tree, Mode::Event);
/// assert_eq!(agent.mode(), Mode::Event);
/// for _ in 0..100 {
///     assert_eq!(agent.tick(&tree, &mut (), &()), Status::Running); // the wait sleeps
/// }
/// assert_eq!(agent.tick(&tree, &mut (), &()), Status::Success);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Walk from the root to the running leaves on every tick (seeds 000, 001).
    #[default]
    Tick,
    /// Update only the tasks that can change this tick, and react to
    /// finished children (seed 002).
    Event,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "tick" => Ok(Mode::Tick),
            "event" => Ok(Mode::Event),
            other => Err(format!(
                "unknown mode \"{other}\", expected \"tick\" or \"event\""
            )),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Tick => "tick",
            Mode::Event => "event",
        })
    }
}

/// When the scheduler updates a frame's task itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wake {
    /// Only when a child finishes; its running children have frames.
    Pass,
    /// Like `Pass` until this tick, then updated (a Timeout's deadline).
    Deadline(u32),
    /// Every tick, with no frames below it (leaves and the nodes whose
    /// subtree runs tick-from-root).
    Always,
    /// On the next tick, which installs its child (a Repeat or Retry
    /// between cycles).
    Restart,
    /// At this tick (a Wait's end).
    At(u32),
    /// When wait `index` is completed (an async leaf).
    Suspended(u32),
    /// Never (AlwaysRunning).
    Never,
    /// Not a running task any more: its parallel has taken its result this
    /// tick. Removed, all at once, when the tick ends.
    Gone,
}

/// Whether `now` is at or past `tick`, in wrapping tick arithmetic.
pub(crate) fn reached(now: u32, tick: u32) -> bool {
    (now.wrapping_sub(tick) as i32) >= 0
}

impl Wake {
    fn is_due(self, now: u32) -> bool {
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
struct Frame {
    node: u32,
    loc: Loc,
    persist: u32,
    /// Which child of its parent.
    child: u16,
    depth: u16,
    wake: Wake,
}

/// [`Schedule::asleep_until`]: no tick will wake the agent, only a ticket.
pub(crate) const NEVER: u32 = u32::MAX;

/// How many frames due every tick the schedule lists by index; with more,
/// a tick scans all frames.
const LISTED: usize = 6;

/// Where a tick goes on after a finished task has told its ancestors.
enum Next {
    /// At this frame index.
    At(usize),
    /// Nowhere: the root finished with this status.
    RootDone(Status),
}

/// An agent's event-driven schedule: its running tasks in tree order.
#[derive(Debug, Default)]
pub(crate) struct Schedule {
    frames: Vec<Frame>,
    /// Indices of the frames due every tick, in tree order: on a tick with
    /// no alarm these are the only frames looked at (seed 002's list of
    /// active behaviors).
    due: [u16; LISTED],
    /// How many of `due` are used; `u8::MAX` when there are more than
    /// [`LISTED`] (or one lies past index `u16::MAX`), and ticks scan.
    due_len: u8,
    /// The earliest tick a `Deadline` or `At` frame falls due.
    alarm: Option<u32>,
}

/// Whether a running task of this kind can have frames below it: the
/// kinds that pass updates through without code of their own.
pub(crate) fn schedules_children<A, W>(kind: &NodeKind<A, W>) -> bool {
    matches!(
        kind,
        NodeKind::Sequence
            | NodeKind::Selector
            | NodeKind::Parallel { .. }
            | NodeKind::Inverter
            | NodeKind::ForceSuccess
            | NodeKind::ForceFailure
            | NodeKind::Guard(_)
            | NodeKind::Cooldown(_)
            | NodeKind::Repeat(_)
            | NodeKind::Retry(_)
            | NodeKind::Timeout(_)
    )
}

/// Which behavior slot of a parent with frames below it holds child
/// `child`: its own for a Parallel, the one shared slot otherwise.
fn slot_of<A, W>(parent: &NodeKind<A, W>, child: u16) -> usize {
    match parent {
        NodeKind::Parallel { .. } => child as usize,
        _ => 0,
    }
}

/// Whether a running task of this kind is updated on every tick in event
/// mode too, with nothing below it scheduled.
pub(crate) fn updated_every_tick<A, W>(kind: &NodeKind<A, W>) -> bool {
    !schedules_children(kind)
        && !matches!(
            kind,
            NodeKind::Wait(_) | NodeKind::AlwaysRunning | NodeKind::Async(_)
        )
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
    /// Room for the most frames `tree` can need (capped; past the cap the
    /// list grows once, to its peak).
    pub fn for_tree<A, W>(tree: &Tree<A, W>) -> Self {
        Schedule {
            frames: Vec::with_capacity((tree.frames as usize).min(4096)),
            due: [0; LISTED],
            due_len: 0,
            alarm: None,
        }
    }

    pub fn clear(&mut self) {
        self.frames.clear();
        self.due_len = 0;
        self.alarm = None;
    }

    /// A completed ticket wakes its suspended leaf, if it has a frame (an
    /// async leaf below a reactive node has none: it is polled).
    pub fn wake(&mut self, wait: u32, now: u32) {
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
    pub fn asleep_until(&self) -> u32 {
        match (self.due_len, self.alarm) {
            (0, None) if !self.frames.is_empty() => NEVER,
            (0, Some(t)) if t != NEVER && t != 0 => t,
            _ => 0,
        }
    }

    /// Drop gone frames and recount what is due, after frames changed.
    fn refresh(&mut self, now: u32) {
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
    fn parent(&self, i: usize) -> usize {
        let depth = self.frames[i].depth;
        let mut p = i - 1;
        while self.frames[p].depth >= depth {
            p -= 1;
        }
        p
    }

    /// One past the last frame of the subtree of frame `i`.
    fn subtree_end(&self, i: usize) -> usize {
        let depth = self.frames[i].depth;
        self.frames[i + 1..]
            .iter()
            .position(|f| f.depth <= depth)
            .map_or(self.frames.len(), |k| i + 1 + k)
    }

    pub fn heap_bytes(&self) -> usize {
        self.frames.capacity() * size_of::<Frame>()
    }
}

impl<A, W, P: TaskPool, O: Observer> Runner<'_, A, W, P, O> {
    /// One event-driven tick: install the root if needed, otherwise update
    /// the due frames in tree order and let finished tasks notify their
    /// parents.
    pub(crate) fn tick_event(&mut self, s: &mut Schedule, cx: &mut Ctx<A, W>) -> Status {
        let now = cx.tick;
        if self.active == 0 {
            let status = self.tick_root(cx);
            self.schedule_all(s, now);
            return status;
        }
        if s.alarm.is_some_and(|t| reached(now, t)) || s.due_len as usize > LISTED {
            return self.scan(s, 0, cx);
        }
        // The steady state: only the listed frames are due, and as long as
        // they keep running nothing else changes.
        for k in 0..s.due_len as usize {
            let i = s.due[k] as usize;
            let frame = s.frames[i];
            if frame.wake != Wake::Always {
                return self.scan(s, i, cx);
            }
            let status = self.update_frame(s, i, Visit::Resume, cx);
            if status != Status::Running {
                return match self.propagate(s, i, status, cx) {
                    Next::At(next) => self.scan(s, next, cx),
                    Next::RootDone(root) => {
                        s.clear();
                        root
                    }
                };
            }
        }
        Status::Running
    }

    /// Update every due frame from index `from` on, in tree order, letting
    /// finished tasks notify their parents; then recount what is due.
    fn scan(&mut self, s: &mut Schedule, from: usize, cx: &mut Ctx<A, W>) -> Status {
        let now = cx.tick;
        let mut i = from;
        while i < s.frames.len() {
            let frame = s.frames[i];
            if !frame.wake.is_due(now) {
                i += 1;
                continue;
            }
            let status = self.update_frame(s, i, Visit::Resume, cx);
            i = if status != Status::Running {
                match self.propagate(s, i, status, cx) {
                    Next::At(next) => next,
                    Next::RootDone(root) => {
                        s.clear();
                        return root;
                    }
                }
            } else if frame.wake == Wake::Always {
                i + 1
            } else {
                self.reschedule(s, i)
            };
        }
        s.refresh(now);
        Status::Running
    }

    /// Rebuild the whole schedule from the installed tasks (after the root
    /// was installed, or when an agent switches to event mode).
    pub(crate) fn schedule_all(&mut self, s: &mut Schedule, now: u32) {
        s.clear();
        if self.active > 0 {
            let at = At {
                loc: self.pool.root(),
                persist: 0,
            };
            let wake = self.wake_of(0, at);
            s.frames.push(Frame {
                node: 0,
                loc: at.loc,
                persist: 0,
                child: 0,
                depth: 0,
                wake,
            });
            self.schedule_below(s, 0);
        }
        s.refresh(now);
    }

    /// Update the task of frame `i`: resume it, or tell it a child finished.
    #[inline(always)]
    fn update_frame(&mut self, s: &Schedule, i: usize, visit: Visit, cx: &mut Ctx<A, W>) -> Status {
        let frame = &s.frames[i];
        if frame.depth == 0 {
            return match visit {
                // The same path as tick-from-root.
                Visit::Resume => self.tick_root(cx),
                _ => self.resume_root(visit, cx),
            };
        }
        let parent = &s.frames[s.parent(i)];
        let tree = self.tree;
        let parent_def = tree.def(parent.node);
        let edge = tree.edges_of(parent_def)[frame.child as usize];
        let slot = tree.slot(parent_def, slot_of(&parent_def.kind, frame.child));
        let parent = At {
            loc: parent.loc,
            persist: parent.persist,
        };
        match visit {
            Visit::Resume => self.run_child(parent, slot, edge, false, cx),
            _ => self.resume_task(parent, slot, edge, visit, cx),
        }
    }

    /// Frame `i` finished with `status` (and is uninstalled): tell its
    /// parent, and its parent's parent while they finish too.
    fn propagate(
        &mut self,
        s: &mut Schedule,
        mut i: usize,
        mut status: Status,
        cx: &mut Ctx<A, W>,
    ) -> Next {
        loop {
            let frame = s.frames[i];
            if frame.depth == 0 {
                return Next::RootDone(status);
            }
            let p = s.parent(i);
            let visit = Visit::ChildDone {
                child: frame.child,
                status,
            };
            status = self.update_frame(s, p, visit, cx);
            if status != Status::Running {
                i = p;
                continue;
            }
            if matches!(
                self.tree.def(s.frames[p].node).kind,
                NodeKind::Parallel { .. }
            ) {
                // A Parallel that goes on has only recorded the result: its
                // other children's frames stand. The finished child's are
                // marked gone (removing them one child at a time would
                // shift the list once per child), and the tick goes on
                // after them, with the later siblings not yet updated.
                let end = s.subtree_end(i);
                for frame in &mut s.frames[i..end] {
                    frame.wake = Wake::Gone;
                }
                return Next::At(end);
            }
            // Anything else has moved on (a Sequence to its next child, a
            // Repeat between cycles): its subtree, updated this tick, is new.
            return Next::At(self.reschedule(s, p));
        }
    }

    /// Frame `i` was updated and still runs: read its wake-up and its
    /// children's frames back from the task state. Returns the index past
    /// its new subtree.
    fn reschedule(&mut self, s: &mut Schedule, i: usize) -> usize {
        let end = s.subtree_end(i);
        let frame = s.frames[i];
        s.frames[i].wake = self.wake_of(
            frame.node,
            At {
                loc: frame.loc,
                persist: frame.persist,
            },
        );
        // The old frames go first, so the list never holds more than the
        // tree can need (its capacity). The new ones are pushed at the end,
        // then the frames that were after the subtree are rotated behind
        // them: each moves once, where inserting one frame at a time would
        // move them once per frame.
        s.frames.drain(i + 1..end);
        let tail = s.frames.len() - (i + 1);
        let before = s.frames.len();
        self.schedule_below(s, i);
        let added = s.frames.len() - before;
        s.frames[i + 1..].rotate_left(tail);
        i + 1 + added
    }

    /// Push frames for the running children of frame `p` (and theirs, in
    /// tree order) at the end of the list.
    fn schedule_below(&mut self, s: &mut Schedule, p: usize) {
        let frame = s.frames[p];
        if !matches!(frame.wake, Wake::Pass | Wake::Deadline(_)) {
            return;
        }
        let tree = self.tree;
        let def = tree.def(frame.node);
        let at = At {
            loc: frame.loc,
            persist: frame.persist,
        };
        match def.kind {
            NodeKind::Parallel { .. } => {
                for child in 0..def.child_count as usize {
                    if self.parallel_child_running(def, at, child) {
                        self.schedule_child(s, &frame, child);
                    }
                }
            }
            NodeKind::Sequence | NodeKind::Selector => {
                let child = self.running_in_order(def, at);
                self.schedule_child(s, &frame, child);
            }
            // Decorators: a running one has its child running.
            _ => self.schedule_child(s, &frame, 0),
        }
    }

    fn schedule_child(&mut self, s: &mut Schedule, parent: &Frame, child: usize) {
        let tree = self.tree;
        let parent_def = tree.def(parent.node);
        let edge = tree.edges_of(parent_def)[child];
        let def = tree.def(edge.node);
        let loc = if is_stateless(&def.kind) {
            0
        } else {
            let slot = slot_of(&parent_def.kind, child as u16);
            self.pool.child(parent.loc, tree.slot(parent_def, slot))
        };
        let persist = parent.persist + edge.persist;
        let wake = self.wake_of(edge.node, At { loc, persist });
        s.frames.push(Frame {
            node: edge.node,
            loc,
            persist,
            child: child as u16,
            depth: parent.depth + 1,
            wake,
        });
        self.schedule_below(s, s.frames.len() - 1);
    }

    /// When the running task of node `id` at `at` needs updating.
    fn wake_of(&mut self, id: u32, at: At) -> Wake {
        let def = self.tree.def(id);
        match &def.kind {
            NodeKind::Repeat(_) | NodeKind::Retry(_) => {
                if self.repeat_child_installed(def, at) {
                    Wake::Pass
                } else {
                    Wake::Restart
                }
            }
            NodeKind::Timeout(ticks) => {
                Wake::Deadline(self.entered_at(def, at).wrapping_add(*ticks))
            }
            NodeKind::Wait(ticks) => Wake::At(self.entered_at(def, at).wrapping_add(*ticks)),
            NodeKind::AlwaysRunning => Wake::Never,
            NodeKind::Async(_) => {
                let wait = self.wait_index(def, at);
                match self.waits.as_deref().and_then(|w| w.outcome(wait)) {
                    None => Wake::Suspended(wait),
                    Some(_) => Wake::Always,
                }
            }
            kind if schedules_children(kind) => Wake::Pass,
            _ => Wake::Always,
        }
    }
}
