use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Door {
    open: bool,
    opened: [bool; 3],
}

fn main() {}
