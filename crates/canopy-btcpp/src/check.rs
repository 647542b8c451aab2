//! The trees as a whole: `<SubTree>` references resolved, cycles and depth
//! refused, and the work one tick can do bounded.

use canopy_core::limits::MAX_DEPTH;

use crate::emulated::Emulated;
use crate::model::{Model, What};
use crate::options::XmlOptions;
use canopy_core::text::suggest;
use canopy_data::{LoadError, XmlLimit, XmlProblem};

struct Walk<'m> {
    model: &'m Model,
    /// Levels from each node down to its deepest leaf; 0: not known yet.
    height: Vec<u32>,
    /// Trees being walked, outermost first.
    stack: Vec<usize>,
}

/// Check every tree, and the work one tick of the tree to run can do.
pub(crate) fn check(model: &Model, options: &XmlOptions) -> Result<(), LoadError> {
    let mut walk = Walk {
        model,
        height: vec![0; model.nodes.len()],
        stack: Vec::new(),
    };
    for tree in 0..model.trees.len() {
        walk.stack.push(tree);
        walk.visit(model.trees[tree].root, 1)?;
        walk.stack.pop();
    }
    budget(model, options)
}

impl Walk<'_> {
    /// The tree a `<SubTree>` refers to.
    fn target(&self, node: usize, id: &str) -> Result<usize, LoadError> {
        let model = self.model;
        model.ids.get(id).copied().ok_or_else(|| {
            let ids = model.trees.iter().map(|t| t.id.as_str());
            let (defined, count) = model.tree_ids();
            model.fail(
                model.nodes[node].place,
                XmlProblem::NoSuchTree {
                    id: id.to_string(),
                    suggestion: suggest(id, ids).map(str::to_string),
                    defined,
                    count,
                },
            )
        })
    }

    /// Visit `node`, `depth` levels below the root of the outermost tree
    /// being walked; its height.
    fn visit(&mut self, node: usize, depth: usize) -> Result<u32, LoadError> {
        let model = self.model;
        let place = model.nodes[node].place;
        let too_deep = || {
            model.fail(
                place,
                XmlLimit::Depth {
                    limit: MAX_DEPTH as u64,
                },
            )
        };
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        let known = self.height[node];
        if known > 0 {
            if depth + known as usize - 1 > MAX_DEPTH {
                return Err(too_deep());
            }
            return Ok(known);
        }
        let height = match &model.nodes[node].what {
            What::SubTree(id) => {
                let tree = self.target(node, id)?;
                if let Some(at) = self.stack.iter().position(|&t| t == tree) {
                    let mut chain: Vec<String> = self.stack[at..]
                        .iter()
                        .map(|&t| model.trees[t].id.clone())
                        .collect();
                    chain.push(id.clone());
                    return Err(model.fail(place, XmlProblem::TreeCycle { chain }));
                }
                self.stack.push(tree);
                let height = self.visit(model.trees[tree].root, depth)?;
                self.stack.pop();
                height
            }
            _ => {
                let mut below = 0;
                for &child in &model.nodes[node].children {
                    below = below.max(self.visit(child, depth + 1)?);
                }
                below + 1
            }
        };
        self.height[node] = height;
        Ok(height)
    }
}

/// Most cycles a Repeat or RetryUntilSuccessful runs in one tick: one of
/// a child that was running, then one of a child entered in the tick,
/// after which it yields (see `nodes::Loop`).
const LOOPS_PER_TICK: u64 = 2;

/// Most nodes one tick of the tree to run can update; shared trees count
/// at every use.
fn updates(model: &Model, node: usize, memo: &mut [Option<u64>]) -> u64 {
    if let Some(known) = memo[node] {
        return known;
    }
    let x = &model.nodes[node];
    let total = match &x.what {
        What::SubTree(id) => {
            let root = model.tree(id).map_or(node, |t| t.root);
            updates(model, root, memo)
        }
        // A loop whose count is read from the blackboard may run for ever.
        What::Registered { type_name, .. } if crate::emulated::LOOPS.contains(&&**type_name) => {
            let child = x.children.first().map_or(0, |&c| updates(model, c, memo));
            LOOPS_PER_TICK.saturating_mul(child).saturating_add(1)
        }
        What::Emulated(Emulated::Repeat(count)) | What::Emulated(Emulated::Retry(count)) => {
            let loops = if *count == -1 {
                LOOPS_PER_TICK
            } else {
                ((*count).max(0) as u64).clamp(1, LOOPS_PER_TICK)
            };
            let child = x.children.first().map_or(0, |&c| updates(model, c, memo));
            loops.saturating_mul(child).saturating_add(1)
        }
        _ => x
            .children
            .iter()
            .fold(1u64, |sum, &c| sum.saturating_add(updates(model, c, memo))),
    };
    memo[node] = Some(total);
    total
}

/// A tree whose one tick could update more nodes than the options allow
/// is refused.
fn budget(model: &Model, options: &XmlOptions) -> Result<(), LoadError> {
    let root = model.trees[model.main].root;
    let limit = options.max_updates_per_tick;
    if updates(model, root, &mut vec![None; model.nodes.len()]) > limit {
        return Err(model.fail(
            model.trees[model.main].place,
            XmlLimit::UpdatesPerTick { limit },
        ));
    }
    Ok(())
}
