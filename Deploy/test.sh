#!/usr/bin/env bash
# Run every test (the README's test command). Installs the Debian packages the
# build and the tests need, runs `swift test` with any extra arguments, e.g.
#   Deploy/test.sh --filter VCardTests
# then (without arguments) a short run of each fuzz target, short runs of the setup, writes, contacts
# and care benchmarks (Deploy/bench/setup.sh, writes.sh, contacts.sh, care.sh), the Debian package's checks
# (Deploy/package-check.sh), the hardware scenarios in
# the GPIO VM, the installed box under systemd in a Debian VM and a short run of power cuts there, and exits 1 if
# anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
# chromium: the status page in a real browser, chromium-driver: its chromedriver, through
# which the tests click and type in it (WebDriver); systemd, shellcheck, libxml2-utils: the
# deployment files checked by the tools that read them; curl: the CardDAV tests read
# and write the servers with it, not through the code under test; lintian, dpkg-dev (dpkg-shlibdeps) and
# binutils (strip): the Debian package.
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv chromium chromium-driver fonts-dejavu-core systemd shellcheck \
    libxml2-utils curl lintian dpkg-dev binutils

# --- Cyrus IMAP's CardDAV (the server Fastmail runs) -----------------------------
# The tests start private instances (Tests/TestSupport/CyrusServer.swift) with their
# own configuration, as root switching to the cyrus user. The packages pull in exim4;
# neither system service is left running or enabled.
apt_ensure_no_services cyrus-imapd exim4 -- cyrus-imapd cyrus-caldav cyrus-admin sasl2-bin

# --- nginx: Radicale behind OAuth 2.0 bearer tokens, as Google's CardDAV is --------
# The tests run their own nginx as a plain process from a generated configuration
# (Tests/TestSupport/BearerCardDAVServer.swift): `auth_request` asks the OAuth
# stand-in (Tests/TestSupport/oauth_standin.py) whether the bearer token is valid.
# The package's own system service is neither left running nor enabled.
apt_ensure_no_services nginx -- nginx

# --- Radicale and Xandikos (CardDAV integration tests) --------------------------
# The tests start their own Radicale and Xandikos servers (Tests/TestSupport/
# RadicaleServer.swift, XandikosServer.swift) from the virtualenv in .venv/;
# vdirsyncer is there for the benchmark. Pinned to
# the versions the tests were written against; no network when they are installed.
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv

status=0
# What failed, section by section: repeated at the very end, where a CI log's tail shows it.
failures=()
fail() {
    failures+=("$1")
    status=1
}
# --- Format: the rules in .swift-format, kept by the tool rather than by review.
if ! swift format lint --strict --recursive Package.swift Sources Tests Plugins Fuzz; then
    echo "swift format lint: the files above need \`swift format -i -r Package.swift Sources Tests Plugins Fuzz\`" >&2
    fail "swift format lint"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The build refuses an import of a module that a target does not declare (Package.swift): the import table of
# Docs/architecture.md cannot drift.
swift test --explicit-target-dependency-import-check error "$@" 2>&1 | tee "$log" || fail "swift test (exit ${PIPESTATUS[0]})"

# One closing line for people and CI: "N passed, M failed", from Swift Testing's report.
total=$(sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -n 1)
failed=$(grep -c '^✘ Test "[^"]*"\( with [0-9]* test cases\)\{0,1\} failed' "$log" || true)
echo "swift-test: $((${total:-0} - failed)) passed, $failed failed"

# --- Fuzzing: a short run of each libFuzzer target (Deploy/fuzz.sh, Docs/fuzzing.md) --
# A crash fails the run and names the input. FUZZ_SECONDS per target.
if [[ $# -eq 0 ]]; then
    FUZZ_SECONDS=${FUZZ_SECONDS:-15} Deploy/fuzz.sh || fail "fuzzing (Deploy/fuzz.sh)"
fi

# --- The setup session's footprint: a short run of Deploy/bench/setup.sh ----------
# The page's setup of a fresh box (pair, find and add a Radicale book of 100 contacts, its first sync, the
# interval, a folder) by the release daemon in a 20 MB memory cgroup; its 8 MB footprint budget fails the run.
if [[ $# -eq 0 ]]; then
    BENCH_CONTACTS=100 Deploy/bench/setup.sh || fail "the setup benchmark (Deploy/bench/setup.sh)"
fi

# --- What the daemon writes to the card: a short run of Deploy/bench/writes.sh -----
# The release daemon against a Radicale book of 100 contacts: the first sync, 10 s idle, 5 no-op passes, a full
# check, 10 passes carrying a change; /proc/PID/io's write_bytes per pass; the idle day's 2 MB budget fails the run.
if [[ $# -eq 0 ]]; then
    BENCH_CONTACTS=100 BENCH_PASSES=5 BENCH_DAY_PASSES=10 BENCH_IDLE_SECONDS=10 Deploy/bench/writes.sh || fail "the writes benchmark (Deploy/bench/writes.sh)"
fi

# --- The contacts' API under load: a short run of Deploy/bench/contacts.sh -----------
# The release daemon in a 20 MB memory cgroup with Radicale books of 200 and 1,000 contacts: list pages and searches
# under wrk (two clients: a household's phones) while a sync runs (p95 <= 50 ms), the changes feed and the download
# whole, the footprint <= 8 MB and flat.
if [[ $# -eq 0 ]]; then
    BENCH_CONTACTS=1000 BENCH_BASE=200 BENCH_SECONDS=3 BENCH_CONNECTIONS=2 Deploy/bench/contacts.sh ||
        fail "the contacts benchmark (Deploy/bench/contacts.sh)"
fi

# --- The store's care: a short run of Deploy/bench/care.sh ---------------------------
# A store of 500 contacts in a 20 MB memory cgroup: the start's quick check, the day's safety copy (and none when
# nothing changed), a page overwritten with garbage found, not copied, and recovered from the copy.
if [[ $# -eq 0 ]]; then
    BENCH_CONTACTS=500 Deploy/bench/care.sh || fail "the care benchmark (Deploy/bench/care.sh)"
fi

# --- The Debian package: Deploy/package-check.sh ------------------------------------
# Deploy/package.sh --fast twice from the release binaries the benchmarks above built: the same sha256 both
# times, lintian without errors, the files, conffiles and Depends: expected; prints its size and installed size.
if [[ $# -eq 0 ]]; then
    # shellcheck source=Deploy/lib/release-build.sh
    source Deploy/lib/release-build.sh
    release_bin=$(swift build "${RELEASE_FLAGS[@]}" --show-bin-path)
    # The maintainer scripts in a chroot too, where the VM harness has a Debian 12 root filesystem cached (the
    # sections below make it): install, upgrade, remove, install again, purge; about 10 s more.
    package_rootfs=()
    for candidate in "${GPIO_VM_CACHE:-${HOME:-/tmp}/.cache/gpio-vm}"/debian/*/root; do
        if [[ -x $candidate/usr/bin/dpkg && $(id -u) -eq 0 ]]; then
            package_rootfs=(--rootfs "$candidate")
        fi
    done
    Deploy/package-check.sh --bin "$release_bin" "${package_rootfs[@]}" ||
        fail "the Debian package (Deploy/package-check.sh)"
fi

# --- Hardware scenarios: the release binaries with libgpiod in the GPIO VM -------
# (Tests/hardware/gpio-vm/run, the VM harness; GPIO_VM_RUN names another.)
if [[ $# -eq 0 ]]; then
    Tests/hardware/run.sh || fail "the hardware scenarios (Tests/hardware/run.sh)"
fi

# --- The installed box under systemd: Debian 12 in the same VM harness ---------
# (--guest debian: debootstrap's root filesystem, cached in the harness's cache;
# install.sh --bin, a reboot, then the service's scenarios; Tests/systemd/run.sh).
# It says SKIPPED where QEMU cannot run.
if [[ $# -eq 0 ]]; then
    Tests/systemd/run.sh || fail "the installed box under systemd (Tests/systemd/run.sh)"
fi

# --- Power cuts, the short form: the same guest on a disk that loses unflushed writes ---
# (Tests/systemd/power-cuts.sh --short: 1 cut at a random moment of a first download of 2,000 contacts or of a sync
# with 1 % changed on each side (the run's seed chooses), checked after the box boots again; about 2 min. The full
# form, 30 cuts over
# 7 operations, is a script of its own: Docs/measurements/power-cuts.md.) It says SKIPPED where QEMU cannot run.
if [[ $# -eq 0 ]]; then
    Tests/systemd/power-cuts.sh --short || fail "power cuts, the short form (Tests/systemd/power-cuts.sh --short)"
fi

# --- Teardown: stop what the sections above started. --------------------------

if [[ $status -ne 0 ]]; then
    printf -v failed_sections '%s; ' "${failures[@]}"
    echo "Deploy/test.sh: FAILED: ${failed_sections%; }" >&2
    # The failed tests by name and the first lines of their issues, from the log of swift test.
    grep -E '^✘ Test "[^"]*"( with [0-9]* test cases)? (failed|recorded an issue)' "$log" | head -n 20 >&2 || :
fi
exit "$status"
