//! From a tree description ([`Def`]) to the flat array: check it, size
//! every subtree's state, then lay the nodes out breadth first so that each
//! node's children are contiguous, and give each node its state offset.

use std::collections::VecDeque;
use std::fmt;

use canopy_core::nodes::Like;
use canopy_core::{Afterwards, Policy};

use super::{FlatTree, HEADER, Node, Op};
use canopy_core::text::quote;

/// Deepest tree accepted: the interpreter recurses once per level.
pub const MAX_DEPTH: usize = 256;

/// Most nodes a flat tree may have.
pub const MAX_NODES: usize = 1 << 24;

/// A tree description for [`FlatTree::build`]: an owned tree of nodes,
/// written with the constructors below (one per built-in kind, named as
/// canopy's `Builder` methods). A description may be cloned to use a
/// subtree twice; the flat tree then holds it twice.
///
/// ```
/// use canopy_core::{Ctx, Status};
/// use canopy_reference::flat::{Def, FlatLeaf, FlatTree};
///
/// /// Leaf code: count calls.
/// #[derive(Clone, Copy)]
/// struct Count;
/// impl FlatLeaf<u32, ()> for Count {
///     fn act(&self, cx: &mut Ctx<'_, u32, ()>) -> Status {
///         *cx.agent += 1;
///         Status::Success
///     }
///     fn check(&self, cx: &mut Ctx<'_, u32, ()>) -> bool {
///         *cx.agent < 10
///     }
/// }
///
/// let tree = FlatTree::build(&Def::sequence("s", [
///     Def::action("count", Count),
///     Def::wait("w", 2),
/// ])).unwrap();
/// let (mut state, mut calls) = (tree.new_state(), 0);
/// let statuses: Vec<Status> = (0..3).map(|_| tree.tick(&mut state, 0, &mut calls, &())).collect();
/// assert_eq!(statuses, [Status::Running, Status::Running, Status::Success]);
/// assert_eq!(calls, 1);
/// ```
#[derive(Clone, Debug)]
pub struct Def<L> {
    name: String,
    op: Op<L>,
    children: Vec<Def<L>>,
}

impl<L> Def<L> {
    fn new(name: &str, op: Op<L>, children: Vec<Def<L>>) -> Self {
        Def {
            name: name.to_string(),
            op,
            children,
        }
    }

    fn many(name: &str, op: Op<L>, children: impl IntoIterator<Item = Def<L>>) -> Self {
        Def::new(name, op, children.into_iter().collect())
    }

    /// A Sequence.
    pub fn sequence(name: &str, children: impl IntoIterator<Item = Def<L>>) -> Self {
        Def::many(name, Op::Sequence, children)
    }

    /// A Selector.
    pub fn selector(name: &str, children: impl IntoIterator<Item = Def<L>>) -> Self {
        Def::many(name, Op::Selector, children)
    }

    /// A SequenceWithMemory.
    pub fn sequence_with_memory(name: &str, children: impl IntoIterator<Item = Def<L>>) -> Self {
        Def::many(name, Op::SequenceWithMemory, children)
    }

    /// A Shuffle: a Sequence or Selector (`like`) in an order drawn per
    /// agent when it is entered, apart from other Shuffles by `salt`.
    pub fn shuffle(
        name: &str,
        like: Like,
        salt: u64,
        children: impl IntoIterator<Item = Def<L>>,
    ) -> Self {
        Def::many(name, Op::Shuffle { like, salt }, children)
    }

    /// A ReactiveSequence.
    pub fn reactive_sequence(name: &str, children: impl IntoIterator<Item = Def<L>>) -> Self {
        Def::many(name, Op::ReactiveSequence, children)
    }

    /// A ReactiveSelector.
    pub fn reactive_selector(name: &str, children: impl IntoIterator<Item = Def<L>>) -> Self {
        Def::many(name, Op::ReactiveSelector, children)
    }

    /// A Parallel with its success and failure policies.
    pub fn parallel(
        name: &str,
        success: Policy,
        failure: Policy,
        children: impl IntoIterator<Item = Def<L>>,
    ) -> Self {
        Def::many(name, Op::Parallel { success, failure }, children)
    }

    /// An Inverter.
    pub fn inverter(name: &str, child: Def<L>) -> Self {
        Def::new(name, Op::Inverter, vec![child])
    }

    /// A ForceSuccess.
    pub fn force_success(name: &str, child: Def<L>) -> Self {
        Def::new(name, Op::ForceSuccess, vec![child])
    }

    /// A ForceFailure.
    pub fn force_failure(name: &str, child: Def<L>) -> Self {
        Def::new(name, Op::ForceFailure, vec![child])
    }

    /// A Repeat(`times`).
    pub fn repeat(name: &str, times: u32, child: Def<L>) -> Self {
        Def::new(name, Op::Repeat(times), vec![child])
    }

    /// A Retry(`times`).
    pub fn retry(name: &str, times: u32, child: Def<L>) -> Self {
        Def::new(name, Op::Retry(times), vec![child])
    }

    /// A Guard whose condition is leaf `condition`.
    pub fn guard(name: &str, condition: L, child: Def<L>) -> Self {
        Def::new(name, Op::Guard(condition), vec![child])
    }

    /// A ReactiveGuard whose condition is leaf `condition`.
    pub fn reactive_guard(name: &str, condition: L, child: Def<L>) -> Self {
        Def::new(name, Op::ReactiveGuard(condition), vec![child])
    }

    /// A Timeout(`ticks`).
    pub fn timeout(name: &str, ticks: u32, child: Def<L>) -> Self {
        Def::new(name, Op::Timeout(ticks), vec![child])
    }

    /// A Cooldown(`ticks`).
    pub fn cooldown(name: &str, ticks: u32, child: Def<L>) -> Self {
        Def::new(name, Op::Cooldown(ticks), vec![child])
    }

    /// A RunOnce(`then`).
    pub fn run_once(name: &str, then: Afterwards, child: Def<L>) -> Self {
        Def::new(name, Op::RunOnce(then), vec![child])
    }

    /// A Wait(`ticks`).
    pub fn wait(name: &str, ticks: u32) -> Self {
        Def::new(name, Op::Wait(ticks), Vec::new())
    }

    /// A `Random` leaf (canopy-data's built-in): Success with probability
    /// `success`, Failure with `failure`, else Running, drawn per agent,
    /// tick and update from `salt` (the loader's `Params::salt`).
    pub fn random(name: &str, success: f64, failure: f64, salt: u64) -> Self {
        Def::new(
            name,
            Op::Random(super::Draw::new(success, failure, salt)),
            Vec::new(),
        )
    }

    /// An AlwaysSuccess leaf.
    pub fn always_success(name: &str) -> Self {
        Def::new(name, Op::AlwaysSuccess, Vec::new())
    }

    /// An AlwaysFailure leaf.
    pub fn always_failure(name: &str) -> Self {
        Def::new(name, Op::AlwaysFailure, Vec::new())
    }

    /// An AlwaysRunning leaf.
    pub fn always_running(name: &str) -> Self {
        Def::new(name, Op::AlwaysRunning, Vec::new())
    }

    /// An Action leaf.
    pub fn action(name: &str, leaf: L) -> Self {
        Def::new(name, Op::Action(leaf), Vec::new())
    }

    /// A Condition leaf.
    pub fn condition(name: &str, leaf: L) -> Self {
        Def::new(name, Op::Condition(leaf), Vec::new())
    }
}

/// Why a description could not be built: which node, and what is wrong.
///
/// ```
/// use canopy_reference::flat::{Def, FlatTree};
/// let bad = Def::<()>::sequence("root", [
///     Def::always_success("a"),
///     Def::repeat("again", 0, Def::always_success("ok")),
/// ]);
/// let err = FlatTree::build(&bad).unwrap_err();
/// assert_eq!(err.to_string(),
///     "tree/children[1] (name \"again\"): a Repeat needs a count of at least 1, got 0");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatError {
    /// Where the node is: `tree` for the root, then `/children[i]` per level.
    pub path: String,
    /// The node's name, quoted: at most 80 characters, control characters
    /// escaped.
    pub name: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for FlatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (name {}): {}", self.path, self.name, self.problem)
    }
}

impl std::error::Error for FlatError {}

/// The structural problem with one node, if any.
fn problem<L>(def: &Def<L>) -> Option<String> {
    match def.op {
        Op::Parallel { .. } if def.children.is_empty() => {
            Some("a Parallel needs at least one child, got 0".to_string())
        }
        Op::Repeat(0) => Some("a Repeat needs a count of at least 1, got 0".to_string()),
        Op::Retry(0) => Some("a Retry needs a count of at least 1, got 0".to_string()),
        Op::Timeout(0) => Some("a Timeout needs a duration of at least 1 tick, got 0".to_string()),
        Op::Cooldown(0) => {
            Some("a Cooldown needs a duration of at least 1 tick, got 0".to_string())
        }
        _ => None,
    }
}

/// A checked description with the state words of every subtree.
struct Sized<'d, L> {
    def: &'d Def<L>,
    /// Task words of the whole subtree (own words plus children's).
    words: usize,
    kids: Vec<Sized<'d, L>>,
}

/// Counts gathered while sizing.
#[derive(Default)]
struct Totals {
    nodes: usize,
    lasting: usize,
}

/// Words of a node's own task state.
fn own_words<L>(op: &Op<L>, children: usize) -> usize {
    match op {
        Op::Sequence | Op::Selector | Op::ReactiveSequence | Op::ReactiveSelector => 1,
        Op::Parallel { .. } => 2 * children.div_ceil(32),
        // Where in the order it is, then the order.
        Op::Shuffle { .. } => 1 + children,
        Op::Repeat(_) | Op::Retry(_) => 2,
        // Updates since it was entered.
        Op::Timeout(_) | Op::Wait(_) | Op::Random(_) => 1,
        _ => 0,
    }
}

/// Whether the node's one word outlives its activations (a region of its own).
fn lasting<L>(op: &Op<L>) -> bool {
    matches!(
        op,
        Op::Cooldown(_) | Op::SequenceWithMemory | Op::RunOnce(_)
    )
}

/// Whether children may run at the same time, so need disjoint state.
fn disjoint<L>(op: &Op<L>) -> bool {
    matches!(
        op,
        Op::Parallel { .. } | Op::ReactiveSequence | Op::ReactiveSelector
    )
}

fn size<'d, L>(
    def: &'d Def<L>,
    path: &mut String,
    depth: usize,
    totals: &mut Totals,
) -> Result<Sized<'d, L>, FlatError> {
    let fail = |path: &str, problem: String| FlatError {
        path: path.to_string(),
        name: quote(&def.name),
        problem,
    };
    if let Some(problem) = problem(def) {
        return Err(fail(path, problem));
    }
    if depth > MAX_DEPTH {
        return Err(fail(
            path,
            format!("the tree is deeper than {MAX_DEPTH} levels"),
        ));
    }
    totals.nodes += 1;
    if totals.nodes > MAX_NODES {
        return Err(fail(
            path,
            format!("the tree has more than {MAX_NODES} nodes"),
        ));
    }
    if lasting(&def.op) {
        totals.lasting += 1;
    }
    let mut kids = Vec::with_capacity(def.children.len());
    for (k, child) in def.children.iter().enumerate() {
        let len = path.len();
        path.push_str(&format!("/children[{k}]"));
        kids.push(size(child, path, depth + 1, totals)?);
        path.truncate(len);
    }
    let below = kids.iter().map(|k| k.words);
    let below = if disjoint(&def.op) {
        below.sum()
    } else {
        below.max().unwrap_or(0)
    };
    Ok(Sized {
        def,
        words: own_words(&def.op, def.children.len()) + below,
        kids,
    })
}

impl<L: Clone> FlatTree<L> {
    /// Check a description and lay it out as a flat tree.
    pub fn build(root: &Def<L>) -> Result<FlatTree<L>, FlatError> {
        let mut totals = Totals::default();
        let sized = size(root, &mut "tree".to_string(), 1, &mut totals)?;
        let words = HEADER + totals.lasting + sized.words;
        if u32::try_from(words).is_err() {
            return Err(FlatError {
                path: "tree".to_string(),
                name: quote(&root.name),
                problem: format!("the tree needs {words} words of state per agent"),
            });
        }
        Ok(lay_out(sized, totals, words))
    }
}

/// Breadth-first placement: a node's children are the next `count` entries
/// queued after everything already queued. `base` is where a node's task
/// words start; nodes with a lasting word take it from `next_lasting`.
fn lay_out<L: Clone>(root: Sized<'_, L>, totals: Totals, words: usize) -> FlatTree<L> {
    let mut nodes = Vec::with_capacity(totals.nodes);
    let mut names = Vec::with_capacity(totals.nodes);
    let mut next_lasting = HEADER;
    let mut queue = VecDeque::from([(root, HEADER + totals.lasting)]);
    while let Some((sized, base)) = queue.pop_front() {
        let def = sized.def;
        let own = own_words(&def.op, def.children.len());
        let at = if lasting(&def.op) {
            next_lasting += 1;
            next_lasting - 1
        } else {
            base
        };
        let first = nodes.len() + 1 + queue.len();
        nodes.push(Node {
            op: def.op.clone(),
            first: first as u32,
            count: def.children.len() as u32,
            at: at as u32,
        });
        names.push(def.name.clone().into_boxed_str());
        let mut child_base = base + own;
        let disjoint = disjoint(&def.op);
        for kid in sized.kids {
            let kid_words = kid.words;
            queue.push_back((kid, child_base));
            if disjoint {
                child_base += kid_words;
            }
        }
    }
    FlatTree {
        nodes,
        names,
        words,
    }
}
