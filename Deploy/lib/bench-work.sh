# shellcheck shell=bash
# What every benchmark starts with: a scratch folder, $work, removed on exit together
# with the processes it started: those in $pids, the Radicale of bench-radicale.sh
# ($radicale_pid) and the Xandikos of bench-xandikos.sh ($xandikos_pid), stopped by
# PID, and whatever the script adds to $bench_on_exit (a function name: capped.sh
# removes its memory cgroup).
work=$(mktemp -d)
pids=()
bench_on_exit=()
radicale_pid=
xandikos_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
bench_cleanup() {
    local p hook
    for p in "${pids[@]}" ${radicale_pid:+"$radicale_pid"} ${xandikos_pid:+"$xandikos_pid"}; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    for hook in "${bench_on_exit[@]}"; do "$hook"; done
    rm -rf "$work"
}
trap bench_cleanup EXIT
