use canopy_data::Params;

/// Says something.
#[derive(Params)]
struct Say {
    /// What to say.
    #[param(range = 0..=5)]
    line: String,
}

fn main() {}
