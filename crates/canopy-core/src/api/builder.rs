//! Building a [`Tree`] in code, and checking it.
//!
//! Node drafts are allocated in a `typed_arena::Arena`, which hands out
//! shared references from `&self`. That is what lets a tree be written as one
//! nested expression — `b.sequence("s", [b.condition(..), b.action(..)])` —
//! where a `&mut self` builder would be rejected by the borrow checker, and
//! it lets one draft be used under several parents (a shared subtree)
//! without copying it. [`Builder::build`] then checks the structure and
//! flattens the drafts into the compact, immutable `Tree`.
//!
//! A draft belongs to the builder that made it: it carries its builder's
//! id and its number among that builder's drafts, and a draft of another
//! builder is a [`BuildError`], found before any number of it is used,
//! not a tree laid out from mismatched numbers.
//!
//! # Memory
//!
//! The drafts live as long as the builder, so they are all alive while the
//! tree is compiled beside them: for a 16 MiB file of 671,000 leaves, every
//! byte of a draft is 671 KB of the load's peak. So a draft is small and
//! makes no allocation of its own: its children are a slice in an arena of
//! child lists, its names and parameters a `Label` shared by every draft
//! that looks the same (all 671,000 leaves share one), and its kind, when
//! it holds no code (a Sequence, a `Wait(3)`), shared the same way: 48
//! bytes a draft, where it was 136 and an allocation for each of its names
//! and its child list. Building borrows the drafts' kinds and labels
//! rather than copying them; the tree keeps one copy of each distinct
//! label, which shares its name and its type's name and parameters with
//! the builder's (a label is 24 bytes, so a tree of 500,000 named nodes
//! holds 12 MB of labels, where it held 28 MB and a copy of every name).
//! A loader that knows how many nodes it will draft says so
//! ([`Builder::with_capacity`]), so the drafts' arena is not grown by
//! doubling, and building lets go of the set that finds labels again.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use typed_arena::Arena;

use crate::def::custom::{CustomNode, Node};
use crate::nodes::{self, Like, NodeKind, PlainKey};
use crate::script::{Keys, Script, ScriptError};
use crate::tree::layout::{self, Plan, PlanNode};
use crate::tree::{BoardLayout, Label, Shown, Tree};
use crate::util::board::{BoardValue, Key, SlotRef, SlotType};
use crate::util::context::{Ctx, Predicate};
use crate::util::primitives::{Afterwards, Policy};
use crate::util::status::Status;
use crate::util::ticket::Ticket;

/// Where a draft was first reached from: the parent's position in the
/// depth-first order and the child's index; [`ROOT`] for the root. Two
/// `u32`s rather than an `Option` of two `usize`s: a third of the size,
/// for a table with one entry per node.
type Parent = (u32, u32);

/// A builder's kinds without code, by key.
type SharedKinds<'b, A, W> = HashMap<PlainKey, &'b NodeKind<A, W>>;

/// The root's [`Parent`].
const ROOT: Parent = (u32::MAX, u32::MAX);

/// Marks a draft not reached yet in the table of positions by draft number.
const UNSEEN: u32 = u32::MAX;

/// A node under construction. Obtain one from a [`Builder`] method and pass
/// it as a child to another, or to [`Builder::build`] as the root.
pub struct Draft<'b, A, W> {
    /// The builder that made it.
    builder: u64,
    /// Its number among its builder's drafts: where building finds it in
    /// a table, instead of a hash map keyed by its address.
    index: usize,
    /// Shared with every draft of the builder that looks the same.
    label: &'b Label,
    /// Shared with every draft of the builder of the same kind, if it
    /// holds no code; its own otherwise.
    kind: &'b NodeKind<A, W>,
    /// In the builder's arena of child lists.
    children: &'b [&'b Draft<'b, A, W>],
}

// Every byte here is 671 KB of the peak of loading the widest file (see
// the module docs).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<Draft<'static, (), ()>>() == 48);

impl<A, W> Draft<'_, A, W> {
    /// The node's name.
    pub fn name(&self) -> &str {
        &self.label.name
    }
}

impl<A, W> fmt::Debug for Draft<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Draft")
            .field("name", &self.label.name)
            .field("kind", &self.kind)
            .field("children", &self.children.len())
            .finish()
    }
}

/// Why a tree could not be built: which node, and what is wrong with it.
///
/// ```
/// use canopy_core::Builder;
/// let b = Builder::<(), ()>::new();
/// let bad = b.repeat("again", 0, b.always_success("ok"));
/// let err = b.build(b.sequence("root", [b.always_success("a"), bad])).unwrap_err();
/// assert_eq!(err.path.steps(), [1]);
/// assert_eq!(err.path.to_string(), "tree/children[1]");
/// assert_eq!(err.to_string(),
///     "tree/children[1] (name \"again\"): a Repeat needs a count of at least 1, got 0");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// Where the node is: the child index at each level from the root,
    /// written `tree/children[1]/children[0]`.
    pub path: TreePath,
    /// The node's name.
    pub name: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (name {:?}): {}", self.path, self.name, self.problem)
    }
}

impl std::error::Error for BuildError {}

/// Where a node is in a tree: the child index taken at each level from the
/// root (a node of a shared subtree is named by the first place it was
/// reached). Loaders follow it through their own documents to say where
/// the node is in a file; `Display` writes `tree/children[2]/children[0]`.
///
/// ```
/// use canopy_core::builder::TreePath;
/// let path = TreePath::from(vec![2, 0]);
/// assert_eq!(path.to_string(), "tree/children[2]/children[0]");
/// assert_eq!(TreePath::default().to_string(), "tree");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TreePath(Vec<u32>);

impl TreePath {
    /// The child indices, from the root down.
    pub fn steps(&self) -> &[u32] {
        &self.0
    }
}

impl From<Vec<u32>> for TreePath {
    fn from(steps: Vec<u32>) -> TreePath {
        TreePath(steps)
    }
}

impl fmt::Display for TreePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tree")?;
        for step in &self.0 {
            write!(f, "/children[{step}]")?;
        }
        Ok(())
    }
}

/// A blackboard key used as two types ([`Builder::key`], [`Builder::slot`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    /// The key.
    pub key: String,
    /// The type it holds.
    pub holds: Box<SlotType>,
    /// The type asked for.
    pub wanted: Box<SlotType>,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key {} holds {}, not {}",
            crate::util::text::quote(&self.key),
            self.holds,
            self.wanted
        )
    }
}

impl std::error::Error for KeyError {}

/// One builder method from a line of the kinds' table
/// (`nodes::builder_shortcuts!`): the node's name, the kind's arguments,
/// and its children as its arity takes them.
macro_rules! shortcut {
    ($(#[$m:meta])* fn $short:ident[Composite]($($arg:ident: $aty:ty),*) = $make:expr) => {
        $(#[$m])*
        pub fn $short(
            &'b self,
            name: &str,
            $($arg: $aty,)*
            children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
        ) -> &'b Draft<'b, A, W> {
            self.node(name, { use crate::nodes::*; $make }, children)
        }
    };
    ($(#[$m:meta])* fn $short:ident[Decorator]($($arg:ident: $aty:ty),*) = $make:expr) => {
        $(#[$m])*
        pub fn $short(
            &'b self,
            name: &str,
            $($arg: $aty,)*
            child: &'b Draft<'b, A, W>,
        ) -> &'b Draft<'b, A, W> {
            self.node(name, { use crate::nodes::*; $make }, [child])
        }
    };
    ($(#[$m:meta])* fn $short:ident[Leaf]($($arg:ident: $aty:ty),*) = $make:expr) => {
        $(#[$m])*
        pub fn $short(&'b self, name: &str, $($arg: $aty),*) -> &'b Draft<'b, A, W> {
            self.node(name, { use crate::nodes::*; $make }, [])
        }
    };
}

/// Builds trees in code. Every method takes `&self` and returns a [`Draft`]
/// that can be passed as a child to the next call.
///
/// ```
/// use canopy_core::{Agent, Builder, Policy, Status};
///
/// #[derive(Default)]
/// struct Guard { alarm: bool, shots: u32 }
///
/// let b = Builder::<Guard, ()>::new();
/// let tree = b.build(b.reactive_selector("guard duty", [
///     b.sequence("respond", [
///         b.condition("alarm?", |cx| cx.agent.alarm),
///         b.repeat("fire thrice", 3, b.action("fire", |cx| { cx.agent.shots += 1; Status::Success })),
///     ]),
///     b.always_running("patrol"),
/// ])).unwrap();
///
/// let mut me = Guard::default();
/// let mut agent = Agent::new(&tree);
/// assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running); // patrolling
/// me.alarm = true;
/// for _ in 0..2 { assert_eq!(agent.tick(&tree, &mut me, &()), Status::Running); }
/// assert_eq!(agent.tick(&tree, &mut me, &()), Status::Success);
/// assert_eq!(me.shots, 3);
/// ```
pub struct Builder<'b, A, W> {
    arena: Arena<Draft<'b, A, W>>,
    /// Every draft's children, each draft's in one contiguous run: no
    /// `Vec` (and allocation) per draft.
    children: Arena<&'b Draft<'b, A, W>>,
    /// Each distinct label once, and the set to find it again by.
    labels: Arena<Label>,
    known: RefCell<HashSet<&'b Label>>,
    /// Each distinct type name and parameters a label shows, once.
    known_shown: RefCell<HashSet<Arc<Shown>>>,
    /// Every draft's kind, those without code once each, and the map to
    /// find those again by.
    kinds: Arena<NodeKind<A, W>>,
    plain: RefCell<SharedKinds<'b, A, W>>,
    /// The blackboard's keys so far, and where each is.
    board: RefCell<BoardLayout>,
    /// Keys a script's `:=` made (BehaviorTree.CPP converts strings into
    /// them by its scripts' rules, not the key type's).
    scripted: RefCell<std::collections::HashSet<Arc<str>>>,
    /// Drafts made so far: the next draft's number.
    drafts: Cell<usize>,
    /// Unique in the process (64 bits never wrap): tells its drafts apart
    /// from every other builder's.
    id: u64,
    _types: PhantomData<fn(&mut A, &W)>,
}

impl<A, W> fmt::Debug for Builder<'_, A, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("drafts", &self.drafts.get())
            .field("keys", &self.board.borrow().slots().len())
            .finish_non_exhaustive()
    }
}

impl<A, W> Default for Builder<'_, A, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'b, A, W> Builder<'b, A, W> {
    /// An empty builder.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty builder with room for `drafts` drafts (and their child
    /// lists) made at once: a loader that knows how many nodes a file
    /// holds spares the slack an arena grown by doubling leaves (up to
    /// half of it, for a file of hundreds of thousands of nodes).
    pub fn with_capacity(drafts: usize) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Builder {
            arena: Arena::with_capacity(drafts),
            children: Arena::with_capacity(drafts),
            labels: Arena::new(),
            known: RefCell::new(HashSet::new()),
            known_shown: RefCell::new(HashSet::new()),
            kinds: Arena::new(),
            plain: RefCell::new(HashMap::new()),
            board: RefCell::new(BoardLayout::default()),
            scripted: RefCell::default(),
            drafts: Cell::new(0),
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            _types: PhantomData,
        }
    }
    /// A node of any kind with any children; the typed methods below all
    /// come here. Structural mistakes are reported by [`Builder::build`].
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let b = Builder::<(), ()>::new();
    /// let inv = b.node("not", canopy_core::nodes::Inverter, []);
    /// let err = b.build(inv).unwrap_err();
    /// assert_eq!(err.problem, "an Inverter needs exactly one child, got 0");
    /// ```
    pub fn node(
        &'b self,
        name: &str,
        kind: impl Into<NodeKind<A, W>>,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        let label = Label {
            name: name.into(),
            shown: None,
        };
        self.alloc(label, kind.into(), children)
    }

    /// [`Builder::node`] under a type name and parameters of its own,
    /// shown in printed trees and traces instead of the kind's: what a
    /// registry does for a registered leaf type such as `IsHungry`, which is
    /// a plain `Condition` underneath.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use canopy_core::{Builder, nodes::Condition};
    /// let b = Builder::<u32, ()>::new();
    /// let params = vec![("above".to_string(), "3".to_string())];
    /// let hungry = b.typed_node("hungry?", "IsHungry", params,
    ///     Condition(Arc::new(|cx| *cx.agent > 3)), []);
    /// let tree = b.build(hungry).unwrap();
    /// assert_eq!(tree.display().to_string(), "hungry?  IsHungry(above=3)\n");
    /// ```
    pub fn typed_node(
        &'b self,
        name: &str,
        type_name: &str,
        params: Vec<(String, String)>,
        kind: impl Into<NodeKind<A, W>>,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        let label = Label {
            name: name.into(),
            shown: Some(self.shown(type_name, params)),
        };
        self.alloc(label, kind.into(), children)
    }

    fn alloc(
        &'b self,
        label: Label,
        kind: NodeKind<A, W>,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        // Collected first: making the children may call this builder, and
        // so the arena, again.
        let list: Vec<_> = children.into_iter().collect();
        let children: &'b [_] = if list.is_empty() {
            &[]
        } else {
            self.children.alloc_extend(list)
        };
        let index = self.drafts.get();
        self.drafts.set(index + 1);
        self.arena.alloc(Draft {
            builder: self.id,
            index,
            label: self.intern(label),
            kind: self.kind(kind),
            children,
        })
    }

    /// The builder's one copy of `kind` if it holds no code, else its own.
    fn kind(&'b self, kind: NodeKind<A, W>) -> &'b NodeKind<A, W> {
        let Some(key) = kind.plain_key() else {
            return self.kinds.alloc(kind);
        };
        let mut plain = self.plain.borrow_mut();
        if let Some(&shared) = plain.get(&key) {
            return shared;
        }
        let shared = self.kinds.alloc(kind);
        plain.insert(key, shared);
        shared
    }

    /// The builder's one copy of a registered type's name and parameters,
    /// shared by the labels of every node that shows them.
    fn shown(&self, type_name: &str, params: Vec<(String, String)>) -> Arc<Shown> {
        let shown = Shown {
            type_name: type_name.into(),
            params,
        };
        let mut known = self.known_shown.borrow_mut();
        if let Some(shared) = known.get(&shown) {
            return shared.clone();
        }
        let shared = Arc::new(shown);
        known.insert(shared.clone());
        shared
    }

    /// The builder's one copy of `label`.
    fn intern(&'b self, label: Label) -> &'b Label {
        let mut known = self.known.borrow_mut();
        if let Some(&shared) = known.get(&label) {
            return shared;
        }
        let shared = self.labels.alloc(label);
        known.insert(shared);
        shared
    }

    /// The blackboard key `name`, holding a `T`: its slot, made on first
    /// use; every later use gets the same. Its value starts at `T`'s
    /// zero unless [`set_initial`](Builder::set_initial) says otherwise.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Input, Output, Status};
    /// let b = Builder::<(), ()>::new();
    /// let (goal, seen) = (b.key::<[f32; 2]>("goal").unwrap(), b.key::<bool>("seen").unwrap());
    /// let (input, output) = (Input::from(goal), Output::from(seen));
    /// let tree = b.build(b.action("look", move |cx| {
    ///     let at = cx.board.get(&input);
    ///     cx.board.set(&output, at[0] > 1.0);
    ///     Status::Success
    /// })).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.board_mut(&tree).write(goal, [2.0, 0.0]);
    /// agent.tick(&tree, &mut (), &());
    /// assert!(agent.board(&tree).read(seen));
    /// assert_eq!(b.key::<f64>("goal").unwrap_err().to_string(),
    ///     "key \"goal\" holds canopy::Point2f, not double");
    /// ```
    pub fn key<T: BoardValue>(&self, name: &str) -> Result<Key<T>, KeyError> {
        let slot = self.slot(name, SlotType::of::<T>())?;
        Ok(Key::at(slot.offset))
    }

    /// The slot of key `name` with type `ty`, made on first use: what a
    /// loader calls for each `{key}` it reads. A key already of another
    /// type is an error naming both types, except as
    /// [`port_slot`](Builder::port_slot) allows for ports.
    pub fn slot(&self, name: &str, ty: SlotType) -> Result<SlotRef, KeyError> {
        self.port_slot(name, ty, true)
    }

    /// The slot of key `name` for a port of type `ty` (an output port if
    /// `output`), made on first use, with BehaviorTree.CPP's rules for a
    /// key used as two types:
    ///
    /// - a port of any type ([`SlotType::any`]) takes the key's type; a
    ///   key that only such ports used takes the type of its first other
    ///   use (a typed port, a script's `:=`);
    /// - a key first used as a string ([`Text`](crate::Text)) may be read
    ///   by an input port of another type, which converts the text when
    ///   it reads ([`Input::Converted`](crate::Input::Converted));
    /// - a type known only by name ([`SlotType::named`]) may share a key
    ///   first used as a string, as another type may; a key first used
    ///   as a named type is not read as a string (BehaviorTree.CPP
    ///   refuses a `std::string` port on a key of another type);
    /// - any other difference is an error naming both types;
    /// - [`SlotType::updates`] asks for the key's update counter
    ///   ([`Updates`](crate::board::Updates)) and leaves its type alone.
    ///
    /// ```
    /// use canopy_core::{Builder, Text, board::SlotType};
    /// let b = Builder::<(), ()>::new();
    /// b.port_slot("goal", SlotType::any(), false).unwrap();
    /// assert_eq!(b.port_slot("goal", SlotType::of::<[f64; 2]>(), false).unwrap().ty.name(), "canopy::Point2");
    /// b.key::<Text>("name").unwrap();
    /// assert!(b.port_slot("name", SlotType::of::<i32>(), false).is_ok());
    /// assert_eq!(b.port_slot("name", SlotType::of::<i32>(), true).unwrap_err().to_string(),
    ///     "key \"name\" holds std::string, not int");
    /// ```
    pub fn port_slot(&self, name: &str, ty: SlotType, output: bool) -> Result<SlotRef, KeyError> {
        let mut board = self.board.borrow_mut();
        if ty.is_updates() {
            return Ok(board.watch(name));
        }
        let Some(slot) = board.find(name) else {
            return Ok(board.push(name, ty));
        };
        let holds = &slot.ty;
        if holds.is_any() && !ty.is_any() {
            return board.retype(name, ty).ok_or_else(|| unreachable_key(name));
        }
        let text = holds.is::<crate::Text>();
        let shares = holds == &ty || ty.is_any() || text && !output || text && ty.is_named();
        if shares {
            return Ok(slot.clone());
        }
        Err(KeyError {
            key: name.to_string(),
            holds: Box::new(holds.clone()),
            wanted: Box::new(ty),
        })
    }

    /// The update counter of key `name` ([`Updates`](crate::board::Updates)): from
    /// now on every write of the key is counted. The key is made, of any
    /// type, if nothing made it yet.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder};
    /// let b = Builder::<(), ()>::new();
    /// let hp = b.key::<i32>("hp").unwrap();
    /// let updates = b.updates("hp");
    /// let tree = b.build(b.eval("heal", "hp += 5").unwrap()).unwrap();
    /// let mut agent = Agent::new(&tree);
    /// agent.tick(&tree, &mut (), &());
    /// agent.board_mut(&tree).write(hp, 1);
    /// assert_eq!(agent.board(&tree).updates(updates), Some(2));
    /// ```
    pub fn updates(&self, name: &str) -> crate::board::Updates {
        crate::board::Updates::at(self.board.borrow_mut().watch(name).offset)
    }

    /// Compile a [`Script`] against this builder's keys: a key it reads
    /// must have been made already ([`key`](Builder::key), a port, an
    /// earlier script); a key its `:=` assigns and nothing made is made,
    /// of the value's type.
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let b = Builder::<(), ()>::new();
    /// b.script("speed := 2.5").unwrap();
    /// assert_eq!(b.key::<f64>("speed").unwrap().offset(), 0);
    /// assert_eq!(b.script("sped * 2").unwrap_err().to_string(),
    ///     "column 1: unknown key \"sped\" (did you mean \"speed\"?)");
    /// ```
    pub fn script(&self, source: &str) -> Result<Script, ScriptError> {
        Script::compile(source, &mut &*self)
    }

    /// A leaf running a script ([`Builder::script`]) on each update:
    /// Success, or Failure when it faults (a fraction for an integer
    /// key, say).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<(), ()>::new();
    /// let tree = b.build(b.sequence("s", [
    ///     b.eval("count", "n := 1; n += 2").unwrap(),
    ///     b.eval_condition("three?", "n == 3").unwrap(),
    /// ])).unwrap();
    /// assert_eq!(Agent::new(&tree).tick(&tree, &mut (), &()), Status::Success);
    /// assert_eq!(tree.display().to_string(), "s  Sequence\n\
    ///     ├── count  Eval(code=\"n := 1; n += 2\")\n\
    ///     └── three?  EvalCondition(code=\"n == 3\")\n");
    /// ```
    pub fn eval(&'b self, name: &str, source: &str) -> Result<&'b Draft<'b, A, W>, ScriptError> {
        let script = self.script(source)?;
        let run = move |cx: &mut Ctx<A, W>| match script.run_for_effect(&mut cx.board) {
            Ok(()) => Status::Success,
            Err(_) => Status::Failure,
        };
        let params = vec![("code".to_string(), crate::util::text::quote(source))];
        Ok(self.typed_node(name, "Eval", params, nodes::Action(Arc::new(run)), []))
    }

    /// A leaf testing a condition script ([`Script::compile_condition`])
    /// on each update: Success when its value is true, else Failure (and
    /// when it faults).
    pub fn eval_condition(
        &'b self,
        name: &str,
        source: &str,
    ) -> Result<&'b Draft<'b, A, W>, ScriptError> {
        let script = Script::compile_condition(source, &mut &*self)?;
        let run = move |cx: &mut Ctx<A, W>| match script.run_condition(&mut cx.board) {
            Ok(true) => Status::Success,
            _ => Status::Failure,
        };
        let params = vec![("code".to_string(), crate::util::text::quote(source))];
        Ok(self.typed_node(
            name,
            "EvalCondition",
            params,
            nodes::Action(Arc::new(run)),
            [],
        ))
    }

    /// The value key `key` holds in a new agent (and after a reset).
    pub fn set_initial<T: BoardValue>(&self, key: Key<T>, value: T) {
        let mut board = self.board.borrow_mut();
        let at = key.offset();
        if let Some(bytes) = board.initial.get_mut(at..at + T::SIZE) {
            value.write(bytes);
        }
    }

    // `b.sequence`, `b.repeat`, `b.wait`, …: one for each kind in the
    // kinds' table that holds no code, with the arguments the table gives.
    nodes::builder_shortcuts!();

    /// A [Guard](crate::nodes#guard): enters `child` only if `condition`
    /// holds when the guard is entered.
    pub fn guard<F>(
        &'b self,
        name: &str,
        condition: F,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W>
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        let check = Predicate {
            label: None,
            check: Arc::new(condition),
        };
        self.node(name, nodes::Guard(check), [child])
    }

    /// A [ReactiveGuard](crate::nodes#reactiveguard): re-checks `condition`
    /// every tick and aborts `child` when it no longer holds.
    pub fn reactive_guard<F>(
        &'b self,
        name: &str,
        condition: F,
        child: &'b Draft<'b, A, W>,
    ) -> &'b Draft<'b, A, W>
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        let check = Predicate {
            label: None,
            check: Arc::new(condition),
        };
        self.node(name, nodes::ReactiveGuard(check), [child])
    }

    /// An [Action](crate::nodes#action) leaf running `f` on every update.
    pub fn action<F>(&'b self, name: &str, f: F) -> &'b Draft<'b, A, W>
    where
        F: Fn(&mut Ctx<A, W>) -> Status + Send + Sync + 'static,
    {
        self.node(name, nodes::Action(Arc::new(f)), [])
    }

    /// A [Condition](crate::nodes#condition) leaf: `true` is Success.
    pub fn condition<F>(&'b self, name: &str, f: F) -> &'b Draft<'b, A, W>
    where
        F: Fn(&Ctx<A, W>) -> bool + Send + Sync + 'static,
    {
        self.node(name, nodes::Condition(Arc::new(f)), [])
    }

    /// An [Async](crate::nodes#async) leaf: `start` runs once when the leaf
    /// is entered and gets the [`Ticket`] that completes it;
    /// returning `Running` suspends the leaf until then.
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status};
    /// let b = Builder::<Vec<canopy_core::Ticket>, ()>::new();
    /// let tree = b.build(b.async_action("load", |cx, ticket| {
    ///     cx.agent.push(ticket);
    ///     Status::Running
    /// })).unwrap();
    /// let (mut jobs, mut agent) = (Vec::new(), Agent::new(&tree));
    /// agent.tick(&tree, &mut jobs, &());
    /// agent.complete(jobs[0], Status::Failure);
    /// assert_eq!(agent.tick(&tree, &mut jobs, &()), Status::Failure);
    /// ```
    pub fn async_action<F>(&'b self, name: &str, start: F) -> &'b Draft<'b, A, W>
    where
        F: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
    {
        self.node(name, nodes::Async::new(start), [])
    }

    /// An [Async](crate::nodes#async) leaf that hears its abort: `start`
    /// as in [`async_action`](Builder::async_action), and `aborted` run
    /// whenever the leaf is aborted while it waits, with the ticket
    /// `start` was given — so the service can drop the request (see
    /// [`AbortFn`](crate::context::AbortFn) for when exactly).
    ///
    /// ```
    /// use canopy_core::{Agent, Builder, Status, Ticket};
    ///
    /// #[derive(Default)]
    /// struct Npc { asked: Vec<Ticket>, cancelled: Vec<Ticket>, hurt: bool }
    ///
    /// let b = Builder::<Npc, ()>::new();
    /// let tree = b.build(b.reactive_selector("live", [
    ///     b.condition("hurt?", |cx| cx.agent.hurt),
    ///     b.async_action_with_abort(
    ///         "find path",
    ///         |cx, ticket| { cx.agent.asked.push(ticket); Status::Running },
    ///         |cx, ticket| cx.agent.cancelled.push(ticket),
    ///     ),
    /// ])).unwrap();
    /// let (mut npc, mut agent) = (Npc::default(), Agent::new(&tree));
    /// agent.tick(&tree, &mut npc, &());
    /// npc.hurt = true; // the higher-priority branch takes over
    /// assert_eq!(agent.tick(&tree, &mut npc, &()), Status::Success);
    /// assert_eq!(npc.cancelled, npc.asked); // the path service can drop it
    /// ```
    pub fn async_action_with_abort<F, G>(
        &'b self,
        name: &str,
        start: F,
        aborted: G,
    ) -> &'b Draft<'b, A, W>
    where
        F: Fn(&mut Ctx<A, W>, Ticket) -> Status + Send + Sync + 'static,
        G: Fn(&mut Ctx<A, W>, Ticket) + Send + Sync + 'static,
    {
        self.node(name, nodes::Async::new(start).on_abort(aborted), [])
    }

    /// A user-defined [`Node`] with its children (none for a leaf).
    pub fn custom<N: Node<A, W>>(
        &'b self,
        name: &str,
        node: N,
        children: impl IntoIterator<Item = &'b Draft<'b, A, W>>,
    ) -> &'b Draft<'b, A, W> {
        self.node(name, CustomNode::new(node), children)
    }

    /// Check the tree under `root` and flatten it into a shareable [`Tree`].
    ///
    /// Errors name the first wrong node in depth-first order: a draft of
    /// another builder, a child count its kind does not accept, a zero
    /// count or a duration out of range, a task too large; then, deepest
    /// first, a subtree deeper than [`MAX_DEPTH`](crate::limits::MAX_DEPTH),
    /// expanding to more than [`MAX_EXPANDED_NODES`](crate::limits::MAX_EXPANDED_NODES)
    /// nodes, or needing more than [`MAX_AGENT_BYTES`](crate::limits::MAX_AGENT_BYTES)
    /// per agent.
    ///
    /// ```
    /// use canopy_core::Builder;
    /// let (b1, b2) = (Builder::<(), ()>::new(), Builder::<(), ()>::new());
    /// let foreign = b2.wait("w", 5);
    /// let err = b1.build(b1.inverter("inv", foreign)).unwrap_err();
    /// assert_eq!(err.to_string(), "tree/children[0] (name \"w\"): this node was made by \
    ///     another Builder; build a tree from the drafts of one builder");
    /// ```
    pub fn build(&self, root: &Draft<'b, A, W>) -> Result<Tree<A, W>, BuildError> {
        // The set that finds a label again is for making drafts, which is
        // done by now in every use: let go of it before the tree's tables
        // are made beside the drafts (a set of pointers, one per distinct
        // label, 9 MB for a file of 500,000 named nodes). A draft made
        // after a build still works; its label is shared only with drafts
        // made after it.
        drop(std::mem::take(&mut *self.known.borrow_mut()));
        let reached = Reached::from(root, self, false);
        let (at, problem) = match reached.foreign {
            Some(at) => (at, FOREIGN.to_string()),
            None => match layout::compile(reached.plan(), self.board.borrow().clone()) {
                Ok(tree) => return Ok(tree),
                Err(misfit) => (misfit.at, misfit.problem),
            },
        };
        // Where each node was reached from is worked out again, for the
        // error only: kept in a table beside the plan, it would add to the
        // peak of every build.
        Err(Reached::from(root, self, true).error(at, problem))
    }
}

impl<A, W> Keys for &Builder<'_, A, W> {
    fn find(&mut self, key: &str) -> Option<SlotRef> {
        self.board.borrow().find(key).cloned()
    }

    fn create(&mut self, key: &str, ty: SlotType) -> Result<SlotRef, String> {
        let slot = self.slot(key, ty).map_err(|e| e.to_string())?;
        self.scripted.borrow_mut().insert(slot.key.clone());
        Ok(slot)
    }

    fn made_by_script(&self, key: &str) -> bool {
        self.scripted.borrow().contains(key)
    }

    fn known(&self) -> Vec<String> {
        let board = self.board.borrow();
        board.slots().iter().map(|s| s.key.to_string()).collect()
    }
}

/// A key found a moment ago and gone: cannot happen, but is an error
/// rather than a panic.
fn unreachable_key(name: &str) -> KeyError {
    KeyError {
        key: name.to_string(),
        holds: Box::new(SlotType::any()),
        wanted: Box::new(SlotType::any()),
    }
}

/// The problem with a draft of another builder.
const FOREIGN: &str =
    "this node was made by another Builder; build a tree from the drafts of one builder";

/// The drafts under a root, each once, in depth-first pre-order, up to the
/// first of another builder, if any.
struct Reached<'d, 'b, A, W> {
    order: Vec<&'d Draft<'b, A, W>>,
    /// Where each was first reached from (for naming it in errors), when
    /// asked for.
    parent: Vec<Parent>,
    /// Position in `order` by draft number, or [`UNSEEN`].
    position: Vec<u32>,
    /// The position of a draft of another builder, the last in `order`.
    foreign: Option<usize>,
}

impl<'d, 'b, A, W> Reached<'d, 'b, A, W> {
    /// The drafts under `root`, with where each was reached from if
    /// `track`. A draft of another builder ends the walk before its number
    /// is looked at.
    fn from(root: &'d Draft<'b, A, W>, builder: &Builder<'b, A, W>, track: bool) -> Self {
        // Sized for all the builder's drafts: exact when the tree uses
        // them all, as a loaded file's does, where growing would leave
        // slack and copy the table at its largest.
        let drafts = builder.drafts.get();
        let mut r = Reached {
            order: Vec::with_capacity(drafts),
            parent: Vec::with_capacity(if track { drafts } else { 0 }),
            position: vec![UNSEEN; drafts],
            foreign: None,
        };
        let mut stack: Vec<(&'d Draft<'b, A, W>, Parent)> = vec![(root, ROOT)];
        while let Some((draft, parent)) = stack.pop() {
            let me = r.order.len();
            let ours = draft.builder == builder.id;
            if ours && r.position[draft.index] != UNSEEN {
                continue;
            }
            r.order.push(draft);
            if track {
                r.parent.push(parent);
            }
            if !ours {
                r.foreign = Some(me);
                break;
            }
            r.position[draft.index] = me as u32;
            for (i, child) in draft.children.iter().enumerate().rev() {
                stack.push((child, (me as u32, i as u32)));
            }
        }
        r
    }

    /// The plan to compile, borrowing the drafts' kinds and labels. The
    /// order and the positions are dropped here, before compiling needs
    /// memory of its own.
    fn plan(self) -> Plan<'d, A, W> {
        let edges = self.order.iter().map(|d| d.children.len()).sum();
        let mut children = Vec::with_capacity(edges);
        let mut nodes = Vec::with_capacity(self.order.len());
        for d in &self.order {
            nodes.push(PlanNode {
                label: d.label,
                kind: d.kind,
                first: children.len() as u32,
                count: d.children.len() as u32,
            });
            children.extend(d.children.iter().map(|c| self.position[c.index]));
        }
        Plan { nodes, children }
    }

    /// `problem` at the draft in position `at`, named by its path (the walk
    /// must have tracked parents).
    fn error(&self, at: usize, problem: String) -> BuildError {
        let mut steps = Vec::new();
        let mut cur = at;
        while self.parent[cur] != ROOT {
            let (parent, i) = self.parent[cur];
            steps.push(i);
            cur = parent as usize;
        }
        steps.reverse();
        BuildError {
            path: TreePath(steps),
            name: self.order[at].name().to_string(),
            problem,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use super::*;

    #[test]
    fn drafts_share_labels_and_kinds_only_when_they_look_the_same() {
        let b = Builder::<(), ()>::new();
        let (w3, w3_again, w4) = (b.wait("w", 3), b.wait("w", 3), b.wait("w", 4));
        assert!(ptr::eq(w3.label, w3_again.label) && ptr::eq(w3.kind, w3_again.kind));
        assert!(ptr::eq(w3.label, w4.label) && !ptr::eq(w3.kind, w4.kind));
        let params = vec![("for".to_string(), "3".to_string())];
        let nap = b.typed_node("w", "Nap", params, nodes::Wait { ticks: 3 }, []);
        assert!(!ptr::eq(w3.label, nap.label) && ptr::eq(w3.kind, nap.kind));
        let (a1, a2) = (
            b.action("a", |_| Status::Success),
            b.action("a", |_| Status::Failure),
        );
        assert!(ptr::eq(a1.label, a2.label) && !ptr::eq(a1.kind, a2.kind));
        let p1 = b.parallel("p", Policy::One, Policy::All, [b.always_success("x")]);
        let p2 = b.parallel("p", Policy::All, Policy::One, [b.always_failure("y")]);
        assert!(!ptr::eq(p1.kind, p2.kind));

        let root = b.sequence("root", [w3, w3_again, w4, nap, a1, a2, p1, p2]);
        let tree = b.build(root).unwrap();
        let shown: Vec<String> = tree
            .nodes()
            .map(|n| format!("{} {} {:?}", n.name(), n.type_name(), n.params()))
            .collect();
        assert_eq!(
            shown,
            [
                "root Sequence []",
                r#"w Wait [("ticks", "3")]"#,
                r#"w Wait [("ticks", "3")]"#,
                r#"w Wait [("ticks", "4")]"#,
                r#"w Nap [("for", "3")]"#,
                "a Action []",
                "a Action []",
                r#"p Parallel [("success", "one"), ("failure", "all")]"#,
                "x AlwaysSuccess []",
                r#"p Parallel [("success", "all"), ("failure", "one")]"#,
                "y AlwaysFailure []",
            ]
        );
        // The two actions keep their own code.
        let kids: Vec<_> = tree.node(tree.root()).children().collect();
        match (kids[4].kind(), kids[5].kind(), a1.kind, a2.kind) {
            (
                NodeKind::Action(nodes::Action(t1)),
                NodeKind::Action(nodes::Action(t2)),
                NodeKind::Action(nodes::Action(d1)),
                NodeKind::Action(nodes::Action(d2)),
            ) => assert!(Arc::ptr_eq(t1, d1) && Arc::ptr_eq(t2, d2)),
            kinds => panic!("not four actions: {kinds:?}"),
        }
    }
}
