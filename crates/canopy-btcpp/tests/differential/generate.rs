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

/// A random tree file, and which of the differences the crate documents
/// it can show.
pub(crate) struct Generated {
    pub(crate) xml: String,
    /// A RunOnce may return SKIPPED.
    pub(crate) skips: bool,
    /// An IfThenElse or WhileDoElse may tick a finished leaf that can run
    /// (statuses with Running: a stateful action in BehaviorTree.CPP)
    /// again without resetting it.
    pub(crate) stale_condition: bool,
}

/// A tree being written.
struct Writer<'r> {
    rng: &'r mut Rng,
    out: String,
    leaves: usize,
    skips: bool,
    stale_condition: bool,
}

/// One random tree file.
pub(crate) fn tree(rng: &mut Rng) -> Generated {
    let mut w = Writer {
        rng,
        out: String::from(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <BehaviorTree ID=\"Main\">\n",
        ),
        leaves: 0,
        skips: false,
        stale_condition: false,
    };
    w.node(0, None);
    w.out.push_str("  </BehaviorTree>\n</root>\n");
    Generated {
        xml: w.out,
        skips: w.skips,
        stale_condition: w.stale_condition,
    }
}

const MAX_DEPTH: usize = 4;

impl Writer<'_> {
    /// A node at `depth`; returns whether it is a leaf that can run.
    fn node(&mut self, depth: usize, parent: Option<&str>) -> bool {
        let indent = "  ".repeat(depth + 2);
        let roll = self.rng.below(10);
        if depth >= MAX_DEPTH || (depth > 0 && roll < 4) {
            return self.leaf(&indent);
        }
        if roll < 7 {
            self.control(depth, &indent);
        } else {
            self.decorator(depth, &indent, parent);
        }
        false
    }

    fn control(&mut self, depth: usize, indent: &str) {
        let id = self.rng.pick(CONTROLS);
        let (min, max) = match id {
            "IfThenElse" | "WhileDoElse" => (2, 3),
            _ => (1, 4),
        };
        let n = min + self.rng.below(max - min + 1);
        let ports = match id {
            "Parallel" => format!(
                " success_count=\"{}\" failure_count=\"{}\"",
                threshold(self.rng, n),
                threshold(self.rng, n)
            ),
            "ParallelAll" => format!(" max_failures=\"{}\"", 1 + self.rng.below(n)),
            _ => String::new(),
        };
        self.out.push_str(&format!("{indent}<{id}{ports}>\n"));
        for i in 0..n {
            let can_run = self.node(depth + 1, Some(id));
            let re_ticked = id == "WhileDoElse" || (id == "IfThenElse" && n == 2);
            if i == 0 && can_run && re_ticked {
                self.stale_condition = true;
            }
        }
        self.out.push_str(&format!("{indent}</{id}>\n"));
    }

    fn decorator(&mut self, depth: usize, indent: &str, parent: Option<&str>) {
        let id = self.rng.pick(DECORATORS);
        let counts = ["-1", "0", "1", "2", "3"];
        let ports = match id {
            "Repeat" => format!(" num_cycles=\"{}\"", self.rng.pick(&counts)),
            "RetryUntilSuccessful" => format!(" num_attempts=\"{}\"", self.rng.pick(&counts)),
            "RunOnce" => {
                let skip =
                    parent.is_some_and(|p| READS_SKIPPED.contains(&p)) && self.rng.below(2) == 0;
                self.skips |= skip;
                format!(" then_skip=\"{skip}\"")
            }
            _ => String::new(),
        };
        self.out.push_str(&format!("{indent}<{id}{ports}>\n"));
        self.node(depth + 1, Some(id));
        self.out.push_str(&format!("{indent}</{id}>\n"));
    }

    /// A leaf; returns whether it can run.
    fn leaf(&mut self, indent: &str) -> bool {
        match self.rng.below(12) {
            0 => self.out.push_str(&format!("{indent}<AlwaysSuccess/>\n")),
            1 => self.out.push_str(&format!("{indent}<AlwaysFailure/>\n")),
            _ => {
                let len = 1 + self.rng.below(4);
                let statuses: Vec<&str> = (0..len)
                    .map(|_| self.rng.pick(&["Success", "Failure", "Running"]))
                    .collect();
                let clock = if self.rng.below(4) == 0 {
                    "tick"
                } else {
                    "install"
                };
                self.out.push_str(&format!(
                    "{indent}<canopy_Script name=\"L{}\" statuses=\"{}\" clock=\"{clock}\"/>\n",
                    self.leaves,
                    statuses.join(";")
                ));
                self.leaves += 1;
                return statuses.contains(&"Running");
            }
        }
        false
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
