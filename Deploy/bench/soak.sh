#!/usr/bin/env bash
# Soak: months unattended, compressed. A release `contactbox run` with two remotes, Radicale on 127.0.0.1 holding N
# contacts and a vCard folder, and `[sync] interval = "1s"`, through P sync passes: odd passes find nothing to do,
# and before each even pass 1% of the contacts change on each remote (PUTs to Radicale, files rewritten in the
# folder); the changes land between two passes, and the timer may start a pass before the last edit is written,
# which then waits for the next one. Every 100 passes it prints the footprint (Deploy/lib/footprint.py: now, idle
# between passes, and the peak over those 100 passes), RSS and PSS. Then the status page takes R requests under wrk
# (GET /api/status, 2 threads, 8 connections).
# Budgets (exit 1 if one fails): after pass 100 the idle footprint grows by <= 256 KB; the footprint grows by
# <= 256 KB over the R requests; open file descriptors and threads end where they began (after the first pass;
# counted between passes); every pass ends ok.
#   BENCH_PASSES (2000), BENCH_CONTACTS (1000), BENCH_REQUESTS (1000000) change the sizes.
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
passes=${BENCH_PASSES:-2000}
contacts=${BENCH_CONTACTS:-1000}
requests=${BENCH_REQUESTS:-1000000}
changes=$(((contacts + 99) / 100))

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"
radicale_start "$contacts"
remotes=2

daemon_start soak 1s "$(carddav_remote)
$(vdir_remote "$work/folder")"
footprint_watch "$pid" "$work/soak.fp"
daemon_wait_runs "$remotes" 600
fds() { find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }
threads() { find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l; }
# idle_counts: file descriptors and threads between two passes (a pass holds a connection and a temporary file
# open, and with a 1 s interval the next one starts soon): the least of 20 counts taken while the page says idle.
idle_counts() {
    local f t
    idle_fds=999999 idle_threads=999999
    for _ in $(seq 20); do
        if curl -s "$status/api/status" | grep -q '"state":"idle"'; then
            f=$(fds) t=$(threads)
            ((f < idle_fds)) && idle_fds=$f
            ((t < idle_threads)) && idle_threads=$t
        fi
        sleep 0.1
    done
}
idle_counts
fds_start=$idle_fds threads_start=$idle_threads
echo "soak: $passes passes, $contacts contacts in Radicale and in the folder, $changes changed on each side before" \
    "every other pass; then $requests requests. At the start: $fds_start file descriptors, $threads_start threads."

failures=()
row() { printf '%7s %9s %15s %15s %12s %8s %5s %8s\n' "$@"; }
row pass "wall s" "footprint MB" "peak MB (100)" "RSS MB now" "PSS MB" fds threads
started=$SECONDS
base_kb=
largest_growth=0
for ((p = 2; p <= passes; p++)); do
    if ((p % 2 == 0)); then
        # shellcheck disable=SC2154 # radicale_work: Deploy/lib/bench-radicale.sh
        python3 Deploy/bench/seed_radicale.py edit-remote "$book" alice "$radicale_work/password" "$changes" \
            "$contacts" "pass-$p"
        python3 Deploy/bench/seed_radicale.py edit-folder "$work/folder" "$changes" "$contacts" "pass-$p"
    fi
    daemon_wait_runs $((p * remotes)) 600 || { failures+=("pass $p did not end") && break; }
    if ((p % 100 == 0)); then
        footprint_window "$work/soak.fp"
        window_kb=$fp_kb
        footprint_now "$pid"
        row "$p" "$((SECONDS - started))" "$(mb "$fp_kb")" "$(mb "$window_kb")" "$(mb "$rss_kb")" "$(mb "$pss_kb")" \
            "$(fds)" "$(threads)"
        if [[ -z $base_kb ]]; then base_kb=$fp_kb; fi
        ((fp_kb - base_kb > largest_growth)) && largest_growth=$((fp_kb - base_kb))
    fi
done
not_ok=$(($(daemon_runs) - $(daemon_runs ok)))
((not_ok == 0)) || failures+=("$not_ok sync runs did not end ok (see the status page's events)")
idle_counts
fds_passes=$idle_fds threads_passes=$idle_threads

# --- the status page ---------------------------------------------------------------------------------------------
footprint_now "$pid"
before_kb=$fp_kb before_rss=$rss_kb
done_requests=0
while ((done_requests < requests)); do
    wrk -t2 -c8 -d10s "$status/api/status" >"$work/wrk.txt"
    n=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
    done_requests=$((done_requests + n))
    if grep -q 'Non-2xx' "$work/wrk.txt"; then failures+=("the status page answered errors under wrk") && break; fi
done
sleep 1
footprint_now "$pid"
page_growth=$((fp_kb - before_kb))
idle_counts
fds_end=$idle_fds threads_end=$idle_threads
daemon_stop
footprint_stop "$work/soak.fp"

echo
echo "footprint growth after pass 100: at most $largest_growth KB (idle, sampled every 100 passes)"
echo "status page: $done_requests requests; footprint $(mb "$before_kb") -> $(mb "$((before_kb + page_growth))") MB" \
    "($page_growth KB), RSS $(mb "$before_rss") -> $(mb "$rss_kb") MB"
echo "file descriptors: $fds_start at the start, $fds_passes after the passes, $fds_end at the end;" \
    "threads: $threads_start, $threads_passes, $threads_end; peak footprint over the whole run $(mb "$fp_kb") MB;" \
    "exit status on SIGTERM $daemon_exit"
((largest_growth <= 256)) || failures+=("the idle footprint grew $largest_growth KB after pass 100, over 256 KB")
((page_growth <= 256)) || failures+=("the footprint grew $page_growth KB over $done_requests requests, over 256 KB")
((fds_end == fds_start)) || failures+=("file descriptors: $fds_start at the start, $fds_end at the end")
((threads_end == threads_start)) || failures+=("threads: $threads_start at the start, $threads_end at the end")
((daemon_exit == 0)) || failures+=("the daemon exited $daemon_exit on SIGTERM")

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: footprint growth <= 256 KB after pass 100 and over $done_requests requests; file descriptors and" \
    "threads end where they began; every pass ended ok"
