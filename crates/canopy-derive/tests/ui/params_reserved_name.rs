use canopy_data::Params;

/// Greets someone.
#[derive(Params)]
struct Greet {
    /// Whom to greet.
    name: String,
}

fn main() {}
