#!/usr/bin/env bash
# The same crowd, the same rules, five ways, side by side: canopy-bevy and a
# hand-written system on Bevy 0.20; bevy_behave 0.5 (async and synchronous
# modes) and the same hand-written system on Bevy 0.18. 1k, 10k and 100k
# NPCs, with Bevy's own split of the cores and with 2 compute threads.
#
#   benches/bevy_versus/run.sh              # from anywhere
#   ROUNDS=5 benches/bevy_versus/run.sh     # more rounds (default 3)
#   COMPUTE="0 2 4" benches/bevy_versus/run.sh
#
# The canopy side is canopy-bevy's `bevy_crowd` example, built in the root
# workspace; the bevy_behave side is this project's binary, built on its own
# (it is outside the workspace: CI never builds it). Every configuration runs
# all five sides one after the other, ROUNDS times over, so a drift of the
# machine's speed touches them alike; the table gives each side's median over
# the rounds and the ratios to the hand-written system on the same Bevy,
# taken round by round.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${ROUNDS:-3}
compute=${COMPUTE:-0 2}
# Release builds without debug info keep the target directories small.
export CARGO_PROFILE_RELEASE_DEBUG=false

cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p canopy-bevy --example bevy_crowd
cargo build --quiet --release --manifest-path "$here/Cargo.toml"
canopy_bin=${CARGO_TARGET_DIR:-$root/target}/release/examples/bevy_crowd
behave_bin=${CARGO_TARGET_DIR:-$here/target}/release/bevy_versus

results=$(mktemp)
trap 'rm -f "$results"' EXIT
# NPCs:frames.
for run in 1000:200 10000:100 100000:100; do
    npcs=${run%%:*}
    frames=${run##*:}
    for threads in $compute; do
        for round in $(seq "$rounds"); do
            for side in "$canopy_bin canopy" "$canopy_bin hand" "$behave_bin behave" \
                "$behave_bin behave-sync" "$behave_bin hand"; do
                set -- $side
                "$1" --entities "$npcs" --frames "$frames" --compute "$threads" --side "$2" |
                    grep '^RESULT' | sed "s/^RESULT/RESULT round=$round asked=$threads/" >>"$results"
            done
        done
    done
done

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
python3 - "$results" <<'EOF'
import statistics, sys
from collections import defaultdict

runs = []
for line in open(sys.argv[1]):
    fields = dict(kv.split("=", 1) for kv in line.split()[1:])
    runs.append(fields)

sides = ["canopy", "hand", "bevy_behave", "bevy_behave-sync", "hand-0.18"]
yardstick = {"canopy": "hand", "hand": "hand", "bevy_behave": "hand-0.18",
             "bevy_behave-sync": "hand-0.18", "hand-0.18": "hand-0.18"}
by = defaultdict(dict)  # (npcs, asked, round) -> side -> run
for r in runs:
    by[(int(r["npcs"]), r["asked"], r["round"])][r["side"]] = r

print("| NPCs | frames | compute threads | side | Bevy | AI ms (median) | × hand-written, same Bevy "
      "| entities per NPC | bytes per NPC | wander / chase / flee |")
print("|---:|---:|---|---|---|---:|---:|---:|---:|---|")
configs = sorted({(k[0], k[1]) for k in by}, key=lambda c: (c[0], c[1]))
for npcs, asked in configs:
    rounds = [v for k, v in by.items() if (k[0], k[1]) == (npcs, asked)]
    for side in sides:
        mine = [r[side] for r in rounds if side in r]
        if not mine:
            continue
        median = statistics.median(float(r["median_ms"]) for r in mine)
        ratios = [float(r[side]["median_ms"]) / float(r[yardstick[side]]["median_ms"])
                  for r in rounds if side in r and yardstick[side] in r]
        last = mine[-1]
        label = ("Bevy's default: " if asked == "0" else "") + last["compute"]
        print(f"| {npcs:,} | {last['frames']} | {label} | {side} | {last['bevy']} | {median:.3f} "
              f"| {statistics.median(ratios):.2f} | {last['entities_per_npc']} "
              f"| {last['bytes_per_npc']} | {last['wander']} / {last['chase']} / {last['flee']} |")
EOF
