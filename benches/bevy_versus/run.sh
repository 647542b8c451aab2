#!/usr/bin/env bash
# The same crowd, the same rules, five ways, side by side: canopy-bevy and a
# hand-written system on Bevy 0.20; bevy_behave 0.5 (async and synchronous
# modes) and the same hand-written system on Bevy 0.18. 1k, 10k and 100k
# NPCs, with Bevy's own split of the cores and with 2 compute threads.
#
#   benches/bevy_versus/run.sh              # from anywhere
#   ROUNDS=5 benches/bevy_versus/run.sh     # more rounds (default 3)
#   COMPUTE="0 2 4" benches/bevy_versus/run.sh
#   SIZES="10000:100" benches/bevy_versus/run.sh
#
# The canopy side is canopy-bevy's `bevy_crowd` example, built in the root
# workspace; the bevy_behave side is this project's binary, built on its own
# (it is outside the workspace: CI never builds it). Each run of a side
# (canopy, bevy_behave, bevy_behave's synchronous mode) has the hand-written
# crowd on the same Bevy beside it in the same process (`--beside-hand`),
# the two apps taking turns frame by frame: the "x hand-written" column is
# the median over the rounds of each run's median frame-by-frame ratio, so
# a slow spell of a shared machine touches both terms of a ratio alike.
# Every configuration runs the three sides one after the other, ROUNDS times
# over; the times are medians over the rounds of each run's median frame.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${ROUNDS:-3}
compute=${COMPUTE:-0 2}
sizes=${SIZES:-1000:200 10000:100 100000:100}
# Release builds without debug info keep the target directories small.
export CARGO_PROFILE_RELEASE_DEBUG=false

cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p canopy-bevy --example bevy_crowd
cargo build --quiet --release --manifest-path "$here/Cargo.toml"
canopy_bin=${CARGO_TARGET_DIR:-$root/target}/release/examples/bevy_crowd
behave_bin=${CARGO_TARGET_DIR:-$here/target}/release/bevy_versus

results=$(mktemp)
trap 'rm -f "$results"' EXIT
# NPCs:frames.
for run in $sizes; do
    npcs=${run%%:*}
    frames=${run##*:}
    for threads in $compute; do
        for round in $(seq "$rounds"); do
            for side in "$canopy_bin canopy" "$behave_bin behave" "$behave_bin behave-sync"; do
                set -- $side
                "$1" --entities "$npcs" --frames "$frames" --compute "$threads" --side "$2" \
                    --beside-hand 2>/dev/null |
                    grep '^RESULT' | sed "s/^RESULT/RESULT round=$round asked=$threads of=$2/" >>"$results"
            done
        done
    done
done

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
python3 - "$results" <<'PY'
import statistics, sys
from collections import defaultdict

runs = [dict(kv.split("=", 1) for kv in line.split()[1:]) for line in open(sys.argv[1])]
# (npcs, asked) -> row name -> list of runs; and -> row name -> ratios.
rows, ratios = defaultdict(lambda: defaultdict(list)), defaultdict(lambda: defaultdict(list))
name = {"canopy": "canopy", "behave": "bevy_behave", "behave-sync": "bevy_behave-sync"}
for r in runs:
    key = (int(r["npcs"]), r["asked"])
    if r["side"] == "ratio":
        ratios[key][name[r["of"]]].append(float(r["ratio"]))
    elif r["side"] == "hand-0.18" and r["of"] != "behave":
        continue  # one hand-written row per Bevy: the one beside bevy_behave's async run
    else:
        rows[key][r["side"]].append(r)

order = ["canopy", "hand", "bevy_behave", "bevy_behave-sync", "hand-0.18"]
print("| NPCs | frames | compute threads | side | Bevy | AI ms (median) | × hand-written, same Bevy, same run "
      "| entities per NPC | bytes per NPC | wander / chase / flee |")
print("|---:|---:|---|---|---|---:|---:|---:|---:|---|")
for key in sorted(rows):
    npcs, asked = key
    for side in order:
        mine = rows[key].get(side)
        if not mine:
            continue
        median = statistics.median(float(r["median_ms"]) for r in mine)
        ratio = f"{statistics.median(ratios[key][side]):.2f}" if ratios[key].get(side) else "1"
        last = mine[-1]
        label = ("Bevy's default: " if asked == "0" else "") + last["compute"]
        print(f"| {npcs:,} | {last['frames']} | {label} | {side} | {last['bevy']} | {median:.3f} "
              f"| {ratio} | {last['entities_per_npc']} | {last['bytes_per_npc']} "
              f"| {int(last['wander']):,} / {int(last['chase']):,} / {int(last['flee']):,} |")
PY
