//! Loading tree files: `Registry::loading` of text, on a generated 10,000-node
//! file, as JSON and as RON. The file is a realistic mix — composites of
//! every kind, decorators with parameters, guards with conditions,
//! scripted and random leaves, and a few subtrees referenced from many
//! places — kept shallow enough for both parsers (RON files hold about 32
//! levels, JSON files about 64).
//!
//! `cargo bench --bench load -- --noplot` (target: median ≤ 50 ms).

use std::fmt::Write;
use std::hint::black_box;

use canopy::data::{Format, Registry, TreeSource};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Node objects in the generated file, subtree definitions included (guard
/// conditions come on top).
const NODES: usize = 10_000;

/// splitmix64: a fixed, dependency-free sequence, so every run loads the
/// same file.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A parameter value.
enum P {
    Int(u32),
    Float(f64),
    Word(&'static str),
    Text(String),
    Words(Vec<&'static str>),
    Node(Box<N>),
}

/// A node object.
struct N {
    ty: &'static str,
    name: Option<String>,
    params: Vec<(&'static str, P)>,
    children: Vec<N>,
}

impl N {
    fn new(ty: &'static str) -> N {
        N {
            ty,
            name: None,
            params: Vec::new(),
            children: Vec::new(),
        }
    }

    fn param(mut self, key: &'static str, value: P) -> N {
        self.params.push((key, value));
        self
    }
}

struct Generator {
    rng: Rng,
    /// Node objects made so far.
    made: usize,
    /// Subtree names leaves may refer to.
    subtrees: Vec<String>,
}

impl Generator {
    fn named(&mut self, mut n: N) -> N {
        self.made += 1;
        if self.rng.chance(70) {
            n.name = Some(format!("{} {}", n.ty.to_lowercase(), self.made));
        }
        n
    }

    fn condition(&mut self) -> N {
        let n = if self.rng.chance(50) {
            N::new("Chance").param("p", P::Float(self.rng.below(100) as f64 / 100.0))
        } else {
            N::new("Periodic")
                .param("period", P::Int(10 + self.rng.below(30) as u32))
                .param("on", P::Int(self.rng.below(10) as u32))
        };
        self.named(n)
    }

    fn leaf(&mut self) -> N {
        if !self.subtrees.is_empty() && self.rng.chance(2) {
            let target = self.subtrees[self.rng.below(self.subtrees.len())].clone();
            return self.named(N::new("SubTree").param("tree", P::Text(target)));
        }
        let n = match self.rng.below(10) {
            0..=2 => N::new("Wait").param("ticks", P::Int(self.rng.below(20) as u32)),
            3..=4 => {
                let words = ["Running", "Success", "Failure"];
                let len = 1 + self.rng.below(4);
                let script = (0..len).map(|_| words[self.rng.below(3)]).collect();
                N::new("Script").param("statuses", P::Words(script))
            }
            5 => {
                let s = self.rng.below(60);
                N::new("Random")
                    .param("success", P::Float(s as f64 / 100.0))
                    .param("failure", P::Float(self.rng.below(40) as f64 / 100.0))
            }
            6 => return self.condition(),
            7 => N::new("AlwaysSuccess"),
            8 => N::new("AlwaysFailure"),
            _ => N::new("AlwaysRunning"),
        };
        self.named(n)
    }

    /// A decorator over `child`.
    fn decorate(&mut self, child: N) -> N {
        let n = match self.rng.below(8) {
            0 => N::new("Inverter"),
            1 => N::new("ForceSuccess"),
            2 => N::new("Repeat").param("times", P::Int(1 + self.rng.below(5) as u32)),
            3 => N::new("Retry").param("times", P::Int(1 + self.rng.below(5) as u32)),
            4 => N::new("Timeout").param("ticks", P::Int(5 + self.rng.below(50) as u32)),
            5 => N::new("Cooldown").param("ticks", P::Int(1 + self.rng.below(20) as u32)),
            6 | 7 => {
                let ty = if self.rng.chance(50) {
                    "Guard"
                } else {
                    "ReactiveGuard"
                };
                let condition = self.condition();
                N::new(ty).param("condition", P::Node(Box::new(condition)))
            }
            _ => unreachable!(),
        };
        let mut n = self.named(n);
        n.children.push(child);
        n
    }

    /// A subtree of about `budget` node objects.
    fn tree(&mut self, budget: usize, depth: usize) -> N {
        if budget <= 1 {
            return self.leaf();
        }
        if budget <= 3 || self.rng.chance(15) {
            let child = self.tree(budget - 1, depth + 1);
            return self.decorate(child);
        }
        let ty = match self.rng.below(10) {
            0..=3 => "Sequence",
            4..=5 => "Selector",
            6 => "ReactiveSequence",
            7 => "ReactiveSelector",
            _ => "Parallel",
        };
        let mut n = N::new(ty);
        if ty == "Parallel" {
            n = n
                .param("success", P::Word(["one", "all"][self.rng.below(2)]))
                .param("failure", P::Word(["one", "all"][self.rng.below(2)]));
        }
        let mut n = self.named(n);
        let mut left = budget - 1;
        if depth >= 10 {
            // Deep enough: spend the rest on leaves.
            n.children = (0..left).map(|_| self.leaf()).collect();
            return n;
        }
        let count = (2 + self.rng.below(7)).min(left);
        for i in 0..count {
            let share = if i + 1 == count {
                left
            } else {
                let fair = left / (count - i);
                (fair / 2 + self.rng.below(fair + 1)).clamp(1, left - (count - i - 1))
            };
            left -= share;
            n.children.push(self.tree(share, depth + 1));
        }
        n
    }
}

/// The document: a few subtrees of about 60 nodes, referenced from leaves
/// all over a main tree holding the rest of the 10,000 node objects.
fn document() -> (N, Vec<(String, N)>) {
    let mut g = Generator {
        rng: Rng(2024),
        made: 0,
        subtrees: Vec::new(),
    };
    let mut subtrees = Vec::new();
    for name in ["Flee", "Patrol", "Forage", "Rest", "Chat"] {
        let root = g.tree(60, 0);
        subtrees.push((name.to_string(), root));
        g.subtrees.push(name.to_string());
    }
    let rest = NODES - g.made;
    let tree = g.tree(rest, 0);
    (tree, subtrees)
}

fn quoted(s: &str) -> String {
    format!("{s:?}")
}

/// The two syntaxes differ only in brackets and in how field names are written.
#[derive(Clone, Copy, PartialEq)]
enum Syntax {
    Json,
    Ron,
}

fn write_node(n: &N, syntax: Syntax, out: &mut String) {
    let key = |k: &str| match syntax {
        Syntax::Json => format!("\"{k}\""),
        Syntax::Ron => k.to_string(),
    };
    let (open, close) = match syntax {
        Syntax::Json => ('{', '}'),
        Syntax::Ron => ('(', ')'),
    };
    write!(out, "{open}{}: {}", key("type"), quoted(n.ty)).unwrap();
    if let Some(name) = &n.name {
        write!(out, ", {}: {}", key("name"), quoted(name)).unwrap();
    }
    for (k, v) in &n.params {
        write!(out, ", {}: ", key(k)).unwrap();
        match v {
            P::Int(i) => write!(out, "{i}").unwrap(),
            P::Float(x) => write!(out, "{x:?}").unwrap(),
            P::Word(w) => out.push_str(&quoted(w)),
            P::Text(t) => out.push_str(&quoted(t)),
            P::Words(ws) => {
                let ws: Vec<String> = ws.iter().map(|w| quoted(w)).collect();
                write!(out, "[{}]", ws.join(", ")).unwrap();
            }
            P::Node(c) => write_node(c, syntax, out),
        }
    }
    if !n.children.is_empty() {
        writeln!(out, ", {}: [", key("children")).unwrap();
        for (i, c) in n.children.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            write_node(c, syntax, out);
        }
        out.push(']');
    }
    out.push(close);
}

fn json_text(tree: &N, subtrees: &[(String, N)]) -> String {
    let mut out = String::from("{\"tree\": ");
    write_node(tree, Syntax::Json, &mut out);
    out.push_str(",\n\"subtrees\": {\n");
    for (i, (name, root)) in subtrees.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        write!(out, "{}: ", quoted(name)).unwrap();
        write_node(root, Syntax::Json, &mut out);
    }
    out.push_str("}}\n");
    out
}

fn ron_text(tree: &N, subtrees: &[(String, N)]) -> String {
    let mut out = String::from("(tree: ");
    write_node(tree, Syntax::Ron, &mut out);
    out.push_str(",\nsubtrees: {\n");
    for (name, root) in subtrees {
        write!(out, "{}: ", quoted(name)).unwrap();
        write_node(root, Syntax::Ron, &mut out);
        out.push_str(",\n");
    }
    out.push_str("})\n");
    out
}

fn load(c: &mut Criterion) {
    let (tree, subtrees) = document();
    let registry = Registry::<(), ()>::new();
    let files = [
        ("json_10k", Format::Json, json_text(&tree, &subtrees)),
        ("ron_10k", Format::Ron, ron_text(&tree, &subtrees)),
    ];
    for (id, format, text) in &files {
        let loaded = registry
            .loading(TreeSource::text(text, *format, id))
            .load()
            .unwrap_or_else(|e| panic!("{e}"));
        let objects = text.matches("type").count();
        eprintln!(
            "{id}: {} bytes, {objects} node objects ({} in the tree: guard conditions are \
             parameters, subtrees are shared), depth {}",
            text.len(),
            loaded.len(),
            loaded.depth()
        );
    }
    let mut group = c.benchmark_group("load_str");
    for (id, format, text) in &files {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(*id, |b| {
            b.iter(|| {
                registry
                    .loading(TreeSource::text(
                        black_box(text),
                        black_box(*format),
                        "bench",
                    ))
                    .load()
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
