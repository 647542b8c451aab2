//! `canopy nodes`: the registry as a reference card.
//!
//! Tree files are written by people who cannot read the factories, so the
//! card is generated from the registry itself (names, arities, parameter
//! declarations and their one-line docs): it cannot drift from what the
//! loader accepts. Grouped the way BehaviorTree.CPP groups nodes, because
//! what a node may have as children is the first thing an author needs.

use std::io::{self, Write};

use canopy_core::Arity;
use canopy_data::{NodeType, Registry};

/// A heading and which node types go under it.
struct Group<A, W> {
    heading: &'static str,
    holds: fn(&NodeType<A, W>) -> bool,
}

fn groups<A, W>() -> [Group<A, W>; 5] {
    [
        Group {
            heading: "controls (composite: any number of children)",
            holds: |t| t.arity() == Arity::Composite,
        },
        Group {
            heading: "decorators (decorator: exactly one child)",
            holds: |t| t.arity() == Arity::Decorator,
        },
        Group {
            heading: "leaves (leaf: no children)",
            holds: |t| t.arity() == Arity::Leaf && !t.is_condition() && !t.is_async(),
        },
        Group {
            heading: "async leaves (leaf: suspend until their ticket is completed)",
            holds: |t| t.is_async(),
        },
        Group {
            heading: "conditions (leaf: no children; also a Guard's `condition`)",
            holds: |t| t.is_condition(),
        },
    ]
}

/// Write every registered node type, grouped, names and descriptions aligned.
pub(crate) fn write<A: 'static, W: 'static>(
    out: &mut dyn Write,
    registry: &Registry<A, W>,
) -> io::Result<()> {
    let width = registry
        .types()
        .map(|t| t.name().chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let mut count = 0;
    for group in &groups::<A, W>() {
        let members: Vec<_> = registry.types().filter(|t| (group.holds)(t)).collect();
        if members.is_empty() {
            continue;
        }
        if count > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", group.heading)?;
        for node_type in members {
            count += 1;
            writeln!(
                out,
                "  {:width$}{}",
                node_type.name(),
                node_type.description()
            )?;
            for param in node_type.params() {
                writeln!(
                    out,
                    "  {:width$}  {}: {} — {}",
                    "",
                    param.name,
                    param.describe(),
                    param.doc
                )?;
            }
        }
    }
    writeln!(out, "\n{count} node types")
}
