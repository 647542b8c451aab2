#!/usr/bin/env bash
# The crowd's pictures and figures in README.md and docs/crowd-demo.md,
# made from today's runs, so that what the pages show is what the commands
# give.
#
#   bash docs/pictures.sh               # run everything; write the pictures, the captions
#                                       # and the short version's figures
#   bash docs/pictures.sh --check       # CI: the short version (1,000 agents, debug build,
#                                       # seconds); fail if its figures differ from the page's
#                                       # (CROWD_DEMO=path: that build of the demo, not cargo's)
#   bash docs/pictures.sh --check-full  # the default demo itself (release build); fail if
#                                       # the captions' counts differ from its run
#
# The caption counts the default demo (10,000 agents, 600 steps). Running it
# is a minute in a debug build, so CI checks a short version instead: the
# same demo with 1,000 agents, whose counts and final state hash are written
# beside the caption by the same run of this script. A change to the crowd's
# behaviour changes that state hash, CI fails, and running this script
# writes the picture, the caption and the short figures anew together.
#
# Writing needs rsvg-convert (Debian's librsvg2-bin, installed when
# missing) to turn the demo's SVG frames into PNG; checking compares text
# only, offline. Captions sit between `<!-- crowd caption -->` and
# `<!-- /crowd caption -->` in both pages, the short version's figures
# between `<!-- crowd check -->` and `<!-- /crowd check -->` in
# docs/crowd-demo.md; each is replaced whole.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

mode=write
case "${1:-}" in
--check) mode=check ;;
--check-full) mode=check-full ;;
"") ;;
*)
    echo "usage: bash docs/pictures.sh [--check | --check-full]" >&2
    exit 2
    ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A run's figures (the JSON object on the last line of `--json`) as the
# text of a caption ($2 = caption) or of the short version's line ($2 = short).
describe() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
n = lambda v: f"{v:,}"
a = run["activities"]
if sys.argv[2] == "caption":
    print(
        f"*`cargo run --release --example crowd`: {n(run['agents'])} agents after "
        f"{n(run['steps'])} steps, each running the same {run['tree_nodes']}-node tree "
        f"loaded from `examples/trees/crowd.json` — fleeing the roaming threats "
        f"(red, {n(a.get('flee', 0))}), walking to food and eating (green, {n(a.get('eat', 0))}), "
        f"walking to a rest area and sleeping (blue, {n(a.get('rest', 0))}), chatting "
        f"(orange, {n(a.get('socialize', 0))}), wandering (purple, {n(a.get('wander', 0))}); "
        f"{n(run['meals'])} meals eaten so far. Picture and counts: `bash docs/pictures.sh`.*"
    )
else:
    print(
        f"`cargo run --example crowd -- --agents {run['agents']}`: after {n(run['steps'])} steps "
        f"flee {n(a.get('flee', 0))}, eat {n(a.get('eat', 0))}, rest {n(a.get('rest', 0))}, "
        f"socialize {n(a.get('socialize', 0))}, wander {n(a.get('wander', 0))}; "
        f"{n(run['meals'])} meals; state hash `{run['state_hash']}`."
    )
EOF
}

# Replace (write) or compare (check) the block between `<!-- $2 -->` and
# `<!-- /$2 -->` in page $1 with the text in file $3.
block() {
    python3 - "$1" "$2" "$3" "$mode" <<'EOF'
import sys
page, name, mode = sys.argv[1], sys.argv[2], sys.argv[4]
want = open(sys.argv[3]).read().strip()
text = open(page).read()
start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
try:
    a = text.index(start) + len(start)
    b = text.index(end, a)
except ValueError:
    sys.exit(f"{page}: no <!-- {name} --> ... <!-- /{name} --> in it")
if mode == "write":
    open(page, "w").write(text[:a] + "\n" + want + "\n" + text[b:])
elif text[a:b].strip() != want:
    sys.exit(
        f"{page}: the {name} is not today's run (bash docs/pictures.sh writes it):\n"
        f"  page: {text[a:b].strip()}\n  run:  {want}"
    )
else:
    print(f"{page}: the {name} is today's run")
EOF
}

# The short version, in a debug build: 1,000 agents, the default steps and
# seed. Its state hash is the same in any build and on any number of
# threads. CI passes the demo it has already built as CROWD_DEMO.
short() {
    if [ -n "${CROWD_DEMO:-}" ]; then
        "$CROWD_DEMO" --agents 1000 --out "$tmp/short.svg" --json
    else
        cargo run --quiet --example crowd -- --agents 1000 --out "$tmp/short.svg" --json
    fi | tail -n 1 >"$tmp/short.json"
    describe "$tmp/short.json" short >"$tmp/short.md"
}

# The default run, exactly as the README's first command, with its
# figures as JSON on the last line.
default() {
    cargo run --release --quiet --example crowd -- --out "$tmp/crowd.svg" --json >"$tmp/default.txt"
    tail -n 1 "$tmp/default.txt" >"$tmp/default.json"
    describe "$tmp/default.json" caption >"$tmp/caption.md"
}

case "$mode" in
check)
    short
    block docs/crowd-demo.md "crowd check" "$tmp/short.md"
    exit 0
    ;;
check-full)
    default
    status=0
    for page in README.md docs/crowd-demo.md; do
        block "$page" "crowd caption" "$tmp/caption.md" || status=1
    done
    exit "$status"
    ;;
esac

short
default
block docs/crowd-demo.md "crowd check" "$tmp/short.md"
for page in README.md docs/crowd-demo.md; do
    block "$page" "crowd caption" "$tmp/caption.md"
done

command -v rsvg-convert >/dev/null ||
    (apt-get update -qq && apt-get install -y -qq librsvg2-bin) >/dev/null
png() { rsvg-convert --width 760 --keep-aspect-ratio -o "$2" "$1"; }

# The default run's last frame; the same crowd with level of detail.
png "$tmp/crowd.svg" docs/crowd.png
cargo run --release --quiet --example crowd -- --lod --out "$tmp/lod.svg" >/dev/null
png "$tmp/lod.svg" docs/crowd-lod.png
# Activity shares over 10,000 steps, without and with level of detail.
cargo run --release --quiet --example crowd -- --steps 10000 --out "$tmp/long.svg" \
    --plot docs/crowd-activity.svg >"$tmp/long.txt"
cargo run --release --quiet --example crowd -- --steps 10000 --lod --out "$tmp/long-lod.svg" \
    --plot docs/crowd-activity-lod.svg >"$tmp/long-lod.txt"
# The movement model against measurements: the fundamental diagram, the
# bottleneck's flows and a picture of it.
cargo run --release --quiet -p canopy-crowd --example pedestrians -- \
    --fd-plot docs/fundamental-diagram.svg --flow-plot docs/bottleneck-flow.svg \
    --picture docs/crowd-bottleneck.svg >"$tmp/pedestrians.md"
echo "default run:"
grep -v '^{' "$tmp/default.txt"
echo "10,000 steps: $(grep -E '^flow after' "$tmp/long.txt")"
echo "10,000 steps, level of detail: $(grep -E '^flow after' "$tmp/long-lod.txt")"
cat "$tmp/pedestrians.md"
