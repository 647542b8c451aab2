//! Player HFSM: the classic hierarchical machine. A Move superstate holds a
//! child machine with Walk and Jump; Idle and Attack sit beside it.
//!
//! Each hook prints itself, indented by its level, so the order is visible:
//! enter runs outermost first (into each child machine's start state),
//! update outermost first, exit innermost first. A trigger is offered to
//! the outermost active state first, then inwards: Attack is handled by
//! Move whether Walk or Jump is active. Jump's update lands by itself
//! after two updates by returning a trigger.
//!
//! ```text
//! cargo run --example player_hfsm
//! ```

use canopy::Ctx;
use canopy::fsm::{FsmAgent, Hooks, MachineBuilder};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    Move,
    Jump,
    Land,
    Attack,
    Stop,
    Done,
}

/// The player's own data: how long the current jump has lasted.
#[derive(Default)]
struct Player {
    airborne: u32,
}

type H = Hooks<Player, (), Input>;

/// A state printing its hooks at indentation `level`.
fn printing(name: &'static str, level: usize) -> H {
    let pad = "    ".repeat(level);
    let (p1, p2, p3) = (pad.clone(), pad.clone(), pad);
    H::new()
        .on_enter(move |_| println!("{p1}enter {name}"))
        .on_update(move |_| {
            println!("{p2}update {name}");
            None
        })
        .on_exit(move |_| println!("{p3}exit {name}"))
}

/// Jump: counts its updates in the player and lands after two.
fn jump() -> H {
    H::new()
        .on_enter(|cx: &mut Ctx<Player, ()>| {
            cx.agent.airborne = 0;
            println!("    enter Jump");
        })
        .on_update(|cx| {
            cx.agent.airborne += 1;
            println!("    update Jump (airborne {})", cx.agent.airborne);
            (cx.agent.airborne == 2).then_some(Input::Land)
        })
        .on_exit(|_| println!("    exit Jump"))
}

fn main() {
    let mut moving = MachineBuilder::new();
    moving.state("Walk", printing("Walk", 1));
    moving.state("Jump", jump());
    moving
        .transition("Walk", Input::Jump, "Jump")
        .transition("Jump", Input::Land, "Walk");
    moving.start("Walk");

    let mut b = MachineBuilder::new();
    b.state("Idle", printing("Idle", 0));
    b.state("Move", printing("Move", 0)).child_machine(moving);
    b.state("Attack", printing("Attack", 0));
    b.transition("Idle", Input::Move, "Move")
        .transition("Move", Input::Stop, "Idle")
        .transition("Move", Input::Attack, "Attack")
        .transition("Attack", Input::Done, "Idle");
    b.start("Idle");
    let machine = b.build().expect("the player machine is valid");
    println!("{}", machine.display());

    let (mut player, mut fsm) = (Player::default(), FsmAgent::new(&machine));
    let script = [
        None,
        Some(Input::Move),
        Some(Input::Jump),
        None,
        None,
        Some(Input::Jump),
        Some(Input::Attack),
        Some(Input::Land),
        Some(Input::Done),
    ];
    for (frame, input) in script.into_iter().enumerate() {
        println!("-- frame {frame}: input {input:?}");
        if let Some(input) = input {
            let taken = fsm.send(&machine, input, &mut player, &());
            if !taken {
                println!("({input:?} ignored: no active state handles it)");
            }
        }
        fsm.update(&machine, &mut player, &());
        let path: Vec<&str> = fsm.active().iter().map(|&s| machine.name(s)).collect();
        println!("active: {}", path.join(" / "));
    }
}
