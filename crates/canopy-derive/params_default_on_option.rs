use canopy_data::Params;

/// Waits a while.
#[derive(Params)]
struct Pause {
    /// Ticks to wait, if any.
    #[param(default = 3)]
    ticks: Option<u32>,
}

fn main() {}
