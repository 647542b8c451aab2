use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Gappy {
    small: u8,
    large: u32,
}

fn main() {}
