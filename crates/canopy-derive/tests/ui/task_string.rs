use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Greeting {
    count: u32,
    text: String,
}

fn main() {}
