use canopy_derive::Task;

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Cursor {
    at: *const u8,
}

#[derive(Clone, Copy, Task)]
#[repr(C)]
struct Borrowed {
    at: &'static u32,
}

fn main() {}
