//! Property: for any tree file, crowd, seed, mode and split point, saving
//! after N ticks and restoring for K more gives exactly the trace of an
//! uninterrupted run from tick N+1 on. Run in-process through
//! `Cli::run_with` with the built-in node types, as the `canopy` binary
//! has them.

use std::sync::atomic::{AtomicU32, Ordering};

use canopy_cli::Cli;
use canopy_data::Registry;
use proptest::prelude::*;

const FILES: [&str; 4] = [
    "examples/trees/sentry.json",
    "examples/trees/pet.ron",
    "crates/canopy-cli/tests/fixtures/takeover.json",
    "crates/canopy-cli/tests/fixtures/door.xml",
];

/// `canopy ARGS`: its standard output, which must be all it wrote.
fn canopy(args: &[String]) -> String {
    let cli = Cli::new(Registry::<(), ()>::new()).agent(|_| ()).world(());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut all = vec!["canopy".to_string()];
    all.extend(args.iter().cloned());
    let code = cli.run_with(all, &mut out, &mut err);
    assert_eq!(
        (code, String::from_utf8_lossy(&err).as_ref()),
        (0, ""),
        "{args:?}"
    );
    String::from_utf8(out).unwrap()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

static CASE: AtomicU32 = AtomicU32::new(0);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn restoring_continues_the_trace(
        file in 0..FILES.len(),
        agents in 1u32..6,
        seed in 0u64..1000,
        n in 1u32..30,
        k in 1u32..30,
        event in any::<bool>(),
        switch in any::<bool>(),
    ) {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let file = format!("{root}/{}", FILES[file]);
        let snap = std::env::temp_dir().join(format!(
            "canopy-cli-prop-{}-{}.snap",
            std::process::id(),
            CASE.fetch_add(1, Ordering::Relaxed)
        ));
        let snap = snap.display().to_string();
        let (agents, seed) = (agents.to_string(), seed.to_string());
        let mode = if event { "event" } else { "tick" };
        let total = (n + k).to_string();
        let whole = canopy(&args(&[
            "run", &file, "--trace", "--ticks", &total, "--agents", &agents, "--seed", &seed,
            "--mode", mode,
        ]));
        canopy(&args(&[
            "run", &file, "--ticks", &n.to_string(), "--agents", &agents, "--seed", &seed,
            "--mode", mode, "--save", &snap,
        ]));
        let mut rest = args(&[
            "run", &file, "--trace", "--restore", &snap, "--ticks", &k.to_string(), "--seed",
            &seed,
        ]);
        if switch {
            // Naming the saved mode again changes nothing.
            rest.extend(args(&["--mode", mode]));
        }
        let rest = canopy(&rest);
        std::fs::remove_file(&snap).unwrap();
        let expected: Vec<&str> = whole
            .lines()
            .filter(|line| {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                value["tick"].as_u64().unwrap() > u64::from(n)
            })
            .collect();
        prop_assert!(!expected.is_empty());
        prop_assert_eq!(rest.lines().collect::<Vec<_>>(), expected);
    }
}
