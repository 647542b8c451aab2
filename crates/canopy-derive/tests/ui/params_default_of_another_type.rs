use canopy_data::Params;

/// Walks.
#[derive(Params)]
struct Walk {
    /// Distance per tick.
    #[param(default = "fast")]
    speed: f32,
}

fn main() {}
