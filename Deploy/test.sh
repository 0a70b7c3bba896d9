#!/usr/bin/env bash
# Run every test (the README's test command). Installs the Debian packages the
# build and the tests need, then runs `swift test` with any extra arguments, e.g.
#   Deploy/test.sh --filter VCardTests
# and exits with swift test's status.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv

# --- Radicale (CardDAV integration tests) ------------------------------------
# The tests start their own Radicale servers (Tests/TestSupport/RadicaleServer.swift)
# from the virtualenv in .venv/; vdirsyncer is there for the benchmark. Pinned to
# the versions the tests were written against; no network when they are installed.
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv

# --- GPIO VM (hardware scenarios, ../shared/gpio-vm) --------------------------
# A later issue boots the VM with the simulated GPIO chip here.

status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}

# One closing line for people and CI: "N passed, M failed", from Swift Testing's report.
total=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -n 1)
failed=$(grep -c '^✘ Test "[^"]*"\( with [0-9]* test cases\)\{0,1\} failed' "$log" || true)
echo "swift-test: $((${total:-0} - failed)) passed, $failed failed"

# --- Teardown: stop what the sections above started. --------------------------

exit "$status"
