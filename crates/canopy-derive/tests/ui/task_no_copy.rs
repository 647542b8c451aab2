use canopy_derive::Task;

#[derive(Clone, Task)]
#[repr(C)]
struct Forgetful {
    next: u32,
}

fn main() {}
