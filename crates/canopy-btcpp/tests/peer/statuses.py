#!/usr/bin/env python3
"""Load a BehaviorTree.CPP tree through behaviortreepy and print what it does.

Usage: statuses.py [--tree ID] [--ticks N] TREE.xml

The factory knows BehaviorTree.CPP's own nodes and four leaves: the actions
`Act` (SUCCESS) and `Fail` (FAILURE) and the conditions `Cond` (FAILURE) and
`Check` (SUCCESS), none with ports. With `--tree` the file is registered and
that tree created by ID (`createTree`), else the file's tree to run is
created (`createTreeFromText`).

Prints one line: the statuses of N ticks (`tick_exactly_once`), then `|` and
the root blackboard's entries in key order (`key=value`, strings as they
are, numbers as both sides print them); or `load error: MESSAGE`, or the
statuses so far then `error: MESSAGE` when a tick throws.
"""

import sys

import behaviortreepy as bt


def number(value):
    return str(int(value)) if value == int(value) else repr(value)


def board(tree):
    bb = tree.root_blackboard()
    entries = []
    for key in sorted(bb.get_keys()):
        try:
            value = bb.get_string(key)
        except Exception:
            try:
                value = number(bb.get_double(key))
            except Exception:
                value = "?"
        entries.append(f"{key}={value}")
    return " ".join(entries)


def main(argv):
    tree_id = None
    ticks = 3
    paths = []
    args = iter(argv)
    for arg in args:
        if arg == "--tree":
            tree_id = next(args)
        elif arg == "--ticks":
            ticks = int(next(args))
        else:
            paths.append(arg)
    with open(paths[0], encoding="utf-8") as f:
        text = f.read()
    s = bt.NodeStatus
    factory = bt.BehaviorTreeFactory()
    factory.register_simple_action("Act", lambda node: s.SUCCESS)
    factory.register_simple_action("Fail", lambda node: s.FAILURE)
    factory.register_simple_condition("Cond", lambda node: s.FAILURE)
    factory.register_simple_condition("Check", lambda node: s.SUCCESS)
    try:
        if tree_id is None:
            tree = factory.create_tree_from_text(text)
        else:
            factory.register_behavior_tree_from_text(text)
            tree = factory.create_tree(tree_id)
    except Exception as e:
        print(f"load error: {' '.join(str(e).split())}")
        return 0
    statuses = []
    for _ in range(ticks):
        try:
            statuses.append(str(tree.tick_exactly_once()).rsplit(".", 1)[-1].capitalize())
        except Exception as e:
            print(f"{' '.join(statuses)} error: {' '.join(str(e).split())}".strip())
            return 0
    print(f"{' '.join(statuses)} | {board(tree)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
