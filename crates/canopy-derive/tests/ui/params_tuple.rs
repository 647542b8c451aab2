use canopy_data::{ParamEnum, Params};

/// Moves.
#[derive(Params)]
struct Move(f32, f32);

#[derive(ParamEnum)]
enum Target {
    Home,
    Point(f32, f32),
}

fn main() {}
