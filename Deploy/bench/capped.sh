#!/usr/bin/env bash
# Capped runs: the release binaries inside a memory cgroup with a hard 20 MB limit (Deploy/lib/memcap.sh: systemd-run
# --scope, cgroup v2 or v1, whichever this machine offers; skipped, saying so, where none can be made), each run
# starting with the page cache dropped, against the same runs without a cap:
#   sync     `contactbox sync` downloading N contacts from Radicale on 127.0.0.1 into a fresh store;
#   daemon   `contactbox run`: a start-up sync downloading N contacts, the status page under wrk for 30 s, a sync
#            asked for through the page's API (as the button does: nothing to do), then SIGTERM.
# Capped and uncapped runs alternate, BENCH_REPEAT times (2), and the best wall time of each counts: the machine is
# shared, and single runs are noisy. Then the smallest cap (whole MB from 4 to 20) at which each run still
# completes is searched (BENCH_CAP_SEARCH=0 skips it; the daemon's wrk runs 5 s there).
# Budgets (exit 1 if one fails): no process killed, the store the same as uncapped (same export), the daemon exits
# 0 on SIGTERM, wall time <= 1.2x uncapped (the daemon: start-up sync plus the no-op sync).
#   BENCH_CONTACTS=10000 BENCH_REPEAT=3 Deploy/bench/capped.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/memcap.sh
source Deploy/lib/memcap.sh
memcap_detect
if [[ -z $memcap_kind ]]; then
    echo "capped runs skipped: $memcap_why"
    exit 0
fi
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
contacts=${BENCH_CONTACTS:-50000}
cap_kb=$((${BENCH_CAP_MB:-20} * 1024))
repeat=${BENCH_REPEAT:-2}
seconds=${BENCH_WRK_SECONDS:-30}

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
bench_on_exit+=(memcap_remove)
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"
radicale_start "$contacts"
memcap_drop_caches
echo "memory cgroup: $memcap_kind; page cache before each run: $memcap_cold; $contacts contacts"

# store_digest FOLDER: the SHA-256 of the store's export (the same contacts, the same bytes).
store_digest() {
    if [[ -e $1/contacts.sqlite ]]; then
        { "$contactbox" export --db "$1/contacts.sqlite" 2>/dev/null || echo "export failed"; } | sha256sum | cut -c1-16
    else
        echo "no store"
    fi
}

# enter CAP_KB NAME: a fresh cgroup limited to CAP_KB (0: none); sets prefix. A run that a cap makes hang in
# reclaim is killed after `limit` seconds (the watchdog).
enter() {
    memcap_remove
    prefix=()
    if (($1 > 0)); then
        memcap_make "$2" "$1"
        prefix=("${memcap_prefix[@]}")
    fi
    memcap_drop_caches
}
# leave: sets oom (processes the kernel killed) and group_kb (the group's peak usage, page cache included).
leave() {
    oom=0 group_kb='-'
    if [[ -n $memcap_dir ]]; then
        memcap_events
        oom=$memcap_oom_kills group_kb=$memcap_peak_kb
    fi
    memcap_remove
}
# watchdog SECONDS: kills what runs in the cgroup if it runs longer (where there is a cgroup); unwatch ends it.
watchdog() {
    watchdog_pid=
    [[ -n $memcap_dir ]] || return 0
    local dir=$memcap_dir
    (
        sleep "$1" &
        # shellcheck disable=SC2064 # this sleep's PID, now
        trap "kill $! 2>/dev/null; exit 0" TERM
        wait $!
        xargs -r kill -KILL <"$dir/cgroup.procs"
    ) >/dev/null 2>&1 &
    watchdog_pid=$!
}
unwatch() {
    [[ -n $watchdog_pid ]] || return 0
    kill "$watchdog_pid" 2>/dev/null || true
    wait "$watchdog_pid" 2>/dev/null || true
}

# run_sync CAP_KB NAME: sets wall_s, ok (1 if it completed), digest, oom, group_kb, fp_kb, hwm_kb.
run_sync() {
    rm -rf "${work:?}/$2" && mkdir -p "$work/$2"
    printf 'store = "%s"\n%s' "$work/$2/contacts.sqlite" "$(carddav_remote)" >"$work/$2/contactbox.toml"
    enter "$1" "$2"
    watchdog "${limit:-3600}"
    local code=0
    footprint_run "$work/$2.fp" "${prefix[@]}" "$contactbox" sync --config "$work/$2/contactbox.toml" \
        >"$work/$2/out.log" 2>"$work/$2/err.log" || code=$?
    unwatch
    leave
    ok=$((code == 0 && oom == 0))
    why="exit status $code, $oom OOM kills"
    digest=$(store_digest "$work/$2")
}

# run_daemon CAP_KB NAME WRK_SECONDS: sets startup_s, noop_s, wall_s (their sum), rps, ok, digest, oom, group_kb,
# fp_kb, hwm_kb.
run_daemon() {
    rm -rf "${work:?}/$2"
    enter "$1" "$2"
    local t0 t1 t1b t2
    t0=$(date +%s.%N)
    daemon_start "$2" 1h "$(carddav_remote)" "${prefix[@]}"
    watchdog "${limit:-3600}"
    footprint_watch "$pid" "$work/$2.fp"
    ok=1 rps=0 startup_s=0 noop_s=0 runs_ok=0
    if daemon_wait_runs 1 "${limit:-3600}"; then
        t1=$(date +%s.%N)
        wrk -t2 -c8 -d"${3}s" "$status/api/status" >"$work/$2/wrk.txt" || ok=0
        rps=$(awk '/Requests\/sec/ { printf "%d", $2 }' "$work/$2/wrk.txt")
        if grep -q 'Non-2xx' "$work/$2/wrk.txt"; then ok=0; fi
        t1b=$(date +%s.%N)
        curl -s -o /dev/null -X POST "$status/api/sync"
        daemon_wait_runs 2 "${limit:-3600}" || ok=0
        t2=$(date +%s.%N)
        runs_ok=$(daemon_runs ok)
        ((runs_ok == 2)) || ok=0
        startup_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
        noop_s=$(awk -v a="$t1b" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')
    else
        ok=0
    fi
    daemon_stop
    unwatch
    footprint_stop "$work/$2.fp"
    leave
    ((daemon_exit == 0 && oom == 0)) || ok=0
    why="exit status $daemon_exit, $oom OOM kills, $runs_ok of 2 sync runs ok"
    wall_s=$(awk -v a="$startup_s" -v b="$noop_s" 'BEGIN { printf "%.2f", a + b }')
    digest=$(store_digest "$work/$2")
}

group_mb() { if [[ $group_kb =~ ^[0-9]+$ ]]; then mb "$group_kb"; else echo "$group_kb"; fi; }
row() { printf '%-8s %-9s %8s %8s %8s %9s %13s %12s %11s %4s  %s\n' "$@"; }
row run cap "wall s" "sync s" "no-op s" "req/s" "footprint MB" "peak RSS MB" "cgroup MB" OOM result
failures=()
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
declare -A wall digest_of
for r in $(seq "$repeat"); do
    for cap in 0 "$cap_kb"; do
        label=$( ((cap)) && echo "$((cap / 1024)) MB" || echo none)
        run_sync "$cap" "sync-$cap-$r"
        row sync "$label" "$wall_s" "" "" "" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" \
            "$(group_mb)" "$oom" "$digest"
        ((ok)) || failures+=("sync, cap $label, run $r: did not complete (exit status or OOM kill)")
        wall[sync-$cap]=$(best "${wall[sync-$cap]:-}" "$wall_s")
        digest_of[sync-$cap-$r]=$digest

        run_daemon "$cap" "daemon-$cap-$r" "$seconds"
        row daemon "$label" "$wall_s" "$startup_s" "$noop_s" "$rps" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" \
            "$(group_mb)" "$oom" "$digest"
        ((ok)) || failures+=("daemon, cap $label, run $r: did not complete (OOM kill, failed sync or exit status)")
        wall[daemon-$cap]=$(best "${wall[daemon-$cap]:-}" "$wall_s")
        digest_of[daemon-$cap-$r]=$digest
    done
done
reference=${digest_of[sync-0-1]}
for key in "${!digest_of[@]}"; do
    [[ ${digest_of[$key]} == "$reference" ]] || failures+=("$key: the store differs from the uncapped sync's")
done
echo
for run in sync daemon; do
    ratio=$(awk -v a="${wall[$run-$cap_kb]}" -v b="${wall[$run-0]}" 'BEGIN { printf "%.2f", a / b }')
    echo "$run: best wall $(mb "$cap_kb") MB cap ${wall[$run-$cap_kb]} s, uncapped ${wall[$run-0]} s: ${ratio}x"
    awk -v r="$ratio" 'BEGIN { exit !(r <= 1.2) }' || failures+=("$run: capped wall ${ratio}x uncapped, over 1.2x")
done

# --- the smallest cap that still completes -----------------------------------------------------------------------
if [[ ${BENCH_CAP_SEARCH:-1} != 0 ]]; then
    # A run that has not finished in 4x the uncapped time is stopped and counts as not completed.
    for run in sync daemon; do
        limit=$(awk -v w="${wall[$run-0]}" 'BEGIN { printf "%d", 4 * w + 30 }')
        low=4 high=$((cap_kb / 1024)) tried=()
        while ((low < high)); do
            mid=$(((low + high) / 2))
            if [[ $run == sync ]]; then run_sync $((mid * 1024)) "search-$mid"; else
                run_daemon $((mid * 1024)) "search-$mid" 5
            fi
            [[ $digest == "$reference" ]] || ok=0
            tried+=("$mid MB: $( ((ok)) && echo "completed in $wall_s s" || echo "did not complete ($why)")")
            if ((ok)); then high=$mid; else low=$((mid + 1)); fi
        done
        echo "$run: smallest cap that completes: $low MB (tried: $(printf '%s; ' "${tried[@]}"))"
    done
    limit=
fi

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: inside a $((cap_kb / 1024)) MB memory cgroup nothing was killed, the stores equal the uncapped run's," \
    "the daemon exited 0, and wall times are within 1.2x uncapped"
