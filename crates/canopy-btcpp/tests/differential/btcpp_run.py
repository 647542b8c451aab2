#!/usr/bin/env python3
"""Run BehaviorTree.CPP trees through behaviortreepy and print their traces.

Usage: btcpp_run.py [--ticks N] TREE.xml...

Each leaf is a `canopy_Script` element, as canopy's scripted leaf is written
in XML: `<canopy_Script name="L3" statuses="Running;Success" clock="install"/>`.
Its statuses are played back exactly as canopy's `Script` does: with the
`install` clock (the default) the k-th update since the leaf started returns
`statuses[min(k, len-1)]`; with the `tick` clock the update during tick T
(from 1) returns `statuses[min(T-1, len-1)]`. BehaviorTree.CPP has no such
ports, so they are read here and removed before the tree is loaded. A leaf
whose statuses include Running is a stateful action; one whose statuses never
do is a synchronous action (`canopy_ScriptSync`), as BehaviorTree.CPP users
write actions and conditions that finish at once. The two differ when a
parent ticks a finished child without resetting it: a stateful action then
returns its old status without running, a synchronous one runs again, as
every canopy leaf does. Each leaf's name is its key.

For each file the output is a header line, `== FILE`, then one line per tick
`tick T: STATUS ticks NAME=COUNT... halts NAME...` (leaves in name order, only
those ticked or halted in that tick), with the status from
`tick_exactly_once()`, then, when the root blackboard has keys, ` bb
KEY=VALUE...` (keys in name order; numbers and booleans as numbers, whole
ones without a fraction; `?` for an entry never written; keys starting
with `__` left out). A tree BehaviorTree.CPP refuses to load prints
`load error: MESSAGE`; a tick that throws prints `tick T: error MESSAGE` and
ends that tree's run. The Rust side (differential_btcpp.rs) prints the same
format from canopy.
"""

import sys
import xml.etree.ElementTree as ET

import behaviortreepy as bt

LEAF = "canopy_Script"
SYNC_LEAF = "canopy_ScriptSync"
STATUS = {
    "Success": bt.NodeStatus.SUCCESS,
    "Failure": bt.NodeStatus.FAILURE,
    "Running": bt.NodeStatus.RUNNING,
}


def leaf_elements(root):
    """Every scripted leaf of the trees, compact or explicit."""
    for tree in root.iter("BehaviorTree"):
        for element in tree.iter():
            explicit = element.tag in ("Action", "Condition") and element.get("ID") == LEAF
            if element.tag == LEAF or explicit:
                yield element


class Run:
    """The schedules of one tree's leaves and what happened to them."""

    def __init__(self, text):
        root = ET.fromstring(text)
        self.schedules = {}
        for element in leaf_elements(root):
            name = element.get("name")
            statuses = [STATUS[s.strip()] for s in element.get("statuses").split(";")]
            clock = element.get("clock", "install")
            if name in self.schedules:
                raise ValueError(f"two leaves named {name}")
            self.schedules[name] = (statuses, clock)
            for port in ("statuses", "clock"):
                element.attrib.pop(port, None)
            if bt.NodeStatus.RUNNING not in statuses:
                if element.tag == LEAF:
                    element.tag = SYNC_LEAF
                else:
                    element.set("ID", SYNC_LEAF)
        self.xml = ET.tostring(root, encoding="unicode")
        self.tick = 0
        self.updates = {}  # updates since install, per leaf
        self.ticks = {}
        self.halts = []

    def play(self, name):
        statuses, clock = self.schedules[name]
        if clock == "tick":
            k = self.tick - 1
        else:
            k = self.updates.get(name, 0)
            self.updates[name] = k + 1
        self.ticks[name] = self.ticks.get(name, 0) + 1
        return statuses[min(k, len(statuses) - 1)]

    def on_start(self, node):
        self.updates[node.name()] = 0
        return self.play(node.name())

    def on_running(self, node):
        return self.play(node.name())

    def on_tick(self, node):
        self.updates[node.name()] = 0
        return self.play(node.name())

    def on_halted(self, node):
        self.halts.append(node.name())

    def line(self, status):
        ticks = " ".join(f"{n}={c}" for n, c in sorted(self.ticks.items()))
        halts = " ".join(sorted(self.halts))
        return f"tick {self.tick}: {status} ticks {ticks} halts {halts}".rstrip()


def number(value):
    """A number as both sides print it: whole ones without a fraction."""
    return str(int(value)) if value == int(value) else repr(value)


def board_text(tree):
    """The root blackboard's entries, ` bb KEY=VALUE...`, or nothing."""
    board = tree.root_blackboard()
    entries = []
    # Keys starting with `__` are left out, as canopy leaves out the keys
    # of a subtree's own scope (a queue entry cannot be read here anyway).
    for key in sorted(k for k in board.get_keys() if not k.startswith("__")):
        try:
            value = number(board.get_double(key))
        except Exception:
            try:
                value = board.get_string(key)
            except Exception:  # an entry declared but never written
                value = "?"

        entries.append(f"{key}={value}")
    return f" bb {' '.join(entries)}" if entries else ""


def status_name(status):
    return str(status).rsplit(".", 1)[-1]


def run(path, ticks):
    print(f"== {path}")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    state = Run(text)
    factory = bt.BehaviorTreeFactory()
    factory.register_simple_stateful_action(
        LEAF, state.on_start, state.on_running, state.on_halted
    )
    factory.register_simple_action(SYNC_LEAF, state.on_tick)
    try:
        tree = factory.create_tree_from_text(state.xml)
    except Exception as e:  # BehaviorTree.CPP's own refusal, reported
        print(f"load error: {' '.join(str(e).split())}")
        return
    for tick in range(1, ticks + 1):
        state.tick = tick
        state.ticks = {}
        state.halts = []
        try:
            status = tree.tick_exactly_once()
        except Exception as e:
            print(f"tick {tick}: error {' '.join(str(e).split())}")
            return
        print(state.line(status_name(status)) + board_text(tree))


def main(argv):
    ticks = 10
    paths = []
    args = iter(argv)
    for arg in args:
        if arg == "--ticks":
            ticks = int(next(args))
        else:
            paths.append(arg)
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        run(path, ticks)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
