#!/usr/bin/env python3
"""Write the fuzzer's seed corpus: the example trees, and one small file per
class of hostile input (the same classes as the `hostile_files` tests):
expansion through shared subtrees, control characters in every place a
name or value can be, huge pieces of text, byte-order marks and UTF-16,
deep nesting, cycles, and one file using every built-in node type.

Seeds are generated, not committed: `python3 fuzz/seed_corpus.py` writes
them to `fuzz/corpus/load/` (or the directory given as the argument). Each
stays under 64 KiB, the `-max_len` the README's commands use.

It also writes the inspector's control messages, the page's own and their
near misses, to `fuzz/corpus/inspector_control/` (or the second argument),
seeds for saved crowds to `fuzz/corpus/crowd_save/` (or the third), node
models with stand-in rules and trees to `fuzz/corpus/model/` (or the
fourth; with the node models of `../shared/btcpp-corpus` when it is
there, read in place), and scripts in XML attributes to
`fuzz/corpus/xml_scripts/` (or the fifth).
"""

import json
import pathlib
import shutil
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "corpus" / "load"
CONTROL_OUT = (
    pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "corpus" / "inspector_control"
)

CROWD_OUT = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else HERE / "corpus" / "crowd_save"
MODEL_OUT = pathlib.Path(sys.argv[4]) if len(sys.argv) > 4 else HERE / "corpus" / "model"
SCRIPTS_OUT = pathlib.Path(sys.argv[5]) if len(sys.argv) > 5 else HERE / "corpus" / "xml_scripts"
# Real node models, read where they are when they are there (never copied
# into the repository): the corpus of BehaviorTree.CPP trees beside it.
BTCPP_CORPUS = HERE.parent.parent / "shared" / "btcpp-corpus"


def model_seeds():
    """Node-model seeds: `MODEL \0 RULES \0 TREE`, as the `model` target
    splits its input (a missing part: the defaults; no tree: the model
    file's own)."""
    model = """<root BTCPP_format="4"><TreeNodesModel>
  <Action ID="ComputePath"><input_port name="goal" type="Pose"/>
    <output_port name="path" type="Path"/></Action>
  <Action ID="FollowPath"><input_port name="path" type="Path" default="{path}"/>
    <inout_port name="speed" type="double">how fast</inout_port></Action>
  <Condition ID="IsBatteryLow"><input_port name="min" type="double" default="0.2"/></Condition>
  <Control ID="RecoveryNode"><input_port name="number_of_retries" type="int"/></Control>
  <Decorator ID="RateController"><input_port name="hz" type="double"/></Decorator>
  <Action ID="Wait"><input_port name="wait_duration" type="double"/></Action>
  <SubTree ID="Sub"><input_port name="goal"/></SubTree>
</TreeNodesModel></root>"""
    rules = """{"FollowPath": ["Running", "Success"], "IsBatteryLow": "Failure",
  "RecoveryNode": "Selector", "RateController": "Inverter"}"""
    tree = """<root BTCPP_format="4" main_tree_to_execute="Go"><BehaviorTree ID="Go">
  <RecoveryNode number_of_retries="2"><Sequence>
    <ComputePath goal="{goal}" path="{path}"/>
    <RateController hz="1.0"><FollowPath path="{path}" speed="{speed}"/></RateController>
    <Wait wait_duration="2"/><Sleep msec="100"/>
  </Sequence><IsBatteryLow min="0.5"/></RecoveryNode>
</BehaviorTree></root>"""
    yield "model_alone.xml", model
    yield "model_rules.bin", model + "\0" + rules
    yield "model_rules_tree.bin", model + "\0" + rules + "\0" + tree
    yield "model_no_rules_tree.bin", model + "\0{}\0" + tree
    yield "model_in_tree_file.xml", tree.replace("</root>", model[model.index("<TreeNodesModel>"):])
    ports = "".join(f'<input_port name="p{i}" type="int"/>' for i in range(500))
    yield "many_ports.xml", f'<root BTCPP_format="4"><TreeNodesModel><Action ID="A">{ports}</Action></TreeNodesModel></root>'
    yield "duplicate_port.xml", '<root BTCPP_format="4"><TreeNodesModel><Action ID="A"><input_port name="p"/><output_port name="p"/></Action></TreeNodesModel></root>'
    many = "".join(f'<Action ID="T{i}"/>' for i in range(1000))
    yield "many_types_rules.bin", f'<root BTCPP_format="4"><TreeNodesModel>{many}</TreeNodesModel></root>' + "\0" + json.dumps({f"T{i}": "Running" for i in range(1000)})
    yield "nasty_names.bin", f'<root BTCPP_format="4"><TreeNodesModel><Action ID="{NASTY[:4]}x"><input_port name="a&#10;b" type="{NASTY[:3]}"/></Action></TreeNodesModel></root>' + "\0" + json.dumps({NASTY: "Success"})
    yield "bad_rules.bin", model + "\0" + '{"FollowPath": "Sequence", "Nope": "Success", "RecoveryNode": ["Running"]}'
    if BTCPP_CORPUS.is_dir():
        for path in sorted(BTCPP_CORPUS.rglob("*.xml")):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "TreeNodesModel" in text and len(text.encode("utf-8")) <= 65536:
                yield "corpus_" + "_".join(path.relative_to(BTCPP_CORPUS).parts), text


def script_seeds():
    """Seeds for `xml_scripts`: a first byte picking the construct (bit 7:
    the last part is the subtree's script), then its attributes split at
    NUL bytes (see the target's `SHAPES`)."""
    cases = [
        (0, ["a := a + 1", "a > 1", "a < 0", "s := 'done'", "a += 1"]),
        (0, ["a := 1 && a == 1", "a == 1 &amp;&amp; s == 'x'", "a &lt; 2", "s := 'x&#10;y'", "@a := 3"]),
        (1, ["a == 2", "a < 5", "a := 0", "s := 'halted'"]),
        (2, ["a == 1", "SKIPPED", "a := 2"]),
        (2, ["a := 1; a == 1", "RUNNING", "a += 1"]),
        (2, ["true) ; a = 2 ; (true", "FAILURE", "a := 3"]),
        (3, ["{a}", "1", "2", "3"]),
        (3, ["{s}", "x", "{c || true}", "'y'"]),
        (4, ["1;2;3", "{v}", "SUCCESS", "v > 0"]),
        (4, ["{q}", "{v}", "SKIPPED", "v == 2"]),
        (5, ["a;b;c", "{w}", "w := w .. 'z'"]),
        (6, ["42", "out"]),
        (6, ["{a}", "@w"]),
        (7, ["{a}", "3", "true"]),
        (7, ["a&quot; ; hp = 999 ; &quot;'", "{s}", "maybe"]),
        (8, ["{@a}", "7"]),
        (0x80 | 7, ["{a}", "{s}", "false", "x := 1; @@y := 2"]),
        (0x80 | 8, ["1.5", "'t'", "y := x; __Sub_1__w := 5"]),
    ]
    for i, (pick, parts) in enumerate(cases):
        yield f"shape{pick & 0x7f}_{i:02}.bin", bytes([pick]) + "\0".join(parts).encode("utf-8")


def crowd_seeds():
    """Saved-crowd seeds. An odd first byte asks the target for a real save
    (after `byte >> 1` steps, tick or event mode) damaged by the 3-byte edits
    that follow; these aim the edits at the header's numbers (the time
    step, the arena's side, the counts) with the values the checks refuse.
    An even first byte is read as it is: a header alone, of each kind."""
    # Offsets in a save: agents 6, seed 10, dt 18, size 22, food 26,
    # rest 30, trail 34, trail_every 38, mode 42, step 43, threats 47.
    def edit(at, value):
        return struct.pack("<H", at) + bytes([value])

    for steps in (0, 3, 7):
        for mode in (0, 1):
            first = bytes([((steps * 2 + mode) << 1) | 1])
            yield f"real_{steps}_{mode}", first
            yield f"dt_{steps}_{mode}", first + edit(21, 0x1E)  # dt → ~1e-20
            yield f"size_{steps}_{mode}", first + edit(25, 0x0B)  # size → huge
            yield f"food_{steps}_{mode}", first + edit(28, 0x0F)  # a million patches
            yield f"step_{steps}_{mode}", first + edit(46, 0xFF)  # near u32::MAX
    header = b"CNCW" + struct.pack("<H", 2)
    config = struct.pack("<IQffIIIIB", 1, 7, 0.1, 40.0, 6, 4, 8, 3, 0)
    yield "header_only", header
    yield "config_only", header + config
    yield "no_walkers", header + config + struct.pack("<II", 0, 0)


# What the page posts (web/app.js), then what it never does: unknown
# actions and fields, wrong types, arrays, nesting, the length limit (1 KiB).
CONTROL_SEEDS = [
    '{"action":"pause"}',
    '{"action":"resume"}',
    '{"action":"step","steps":1}',
    '{"action":"step"}',
    '{"agent":3}',
    '{"agent":null}',
    "{}",
    '{"action":"explode"}',
    '{"action":"pause","extra":1}',
    '{"action":"step","steps":4294967296}',
    '{"action":"step","steps":-1}',
    '{"agent":"7"}',
    "[7]",
    '{"agent":' + "[" * 200 + "]" * 200 + "}",
    '{"action":"pause"' + " " * 1006 + "}",
    '{"action":"pause"' + " " * 1007 + "}",
    r'{"action":"\u0000\ud800"}',
]

# A colour, a window title, a bell, a carriage return, a C1 CSI, a bidi override.
NASTY = "\x1b[31m\x1b]0;owned\x07\r\x9b2J\u202e"


def node(type_name, children=None, **params):
    n = {"type": type_name}
    n.update(params)
    if children is not None:
        n["children"] = children
    return n


def ref(name):
    return node("SubTree", tree=name)


def doc(tree, subtrees=None):
    d = {"tree": tree}
    if subtrees is not None:
        d["subtrees"] = subtrees
    return d


def ron_str(text):
    """A RON string literal: control characters as `\\u{..}` escapes."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0:
            out.append("\\u{%x}" % ord(c))
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def seeds():
    leaf = node("AlwaysSuccess")
    # 1. Expansion: 41 subtrees, each used twice by the one before.
    chain = {f"s{k}": node("Sequence", [ref(f"s{k+1}"), ref(f"s{k+1}")], name=f"s{k}") for k in range(40)}
    chain["s40"] = node("AlwaysSuccess", name="s40")
    yield "doubling_chain.json", json.dumps(doc(ref("s0"), chain))
    # A wide subtree used by a wide root (small: 150 × 150).
    yield "wide_times_wide.json", json.dumps(
        doc(node("Sequence", [ref("big")] * 150), {"big": node("Sequence", [leaf] * 150)})
    )
    # Unused subtrees sharing a big one.
    unused = {f"u{i}": ref("big") for i in range(300)}
    unused["big"] = node("Sequence", [leaf] * 300)
    yield "unused_sharing.json", json.dumps(doc(node("Wait", ticks=1), unused))

    # 3. Control characters wherever file text goes.
    yield "nasty_type.json", json.dumps(doc(node(NASTY)))
    yield "nasty_name.json", json.dumps(doc(node("Wait", name=NASTY, ticks=-1)))
    yield "nasty_subtree.json", json.dumps(doc(ref("x"), {NASTY: node("Wait", ticks=1)}))
    yield "nasty_choice.json", json.dumps(doc(node("Parallel", [leaf], success=NASTY)))
    yield "nasty_key.json", json.dumps(doc(node("AlwaysSuccess")) | {NASTY: 1})
    yield "nasty_param.json", json.dumps(doc(node("Wait", **{NASTY: 1})))
    yield "nasty_status.json", json.dumps(doc(node("Script", statuses=["Running", NASTY])))
    esc = json.dumps(NASTY)
    yield "nasty_duplicate.json", '{"tree": {"type": "Wait", %s: 1, %s: 2}}' % (esc, esc)
    a, b = "a" + NASTY, "b\r\nforged"
    yield "nasty_cycle.json", json.dumps(
        doc(ref(a), {a: ref(b), b: node("Inverter", [ref(a)])})
    )
    r = ron_str(NASTY)
    yield "nasty.ron", '(tree: (type: "Sequence", name: %s, children: [(type: %s)]))' % (r, r)

    # 4. Huge pieces of text (within 64 KiB).
    big = "a" * 60000
    yield "huge_choice.json", json.dumps(doc(node("Parallel", [leaf], failure=big)))
    key = "k" * 30000
    yield "huge_duplicate.json", '{"tree": {"%s": 1, "%s": 2}}' % (key, key)
    many = {f"s{i:05}": leaf for i in range(1500)}
    yield "many_subtrees.json", json.dumps(doc(ref("missing"), many))
    yield "huge_numbers.json", '{"tree": {"type": "Random", "success": 1e308, "failure": -1e-300}}'
    yield "huge_int.json", '{"tree": {"type": "Wait", "ticks": 18446744073709551615}}'

    # 7. Byte-order marks and UTF-16.
    text = json.dumps(doc(node("Wait", ticks=2)))
    yield "bom.json", "\ufeff" + text
    yield "bom.ron", '\ufeff(tree: (type: "Wait", ticks: 2))'
    yield "utf16le.json", b"\xff\xfe" + text.encode("utf-16-le")
    yield "utf16be.json", b"\xfe\xff" + text.encode("utf-16-be")

    # Depth: brackets, nodes through subtrees, chains of references.
    yield "deep_brackets.json", "[" * 130 + "]" * 130
    yield "deep_ron.ron", "(tree: " + "(" * 130 + ")" * 130 + ")"
    deep = {f"d{k}": node("Inverter", [ref(f"d{k+1}")]) for k in range(300)}
    deep["d300"] = leaf
    yield "deep_subtrees.json", json.dumps(doc(ref("d0"), deep))
    bare = {f"r{k}": ref(f"r{k+1}") for k in range(300)}
    bare["r300"] = leaf
    yield "bare_references.json", json.dumps(doc(ref("r0"), bare))
    yield "self_reference.json", json.dumps(doc(ref("a"), {"a": ref("a")}))

    # Every built-in type, so that mutations start from valid nodes.
    daylight = node("Periodic", period=30, on=6, offset=20)
    every = node(
        "ReactiveSelector",
        [
            node("ReactiveSequence", [node("Chance", p=0.5), node("Parallel", [
                node("Timeout", [node("Script", statuses=["Running", "Success"], clock="tick")], ticks=8),
                node("Repeat", [node("Random", success=0.5, failure=0.1)], times=3),
            ], success="one", failure="all")]),
            node("Selector", [
                node("Guard", [node("Wait", ticks=3)], condition=daylight),
                node("ReactiveGuard", [node("AlwaysRunning")], condition=node("Chance", p=0.2)),
                node("Cooldown", [node("Retry", [node("AlwaysFailure")], times=2)], ticks=10),
                node("Inverter", [node("ForceSuccess", [node("ForceFailure", [ref("leaf")])])]),
            ]),
        ],
    )
    yield "every_type.json", json.dumps(doc(every, {"leaf": leaf}), indent=1)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    trees = HERE.parent / "examples" / "trees"
    for example in sorted(trees.rglob("*")):
        if example.is_file():
            name = "_".join(example.relative_to(trees).parts)
            shutil.copy(example, OUT / name)
    count = 0
    for name, content in seeds():
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        assert len(data) <= 65536, (name, len(data))
        (OUT / name).write_bytes(data)
        count += 1
    print(f"{count} hostile seeds and the example trees written to {OUT}")
    CONTROL_OUT.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(CONTROL_SEEDS):
        (CONTROL_OUT / f"seed{i:02}.json").write_bytes(seed.encode("utf-8"))
    print(f"{len(CONTROL_SEEDS)} control messages written to {CONTROL_OUT}")
    CROWD_OUT.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, data in crowd_seeds():
        (CROWD_OUT / name).write_bytes(data)
        count += 1
    print(f"{count} saved-crowd seeds written to {CROWD_OUT}")
    for out, generated, what in [
        (MODEL_OUT, model_seeds(), "node-model"),
        (SCRIPTS_OUT, script_seeds(), "script"),
    ]:
        out.mkdir(parents=True, exist_ok=True)
        count = 0
        for name, content in generated:
            data = content if isinstance(content, bytes) else content.encode("utf-8")
            assert len(data) <= 65536, (name, len(data))
            (out / name).write_bytes(data)
            count += 1
        print(f"{count} {what} seeds written to {out}")


if __name__ == "__main__":
    main()
