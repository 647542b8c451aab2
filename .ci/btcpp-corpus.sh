#!/usr/bin/env bash
# Real BehaviorTree.CPP 4 trees, written by others, load and run on canopy:
# every tree of the corpus beside the repository (../shared/btcpp-corpus,
# read in place: its files are their owners') is checked with
# `canopy check` and run 50 ticks with `canopy run --ticks 50`, each with
# the node model it runs with on BehaviorTree.CPP 4.10:
#   - nav2/: Nav2's trees, with nav2/nav2_tree_nodes.xml. Its docking
#     application_example.xml writes <inverter>, which BehaviorTree.CPP
#     refuses too: it must be refused with a pointer to Inverter.
#   - others/: the trees of others/SOURCES.md's "Files" table, with the
#     model its "model it runs with" column names (a file beside the tree,
#     the tree's own <TreeNodesModel>, or none).
# A tree in KNOWN_FAILURES must fail with the error given there (canopy's
# refusals still to be lifted); one that passes fails the step, so that the
# list only shrinks. Any other tree that fails fails the step.
#
# Usage: .ci/btcpp-corpus.sh [CANOPY] (default: the debug build's canopy);
# CANOPY_BTCPP_CORPUS names another place for the corpus.
set -euo pipefail
cd "$(dirname "$0")/.."

corpus=${CANOPY_BTCPP_CORPUS:-../shared/btcpp-corpus}
if [ ! -d "$corpus/nav2" ] || [ ! -f "$corpus/others/SOURCES.md" ]; then
    echo "btcpp corpus: $corpus is missing (nav2/, others/SOURCES.md)" >&2
    exit 1
fi
canopy=${1:-}
if [ -z "$canopy" ]; then
    target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    canopy="$target_dir/debug/canopy"
fi
[ -x "$canopy" ] || { echo "btcpp corpus: no canopy binary at $canopy" >&2; exit 1; }

# Trees canopy refuses today, with what it says (a substring). Each is
# BehaviorTree.CPP-valid (it runs 50 ticks there with the same model).
# None now: every one of them checks and runs.
KNOWN_FAILURES=()

known_error() {
    local tree=$1 entry
    for entry in "${KNOWN_FAILURES[@]}"; do
        if [ "${entry%%|*}" = "$tree" ]; then
            printf '%s' "${entry#*|}"
            return 0
        fi
    done
    return 1
}

failed=0
passed=0
known=0
fail() {
    echo "FAIL $*" >&2
    failed=$((failed + 1))
}

# check_tree TREE [MODEL]: the tree checks and runs 50 ticks, or fails as
# KNOWN_FAILURES says.
check_tree() {
    local tree=$1 model=${2:-} args=() out status expected
    [ -f "$corpus/$tree" ] || { fail "$tree: not in the corpus"; return; }
    if [ -n "$model" ]; then
        [ -f "$corpus/$model" ] || { fail "$tree: its model $model is not in the corpus"; return; }
        args=(--model "$corpus/$model")
    fi
    status=0
    out=$("$canopy" check "${args[@]}" "$corpus/$tree" 2>&1) || status=$?
    if [ "$status" -eq 0 ]; then
        out=$("$canopy" run "${args[@]}" "$corpus/$tree" --ticks 50 2>&1) || status=$?
        if [ "$status" -eq 0 ] && ! grep -q '^total over 50 ticks × 1 agent' <<<"$out"; then
            status=1
        fi
    fi
    if expected=$(known_error "$tree"); then
        if [ "$status" -eq 0 ]; then
            fail "$tree: checks and runs now; remove it from KNOWN_FAILURES in $0"
        elif ! grep -qF -- "$expected" <<<"$out"; then
            fail "$tree: fails otherwise than KNOWN_FAILURES says ($expected):"$'\n'"$out"
        else
            known=$((known + 1))
        fi
    elif [ "$status" -ne 0 ]; then
        fail "$tree${model:+ (model $model)}:"$'\n'"$out"
    else
        passed=$((passed + 1))
    fi
}

# Nav2: every tree with Nav2's node model.
nav2=0
for path in "$corpus"/nav2/*.xml; do
    tree=nav2/$(basename "$path")
    case "$tree" in
        nav2/nav2_tree_nodes.xml) continue ;;
        nav2/application_example.xml)
            # <inverter>: refused, pointing at Inverter.
            nav2=$((nav2 + 1))
            status=0
            out=$("$canopy" check --model "$corpus/nav2/nav2_tree_nodes.xml" "$path" 2>&1) || status=$?
            if [ "$status" -eq 0 ] || ! grep -qF 'unknown node type "inverter" (did you mean "Inverter"?)' <<<"$out"; then
                fail "$tree: must be refused with a pointer to Inverter, got:"$'\n'"$out"
            else
                passed=$((passed + 1))
            fi
            continue
            ;;
    esac
    nav2=$((nav2 + 1))
    check_tree "$tree" nav2/nav2_tree_nodes.xml
done

# Others: SOURCES.md's "Files" table, | `tree` | `source` | model | note |.
others=0
while IFS='|' read -r tree model; do
    case "$model" in
        *"(included by a tree)"* | *"(a model file, not a tree)"*) continue ;;
    esac
    others=$((others + 1))
    dir=$(dirname "$tree")
    case "$model" in
        "none"*) check_tree "others/$tree" ;;
        "its own"*) check_tree "others/$tree" "others/$tree" ;;
        *)
            file=$(sed -n 's/^`\([^`]*\)`.*/\1/p' <<<"$model")
            [ -n "$file" ] || { fail "others/$tree: cannot read its model column: $model"; continue; }
            check_tree "others/$tree" "others/$dir/$file"
            ;;
    esac
done < <(awk -F'|' '
    /^## Files/ { files = 1; next }
    /^## / { files = 0 }
    files && /^\| `/ {
        tree = $2; model = $4
        gsub(/^ +| +$/, "", tree); gsub(/`/, "", tree); gsub(/^ +| +$/, "", model)
        print tree "|" model
    }' "$corpus/others/SOURCES.md")

echo "btcpp corpus: $nav2 Nav2 trees, $others others; $passed as expected, $known known failures (KNOWN_FAILURES), $failed failed"
if [ "$nav2" -ne 16 ] || [ "$others" -ne 42 ]; then
    echo "btcpp corpus: expected 16 Nav2 trees and 42 others" >&2
    exit 1
fi
[ "$failed" -eq 0 ]
