use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(u8)]
enum Phase {
    Walking,
    Waiting,
}

fn main() {}
