//! BehaviorTree.CPP itself, through behaviortreepy, for tests whose
//! expectations were recorded from it.

use std::process::Command;

/// Whether behaviortreepy can be imported; where it cannot, the test
/// relies on its recorded expectations, unless `CANOPY_REQUIRE_BTCPP` is
/// set (as CI sets it), which makes its absence a failure.
pub(crate) fn btcpp_available() -> bool {
    let available = Command::new("python3")
        .args(["-c", "import behaviortreepy"])
        .output()
        .is_ok_and(|o| o.status.success());
    let required = std::env::var_os("CANOPY_REQUIRE_BTCPP").is_some();
    assert!(
        available || !required,
        "BehaviorTree.CPP (behaviortreepy) is required here"
    );
    available
}
