#!/usr/bin/env bash
# Appliance benchmark: a release `contactbox run` with the simulated panel.
#   1. time from process start to the first LED state (the daemon logs it, from /proc/self/stat);
#   2. idle resident memory after start with nothing to sync (VmRSS);
#   3. peak resident memory (VmHWM) through a start-up sync that downloads 10,000 contacts from Radicale on
#      127.0.0.1, and resident memory once idle again;
#   4. the status page under wrk for 30 s (GET /api/status, 2 threads, 8 connections: the per-client limit):
#      requests/s and RSS growth.
# Budgets (exit 1 if one fails): first LED <= 100 ms; peak RSS <= 20 MB; >= 5,000 requests/s; RSS growth under
# 0.5 MB. BENCH_CONTACTS and BENCH_WRK_SECONDS change the sizes.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv wrk curl
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# shellcheck disable=SC2119 # no extra swift build flags
release_build
contactbox=$CONTACTBOX_BIN
contacts=${BENCH_CONTACTS:-10000}
seconds=${BENCH_WRK_SECONDS:-30}

work=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
kib() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# --- Radicale with N contacts ------------------------------------------------------------------------------
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
radicale_configure "$work"
radicale_start "$contacts"
pids+=("$radicale_pid")

# start_daemon NAME REMOTE-TOML: runs the daemon on a fresh store; sets pid and status.
start_daemon() {
    local port
    port=$(free_port)
    status="http://127.0.0.1:$port"
    mkdir -p "$work/$1"
    cat >"$work/$1/contactbox.toml" <<CONF
store = "$work/$1/contacts.sqlite"
[sync]
interval = "1h"
[panel]
board = "simulated"
[status]
listen = "127.0.0.1:$port"
$2
CONF
    "$contactbox" run --config "$work/$1/contactbox.toml" </dev/null >"$work/$1/out.log" 2>"$work/$1/daemon.log" &
    pid=$!
    pids+=("$pid")
}
# wait_idle SECONDS: until the status page says idle after at least one sync.
wait_idle() {
    for _ in $(seq $(($1 * 10))); do
        if curl -s "$status/api/status" | grep -q '"state":"idle".*"last_result":"ok"'; then return 0; fi
        sleep 0.1
    done
    echo "the daemon did not get idle; its log:" >&2 && cat "$work"/*/daemon.log >&2 && exit 1
}

# --- 1 and 2: start-up with nothing to sync ----------------------------------------------------------------
start_daemon idle "$(printf '[[remote]]\nname = "nas"\nkind = "vdir"\nfolder = "%s"\ncreate_folder = true' "$work/nas")"
wait_idle 30
sleep 5
first_led=$(sed -n 's/.*panel.first_led_ms=\([0-9]*\).*/\1/p' "$work/idle/daemon.log")
idle_rss=$(kib "$pid" VmRSS)
kill "$pid" && wait "$pid"

# --- 3: a start-up sync downloading N contacts ----------------------------------------------------------------
start=$(date +%s.%N)
start_daemon sync "$(printf '[[remote]]\nname = "radicale"\nkind = "carddav"\nurl = "%s"\nusername = "alice"\npassword_file = "%s"' "$book" "$work/password")"
wait_idle 600
sync_seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
peak=$(kib "$pid" VmHWM)
sleep 5
after_rss=$(kib "$pid" VmRSS)

# --- 4: the status page under load ------------------------------------------------------------------------
before=$(kib "$pid" VmRSS)
wrk -t2 -c8 -d"${seconds}s" "$status/api/status" >"$work/wrk.txt"
rps=$(awk '/Requests\/sec/ { printf "%d", $2 }' "$work/wrk.txt")
errors=$(grep -c 'Non-2xx\|Socket errors' "$work/wrk.txt" || true)
after=$(kib "$pid" VmRSS)
growth=$((after - before))
kill "$pid" && wait "$pid"

printf '%-44s %10s\n' "figure" "value"
printf '%-44s %7s ms\n' "first LED state after process start" "$first_led"
printf '%-44s %7s MB\n' "idle RSS, nothing to sync" "$(mb "$idle_rss")"
printf '%-44s %7s MB\n' "peak RSS, start-up sync of $contacts (${sync_seconds} s)" "$(mb "$peak")"
printf '%-44s %7s MB\n' "idle RSS after that sync" "$(mb "$after_rss")"
printf '%-44s %7s /s\n' "status page, GET /api/status, ${seconds} s" "$rps"
printf '%-44s %7s KB (%s MB -> %s MB)\n' "RSS growth under that load" "$growth" "$(mb "$before")" "$(mb "$after")"
[[ $errors -eq 0 ]] || { echo "wrk reported errors:" && cat "$work/wrk.txt"; }

failed=0
budget() { # budget TEXT OK
    if [[ $2 -eq 1 ]]; then echo "budget ok:     $1"; else echo "budget missed: $1"; failed=1; fi
}
budget "first LED <= 100 ms" "$([[ $first_led -le 100 ]] && echo 1 || echo 0)"
budget "peak RSS <= 20 MB" "$([[ $peak -le 20480 ]] && echo 1 || echo 0)"
budget "status page >= 5000 requests/s" "$([[ $rps -ge 5000 ]] && echo 1 || echo 0)"
budget "RSS growth under load < 0.5 MB" "$([[ $growth -lt 512 ]] && echo 1 || echo 0)"
exit "$failed"
