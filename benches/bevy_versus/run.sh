#!/usr/bin/env bash
# canopy-bevy (Bevy 0.20) and bevy_behave 0.5 (Bevy 0.18) on the same crowd,
# side by side: 1k, 10k and 100k NPCs on 2 threads, in one run.
#
#   benches/bevy_versus/run.sh            # from anywhere
#   THREADS=4 benches/bevy_versus/run.sh  # another thread count
#
# The canopy side is canopy-bevy's `bevy_crowd` example, built in the root
# workspace; the bevy_behave side is this project's binary, built on its own
# (it is outside the workspace: CI never builds it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
threads=${THREADS:-2}
# Release builds without debug info keep the target directories small.
export CARGO_PROFILE_RELEASE_DEBUG=false

cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p canopy-bevy --example bevy_crowd
cargo build --quiet --release --manifest-path "$here/Cargo.toml"
canopy_bin=${CARGO_TARGET_DIR:-$root/target}/release/examples/bevy_crowd
behave_bin=${CARGO_TARGET_DIR:-$here/target}/release/bevy_versus

results=$(mktemp)
trap 'rm -f "$results"' EXIT
# NPCs:frames; fewer frames for the largest crowd.
for run in 1000:200 10000:100 100000:30; do
    npcs=${run%%:*}
    frames=${run##*:}
    for bin in "$canopy_bin" "$behave_bin"; do
        "$bin" --entities "$npcs" --frames "$frames" --threads "$threads" | tee /dev/stderr |
            grep '^RESULT' >>"$results"
    done
done

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $threads threads"
printf '| %-11s | %7s | %6s | %14s | %14s | %16s | %13s |\n' \
    side NPCs frames "AI ms (median)" "AI ms (mean)" "entities per NPC" "bytes per NPC"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' -------------  ---------  --------  ----------------  ----------------  ------------------  ---------------
awk '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "| %-11s | %7s | %6s | %14s | %14s | %16s | %13s |\n",
        v["side"], v["npcs"], v["frames"], v["median_ms"], v["mean_ms"], v["entities_per_npc"], v["bytes_per_npc"]
}' "$results"
