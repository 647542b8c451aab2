#!/usr/bin/env bash
# The inspector's browser test, from a fresh Debian machine: installs
# Chromium (Debian's package; no browser is ever downloaded by npm),
# Node.js and the pinned playwright-core, builds the servers, and drives
# them in headless Chromium.
#
#   crates/canopy-inspector/e2e/run.sh                  # the test
#   crates/canopy-inspector/e2e/run.sh --screenshot docs/inspector.png
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium chromium-driver)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# Exactly the versions in package-lock.json.
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)

# Debug builds: the test needs a few hundred agents, not speed. The whole
# workspace's examples, so that dependencies are built with the features the
# workspace build chose (with `-p`, tokio and hyper were built a second time).
(cd "$root" && cargo build --workspace --examples)

CANOPY_ROOT="$root" node "$here/inspector.test.mjs" "$@"
