//! Player FSM: the classic first state machine, Idle → Jump, on canopy.
//!
//! Two states whose hooks print themselves, one transition registered from
//! Idle to Jump on a trigger, a start state, and a short script: update,
//! send the trigger, update again. Then the trigger is sent once more, from
//! Jump, which has no transition for it: the send reports `false` and no
//! hook runs (rather than being ignored silently).
//!
//! ```text
//! cargo run --example player_fsm
//! ```

use canopy::fsm::{FsmAgent, Hooks, MachineBuilder};

/// What can make the player change state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trigger {
    ToJump,
}

/// The player's own data; the hooks only print, so it is empty.
struct Player;

/// A state whose hooks print `OnEnter Name`, `OnUpdate Name`, `OnExit Name`.
fn printing(name: &'static str) -> Hooks<Player, (), Trigger> {
    Hooks::<Player, (), Trigger>::new()
        .on_enter(move |_| println!("OnEnter {name}"))
        .on_update(move |_| {
            println!("OnUpdate {name}");
            None
        })
        .on_exit(move |_| println!("OnExit {name}"))
}

fn main() {
    let mut b = MachineBuilder::new();
    b.state("Idle", printing("Idle"));
    b.state("Jump", printing("Jump"));
    b.transition("Idle", Trigger::ToJump, "Jump");
    b.start("Idle");
    let machine = b.build().expect("the player machine is valid");
    println!("{}", machine.display());

    let (mut player, mut fsm) = (Player, FsmAgent::new(&machine));
    fsm.start(&machine, &mut player, &());
    fsm.update(&machine, &mut player, &());
    let jumped = fsm.send(&machine, Trigger::ToJump, &mut player, &());
    fsm.update(&machine, &mut player, &());
    println!("ToJump from Idle taken: {jumped}");

    let again = fsm.send(&machine, Trigger::ToJump, &mut player, &());
    println!("ToJump from Jump taken: {again}");
}
