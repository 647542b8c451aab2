//! BehaviorTree.CPP's crossdoor tutorial on canopy: get through a door
//! that may be open, closed, or locked — a Fallback, an Inverter, a
//! RetryUntilSuccessful and a second `<BehaviorTree>` used as a `<SubTree>`.
//!
//! The subtree is shared, as canopy shares every subtree: the tree holds
//! it once however often it is used, and each agent (each door here) keeps
//! only the state of what is running for it. RetryUntilSuccessful runs as
//! BehaviorTree.CPP's does in a tree: after an attempt that failed at once
//! it returns Running and tries again at the next tick, so a lock picked at
//! the third try opens at the third tick.
//!
//! ```text
//! cargo run --example btcpp_crossdoor
//! ```

use canopy::data::Registry;
use canopy::xml::{XmlOptions, load_str};
use canopy::{Agent, Ctx, Mode, Status};

const CROSS_DOOR: &str = r#"
<root BTCPP_format="4" main_tree_to_execute="CrossDoor">
  <BehaviorTree ID="CrossDoor">
    <Sequence>
      <Fallback>
        <Inverter>
          <IsDoorClosed/>
        </Inverter>
        <SubTree ID="GetDoorOpen"/>
      </Fallback>
      <PassThroughDoor/>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="GetDoorOpen">
    <Fallback>
      <OpenDoor/>
      <RetryUntilSuccessful num_attempts="5">
        <PickLock/>
      </RetryUntilSuccessful>
      <SmashDoor/>
    </Fallback>
  </BehaviorTree>
</root>
"#;

/// A door and the one trying to get through it: the agent's data.
#[derive(Debug, Default)]
struct Door {
    open: bool,
    locked: bool,
    /// Picks the lock takes to yield (0: it never does).
    picks_needed: u32,
    picks: u32,
    log: Vec<&'static str>,
}

/// An action on the door: what it does and whether it worked.
type DoorAction = fn(&mut Door) -> bool;

fn registry() -> Registry<Door, ()> {
    let mut registry = Registry::new();
    registry
        .condition("IsDoorClosed", |(): ()| |cx: &Ctx<Door, ()>| !cx.agent.open)
        .expect("a new name");
    let actions: [(&str, DoorAction); 4] = [
        ("PassThroughDoor", |door| {
            door.log.push("walked through");
            door.open
        }),
        ("OpenDoor", |door| {
            door.open = !door.locked;
            door.log
                .push(if door.open { "opened" } else { "it is locked" });
            door.open
        }),
        ("PickLock", |door| {
            door.picks += 1;
            if door.picks == door.picks_needed {
                (door.locked, door.open) = (false, true);
            }
            door.log.push(if door.open {
                "picked the lock"
            } else {
                "pick failed"
            });
            door.open
        }),
        ("SmashDoor", |door| {
            (door.locked, door.open) = (false, true);
            door.log.push("smashed it");
            true
        }),
    ];
    for (name, act) in actions {
        registry
            .action(name, move |(): ()| {
                move |cx: &mut Ctx<Door, ()>| {
                    if act(cx.agent) {
                        Status::Success
                    } else {
                        Status::Failure
                    }
                }
            })
            .expect("a new name");
    }
    registry
}

fn main() {
    let tree = load_str(
        &registry(),
        CROSS_DOOR,
        "crossdoor.xml",
        None,
        &XmlOptions::default(),
    )
    .expect("the tree loads");
    print!("{}", tree.display());
    // BehaviorTree.CPP's Fallback is canopy's Selector; the subtree is
    // transparent, as in BehaviorTree.CPP.
    assert_eq!(
        tree.display().to_string(),
        "\
Sequence
├── Fallback  Selector
│   ├── Inverter
│   │   └── IsDoorClosed
│   └── Fallback  Selector
│       ├── OpenDoor
│       ├── RetryUntilSuccessful(num_attempts=5)
│       │   └── PickLock
│       └── SmashDoor
└── PassThroughDoor
"
    );

    let doors = [
        (
            "an open door",
            Door {
                open: true,
                ..Door::default()
            },
        ),
        ("a closed door", Door::default()),
        (
            "a lock that yields at the third pick",
            Door {
                locked: true,
                picks_needed: 3,
                ..Door::default()
            },
        ),
        (
            "a lock that never yields",
            Door {
                locked: true,
                ..Door::default()
            },
        ),
    ];
    let expected: [&[&str]; 4] = [
        &["walked through"],
        &["opened", "walked through"],
        &[
            "it is locked",
            "pick failed",
            "pick failed",
            "picked the lock",
            "walked through",
        ],
        &[
            "it is locked",
            "pick failed",
            "pick failed",
            "pick failed",
            "pick failed",
            "pick failed",
            "smashed it",
            "walked through",
        ],
    ];
    for ((what, door), expected) in doors.into_iter().zip(expected) {
        // The same in canopy's event mode, which updates only the tasks
        // that can change.
        for mode in [Mode::Tick, Mode::Event] {
            let mut door = Door {
                log: Vec::new(),
                ..door
            };
            let mut agent = Agent::new(&tree);
            agent.set_mode(&tree, mode);
            // RetryUntilSuccessful yields after an attempt that failed at
            // once, as BehaviorTree.CPP's does: an attempt a tick.
            let mut ticks = 1;
            let mut status = agent.tick(&tree, &mut door, &());
            while status == Status::Running && ticks < 20 {
                status = agent.tick(&tree, &mut door, &());
                ticks += 1;
            }
            if mode == Mode::Tick {
                println!(
                    "{what}: {status:?} in {ticks} tick(s): {}",
                    door.log.join(", ")
                );
            }
            assert_eq!(status, Status::Success);
            assert_eq!(door.log, expected, "{what}, {mode:?} mode");
        }
    }
}
