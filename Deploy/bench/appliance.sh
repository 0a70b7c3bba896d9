#!/usr/bin/env bash
# Appliance benchmark: a release `contactbox run` with the simulated panel.
#   1. time from process start to the first LED state (the daemon logs it, from /proc/self/stat);
#   2. idle memory after start with nothing to sync;
#   3. memory through a start-up sync that downloads N contacts from Radicale on 127.0.0.1, for each N of
#      BENCH_SIZES (1,000 10,000 50,000), and once idle again;
#   4. the status page under wrk for 30 s (GET /api/status, 2 threads, 8 connections: the per-client limit), after
#      the largest sync: requests/s and footprint growth.
# Memory is the footprint (peak private memory, sampled every 10 ms by Deploy/lib/footprint.py), with peak RSS
# (VmHWM) and PSS beside it. Budgets (exit 1 if one fails): first LED <= 100 ms; footprint <= 8 MB at every N and
# within 1 MB of the first N; >= 5,000 requests/s; footprint growth under that load < 256 KB.
# BENCH_SIZES and BENCH_WRK_SECONDS change the sizes.
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
read -ra sizes <<<"${BENCH_SIZES:-1000 10000 50000}"
seconds=${BENCH_WRK_SECONDS:-30}

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"

failures=()
row() { printf '%-46s %9s %13s %12s %7s\n' "$@"; }
memory() { echo "$(mb "$fp_kb") $(mb "$hwm_kb") $(mb "$pss_kb")"; }
row "figure" "value" "footprint MB" "peak RSS MB" "PSS MB"

# --- 1 and 2: start-up with nothing to sync ----------------------------------------------------------------
daemon_start idle 1h "$(vdir_remote "$work/nas")"
footprint_watch "$pid" "$work/idle.fp"
daemon_wait_runs 1 30
sleep 5
first_led=$(sed -n 's/.*panel.first_led_ms=\([0-9]*\).*/\1/p' "$daemon_dir/daemon.log")
footprint_now "$pid"
idle_kb=$fp_kb
footprint_stop "$work/idle.fp"
daemon_stop
row "first LED state after process start" "$first_led ms" "" "" ""
# shellcheck disable=SC2046 # three numbers
row "idle, nothing to sync (peak)" "" $(memory)
row "idle, nothing to sync (now)" "" "$(mb "$idle_kb")" "" ""
((first_led <= 100)) || failures+=("first LED after $first_led ms > 100 ms")

# --- 3: start-up syncs downloading N contacts ----------------------------------------------------------------
base_kb=
for n in "${sizes[@]}"; do
    radicale_start "$n"
    daemon_start "sync-$n" 1h "$(carddav_remote)"
    footprint_watch "$pid" "$work/sync-$n.fp"
    daemon_wait_runs 1 1800
    (($(daemon_runs ok) == 1)) || failures+=("N=$n: the start-up sync did not end ok")
    footprint_stop "$work/sync-$n.fp"
    # shellcheck disable=SC2046
    row "start-up sync of $n ($wall_s s)" "" $(memory)
    ((fp_kb <= 8 * 1024)) || failures+=("N=$n: daemon footprint $(mb "$fp_kb") MB > 8 MB")
    base_kb=${base_kb:-$fp_kb}
    ((fp_kb - base_kb <= 1024)) ||
        failures+=("N=$n: daemon footprint $(mb "$fp_kb") MB is over 1 MB above N=${sizes[0]}")
    sleep 5
    footprint_now "$pid"
    row "idle after that sync (now)" "" "$(mb "$fp_kb")" "$(mb "$rss_kb") now" "$(mb "$pss_kb")"
    if [[ $n != "${sizes[-1]}" ]]; then daemon_stop; fi
done

# --- 4: the status page under load, after the largest sync ----------------------------------------------------
footprint_now "$pid"
before_kb=$fp_kb before_rss=$rss_kb
wrk -t2 -c8 -d"${seconds}s" "$status/api/status" >"$work/wrk.txt"
rps=$(awk '/Requests\/sec/ { printf "%d", $2 }' "$work/wrk.txt")
errors=$(grep -c 'Non-2xx\|Socket errors' "$work/wrk.txt" || true)
footprint_now "$pid"
growth=$((fp_kb - before_kb))
daemon_stop
row "status page, GET /api/status, ${seconds} s" "$rps /s" "" "" ""
row "growth under that load" "" "$growth KB" "$((rss_kb - before_rss)) KB" ""
[[ $errors -eq 0 ]] || { echo "wrk reported errors:" && cat "$work/wrk.txt"; }
((rps >= 5000)) || failures+=("status page: $rps requests/s < 5000")
((growth < 256)) || failures+=("status page: footprint grew $growth KB under load, not < 256 KB")
((daemon_exit == 0)) || failures+=("the daemon exited $daemon_exit on SIGTERM")

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: first LED <= 100 ms; footprint <= 8 MB at every N and flat within 1 MB; >= 5,000 requests/s;" \
    "footprint growth under load < 256 KB"
