#!/usr/bin/env bash
# The crowd over MPI: on 1, 2 and 4 ranks (4 oversubscribed), in tick and
# event mode, every step's state hash equals the single-process run's
# (`--check` stops at the first that differs), with agents migrating and
# strips cut again; a checkpoint written by 2 ranks goes on on 4 and on 1
# with the uninterrupted run's hashes; a rank that goes silent ends the run
# within seconds, every other rank saying which. Needs OpenMPI: installs it when
# missing (Debian's libopenmpi-dev, openmpi-bin, and libclang-dev for the
# bindings). Runs as root, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq libopenmpi-dev openmpi-bin libclang-dev) >/dev/null
fi
target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')

cargo clippy -p canopy-mpi --features mpi --all-targets -- -D warnings
cargo build --release -p canopy-mpi --features mpi --example crowd_mpi
bin="$target_dir/release/examples/crowd_mpi"
run() {
    local n=$1
    shift
    timeout 600 mpirun --allow-run-as-root --oversubscribe -n "$n" "$bin" "$@"
}
# Eager balancing: checked every 5 steps, cut again past 2 % imbalance.
common=(--agents 3000 --seed 5 --check --print-every 100 --balance-every 5 --balance-above 1.02)
for mode in tick event; do
    for n in 1 2 4; do
        echo "== $n ranks, $mode mode =="
        run "$n" "${common[@]}" --mode "$mode" --steps 300 | tee /tmp/crowd_mpi.out
        grep -q "checked: every hashed step equals the single-process run" /tmp/crowd_mpi.out
        if [ "$n" -gt 1 ]; then
            # Agents crossed strips, and the strips were cut again.
            grep -Eq "migrated [1-9]" /tmp/crowd_mpi.out
            grep -Eq "strips cut again [1-9]" /tmp/crowd_mpi.out
        fi
    done
done

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "== checkpoint on 2 ranks, restart on 4 and on 1 =="
run 2 "${common[@]}" --mode event --steps 150 --checkpoint "$dir/ckpt"
for n in 4 1; do
    run "$n" --restart "$dir/ckpt" --check --print-every 50 --steps 150 | tee /tmp/crowd_mpi.out
    grep -q "from step 150" /tmp/crowd_mpi.out
    grep -q "checked: every hashed step equals the single-process run" /tmp/crowd_mpi.out
done
echo "== rank 1 of 3 goes silent at step 10: the others end the run =="
started=$SECONDS
status=0
timeout 60 mpirun --allow-run-as-root --oversubscribe -n 3 "$bin" --agents 3000 --steps 50 \
    --print-every 0 --exchange-timeout-ms 2000 --die-at-step 10 --die-rank 1 \
    2>"$dir/silent.err" || status=$?
cat "$dir/silent.err"
if [ "$status" -eq 0 ] || [ "$status" -eq 124 ]; then
    echo "mpi: the run with a silent rank ended with status $status, not a failure" >&2
    exit 1
fi
for rank in 0 2; do
    grep -q "rank $rank: no message from rank 1 for step 10 within 2000 ms; ending the run" "$dir/silent.err"
done
if [ $((SECONDS - started)) -gt 30 ]; then
    echo "mpi: the run with a silent rank took $((SECONDS - started)) s to end" >&2
    exit 1
fi
echo "mpi: every run gave the single-process hashes; a silent rank ended the run"
