use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Holder<T: Copy> {
    value: T,
}

fn main() {}
