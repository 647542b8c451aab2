//! Tasks that are plain bytes derive `Task` with no other attribute, and
//! serve as a custom node's task.

use canopy_core::bytemuck::{Pod, Zeroable};
use canopy_core::{Agent, Builder, Children, Ctx, Node, Status};
use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct PatrolTask {
    next: u32,
    waited: u32,
}

/// Another task inside a task, arrays of any length, floats, explicit padding.
#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Big {
    position: [f64; 2],
    patrol: PatrolTask,
    seen: [u32; 40],
    flags: u8,
    _pad: [u8; 7],
}

#[derive(Clone, Copy, Task)]
#[repr(transparent)]
struct Counter(u64);

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Nothing;

fn is_pod<T: Pod + Zeroable>() {}

struct Patrol;

impl Node<u32, ()> for Patrol {
    type Task = PatrolTask;
    fn create_task(&self, _: &mut Ctx<u32, ()>) -> PatrolTask {
        PatrolTask { next: 0, waited: 0 }
    }
    fn update(&self, task: &mut PatrolTask, cx: &mut Ctx<u32, ()>, _: &mut Children<u32, ()>) -> Status {
        task.next += 1;
        *cx.agent = task.next;
        Status::Running
    }
}

fn main() {
    is_pod::<Big>();
    is_pod::<Counter>();
    is_pod::<Nothing>();
    let b = Builder::new();
    let tree = b.build(b.custom("patrol", Patrol, [])).unwrap();
    let mut agent = Agent::new(&tree);
    let mut next = 0;
    agent.tick(&tree, &mut next, &());
    agent.tick(&tree, &mut next, &());
    assert_eq!(next, 2);
}
