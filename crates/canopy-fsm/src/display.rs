//! Showing a machine to people: one line per state, indented under its
//! parent with box-drawing characters like a printed behavior tree, with
//! its marks and its transitions on the same line.
//!
//! ```text
//! Idle  [start]  ToMove → Move, ToAttack → Attack
//! Move
//! ├── Walk  [start]  ToJump → Jump
//! └── Jump  Land → Walk
//! ```

use std::fmt::{self, Debug, Write};

use crate::machine::{Machine, StateId};

/// The indented view of a machine; see [`Machine::display`].
///
/// ```
/// use canopy_fsm::{Hooks, MachineBuilder};
/// let mut moving = MachineBuilder::<(), (), &str>::new();
/// moving.state("Walk", Hooks::new());
/// moving.state("Jump", Hooks::new());
/// moving.transition("Walk", "jump", "Jump").transition("Jump", "land", "Walk");
/// moving.start("Walk");
/// let mut b = MachineBuilder::new();
/// b.state("Idle", Hooks::new());
/// b.state("Move", Hooks::new()).child_machine(moving);
/// b.state("Dead", Hooks::new()).fails();
/// b.transition("Idle", "go", "Move").transition("Move", "die", "Dead");
/// b.start("Idle");
/// assert_eq!(b.build().unwrap().display().to_string(), "\
/// Idle  [start]  \"go\" → Move
/// Move  \"die\" → Dead
/// ├── Walk  [start]  \"jump\" → Jump
/// └── Jump  \"land\" → Walk
/// Dead  [final: Failure]
/// ");
/// ```
pub struct Outline<'m, A, W, T> {
    pub(crate) machine: &'m Machine<A, W, T>,
}

impl<A, W, T> Machine<A, W, T> {
    /// An indented, human-readable view of the states, their transitions,
    /// start and final states; see [`Outline`].
    pub fn display(&self) -> Outline<'_, A, W, T> {
        Outline { machine: self }
    }
}

impl<A, W, T> fmt::Debug for Outline<'_, A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outline").finish_non_exhaustive()
    }
}

impl<A, W, T: Debug> Outline<'_, A, W, T> {
    /// `Name  [marks]  trigger → Target, …`.
    fn describe(&self, id: StateId, start: bool) -> String {
        let m = self.machine;
        let mut line = m.name(id).to_string();
        let mut marks = Vec::new();
        if start {
            marks.push("start".to_string());
        }
        if let Some(outcome) = m.outcome(id) {
            marks.push(format!("final: {outcome}"));
        }
        if m.runs_tree(id) {
            marks.push("tree".to_string());
        }
        if !marks.is_empty() {
            let _ = write!(line, "  [{}]", marks.join(", "));
        }
        let arrows: Vec<String> = m
            .transitions(id)
            .map(|(t, to)| format!("{t:?} → {}", m.name(to)))
            .collect();
        if !arrows.is_empty() {
            let _ = write!(line, "  {}", arrows.join(", "));
        }
        line
    }

    fn write_level(
        &self,
        f: &mut fmt::Formatter<'_>,
        states: &[StateId],
        start: StateId,
        prefix: &str,
        top: bool,
    ) -> fmt::Result {
        for (i, &id) in states.iter().enumerate() {
            let last = i + 1 == states.len();
            let (branch, indent) = match (top, last) {
                (true, _) => ("", ""),
                (false, true) => ("└── ", "    "),
                (false, false) => ("├── ", "│   "),
            };
            writeln!(f, "{prefix}{branch}{}", self.describe(id, id == start))?;
            let children: Vec<StateId> = self.machine.children(id).collect();
            if let Some(initial) = self.machine.initial(id) {
                self.write_level(f, &children, initial, &format!("{prefix}{indent}"), false)?;
            }
        }
        Ok(())
    }
}

impl<A, W, T: Debug> fmt::Display for Outline<'_, A, W, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let top: Vec<StateId> = self.machine.top_level().collect();
        self.write_level(f, &top, self.machine.start(), "", true)
    }
}
