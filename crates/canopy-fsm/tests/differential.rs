//! The flat-table engine against a naive reference in the classic recursive style, on
//! random hierarchical machines and random sequences of updates, triggers
//! and stops, comparing the full hook traces.
//!
//! The reference keeps, per machine, which of its states is current, and
//! runs hooks by recursion through those objects (enter: self then the
//! current child; exit: the current child then self), resolving a
//! transition by walking up from both ends; the engine under test uses the
//! build-time flat tables, precomputed transition levels and one array
//! path. Any disagreement in layout, child ranges, start resolution,
//! transition slices or hook order shows up as a different trace.

use std::collections::HashMap;

use canopy_core::Ctx;
use canopy_fsm::{FsmAgent, FsmSnapshot, Hooks, Machine, MachineBuilder};
use proptest::prelude::*;

/// A random machine: `parent[i] < i` (so the hierarchy is a forest rooted
/// at the top level), each machine's start state, transitions unique per
/// (source, trigger), and what each state's update fires.
#[derive(Clone, Debug)]
struct Spec {
    parent: Vec<Option<usize>>,
    /// Per machine owner (`None`: top level): chosen start index among its states.
    start_pick: Vec<usize>,
    transitions: Vec<(usize, u8, usize)>,
    fire: Vec<Option<u8>>,
}

impl Spec {
    fn members(&self, owner: Option<usize>) -> Vec<usize> {
        (0..self.parent.len())
            .filter(|&s| self.parent[s] == owner)
            .collect()
    }

    fn start_of(&self, owner: Option<usize>) -> Option<usize> {
        let members = self.members(owner);
        if members.is_empty() {
            return None;
        }
        let slot = owner.map_or(0, |o| o + 1);
        Some(members[self.start_pick[slot] % members.len()])
    }

    fn chain(&self, mut s: usize) -> Vec<usize> {
        let mut chain = vec![s];
        while let Some(p) = self.parent[s] {
            chain.push(p);
            s = p;
        }
        chain.reverse();
        chain
    }
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..10).prop_flat_map(|n| {
        let parents = (0..n)
            .map(|i| (0..=i).prop_map(move |c| if c == 0 || i == 0 { None } else { Some(c - 1) }))
            .collect::<Vec<_>>();
        (
            parents,
            prop::collection::vec(0usize..8, n + 1),
            prop::collection::vec((0..n, 0u8..4, 0..n), 0..20),
            prop::collection::vec(prop::option::weighted(0.3, 0u8..4), n),
        )
            .prop_map(|(parent, start_pick, mut transitions, fire)| {
                let mut seen = Vec::new();
                transitions.retain(|&(from, t, _)| {
                    let new = !seen.contains(&(from, t));
                    seen.push((from, t));
                    new
                });
                Spec {
                    parent,
                    start_pick,
                    transitions,
                    fire,
                }
            })
    })
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Update,
    Send(u8),
    Stop,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        3 => Just(Op::Update),
        4 => (0u8..4).prop_map(Op::Send),
        1 => Just(Op::Stop),
    ];
    prop::collection::vec(op, 0..40)
}

/// The engine under test, built from the spec with nested builders.
fn build(spec: &Spec) -> Machine<Vec<String>, (), u8> {
    fn level(spec: &Spec, owner: Option<usize>) -> MachineBuilder<Vec<String>, (), u8> {
        let mut b = MachineBuilder::new();
        for s in spec.members(owner) {
            let fire = spec.fire[s];
            let hooks = Hooks::<Vec<String>, (), u8>::new()
                .on_enter(move |cx: &mut Ctx<Vec<String>, ()>| cx.agent.push(format!("enter S{s}")))
                .on_update(move |cx| {
                    cx.agent.push(format!("update S{s}"));
                    fire
                })
                .on_exit(move |cx| cx.agent.push(format!("exit S{s}")));
            let draft = b.state(&format!("S{s}"), hooks);
            if !spec.members(Some(s)).is_empty() {
                draft.child_machine(level(spec, Some(s)));
            }
        }
        if let Some(start) = spec.start_of(owner) {
            b.start(&format!("S{start}"));
        }
        b
    }
    let mut b = level(spec, None);
    for &(from, t, to) in &spec.transitions {
        b.transition(&format!("S{from}"), t, &format!("S{to}"));
    }
    b.build().expect("random specs are valid")
}

/// The object-oriented way: every machine knows its current state; hooks recurse.
struct Reference<'s> {
    spec: &'s Spec,
    current: HashMap<Option<usize>, usize>,
    log: Vec<String>,
}

impl Reference<'_> {
    fn running(&self) -> bool {
        self.current.contains_key(&None)
    }

    fn ensure_started(&mut self) {
        if !self.running() {
            let start = self.spec.start_of(None).unwrap();
            self.current.insert(None, start);
            self.enter(start, &[]);
        }
    }

    /// Enter `s`, then down `forced` (the target's remaining ancestors),
    /// then start states.
    fn enter(&mut self, s: usize, forced: &[usize]) {
        self.log.push(format!("enter S{s}"));
        let next = forced.first().copied().or(self.spec.start_of(Some(s)));
        if let Some(child) = next {
            self.current.insert(Some(s), child);
            self.enter(child, forced.get(1..).unwrap_or(&[]));
        }
    }

    fn exit(&mut self, s: usize) {
        if let Some(child) = self.current.remove(&Some(s)) {
            self.exit(child);
        }
        self.log.push(format!("exit S{s}"));
    }

    fn update(&mut self) {
        self.ensure_started();
        let mut owner = None;
        while let Some(&s) = self.current.get(&owner) {
            self.log.push(format!("update S{s}"));
            // A taken trigger ends the pass; one nobody takes changes nothing.
            if self.spec.fire[s].is_some_and(|t| self.send(t)) {
                return;
            }
            owner = Some(s);
        }
    }

    fn send(&mut self, t: u8) -> bool {
        self.ensure_started();
        let mut owner = None;
        while let Some(&s) = self.current.get(&owner) {
            let found = self
                .spec
                .transitions
                .iter()
                .find(|&&(f, tt, _)| f == s && tt == t);
            if let Some(&(_, _, to)) = found {
                self.transition(s, to);
                return true;
            }
            owner = Some(s);
        }
        false
    }

    fn transition(&mut self, from: usize, to: usize) {
        let (a, b) = (self.spec.chain(from), self.spec.chain(to));
        let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let k = common.min(a.len().min(b.len()) - 1);
        let owner = if k == 0 { None } else { Some(b[k - 1]) };
        let leaving = self.current[&owner];
        self.exit(leaving);
        self.current.insert(owner, b[k]);
        self.enter(b[k], &b[k + 1..]);
    }

    fn stop(&mut self) {
        if let Some(top) = self.current.remove(&None) {
            self.exit(top);
        }
    }

    fn path(&self) -> Vec<String> {
        let mut path = Vec::new();
        let mut owner = None;
        while let Some(&s) = self.current.get(&owner) {
            path.push(format!("S{s}"));
            owner = Some(s);
        }
        path
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn engine_matches_the_reference(spec in spec(), ops in ops(), save_at in 0usize..40) {
        let machine = build(&spec);
        let mut agent = FsmAgent::new(&machine);
        let mut log = Vec::new();
        let mut reference = Reference { spec: &spec, current: HashMap::new(), log: Vec::new() };
        for (i, op) in ops.into_iter().enumerate() {
            if i == save_at {
                // Saved to bytes and restored: the run must go on unchanged.
                let bytes = agent.snapshot(&machine).to_bytes();
                agent = FsmAgent::restore(&machine, &FsmSnapshot::from_bytes(&bytes).unwrap()).unwrap();
            }
            match op {
                Op::Update => {
                    agent.update(&machine, &mut log, &());
                    reference.update();
                }
                Op::Send(t) => {
                    let taken = agent.send(&machine, t, &mut log, &());
                    prop_assert_eq!(taken, reference.send(t));
                }
                Op::Stop => {
                    agent.stop(&machine, &mut log, &());
                    reference.stop();
                }
            }
            prop_assert_eq!(&log, &reference.log);
            let path: Vec<String> = agent.active().iter().map(|&s| machine.name(s).to_string()).collect();
            prop_assert_eq!(path, reference.path());
        }
    }
}
