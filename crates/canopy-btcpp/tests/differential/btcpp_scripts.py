#!/usr/bin/env python3
"""Run BehaviorTree.CPP scripts through behaviortreepy, one per line.

Usage: btcpp_scripts.py < SCRIPTS

Each line of standard input is a script. It runs as the one `<Script>` of a
tree, ticked once with `tick_exactly_once()`, and the output line is the
script, a tab, then either `error MESSAGE` (the tree refused to load, or
the tick threw) or the root status followed by the root blackboard's
entries in key order, ` KEY=VALUE`: a string in single quotes, a number
with its kind (`3:int`, `3.5:double`, whole ones without a fraction), `?`
for an entry never written. behaviortreepy's blackboard reads numbers
and strings only (`get_double`, `get_string`), and each converts the
other kind, so the kind is told from both readings: BehaviorTree.CPP
prints a number held as `int64_t` in digits and a `double` with six
decimals (`std::to_string`), so a string reading that prints the number
reading is a number (a string entry holding exactly such a text would be
taken for one; no case here does).
"""

import sys
from xml.sax.saxutils import quoteattr

import behaviortreepy as bt


def number(value):
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def value(board, key):
    try:
        text = board.get_string(key)
    except Exception:
        return "?"
    try:
        n = board.get_double(key)
    except Exception:
        return f"'{text}'"
    if n == n and abs(n) != float("inf"):
        if n == int(n) and text == str(int(n)):
            return f"{number(n)}:int"
        if text == "%f" % n:
            return f"{number(n)}:double"
    elif text in ("inf", "-inf", "nan", "-nan"):
        return f"{text}:double"
    return f"'{text}'"


def entries(tree):
    board = tree.root_blackboard()
    return [f"{key}={value(board, key)}" for key in sorted(board.get_keys())]


def run(script):
    xml = (
        '<root BTCPP_format="4"><BehaviorTree ID="Main"><Script code='
        + quoteattr(script)
        + "/></BehaviorTree></root>"
    )
    factory = bt.BehaviorTreeFactory()
    try:
        tree = factory.create_tree_from_text(xml)
        status = str(tree.tick_exactly_once()).rsplit(".", 1)[-1]
    except Exception as e:
        return "error " + " ".join(str(e).split())
    return " ".join([status] + entries(tree))


def main():
    for line in sys.stdin:
        script = line.rstrip("\n")
        print(f"{script}\t{run(script)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
