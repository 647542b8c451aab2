use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
struct Loose {
    next: u32,
    waited: u32,
}

fn main() {}
