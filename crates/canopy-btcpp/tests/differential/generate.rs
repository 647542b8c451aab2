//! Random BehaviorTree.CPP trees over every standard node canopy imports
//! that does not measure time, with scripted leaves (`canopy_Script`) named
//! `L0`, `L1`… so both engines can report per leaf.

/// A small deterministic generator (SplitMix64): the same seed gives the
/// same trees on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The standard nodes with children that the generator uses.
const CONTROLS: &[&str] = &[
    "Sequence",
    "Fallback",
    "ReactiveSequence",
    "ReactiveFallback",
    "SequenceWithMemory",
    "Parallel",
    "ParallelAll",
    "IfThenElse",
    "WhileDoElse",
];

const DECORATORS: &[&str] = &[
    "Inverter",
    "ForceSuccess",
    "ForceFailure",
    "KeepRunningUntilFailure",
    "Repeat",
    "RetryUntilSuccessful",
    "RunOnce",
];

/// Parents under which canopy reads a RunOnce's SKIPPED.
const READS_SKIPPED: &[&str] = &[
    "Sequence",
    "SequenceWithMemory",
    "ReactiveSequence",
    "Fallback",
    "ReactiveFallback",
];

/// One random tree file, with `leaves` counting the scripted leaves.
pub(crate) fn tree(rng: &mut Rng) -> String {
    let mut out = String::from(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <BehaviorTree ID=\"Main\">\n",
    );
    let mut leaves = 0;
    node(rng, &mut out, &mut leaves, 0, None);
    out.push_str("  </BehaviorTree>\n</root>\n");
    out
}

const MAX_DEPTH: usize = 4;

fn node(rng: &mut Rng, out: &mut String, leaves: &mut usize, depth: usize, parent: Option<&str>) {
    let indent = "  ".repeat(depth + 2);
    let roll = rng.below(10);
    if depth >= MAX_DEPTH || (depth > 0 && roll < 4) {
        leaf(rng, out, leaves, &indent);
    } else if roll < 7 {
        let id = rng.pick(CONTROLS);
        let (min, max) = match id {
            "IfThenElse" | "WhileDoElse" => (2, 3),
            _ => (1, 4),
        };
        let n = min + rng.below(max - min + 1);
        let ports = match id {
            "Parallel" => format!(
                " success_count=\"{}\" failure_count=\"{}\"",
                threshold(rng, n),
                threshold(rng, n)
            ),
            "ParallelAll" => format!(" max_failures=\"{}\"", 1 + rng.below(n)),
            _ => String::new(),
        };
        out.push_str(&format!("{indent}<{id}{ports}>\n"));
        for _ in 0..n {
            node(rng, out, leaves, depth + 1, Some(id));
        }
        out.push_str(&format!("{indent}</{id}>\n"));
    } else {
        let id = rng.pick(DECORATORS);
        let ports = match id {
            "Repeat" => format!(" num_cycles=\"{}\"", rng.pick(&["-1", "0", "1", "2", "3"])),
            "RetryUntilSuccessful" => {
                format!(
                    " num_attempts=\"{}\"",
                    rng.pick(&["-1", "0", "1", "2", "3"])
                )
            }
            "RunOnce" => {
                let skip = parent.is_some_and(|p| READS_SKIPPED.contains(&p)) && rng.below(2) == 0;
                format!(" then_skip=\"{skip}\"")
            }
            _ => String::new(),
        };
        out.push_str(&format!("{indent}<{id}{ports}>\n"));
        node(rng, out, leaves, depth + 1, Some(id));
        out.push_str(&format!("{indent}</{id}>\n"));
    }
}

/// A Parallel threshold for `n` children: all (−1) or 1..=n.
fn threshold(rng: &mut Rng, n: usize) -> i64 {
    if rng.below(3) == 0 {
        -1
    } else {
        1 + rng.below(n) as i64
    }
}

fn leaf(rng: &mut Rng, out: &mut String, leaves: &mut usize, indent: &str) {
    match rng.below(12) {
        0 => out.push_str(&format!("{indent}<AlwaysSuccess/>\n")),
        1 => out.push_str(&format!("{indent}<AlwaysFailure/>\n")),
        _ => {
            let len = 1 + rng.below(4);
            let statuses: Vec<&str> = (0..len)
                .map(|_| rng.pick(&["Success", "Failure", "Running"]))
                .collect();
            let clock = if rng.below(4) == 0 { "tick" } else { "install" };
            out.push_str(&format!(
                "{indent}<canopy_Script name=\"L{leaves}\" statuses=\"{}\" clock=\"{clock}\"/>\n",
                statuses.join(";")
            ));
            *leaves += 1;
        }
    }
}
