# shellcheck shell=bash
# Sourced by the benchmarks: the one memory sampler, Deploy/lib/footprint.py (what it measures and how often:
# its docstring and Docs/memory.md). Every function sets the shell variables fp_kb (footprint, the budgeted
# figure), anon_kb, dirty_kb, pss_kb and hwm_kb (peak RSS), in KiB.
#   footprint_run OUT CMD...   runs CMD, sampled from its start; also sets wall_s, majflt (major page faults),
#                              cpu_s (its user + system CPU seconds) and run_status; returns CMD's status
#   footprint_watch PID OUT    samples a running process in the background until footprint_stop OUT
#   footprint_window OUT       the peaks since the previous footprint_window (or the watch's start)
#   footprint_stop OUT         the peaks over the whole watch (the process may have exited meanwhile)
#   footprint_named NAME CMD...  footprint_run with its output in $work/NAME.fp and stderr in $work/NAME.err,
#                              standard output dropped; a failing CMD stops the benchmark, showing its stderr
#   footprint_now PID          one sample now (also sets rss_kb)
#   mb KB                      KiB as MB, one decimal

footprint_py="$(dirname "${BASH_SOURCE[0]}")/footprint.py"
# shellcheck disable=SC2034 # set for the caller
fp_kb=0 anon_kb=0 dirty_kb=0 pss_kb=0 hwm_kb=0 rss_kb=0 wall_s=0 majflt=0 cpu_s=0 run_status=0

footprint_run() {
    local out=$1
    shift
    python3 "$footprint_py" run "$out" "$@"
    # shellcheck disable=SC1090 # written by footprint.py: one line of assignments
    source "$out"
    return "$run_status"
}

footprint_named() {
    local name=$1
    shift
    # shellcheck disable=SC2154 # work: Deploy/lib/bench-work.sh
    if ! footprint_run "$work/$name.fp" "$@" >/dev/null 2>"$work/$name.err"; then
        echo "$name failed:" >&2
        cat "$work/$name.err" >&2
        exit 1
    fi
}

footprint_watch() {
    rm -f "$2" "$2.window" "$2.started"
    python3 "$footprint_py" watch "$1" "$2" &
    footprint_pid=$!
    # Returns after the first sample, so what the caller does next is measured.
    for _ in $(seq 500); do
        [[ -e $2.started ]] && break
        sleep 0.01
    done
}

footprint_window() {
    local lines
    lines=$(wc -l 2>/dev/null <"$1.window" || echo 0)
    kill -USR1 "$footprint_pid"
    for _ in $(seq 500); do
        (($(wc -l 2>/dev/null <"$1.window" || echo 0) > lines)) && break
        sleep 0.01
    done
    # shellcheck disable=SC1090
    source <(tail -1 "$1.window")
}

footprint_stop() {
    kill -TERM "$footprint_pid" 2>/dev/null || true
    wait "$footprint_pid" || true
    # shellcheck disable=SC1090
    source "$1"
}

footprint_now() {
    # shellcheck disable=SC1090
    source <(python3 "$footprint_py" now "$1")
}

mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
