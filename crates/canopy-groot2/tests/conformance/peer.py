#!/usr/bin/env python3
"""BehaviorTree.CPP's Groot2Publisher beside canopy's, asked the same things.

Driven line by line on standard input by conformance.rs, which ticks canopy:

  tree PATH CANOPY_PORT   load PATH in behaviortreepy, serve it with
                          Groot2Publisher on a free port; answer `ready`
  tick N [btview]         tick BehaviorTree.CPP's tree once (canopy has just
                          ticked its agent for the N-th time), then ask both
                          publishers for FULLTREE (at tick 1), STATUS and
                          BLACKBOARD (every tree the FULLTREE names) with
                          pyzmq, and with `btview` draw both with
                          `btview snapshot --uid`; answer one JSON line
                          {"tick": N, "differences": [...]}
  btlog PATH TICKS        run PATH for TICKS ticks under behaviortreepy's
                          FileLogger; answer one JSON line with the file's
                          header, XML and transitions
  done                    stop serving the tree; answer `closed`

Leaves are `canopy_Script` elements (`statuses`, `clock`), played back as
canopy's scripted leaf is, by the differential test's runner
(canopy-btcpp/tests/differential/btcpp_run.py), which strips the ports
BehaviorTree.CPP does not know before loading.

Differences are reported field by field: a node's UID, tag or name in
FULLTREE; a UID's status byte in STATUS; a key's value in a blackboard.
What canopy writes that BehaviorTree.CPP does not (a scripted leaf's
`statuses` and `clock`, the TreeNodesModel of the standard nodes) is not
compared; nor are ports, since BehaviorTree.CPP writes only declared ones.
"""

import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
import traceback
import xml.etree.ElementTree as ET

import behaviortreepy as bt
import msgpack
import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(
    0, os.path.join(HERE, "..", "..", "..", "canopy-btcpp", "tests", "differential")
)
from btcpp_run import LEAF, SYNC_LEAF, Run  # noqa: E402

CONTEXT = zmq.Context()


def free_port_pair():
    """A port whose next one is free too."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            with socket.socket() as s2:
                s2.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise RuntimeError("no free pair of ports")


class Client:
    """A REQ socket speaking Groot2's protocol."""

    def __init__(self, port):
        self.port = port
        self.socket = CONTEXT.socket(zmq.REQ)
        self.socket.setsockopt(zmq.RCVTIMEO, 5000)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(f"tcp://127.0.0.1:{port}")
        self.next_id = 1

    def ask(self, kind, extra=None):
        header = struct.pack("<BBI", 2, ord(kind), self.next_id)
        self.next_id += 1
        frames = [header] if extra is None else [header, extra]
        self.socket.send_multipart(frames)
        reply = self.socket.recv_multipart()
        if reply[0] == b"error":
            raise RuntimeError(f"error reply: {reply[1:]}")
        if reply[0][:6] != header:
            raise RuntimeError(f"the reply's header {reply[0][:6]!r} is not the request's")
        return reply[1] if len(reply) > 1 else b""

    def close(self):
        self.socket.close()


def nodes_of(xml_text):
    """Every node of a FULLTREE XML: uid -> (tag, name), and the blackboard names."""
    root = ET.fromstring(xml_text)
    nodes = {}
    names = []
    for tree in root.iter("BehaviorTree"):
        names.append(tree.get("_fullpath") or tree.get("ID"))
        for element in tree.iter():
            uid = element.get("_uid")
            if uid is None:
                continue
            tag = element.tag
            if tag == SYNC_LEAF:
                tag = LEAF  # the runner's name for a leaf that never runs
            nodes[int(uid)] = (tag, element.get("name", ""))
    return nodes, names


def statuses(buf):
    return {
        struct.unpack("<H", buf[i : i + 2])[0]: buf[i + 2] for i in range(0, len(buf), 3)
    }


def btview(port):
    out = subprocess.run(
        ["btview", "snapshot", "-p", str(port), "--uid", "--no-color", "--timeout", "5"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "100"},
    )
    if out.returncode != 0:
        return f"btview failed ({out.returncode}): {out.stderr.strip()}"
    return out.stdout


class Session:
    def __init__(self, path, canopy_port):
        with open(path, encoding="utf-8") as f:
            self.run = Run(f.read())
        factory = bt.BehaviorTreeFactory()
        factory.register_simple_stateful_action(
            LEAF, self.run.on_start, self.run.on_running, self.run.on_halted
        )
        factory.register_simple_action(SYNC_LEAF, self.run.on_tick)
        self.tree = factory.create_tree_from_text(self.run.xml)
        self.port = free_port_pair()
        self.publisher = bt.Groot2Publisher(self.tree, self.port)
        self.theirs = Client(self.port)
        self.ours = Client(canopy_port)
        self.canopy_port = canopy_port
        self.names = []

    def tick(self, n, draw):
        self.run.tick = n
        self.tree.tick_exactly_once()
        differences = []
        if n == 1:
            theirs_nodes, self.names = nodes_of(self.theirs.ask("T").decode())
            ours_nodes, our_names = nodes_of(self.ours.ask("T").decode())
            for uid in sorted(set(theirs_nodes) | set(ours_nodes)):
                if theirs_nodes.get(uid) != ours_nodes.get(uid):
                    differences.append(
                        f"FULLTREE uid {uid}: BehaviorTree.CPP {theirs_nodes.get(uid)}, "
                        f"canopy {ours_nodes.get(uid)}"
                    )
            if our_names != self.names:
                differences.append(f"FULLTREE trees: BehaviorTree.CPP {self.names}, canopy {our_names}")
        theirs = statuses(self.theirs.ask("S"))
        ours = statuses(self.ours.ask("S"))
        if list(theirs) != list(ours):
            differences.append(f"STATUS order: BehaviorTree.CPP {list(theirs)}, canopy {list(ours)}")
        for uid in theirs:
            if theirs[uid] != ours.get(uid):
                differences.append(
                    f"STATUS uid {uid}: BehaviorTree.CPP {theirs[uid]}, canopy {ours.get(uid)}"
                )
        names = ";".join(self.names).encode()
        theirs_bb = msgpack.unpackb(self.theirs.ask("B", names), strict_map_key=False)
        ours_bb = msgpack.unpackb(self.ours.ask("B", names), strict_map_key=False)
        for name in sorted(set(theirs_bb) | set(ours_bb)):
            a, b = theirs_bb.get(name) or {}, ours_bb.get(name) or {}
            if (name in theirs_bb) != (name in ours_bb) or (theirs_bb.get(name) is None) != (ours_bb.get(name) is None):
                differences.append(f"BLACKBOARD {name}: BehaviorTree.CPP {theirs_bb.get(name, '(absent)')!r}, canopy {ours_bb.get(name, '(absent)')!r}")
            for key in sorted(set(a) | set(b)):
                if a.get(key) != b.get(key):
                    differences.append(
                        f"BLACKBOARD {name}.{key}: BehaviorTree.CPP {a.get(key)!r}, canopy {b.get(key)!r}"
                    )
        if draw:
            # The runner registers a leaf that never runs as canopy_ScriptSync
            # (4 letters more, taken from the padding before the status).
            theirs_drawn = re.sub(
                r"\[canopy_ScriptSync\] (#\d+)", r"[canopy_Script] \1    ", btview(self.port)
            )
            ours_drawn = btview(self.canopy_port)
            if theirs_drawn != ours_drawn:
                differences.append(
                    f"btview: BehaviorTree.CPP draws\n{theirs_drawn}canopy draws\n{ours_drawn}"
                )
        return {"tick": n, "differences": differences}

    def close(self):
        self.theirs.close()
        self.ours.close()
        del self.publisher


def btlog(path, ticks):
    with open(path, encoding="utf-8") as f:
        run = Run(f.read())
    factory = bt.BehaviorTreeFactory()
    factory.register_simple_stateful_action(LEAF, run.on_start, run.on_running, run.on_halted)
    factory.register_simple_action(SYNC_LEAF, run.on_tick)
    tree = factory.create_tree_from_text(run.xml)
    out = path + ".btcpp.btlog"
    logger = bt.FileLogger(tree, out)
    for n in range(1, ticks + 1):
        run.tick = n
        tree.tick_exactly_once()
    # FileLogger writes from a thread of its own every 10 ms and drops what
    # is still queued when it is destroyed: let it write first.
    time.sleep(0.2)
    del logger
    with open(out, "rb") as f:
        data = f.read()
    magic = b"BTCPP4-FileLogger2"
    p = len(magic)
    length = struct.unpack("<i", data[p + 1 : p + 5])[0]
    xml_text = data[p + 5 : p + 5 + length].decode()
    rest = data[p + 5 + length + 8 :]
    transitions = [
        [int.from_bytes(rest[i : i + 6], "little"), struct.unpack("<H", rest[i + 6 : i + 8])[0], rest[i + 8]]
        for i in range(0, len(rest) - len(rest) % 9, 9)
    ]
    nodes, _ = nodes_of(xml_text)
    return {
        "magic": data[:p].decode(),
        "version": data[p],
        "nodes": {str(k): list(v) for k, v in nodes.items()},
        "transitions": transitions,
        "trailing": len(rest) % 9,
    }


def main():
    session = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "tree":
                session = Session(words[1], int(words[2]))
                print("ready", session.port, flush=True)
            elif words[0] == "tick":
                print(json.dumps(session.tick(int(words[1]), "btview" in words[2:])), flush=True)
            elif words[0] == "btlog":
                print(json.dumps(btlog(words[1], int(words[2]))), flush=True)
            elif words[0] == "done":
                session.close()
                session = None
                print("closed", flush=True)
        except Exception as e:  # reported, so the Rust side can say which tree
            where = traceback.format_exc().strip().splitlines()[-3:]
            print(json.dumps({"error": f"{type(e).__name__}: {e} ({' | '.join(where)})"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
