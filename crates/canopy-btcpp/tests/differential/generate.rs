//! Random BehaviorTree.CPP trees over every standard node canopy imports
//! that does not measure time, with scripted leaves (`canopy_Script`) named
//! `L0`, `L1`… so both engines can report per leaf, and the blackboard
//! nodes: scripts over the keys `a`, `b`, `c`, `d` (whole numbers), `e` (a
//! string) and `f` (a double), all written first, as BehaviorTree.CPP
//! throws on a key nothing wrote — with operators mixed without
//! parentheses, strings joined with `+` and `..`, doubles compared within
//! BehaviorTree.CPP's epsilon, strings assigned to number keys; pre- and
//! post-condition attributes (beside nodes that return SKIPPED of their
//! own too), `Precondition` (`else` any status but IDLE), `Switch2`,
//! `SetBlackboard`, `LoopInt` (`if_empty` likewise; its queue in the file
//! or the key `__q`, which scripts assign and loops consume), and a
//! `<SubTree>` remapping or sharing those keys, whose nodes name the main
//! tree's keys with `{@key}` in every kind of port, with Groot2's model of
//! its ports at times. Counts of `Repeat` and `RetryUntilSuccessful` come
//! from the blackboard at times (`n`, a string converted as the port reads
//! it, or `d`); `WasEntryUpdated` and `SkipUnlessUpdated` watch keys the
//! scripts write; scripted leaves are written as `<Condition ID=…>` or
//! `<Action ID=…>` at times, whatever they are registered as.

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
    "Switch2",
];

const DECORATORS: &[&str] = &[
    "Inverter",
    "ForceSuccess",
    "ForceFailure",
    "KeepRunningUntilFailure",
    "Repeat",
    "RetryUntilSuccessful",
    "RunOnce",
    "Precondition",
    "LoopInt",
    "SkipUnlessUpdated",
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
    /// A node may return SKIPPED (a RunOnce, `_skipIf`, `_while`).
    pub(crate) skips: bool,
    /// An IfThenElse or WhileDoElse may tick a finished condition that
    /// keeps a status of its own (a leaf that can run, a stateful action in
    /// BehaviorTree.CPP; a `LoopInt`, whose queue is then empty) again
    /// without resetting it.
    pub(crate) stale_condition: bool,
    /// A loop takes its items from a queue on the blackboard, which
    /// BehaviorTree.CPP 4.8.2 pops in place and 4.10 (and canopy) copy on
    /// entry: a loop entered again differs between the two versions.
    pub(crate) blackboard_queue: bool,
}

/// A tree being written.
struct Writer<'r> {
    rng: &'r mut Rng,
    out: String,
    leaves: usize,
    skips: bool,
    stale_condition: bool,
    blackboard_queue: bool,
    /// The `<SubTree>` element written, if any (one per file: BehaviorTree.CPP's
    /// leaves are counted by name, and two copies would share one).
    subtree: bool,
    /// Writing the subtree, where the queue key `__q` may be its own
    /// (unwritten) key.
    in_subtree: bool,
}

/// The ports of the subtree `Sub`, as Groot2 writes them into the model.
const SUBTREE_MODEL: &str = "  <TreeNodesModel>\n    <SubTree ID=\"Sub\">\n      \
    <input_port name=\"a\"/>\n      <inout_port name=\"b\"/>\n      \
    <input_port name=\"c\" type=\"int\"/>\n    </SubTree>\n  </TreeNodesModel>\n";

/// Scripts a `Script` leaf runs (`d` stays a small whole number, `e` a
/// string of at most 6 bytes, `f` a double).
const SCRIPTS: &[&str] = &[
    "a += 1",
    "b += 2",
    "a = 0",
    "c := a + b",
    "b = b + a",
    "c := a + b * 2 - 1",
    "e := a &gt; 1 ? 'hi' : 'lo'",
    "e := 'v' .. a",
    "e := e + '!'; e := e == 'hi!' ? 'x' : e",
    "f := a / 4",
    "f := f + 0.1",
    "d := '2'",
    "a := b &lt; 4 &amp;&amp; c != 1",
];

/// Scripts a `ScriptCondition` tests.
const CONDITIONS: &[&str] = &[
    "a &lt; 3",
    "b == 2",
    "a != b",
    "c &gt;= 2",
    "a + b &gt; 3",
    "a + b * 2 &gt; c - 1 &amp;&amp; b != 0",
    "e == 'hi'",
    "e &lt; 'm'",
    "f * 3 == 0.9",
    "f == 0.3",
    "1 &lt; a + 1 &lt; 4",
    "a &amp; 1 == 1",
];

/// Scripts of the subtree's nodes: over `a`, `b`, `c` (which every
/// `<SubTree>` call remaps) and the main tree's keys by `@`.
const SUB_SCRIPTS: &[&str] = &[
    "a += 1",
    "b += 2",
    "c := a + b * 2 - 1",
    "@a += 1; @e := 'lo'",
    "@e := a &gt; 1 ? 'hi' : 'lo'",
    "@f := @f + 0.1",
    "@e := 'v' .. a",
    "@d := '2'",
];

/// Conditions of the subtree's nodes.
const SUB_CONDITIONS: &[&str] = &[
    "a &lt; 3",
    "b == 2",
    "a + b * 2 &gt; c - 1 &amp;&amp; b != 0",
    "@a &lt; 3",
    "@e == 'lo'",
    "@f * 3 == 0.9",
];

/// Pre- and post-condition attributes; the first two can skip.
const ATTRIBUTES: &[(&str, &str)] = &[
    ("_skipIf", "a == 1"),
    ("_while", "a &lt; 4"),
    ("_failureIf", "b &gt; 6"),
    ("_successIf", "a == 3"),
    ("_onSuccess", "a += 1"),
    ("_onFailure", "b += 1"),
    ("_post", "c += 1"),
    ("_onHalted", "b += 3"),
];

/// How a `<SubTree ID="Sub">` passes the keys: remapped, or shared.
const SUBTREE_CALLS: &[&str] = &[
    " _autoremap=\"true\"",
    " a=\"{b}\" b=\"{a}\" c=\"{c}\"",
    " a=\"{c}\" b=\"{=}\" c=\"{a}\"",
    " a=\"{a}\" _autoremap=\"true\"",
];

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
        blackboard_queue: false,
        subtree: false,
        in_subtree: false,
    };
    // `g` and `h` are written by SetBlackboard from the start, as
    // BehaviorTree.CPP shows no key before something writes it.
    w.out.push_str(
        "    <Sequence>\n      <Script code=\"a := 0; b := 0; c := 0; d := 0; e := ''; f := 0.0; n := '2'; __q := '1;2;3'\"/>\n      <SetBlackboard output_key=\"g\" value=\"-\"/>\n      <SetBlackboard output_key=\"h\" value=\"{a}\"/>\n",
    );
    w.node(1, Some("Sequence"));
    w.out.push_str("    </Sequence>\n  </BehaviorTree>\n");
    if w.subtree {
        w.in_subtree = true;
        w.out.push_str("  <BehaviorTree ID=\"Sub\">\n");
        w.node(1, None);
        w.out.push_str("  </BehaviorTree>\n");
        if w.rng.below(2) == 0 {
            w.out.push_str(SUBTREE_MODEL);
        }
    }
    w.out.push_str("</root>\n");
    Generated {
        xml: w.out,
        skips: w.skips,
        stale_condition: w.stale_condition,
        blackboard_queue: w.blackboard_queue,
    }
}

const MAX_DEPTH: usize = 4;

impl Writer<'_> {
    /// A node at `depth`; returns whether it keeps a status of its own when
    /// ticked again without a reset: a leaf that can run, a `LoopInt`
    /// (whose queue is then empty).
    fn node(&mut self, depth: usize, parent: Option<&str>) -> bool {
        let indent = "  ".repeat(depth + 2);
        let roll = self.rng.below(10);
        if depth >= MAX_DEPTH || (depth > 0 && roll < 4) {
            return self.leaf(&indent, parent);
        }
        if roll < 7 {
            self.control(depth, &indent, parent);
            false
        } else {
            self.decorator(depth, &indent, parent)
        }
    }

    /// Pre- and post-condition attributes for a node under `parent`, at
    /// times: only those that cannot skip where no parent reads SKIPPED.
    fn attributes(&mut self, parent: Option<&str>) -> String {
        if self.rng.below(4) != 0 {
            return String::new();
        }
        let reads_skipped = parent.is_some_and(|p| READS_SKIPPED.contains(&p));
        let mut out = String::new();
        for _ in 0..1 + self.rng.below(2) {
            let (name, code) = ATTRIBUTES[self.rng.below(ATTRIBUTES.len())];
            let skips = matches!(name, "_skipIf" | "_while");
            if out.contains(name) || (skips && !reads_skipped) {
                continue;
            }
            self.skips |= skips;
            out.push_str(&format!(" {name}=\"{code}\""));
        }
        out
    }

    fn control(&mut self, depth: usize, indent: &str, parent: Option<&str>) {
        let id = self.rng.pick(CONTROLS);
        if id == "Switch2" {
            let attrs = self.attributes(parent);
            let variable = match (self.in_subtree, self.rng.below(3)) {
                (true, 0) => "{@a}",
                (true, 1) => "{@e}",
                (false, 1) => "{e}",
                _ => "{a}",
            };
            let cases = if variable.contains('e') {
                "case_1=\"hi\" case_2=\"v1\""
            } else {
                "case_1=\"1\" case_2=\"2.0\""
            };
            self.out.push_str(&format!(
                "{indent}<Switch2 variable=\"{variable}\" {cases}{attrs}>\n"
            ));
            for _ in 0..3 {
                self.node(depth + 1, Some(id));
            }
            self.out.push_str(&format!("{indent}</Switch2>\n"));
            return;
        }
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
        let attrs = self.attributes(parent);
        self.out
            .push_str(&format!("{indent}<{id}{ports}{attrs}>\n"));
        let re_ticked = id == "WhileDoElse" || (id == "IfThenElse" && n == 2);
        for i in 0..n {
            // A condition first, as these nodes are written, three times
            // in four; else any node, which BehaviorTree.CPP may tick
            // again without resetting it (a documented difference).
            if i == 0 && matches!(id, "IfThenElse" | "WhileDoElse") && self.rng.below(4) != 0 {
                self.condition_leaf(&format!("{indent}  "));
                continue;
            }
            let before = self.out.len();
            let can_run = self.node(depth + 1, Some(id));
            // A finished node ticked again without a reset keeps its
            // status in BehaviorTree.CPP: a leaf that can run does not
            // run, a node with pre-conditions does not test them.
            let tests_on_entry = ["_skipIf", "_while", "_failureIf", "_successIf"]
                .iter()
                .any(|attr| self.out[before..].contains(attr));
            if i == 0 && (can_run || tests_on_entry) && re_ticked {
                self.stale_condition = true;
            }
        }
        self.out.push_str(&format!("{indent}</{id}>\n"));
    }

    /// A decorator; returns whether it is a `LoopInt`.
    fn decorator(&mut self, depth: usize, indent: &str, parent: Option<&str>) -> bool {
        let mut id = self.rng.pick(DECORATORS);
        let reads_skipped = parent.is_some_and(|p| READS_SKIPPED.contains(&p));
        if id == "SkipUnlessUpdated" && !reads_skipped {
            id = "Inverter";
        }
        // A count from the blackboard: `n`, a string BehaviorTree.CPP
        // converts when the port reads it, or `d`, a whole number.
        let (n, d) = match self.in_subtree {
            true => ("{@n}", "{@d}"),
            false => ("{n}", "{d}"),
        };
        let counts = ["-1", "0", "1", "2", "3", n, d];
        let ports = match id {
            "Repeat" => format!(" num_cycles=\"{}\"", self.rng.pick(&counts)),
            "RetryUntilSuccessful" => format!(" num_attempts=\"{}\"", self.rng.pick(&counts)),
            "RunOnce" => {
                let skip =
                    parent.is_some_and(|p| READS_SKIPPED.contains(&p)) && self.rng.below(2) == 0;
                self.skips |= skip;
                format!(" then_skip=\"{skip}\"")
            }
            "Precondition" => {
                let otherwise = self.status_port(parent, &["SUCCESS", "FAILURE", "RUNNING"]);
                let condition = self.condition();
                format!(" if=\"{condition}\" else=\"{otherwise}\"")
            }
            "LoopInt" => {
                let if_empty = self.status_port(parent, &["SUCCESS", "FAILURE", "RUNNING"]);
                let queues: &[&str] = if self.in_subtree {
                    &["1;2", "3", "1;2;3", "{@__q}"]
                } else {
                    &["1;2", "3", "1;2;3", "{__q}"]
                };
                let value = match self.in_subtree && self.rng.below(2) == 0 {
                    true => "{@d}",
                    false => "{d}",
                };
                let queue = self.rng.pick(queues);
                self.blackboard_queue |= queue.starts_with('{');
                format!(" queue=\"{queue}\" value=\"{value}\" if_empty=\"{if_empty}\"")
            }
            "SkipUnlessUpdated" => {
                self.skips = true;
                format!(" entry=\"{}\"", self.entry())
            }
            _ => String::new(),
        };
        let attrs = self.attributes(parent);
        self.out
            .push_str(&format!("{indent}<{id}{ports}{attrs}>\n"));
        self.node(depth + 1, Some(id));
        self.out.push_str(&format!("{indent}</{id}>\n"));
        id == "LoopInt"
    }

    /// A leaf that finishes at once, as conditions do: a script condition
    /// or a scripted leaf of Success and Failure.
    fn condition_leaf(&mut self, indent: &str) {
        if self.rng.below(2) == 0 {
            let code = self.condition();
            self.out
                .push_str(&format!("{indent}<ScriptCondition code=\"{code}\"/>\n"));
            return;
        }
        let len = 1 + self.rng.below(3);
        let statuses: Vec<&str> = (0..len)
            .map(|_| self.rng.pick(&["Success", "Failure"]))
            .collect();
        self.out.push_str(&format!(
            "{indent}<canopy_Script name=\"L{}\" statuses=\"{}\" clock=\"install\"/>\n",
            self.leaves,
            statuses.join(";")
        ));
        self.leaves += 1;
    }

    /// An entry whose updates a node watches: a whole-number key scripts
    /// write. (On a string entry BehaviorTree.CPP 4.8.2 throws, "You
    /// didn't implement the template specialization of convertFromString
    /// for this type: BT::Any"; 4.10 does not.)
    fn entry(&mut self) -> &'static str {
        match self.in_subtree {
            true => self.rng.pick(&["{a}", "{b}", "{@a}"]),
            false => self.rng.pick(&["{a}", "{b}", "{c}"]),
        }
    }

    /// A condition script for the tree being written.
    fn condition(&mut self) -> &'static str {
        match self.in_subtree {
            true => self.rng.pick(SUB_CONDITIONS),
            false => self.rng.pick(CONDITIONS),
        }
    }

    /// A status for a Precondition's `else` or a loop's `if_empty`: one of
    /// `statuses`, or SKIPPED at times where the parent reads it.
    fn status_port(&mut self, parent: Option<&str>, statuses: &[&'static str]) -> &'static str {
        let reads_skipped = parent.is_some_and(|p| READS_SKIPPED.contains(&p));
        if reads_skipped && self.rng.below(statuses.len() + 1) == 0 {
            self.skips = true;
            return "SKIPPED";
        }
        self.rng.pick(statuses)
    }

    /// A leaf; returns whether it can run.
    fn leaf(&mut self, indent: &str, parent: Option<&str>) -> bool {
        let attrs = self.attributes(parent);
        match self.rng.below(18) {
            0 => self
                .out
                .push_str(&format!("{indent}<AlwaysSuccess{attrs}/>\n")),
            1 => self
                .out
                .push_str(&format!("{indent}<AlwaysFailure{attrs}/>\n")),
            12 | 13 => {
                let code = match self.in_subtree {
                    false if self.rng.below(6) == 0 => "__q := '4;5'",
                    true => self.rng.pick(SUB_SCRIPTS),
                    false => self.rng.pick(SCRIPTS),
                };
                self.out
                    .push_str(&format!("{indent}<Script code=\"{code}\"{attrs}/>\n"));
            }
            14 => {
                let code = self.condition();
                self.out.push_str(&format!(
                    "{indent}<ScriptCondition code=\"{code}\"{attrs}/>\n"
                ));
            }
            11 => {
                // A value written in the file into a key of its own (`g`),
                // or a number key copied into another (`h`), by `@` from
                // the subtree. (Into a key a script made, BehaviorTree.CPP
                // stores a value its own readers cannot read: not drawn.)
                let at = if self.in_subtree { "@" } else { "" };
                let (key, value) = match self.rng.below(3) {
                    0 => (format!("{at}h"), format!("{{{at}a}}")),
                    1 => (format!("{at}g"), "it's".to_string()),
                    _ => (format!("{at}g"), "hi".to_string()),
                };
                self.out.push_str(&format!(
                    "{indent}<SetBlackboard output_key=\"{key}\" value=\"{value}\"{attrs}/>\n"
                ));
            }
            15 if !self.subtree && parent.is_some() => {
                self.subtree = true;
                let call = self.rng.pick(SUBTREE_CALLS);
                self.out
                    .push_str(&format!("{indent}<SubTree ID=\"Sub\"{call}{attrs}/>\n"));
            }
            15 => self
                .out
                .push_str(&format!("{indent}<AlwaysSuccess{attrs}/>\n")),
            16 => {
                let entry = self.entry();
                self.out.push_str(&format!(
                    "{indent}<WasEntryUpdated entry=\"{entry}\"{attrs}/>\n"
                ));
            }
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
                // At times in the explicit form, as a <Condition> though
                // it is registered as an action: BehaviorTree.CPP runs it.
                // (Not under a ReactiveSequence or ReactiveFallback, whose
                // children BehaviorTree.CPP refuses in the explicit form.)
                let reactive = parent.is_some_and(|p| p.starts_with("Reactive"));
                let open = match self.rng.below(6) {
                    0 if !reactive => "Condition ID=\"canopy_Script\"",
                    1 if !reactive => "Action ID=\"canopy_Script\"",
                    _ => "canopy_Script",
                };
                self.out.push_str(&format!(
                    "{indent}<{open} name=\"L{}\" statuses=\"{}\" clock=\"{clock}\"{attrs}/>\n",
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
