//! What the derives accept and what they refuse, with the exact messages
//! a user sees (`tests/ui/*.stderr`). Regenerate the expected messages
//! after a deliberate change with `TRYBUILD=overwrite cargo test -p
//! canopy-derive --test trybuild`, and read the diff.

#[test]
fn derives() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_*.rs");
    cases.compile_fail("tests/ui/task_*.rs");
    cases.compile_fail("tests/ui/params_*.rs");
}
