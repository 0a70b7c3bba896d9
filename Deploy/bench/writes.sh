#!/usr/bin/env bash
# Writes benchmark: what the daemon writes to the card. A release `contactbox run` (simulated panel) with one
# Radicale book of N contacts on 127.0.0.1 (BENCH_CONTACTS, default 10,000), its store and its scratch files
# (TMPDIR: the listing's databases) on disk in the benchmark's folder. Bytes are the process's own, from
# /proc/PID/io, read before and after: write_bytes (what it caused to be written to storage: pages it dirtied),
# cancelled_write_bytes (dirty pages it truncated before they were written: a deleted scratch file) and wchar (what
# it passed to write calls). Between two passes the store's files are fsynced by the benchmark (`sync FILE...`), so
# that each pass dirties clean pages as it does 15 minutes after the last one: pages still dirty are not counted
# twice. Passes are asked for with POST /api/sync (the daemon's interval is 1h: the timer starts none).
#   1. the first sync of the N contacts (for scale);
#   2. idle: nothing for BENCH_IDLE_SECONDS (60), between passes;
#   3. a no-op pass, nothing changed on either side: BENCH_PASSES (20) passes;
#   4. a full check (`full_check`, daily): the daemon reloaded with interval "2s" and full_check "1s", one timed
#      pass after the reload's;
#   5. a day of 1% changes: N/100 contacts changed on the server once each, spread over BENCH_DAY_PASSES (96, a
#      day at the default interval of 15 minutes) passes, a few PUT before each;
#   6. where the bytes go: 3 no-op passes and 3 passes with one change each under strace (Deploy/bench/writes_where.py:
#      bytes per file, WAL frames and checkpointed pages by table).
# A day at the default interval (`[sync] interval = "15m"`, `full_check = "24h"`) is 96 passes, one of them a full
# check, and the idle time between them: day = 95 no-ops + 1 full check + idle bytes/s x the rest of the 24 h.
# Budget (exit 1 if it fails): an idle day writes at most 2 MB (write_bytes); every pass ends ok.
#   BENCH_CONTACTS=10000 Deploy/bench/writes.sh     (Deploy/test.sh runs a short form with 100)
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv curl strace sqlite3
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# shellcheck disable=SC2119 # no extra swift build flags
release_build
contactbox=$CONTACTBOX_BIN
contacts=${BENCH_CONTACTS:-10000}
passes=${BENCH_PASSES:-20}
idle_seconds=${BENCH_IDLE_SECONDS:-60}
day_passes=${BENCH_DAY_PASSES:-96}
changes=$(((contacts + 99) / 100))
# The default interval and full check (Sources/Config/Configuration.swift, SyncSettings).
interval_s=$((15 * 60))
per_day=$((86400 / interval_s))
budget=$((2 * 1024 * 1024))

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"
radicale_start "$contacts"
mkdir -p "$work/tmp"

failures=()
fail() { failures+=("$*"); }
# io: the daemon's write_bytes, cancelled_write_bytes and wchar, and the time (ms), into io_w io_c io_wc io_t
io() {
    read -r io_w io_c io_wc < <(awk '/^write_bytes/ { w = $2 } /^cancelled_write_bytes/ { c = $2 }
        /^wchar/ { wc = $2 } END { print w, c, wc }' "/proc/$pid/io")
    io_t=$(date +%s%3N)
}
mark() { io; m_w=$io_w m_c=$io_c m_wc=$io_wc m_t=$io_t; }
# since: the figures since the last mark, into d_w d_c d_wc d_ms
since() { io; d_w=$((io_w - m_w)) d_c=$((io_c - m_c)) d_wc=$((io_wc - m_wc)) d_ms=$((io_t - m_t)); }
# settle: the store's files (the -shm index too: mapped, its pages count when dirtied) written back, so that the
# next pass dirties clean pages
settle() { sync "$store" "$store-wal" "$store-shm" 2>/dev/null || sync; }
runs=0
# pass: asks for one pass and waits until it is over
pass() {
    curl -s -o /dev/null -X POST "$status/api/sync"
    runs=$((runs + 1))
    daemon_wait_runs "$runs" 600 || { fail "pass $runs did not end" && return 1; }
}
kb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }
row() { printf '%-34s %7s %14s %14s %13s %13s %14s\n' "$@"; }
# figure NAME PASSES: a row from d_* (per pass, and for a day of such passes where that means something)
figure() {
    local each='' day=''
    if (($2 > 0)); then
        each=$(kb $((d_w / $2)))
        day=$(kb $((d_w * per_day / $2)))
    fi
    row "$1" "$2" "$(kb "$d_w")" "$(kb "$((d_w - d_c))")" "$(kb "$d_wc")" "$each" "${3:-$day}"
}

# Its log through a pipe, as systemd's journal stream takes it on the box (journald's writes are not the daemon's):
# bash makes the pipe to a cat that appends to daemon.log, and becomes the daemon (the PID stays).
# shellcheck disable=SC2016 # for the inner bash
daemon_start writes 1h "$(carddav_remote)" bash -c 'exec 2> >(exec cat >&2); exec "$@"' _ env TMPDIR="$work/tmp"
store=$daemon_dir/contacts.sqlite
echo "$contacts contacts in Radicale; the store and the scratch files on $(df --output=source "$work" | tail -1);" \
    "figures in KB (1,024 bytes) of the daemon's /proc/PID/io"
row scenario passes "write_bytes" "less cancelled" "wchar" "per pass" "a day of them"

# --- 1. the first sync ---------------------------------------------------------------------------------------------
io
m_w=0 m_c=0 m_wc=0 m_t=$io_t
runs=1
daemon_wait_runs 1 1800 || fail "the first sync did not end"
since
figure "start and first sync of $contacts" 1 "-"
settle

# --- 2. idle --------------------------------------------------------------------------------------------------------
sleep 2
mark
sleep "$idle_seconds"
since
idle_w=$d_w idle_ms=$d_ms
figure "idle ${idle_seconds} s" 0 "$(kb $((idle_w * 86400000 / idle_ms)))"

# --- 3. no-op passes -------------------------------------------------------------------------------------------------
noop_w=0 noop_ms=0
for ((i = 0; i < passes; i++)); do
    settle
    mark
    pass || break
    since
    noop_w=$((noop_w + d_w)) noop_c=$((${noop_c:-0} + d_c)) noop_wc=$((${noop_wc:-0} + d_wc))
    noop_ms=$((noop_ms + d_ms))
done
d_w=$noop_w d_c=${noop_c:-0} d_wc=${noop_wc:-0}
figure "no-op pass" "$passes"
wal_after_noops=$(stat -c %s "$store-wal" 2>/dev/null || echo 0)

# --- 6. where the bytes go (strace) ---------------------------------------------------------------------------------
# Before the full check and the day, which reload and change the book.
settle
strace -f -y -xx -s 4 -e trace=write,pwrite64,pwritev,pwritev2,ftruncate,fsync,fdatasync -o "$work/noop.strace" \
    -p "$pid" 2>"$work/strace.err" &
strace_pid=$!
pids+=("$strace_pid")
sleep 1
for _ in 1 2 3; do settle && pass; done
kill -INT "$strace_pid"
wait "$strace_pid" || true
mapfile -t edits < <(python3 Deploy/bench/seed_radicale.py edit-files "$work/edits" "$changes" "$contacts" day)
# put FIRST END: the changed cards FIRST..END-1 to Radicale
put() {
    local i
    for ((i = $1; i < $2; i++)); do
        curl -s -o /dev/null -u alice:bench-pw -T "$work/edits/${edits[i]}.vcf" -H 'Content-Type: text/vcard' \
            "$book${edits[i]}.vcf" || fail "PUT ${edits[i]}"
    done
}
spare=$((changes < 3 ? changes : 3))
strace -f -y -xx -s 4 -e trace=write,pwrite64,pwritev,pwritev2,ftruncate,fsync,fdatasync -o "$work/change.strace" \
    -p "$pid" 2>>"$work/strace.err" &
strace_pid=$!
pids+=("$strace_pid")
sleep 1
for ((i = 0; i < spare; i++)); do settle && put "$i" $((i + 1)) && pass; done
kill -INT "$strace_pid"
wait "$strace_pid" || true

# --- 5. a day of 1% changes ------------------------------------------------------------------------------------------
# The remaining changes (the strace's few are done: the day changes them again, with a later note) spread over
# the day's passes: before pass j, the cards from j * changes / day_passes on.
mapfile -t edits < <(python3 Deploy/bench/seed_radicale.py edit-files "$work/edits" "$changes" "$contacts" day-2)
day_w=0 day_c=0 day_wc=0 day_ms=0
for ((j = 0; j < day_passes; j++)); do
    put $((j * changes / day_passes)) $(((j + 1) * changes / day_passes))
    settle
    mark
    pass || break
    since
    day_w=$((day_w + d_w)) day_c=$((day_c + d_c)) day_wc=$((day_wc + d_wc)) day_ms=$((day_ms + d_ms))
done
d_w=$day_w d_c=$day_c d_wc=$day_wc
figure "1% day: $changes changes" "$day_passes" "$(kb $((day_w * per_day / day_passes)))"

# --- 4. a full check -------------------------------------------------------------------------------------------------
sed -i 's/^\[sync\]$/[sync]\nfull_check = "1s"/; s/^interval = .*/interval = "2s"/' "$daemon_dir/contactbox.toml"
settle
kill -HUP "$pid"
runs=$((runs + 1))
daemon_wait_runs "$runs" 600 || fail "the reload's pass did not end"
settle
mark
runs=$((runs + 1))
daemon_wait_runs "$runs" 600 || fail "the full check did not end"
since
full_w=$d_w full_c=$d_c
figure "full check (after the reload's)" 1 "-"
full_wc=$d_wc full_ms=$d_ms
not_ok=$(($(daemon_runs) - $(daemon_runs ok)))
daemon_stop
((not_ok == 0)) || fail "$not_ok sync runs did not end ok"

# --- the day ---------------------------------------------------------------------------------------------------------
noop_each=$((noop_w / passes))
busy_ms=$((noop_ms * per_day / passes))
idle_day=$((idle_w * (86400000 - busy_ms) / idle_ms))
passes_day=$((noop_each * (per_day - 1) + full_w))
total=$((passes_day + idle_day))
changes_day=$(((day_w * per_day / day_passes) - noop_each * per_day))
echo
echo "an idle day at the default interval ($per_day passes, one a full check): $(kb "$passes_day") KB in the passes" \
    "($((per_day - 1)) x $(kb "$noop_each") + $(kb "$full_w")) + $(kb "$idle_day") KB idle between them" \
    "= $(kb "$total") KB (budget $(kb "$budget") KB)"
echo "  less cancelled_write_bytes (dirty pages of files deleted before they were written back: the listing's" \
    "scratch databases): $(kb $((total - (${noop_c:-0} / passes) * (per_day - 1) - full_c))) KB"
echo "a day of 1% changes: the idle day and $(kb "$changes_day") KB more for the $changes changes" \
    "($(kb $((changes_day / changes))) KB a change) = $(kb $((total + changes_day))) KB"
echo "wall: a no-op pass $((noop_ms / passes)) ms, the full check $full_ms ms; write calls: a no-op pass" \
    "$(kb $((${noop_wc:-0} / passes))) KB, the full check $(kb "$full_wc") KB (it lists every item: its scratch files)"
echo "the WAL after the no-op passes: $wal_after_noops bytes; the store: $(stat -c %s "$store") bytes"
echo
echo "--- no-op passes under strace ---"
python3 Deploy/bench/writes_where.py "$work/noop.strace" "$store" 3
echo "--- passes of one change each under strace ---"
python3 Deploy/bench/writes_where.py "$work/change.strace" "$store" "$spare"
sqlite3 -readonly "$store" "SELECT 'rows: sync_runs ' || (SELECT count(*) FROM sync_runs) ||
    ', history ' || (SELECT count(*) FROM history) || ', contacts ' || (SELECT count(*) FROM contacts)" || true

((total <= budget)) || fail "an idle day writes $(kb "$total") KB > $(kb "$budget") KB"
echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: an idle day writes <= $(kb "$budget") KB; every pass ended ok"
