use canopy_data::Params;

/// Counts.
#[derive(Params)]
struct Count {
    /// How many.
    #[param(range = 0..10)]
    times: u32,
}

fn main() {}
